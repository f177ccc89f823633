package gpsim

import (
	"fmt"
	"math"

	"github.com/thelab/lab/algo/gp"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// GPFit learns the GP's lengthscale, signal variance and noise by gradient
// ascent on the log marginal likelihood, in log-parameters, one accepted
// step per step, refitting the band as it goes.
var GPFit = &sims.Spec{
	Name:   "gp-fit",
	Title:  "GP hyperparameters by gradient ascent on the log marginal likelihood",
	Source: "seed 003 L1032–1037 (log p(Y|θ)); seed 002 §4.5 Algorithm 2 (L1953–1981)",
	Data:   regDataNote,
	Steps:  500,
	Speed:  2,
	Params: param.List(fitLengthscale, fitVariance, fitNoise, fitLR, fitTol, fitN),
	New:    newGPFit,
	Size:   gpFitSize,

	Metrics: gpFitMetrics,
}

// gpFitSize is the observations, the engine (gp.FitterFootprint), the band
// at the chart's points, and the trace of log p and the hyperparameters
// with its four curves.
func gpFitSize(cfg sims.Config) int64 {
	n := observations(cfg, fitN)
	return gpFitBase + int64(n)*obsBytes + gp.FitterFootprint(n) + sims.TraceBytesAfter(4, 4, sims.TraceCap)
}

// gpFitBase is what gp-fit holds whatever its size: the sim, the chart's
// points and band, the Frame's charts and texts.
const gpFitBase = 48 << 10

type gpFitSim struct {
	x, y    []float64
	in      [][]float64
	f       *gp.Fitter
	chartIn [][]float64
	chartX  []float64
	// The band at the chart points, computed when a Frame asks for it from
	// the posterior the evidence was computed with, and kept while the
	// hyperparameters stay.
	mean, vari []float64
	bandIter   int // the accepted step it was computed at, −1 for none
	view       sims.Rect
	trace      *sims.Trace // log p, ℓ, σ_f², σ²
	truth      bool
}

// gp-fit's parameters.
var (
	fitLengthscale = param.Float("lengthscale", 1, "initial ℓ of k = variance·exp(−(x−x')²/(2ℓ²))").Range(0, 1e4).OpenMin()
	fitVariance    = param.Float("variance", 0.3, "initial signal variance σ_f²").Range(0, 1e4).OpenMin()
	fitNoise       = param.Float("noise", 0.5, "initial "+NoiseHelp).Range(0, 1e4).OpenMin()
	fitLR          = param.Float("lr", 0.05,
		"initial step size in log-parameter space (halved until log p rises, then grown by 1.5)").Range(0, 10).OpenMin()
	fitTol = param.Float("tol", 1e-4, "stop when every |∂ log p/∂ log θ| ≤ tol").Range(0, 1)
	fitN   = param.Int("n", 40, "observations t = sin(2πx) + N(0, 0.3²) on [0, 1]").Range(2, 500).BuiltInData()
)

func newGPFit(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	x, y, truth, err := regData(cfg, fitN.Get(v), 0, 0)
	if err != nil {
		return nil, err
	}
	s := &gpFitSim{x: x, y: y, truth: truth, trace: sims.NewTrace(0, 4), bandIter: -1}
	for _, xi := range x {
		s.in = append(s.in, []float64{xi})
	}
	h := gp.Hyper{Lengthscale: fitLengthscale.Get(v), Variance: fitVariance.Get(v), Noise: fitNoise.Get(v)}
	if s.f, err = gp.NewFitter(s.in, y, h, fitLR.Get(v), fitTol.Get(v)); err != nil {
		return nil, err
	}
	b := sims.Bounds(x, y)
	span := math.Max(b.XMax-b.XMin, 1e-9)
	s.chartIn, s.chartX = axis(b.XMin-0.1*span, b.XMax+0.1*span, chartPoints)
	ySpan := math.Max(b.YMax-b.YMin, 1e-9)
	s.view = sims.Rect{XMin: s.chartX[0], XMax: s.chartX[chartPoints-1], YMin: b.YMin - 0.35*ySpan, YMax: b.YMax + 0.35*ySpan}
	s.record()
	return s, nil
}

// record adds the current hyperparameters to the trace.
func (s *gpFitSim) record() {
	ev := s.f.Evidence()
	s.trace.Add(ev.LogML, ev.Hyper.Lengthscale, ev.Hyper.Variance, ev.Hyper.Noise)
}

func (s *gpFitSim) Step() error {
	if err := s.f.Step(); err != nil {
		return err
	}
	s.record()
	return nil
}

func (s *gpFitSim) Frame() sims.Frame {
	if it := s.f.Iter(); it != s.bandIter {
		s.mean, s.vari = s.f.Evidence().Posterior().Predict(s.chartIn)
		s.bandIter = it
	}
	band, mean := meanBand(s.chartX, s.mean, s.vari, 1)
	ev := s.f.Evidence()
	h := ev.Hyper
	x0, x1 := s.trace.Span()
	return sims.Frame{
		Sim:  GPFit.Name,
		Step: s.f.Iter(),
		Metrics: []sims.Metric{
			{Name: "log_ml", Value: ev.LogML},
			{Name: "lengthscale", Value: h.Lengthscale},
			{Name: "variance", Value: h.Variance},
			{Name: "noise", Value: h.Noise},
			{Name: "grad", Value: s.f.GradNorm()},
		},
		Charts: []sims.Chart{
			sims.CanvasChart{
				Title:   fmt.Sprintf("fit at ℓ = %.3g, σ_f² = %.3g, σ² = %.3g", h.Lengthscale, h.Variance, h.Noise),
				View:    s.view,
				Bands:   band,
				Paths:   []sims.Path{mean},
				Markers: dataMarkers(s.x, s.y, len(s.x)),
				Legend:  []string{"data", "mean ± 2σ"},
				XLabel:  "x", YLabel: "y",
			},
			sims.LineChart{Title: "log p(y|θ)", X0: x0, X1: x1, XLabel: "accepted steps",
				Series: []sims.Series{{Name: "log marginal likelihood", Y: s.trace.Column(0)}}},
			sims.LineChart{Title: "hyperparameters", LogY: true, X0: x0, X1: x1, XLabel: "accepted steps",
				Series: []sims.Series{
					{Name: "ℓ", Y: s.trace.Column(1), Class: 1},
					{Name: "σ_f²", Y: s.trace.Column(2), Class: 2},
					{Name: "σ²", Y: s.trace.Column(3), Class: 3},
				}},
		},
		Text: []string{
			fmt.Sprintf("log p = data fit −½yᵀC⁻¹y (%.4g) + complexity −½log|C| (%.4g) − (n/2)log 2π", ev.DataFit, ev.Complexity),
			"gradient ½tr((aaᵀ − C⁻¹)∂C/∂θ), a = C⁻¹y, in θ = log(ℓ, σ_f², σ²) (not in the notes: Rasmussen & Williams eq 5.9)",
			fmt.Sprintf("one step = one accepted ascent step (halving until log p rises): log p never falls; next trial step %.3g", s.f.StepSize()),
		},
	}
}

func (s *gpFitSim) Result() map[string]any {
	ev := s.f.Evidence()
	return map[string]any{
		"lengthscale":             ev.Hyper.Lengthscale,
		"variance":                ev.Hyper.Variance,
		"noise":                   ev.Hyper.Noise,
		"log_marginal_likelihood": ev.LogML,
		"gradient":                ev.Grad[:],
		"steps":                   s.f.Iter(),
	}
}
