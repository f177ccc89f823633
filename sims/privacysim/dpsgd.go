package privacysim

import (
	"fmt"
	"github.com/thelab/lab/algo/tensor"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/thelab/lab/algo/digits"
	"github.com/thelab/lab/algo/nn"
	"github.com/thelab/lab/algo/privacy"
	"github.com/thelab/lab/algo/tensor/opt"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// DPSGD is DP-SGD (Algorithm 2, seed 001 L1689–L1706, catalogue [A39])
// on the lab's classifiers: four copies of the model train in lockstep on
// the same batches with noise multipliers 0 (plain SGD), σ/2, σ and 2σ;
// the pane shows the per-example gradient norms of the σ run against the
// clip line, the clipped fraction, test accuracy of the four, and ε(δ)
// accumulating by the RDP accountant of the subsampled Gaussian mechanism.
// noise=mean is the notes' placement (σC on the mean gradient), noise=sum
// Abadi et al.'s and Opacus's (σC on the sum, σC/b on the mean:
// catalogue E33).
var DPSGD = &sims.Spec{
	Name:   "dp-sgd",
	Title:  "DP-SGD: per-example clipping and noise, accuracy for several σ, ε(δ) by an RDP accountant",
	Source: "seed 001 §19 (Algorithm 2, L1689–L1706; Prop 19.4, Example 19.5)",
	Steps:  130, // the default 4 epochs are 125 steps
	Speed:  5,
	Params: param.List(dpModel, dpN, dpBatch, dpClip, dpNoise, dpSigma, dpLR, dpEpochs, dpDelta, dpTarget),
	New:    newDPSGD,
	Size:   dpSize,

	Metrics: dpsgdMetrics,
}

// dpSize is the training and test sets, the four networks (σ = 0, σ/2,
// σ, 2σ) with their DP-SGD (privacy.SGDBytes), the evaluator, the norms
// kept for the histogram, and the traces of accuracy, loss, clipping and
// ε, a row a step up to the run's end, with the Frame's copies.
func dpSize(cfg sims.Config) int64 {
	v := cfg.Values
	n, b := dpN.Get(v), dpBatch.Get(v)
	d, out := 64, 10
	if dpModel.Get(v) == modelLogistic {
		d, out = 2, 1
	}
	a := nn.MLPConfig{In: d, Out: out, Act: nn.Tanh}
	if dpModel.Get(v) == modelMLP {
		a.Hidden = []int{dpHidden}
	}
	loss := nn.CrossEntropy
	if out == 1 {
		loss = nn.Logistic
	}
	test := n / 4
	runs := int64(len(dpFactors)) * (nn.ParamBytes(a) +
		privacy.SGDBytes(a, loss, n, d, out, privacy.SGDConfig{Batch: min(b, n), Opt: opt.Config{Method: opt.SGD}}))
	cols := 2*len(dpFactors) + 1 + len(dpFactors) - 1
	rows := min(sims.TraceCap, int(math.Ceil(dpEpochs.Get(v)*float64(n)/float64(b)))+1)
	traces := 8*sims.TraceCap*int64(cols) + int64(cols)*tensor.Alloc(rows)
	return tensor.Slack(32<<10 + nn.SetBytes(n, d) + nn.SetBytes(test, d) + runs +
		nn.EvaluatorBytes(a, dpChunk, test, d, out, loss) + tensor.Alloc(dpNormKeep) + traces)
}

// dpHidden is the digits MLP's hidden units; dpChunk the evaluator's.
const (
	dpHidden = 32
	dpChunk  = 512
)

type dpModelKind string

func (m dpModelKind) String() string { return string(m) }

const (
	modelMLP      dpModelKind = "digits-mlp"
	modelSoftmax  dpModelKind = "digits-linear"
	modelLogistic dpModelKind = "logistic"
)

var (
	dpModel = param.Choice("model", []dpModelKind{modelMLP, modelSoftmax, modelLogistic}, modelMLP,
		"digits-mlp: the 8×8 digits MLP 64–32–10 (tanh); digits-linear: softmax regression on the digits; "+
			"logistic: logistic regression on two Gaussian blobs in the plane")
	dpN     = param.Int("n", 2000, "training examples (and a quarter as many test examples)").Range(100, 20000)
	dpBatch = param.Int("batch", 64, "batch size b: the sampling rate is q = b/n").Range(1, 1024)
	dpClip  = param.Float("clip", 1, "clip norm C of each per-example gradient").Range(1e-3, 100)
	dpNoise = param.Choice("noise", []privacy.Noise{privacy.NoiseMean, privacy.NoiseSum}, privacy.NoiseMean,
		"mean: the notes' σC on the mean gradient (noise multiplier σb on the clipped sum); "+
			"sum: Abadi et al. and Opacus, σC on the sum, σC/b on the mean")
	dpSigma = param.Float("sigma", 0.02, "σ of the noise σC·z; the pane also trains σ = 0, σ/2 and 2σ").Range(0, 100).
		DefaultWhen(func(v param.Values) bool { return dpNoise.Get(v) == privacy.NoiseSum }, 1,
			"0.02 (noise=mean: multiplier 0.02·b); 1 for noise=sum")
	dpLR     = param.Float("lr", 0.5, "step size η of w ← w − ηg").Range(0, 10).OpenMin()
	dpEpochs = param.Float("epochs", 4, "passes over the training set; the run stops there").Range(0.01, 1000)
	dpDelta  = param.Float("delta", 1e-5, "δ of ε(δ)").Range(1e-12, 0.1)
	dpTarget = param.Float("target", 0, "a privacy target ε at δ that the whole run must stay within; 0: none").Range(0, 1000)
)

// dpFactors are the noise multipliers of the four runs, as multiples of σ.
var dpFactors = []float64{0, 0.5, 1, 2}

// dpNormKeep is the per-example norms the histogram keeps: the last
// batches' of the σ run.
const dpNormKeep = 512

type dpRun struct {
	sgd   *privacy.SGD
	model nn.Model
	acc   float64
	loss  float64
	sigma float64
}

type dpSim struct {
	runs         []*dpRun
	test         *nn.Set
	eval         *nn.Evaluator
	clip, delta  float64
	steps, maxSt int
	q            float64
	noise        privacy.Noise
	norms        []float64 // ring of the σ run's recent per-example norms
	nNorms       int
	curves       *sims.Trace // per step: each run's test accuracy, then its test loss, then the clipped fraction
	eps          *sims.Trace
	clipped      float64
	target       float64
}

func newDPSGD(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	train, test, err := dpData(dpModel.Get(v), dpN.Get(v), streamRNG(cfg.Seed, dataStream))
	if err != nil {
		return nil, err
	}
	b := dpBatch.Get(v)
	if b > train.N {
		return nil, fmt.Errorf("parameter batch = %d: more than the %d training examples", b, train.N)
	}
	s := &dpSim{test: test, clip: dpClip.Get(v), delta: dpDelta.Get(v), q: float64(b) / float64(train.N),
		noise: dpNoise.Get(v), norms: make([]float64, dpNormKeep), target: dpTarget.Get(v)}
	s.maxSt = max(1, int(math.Ceil(dpEpochs.Get(v)*float64(train.N)/float64(b))))
	sigma := dpSigma.Get(v)
	if s.target > 0 {
		if sigma == 0 {
			return nil, fmt.Errorf("parameter target = %g: unreachable with sigma = 0 (no noise, no privacy)", s.target)
		}
		per := 1.0
		if s.noise == privacy.NoiseMean {
			per = float64(b) // the multiplier on the clipped sum is σb
		}
		if err := privacy.CheckTarget(s.q, sigma, per, s.maxSt, s.target, s.delta); err != nil {
			return nil, fmt.Errorf("parameter target: %w (noise=%s, epochs = %g)", err, s.noise, dpEpochs.Get(v))
		}
	}
	in, out := train.D, train.Classes
	if out == 2 {
		out = 1
	}
	var hidden []int
	if dpModel.Get(v) == modelMLP {
		hidden = []int{dpHidden}
	}
	for _, f := range dpFactors {
		// every run starts from the same weights and sees the same batches
		m, err := nn.NewMLP(nn.MLPConfig{In: in, Hidden: hidden, Out: out, Act: nn.Activation("tanh")}, streamRNG(cfg.Seed, initStream))
		if err != nil {
			return nil, err
		}
		sg, err := privacy.NewSGD(m, train, privacy.SGDConfig{Batch: b, Clip: s.clip, Sigma: f * sigma, Noise: s.noise,
			Opt: opt.Config{Method: opt.SGD, LR: dpLR.Get(v)}}, streamRNG(cfg.Seed, batchStream), streamRNG(cfg.Seed, noiseStream+uint64(10*f)))
		if err != nil {
			return nil, err
		}
		s.runs = append(s.runs, &dpRun{sgd: sg, model: m, sigma: f * sigma})
	}
	if s.eval, err = nn.NewEvaluator(in, dpChunk); err != nil {
		return nil, err
	}
	s.curves, s.eps = sims.NewTrace(0, 2*len(dpFactors)+1), sims.NewTrace(0, len(dpFactors)-1)
	if err := s.evaluate(); err != nil {
		return nil, err
	}
	s.eps.Add(0, 0, 0)
	return s, nil
}

// dpData is the training and test sets: procedural 8×8 digits, or two
// Gaussian blobs N(±(1, 1), I) labelled by blob.
func dpData(kind dpModelKind, n int, rng *rand.Rand) (train, test *nn.Set, err error) {
	total := n + n/4
	var all *nn.Set
	if kind == modelLogistic {
		x, labels := make([]float64, 2*total), make([]int, total)
		for i := range labels {
			labels[i] = i % 2
			c := float64(2*labels[i] - 1)
			x[2*i], x[2*i+1] = c+rng.NormFloat64(), c+rng.NormFloat64()
		}
		all, err = nn.NewClassSet(x, 2, labels, 2)
	} else {
		pix, labels, gerr := digits.Generate(rng, total, 8, digits.Default)
		if gerr != nil {
			return nil, nil, gerr
		}
		all, err = nn.NewClassSet(pix, 64, labels, 10)
	}
	if err != nil {
		return nil, nil, err
	}
	return all.Split(float64(n)/float64(total), rng)
}

// evaluate scores every run on the test set and records a row of curves.
func (s *dpSim) evaluate() error {
	row := make([]float64, 2*len(s.runs)+1)
	for i, r := range s.runs {
		e, err := s.eval.Run(r.model, s.test, nil)
		if err != nil {
			return err
		}
		r.acc, r.loss = e.Accuracy, e.Loss
		row[i], row[len(s.runs)+i] = e.Accuracy, e.Loss
	}
	row[2*len(s.runs)] = s.clipped
	s.curves.Add(row...)
	return nil
}

// Step is one DP-SGD step of each run.
func (s *dpSim) Step() error {
	if s.steps >= s.maxSt {
		return fmt.Errorf("%.3g epochs done: %w", s.runs[0].sgd.Epochs(), sims.ErrConverged)
	}
	for _, r := range s.runs {
		if err := r.sgd.Step(); err != nil {
			return err
		}
	}
	s.steps++
	main := s.runs[2].sgd
	for _, g := range main.Norms() {
		s.norms[s.nNorms%dpNormKeep] = g
		s.nNorms++
	}
	s.clipped = main.Clipped()
	eps := make([]float64, 0, 3)
	for _, r := range s.runs[1:] {
		e, _ := r.sgd.Epsilon(s.delta)
		eps = append(eps, sims.FiniteOr(e, 0)) // σ = 0: not private at all, drawn at 0 and said so
	}
	s.eps.Add(eps...)
	return s.evaluate()
}

func (s *dpSim) Frame() sims.Frame {
	main := s.runs[2]
	eps, order := main.sgd.Epsilon(s.delta)
	metrics := []sims.Metric{
		{Name: "epoch", Value: main.sgd.Epochs()},
		sims.MetricOr("ε", eps, noNoise),
		rdpOrder(eps, order),
		{Name: "clipped", Value: s.clipped},
		{Name: "acc σ", Value: main.acc},
		{Name: "acc σ=0", Value: s.runs[0].acc},
	}
	return sims.Frame{Sim: DPSGD.Name, Step: s.steps, Metrics: metrics,
		Charts: []sims.Chart{s.histogram(), s.accuracy(), s.epsilon(), s.lossChart()}, Text: s.notes(eps, order)}
}

func (s *dpSim) label(i int) string {
	if i == 0 {
		return "σ = 0"
	}
	return fmt.Sprintf("σ = %.3g", s.runs[i].sigma)
}

func (s *dpSim) histogram() sims.Chart {
	k := min(s.nNorms, dpNormKeep)
	hi := 2 * s.clip
	for _, g := range s.norms[:k] {
		hi = math.Max(hi, g)
	}
	hi *= 1.05
	const bins = 40
	dens := make([]float64, bins)
	w := hi / bins
	for _, g := range s.norms[:k] {
		dens[min(int(g/w), bins-1)] += 1 / (float64(k) * w)
	}
	top := 0.0
	for _, d := range dens {
		top = math.Max(top, d)
	}
	return sims.HistChart{Title: fmt.Sprintf("per-example ‖∇ℓ_i‖ (σ run, last %d), clip C = %.3g", k, s.clip),
		Lo: 0, Hi: hi, Density: dens, XLabel: "‖g_i‖", Label: "norms",
		Curves: []sims.Curve{{Name: "clip C", X: []float64{s.clip - hi/400, s.clip, s.clip + hi/400}, Y: []float64{0, math.Max(top, 1e-9), 0}, Class: 3}}}
}

func (s *dpSim) accuracy() sims.Chart {
	x0, x1 := s.curves.Span()
	var series []sims.Series
	for i := range s.runs {
		series = append(series, sims.Series{Name: s.label(i), Y: s.curves.Column(i), Class: i})
	}
	series = append(series, sims.Series{Name: "clipped (σ run)", Y: s.curves.Column(2 * len(s.runs)), Class: 4, Bound: true})
	return sims.LineChart{Title: "test accuracy; fraction of the σ run's batch clipped", X0: x0, X1: x1, XLabel: "step", Series: series, Fraction: true}
}

func (s *dpSim) lossChart() sims.Chart {
	x0, x1 := s.curves.Span()
	var series []sims.Series
	for i := range s.runs {
		series = append(series, sims.Series{Name: s.label(i), Y: s.curves.Column(len(s.runs) + i), Class: i})
	}
	return sims.LineChart{Title: "test loss", X0: x0, X1: x1, XLabel: "step", Series: series}
}

func (s *dpSim) epsilon() sims.Chart {
	x0, x1 := s.eps.Span()
	var series []sims.Series
	for i := 1; i < len(s.runs); i++ {
		series = append(series, sims.Series{Name: s.label(i), Y: s.eps.Column(i - 1), Class: i})
	}
	if s.target > 0 {
		series = append(series, sims.Series{Name: "target", Y: s.eps.Map(func(int) float64 { return s.target }), Class: 4, Bound: true})
	}
	return sims.LineChart{Title: fmt.Sprintf("ε(δ = %.2g) by the RDP accountant", s.delta), X0: x0, X1: x1, XLabel: "step", Series: series}
}

func (s *dpSim) notes(eps, order float64) []string {
	main := s.runs[2].sgd
	place := "noise=mean (the notes): σC on the mean gradient, σb·C on the sum"
	if s.noise == privacy.NoiseSum {
		place = "noise=sum (Abadi et al., Opacus): σC on the sum, σC/b on the mean"
	}
	return []string{
		place,
		fmt.Sprintf("q = b/n = %.3g, multiplier %.3g: noise s.d. %.3g on the mean gradient",
			s.q, main.NoiseMultiplier(), main.NoiseStd()),
		fmt.Sprintf("ε = %.4g at δ = %.2g (α = %.3g); the notes' \"ε√k\" is informal (E34)", sims.FiniteOr(eps, 0), s.delta, order),
	}
}

func (s *dpSim) Result() map[string]any {
	acc := make([]float64, len(s.runs))
	eps := make([]float64, len(s.runs))
	for i, r := range s.runs {
		acc[i] = r.acc
		e, _ := r.sgd.Epsilon(s.delta)
		eps[i] = e
	}
	r := map[string]any{"sigmas": []float64{s.runs[0].sigma, s.runs[1].sigma, s.runs[2].sigma, s.runs[3].sigma},
		"accuracy": acc, "epsilon": eps, "steps": s.steps, "epochs": s.runs[2].sgd.Epochs(), "clipped": s.clipped,
		"noise_multiplier": s.runs[2].sgd.NoiseMultiplier()}
	if slices.ContainsFunc(eps, func(e float64) bool { return math.IsInf(e, 1) }) {
		r["undefined"] = map[string]string{"epsilon": "null for a run without noise: " + noNoise}
	}
	return r
}

// rdpOrder is the metric of the order at which ε is least, undefined with
// ε.
func rdpOrder(eps, order float64) sims.Metric {
	if math.IsInf(eps, 1) {
		return sims.Metric{Name: "α*", Undefined: noNoise}
	}
	return sims.Metric{Name: "α*", Value: order}
}

// noNoise is why a run's ε has no value.
const noNoise = "σ = 0 adds no noise: the run is not private, its ε is infinite"
