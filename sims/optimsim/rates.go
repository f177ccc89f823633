package optimsim

import (
	"fmt"
	"math"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/optim"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// rates' parameters.
var (
	ratesEpsMax = param.Float("eps_max", 0.1, "first ε, relative to each criterion's value at x0").Range(1e-3, 0.5)
	ratesEpsMin = param.Float("eps_min", 0.001,
		"last ε; the non-convex and stochastic counts grow like 1/ε² (~5e5 iterations at 1e-3, ~1e12 at 1e-6: "+
			"those regimes then stay capped, a step at a time)").Range(1e-6, 0.5)
	ratesFactor = param.Float("factor", 1.778279,
		"ε shrinks by this factor per step (default 10^¼: four values per decade)").Range(1.05, 100)
	ratesCap = param.Int("cap", 10000,
		"most iterations per regime (per SGD run) in one step; a capped regime catches up in later steps "+
			"(at most 1e5, so that a step of 32 seeds stays under a second)").Range(100, 100000)
	ratesKappa = param.Float("kappa", 10, "condition number L/m of the strongly convex regime").Range(1.5, 10000)
	ratesSeeds = param.Int("seeds", 8, "number of seeded SGD runs in the stochastic regime").Range(2, 32)
	ratesC     = param.Float("c", 1,
		"SGD step t_k = c/(k+1) (the notes' t = 1/k; c = 1 = 1/m keeps the running mean)").Range(0.55, 4)
)

// Rates is the summary table of seed 001 §8 (L905–L913) made live: the four
// regimes run for real on problems that satisfy their hypotheses, and each
// step tightens ε and records the iterations each needed, against the
// theorem's count, with the fitted log-log slopes beside the table's.
var Rates = &sims.Spec{
	Name:   "rates",
	Title:  "The convergence-rate table: iterations against 1/ε for the four regimes",
	Source: "seed 001 §8 L905–L913 (summary table; Thms 8.5, 8.7, 8.8; SGD L891–L903)",
	Steps:  400,
	Speed:  5,
	Params: param.List(ratesEpsMax, ratesEpsMin, ratesFactor, ratesCap, ratesKappa, ratesSeeds, ratesC),
	New:    newRates,
	// The engine's regimes and runs; the Frame's charts are a few points
	// a value of ε (measured).
	Size: func(c sims.Config) int64 { return optim.RatesBytes(ratesSeeds.Get(c.Values)) + 32<<10 },

	Metrics: ratesMetrics,
}

type ratesSim struct {
	r     *optim.Rates
	steps int
}

func newRates(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	r, err := optim.NewRates(optim.RatesConfig{
		EpsMax: ratesEpsMax.Get(v), EpsMin: ratesEpsMin.Get(v), Factor: ratesFactor.Get(v),
		Cap: ratesCap.Get(v), Kappa: ratesKappa.Get(v), Seeds: ratesSeeds.Get(v), C: ratesC.Get(v),
	}, cfg.Seed)
	if algo.IsParamError(err, "eps_min") && ratesEpsMin.Get(v) > ratesEpsMax.Get(v) {
		return nil, sims.Misordered(v, ratesEpsMin, ratesEpsMax, false) // blame the one the user set
	}
	if err != nil {
		return nil, err
	}
	return &ratesSim{r: r}, nil
}

func (s *ratesSim) Step() error {
	if err := s.r.Step(); err != nil {
		return err
	}
	s.steps++
	return nil
}

// regimes in the table's order, with their short names on the chart.
var rateRegimes = []struct {
	g     optim.Regime
	short string
	thm   string
}{
	{optim.NonConvex, "non-convex", "Thm 8.8"},
	{optim.ConvexRegime, "convex", "Thm 8.5"},
	{optim.StronglyConvex, "strong cvx", "Thm 8.7"},
	{optim.Stochastic, "SGD", "E-count"},
}

// slope is the fitted log-log slope of a regime so far (NaN before two ε).
func (s *ratesSim) slope(g optim.Regime) float64 {
	if g == optim.Stochastic {
		m, _ := s.r.StochSlope()
		return m
	}
	return optim.Slope(s.r.Eps(), s.r.Counts(g))
}

func (s *ratesSim) Frame() sims.Frame {
	r := s.r
	eps := r.Eps()
	// Two charts of two regimes each, paired by order of magnitude so that
	// neither log scale squashes the other pair: the O(1/ε²) regimes, and
	// the O(1/ε) and O(log 1/ε) ones.
	pairs := []struct {
		title string
		rows  [2]int // indices into rateRegimes
	}{
		{"iterations to ε: O(1/ε²) regimes", [2]int{0, 3}},
		{"iterations to ε: O(1/ε), O(log 1/ε)", [2]int{1, 2}},
	}
	charts := make([]sims.Chart, 0, len(pairs))
	for _, p := range pairs {
		var series []sims.Series
		longest := 0
		for _, i := range p.rows {
			rg := rateRegimes[i]
			c := r.Counts(rg.g)
			th := r.Theory(rg.g, max(len(c), r.Level()+1))
			longest = max(longest, len(c), len(th))
			series = append(series,
				sims.Series{Name: rg.short, Y: c, Class: int(rg.g)},
				sims.Series{Name: rg.thm, Y: th, Class: int(rg.g), Bound: true})
		}
		charts = append(charts, sims.LineChart{Title: p.title, Series: series, LogY: true,
			X0: -math.Log10(eps[0]), X1: -math.Log10(eps[max(longest-1, 0)]), XLabel: "log₁₀(1/ε)"})
	}
	lvl := max(r.Level(), 0)
	capped := 0.0
	for _, rg := range rateRegimes {
		if r.Capped(rg.g) {
			capped++
		}
	}
	sm, sse := r.StochSlope()
	return sims.Frame{
		Sim:  Rates.Name,
		Step: s.steps,
		Metrics: []sims.Metric{
			{Name: "eps", Value: eps[lvl]},
			sims.MetricOr("slope_nonconvex", s.slope(optim.NonConvex), tooFewLevels),
			sims.MetricOr("slope_convex", s.slope(optim.ConvexRegime), tooFewLevels),
			sims.MetricOr("per_efold_strong", optim.PerEFold(eps, r.Counts(optim.StronglyConvex)), tooFewLevels),
			sims.MetricOr("slope_sgd", sm, tooFewLevels),
			sims.MetricOr("slope_sgd_se", sse, tooFewLevels),
			{Name: "capped", Value: capped},
		},
		Charts: charts,
		Text:   s.notes(),
	}
}

// fmtCount prints an iteration count compactly.
func fmtCount(x float64) string {
	if x < 1e5 {
		return fmt.Sprintf("%.0f", x)
	}
	return fmt.Sprintf("%.2g", x)
}

func (s *ratesSim) notes() []string {
	r := s.r
	eps := r.Eps()
	lvl := max(r.Level(), 0)
	lines := []string{fmt.Sprintf("ε = %.3g (relative to x0): table's O(·) and slope, fitted slope, k(ε)", eps[lvl])}
	for _, rg := range rateRegimes {
		info := r.Info(rg.g)
		n := r.Reached(rg.g)
		fit := fmt.Sprintf("%.2f", s.slope(rg.g))
		if rg.g == optim.Stochastic {
			m, se := r.StochSlope()
			fit = fmt.Sprintf("%.2f±%.2f", m, se)
		}
		pred := fmt.Sprintf("%g", info.Slope)
		if info.Slope == 0 {
			pred = "→0"
		}
		state := "—"
		if n > 0 {
			c, th := r.Counts(rg.g), r.Theory(rg.g, n)
			switch {
			case rg.g != optim.Stochastic:
				state = fmt.Sprintf("k %s ≤ %s", fmtCount(c[n-1]), fmtCount(th[n-1]))
			case len(th) < n: // the prediction is catching up
				state = fmt.Sprintf("k %s, E > %s", fmtCount(c[n-1]), fmtCount(float64(r.Predicted())))
			default:
				state = fmt.Sprintf("k %s, E %s", fmtCount(c[n-1]), fmtCount(th[n-1]))
			}
		}
		if n <= lvl {
			word := "behind"
			if r.Capped(rg.g) {
				word = "capped"
			}
			state += fmt.Sprintf("; %s k=%s", word, fmtCount(float64(r.Iter(rg.g))))
		}
		lines = append(lines, fmt.Sprintf("%-10s %-7s %-10s %-2s fit %-9s %s", rg.short, info.Criterion, "O("+info.Table+")", pred, fit, state))
	}
	nc, cv, sc, st := r.Info(optim.NonConvex), r.Info(optim.ConvexRegime), r.Info(optim.StronglyConvex), r.Info(optim.Stochastic)
	lines = append(lines,
		fmt.Sprintf("non-convex: GD t = 1/L, L = %g on %s", nc.L, nc.Problem),
		fmt.Sprintf("convex: GD t = 1/L, L = %g, m = 0 on %s", cv.L, cv.Problem),
		fmt.Sprintf("strong: GD t = 2/(m+L) on %s, γ = %.4g (E9): %.2f iterations per e-fold of ε, 1/ln(1/γ) = %.2f",
			sc.Problem, r.Gamma(), optim.PerEFold(eps, r.Counts(optim.StronglyConvex)), 1/math.Log(1/r.Gamma())),
		"SGD: "+st.Problem,
		"SGD: ε on ‖∇f‖ (in f − f* it needs O(1/ε)); the notes give no constant: dotted is the exact",
		"E‖∇f‖² = (εs)² count; solid is the mean over seeds of the random first-passage count",
	)
	return lines
}

// tooFewLevels is why a fitted slope has no value yet.
const tooFewLevels = "fewer than two accuracy levels reached: no slope to fit yet"

func (s *ratesSim) Result() map[string]any {
	r := s.r
	out := map[string]any{"eps": r.Eps()[:max(r.Level()+1, 0)]}
	why := map[string]string{}
	for _, rg := range rateRegimes {
		info := r.Info(rg.g)
		c := r.Counts(rg.g)
		slope := s.slope(rg.g)
		out[info.Name] = map[string]any{
			"counts":          c,
			"theory":          r.Theory(rg.g, len(c)),
			"slope":           slope,
			"predicted_slope": info.Slope,
			"capped":          r.Capped(rg.g),
		}
		if math.IsNaN(slope) {
			why[info.Name+".slope"] = tooFewLevels
		}
	}
	if len(why) > 0 {
		out["undefined"] = why
	}
	return out
}
