package rffsim

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/dataset"
	"github.com/thelab/lab/algo/gp"
	kern "github.com/thelab/lab/algo/kernel"
	"github.com/thelab/lab/algo/rff"
	"github.com/thelab/lab/algo/svm"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// Models puts a model on m random Fourier features beside its exact-kernel
// twin, one feature a step (seed-003/004 catalogue X1–X3).
var Models = &sims.Spec{
	Name:  "rff-models",
	Title: "Models on random features vs their exact-kernel twins: GP, SVM, perceptron as m grows",
	Source: "seed 003 L840–874, L934–1031 (BLR → GP), L65–75 (kernel perceptron), L683–802 (SVM); seed 004 L77 " +
		"(the RFF map); seed-003/004 catalogue X1–X3",
	Steps:   128,
	Speed:   5,
	Params:  param.List(modModel, modN, modGamma, modNoise, modC, modMMax),
	New:     newModels,
	Size:    modSize,
	Metrics: modelsMetrics,
}

// rffModel is the model of rff-models.
type rffModel string

func (m rffModel) String() string { return string(m) }

const (
	modelGP         rffModel = "gp"
	modelSVM        rffModel = "svm"
	modelPerceptron rffModel = "perceptron"
)

func isGP(v param.Values) bool { return modModel.Get(v) == modelGP }

var (
	modModel = param.Choice("model", []rffModel{modelGP, modelSVM, modelPerceptron}, modelGP,
		"gp: Bayesian linear regression on φ(x) = the GP with kernel K̂ (X1); svm: linear SVM on φ vs kernel SVM (X2); "+
			"perceptron: primal perceptron on (1, φ) vs kernel perceptron (X3)")
	modN     = param.Int("n", 40, "data points: a noisy sin 2πx with a gap (gp), two moons (svm, perceptron)").Range(4, 150)
	modGamma = param.Float("gamma", 2, "RBF kernel exp(−γ‖x−z‖²); its features w ~ N(0, 2γI)").Range(0.01, 200).
			DefaultWhen(isGP, 20, "2; 20 for model=gp (inputs on [0, 1])")
	modNoise = param.Float("noise", 0.01, "gp: the noise variance σ² (C = K + σ²I)").Range(1e-4, 1)
	modC     = param.Float("c", 10, "svm: the box bound C of the soft-margin dual").Range(0.01, 1000)
	modMMax  = param.Int("m_max", 128, "stop after this many frequencies (2m features; 26 s at the pane's speed)").Range(8, 256)
)

// The 2-D map's grid and the GP's test points.
const (
	modNX, modNY = 48, 32
	modGPGrid    = 120
)

// modSize is the data, the feature map of the data and the test points,
// the GP's (2m)² systems or the SVM's and perceptron's n×n Gram matrices,
// and the pictures.
func modSize(cfg sims.Config) int64 {
	v := cfg.Values
	n, mMax := modN.Get(v), modMMax.Get(v)
	nt := modNX * modNY
	if isGP(v) {
		nt = modGPGrid
	}
	size := rffBase + rff.FeaturesFootprint(n+nt, 2, mMax) + int64(n+nt)*(24+16) + 16*8*int64(nt)
	if isGP(v) {
		size += rff.WeightSpaceGPFootprint(nt, mMax) + 8*int64(n)*int64(n) // + the exact posterior's factor
	} else {
		size += 4*8*int64(n)*int64(n) + int64(n)*(24+16*int64(mMax)+8) + 3*kern.PerceptronFootprint(n)
	}
	return size
}

type modelsSim struct {
	model      rffModel
	feat       *rff.Features
	n          int
	x          [][]float64 // data, then test points
	y          []float64   // targets, or labels ±1
	mMax       int
	gamma      float64
	noise, c   float64
	view       sims.Rect
	wgp        *rff.WeightSpaceGP
	exactMean  []float64 // gp at the test points
	exactSD    []float64
	exactF     []float64 // svm, perceptron: the exact decision on the grid
	rffF       []float64
	exactTrain int // perceptron mistakes, or training errors
	rffTrain   int
	exactNote  string
	ms         []int
	gap        []float64 // gp: RMS gap of the means; else disagreement on the grid
	nextRec    int
	phi        []float64
}

