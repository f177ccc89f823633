package tensor

import (
	"math"

	"github.com/thelab/lab/algo/stable"
)

// broadcasts reports whether b broadcasts to a — b's axes, aligned on the
// right, each equal to a's or 1 — and whether b is a suffix of a (its
// shape equals a's trailing axes, or it has one entry), the fast path
// where b's index is a's modulo len(b).
func broadcasts(a, b shape) (ok, suffix bool) {
	if b.r > a.r {
		return false, false
	}
	suffix = true
	for i := 1; i <= b.r; i++ {
		bd, ad := b.d[b.r-i], a.d[a.r-i]
		if bd != ad {
			if bd != 1 {
				return false, false
			}
			suffix = false
		}
	}
	return true, suffix || b.size() == 1
}

// bcastIndex fills idx (len a.size()) with the index into b of every entry
// of a, for a general broadcast.
func bcastIndex(idx []int, a, b shape) {
	var ad, bs [MaxRank]int // a's axes and b's strides, padded on the left
	off := MaxRank - a.r
	for i := range MaxRank {
		ad[i] = 1
	}
	copy(ad[off:], a.d[:a.r])
	stride := 1
	for i := 1; i <= b.r; i++ {
		if b.d[b.r-i] != 1 {
			bs[MaxRank-i] = stride
		}
		stride *= b.d[b.r-i]
	}
	k := 0
	for i0 := range ad[0] {
		for i1 := range ad[1] {
			for i2 := range ad[2] {
				base := i0*bs[0] + i1*bs[1] + i2*bs[2]
				for i3 := range ad[3] {
					idx[k] = base + i3*bs[3]
					k++
				}
			}
		}
	}
}

// Add is a + b, b broadcast to a's shape (a bias [D] added to [N, D], a
// per-row [N, 1] added to [N, D], a scalar anywhere).
func (tp *Tape) Add(a, b *Tensor) *Tensor { return tp.binary(opAdd, "Add", a, b) }

// Sub is a − b, b broadcast to a.
func (tp *Tape) Sub(a, b *Tensor) *Tensor { return tp.binary(opSub, "Sub", a, b) }

// Mul is the elementwise a ⊙ b, b broadcast to a.
func (tp *Tape) Mul(a, b *Tensor) *Tensor { return tp.binary(opMul, "Mul", a, b) }

// Div is the elementwise a / b, b broadcast to a; a zero in b is an error.
func (tp *Tape) Div(a, b *Tensor) *Tensor { return tp.binary(opDiv, "Div", a, b) }

//go:norace
func (tp *Tape) binary(op opKind, name string, a, b *Tensor) *Tensor {
	if !tp.ok(name, a, b) {
		return &tp.bad
	}
	ok, suffix := broadcasts(a.shape, b.shape)
	if !ok {
		return tp.fail(name, "shape %v does not broadcast to %v", b.shape, a.shape)
	}
	if op == opDiv {
		for _, v := range b.Data {
			if v == 0 {
				return tp.fail(name, "division by zero")
			}
		}
	}
	nd := tp.record(op, a.shape, anyGrad(a, b))
	nd.in[0], nd.in[1] = a, b
	x, y, z := a.Data, b.Data, nd.out.Data
	if !suffix {
		nd.bcast = true
		nd.idx = grow(nd.idx, len(x))
		bcastIndex(nd.idx, a.shape, b.shape)
		idx := nd.idx
		switch op {
		case opAdd:
			for i := range z {
				z[i] = x[i] + y[idx[i]]
			}
		case opSub:
			for i := range z {
				z[i] = x[i] - y[idx[i]]
			}
		case opMul:
			for i := range z {
				z[i] = x[i] * y[idx[i]]
			}
		case opDiv:
			for i := range z {
				z[i] = x[i] / y[idx[i]]
			}
		}
		return &nd.out
	}
	bs := len(y)
	for o := 0; o < len(z); o += bs {
		xo, zo := x[o:o+bs], z[o:o+bs]
		switch op {
		case opAdd:
			for j, v := range y {
				zo[j] = xo[j] + v
			}
		case opSub:
			for j, v := range y {
				zo[j] = xo[j] - v
			}
		case opMul:
			for j, v := range y {
				zo[j] = xo[j] * v
			}
		case opDiv:
			for j, v := range y {
				zo[j] = xo[j] / v
			}
		}
	}
	return &nd.out
}

