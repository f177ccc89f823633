// Package gpsim turns the engines of algo/gp into sims: Gaussian-process
// regression with observations arriving one at a time, learning its
// hyperparameters by the marginal likelihood, and Bayesian linear
// regression beside the GP with the matching kernel.
package gpsim

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo/dataset"
	"github.com/thelab/lab/algo/gp"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// NoiseHelp states the noise convention and the notes' erratum.
const NoiseHelp = "noise variance σ², added to the diagonal: C = K + σ²I (seed 003 L955–989 writes 1/σ² there, " +
	"inconsistent with L938/L1001: erratum 1 of the seed-003 catalogue)"

// GP is Gaussian-process regression with observations arriving one per
// step: prior samples first, then the posterior mean and ±2σ band.
var GP = &sims.Spec{
	Name:   "gp",
	Title:  "Gaussian-process regression: the ±2σ band as observations arrive one at a time",
	Source: "seed 003 L876–1031 (GP prior, predictive mean and variance); seed 002 §4.5 Algorithms 1, 3 (eqs 4.29–4.30)",
	Data:   regDataNote,
	Steps:  1000,
	Speed:  1,
	Params: param.List(gpLengthscale, gpVariance, gpNoise, gpN, gpGridPoints, gpOrder),
	New:    newGP,
	Size:   gpSize,

	Metrics: gpMetrics,
}

// gpSize is the observations, the engine once every one is in
// (gp.SequentialFootprint at the chart's points), the sample paths with
// the grid's covariance they are drawn from, and the trace of the band's
// width with its two curves, a row an observation. grid_points sizes the
// Result only.
func gpSize(cfg sims.Config) int64 {
	n := observations(cfg, gpN)
	return gpBase + int64(n)*obsBytes + gp.SequentialFootprint(n, chartPoints) +
		8*chartPoints*(chartPoints+2*nSamples) + sims.TraceBytesAfter(2, 2, n+1)
}

// gpBase is what gp holds whatever its size: the sim, the chart's points,
// the Frame's charts and texts.
const gpBase = 32 << 10

// regDataNote is the --data description of the GP sims.
const regDataNote = "a CSV whose first feature column is x and whose target column (named \"label\", else the last) is y"

// Sizes of the drawn curves.
const (
	chartPoints = 120
	nSamples    = 3
)

// observations is the number of observations regData returns: the rows
// of --data, else the preset's n.
func observations(cfg sims.Config, n *param.IntDecl) int {
	if t := cfg.Data; t != nil {
		return len(t.Rows)
	}
	return n.Get(cfg.Values)
}

// obsBytes is what a GP sim holds for each observation: x and y (8 bytes
// each, in slices grown by appending by a quarter), x as a 1-D input (a
// slice of its own) and its marker in the Frame.
const obsBytes = 2*10 + (30 + 8) + 32

// regData returns 1-D regression data: the CSV's first feature column and
// target, or n points of the sinusoid preset with a gap.
func regData(cfg sims.Config, n int, gapLo, gapHi float64) (x, y []float64, truth bool, err error) {
	if t := cfg.Data; t != nil {
		l, err := t.Labelled(false)
		if err != nil {
			return nil, nil, false, err
		}
		for i, r := range l.X {
			x = append(x, r[0])
			y = append(y, l.Y[i])
		}
		return x, y, false, nil
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x6770)) // "gp"
	l, err := dataset.Sinusoid(rng, n, 0.3, gapLo, gapHi)
	if err != nil {
		return nil, nil, false, err
	}
	for i, r := range l.X {
		x = append(x, r[0])
		y = append(y, l.Y[i])
	}
	return x, y, true, nil
}

// axis returns m evenly spaced points from lo to hi, as 1-D inputs and as
// plain values.
func axis(lo, hi float64, m int) ([][]float64, []float64) {
	in, xs := make([][]float64, m), make([]float64, m)
	for i := range xs {
		xs[i] = lo + (hi-lo)*float64(i)/float64(max(m-1, 1))
		in[i] = []float64{xs[i]}
	}
	return in, xs
}

// dataMarkers draws observations as filled dots and those still to come as
// hollow ones, cell-sized so that they stand out from the curves (seed 002
// L2016: "observations as disconnected dots").
func dataMarkers(x, y []float64, n int) []sims.Marker {
	m := make([]sims.Marker, 0, len(x))
	for i := n; i < len(x); i++ {
		m = append(m, sims.Marker{X: x[i], Y: y[i], Glyph: '○', Class: -1})
	}
	for i := 0; i < n; i++ {
		m = append(m, sims.Marker{X: x[i], Y: y[i], Glyph: '●', Class: 0})
	}
	return m
}