func newModels(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x6d6f64)) // "mod"
	s := &modelsSim{
		model: modModel.Get(v), n: modN.Get(v), mMax: modMMax.Get(v), gamma: modGamma.Get(v),
		noise: modNoise.Get(v), c: modC.Get(v), nextRec: 1,
	}
	k := kern.RBF{Gamma: s.gamma}
	d := 2
	if s.model == modelGP {
		d = 1
		data, err := dataset.Sinusoid(rng, s.n, 0.1, 0.6, 0.8)
		if err != nil {
			return nil, err
		}
		s.x, s.y = data.X, data.Y
		s.view = sims.Rect{XMin: -0.1, XMax: 1.1, YMin: -2, YMax: 2}
		for t := range modGPGrid {
			s.x = append(s.x, []float64{s.view.XMin + (s.view.XMax-s.view.XMin)*float64(t)/float64(modGPGrid-1)})
		}
		post, err := gp.Fit(k, s.x[:s.n], s.y, s.noise)
		if err != nil {
			return nil, err
		}
		var vr []float64
		s.exactMean, vr = post.Predict(s.x[s.n:])
		s.exactSD = make([]float64, len(vr))
		for i, t := range vr {
			s.exactSD[i] = math.Sqrt(math.Max(t, 0))
		}
	} else {
		data, err := dataset.Moons(rng, s.n, 0.15)
		if err != nil {
			return nil, err
		}
		s.x = data.X
		for _, c := range data.Y {
			s.y = append(s.y, 2*c-1)
		}
		s.view = sims.Rect{XMin: -1.6, XMax: 2.6, YMin: -1.1, YMax: 1.6}
		dx := (s.view.XMax - s.view.XMin) / modNX
		dy := (s.view.YMax - s.view.YMin) / modNY
		for j := 0; j < modNY; j++ {
			for i := 0; i < modNX; i++ {
				s.x = append(s.x, []float64{s.view.XMin + (float64(i)+0.5)*dx, s.view.YMin + (float64(j)+0.5)*dy})
			}
		}
		if err := s.fitExact(k); err != nil {
			return nil, err
		}
		s.rffF = make([]float64, modNX*modNY)
	}
	smp, err := rff.NewSampler(d, s.gamma, rff.IID, rand.New(rand.NewPCG(cfg.Seed, 1)))
	if err != nil {
		return nil, err
	}
	if s.feat, err = rff.NewFeatures(s.x, smp, s.mMax); err != nil {
		return nil, err
	}
	s.phi = make([]float64, 2*s.mMax)
	if s.model == modelGP {
		if s.wgp, err = rff.NewWeightSpaceGP(s.feat, s.y, s.noise); err != nil {
			return nil, sims.Blame(err, v)
		}
	}
	return s, nil
}

// fitExact runs the exact-kernel twin to its end on the exact Gram matrix:
// the kernel SVM by SMO, or the kernel perceptron (with the constant
// feature, K + 1), and evaluates it on the grid.
func (s *modelsSim) fitExact(k kern.Kernel) error {
	gram := kern.Gram(k, s.x[:s.n])
	cross := kern.Cross(k, s.x[s.n:], s.x[:s.n])
	s.exactF = make([]float64, len(s.x)-s.n)
	if s.model == modelSVM {
		smo, err := svm.New(gram, s.y, svm.Config{C: s.c, Tol: 1e-6})
		if err != nil {
			return err
		}
		if err := runToEnd(smo.Step, 200000); err != nil {
			return err
		}
		b := smo.Bias()
		for g := range s.exactF {
			s.exactF[g] = smo.Decision(cross[g*s.n:(g+1)*s.n], b)
		}
		for i := 0; i < s.n; i++ {
			if s.y[i]*smo.Decision(gram[i*s.n:(i+1)*s.n], b) <= 0 {
				s.exactTrain++
			}
		}
		free, bounded, _ := smo.Counts()
		s.exactNote = fmt.Sprintf("%d support vectors", free+bounded)
		return nil
	}
	p, err := kern.NewPerceptron(gram, s.y, kern.PerceptronConfig{Bias: true, Order: kern.Cyclic, MaxEpochs: modEpochs}, nil)
	if err != nil {
		return err
	}
	if err := runToEnd(p.Step, 1<<30); err != nil && !errors.Is(err, kern.ErrMaxEpochs) {
		return err
	}
	for g := range s.exactF {
		s.exactF[g] = p.Decision(cross[g*s.n : (g+1)*s.n])
	}
	s.exactTrain = p.Mistakes()
	s.exactNote = fmt.Sprintf("%d mistakes in %d epochs", p.Mistakes(), p.Epoch())
	return nil
}

