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

// NUTS is the No-U-Turn Sampler (beyond the notes; see mcmc.NUTS): HMC
// that grows each trajectory by doublings, forwards or backwards in time at
// random, until it turns back on itself, and picks the next state from the
// trajectory's points in the slice; its step size ε is adapted during a
// warm-up by dual averaging so that the mean acceptance statistic is δ.
// The canvas draws chain 1's last tree over the target — forward
// doublings in one colour, backward in another, an abandoned last doubling
// dotted, the start ○ and the next state ◆ — and charts show ε during the
// warm-up (log scale), the tree depth and leapfrog steps of each
// iteration, and the acceptance statistic against δ. One step is one
// iteration of every chain; a few a second, so that each tree can be read.
var NUTS = &sims.Spec{
	Name:   "nuts",
	Title:  "No-U-Turn Sampler: the tree doubles until it turns; ε tuned by dual averaging",
	Source: "beyond the notes: Hoffman & Gelman 2014 (Alg. 3, efficient NUTS with a slice; Alg. 6, dual averaging) on HMC, MH of seed 002 §3.2 with a Hamiltonian proposal",
	Steps:  2000,
	// Slow: each frame is one tree to look at.
	Speed: 5,
	// By 400 iterations (80 s) the warm-up of 200 is over, ε is fixed
	// where the acceptance statistic averages about δ, and the chains
	// agree (TestNUTSAtFamous).
	Famous:  400,
	Params:  param.List(nutsTarget, nutsDelta, nutsWarmup, nutsMaxDepth, nutsStep0, nutsChains),
	New:     newNUTS,
	Size:    nutsChains.size(nutsTarget, nutsBytes),
	Metrics: nutsMetrics,
}

var (
	nutsTarget = newTargetParams(target.KindDonut)
	nutsDelta  = param.Float("delta", mcmc.DefaultDelta,
		"target δ of the mean acceptance statistic: dual averaging tunes ε towards it (higher δ, smaller ε, deeper trees)").Range(0.1, 0.99)
	nutsWarmup = param.Int("warmup", 200,
		"warm-up iterations that adapt ε by dual averaging (γ = 0.05, t₀ = 10, κ = 0.75); then ε = ε̄ is fixed").Range(0, 100000)
	nutsMaxDepth = param.Int("max_depth", mcmc.MaxTreeDepth,
		"largest tree depth: at most 2^max_depth − 1 leapfrog steps an iteration").Range(1, mcmc.MaxTreeDepth)
	nutsStep0 = param.Float("step0", 0,
		"initial step size ε₀ (μ = log 10ε₀); 0: Hoffman & Gelman's heuristic, doubling or halving ε until one leapfrog step's acceptance crosses ½").Range(0, 10)
	nutsChains = newChainParams(nutsTarget, 1, 200)
)

// Classes of the tree over the canvas: after the chains' (proposalClass),
// forward doublings, then backward ones.
func (s *nutsSim) forwardClass() int  { return s.proposalClass() }
func (s *nutsSim) backwardClass() int { return s.proposalClass() + 1 }

type nutsSim struct {
	*chainSim
	warmup int
	delta  float64
	eps    *sims.Trace // chain 1's ε_m and ε̄_m, from step 0
	tree   *sims.Trace // chain 1's depth, leapfrogs and acceptance statistic, from step 1
	// Acceptance statistics of every chain, during and after the warm-up.
	warmSum, postSum float64
	warmN, postN     int
	divergent        int // after the warm-up, every chain
	warmDivergent    int
}

func newNUTS(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	tgt, err := nutsTarget.build(v)
	if err != nil {
		return nil, err
	}
	nc := mcmc.NUTSConfig{Eps0: nutsStep0.Get(v), Delta: nutsDelta.Get(v), Warmup: nutsWarmup.Get(v), MaxDepth: nutsMaxDepth.Get(v)}
	cs, err := newChainSim("nuts", cfg, nutsChains, tgt, 0x6e757473, func(x0 []float64, rng *rand.Rand) (mcmc.Sampler, error) { // "nuts"
		return mcmc.NewNUTS(tgt, x0, nc, rng)
	})
	if err != nil {
		return nil, err
	}
	cs.noArrows, cs.propName = true, "forward"
	s := &nutsSim{chainSim: cs, warmup: nc.Warmup, delta: nc.Delta, eps: sims.NewTrace(0, 2), tree: sims.NewTrace(1, 3)}
	c0 := s.chain(0)
	s.eps.Add(c0.StepSize(), math.NaN())
	return s, nil
}

