// Package mixture holds engines for mixture models (seed 002, week 2
// "Expectation Maximisation"): k-means and EM for a Gaussian mixture on
// points in d dimensions, and a generator of synthetic mixture data in the
// plane to run them on.
package mixture

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/par"
	"gonum.org/v1/gonum/mat"
)

// MaxK is the largest number of components an EM (and a KMeans) accepts:
// their per-component statistics live in fixed arrays, so that a step does
// not allocate.
const MaxK = 10

// MaxDim is the largest dimension of the points an EM or a KMeans accepts:
// a step keeps one point's coordinates in a fixed array, so that it does
// not allocate.
const MaxDim = 64

// minCount is the effective number of points N_k below which a component is
// treated as dead by the M-step: it keeps its mean and covariance, and only its
// weight π_k = N_k/N is updated. A dead component contributes at most
// N_k·|log π_k N(x|μ_k, Σ_k)| to the bound L(q, θ), so keeping its parameters
// keeps EM monotone (it is a generalised EM step, Remark 2.9, seed 002 L838);
// re-seeding it elsewhere would not be.
const minCount = 1e-8

// log2Pi is log(2π), the normaliser of a d-dimensional Gaussian being
// 1/((2π)^{d/2}|Σ|^½).
var log2Pi = math.Log(2 * math.Pi)

// Phase names the half of an EM iteration that a Step performs.
type Phase int

const (
	// EStep computes the responsibilities γ(z_nk) = p(z_nk = 1 | x_n, θ)
	// (eq 2.12), i.e. q(z) = p(z | x, θ) (eq 2.33).
	EStep Phase = iota
	// MStep re-estimates θ = (π, μ, Σ) from the responsibilities
	// (eqs 2.13–2.15), i.e. θ ← argmax L(q, θ) (eq 2.35).
	MStep
)

func (p Phase) String() string {
	if p == EStep {
		return "E-step"
	}
	return "M-step"
}

// Component is one Gaussian of a mixture in the plane, as Blobs draws it:
// its weight π_k, mean μ_k and covariance Σ_k (symmetric, Cov[0][1] ==
// Cov[1][0]).
type Component struct {
	Weight float64
	Mean   [2]float64
	Cov    [2][2]float64
}

// Gaussian is one Gaussian of a mixture that an EM fits, in d dimensions:
// its weight π_k, mean μ_k (d values) and covariance Σ_k (d×d, symmetric).
type Gaussian struct {
	Weight float64
	Mean   []float64
	Cov    [][]float64
}

// CovMode is the covariance structure an EM fits.
type CovMode int

const (
	// CovFull fits every π_k, μ_k and a full Σ_k (eqs 2.13–2.15).
	CovFull CovMode = iota
	// CovSphericalFixed is the model of Exercise 2.2 (seed 002 L764–766):
	// every component is N(x | μ_k, εI) with ε = Eps·s² fixed and the
	// weights held at π_k = 1/K; only the means are learnt. The E-step is
	// then a soft k-means assignment, γ_nk ∝ exp(−‖x_n − μ_k‖²/2ε), and the
	// M-step the γ-weighted mean (2.13); as ε → 0 the responsibilities
	// harden to the nearest-mean indicator (2.3) and EM becomes k-means
	// (Remark 2.3, L673–675). Holding θ in a subset of the full parameter
	// space keeps each M-step an exact argmax over that subset, so the
	// monotonicity (2.37) still holds.
	CovSphericalFixed
)

// covNames are the names of the covariance modes, indexed by CovMode.
var covNames = []string{"full", "spherical-fixed"}

func (m CovMode) String() string {
	if m >= 0 && int(m) < len(covNames) {
		return covNames[m]
	}
	return fmt.Sprintf("CovMode(%d)", int(m))
}

// Config configures an EM.
type Config struct {
	// K is the number of components, in 1..MaxK and at most the number of
	// points.
	K int
	// Reg sets the covariance floor ε = Reg·s², relative to the data's
	// scale s², the mean of the coordinates' variances: every M-step maximises the bound subject
	// to Σ_k ⪰ εI, the "constrained ML" remedy of Remark 2.10 (seed 002
	// L858), so a component cannot collapse onto a point (the degeneracy of
	// L842–852). Reg = 0 disables the floor; a collapsing component then
	// ends the run with ErrDiverged. Must be 0 or at least MinReg;
	// DefaultReg is a sensible value. See (*EM).mStep for why the floor is
	// a constraint rather than the "Σ_k ← Σ_k + εI" damping of the same
	// remark.
	Reg float64
	// Cov is the covariance structure: CovFull (the zero value) or
	// CovSphericalFixed.
	Cov CovMode
	// Eps sets the fixed variance ε = Eps·s² of CovSphericalFixed (ignored
	// otherwise); it must be in [MinEps, MaxEps].
	Eps float64
	// Init chooses the starting θ: InitPlusPlus (the zero value) or
	// InitKMeans. CovSphericalFixed starts from the seeds whatever Init
	// says: its point is to follow k-means from the same centres.
	Init InitMode
	// Tol ends the run (ErrConverged) when a full iteration improves the mean
	// log-likelihood per point by less than Tol nats, or not at all (so
	// Tol = 0 runs until EM stops moving). Must be ≥ 0.
	Tol float64
}

// InitMode is how an EM chooses its starting θ.
type InitMode int

const (
	// InitPlusPlus starts from k-means++ seeds: the seeds as means, equal
	// weights, isotropic covariances (see New).
	InitPlusPlus InitMode = iota
	// InitKMeans starts as scikit-learn's GaussianMixture does by default
	// (init_params="kmeans"): k-means (Lloyd) from the same k-means++ seeds,
	// run to convergence or MaxInitIter iterations, then one M-step from
	// its hard assignment, γ_nk = 1 for the cluster of x_n (eqs 2.13–2.15
	// with 0/1 responsibilities, the covariance floor included). EM then
	// starts at the k-means fit, not at k-means++'s scattered seeds, and
	// lands in a poor optimum far less often.
	InitKMeans
)

