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

// AdaptiveMH is the adaptive Metropolis algorithm of Haario, Saksman &
// Tamminen (2001; see mcmc.Adaptive): random-walk Metropolis whose
// proposal covariance becomes 2.38²/d times the covariance of the chain's
// own history after t₀ steps. The canvas draws chain 1's proposal as its
// 1σ ellipse about the current state, growing from the small circle it
// starts as into the target's shape, beside the dotted ellipse of the
// optimal 2.38²/d Σ; a chart shows the proposal's distance to it falling.
//
// A sim of its own rather than a mode of mh: the adaptation replaces mh's
// step and independence proposal (neither means anything once the
// covariance is learnt), and adds its own picture, chart and metrics.
var AdaptiveMH = &sims.Spec{
	Name:   "adaptive-mh",
	Title:  "Adaptive Metropolis: the proposal learns the target's covariance from the chain's history",
	Source: "beyond the notes: Haario, Saksman & Tamminen 2001 on MH (seed 002 §3.2, eq 3.2, Remark 3.4)",
	Steps:  20000,
	// Slow enough to watch the ellipse grow and turn (mh's speed); by
	// Famous (60 s) chain 1's proposal is within 10–15% of 2.38²/d Σ
	// (‖C/s_d − Σ‖/‖Σ‖ = 0.084 at seed 1, 0.144 at seed 2).
	Speed:  100,
	Famous: 6000,
	Params: param.List(amTarget, amStep, amT0, amEps, amChains),
	New:    newAdaptiveMH,
	Size:   amChains.size(amTarget, amBytes),

	Metrics: adaptiveMetrics,
}

var (
	amTarget = newTargetParams(target.KindCorrelated)
	amStep   = param.Float("step", 0.1, "scale s₀ of the first proposal N(x, s₀² I), before the adaptation").Range(0, 20).OpenMin()
	amT0     = param.Int("t0", 100, "steps with the first proposal before the adaptation starts").Range(1, 100000)
	amEps    = param.Float("eps", 1e-4, "ε of C = 2.38²/d (Cov(history) + ε I), which keeps C positive definite").Range(0, 1)
	amChains = newChainParams(amTarget, 1, 1000)
)

// Sizes of what adaptive-mh draws.
const ellipsePoints = 65 // points of a drawn ellipse (closed)

// amBytes is what adaptive-mh holds besides a chainSim: each chain's
// engine beyond samplerBytes, the proposal error Trace and the two
// ellipses of a Frame.
func amBytes(_ param.Values, nc, d int) int64 {
	return int64(nc)*mcmc.AdaptiveBytes(d) + traceBytes(1) + 2*2*8*ellipsePoints
}

type amSim struct {
	*chainSim
	s0    float64
	t0    int
	eps   float64
	sigma [][]float64 // the target's covariance
	err   *sims.Trace // ‖C/s_d − Σ‖_F/‖Σ‖_F of chain 1
}

func newAdaptiveMH(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	tgt, err := amTarget.build(v)
	if err != nil {
		return nil, err
	}
	ac := mcmc.AdaptiveConfig{Step: amStep.Get(v), T0: amT0.Get(v), Eps: amEps.Get(v)}
	cs, err := newChainSim("adaptive-mh", cfg, amChains, tgt, 0x616d2d73696d, func(x0 []float64, rng *rand.Rand) (mcmc.Sampler, error) { // "am-sim"
		return mcmc.NewAdaptive(tgt, x0, ac, rng)
	})
	if err != nil {
		return nil, err
	}
	s := &amSim{chainSim: cs, s0: ac.Step, t0: ac.T0, eps: ac.Eps, sigma: tgt.Cov(), err: sims.NewTrace(0, 1)}
	s.err.Add(s.propErr())
	return s, nil
}

func (s *amSim) chain(c int) *mcmc.Adaptive { return s.ens.Chain(c).(*mcmc.Adaptive) }

func (s *amSim) Step() error {
	if err := s.step(); err != nil {
		return err
	}
	s.err.Add(s.propErr())
	return nil
}

// propErr is chain 1's ‖C/s_d − Σ‖_F/‖Σ‖_F: how far its proposal is from
// the optimal 2.38²/d Σ.
func (s *amSim) propErr() float64 {
	a := s.chain(0)
	num, den := 0.0, 0.0
	for i := range s.d {
		for j := range s.d {
			e := a.ProposalCov(i, j)/a.Scale() - s.sigma[i][j]
			num += e * e
			den += s.sigma[i][j] * s.sigma[i][j]
		}
	}
	return math.Sqrt(num / den)
}

