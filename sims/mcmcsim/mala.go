package mcmcsim

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo/mcmc"
	"github.com/thelab/lab/algo/target"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// MALA is the Metropolis-adjusted Langevin algorithm (beyond the notes; see
// mcmc.MALA): the Langevin step of seed 000 eq 3.3 proposed, then accepted
// or rejected by eq 3.2 with the Hastings correction of its asymmetric
// proposal. The arrows show chain 1's last proposals, bent towards higher
// density by the gradient drift δ∇log p.
var MALA = &sims.Spec{
	Name:   "mala",
	Title:  "Metropolis-adjusted Langevin: gradient-drift proposals with the Hastings correction",
	Source: "beyond the notes: seed 000 §3.2 eq 3.3 as the proposal of seed 002 eq 3.2 (Roberts & Tweedie 1996)",
	Steps:  20000,
	Speed:  30,
	Params: param.List(malaTarget, malaStep, malaChains),
	New:    newMALA,
	Size:   malaChains.size(malaTarget, nil),

	Metrics: malaMetrics,
}

var (
	malaTarget = newTargetParams(target.KindDonut)
	malaStep   = param.Float("step", 0.1, "step δ of z' = z + δ∇log p(z) + √(2δ)ξ").Range(0, 10).OpenMin().
			DefaultFunc(func(v param.Values) float64 { return malaDefaultStep(malaTarget.get(v)) },
			"0.5 (normal, mixture), 1.5(1−|ρ|) (correlated), 0.2 (donut, funnel), 0.05 (banana)")
	malaChains = newChainParams(malaTarget, 4, 500)
)

// malaDefaultStep scales δ to each target's smallest variance λ: δ ≈ 1.5λ
// on the correlated Gaussian (λ = 1 − |ρ|) and 0.5 on the unit-variance
// ones, acceptance about 0.6–0.9, near the 0.574 that Roberts & Rosenthal
// (1998) found optimal (to two digits); on the donut (radial variance σ² = 0.16) and the
// funnel 0.2, on the banana (whose arms curve sharply) 0.05: the values with
// the largest ESS in a scan of 0.05–0.5.
func malaDefaultStep(k target.Kind, rho float64) float64 {
	switch k {
	case target.KindNormal, target.KindMixture:
		return 0.5
	case target.KindCorrelated:
		return param.Sig(1.5*(1-math.Abs(rho)), 2)
	case target.KindDonut, target.KindFunnel:
		return 0.2
	}
	return 0.05
}

type malaSim struct {
	*chainSim
	delta float64
}

func newMALA(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	tgt, err := malaTarget.build(v)
	if err != nil {
		return nil, err
	}
	delta := malaStep.Get(v)
	cs, err := newChainSim("mala", cfg, malaChains, tgt, 0x6d616c61, func(x0 []float64, rng *rand.Rand) (mcmc.Sampler, error) { // "mala"
		return mcmc.NewMALA(tgt, x0, delta, rng)
	})
	if err != nil {
		return nil, err
	}
	return &malaSim{chainSim: cs, delta: delta}, nil
}

func (s *malaSim) Step() error { return s.step() }

func (s *malaSim) Frame() sims.Frame { return s.frame(s.notes) }

func (s *malaSim) notes() []string {
	lines := []string{
		fmt.Sprintf("δ = %g: propose z' = z + δ∇log p(z) + √(2δ)ξ, the Langevin step of seed 000 eq 3.3;", s.delta),
		"accept with eq 3.2: the proposal N(z + δ∇log p(z), 2δI) is not symmetric, so π(z|z')/π(z'|z) stays in α.",
	}
	lines = append(lines, s.verdict()...)
	if b := s.burnNote(); b != "" {
		lines = append(lines, b)
	} else if acc := s.ens.AcceptanceAll(); s.ens.Transitions() >= hintAfter && acc < 0.3 {
		lines = append(lines, fmt.Sprintf("acceptance %.2f: δ is large for this target's curvature — try a smaller step.", acc))
	}
	lines = append(lines, s.targetNote()...)
	lines = append(lines, s.table()...)
	if a := s.arrowNote(); a != "" && s.ens.Transitions() > 0 {
		lines = append(lines, a)
	}
	return lines
}

func (s *malaSim) Result() map[string]any { return s.result() }
