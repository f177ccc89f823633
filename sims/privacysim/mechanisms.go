package privacysim

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo/privacy"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// Mechanisms shows the Laplace and Gaussian mechanisms on neighbouring
// datasets (seed 001 §19, Definition 19.1, L1627–L1687, catalogue
// [A38]): one release per step, its draws filling a histogram under the
// densities of M(D) and M(D′) and the e^ε·p_D′ envelope; the hypothesis-
// test region of (ε, δ)-DP with the mechanism's best tests inside it;
// the Rényi divergence against α in closed form and by Monte Carlo over
// the draws (0.375 at α = 3 for N(1, 2²) against N(0, 2²)); and the budget
// of the releases so far under sequential composition, by RDP against
// the basic k·ε, up to the budget, where the run stops.
var Mechanisms = &sims.Spec{
	Name:   "dp-mechanisms",
	Title:  "Laplace and Gaussian mechanisms: e^ε envelope, test region, Rényi divergence, a composing budget",
	Source: "seed 001 §19 (Def 19.1, L1656–L1660, Def 19.3, Prop 19.4, Example 19.5; L1627–L1687)",
	Steps:  100,
	Speed:  1,
	Params: param.List(mechKind, mechSens, mechEps, mechSigma, mechAlpha, mechDelta, mechDraws, mechBudget),
	New:    newMechanisms,
	Size:   func(sims.Config) int64 { return mechBytes },

	Metrics: mechanismsMetrics,
}

// mechBytes is a dp-mechanisms sim whatever its parameters (the draws are
// streamed into the histogram and the estimators, not kept): the two
// traces of ε, full, and the Frame's copies of them and of the budget
// line, and the curves.
var mechBytes = 24<<10 + 2*sims.TraceBytes(1) + 8*sims.TraceCap

var (
	mechKind = param.Choice("mech", []privacy.Kind{privacy.Gaussian, privacy.Laplace}, privacy.Gaussian,
		"gaussian: f(D) + N(0, σ²), (α, αΔ²/(2σ²))-RDP (Example 19.5); laplace: f(D) + Lap(Δ/ε), (ε, 0)-DP")
	mechSens   = param.Float("sens", 1, "sensitivity Δ = |f(D) − f(D′)|: the neighbours' query values are Δ (D) and 0 (D′)").Range(0.01, 10)
	mechEps    = param.Float("eps", 1, "Laplace: the privacy level ε of one release, b = Δ/ε").Range(0.01, 10)
	mechSigma  = param.Float("sigma", 2, "Gaussian: the noise's standard deviation σ").Range(0.05, 50)
	mechAlpha  = param.Float("alpha", 3, "the Rényi order α of the Monte Carlo readout").Range(1.01, 32)
	mechDelta  = param.Float("delta", 1e-5, "δ of the (ε, δ) conversions").Range(1e-12, 0.1)
	mechDraws  = param.Int("draws", 4000, "draws of M(D) per release (the Monte Carlo sample)").Range(10, 200000)
	mechBudget = param.Float("budget", 20, "the total ε(δ) allowed: releases stop when the next would exceed it (20: about 40 releases, 40 s at the pane's speed)").Range(0.01, 1000)
)

// mechAlphas is the grid of orders of the Rényi chart: 1.25, 1.5, …, 8.
var mechAlphas = func() []float64 {
	a := make([]float64, 28)
	for i := range a {
		a[i] = 1.25 + 0.25*float64(i)
	}
	return a
}()

// mechBins is the histogram's bins.
const mechBins = 60

type mechSim struct {
	m                 *privacy.Mechanism
	rng               *rand.Rand
	alpha, delta      float64
	draws             int
	budget            float64
	eps1              float64             // one release's ε at δ
	one               *privacy.Accountant // the RDP of one release
	k                 int
	mc                *privacy.RenyiEstimator
	grid              []*privacy.RenyiEstimator
	lo, hi            float64
	counts            []float64
	total             int
	rdpTrace, naive   *sims.Trace
	spent, stoppedFor float64 // ε so far; the ε the refused release would have reached
}

func newMechanisms(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	kind, sens := mechKind.Get(v), mechSens.Get(v)
	scale := mechSigma.Get(v)
	if kind == privacy.Laplace {
		scale = sens / mechEps.Get(v)
	}
	m, err := privacy.NewMechanism(kind, sens, scale)
	if err != nil {
		return nil, err
	}
	s := &mechSim{m: m, rng: streamRNG(cfg.Seed, mechStream), alpha: mechAlpha.Get(v), delta: mechDelta.Get(v),
		draws: mechDraws.Get(v), budget: mechBudget.Get(v),
		counts: make([]float64, mechBins), rdpTrace: sims.NewTrace(0, 1), naive: sims.NewTrace(0, 1)}
	s.one = privacy.NewAccountant()
	s.one.Compose(m.Renyi)
	s.eps1 = m.PureEpsilon()
	if kind == privacy.Gaussian {
		s.eps1, _ = s.one.Epsilon(s.delta)
	}
	if s.eps1 > s.budget {
		return nil, fmt.Errorf("parameter budget = %g: unreachable, one release already spends ε = %.3g at δ = %g; "+
			"raise the budget or the noise (sigma, or a smaller eps)", s.budget, s.eps1, s.delta)
	}
	if s.mc, err = privacy.NewRenyiEstimator(s.alpha); err != nil {
		return nil, err
	}
	for _, a := range mechAlphas {
		e, _ := privacy.NewRenyiEstimator(a)
		s.grid = append(s.grid, e)
	}
	w := 4 * scale
	if kind == privacy.Laplace {
		w = 6 * scale
	}
	s.lo, s.hi = -w, sens+w
	s.rdpTrace.Add(0)
	s.naive.Add(0)
	return s, nil
}

