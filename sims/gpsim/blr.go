package gpsim

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/dataset"
	"github.com/thelab/lab/algo/gp"
	"github.com/thelab/lab/algo/kernel"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// BLR is Bayesian linear regression on lines, its posterior updated one
// observation per step, beside the GP whose kernel is the model's
// covariance, which gives the same predictive distribution. With
// features=bumps the features are M Gaussian bumps (seed 002 Ex 4.2): the
// pane adds four prior draws f = Φw and the spectrum of the induced kernel
// matrix ΦΦᵀ/α, of rank at most M (Remark 4.11).
var BLR = &sims.Spec{
	Name:   "blr",
	Title:  "Bayesian linear regression, one point at a time, = the GP with kernel φ(x)ᵀφ(x')/α",
	Source: "seed 002 Ex 3.2 (L958–991), §4.3 (L1705–1786, eqs 4.18–4.22, Ex 4.2), Remark 4.11 (L1838); seed 003 L840–874",
	Data:   regDataNote,
	Steps:  1000,
	Speed:  1,
	Params: param.List(blrFeatures, blrM, blrWidth, blrAlpha, blrNoise, blrN, blrW),
	New:    newBLR,
	Size:   blrSize,

	Metrics: blrMetrics,
}

// blrSize is the observations: the engine keeps two 2×2 sums, and the GP
// and batch fits a step compares it with are garbage once compared. With
// bumps, each observation's and chart point's features, the M×M
// posterior, the prior draws and the spectrum's check of at most
// blrSpectrum points.
func blrSize(cfg sims.Config) int64 {
	n := int64(observations(cfg, blrN))
	size := blrBase + n*obsBytes
	if blrFeatures.Get(cfg.Values) == featBumps {
		m := int64(blrM.Get(cfg.Values))
		size += (n+chartPoints)*(24+8*m) + 4*8*m*m + blrPriors*chartPoints*8 + kernel.PSDFootprint(int(min(n, blrSpectrum)))
	}
	return size
}

// blrBase is what blr holds whatever its size: the sim, the chart's
// points, the GP's band there, the Frame's charts and texts.
const blrBase = 32 << 10

const blrSamples = 5

// blrPriors is the number of prior draws of features=bumps (Fig 4.6's
// four); blrSpectrum the most observations whose kernel matrix the
// spectrum shows.
const (
	blrPriors   = 4
	blrSpectrum = 60
)

// blrFeature is a feature map of blr.
type blrFeature string

func (f blrFeature) String() string { return string(f) }

const (
	featLines blrFeature = "lines"
	featBumps blrFeature = "bumps"
)

// blrBumps is the state of features=bumps: the features of the
// observations and of the chart's grid, the weight-space posterior, the
// prior draws and the spectrum of K = ΦΦᵀ/α on the observed inputs.
type blrBumps struct {
	bumps    *kernel.Bumps
	wb       *kernel.WeightBLR
	phi      [][]float64 // of the observations
	chartPhi [][]float64 // of the chart's grid
	prior    [][]float64 // f = Φw on the chart's grid, w ~ N(0, I/α)
	spec     *kernel.PSDCheck
	width    float64
}

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
	gpDiff        float64   // max |BLR − GP| over the chart grid (mean and variance)
	gpSize        float64   // max |GP mean| and GP variance there: the scale of gpDiff
	batchDiff     float64   // max |sequential − batch| posterior mean
	fb            *blrBumps // features=bumps; nil for lines
}

// blr's parameters.
var (
	blrFeatures = param.Choice("features", []blrFeature{featLines, featBumps}, featLines,
		"lines: φ(x) = (1, x), w = (w₀, w₁); bumps: M Gaussian bumps φ_i(x) = exp(−(x − c_i)²/(2s²)), centres evenly "+
			"over the data's x range (seed 002 Ex 4.2, γ = 1/(2s²)): four prior draws and the rank of ΦΦᵀ/α (Remark 4.11)")
	blrM     = param.Int("m", 8, "features=bumps: the number M of bumps").Range(1, kernel.MaxBumps)
	blrWidth = param.Float("width", 0.2, "features=bumps: the width s of each bump").Range(0.01, 10)
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
	if blrFeatures.Get(v) == featBumps {
		if s.fb, err = s.newBumps(v, rng); err != nil {
			return nil, err
		}
	}
	s.z = make([][2]float64, blrSamples)
	for i := range s.z {
		s.z[i] = [2]float64{rng.NormFloat64(), rng.NormFloat64()}
	}
	if err := s.compare(); err != nil {
		return nil, err
	}
	return s, nil
}

