package mcmc

import (
	"fmt"
	"math"
	"slices"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/stein"
)

// SVGDSchedule names how SVGD turns the direction φ into a move.
type SVGDSchedule string

// The schedules of NewSVGD.
const (
	// SVGDFixed moves every particle by ε φ(x_i).
	SVGDFixed SVGDSchedule = "fixed"
	// SVGDAdaGrad is the step of Liu & Wang's reference code: AdaGrad with
	// momentum (an RMSProp), per particle and coordinate,
	// G ← φ² at the first step, then G ← α G + (1 − α) φ², α = 0.9, and
	// x ← x + ε φ/(10⁻⁶ + √G).
	SVGDAdaGrad SVGDSchedule = "adagrad"
)

func (s SVGDSchedule) String() string { return string(s) }

// Constants of the AdaGrad schedule (Liu & Wang's code).
const (
	svgdAlpha = 0.9
	svgdFudge = 1e-6
)

// MaxSVGDParticles bounds n: a step costs O(n² d) and holds n(n−1)/2
// pairwise distances twice.
const MaxSVGDParticles = 1000

// SVGDConfig configures NewSVGD.
type SVGDConfig struct {
	// Eps is the step size ε (finite, > 0).
	Eps float64
	// Schedule is SVGDFixed (the default when "") or SVGDAdaGrad.
	Schedule SVGDSchedule
	// Bandwidth is a fixed kernel bandwidth h > 0 (with 2/h finite), or 0
	// for the median heuristic of every step.
	Bandwidth float64
}

// SVGD is Stein variational gradient descent (Liu & Wang 2016, "Stein
// Variational Gradient Descent: A General Purpose Bayesian Inference
// Algorithm", NeurIPS, Algorithm 1): n particles x_1..x_n are moved
// together, deterministically, along
//
//	φ(x) = (1/n) Σ_j [ k(x_j, x) ∇log p(x_j) + ∇_{x_j} k(x_j, x) ],
//
// the direction in the unit ball of the kernel's RKHS that decreases
// KL(q ‖ p) fastest for q the particles' law. The first term drives the
// particles up the log-density, smoothed by the kernel; the second repels
// them from each other (it sums to zero over the particles by symmetry,
// so it spreads them without moving their mean). With one particle φ is
// ∇log p: gradient ascent to a mode.
//
// The kernel is the RBF k(x, x') = exp(−‖x − x'‖²/h), whose gradient is
// ∇_{x_j} k(x_j, x) = (2/h)(x − x_j) k(x_j, x). Its bandwidth is fixed, or
// the paper's median heuristic h = med²/log n, med the median of the
// n(n−1)/2 distances ‖x_i − x_j‖, i < j (the mean of the two middle ones
// for an even count), recomputed at every step; h = 1 when n = 1 (nothing
// depends on it) or when 2/h would overflow (med = 0, more than half the
// pairs coinciding, or med below about 10⁻¹⁵⁴).
//
// A step moves x_i ← x_i + ε φ(x_i) (SVGDFixed) or by the AdaGrad step of
// the paper's code (SVGDAdaGrad), then evaluates φ at the new particles.
// It also evaluates the kernelized Stein discrepancy of the particles'
// empirical law under the step's kernel (Liu, Lee & Jordan 2016; Chwialkowski
// et al. 2016), the V-statistic
//
//	KSD² = (1/n²) Σ_ij u_p(x_i, x_j),
//	u_p(x, x') = s(x)ᵀs(x') k + s(x)ᵀ∇_{x'}k + s(x')ᵀ∇_x k + tr ∇_x∇_{x'} k,
//
// s = ∇log p, which for the RBF is k·[s(x)ᵀs(x') + (2/h) (s(x) − s(x'))ᵀ(x − x')
// + 2d/h − 4‖x − x'‖²/h²]. It is ‖φ̂‖² in the RKHS, the square of the
// steepest descent rate of the KL. It falls as the particles settle, but
// not to 0 for finite n: by the reproducing property it is
// (1/n) Σ_i [s(x_i)ᵀφ(x_i) + ∇·φ(x_i)], so at a fixed point (φ(x_i) = 0
// for every i) it is (1/n) Σ_i ∇·φ(x_i), in general > 0 (the
// V-statistic's bias, of order 1/n).
//
// A step costs O(n² d) and does not allocate. It returns an error that is
// algo.ErrDiverged when a particle becomes non-finite.
type SVGD struct {
	g     Gradient
	n, d  int
	cfg   SVGDConfig
	x     []float64 // particles, n×d row-major
	grad  []float64 // ∇log p at the particles
	drive []float64 // the driving term (1/n) Σ_j k s_j, n×d
	rep   []float64 // the repulsive term (1/n) Σ_j ∇_{x_j} k, n×d
	phi   []float64 // drive + rep
	hist  []float64 // AdaGrad's G
	r2    []float64 // squared distances of the pairs i < j
	sel   []float64 // scratch for the median
	h     float64
	ksd   float64
	steps int
}

