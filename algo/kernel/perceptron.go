package kernel

import (
	"fmt"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
)

// Order says in which order a perceptron presents the examples.
type Order string

const (
	// Cyclic presents examples 0, 1, …, N−1 every epoch.
	Cyclic Order = "cyclic"
	// Shuffled presents a fresh random permutation every epoch.
	Shuffled Order = "shuffled"
)

// String is the order's name.
func (o Order) String() string { return string(o) }

// PerceptronConfig configures a Perceptron.
type PerceptronConfig struct {
	// Bias adds 1 to every kernel value: the constant input x₀ = 1 of the
	// primal perceptron (the sum from j = 0 in seed 003 L64), so that the
	// boundary need not pass through the origin.
	Bias bool
	// Order is Cyclic or Shuffled; Shuffled needs an rng.
	Order Order
	// MaxEpochs ends the run (ErrConverged is not returned; Step returns
	// ErrMaxEpochs) after that many epochs without a clean one; 0 means
	// no cap.
	MaxEpochs int
}

// ErrMaxEpochs is returned by a perceptron's Step when it has run its epoch
// cap without a clean epoch: on data that is not separable in feature space
// (the convergence theorem assumes separability) it would cycle for ever.
var ErrMaxEpochs = fmt.Errorf("epoch cap reached without a clean epoch (not separable in feature space?)")

// Perceptron is the dual (kernel) perceptron of seed 003 L65–75: α ∈ N^N
// starts at 0; presented example k is a mistake when
//
//	y_k Σ_i α_i y_i K(x_i, x_k) ≤ 0
//
// (the tie counts as a mistake, so at α = 0 the first example always
// updates), and a mistake sets α_k ← α_k + 1. So α_k counts the mistakes on
// x_k and w = Σ α_i y_i Φ(x_i) (L64). The decision function is
// F(x) = sgn(Σ_i α_i y_i K(x_i, x)). One Step presents one example; the run
// converges (ErrConverged) after a full epoch without a mistake.
//
// The scores F_j = Σ_i α_i y_i K_ij are cached and updated in O(N) per
// mistake (F_j += y_k K_kj), from a Gram matrix computed once.
type Perceptron struct {
	n     int
	gram  []float64 // K_ij (+1 with Bias), n×n
	y     []float64 // ±1
	cfg   PerceptronConfig
	rng   *rand.Rand
	alpha []int
	f     []float64 // F_j
	perm  []int
	pos   int // next position in perm
	epoch int
	steps int
	last  int // the example presented last, −1 before the first

	mistakes      int   // in total
	epochMistakes int   // in the current epoch
	history       []int // mistake indices, in order
	clean         bool  // the last completed epoch had no mistake
	perEpoch      []int // mistakes of each completed epoch
}

// PerceptronFootprint is the bytes NewPerceptron holds for n points with
// a bias: the Gram matrix plus 1 (its own copy) and α, the scores and the
// order. The history of the mistakes grows by a word a mistake, and the
// mistakes of each epoch by a word an epoch.
func PerceptronFootprint(n int) int64 { return 8*int64(n)*int64(n) + 3*8*int64(n) }

// NewPerceptron starts a dual perceptron on a Gram matrix (n×n, row-major,
// as Gram returns; it is copied only when Bias is set) and labels y ∈ {−1,
// +1}. rng is used by the Shuffled order only.
func NewPerceptron(gram []float64, y []float64, cfg PerceptronConfig, rng *rand.Rand) (*Perceptron, error) {
	n := len(y)
	if n == 0 {
		return nil, algo.BadParam("data", n, "at least one example")
	}
	if len(gram) != n*n {
		return nil, algo.BadParam("gram", len(gram), fmt.Sprintf("an %d×%d matrix", n, n))
	}
	for i, v := range y {
		if v != 1 && v != -1 {
			return nil, algo.BadParam("labels", fmt.Sprintf("y[%d] = %v", i, v), "each −1 or +1")
		}
	}
	switch cfg.Order {
	case Cyclic:
	case Shuffled:
		if rng == nil {
			return nil, algo.BadParam("order", cfg.Order, "cyclic, or shuffled with a random source")
		}
	default:
		return nil, algo.BadParam("order", cfg.Order, fmt.Sprintf("one of %v", []Order{Cyclic, Shuffled}))
	}
	if cfg.MaxEpochs < 0 {
		return nil, algo.BadParam("max_epochs", cfg.MaxEpochs, "≥ 0")
	}
	if cfg.Bias {
		g := make([]float64, len(gram))
		for i, v := range gram {
			g[i] = v + 1
		}
		gram = g
	}
	p := &Perceptron{
		n: n, gram: gram, y: y, cfg: cfg, rng: rng,
		alpha: make([]int, n), f: make([]float64, n), perm: make([]int, n), last: -1,
	}
	p.newEpoch()
	return p, nil
}