// newBumps builds the state of features=bumps: M bumps over the chart's
// x range, the features of the observations and of the chart, and the
// prior draws f = Φw, w = z/√α with z ~ N(0, I).
func (s *blrSim) newBumps(v param.Values, rng *rand.Rand) (*blrBumps, error) {
	m := blrM.Get(v)
	// The centres span the data, so that every bump has observations under
	// it: a bump beyond them would add an eigenvalue of ΦΦᵀ/α near 1e-10.
	b := sims.Bounds(s.x, s.y)
	bm, err := kernel.NewBumps(m, b.XMin, math.Max(b.XMax, b.XMin+1e-9), blrWidth.Get(v))
	if err != nil {
		return nil, sims.Blame(err, v, sims.As("s", blrWidth))
	}
	wb, err := kernel.NewWeightBLR(m, s.alpha, s.noise)
	if err != nil {
		return nil, err
	}
	fb := &blrBumps{bumps: bm, wb: wb, width: blrWidth.Get(v)}
	for _, x := range s.x {
		fb.phi = append(fb.phi, bm.Map(x, make([]float64, m)))
	}
	for _, x := range s.chartX {
		fb.chartPhi = append(fb.chartPhi, bm.Map(x, make([]float64, m)))
	}
	w := make([]float64, m)
	for range blrPriors {
		for i := range w {
			w[i] = rng.NormFloat64() / math.Sqrt(s.alpha)
		}
		f := make([]float64, chartPoints)
		for i, p := range fb.chartPhi {
			f[i] = kernel.Eval(kernel.Linear{}, p, w)
		}
		fb.prior = append(fb.prior, f)
	}
	if fb.spec, err = kernel.NewPSDCheck(wb.Kernel(), fb.phi[:min(len(fb.phi), blrSpectrum)], 1); err != nil {
		return nil, err
	}
	return fb, nil
}

// compareBumps is compare for features=bumps: the weight-space predictive
// (φ_*ᵀμ, φ_*ᵀΣφ_*) against the function-space GP whose kernel is
// φ(x)ᵀφ(x')/α, fitted on the observations' features.
func (s *blrSim) compareBumps() error {
	fb := s.fb
	n := fb.wb.N()
	post, err := gp.Fit(fb.wb.Kernel(), fb.phi[:n], s.y[:n], s.noise)
	if err != nil {
		return err
	}
	s.gpMean, s.gpVar = post.Predict(fb.chartPhi)
	s.gpDiff, s.gpSize = 0, 0
	for i, p := range fb.chartPhi {
		m, v, err := fb.wb.Predict(p)
		if err != nil {
			return err
		}
		s.gpGap(i, m, v)
	}
	for fb.spec.N() < min(max(n, 1), len(fb.phi), blrSpectrum) {
		if err := fb.spec.Step(); err != nil {
			return err
		}
	}
	return nil
}

// gpGap folds the BLR's predictive mean m and variance v at chart point i
// into the largest difference from the GP's (gpDiff) and the GP's largest
// value (gpSize), which scales it.
func (s *blrSim) gpGap(i int, m, v float64) {
	s.gpDiff = math.Max(s.gpDiff, math.Max(math.Abs(m-s.gpMean[i]), math.Abs(v-s.gpVar[i])))
	s.gpSize = math.Max(s.gpSize, math.Max(math.Abs(s.gpMean[i]), s.gpVar[i]))
}

// rank is the numerical rank of the spectrum's kernel matrix: the
// eigenvalues above 1e-10·λ_max.
func (fb *blrBumps) rank() int {
	ev := fb.spec.Eigenvalues()
	_, hi := fb.spec.MinMax()
	r := 0
	for _, l := range ev {
		if l > 1e-10*hi {
			r++
		}
	}
	return r
}

