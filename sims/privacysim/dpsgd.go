package privacysim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/thelab/lab/algo/digits"
	"github.com/thelab/lab/algo/nn"
	"github.com/thelab/lab/algo/privacy"
	"github.com/thelab/lab/algo/tensor"
	"github.com/thelab/lab/algo/tensor/opt"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// DPSGD is DP-SGD (Algorithm 2, seed 001 L1689–L1706, catalogue [A39])
// on the lab's classifiers: four copies of the model train in lockstep on
// the same batches with noise multipliers 0 (plain SGD), σ/2, σ and 2σ;
// the pane shows the per-example gradient norms of the σ run against the
// clip line, the clipped fraction, test accuracy of the four, ε(δ)
// accumulating by the chosen accountant of the subsampled Gaussian
// mechanism, and the σ run's whole curve ε(δ) by the three accountants:
// the numerical PRV accountant (privacy.PLD, the default: its upper bound,
// exact to the bracket a note states), and RDP converted by Balle et al.
// (2020) or by Mironov (2017). noise=mean is the notes' placement (σC on
// the mean gradient), noise=sum Abadi et al.'s and Opacus's (σC on the
// sum, σC/b on the mean: catalogue E33).
var DPSGD = &sims.Spec{
	Name:   "dp-sgd",
	Title:  "DP-SGD: per-example clipping and noise, accuracy for several σ, ε(δ) by the PRV and RDP accountants",
	Source: "seed 001 §19 (Algorithm 2, L1689–L1706; Prop 19.4, Example 19.5)",
	Steps:  130, // the default 4 epochs are 125 steps
	Speed:  5,
	Params: param.List(dpModel, dpN, dpBatch, dpClip, dpNoise, dpSigma, dpLR, dpEpochs, dpDelta, dpAccountant, dpTarget),
	New:    newDPSGD,
	Size:   dpSize,

	Metrics: dpsgdMetrics,
}

// dpSize is the training and test sets, the four networks (σ = 0, σ/2,
// σ, 2σ) with their DP-SGD (privacy.SGDBytes), the evaluator, the norms
// kept for the histogram, the traces of accuracy, loss, clipping and ε, a
// row a step up to the run's end, with the Frame's copies, and the PRV
// accountants' grids (privacy.PLDBytes): the σ run's, and with
// accountant=prv the σ/2 and 2σ runs'.
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
	var plds int64
	q, maxSt := float64(min(b, n))/float64(n), dpMaxSteps(v, n, b)
	for _, f := range dpFactors[1:] {
		if f == 1 || dpAccountant.Get(v) == privacy.PRV {
			plds += privacy.PLDBytes(privacy.PLDLen(q, f*dpMultiplier(v, b), maxSt, dpEta))
		}
	}
	return tensor.Slack(32<<10 + nn.SetBytes(n, d) + nn.SetBytes(test, d) + runs +
		nn.EvaluatorBytes(a, dpChunk, test, d, out, loss) + tensor.Alloc(dpNormKeep) + traces + plds)
}

// dpMaxSteps is the steps of the run: epochs·n/b, at least one.
func dpMaxSteps(v param.Values, n, b int) int {
	return max(1, int(math.Ceil(dpEpochs.Get(v)*float64(n)/float64(b))))
}

