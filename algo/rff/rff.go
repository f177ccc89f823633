// Package rff holds random-feature approximations of shift-invariant and
// softmax kernels (seed 004; seed 000 §4.7; seed 002 D8): frequencies drawn
// independently (RFF) or orthogonally (ORF), the running approximation of a
// kernel matrix as features accumulate, the softmax kernel's trigonometric
// and positive random features, and the Monte Carlo estimator of Bochner's
// theorem.
//
// Bandwidth convention: the Gaussian kernel is k(x, z) = exp(−γ‖x − z‖²),
// as everywhere in the lab, whose spectral density is N(0, 2γI) (Bochner,
// seed 004 L53–57: "if K is Gaussian then Ω = N(0, I_d)" holds for the unit
// bandwidth γ = ½ the seed leaves implicit, erratum 11 of the seed-003/004
// catalogue; seed 000 eq 4.31 writes p ~ N(0, I/σ²) for exp(−‖x−z‖²/(2σ²)),
// the same thing with γ = 1/(2σ²)).
package rff

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
	"gonum.org/v1/gonum/stat/distuv"
)

// Kind names how frequencies are drawn.
type Kind string

const (
	// IID draws w_1, w_2, … independently from N(0, 2γI) (seed 004
	// L105–107).
	IID Kind = "iid"
	// ORF draws them in blocks of d: a d×d matrix G of independent N(0, 1)
	// entries, its rows orthonormalised by Gram–Schmidt, each row then
	// scaled by an independent χ(d) draw (the norm of a d-dimensional
	// standard Gaussian) and by √(2γ) (seed 004 L113–126). Each row is
	// then exactly N(0, 2γI) (a uniform direction times an independent χ(d)
	// radius) while rows of a block are exactly orthogonal, which lowers
	// the variance of the kernel estimate. A fixed radius √d instead of
	// χ(d) draws would be biased (seed-003/004 catalogue R6: at ‖z‖ = 2 the
	// mean falls from 0.135 to 0.098); the seed's "same or different"
	// renormalisation (L125) is done with independent radii. Blocks are
	// independent, so any m is allowed (the seed's m ≤ d, L126, is per
	// block).
	ORF Kind = "orf"
	// SORF is structured orthogonal random features (Yu et al. 2016; the
	// seed stops at "Structured ORF (SORF) ...to be continued", L144):
	// blocks of the rows of √p·√(2γ)·HD₁HD₂HD₃, see sorf.go.
	SORF Kind = "sorf"
)

// String is the sampler's name.
func (k Kind) String() string { return string(k) }

// Sampler draws frequencies for the Gaussian kernel exp(−γ‖x − z‖²) in d
// dimensions.
type Sampler struct {
	d     int
	scale float64 // √(2γ)
	kind  Kind
	rng   *rand.Rand
	chi   distuv.Chi
	block []float64 // d×d rows of the current ORF block (p×d for SORF)
	next  int       // next row of the block; rows = exhausted
	rows  int       // rows of a block: d, or p for SORF
	sorf  *sorfWork // SORF only
}

// SamplerFootprint is the bytes NewSampler allocates in d dimensions: a
// d×d block of orthogonal rows (allocated for either kind).
func SamplerFootprint(d int) int64 { return 8 * int64(d) * int64(d) }

// NewSampler validates its inputs; rng drives every draw.
func NewSampler(d int, gamma float64, kind Kind, rng *rand.Rand) (*Sampler, error) {
	if d < 1 || d > 4096 {
		return nil, algo.BadParam("d", d, "in 1..4096")
	}
	if !(gamma > 0) || math.IsInf(gamma, 0) {
		return nil, algo.BadParam("gamma", gamma, "a finite number > 0")
	}
	if kind != IID && kind != ORF && kind != SORF {
		return nil, algo.BadParam("features", kind, fmt.Sprintf("one of %v", []Kind{IID, ORF, SORF}))
	}
	if rng == nil {
		return nil, algo.BadParam("rng", nil, "a random source")
	}
	s := &Sampler{
		d: d, scale: math.Sqrt(2 * gamma), kind: kind, rng: rng,
		chi:   distuv.Chi{K: float64(d), Src: rng},
		block: make([]float64, d*d), next: d, rows: d,
	}
	if kind == SORF {
		s.sorf = newSORFWork(d)
		s.rows, s.next = s.sorf.p, s.sorf.p
		s.block = make([]float64, s.sorf.p*d)
	}
	return s, nil
}

// D is the dimension.
func (s *Sampler) D() int { return s.d }