// compare refits the GP with the matching kernel and the batch posterior
// on the observations so far, and records how far they are from the
// sequential BLR.
func (s *blrSim) compare() error {
	if s.fb != nil {
		return s.compareBumps()
	}
	n := s.b.N()
	post, err := gp.Fit(s.b.Kernel(), s.in[:n], s.y[:n], s.noise)
	if err != nil {
		return err
	}
	s.gpMean, s.gpVar = post.Predict(s.chartIn)
	s.gpDiff, s.gpSize = 0, 0
	for i, x := range s.chartX {
		m, v := s.b.Predict(x)
		s.gpGap(i, m, v)
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
	if s.fb != nil {
		s.fb.wb.Observe(s.fb.phi[n], s.y[n])
	}
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
	if s.fb != nil {
		return s.bumpsFrame()
	}
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

// bumpsFrame is the Frame of features=bumps.
func (s *blrSim) bumpsFrame() sims.Frame {
	fb := s.fb
	n := fb.wb.N()
	mean, vari := make([]float64, chartPoints), make([]float64, chartPoints)
	for i, p := range fb.chartPhi {
		mean[i], vari[i], _ = fb.wb.Predict(p) // factorised by the step's compare
	}
	dots := dataMarkers(s.x, s.y, n)
	blrBand, blrMean := meanBand(s.chartX, mean, vari, 1)
	gpBand, gpMean := meanBand(s.chartX, s.gpMean, s.gpVar, 1)
	m := len(fb.bumps.Centres)
	var priors []sims.Path
	lo, hi := -1.0, 1.0
	for c, f := range fb.prior {
		priors = append(priors, sims.Path{X: s.chartX, Y: f, Class: c})
		for _, v := range f {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	base, h := lo-0.3*(hi-lo), 0.25*(hi-lo)
	for i := 0; i < m; i++ { // the bumps, faintly, as a rug under the draws
		p := sims.Path{X: s.chartX, Y: make([]float64, chartPoints), Class: blrPriors, Dotted: true}
		for j, ph := range fb.chartPhi {
			p.Y[j] = base + h*ph[i]
		}
		priors = append(priors, p)
	}
	pview := sims.Rect{XMin: s.chartX[0], XMax: s.chartX[chartPoints-1], YMin: base, YMax: hi}.Pad(0.05)
	// The spectrum of K = ΦΦᵀ/α, descending, relative to λ_max.
	ev := fb.spec.Eigenvalues()
	_, top := fb.spec.MinMax()
	rel, cut := make([]float64, len(ev)), make([]float64, len(ev))
	for k := range ev {
		rel[k] = sims.NoiseFloor(ev[len(ev)-1-k]/top, 1)
		cut[k] = 1e-10
	}
	r := fb.rank()
	k := fb.spec.N()
	if n == 0 {
		k, r = 0, 0
		rel, cut = nil, nil
	}
	undef := "features=bumps has M weights, not (w₀, w₁)"
	return sims.Frame{
		Sim:  BLR.Name,
		Step: n,
		Metrics: []sims.Metric{
			{Name: "n", Value: float64(n)},
			{Name: "w0", Undefined: undef},
			{Name: "w1", Undefined: undef},
			{Name: "gp_diff", Value: s.gpDiff, Scale: s.gpSize},
			{Name: "batch_diff", Undefined: "features=bumps: checked against the GP only (gp_diff)"},
			{Name: "rank", Value: float64(r)},
		},
		Charts: []sims.Chart{
			sims.CanvasChart{
				Title: fmt.Sprintf("BLR on %d bumps: posterior", m), View: s.view, Markers: dots,
				Bands: blrBand, Paths: []sims.Path{blrMean},
				Legend: []string{"observed", "mean ± 2σ"},
				XLabel: "x", YLabel: "y",
			},
			sims.CanvasChart{
				Title: "four prior draws f = Φw, w ~ N(0, I/α)", View: pview, Paths: priors,
				Legend: []string{"draw 1", "draw 2", "draw 3", "draw 4", "bumps φ_i (rug)"},
				XLabel: "x", YLabel: "f",
			},
			sims.LineChart{
				Title: fmt.Sprintf("spectrum of ΦΦᵀ/α, %d inputs: rank %d ≤ M", k, r), LogY: true,
				X0: 1, X1: float64(max(k, 1)), XLabel: "k",
				Series: []sims.Series{
					{Name: "λ_k/λ_max", Y: rel, Class: 0},
					{Name: "1e-10 cut", Y: cut, Class: 9, Bound: true},
				},
			},
			sims.CanvasChart{
				Title: "GP, k = φ(x)ᵀφ(x')/α: same", View: s.view, Markers: dots,
				Bands: gpBand, Paths: []sims.Path{gpMean},
				Legend: []string{"observed", "GP mean ± 2σ"},
				XLabel: "x", YLabel: "y",
			},
		},
		Text: []string{
			fmt.Sprintf("%d bumps φ_i(x) = exp(−(x−c_i)²/(2s²)), s = %g; w ~ N(0, I/α), α = %g; σ² = %g", m, fb.width, s.alpha, s.noise),
			fmt.Sprintf("the GP with k = φ(x)ᵀφ(x')/α: same mean and variance (max diff %s)", sims.IsResidual("%.1e", s.gpDiff, s.gpSize)),
			fmt.Sprintf("K = ΦΦᵀ/α has rank ≤ M = %d, singular for n > M: σ² > 0 makes K + σ²I invertible (Remark 4.11)", m),
		},
	}
}

func (s *blrSim) Result() map[string]any {
	if s.fb != nil {
		mu, _ := s.fb.wb.Mean()
		return map[string]any{
			"mean_w":     append([]float64(nil), mu...),
			"n_observed": s.fb.wb.N(),
			"gp_diff":    s.gpDiff,
			"rank":       s.fb.rank(),
			"spectrum":   append([]float64(nil), s.fb.spec.Eigenvalues()...),
		}
	}
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
