package linearsim

import (
	"fmt"
	"math"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/linear"
	"github.com/thelab/lab/algo/stable"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// logits' parameters.
var (
	logitsZ = param.Vector("logits", []float64{2, 1, 0.1, -1},
		"the scores z_1..z_4 (ties at the top split the T → 0 limit evenly)").Range(-1000, 1000)
	logitsTMax   = param.Float("t_max", 100, "highest temperature of the sweep").Range(0, linear.MaxTemperature).OpenMin()
	logitsTMin   = param.Float("t_min", 0.01, "lowest temperature (below t_max)").Range(0, linear.MaxTemperature).OpenMin()
	logitsPoints = param.Int("points", 60,
		"temperatures on the log grid; one step moves to the next, there and back").Range(2, linear.MaxSweepPoints)
)

// Logits is the log-odds, the sigmoid and the softmax with a temperature
// (seed 001 §4, L415–L455): softmax(z/T) of fixed logits z as T sweeps a
// log grid from t_max to t_min and back, its entropy between the limits
// log c (T → ∞) and 0 (T → 0), and σ(t) with the log-odds identity
// log(p/(1 − p)) = t, where the two-class softmax is the sigmoid of the
// logit difference.
var Logits = &sims.Spec{
	Name:   "logits",
	Title:  "Log-odds, sigmoid and softmax with temperature: entropy from log c down to 0",
	Source: "seed 001 §4 (log-odds L423, Def 4.2 L429, eq 4.b L445–L455)",
	Steps:  118,
	Speed:  10,
	Params: param.List(logitsZ, logitsTMax, logitsTMin, logitsPoints),
	New:    newLogits,
	// The engine's grid of temperatures, the curves of a fixed number of
	// points and the Frame's charts (measured).
	Size: func(c sims.Config) int64 { return 8*int64(logitsPoints.Get(c.Values)) + 48<<10 },

	Metrics: logitsMetrics,
}

// The windows of the sigmoid and the log-odds charts.
var (
	sigmoidView = sims.Rect{XMin: -8, XMax: 8, YMin: -0.05, YMax: 1.05}
	oddsView    = sims.Rect{XMin: 32, XMax: 40, YMin: 32, YMax: 40}
)

type logitsSim struct {
	eng       *linear.Temperature
	hot       float64 // log c
	cold      float64 // log m
	ties      int
	entropy   sims.Path // H against log₁₀ T over the whole sweep
	view      sims.Rect
	sigmoid   sims.Path
	stableOdd sims.Path
	naiveOdd  []sims.Path
	names     []string
}

func newLogits(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	z := logitsZ.Get(v)
	eng, err := linear.NewTemperature(z, logitsTMax.Get(v), logitsTMin.Get(v), logitsPoints.Get(v))
	if algo.IsParamError(err, "t_max") && logitsTMax.Get(v) <= logitsTMin.Get(v) {
		return nil, sims.Misordered(v, logitsTMin, logitsTMax, true) // blame the one the user set
	}
	if err != nil {
		return nil, err
	}
	_, _, ties := linear.SoftmaxLimits(z)
	s := &logitsSim{eng: eng, hot: math.Log(float64(len(z))), cold: math.Log(float64(ties)), ties: ties}
	// The entropy curve on a fine grid of the sweep's range.
	const fine = 241
	ts := linear.LogGrid(logitsTMin.Get(v), logitsTMax.Get(v), fine)
	p := make([]float64, len(z))
	s.entropy = sims.Path{X: make([]float64, fine), Y: make([]float64, fine), Class: 0}
	for i, t := range ts {
		s.entropy.X[i] = math.Log10(t)
		s.entropy.Y[i] = linear.EntropyT(p, z, t, linear.SoftmaxT(p, z, t))
	}
	top := s.hot * 1.08
	s.view = sims.Rect{XMin: s.entropy.X[0], XMax: s.entropy.X[fine-1], YMin: -0.05 * top, YMax: top}
	s.sigmoid = curve(sigmoidView, stable.Sigmoid, 0)
	s.stableOdd = curve(oddsView, func(t float64) float64 { return stable.LogOdds(stable.Sigmoid(t), stable.Sigmoid(-t)) }, 0)
	naive := curve(oddsView, func(t float64) float64 { return stable.Logit(stable.Sigmoid(t)) }, 1)
	s.naiveOdd = clipY(naive.X, naive.Y, oddsView, 1)
	for k := range z {
		s.names = append(s.names, fmt.Sprintf("z%d = %.4g", k+1, z[k]))
	}
	return s, nil
}

func (s *logitsSim) Step() error { return s.eng.Step() }

// topPair returns the indices of the largest and second-largest logits.
func topPair(z []float64) (a, b int) {
	a, b = 0, 1
	if z[b] > z[a] {
		a, b = b, a
	}
	for k := 2; k < len(z); k++ {
		switch {
		case z[k] > z[a]:
			a, b = k, a
		case z[k] > z[b]:
			b = k
		}
	}
	return a, b
}

func (s *logitsSim) Frame() sims.Frame {
	e := s.eng
	t, p, z := e.T(), e.P(), e.Logits()
	metrics := []sims.Metric{
		{Name: "T", Value: t},
		{Name: "entropy", Value: e.Entropy()},
		{Name: "max_prob", Value: e.MaxProb()},
		{Name: "logsumexp", Value: e.LSE()},
	}
	bars := make([]sims.Bar, len(p))
	for k := range p {
		bars[k] = sims.Bar{Label: s.names[k], Value: p[k], Class: k}
	}
	a, b := topPair(z)
	tp := (z[a] - z[b]) / t
	charts := []sims.Chart{
		sims.BarChart{Title: fmt.Sprintf("softmax(z/T) at T = %.3g", t), Bars: bars, Max: 1},
		sims.CanvasChart{
			Title: "entropy H against log₁₀ T, ● now", View: s.view,
			Paths: []sims.Path{
				s.entropy,
				{X: []float64{s.view.XMin, s.view.XMax}, Y: []float64{s.hot, s.hot}, Class: 1, Dotted: true},
				{X: []float64{s.view.XMin, s.view.XMax}, Y: []float64{s.cold, s.cold}, Class: 2, Dotted: true},
			},
			Markers: []sims.Marker{{X: math.Log10(t), Y: e.Entropy(), Glyph: '●', Class: 0}},
			Legend:  []string{"H(T)", "log c", "log m"},
			XLabel:  "log₁₀ T", YLabel: "H (nats)",
		},
		sims.CanvasChart{
			Title: fmt.Sprintf("σ(t), ● t = (z%d − z%d)/T", a+1, b+1), View: sigmoidView,
			Paths: []sims.Path{
				s.sigmoid,
				{X: []float64{sigmoidView.XMin, sigmoidView.XMax}, Y: []float64{0.5, 0.5}, Class: 1, Dotted: true},
			},
			Markers: []sims.Marker{{X: math.Max(sigmoidView.XMin, math.Min(sigmoidView.XMax, tp)), Y: stable.Sigmoid(tp), Glyph: '●', Class: 0}},
			Legend:  []string{"σ(t)", "σ = ½"},
			XLabel:  "t", YLabel: "σ",
		},
		sims.CanvasChart{
			Title: fmt.Sprintf("log-odds of σ(t), t %.3g…%.3g", oddsView.XMin, oddsView.XMax), View: oddsView,
			Paths:  append([]sims.Path{s.stableOdd}, s.naiveOdd...),
			Legend: []string{"stable", "naive"},
			XLabel: "t", YLabel: "log-odds",
		},
	}
	return sims.Frame{Sim: Logits.Name, Step: e.Steps(), Metrics: metrics, Charts: charts, Text: s.notes(a, b, tp)}
}

func (s *logitsSim) notes(a, b int, tp float64) []string {
	e := s.eng
	p := e.P()
	limit := "one-hot"
	if s.ties > 1 {
		limit = fmt.Sprintf("%d ties split", s.ties)
	}
	pair := p[a] / (p[a] + p[b])
	if !(p[a]+p[b] > 0) {
		pair = math.NaN()
	}
	return []string{
		fmt.Sprintf("LSE(z/T) = %.4g: the max is shifted out, so nothing overflows", e.LSE()),
		fmt.Sprintf("H = %.4f nats; limits log c = %.4f (T→∞, uniform), %.4g (T→0, %s)", e.Entropy(), s.hot, s.cold, limit),
		fmt.Sprintf("dH/dT = Var_p(z)/T³ = %.3g ≥ 0: the entropy rises with T", e.VarZ()/math.Pow(e.T(), 3)),
		fmt.Sprintf("2 classes: softmax([t,0])₀ = σ(t); p%d/(p%d+p%d) = %.4f = σ(%.4g)", a+1, a+1, b+1, pair, tp),
		"log(p/(1−p)) = t: keep 1−p as σ(−t); naive is +Inf past t ≈ 36.7",
	}
}

func (s *logitsSim) Result() map[string]any {
	e := s.eng
	return map[string]any{
		"T": e.T(), "p": append([]float64(nil), e.P()...), "entropy": e.Entropy(), "logsumexp": e.LSE(),
		"max_prob": e.MaxProb(), "entropy_hot_limit": s.hot, "entropy_cold_limit": s.cold, "steps": e.Steps(),
	}
}
