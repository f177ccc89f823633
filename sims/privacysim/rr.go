package privacysim

import (
	"fmt"
	"math"

	"github.com/thelab/lab/algo/privacy"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// RandomizedResponse is the coin-flip survey of Example 19.2 (seed 001
// L1640–L1654, catalogue [A37]): one respondent per step, the unbiased
// estimate p̂ = 2(p̂′ − ¼) converging to the true share inside its ±2σ band
// shrinking like 1/√n, the conditional answer rates tending to ¾ and ¼
// (likelihood ratio 3, ε = ln 3).
var RandomizedResponse = &sims.Spec{
	Name:   "randomized-response",
	Title:  "Randomized response: the coin-flip survey, its unbiased estimate and ε = ln 3",
	Source: "seed 001 §19 (Example 19.2, L1640–L1654)",
	Steps:  5000,
	Speed:  30,
	Params: param.List(rrP, rrHonest),
	New:    newRR,
	Size:   func(sims.Config) int64 { return rrBytes },

	Metrics: rrMetrics,
}

// rrBytes is a randomized-response sim whatever its parameters: the trace
// of the estimate, full, and the Frame's copy of it, its log-scale steps,
// the clamped curve and the band's two edges.
var rrBytes = 16<<10 + sims.TraceBytes(1) + 4*8*sims.TraceCap

var (
	rrP      = param.Float("p", 0.3, "the true share of cheaters, the answer the survey estimates").Range(0, 1)
	rrHonest = param.Float("honest", 0.5, "probability that the first coin says: answer truthfully (½: the notes' two coins; "+
		"otherwise a second fair coin answers); ε = ln((1 + honest)/(1 − honest))").Range(0.01, 0.99)
)

type rrSim struct {
	r     *privacy.RandomizedResponse
	p, h  float64
	trace *sims.Trace // p̂ per respondent
}

func newRR(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	r, err := privacy.NewRandomizedResponse(rrP.Get(v), rrHonest.Get(v), streamRNG(cfg.Seed, surveyStream))
	if err != nil {
		return nil, err
	}
	return &rrSim{r: r, p: rrP.Get(v), h: rrHonest.Get(v), trace: sims.NewTrace(1, 1)}, nil
}

func (s *rrSim) Step() error {
	_ = s.r.Step() // never fails
	s.trace.Add(s.r.Estimate())
	return nil
}

// band is p ± 2σ(n) at the trace's steps n.
func (s *rrSim) band(x []float64) sims.Band {
	pp := s.r.YesProb()
	sd := func(n int) float64 { return 2 * math.Sqrt(pp*(1-pp)/float64(n)) / s.h }
	return sims.Band{X: x,
		Lo:    s.trace.Map(func(n int) float64 { return math.Max(-0.1, s.p-sd(n)) }),
		Hi:    s.trace.Map(func(n int) float64 { return math.Min(1.1, s.p+sd(n)) }),
		Class: 2}
}

func (s *rrSim) Frame() sims.Frame {
	n := s.r.N()
	est := s.trace.Column(0)
	x := s.trace.Map(func(k int) float64 { return math.Log10(float64(k)) })
	shown := make([]float64, len(est))
	for i, e := range est {
		shown[i] = math.Min(1.1, math.Max(-0.1, e)) // clamped for display only ([A37])
	}
	x1 := math.Max(math.Log10(float64(max(n, 1))), 1)
	canvas := sims.CanvasChart{Title: "p̂ against log₁₀ n, the ±2σ band about p", XLabel: "log₁₀ n", YLabel: "p̂",
		View:   sims.Rect{XMin: 0, XMax: x1, YMin: -0.1, YMax: 1.1},
		Paths:  []sims.Path{{X: []float64{0, x1}, Y: []float64{s.p, s.p}, Class: 1, Dotted: true}},
		Legend: []string{"p̂", "true p", "±2σ"}}
	if len(x) > 1 {
		canvas.Bands = []sims.Band{s.band(x)}
		canvas.Paths = append(canvas.Paths, sims.Path{X: x, Y: shown, Class: 0})
	}
	cheat, honest := s.r.YesGiven()
	bars := sims.BarChart{Title: "answer rates", Max: 1, Bars: []sims.Bar{
		{Label: fmt.Sprintf("yes|cheater → %.3g", (1+s.h)/2), Value: sims.FiniteOr(cheat, 0), Class: 0},
		{Label: fmt.Sprintf("yes|not → %.3g", (1-s.h)/2), Value: sims.FiniteOr(honest, 0), Class: 2},
		{Label: fmt.Sprintf("yes → p′ = %.3g", s.r.YesProb()), Value: s.r.YesShare(), Class: 3},
	}}
	eps := privacy.RREpsilon(s.h)
	ratio := cheat / honest
	z := (s.r.Estimate() - s.p) / s.r.StdErr()
	metrics := []sims.Metric{
		{Name: "n", Value: float64(n)},
		{Name: "p̂", Value: s.r.Estimate()},
		{Name: "±2σ", Value: 2 * s.r.StdErr()},
		sims.MetricOr("z", z, "no answer yet"),
		sims.MetricOr("ratio", ratio, "a 'yes' rate is still 0"),
		{Name: "ε", Value: eps},
	}
	lr := (1 + s.h) / (1 - s.h)
	text := []string{
		fmt.Sprintf("likelihood ratio %.3g/%.3g = %.4g: ε = ln %.4g = %.6g", (1+s.h)/2, (1-s.h)/2, lr, lr, eps),
		fmt.Sprintf("p̂ = (p̂′ − %.3g)/%.3g, unbiased; drawn clamped, it may leave [0, 1]", (1-s.h)/2, s.h),
	}
	return sims.Frame{Sim: RandomizedResponse.Name, Step: n, Metrics: metrics, Charts: []sims.Chart{canvas, bars}, Text: text}
}

func (s *rrSim) Result() map[string]any {
	cheat, honest := s.r.YesGiven()
	return map[string]any{
		"n": s.r.N(), "estimate": s.r.Estimate(), "stderr": s.r.StdErr(), "yes_share": s.r.YesShare(),
		"epsilon": privacy.RREpsilon(s.h), "yes_given_cheater": sims.FiniteOr(cheat, 0), "yes_given_not": sims.FiniteOr(honest, 0),
	}
}
