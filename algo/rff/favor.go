package rff

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/thelab/lab/algo"
)

// PositiveFeature is one positive random feature of the softmax kernel,
// e^{wᵀx − ‖x‖²/2}, unscaled (the map φ₊(x) of the seed-003/004 catalogue
// R4 is m^{−½} times m of them). For w ~ N(0, I),
//
//	E[e^{wᵀx−‖x‖²/2} e^{wᵀz−‖z‖²/2}] = e^{‖x+z‖²/2 − ‖x‖²/2 − ‖z‖²/2} = e^{xᵀz}
//
// since E e^{wᵀu} = e^{‖u‖²/2} (the Gaussian's moment generating function).
func PositiveFeature(w, x []float64) float64 { return math.Exp(dot(w, x) - dot(x, x)/2) }

// Favor is softmax attention softmax(QKᵀ/√d)V computed exactly, O(n²d), and
// by Performer's FAVOR+ (Choromanski et al., ICLR 2021; the successor of
// the preprint seed 004 L93 cites; the seed itself has only trigonometric
// features, erratum 16 of the seed-003/004 catalogue) in linear time
// O(n m d):
//
//	Att ≈ D̂⁻¹ φ(Q′)(φ(K′)ᵀV),  D̂ = diag(φ(Q′)(φ(K′)ᵀ1)),
//
// with Q′ = Q/d^{¼}, K′ = K/d^{¼} (the usual 1/√d temperature, which the
// seed does not have) and φ the positive features. One Step adds one
// frequency w_l: it forms s_l = Σ_j φ_l(k_j)v_j and z_l = Σ_j φ_l(k_j) in
// O(n d_v) and adds φ_l(q_i)s_l and φ_l(q_i)z_l to each row's numerator and
// denominator, never an n×n matrix. (The m^{−½} scales cancel in the
// ratio.) For the picture it also keeps Û = Σ_l φ_l(Q′)φ_l(K′)ᵀ, O(n²) a
// step, whose rows sum to the denominators D̂.
type Favor struct {
	n, d, dv int
	s        *Sampler
	q, k     [][]float64 // scaled by d^{−¼}
	v        [][]float64
	sm       []float64 // exp(q′_iᵀk′_j), n×n
	attn     []float64 // softmax rows, n×n
	out      []float64 // exact output, n×dv
	smNorm   float64
	var1     float64 // Σ_ij Var of one feature's estimate of sm_ij
	m        int
	w        []float64
	a, b     []float64 // φ_l(q′_i), φ_l(k′_j) of the last frequency
	sv       []float64 // s_l, dv
	num      []float64 // n×dv numerators
	den      []float64 // n denominators D̂_i
	u        []float64 // Û, n×n
}

// FavorFootprint is the bytes NewFavor allocates for n tokens of dimension
// d with values of dimension dv (the sampler is the caller's): the engine,
// the n×n matrices SM, A and Û, the scaled queries and keys and the copied
// values (n rows each, with their headers), the exact and linear outputs
// and the vectors of one frequency.
func FavorFootprint(n, d, dv int) int64 {
	n64, d64, dv64 := int64(n), int64(d), int64(dv)
	const header = int64(unsafe.Sizeof([]float64(nil)))
	return int64(unsafe.Sizeof(Favor{})) + 3*n64*header +
		8*(3*n64*n64+2*n64*d64+3*n64*dv64+3*n64+d64+dv64)
}

