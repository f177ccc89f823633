package vi

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/stable"
	"gonum.org/v1/gonum/mat"
)

// Component is one Gaussian of a mixture with fixed parameters: weight π_k,
// mean μ_k and covariance Σ_k (symmetric positive definite).
type Component struct {
	Weight float64
	Mean   []float64
	Cov    [][]float64
}

// MaxComponents is the largest number of components the mixture engines
// accept.
const MaxComponents = 10

// logDensity holds what log π_k + log N(x; μ_k, Σ_k) needs.
type logDensity struct {
	mean []float64
	chol *mat.Cholesky
	c    float64 // log π_k − (d/2) log 2π − ½ log det Σ_k
}

func newLogDensities(comps []Component) ([]logDensity, int, error) {
	if len(comps) < 1 || len(comps) > MaxComponents {
		return nil, 0, algo.BadParam("components", len(comps), fmt.Sprintf("1..%d components", MaxComponents))
	}
	d := len(comps[0].Mean)
	sum := 0.0
	out := make([]logDensity, len(comps))
	for k, c := range comps {
		if !(c.Weight > 0) || math.IsInf(c.Weight, 0) {
			return nil, 0, algo.BadParam("weights", c.Weight, "positive numbers summing to 1")
		}
		sum += c.Weight
		if len(c.Mean) != d || d == 0 || !algo.AllFinite(c.Mean) {
			return nil, 0, algo.BadParam("means", c.Mean, fmt.Sprintf("finite vectors of one dimension (%d)", d))
		}
		if len(c.Cov) != d {
			return nil, 0, algo.BadParam("covariances", c.Cov, fmt.Sprintf("%d×%d matrices", d, d))
		}
		sym := mat.NewSymDense(d, nil)
		for i, row := range c.Cov {
			if len(row) != d || !algo.AllFinite(row) {
				return nil, 0, algo.BadParam("covariances", c.Cov, fmt.Sprintf("%d×%d matrices of finite numbers", d, d))
			}
			for j := range row {
				sym.SetSym(i, j, row[j])
			}
		}
		ch := &mat.Cholesky{}
		if !ch.Factorize(sym) {
			return nil, 0, algo.BadParam("covariances", c.Cov, "positive definite matrices")
		}
		out[k] = logDensity{mean: c.Mean, chol: ch,
			c: math.Log(c.Weight) - float64(d)/2*math.Log(2*math.Pi) - ch.LogDet()/2}
	}
	if math.Abs(sum-1) > 1e-9 {
		return nil, 0, algo.BadParam("weights", sum, "positive numbers summing to 1")
	}
	return out, d, nil
}

// MixtureCAVI is CAVI for a mixture with fixed parameters (π_k, μ_k, Σ_k)
// (seed 002 Ex 3.7, L1392–1414, in d dimensions and with any covariances;
// the notes' example is 1-D with K = 2 and a shared σ², and its normaliser
// runs over j = 1..K with K = 2, catalogue §4). The only latent variables are
// the assignments z_n, the family is q(z) = Π_n Cat(z_n; φ_n), and the
// update (3.13) of factor n is
//
//	φ_nk = π_k N(x_n | μ_k, Σ_k) / Σ_j π_j N(x_n | μ_j, Σ_j),
//
// "the usual mixture responsibilities" (L1414): EM's E-step (eq 2.12). The
// factors do not interact, so one sweep reaches the exact posterior and
// the ELBO = Σ_n Σ_k φ_nk (log π_k N(x_n|μ_k,Σ_k) − log φ_nk) climbs to the
// evidence log p(x) = Σ_n log Σ_k π_k N(x_n|μ_k,Σ_k): the gap, KL(q‖p(z|x))
// (eq 3.9), closes. Each update raises the ELBO by exactly the KL between
// the old and the new φ_n.
//
// The φ_n start at random (each a normalised vector of Exp(1) draws), so
// the climb is visible. One Step updates one factor, n = 1, 2, ..., N, 1, ....
// Densities are handled as logs with a log-sum-exp. Step does not allocate.
type MixtureCAVI struct {
	n, k, d int
	x       []float64 // n×d points
	lj      []float64 // n×k log π_k + log N(x_n; μ_k, Σ_k)
	lse     []float64 // log p(x_n)
	phi     []float64 // n×k
	elboN   []float64 // per point ELBO term
	elbo    float64
	logp    float64 // log p(x)
	next    int
	moved   float64 // largest |Δφ| in the current sweep
	last    float64 // of the last full sweep, +Inf before one
	tol     float64
	steps   int
}

