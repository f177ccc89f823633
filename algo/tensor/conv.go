package tensor

import "math"

// convOut is the output length of a window of size k sliding with stride s
// over n entries padded by p on each side: ⌊(n + 2p − k)/s⌋ + 1 (the
// output-size formula of the conv pane).
func convOut(n, k, s, p int) int { return (n+2*p-k)/s + 1 }

// Conv2D is the 2-D convolution of CNNs — a cross-correlation, the kernel
// not flipped — of x [N, C, H, W] with weights w [F, C, KH, KW], stride
// and zero padding on each side, plus a bias b [F] (nil for none):
//
//	out[n, f, i, j] = b_f + Σ_{c, u, v} w[f, c, u, v] · x[n, c, i·s + u − p, j·s + v − p]
//
// giving [N, F, OH, OW] with OH = ⌊(H + 2p − KH)/s⌋ + 1. Each image is
// unrolled into its patches (im2col, kept for the backward pass) and
// multiplied by the weights in one BLAS product.
//
//go:norace
func (tp *Tape) Conv2D(x, w, b *Tensor, stride, pad int) *Tensor {
	if !tp.ok("Conv2D", x, w) || b != nil && !tp.ok("Conv2D", b) {
		return &tp.bad
	}
	if x.shape.r != 4 || w.shape.r != 4 {
		return tp.fail("Conv2D", "needs x [N, C, H, W] and w [F, C, KH, KW], got %v and %v", x.shape, w.shape)
	}
	N, C, H, W := x.shape.d[0], x.shape.d[1], x.shape.d[2], x.shape.d[3]
	F, KH, KW := w.shape.d[0], w.shape.d[2], w.shape.d[3]
	if w.shape.d[1] != C {
		return tp.fail("Conv2D", "x has %d channels, w expects %d", C, w.shape.d[1])
	}
	if b != nil && (b.shape.r != 1 || b.shape.d[0] != F) {
		return tp.fail("Conv2D", "bias shape %v, want [%d]", b.shape, F)
	}
	if stride < 1 || pad < 0 {
		return tp.fail("Conv2D", "stride %d and padding %d: need stride ≥ 1, padding ≥ 0", stride, pad)
	}
	OH, OW := convOut(H, KH, stride, pad), convOut(W, KW, stride, pad)
	if OH < 1 || OW < 1 {
		return tp.fail("Conv2D", "a %d×%d kernel with padding %d does not fit a %d×%d image", KH, KW, pad, H, W)
	}
	nd := tp.record(opConv2D, shape{d: [MaxRank]int{N, F, OH, OW}, r: 4}, anyGrad(x, w, b))
	nd.in = [3]*Tensor{x, w, b}
	nd.iarg = [6]int{stride, pad, OH, OW}
	ckk, ohw := C*KH*KW, OH*OW
	nd.aux = grow(nd.aux, N*ckk*ohw)
	for n := range N {
		cols := nd.aux[n*ckk*ohw : (n+1)*ckk*ohw]
		im2col(cols, x.Data[n*C*H*W:(n+1)*C*H*W], C, H, W, KH, KW, stride, pad, OH, OW)
		out := nd.out.Data[n*F*ohw : (n+1)*F*ohw]
		gemm(false, false, F, ohw, ckk, w.Data, ckk, cols, ohw, 0, out, ohw, &nd.pack)
		if b != nil {
			for f, bv := range b.Data {
				o := out[f*ohw : (f+1)*ohw]
				for j := range o {
					o[j] += bv
				}
			}
		}
	}
	return &nd.out
}

// im2col writes the patches of one image x [C, H, W] as the columns of
// cols [C·KH·KW, OH·OW].
//
//go:norace
func im2col(cols, x []float64, C, H, W, KH, KW, s, p, OH, OW int) {
	r := 0
	for c := range C {
		for u := range KH {
			for v := range KW {
				row := cols[r*OH*OW : (r+1)*OH*OW]
				for i := range OH {
					ih := i*s + u - p
					seg := row[i*OW : (i+1)*OW]
					if ih < 0 || ih >= H {
						clear(seg)
						continue
					}
					xr := x[(c*H+ih)*W : (c*H+ih+1)*W]
					for j := range OW {
						iw := j*s + v - p
						if iw < 0 || iw >= W {
							seg[j] = 0
						} else {
							seg[j] = xr[iw]
						}
					}
				}
				r++
			}
		}
	}
}

// col2im adds the columns of dcols back into dx [C, H, W] (im2col's
// adjoint).
//
//go:norace
func col2im(dx, dcols []float64, C, H, W, KH, KW, s, p, OH, OW int) {
	r := 0
	for c := range C {
		for u := range KH {
			for v := range KW {
				row := dcols[r*OH*OW : (r+1)*OH*OW]
				for i := range OH {
					ih := i*s + u - p
					if ih < 0 || ih >= H {
						continue
					}
					xr := dx[(c*H+ih)*W : (c*H+ih+1)*W]
					for j, g := range row[i*OW : (i+1)*OW] {
						if iw := j*s + v - p; iw >= 0 && iw < W {
							xr[iw] += g
						}
					}
				}
				r++
			}
		}
	}
}