// NewSVGD starts SVGD for g from the n particles x0 (each of g.Dim()
// finite coordinates, copied; 1 ≤ n ≤ MaxSVGDParticles) and evaluates φ
// there.
func NewSVGD(g Gradient, x0 [][]float64, cfg SVGDConfig) (*SVGD, error) {
	if err := checkTarget(g); err != nil {
		return nil, err
	}
	n, d := len(x0), g.Dim()
	if n < 1 || n > MaxSVGDParticles {
		return nil, algo.BadParam("x0", n, fmt.Sprintf("1 to %d particles", MaxSVGDParticles))
	}
	for _, x := range x0 {
		if len(x) != d || !algo.AllFinite(x) {
			return nil, algo.BadParam("x0", x, "particles of "+dimText(d))
		}
	}
	if err := checkStep("eps", cfg.Eps); err != nil {
		return nil, err
	}
	switch cfg.Schedule {
	case "":
		cfg.Schedule = SVGDFixed
	case SVGDFixed, SVGDAdaGrad:
	default:
		return nil, algo.BadParam("schedule", cfg.Schedule, "fixed or adagrad")
	}
	if !(cfg.Bandwidth >= 0) || math.IsInf(cfg.Bandwidth, 0) || (cfg.Bandwidth > 0 && math.IsInf(2/cfg.Bandwidth, 0)) {
		return nil, algo.BadParam("bandwidth", cfg.Bandwidth, "a finite number ≥ 0 whose 2/h is finite (0: the median heuristic)")
	}
	pairs := n * (n - 1) / 2
	s := &SVGD{
		g: g, n: n, d: d, cfg: cfg,
		x:     make([]float64, n*d),
		grad:  make([]float64, n*d),
		drive: make([]float64, n*d),
		rep:   make([]float64, n*d),
		phi:   make([]float64, n*d),
		hist:  make([]float64, n*d),
		r2:    make([]float64, pairs),
		sel:   make([]float64, pairs),
	}
	for i, x := range x0 {
		copy(s.x[i*d:], x)
	}
	s.evaluate()
	if !algo.AllFinite(s.phi) {
		return nil, algo.BadParam("x0", "particles", "points where ∇log p is finite")
	}
	return s, nil
}

// SVGDBytes is what NewSVGD holds for n particles in dimension d.
func SVGDBytes(n, d int) int64 {
	return 8*int64(6*n*d) + 8*int64(n*(n-1)) + 256
}

// Step moves the particles along φ and evaluates φ and the KSD at their
// new places.
func (s *SVGD) Step() error {
	switch s.cfg.Schedule {
	case SVGDAdaGrad:
		for k, f := range s.phi {
			if s.steps == 0 {
				s.hist[k] = f * f
			} else {
				s.hist[k] = svgdAlpha*s.hist[k] + (1-svgdAlpha)*f*f
			}
			s.x[k] += s.cfg.Eps * f / (svgdFudge + math.Sqrt(s.hist[k]))
		}
	default:
		for k, f := range s.phi {
			s.x[k] += s.cfg.Eps * f
		}
	}
	s.steps++
	if !algo.AllFinite(s.x) {
		return algo.Diverged("svgd particles not finite at step %d: step ε = %g is too large for the target's curvature", s.steps, s.cfg.Eps)
	}
	s.evaluate()
	if !algo.AllFinite(s.phi) || math.IsNaN(s.ksd) {
		return algo.Diverged("svgd direction not finite at step %d: step ε = %g is too large for the target's curvature", s.steps, s.cfg.Eps)
	}
	return nil
}

