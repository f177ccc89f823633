package nnsim

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/thelab/lab/algo/digits"
	"github.com/thelab/lab/algo/nn"
	"github.com/thelab/lab/algo/stable"
	"github.com/thelab/lab/algo/tensor"
	"github.com/thelab/lab/algo/tensor/opt"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
	"gonum.org/v1/gonum/floats"
)

// modelKind is the digits classifier's architecture.
type modelKind string

func (m modelKind) String() string { return string(m) }

const (
	modelMLP modelKind = "mlp"
	modelCNN modelKind = "cnn"
)

// imageSize is a side of the generated digits.
type imageSize int

func (s imageSize) String() string { return strconv.Itoa(int(s)) }

// digits' parameters.
var (
	dgModel = param.Choice("model", []modelKind{modelMLP, modelCNN}, modelMLP,
		"mlp: dense layers on the pixels; cnn: blocks of a k×k convolution (same padding), σ and a 2×2 max-pool, then dense")
	dgSize      = param.Choice("size", []imageSize{8, 16}, 16, "side of the generated digits: 8×8 (like scikit-learn's) or 16×16").BuiltInData()
	dgN         = param.Int("n", 5000, "digits generated, train and test together").Range(100, 50000).BuiltInData()
	dgTrainFrac = param.Float("train_frac", 0.8, "fraction of the digits used for training; the rest is the test set").Range(0.1, 0.95)
	dgVariation = param.Float("variation", 1,
		"how much the hands vary — slant, rotation, scale, shift, pen, wobble (0: the clean prototypes)").Range(0, 3).BuiltInData()
	dgNoise  = param.Float("noise", 1, "pixel noise, in units of s.d. 0.06").Range(0, 3).BuiltInData()
	dgLayers = param.Int("layers", 1, "mlp: hidden layers (0: softmax regression on the pixels)").Range(0, 3)
	dgHidden = param.Int("hidden", 64, "mlp: units per hidden layer; cnn: units of a dense layer before the output (0: none)").
			Range(0, 1024).DefaultWhen(func(v param.Values) bool { return dgModel.Get(v) == modelCNN }, 0, "64; 0 for cnn")
	dgFilters = param.Int("filters", 8, "cnn: filters of the first block, doubling in each next one").Range(1, 64)
	dgBlocks  = param.Int("blocks", 2, "cnn: convolution blocks (each halves the image)").Range(1, 3)
	dgKernel  = param.Int("kernel", 3, "cnn: kernel size k, odd").Range(1, 7)
	dgAct     = param.Choice("activation", nn.Activations, nn.ReLU, "σ of the hidden units")
	dgOpt     = newOptParams(opt.Adam, 0.003)
	dgBatch   = param.Int("batch", 64, "minibatch size").Range(1, nn.MaxBatch)
	dgL2      = param.Float("l2", 0, "L2 penalty (λ/2) Σ w² on the weights").Range(0, 1)
)

// Digits trains an MLP or a small CNN on the procedural digits (or a
// user's pixel CSV) live: loss and accuracy on train and test, the test
// set's confusion matrix, the misclassified test digits and the first
// layer's filters as images (seed 001 §9–10, seed 002 §6.1).
var Digits = &sims.Spec{
	Name:   "digits",
	Title:  "Digits classifier: an MLP or CNN trained live on hand-drawn digits",
	Source: "seed 001 §9–10 ([A15], [A18]); seed 002 §6.1 (F1, Ex 6.1 at terminal size)",
	Data:   "a column named label (0–9) and s² pixel columns of an s×s image, row by row, in [0, 1] or 0–255",
	Steps:  1000,
	Speed:  100,
	Params: param.List(dgModel, dgSize, dgN, dgTrainFrac, dgVariation, dgNoise, dgLayers, dgHidden, dgFilters,
		dgBlocks, dgKernel, dgAct, dgOpt, dgBatch, dgL2),
	New:  newDigits,
	Size: digitsSize,

	Metrics: digitsMetrics,
}

// digitsEvalSubset is how many training digits the train accuracy is
// measured on.
const digitsEvalSubset = 1000