// modEpochs caps both perceptrons: moons with noise need not be separable
// in feature space.
const modEpochs = 50

// runToEnd steps until ErrConverged (nil), another error, or max steps.
func runToEnd(step func() error, max int) error {
	for range max {
		if err := step(); err != nil {
			if errors.Is(err, algo.ErrConverged) {
				return nil
			}
			return err
		}
	}
	return nil
}

func (s *modelsSim) Step() error {
	if s.feat.M() >= s.mMax {
		return algo.ErrConverged
	}
	switch s.model {
	case modelGP:
		if err := s.wgp.Step(); err != nil {
			return err
		}
	default:
		if err := s.feat.Add(); err != nil {
			return err
		}
		if err := s.fitRFF(); err != nil {
			return err
		}
	}
	if m := s.feat.M(); m >= s.nextRec {
		s.ms = append(s.ms, m)
		s.gap = append(s.gap, s.gapNow())
		s.nextRec = max(m+1, int(math.Round(math.Pow(2, float64(len(s.ms))/4))))
	}
	return nil
}

// fitRFF trains the linear model on the features φ_m of the data: the
// SVM by SMO on the Gram matrix ΦΦᵀ = K̂_m (the linear kernel on φ), with
// weights w = Σα_iy_iφ(x_i) then evaluated as wᵀφ(x) + b; the primal
// perceptron on (1, φ(x)), cyclic, the dual of the kernel perceptron with
// K̂_m + 1 (seed 003 L64–65).
func (s *modelsSim) fitRFF() error {
	n, m := s.n, s.feat.M()
	phis := make([][]float64, n)
	for i := range phis {
		phis[i] = append([]float64{1}, s.feat.Phi(i, s.phi)...)
	}
	w := make([]float64, 2*m+1)
	b := 0.0
	s.rffTrain = 0
	if s.model == modelSVM {
		gram := make([]float64, n*n)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				gram[i*n+j] = dot(phis[i][1:], phis[j][1:])
			}
		}
		smo, err := svm.New(gram, s.y, svm.Config{C: s.c, Tol: 1e-6})
		if err != nil {
			return err
		}
		if err := runToEnd(smo.Step, 200000); err != nil {
			return err
		}
		for i, a := range smo.Alpha() {
			for j, u := range phis[i][1:] {
				w[j+1] += a * s.y[i] * u
			}
		}
		b = smo.Bias()
		for i := range phis {
			if s.y[i]*(dot(w[1:], phis[i][1:])+b) <= 0 {
				s.rffTrain++
			}
		}
	} else {
		p, err := kern.NewPrimal(phis, s.y)
		if err != nil {
			return err
		}
		for range modEpochs {
			clean := true
			for i := range phis {
				if p.Present(i) {
					clean = false
				}
			}
			if clean {
				break
			}
		}
		copy(w, p.W())
		s.rffTrain = len(p.History())
	}
	for g := range s.rffF {
		phi := s.feat.Phi(s.n+g, s.phi)
		s.rffF[g] = w[0] + b + dot(w[1:], phi)
	}
	return nil
}

// gapNow is the GP's RMS gap between the two means on the test points, or
// the classifiers' disagreement on the grid.
func (s *modelsSim) gapNow() float64 {
	if s.model == modelGP {
		sum := 0.0
		for i, v := range s.wgp.Mean() {
			sum += (v - s.exactMean[i]) * (v - s.exactMean[i])
		}
		return math.Sqrt(sum / float64(len(s.exactMean)))
	}
	return 1 - s.agreement()
}

