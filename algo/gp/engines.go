package gp

import (
	"fmt"
	"math"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/kernel"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// Sequential is GP regression with the observations arriving one per Step
// (seed-003 catalogue G3: "one step: add the next observation"), tracking
// the posterior at fixed test points. Adding an observation never raises
// the posterior variance anywhere (conditioning on more data cannot add
// uncertainty). It converges (ErrConverged) once every observation is in.
//
// A step does not refit: it extends the Cholesky factor of C = K + σ²I by
// one row, r = L⁻¹c for the new column c of C and the pivot √(C_kk − ‖r‖²)
// (O(k²) at the k-th observation, so O(n³/6) for a whole run instead of
// the O(n⁴/12) of refitting each time), and with it z = L⁻¹y by one entry
// and V = L⁻¹K_*ᵀ (the test points' cross-covariances) by one row v, from
// which the test means Vᵀz and variances k(x, x) − ‖V_x‖² change by z_k·v
// and −v² (O(k·m) for m test points). The log marginal likelihood is
// −½‖z‖² − Σ log L_ii − (k/2) log 2π, kept as it goes. The factor is the
// one Fit computes, to rounding, as long as no jitter is needed. When the
// new pivot is not positive or the extended C fails Fit's condition test,
// the step refactorises from scratch with the jitter policy of Fit (a rare
// event: with noise σ² > 0 a bound settles the test without an estimate,
// see factor.wellConditioned); the jitter then stays for later steps, since
// adding a row never improves the conditioning (eigenvalue interlacing).
// The kernel must be positive semidefinite, as a covariance function is.
type Sequential struct {
	kern  kernel.Kernel
	noise float64
	x     [][]float64 // in arrival order
	y     []float64
	test  [][]float64
	f     factor
	z     []float64 // L⁻¹y
	quad  float64   // ‖z‖² = yᵀC⁻¹y
	v     []float64 // V = L⁻¹K_*ᵀ, n×m row-major
	kss   []float64 // k(x, x) at the test points
	mean  []float64
	vari  []float64
	kt    []float64 // scratch: k(x_k, test)
	post  *Posterior
	// The rows of C solved ahead (factor.solveAhead), rows cbase … of K
	// without noise, cw apart, kept for the 1-norm when each is taken in.
	cblk      []float64
	cbase, cw int
}

// aheadRows is the number of rows of the factor that a Step solves at once
// when it needs a new one: 32 partly solved rows of up to a few thousand
// entries stay in the second-level cache while each old row is read once.
const aheadRows = 32

// SequentialFootprint is the bytes a Sequential over n observations and m
// test points holds once every observation is in (what it holds grows
// with each): the factor, its stride grown as blocks of aheadRows rows are
// solved ahead; the block of C solved ahead (twice the last one's room);
// z; V, n×m, grown by appending; and the test points' four vectors. The
// observations and the test points are the caller's.
func SequentialFootprint(n, m int) int64 {
	stride := 0
	for k := 0; k < n; k += aheadRows {
		if need := min(k+aheadRows, n); need > stride {
			stride = grown(stride, need)
		}
	}
	b := int64(min(aheadRows, n))
	return factorBytes(stride) + 2*8*b*int64(n+int(b)) + 8*int64(n) + 10*int64(n)*int64(m) + 4*8*int64(m)
}

// FitterFootprint is the bytes a Fitter over n observations holds: the
// evidence's posterior (its factor, of stride n, and C⁻¹y). Each Step's
// trial evidences, with their Gram matrices and inverses, are garbage once
// compared.
func FitterFootprint(n int) int64 { return factorBytes(n) + 8*int64(n) }

// NewSequential starts from the prior; x and y (the observations, in the
// order they will arrive) and test are not copied.
func NewSequential(k kernel.Kernel, noise float64, x [][]float64, y []float64, test [][]float64) (*Sequential, error) {
	if len(x) != len(y) {
		return nil, algo.BadParam("data", len(x), fmt.Sprintf("%d inputs for %d targets", len(x), len(y)))
	}
	if !(noise >= 0) || math.IsInf(noise, 0) {
		return nil, algo.BadParam("noise", noise, "a finite variance ≥ 0")
	}
	m := len(test)
	s := &Sequential{kern: k, noise: noise, x: x, y: y, test: test, f: factor{noise: noise},
		kss: make([]float64, m), mean: make([]float64, m), vari: make([]float64, m), kt: make([]float64, m)}
	for a, t := range test {
		s.kss[a] = kernel.Eval(k, t, t)
	}
	copy(s.vari, s.kss)
	return s, nil
}

// Step adds the next observation (see Sequential for the cost).
func (s *Sequential) Step() error {
	k := s.f.n
	if k == len(s.x) {
		return algo.ErrConverged
	}
	xk := s.x[k]
	if s.f.ahead == 0 {
		s.solveAhead(k, min(aheadRows, len(s.x)-k))
	}
	c := s.cblk[(k-s.cbase)*s.cw:]
	if !s.f.extend(c[:k], c[k]) {
		return s.refactor(k + 1)
	}
	s.post = nil
	// z_k and row k of V from row k of L: (b_k − Σ_{i<k} L_ki w_i)/L_kk.
	row := s.f.l[k*s.f.stride : k*s.f.stride+k+1]
	lkk := row[k]
	zk := (s.y[k] - dotv(row[:k], s.z)) / lkk
	s.z = append(s.z, zk)
	s.quad += zk * zk
	m := len(s.test)
	for a, t := range s.test {
		s.kt[a] = kernel.Eval(s.kern, xk, t)
	}
	if k > 0 {
		// kt −= Vᵀ row: V is k×m.
		blas64.Gemv(blas.Trans, -1, blas64.General{Rows: k, Cols: m, Stride: max(m, 1), Data: s.v},
			blas64.Vector{N: k, Inc: 1, Data: row[:k]}, 1, blas64.Vector{N: m, Inc: 1, Data: s.kt})
	}
	inv := 1 / lkk
	for a, kv := range s.kt {
		vk := kv * inv
		s.kt[a] = vk
		s.mean[a] += zk * vk
		s.vari[a] = math.Max(s.vari[a]-vk*vk, 0) // rounding can push it below 0
	}
	s.v = append(s.v, s.kt...)
	return nil
}

// solveAhead computes rows k … k+b−1 of K into cblk and has the factor
// solve them ahead (at the present jitter).
func (s *Sequential) solveAhead(k, b int) {
	s.cbase, s.cw = k, k+b
	if need := b * s.cw; cap(s.cblk) < need {
		s.cblk = make([]float64, need, 2*need)
	}
	s.cblk = s.cblk[:b*s.cw]
	s.f.reserve(k + b)
	st := s.f.stride
	for t := 0; t < b; t++ {
		r := k + t
		c := s.cblk[t*s.cw : t*s.cw+r+1]
		for i := range c {
			c[i] = kernel.Eval(s.kern, s.x[i], s.x[r])
		}
		row := s.f.l[r*st : r*st+r+1]
		copy(row, c)
		row[r] += s.noise + s.f.jitter
	}
	s.f.solveAhead(b)
}

// refactor factorises C for the first n observations from scratch with the
// jitter policy of Fit, and recomputes z, V, the means and variances.
func (s *Sequential) refactor(n int) error {
	gram := kernel.Gram(s.kern, s.x[:n])
	var f factor
	if err := f.factorize(gram, n, s.noise); err != nil {
		return err
	}
	s.f, s.post = f, nil
	s.z = append(s.z[:0], s.y[:n]...)
	s.f.forward(s.z)
	s.quad = dotv(s.z, s.z)
	m := len(s.test)
	ks := kernel.Cross(s.kern, s.test, s.x[:n]) // m×n
	s.v = s.v[:0]
	for i := 0; i < n; i++ {
		for a := 0; a < m; a++ {
			s.v = append(s.v, ks[a*n+i])
		}
	}
	if m > 0 {
		blas64.Trsm(blas.Left, blas.NoTrans, 1, s.f.tri(), blas64.General{Rows: n, Cols: m, Stride: m, Data: s.v})
	}
	for a := range s.test {
		mean, vari := 0.0, s.kss[a]
		for i := 0; i < n; i++ {
			vi := s.v[i*m+a]
			mean += s.z[i] * vi
			vari -= vi * vi
		}
		s.mean[a], s.vari[a] = mean, math.Max(vari, 0)
	}
	return nil
}

// N is the number of observations in.
func (s *Sequential) N() int { return s.f.n }

// Jitter is the jitter on the diagonal of C (0 when none was needed).
func (s *Sequential) Jitter() float64 { return s.f.jitter }

// LogMarginal is log p(y | θ) of the observations in, split as
// Posterior.LogMarginal, in O(n) (the sum of the log pivots).
func (s *Sequential) LogMarginal() (total, dataFit, complexity float64) {
	n := s.f.n
	if n == 0 {
		return 0, 0, 0
	}
	dataFit, complexity = -0.5*s.quad, -0.5*s.f.logDet()
	return dataFit + complexity - 0.5*float64(n)*math.Log(2*math.Pi), dataFit, complexity
}

// Posterior is the current posterior (O(n²) to build, a back substitution
// for C⁻¹y, then cached until the next Step). It shares the factor, and is
// valid until the next Step.
func (s *Sequential) Posterior() *Posterior {
	if s.post == nil {
		s.post = newPosterior(s.kern, s.x, s.y, &s.f)
	}
	return s.post
}

// Mean and Variance are the latent posterior mean and variance at the test
// points (views, updated by each Step: copy them to keep them).
func (s *Sequential) Mean() []float64     { return s.mean }
func (s *Sequential) Variance() []float64 { return s.vari }

// Covariance writes the posterior covariance of the latent values at the
// test points, K_** − VᵀV, into dst (m×m row-major, grown if short) and
// returns it: O(m²n), for drawing samples when a picture is asked for.
func (s *Sequential) Covariance(dst []float64) []float64 {
	m := len(s.test)
	if cap(dst) < m*m {
		dst = make([]float64, m*m)
	}
	dst = dst[:m*m]
	for a, t := range s.test {
		for b := a; b < m; b++ {
			c := kernel.Eval(s.kern, t, s.test[b])
			dst[a*m+b], dst[b*m+a] = c, c
		}
	}
	if n := s.f.n; n > 0 {
		subVTV(dst, s.v, n, m)
	}
	return dst
}

// Fitter learns the squared-exponential hyperparameters by gradient ascent
// on the log marginal likelihood in log-parameters θ (seed 002 Algorithm 2,
// L1953–1981: "repeat: build K_θ, evaluate ℓ, compute ∇_θ ℓ, gradient
// step"). One Step is one accepted step θ ← θ + t∇ log p: a trial step that
// does not raise log p is halved until it does (backtracking), so log p
// never falls; after an accepted step t grows by half again. The run
// converges when ‖∇ log p‖∞ ≤ Tol, or when no step of size ≥ 1e-12 helps.
// Every θ stays in [−MaxLog, MaxLog]³.
type Fitter struct {
	x   [][]float64
	y   []float64
	tol float64
	t   float64
	ev  Evidence
	k   int
}

// MaxLog bounds each log-parameter: e^±15 spans the scales any sane data
// can support, and keeps the factorisations finite.
const MaxLog = 15

// NewFitter starts gradient ascent from h with initial step t0 > 0 and
// gradient tolerance tol ≥ 0.
func NewFitter(x [][]float64, y []float64, h Hyper, t0, tol float64) (*Fitter, error) {
	if len(x) == 0 {
		return nil, algo.BadParam("data", 0, "at least one observation")
	}
	if !(t0 > 0) || math.IsInf(t0, 0) {
		return nil, algo.BadParam("lr", t0, "a finite number > 0")
	}
	if !(tol >= 0) {
		return nil, algo.BadParam("tol", tol, "≥ 0")
	}
	if err := h.Validate(); err != nil {
		return nil, err
	}
	if h.Noise == 0 {
		return nil, algo.BadParam("noise", 0.0, "> 0 to learn it in log-space")
	}
	ev, err := LogMarginalSE(x, y, h)
	if err != nil {
		return nil, err
	}
	return &Fitter{x: x, y: y, tol: tol, t: t0, ev: ev}, nil
}

// Step takes one accepted gradient-ascent step (see Fitter).
func (f *Fitter) Step() error {
	if f.GradNorm() <= f.tol {
		return algo.ErrConverged
	}
	theta := f.ev.Hyper.LogParams()
	for f.t >= 1e-12 {
		var trial [3]float64
		for i := range trial {
			trial[i] = math.Max(-MaxLog, math.Min(MaxLog, theta[i]+f.t*f.ev.Grad[i]))
		}
		ev, err := LogMarginalSE(f.x, f.y, FromLog(trial))
		if err == nil && ev.LogML > f.ev.LogML {
			f.ev = ev
			f.t *= 1.5
			f.k++
			return nil
		}
		f.t /= 2
	}
	return algo.ErrConverged
}

// Evidence is the current log marginal likelihood, its terms and gradient.
func (f *Fitter) Evidence() Evidence { return f.ev }

// GradNorm is ‖∇_θ log p‖∞.
func (f *Fitter) GradNorm() float64 {
	g := 0.0
	for _, v := range f.ev.Grad {
		g = math.Max(g, math.Abs(v))
	}
	return g
}

// StepSize is the trial step t of the next Step.
func (f *Fitter) StepSize() float64 { return f.t }

// Iter is the number of accepted steps.
func (f *Fitter) Iter() int { return f.k }
