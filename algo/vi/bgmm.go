package vi

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
	"gonum.org/v1/gonum/mathext"
)

// BGMMConfig configures a BayesGMM.
type BGMMConfig struct {
	// K is the number of components of the model, 1..MaxComponents.
	K int
	// Alpha0 is the concentration of the symmetric Dirichlet prior on the
	// weights, π ~ Dir(α₀, ..., α₀); α₀ < 1 lets unneeded components empty.
	Alpha0 float64
	// PriorSD is σ₀ in the prior μ_k ~ N(0, σ₀² I).
	PriorSD float64
	// Tol ends the run (ErrConverged) when a full iteration (local and
	// global half-steps) raises the ELBO by less than Tol·N nats.
	Tol float64
}

// Phase names the half of a CAVI iteration that a BayesGMM Step performs.
type Phase int

const (
	// Local updates every q(z_n).
	Local Phase = iota
	// Global updates q(π) and every q(μ_k).
	Global
)

func (p Phase) String() string {
	if p == Local {
		return "local step: q(z_n) for every point"
	}
	return "global step: q(π) and q(μ_k)"
}

// BayesGMM is CAVI for a Bayesian Gaussian mixture with unit-covariance
// components in d dimensions:
//
//	π ~ Dir(α₀ 1_K),  μ_k ~ N(0, σ₀² I),  z_n | π ~ Cat(π),  x_n | z_n, μ ~ N(μ_{z_n}, I),
//
// the hierarchical GMM of Ex 3.1 (seed 002 L927–956) with a known component
// covariance, under the mean-field family of Ex 3.5 (L1285–1291):
//
//	q(π, μ, z) = Dir(π; α) Π_k N(μ_k; m_k, s_k² I) Π_n Cat(z_n; φ_n).
//
// The notes give the family but not the updates; these are the standard
// ones (Blei, Kucukelbir & McAuliffe 2017, §3, extended with the Dirichlet
// factor as in Bishop 2006 §10.2), each an instance of (3.13):
//
//	local:   φ_nk ∝ exp( E[log π_k] + m_kᵀx_n − ½(‖m_k‖² + d s_k²) ),
//	         E[log π_k] = ψ(α_k) − ψ(Σ_j α_j);
//	global:  N_k = Σ_n φ_nk,  α_k = α₀ + N_k,
//	         s_k² = 1/(1/σ₀² + N_k),  m_k = s_k² Σ_n φ_nk x_n.
//
// Each half-step maximises the ELBO exactly over its block (the global
// factors are independent given φ), so the ELBO never decreases. The ELBO
// is evaluated in full after every half-step:
//
//	E[log p(π)] − E[log q(π)] + Σ_k (E[log p(μ_k)] − E[log q(μ_k)])
//	+ Σ_n Σ_k φ_nk ( E[log π_k] − (d/2) log 2π − ½(‖x_n − m_k‖² + d s_k²) − log φ_nk ).
//
// The start: m_k at K distinct data points drawn from rng, s_k² = 1,
// α_k = α₀ + N/K. The first Step is a local step. Step does not allocate,
// except to lengthen the ELBO trace now and then.
type BayesGMM struct {
	cfg   BGMMConfig
	n, d  int
	x     []float64 // n×d
	phi   []float64 // n×k
	m     []float64 // k×d
	s2    []float64 // k
	alpha []float64 // k
	elogp []float64 // E[log π_k]
	nk    []float64
	sx    []float64 // k×d scratch: Σ_n φ_nk x_n
	next  Phase
	half  int
	elbo  float64
	trace []float64 // ELBO after each full iteration (and at the start)
}