// Next writes the next frequency into w (length d).
func (s *Sampler) Next(w []float64) {
	if s.kind == IID {
		for i := range w {
			w[i] = s.scale * s.rng.NormFloat64()
		}
		return
	}
	if s.next == s.rows {
		if s.kind == SORF {
			s.newSORFBlock()
		} else {
			s.newBlock()
		}
	}
	copy(w, s.block[s.next*s.d:(s.next+1)*s.d])
	s.next++
}

// newBlock draws G, orthonormalises its rows by modified Gram–Schmidt
// (seed 004 L128–132: "whenever we move to the next row, subtract the
// projections on the previous rows"), run twice so that the rows are
// orthogonal to rounding (one pass leaves cosines of 1e-11), and scales each row by χ(d)·√(2γ). A
// Gaussian G has full rank with probability one; a row that vanishes in
// rounding is redrawn.
func (s *Sampler) newBlock() {
	d := s.d
	for r := 0; r < d; r++ {
		row := s.block[r*d : (r+1)*d]
		for {
			for i := range row {
				row[i] = s.rng.NormFloat64()
			}
			for range 2 { // twice is enough (Kahan–Parlett) for exact orthogonality
				for p := 0; p < r; p++ {
					prev := s.block[p*d : (p+1)*d]
					proj := dot(row, prev)
					for i := range row {
						row[i] -= proj * prev[i]
					}
				}
			}
			if n := math.Sqrt(dot(row, row)); n > 1e-8 {
				for i := range row {
					row[i] /= n
				}
				break
			}
		}
	}
	for r := 0; r < d; r++ {
		f := s.chi.Rand() * s.scale
		for i := r * d; i < (r+1)*d; i++ {
			s.block[i] *= f
		}
	}
	s.next = 0
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i, v := range a {
		s += v * b[i]
	}
	return s
}

// Estimator names which kernel the features estimate.
type Estimator string

const (
	// Gauss is the Gaussian kernel exp(−γ‖x − z‖²) from the features
	// φ(x) = m^{−½}(cos w_iᵀx, sin w_iᵀx)_i (seed 004 L49, L69–77), whose
	// inner product is (1/m)Σ cos(w_iᵀ(x − z)): unbiased, with the same w
	// in each cos/sin pair and the 1/√m scale for 2m features.
	Gauss Estimator = "gauss"
	// SoftmaxTrig is the softmax kernel SM(x, z) = exp(xᵀz) from the
	// trigonometric features φ_SM(x) = e^{‖x‖²/2}φ_Gauss(x) (seed 004 L91,
	// L99), with w ~ N(0, I). Unbiased, exact when x = z, but it can be
	// negative.
	SoftmaxTrig Estimator = "softmax-trig"
	// SoftmaxPos is the softmax kernel from the positive random features
	// φ₊(x) = m^{−½}e^{−‖x‖²/2}(e^{w_iᵀx})_i (Choromanski et al. 2021,
	// "Performers"; the seed has no positive features, erratum 16 of the
	// seed-003/004 catalogue): unbiased since E e^{wᵀu} = e^{‖u‖²/2}, always
	// positive, exact when x = −z.
	SoftmaxPos Estimator = "softmax-pos"
)

// Approx is the running random-feature approximation K̂_m of an n×n kernel
// matrix K: one Step draws one more frequency w and updates
//
//	K̂_m = ((m − 1)K̂_{m−1} + C_m)/m
//
// with C_m the single-frequency estimate (cos w(x_i − x_j) for Gauss), in
// O(n²) (seed-003/004 catalogue R2). For the Gaussian estimator K̂_ii = 1
// exactly at every m, and each entry has variance (1 − K_ij²)²/(2m).
type Approx struct {
	est    Estimator
	s      *Sampler
	x      [][]float64
	exact  []float64
	khat   []float64
	m      int
	w      []float64
	f1, f2 []float64 // per-point feature values of the last frequency
	half   []float64 // ‖x_i‖²/2
	kNorm  float64
}

// ApproxFootprint is the bytes NewApprox allocates for n points in d
// dimensions: the n×n estimate, a frequency and three vectors of the
// points' features and norms. The points and the exact matrix are the
// caller's.
func ApproxFootprint(n, d int) int64 { return 8*int64(n)*int64(n) + 8*int64(d) + 3*8*int64(n) }