// dpMultiplier is the σ run's noise multiplier on the clipped sum.
func dpMultiplier(v param.Values, b int) float64 {
	if dpNoise.Get(v) == privacy.NoiseMean {
		return dpSigma.Get(v) * float64(b)
	}
	return dpSigma.Get(v)
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
	dpLR         = param.Float("lr", 0.5, "step size η of w ← w − ηg").Range(0, 10).OpenMin()
	dpEpochs     = param.Float("epochs", 4, "passes over the training set; the run stops there").Range(0.01, 1000)
	dpDelta      = param.Float("delta", 1e-5, "δ of ε(δ)").Range(1e-12, 0.1)
	dpAccountant = param.Choice("accountant", []privacy.Method{privacy.PRV, privacy.RDPBalle, privacy.RDPMironov}, privacy.PRV,
		"how ε is counted: prv, the numerical accountant of the privacy loss distribution (Gopi et al. 2021), "+
			"its upper bound, exact to a stated bracket; rdp-balle, Rényi DP converted by Balle et al. 2020 (Opacus); "+
			"rdp-mironov, by Mironov 2017 (Abadi et al.'s moments accountant, TF Privacy)")
	dpTarget = param.Float("target", 0, "a privacy target ε at δ that the whole run must stay within; 0: none").Range(0, 1000)
)

// dpFactors are the noise multipliers of the four runs, as multiples of σ.
var dpFactors = []float64{0, 0.5, 1, 2}

const (
	// dpEta is the PRV accountant's precision (privacy.PRVEta, Opacus's
	// default ε error): its bracket is about 2·dpEta wide at the run's end.
	dpEta = privacy.PRVEta
	// dpEpsPoints is the number of points of the ε-by-step chart: the
	// accountants are asked every ⌈steps/dpEpsPoints⌉ steps (the PRV
	// accountant costs a few milliseconds a question).
	dpEpsPoints = 16
	// dpDeltaLo and dpDeltaHi are the decades of the ε(δ) chart, drawn at
	// dpDeltaPer points a decade.
	dpDeltaLo, dpDeltaHi, dpDeltaPer = -12, -1, 4
)

// dpNormKeep is the per-example norms the histogram keeps: the last
// batches' of the σ run.
const dpNormKeep = 512

type dpRun struct {
	sgd   *privacy.SGD
	model nn.Model
	acc   float64
	loss  float64
	sigma float64
	pld   *privacy.PLD // the PRV accountant (nil for σ = 0, or when not needed)
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
	eps          *sims.Trace // every epsEvery steps: ε of the σ/2, σ and 2σ runs by the accountant
	epsEvery     int
	clipped      float64
	target       float64
	acct         privacy.Method
	one          [1]privacy.Bracket // a buffer for one PRV question
	// the σ run's PRV brackets at the ε(δ) chart's δ and the run's δ
	// (last), as of step prvStep (−1: not yet asked)
	prvDeltas []float64
	prv       []privacy.Bracket
	prvStep   int
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
		noise: dpNoise.Get(v), norms: make([]float64, dpNormKeep), target: dpTarget.Get(v), acct: dpAccountant.Get(v), prvStep: -1}
	s.maxSt = dpMaxSteps(v, train.N, b)
	s.epsEvery = (s.maxSt + dpEpsPoints - 1) / dpEpsPoints
	sigma := dpSigma.Get(v)
	if s.target > 0 {
		if sigma == 0 {
			return nil, fmt.Errorf("parameter target = %g: unreachable with sigma = 0 (no noise, no privacy)", s.target)
		}
		per := 1.0
		if s.noise == privacy.NoiseMean {
			per = float64(b) // the multiplier on the clipped sum is σb
		}
		if err := privacy.CheckTarget(s.acct, s.q, sigma, per, s.maxSt, s.target, s.delta); err != nil {
			return nil, fmt.Errorf("parameter target: %w (noise=%s, epochs = %g, accountant=%s)", err, s.noise, dpEpochs.Get(v), s.acct)
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
		r := &dpRun{sgd: sg, model: m, sigma: f * sigma}
		if f*sigma > 0 && (f == 1 || s.acct == privacy.PRV) {
			if r.pld, err = privacy.NewPLD(s.q, sg.NoiseMultiplier(), s.maxSt, dpEta); err != nil {
				return nil, err
			}
		}
		s.runs = append(s.runs, r)
	}
	for k := range (dpDeltaHi-dpDeltaLo)*dpDeltaPer + 1 {
		s.prvDeltas = append(s.prvDeltas, math.Pow(10, dpDeltaLo+float64(k)/dpDeltaPer))
	}
	s.prvDeltas = append(s.prvDeltas, s.delta)
	s.prv = make([]privacy.Bracket, len(s.prvDeltas))
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
	if s.steps%s.epsEvery == 0 {
		var eps [3]float64
		for i, r := range s.runs[1:] {
			eps[i] = sims.FiniteOr(s.epsilon(r), 0) // σ = 0: not private at all, drawn at 0 and said so
		}
		s.eps.Add(eps[:]...)
	}
	return s.evaluate()
}

