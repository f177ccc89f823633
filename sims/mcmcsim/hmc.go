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

// HMC is Hamiltonian Monte Carlo (beyond the notes; see mcmc.HMC): each
// step draws a momentum for every chain, follows the leapfrog trajectory of
// `leapfrog_steps` steps of size `step`, and accepts its end with
// probability min(1, e^{−ΔH}). The canvas draws chain 1's last trajectory
// (dotted when rejected), which follows the banana's ridge where a random
// walk would crawl; a chart shows the energy error |ΔH| per transition on a
// log scale, which shrinks as ε² (leapfrog is second order) and explodes
// into divergent transitions where the step is too large for the curvature
// (the funnel's neck).
var HMC = &sims.Spec{
	Name:   "hmc",
	Title:  "Hamiltonian Monte Carlo: leapfrog trajectories, energy error, divergences",
	Source: "beyond the notes: MH (seed 002 §3.2, eq 3.2) with a Hamiltonian proposal (Neal 2011)",
	Steps:  2000,
	Speed:  10,
	Params: param.List(hmcTarget, hmcStep, hmcLeapfrog, hmcChains),
	New:    newHMC,
	Size:   hmcChains.size(hmcTarget, hmcBytes),

	Metrics: hmcMetrics,
}

var (
	hmcTarget = newTargetParams(target.KindBanana)
	hmcStep   = param.Float("step", 0.1, "leapfrog step size ε").Range(0, 5).OpenMin().
			DefaultFunc(func(v param.Values) float64 { return hmcDefaultStep(hmcTarget.get(v)) },
			"0.08 (normal), (π/40)√(1+|ρ|) capped at √(1−|ρ|) (correlated), else 0.1")
	hmcLeapfrog = param.Int("leapfrog_steps", 20, "leapfrog steps L per transition: the trajectory lasts T = εL").Range(1, 500)
	hmcChains   = newChainParams(hmcTarget, 4, 200)
)

// hmcDefaultStep makes T = 20ε about a quarter period of the slowest
// direction of the Gaussians (π/2 for N(0, 1), where a quarter period gives
// independent draws), within stability (εω ≤ 1 for the fastest direction,
// ω = 1/√(1 − |ρ|)), to two digits; 0.1 elsewhere.
func hmcDefaultStep(k target.Kind, rho float64) float64 {
	switch k {
	case target.KindNormal:
		return 0.08
	case target.KindCorrelated:
		r := math.Abs(rho)
		return param.Sig(math.Min(math.Pi/40*math.Sqrt(1+r), math.Sqrt(1-r)), 2)
	}
	return 0.1
}

type hmcSim struct {
	*chainSim
	eps    float64
	steps  int
	energy *sims.Trace // |ΔH| of chain 1, and the mean |ΔH| over the chains
}

func newHMC(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	tgt, err := hmcTarget.build(v)
	if err != nil {
		return nil, err
	}
	eps, steps := hmcStep.Get(v), hmcLeapfrog.Get(v)
	cs, err := newChainSim("hmc", cfg, hmcChains, tgt, 0x686d63, func(x0 []float64, rng *rand.Rand) (mcmc.Sampler, error) { // "hmc"
		return mcmc.NewHMC(tgt, x0, eps, steps, rng)
	})
	if err != nil {
		return nil, err
	}
	cs.noArrows, cs.propName = true, "trajectory"
	return &hmcSim{chainSim: cs, eps: eps, steps: steps, energy: sims.NewTrace(1, 2)}, nil
}

func (s *hmcSim) chain(c int) *mcmc.HMC { return s.ens.Chain(c).(*mcmc.HMC) }

// Step makes one transition of every chain and records chain 1's energy
// error (floored at 1e-16 for the log scale; a divergence is drawn at its
// ΔH, capped at 1e6).
func (s *hmcSim) Step() error {
	if err := s.step(); err != nil {
		return err
	}
	s.energy.Add(math.Min(math.Abs(s.chain(0).EnergyError()), 1e6), s.meanAbsDH())
	return nil
}

