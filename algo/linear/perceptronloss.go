package linear

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
	"gonum.org/v1/gonum/floats"
)

// PerceptronLoss is the perceptron criterion of seed 001 §2 (L263) and §8
// (L745) in the homogeneous form x̃ = (x, 1), w̃ = (w, b):
//
//	L(w̃) = (1/n) Σ_i max(0, −y_i⟨x̃_i, w̃⟩) = −(1/n) Σ_i y_i⟨x̃_i, w̃⟩ 𝕀[mistake on x_i].
//
// It is convex, piecewise linear and positively homogeneous (L(c w̃) =
// c L(w̃) for c ≥ 0), and L(0) = 0: w̃ = 0 is a minimiser, which is why the
// notes call the perceptron a feasibility problem (L193–L195; catalogue
// [A2]).
func PerceptronLoss(x *Design, y, w []float64) float64 {
	x.checkTheta(w)
	s := 0.0
	for i := 0; i < x.N(); i++ {
		s += math.Max(0, -y[i]*x.dot(i, w))
	}
	return s / float64(x.N())
}

// PerceptronSubgrad writes into g the subgradient of the notes' convention
// of the mean loss over the rows in batch,
//
//	g = −(1/|B|) Σ_{i∈B} y_i x̃_i 𝕀[y_i⟨x̃_i, w̃⟩ ≤ 0],
//
// with ℓ′(t) = −1 for t ≤ 0 (L636): a zero margin counts as a mistake, as
// in Algorithm 1's test (L185). With B = {0..n−1} it is the full-batch
// gradient of L749. It returns the number of mistakes in the batch and
// does not allocate.
func PerceptronSubgrad(g []float64, x *Design, y, w []float64, batch []int) int {
	x.checkTheta(w)
	for j := range g {
		g[j] = 0
	}
	m := 0
	for _, i := range batch {
		if y[i]*x.dot(i, w) <= 0 {
			floats.AddScaled(g, -y[i], x.Row(i))
			m++
		}
	}
	if len(batch) > 0 {
		floats.Scale(1/float64(len(batch)), g)
	}
	return m
}

// PerceptronDescent minimises the perceptron criterion by (sub)gradient
// steps of a constant size η from w̃₀ = 0 (seed 001 §8, L743–L761):
//
//	full batch (L753):  w̃ ← w̃ + η (1/n) Σ_i y_i x̃_i 𝕀[mistake on x_i]
//	stochastic (L761):  w̃ ← w̃ + η y_I x̃_I 𝕀[mistake on x_I]
//
// A mistake is y⟨x̃, w̃⟩ ≤ 0 (L636). With η = 1 the stochastic update is
// Algorithm 1 exactly (L269), presentation for presentation, when its
// indices come in the same order; the notes draw I uniformly (L759), here
// the order is Perceptron's (cyclic, or a random permutation per epoch,
// each index marginally uniform). One Step is one update: one gradient
// evaluation (stochastic) or n (full batch).
//
// From w̃₀ = 0 the step size only scales the run: the loss is positively
// homogeneous, so the iterates of step η are η times those of step 1 and
// L(w̃_k) scales with η. No step is "small enough" to make L fall at every
// step: a subgradient step is not a descent step, and L(0) = 0 already.
// What holds is finite convergence on separable data (the proof of Theorem
// 2.8, L237–L257, applied to the batch step; derived, not in the notes):
// with m_k the mistakes in the k-th step's batch, unit w̃* of margin γ and
// ‖x̃_i‖ ≤ C, ⟨w̃_K, w̃*⟩ ≥ (η/|B|)γ Σ m_k and ‖w̃_K‖² ≤ (η/|B|)²C² Σ m_k², so
//
//	Σ_k m_k ≤ (C/γ)² max_k m_k,
//
// which for one example a step (m_k ≤ 1) is Theorem 2.8's (C/γ)² mistakes,
// and for the full batch at most n(C/γ)² steps. The run has converged once
// no row is a mistake (full batch), or after n presentations in a row
// without a mistake (stochastic, as Perceptron); Step then returns
// ErrConverged.
type PerceptronDescent struct {
	x    *Design
	y    []float64
	w, g []float64
	eta  float64
	full bool
	all  []int // 0..n−1 (full batch)
	one  []int // the index of a stochastic step
	pres *presenter

	k, evals  int
	m, peak   int // Σ_k m_k and max_k m_k
	lastM     int // mistakes in the last step's batch
	clean     int // stochastic: presentations since the last mistake
	converged bool
}

// PerceptronDescentBytes is what a PerceptronDescent allocates for n rows
// besides the design: the labels and the index order (a value a row each).
func PerceptronDescentBytes(n int) int64 { return 2*algo.HeapBytes(8*int64(n)) + 256 }