// MaxInitIter caps the k-means iterations of InitKMeans (scikit-learn's
// max_iter of KMeans).
const MaxInitIter = 300

var initNames = []string{"k-means++", "kmeans"}

func (m InitMode) String() string {
	if m >= 0 && int(m) < len(initNames) {
		return initNames[m]
	}
	return fmt.Sprintf("InitMode(%d)", int(m))
}

// DefaultReg is the default relative covariance floor, ε = 1e-6·s²: far
// below the spread of any real cluster, so it is inactive on a sound fit, yet
// it keeps every Σ_k well conditioned.
const DefaultReg = 1e-6

// MinReg is the smallest non-zero Reg. Without a floor, a component that
// collapses onto a point or a line drives the smallest eigenvalue of Σ_k to
// zero, log|Σ_k| to −∞ and the log-likelihood to +∞ (L846–850); long before
// that, the Cholesky factor loses its precision and the log-likelihood
// becomes rounding noise, which breaks the monotonicity of (2.37). So a
// covariance whose smallest eigenvalue falls below (MinReg/2)·s² counts as
// collapsed and ends the run (ErrDiverged); a floor of at least MinReg·s²
// keeps every Σ_k clear of that.
const MinReg = 1e-9

// MinEps and MaxEps bound Config.Eps, the relative variance of the
// spherical-fixed components: below MinEps the responsibilities are exact
// indicators already (the log-likelihood gaps are over 1e5 nats) and the
// Gaussians would be too narrow to draw; above MaxEps each component is wider
// than the data.
const (
	MinEps = 1e-6
	MaxEps = 10
)

// DefaultTol is the default stopping tolerance on the mean log-likelihood.
const DefaultTol = 1e-8

// gauss is one component: its weight, mean and covariance, and what its
// log-density needs: the Cholesky factor L of Σ_k (below the diagonal,
// with the diagonal's reciprocals apart) and c = log π_k − (d/2) log 2π −
// log|L|, so that
//
//	log π_k + log N(x; μ_k, Σ_k) = c − ½‖L⁻¹(x − μ_k)‖².
//
// In the plane the factor is also kept as scalars, L = [[l11, 0],
// [l21, l22]] as 1/l11, l21 and 1/l22, for the unrolled pass.
type gauss struct {
	weight float64
	mean   []float64 // μ_k
	cov    []float64 // Σ_k, d×d row-major, symmetric
	chol   []float64 // L below its diagonal, d×d row-major
	idiag  []float64 // 1/L_tt
	c      float64

	mx, my, i11, l21, i22 float64 // d = 2
}

// EM fits a K-component Gaussian mixture to points in d dimensions by
// expectation maximisation (seed 002 §2.3, eqs 2.12–2.15), one
// half-iteration per Step so that the E- and M-steps can be watched
// separately.
//
// Every density is handled in the log domain: log N comes from the
// Cholesky factor of Σ_k, the responsibilities from a log-sum-exp over the
// components, and the log-likelihood (eq 2.6) is the sum of the same
// log-sum-exps. By eq (2.37) the log-likelihood never decreases from one
// M-step to the next, covariance floor included (see Config.Reg). Points in
// the plane, the common case, take passes unrolled for d = 2.
type EM struct {
	cfg    Config
	n, k   int
	d      int
	cols   [][]float64 // the points by coordinate, cols[t][i]; never modified
	eps    float64     // absolute covariance floor ε = Reg·s², or the fixed variance of CovSphericalFixed
	s2     float64     // the data's scale s², the mean of the coordinates' variances
	minEig float64     // a Σ_k with an eigenvalue below this has collapsed
	comps  []gauss
	scr    []float64 // d×d scratch of the M-step's floor test

	// Buffers of n×k values, row-major: point i, component j at i*k+j.
	lj   []float64 // log π_k + log N(x_n; μ_k, Σ_k) at the current θ
	w    []float64 // exp(lj − max_k lj) at the current θ
	resp []float64 // q: the responsibilities γ(z_nk) of the last E-step
	logq []float64 // log q
	// Per point, at the current θ.
	lse  []float64 // log p(x_n | θ) = log Σ_k exp(lj)
	wsum []float64 // Σ_k w

	nk [MaxK]float64 // N_k of the last M-step

	collapsed int // the component whose Σ_k collapsed, or −1

	next  Phase
	half  int       // half-steps taken
	ll    float64   // log p(x | θ), summed over the points
	elbo  float64   // L(q, θ) at the current q and θ (valid when hasQ)
	hasQ  bool      // an E-step has been taken
	trace []float64 // mean log-likelihood after 0, 1, 2, ... M-steps

	// The passes over the points run over fixed blocks of emBlock points,
	// on SetWorkers goroutines, each block's sums in its own slot, reduced
	// in block order (package par): the results do not depend on the
	// number of workers, and with one block they are the serial loop's.
	workers          int
	loop             par.Loop
	parts            []emPart
	evalFn, eFn, mFn func(int) // the block functions, made once
	c                []float64 // k×d: the means the M-step's sums are taken about
	// The M-step's sums, reduced over the blocks: Σ γ, and (k×d, k×d×d)
	// Σ γ (x − c) and the upper triangle of Σ γ (x − c)(x − c)ᵀ.
	s0         [MaxK]float64
	sum1, sum2 []float64
}

