package linear

import (
	"fmt"
	"math"
	"slices"

	"github.com/thelab/lab/algo"
	"gonum.org/v1/gonum/mat"
)

// Basis is a polynomial basis φ_0, …, φ_p−1 of the polynomials of degree
// < p on [−1, 1].
//
// Every basis spans the same space, so the interpolant of Theorem 3.2 is
// the same polynomial in each; what changes is the conditioning of the
// matrix Φ_ij = φ_j(x_i) the solver sees (and, for ridge, which norm of the
// coefficients is penalised). The monomials x^j all look alike near ±1 as j
// grows, so the columns of the Vandermonde matrix become nearly parallel
// and cond(Φ) grows exponentially in p whatever the points. The Chebyshev
// polynomials T_j(cos θ) = cos jθ are bounded by 1 on [−1, 1] and
// orthogonal, so for well-spread points the columns stay far from
// parallel: at the n Chebyshev nodes ΦᵀΦ = diag(n, n/2, …, n/2) and
// cond(Φ) = √2, where the Vandermonde matrix has cond ≈ 10¹⁰ at n = 40
// (both tested). At random or equispaced points part of the
// ill-conditioning belongs to the points themselves (the interpolation
// problem is ill-posed there, Runge's phenomenon) and no basis removes it:
// Chebyshev and Legendre then gain one to three orders of magnitude over
// monomials. Legendre polynomials (orthogonal for the flat weight) behave
// like Chebyshev's. Chebyshev is the default.
type Basis string

const (
	Chebyshev Basis = "chebyshev" // T_0 = 1, T_1 = x, T_j+1 = 2x T_j − T_j−1
	Legendre  Basis = "legendre"  // P_0 = 1, P_1 = x, (j+1) P_j+1 = (2j+1) x P_j − j P_j−1
	Monomial  Basis = "monomial"  // x^j: the Vandermonde matrix
)

// String is the basis's name.
func (b Basis) String() string { return string(b) }

func (b Basis) valid() bool { return slices.Contains([]Basis{Chebyshev, Legendre, Monomial}, b) }

// Fill writes φ_j(x) into dst[j] for j < len(dst), by the basis's
// three-term recurrence.
func (b Basis) Fill(dst []float64, x float64) {
	if len(dst) == 0 {
		return
	}
	dst[0] = 1
	if len(dst) == 1 {
		return
	}
	dst[1] = x
	for j := 1; j+1 < len(dst); j++ {
		switch b {
		case Chebyshev:
			dst[j+1] = 2*x*dst[j] - dst[j-1]
		case Legendre:
			dst[j+1] = (float64(2*j+1)*x*dst[j] - float64(j)*dst[j-1]) / float64(j+1)
		default:
			dst[j+1] = x * dst[j]
		}
	}
}

// Eval returns Σ_j c_j φ_j(x) without allocating.
func (b Basis) Eval(c []float64, x float64) float64 {
	if len(c) == 0 {
		return 0
	}
	s, prev, cur := c[0], 1.0, x
	for j := 1; j < len(c); j++ {
		s += c[j] * cur
		var next float64
		switch b {
		case Chebyshev:
			next = 2*x*cur - prev
		case Legendre:
			next = (float64(2*j+1)*x*cur - float64(j)*prev) / float64(j+1)
		default:
			next = x * cur
		}
		prev, cur = cur, next
	}
	return s
}

// MaxInterpPoints and MaxInterpDegree bound an Interp: beyond them the
// picture says nothing more and a step's factorisations grow as O(n p²).
const (
	MaxInterpPoints = 200
	MaxInterpDegree = 100
)