type digitsSim struct {
	side        int
	train, test *nn.Set
	sub         *nn.Set // the training digits the train figures are measured on
	model       nn.Model
	mlp         *nn.MLP // one of these two is the model
	cnn         *nn.CNN
	tr          *nn.Trainer
	ev          *nn.Evaluator
	every       int
	trace       *sims.Trace // train loss, test loss, train accuracy, test accuracy
	pred        []int       // the test predictions at the last evaluation
	at          int
	trainEval   nn.Eval
	testEval    nn.Eval
	desc        string       // the network
	source      string       // where the digits come from
	tp          *tensor.Tape // the forward pass of the digit shown layer by layer
	one         *nn.Batch    // that digit
}

func newDigits(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	var (
		pix    []float64
		labels []int
		side   int
		err    error
		source string
	)
	if cfg.Data != nil {
		if pix, labels, side, err = digitsTable(cfg.Data); err != nil {
			return nil, err
		}
		source = fmt.Sprintf("%d digits of %d×%d from %s", len(labels), side, side, cfg.Data.Name)
	} else {
		side = int(dgSize.Get(v))
		a := dgVariation.Get(v)
		st := digits.Style{Slant: a, Rotate: a, Scale: a, Shift: a, Thickness: a, Wobble: a, Noise: dgNoise.Get(v)}
		if pix, labels, err = digits.Generate(streamRNG(cfg.Seed, dataStream), dgN.Get(v), side, st); err != nil {
			return nil, sims.Blame(err, v, sims.As("n", dgN))
		}
		source = fmt.Sprintf("%d procedural digits of %d×%d", len(labels), side, side)
	}
	all, err := nn.NewClassSet(pix, side*side, labels, 10)
	if err != nil {
		return nil, err
	}
	s := &digitsSim{side: side, source: source}
	if s.train, s.test, err = all.Split(dgTrainFrac.Get(v), streamRNG(cfg.Seed, dataStream+1)); err != nil {
		return nil, sims.Blame(err, v, sims.As("train_frac", dgTrainFrac))
	}
	sub := make([]int, min(digitsEvalSubset, s.train.N))
	for i := range sub {
		sub[i] = i
	}
	s.sub = s.train.Subset(sub)
	rng := streamRNG(cfg.Seed, initStream)
	act := dgAct.Get(v)
	kind := dgModel.Get(v)
	if kind == modelCNN {
		filters := make([]int, dgBlocks.Get(v))
		for i := range filters {
			filters[i] = dgFilters.Get(v) << i
		}
		s.cnn, err = nn.NewCNN(nn.CNNConfig{H: side, W: side, Filters: filters, Kernel: dgKernel.Get(v),
			Hidden: dgHidden.Get(v), Out: 10, Act: act}, rng)
		if err != nil {
			return nil, sims.Blame(err, v, sims.As("kernel", dgKernel), sims.As("blocks", dgBlocks))
		}
		s.model = s.cnn
		sz := s.cnn.Sizes()
		last := sz[len(sz)-1]
		s.desc = fmt.Sprintf("cnn: %d×%d → %v conv blocks (k = %d) → %d×%d×%d → ", side, side, filters,
			dgKernel.Get(v), last[0], last[1], last[2])
		if h := dgHidden.Get(v); h > 0 {
			s.desc += fmt.Sprintf("%d → ", h)
		}
		s.desc += "10"
	} else {
		hidden := make([]int, dgLayers.Get(v))
		for i := range hidden {
			hidden[i] = dgHidden.Get(v)
		}
		if len(hidden) > 0 && hidden[0] == 0 {
			return nil, fmt.Errorf("parameter hidden = 0: an mlp with layers > 0 needs hidden ≥ 1")
		}
		if s.mlp, err = nn.NewMLP(nn.MLPConfig{In: side * side, Hidden: hidden, Out: 10, Act: act}, rng); err != nil {
			return nil, err
		}
		s.model = s.mlp
		s.desc = "mlp: " + architecture(side*side, hidden, 10)
	}
	batch := min(dgBatch.Get(v), s.train.N)
	if err := checkLive(cfg, "digits", s.model, batch); err != nil {
		return nil, err
	}
	s.desc += fmt.Sprintf(", %s, %d parameters; %s, lr %g, batch %d", act, nn.CountParams(s.model),
		dgOpt.method.Get(v), dgOpt.lr.Get(v), batch)
	s.tr, err = nn.NewTrainer(s.model, s.train, nn.TrainConfig{Batch: batch, L2: dgL2.Get(v), Opt: dgOpt.config(v)},
		streamRNG(cfg.Seed, trainStream))
	if err != nil {
		return nil, sims.Blame(err, v, sims.As("lr", dgOpt.lr))
	}
	if s.ev, err = nn.NewEvaluator(side*side, 256); err != nil {
		return nil, err
	}
	s.tp = tensor.NewForwardTape()
	if s.one, err = nn.NewBatch(1, side*side); err != nil {
		return nil, err
	}
	// Evaluate (test set and training subset) about a fifth as often as
	// that costs a training step's work.
	s.every = max(1, 5*(s.test.N+s.sub.N)/(3*batch))
	s.pred = make([]int, s.test.N)
	s.trace = sims.NewTrace(0, 4)
	if err := s.evaluate(); err != nil {
		return nil, err
	}
	return s, nil
}

