package optim

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/stat"
)

// MeanSquares is the finite sum f(x) = (1/n) Σ_i ½‖x − ξ_i‖²: ∇f(x) =
// x − ξ̄, m = L = 1, x* = ξ̄ and f* = ½s² with s² = (1/n) Σ‖ξ_i − ξ̄‖².
// SGD on it with steps t_k = 1/(k+1) (the notes' t = 1/k, L911) keeps the
// running mean of the sampled points, so that its error is known exactly
// (MeanSquaresMSE).
type MeanSquares struct {
	Points [][]float64
	mean   []float64
	s2     float64
}

// NewMeanSquares copies nothing: points must not change afterwards.
func NewMeanSquares(points [][]float64) (*MeanSquares, error) {
	if len(points) == 0 || len(points[0]) == 0 {
		return nil, algo.BadParam("points", len(points), "at least one non-empty point")
	}
	d := len(points[0])
	ms := &MeanSquares{Points: points, mean: make([]float64, d)}
	for _, p := range points {
		if len(p) != d || !algo.AllFinite(p) {
			return nil, algo.BadParam("points", p, fmt.Sprintf("finite points of dimension %d", d))
		}
		floats.Add(ms.mean, p)
	}
	floats.Scale(1/float64(len(points)), ms.mean)
	for _, p := range points {
		ms.s2 += algo.SqDist(p, ms.mean)
	}
	ms.s2 /= float64(len(points))
	return ms, nil
}

// Len is the number n of points.
func (ms *MeanSquares) Len() int { return len(ms.Points) }

// Mean is the minimiser ξ̄ (a view: do not modify).
func (ms *MeanSquares) Mean() []float64 { return ms.mean }

// Spread is s² = (1/n) Σ‖ξ_i − ξ̄‖² = E‖∇f_I(x*)‖², the variance of a
// single-term gradient.
func (ms *MeanSquares) Spread() float64 { return ms.s2 }

func (ms *MeanSquares) Func(x []float64) float64 { return 0.5 * (algo.SqDist(x, ms.mean) + ms.s2) }

func (ms *MeanSquares) Grad(g, x []float64) { floats.SubTo(g, x, ms.mean) }

// GradBatch writes (1/|B|) Σ_{i∈B} (x − ξ_i).
func (ms *MeanSquares) GradBatch(g, x []float64, batch []int) {
	copy(g, x)
	w := 1 / float64(len(batch))
	for _, i := range batch {
		floats.AddScaled(g, -w, ms.Points[i])
	}
}

// MeanSquaresMSE advances the exact mean-squared error of single-sample
// SGD (iid indices) on a MeanSquares by one step: with e = x − x*, the
// update is e⁺ = (1 − t)e + tη, η = ξ_I − ξ̄ of mean 0 and E‖η‖² = s², so
//
//	E‖e⁺‖² = (1 − t)² E‖e‖² + t² s².
//
// With t_k = 1/(k+1) it gives E‖∇f(x_k)‖² = E‖e_k‖² = s²/k for k ≥ 1.
func MeanSquaresMSE(mse, t, s2 float64) float64 { return (1-t)*(1-t)*mse + t*t*s2 }

// Regime is a row of the summary table of seed 001 §8 (L905–L911).
type Regime int

// The four regimes, in the table's order.
const (
	NonConvex Regime = iota
	ConvexRegime
	StronglyConvex
	Stochastic
)

// RegimeInfo says what a regime runs and what the table predicts.
type RegimeInfo struct {
	Name      string  // "non-convex", ...
	Criterion string  // what must fall below ε, relative to its start
	Theorem   string  // "Thm 8.8", ...
	Table     string  // the table's iteration count, "1/ε²", ...
	Slope     float64 // predicted log-log slope of count against 1/ε (0 for log)
	Problem   string  // the function it runs on
	M, L, T   float64 // curvature bounds and the (initial) step
}

