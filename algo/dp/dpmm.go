package dp

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
)

// MixtureConfig is the DP mixture of spherical Gaussians with known variance:
//
//	Θ ~ DP(α, G),  G = N(M0, τ²I),  μ_i | Θ ~ Θ,  x_i | μ_i ~ N(μ_i, σ²I)
//
// (seed 002 §4.2, "Dirichlet process mixture model", L1689–1693, with a
// conjugate Gaussian base measure so that the cluster means integrate out).
type MixtureConfig struct {
	Alpha float64    // concentration α in (0, MaxAlpha]
	Sigma float64    // within-cluster standard deviation σ > 0
	Tau   float64    // standard deviation τ > 0 of the cluster means about M0
	M0    [2]float64 // the mean of the base measure G
}

// Mixture samples the clustering of a DP mixture of 2-D Gaussians by
// collapsed Gibbs sampling (Neal 2000, "Markov chain sampling methods for
// Dirichlet process mixture models", Algorithm 3). The notes state the model
// and the DP posterior but no inference algorithm (catalogue item D3), so
// this is the standard one: with the cluster means integrated out, each
// point's cluster z_i is redrawn from its full conditional,
//
//	p(z_i = c | z_−i, x) ∝ n_c^{−i} · N(x_i; m_c, (σ² + s_c²) I)     an existing cluster,
//	p(z_i = new | z_−i, x) ∝ α · N(x_i; M0, (σ² + τ²) I)              a new one,
//
// where n_c^{−i} counts the other points in c, and m_c, s_c² are the
// posterior mean and variance of μ_c given them: 1/s_c² = 1/τ² + n_c/σ²,
// m_c = s_c² (M0/τ² + Σ_{j∈c} x_j/σ²). The first factor is the CRP (the DP's
// predictive), the second the cluster's posterior predictive. One Step is one
// systematic sweep over the points; the chain's stationary distribution is
// the posterior over partitions p(z | x) ∝ p(z) ∏_c p(x_c), which the tests
// check exactly on a small data set.
//
// Every cluster keeps its count, coordinate sum and sum of squares (about
// M0), so a conditional costs O(number of clusters) and a sweep allocates
// nothing: the cluster slots are preallocated for the worst case of one
// cluster per point. The chain starts with every point in one cluster.
type Mixture struct {
	cfg  MixtureConfig
	n    int
	x, y []float64 // the points less M0

	z     []int // slot of each point
	cnt   []int
	sx    []float64
	sy    []float64
	sq    []float64 // Σ (x² + y²) over the cluster
	label []int     // a stable name for each slot, from a counter
	act   []int     // active slots
	pos   []int     // position of a slot in act, −1 if free
	free  []int     // free slots
	logw  []float64 // scratch: the log conditional of each choice
	next  int       // the next label

	sweeps int
	rng    *rand.Rand
}