// emBlock is the number of points of one block of an E- or M-step pass:
// a block costs about 0.1 ms at k = 5 (an exponential per point and
// component), far above a goroutine's start.
const emBlock = 2048

// emPart is one block's share of the sums of evaluate and mStep.
type emPart struct {
	ll, elbo   float64
	s0         [MaxK]float64
	sum1, sum2 []float64 // as EM's
}

// EMBytes is what New allocates for n points of d coordinates and k
// components: the points by coordinate, four n×k arrays (log-densities,
// weighted densities, responsibilities, log-posteriors) and two values a
// point, besides the components and the blocks' sums.
func EMBytes(n, d, k int) int64 {
	nn := int64(n)
	return algo.HeapBytes(8*nn*int64(d)) + 4*algo.HeapBytes(8*nn*int64(k)) + 2*algo.HeapBytes(8*nn) + 1<<10
}

// New validates its inputs and starts EM on points, each a point of the
// same dimension d in 1..MaxDim; the slice is read, not kept. The initial
// means are chosen by k-means++ seeding from rng (Arthur & Vassilvitskii
// 2007: the first uniformly, each next one with probability proportional
// to its squared distance to the nearest mean already chosen), the weights
// are equal, and every covariance is isotropic, σ²I with σ² the k-means++ potential per point and coordinate
// (the mean squared distance of a point to its nearest seed, over d; s² when
// that is below MinReg·s², the points all sitting on seeds), or the floor ε
// if that is larger; with CovSphericalFixed it is the fixed εI. The seeding
// is shared with NewKMeans (see plusPlus). The first Step is an E-step.
func New(points [][]float64, cfg Config, rng *rand.Rand) (*EM, error) {
	if cfg.K < 1 || cfg.K > MaxK {
		return nil, algo.BadParam("k", cfg.K, fmt.Sprintf("in 1..%d", MaxK))
	}
	if !(cfg.Reg == 0 || cfg.Reg >= MinReg) || math.IsInf(cfg.Reg, 0) {
		return nil, algo.BadParam("reg", cfg.Reg, fmt.Sprintf("0 (no floor) or a finite number ≥ %g", MinReg))
	}
	if cfg.Cov != CovFull && cfg.Cov != CovSphericalFixed {
		return nil, algo.BadParam("cov", cfg.Cov, "full or spherical-fixed")
	}
	if cfg.Cov == CovSphericalFixed && !(cfg.Eps >= MinEps && cfg.Eps <= MaxEps) {
		return nil, algo.BadParam("eps", cfg.Eps, fmt.Sprintf("in [%g, %g]", MinEps, float64(MaxEps)))
	}
	if cfg.Init != InitPlusPlus && cfg.Init != InitKMeans {
		return nil, algo.BadParam("init", cfg.Init, "k-means++ or kmeans")
	}
	if !(cfg.Tol >= 0) || math.IsInf(cfg.Tol, 0) {
		return nil, algo.BadParam("tol", cfg.Tol, "a finite number ≥ 0")
	}
	if rng == nil {
		return nil, algo.BadParam("rng", "nil", "a non-nil *rand.Rand")
	}
	cols, err := columns(points, 2)
	if err != nil {
		return nil, err
	}
	n, d := len(points), len(cols)
	if cfg.K > n {
		return nil, algo.BadParam("k", cfg.K, fmt.Sprintf("at most the number of points, %d", n))
	}
	e := &EM{cfg: cfg, n: n, k: cfg.K, d: d, cols: cols}
	s2 := meanVariance(cols)
	if !(s2 > 0) || math.IsInf(s2, 0) {
		return nil, algo.BadParam("data", fmt.Sprintf("variance %v", s2), "points that are not all equal (and of finite variance)")
	}
	e.eps = cfg.Reg * s2
	if cfg.Cov == CovSphericalFixed {
		e.eps = cfg.Eps * s2
	}
	e.minEig = MinReg / 2 * s2
	e.s2 = s2
	e.collapsed = -1

	nk := n * e.k
	e.lj, e.w, e.resp, e.logq = make([]float64, nk), make([]float64, nk), make([]float64, nk), make([]float64, nk)
	e.workers, e.parts = 1, make([]emPart, par.Blocks(n, emBlock))
	k := e.k
	sums := make([]float64, (len(e.parts)+1)*(k*d+k*d*d))
	e.sum1, sums = sums[:k*d:k*d], sums[k*d:]
	e.sum2, sums = sums[:k*d*d:k*d*d], sums[k*d*d:]
	for b := range e.parts {
		p := &e.parts[b]
		p.sum1, sums = sums[:k*d:k*d], sums[k*d:]
		p.sum2, sums = sums[:k*d*d:k*d*d], sums[k*d*d:]
	}
	e.evalFn, e.eFn, e.mFn = e.evalBlock, e.eBlock, e.mBlock
	if d == 2 {
		e.evalFn, e.mFn = e.evalBlock2, e.mBlock2
	}
	e.lse, e.wsum = make([]float64, n), make([]float64, n)
	e.comps = make([]gauss, k)
	per := make([]float64, k*(2*d+2*d*d)+k*d+d*d)
	for j := range e.comps {
		g := &e.comps[j]
		g.mean, per = per[:d:d], per[d:]
		g.idiag, per = per[:d:d], per[d:]
		g.cov, per = per[:d*d:d*d], per[d*d:]
		g.chol, per = per[:d*d:d*d], per[d*d:]
	}
	e.c, e.scr = per[:k*d:k*d], per[k*d:]
	e.trace = make([]float64, 0, 256)

	e.seed(rng, s2)
	if cfg.Init == InitKMeans && cfg.Cov == CovFull {
		if err := e.fromKMeans(); err != nil {
			return nil, err
		}
	}
	if err := e.evaluate(); err != nil {
		return nil, err
	}
	e.trace = append(e.trace, e.ll/float64(n))
	return e, nil
}