// NewBayesGMM validates cfg and the points (n ≥ K finite d-vectors, d in
// 1..3; copied) and starts CAVI.
func NewBayesGMM(points [][]float64, cfg BGMMConfig, rng *rand.Rand) (*BayesGMM, error) {
	switch {
	case cfg.K < 1 || cfg.K > MaxComponents:
		return nil, algo.BadParam("k", cfg.K, fmt.Sprintf("in 1..%d", MaxComponents))
	case !(cfg.Alpha0 > 0) || math.IsInf(cfg.Alpha0, 0):
		return nil, algo.BadParam("alpha0", cfg.Alpha0, "a finite number > 0")
	case !(cfg.PriorSD > 0) || math.IsInf(cfg.PriorSD, 0):
		return nil, algo.BadParam("prior_sd", cfg.PriorSD, "a finite number > 0")
	case !(cfg.Tol >= 0) || math.IsInf(cfg.Tol, 0):
		return nil, algo.BadParam("tol", cfg.Tol, "a finite number ≥ 0")
	case rng == nil:
		return nil, algo.BadParam("rng", nil, "a random source")
	case len(points) < cfg.K:
		return nil, algo.BadParam("k", cfg.K, fmt.Sprintf("at most the number of points, %d", len(points)))
	}
	n, k, d := len(points), cfg.K, len(points[0])
	if d < 1 || d > 3 {
		return nil, algo.BadParam("data", fmt.Sprintf("%d coordinates", d), "points of dimension 1..3")
	}
	g := &BayesGMM{cfg: cfg, n: n, d: d, x: make([]float64, 0, n*d), phi: make([]float64, n*k),
		m: make([]float64, k*d), s2: make([]float64, k), alpha: make([]float64, k),
		elogp: make([]float64, k), nk: make([]float64, k), sx: make([]float64, k*d),
		trace: make([]float64, 0, 256)}
	for i, p := range points {
		if len(p) != d || !algo.AllFinite(p) {
			return nil, algo.BadParam("data", fmt.Sprintf("point %d = %v", i+1, p), fmt.Sprintf("%d finite coordinates", d))
		}
		g.x = append(g.x, p...)
	}
	// m_k at K distinct points (a partial Fisher–Yates shuffle of indices).
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	for j := range k {
		r := j + rng.IntN(n-j)
		perm[j], perm[r] = perm[r], perm[j]
		copy(g.m[j*d:(j+1)*d], g.x[perm[j]*d:(perm[j]+1)*d])
		g.s2[j] = 1
		g.alpha[j] = cfg.Alpha0 + float64(n)/float64(k)
	}
	g.expectLogPi()
	// Until the first local step φ is uniform: the ELBO of the start.
	for i := range g.phi {
		g.phi[i] = 1 / float64(k)
	}
	g.elbo = g.evalELBO()
	g.trace = append(g.trace, g.elbo)
	return g, nil
}

func (g *BayesGMM) expectLogPi() {
	sum := 0.0
	for _, a := range g.alpha {
		sum += a
	}
	dsum := mathext.Digamma(sum)
	for j, a := range g.alpha {
		g.elogp[j] = mathext.Digamma(a) - dsum
	}
}

// Step performs the next half-step, local or global. Before a local step
// it returns ErrConverged once the last full iteration raised the ELBO by
// less than Tol·N (or not at all).
func (g *BayesGMM) Step() error {
	if g.next == Local {
		if t := len(g.trace) - 1; t >= 1 && g.trace[t]-g.trace[t-1] < g.cfg.Tol*float64(g.n) {
			return algo.ErrConverged
		}
		g.local()
		g.next = Global
	} else {
		g.global()
		g.next = Local
	}
	g.half++
	g.elbo = g.evalELBO()
	if g.next == Local {
		g.trace = append(g.trace, g.elbo)
	}
	if math.IsNaN(g.elbo) || math.IsInf(g.elbo, 0) {
		return algo.Diverged("ELBO = %v after half-step %d", g.elbo, g.half)
	}
	return nil
}

func (g *BayesGMM) local() {
	k, d := g.cfg.K, g.d
	for i := range g.n {
		xi := g.x[i*d : (i+1)*d]
		row := g.phi[i*k : (i+1)*k]
		hi := math.Inf(-1)
		for j := range k {
			mj := g.m[j*d : (j+1)*d]
			v := g.elogp[j] - 0.5*float64(d)*g.s2[j]
			for a := range d {
				v += mj[a]*xi[a] - 0.5*mj[a]*mj[a]
			}
			row[j] = v
			hi = math.Max(hi, v)
		}
		s := 0.0
		for j := range row {
			row[j] = math.Exp(row[j] - hi)
			s += row[j]
		}
		for j := range row {
			row[j] /= s
		}
	}
}

func (g *BayesGMM) global() {
	k, d := g.cfg.K, g.d
	clear(g.nk)
	clear(g.sx)
	for i := range g.n {
		xi := g.x[i*d : (i+1)*d]
		for j, f := range g.phi[i*k : (i+1)*k] {
			g.nk[j] += f
			for a := range d {
				g.sx[j*d+a] += f * xi[a]
			}
		}
	}
	prec0 := 1 / (g.cfg.PriorSD * g.cfg.PriorSD)
	for j := range k {
		g.alpha[j] = g.cfg.Alpha0 + g.nk[j]
		g.s2[j] = 1 / (prec0 + g.nk[j])
		for a := range d {
			g.m[j*d+a] = g.s2[j] * g.sx[j*d+a]
		}
	}
	g.expectLogPi()
}