// ellipse is the 1σ ellipse {c + L(cos θ, sin θ)} of a 2×2 covariance
// [[a, b], [b, d]] about c, L its Cholesky factor.
func ellipse(cx, cy, a, b, d float64, class int, dotted bool) sims.Path {
	l11 := math.Sqrt(math.Max(a, 0))
	l21, l22 := 0.0, 0.0
	if l11 > 0 {
		l21 = b / l11
		l22 = math.Sqrt(math.Max(d-l21*l21, 0))
	}
	p := sims.Path{X: make([]float64, ellipsePoints), Y: make([]float64, ellipsePoints), Class: class, Dotted: dotted}
	for k := range ellipsePoints {
		th := 2 * math.Pi * float64(k) / (ellipsePoints - 1)
		u, w := math.Cos(th), math.Sin(th)
		p.X[k], p.Y[k] = cx+l11*u, cy+l21*u+l22*w
	}
	return p
}

// ellipses are chain 1's proposal (its 1σ ellipse about the current state)
// and, dotted, the optimal 2.38²/d Σ about the same point.
func (s *amSim) ellipses() []sims.Path {
	if s.d < 2 {
		return nil
	}
	a, x := s.chain(0), s.chain(0).X()
	sd, pc := a.Scale(), s.proposalClass()
	return []sims.Path{
		ellipse(x[0], x[1], a.ProposalCov(0, 0), a.ProposalCov(0, 1), a.ProposalCov(1, 1), pc, false),
		ellipse(x[0], x[1], sd*s.sigma[0][0], sd*s.sigma[0][1], sd*s.sigma[1][1], pc+1, true),
	}
}

func (s *amSim) Frame() sims.Frame {
	s.refresh()
	a := s.chain(0)
	metrics := append(s.metrics(), sims.Metric{Name: "prop_err", Value: s.propErr()})
	if s.d == 2 {
		metrics = append(metrics, sims.Metric{Name: "prop_corr",
			Value: a.ProposalCov(0, 1) / math.Sqrt(a.ProposalCov(0, 0)*a.ProposalCov(1, 1))})
	}
	head, tail := s.charts(s.ellipses()...)
	if cv, ok := head[pictureChart].(sims.CanvasChart); ok {
		cv.Legend = append(cv.Legend, "2.38²/d Σ")
		head[pictureChart] = cv
	}
	e0, e1 := s.err.Span()
	errChart := sims.LineChart{
		Title:  "chain 1's proposal vs 2.38²/d Σ: ‖C/s_d − Σ‖/‖Σ‖",
		Series: []sims.Series{{Name: "relative error", Y: s.err.Column(0), Class: 0}},
		LogY:   true, X0: e0, X1: e1, XLabel: "step",
	}
	return sims.Frame{
		Sim:     "adaptive-mh",
		Step:    s.ens.Transitions(),
		Metrics: metrics,
		Charts:  append(append(head, errChart), tail...),
		Primary: pictureChart,
		Text:    s.notes(),
	}
}

// optimalAcc is the stationary acceptance rate of the optimally scaled
// random walk on a Gaussian (see mcmc.Adaptive), by dimension.
var optimalAcc = map[int]string{1: "0.44", 2: "0.36"}

func (s *amSim) notes() []string {
	a := s.chain(0)
	n := s.ens.Transitions()
	var lines []string
	if a.Adapting() {
		lines = append(lines, fmt.Sprintf("proposal N(x, C), C = 2.38²/%d (Cov(history) + εI): %.2g from 2.38²/%d Σ · acceptance %.3f (optimal %s on a Gaussian).",
			s.d, s.propErr(), s.d, s.ens.AcceptanceAll(), optimalAcc[s.d]))
	} else {
		lines = append(lines, fmt.Sprintf("proposal N(x, s₀²I), s₀ = %g, until t₀ = %d: then C = 2.38²/d (Cov(history) + εI).", s.s0, s.t0))
	}
	lines = append(lines, s.verdict()...)
	if b := s.burnNote(); b != "" {
		lines = append(lines, b)
	}
	if s.d == 2 && n > 0 {
		lines = append(lines, "ellipses: chain 1's proposal (1σ, solid) and the optimal 2.38²/d Σ (dotted) about its state.")
	}
	lines = append(lines, s.targetNote()...)
	lines = append(lines, s.table()...)
	if an := s.arrowNote(); an != "" && n > 0 {
		lines = append(lines, an)
	}
	return lines
}

// Result reports the shared statistics, chain 1's proposal covariance and
// its distance to the optimal one.
func (s *amSim) Result() map[string]any {
	res := s.result()
	a := s.chain(0)
	c := make([][]float64, s.d)
	for i := range c {
		c[i] = make([]float64, s.d)
		for j := range c[i] {
			c[i][j] = a.ProposalCov(i, j)
		}
	}
	res["proposal_cov"] = c
	res["scale"] = a.Scale()
	res["prop_err"] = s.propErr()
	return res
}