// NewPerceptronGD is full-batch subgradient descent on the perceptron loss
// with step eta > 0 from w̃ = 0. The design must carry the bias column.
func NewPerceptronGD(x *Design, y []float64, eta float64) (*PerceptronDescent, error) {
	p, err := newPerceptronDescent(x, y, eta)
	if err != nil {
		return nil, err
	}
	p.full = true
	p.all = make([]int, x.N())
	for i := range p.all {
		p.all[i] = i
	}
	return p, nil
}

// NewPerceptronSGD is stochastic subgradient descent, one example a step
// in the given order (rng is used only for order=random), with step
// eta > 0 from w̃ = 0.
func NewPerceptronSGD(x *Design, y []float64, eta float64, order Order, rng *rand.Rand) (*PerceptronDescent, error) {
	p, err := newPerceptronDescent(x, y, eta)
	if err != nil {
		return nil, err
	}
	if p.pres, err = newPresenter(x.N(), order, rng); err != nil {
		return nil, err
	}
	p.one = make([]int, 1)
	return p, nil
}

func newPerceptronDescent(x *Design, y []float64, eta float64) (*PerceptronDescent, error) {
	if x == nil || !x.Bias() {
		return nil, fmt.Errorf("perceptron loss: the design needs the bias column (x, 1)")
	}
	if !(eta > 0) || math.IsInf(eta, 0) {
		return nil, algo.BadParam("eta", eta, "a finite number > 0")
	}
	if len(y) != x.N() {
		return nil, fmt.Errorf("%d labels for %d rows", len(y), x.N())
	}
	for i, v := range y {
		if v != 1 && v != -1 {
			return nil, fmt.Errorf("label %d is %v; the perceptron takes labels ±1", i+1, v)
		}
	}
	return &PerceptronDescent{
		x: x, y: append([]float64(nil), y...), eta: eta,
		w: make([]float64, x.P()), g: make([]float64, x.P()),
	}, nil
}

// Step takes one (sub)gradient step.
func (p *PerceptronDescent) Step() error {
	if p.converged {
		return algo.ErrConverged
	}
	batch := p.all
	if !p.full {
		p.one[0], _ = p.pres.next()
		batch = p.one
	}
	p.lastM = PerceptronSubgrad(p.g, p.x, p.y, p.w, batch)
	floats.AddScaled(p.w, -p.eta, p.g)
	p.k++
	p.evals += len(batch)
	p.m += p.lastM
	p.peak = max(p.peak, p.lastM)
	if p.full {
		p.converged = p.Errors() == 0
	} else if p.lastM > 0 {
		p.clean = 0
	} else if p.clean++; p.clean >= p.x.N() {
		if p.Errors() == 0 {
			p.converged = true
		} else {
			p.clean = 0 // order=random: a clean run did not cover every row
		}
	}
	if !algo.AllFinite(p.w) {
		return algo.Diverged("w is not finite at step %d", p.k)
	}
	return nil
}

// Loss is L(w̃) at the iterate.
func (p *PerceptronDescent) Loss() float64 { return PerceptronLoss(p.x, p.y, p.w) }

// Errors counts the rows with y_i⟨x̃_i, w̃⟩ ≤ 0.
func (p *PerceptronDescent) Errors() int {
	e := 0
	for i := 0; i < p.x.N(); i++ {
		if p.y[i]*p.x.dot(i, p.w) <= 0 {
			e++
		}
	}
	return e
}

// Theta returns w̃ = (w, b) (a view: do not modify).
func (p *PerceptronDescent) Theta() []float64 { return p.w }

// Steps is the number of updates k; Evaluations the number of per-example
// gradients computed, k·|B|.
func (p *PerceptronDescent) Steps() int       { return p.k }
func (p *PerceptronDescent) Evaluations() int { return p.evals }

// Mistakes is Σ_k m_k, the mistakes met in the steps' batches (for one
// example a step, Algorithm 1's M); PeakMistakes is max_k m_k.
func (p *PerceptronDescent) Mistakes() int     { return p.m }
func (p *PerceptronDescent) PeakMistakes() int { return p.peak }

// LastMistakes is the number of mistakes in the last step's batch.
func (p *PerceptronDescent) LastMistakes() int { return p.lastM }

// Last returns the index of the last stochastic step (−1 before the first
// and for the full batch).
func (p *PerceptronDescent) Last() int {
	if p.full || p.k == 0 {
		return -1
	}
	return p.one[0]
}

// Converged reports whether no row is a mistake (checked as Step says).
func (p *PerceptronDescent) Converged() bool { return p.converged }

// Full reports whether the steps are full-batch.
func (p *PerceptronDescent) Full() bool { return p.full }
