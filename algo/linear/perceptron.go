package linear

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
	"gonum.org/v1/gonum/floats"
)

// Order is the order in which a perceptron is shown the data.
type Order string

// The presentation orders: x_1, ..., x_n, x_1, ... (the catalogue's golden
// traces use it), or a fresh random permutation each epoch.
const (
	Cyclic Order = "cyclic"
	Random Order = "random"
)

// String is the order's name.
func (o Order) String() string { return string(o) }

// presenter hands out indices 0..n−1 epoch by epoch.
type presenter struct {
	order Order
	rng   *rand.Rand
	perm  []int
	pos   int
	epoch int // completed epochs
}

func newPresenter(n int, order Order, rng *rand.Rand) (*presenter, error) {
	switch order {
	case Cyclic:
	case Random:
		if rng == nil {
			return nil, algo.BadParam("rng", nil, "a random source for the random order")
		}
	default:
		return nil, algo.BadParam("order", order, "cyclic|random")
	}
	p := &presenter{order: order, rng: rng, perm: make([]int, n)}
	for i := range p.perm {
		p.perm[i] = i
	}
	p.shuffle()
	return p, nil
}

func (p *presenter) shuffle() {
	if p.order != Random {
		return
	}
	for i := len(p.perm) - 1; i > 0; i-- {
		j := p.rng.IntN(i + 1)
		p.perm[i], p.perm[j] = p.perm[j], p.perm[i]
	}
}

// next returns the next index and whether it ends an epoch.
func (p *presenter) next() (i int, endOfEpoch bool) {
	i = p.perm[p.pos]
	p.pos++
	if p.pos == len(p.perm) {
		p.pos = 0
		p.epoch++
		p.shuffle()
		return i, true
	}
	return i, false
}

// maxStates bounds the memory of the cycle detector.
const maxStates = 1 << 14

// Perceptron is Algorithm 1 of seed 001 §2 (L175–L187) in the homogeneous
// form of L217–L219: with x̃ = (x, 1) and w̃ = (w, b),
//
//	receive index I_t;  if y_I ⟨x̃_I, w̃⟩ ≤ 0 then w̃ ← w̃ + y_I x̃_I,
//
// which is w ← w + y x, b ← b + y. The test is "≤ 0", so a zero score is a
// mistake and the first presentation from w̃₀ = 0 always updates (catalogue
// [A1]). One Step presents one index. The run has converged once a whole
// pass over the data has no mistake; Step then returns ErrConverged.
//
// Theorem 2.8 (L221–L225): on data separable by a unit w̃* with margin
// γ = min_i |⟨x̃_i, w̃*⟩| and ‖x̃_i‖ ≤ C, starting from w̃₀ = 0 (the proof
// needs it; erratum E3), there are at most C²/γ² mistakes; C includes the
// appended 1. After M mistakes ⟨w̃, w̃*⟩ ≥ Mγ and ‖w̃‖² ≤ MC² (L237–L257;
// the notes' proof writes y²⟨w, w⟩ for y²⟨x, x⟩, erratum E1). Theorem 2.11
// (L292–L294): without a separating hyperplane it cycles; in cyclic order
// Cycle reports the period once the state at the start of an epoch repeats.
type Perceptron struct {
	x     *Design // with the bias column
	y     []float64
	w     []float64
	pres  *presenter
	t     int   // presentations
	m     int   // mistakes
	alpha []int // mistakes per point: w̃ = Σ α_i y_i x̃_i (003:L64)

	lastI       int
	lastMistake bool
	clean       int // presentations since the last mistake
	converged   bool

	seen     map[string][2]int // state at an epoch's start → (presentation, mistakes)
	cycleAt  int               // presentation at which the repeat was seen
	cyclePer int               // its period in presentations
	cycleM   int               // mistakes per period
}

// PerceptronBytes is what NewPerceptron allocates for n rows besides the
// design: its labels, the mistakes per point and the presentation order
// (a value a row each), and the states met at the ends of epochs (cyclic
// order; a few each, for the cycling of Theorem 2.11).
func PerceptronBytes(n int) int64 { return 3*algo.HeapBytes(8*int64(n)) + 4<<10 }

// NewPerceptron starts at w̃ = 0 on rows x with labels ±1 (y). The design
// must carry the bias column. rng is used only for order=random.
func NewPerceptron(x *Design, y []float64, order Order, rng *rand.Rand) (*Perceptron, error) {
	if !x.Bias() {
		return nil, fmt.Errorf("perceptron: the design needs the bias column (x, 1)")
	}
	if len(y) != x.N() {
		return nil, fmt.Errorf("%d labels for %d rows", len(y), x.N())
	}
	for i, v := range y {
		if v != 1 && v != -1 {
			return nil, fmt.Errorf("label %d is %v; the perceptron takes labels ±1", i+1, v)
		}
	}
	pres, err := newPresenter(x.N(), order, rng)
	if err != nil {
		return nil, err
	}
	p := &Perceptron{
		x: x, y: append([]float64(nil), y...), w: make([]float64, x.P()),
		pres: pres, alpha: make([]int, x.N()), lastI: -1,
	}
	if order == Cyclic {
		p.seen = map[string][2]int{stateKey(p.w): {0, 0}}
	}
	return p, nil
}

