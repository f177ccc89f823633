// Package mcmcsim turns the engines of algo/mcmc into sims: the samplers
// (mh, gibbs, hmc, mala, langevin), which share the multi-chain machinery
// of chains.go, and mcerror, the Monte Carlo error against the number of
// samples.
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

// MH is the Metropolis–Hastings playground (seed 002 §3.2; catalogue C4
// and C6): one proposal per chain per step, on a 1-D or 2-D target, with a
// random-walk or an independence proposal, burn-in, thinning, and one or
// several chains from dispersed starts. It shows the trace plots, the
// samples against the exact density with chain 1's last proposals (solid
// accepted, dotted rejected), the running acceptance rate, the
// autocorrelations, and the convergence diagnostics of chains.go: R̂, bulk-
// and tail-ESS pooled and per chain, MCSE, and the exact check against the
// target. Its default is the notes' Fig 3.7 setting (a 2-D two-Gaussian
// mixture), where step 0.5 is accepted often yet never leaves one mode,
// and step 2 visits both: high acceptance is not good mixing. With one
// chain (the default) it is the lab's original mh pane.
//
// Memory is bounded however long a run (see chainSim): the statistics
// after burn-in live in one mcmc.History per chain, the histogram bins are
// counted as the states arrive, and the traces keep the last 1000 states.
// A Step allocates nothing.
var MH = &sims.Spec{
	Name:   "mh",
	Title:  "Metropolis–Hastings: random-walk or independence proposal, chains, burn-in, thinning, ESS, R-hat",
	Source: "seed 002 §3.2 (Metropolis–Hastings, eq 3.2, Remark 3.4; MCMC practice)",
	Steps:  20000,
	// Slow enough to see single proposals and rejections at first; the
	// speed keys run the thousands that fill the histogram.
	Speed:  100,
	Params: param.List(mhTarget, mhProposal, mhStep, mhCenter, mhChains),
	New:    newMH,
	Size:   mhChains.size(mhTarget, nil),

	Metrics: mhMetrics,
}

// proposal is mh's choice of proposal.
type proposal string

const (
	proposalRW    proposal = "rw"
	proposalIndep proposal = "independence"
)

func (p proposal) String() string { return string(p) }

var (
	mhTarget   = newTargetParams(target.KindMixture)
	mhProposal = param.Choice("proposal", []proposal{proposalRW, proposalIndep}, proposalRW,
		"rw: z' ~ N(z, s²I), symmetric (Remark 3.4); independence: z' ~ N(center, s²I), with the Hastings correction")
	// The independence proposal defaults to N(0, 9I), the catalogue's (C4 [M]).
	mhStep = param.Float("step", 2, "proposal scale s").Range(0, 20).OpenMin().
		DefaultFunc(func(v param.Values) float64 {
			if mhProposal.Get(v) == proposalIndep {
				return 3
			}
			return rwStep(mhTarget.get(v))
		}, "rw: 2.4 (normal), 2 (mixture), 2.5 (banana), 1.68·(1−ρ²)^¼ (correlated), 1 (donut, funnel); independence: 3")
	mhCenter = param.Vector("center", []float64{0, 0}, "mean of the independence proposal (proposal=independence only)").Range(-10, 10)
	mhChains = newChainParams(mhTarget, 1, 1000)
)

// rwStep is a random-walk proposal scale that mixes reasonably on each
// target. For the correlated Gaussian it is the 2.38/√d scale of Gelman,
// Roberts & Gilks (1996) applied to the geometric mean of the principal
// standard deviations, (det Σ)^{1/(2d)} = (1 − ρ²)^{1/4}, to two digits; for
// the normal, the classic 2.4σ (acceptance ≈ 0.44); for the mixture, the
// catalogue's step 2 that hops between the modes (seed-002-catalog C4); for
// the banana, the step that gave the largest ESS in a scan of 0.3..3; for
// the donut and the funnel, 1.
func rwStep(k target.Kind, rho float64) float64 {
	switch k {
	case target.KindNormal:
		return 2.4
	case target.KindBanana:
		return 2.5
	case target.KindCorrelated:
		return param.Sig(2.38/math.Sqrt2*math.Pow(1-rho*rho, 0.25), 2)
	case target.KindDonut, target.KindFunnel:
		return 1
	}
	return 2
}

type mhSim struct {
	*chainSim
	scale float64 // the proposal scale s
	indep bool
}

func newMH(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	tgt, err := mhTarget.build(v)
	if err != nil {
		return nil, err
	}
	step := mhStep.Get(v)
	indep := mhProposal.Get(v) == proposalIndep
	center := mhCenter.Get(v)[:tgt.Dim()]
	cs, err := newChainSim("mh", cfg, mhChains, tgt, 0x6d682d73696d, func(x0 []float64, rng *rand.Rand) (mcmc.Sampler, error) { // "mh-sim"
		if indep {
			return mcmc.NewIndependence(tgt, x0, center, step, rng)
		}
		m, err := mcmc.NewMetropolis(tgt, x0, step, rng)
		if err != nil {
			return nil, err
		}
		return m.Sampler(), nil
	})
	if err != nil {
		return nil, err
	}
	return &mhSim{chainSim: cs, scale: step, indep: indep}, nil
}

func (s *mhSim) Step() error { return s.step() }

func (s *mhSim) Frame() sims.Frame { return s.frame(s.notes) }

// notes give the counts, a hint that ties the acceptance rate to mixing,
// the target, and the per-chain diagnostics.
func (s *mhSim) notes() []string {
	n, acc := s.ens.Transitions(), s.ens.AcceptanceAll()
	accepted := 0
	for c := range s.c {
		accepted += s.ens.Chain(c).Accepted()
	}
	lines := []string{fmt.Sprintf("proposal scale step = %g · accepted %d of %d (%.1f%%) · burn-in %d · thin %d",
		s.scale, accepted, n*s.c, 100*acc, s.ens.BurnIn(), s.ens.Thin())}
	lines = append(lines, s.verdict()...)
	switch {
	case s.burnNote() != "":
		lines = append(lines, s.burnNote())
	case n < hintAfter:
	case acc > 0.8:
		lines = append(lines, "small steps: high acceptance but slow mixing — try a larger step.")
	case acc < 0.1:
		lines = append(lines, "large steps: most proposals rejected, the chain sits still — try a smaller step.")
	case s.indep:
		lines = append(lines, "independence proposal N(c, s²I): α = min(1, p(z')π(z)/(p(z)π(z'))) (eq 3.2, Hastings correction).")
	default:
		lines = append(lines, "symmetric proposal N(z, s²I): α = min(1, p(z')/p(z)) (eq 3.2, Remark 3.4).")
	}
	lines = append(lines, s.targetNote()...)
	lines = append(lines, s.table()...)
	if a := s.arrowNote(); a != "" && n > 0 {
		lines = append(lines, a)
	}
	return lines
}

// Result reports the shared statistics (see chainSim.result) and the
// proposal.
func (s *mhSim) Result() map[string]any {
	res := s.result()
	res["proposal"] = map[bool]string{false: "rw", true: "independence"}[s.indep]
	return res
}