//go:norace
func (nd *node) backBinary() {
	a, b := nd.in[0], nd.in[1]
	g, x, y, z := nd.out.Grad, a.Data, b.Data, nd.out.Data
	ga, gb := a.Grad, b.Grad
	if nd.bcast {
		idx := nd.idx
		for i, v := range g {
			j := idx[i]
			switch nd.op {
			case opAdd:
				addTo(ga, i, v)
				addTo(gb, j, v)
			case opSub:
				addTo(ga, i, v)
				addTo(gb, j, -v)
			case opMul:
				addTo(ga, i, v*y[j])
				addTo(gb, j, v*x[i])
			case opDiv:
				addTo(ga, i, v/y[j])
				addTo(gb, j, -v*z[i]/y[j])
			}
		}
		return
	}
	bs := len(y)
	for o := 0; o < len(g); o += bs {
		go_, xo, zo := g[o:o+bs], x[o:o+bs], z[o:o+bs]
		if ga != nil {
			gao := ga[o : o+bs]
			switch nd.op {
			case opAdd, opSub:
				for j, v := range go_ {
					gao[j] += v
				}
			case opMul:
				for j, v := range go_ {
					gao[j] += v * y[j]
				}
			case opDiv:
				for j, v := range go_ {
					gao[j] += v / y[j]
				}
			}
		}
		if gb != nil {
			switch nd.op {
			case opAdd:
				for j, v := range go_ {
					gb[j] += v
				}
			case opSub:
				for j, v := range go_ {
					gb[j] -= v
				}
			case opMul:
				for j, v := range go_ {
					gb[j] += v * xo[j]
				}
			case opDiv:
				for j, v := range go_ {
					gb[j] -= v * zo[j] / y[j]
				}
			}
		}
	}
}

// addTo adds v to g[i] when g is not nil.
func addTo(g []float64, i int, v float64) {
	if g != nil {
		g[i] += v
	}
}

// Scale is c·a.
func (tp *Tape) Scale(a *Tensor, c float64) *Tensor { return tp.unary(opScale, "Scale", a, c) }

// AddConst is a + c.
func (tp *Tape) AddConst(a *Tensor, c float64) *Tensor {
	return tp.unary(opAddConst, "AddConst", a, c)
}

// Neg is −a.
func (tp *Tape) Neg(a *Tensor) *Tensor { return tp.unary(opScale, "Neg", a, -1) }

// Exp is e^a elementwise.
func (tp *Tape) Exp(a *Tensor) *Tensor { return tp.unary(opExp, "Exp", a, 0) }

// Log is ln a elementwise; an entry ≤ 0 is an error.
func (tp *Tape) Log(a *Tensor) *Tensor { return tp.unary(opLog, "Log", a, 0) }

// Tanh is tanh a elementwise.
func (tp *Tape) Tanh(a *Tensor) *Tensor { return tp.unary(opTanh, "Tanh", a, 0) }

// Sigmoid is 1/(1 + e^{−a}) elementwise, evaluated without overflow.
func (tp *Tape) Sigmoid(a *Tensor) *Tensor { return tp.unary(opSigmoid, "Sigmoid", a, 0) }

// Relu is max(a, 0) elementwise, with derivative 0 at 0 (a kink).
func (tp *Tape) Relu(a *Tensor) *Tensor { return tp.unary(opRelu, "Relu", a, 0) }

// Square is a² elementwise.
func (tp *Tape) Square(a *Tensor) *Tensor { return tp.unary(opSquare, "Square", a, 0) }

