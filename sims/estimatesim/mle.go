// Package estimatesim turns algo/estimate into a sim.
package estimatesim

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo/estimate"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// MLE shows maximum likelihood at work (seed 002 §1.4): with mode=stream,
// data arrive one per step and the fit follows them, the estimate
// converging to the truth inside the ±1.96 √(I⁻¹/n) band of asymptotic
// normality, with the likelihood curve beside it (not a density in θ:
// Remark 1.4); with mode=sampling, each step replicates the whole
// experiment of n draws and the histogram of √n(θ̂ − θ) grows against its
// limit N(0, I(θ)⁻¹) (L301).
var MLE = &sims.Spec{
	Name:   "mle",
	Title:  "Maximum likelihood as data arrive, and the MLE's sampling distribution vs N(0, I⁻¹)",
	Source: "seed 002 §1.4 (eqs 1.7–1.11, asymptotic normality L293–307), Ex 4.1",
	Steps:  2000,
	Speed:  10,
	Params: param.List(mleModel, mleMode, mleTheta1, mleTheta2, mleN),
	New:    newMLE,
	Size:   mleSize,

	Metrics: mleMetrics,
}

// mode is what one step of mle does.
type mode string

func (m mode) String() string { return string(m) }

const (
	modeStream   mode = "stream"   // one observation
	modeSampling mode = "sampling" // one replicated experiment
)

// mleModels is the menu of models.
var mleModels = []estimate.Kind{estimate.Gaussian, estimate.Bernoulli, estimate.Exponential, estimate.Regression}

// mle's parameters.
var (
	mleModel = param.Choice("model", mleModels, estimate.Gaussian,
		"N(μ, σ²); Bernoulli(p); Exp(λ); y = a·x + N(0, σ²) with x ~ N(0,1) (Ex 1.4)")
	mleMode = param.Choice("mode", []mode{modeStream, modeSampling}, modeStream,
		"stream: one observation per step; sampling: one replicated experiment of n draws per step")
	mleTheta1 = param.Float("theta1", 1,
		"true first parameter: μ (gaussian), p in (0,1) (bernoulli), λ > 0 (exponential), a (regression)").Range(-100, 100).
		DefaultFunc(func(v param.Values) float64 {
			switch mleModel.Get(v) {
			case estimate.Bernoulli:
				return 0.3
			case estimate.Exponential:
				return 2
			case estimate.Regression:
				return 1.5
			}
			return 1
		}, "μ = 1, p = 0.3, λ = 2, a = 1.5")

	mleTheta2 = param.Float("theta2", 4, "true variance σ² (gaussian, regression)").Range(0, 100).OpenMin().
			DefaultWhen(isRegression, 1, "σ² = 4 (gaussian), 1 (regression); unused otherwise")

	mleN = param.Int("n", 50, "observations per replicated experiment (mode=sampling)").Range(1, 100000)
)

// isRegression holds for the regression model, whose noise variance is 1.
func isRegression(v param.Values) bool { return mleModel.Get(v) == estimate.Regression }

// mleSize is what mle holds at its largest: a Trace (θ̂₁ as data
// arrive, or the two sampling variances) with, in a Frame, copies of
// three columns (a column and its two bands, or the two variances and a
// histogram), a measured base (the curves, the notes), and in stream mode
// the engine's window of recent draws, which a regression's Frame copies
// into its scatter (a histogram otherwise).
//
// A regression is the exception: after 4,096 steps its scatter and Trace
// hold 204 KiB, but after the 4 steps that TestSizeEstimates measures
// only the 71 KiB of the engine's window, which bounds the estimate at
// 1.5×71 + 64 = 170 KiB; it leaves out the bands' two columns (32 KiB),
// the one part of a run's growth that is not data.
func mleSize(c sims.Config) int64 {
	window := int64(2 * 8 * estimate.RecentCap)
	trace := int64(8 * sims.TraceCap)
	switch {
	case mleMode.Get(c.Values) == modeSampling:
		return 2*trace + 3*trace + 16<<10
	case mleModel.Get(c.Values) == estimate.Regression:
		return 2*window + 2*trace + 4<<10
	}
	return window + trace + 3*trace + 20<<10
}