// digitsTable reads a pixel CSV: a column named label with digits 0–9 and
// s² pixel columns, values in [0, 1] or 0–255 (then divided by 255). A
// bad row is reported with its line.
func digitsTable(t *sims.Table) (pix []float64, labels []int, side int, err error) {
	lc := t.Column("label")
	if lc < 0 {
		return nil, nil, 0, fmt.Errorf("--data %s: no column named label (the digit 0–9 of each row)", t.Name)
	}
	n := len(t.Columns) - 1
	side = int(math.Round(math.Sqrt(float64(n))))
	if side*side != n || side < 4 || n > nn.MaxWidth {
		return nil, nil, 0, fmt.Errorf("--data %s: %d pixel columns; an s×s image needs s² of them, 4 ≤ s ≤ 64 "+
			"(64 for 8×8, 256 for 16×16)", t.Name, n)
	}
	scale := 1.0
	for i, r := range t.Rows {
		for j, v := range r {
			if j == lc {
				continue
			}
			if v < 0 || v > 255 {
				return nil, nil, 0, fmt.Errorf("--data %s: line %d, column %d (%s): pixel %g is outside [0, 1] and 0–255",
					t.Name, t.Line(i), j+1, t.Columns[j], v)
			}
			if v > 1 {
				scale = 1.0 / 255
			}
		}
	}
	pix = make([]float64, 0, len(t.Rows)*n)
	classes := map[int]bool{}
	for i, r := range t.Rows {
		y := r[lc]
		if y != math.Trunc(y) || y < 0 || y > 9 {
			return nil, nil, 0, fmt.Errorf("--data %s: line %d: label %g is not a digit 0–9", t.Name, t.Line(i), y)
		}
		labels = append(labels, int(y))
		classes[int(y)] = true
		for j, v := range r {
			if j != lc {
				pix = append(pix, v*scale)
			}
		}
	}
	if len(t.Rows) < 10 || len(classes) < 2 {
		return nil, nil, 0, fmt.Errorf("--data %s: %d rows of %d digits; training and testing need at least 10 rows and 2 digits",
			t.Name, len(t.Rows), len(classes))
	}
	return pix, labels, side, nil
}

