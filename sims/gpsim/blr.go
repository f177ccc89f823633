package gpsim

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/dataset"
	"github.com/thelab/lab/algo/gp"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// BLR is Bayesian linear regression on lines, its posterior updated one
// observation per step, beside the GP whose kernel is the model's
// covariance, which gives the same predictive distribution.
var BLR = &sims.Spec{
	Name:   "blr",
	Title:  "Bayesian linear regression, one point at a time, = the GP with kernel (1 + xx')/α",
	Source: "seed 002 Ex 3.2 (L958–991), §4.3 (L1705–1786, eqs 4.18–4.22); seed 003 L840–874",
	Data:   regDataNote,
	Steps:  1000,
	Speed:  1,
	Params: param.List(blrAlpha, blrNoise, blrN, blrW),
	New:    newBLR,
	Size:   blrSize,

	Metrics: blrMetrics,
}

// blrSize is the observations: the engine keeps two 2×2 sums, and the GP
// and batch fits a step compares it with are garbage once compared.
func blrSize(cfg sims.Config) int64 { return blrBase + int64(observations(cfg, blrN))*obsBytes }

// blrBase is what blr holds whatever its size: the sim, the chart's
// points, the GP's band there, the Frame's charts and texts.
const blrBase = 32 << 10

const blrSamples = 5

type blrSim struct {
	x, y    []float64
	in      [][]float64
	alpha   float64
	noise   float64
	b       *gp.BLR
	truth   []float64 // nil with --data
	chartX  []float64
	chartIn [][]float64
	view    sims.Rect
	z       [][2]float64
	// Comparisons, refreshed each step.
	gpMean, gpVar []float64
	gpDiff        float64 // max |BLR − GP| over the chart grid (mean and variance)
	gpSize        float64 // max |GP mean| and GP variance there: the scale of gpDiff
	batchDiff     float64 // max |sequential − batch| posterior mean
}

// blr's parameters.
var (
	blrAlpha = param.Float("alpha", 2,
		"prior precision α of w ~ N(0, α⁻¹I) (seed 003 L851 calls α⁻¹ the precision: it is the variance, erratum 2)").
		Range(0, 1e6).OpenMin()
	blrNoise = param.Float("noise", 0.04, "noise variance σ² of y = w₀ + w₁x + ε (also the preset's)").Range(0, 1e4).OpenMin()
	blrN     = param.Int("n", 30, "observations of the preset, x uniform on [−1, 1]").Range(1, 5000).BuiltInData()
	blrW     = param.Vector("w", []float64{-0.3, 0.5}, "the preset's true (w₀, w₁)").Range(-10, 10).BuiltInData()
)

func newBLR(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	s := &blrSim{alpha: blrAlpha.Get(v), noise: blrNoise.Get(v)}
	if t := cfg.Data; t != nil {
		l, err := t.Labelled(false)
		if err != nil {
			return nil, err
		}
		for i, r := range l.X {
			s.x = append(s.x, r[0])
			s.y = append(s.y, l.Y[i])
		}
	} else {
		w := blrW.Get(v)
		s.truth = w
		l, err := dataset.NoisyLine(rand.New(rand.NewPCG(cfg.Seed, 0x626c72)), blrN.Get(v), w[0], w[1], math.Sqrt(s.noise)) // "blr"
		if err != nil {
			return nil, err
		}
		for i, r := range l.X {
			s.x = append(s.x, r[0])
			s.y = append(s.y, l.Y[i])
		}
	}
	for _, xi := range s.x {
		s.in = append(s.in, []float64{xi})
	}
	var err error
	if s.b, err = gp.NewBLR(s.alpha, s.noise); err != nil {
		return nil, err
	}
	b := sims.Bounds(s.x, s.y)
	span := math.Max(b.XMax-b.XMin, 1e-9)
	s.chartIn, s.chartX = axis(b.XMin-0.1*span, b.XMax+0.1*span, chartPoints)
	ySpan := math.Max(b.YMax-b.YMin, 1e-9)
	s.view = sims.Rect{XMin: s.chartX[0], XMax: s.chartX[chartPoints-1], YMin: b.YMin - 0.3*ySpan, YMax: b.YMax + 0.3*ySpan}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x7a))
	s.z = make([][2]float64, blrSamples)
	for i := range s.z {
		s.z[i] = [2]float64{rng.NormFloat64(), rng.NormFloat64()}
	}
	if err := s.compare(); err != nil {
		return nil, err
	}
	return s, nil
}

// compare refits the GP with the matching kernel and the batch posterior
// on the observations so far, and records how far they are from the
// sequential BLR.
func (s *blrSim) compare() error {
	n := s.b.N()
	post, err := gp.Fit(s.b.Kernel(), s.in[:n], s.y[:n], s.noise)
	if err != nil {
		return err
	}
	s.gpMean, s.gpVar = post.Predict(s.chartIn)
	s.gpDiff, s.gpSize = 0, 0
	for i, x := range s.chartX {
		m, v := s.b.Predict(x)
		s.gpDiff = math.Max(s.gpDiff, math.Max(math.Abs(m-s.gpMean[i]), math.Abs(v-s.gpVar[i])))
		s.gpSize = math.Max(s.gpSize, math.Max(math.Abs(s.gpMean[i]), s.gpVar[i]))
	}
	batch, err := gp.BatchBLR(s.alpha, s.noise, s.x[:n], s.y[:n])
	if err != nil {
		return err
	}
	a0, a1 := s.b.Mean()
	b0, b1 := batch.Mean()
	s.batchDiff = math.Max(math.Abs(a0-b0), math.Abs(a1-b1))
	return nil
}