// Step releases M(D) once: draws of it feed the histogram and the Monte
// Carlo divergences, and the release is composed into the budget; a
// release that would exceed the budget is refused and ends the run.
func (s *mechSim) Step() error {
	nextEps := s.epsAfter(s.k + 1)
	if nextEps > s.budget {
		s.stoppedFor = nextEps
		return fmt.Errorf("budget ε = %g spent: release %d would reach ε = %.4g: %w", s.budget, s.k+1, nextEps, sims.ErrConverged)
	}
	s.k++
	s.spent = nextEps
	for range s.draws {
		x := s.m.Sample(s.rng, s.m.Delta)
		l := s.m.LogRatio(x)
		s.mc.Add(l)
		for _, e := range s.grid {
			e.Add(l)
		}
		if b := int((x - s.lo) / (s.hi - s.lo) * mechBins); b >= 0 && b < mechBins {
			s.counts[b]++
		}
		s.total++
	}
	s.rdpTrace.Add(s.spent)
	s.naive.Add(float64(s.k) * s.eps1)
	return nil
}

// epsAfter is ε(δ) after k releases: pure composition kε for Laplace
// when that is smaller than the RDP bound, else the RDP accountant.
func (s *mechSim) epsAfter(k int) float64 {
	e, _ := s.one.Repeated(k, s.delta)
	if s.m.Kind == privacy.Laplace {
		e = math.Min(e, float64(k)*s.eps1)
	}
	return e
}

func (s *mechSim) Frame() sims.Frame {
	return sims.Frame{Sim: Mechanisms.Name, Step: s.k, Metrics: s.metrics(),
		Charts: []sims.Chart{s.densities(), s.testRegion(), s.renyi(), s.budgetChart()}, Text: s.notes()}
}

// mcMetric is the Monte Carlo estimate of the divergence, undefined
// before the first draw.
func (s *mechSim) mcMetric(mc float64) sims.Metric {
	if s.mc.N() == 0 {
		return sims.Metric{Name: "MC", Undefined: "no draw yet"}
	}
	return sims.MetricOr("MC", mc, "the Monte Carlo average is not finite (a draw's ratio overflowed)")
}

func (s *mechSim) metrics() []sims.Metric {
	mc := s.mc.Value()
	return []sims.Metric{
		{Name: "releases", Value: float64(s.k)},
		{Name: mRenyi.Name, Value: s.m.Renyi(s.alpha)},
		s.mcMetric(mc),
		{Name: "ε one", Value: s.eps1},
		{Name: "ε RDP", Value: s.spent},
		{Name: "ε k·ε", Value: float64(s.k) * s.eps1},
	}
}

func (s *mechSim) densities() sims.Chart {
	dens := make([]float64, mechBins)
	width := (s.hi - s.lo) / mechBins
	for i, c := range s.counts {
		if s.total > 0 {
			dens[i] = c / (float64(s.total) * width)
		}
	}
	const n = 160
	x := make([]float64, n)
	pd, pd0, env := make([]float64, n), make([]float64, n), make([]float64, n)
	top := 1.4 * s.m.Density(s.m.Delta, s.m.Delta) // the envelope is cut here: e^ε can be large
	for i := range x {
		x[i] = s.lo + (s.hi-s.lo)*float64(i)/(n-1)
		pd[i] = s.m.Density(x[i], s.m.Delta)
		pd0[i] = s.m.Density(x[i], 0)
		env[i] = math.Min(top, math.Exp(s.eps1)*pd0[i])
	}
	return sims.HistChart{Title: fmt.Sprintf("draws of M(D) under p_D, p_D′ and e^ε·p_D′ (ε = %.3g)", s.eps1),
		Lo: s.lo, Hi: s.hi, Density: dens, XLabel: "output", Label: "M(D) draws",
		Curves: []sims.Curve{{Name: "p_D", X: x, Y: pd, Class: 0}, {Name: "p_D′", X: x, Y: pd0, Class: 1},
			{Name: "e^ε p_D′", X: x, Y: env, Class: 3}}}
}