// RatesConfig configures a Rates run.
type RatesConfig struct {
	// The relative ε grid: EpsMax, EpsMax/Factor, ... down to EpsMin.
	EpsMax, EpsMin, Factor float64
	// Cap is the most iterations a regime (each stochastic run) may take
	// in one Step.
	Cap int
	// Kappa is the condition number L/m of the strongly convex regime.
	Kappa float64
	// Seeds is the number of stochastic runs; C their step constant,
	// t_k = C/(k+1).
	Seeds int
	C     float64
}

// The spread spectra of the non-convex and convex regimes: curvatures
// λ_i = 10^{−i/2}, i = 0..spreadN−1 (eight decades).
const (
	spreadN     = 17
	spreadRatio = 3.1622776601683795 // √10
	wavyRateA   = 4
	stochDim    = 10
	stochN      = 1000
)

// Rates runs the four regimes of the summary table (seed 001 §8,
// L905–L913) against a tightening ε, one grid value per Step, and records
// the iterations each needs: the table made live. Every criterion is
// relative to its value at x_0 (ε = 0.01 means "down to 1% of the start"),
// which rescales the counts by constants and leaves the slopes alone.
//
//   - non-convex (Thm 8.8, min_{i≤k}‖∇f(x_i)‖ ≤ ε, O(1/ε²)): GD, t = 1/L,
//     on f(x) = Σ_i φ(x_i/β_i), φ(u) = ½u² + 4 sin²u, β_i² = 10^{i/2}: every
//     coordinate is non-convex (φ″ = 1 + 8 cos 2u), L = 9, and the log-spread
//     curvatures make ‖∇f(x_k)‖² ∝ 1/k over eight decades, the rate of the
//     theorem.
//   - convex (Thm 8.5, f − f* ≤ ε, O(1/ε)): GD, t = 1/L, on the diagonal
//     quadratic with λ_i = 10^{−i/2} and one λ = 0 (rank-deficient, so m = 0,
//     catalogue [A13]): f(x_k) − f* ∝ 1/k, the theorem's rate.
//   - m-strongly convex (Thm 8.7, f − f* ≤ ε, O(log 1/ε)): GD, t = 2/(m+L),
//     on diag(1, √κ, κ); γ = ((κ−1)/(κ+1))² (erratum E9).
//   - stochastic (no theorem in the notes; O(1/ε²), t = 1/k): SGD with
//     t_k = C/(k+1) on a MeanSquares, criterion ‖∇f(x_k)‖ ≤ ε, per run. With
//     C = 1 x_k is a running mean and E‖∇f(x_k)‖² = s²/k: count ∝ 1/ε². (In
//     f − f* = ½‖∇f‖² + f* the same runs need O(1/ε): the table's 1/ε² is in
//     the gradient norm, or for merely convex f with t ∝ 1/√k.)
//
// The deterministic counts are checked against the theorems' counts
// (FirstK of the bounds in bounds.go); the stochastic one against the
// exact E‖∇f‖² of MeanSquaresMSE, a prediction rather than a bound.
type Rates struct {
	cfg   RatesConfig
	eps   []float64
	level int // index of the current ε (−1 before the first Step)
	det   [3]*detRun
	stoch []*stochRun
	info  [4]RegimeInfo
	// the stochastic prediction: E‖∇f‖² recursion, advanced lazily
	ms       *MeanSquares
	eK       int
	eMSE, d2 float64
	predS    []float64
	capped   [4]bool
}

// detRun is one GD run of a deterministic regime.
type detRun struct {
	d      *Descent
	fstar  float64
	scale  float64 // the criterion at x_0
	best   float64 // non-convex: min_{i≤k} ‖∇f(x_i)‖
	grad   bool    // criterion is min ‖∇f‖ (else f − f*)
	counts []float64
	thm    []float64 // the theorem's count per ε
	bound  func(k int) float64
}

func (r *detRun) crit() float64 {
	if r.grad {
		r.best = math.Min(r.best, r.d.GradNorm())
		return r.best / r.scale
	}
	return (r.d.F() - r.fstar) / r.scale
}

