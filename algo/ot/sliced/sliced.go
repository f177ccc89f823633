// Package sliced holds the sliced Wasserstein distance (Rabin, Peyré,
// Delon & Bernot 2011, "Wasserstein barycenter and its application to
// texture mixing", §3; Bonneel, Rabin, Peyré & Pfister 2015, "Sliced and
// Radon Wasserstein barycenters of measures", §2): the p-th power
//
//	SW_p^p(μ, ν) = E_{θ ~ Unif(S^{d−1})} W_p^p(θ#μ, θ#ν),
//
// the mean over directions θ of the unit sphere of the 1-D Wasserstein
// costs between the projections t ↦ ⟨θ, x⟩ of the two measures. Each 1-D
// cost has a closed form (seed 002 §5.4, Corollary 1: W_p^p = ∫₀¹
// |F_μ⁻ − F_ν⁻|^p dt, the monotone coupling of the sorted atoms), so
// SW_p^p is estimated by Monte Carlo over directions (POT's
// ot.sliced_wasserstein_distance), at O((n + m)(d + log(n + m))) a
// direction (the projections, then the sorts).
// The max-sliced variant (Deshpande et al. 2019) is the largest W_p^p
// over the directions drawn.
//
// Facts the tests check: for ν the translate of μ by m, every direction's
// monotone coupling keeps the order, so W_2^2(θ#μ, θ#ν) = ⟨θ, m⟩² exactly
// and SW_2^2 = ‖m‖²/d (E θ_k² = 1/d); in d = 1, SW_p = W_p; and for any
// coupling π of μ and ν, its projection couples θ#μ and θ#ν, so
// W_p^p(θ#μ, θ#ν) ≤ ∫ |⟨θ, x − y⟩|^p dπ ≤ W_p^p(μ, ν) for every θ, and
// averaging, SW_p^p ≤ c_{d,p} W_p^p with c_{d,p} = E|θ₁|^p (1/d at
// p = 2): sliced distances are smaller than W_p by a factor of order √d.
package sliced

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/ot"
)

// MaxDim bounds the dimension of the points; MaxBatch the directions a
// step draws.
const (
	MaxDim   = 1000
	MaxBatch = 10000
)

// Config configures a Sliced.
type Config struct {
	// P is the exponent p of the cost |s − t|^p, in [ot.MinP, ot.MaxP].
	P float64
	// Batch is the number of directions a Step draws, 1..MaxBatch.
	Batch int
}

// atom is a projected atom: its position ⟨θ, x⟩, its mass and its index.
type atom struct {
	t, w float64
	i    int32
}

// Pair is a piece of the monotone coupling of the projections: Mass from
// source atom I to target atom J.
type Pair struct {
	I, J int
	Mass float64
}

// Sliced estimates SW_p^p between μ = Σ μ_i δ_{x_i} and ν = Σ ν_j δ_{y_j}
// in ℝ^d by drawing directions uniformly on the sphere (normalised
// Gaussian vectors), Batch a step, keeping the running mean, variance
// (Welford) and maximum of the per-direction costs W_p^p(θ#μ, θ#ν). A step
// does not allocate.
type Sliced struct {
	d      int
	x, y   []float64 // n·d and m·d, row-major (the caller's)
	mu, nu []float64 // normalised masses
	p      float64
	batch  int
	rng    *rand.Rand

	theta  []float64 // the last direction drawn
	best   []float64 // the direction of the largest cost so far
	pa, pb []atom    // projections, sorted after a direction

	k        int     // directions drawn
	mean, m2 float64 // Welford's running mean and sum of squared deviations
	last     float64 // the last direction's cost
	max      float64
	steps    int
}