func newMLE(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	m, err := estimate.NewModel(mleModel.Get(v), mleTheta1.Get(v), mleTheta2.Get(v))
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x6d6c652d73696d)) // "mle-sim"
	if mleMode.Get(v) == modeSampling {
		r, err := estimate.NewReplicates(m, mleN.Get(v), 50, rng)
		if err != nil {
			return nil, err
		}
		return &samplingSim{r: r, vars: sims.NewTrace(1, 2)}, nil
	}
	st, err := estimate.NewStream(m, rng)
	if err != nil {
		return nil, err
	}
	return &streamSim{s: st}, nil
}

// ---- stream ----

// traceFrom is the first n whose estimate is drawn: before it the ±1.96
// s.e. band is wider than the picture.
const traceFrom = 10

type streamSim struct {
	s     *estimate.Stream
	est   *sims.Trace // θ̂₁ per step, from the first step with an MLE
	first int
}

func (s *streamSim) Step() error {
	if err := s.s.Step(); err != nil {
		return err
	}
	th, ok := s.s.MLE()
	if !ok || s.s.N() < traceFrom {
		return nil
	}
	if s.est == nil {
		s.first = s.s.N()
		s.est = sims.NewTrace(s.first, 1)
	}
	s.est.Add(th[0])
	return nil
}

// hatNames are the estimates' metric names.
func hatNames(m estimate.Model) []string {
	switch m.Kind {
	case estimate.Gaussian:
		return []string{"μ̂", "σ̂²"}
	case estimate.Bernoulli:
		return []string{"p̂"}
	case estimate.Exponential:
		return []string{"λ̂"}
	}
	return []string{"â", "σ̂²"}
}

func (s *streamSim) Frame() sims.Frame {
	m := s.s.Model()
	th, ok := s.s.MLE()
	st := s.s.Stats()
	metrics := []sims.Metric{{Name: "n", Value: float64(st.N)}}
	for j, name := range hatNames(m) {
		v := m.Theta[j]
		if ok {
			v = th[j]
		}
		metrics = append(metrics, sims.Metric{Name: name, Value: v})
	}
	ll := 0.0
	if ok && st.N > 0 {
		ll = st.LogLik(m.Kind, th) / float64(st.N)
	}
	metrics = append(metrics, sims.Metric{Name: "loglik/n", Value: ll})

	charts := []sims.Chart{s.dataChart(th, ok), s.estimateChart()}
	var lnote string
	if ok {
		lc, logInt := s.likelihoodChart(th)
		charts = append(charts, lc)
		lnote = fmt.Sprintf("∫ L(%s) d%s = e^%.4g ≠ 1: L is not a density in θ (Remark 1.4)",
			m.ParamNames()[0], m.ParamNames()[0], logInt)
	}
	return sims.Frame{Sim: MLE.Name, Step: st.N, Metrics: metrics, Charts: charts, Text: s.notes(th, ok, lnote)}
}