// advance runs until the criterion reaches eps[upto] or cap iterations
// were taken; it reports whether the cap stopped it.
func (r *detRun) advance(eps []float64, upto, cap int) (capped bool, err error) {
	for n := 0; ; n++ {
		c := r.crit()
		for len(r.counts) <= upto && c <= eps[len(r.counts)] {
			r.counts = append(r.counts, float64(r.d.Iter()))
		}
		if len(r.counts) > upto {
			return false, nil
		}
		if n == cap {
			return true, nil
		}
		if err := r.d.Step(); err != nil {
			return false, err
		}
	}
}

// stochRun is one SGD run of the stochastic regime.
type stochRun struct {
	s      *SGD
	ms     *MeanSquares
	scale  float64
	counts []float64
}

func (r *stochRun) advance(eps []float64, upto, cap int) (capped bool, err error) {
	for n := 0; ; n++ {
		c := math.Sqrt(algo.SqDist(r.s.X(), r.ms.mean)) / r.scale
		for len(r.counts) <= upto && c <= eps[len(r.counts)] {
			r.counts = append(r.counts, float64(r.s.Iter()))
		}
		if len(r.counts) > upto {
			return false, nil
		}
		if n == cap {
			return true, nil
		}
		if err := r.s.Step(); err != nil {
			return false, err
		}
	}
}

// ratesStream is the PCG stream of the stochastic regime's points and runs.
const ratesStream = 0x7261746573 // "rates"

// RatesBytes is what NewRates allocates for seeds stochastic runs: the
// stochN points of the stochastic regime (stochDim values each), the
// deterministic regimes' runs (a few KiB, measured) and an SGD run a seed
// with its records.
func RatesBytes(seeds int) int64 {
	pts := int64(stochN) * (24 + algo.HeapBytes(8*stochDim))
	return pts + 16<<10 + int64(seeds)*(SGDBytes(stochN, stochDim)+256)
}