func (s *nutsSim) chain(c int) *mcmc.NUTS { return s.ens.Chain(c).(*mcmc.NUTS) }

// nutsBytes is what nuts holds besides a chainSim: each chain's tree
// buffers (2^(d+1) − 1 slots of position, momentum, gradient, log p and two
// flags), chain 1's tree in a Frame (paths and, for a 1-D target, its
// line), and the two Traces.
func nutsBytes(v param.Values, nc, d int) int64 {
	slots := int64(1)<<(nutsMaxDepth.Get(v)+1) - 1
	perChain := slots * (8*(3*int64(d)+1) + 2)
	frame := 8 * 3 * slots
	return int64(nc)*perChain + frame + traceBytes(5)
}

// Step makes one iteration of every chain and records chain 1's tree and
// step size, and every chain's acceptance statistic and divergence.
func (s *nutsSim) Step() error {
	if err := s.step(); err != nil {
		return err
	}
	for c := range s.c {
		u := s.chain(c)
		if u.Steps() <= s.warmup {
			s.warmSum += u.AcceptStat()
			s.warmN++
			if u.LastDivergent() {
				s.warmDivergent++
			}
			continue
		}
		s.postSum += u.AcceptStat()
		s.postN++
		if u.LastDivergent() {
			s.divergent++
		}
	}
	c0 := s.chain(0)
	s.eps.Add(c0.StepSize(), c0.AvgStepSize())
	s.tree.Add(float64(c0.TreeDepth()), float64(c0.Leapfrogs()), c0.AcceptStat())
	return nil
}

// meanAccept is the mean acceptance statistic over every chain's
// iterations after the warm-up, or during it while it lasts; false before
// the first iteration.
func (s *nutsSim) meanAccept() (float64, bool) {
	switch {
	case s.postN > 0:
		return s.postSum / float64(s.postN), true
	case s.warmN > 0:
		return s.warmSum / float64(s.warmN), true
	}
	return 0, false
}

// treePaths draws chain 1's tree on a 2-D canvas: each doubling's points,
// joined to the trajectory's end it grew from, forward doublings in one
// class and backward ones in another, an abandoned last doubling dotted.
func (s *nutsSim) treePaths() []sims.Path {
	if s.d < 2 || s.ens.Transitions() == 0 {
		return nil
	}
	tr := s.chain(0).Tree()
	abandoned := tr.End == mcmc.EndSubUTurn || tr.End == mcmc.EndDivergent
	var paths []sims.Path
	for j := 1; j <= len(tr.Forward); j++ {
		fwd := tr.Forward[j-1]
		// The block of doubling j and the point it grew from.
		first, last := -1, -1
		for k, dj := range tr.Doubling {
			if int(dj) == j {
				if first < 0 {
					first = k
				}
				last = k
			}
		}
		if first < 0 {
			continue
		}
		if fwd {
			first--
		} else {
			last++
		}
		p := sims.Path{X: make([]float64, last-first+1), Y: make([]float64, last-first+1), Class: s.backwardClass(),
			Dotted: abandoned && j == len(tr.Forward)}
		if fwd {
			p.Class = s.forwardClass()
		}
		for k := first; k <= last; k++ {
			p.X[k-first], p.Y[k-first] = tr.Q[2*k], tr.Q[2*k+1]
		}
		paths = append(paths, p)
	}
	return paths
}

// treeLine is chain 1's tree on a 1-D target: the position of each point
// against its leapfrog steps from the start (negative: backward in time).
func (s *nutsSim) treeLine() sims.LineChart {
	tr := s.chain(0).Tree()
	ch := sims.LineChart{Title: fmt.Sprintf("chain 1's tree: x along the trajectory (%s)", treeSummary(s.chain(0))),
		XLabel: "leapfrog steps from the start", X0: float64(-tr.Start), X1: float64(tr.Len() - 1 - tr.Start)}
	if s.ens.Transitions() == 0 {
		ch.Title = "chain 1's tree: x along the trajectory"
	}
	ch.Series = []sims.Series{{Name: "x", Y: append([]float64(nil), tr.Q...), Class: 0}}
	return ch
}