func (s *modelsSim) agreement() float64 {
	same := 0
	for g, f := range s.rffF {
		if (f > 0) == (s.exactF[g] > 0) {
			same++
		}
	}
	return float64(same) / float64(len(s.rffF))
}

func (s *modelsSim) Frame() sims.Frame {
	m := s.feat.M()
	metrics := []sims.Metric{{Name: "m", Value: float64(m)}}
	var charts []sims.Chart
	if s.model == modelGP {
		charts = append(charts, s.gpChart(m))
		if m > 0 {
			sdGap := 0.0
			for i, v := range s.wgp.Var() {
				d := math.Sqrt(math.Max(v, 0)) - s.exactSD[i]
				sdGap += d * d
			}
			metrics = append(metrics,
				sims.Metric{Name: "gap", Value: s.gapNow()},
				sims.Metric{Name: "sd_gap", Value: math.Sqrt(sdGap / float64(len(s.exactSD)))})
		} else {
			metrics = append(metrics,
				sims.Metric{Name: "gap", Undefined: "no random feature yet"},
				sims.Metric{Name: "sd_gap", Undefined: "no random feature yet"})
		}
	} else {
		charts = append(charts, s.mapChart(m))
		if m > 0 {
			metrics = append(metrics, sims.Metric{Name: "agree", Value: s.agreement()})
		} else {
			metrics = append(metrics, sims.Metric{Name: "agree", Undefined: "no random feature yet"})
		}
		metrics = append(metrics, sims.Metric{Name: "errors_exact", Value: float64(s.exactTrain)})
		if m > 0 {
			metrics = append(metrics, sims.Metric{Name: "errors_rff", Value: float64(s.rffTrain)})
		} else {
			metrics = append(metrics, sims.Metric{Name: "errors_rff", Undefined: "no random feature yet"})
		}
	}
	charts = append(charts, s.gapChart())
	return sims.Frame{Sim: Models.Name, Step: m, Metrics: metrics, Charts: charts, Text: s.notes()}
}

func (s *modelsSim) gapChart() sims.LineChart {
	c := sims.LineChart{XLabel: "log₂ m"}
	if len(s.ms) > 1 {
		c.X0, c.X1 = math.Log2(float64(s.ms[0])), math.Log2(float64(s.ms[len(s.ms)-1]))
	}
	if s.model == modelGP {
		c.Title, c.LogY = "RMS gap of the means, RFF GP − exact GP", true
		ref := make([]float64, len(s.ms))
		for i, mm := range s.ms {
			ref[i] = s.gap[0] * math.Sqrt(float64(s.ms[0])/float64(mm))
		}
		c.Series = []sims.Series{
			{Name: "∝ m^−½ from m = 1", Y: ref, Class: 0, Bound: true},
			{Name: "gap", Y: append([]float64(nil), s.gap...), Class: 1},
		}
		return c
	}
	c.Title, c.Fraction = "agreement of the two classifiers on the grid", true
	agree := make([]float64, len(s.gap))
	for i, g := range s.gap {
		agree[i] = 1 - g
	}
	c.Series = []sims.Series{{Name: "agreement", Y: agree, Class: 1}}
	return c
}

func (s *modelsSim) gpChart(m int) sims.CanvasChart {
	xs := make([]float64, modGPGrid)
	for i := range xs {
		xs[i] = s.x[s.n+i][0]
	}
	band := func(mean, sd []float64, class int) sims.Band {
		lo, hi := make([]float64, len(mean)), make([]float64, len(mean))
		for i := range mean {
			lo[i], hi[i] = mean[i]-2*sd[i], mean[i]+2*sd[i]
		}
		return sims.Band{X: xs, Lo: lo, Hi: hi, Class: class}
	}
	c := sims.CanvasChart{
		Title:  fmt.Sprintf("GP posterior mean ±2σ: exact kernel vs %d random features (Bayesian linear regression)", m),
		View:   s.view,
		Bands:  []sims.Band{band(s.exactMean, s.exactSD, 0)},
		Paths:  []sims.Path{{X: xs, Y: s.exactMean, Class: 0}},
		Legend: []string{"exact-kernel GP", "RFF GP (weight space)", "data"},
		XLabel: "x", YLabel: "y",
	}
	if m > 0 {
		mean := append([]float64(nil), s.wgp.Mean()...)
		sd := make([]float64, len(mean))
		for i, v := range s.wgp.Var() {
			sd[i] = math.Sqrt(math.Max(v, 0))
		}
		c.Bands = append(c.Bands, band(mean, sd, 1))
		c.Paths = append(c.Paths, sims.Path{X: xs, Y: mean, Class: 1})
	}
	px, py := make([]float64, s.n), make([]float64, s.n)
	for i := 0; i < s.n; i++ {
		px[i], py[i] = s.x[i][0], s.y[i]
	}
	c.Points = []sims.PointSet{{Name: "data", X: px, Y: py, Class: 2}}
	return c
}