// seed places the initial means by k-means++ and sets equal weights and
// isotropic covariances (see New); with CovSphericalFixed every covariance
// is the fixed εI instead.
func (e *EM) seed(rng *rand.Rand, s2 float64) {
	phi := plusPlus(e.cols, e.k, rng, e.lse, e.c) // e.lse: scratch
	v := phi / float64(e.d*e.n)
	if !(v >= MinReg*s2) {
		v = s2 // the points coincide with the seeds: use the data's scale
	}
	v = max(v, e.eps)
	if e.cfg.Cov == CovSphericalFixed {
		v = e.eps
	}
	d := e.d
	for j := range e.comps {
		g := &e.comps[j]
		copy(g.mean, e.c[j*d:j*d+d])
		g.weight = 1 / float64(e.k)
		clear(g.cov)
		for t := range d {
			g.cov[t*d+t] = v
		}
	}
}

// fromKMeans runs k-means from the seeded means (the k-means++ centres)
// and replaces θ by one M-step from its hard assignment (InitKMeans).
func (e *EM) fromKMeans() error {
	km := newKMeans(e.cols, e.k)
	for j, g := range e.comps {
		copy(km.c[j*e.d:], g.mean)
	}
	for km.Iter() < MaxInitIter {
		if err := km.Step(); err != nil {
			break // converged: an assignment changed no point
		}
	}
	if km.Next() == Update { // the last step assigned: the centres are the means
		km.Step()
	}
	clear(e.resp)
	for i, j := range km.assign {
		e.resp[i*e.k+j] = 1
	}
	for j := range e.comps {
		copy(e.comps[j].mean, km.c[j*e.d:(j+1)*e.d])
	}
	if err := e.mStep(); err != nil {
		return err
	}
	e.trace = e.trace[:0]
	return nil
}

// Step performs the next half-iteration: an E-step or an M-step, alternately,
// starting with an E-step. Before an E-step it returns ErrConverged, without
// moving, once the last full iteration improved the mean log-likelihood by less
// than Config.Tol, or not at all. An M-step returns an ErrDiverged error when
// a covariance collapses (only possible with Reg = 0, see MinReg) or the
// log-likelihood stops being finite. Step does not allocate, except to
// lengthen the log-likelihood trace now and then.
func (e *EM) Step() error {
	if e.next == EStep {
		if t := len(e.trace) - 1; t >= 1 {
			if d := e.trace[t] - e.trace[t-1]; d < e.cfg.Tol || d <= 0 {
				return algo.ErrConverged
			}
		}
		e.eStep()
		e.next = MStep
	} else {
		if err := e.mStep(); err != nil {
			return err
		}
		e.next = EStep
	}
	e.half++
	return nil
}

// eStep sets q(z) = p(z | x, θ) (eq 2.33): γ(z_nk) = exp(lj_nk − lse_n)
// (eq 2.12), from the values evaluate left for the current θ. The bound is
// then tight: L(q, θ) = log p(x | θ) (eq 2.34).
func (e *EM) eStep() {
	e.loop.Run(e.workers, len(e.parts), e.eFn)
	e.elbo = e.ll
	e.hasQ = true
}

// eBlock is the E-step on the points of block b.
func (e *EM) eBlock(b int) {
	k := e.k
	lo, hi := e.block(b)
	for i := lo; i < hi; i++ {
		lse, inv := e.lse[i], 1/e.wsum[i]
		lj, w := e.lj[i*k:i*k+k], e.w[i*k:i*k+k]
		r, lq := e.resp[i*k:i*k+k], e.logq[i*k:i*k+k]
		for j := range r {
			r[j] = w[j] * inv
			lq[j] = lj[j] - lse
		}
	}
}

// block is the range of points of block b.
func (e *EM) block(b int) (lo, hi int) {
	lo = b * emBlock
	return lo, min(lo+emBlock, e.n)
}

// SetWorkers sets the number of goroutines of the passes over the points:
// 1 (the default) runs them on the caller's, 0 on GOMAXPROCS. Results do
// not depend on it.
func (e *EM) SetWorkers(w int) { e.workers = w }