// NewRates validates cfg and sets up the four regimes; randomness (the
// stochastic regime's points and index draws) comes from seed.
func NewRates(cfg RatesConfig, seed uint64) (*Rates, error) {
	switch {
	case !(cfg.EpsMax > 0 && cfg.EpsMax < 1):
		return nil, algo.BadParam("eps_max", cfg.EpsMax, "in (0, 1): ε is relative to the start")
	case !(cfg.EpsMin > 0 && cfg.EpsMin <= cfg.EpsMax):
		return nil, algo.BadParam("eps_min", cfg.EpsMin, fmt.Sprintf("in (0, eps_max = %g]", cfg.EpsMax))
	case !(cfg.Factor > 1) || math.IsInf(cfg.Factor, 0):
		return nil, algo.BadParam("factor", cfg.Factor, "a finite number > 1")
	case cfg.Cap < 1:
		return nil, algo.BadParam("cap", cfg.Cap, "≥ 1")
	case !(cfg.Kappa > 1) || math.IsInf(cfg.Kappa, 0):
		return nil, algo.BadParam("kappa", cfg.Kappa, "a finite number > 1")
	case cfg.Seeds < 2:
		return nil, algo.BadParam("seeds", cfg.Seeds, "≥ 2 (the spread needs two runs)")
	case !(cfg.C > 0.5) || cfg.C > 4:
		return nil, algo.BadParam("c", cfg.C, "in (0.5, 4]: below ½ the 1/k steps converge slower than 1/√k")
	}
	r := &Rates{cfg: cfg, level: -1}
	for e := cfg.EpsMax; e >= cfg.EpsMin*(1-1e-9); e /= cfg.Factor {
		r.eps = append(r.eps, e)
		if len(r.eps) > 1000 {
			return nil, algo.BadParam("factor", cfg.Factor, "large enough for at most 1000 values of ε")
		}
	}

	lam := make([]float64, spreadN)
	beta := make([]float64, spreadN)
	for i := range lam {
		lam[i] = math.Pow(spreadRatio, -float64(i))
		beta[i] = 1 / math.Sqrt(lam[i])
	}
	ones := func(n int) []float64 {
		x := make([]float64, n)
		for i := range x {
			x[i] = 1
		}
		return x
	}

	// Non-convex: u_i = x_i/β_i starts at 3, in the basin of φ's local
	// minimum 2.7607 (catalogue [A13]); f* = 0 at 0.
	wv := Wavy{A: wavyRateA, Beta: beta}
	x0 := make([]float64, spreadN)
	for i := range x0 {
		x0[i] = 3 * beta[i]
	}
	L := 1 + 2.0*wavyRateA
	nc, err := newDetRun(wv, x0, 1/L, 0, true)
	if err != nil {
		return nil, err
	}
	gap0 := wv.Func(x0)
	nc.bound = func(k int) float64 { b, _ := NonConvexBound(L, 1/L, gap0, k); return b }
	r.det[NonConvex] = nc
	r.info[NonConvex] = RegimeInfo{Name: "non-convex", Criterion: "min‖∇f‖", Theorem: "Thm 8.8", Table: "1/ε²", Slope: 2,
		Problem: fmt.Sprintf("Σφ(x_i/β_i), φ=½u²+4sin²u, %d coords, 8 decades", spreadN), L: L, T: 1 / L}

	// Convex: the rank-deficient spread quadratic; x* is x0 projected on
	// the free axis, so ‖x0 − x*‖² counts the other coordinates only.
	q := DiagQuadratic{A: append(append([]float64(nil), lam...), 0)}
	x0 = ones(spreadN + 1)
	cv, err := newDetRun(q, x0, 1, 0, false)
	if err != nil {
		return nil, err
	}
	r0sq := float64(spreadN)
	cv.bound = func(k int) float64 { b, _ := ConvexBound(1, 1, r0sq, k); return b }
	r.det[ConvexRegime] = cv
	r.info[ConvexRegime] = RegimeInfo{Name: "convex", Criterion: "f − f*", Theorem: "Thm 8.5", Table: "1/ε", Slope: 1,
		Problem: fmt.Sprintf("½Σλ_i x_i², λ 1…1e-8 and 0 (%d coords)", spreadN+1), L: 1, T: 1}

	// Strongly convex: diag(1, √κ, κ) at the table's step 2/(m+L).
	kap := cfg.Kappa
	sq := DiagQuadratic{A: []float64{1, math.Sqrt(kap), kap}}
	ts := 2 / (1 + kap)
	sc, err := newDetRun(sq, ones(3), ts, 0, false)
	if err != nil {
		return nil, err
	}
	sc.bound = func(k int) float64 { b, _ := StronglyConvexBound(1, kap, ts, 3, k); return b }
	r.det[StronglyConvex] = sc
	r.info[StronglyConvex] = RegimeInfo{Name: "strongly convex", Criterion: "f − f*", Theorem: "Thm 8.7", Table: "log 1/ε", Slope: 0,
		Problem: fmt.Sprintf("diag(1, %.3g, %.3g)", math.Sqrt(kap), kap), M: 1, L: kap, T: ts}

	for i, run := range r.det {
		for _, e := range r.eps {
			k, ok := FirstK(run.bound, e*run.scale, 1)
			if !ok {
				return nil, fmt.Errorf("rates: regime %d: the theorem's count overflows at ε = %g", i, e)
			}
			run.thm = append(run.thm, float64(k))
		}
	}

	// Stochastic: n points from N(0, I_d); every run starts at distance s
	// from x* = ξ̄, so that with C = 1 the expected count is 1/ε².
	rng := rand.New(rand.NewPCG(seed, ratesStream))
	pts := make([][]float64, stochN)
	for i := range pts {
		pts[i] = make([]float64, stochDim)
		for j := range pts[i] {
			pts[i][j] = rng.NormFloat64()
		}
	}
	ms, err := NewMeanSquares(pts)
	if err != nil {
		return nil, err
	}
	r.ms = ms
	s := math.Sqrt(ms.Spread())
	xs := make([]float64, stochDim)
	for j := range xs {
		xs[j] = ms.mean[j] + s/math.Sqrt(stochDim)
	}
	for i := 0; i < cfg.Seeds; i++ {
		sg, err := NewSGD(ms, xs, SGDConfig{LR: cfg.C, Schedule: InvK, Decay: 1, Batch: 1},
			rand.New(rand.NewPCG(seed+uint64(i)+1, ratesStream)))
		if err != nil {
			return nil, err
		}
		r.stoch = append(r.stoch, &stochRun{s: sg, ms: ms, scale: s})
	}
	r.eMSE, r.d2 = s*s, s*s
	r.info[Stochastic] = RegimeInfo{Name: "stochastic", Criterion: "‖∇f‖", Theorem: "none", Table: "1/ε²", Slope: 2,
		Problem: fmt.Sprintf("(1/n)Σ½‖x−ξ_i‖², n=%d, d=%d; SGD t_k=%.3g/(k+1), %d seeds", stochN, stochDim, cfg.C, cfg.Seeds),
		M:       1, L: 1, T: cfg.C}
	return r, nil
}