// meanBand returns the filled band m ± 2σ and the mean's path, of one
// class.
func meanBand(xs, mean, variance []float64, class int) ([]sims.Band, sims.Path) {
	up, lo := make([]float64, len(xs)), make([]float64, len(xs))
	for i := range xs {
		s := 2 * math.Sqrt(variance[i])
		up[i], lo[i] = mean[i]+s, mean[i]-s
	}
	return []sims.Band{{X: xs, Lo: lo, Hi: up, Class: class}}, sims.Path{X: xs, Y: mean, Class: class}
}

type gpSim struct {
	h       gp.Hyper
	x, y    []float64 // in arrival order
	in      [][]float64
	seq     *gp.Sequential
	chartIn [][]float64
	chartX  []float64
	z       [][]float64 // fixed standard normals of the sample paths
	truth   bool
	view    sims.Rect
	sd      *sims.Trace // mean and max posterior σ on the chart grid
	lo, hi  float64     // the data's x range
	gridPts int
	// The sample paths, drawn when a Frame asks for them (a Step does not:
	// they cost a 120×120 factorisation) and kept while n stays.
	samples  [][]float64
	sampleN  int // the n they were drawn at, −1 for none
	sampleOK bool
	cov      []float64 // scratch of the grid covariance
}

// order is the order in which observations arrive.
type order string

func (o order) String() string { return string(o) }

const (
	orderRandom      order = "random"
	orderLeftToRight order = "left-to-right"
)

// gp's parameters.
var (
	gpLengthscale = param.Float("lengthscale", 0.1,
		"ℓ in k(x,x') = variance·exp(−(x−x')²/(2ℓ²)), i.e. rbf with γ = 1/(2ℓ²) (seed 003 L925 writes θ₁ = 1/ℓ²)").
		Range(0, 1e4).OpenMin()
	gpVariance = param.Float("variance", 1, "signal variance σ_f² = k(x, x)").Range(0, 1e4).OpenMin()
	gpNoise    = param.Float("noise", 0.09, NoiseHelp).Range(0, 1e4)
	gpN        = param.Int("n", 20,
		"observations t = sin(2πx) + N(0, 0.3²) on [0, 1] with none in (0.45, 0.7)").Range(1, 1000).BuiltInData()
	gpGridPoints = param.Int("grid_points", 100, "points of the result's x_test, evenly spaced over the data's range").Range(2, 2000)
	gpOrder      = param.Choice("order", []order{orderRandom, orderLeftToRight}, orderRandom,
		"the order in which the observations arrive")
)

func newGP(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	h := gp.Hyper{Lengthscale: gpLengthscale.Get(v), Variance: gpVariance.Get(v), Noise: gpNoise.Get(v)}
	if err := h.Validate(); err != nil {
		return nil, err
	}
	x, y, truth, err := regData(cfg, gpN.Get(v), 0.45, 0.7)
	if err != nil {
		return nil, err
	}
	s := &gpSim{h: h, truth: truth, gridPts: gpGridPoints.Get(v), sd: sims.NewTrace(0, 2), sampleN: -1}
	// Arrival order.
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	if gpOrder.Get(v) == orderRandom {
		rand.New(rand.NewPCG(cfg.Seed, 0x6f72646572)).Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
	} else {
		sortByX(idx, x)
	}
	for _, i := range idx {
		s.x = append(s.x, x[i])
		s.y = append(s.y, y[i])
		s.in = append(s.in, []float64{x[i]})
	}
	b := sims.Bounds(s.x, s.y)
	s.lo, s.hi = b.XMin, b.XMax
	span := math.Max(s.hi-s.lo, 1e-9)
	s.chartIn, s.chartX = axis(s.lo-0.15*span, s.hi+0.15*span, chartPoints)
	if s.seq, err = gp.NewSequential(h.Kernel(), h.Noise, s.in, s.y, s.chartIn); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x7a)) // "z"
	s.z = make([][]float64, nSamples)
	for k := range s.z {
		s.z[k] = make([]float64, chartPoints)
		for i := range s.z[k] {
			s.z[k][i] = rng.NormFloat64()
		}
	}
	ySpan := math.Max(b.YMax-b.YMin, 1e-9)
	band := 2.5 * math.Sqrt(h.Variance)
	s.view = sims.Rect{XMin: s.chartX[0], XMax: s.chartX[chartPoints-1],
		YMin: math.Min(b.YMin-0.1*ySpan, -band), YMax: math.Max(b.YMax+0.1*ySpan, band)}
	s.update()
	return s, nil
}

func sortByX(idx []int, x []float64) {
	for i := 1; i < len(idx); i++ { // insertion sort: n is small
		for j := i; j > 0 && x[idx[j]] < x[idx[j-1]]; j-- {
			idx[j], idx[j-1] = idx[j-1], idx[j]
		}
	}
}