// NewFavor takes queries and keys (n×d) and values (n×dv), not kept, and a
// sampler of dimension d with γ = ½ (w ~ N(0, I)); iid or orthogonal
// frequencies (not SORF, whose fixed norms would bias the features). Orthogonal rows come from explicit Gram–Schmidt, so their
// signs are symmetric (the Householder-QR sign trap of catalogue R6, which
// would bias these sign-sensitive features, does not arise).
func NewFavor(q, k, v [][]float64, s *Sampler) (*Favor, error) {
	n := len(q)
	if n == 0 || len(k) != n || len(v) != n {
		return nil, algo.BadParam("n", n, "at least one token, with as many keys and values as queries")
	}
	if s == nil {
		return nil, algo.BadParam("sampler", nil, "a frequency sampler")
	}
	d, dv := len(q[0]), len(v[0])
	if d != s.d {
		return nil, algo.BadParam("d", d, fmt.Sprintf("the sampler's dimension %d", s.d))
	}
	if math.Abs(s.scale-1) > 1e-12 {
		return nil, algo.BadParam("gamma", s.scale*s.scale/2, "0.5 (w ~ N(0, I)) for the softmax kernel")
	}
	if s.kind == SORF {
		// SORF's rows have the fixed norm √p, not a χ(d) one: they are not
		// N(0, I), and E e^{wᵀu} is no longer e^{‖u‖²/2}.
		return nil, algo.BadParam("features", s.kind, "iid or orf (each row N(0, I), so that the features are unbiased)")
	}
	if dv == 0 {
		return nil, algo.BadParam("dv", dv, "at least 1")
	}
	for i := range q {
		if len(q[i]) != d || len(k[i]) != d || len(v[i]) != dv {
			return nil, algo.BadParam("tokens", i, "rows of equal length")
		}
		for _, row := range [][]float64{q[i], k[i], v[i]} {
			for _, x := range row {
				if math.IsNaN(x) || math.IsInf(x, 0) {
					return nil, algo.BadParam("tokens", x, "finite")
				}
			}
		}
	}
	f := &Favor{
		n: n, d: d, dv: dv, s: s,
		sm: make([]float64, n*n), attn: make([]float64, n*n), out: make([]float64, n*dv),
		w: make([]float64, d), a: make([]float64, n), b: make([]float64, n), sv: make([]float64, dv),
		num: make([]float64, n*dv), den: make([]float64, n), u: make([]float64, n*n),
	}
	c := math.Pow(float64(d), -0.25)
	scaled := func(x [][]float64) [][]float64 {
		out := make([][]float64, n)
		for i, r := range x {
			out[i] = make([]float64, d)
			for j, t := range r {
				out[i][j] = c * t
			}
		}
		return out
	}
	f.q, f.k = scaled(q), scaled(k)
	f.v = make([][]float64, n)
	for i := range v {
		f.v[i] = append([]float64(nil), v[i]...)
	}
	for i := 0; i < n; i++ {
		rowSum := 0.0
		for j := 0; j < n; j++ {
			e := math.Exp(dot(f.q[i], f.k[j]))
			f.sm[i*n+j] = e
			rowSum += e
			f.smNorm += e * e
			u := 0.0
			for t := range f.q[i] {
				u += (f.q[i][t] + f.k[j][t]) * (f.q[i][t] + f.k[j][t])
			}
			f.var1 += e * e * math.Expm1(u)
		}
		for j := 0; j < n; j++ {
			p := f.sm[i*n+j] / rowSum
			f.attn[i*n+j] = p
			for t := 0; t < dv; t++ {
				f.out[i*dv+t] += p * f.v[j][t]
			}
		}
	}
	f.smNorm = math.Sqrt(f.smNorm)
	return f, nil
}

// Step draws one frequency and adds its feature to the linear-time
// numerators and denominators (and to Û). It does not allocate.
func (f *Favor) Step() error {
	f.s.Next(f.w)
	for i := 0; i < f.n; i++ {
		f.a[i] = PositiveFeature(f.w, f.q[i])
		f.b[i] = PositiveFeature(f.w, f.k[i])
	}
	for t := range f.sv {
		f.sv[t] = 0
	}
	z := 0.0
	for j, bj := range f.b {
		z += bj
		for t, vt := range f.v[j] {
			f.sv[t] += bj * vt
		}
	}
	for i, ai := range f.a {
		f.den[i] += ai * z
		row := f.num[i*f.dv : (i+1)*f.dv]
		for t, st := range f.sv {
			row[t] += ai * st
		}
		u := f.u[i*f.n : (i+1)*f.n]
		for j, bj := range f.b {
			u[j] += ai * bj
		}
	}
	f.m++
	return nil
}

// M is the number of frequencies drawn.
func (f *Favor) M() int { return f.m }