// digitsSize is the digits split into the training and test sets and
// the training subset the train figures are measured on, the network with
// its trainer and evaluator, the test predictions, and the Frame's
// pictures: the misclassified digits and the first layer's filters.
func digitsSize(cfg sims.Config) int64 {
	v := cfg.Values
	side, n := int(dgSize.Get(v)), dgN.Get(v)
	if cfg.Data != nil {
		n = len(cfg.Data.Rows)
		side = int(math.Sqrt(float64(max(len(cfg.Data.Columns)-1, 1))))
	}
	d := side * side
	train := nn.SplitSize(n, dgTrainFrac.Get(v))
	test, sub := n-train, min(digitsEvalSubset, train)
	var arch nn.Arch
	if dgModel.Get(v) == modelCNN {
		filters := make([]int, dgBlocks.Get(v))
		for i := range filters {
			filters[i] = dgFilters.Get(v) << i
		}
		arch = nn.CNNConfig{H: side, W: side, Filters: filters, Kernel: dgKernel.Get(v), Hidden: dgHidden.Get(v), Out: 10,
			Act: dgAct.Get(v)}
	} else {
		arch = nn.MLPConfig{In: d, Hidden: slices.Repeat([]int{dgHidden.Get(v)}, dgLayers.Get(v)), Out: 10, Act: dgAct.Get(v)}
	}
	tc := nn.TrainConfig{Batch: min(dgBatch.Get(v), train), L2: dgL2.Get(v), Opt: dgOpt.config(v)}
	// The Frame's pictures: the gallery, the filters, and the digit shown
	// layer by layer (its forward tape and batch, and at most layerMaps
	// maps a block, or a square a hidden layer, each drawn d pixels).
	maps := 1 + max(dgBlocks.Get(v)*layerMaps, dgLayers.Get(v))
	frame := int64(maxGallery)*tensor.Alloc(d) + 16*tensor.Alloc(d) + sims.TraceBytes(4) +
		nn.ForwardTapeBytes(arch, 1) + nn.BatchBytes(1, d) + int64(maps)*(tensor.Alloc(d)+160)
	return tensor.Slack(64<<10 + nn.SetBytes(train, d) + nn.SetBytes(test, d) + nn.SetBytes(sub, d) + nn.ParamBytes(arch) +
		tc.Bytes(arch, train, d, 10, nn.CrossEntropy) + nn.EvaluatorBytes(arch, 256, max(test, sub), d, 10, nn.CrossEntropy) +
		tensor.Alloc(test) + frame)
}

func (s *digitsSim) Step() error {
	if err := s.tr.Step(); err != nil {
		return err
	}
	if s.tr.Steps()%s.every == 0 {
		return s.evaluate()
	}
	return nil
}

// Settle brings the figures up to the current step when the pane is not
// running (an evaluation costs some hundred training steps' forward
// passes: a running pane takes one every `every` steps).
func (s *digitsSim) Settle() {
	if s.at != s.tr.Steps() {
		_ = s.evaluate()
	}
}

func (s *digitsSim) evaluate() error {
	var err error
	if s.trainEval, err = s.ev.Run(s.model, s.sub, nil); err != nil {
		return err
	}
	if s.testEval, err = s.ev.Run(s.model, s.test, s.pred); err != nil {
		return err
	}
	if s.at != s.tr.Steps() || s.trace.Len() == 0 {
		s.trace.Add(s.trainEval.Loss, s.testEval.Loss, s.trainEval.Accuracy, s.testEval.Accuracy)
	}
	s.at = s.tr.Steps()
	return nil
}

func (s *digitsSim) Frame() sims.Frame {
	errs := 0
	for i, p := range s.pred {
		if p != s.test.Labels[i] {
			errs++
		}
	}
	return sims.Frame{
		Sim:  Digits.Name,
		Step: s.tr.Steps(),
		Metrics: []sims.Metric{
			{Name: "test_acc", Value: s.testEval.Accuracy},
			{Name: "train_acc", Value: s.trainEval.Accuracy},
			{Name: "test_loss", Value: s.testEval.Loss},
			{Name: "errors", Value: float64(errs)},
			{Name: "epoch", Value: math.Round(s.tr.Epochs()*100) / 100},
		},
		Charts: []sims.Chart{s.errorRate(), s.confusion(), s.misclassified(), s.layers(), s.filters()},
		Text: []string{
			s.desc,
			fmt.Sprintf("%s: %d train, %d test; as of step %d", s.source, s.train.N, s.test.N, s.at),
			s.layersNote(),
		},
	}
}