// testRegion is the (FPR, TPR) region a test may reach against an (ε,
// δ)-DP mechanism (both inequalities; the notes swap FPR and TPR, E30),
// with this mechanism's best tests as a curve.
func (s *mechSim) testRegion() sims.Chart {
	delta := 0.0
	if s.m.Kind == privacy.Gaussian {
		delta = s.delta
	}
	const n = 101
	f := make([]float64, n)
	lo, hi, roc := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range f {
		f[i] = float64(i) / (n - 1)
		hi[i] = privacy.DPPowerBound(s.eps1, delta, f[i])
		lo[i] = 1 - privacy.DPPowerBound(s.eps1, delta, 1-f[i])
		roc[i] = s.m.Power(f[i])
	}
	c := sims.CanvasChart{Title: fmt.Sprintf("tests of D against D′: the (%.3g, %.2g)-DP region", s.eps1, delta),
		XLabel: "FPR", YLabel: "TPR", View: sims.Rect{XMin: 0, XMax: 1, YMin: 0, YMax: 1},
		Bands:  []sims.Band{{X: f, Lo: lo, Hi: hi, Class: 2}},
		Paths:  []sims.Path{{X: f, Y: roc, Class: 0}, {X: []float64{0, 1}, Y: []float64{0, 1}, Class: 1, Dotted: true}},
		Legend: []string{"best tests", "guessing", "allowed"}}
	if s.eps1 >= math.Log(3) {
		c.Markers = []sims.Marker{{X: 0.25, Y: 0.75, Glyph: '◆', Class: 3}}
		c.Legend = append(c.Legend, "rand. response")
	}
	return c
}

func (s *mechSim) renyi() sims.Chart {
	exact := make([]float64, len(mechAlphas))
	mc := make([]float64, len(mechAlphas))
	for i, a := range mechAlphas {
		exact[i] = s.m.Renyi(a)
		mc[i] = sims.FiniteOr(s.grid[i].Value(), 0)
	}
	series := []sims.Series{{Name: "closed form", Y: exact, Class: 0}}
	if s.total > 0 {
		series = append(series, sims.Series{Name: "Monte Carlo", Y: mc, Class: 3})
	}
	return sims.LineChart{Title: "Rényi divergence D_α(M(D)‖M(D′))", Series: series,
		X0: mechAlphas[0], X1: mechAlphas[len(mechAlphas)-1], XLabel: "α"}
}

func (s *mechSim) budgetChart() sims.Chart {
	x0, x1 := s.rdpTrace.Span()
	rdp := s.rdpTrace.Column(0)
	return sims.LineChart{Title: fmt.Sprintf("ε(δ) spent by k releases, budget %g", s.budget), X0: x0, X1: x1, XLabel: "release",
		Series: []sims.Series{
			{Name: "RDP composition", Y: rdp, Class: 0},
			{Name: "k·ε (basic)", Y: s.naive.Column(0), Class: 3},
			{Name: "budget", Y: s.rdpTrace.Map(func(int) float64 { return s.budget }), Class: 1, Bound: true},
		}}
}

func (s *mechSim) notes() []string {
	var lines []string
	if s.m.Kind == privacy.Gaussian {
		lines = append(lines, fmt.Sprintf("Gaussian σ = %.3g, Δ = %.3g: D_α = αΔ²/(2σ²) (Example 19.5)",
			s.m.Scale, s.m.Delta))
	} else {
		lines = append(lines, fmt.Sprintf("Laplace b = Δ/ε = %.3g: log p_D/p_D′ ≤ Δ/b = %.3g everywhere, (ε, 0)-DP", s.m.Scale, s.eps1))
	}
	lines = append(lines,
		s.mcNote(),
		"RDP adds over releases (Prop 19.4(3)); ε(δ) = min_α RDP + log(1/δ)/(α − 1)")
	if s.stoppedFor > 0 {
		lines = append(lines, fmt.Sprintf("budget spent: release %d would reach ε = %.4g > %g", s.k+1, s.stoppedFor, s.budget))
	}
	return lines
}

// mcNote compares the exact divergence with its Monte Carlo estimate.
func (s *mechSim) mcNote() string {
	exact := fmt.Sprintf("D_%.3g = %.4g exact", s.alpha, s.m.Renyi(s.alpha))
	if s.mc.N() == 0 {
		return exact + ", no Monte Carlo draw yet"
	}
	return fmt.Sprintf("%s, %.4g by Monte Carlo over %d draws", exact, sims.FiniteOr(s.mc.Value(), 0), s.mc.N())
}

func (s *mechSim) Result() map[string]any {
	r := map[string]any{
		"releases": s.k, "renyi_exact": s.m.Renyi(s.alpha), "renyi_mc": s.mc.Value(),
		"epsilon_one": s.eps1, "epsilon_rdp": s.spent, "epsilon_basic": float64(s.k) * s.eps1, "draws": s.mc.N(),
	}
	if s.mc.N() == 0 {
		r["renyi_mc"] = math.NaN()
		r["undefined"] = map[string]string{"renyi_mc": "no Monte Carlo draw yet"}
	}
	return r
}
