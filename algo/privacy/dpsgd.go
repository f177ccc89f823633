package privacy

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/nn"
	"github.com/thelab/lab/algo/tensor"
	"github.com/thelab/lab/algo/tensor/opt"
)

// Noise says where DP-SGD adds its Gaussian noise (catalogue E33).
type Noise string

const (
	// NoiseMean is the notes' Algorithm 2 (L1700): g = (1/b)Σ ḡ_i + σC z,
	// noise of standard deviation σC on the mean, b times what Abadi et al.
	// add; its noise multiplier on the clipped sum is σb.
	NoiseMean Noise = "mean"
	// NoiseSum is Abadi et al. (2016) and Opacus: g = (1/b)(Σ ḡ_i + σC z),
	// noise σC on the sum, σC/b on the mean; its noise multiplier is σ.
	NoiseSum Noise = "sum"
)

func (n Noise) String() string { return string(n) }

// SGDConfig configures DP-SGD.
type SGDConfig struct {
	Batch int     // b, the examples of a step
	Clip  float64 // C > 0; +Inf clips nothing
	Sigma float64 // σ ≥ 0, the noise multiplier
	Noise Noise
	Opt   opt.Config // the update rule on the noisy gradient (sgd in the notes; any is post-processing)
}

// SGD is DP-SGD (Algorithm 2, seed 001 L1689–L1706; Abadi et al. 2016):
// each Step takes the next b examples of a seeded random permutation of
// the training set (a new one every epoch, as nn.Trainer draws them),
// computes each example's gradient g_i = ∇_θ ℓ(x_i; θ), clips it to
// ḡ_i = g_i / max{1, ‖g_i‖/C} (per example, before averaging), adds
// Gaussian noise σC z from its own random stream, and updates θ with the
// optimiser. With σ = 0 and C = ∞ it is minibatch SGD exactly. A step
// allocates nothing.
//
// Privacy: a clipped sum has sensitivity C when one example is added or
// removed, so a step is the sampled Gaussian mechanism at rate q = b/N
// with noise multiplier NoiseMultiplier (σ, or σb for NoiseMean); the
// accountant composes the steps. The accountant's analysis assumes each
// example joins a batch independently with probability q (Poisson
// sampling), the standard approximation for shuffled batches that Abadi et
// al. and TF Privacy also make.
type SGD struct {
	model  nn.Model
	set    *nn.Set
	cfg    SGDConfig
	pe     *nn.PerExample
	opt    *opt.Optimizer
	params []*tensor.Tensor
	batch  *nn.Batch
	idx    []int
	perm   []int
	pos    int
	rng    *rand.Rand // batches
	noise  *rand.Rand // the privacy noise: its own stream
	norms  []float64
	steps  int
	acct   *Accountant
	rdp    []float64 // one step's RDP at each order
}

// NewSGD validates cfg against the model and the set. rng draws the
// batches and noise the privacy noise (two streams, so that the noise
// never shifts the batches).
func NewSGD(m nn.Model, train *nn.Set, cfg SGDConfig, rng, noise *rand.Rand) (*SGD, error) {
	in, out := m.Shape()
	if train.D != in {
		return nil, algo.BadParam("features", train.D, fmt.Sprintf("%d (the model's inputs)", in))
	}
	if cfg.Batch < 1 || cfg.Batch > min(train.N, nn.MaxBatch) {
		return nil, algo.BadParam("batch", cfg.Batch, fmt.Sprintf("in 1..%d (the training examples, at most %d)", train.N, nn.MaxBatch))
	}
	if !(cfg.Clip > 0) {
		return nil, algo.BadParam("clip", cfg.Clip, "> 0 (+Inf: no clipping)")
	}
	if !(cfg.Sigma >= 0) || math.IsInf(cfg.Sigma, 0) {
		return nil, algo.BadParam("sigma", cfg.Sigma, "finite and ≥ 0")
	}
	if cfg.Sigma > 0 && math.IsInf(cfg.Clip, 0) {
		return nil, algo.BadParam("clip", cfg.Clip, "finite when σ > 0: the noise is σC")
	}
	if cfg.Noise != NoiseMean && cfg.Noise != NoiseSum {
		return nil, algo.BadParam("noise", cfg.Noise, "mean or sum")
	}
	if rng == nil || noise == nil {
		return nil, algo.BadParam("rng", nil, "two random sources")
	}
	loss, err := nn.LossFor(train, out)
	if err != nil {
		return nil, err
	}
	pe, err := nn.NewPerExample(m, loss, cfg.Batch)
	if err != nil {
		return nil, err
	}
	o, err := opt.New(m.Params(), cfg.Opt)
	if err != nil {
		return nil, err
	}
	b, err := nn.NewBatch(cfg.Batch, in)
	if err != nil {
		return nil, err
	}
	s := &SGD{model: m, set: train, cfg: cfg, pe: pe, opt: o, params: m.Params(), batch: b,
		idx: make([]int, cfg.Batch), perm: make([]int, train.N), rng: rng, noise: noise,
		norms: make([]float64, cfg.Batch), acct: NewAccountant(), rdp: make([]float64, len(Orders))}
	for i, al := range Orders {
		s.rdp[i] = SubsampledGaussianRDP(s.Q(), s.NoiseMultiplier(), al)
	}
	s.shuffle()
	return s, nil
}