// NewApprox approximates the matrix exact (n×n row-major, not copied) of
// the points x (not copied) with estimator est and frequencies from s (for
// the softmax estimators s must have γ = ½, w ~ N(0, I)).
func NewApprox(x [][]float64, exact []float64, est Estimator, s *Sampler) (*Approx, error) {
	n := len(x)
	if n == 0 || len(exact) != n*n {
		return nil, algo.BadParam("points", n, "at least one point and its n×n kernel matrix")
	}
	if len(x[0]) != s.d {
		return nil, algo.BadParam("d", len(x[0]), fmt.Sprintf("the sampler's dimension %d", s.d))
	}
	switch est {
	case Gauss:
	case SoftmaxTrig, SoftmaxPos:
		if math.Abs(s.scale-1) > 1e-12 {
			return nil, algo.BadParam("gamma", s.scale*s.scale/2, "0.5 (w ~ N(0, I)) for the softmax kernel")
		}
	default:
		return nil, algo.BadParam("estimator", est, "gauss, softmax-trig or softmax-pos")
	}
	a := &Approx{
		est: est, s: s, x: x, exact: exact, khat: make([]float64, n*n),
		w: make([]float64, s.d), f1: make([]float64, n), f2: make([]float64, n), half: make([]float64, n),
	}
	for i, xi := range x {
		a.half[i] = dot(xi, xi) / 2
	}
	for _, v := range exact {
		a.kNorm += v * v
	}
	a.kNorm = math.Sqrt(a.kNorm)
	return a, nil
}

// Step adds one frequency. It does not allocate.
func (a *Approx) Step() error {
	a.s.Next(a.w)
	for i, xi := range a.x {
		t := dot(a.w, xi)
		switch a.est {
		case Gauss:
			a.f1[i], a.f2[i] = math.Cos(t), math.Sin(t)
		case SoftmaxTrig:
			e := math.Exp(a.half[i])
			a.f1[i], a.f2[i] = e*math.Cos(t), e*math.Sin(t)
		case SoftmaxPos:
			a.f1[i], a.f2[i] = math.Exp(t-a.half[i]), 0
		}
	}
	a.m++
	blend(a.khat, a.f1, a.f2, float64(a.m-1)/float64(a.m), 1/float64(a.m))
	return nil
}

// blend folds the rank-2 term f1 f1ᵀ + f2 f2ᵀ into the running mean K̂
// (n×n, row-major, n = len(f1)): K̂ ← keep·K̂ + add·(f1 f1ᵀ + f2 f2ᵀ). A
// serial loop over the engine's buffers, as algo/tensor's are, it is
// marked for the race detector to leave alone.
//
//go:norace
func blend(khat, f1, f2 []float64, keep, add float64) {
	n := len(f1)
	for i := 0; i < n; i++ {
		row := khat[i*n : (i+1)*n]
		c1, c2 := f1[i], f2[i]
		for j := range row {
			row[j] = keep*row[j] + add*(c1*f1[j]+c2*f2[j])
		}
	}
}

// M is the number of frequencies drawn.
func (a *Approx) M() int { return a.m }

// KHat returns K̂_m (a view, updated by each Step).
func (a *Approx) KHat() []float64 { return a.khat }

// RelError returns ‖K̂_m − K‖_F / ‖K‖_F.
func (a *Approx) RelError() float64 {
	s := 0.0
	for i, v := range a.khat {
		d := v - a.exact[i]
		s += d * d
	}
	return math.Sqrt(s) / a.kNorm
}

// Negatives counts the negative entries of K̂ (which no kernel value of the
// softmax kernel is: trigonometric features can give negative "attention
// weights").
func (a *Approx) Negatives() int {
	c := 0
	for _, v := range a.khat {
		if v < 0 {
			c++
		}
	}
	return c
}

// GaussVariance is the variance of one frequency's estimate cos(wᵀ(x − z))
// of the Gaussian kernel value k = exp(−γ‖x − z‖²): E cos² = (1 + k⁴)/2, so
// Var = (1 − k²)²/2 (seed-003/004 catalogue R1, MC-checked there; Yu et al.
// 2016, Lemma 1).
func GaussVariance(k float64) float64 { return (1 - k*k) * (1 - k*k) / 2 }

// TheoryRelError returns the root-mean-square of ‖K̂_m − K‖_F/‖K‖_F for iid
// features and the Gaussian kernel, √(Σ_ij (1 − K_ij²)²/(2m))/‖K‖_F
// (the entries' variances add up): a line of slope −½ on a log-log chart.
func TheoryRelError(exact []float64, m int) float64 {
	s, k2 := 0.0, 0.0
	for _, v := range exact {
		s += GaussVariance(v)
		k2 += v * v
	}
	return math.Sqrt(s/float64(m)) / math.Sqrt(k2)
}