// N is the number of tokens.
func (f *Favor) N() int { return f.n }

// Attention returns the exact attention matrix softmax(Q′K′ᵀ) (a view).
func (f *Favor) Attention() []float64 { return f.attn }

// Denominators returns D̂_i = Σ_l φ_l(q′_i)Σ_j φ_l(k′_j), the linear route's
// row normalisers (a view; m times the unbiased estimate of Σ_j SM_ij).
func (f *Favor) Denominators() []float64 { return f.den }

// U returns Û = Σ_l φ_l(Q′)φ_l(K′)ᵀ (a view), m times the unbiased
// estimate of the softmax kernel matrix.
func (f *Favor) U() []float64 { return f.u }

// ApproxAttention writes D̂⁻¹Û, the attention matrix FAVOR+ implies, into
// dst (n×n); before the first step it writes NaN.
func (f *Favor) ApproxAttention(dst []float64) {
	for i := 0; i < f.n; i++ {
		for j := 0; j < f.n; j++ {
			dst[i*f.n+j] = f.u[i*f.n+j] / f.den[i]
			if f.m == 0 {
				dst[i*f.n+j] = math.NaN()
			}
		}
	}
}

// Output writes the linear route's output D̂⁻¹φ(Q′)(φ(K′)ᵀV) into dst
// (n×dv).
func (f *Favor) Output(dst []float64) {
	for i := 0; i < f.n; i++ {
		for t := 0; t < f.dv; t++ {
			dst[i*f.dv+t] = f.num[i*f.dv+t] / f.den[i]
		}
	}
}

// ExactOutput returns softmax(Q′K′ᵀ)V (a view).
func (f *Favor) ExactOutput() []float64 { return f.out }

// AttentionError is ‖D̂⁻¹Û − A‖_F/‖A‖_F (NaN before the first step).
func (f *Favor) AttentionError() float64 {
	if f.m == 0 {
		return math.NaN()
	}
	return rowScaledError(f.u, f.den, f.attn, f.n)
}

// OutputError is ‖Ô − O‖_F/‖O‖_F of the outputs (NaN before the first
// step).
func (f *Favor) OutputError() float64 {
	if f.m == 0 {
		return math.NaN()
	}
	return rowScaledError(f.num, f.den, f.out, f.dv)
}

// rowScaledError is ‖D⁻¹E − R‖_F/‖R‖_F for an estimate E and a reference
// R of cols columns (row-major) and the row scales D = diag(den).
func rowScaledError(est, den, ref []float64, cols int) float64 {
	s, r2 := 0.0, 0.0
	for k, r := range ref {
		e := est[k]/den[k/cols] - r
		s += e * e
		r2 += r * r
	}
	return math.Sqrt(s / r2)
}

// KernelError is ‖Û/m − SM‖_F/‖SM‖_F, the error of the unbiased estimate of
// the un-normalised matrix SM_ij = exp(q′_iᵀk′_j) (NaN before the first
// step).
func (f *Favor) KernelError() float64 {
	if f.m == 0 {
		return math.NaN()
	}
	s := 0.0
	for i, u := range f.u {
		e := u/float64(f.m) - f.sm[i]
		s += e * e
	}
	return math.Sqrt(s) / f.smNorm
}

// TheoryKernelError is the root-mean-square of KernelError for iid
// features, √(Σ_ij Var_ij/m)/‖SM‖_F with the per-feature variance
// Var_ij = SM_ij²(e^{‖q′_i+k′_j‖²} − 1) (catalogue R4's MSE₊, MC-checked
// there): a line of slope −½ on log-log axes.
func (f *Favor) TheoryKernelError(m int) float64 {
	return math.Sqrt(f.var1/float64(m)) / f.smNorm
}

// Cost returns the multiply-adds of the linear route with m features,
// n·m·(2d + 2d_v) (the features of queries and keys, then φ(K)ᵀV and
// φ(Q)·), and of exact attention, n²(d + d_v).
func (f *Favor) Cost(m int) (linear, exact float64) {
	n := float64(f.n)
	return n * float64(m) * float64(2*f.d+2*f.dv), n * n * float64(f.d+f.dv)
}