// dataChart draws the data: a histogram with the fitted and the true
// density (gaussian, exponential), frequency bars (bernoulli), or the
// scatter with the fitted and the true line (regression).
func (s *streamSim) dataChart(th [2]float64, ok bool) sims.Chart {
	m := s.s.Model()
	xs, ys := s.s.Recent()
	n := len(ys)
	switch m.Kind {
	case estimate.Bernoulli:
		ones := 0.0
		for _, y := range ys {
			ones += y
		}
		frac := 0.0
		if n > 0 {
			frac = ones / float64(n)
		}
		return sims.BarChart{Title: fmt.Sprintf("share of ones in the last %d draws vs p", n), Max: 1, Bars: []sims.Bar{
			{Label: "true p", Value: m.Theta[0], Class: 1},
			{Label: "sampled", Value: frac, Class: 0},
		}}
	case estimate.Regression:
		view := sims.Rect{XMin: -3.5, XMax: 3.5}
		sd := math.Sqrt(m.Theta[1])
		view.YMin, view.YMax = -3.5*math.Abs(m.Theta[0])-3*sd, 3.5*math.Abs(m.Theta[0])+3*sd
		line := func(a float64, class int, dotted bool) sims.Path {
			return sims.Path{X: []float64{view.XMin, view.XMax}, Y: []float64{a * view.XMin, a * view.XMax}, Class: class, Dotted: dotted}
		}
		paths := []sims.Path{line(m.Theta[0], 1, true)}
		if ok {
			paths = append(paths, line(th[0], 2, false))
		}
		return sims.CanvasChart{
			Title:  fmt.Sprintf("last %d points, fitted line (least squares) and true line", n),
			View:   view,
			Points: []sims.PointSet{{Name: "data", X: append([]float64(nil), xs...), Y: append([]float64(nil), ys...), Class: 0}},
			Paths:  paths, Legend: []string{"data", "truth y = ax", "fit ŷ = âx"},
			XLabel: "x", YLabel: "y",
		}
	}
	lo, hi := histRange(m)
	// About √n bins (5 to 50): with 50 bins for a dozen draws one bin
	// towered over the densities it is drawn beside.
	bins := min(50, max(5, int(math.Sqrt(float64(n)))))
	dens := make([]float64, bins)
	w := (hi - lo) / float64(bins)
	for _, y := range ys {
		if f := (y - lo) / (hi - lo); f >= 0 && f < 1 {
			dens[min(int(f*float64(bins)), bins-1)] += 1 / (float64(n) * w)
		}
	}
	curves := []sims.Curve{densityCurve("truth", m, m.Theta, lo, hi, 1)}
	if ok {
		curves = append(curves, densityCurve("fit", m, th, lo, hi, 2))
	}
	return sims.HistChart{Title: fmt.Sprintf("last %d draws, the fit and the truth", n), Lo: lo, Hi: hi,
		Density: dens, Curves: curves, XLabel: "y", Label: "draws"}
}

func histRange(m estimate.Model) (lo, hi float64) {
	if m.Kind == estimate.Exponential {
		return 0, 5 / m.Theta[0]
	}
	sd := math.Sqrt(m.Theta[1])
	return m.Theta[0] - 4*sd, m.Theta[0] + 4*sd
}

func densityCurve(name string, m estimate.Model, th [2]float64, lo, hi float64, class int) sims.Curve {
	const pts = 161
	c := sims.Curve{Name: name, X: make([]float64, pts), Y: make([]float64, pts), Class: class}
	for i := range pts {
		y := lo + (hi-lo)*float64(i)/(pts-1)
		var st estimate.Stats
		st.Add(0, y)
		c.X[i], c.Y[i] = y, math.Exp(st.LogLik(m.Kind, th))
	}
	return c
}

// estimateChart is θ̂₁ per step against θ₁ ± 1.96 √(I⁻¹/n).
func (s *streamSim) estimateChart() sims.Chart {
	m := s.s.Model()
	lc := sims.LineChart{Title: fmt.Sprintf("%s as data arrive, truth ± 1.96 √(I⁻¹/n)", hatNames(m)[0]), XLabel: "n"}
	if s.est == nil {
		return lc
	}
	sd := math.Sqrt(m.InverseFisher()[0])
	band := func(z float64) func(int) float64 {
		return func(n int) float64 { return m.Theta[0] + z*sd/math.Sqrt(float64(n)) }
	}
	lc.Series = []sims.Series{
		{Name: "estimate", Y: s.est.Column(0), Class: 0},
		{Name: "+1.96 s.e.", Y: s.est.Map(band(1.96)), Class: 1, Bound: true},
		{Name: "−1.96 s.e.", Y: s.est.Map(band(-1.96)), Class: 1, Bound: true},
	}
	lc.X0, lc.X1 = s.est.Span()
	return lc
}