func (s *blrSim) Step() error {
	n := s.b.N()
	if n == len(s.x) {
		return algo.ErrConverged
	}
	s.b.Observe(s.x[n], s.y[n])
	return s.compare()
}

// sampleW returns posterior weight samples m + Lz, L the 2×2 Cholesky factor
// of S.
func (s *blrSim) sampleW() [][2]float64 {
	m0, m1 := s.b.Mean()
	s00, s01, s11 := s.b.Cov()
	l00 := math.Sqrt(s00)
	l10 := s01 / l00
	l11 := math.Sqrt(math.Max(s11-l10*l10, 0))
	out := make([][2]float64, len(s.z))
	for i, z := range s.z {
		out[i] = [2]float64{m0 + l00*z[0], m1 + l10*z[0] + l11*z[1]}
	}
	return out
}

func (s *blrSim) Frame() sims.Frame {
	n := s.b.N()
	mean, vari := make([]float64, chartPoints), make([]float64, chartPoints)
	for i, x := range s.chartX {
		mean[i], vari[i] = s.b.Predict(x)
	}
	var lines []sims.Path
	for _, w := range s.sampleW() {
		lines = append(lines, sims.Path{X: []float64{s.chartX[0], s.chartX[chartPoints-1]},
			Y: []float64{w[0] + w[1]*s.chartX[0], w[0] + w[1]*s.chartX[chartPoints-1]}, Class: 2})
	}
	dots := dataMarkers(s.x, s.y, n)
	blrBand, blrMean := meanBand(s.chartX, mean, vari, 1)
	gpBand, gpMean := meanBand(s.chartX, s.gpMean, s.gpVar, 1)
	m0, m1 := s.b.Mean()
	s00, s01, s11 := s.b.Cov()
	wPaths := []sims.Path{
		sims.Ellipse(0, 0, 1/s.alpha, 0, 1/s.alpha, 2, 0),
		sims.Ellipse(m0, m1, s00, s01, s11, 1, 1),
		sims.Ellipse(m0, m1, s00, s01, s11, 2, 1),
	}
	wPaths[0].Dotted, wPaths[2].Dotted = true, true
	markers := []sims.Marker{{X: m0, Y: m1, Glyph: '●', Class: 1}}
	// The view follows the posterior (its 3σ box, and the true w), so that
	// its shrinking ellipse stays legible; the prior is clipped.
	wview := sims.Rect{XMin: m0 - 3*math.Sqrt(s00), XMax: m0 + 3*math.Sqrt(s00), YMin: m1 - 3*math.Sqrt(s11), YMax: m1 + 3*math.Sqrt(s11)}
	if s.truth != nil {
		markers = append(markers, sims.Marker{X: s.truth[0], Y: s.truth[1], Glyph: '×', Class: 2})
		wview.XMin, wview.XMax = math.Min(wview.XMin, s.truth[0]), math.Max(wview.XMax, s.truth[0])
		wview.YMin, wview.YMax = math.Min(wview.YMin, s.truth[1]), math.Max(wview.YMax, s.truth[1])
	}
	wview = wview.Pad(0.1)
	batchScale := math.Max(math.Abs(m0), math.Abs(m1)) // the scale of batchDiff
	return sims.Frame{
		Sim:  BLR.Name,
		Step: n,
		Metrics: []sims.Metric{
			{Name: "n", Value: float64(n)},
			{Name: "w0", Value: m0},
			{Name: "w1", Value: m1},
			{Name: "gp_diff", Value: s.gpDiff, Scale: s.gpSize},
			{Name: "batch_diff", Value: s.batchDiff, Scale: batchScale},
		},
		Charts: []sims.Chart{
			sims.CanvasChart{
				Title: "BLR: posterior lines", View: s.view, Markers: dots,
				Bands: blrBand, Paths: append(lines, blrMean),
				Legend: []string{"observed", "mean ± 2σ", "sampled lines"},
				XLabel: "x", YLabel: "y",
			},
			sims.CanvasChart{
				Title: "GP, k = (1+xx')/α: same", View: s.view, Markers: dots,
				Bands: gpBand, Paths: []sims.Path{gpMean},
				Legend: []string{"observed", "GP mean ± 2σ"},
				XLabel: "x", YLabel: "y",
			},
			sims.CanvasChart{
				Title: "weights (w₀, w₁)", View: wview, Paths: wPaths, Markers: markers,
				Legend: []string{"prior 2σ", "posterior 1σ 2σ, ● its mean", "true w"},
				XLabel: "w₀", YLabel: "w₁",
			},
		},
		Text: []string{
			fmt.Sprintf("w ~ N(0, α⁻¹I), α = %g; y = w₀ + w₁x + ε, σ² = %g; S⁻¹ = αI + ΦᵀΦ/σ², m = SΦᵀy/σ²", s.alpha, s.noise),
			fmt.Sprintf("one step adds one point as a rank-one update of S⁻¹: equal to the batch posterior (max diff %s)", sims.IsResidual("%.1e", s.batchDiff, batchScale)),
			fmt.Sprintf("the GP with k(x,x') = φ(x)ᵀα⁻¹Iφ(x') = (1 + xx')/α gives the same mean and variance (max diff %s)", sims.IsResidual("%.1e", s.gpDiff, s.gpSize)),
		},
	}
}

func (s *blrSim) Result() map[string]any {
	m0, m1 := s.b.Mean()
	s00, s01, s11 := s.b.Cov()
	return map[string]any{
		"mean":       []float64{m0, m1},
		"covariance": [][]float64{{s00, s01}, {s01, s11}},
		"n_observed": s.b.N(),
		"gp_diff":    s.gpDiff,
		"batch_diff": s.batchDiff,
	}
}