// epsilon is run r's ε(δ) by the sim's accountant, +Inf without noise:
// for prv the PRV accountant's upper bound, or RDP's (Balle et al.) where
// that is smaller (a grid too coarse for the run: prvBound).
func (s *dpSim) epsilon(r *dpRun) float64 {
	if s.acct != privacy.PRV || r.pld == nil {
		e, _ := r.sgd.EpsilonBy(s.acct, s.delta)
		return e
	}
	r.pld.Epsilon(r.sgd.Steps(), []float64{s.delta}, s.one[:])
	return prvBound(s.one[0], r, s.delta)
}

// prvBound is the smaller of two guaranteed upper bounds on ε(δ): the PRV
// bracket's and RDP's by Balle et al.'s conversion. The first is smaller
// unless the run needs a grid longer than privacy.PLDMaxLen (a tiny
// noise multiplier: then the bracket is wide, or +Inf).
func prvBound(b privacy.Bracket, r *dpRun, delta float64) float64 {
	e, _ := r.sgd.EpsilonBy(privacy.RDPBalle, delta)
	return math.Min(b.Hi, e)
}

// refreshPRV asks the σ run's PRV accountant for the chart's curve and
// the run's δ at the current step.
func (s *dpSim) refreshPRV() {
	if r := s.runs[2]; r.pld != nil {
		r.pld.Epsilon(s.steps, s.prvDeltas, s.prv)
	}
	s.prvStep = s.steps
}

// Settle brings the PRV figures up to the current step (sims.Settler);
// a running pane asks again once the steps have grown by a 64th.
func (s *dpSim) Settle() {
	if s.prvStep != s.steps {
		s.refreshPRV()
	}
}

func (s *dpSim) Frame() sims.Frame {
	if s.prvStep < 0 || s.steps-s.prvStep >= 1+s.steps/64 {
		s.refreshPRV()
	}
	main := s.runs[2]
	conv := privacy.RDPBalle
	if s.acct == privacy.RDPMironov {
		conv = privacy.RDPMironov
	}
	rdp, order := main.sgd.EpsilonBy(conv, s.delta)
	balle, _ := main.sgd.EpsilonBy(privacy.RDPBalle, s.delta)
	mironov, _ := main.sgd.EpsilonBy(privacy.RDPMironov, s.delta)
	prv := s.prvAt()
	eps := rdp
	if s.acct == privacy.PRV {
		eps = math.Min(prv.Hi, balle)
	}
	prvWhy := noNoise
	if !math.IsInf(balle, 1) {
		prvWhy = coarse
	}
	metrics := []sims.Metric{
		{Name: "epoch", Value: main.sgd.Epochs()},
		sims.MetricOr("ε", eps, noNoise),
		rdpOrder(rdp, order),
		{Name: "clipped", Value: s.clipped},
		{Name: "acc σ", Value: main.acc},
		{Name: "acc σ=0", Value: s.runs[0].acc},
		sims.MetricOr("ε PRV", prv.Hi, prvWhy),
		sims.MetricOr("ε Balle", balle, noNoise),
		sims.MetricOr("ε Mironov", mironov, noNoise),
	}
	return sims.Frame{Sim: DPSGD.Name, Step: s.steps, Metrics: metrics,
		Charts: []sims.Chart{s.histogram(), s.accuracy(), s.epsilonChart(), s.curveChart(), s.lossChart()},
		Text:   s.notes(eps, rdp, order, balle, mironov, prv)}
}