// InterpConfig is the data and the settings of an Interp.
type InterpConfig struct {
	// X and Y are the training points in the order they arrive; the x_i
	// must lie in [−1, 1] and be distinct (Theorem 3.2's hypothesis).
	X, Y []float64
	// TestX and TestY (optional) are held-out points for the test error.
	TestX, TestY []float64
	Basis        Basis
	// Degree is the largest degree fitted; −1 means no limit: with k
	// points the fit has degree k − 1 and interpolates.
	Degree int
	// Lambda > 0 is the ridge weight λ of Definition 3.4.
	Lambda float64
}

// Interp is the exact interpolation of Theorem 3.2 (seed 001 §3,
// L330–L332) next to ridge regression (Definition 3.4, L369; Remark 3.6,
// L387–L393) on the same polynomial features, as the data arrive.
//
// One step = one more data point arrives: with the first k points and
// degree d = min(Degree, k − 1) (p = d + 1 features), both fits are
// recomputed:
//
//   - the interpolant minimises (1/k)‖Φθ − y‖²; when d = k − 1 the k×k
//     matrix Φ is non-singular for distinct x_i (a Vandermonde matrix in
//     another basis: det ≠ 0), so the training error is 0 (Theorem 3.2),
//     whatever happens between the points. It is solved from the SVD
//     Φ = U S Vᵀ, θ = V S⁻¹ Uᵀ y, which also gives cond₂(Φ) = s_max/s_min;
//     singular values below s_max·max(k, p)·ε are dropped (minimum-norm
//     solution, Rank < p), which only happens when cond(Φ) ≳ 10¹⁶ and the
//     interpolant is lost to rounding anyway;
//   - ridge minimises (1/k)‖Φθ − y‖² + λ Σ_{j≥1} θ_j², i.e. solves
//     (ΦᵀΦ + kλD)θ = Φᵀy with D = diag(0, 1, …, 1) — note kλ, not λ, from
//     the 1/k of the loss (L373). The constant coefficient (φ_0 = 1, the
//     bias) is not penalised, as in LeastSquares. It is solved as Remark
//     3.6 suggests, by a QR factorisation of the augmented data
//     [Φ; √(kλ) E] θ ≈ [y; 0] with E the rows e_1ᵀ … e_{p−1}ᵀ: least
//     squares on p − 1 extra points, never forming ΦᵀΦ (whose condition
//     number is cond(Φ)²) and never an inverse.
//
// The notes' Prop 3.5 says ΦᵀΦ + kλI is regular "for sufficiently large
// λ": it is for every λ > 0 (erratum E4).
type Interp struct {
	basis                        Basis
	x, y                         []float64
	tx, ty                       []float64
	maxDeg                       int
	lambda                       float64
	k, p                         int
	interp                       []float64 // coefficients of the interpolant (len p)
	ridge                        []float64
	cond                         float64
	rank                         int
	trainI, testI, trainR, testR float64
	row                          []float64 // φ(x) scratch
}

