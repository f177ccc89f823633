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

// Gibbs is Gibbs sampling (seed 002 §3.2, L1108–1155; catalogue C5): one
// step is one systematic sweep, each coordinate drawn from its full
// conditional given the others. The canvas draws every half-move, so the
// path is the axis-parallel zig-zag of Fig 3.8; on the correlated Gaussian
// (the default) the steps shrink as ρ → 1 (the lag-1 autocorrelation of a
// coordinate per sweep is ρ²). Each update is Metropolis–Hastings with the
// conditional as proposal, whose ratio the engine computes and shows: it
// is 1 to rounding (L1145–1151). Coordinates without a closed-form
// conditional are slice-sampled (see mcmc.Gibbs).
var Gibbs = &sims.Spec{
	Name:   "gibbs",
	Title:  "Gibbs sampling: full conditionals, the zig-zag path, acceptance identically one",
	Source: "seed 002 §3.2 (Gibbs sampling, eq 3.3, Remark 3.5, Fig 3.8)",
	Steps:  5000,
	Speed:  10,
	Params: param.List(gibbsTarget, gibbsWidth, gibbsChains),
	New:    newGibbs,
	Size:   gibbsChains.size(gibbsTarget, gibbsBytes),

	Metrics: gibbsMetrics,
}

var (
	gibbsTarget = newTargetParams(target.KindCorrelated)
	gibbsWidth  = param.Float("width", 1,
		"initial bracket of the slice updates, for coordinates without a closed-form conditional (banana x, funnel y, donut)").Range(0, 20).OpenMin()
	gibbsChains = newChainParams(gibbsTarget, 4, 200)
)

// gibbsBytes is what gibbs holds besides a chainSim: the Trace of the MH
// ratios.
func gibbsBytes(param.Values, int, int) int64 { return traceBytes(1) }

type gibbsSim struct {
	*chainSim
	exact  bool        // some coordinate has a closed-form conditional
	ratios *sims.Trace // |log α| of chain 1's last sweep
}

func newGibbs(cfg sims.Config) (sims.Sim, error) {
	tgt, err := gibbsTarget.build(cfg.Values)
	if err != nil {
		return nil, err
	}
	width := gibbsWidth.Get(cfg.Values)
	cs, err := newChainSim("gibbs", cfg, gibbsChains, tgt, 0x67696262, func(x0 []float64, rng *rand.Rand) (mcmc.Sampler, error) { // "gibb"
		return mcmc.NewGibbs(tgt, x0, width, rng)
	})
	if err != nil {
		return nil, err
	}
	cs.noArrows, cs.stairs = true, true
	s := &gibbsSim{chainSim: cs, ratios: sims.NewTrace(1, 1)}
	for i := range tgt.Dim() {
		s.exact = s.exact || cs.ens.Chain(0).(*mcmc.Gibbs).Exact(i)
	}
	return s, nil
}

// Step makes one sweep of every chain and records chain 1's |log α|.
func (s *gibbsSim) Step() error {
	if err := s.step(); err != nil {
		return err
	}
	g := s.ens.Chain(0).(*mcmc.Gibbs)
	s.ratios.Add(sims.NoiseFloor(g.SweepLogRatio(), g.LogRatioScale()))
	return nil
}

// ratioChart is |log α| of chain 1's updates per sweep, on a log scale:
// rounding noise, up to about ε/(1 − ρ²) times the engine's LogRatioScale
// (ρ = 0 off the correlated Gaussian), so under sims.RoundingNoise (64ε),
// where the line is flat — except near the pane's |ρ| = 0.995, where
// rounding reaches 90ε of the scale in long runs and rises off the floor.
func (s *gibbsSim) ratioChart() sims.LineChart {
	r0, r1 := s.ratios.Span()
	return sims.LineChart{
		Title:  "|log α| per sweep, chain 1",
		Series: []sims.Series{{Name: "|log α| ≈ 0 (rounding)", Y: s.ratios.Column(0), Class: 0}},
		LogY:   true, X0: r0, X1: r1, XLabel: "sweep",
	}
}