// prvAt is the σ run's PRV bracket at the run's δ, as of prvStep
// (+Inf without noise).
func (s *dpSim) prvAt() privacy.Bracket {
	if s.runs[2].pld == nil {
		return privacy.Bracket{Lo: math.Inf(1), Hi: math.Inf(1)}
	}
	return s.prv[len(s.prv)-1]
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

// accountantName is how the chart titles and notes name the accountant.
func accountantName(m privacy.Method) string {
	switch m {
	case privacy.PRV:
		return "the PRV accountant"
	case privacy.RDPBalle:
		return "RDP, Balle et al.'s conversion"
	}
	return "RDP, Mironov's conversion"
}

func (s *dpSim) epsilonChart() sims.Chart {
	i0, i1 := s.eps.Span()
	var series []sims.Series
	for i := 1; i < len(s.runs); i++ {
		series = append(series, sims.Series{Name: s.label(i), Y: s.eps.Column(i - 1), Class: i})
	}
	if s.target > 0 {
		series = append(series, sims.Series{Name: "target", Y: s.eps.Map(func(int) float64 { return s.target }), Class: 4, Bound: true})
	}
	title := fmt.Sprintf("ε(δ = %.2g) by %s", s.delta, accountantName(s.acct))
	if s.epsEvery > 1 {
		title += fmt.Sprintf(", every %d steps", s.epsEvery)
	}
	return sims.LineChart{Title: title, X0: i0 * float64(s.epsEvery), X1: i1 * float64(s.epsEvery), XLabel: "step", Series: series}
}

// curveChart is the σ run's ε(δ) over the chart's decades of δ by the
// three accountants: the PRV accountant's upper bound (as of prvStep) and
// RDP by the two conversions.
func (s *dpSim) curveChart() sims.Chart {
	n := len(s.prvDeltas) - 1
	main := s.runs[2]
	prv, balle, mironov := make([]float64, n), make([]float64, n), make([]float64, n)
	for k, d := range s.prvDeltas[:n] {
		prv[k] = math.NaN()
		if main.pld != nil {
			prv[k] = s.prv[k].Hi
		}
		e, _ := main.sgd.EpsilonBy(privacy.RDPBalle, d)
		balle[k] = sims.FiniteOr(e, math.NaN())
		e, _ = main.sgd.EpsilonBy(privacy.RDPMironov, d)
		mironov[k] = sims.FiniteOr(e, math.NaN())
	}
	return sims.LineChart{Title: fmt.Sprintf("ε(δ) of the σ run at step %d: PRV; RDP converted by Balle, by Mironov", s.prvStep),
		X0: dpDeltaLo, X1: dpDeltaHi, XLabel: "log₁₀ δ", Series: []sims.Series{
			{Name: "PRV", Y: prv, Class: 5},
			{Name: "Balle", Y: balle, Class: 6},
			{Name: "Mironov", Y: mironov, Class: 7},
		}}
}

func (s *dpSim) notes(eps, rdp, order, balle, mironov float64, prv privacy.Bracket) []string {
	main := s.runs[2].sgd
	place := "noise=mean (the notes): σC on the mean gradient, σb·C on the sum"
	if s.noise == privacy.NoiseSum {
		place = "noise=sum (Abadi et al., Opacus): σC on the sum, σC/b on the mean"
	}
	notes := []string{
		place,
		fmt.Sprintf("q = b/n = %.3g, multiplier %.3g: noise s.d. %.3g on the mean gradient",
			s.q, main.NoiseMultiplier(), main.NoiseStd()),
	}
	if math.IsInf(eps, 1) {
		return append(notes, "σ = 0: no noise, no privacy (ε is infinite); the notes' \"ε√k\" is informal (E34)")
	}
	bracket := fmt.Sprintf("[%.4g, %.4g]", prv.Lo, prv.Hi)
	if s.prvStep != s.steps {
		bracket += fmt.Sprintf(" as of step %d", s.prvStep)
	}
	switch {
	case s.acct == privacy.PRV && !(prv.Hi <= balle):
		notes = append(notes, fmt.Sprintf("ε = %.4g at δ = %.2g by RDP with Balle et al.'s conversion (α = %.3g): the PRV accountant's grid "+
			"is too coarse for this run, its bracket %s is wider; Mironov's conversion gives %.4g", eps, s.delta, order, bracket, mironov))
	case s.acct == privacy.PRV:
		notes = append(notes, fmt.Sprintf("ε = %.4g at δ = %.2g by the PRV accountant (Gopi et al. 2021), its upper bound: the exact ε lies in %s; "+
			"RDP gives %.4g by Balle et al.'s conversion (α = %.3g), %.4g by Mironov's", eps, s.delta, bracket, balle, order, mironov))
	default:
		other, otherName := mironov, "Mironov's"
		if s.acct == privacy.RDPMironov {
			other, otherName = balle, "Balle et al.'s"
		}
		notes = append(notes, fmt.Sprintf("ε = %.4g at δ = %.2g by %s (α = %.3g); %s conversion gives %.4g, the PRV accountant %s",
			rdp, s.delta, accountantName(s.acct), order, otherName, other, bracket))
	}
	return append(notes, "the notes' \"ε√k\" is informal (E34): these accountants compose exactly")
}

func (s *dpSim) Result() map[string]any {
	acc := make([]float64, len(s.runs))
	eps := make([]float64, len(s.runs))
	for i, r := range s.runs {
		acc[i] = r.acc
		eps[i] = s.epsilon(r)
	}
	s.Settle()
	main := s.runs[2]
	balle, _ := main.sgd.EpsilonBy(privacy.RDPBalle, s.delta)
	mironov, _ := main.sgd.EpsilonBy(privacy.RDPMironov, s.delta)
	prv := s.prvAt()
	r := map[string]any{"sigmas": []float64{s.runs[0].sigma, s.runs[1].sigma, s.runs[2].sigma, s.runs[3].sigma},
		"accuracy": acc, "epsilon": eps, "steps": s.steps, "epochs": main.sgd.Epochs(), "clipped": s.clipped,
		"noise_multiplier": main.sgd.NoiseMultiplier(), "accountant": s.acct.String(),
		"epsilon_prv": []float64{prv.Lo, prv.Hi}, "epsilon_rdp_balle": balle, "epsilon_rdp_mironov": mironov}
	undef := map[string]string{}
	if slices.ContainsFunc(eps, func(e float64) bool { return math.IsInf(e, 1) }) {
		undef["epsilon"] = "null for a run without noise: " + noNoise
	}
	switch {
	case math.IsInf(balle, 1): // the σ run itself has no noise
		for _, k := range []string{"epsilon_prv", "epsilon_rdp_balle", "epsilon_rdp_mironov"} {
			undef[k] = "null: " + noNoise
		}
	case math.IsInf(prv.Hi, 1):
		undef["epsilon_prv"] = "null: " + coarse
	}
	if len(undef) > 0 {
		r["undefined"] = undef
	}
	return r
}

// rdpOrder is the metric of the order at which the RDP accountant's ε is
// least, undefined with ε.
func rdpOrder(eps, order float64) sims.Metric {
	if math.IsInf(eps, 1) {
		return sims.Metric{Name: "α*", Undefined: noNoise}
	}
	return sims.Metric{Name: "α*", Value: order}
}

// noNoise is why a run's ε has no value.
const noNoise = "σ = 0 adds no noise: the run is not private, its ε is infinite"

// coarse is why the PRV accountant may have no bound.
const coarse = "the PRV accountant's grid is too coarse to bound ε at this δ (a tiny noise multiplier)"