// likelihoodChart draws L(θ₁)/L(θ̂₁) (the other parameter at its MLE) and
// returns log ∫ L(θ₁) dθ₁ over the drawn range, which holds all of its
// mass.
func (s *streamSim) likelihoodChart(th [2]float64) (sims.Chart, float64) {
	m := s.s.Model()
	st := s.s.Stats()
	name := m.ParamNames()[0]
	var lo, hi float64
	switch m.Kind {
	case estimate.Bernoulli:
		lo, hi = 0, 1
	default:
		// ±6 standard errors of θ̂₁ about it: the inverse Fisher
		// information at the estimate over n (for regression the observed
		// information, Σx² in place of n·E[x²]) — σ̂/√n, λ̂/√n, σ̂/√Σx².
		n := float64(st.N)
		if m.Kind == estimate.Regression {
			n = st.Sxx
		}
		sd := math.Sqrt(estimate.Model{Kind: m.Kind, Theta: th}.InverseFisher()[0] / n)
		lo, hi = th[0]-6*sd, th[0]+6*sd
		if m.Kind == estimate.Exponential {
			lo = math.Max(lo, 0)
		}
	}
	const pts = 201
	top := st.LogLik(m.Kind, th)
	y := make([]float64, pts)
	integral := 0.0
	h := (hi - lo) / (pts - 1)
	for i := range y {
		p := th
		p[0] = lo + h*float64(i)
		y[i] = math.Exp(st.LogLik(m.Kind, p) - top)
		wt := 1.0
		if i == 0 || i == pts-1 {
			wt = 0.5
		}
		integral += wt * y[i] * h
	}
	return sims.LineChart{
		Title:  fmt.Sprintf("likelihood L(%s)/L(%s), other parameters at the MLE", name, hatNames(m)[0]),
		Series: []sims.Series{{Name: "L/L_max", Y: y, Class: 2}},
		X0:     lo, X1: hi, XLabel: name,
		Fraction: true, // L/L_max ≤ 1
	}, top + math.Log(integral)
}

func (s *streamSim) notes(th [2]float64, ok bool, lnote string) []string {
	m := s.s.Model()
	var lines []string
	switch m.Kind {
	case estimate.Gaussian:
		lines = append(lines, "μ̂ = ȳ, σ̂² = (1/n)Σ(y − ȳ)² (Ex 4.1: 1/n); I⁻¹ = diag(σ², 2σ⁴)")
	case estimate.Bernoulli:
		lines = append(lines, "p̂ = share of ones; I(p)⁻¹ = p(1 − p).")
	case estimate.Exponential:
		lines = append(lines, "λ̂ = 1/ȳ; I(λ)⁻¹ = λ².")
	case estimate.Regression:
		lines = append(lines, "â = Σxy/Σx²: maximising (1.11) is least squares (Remark 1.6)")
	}
	if !ok {
		return append(lines, "waiting for data: the MLE does not exist yet")
	}
	lines = append(lines, fmt.Sprintf("%s = %.4g → %g: inside ±1.96 √(I⁻¹/n) 95%% of the time",
		hatNames(m)[0], th[0], m.Theta[0]))
	return append(lines, lnote)
}

func (s *streamSim) Result() map[string]any {
	th, ok := s.s.MLE()
	m := s.s.Model()
	res := map[string]any{"n": s.s.N(), "truth": m.Theta[:m.NumParams()], "mle": nil}
	if ok {
		res["mle"] = th[:m.NumParams()]
	}
	return res
}

// ---- sampling ----

type samplingSim struct {
	r    *estimate.Replicates
	vars *sims.Trace // running variance of z_j
}

func (s *samplingSim) Step() error {
	if err := s.r.Step(); err != nil {
		return err
	}
	_, v0, _ := s.r.Moments(0)
	_, v1, _ := s.r.Moments(1)
	s.vars.Add(v0, v1)
	return nil
}