// mStep re-estimates θ from q (eqs 2.13–2.15) and evaluates the new θ:
//
//	N_k = Σ_n γ_nk,  π_k = N_k/N,  μ_k = Σ_n γ_nk x_n / N_k,
//	S_k = Σ_n γ_nk (x_n − μ_k)(x_n − μ_k)ᵀ / N_k   (with the new μ_k),
//	Σ_k = V max(Λ, ε) Vᵀ  for S_k = V Λ Vᵀ.
//
// Remark 2.6 (seed 002 L740) prints "π_k = Σ_n x_n / N"; that is a typo
// (erratum in the seed-002 catalogue, §4): the update is π_k = N_k/N, eq (2.15).
//
// The last line is the covariance floor: raising the eigenvalues of S_k below
// ε to ε gives the exact maximiser of the bound L(q, θ) over Σ_k ⪰ εI
// (Ingrassia 2004, "A likelihood-based constrained algorithm for multivariate
// normal mixture models"), so every M-step is a true argmax over a set that
// holds the old θ, and the monotonicity (2.36)–(2.37) holds exactly. The
// "Σ_k ← S_k + εI" damping of Remark 2.10 does not have that property: when a
// component's smaller eigenvalue is within a few ε of the floor, adding εI can
// lower L(q, θ) below its value at the old θ, and the log-likelihood then
// falls (we measured a drop of 1e-4 nats per point on 50 points with k = 5).
// On a sound fit the floor is inactive and Σ_k = S_k.
//
// The sums are taken about the old means c_k (the shifted-data algorithm),
// S = Σ γ (x − c)(x − c)ᵀ / N_k − (μ − c)(μ − c)ᵀ, in a single pass; c is
// close to μ, so there is no catastrophic cancellation.
func (e *EM) mStep() error {
	k, d := e.k, e.d
	for j, g := range e.comps {
		copy(e.c[j*d:], g.mean)
	}
	e.loop.Run(e.workers, len(e.parts), e.mFn)
	e.s0 = [MaxK]float64{}
	clear(e.sum1)
	clear(e.sum2)
	for b := range e.parts {
		p := &e.parts[b]
		for j := 0; j < k; j++ {
			e.s0[j] += p.s0[j]
		}
		for i, v := range p.sum1 {
			e.sum1[i] += v
		}
		for i, v := range p.sum2 {
			e.sum2[i] += v
		}
	}
	nf := float64(e.n)
	fixed := e.cfg.Cov == CovSphericalFixed
	for j := range e.comps {
		g := &e.comps[j]
		s0 := e.s0[j]
		e.nk[j] = s0
		if !fixed {
			g.weight = s0 / nf
		}
		if s0 < minCount {
			continue // dead: keep μ_k and Σ_k (see minCount)
		}
		inv := 1 / s0
		m := e.sum1[j*d : j*d+d]
		for t := range m {
			m[t] *= inv // μ_k − c_k
			g.mean[t] = e.c[j*d+t] + m[t]
		}
		if fixed {
			continue
		}
		s2 := e.sum2[j*d*d : (j+1)*d*d]
		for t := range d {
			for u := t; u < d; u++ {
				v := s2[t*d+u]*inv - m[t]*m[u]
				g.cov[t*d+u], g.cov[u*d+t] = v, v
			}
		}
		e.floor(g.cov)
	}
	if err := e.evaluate(); err != nil {
		return err
	}
	mean := e.ll / nf
	e.trace = append(e.trace, mean)
	if !algo.Finite(mean) || !algo.Finite(e.elbo) {
		return algo.Diverged("log-likelihood = %v after M-step %d", mean, len(e.trace)-1)
	}
	return nil
}

// floor raises the eigenvalues of the symmetric S (d×d, row-major) below
// ε to ε, in place (see mStep): in the plane by floorEig's closed form;
// otherwise S is left alone when S − εI has a Cholesky factor (every
// eigenvalue above ε, no allocation), and rebuilt from its eigenvalues
// when not.
func (e *EM) floor(s []float64) {
	eps, d := e.eps, e.d
	switch {
	case eps <= 0:
		return
	case d == 1:
		s[0] = max(s[0], eps)
		return
	case d == 2:
		s[0], s[1], s[3] = floorEig(s[0], s[1], s[3], eps)
		s[2] = s[1]
		return
	}
	copy(e.scr, s)
	for t := range d {
		e.scr[t*d+t] -= eps
	}
	if cholesky(e.scr, d) {
		return
	}
	var eig mat.EigenSym
	if !eig.Factorize(mat.NewSymDense(d, append([]float64(nil), s...)), true) {
		return // cannot happen for a finite symmetric S; evaluate catches the rest
	}
	var v mat.Dense
	eig.VectorsTo(&v)
	lambda := eig.Values(nil)
	clear(s)
	for i, l := range lambda {
		l = max(l, eps)
		for t := range d {
			vt := v.At(t, i) * l
			for u := range d {
				s[t*d+u] += vt * v.At(u, i)
			}
		}
	}
	for t := range d { // exactly symmetric
		for u := t + 1; u < d; u++ {
			s[u*d+t] = s[t*d+u]
		}
	}
}

// cholesky overwrites the lower triangle of the symmetric a (d×d,
// row-major) with its Cholesky factor L, a = LLᵀ, and reports whether a is
// positive definite; when it is not, a is left part-way.
func cholesky(a []float64, d int) bool {
	for t := range d {
		for u := 0; u <= t; u++ {
			s := a[t*d+u]
			for v := range u {
				s -= a[t*d+v] * a[u*d+v]
			}
			if u == t {
				if !(s > 0) {
					return false
				}
				a[t*d+t] = math.Sqrt(s)
			} else {
				a[t*d+u] = s / a[u*d+u]
			}
		}
	}
	return true
}

// chunk is the number of points the general passes take at a time, one
// component after another, each coordinate a contiguous run: the inner
// loops then run over points, independent of one another, rather than along
// a point's chain of dependent operations.
const chunk = 64

// mBlock accumulates the M-step's sums about the old means over the points
// of block b: any dimension. Each sum still adds its points in order.
func (e *EM) mBlock(b int) {
	k, d := e.k, e.d
	p := &e.parts[b]
	p.s0 = [MaxK]float64{}
	clear(p.sum1)
	clear(p.sum2)
	var w, gw [MaxDim][chunk]float64 // x − c and γ(x − c), by coordinate
	var g [chunk]float64
	lo, hi := e.block(b)
	for c0 := lo; c0 < hi; c0 += chunk {
		m := min(chunk, hi-c0)
		for j := range k {
			c := e.c[j*d : j*d+d]
			s1, s2 := p.sum1[j*d:j*d+d], p.sum2[j*d*d:(j+1)*d*d]
			gs := g[:m]
			for q := range gs {
				gs[q] = e.resp[(c0+q)*k+j]
				p.s0[j] += gs[q]
			}
			for t := range d {
				wt, gwt, xt := w[t][:m], gw[t][:m], e.cols[t][c0:c0+m]
				ct, acc := c[t], s1[t]
				for q, v := range xt {
					wt[q] = v - ct
					gwt[q] = gs[q] * wt[q]
					acc += gwt[q]
				}
				s1[t] = acc
			}
			for t := range d {
				gwt := gw[t][:m]
				row := s2[t*d : t*d+d]
				u := t
				for ; u+4 <= d; u += 4 { // four independent sums at a time
					a0, a1, a2, a3 := row[u], row[u+1], row[u+2], row[u+3]
					w0, w1, w2, w3 := w[u][:m], w[u+1][:m], w[u+2][:m], w[u+3][:m]
					for q, v := range gwt {
						a0 += v * w0[q]
						a1 += v * w1[q]
						a2 += v * w2[q]
						a3 += v * w3[q]
					}
					row[u], row[u+1], row[u+2], row[u+3] = a0, a1, a2, a3
				}
				for ; u < d; u++ {
					a, wu := row[u], w[u][:m]
					for q, v := range gwt {
						a += v * wu[q]
					}
					row[u] = a
				}
			}
		}
	}
}