// hmcBytes is what hmc holds besides a chainSim: the energy Trace (two
// columns, and their copy in a Frame), each chain's leapfrog path of L + 1
// states, and chain 1's in the Frame.
func hmcBytes(v param.Values, nc, d int) int64 {
	path := 8 * int64(hmcLeapfrog.Get(v)+1) * int64(d)
	return traceBytes(2) + int64(nc+1)*path
}

// meanAbsDH is the mean |ΔH| of the non-divergent trajectories of every
// chain.
func (s *hmcSim) meanAbsDH() float64 {
	sum, n := 0.0, 0
	for c := range s.c {
		h := s.chain(c)
		k := h.Steps() - h.Divergent()
		sum += h.MeanAbsEnergyError() * float64(k)
		n += k
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

func (s *hmcSim) divergent() int {
	n := 0
	for c := range s.c {
		n += s.chain(c).Divergent()
	}
	return n
}

// trajectory is chain 1's last leapfrog path, dotted when rejected.
func (s *hmcSim) trajectory() []sims.Path {
	if s.d < 2 || s.ens.Transitions() == 0 {
		return nil
	}
	h := s.chain(0)
	path := h.Path()
	p := sims.Path{X: make([]float64, len(path)/2), Y: make([]float64, len(path)/2), Class: s.proposalClass()}
	for l := range p.X {
		p.X[l], p.Y[l] = path[2*l], path[2*l+1]
	}
	_, ok := h.Proposal()
	p.Dotted = !ok
	return []sims.Path{p}
}

func (s *hmcSim) Frame() sims.Frame {
	s.refresh()
	metrics := append(s.metrics(),
		sims.Metric{Name: "mean_abs_dH", Value: s.meanAbsDH()},
		sims.Metric{Name: "divergent", Value: float64(s.divergent())})
	head, tail := s.charts(s.trajectory()...)
	e0, e1 := s.energy.Span()
	energy := sims.LineChart{
		Title: "|ΔH| per transition, chain 1",
		Series: []sims.Series{
			{Name: "|ΔH|", Y: s.energy.Column(0), Class: 0},
			{Name: "mean |ΔH|, all chains", Y: s.energy.Column(1), Class: 1, Bound: true},
		},
		LogY: true, X0: e0, X1: e1, XLabel: "step",
	}
	charts := append(append(head, energy), tail...)
	return sims.Frame{
		Sim:     "hmc",
		Step:    s.ens.Transitions(),
		Metrics: metrics,
		Charts:  charts,
		Primary: pictureChart,
		Text:    s.notes(),
	}
}

func (s *hmcSim) notes() []string {
	lines := []string{fmt.Sprintf("ε = %g, L = %d: each step follows H(z, r) = −log p(z) + ½‖r‖² for time T = εL = %.3g, then accepts with min(1, e^−ΔH).",
		s.eps, s.steps, s.eps*float64(s.steps))}
	if n := s.divergent(); n > 0 {
		lines = append(lines, fmt.Sprintf("divergent transitions (ΔH > %d, rejected): %d — ε is too large for the curvature somewhere.", mcmc.MaxEnergyError, n))
	}
	lines = append(lines, s.verdict()...)
	if b := s.burnNote(); b != "" {
		lines = append(lines, b)
	}
	if s.ens.Transitions() > 0 {
		lines = append(lines, fmt.Sprintf("leapfrog is second order: |ΔH| = O(ε²) at fixed T — mean |ΔH| = %.3g (halve ε, double L: about 4× less).", s.meanAbsDH()))
	}
	lines = append(lines, s.targetNote()...)
	return append(lines, s.table()...)
}

// Result reports the shared statistics, the mean |ΔH| and the divergences.
func (s *hmcSim) Result() map[string]any {
	res := s.result()
	res["mean_abs_dH"] = s.meanAbsDH()
	res["divergent"] = s.divergent()
	return res
}