// New starts the estimate for points x (n·d values) with masses mu and y
// (m·d values) with masses nu in dimension d, drawing directions from
// rng. The masses are checked and normalised as ot.Marginals does (the
// totals must agree), the coordinates must be finite. x and y are kept,
// not copied.
func New(x, y []float64, d int, mu, nu []float64, cfg Config, rng *rand.Rand) (*Sliced, error) {
	if d < 1 || d > MaxDim {
		return nil, algo.BadParam("d", d, fmt.Sprintf("in 1..%d", MaxDim))
	}
	a, b, err := ot.Marginals(mu, nu)
	if err != nil {
		return nil, err
	}
	n, m := len(a), len(b)
	if len(x) != n*d || len(y) != m*d {
		return nil, algo.BadParam("points", fmt.Sprintf("%d and %d coordinates", len(x), len(y)),
			fmt.Sprintf("%d·%d and %d·%d coordinates", n, d, m, d))
	}
	if !algo.AllFinite(x) || !algo.AllFinite(y) {
		return nil, algo.BadParam("points", "a non-finite coordinate", "finite coordinates")
	}
	if !(cfg.P >= ot.MinP && cfg.P <= ot.MaxP) {
		return nil, algo.BadParam("p", cfg.P, fmt.Sprintf("in [%d, %d]", ot.MinP, ot.MaxP))
	}
	if cfg.Batch < 1 || cfg.Batch > MaxBatch {
		return nil, algo.BadParam("batch", cfg.Batch, fmt.Sprintf("in 1..%d", MaxBatch))
	}
	if rng == nil {
		return nil, algo.BadParam("rng", "nil", "a non-nil *rand.Rand")
	}
	s := &Sliced{d: d, x: x, y: y, mu: a, nu: b, p: cfg.P, batch: cfg.Batch, rng: rng,
		theta: make([]float64, d), best: make([]float64, d), pa: make([]atom, n), pb: make([]atom, m),
		max: math.Inf(-1)}
	return s, nil
}

// Footprint is the bytes New allocates for n and m atoms in dimension d:
// the projections (24 bytes an atom), two directions and the normalised
// masses. The points are the caller's.
func Footprint(n, m, d int) int64 {
	return 32*int64(n+m) + 16*int64(d) + 256
}

// Step draws Batch directions and adds their costs to the estimate.
func (s *Sliced) Step() error {
	for range s.batch {
		s.draw()
		c := s.Along(s.theta)
		if !algo.Finite(c) {
			return algo.Diverged("W_p^p along a direction = %g after %d directions", c, s.k)
		}
		s.k++
		delta := c - s.mean
		s.mean += delta / float64(s.k)
		s.m2 += delta * (c - s.mean)
		s.last = c
		if c > s.max {
			s.max = c
			copy(s.best, s.theta)
		}
	}
	s.steps++
	return nil
}

// draw sets theta to a uniform direction on the sphere: a standard
// Gaussian vector divided by its norm (redrawn in the null event of norm
// 0).
func (s *Sliced) draw() {
	for {
		n2 := 0.0
		for k := range s.theta {
			v := s.rng.NormFloat64()
			s.theta[k] = v
			n2 += v * v
		}
		if n2 > 0 {
			inv := 1 / math.Sqrt(n2)
			for k := range s.theta {
				s.theta[k] *= inv
			}
			return
		}
	}
}

// Along returns W_p^p(θ#μ, θ#ν) along theta (d values; a unit vector
// for the slice of the definition, any vector otherwise) and leaves the
// sorted projections for Coupling. It does not allocate.
func (s *Sliced) Along(theta []float64) float64 {
	project(s.pa, s.x, s.mu, theta)
	project(s.pb, s.y, s.nu, theta)
	return s.merge(nil)
}

// project writes ⟨θ, x_i⟩ and the masses into dst and sorts it by
// position, ties by index, so that the coupling among tied atoms (repeated
// points, or points on a line orthogonal to θ) does not depend on the
// sort's algorithm.
func project(dst []atom, x, w, theta []float64) {
	d := len(theta)
	for i := range dst {
		xi := x[i*d : (i+1)*d : (i+1)*d]
		t := 0.0
		for k, v := range theta {
			t += v * xi[k]
		}
		dst[i] = atom{t: t, w: w[i], i: int32(i)}
	}
	slices.SortFunc(dst, func(a, b atom) int {
		if c := cmp.Compare(a.t, b.t); c != 0 {
			return c
		}
		return cmp.Compare(a.i, b.i)
	})
}