// NewMixture validates its inputs and starts the chain on points (2-D; the
// slice is read, not kept).
func NewMixture(points [][]float64, cfg MixtureConfig, rng *rand.Rand) (*Mixture, error) {
	if !(cfg.Alpha > 0 && cfg.Alpha <= MaxAlpha) {
		return nil, algo.BadParam("alpha", cfg.Alpha, fmt.Sprintf("in (0, %d]", MaxAlpha))
	}
	if !(cfg.Sigma > 0) || math.IsInf(cfg.Sigma, 0) {
		return nil, algo.BadParam("sigma", cfg.Sigma, "finite and > 0")
	}
	if !(cfg.Tau > 0) || math.IsInf(cfg.Tau, 0) {
		return nil, algo.BadParam("tau", cfg.Tau, "finite and > 0")
	}
	if !algo.Finite(cfg.M0[0]) || !algo.Finite(cfg.M0[1]) {
		return nil, algo.BadParam("m0", cfg.M0, "finite")
	}
	if rng == nil {
		return nil, algo.BadParam("rng", "nil", "a non-nil *rand.Rand")
	}
	n := len(points)
	if n < 1 {
		return nil, algo.BadParam("data", "0 points", "at least 1 point")
	}
	m := &Mixture{cfg: cfg, n: n, rng: rng,
		x: make([]float64, n), y: make([]float64, n), z: make([]int, n),
		cnt: make([]int, n), sx: make([]float64, n), sy: make([]float64, n), sq: make([]float64, n),
		label: make([]int, n), act: make([]int, 0, n), pos: make([]int, n), free: make([]int, 0, n),
		logw: make([]float64, n+1)}
	for i, p := range points {
		if len(p) != 2 || !algo.Finite(p[0]) || !algo.Finite(p[1]) {
			return nil, algo.BadParam("data", fmt.Sprintf("point %d is %v", i+1, p), "finite 2-D points (x, y)")
		}
		m.x[i], m.y[i] = p[0]-cfg.M0[0], p[1]-cfg.M0[1]
	}
	for s := n - 1; s >= 1; s-- {
		m.free = append(m.free, s)
		m.pos[s] = -1
	}
	m.act = append(m.act, 0)
	m.label[0] = m.next
	m.next++
	for i := range m.z {
		m.add(i, 0)
	}
	return m, nil
}

func (m *Mixture) add(i, s int) {
	m.z[i] = s
	m.cnt[s]++
	m.sx[s] += m.x[i]
	m.sy[s] += m.y[i]
	m.sq[s] += m.x[i]*m.x[i] + m.y[i]*m.y[i]
}

// remove takes point i out of its cluster, freeing the slot if it empties.
func (m *Mixture) remove(i int) {
	s := m.z[i]
	m.cnt[s]--
	if m.cnt[s] == 0 {
		m.sx[s], m.sy[s], m.sq[s] = 0, 0, 0 // no drift from the subtractions
		p := m.pos[s]
		last := m.act[len(m.act)-1]
		m.act[p], m.pos[last] = last, p
		m.act = m.act[:len(m.act)-1]
		m.pos[s] = -1
		m.free = append(m.free, s)
		return
	}
	m.sx[s] -= m.x[i]
	m.sy[s] -= m.y[i]
	m.sq[s] -= m.x[i]*m.x[i] + m.y[i]*m.y[i]
}

// open takes a free slot for a new cluster.
func (m *Mixture) open() int {
	s := m.free[len(m.free)-1]
	m.free = m.free[:len(m.free)-1]
	m.pos[s] = len(m.act)
	m.act = append(m.act, s)
	m.label[s] = m.next
	m.next++
	return s
}

// logPred is log N(x; m_c, (σ² + s_c²)I) for a cluster of c points with sums
// (sx, sy) about M0; c = 0 gives the prior predictive N(x; M0, (σ² + τ²)I).
func (m *Mixture) logPred(x, y float64, c int, sx, sy float64) float64 {
	s2, t2 := m.cfg.Sigma*m.cfg.Sigma, m.cfg.Tau*m.cfg.Tau
	prec := 1/t2 + float64(c)/s2
	v := s2 + 1/prec
	mx, my := sx/s2/prec, sy/s2/prec
	dx, dy := x-mx, y-my
	return -math.Log(2*math.Pi*v) - (dx*dx+dy*dy)/(2*v)
}