func newDetRun(f Objective, x0 []float64, t, fstar float64, grad bool) (*detRun, error) {
	d, err := NewDescent(f, x0, DescentConfig{Method: GD, LR: t, Blowup: 1e12})
	if err != nil {
		return nil, err
	}
	r := &detRun{d: d, fstar: fstar, grad: grad, best: math.Inf(1)}
	if grad {
		r.scale = d.GradNorm()
	} else {
		r.scale = d.F() - fstar
	}
	return r, nil
}

// predictStoch extends the expected-count prediction of the stochastic
// regime toward eps[j]: the least k with E‖∇f(x_k)‖² ≤ (ε s)², by the exact
// recursion MeanSquaresMSE. It costs one scalar update per iteration, and
// the count grows like 1/ε² (10¹² at ε = 10⁻⁶, hours of updates), so a
// Step takes at most predictCap of them and the prediction catches up in
// later Steps, as a capped regime does.
func (r *Rates) predictStoch(j int) {
	sched := Schedule(InvK)
	for n := 0; len(r.predS) <= j; {
		target := r.eps[len(r.predS)] * r.eps[len(r.predS)] * r.d2
		for r.eMSE > target {
			if n == predictCap {
				return
			}
			r.eMSE = MeanSquaresMSE(r.eMSE, sched.StepSize(r.cfg.C, 1, r.eK), r.ms.s2)
			r.eK++
			n++
		}
		r.predS = append(r.predS, float64(r.eK))
	}
}

// predictCap is the most updates of the stochastic prediction in one Step:
// a few tens of milliseconds, a small part of a Step whose regimes take
// their Cap iterations each.
const predictCap = 1 << 25

// Step tightens ε to the next grid value (while there is one) and runs
// every regime until it reaches the current ε or has taken Cap iterations
// in this Step; a capped regime resumes at the next Step. It returns
// ErrConverged once ε is at EpsMin, every regime has reached it and the
// stochastic prediction is made for it.
func (r *Rates) Step() error {
	if r.level+1 < len(r.eps) {
		r.level++
	} else if r.Done() {
		return algo.ErrConverged
	}
	for i, run := range r.det {
		c, err := run.advance(r.eps, r.level, r.cfg.Cap)
		if err != nil {
			return fmt.Errorf("rates: %s: %w", r.info[i].Name, err)
		}
		r.capped[i] = c
	}
	r.capped[Stochastic] = false
	for _, run := range r.stoch {
		c, err := run.advance(r.eps, r.level, r.cfg.Cap)
		if err != nil {
			return fmt.Errorf("rates: stochastic: %w", err)
		}
		r.capped[Stochastic] = r.capped[Stochastic] || c
	}
	r.predictStoch(r.level)
	return nil
}

// Done reports whether every regime has reached the last ε and the
// stochastic prediction is made for it.
func (r *Rates) Done() bool {
	if r.level < len(r.eps)-1 || len(r.predS) < len(r.eps) {
		return false
	}
	for g := range r.info {
		if r.Reached(Regime(g)) < len(r.eps) {
			return false
		}
	}
	return true
}

// Eps is the ε grid (a view: do not modify).
func (r *Rates) Eps() []float64 { return r.eps }

// Level is the index of the current ε, −1 before the first Step.
func (r *Rates) Level() int { return r.level }

// Info describes a regime.
func (r *Rates) Info(g Regime) RegimeInfo { return r.info[g] }