// maxLogRatio is the largest |log α| of any chain's closed-form updates,
// the number of updates checked, and the scale of their terms (a |log α|
// of rounding noise at that scale reads ≈ 0).
func (s *gibbsSim) maxLogRatio() (float64, int, float64) {
	m, n, scale := 0.0, 0, 0.0
	for c := range s.c {
		g := s.ens.Chain(c).(*mcmc.Gibbs)
		r, k := g.MaxLogRatio()
		m, n, scale = math.Max(m, r), n+k, math.Max(scale, g.LogRatioScale())
	}
	return m, n, scale
}

func (s *gibbsSim) Frame() sims.Frame {
	s.refresh()
	r, _, scale := s.maxLogRatio()
	metrics := append(s.metrics(), sims.Metric{Name: "max_log_alpha", Value: math.Min(r, 1e300), Scale: scale})
	head, tail := s.charts()
	if s.exact {
		head[2] = s.ratioChart() // the acceptance rate is 1 by construction
	}
	return sims.Frame{
		Sim:     "gibbs",
		Step:    s.ens.Transitions(),
		Metrics: metrics,
		Charts:  append(head, tail...),
		Primary: pictureChart,
		Text:    s.notes(),
	}
}

// conditionals describes the full conditionals of the target, as drawn.
func conditionals(tg target.Target) string {
	switch t := tg.(type) {
	case target.Normal:
		return "one coordinate: the conditional is p itself, so every sweep is an independent draw."
	case target.Correlated:
		return fmt.Sprintf("x | y ~ N(ρy, 1−ρ²) and y | x ~ N(ρx, 1−ρ²), ρ = %g; lag-1 autocorrelation per sweep ρ² = %.3g.", t.Rho(), t.Rho()*t.Rho())
	case *target.Mixture:
		return "x | y and y | x: two-component mixtures, weights ∝ w_k N(other coordinate; μ_k, σ²) — exact draws."
	case target.Banana:
		return "y | x ~ N(b(x² − a²), 1) exact; x | y (quartic exponent) by slice sampling."
	case target.Funnel:
		return "x | y ~ N(0, e^y) exact; y | x (not a standard law) by slice sampling."
	case target.Donut:
		return "no closed-form conditional: both coordinates by slice sampling (Neal 2003)."
	}
	return ""
}

func (s *gibbsSim) notes() []string {
	r, k, scale := s.maxLogRatio()
	sweep := "x, then y, each from its full conditional"
	if s.d == 1 {
		sweep = "x from its conditional"
	}
	lines := []string{fmt.Sprintf("one step = one sweep: %s · %s × %s", sweep, sims.Count(s.ens.Transitions(), "sweep"), sims.Count(s.c, "chain"))}
	lines = append(lines, s.verdict()...)
	if b := s.burnNote(); b != "" {
		lines = append(lines, b)
	}
	if k > 0 {
		ratio := fmt.Sprintf("= %.1e", r)
		if r <= sims.RoundingNoise*scale {
			ratio = "≈ 0 (rounding)"
		}
		lines = append(lines, fmt.Sprintf("MH ratio of the conditional proposal (eq 3.3): max |log α| %s over %d updates — α ≡ 1.", ratio, k))
	} else {
		lines = append(lines, "every update is accepted: slice sampling never rejects, and leaves p invariant (Remark 3.5).")
	}
	lines = append(lines, "conditionals: "+conditionals(s.tgt))
	lines = append(lines, s.targetNote()...)
	if tg, ok := s.tgt.(target.Correlated); ok && s.acf[0][0] != nil && len(s.acf[0][0]) > 1 && s.ens.Thin() == 1 {
		lines = append(lines, fmt.Sprintf("lag-1 autocorrelation of x in chain 1: %.3f (theory ρ² = %.3f)", s.acf[0][0][1], tg.Rho()*tg.Rho()))
	}
	return append(lines, s.table()...)
}

// Result reports the shared statistics and the largest |log α|.
func (s *gibbsSim) Result() map[string]any {
	res := s.result()
	r, k, _ := s.maxLogRatio()
	res["max_log_alpha"] = jsonNum(r)
	res["ratio_checks"] = k
	return res
}
