package shapley

import (
	"math"
	"math/bits"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// LeastSquares is the least-squares value (L1792–L1798, [A44]):
//
//	min_φ Σ_S q_{|S|} [u(S) − φ(S)]²  s.t.  Σ_i φ_i = u([n]),   φ(S) = Σ_{i∈S} φ_i,
//
// over 1 ≤ |S| ≤ n − 1 (the weights of ∅ and [n] are infinite: φ(∅) = 0
// and the constraint stand for them), solved by its KKT system
// [2M 1; 1ᵀ 0][φ; λ] = [2b; u([n])] with M = Σ q a_S a_Sᵀ, b = Σ q a_S u(S).
// With q_s = 1/C(n−2, s−1) it is the Shapley value. KernelSHAP samples S
// with probability ∝ q_{|S|} and solves the unweighted problem on the
// samples (Kernel).
type LeastSquares struct {
	n     int
	grand float64
	m     *mat.SymDense
	b     []float64
	rows  int
}

func newLeastSquares(n int, grand float64) *LeastSquares {
	return &LeastSquares{n: n, grand: grand, m: mat.NewSymDense(n, nil), b: make([]float64, n)}
}

// add accumulates w·a_S a_Sᵀ and w·a_S u.
func (l *LeastSquares) add(s uint64, u, w float64) {
	for i := range l.n {
		if s&(1<<i) == 0 {
			continue
		}
		l.b[i] += w * u
		for j := i; j < l.n; j++ {
			if s&(1<<j) != 0 {
				l.m.SetSym(i, j, l.m.At(i, j)+w)
			}
		}
	}
	l.rows++
}

// Solve returns φ from the KKT system, or false while it is singular (too
// few samples).
func (l *LeastSquares) Solve() ([]float64, bool) {
	n := l.n
	if n == 1 {
		return []float64{l.grand}, true
	}
	k := mat.NewDense(n+1, n+1, nil)
	r := mat.NewVecDense(n+1, nil)
	for i := range n {
		for j := range n {
			k.Set(i, j, 2*l.m.At(i, j))
		}
		k.Set(i, n, 1)
		k.Set(n, i, 1)
		r.SetVec(i, 2*l.b[i])
	}
	r.SetVec(n, l.grand)
	var x mat.VecDense
	if err := x.SolveVec(k, r); err != nil {
		return nil, false
	}
	phi := make([]float64, n)
	for i := range phi {
		phi[i] = x.AtVec(i)
		if math.IsNaN(phi[i]) || math.IsInf(phi[i], 0) {
			return nil, false
		}
	}
	return phi, true
}

// Rows is the number of coalitions in the problem.
func (l *LeastSquares) Rows() int { return l.rows }

// ShapleyWeight is q_s = 1/C(n−2, s−1), the least-squares weight whose
// solution is the Shapley value (L1796).
func ShapleyWeight(n, s int) float64 { return math.Exp(-logBinom(n-2, s-1)) }

func logBinom(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

// ExactLeastSquares solves the least-squares problem over every coalition
// of a cached game with the weights q_s = 1/C(n−2, s−1).
func ExactLeastSquares(u Table) ([]float64, error) {
	n := u.Players()
	if err := CheckExact(n); err != nil {
		return nil, err
	}
	l := newLeastSquares(n, u[len(u)-1])
	q := make([]float64, n+1)
	for s := 1; s < n; s++ {
		q[s] = ShapleyWeight(n, s)
	}
	for s := uint64(1); s < uint64(len(u))-1; s++ {
		l.add(s, u[s], q[bits.OnesCount64(s)])
	}
	phi, _ := l.Solve()
	return phi, nil
}

// Kernel is KernelSHAP: each Step samples one coalition S, its size s in
// 1..n−1 with probability ∝ n(n−1)/(s(n−s)) = C(n, s)·q_s and then a
// uniform subset of that size, and adds it to an unweighted least-squares
// problem with the efficiency constraint; Value solves it.
type Kernel struct {
	g     Game
	rng   *rand.Rand
	ls    *LeastSquares
	cdf   []float64 // of the sizes 1..n−1
	pool  []int
	evals int
}

// NewKernel prepares KernelSHAP for g (at least 2 players).
func NewKernel(g Game, rng *rand.Rand) *Kernel {
	n := g.Players()
	k := &Kernel{g: g, rng: rng, ls: newLeastSquares(n, Grand(g)), pool: make([]int, n), evals: 1}
	total := 0.0
	for s := 1; s < n; s++ {
		total += 1 / float64(s*(n-s))
		k.cdf = append(k.cdf, total)
	}
	for i := range k.cdf {
		k.cdf[i] /= total
	}
	return k
}

// Step samples one coalition.
func (k *Kernel) Step() {
	n := k.g.Players()
	if n < 2 {
		return
	}
	x := k.rng.Float64()
	size := 1
	for size < n-1 && k.cdf[size-1] < x {
		size++
	}
	for j := range k.pool {
		k.pool[j] = j
	}
	var s uint64
	for t := range size {
		r := t + k.rng.IntN(n-t)
		k.pool[t], k.pool[r] = k.pool[r], k.pool[t]
		s |= 1 << k.pool[t]
	}
	k.ls.add(s, k.g.Value(s), 1)
	k.evals++
}

// Value solves the sampled problem (false while singular).
func (k *Kernel) Value() ([]float64, bool) { return k.ls.Solve() }

// Samples is the number of coalitions sampled.
func (k *Kernel) Samples() int { return k.ls.Rows() }

// Evals is the number of utility evaluations so far (u([n]) included).
func (k *Kernel) Evals() int { return k.evals }