// NewInterp validates the configuration and fits the first point.
func NewInterp(cfg InterpConfig) (*Interp, error) {
	if !cfg.Basis.valid() {
		return nil, algo.BadParam("basis", cfg.Basis, "one of chebyshev|legendre|monomial")
	}
	n := len(cfg.X)
	if n < 1 || n > MaxInterpPoints {
		return nil, algo.BadParam("n", n, fmt.Sprintf("1..%d points", MaxInterpPoints))
	}
	if len(cfg.Y) != n {
		return nil, fmt.Errorf("interp: %d targets for %d inputs", len(cfg.Y), n)
	}
	if len(cfg.TestY) != len(cfg.TestX) {
		return nil, fmt.Errorf("interp: %d test targets for %d test inputs", len(cfg.TestY), len(cfg.TestX))
	}
	if cfg.Degree < -1 || cfg.Degree > MaxInterpDegree {
		return nil, algo.BadParam("degree", cfg.Degree, fmt.Sprintf("−1 (k − 1: interpolate) or 0..%d", MaxInterpDegree))
	}
	if !(cfg.Lambda > 0) || math.IsInf(cfg.Lambda, 0) {
		return nil, algo.BadParam("lambda", cfg.Lambda, "a finite number > 0")
	}
	for _, set := range [][]float64{cfg.X, cfg.TestX} {
		for i, x := range set {
			if !(x >= -1 && x <= 1) {
				return nil, algo.BadParam("x", x, fmt.Sprintf("in [−1, 1] (point %d)", i+1))
			}
		}
	}
	for _, set := range [][]float64{cfg.Y, cfg.TestY} {
		for i, v := range set {
			if !algo.Finite(v) {
				return nil, fmt.Errorf("interp: target %d is %v", i+1, v)
			}
		}
	}
	if err := distinct(cfg.X); err != nil {
		return nil, err
	}
	p := min(n, MaxInterpDegree+1)
	if cfg.Degree >= 0 {
		p = min(p, cfg.Degree+1)
	}
	e := &Interp{
		basis: cfg.Basis, maxDeg: cfg.Degree, lambda: cfg.Lambda,
		x: slices.Clone(cfg.X), y: slices.Clone(cfg.Y), tx: slices.Clone(cfg.TestX), ty: slices.Clone(cfg.TestY),
		interp: make([]float64, 0, p), ridge: make([]float64, 0, p), row: make([]float64, p),
	}
	if err := e.fit(1); err != nil {
		return nil, err
	}
	return e, nil
}

// DuplicateTol is how close (in [−1, 1]) two inputs may be before NewInterp
// refuses them as equal: Theorem 3.2 needs x_i ≠ x_j, and two rows of Φ
// that agree to 1e-12 leave it singular, or nearly, in double precision:
// cond(Φ) above 10¹², the interpolant missing its own targets by a
// training MSE of 10⁻⁹ or more, and at 16 points next to the limit its
// numerical rank short by one.
const DuplicateTol = 1e-12

// distinct returns an error naming two inputs closer than DuplicateTol.
func distinct(x []float64) error {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		switch {
		case x[a] < x[b]:
			return -1
		case x[a] > x[b]:
			return 1
		}
		return a - b
	})
	for k := 1; k < len(idx); k++ {
		i, j := idx[k-1], idx[k]
		if x[j]-x[i] <= DuplicateTol {
			i, j = min(i, j), max(i, j)
			return fmt.Errorf("interp: points %d and %d have the same input x = %.12g: exact interpolation needs distinct x_i (Theorem 3.2), else Φ is singular and two different targets cannot both be hit",
				i+1, j+1, x[i])
		}
	}
	return nil
}

// Step reveals the next point and refits both; it returns ErrConverged once
// every point is in.
func (e *Interp) Step() error {
	if e.k >= len(e.x) {
		return algo.ErrConverged
	}
	return e.fit(e.k + 1)
}

// degreeFor is the degree fitted with k points.
func (e *Interp) degreeFor(k int) int {
	d := min(k-1, MaxInterpDegree)
	if e.maxDeg >= 0 {
		d = min(d, e.maxDeg)
	}
	return d
}