// NewMixtureCAVI validates the points (n ≥ 1 finite d-vectors, copied) and
// the components, and starts with random factors drawn from rng. The run
// ends (ErrConverged) when a full sweep changes no φ_nk by more than tol.
func NewMixtureCAVI(points [][]float64, comps []Component, tol float64, rng *rand.Rand) (*MixtureCAVI, error) {
	lds, d, err := newLogDensities(comps)
	if err != nil {
		return nil, err
	}
	if len(points) == 0 {
		return nil, algo.BadParam("data", "no points", "at least one point")
	}
	if !(tol >= 0) || math.IsInf(tol, 0) {
		return nil, algo.BadParam("tol", tol, "a finite number ≥ 0")
	}
	if rng == nil {
		return nil, algo.BadParam("rng", nil, "a random source")
	}
	n, k := len(points), len(comps)
	c := &MixtureCAVI{n: n, k: k, d: d, x: make([]float64, 0, n*d), lj: make([]float64, n*k),
		lse: make([]float64, n), phi: make([]float64, n*k), elboN: make([]float64, n),
		last: math.Inf(1), tol: tol}
	diff := mat.NewVecDense(d, nil)
	var sol mat.VecDense
	for i, p := range points {
		if len(p) != d || !algo.AllFinite(p) {
			return nil, algo.BadParam("data", fmt.Sprintf("point %d = %v", i+1, p), fmt.Sprintf("%d finite coordinates", d))
		}
		c.x = append(c.x, p...)
		for j, ld := range lds {
			for a := range d {
				diff.SetVec(a, p[a]-ld.mean[a])
			}
			if err := ld.chol.SolveVecTo(&sol, diff); err != nil {
				return nil, err
			}
			c.lj[i*k+j] = ld.c - mat.Dot(diff, &sol)/2
		}
		c.lse[i] = stable.LogSumExp(c.lj[i*k : i*k+k])
		c.logp += c.lse[i]
		row := c.phi[i*k : i*k+k]
		s := 0.0
		for j := range row {
			row[j] = rng.ExpFloat64()
			s += row[j]
		}
		for j := range row {
			row[j] /= s
		}
		c.elboN[i] = c.termAt(i)
		c.elbo += c.elboN[i]
	}
	return c, nil
}

// termAt is point i's ELBO term Σ_k φ_ik (lj_ik − log φ_ik), 0 log 0 = 0.
func (c *MixtureCAVI) termAt(i int) float64 {
	t := 0.0
	for j, f := range c.phi[i*c.k : i*c.k+c.k] {
		if f > 0 {
			t += f * (c.lj[i*c.k+j] - math.Log(f))
		}
	}
	return t
}

// Step updates the next factor φ_n. At the start of a sweep it returns
// ErrConverged once the last full sweep changed no φ_nk by more than tol.
func (c *MixtureCAVI) Step() error {
	i := c.next
	if i == 0 && c.last <= c.tol {
		return algo.ErrConverged
	}
	row, lj := c.phi[i*c.k:i*c.k+c.k], c.lj[i*c.k:i*c.k+c.k]
	for j := range row {
		f := math.Exp(lj[j] - c.lse[i])
		c.moved = math.Max(c.moved, math.Abs(f-row[j]))
		row[j] = f
	}
	t := c.termAt(i)
	c.elbo += t - c.elboN[i]
	c.elboN[i] = t
	c.steps++
	if c.next = (i + 1) % c.n; c.next == 0 {
		c.last, c.moved = c.moved, 0
		c.elbo = 0 // re-add, so rounding does not drift
		for _, v := range c.elboN {
			c.elbo += v
		}
	}
	return nil
}

// ELBO is the current ELBO (eq 3.7); LogEvidence is log p(x).
func (c *MixtureCAVI) ELBO() float64 { return c.elbo }

// LogEvidence is log p(x) = Σ_n log Σ_k π_k N(x_n | μ_k, Σ_k).
func (c *MixtureCAVI) LogEvidence() float64 { return c.logp }

// Phi returns the factors φ, n×k row-major (a view: do not modify).
func (c *MixtureCAVI) Phi() []float64 { return c.phi }

// Assign writes each point's most probable component under q into dst
// (grown if short), ties to the lowest k.
func (c *MixtureCAVI) Assign(dst []int) []int {
	if cap(dst) < c.n {
		dst = make([]int, c.n)
	}
	dst = dst[:c.n]
	for i := range dst {
		best, bj := -1.0, 0
		for j, f := range c.phi[i*c.k : i*c.k+c.k] {
			if f > best {
				best, bj = f, j
			}
		}
		dst[i] = bj
	}
	return dst
}

// Next is the factor the next Step updates; Updates the number made.
func (c *MixtureCAVI) Next() int { return c.next }

// Updates is the number of factor updates made.
func (c *MixtureCAVI) Updates() int { return c.steps }

// N, K and Dim are the numbers of points, of components and the dimension.
func (c *MixtureCAVI) N() int { return c.n }

// K is the number of components.
func (c *MixtureCAVI) K() int { return c.k }

// Dim is the dimension of the points.
func (c *MixtureCAVI) Dim() int { return c.d }

// Point returns point i (a view).
func (c *MixtureCAVI) Point(i int) []float64 { return c.x[i*c.d : (i+1)*c.d] }

// Sample draws n points from the mixture by ancestral sampling (z ~ π, then
// x ~ N(μ_z, Σ_z); seed 002 eq 2.8 and Remark 2.2), with their components.
func Sample(comps []Component, n int, rng *rand.Rand) (points [][]float64, labels []int, err error) {
	lds, d, err := newLogDensities(comps)
	if err != nil {
		return nil, nil, err
	}
	if n < 1 {
		return nil, nil, algo.BadParam("n", n, "≥ 1")
	}
	if rng == nil {
		return nil, nil, algo.BadParam("rng", nil, "a random source")
	}
	ls := make([]mat.TriDense, len(lds))
	for k, ld := range lds {
		ld.chol.LTo(&ls[k])
	}
	flat := make([]float64, n*d)
	points, labels = make([][]float64, n), make([]int, n)
	eps := make([]float64, d)
	for i := range points {
		u, z := rng.Float64(), len(comps)-1
		for k, c := range comps {
			if u -= c.Weight; u < 0 {
				z = k
				break
			}
		}
		for a := range eps {
			eps[a] = rng.NormFloat64()
		}
		p := flat[i*d : (i+1)*d : (i+1)*d]
		for a := range d {
			p[a] = comps[z].Mean[a]
			for b := 0; b <= a; b++ {
				p[a] += ls[z].At(a, b) * eps[b]
			}
		}
		points[i], labels[i] = p, z
	}
	return points, labels, nil
}