// Step presents one index and updates on a mistake.
func (p *Perceptron) Step() error {
	if p.converged {
		return algo.ErrConverged
	}
	i, eoe := p.pres.next()
	p.t++
	p.lastI = i
	p.lastMistake = p.y[i]*p.x.dot(i, p.w) <= 0
	if p.lastMistake {
		floats.AddScaled(p.w, p.y[i], p.x.Row(i))
		p.m++
		p.alpha[i]++
		p.clean = 0
	} else {
		p.clean++
	}
	if p.clean >= p.x.N() {
		if p.Errors() == 0 {
			p.converged = true
		} else {
			p.clean = 0 // order=random: a clean run did not cover every point
		}
	}
	// A state that repeats at an epoch's start, with mistakes in between,
	// is a cycle; an epoch without mistakes is convergence instead.
	if eoe && !p.converged && p.seen != nil && p.cyclePer == 0 {
		key := stateKey(p.w)
		if at, ok := p.seen[key]; ok {
			p.cycleAt, p.cyclePer, p.cycleM = p.t, p.t-at[0], p.m-at[1]
		} else if len(p.seen) < maxStates {
			p.seen[key] = [2]int{p.t, p.m}
		}
	}
	if !algo.AllFinite(p.w) {
		return algo.Diverged("w is not finite at presentation %d", p.t)
	}
	return nil
}

func stateKey(w []float64) string {
	b := make([]byte, 8*len(w))
	for j, v := range w {
		binary.LittleEndian.PutUint64(b[8*j:], math.Float64bits(v))
	}
	return string(b)
}

// Errors counts the rows with y_i⟨x̃_i, w̃⟩ ≤ 0 at the current w̃.
func (p *Perceptron) Errors() int {
	e := 0
	for i := 0; i < p.x.N(); i++ {
		if p.y[i]*p.x.dot(i, p.w) <= 0 {
			e++
		}
	}
	return e
}

// Theta returns w̃ = (w, b) (a view: do not modify).
func (p *Perceptron) Theta() []float64 { return p.w }

// W and B return the weights and the bias (fresh slices / a value).
func (p *Perceptron) W() []float64 { return append([]float64(nil), p.w[:p.x.D()]...) }
func (p *Perceptron) B() float64   { return p.w[p.x.D()] }

// Presentations is the number of indices presented, t.
func (p *Perceptron) Presentations() int { return p.t }

// Mistakes is the number of updates M.
func (p *Perceptron) Mistakes() int { return p.m }

// Epochs is the number of completed passes over the data.
func (p *Perceptron) Epochs() int { return p.pres.epoch }

// Alpha returns the mistake count of each point (a fresh slice): the dual
// coefficients with w̃ = Σ α_i y_i x̃_i.
func (p *Perceptron) Alpha() []int { return append([]int(nil), p.alpha...) }

// Last returns the index presented last (−1 before the first) and whether
// it was a mistake.
func (p *Perceptron) Last() (i int, mistake bool) { return p.lastI, p.lastMistake }

// Converged reports whether a full pass has been made without a mistake.
func (p *Perceptron) Converged() bool { return p.converged }

// Cycle reports, in cyclic order, whether the state w̃ at the start of an
// epoch has repeated: then the run is periodic from there on (the order is
// periodic too), with the given period in presentations, first seen at
// presentation at (Theorem 2.11). In random order it never reports a cycle.
func (p *Perceptron) Cycle() (period, at int, ok bool) {
	return p.cyclePer, p.cycleAt, p.cyclePer > 0
}

// CycleMistakes is the number of mistakes in one period of the cycle (0
// before one is found).
func (p *Perceptron) CycleMistakes() int { return p.cycleM }

// Design returns the data; Y the ±1 labels (a view).
func (p *Perceptron) Design() *Design { return p.x }
func (p *Perceptron) Y() []float64    { return p.y }

// Novikoff returns the quantities of Theorem 2.8 for the unit direction
// u = wstar/‖wstar‖ in the homogeneous form: C² = max_i ‖x̃_i‖², the margin
// γ = min_i y_i⟨x̃_i, u⟩ and the mistake bound C²/γ². ok is false when wstar
// does not separate the data (γ ≤ 0).
func Novikoff(x *Design, y, wstar []float64) (c2, gamma, bound float64, ok bool) {
	norm := floats.Norm(wstar, 2)
	if !(norm > 0) {
		return 0, 0, math.Inf(1), false
	}
	gamma = math.Inf(1)
	for i := 0; i < x.N(); i++ {
		r := x.Row(i)
		c2 = math.Max(c2, floats.Dot(r, r))
		gamma = math.Min(gamma, y[i]*floats.Dot(r, wstar)/norm)
	}
	if !(gamma > 0) {
		return c2, gamma, math.Inf(1), false
	}
	return c2, gamma, c2 / (gamma * gamma), true
}