func (s *modelsSim) mapChart(m int) sims.CanvasChart {
	z := make([]float64, len(s.rffF))
	for g, f := range s.rffF {
		z[g] = 0.5
		if f <= 0 {
			z[g] = -0.5
		}
		if m == 0 {
			z[g] = math.NaN()
		}
	}
	ex := make([]float64, len(s.exactF))
	for g, f := range s.exactF {
		ex[g] = math.Max(-1, math.Min(1, f))
	}
	px, py := make([]float64, s.n), make([]float64, s.n)
	cls := make([]int, s.n)
	for i := 0; i < s.n; i++ {
		px[i], py[i] = s.x[i][0], s.x[i][1]
		if s.y[i] > 0 {
			cls[i] = 1
		}
	}
	name := "linear SVM on φ"
	if s.model == modelPerceptron {
		name = "perceptron on (1, φ)"
	}
	return sims.CanvasChart{
		Title:    fmt.Sprintf("%s, m = %d (regions) vs the exact-kernel boundary (line)", name, m),
		View:     s.view,
		Heat:     &sims.Grid{NX: modNX, NY: modNY, Z: z, Scale: sims.Diverging, Lo: -1, Hi: 1, Levels: 2},
		Contours: &sims.Grid{NX: modNX, NY: modNY, Z: ex, Lo: -1, Hi: 1, Levels: 2},
		Points:   []sims.PointSet{{Name: "data", X: px, Y: py, Classes: cls}},
		Legend:   []string{"y = −1", "y = +1"},
		XLabel:   "x1", YLabel: "x2",
	}
}

func (s *modelsSim) notes() []string {
	switch s.model {
	case modelGP:
		return []string{
			"θ ~ N(0, I_2m) on φ(x) = (cos, sin)(Wx)/√m: Cov f = ΦΦᵀ = K̂, so this is the GP with kernel K̂, exactly",
			fmt.Sprintf("weight space: mean φ*ᵀA⁻¹Φᵀy, var σ²φ*ᵀA⁻¹φ*, A = ΦᵀΦ + σ²I: O(nm² + m³), not O(n³); σ² = %g", s.noise),
			"K̂ → K as m grows, so the posterior approaches the exact GP's; its gap falls like m^−½",
		}
	case modelSVM:
		return []string{
			fmt.Sprintf("linear SVM on φ(x) ∈ R^2m (SMO on ΦΦᵀ, weights w = Σα_iy_iφ(x_i)) vs the RBF SVM, C = %g", s.c),
			fmt.Sprintf("exact: %s, %d training errors; as K̂ → K the regions match the line", s.exactNote, s.exactTrain),
		}
	}
	return []string{
		"perceptron w ← w + yφ on (1, φ(x)), cyclic: the kernel perceptron with K̂ + 1, run on 2m + 1 weights",
		fmt.Sprintf("exact kernel perceptron (K + 1): %s; as K̂ → K the two runs draw together", s.exactNote),
	}
}

func (s *modelsSim) Result() map[string]any {
	out := map[string]any{"m": s.feat.M(), "m_grid": append([]int(nil), s.ms...)}
	if s.model == modelGP {
		out["gap"] = append([]float64(nil), s.gap...)
	} else {
		out["disagreement"] = append([]float64(nil), s.gap...)
	}
	return out
}