// evalELBO evaluates the ELBO at the current q (see BayesGMM).
func (g *BayesGMM) evalELBO() float64 {
	k, d := g.cfg.K, g.d
	fd := float64(d)
	a0 := g.cfg.Alpha0
	sumA := 0.0
	for _, a := range g.alpha {
		sumA += a
	}
	lgK, _ := math.Lgamma(float64(k) * a0)
	lg0, _ := math.Lgamma(a0)
	lgS, _ := math.Lgamma(sumA)
	// E[log p(π)] − E[log q(π)].
	e := lgK - float64(k)*lg0 - lgS
	for j, a := range g.alpha {
		lga, _ := math.Lgamma(a)
		e += lga + (a0-a)*g.elogp[j]
	}
	// Σ_k E[log p(μ_k)] − E[log q(μ_k)].
	v0 := g.cfg.PriorSD * g.cfg.PriorSD
	for j := range k {
		mm := 0.0
		for a := range d {
			mm += g.m[j*d+a] * g.m[j*d+a]
		}
		e += -fd/2*math.Log(2*math.Pi*v0) - (mm+fd*g.s2[j])/(2*v0)
		e += fd / 2 * math.Log(2*math.Pi*math.E*g.s2[j])
	}
	// Σ_n Σ_k φ_nk (E[log π_k] + E[log N(x_n | μ_k, I)] − log φ_nk).
	c := -fd / 2 * math.Log(2*math.Pi)
	for i := range g.n {
		xi := g.x[i*d : (i+1)*d]
		for j, f := range g.phi[i*k : (i+1)*k] {
			if f == 0 {
				continue
			}
			ss := fd * g.s2[j]
			for a := range d {
				r := xi[a] - g.m[j*d+a]
				ss += r * r
			}
			e += f * (g.elogp[j] + c - ss/2 - math.Log(f))
		}
	}
	return e
}

// ELBO is the ELBO at the current q.
func (g *BayesGMM) ELBO() float64 { return g.elbo }

// Trace is the ELBO at the start and after each full iteration (a view that
// later steps only extend).
func (g *BayesGMM) Trace() []float64 { return g.trace[:len(g.trace):len(g.trace)] }

// Next is the phase of the next Step; Last that of the last (ok false
// before the first).
func (g *BayesGMM) Next() Phase { return g.next }

// Last is the phase of the last Step.
func (g *BayesGMM) Last() (Phase, bool) { return 1 - g.next, g.half > 0 }

// HalfSteps is the number of Steps taken; Iter the number of full
// iterations.
func (g *BayesGMM) HalfSteps() int { return g.half }

// Iter is the number of full iterations (global steps) taken.
func (g *BayesGMM) Iter() int { return g.half / 2 }

// K, N and Dim are the sizes.
func (g *BayesGMM) K() int { return g.cfg.K }

// N is the number of points.
func (g *BayesGMM) N() int { return g.n }

// Dim is the dimension of the points.
func (g *BayesGMM) Dim() int { return g.d }

// Point returns point i (a view).
func (g *BayesGMM) Point(i int) []float64 { return g.x[i*g.d : (i+1)*g.d] }

// Mean returns m_k (a view) and S2 the variance s_k² of q(μ_k).
func (g *BayesGMM) Mean(k int) []float64 { return g.m[k*g.d : (k+1)*g.d] }

// S2 is the variance s_k² of q(μ_k) along each axis.
func (g *BayesGMM) S2(k int) float64 { return g.s2[k] }

// Weight is E_q[π_k] = α_k / Σ_j α_j.
func (g *BayesGMM) Weight(k int) float64 {
	s := 0.0
	for _, a := range g.alpha {
		s += a
	}
	return g.alpha[k] / s
}

// Alpha returns α_k.
func (g *BayesGMM) Alpha(k int) float64 { return g.alpha[k] }

// Phi returns the factors φ, n×k row-major (a view; uniform before the
// first local step).
func (g *BayesGMM) Phi() []float64 { return g.phi }

// Assign writes each point's most probable component into dst (grown if
// short), ties to the lowest k; −1 for every point before the first local
// step.
func (g *BayesGMM) Assign(dst []int) []int {
	if cap(dst) < g.n {
		dst = make([]int, g.n)
	}
	dst = dst[:g.n]
	k := g.cfg.K
	for i := range dst {
		if g.half == 0 {
			dst[i] = -1
			continue
		}
		best, bj := -1.0, 0
		for j, f := range g.phi[i*k : (i+1)*k] {
			if f > best {
				best, bj = f, j
			}
		}
		dst[i] = bj
	}
	return dst
}