// Predicted is the iterations of the stochastic prediction so far: the
// expected count reaches past it at the first ε not yet predicted.
func (r *Rates) Predicted() int { return r.eK }

// Capped reports whether the regime stopped at its cap in the last Step.
func (r *Rates) Capped(g Regime) bool { return r.capped[g] }

// Reached is how many grid values of ε the regime has reached (all its
// stochastic runs, for Stochastic).
func (r *Rates) Reached(g Regime) int {
	if g != Stochastic {
		return len(r.det[g].counts)
	}
	n := len(r.eps)
	for _, run := range r.stoch {
		n = min(n, len(run.counts))
	}
	return n
}

// Iter is the regime's iterations so far (the most of the stochastic runs).
func (r *Rates) Iter(g Regime) int {
	if g != Stochastic {
		return r.det[g].d.Iter()
	}
	k := 0
	for _, run := range r.stoch {
		k = max(k, run.s.Iter())
	}
	return k
}

// Counts returns the iterations the regime needed for each ε reached so
// far (the mean over the runs for Stochastic), as a new slice.
func (r *Rates) Counts(g Regime) []float64 {
	n := r.Reached(g)
	if g != Stochastic {
		return append([]float64(nil), r.det[g].counts[:n]...)
	}
	out := make([]float64, n)
	for _, run := range r.stoch {
		floats.AddScaled(out, 1/float64(len(r.stoch)), run.counts[:n])
	}
	return out
}

// RunCounts returns the stochastic run i's counts, as a new slice.
func (r *Rates) RunCounts(i int) []float64 {
	return append([]float64(nil), r.stoch[i].counts...)
}

// Runs is the number of stochastic runs.
func (r *Rates) Runs() int { return len(r.stoch) }

// Theory returns the theorem's count for the first n values of ε: the
// least k at which the theorem's bound reaches ε (for Stochastic, the
// least k with E‖∇f(x_k)‖² ≤ (εs)², exact but not a bound, and only for
// the values of ε predicted so far: fewer than n while the prediction
// catches up).
func (r *Rates) Theory(g Regime, n int) []float64 {
	if g != Stochastic {
		return append([]float64(nil), r.det[g].thm[:n]...)
	}
	return append([]float64(nil), r.predS[:min(n, len(r.predS))]...)
}

// Gamma is γ of the strongly convex regime (Theorem 8.7, erratum E9).
func (r *Rates) Gamma() float64 {
	i := r.info[StronglyConvex]
	g, _ := StronglyConvexRate(i.M, i.L, i.T)
	return g
}

// Slope fits log(count) = a + b·log(1/ε) by least squares over the first
// n values of ε and returns b; NaN with fewer than two points.
func Slope(eps, counts []float64) float64 {
	n := min(len(eps), len(counts))
	if n < 2 {
		return math.NaN()
	}
	x, y := make([]float64, n), make([]float64, n)
	for i := range n {
		x[i], y[i] = -math.Log(eps[i]), math.Log(math.Max(counts[i], 1))
	}
	_, b := stat.LinearRegression(x, y, nil, false)
	return b
}

// PerEFold fits count = a + b·log(1/ε) and returns b, the iterations per
// e-fold of ε: a linear rate γ^k needs 1/log(1/γ) of them.
func PerEFold(eps, counts []float64) float64 {
	n := min(len(eps), len(counts))
	if n < 2 {
		return math.NaN()
	}
	x := make([]float64, n)
	for i := range n {
		x[i] = -math.Log(eps[i])
	}
	_, b := stat.LinearRegression(x, counts[:n], nil, false)
	return b
}

// StochSlope returns the mean and standard error over the stochastic runs
// of their fitted slopes over the ε values they all reached.
func (r *Rates) StochSlope() (mean, se float64) {
	n := r.Reached(Stochastic)
	if n < 2 {
		return math.NaN(), math.NaN()
	}
	sl := make([]float64, len(r.stoch))
	for i, run := range r.stoch {
		sl[i] = Slope(r.eps[:n], run.counts[:n])
	}
	m, sd := stat.MeanStdDev(sl, nil)
	return m, sd / math.Sqrt(float64(len(sl)))
}