//go:norace
func (nd *node) backConv2D() {
	x, w, b := nd.in[0], nd.in[1], nd.in[2]
	N, C, H, W := x.shape.d[0], x.shape.d[1], x.shape.d[2], x.shape.d[3]
	F, KH, KW := w.shape.d[0], w.shape.d[2], w.shape.d[3]
	s, p, OH, OW := nd.iarg[0], nd.iarg[1], nd.iarg[2], nd.iarg[3]
	ckk, ohw := C*KH*KW, OH*OW
	if x.Grad != nil {
		nd.aux2 = grow(nd.aux2, ckk*ohw)
	}
	for n := range N {
		g := nd.out.Grad[n*F*ohw : (n+1)*F*ohw]
		cols := nd.aux[n*ckk*ohw : (n+1)*ckk*ohw]
		if w.Grad != nil { // dW += dOut · colsᵀ
			gemm(false, true, F, ckk, ohw, g, ohw, cols, ohw, 1, w.Grad, ckk, &nd.pack)
		}
		if x.Grad != nil { // dcols = Wᵀ · dOut, then back into the image
			gemm(true, false, ckk, ohw, F, w.Data, ckk, g, ohw, 0, nd.aux2, ohw, &nd.pack)
			col2im(x.Grad[n*C*H*W:(n+1)*C*H*W], nd.aux2, C, H, W, KH, KW, s, p, OH, OW)
		}
		if b != nil && b.Grad != nil {
			for f := range F {
				sum := 0.0
				for _, v := range g[f*ohw : (f+1)*ohw] {
					sum += v
				}
				b.Grad[f] += sum
			}
		}
	}
}

// MaxPool2D takes the maximum of each k×k window of x [N, C, H, W] moved
// by stride (no padding): [N, C, OH, OW], OH = ⌊(H − k)/stride⌋ + 1. The
// gradient flows to the window's first maximum (a kink where two tie).
func (tp *Tape) MaxPool2D(x *Tensor, k, stride int) *Tensor {
	return tp.pool(opMaxPool, "MaxPool2D", x, k, stride)
}

// AvgPool2D averages each k×k window of x [N, C, H, W] moved by stride.
func (tp *Tape) AvgPool2D(x *Tensor, k, stride int) *Tensor {
	return tp.pool(opAvgPool, "AvgPool2D", x, k, stride)
}

//go:norace
func (tp *Tape) pool(op opKind, name string, x *Tensor, k, stride int) *Tensor {
	if !tp.ok(name, x) {
		return &tp.bad
	}
	if x.shape.r != 4 {
		return tp.fail(name, "needs x [N, C, H, W], got %v", x.shape)
	}
	if k < 1 || stride < 1 {
		return tp.fail(name, "window %d and stride %d must be ≥ 1", k, stride)
	}
	N, C, H, W := x.shape.d[0], x.shape.d[1], x.shape.d[2], x.shape.d[3]
	OH, OW := convOut(H, k, stride, 0), convOut(W, k, stride, 0)
	if OH < 1 || OW < 1 {
		return tp.fail(name, "a %d×%d window does not fit a %d×%d image", k, k, H, W)
	}
	nd := tp.record(op, shape{d: [MaxRank]int{N, C, OH, OW}, r: 4}, x.Grad != nil)
	nd.in[0] = x
	nd.iarg = [6]int{k, stride, OH, OW}
	z := nd.out.Data
	if op == opMaxPool {
		nd.idx = grow(nd.idx, len(z))
	}
	inv := 1 / float64(k*k)
	o := 0
	for nc := range N * C {
		img := x.Data[nc*H*W : (nc+1)*H*W]
		for i := range OH {
			for j := range OW {
				base := i*stride*W + j*stride
				if op == opAvgPool {
					s := 0.0
					for u := range k {
						for _, v := range img[base+u*W : base+u*W+k] {
							s += v
						}
					}
					z[o] = s * inv
					o++
					continue
				}
				best, second, arg := math.Inf(-1), math.Inf(-1), base
				for u := range k {
					for v := range k {
						val := img[base+u*W+v]
						if val > best {
							best, second, arg = val, best, base+u*W+v
						} else if val > second {
							second = val
						}
					}
				}
				z[o] = best
				nd.idx[o] = nc*H*W + arg
				if tp.kinks {
					tp.kink(uint64(arg-base), best-second)
				}
				o++
			}
		}
	}
	return &nd.out
}

//go:norace
func (nd *node) backPool() {
	x := nd.in[0]
	g, ga := nd.out.Grad, x.Grad
	if nd.op == opMaxPool {
		for o, v := range g {
			ga[nd.idx[o]] += v
		}
		return
	}
	H, W := x.shape.d[2], x.shape.d[3]
	k, stride, OH, OW := nd.iarg[0], nd.iarg[1], nd.iarg[2], nd.iarg[3]
	inv := 1 / float64(k*k)
	o := 0
	for nc := range x.shape.d[0] * x.shape.d[1] {
		img := ga[nc*H*W : (nc+1)*H*W]
		for i := range OH {
			for j := range OW {
				base := i*stride*W + j*stride
				v := g[o] * inv
				for u := range k {
					row := img[base+u*W : base+u*W+k]
					for t := range row {
						row[t] += v
					}
				}
				o++
			}
		}
	}
}