// mBlock2 is mBlock for points in the plane, unrolled.
func (e *EM) mBlock2(b int) {
	var s0, sx, sy, sxx, sxy, syy [MaxK]float64
	var cx, cy [MaxK]float64
	k := e.k
	for j := range k {
		cx[j], cy[j] = e.c[2*j], e.c[2*j+1]
	}
	xs, ys := e.cols[0], e.cols[1]
	lo, hi := e.block(b)
	for i := lo; i < hi; i++ {
		xi, yi := xs[i], ys[i]
		r := e.resp[i*k : i*k+k]
		for j, g := range r {
			dx, dy := xi-cx[j], yi-cy[j]
			gx, gy := g*dx, g*dy
			s0[j] += g
			sx[j] += gx
			sy[j] += gy
			sxx[j] += gx * dx
			sxy[j] += gx * dy
			syy[j] += gy * dy
		}
	}
	p := &e.parts[b]
	p.s0 = s0
	for j := range k {
		p.sum1[2*j], p.sum1[2*j+1] = sx[j], sy[j]
		p.sum2[4*j], p.sum2[4*j+1], p.sum2[4*j+3] = sxx[j], sxy[j], syy[j]
	}
}

// evaluate factors every Σ_k and computes, at the current θ, the log joint
// lj_nk = log π_k + log N(x_n; μ_k, Σ_k), w_nk = exp(lj_nk − max_j lj_nj), the
// log-sum-exp lse_n = log p(x_n | θ), the log-likelihood Σ_n lse_n (eq 2.6)
// and, when a q exists, the bound L(q, θ) = Σ_nk q_nk (lj_nk − log q_nk)
// (eq 2.32) for the q of the last E-step. Terms with q_nk = 0 contribute 0
// (0·log 0 = 0), which also covers a component of weight 0.
func (e *EM) evaluate() error {
	d := e.d
	for j := range e.comps {
		g := &e.comps[j]
		if err := e.factor(j, g); err != nil {
			e.collapsed = j
			return err
		}
		// log|L| as the log of a product, rescaled now and then so that it
		// neither overflows nor underflows in many dimensions.
		logDet, prod := 0.0, 1.0
		for t := range d {
			prod *= g.chol[t*d+t]
			if prod > 1e100 || prod < 1e-100 {
				logDet += math.Log(prod)
				prod = 1
			}
		}
		logDet += math.Log(prod)
		g.c = math.Log(g.weight) - float64(d)/2*log2Pi - logDet
		if d == 2 {
			g.mx, g.my = g.mean[0], g.mean[1]
			g.i11, g.l21, g.i22 = g.idiag[0], g.chol[2], g.idiag[1]
		}
	}
	e.loop.Run(e.workers, len(e.parts), e.evalFn)
	ll, elbo := 0.0, 0.0
	for b := range e.parts {
		ll += e.parts[b].ll
		elbo += e.parts[b].elbo
	}
	e.ll, e.elbo = ll, elbo
	return nil
}

// factor sets component j's Cholesky factor, or returns an ErrDiverged
// error when Σ_k has collapsed: an eigenvalue below minEig (found, without
// an eigendecomposition, as Σ_k − minEig·I having no Cholesky factor), or
// a value that is not finite.
func (e *EM) factor(j int, g *gauss) error {
	d := e.d
	finite := true
	for _, v := range g.cov {
		finite = finite && algo.Finite(v)
	}
	var ok bool
	if d == 2 {
		ok = finite && minEigen(g.cov, d) >= e.minEig
	} else {
		copy(e.scr, g.cov)
		for t := range d {
			e.scr[t*d+t] -= e.minEig
		}
		ok = finite && cholesky(e.scr, d)
	}
	if !ok {
		return algo.Diverged("Σ_%d has collapsed (smallest eigenvalue %.3g < %.3g): set reg > 0 (Remark 2.10)",
			j+1, minEigen(g.cov, d), e.minEig)
	}
	copy(g.chol, g.cov)
	if !cholesky(g.chol, d) {
		return algo.Diverged("Σ_%d has no Cholesky factor (smallest eigenvalue %.3g): set reg > 0 (Remark 2.10)",
			j+1, minEigen(g.cov, d))
	}
	for t := range d {
		g.idiag[t] = 1 / g.chol[t*d+t]
	}
	return nil
}

// minEigen is the smallest eigenvalue of the symmetric s (d×d, row-major),
// NaN when s is not finite.
func minEigen(s []float64, d int) float64 {
	for _, v := range s {
		if !algo.Finite(v) {
			return math.NaN()
		}
	}
	switch d {
	case 1:
		return s[0]
	case 2:
		return (s[0]+s[3])/2 - math.Hypot((s[0]-s[3])/2, s[1])
	}
	var eig mat.EigenSym
	if !eig.Factorize(mat.NewSymDense(d, append([]float64(nil), s...)), false) {
		return math.NaN()
	}
	return eig.Values(nil)[0]
}