// merge walks the two sorted projections' quantile functions on the union
// of their breakpoints (the monotone coupling) and returns Σ mass·|s − t|^p;
// with emit, it reports each piece.
func (s *Sliced) merge(emit func(i, j int, mass float64)) float64 {
	a, b := s.pa, s.pb
	i, j := 0, 0
	ra, rb := a[0].w, b[0].w // mass left of the current atoms
	c := 0.0
	for i < len(a) && j < len(b) {
		w := math.Min(ra, rb)
		if w > 0 {
			c += w * pow(math.Abs(a[i].t-b[j].t), s.p)
			if emit != nil {
				emit(int(a[i].i), int(b[j].i), w)
			}
		}
		ra -= w
		rb -= w
		// the side that ran out moves on; rounding leaves the last atom
		// of one side a residue of the order of 1e-16, which ends the loop
		if ra <= rb {
			if i++; i < len(a) {
				ra = a[i].w + ra
			}
		} else {
			if j++; j < len(b) {
				rb = b[j].w + rb
			}
		}
	}
	return c
}

func pow(x, p float64) float64 {
	switch p {
	case 1:
		return x
	case 2:
		return x * x
	}
	return math.Pow(x, p)
}

// Coupling appends to dst the monotone coupling of the projections along
// the last direction given to Along (by Step, the last drawn) and returns
// it: at most n + m − 1 pairs, in the order of the quantile levels.
func (s *Sliced) Coupling(dst []Pair) []Pair {
	s.merge(func(i, j int, mass float64) { dst = append(dst, Pair{I: i, J: j, Mass: mass}) })
	return dst
}

// Directions is the number of directions drawn; Steps the steps taken.
func (s *Sliced) Directions() int { return s.k }
func (s *Sliced) Steps() int      { return s.steps }

// Estimate is the Monte Carlo estimate of SW_p^p: the mean of the
// directions' costs (NaN before the first).
func (s *Sliced) Estimate() float64 {
	if s.k == 0 {
		return math.NaN()
	}
	return s.mean
}

// StdErr is the estimate's standard error, the sample standard deviation
// of the costs over √k (NaN before two directions).
func (s *Sliced) StdErr() float64 {
	if s.k < 2 {
		return math.NaN()
	}
	return math.Sqrt(s.m2 / float64(s.k-1) / float64(s.k))
}

// SD is the sample standard deviation of the directions' costs (NaN
// before two directions).
func (s *Sliced) SD() float64 {
	if s.k < 2 {
		return math.NaN()
	}
	return math.Sqrt(s.m2 / float64(s.k-1))
}

// Last is the cost along the last direction drawn (NaN before the
// first); Max the largest so far, the max-sliced estimate
// max_θ W_p^p(θ#μ, θ#ν) over the directions drawn (NaN before the first).
func (s *Sliced) Last() float64 {
	if s.k == 0 {
		return math.NaN()
	}
	return s.last
}

func (s *Sliced) Max() float64 {
	if s.k == 0 {
		return math.NaN()
	}
	return s.max
}

// Theta is the last direction drawn and Best the direction of Max
// (read-only, d values; zero before the first).
func (s *Sliced) Theta() []float64 { return s.theta }
func (s *Sliced) Best() []float64  { return s.best }

// P is the exponent; Dim the dimension; Mu and Nu the normalised masses.
func (s *Sliced) P() float64       { return s.p }
func (s *Sliced) Dim() int         { return s.d }
func (s *Sliced) Mu() []float64    { return s.mu }
func (s *Sliced) Nu() []float64    { return s.nu }
func (s *Sliced) Batch() int       { return s.batch }
func (s *Sliced) Size() (n, m int) { return len(s.mu), len(s.nu) }

// MomentConstant is c_{d,p} = E|θ₁|^p for θ uniform on S^{d−1}, the
// constant of SW_p^p ≤ c_{d,p} W_p^p and of SW_p^p = c_{d,p}‖m‖^p for a
// translation by m: Γ((p+1)/2) Γ(d/2) / (√π Γ((d+p)/2)) (θ₁² is
// Beta(1/2, (d−1)/2)); 1/d at p = 2, 2/π at d = 2, p = 1.
func MomentConstant(d int, p float64) float64 {
	lg := func(x float64) float64 { v, _ := math.Lgamma(x); return v }
	fd := float64(d)
	return math.Exp(lg((p+1)/2) + lg(fd/2) - 0.5*math.Log(math.Pi) - lg((fd+p)/2))
}