// Sqrt is √a elementwise; a negative entry is an error (at 0 the
// derivative is +Inf).
func (tp *Tape) Sqrt(a *Tensor) *Tensor { return tp.unary(opSqrt, "Sqrt", a, 0) }

// Abs is |a| elementwise, with derivative 0 at 0 (a kink).
func (tp *Tape) Abs(a *Tensor) *Tensor { return tp.unary(opAbs, "Abs", a, 0) }

// Softplus is log(1 + e^a) elementwise, evaluated without overflow
// (algo/stable).
func (tp *Tape) Softplus(a *Tensor) *Tensor { return tp.unary(opSoftplus, "Softplus", a, 0) }

//go:norace
func (tp *Tape) unary(op opKind, name string, a *Tensor, c float64) *Tensor {
	if !tp.ok(name, a) {
		return &tp.bad
	}
	x := a.Data
	switch op {
	case opLog:
		for _, v := range x {
			if !(v > 0) {
				return tp.fail(name, "log of %g", v)
			}
		}
	case opSqrt:
		for _, v := range x {
			if v < 0 || math.IsNaN(v) {
				return tp.fail(name, "square root of %g", v)
			}
		}
	}
	nd := tp.record(op, a.shape, a.Grad != nil)
	nd.in[0] = a
	nd.farg[0] = c
	z := nd.out.Data
	switch op {
	case opScale:
		for i, v := range x {
			z[i] = c * v
		}
	case opAddConst:
		for i, v := range x {
			z[i] = v + c
		}
	case opExp:
		for i, v := range x {
			z[i] = math.Exp(v)
		}
	case opLog:
		for i, v := range x {
			z[i] = math.Log(v)
		}
	case opTanh:
		for i, v := range x {
			z[i] = stable.Tanh(v)
		}
	case opSigmoid:
		for i, v := range x {
			z[i] = stable.Sigmoid(v)
		}
	case opRelu:
		for i, v := range x {
			z[i] = max(v, 0)
		}
	case opSquare:
		for i, v := range x {
			z[i] = v * v
		}
	case opSqrt:
		for i, v := range x {
			z[i] = math.Sqrt(v)
		}
	case opAbs:
		for i, v := range x {
			z[i] = math.Abs(v)
		}
	case opSoftplus:
		for i, v := range x {
			z[i] = stable.Softplus(v)
		}
	}
	if tp.kinks && (op == opRelu || op == opAbs) {
		for _, v := range x {
			var bit uint64
			if v > 0 {
				bit = 1
			}
			tp.kink(bit, math.Abs(v))
		}
	}
	return &nd.out
}

//go:norace
func (nd *node) backUnary() {
	a := nd.in[0]
	ga := a.Grad
	g, x, z := nd.out.Grad, a.Data, nd.out.Data
	switch nd.op {
	case opScale:
		c := nd.farg[0]
		for i, v := range g {
			ga[i] += c * v
		}
	case opAddConst:
		for i, v := range g {
			ga[i] += v
		}
	case opExp:
		for i, v := range g {
			ga[i] += v * z[i]
		}
	case opLog:
		for i, v := range g {
			ga[i] += v / x[i]
		}
	case opTanh:
		for i, v := range g {
			ga[i] += v * (1 - z[i]*z[i])
		}
	case opSigmoid:
		for i, v := range g {
			ga[i] += v * z[i] * (1 - z[i])
		}
	case opRelu:
		for i, v := range g {
			if x[i] > 0 {
				ga[i] += v
			}
		}
	case opSquare:
		for i, v := range g {
			ga[i] += 2 * v * x[i]
		}
	case opSqrt:
		for i, v := range g {
			ga[i] += 0.5 * v / z[i]
		}
	case opAbs:
		for i, v := range g {
			switch {
			case x[i] > 0:
				ga[i] += v
			case x[i] < 0:
				ga[i] -= v
			}
		}
	case opSoftplus:
		for i, v := range g {
			ga[i] += v * stable.Sigmoid(x[i])
		}
	}
}