// evaluate computes ∇log p, the bandwidth, φ = drive + rep and the KSD at
// the current particles.
func (s *SVGD) evaluate() {
	n, d := s.n, s.d
	for i := range n {
		s.g.Grad(s.grad[i*d:(i+1)*d], s.x[i*d:(i+1)*d])
	}
	stein.PairDistances(s.r2, s.x, n, d)
	s.h = s.bandwidth()
	inv := 1 / float64(n)
	c := 2 / s.h
	// The diagonal pairs: k = 1, ∇k = 0, u_p = ‖s‖² + 2d/h.
	ksd := 0.0
	for i := range n {
		si := s.grad[i*d : (i+1)*d]
		copy(s.drive[i*d:(i+1)*d], si)
		clear(s.rep[i*d : (i+1)*d])
		ksd += sqNorm(si) + c*float64(d)
	}
	ksd += stein.AddPairs(s.drive, s.rep, s.x, s.grad, s.r2, n, d, s.h)
	for m := range s.phi {
		s.drive[m] *= inv
		s.rep[m] *= inv
		s.phi[m] = s.drive[m] + s.rep[m]
	}
	s.ksd = ksd * inv * inv
}

// bandwidth is the fixed h, or the median heuristic med²/log n.
func (s *SVGD) bandwidth() float64 {
	if s.cfg.Bandwidth > 0 {
		return s.cfg.Bandwidth
	}
	m := len(s.r2)
	if m == 0 {
		return 1
	}
	copy(s.sel, s.r2)
	hi := nthSmallest(s.sel, m/2)
	med := math.Sqrt(hi)
	if m%2 == 0 { // the largest of the m/2 values left below it
		med = 0.5 * (med + math.Sqrt(slices.Max(s.sel[:m/2])))
	}
	h := med * med / math.Log(float64(s.n))
	if math.IsInf(2/h, 0) { // med = 0, or h too small for the kernel's 2/h
		return 1
	}
	return h
}

// nthSmallest rearranges a so that a[k] is its k-th smallest value (from
// 0), every value before it ≤ a[k] and every value after it ≥ a[k], and
// returns a[k]: Hoare's selection (Find, 1961) with a median-of-three
// pivot, O(len a) expected, in place. a holds no NaN.
func nthSmallest(a []float64, k int) float64 {
	lo, hi := 0, len(a)-1
	for lo < hi {
		mid := lo + (hi-lo)/2
		if a[mid] < a[lo] {
			a[mid], a[lo] = a[lo], a[mid]
		}
		if a[hi] < a[lo] {
			a[hi], a[lo] = a[lo], a[hi]
		}
		if a[hi] < a[mid] {
			a[hi], a[mid] = a[mid], a[hi]
		}
		pivot := a[mid]
		i, j := lo, hi
		for i <= j {
			for a[i] < pivot {
				i++
			}
			for a[j] > pivot {
				j--
			}
			if i <= j {
				a[i], a[j] = a[j], a[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return a[k]
		}
	}
	return a[k]
}

// N is the number of particles and Dim their dimension.
func (s *SVGD) N() int   { return s.n }
func (s *SVGD) Dim() int { return s.d }

// Particles returns the particles, n×d row-major (a view: do not modify;
// it changes on Step).
func (s *SVGD) Particles() []float64 { return s.x }

// Particle returns particle i (a view).
func (s *SVGD) Particle(i int) []float64 { return s.x[i*s.d : (i+1)*s.d] }

// Phi returns φ at the current particles, n×d (a view): the next move's
// direction.
func (s *SVGD) Phi() []float64 { return s.phi }

// Repulsion returns the repulsive part (1/n) Σ_j ∇_{x_j} k(x_j, x_i) of φ
// at the current particles, n×d (a view).
func (s *SVGD) Repulsion() []float64 { return s.rep }

// Drive returns the driving part (1/n) Σ_j k(x_j, x_i) ∇log p(x_j) of φ,
// n×d (a view).
func (s *SVGD) Drive() []float64 { return s.drive }

// Bandwidth is the kernel bandwidth h at the current particles.
func (s *SVGD) Bandwidth() float64 { return s.h }

// PhiNorm is the root mean square of ‖φ(x_i)‖ over the particles.
func (s *SVGD) PhiNorm() float64 { return math.Sqrt(sqNorm(s.phi) / float64(s.n)) }

// KSD2 is the squared kernelized Stein discrepancy (V-statistic) of the
// particles under the current kernel.
func (s *SVGD) KSD2() float64 { return s.ksd }

// Steps is the number of moves made.
func (s *SVGD) Steps() int { return s.steps }