// treeSummary is "depth 3, 7 leapfrogs, U-turn".
func treeSummary(u *mcmc.NUTS) string {
	steps := "leapfrogs"
	if u.Leapfrogs() == 1 {
		steps = "leapfrog"
	}
	return fmt.Sprintf("depth %d, %d %s, %s", u.TreeDepth(), u.Leapfrogs(), steps, u.Tree().End)
}

func (s *nutsSim) Frame() sims.Frame {
	s.refresh()
	c0 := s.chain(0)
	depth, leaps, acc := math.NaN(), math.NaN(), math.NaN()
	if s.ens.Transitions() > 0 {
		depth, leaps = float64(c0.TreeDepth()), float64(c0.Leapfrogs())
		acc, _ = s.meanAccept()
	}
	metrics := append(s.metrics(),
		sims.Metric{Name: "ε", Value: c0.StepSize()},
		sims.MetricOr("depth", depth, "no iteration yet"),
		sims.MetricOr("leapfrogs", leaps, "no iteration yet"),
		sims.MetricOr("accept_stat", acc, "no iteration yet"),
		sims.Metric{Name: "divergent", Value: float64(s.divergent)})
	head, tail := s.charts(s.treePaths()...)
	if pic, isCanvas := head[pictureChart].(sims.CanvasChart); isCanvas {
		head[pictureChart] = s.decorate(pic)
	}
	head[2] = s.acceptChart()
	own := []sims.Chart{s.epsChart(), s.depthChart()}
	if s.d == 1 {
		own = append([]sims.Chart{s.treeLine()}, own...)
	}
	charts := append(append(head, own...), tail...)
	return sims.Frame{
		Sim:     "nuts",
		Step:    s.ens.Transitions(),
		Metrics: metrics,
		Charts:  charts,
		Primary: pictureChart,
		Text:    s.notes(),
	}
}

// decorate leaves the tree alone on the canvas (without the chains'
// recent paths: their current states stay), and adds its legend entry for
// backward doublings and the start (○) and next-state (◆) markers of
// chain 1's last tree, in chain 1's colour.
func (s *nutsSim) decorate(pic sims.CanvasChart) sims.CanvasChart {
	if s.ens.Transitions() == 0 {
		return pic
	}
	tr := s.chain(0).Tree()
	pic.Paths = pic.Paths[s.c:] // the tree, not the chains' recent paths
	pic.Title = "chain 1's tree (" + treeSummary(s.chain(0)) + ") over samples (shade), p (lines)"
	if len(pic.Legend) == s.forwardClass()+1 {
		pic.Legend = append(pic.Legend, "backward")
	}
	pic.Markers = append(pic.Markers,
		sims.Marker{X: tr.Q[2*tr.Start], Y: tr.Q[2*tr.Start+1], Glyph: '○', Class: 0},
		sims.Marker{X: tr.Q[2*tr.Chosen], Y: tr.Q[2*tr.Chosen+1], Glyph: '◆', Class: 0})
	return pic
}

// epsChart is chain 1's step size: the iterate ε_m and the average ε̄_m
// during the warm-up, ε̄_M after it.
func (s *nutsSim) epsChart() sims.LineChart {
	x0, x1 := s.eps.Span()
	return sims.LineChart{
		Title: fmt.Sprintf("step size ε, chain 1 (warm-up to %d)", s.warmup),
		Series: []sims.Series{
			{Name: "ε_m", Y: s.eps.Column(0), Class: 0},
			{Name: "ε̄_m averaged", Y: s.eps.Column(1), Class: 1},
		},
		LogY: true, X0: x0, X1: x1, XLabel: "iteration",
	}
}

// depthChart is chain 1's tree depth and leapfrog steps per iteration
// (log scale: the leapfrogs double with each level).
func (s *nutsSim) depthChart() sims.LineChart {
	x0, x1 := s.tree.Span()
	return sims.LineChart{
		Title: "tree depth and leapfrog steps, chain 1",
		Series: []sims.Series{
			{Name: "leapfrogs", Y: s.tree.Column(1), Class: 0},
			{Name: "depth", Y: s.tree.Column(0), Class: 1},
		},
		LogY: true, X0: x0, X1: x1, XLabel: "iteration",
	}
}