// Step performs one Gibbs sweep over the points, in order.
func (m *Mixture) Step() error {
	logAlpha := math.Log(m.cfg.Alpha)
	for i := 0; i < m.n; i++ {
		m.remove(i)
		xi, yi := m.x[i], m.y[i]
		w := m.logw[:len(m.act)+1]
		top := math.Inf(-1)
		for j, s := range m.act {
			w[j] = math.Log(float64(m.cnt[s])) + m.logPred(xi, yi, m.cnt[s], m.sx[s], m.sy[s])
			top = max(top, w[j])
		}
		w[len(m.act)] = logAlpha + m.logPred(xi, yi, 0, 0, 0)
		top = max(top, w[len(m.act)])
		total := 0.0
		for j := range w {
			w[j] = math.Exp(w[j] - top)
			total += w[j]
		}
		u := m.rng.Float64() * total
		pick := len(w) - 1
		for j, v := range w {
			if u -= v; u < 0 {
				pick = j
				break
			}
		}
		var s int
		if pick == len(m.act) {
			s = m.open()
		} else {
			s = m.act[pick]
		}
		m.add(i, s)
	}
	m.sweeps++
	return nil
}

// LogJoint is log p(x, z) = log p(z) + Σ_c log p(x_c) at the current
// partition z, with p(z) the CRP probability α^K ∏_c (n_c − 1)! / ∏_{i<N} (α + i)
// and p(x_c) the marginal likelihood of a cluster (its mean integrated out),
// per coordinate
//
//	log p = −(n/2) log 2π − ((n−1)/2) log σ² − ½ log(σ² + nτ²)
//	        − ½ [Σ (x_j − x̄)²/σ² + n (x̄ − M0)²/(σ² + nτ²)].
func (m *Mixture) LogJoint() float64 {
	a := m.cfg.Alpha
	s2, t2 := m.cfg.Sigma*m.cfg.Sigma, m.cfg.Tau*m.cfg.Tau
	lp := 0.0
	for i := 0; i < m.n; i++ {
		lp -= math.Log(a + float64(i))
	}
	for _, s := range m.act {
		c := float64(m.cnt[s])
		lg, _ := math.Lgamma(c)
		lp += math.Log(a) + lg
		ss := m.sx[s]*m.sx[s] + m.sy[s]*m.sy[s]
		within := max(m.sq[s]-ss/c, 0)
		lp += 2 * (-c/2*math.Log(2*math.Pi) - (c-1)/2*math.Log(s2) - 0.5*math.Log(s2+c*t2))
		lp -= 0.5 * (within/s2 + ss/c/(s2+c*t2))
	}
	return lp
}

// Cluster is one occupied cluster: its label, size and the posterior mean of
// its μ.
type Cluster struct {
	Label int
	N     int
	Mean  [2]float64
}

// Clusters lists the occupied clusters, largest first (a fresh slice).
func (m *Mixture) Clusters() []Cluster {
	s2, t2 := m.cfg.Sigma*m.cfg.Sigma, m.cfg.Tau*m.cfg.Tau
	out := make([]Cluster, 0, len(m.act))
	for _, s := range m.act {
		prec := 1/t2 + float64(m.cnt[s])/s2
		out = append(out, Cluster{Label: m.label[s], N: m.cnt[s],
			Mean: [2]float64{m.cfg.M0[0] + m.sx[s]/s2/prec, m.cfg.M0[1] + m.sy[s]/s2/prec}})
	}
	for i := 1; i < len(out); i++ { // insertion sort: few clusters
		for j := i; j > 0 && (out[j].N > out[j-1].N || (out[j].N == out[j-1].N && out[j].Label < out[j-1].Label)); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// Labels writes each point's cluster label into dst (grown if short). Labels
// are stable while a cluster lives; a new cluster gets a new one.
func (m *Mixture) Labels(dst []int) []int {
	if cap(dst) < m.n {
		dst = make([]int, m.n)
	}
	dst = dst[:m.n]
	for i, s := range m.z {
		dst[i] = m.label[s]
	}
	return dst
}

// K is the number of occupied clusters.
func (m *Mixture) K() int { return len(m.act) }

// N is the number of points.
func (m *Mixture) N() int { return m.n }

// Sweeps is the number of Gibbs sweeps taken.
func (m *Mixture) Sweeps() int { return m.sweeps }

// Config is the model.
func (m *Mixture) Config() MixtureConfig { return m.cfg }