// errorRate draws 1 − accuracy on the training subset and the test set
// on a log scale, under the dotted 5% line (95% accuracy). An error of 0
// is drawn at half an example, the resolution of the measurement.
func (s *digitsSim) errorRate() sims.LineChart {
	x0, x1 := s.trace.Span()
	c := sims.LineChart{Title: "error rate (train, test)", LogY: true, XLabel: "step",
		X0: x0 * float64(s.every), X1: x1 * float64(s.every)}
	for i, col := range []int{2, 3} {
		n := []int{s.sub.N, s.test.N}[i]
		y := s.trace.Column(col)
		for j, a := range y {
			y[j] = math.Max(1-a, 0.5/float64(n))
		}
		c.Series = append(c.Series, sims.Series{Name: []string{"train", "test"}[i], Y: y, Class: i})
	}
	target := make([]float64, len(c.Series[0].Y))
	for i := range target {
		target[i] = 0.05
	}
	c.Series = append(c.Series, sims.Series{Name: "5%", Y: target, Class: 2, Bound: true})
	return c
}

// confusion is the test set's confusion matrix: row = true digit, column
// = predicted. The colour saturates at the largest error count, so that
// every error lights up as brightly as the diagonal.
func (s *digitsSim) confusion() sims.ImageChart {
	im := sims.Image{W: 10, H: 10, Pix: make([]float64, 100), Caption: "row: true, column: predicted"}
	worst := 1.0
	for i, p := range s.pred {
		y := s.test.Labels[i]
		im.Pix[y*10+p]++
		if y != p {
			worst = math.Max(worst, im.Pix[y*10+p])
		}
	}
	for d := range 10 {
		im.RowLabels = append(im.RowLabels, strconv.Itoa(d))
	}
	im.ColLabels = im.RowLabels
	return sims.ImageChart{Title: "confusion (test set)", Images: []sims.Image{im}, Numbers: true, Scale: sims.Sequential,
		Lo: 0, Hi: worst}
}

// maxGallery is the most misclassified digits shown.
const maxGallery = 24

// misclassified shows the test digits the model gets wrong, "true→predicted".
func (s *digitsSim) misclassified() sims.ImageChart {
	c := sims.ImageChart{Title: "errors (true→predicted)", Scale: sims.Grey, Lo: 0, Hi: 1}
	d := s.side * s.side
	for i, p := range s.pred {
		if p == s.test.Labels[i] {
			continue
		}
		if len(c.Images) == maxGallery {
			break
		}
		c.Images = append(c.Images, sims.Image{Caption: fmt.Sprintf("%d→%d", s.test.Labels[i], p),
			W: s.side, H: s.side, Pix: append([]float64(nil), s.test.X[i*d:(i+1)*d]...)})
	}
	if len(c.Images) == 0 {
		c.Title = "errors: none"
	}
	return c
}

// layerMaps is the most feature maps of one layer the layer-by-layer
// picture shows.
const layerMaps = 8

// layers follows the first test digit through the network, as CNN
// Explainer does: the input, then each convolution block's feature maps
// σ(conv) before pooling (its first layerMaps), a row per block, or each
// hidden layer's units laid out in a square beside the input; the
// prediction in the title. Every map is drawn at the input's size (a
// coarser map's pixels as blocks) on its own range: where a filter
// responds, not how strongly against the others.
func (s *digitsSim) layers() sims.ImageChart {
	d := s.side * s.side
	x := s.test.X[:d]
	s.one.LoadRows(x, nil)
	s.tp.Rewind()
	out := s.model.Forward(s.tp, s.one.X, nil).Data
	p := make([]float64, len(out))
	stable.Softmax(p, out)
	pred := floats.MaxIdx(p)
	c := sims.ImageChart{Scale: sims.Grey, Title: fmt.Sprintf("test digit %d → %d (p %.2f), layer by layer", s.test.Labels[0], pred, p[pred])}
	c.Images = append(c.Images, sims.Image{Caption: "input", W: s.side, H: s.side, Pix: append([]float64(nil), x...)})
	add := func(caption string, m []float64, w, h int, newRow bool) {
		c.Images = append(c.Images, sims.Image{Caption: caption, W: s.side, H: s.side, Pix: resample(m, w, h, s.side, s.side), NewRow: newRow})
	}
	if s.cnn != nil {
		for i := range s.cnn.Sizes() {
			t := s.cnn.FeatureMaps(i)
			f, h, w := t.Dim(1), t.Dim(2), t.Dim(3)
			for k := range min(f, layerMaps) {
				caption := ""
				if k == 0 {
					caption = fmt.Sprintf("conv %d", i+1)
				}
				add(caption, t.Data[k*h*w:(k+1)*h*w], w, h, k == 0)
			}
		}
		return c
	}
	for k := range s.mlp.Config().Hidden {
		act, _ := s.mlp.Hidden(k)
		u := act.Dim(1)
		w := int(math.Ceil(math.Sqrt(float64(u))))
		h := (u + w - 1) / w
		grid := make([]float64, w*h)
		for i := range grid {
			grid[i] = math.NaN() // a square's cells past the last unit
		}
		copy(grid, act.Data[:u])
		add(fmt.Sprintf("h%d: %d units", k+1, u), grid, w, h, false)
	}
	return c
}

