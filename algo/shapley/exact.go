package shapley

import "math/bits"

// Enumeration adds the marginal contributions of the coalitions of a
// cached game in order, a chunk of coalitions per Step (one step of [A41]:
// "add one subset's marginal contribution"), accumulating the Shapley and
// the Banzhaf values at once: after the last coalition they are exact.
type Enumeration struct {
	u                Table
	n                int
	ps, pb           []float64 // the weights p_s of Shapley and Banzhaf
	next             uint64    // the next coalition S
	shapley, banzhaf []float64
}

// NewEnumeration prepares the enumeration of a cached game.
func NewEnumeration(u Table) (*Enumeration, error) {
	n := u.Players()
	if err := CheckExact(n); err != nil {
		return nil, err
	}
	return &Enumeration{u: u, n: n, ps: Weights(Shapley, n), pb: Weights(Banzhaf, n),
		shapley: make([]float64, n), banzhaf: make([]float64, n)}, nil
}

// Step adds the marginals u(S ∪ {i}) − u(S), i ∉ S, of the next chunk
// coalitions S; it reports whether all 2^n are done. It allocates nothing.
func (e *Enumeration) Step(chunk int) bool {
	end := min(e.next+uint64(chunk), uint64(len(e.u)))
	for s := e.next; s < end; s++ {
		us := e.u[s]
		size := bits.OnesCount64(s)
		ws, wb := e.ps[min(size, e.n-1)], e.pb[0]
		for i := range e.n {
			if s&(1<<i) == 0 {
				d := e.u[s|1<<i] - us
				e.shapley[i] += ws * d
				e.banzhaf[i] += wb * d
			}
		}
	}
	e.next = end
	return e.Done()
}

// Done says whether every coalition has been added.
func (e *Enumeration) Done() bool { return e.next == uint64(len(e.u)) }

// Coalitions is the number of coalitions added so far.
func (e *Enumeration) Coalitions() int { return int(e.next) }

// Shapley and Banzhaf are the values so far (shared: copy to keep).
func (e *Enumeration) Shapley() []float64 { return e.shapley }
func (e *Enumeration) Banzhaf() []float64 { return e.banzhaf }

// Exact returns the Shapley and Banzhaf values of a cached game.
func Exact(u Table) (shapley, banzhaf []float64, err error) {
	e, err := NewEnumeration(u)
	if err != nil {
		return nil, nil, err
	}
	e.Step(len(u))
	return e.shapley, e.banzhaf, nil
}