// evalBlock is evaluate's pass over the points of block b: any dimension.
// A chunk of points at a time and one component at a time, it solves
// L u = x − μ_k by forward substitution for every point of the chunk
// together, each u_t then reduced as u_t ← (x_t − μ_t − Σ_{s<t} L_ts u_s)/L_tt
// over the points, and fills lj; then evalPoints takes the log-sum-exps.
func (e *EM) evalBlock(b int) {
	k, d := e.k, e.d
	var u [MaxDim][chunk]float64
	var sq [chunk]float64
	lo, hi := e.block(b)
	ll, elbo := 0.0, 0.0
	for c0 := lo; c0 < hi; c0 += chunk {
		m := min(chunk, hi-c0)
		for j := range k {
			g := &e.comps[j]
			qs := sq[:m]
			clear(qs)
			for t := range d {
				ut, xt := u[t][:m], e.cols[t][c0:c0+m]
				mt := g.mean[t]
				for q, v := range xt {
					ut[q] = v - mt
				}
				for s, l := range g.chol[t*d : t*d+t] {
					us := u[s][:m]
					for q := range ut {
						ut[q] -= l * us[q]
					}
				}
				it := g.idiag[t]
				for q := range ut {
					v := ut[q] * it
					ut[q] = v
					qs[q] += v * v
				}
			}
			for q, v := range qs {
				e.lj[(c0+q)*k+j] = g.c - 0.5*v
			}
		}
		cl, ce := e.evalPoints(c0, c0+m, nil)
		ll += cl
		elbo += ce
	}
	e.parts[b].ll, e.parts[b].elbo = ll, elbo
}

// evalBlock2 is evalBlock for points in the plane, unrolled.
func (e *EM) evalBlock2(b int) {
	comps := e.comps
	xs, ys := e.cols[0], e.cols[1]
	lo, hi := e.block(b)
	e.parts[b].ll, e.parts[b].elbo = e.evalPoints(lo, hi, func(i int, lj []float64) {
		xi, yi := xs[i], ys[i]
		for j := range lj {
			g := &comps[j]
			u1 := (xi - g.mx) * g.i11
			u2 := (yi - g.my - g.l21*u1) * g.i22
			lj[j] = g.c - 0.5*(u1*u1+u2*u2)
		}
	})
}

// evalPoints is the part of evaluate's pass that does not depend on the
// dimension: for each point i of lo..hi, logJoint fills lj with
// log π_k + log N(x_i; μ_k, Σ_k) (or, when nil, lj is filled already), from
// which it takes the log-sum-exp; it returns the points' shares of the
// log-likelihood and of the bound.
func (e *EM) evalPoints(lo, hi int, logJoint func(i int, lj []float64)) (ll, elbo float64) {
	k := e.k
	for i := lo; i < hi; i++ {
		lj, w := e.lj[i*k:i*k+k], e.w[i*k:i*k+k]
		if logJoint != nil {
			logJoint(i, lj)
		}
		m := math.Inf(-1)
		for _, v := range lj {
			m = max(m, v)
		}
		s := 0.0
		for j, v := range lj {
			ew := math.Exp(v - m)
			w[j] = ew
			s += ew
		}
		e.wsum[i] = s
		lse := m + math.Log(s)
		e.lse[i] = lse
		ll += lse
		if e.hasQ {
			r, lq := e.resp[i*k:i*k+k], e.logq[i*k:i*k+k]
			for j, q := range r {
				if q > 0 {
					elbo += q * (lj[j] - lq[j])
				}
			}
		}
	}
	return ll, elbo
}

// Bound returns, at the current θ, the lower bound L(q, θ) (eq 2.32) and the
// gap KL(q ‖ p(z | x, θ)) for any q: n×k responsibilities, row-major, each row
// a distribution over the components. By eq (2.31) they add up to
// log p(x | θ) = LogLik() for every q, fresh or stale. Terms with q_nk = 0
// contribute 0. It returns an error naming "q" for a q of the wrong length.
func (e *EM) Bound(q []float64) (elbo, kl float64, err error) {
	if len(q) != e.n*e.k {
		return 0, 0, algo.BadParam("q", fmt.Sprintf("%d values", len(q)), fmt.Sprintf("n·k = %d values", e.n*e.k))
	}
	k := e.k
	for i := 0; i < e.n; i++ {
		lse := e.lse[i]
		for j, qj := range q[i*k : i*k+k] {
			if qj <= 0 {
				continue
			}
			lj, lq := e.lj[i*k+j], math.Log(qj)
			elbo += qj * (lj - lq)
			kl += qj * (lq - (lj - lse)) // log p(z_nk = 1 | x_n, θ) = lj − lse
		}
	}
	return elbo, kl, nil
}

// N is the number of points.
func (e *EM) N() int { return e.n }

// K is the number of components.
func (e *EM) K() int { return e.k }

// Dim is the dimension d of the points.
func (e *EM) Dim() int { return e.d }

// Coord returns coordinate t of every point (a view: do not modify).
func (e *EM) Coord(t int) []float64 { return e.cols[t] }

// Next is the phase the next Step performs.
func (e *EM) Next() Phase { return e.next }

// Last is the phase the last Step performed; ok is false before the first.
func (e *EM) Last() (p Phase, ok bool) { return 1 - e.next, e.half > 0 }

// HalfSteps is the number of successful Steps (E- and M-steps) taken.
func (e *EM) HalfSteps() int { return e.half }

// Iter is the number of full iterations (M-steps) taken.
func (e *EM) Iter() int { return len(e.trace) - 1 }