// update records the band's width.
func (s *gpSim) update() {
	mean, maxSD := 0.0, 0.0
	for _, v := range s.seq.Variance() {
		sd := math.Sqrt(v)
		mean += sd / chartPoints
		maxSD = math.Max(maxSD, sd)
	}
	s.sd.Add(mean, maxSD)
}

func (s *gpSim) Step() error {
	if err := s.seq.Step(); err != nil {
		return err
	}
	s.update()
	return nil
}

// draw redraws the sample paths for the present posterior, unless they
// were drawn at this n already.
func (s *gpSim) draw() {
	if n := s.seq.N(); n != s.sampleN {
		s.cov = s.seq.Covariance(s.cov)
		samples, err := gp.Draw(s.seq.Mean(), s.cov, s.z)
		s.sampleN, s.sampleOK = n, err == nil
		if s.sampleOK {
			s.samples = samples
		}
	}
}

func (s *gpSim) Frame() sims.Frame {
	n := s.seq.N()
	s.draw()
	lml, _, _ := s.seq.LogMarginal()
	var paths []sims.Path
	if s.sampleOK {
		for _, f := range s.samples {
			paths = append(paths, sims.Path{X: s.chartX, Y: f, Class: 2})
		}
	}
	// The engine updates its views in place: the Frame keeps copies.
	band, mean := meanBand(s.chartX, append([]float64(nil), s.seq.Mean()...), s.seq.Variance(), 1)
	paths = append(paths, mean)
	title := "prior: mean 0 ± 2σ, samples"
	if n > 0 {
		title = fmt.Sprintf("posterior after %d of %d observations", n, len(s.x))
	}
	x0, x1 := s.sd.Span()
	meanSD, maxSD := 0.0, 0.0
	for _, v := range s.seq.Variance() {
		meanSD += math.Sqrt(v) / chartPoints
		maxSD = math.Max(maxSD, math.Sqrt(v))
	}
	metrics := []sims.Metric{
		{Name: "n", Value: float64(n)},
		{Name: "log_ml", Value: lml},
		{Name: "mean_sd", Value: meanSD},
		{Name: "max_sd", Value: maxSD},
	}
	if j := s.seq.Jitter(); j > 0 {
		metrics = append(metrics, sims.Metric{Name: "jitter", Value: j})
	}
	return sims.Frame{
		Sim:     GP.Name,
		Step:    n,
		Metrics: metrics,
		Charts: []sims.Chart{
			sims.CanvasChart{
				Title: title, View: s.view, Bands: band, Paths: paths, Markers: dataMarkers(s.x, s.y, n),
				Legend: []string{"observed", "mean ± 2σ", "samples"},
				XLabel: "x", YLabel: "y",
			},
			sims.LineChart{Title: "posterior σ over the x range", X0: x0, X1: x1, XLabel: "observations",
				Series: []sims.Series{
					{Name: "mean σ", Y: s.sd.Column(0), Class: 1},
					{Name: "max σ", Y: s.sd.Column(1), Class: 3},
				}},
		},
		Text: s.notes(),
	}
}

func (s *gpSim) notes() []string {
	lines := []string{
		fmt.Sprintf("k = %g·exp(−(x−x')²/(2·%g²)), σ² = %g; one step adds one observation (○: still to come)",
			s.h.Variance, s.h.Lengthscale, s.h.Noise),
		"m(x) = kᵀC⁻¹y, σ²(x) = k(x,x) − kᵀC⁻¹k (latent f; a new y adds σ²), C = K + σ²I by Cholesky; shaded: m ± 2σ",
		"adding data never widens the band; it widens in gaps and beyond the data",
	}
	if !s.sampleOK {
		lines = append(lines, "posterior samples unavailable: the grid covariance is not positive definite even with jitter")
	}
	if s.truth {
		lines = append(lines, "data: t = sin(2πx) + N(0, 0.3²), none in (0.45, 0.7)")
	}
	return lines
}

func (s *gpSim) Result() map[string]any {
	post := s.seq.Posterior()
	in, xs := axis(s.lo, s.hi, s.gridPts)
	mean, variance := post.Predict(in)
	std := make([]float64, len(variance))
	for i, v := range variance {
		std[i] = math.Sqrt(v)
	}
	lml, fit, complexity := post.LogMarginal()
	return map[string]any{
		"x_test":                  xs,
		"mean":                    mean,
		"std":                     std,
		"log_marginal_likelihood": lml,
		"data_fit":                fit,
		"complexity":              complexity,
		"n_observed":              s.seq.N(),
		"jitter":                  post.Jitter(),
	}
}