func (s *SGD) shuffle() {
	for i := range s.perm {
		s.perm[i] = i
	}
	for i := len(s.perm) - 1; i > 0; i-- { // Fisher–Yates, as rand.Shuffle draws it
		j := int(s.rng.Uint64N(uint64(i + 1)))
		s.perm[i], s.perm[j] = s.perm[j], s.perm[i]
	}
	s.pos = 0
}

// Q is the sampling rate b/N.
func (s *SGD) Q() float64 { return float64(s.cfg.Batch) / float64(s.set.N) }

// NoiseMultiplier is the noise's standard deviation over C on the clipped
// sum: σ (NoiseSum) or σb (NoiseMean). 0 means no privacy.
func (s *SGD) NoiseMultiplier() float64 {
	if s.cfg.Noise == NoiseMean {
		return s.cfg.Sigma * float64(s.cfg.Batch)
	}
	return s.cfg.Sigma
}

// NoiseStd is the noise's standard deviation per coordinate of the mean
// gradient: σC (NoiseMean), σC/b (NoiseSum).
func (s *SGD) NoiseStd() float64 {
	return s.NoiseMultiplier() * s.cfg.Clip / float64(s.cfg.Batch)
}

// Step is one noisy clipped minibatch update.
func (s *SGD) Step() error {
	for i := range s.idx {
		if s.pos == len(s.perm) {
			s.shuffle()
		}
		s.idx[i] = s.perm[s.pos]
		s.pos++
	}
	s.batch.Load(s.set, s.idx)
	if err := s.pe.ClippedSum(s.batch, s.cfg.Clip, s.norms); err != nil {
		return err
	}
	inv := 1 / float64(s.cfg.Batch)
	std := 0.0
	if s.cfg.Sigma > 0 {
		std = s.NoiseStd()
	}
	for _, p := range s.params {
		for k := range p.Grad {
			p.Grad[k] *= inv
			if std > 0 {
				p.Grad[k] += std * s.noise.NormFloat64()
			}
		}
	}
	s.steps++
	if s.cfg.Sigma > 0 {
		for i := range s.rdp {
			s.acct.rdp[i] += s.rdp[i]
		}
	}
	if err := s.opt.Step(); err != nil {
		return err
	}
	for _, p := range s.params {
		if !algo.AllFinite(p.Data) {
			return algo.Diverged("parameters not finite at step %d", s.steps)
		}
	}
	return nil
}

// Norms are the last batch's per-example gradient norms ‖g_i‖, before
// clipping (shared: copy to keep).
func (s *SGD) Norms() []float64 { return s.norms }

// Clipped is the fraction of the last batch's gradients that were clipped.
func (s *SGD) Clipped() float64 {
	c := 0
	for _, n := range s.norms {
		if n > s.cfg.Clip {
			c++
		}
	}
	return float64(c) / float64(len(s.norms))
}

// Steps is the number of updates taken.
func (s *SGD) Steps() int { return s.steps }

// Epochs is the passes over the training set so far.
func (s *SGD) Epochs() float64 { return float64(s.steps) * s.Q() }

// Epsilon is eps(δ) spent so far by the RDP accountant with Mironov's
// conversion (+Inf without noise: σ = 0 is not private), and the Rényi
// order that attains it.
func (s *SGD) Epsilon(delta float64) (eps, order float64) {
	return s.EpsilonBy(RDPMironov, delta)
}

// EpsilonBy is Epsilon with the RDP conversion m (RDPBalle or
// RDPMironov). The PRV accountant of the same steps is a PLD of Q and
// NoiseMultiplier.
func (s *SGD) EpsilonBy(m Method, delta float64) (eps, order float64) {
	if s.cfg.Sigma == 0 && s.steps > 0 {
		return math.Inf(1), 0
	}
	return s.acct.EpsilonBy(m, delta)
}