// acceptChart is chain 1's acceptance statistic per iteration against δ.
func (s *nutsSim) acceptChart() sims.LineChart {
	x0, x1 := s.tree.Span()
	stat := s.tree.Column(2)
	delta := make([]float64, len(stat))
	for i := range delta {
		delta[i] = s.delta
	}
	return sims.LineChart{
		Title: "acceptance statistic vs δ, chain 1",
		Series: []sims.Series{
			{Name: "statistic", Y: stat, Class: 0},
			{Name: fmt.Sprintf("δ = %g", s.delta), Y: delta, Class: 1, Bound: true},
		},
		X0: x0, X1: x1, XLabel: "iteration", Fraction: true,
	}
}

func (s *nutsSim) notes() []string {
	c0 := s.chain(0)
	n := s.ens.Transitions()
	var lines []string
	switch {
	case n == 0:
		lines = append(lines, fmt.Sprintf("ε₀ = %.3g: each iteration draws a momentum, then doubles a leapfrog trajectory forwards or backwards at random until its ends turn towards each other.", c0.InitialStepSize()))
	case c0.Adapting():
		lines = append(lines, fmt.Sprintf("warm-up %d of %d: dual averaging moves ε (now %.3g) so that the mean acceptance statistic becomes δ = %g.", n, s.warmup, c0.StepSize(), s.delta))
	default:
		lines = append(lines, fmt.Sprintf("ε = %.3g fixed after the warm-up (ε̄ of dual averaging, from ε₀ = %.3g); the chain now has p as its stationary law.", c0.StepSize(), c0.InitialStepSize()),
			"ε̄ averages the iterates, and comes out a little smaller than the last ones: the statistic ends a little above δ, as in Stan.")
	}
	if acc, ok := s.meanAccept(); ok {
		when := "after the warm-up"
		if s.postN == 0 {
			when = "during the warm-up"
		}
		lines = append(lines, fmt.Sprintf("mean acceptance statistic %s: %.3f (δ = %g); mean leapfrog steps per iteration, chain 1: %.1f.", when, acc, s.delta, c0.MeanLeapfrogs()))
	}
	switch {
	case n == 0:
	case s.d == 1:
		lines = append(lines, "the tree: x at each of its points, by leapfrog steps from the start (backward in time to the left of 0); the next state is drawn from the points in the slice.")
	default:
		lines = append(lines, "the tree: forward doublings solid in one colour, backward in the other, an abandoned last doubling dotted; ○ the start, ◆ the next state, drawn from the points in the slice.")
	}
	switch {
	case s.divergent > 0:
		lines = append(lines, fmt.Sprintf("divergent iterations (energy error > %d): %d after the warm-up, %d during it — ε is too large for the curvature somewhere.", mcmc.MaxEnergyError, s.divergent, s.warmDivergent))
	case s.warmDivergent > 0:
		lines = append(lines, fmt.Sprintf("divergent iterations during the warm-up: %d, where a trial ε was too large; dual averaging backed off.", s.warmDivergent))
	}
	if s.ens.BurnIn() < s.warmup {
		lines = append(lines, fmt.Sprintf("burn-in %d < warm-up %d: draws made while ε still moved are in the statistics.", s.ens.BurnIn(), s.warmup))
	}
	lines = append(lines, s.verdict()...)
	if b := s.burnNote(); b != "" {
		lines = append(lines, b)
	}
	lines = append(lines, s.targetNote()...)
	return append(lines, s.table()...)
}

// Result reports the shared statistics and NUTS's own: each chain's step
// size, the mean acceptance statistic after the warm-up (null before),
// the divergences and chain 1's mean leapfrog steps.
func (s *nutsSim) Result() map[string]any {
	res := s.result()
	eps := make([]float64, s.c)
	for c := range eps {
		eps[c] = s.chain(c).StepSize()
	}
	res["eps"] = eps
	res["divergent"] = s.divergent
	res["divergent_warmup"] = s.warmDivergent
	res["mean_leapfrogs"] = s.chain(0).MeanLeapfrogs()
	res["accept_stat"] = nil
	if s.postN > 0 {
		res["accept_stat"] = s.postSum / float64(s.postN)
	} else {
		res["undefined"] = map[string]string{"accept_stat": "the warm-up is not over"}
	}
	return res
}
