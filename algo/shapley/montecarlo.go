package shapley

import (
	"math"
	"math/rand/v2"
)

// Running keeps the running mean and variance of each player's estimate
// (Welford), for the ±2 s.e. bands.
type Running struct {
	n       int
	mean, m []float64
}

func newRunning(n int) Running { return Running{mean: make([]float64, n), m: make([]float64, n)} }

// next starts a sample: add then takes each player's value.
func (r *Running) next() { r.n++ }

func (r *Running) add(i int, x float64) {
	d := x - r.mean[i]
	r.mean[i] += d / float64(r.n)
	r.m[i] += d * (x - r.mean[i])
}

// Mean is each player's estimate (shared: copy to keep).
func (r *Running) Mean() []float64 { return r.mean }

// StdErr is the standard error of player i's estimate (NaN below two samples).
func (r *Running) StdErr(i int) float64 {
	if r.n < 2 {
		return math.NaN()
	}
	return math.Sqrt(r.m[i] / float64(r.n-1) / float64(r.n))
}

// Samples is the number of samples per player.
func (r *Running) Samples() int { return r.n }

// Permutation is the random-order value by Monte Carlo (Definition 20.5,
// L1758–L1773, [A42]): each Step draws a uniform permutation π and gives
// player π(k) its marginal u(π(1..k)) − u(π(1..k−1)); the running means
// converge to the Shapley value, and each permutation's contributions sum
// to u([n]) exactly (efficiency per sample). n utility evaluations a step.
type Permutation struct {
	g     Game
	rng   *rand.Rand
	perm  []int
	Est   Running
	evals int
}

// NewPermutation prepares the estimator.
func NewPermutation(g Game, rng *rand.Rand) *Permutation {
	n := g.Players()
	p := &Permutation{g: g, rng: rng, perm: make([]int, n), Est: newRunning(n)}
	for i := range p.perm {
		p.perm[i] = i
	}
	return p
}

// Step walks one permutation. It allocates nothing.
func (p *Permutation) Step() {
	for i := len(p.perm) - 1; i > 0; i-- {
		j := int(p.rng.Uint64N(uint64(i + 1)))
		p.perm[i], p.perm[j] = p.perm[j], p.perm[i]
	}
	var s uint64
	prev := p.g.Value(0)
	p.Est.next()
	for _, i := range p.perm {
		s |= 1 << i
		u := p.g.Value(s)
		p.Est.add(i, u-prev)
		prev = u
	}
	p.evals += len(p.perm) + 1
}

// Evals is the number of utility evaluations so far.
func (p *Permutation) Evals() int { return p.evals }

// Sampled is the notes' Algorithm 3 (L1775–L1790, [A43]): each Step
// samples, for every player i, one coalition S ∌ i with probability
// ∝ C(n−1, |S|)·p_{|S|} — for Shapley the size uniform on 0..n−1, then a
// uniform subset of that size; for Banzhaf a uniform subset — and adds
// u(S ∪ {i}) − u(S) to i's mean. 2n utility evaluations a step.
type Sampled struct {
	g     Game
	kind  Kind
	rng   *rand.Rand
	pool  []int
	Est   Running
	evals int
}

// NewSampled prepares Algorithm 3 for the Shapley or Banzhaf value.
func NewSampled(g Game, kind Kind, rng *rand.Rand) *Sampled {
	n := g.Players()
	return &Sampled{g: g, kind: kind, rng: rng, pool: make([]int, n), Est: newRunning(n)}
}

// Step samples one coalition per player. It allocates nothing.
func (a *Sampled) Step() {
	n := a.g.Players()
	a.Est.next()
	for i := range n {
		var s uint64
		if a.kind == Banzhaf {
			s = a.rng.Uint64() &^ (1 << i)
			if n < 64 {
				s &= 1<<n - 1
			}
		} else {
			size := a.rng.IntN(n) // uniform on 0..n−1
			// a uniform subset of that size from [n] ∖ {i}: partial Fisher–Yates
			k := 0
			for j := range n {
				if j != i {
					a.pool[k] = j
					k++
				}
			}
			for t := range size {
				r := t + a.rng.IntN(k-t)
				a.pool[t], a.pool[r] = a.pool[r], a.pool[t]
				s |= 1 << a.pool[t]
			}
		}
		a.Est.add(i, a.g.Value(s|1<<i)-a.g.Value(s))
	}
	a.evals += 2 * n
}

// Evals is the number of utility evaluations so far.
func (a *Sampled) Evals() int { return a.evals }