func (p *Perceptron) newEpoch() {
	for i := range p.perm {
		p.perm[i] = i
	}
	if p.cfg.Order == Shuffled {
		p.rng.Shuffle(p.n, func(i, j int) { p.perm[i], p.perm[j] = p.perm[j], p.perm[i] })
	}
	p.pos = 0
	p.epochMistakes = 0
}

// Step presents the next example and updates α on a mistake. It returns
// ErrConverged once an epoch has passed without a mistake, and ErrMaxEpochs
// at the epoch cap.
func (p *Perceptron) Step() error {
	if p.clean {
		return algo.ErrConverged
	}
	if p.cfg.MaxEpochs > 0 && p.epoch >= p.cfg.MaxEpochs {
		return ErrMaxEpochs
	}
	k := p.perm[p.pos]
	p.last = k
	if p.y[k]*p.f[k] <= 0 {
		p.alpha[k]++
		p.mistakes++
		p.epochMistakes++
		p.history = append(p.history, k)
		yk := p.y[k]
		row := p.gram[k*p.n : (k+1)*p.n]
		for j, v := range row {
			p.f[j] += yk * v
		}
	}
	p.steps++
	p.pos++
	if p.pos == p.n {
		p.perEpoch = append(p.perEpoch, p.epochMistakes)
		p.clean = p.epochMistakes == 0
		p.epoch++
		p.newEpoch()
	}
	return nil
}

// Steps is the number of examples presented.
func (p *Perceptron) Steps() int { return p.steps }

// Last is the example presented by the last Step (−1 before the first).
func (p *Perceptron) Last() int { return p.last }

// Epoch is the number of completed epochs.
func (p *Perceptron) Epoch() int { return p.epoch }

// Mistakes is the total number of updates.
func (p *Perceptron) Mistakes() int { return p.mistakes }

// EpochMistakes is the number of mistakes so far in the current epoch.
func (p *Perceptron) EpochMistakes() int { return p.epochMistakes }

// PerEpoch returns the mistakes of each completed epoch (a view).
func (p *Perceptron) PerEpoch() []int { return p.perEpoch }

// History returns the indices of the examples it erred on, in order (a
// view: do not modify).
func (p *Perceptron) History() []int { return p.history }

// Alpha returns the mistake counts α (a view).
func (p *Perceptron) Alpha() []int { return p.alpha }

// Scores returns F_j = Σ_i α_i y_i K_ij on the training points (a view).
func (p *Perceptron) Scores() []float64 { return p.f }

// Decision returns Σ_i α_i y_i k_i (+ Σ α_i y_i with Bias) for the kernel
// values k_i = K(x_i, x) of a new point x against the training points.
func (p *Perceptron) Decision(k []float64) float64 {
	s := 0.0
	for i, a := range p.alpha {
		if a != 0 {
			v := k[i]
			if p.cfg.Bias {
				v++
			}
			s += float64(a) * p.y[i] * v
		}
	}
	return s
}

// Primal is the primal perceptron of seed 003 L64 on explicit features
// φ(x) (which must include the constant 1 if a bias is wanted): w starts at
// 0 and a presented example k with y_k⟨w, φ_k⟩ ≤ 0 sets w ← w + y_k φ_k. It
// presents the examples in the order given. It is the oracle the dual
// perceptron is tested against: with K = ⟨φ, φ⟩ both make the same
// mistakes.
type Primal struct {
	phi     [][]float64
	y       []float64
	w       []float64
	history []int
}

// NewPrimal starts a primal perceptron on feature vectors phi (not copied)
// and labels y ∈ {−1, +1}.
func NewPrimal(phi [][]float64, y []float64) (*Primal, error) {
	if len(phi) == 0 || len(phi) != len(y) {
		return nil, algo.BadParam("data", len(phi), fmt.Sprintf("%d feature vectors, one per label", len(y)))
	}
	return &Primal{phi: phi, y: y, w: make([]float64, len(phi[0]))}, nil
}

// Present shows example k and reports whether it was a mistake.
func (p *Primal) Present(k int) bool {
	if p.y[k]*dot(p.w, p.phi[k]) > 0 {
		return false
	}
	for j, v := range p.phi[k] {
		p.w[j] += p.y[k] * v
	}
	p.history = append(p.history, k)
	return true
}

// W returns the weights (a view).
func (p *Primal) W() []float64 { return p.w }

// History returns the mistake indices in order (a view).
func (p *Primal) History() []int { return p.history }