// layersNote says what the layer-by-layer picture shows.
func (s *digitsSim) layersNote() string {
	if s.cnn != nil {
		return fmt.Sprintf("layer by layer: the first test digit, then each conv block's first %d maps σ(conv) before pooling, each on its own range", layerMaps)
	}
	return "layer by layer: the first test digit, then each hidden layer's units in a square, each on its own range"
}

// resample scales a w×h picture to W×H by nearest neighbour: a coarser
// map's pixels become blocks.
func resample(pix []float64, w, h, W, H int) []float64 {
	out := make([]float64, W*H)
	for i := range H {
		for j := range W {
			out[i*W+j] = pix[(i*h/H)*w+j*w/W]
		}
	}
	return out
}

// filters draws the first layer's weights as images: each hidden unit's
// weights on the pixels (mlp; for softmax regression, each class's
// template) or each k×k kernel (cnn), blue negative, red positive.
func (s *digitsSim) filters() sims.ImageChart {
	c := sims.ImageChart{Scale: sims.Diverging}
	var w []float64
	var n, iw, ih, stride, step int
	if s.cnn != nil {
		k := s.cnn.Config().Kernel
		w, n, iw, ih, stride, step = s.cnn.Convs[0].W.Data, s.cnn.Convs[0].W.Dim(0), k, k, 1, k*k
		c.Title = fmt.Sprintf("first-layer kernels (%d×%d)", k, k)
	} else {
		W := s.mlp.Layers[0].W
		n, iw, ih, stride, step = W.Dim(1), s.side, s.side, W.Dim(1), 1
		w = W.Data
		c.Title = "first-layer weights per unit"
		if len(s.mlp.Config().Hidden) == 0 {
			c.Title = "weights per class (templates)"
		}
	}
	n = min(n, 16)
	m := 0.0
	for _, x := range w {
		m = math.Max(m, math.Abs(x))
	}
	c.Lo, c.Hi = -m, m
	for u := range n {
		im := sims.Image{W: iw, H: ih, Pix: make([]float64, iw*ih)}
		for p := range iw * ih {
			if s.cnn != nil {
				im.Pix[p] = w[u*step+p]
			} else {
				im.Pix[p] = w[p*stride+u]
			}
		}
		if s.mlp != nil && len(s.mlp.Config().Hidden) == 0 {
			im.Caption = strconv.Itoa(u)
		}
		c.Images = append(c.Images, im)
	}
	return c
}

func (s *digitsSim) Result() map[string]any {
	conf := make([][]int, 10)
	for i := range conf {
		conf[i] = make([]int, 10)
	}
	for i, p := range s.pred {
		conf[s.test.Labels[i]][p]++
	}
	return map[string]any{
		"steps": s.tr.Steps(), "epochs": s.tr.Epochs(), "evaluated_at": s.at,
		"test_accuracy": s.testEval.Accuracy, "test_loss": s.testEval.Loss,
		"train_accuracy": s.trainEval.Accuracy, "train_loss": s.trainEval.Loss,
		"confusion": conf, "parameters": nn.CountParams(s.model),
	}
}