func (s *samplingSim) Frame() sims.Frame {
	m := s.r.Model()
	reps, _ := s.r.Replicates()
	inv := m.InverseFisher()
	mean, v, in95 := s.r.Moments(0)
	metrics := []sims.Metric{
		{Name: "replicates", Value: float64(reps)},
		{Name: "mean z", Value: mean},
		{Name: "var z", Value: v},
		{Name: "I⁻¹", Value: inv[0]},
		{Name: "in ±1.96sd", Value: in95},
	}
	n := s.r.N()
	var charts []sims.Chart
	hats := hatNames(m)
	for j, name := range m.ParamNames() {
		lo, hi := s.r.Range(j)
		charts = append(charts, sims.HistChart{
			Title: fmt.Sprintf("√n(%s − %s), n = %d, vs N(0, I⁻¹ = %.3g)", hats[j], name, n, inv[j]),
			Lo:    lo, Hi: hi, Density: s.r.Density(j, nil),
			Curves: []sims.Curve{normalCurve(lo, hi, s.r.AsymptoticSD(j))},
			XLabel: "z", Label: "replicate MLEs",
		})
	}
	x0, x1 := s.vars.Span()
	series := []sims.Series{
		{Name: "var √n(" + hats[0] + "−" + m.ParamNames()[0] + ")", Y: s.vars.Column(0), Class: 0},
		{Name: "I⁻¹", Y: s.vars.Map(func(int) float64 { return inv[0] }), Class: 1, Bound: true},
	}
	charts = append(charts, sims.LineChart{Title: "sample variance of the replicates vs I(θ)⁻¹",
		Series: series, X0: x0, X1: x1, XLabel: "replicates"})
	_, fails := s.r.Replicates()
	lines := []string{
		"√n(θ̂ − θ) → N(0, I(θ)⁻¹); each step replicates the experiment",
		fmt.Sprintf("%s: mean %.3g (→ 0), var %.4g (→ I⁻¹ = %.4g), %.1f%% in ±1.96 sd (→ 95%%)",
			m.ParamNames()[0], mean, v, inv[0], 100*in95),
	}
	switch m.Kind {
	case estimate.Exponential:
		lines = append(lines, "small n: λ̂ = 1/ȳ is skewed and biased (E λ̂ = nλ/(n − 1)); raise n")
	case estimate.Gaussian, estimate.Regression:
		lines = append(lines, "σ̂² (1/n) is biased by −σ²/n: its z centres at −σ²/√n → 0")
	}
	if fails > 0 {
		lines = append(lines, fmt.Sprintf("%d replicates had no MLE (p̂ = 0 or 1) and were skipped", fails))
	}
	return sims.Frame{Sim: MLE.Name, Step: reps + fails, Metrics: metrics, Charts: charts, Text: lines}
}

func normalCurve(lo, hi, sd float64) sims.Curve {
	const pts = 161
	c := sims.Curve{Name: "N(0, I⁻¹)", X: make([]float64, pts), Y: make([]float64, pts), Class: 1}
	for i := range pts {
		z := lo + (hi-lo)*float64(i)/(pts-1)
		c.X[i], c.Y[i] = z, math.Exp(-z*z/(2*sd*sd))/(sd*math.Sqrt(2*math.Pi))
	}
	return c
}

func (s *samplingSim) Result() map[string]any {
	m := s.r.Model()
	reps, fails := s.r.Replicates()
	means, vars := make([]float64, m.NumParams()), make([]float64, m.NumParams())
	for j := range means {
		means[j], vars[j], _ = s.r.Moments(j)
	}
	inv := m.InverseFisher()
	return map[string]any{
		"replicates": reps, "failed": fails, "n": s.r.N(),
		"z_mean": means, "z_var": vars, "inverse_fisher": inv[:m.NumParams()],
	}
}