// fit refits both polynomials on the first k points.
func (e *Interp) fit(k int) error {
	p := e.degreeFor(k) + 1
	phi := e.design(e.x[:k], p, 0)
	var svd mat.SVD
	if !svd.Factorize(phi, mat.SVDThin) {
		return fmt.Errorf("interp: SVD of Φ failed at k = %d", k)
	}
	s := svd.Values(nil)
	var u, v mat.Dense
	svd.UTo(&u)
	svd.VTo(&v)
	interp := e.interp[:p]
	clear(interp)
	rank := 0
	tiny := s[0] * float64(max(k, p)) * 0x1p-52
	yv := mat.NewVecDense(k, e.y[:k])
	for j, sj := range s {
		if sj <= tiny {
			continue
		}
		rank++
		c := mat.Dot(u.ColView(j), yv) / sj
		for i := range interp {
			interp[i] += c * v.At(i, j)
		}
	}
	cond := math.Inf(1)
	if s[len(s)-1] > 0 {
		cond = s[0] / s[len(s)-1]
	}

	// Ridge: least squares on the augmented data of Remark 3.6.
	aug := e.design(e.x[:k], p, p-1)
	r := math.Sqrt(float64(k) * e.lambda)
	for j := 1; j < p; j++ {
		aug.Set(k+j-1, j, r)
	}
	rhs := mat.NewVecDense(k+p-1, nil)
	for i := 0; i < k; i++ {
		rhs.SetVec(i, e.y[i])
	}
	var qr mat.QR
	qr.Factorize(aug)
	ridge := e.ridge[:p]
	if err := qr.SolveVecTo(mat.NewVecDense(p, ridge), false, rhs); err != nil {
		return fmt.Errorf("interp: ridge QR solve at k = %d: %w", k, err)
	}
	e.k, e.p, e.interp, e.ridge, e.cond, e.rank = k, p, interp, ridge, cond, rank
	e.trainI, e.trainR = e.mse(interp, e.x[:k], e.y[:k]), e.mse(ridge, e.x[:k], e.y[:k])
	e.testI, e.testR = e.mse(interp, e.tx, e.ty), e.mse(ridge, e.tx, e.ty)
	return nil
}

// design returns the (len(x) + extra)×p matrix whose first rows are
// φ(x_i)ᵀ and whose extra rows are zero.
func (e *Interp) design(x []float64, p, extra int) *mat.Dense {
	m := mat.NewDense(len(x)+extra, p, nil)
	for i, xi := range x {
		e.basis.Fill(m.RawRowView(i), xi)
	}
	return m
}

func (e *Interp) mse(c, x, y []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	s := 0.0
	for i, xi := range x {
		r := e.basis.Eval(c, xi) - y[i]
		s += r * r
	}
	return s / float64(len(x))
}

// K is the number of points fitted; N the number of points in all; P the
// number of features (degree + 1); Degree the degree fitted.
func (e *Interp) K() int      { return e.k }
func (e *Interp) N() int      { return len(e.x) }
func (e *Interp) P() int      { return e.p }
func (e *Interp) Degree() int { return e.p - 1 }

// Interpolates reports whether the current fit has as many features as
// points (degree k − 1): Theorem 3.2's exact interpolation.
func (e *Interp) Interpolates() bool { return e.p == e.k }

// Basis returns the basis; Lambda λ.
func (e *Interp) Basis() Basis     { return e.basis }
func (e *Interp) Lambda() float64  { return e.lambda }
func (e *Interp) X() []float64     { return e.x }
func (e *Interp) Y() []float64     { return e.y }
func (e *Interp) TestX() []float64 { return e.tx }
func (e *Interp) TestY() []float64 { return e.ty }

// InterpCoef and RidgeCoef are the coefficients of the two fits in the
// basis (views: valid until the next Step).
func (e *Interp) InterpCoef() []float64 { return e.interp }
func (e *Interp) RidgeCoef() []float64  { return e.ridge }

// InterpAt and RidgeAt evaluate the two fits.
func (e *Interp) InterpAt(x float64) float64 { return e.basis.Eval(e.interp, x) }
func (e *Interp) RidgeAt(x float64) float64  { return e.basis.Eval(e.ridge, x) }

// Cond is cond₂(Φ) = s_max/s_min of the k×p feature matrix (+Inf when
// singular); Rank its numerical rank.
func (e *Interp) Cond() float64 { return e.cond }
func (e *Interp) Rank() int     { return e.rank }

// TrainMSE and TestMSE are the mean squared errors of the interpolant and
// of ridge on the k points seen and on the test points (NaN without).
func (e *Interp) TrainMSE() (interp, ridge float64) { return e.trainI, e.trainR }
func (e *Interp) TestMSE() (interp, ridge float64)  { return e.testI, e.testR }