// Component returns component j's current parameters (fresh slices).
func (e *EM) Component(j int) Gaussian {
	g := e.comps[j]
	d := e.d
	cov := make([][]float64, d)
	for t := range cov {
		cov[t] = append([]float64(nil), g.cov[t*d:(t+1)*d]...)
	}
	return Gaussian{Weight: g.weight, Mean: append([]float64(nil), g.mean...), Cov: cov}
}

// Components returns all components' current parameters (fresh slices).
func (e *EM) Components() []Gaussian {
	out := make([]Gaussian, e.k)
	for j := range out {
		out[j] = e.Component(j)
	}
	return out
}

// Counts returns N_k, the effective number of points of each component at the
// last M-step (all zero before it), into dst (grown if short).
func (e *EM) Counts(dst []float64) []float64 {
	dst = grow(dst, e.k)
	copy(dst, e.nk[:e.k])
	return dst
}

// Resp returns q, the responsibilities γ(z_nk) of the last E-step, n×k
// row-major (a view: do not modify; it changes at the next E-step). ok is
// false before the first E-step.
func (e *EM) Resp() (q []float64, ok bool) { return e.resp, e.hasQ }

// Assign writes into dst (grown if short) each point's most responsible
// component, argmax_k γ(z_nk) (ties to the lowest k), from the last E-step;
// -1 for every point before the first E-step.
func (e *EM) Assign(dst []int) []int {
	dst = grow(dst, e.n)
	k := e.k
	for i := range dst[:e.n] {
		if !e.hasQ {
			dst[i] = -1
			continue
		}
		best, bj := -1.0, 0
		for j, q := range e.resp[i*k : i*k+k] {
			if q > best {
				best, bj = q, j
			}
		}
		dst[i] = bj
	}
	return dst
}

// LogLik is log p(x | θ) = Σ_n log Σ_k π_k N(x_n; μ_k, Σ_k) (eq 2.6) at the
// current θ, in nats.
func (e *EM) LogLik() float64 { return e.ll }

// MeanLogLik is LogLik()/N, the mean log-likelihood per point.
func (e *EM) MeanLogLik() float64 { return e.ll / float64(e.n) }

// ELBO returns L(q, θ) (eq 2.32) for the q of the last E-step and the current
// θ: equal to LogLik() right after an E-step (eq 2.34), and between the old
// and the new log-likelihood right after an M-step (eq 2.37). ok is false
// before the first E-step, when there is no q.
func (e *EM) ELBO() (elbo float64, ok bool) { return e.elbo, e.hasQ }

// Trace returns the mean log-likelihood per point after 0, 1, 2, ... M-steps
// (Iter()+1 values; a view whose values never change, though later M-steps
// append to the trace).
func (e *EM) Trace() []float64 { return e.trace[:len(e.trace):len(e.trace)] }

// Eps is the absolute covariance floor ε = Reg·s²: every Σ_k ⪰ εI. With
// CovSphericalFixed it is the fixed variance, Σ_k = εI.
func (e *EM) Eps() float64 { return e.eps }

// Scale is the data's scale s², the mean of the coordinates' variances, to
// which Reg and Eps are relative.
func (e *EM) Scale() float64 { return e.s2 }

// Cov is the covariance mode.
func (e *EM) Cov() CovMode { return e.cfg.Cov }

// Collapsed returns the component whose covariance collapsed (the cause of
// an ErrDiverged from Step, possible only with Reg = 0), and ok = false when
// none has. Its parameters are those of the M-step that collapsed it; the
// log-likelihood and the bound are still those of the θ before.
func (e *EM) Collapsed() (j int, ok bool) { return e.collapsed, e.collapsed >= 0 }

// AtFloor reports a component whose smallest eigenvalue sits at the
// covariance floor ε > 0 (to a relative 1e-6): the floor is what keeps it
// from collapsing. ok is false when none does, with CovSphericalFixed
// (where every Σ_k is εI by design), and before the first M-step.
func (e *EM) AtFloor() (j int, ok bool) {
	if e.cfg.Cov != CovFull || e.eps <= 0 || e.Iter() == 0 {
		return 0, false
	}
	for j, g := range e.comps {
		if minEigen(g.cov, e.d) <= e.eps*(1+1e-6) {
			return j, true
		}
	}
	return 0, false
}

// floorEig returns the symmetric 2×2 matrix S = [[a, b], [b, c]] with its
// eigenvalues raised to at least eps: S itself when both already are, eps·I
// when neither is, and otherwise S + (eps − λ₋)P₋ with P₋ = (λ₊I − S)/(λ₊ − λ₋)
// the projector on the eigenvector of the smaller eigenvalue λ₋.
func floorEig(a, b, c, eps float64) (sxx, sxy, syy float64) {
	h := math.Hypot((a-c)/2, b)
	lo, hi := (a+c)/2-h, (a+c)/2+h
	switch {
	case lo >= eps:
		return a, b, c
	case hi <= eps:
		return eps, 0, eps
	}
	t := (eps - lo) / (hi - lo) // hi − lo ≥ eps − lo > 0
	return a + t*(hi-a), b - t*b, c + t*(hi-c)
}

// meanVariance is the mean over the coordinates of their (1/n) variances,
// the data's scale s²: (var x + var y)/2 in the plane.
func meanVariance(cols [][]float64) float64 {
	s := 0.0
	for _, col := range cols {
		n, m := float64(len(col)), 0.0
		for _, v := range col {
			m += v
		}
		m /= n
		v := 0.0
		for _, x := range col {
			v += (x - m) * (x - m)
		}
		s += v / n
	}
	return s / float64(len(cols))
}

func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

func sq(x float64) float64 { return x * x }
