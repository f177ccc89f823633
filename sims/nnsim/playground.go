package nnsim

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/dataset"
	"github.com/thelab/lab/algo/gradcheck"
	"github.com/thelab/lab/algo/nn"
	"github.com/thelab/lab/algo/stable"
	"github.com/thelab/lab/algo/tensor"
	"github.com/thelab/lab/algo/tensor/opt"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// weightsInit is how the playground's weights start.
type weightsInit string

func (w weightsInit) String() string { return string(w) }

const (
	initRandom weightsInit = "random"
	initEx91   weightsInit = "ex9.1"
)

// Bounds of the playground's network (TensorFlow Playground's).
const (
	pgMaxLayers = 6
	pgMaxUnits  = 8
)

// playground's parameters. The defaults are TensorFlow Playground's but
// for the points, the batch and the rate (issue 26). A pane takes 30 steps
// a second, each one minibatch, where TF Playground takes an epoch a frame
// (its 250 training points in batches of 10, 25 updates): two minutes here
// are 3,600 updates. In 3,600 steps on the spiral (12 seeds, mean test
// accuracy) a 3 × 8 tanh network under Adam reaches 0.75 on batches of 10
// at rate 0.03 and 0.89 at 0.01, 0.96 on batches of 100 at 0.01; and on
// 200 training points it fits the spiral without learning it (train 0.99,
// test 0.92), where 400 generalise.
var (
	pgData      = param.Choice("data", []planeSet{setCircle, setXor, setGauss, setSpiral, setMoons, setXor4, setPlane, setBumps}, setCircle, planeSetHelp).BuiltInData()
	pgN         = param.Int("n", 800, "points, train and test together (xor4 has its 4)").Range(8, 5000).BuiltInData()
	pgNoise     = param.Float("noise", 0.1, planeNoiseHelp).Range(0, 1).BuiltInData()
	pgTrainFrac = param.Float("train_frac", 0.5, "fraction of the points used for training; the rest is the test set").Range(0.05, 0.95)
	pgLayers    = param.Int("layers", 2, "hidden layers (0: a linear model on the features); widths sets each one's width").Range(0, pgMaxLayers)
	pgUnits     = param.Int("units", 4, "units in each hidden layer; widths sets each one's").Range(1, pgMaxUnits)
	pgWidths    = param.Text("widths", "4,4", fmt.Sprintf("each hidden layer's units, the first layer's first, comma-separated "+
		"(8,4,2: three layers); up to %d layers of 1..%d units, 0 for none (a linear model); set, it overrides layers and units",
		pgMaxLayers, pgMaxUnits)).DefaultFunc(func(v param.Values) string {
		return formatWidths(slices.Repeat([]int{pgUnits.Get(v)}, pgLayers.Get(v)))
	}, "layers × units")
	pgAct      = param.Choice("activation", nn.Activations, nn.Tanh, "σ of the hidden units; linear makes the network one affine map (Remark 9.2)")
	pgResidual = param.Bool("residual", false, "add each hidden layer's input to its output: h ← σ(hW + b) + h (beyond the notes)")
	pgFeatX    = param.Bool("x", true, "input feature x")
	pgFeatY    = param.Bool("y", true, "input feature y")
	pgFeatX2   = param.Bool("x2", false, "input feature x²")
	pgFeatY2   = param.Bool("y2", false, "input feature y²")
	pgFeatXY   = param.Bool("xy", false, "input feature x·y")
	pgFeatSin  = param.Bool("sin", false, "input features sin x, sin y")
	pgFeatCos  = param.Bool("cos", false, "input features cos x, cos y")
	pgWeights  = param.Choice("weights", []weightsInit{initRandom, initEx91}, initRandom,
		"random: Xavier (He for relu); ex9.1: the notes' XOR network (1 layer × 2 relu units on x, y)")
	pgOpt   = newOptParams(opt.Adam, 0.01)
	pgBatch = param.Int("batch", 100, "minibatch size (at most the training points)").Range(1, 1000)
	pgL1    = param.Float("l1", 0, "L1 penalty λ₁ Σ|w| on the weights").Range(0, 1)
	pgL2    = param.Float("l2", 0, "L2 penalty (λ₂/2) Σ w² on the weights").Range(0, 1)
)

// Playground is TensorFlow Playground in a pane (seed 001 §9 [A15], seed
// 000 §2.1, seed 002 §6.1): an MLP on 2-D data with chosen features,
// layers, units, activation, regularisation and optimiser, trained live
// by minibatches; the decision map with the training points, a thumbnail
// of every neuron's output over the plane, train and test loss, and a
// dead-unit counter.
var Playground = &sims.Spec{
	Name:   "playground",
	Title:  "Neural-network playground: an MLP learning a 2-D set live",
	Source: "seed 001 §9 (Ex 9.1, Remark 9.2, [A15]); seed 000 §2.1 (eq 2.1); seed 002 §6.1 (F1)",
	Data:   "two feature columns and a label column: classes 0..9 (or ±1), else a real target (regression)",
	Steps:  3000,
	Speed:  30,
	Params: param.List(pgData, pgN, pgNoise, pgTrainFrac, pgLayers, pgUnits, pgWidths, pgAct, pgResidual,
		pgFeatX, pgFeatY, pgFeatX2, pgFeatY2, pgFeatXY, pgFeatSin, pgFeatCos, pgWeights, pgOpt, pgBatch, pgL1, pgL2),
	New:  newPlayground,
	Size: playgroundSize,

	Metrics: playgroundMetrics,
}

// playgroundSize is the data, split and mapped to the features; the
// network, its trainer and evaluator; the grids of the pictures with the
// tape that draws them (the decision map's grid is the most rows it
// runs); and the Frame: the map, the points and the neurons' thumbnails.
func playgroundSize(cfg sims.Config) int64 {
	v := cfg.Values
	n, outs := pgN.Get(v), 1
	switch {
	case cfg.Data != nil:
		n, outs = len(cfg.Data.Rows), sims.MaxClasses
	case pgData.Get(v) == setXor4:
		n = 4
	}
	d := playgroundFeatures(v).Dim()
	hidden, err := parseWidths(pgWidths.Get(v))
	if err != nil {
		hidden = nil // New refuses it, saying why
	}
	arch := nn.MLPConfig{In: d, Hidden: hidden, Out: outs, Act: pgAct.Get(v), Residual: pgResidual.Get(v)}
	loss := nn.Logistic // or Squared, of the same size; CrossEntropy for more classes
	if outs > 2 {
		loss = nn.CrossEntropy
	}
	train, test := n, n
	if n >= 8 {
		train = trainCount(n, pgTrainFrac.Get(v))
		test = n - train
	}
	tc := nn.TrainConfig{Batch: min(pgBatch.Get(v), train), L1: pgL1.Get(v), L2: pgL2.Get(v), Opt: pgOpt.config(v)}
	// The network diagram: a thumbnail per input, hidden unit and output,
	// and a copy of the weights.
	units, weights, fan := d, int64(0), d
	for _, h := range append(slices.Clone(hidden), outs) {
		units, weights, fan = units+h, weights+tensor.Alloc(fan*h), h
	}
	grid, thumbs := mapX*mapY, thumbX*thumbY
	return tensor.Slack(48<<10 + planeTaskBytes(n, d, train, test) + nn.ParamBytes(arch) + tc.Bytes(arch, train, d, outs, loss) +
		nn.EvaluatorBytes(arch, 256, max(train, test), d, outs, loss) +
		nn.BatchBytes(grid, d) + nn.BatchBytes(thumbs, d) + nn.BatchBytes(train, d) + nn.ForwardTapeBytes(arch, max(grid, train)) +
		tensor.Alloc(2*grid) + 24*int64(min(train, maxPoints)) + int64(units)*tensor.Alloc(thumbs) + weights +
		sims.TraceBytes(2))
}

type playground struct {
	task    *planeTask
	mlp     *nn.MLP
	tr      *nn.Trainer
	ev      *nn.Evaluator
	tp      *tensor.Tape // the pictures' forward passes
	grid    *planeGrid
	thumbs  *planeGrid
	trainX  *nn.Batch   // the training inputs, for the dead units
	trace   *sims.Trace // train loss, test loss
	every   int         // steps between trace rows
	cfg     string      // the architecture line
	about   string      // the task --data's labels make ("" for a preset)
	gradErr float64     // the gradient check at step 0
	ex91    bool
	// the latest evaluation
	at          int
	train, test nn.Eval
	dead        int
	deadUnit    [][]bool
}

func playgroundFeatures(v param.Values) nn.Features {
	var f nn.Features
	for _, c := range []struct {
		d    *param.BoolDecl
		feat nn.Features
	}{{pgFeatX, nn.FeatX}, {pgFeatY, nn.FeatY}, {pgFeatX2, nn.FeatX2}, {pgFeatY2, nn.FeatY2},
		{pgFeatXY, nn.FeatXY}, {pgFeatSin, nn.FeatSin}, {pgFeatCos, nn.FeatCos}} {
		if c.d.Get(v) {
			f |= c.feat
		}
	}
	return f
}

func newPlayground(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	var l *dataset.Labelled
	var about string // the task --data's labels make, in words
	var err error
	if cfg.Data != nil {
		l, about, err = planeTable(cfg.Data)
	} else {
		l, err = planeData(pgData.Get(v), cfg.Seed, pgN.Get(v), pgNoise.Get(v))
	}
	if err != nil {
		return nil, err
	}
	feats := playgroundFeatures(v)
	task, err := newPlaneTask(l, feats, pgTrainFrac.Get(v), cfg.Seed)
	if err != nil {
		return nil, err
	}
	hidden, err := parseWidths(pgWidths.Get(v))
	if err != nil {
		return nil, err
	}
	act := pgAct.Get(v)
	mlp, err := nn.NewMLP(nn.MLPConfig{In: feats.Dim(), Hidden: hidden, Out: task.outputs(), Act: act,
		Residual: pgResidual.Get(v)}, streamRNG(cfg.Seed, initStream))
	if err != nil {
		return nil, err
	}
	s := &playground{task: task, about: about, mlp: mlp, tp: tensor.NewForwardTape()}
	if pgWeights.Get(v) == initEx91 {
		if err := setEx91(mlp, feats, act); err != nil {
			return nil, err
		}
		s.ex91 = true
	}
	batch := min(pgBatch.Get(v), task.train.N)
	if err := checkLive(cfg, "playground", mlp, batch); err != nil {
		return nil, err
	}
	s.tr, err = nn.NewTrainer(mlp, task.train, nn.TrainConfig{Batch: batch, L1: pgL1.Get(v), L2: pgL2.Get(v),
		Opt: pgOpt.config(v)}, streamRNG(cfg.Seed, trainStream))
	if err != nil {
		return nil, sims.Blame(err, v, sims.As("lr", pgOpt.lr))
	}
	if s.ev, err = nn.NewEvaluator(feats.Dim(), 256); err != nil {
		return nil, err
	}
	if s.grid, err = newPlaneGrid(task, mapX, mapY); err != nil {
		return nil, err
	}
	if s.thumbs, err = newPlaneGrid(task, thumbX, thumbY); err != nil {
		return nil, err
	}
	if s.trainX, err = nn.NewBatch(task.train.N, task.train.D); err != nil {
		return nil, err
	}
	s.trainX.LoadRows(task.train.X, nil)
	if s.gradErr, err = s.gradCheck(batch); err != nil {
		return nil, err
	}
	// Record a trace row about as often as evaluating costs a step.
	s.every = max(1, (task.train.N+task.test.N)/(3*batch))
	s.trace = sims.NewTrace(0, 2)
	s.cfg = fmt.Sprintf("%s, %s, %d parameters; inputs %s; %s, lr %g, batch %d",
		architecture(feats.Dim(), hidden, task.outputs()), act, nn.CountParams(mlp), feats,
		pgOpt.method.Get(v), pgOpt.lr.Get(v), batch)
	s.deadUnit = make([][]bool, len(hidden))
	for k := range hidden {
		s.deadUnit[k] = make([]bool, hidden[k])
	}
	if err := s.evaluate(); err != nil {
		return nil, err
	}
	s.trace.Add(s.train.Loss, s.test.Loss)
	return s, nil
}

// setEx91 puts the notes' XOR network (seed 001 Ex 9.1, L937–L943) into
// mlp: U = [[1,1],[1,1]], c = (0, −1), w = (2, −4), b = −1 with ReLU, so
// that sgn(⟨σ(Ux + c), w⟩ + b) solves XOR. In the row layout W₁ = Uᵀ.
func setEx91(m *nn.MLP, feats nn.Features, act nn.Activation) error {
	c := m.Config()
	if feats != nn.FeatX|nn.FeatY || len(c.Hidden) != 1 || c.Hidden[0] != 2 || act != nn.ReLU || c.Out != 1 {
		return fmt.Errorf("parameter weights = ex9.1: the notes' network has inputs x, y only, widths=2 (layers=1, units=2), " +
			"activation=relu and one output (two classes)")
	}
	copy(m.Layers[0].W.Data, []float64{1, 1, 1, 1})
	copy(m.Layers[0].B.Data, []float64{0, -1})
	copy(m.Layers[1].W.Data, []float64{2, -4})
	m.Layers[1].B.Data[0] = -1
	return nil
}

// gradCheck compares the gradient of the training objective (loss and
// penalty) on the first minibatch with central differences: the largest
// relative error away from kinks (seed 000 §2.1's oracle).
func (s *playground) gradCheck(batch int) (float64, error) {
	b, err := nn.NewBatch(batch, s.task.train.D)
	if err != nil {
		return 0, err
	}
	idx := make([]int, batch)
	for i := range idx {
		idx[i] = i
	}
	b.Load(s.task.train, idx)
	r, err := gradcheck.Model(func(tp *tensor.Tape) *tensor.Tensor {
		total, _ := s.tr.Objective(tp, b, nil)
		return total
	}, s.mlp.Params(), nil)
	if err != nil {
		return 0, err
	}
	return r.MaxRel, nil
}

func (s *playground) Step() error {
	if err := s.tr.Step(); err != nil {
		return err
	}
	if s.tr.Steps()%s.every == 0 {
		if err := s.evaluate(); err != nil {
			return err
		}
		s.trace.Add(s.train.Loss, s.test.Loss)
	}
	return nil
}

// evaluate computes the losses and accuracies on both sets and counts the
// dead units: ReLUs whose input is ≤ 0 at every training point, so that
// no gradient ever reaches their weights.
func (s *playground) evaluate() error {
	var err error
	if s.train, err = s.ev.Run(s.mlp, s.task.train, nil); err != nil {
		return err
	}
	if s.test, err = s.ev.Run(s.mlp, s.task.test, nil); err != nil {
		return err
	}
	s.at = s.tr.Steps()
	s.dead = 0
	if s.mlp.Config().Act != nn.ReLU || len(s.deadUnit) == 0 {
		return nil
	}
	for _, d := range s.deadUnit {
		for u := range d {
			d[u] = true
		}
	}
	s.tp.Rewind()
	s.mlp.Forward(s.tp, s.trainX.X, nil)
	for k, d := range s.deadUnit {
		_, pre := s.mlp.Hidden(k)
		w := len(d)
		for i, z := range pre.Data {
			if z > 0 {
				d[i%w] = false
			}
		}
	}
	for _, d := range s.deadUnit {
		for _, dead := range d {
			if dead {
				s.dead++
			}
		}
	}
	return nil
}

// The neuron thumbnails' grid.
const (
	thumbX = 16
	thumbY = 12
)

func (s *playground) Frame() sims.Frame {
	if s.at != s.tr.Steps() {
		_ = s.evaluate() // a failure here already ended a step
	}
	charts := []sims.Chart{
		s.task.decisionMap(s.mapTitle(), s.mlp, s.tp, s.grid),
		s.neurons(),
		lossChart("loss (train, test)", s.trace, s.every, 0, 1),
	}
	metrics := []sims.Metric{
		{Name: "train_loss", Value: s.train.Loss},
		{Name: "test_loss", Value: s.test.Loss},
	}
	if s.task.classes > 0 {
		metrics = append(metrics, sims.Metric{Name: "test_acc", Value: s.test.Accuracy})
	}
	metrics = append(metrics, sims.Metric{Name: "dead", Value: float64(s.dead)},
		sims.Metric{Name: "epoch", Value: math.Round(s.tr.Epochs()*10) / 10})
	return sims.Frame{Sim: Playground.Name, Step: s.tr.Steps(), Metrics: metrics, Charts: charts, Text: s.notes()}
}

func (s *playground) mapTitle() string {
	switch {
	case s.task.classes == 2:
		return "p(class 1) over the plane, ½ line"
	case s.task.classes > 2:
		return "most likely class, bright where sure"
	}
	return "fitted surface over the plane"
}

// neurons draws the network as TensorFlow Playground does: a column per
// layer, each unit a labelled thumbnail of what it computes over the
// plane (the inputs scaled to their largest |value|, the output as the
// probability of class 1 for two classes), and the weights between
// consecutive layers (sims.NetworkChart). The thumbnails share the
// activation's range, so that one colour bar reads them all.
func (s *playground) neurons() sims.NetworkChart {
	g := s.thumbs
	s.tp.Rewind()
	out := s.mlp.Forward(s.tp, g.batch.X, nil)
	c := s.mlp.Config()
	nc := sims.NetworkChart{Title: "neurons and weights"}
	switch c.Act {
	case nn.Tanh:
		nc.Scale, nc.Lo, nc.Hi = sims.Diverging, -1, 1
	case nn.Sigmoid:
		nc.Scale, nc.Lo, nc.Hi = sims.Diverging, 0, 1
	case nn.ReLU:
		nc.Scale = sims.Sequential
	default:
		nc.Scale = sims.Diverging
	}
	// inRange maps t ∈ [0, 1] onto the thumbnails' range ([−1, 1] when
	// each has its own).
	inRange := func(t float64) float64 {
		if nc.Lo < nc.Hi {
			return nc.Lo + (nc.Hi-nc.Lo)*t
		}
		return 2*t - 1
	}
	n := g.nx * g.ny
	// image rows run from the top (y = YMax); the grid's from the bottom.
	image := func(vals []float64, stride, unit int, caption string) sims.Image {
		im := sims.Image{Caption: caption, W: g.nx, H: g.ny, Pix: make([]float64, n)}
		for j := range g.ny {
			for i := range g.nx {
				im.Pix[(g.ny-1-j)*g.nx+i] = vals[(j*g.nx+i)*stride+unit]
			}
		}
		return im
	}
	inputs := sims.NetLayer{Name: "inputs"}
	names := s.task.feats.Names()
	for f, name := range names {
		im := image(g.batch.X.Data, len(names), f, name)
		m := 0.0
		for _, v := range im.Pix {
			m = math.Max(m, math.Abs(v))
		}
		for i, v := range im.Pix {
			if m > 0 {
				v /= m
			}
			im.Pix[i] = inRange((v + 1) / 2)
		}
		inputs.Units = append(inputs.Units, im)
	}
	nc.Layers = append(nc.Layers, inputs)
	for k, width := range c.Hidden {
		act, _ := s.mlp.Hidden(k)
		layer := sims.NetLayer{Name: fmt.Sprintf("L%d", k+1), In: slices.Clone(s.mlp.Layers[k].W.Data)}
		for u := range width {
			caption := fmt.Sprintf("n%d", u+1)
			if s.deadUnit[k][u] {
				caption += " " + deadMark
			}
			layer.Units = append(layer.Units, image(act.Data, width, u, caption))
		}
		nc.Layers = append(nc.Layers, layer)
	}
	outs := c.Out
	last := sims.NetLayer{Name: "output", In: slices.Clone(s.mlp.Layers[len(c.Hidden)].W.Data)}
	for u := range outs {
		caption := ""
		if outs > 1 {
			caption = fmt.Sprintf("c%d", u)
		}
		im := image(out.Data, outs, u, caption)
		if s.task.classes == 2 {
			for i, z := range im.Pix {
				im.Pix[i] = inRange(stable.Sigmoid(z))
			}
		}
		last.Units = append(last.Units, im)
	}
	nc.Layers = append(nc.Layers, last)
	return nc
}

// deadMark follows a dead unit's label in the network diagram.
const deadMark = "✗"

// parseWidths reads the widths parameter: the hidden layers' widths,
// comma-separated, or 0 for none.
func parseWidths(text string) ([]int, error) {
	bad := func(why string) error {
		return &algo.ParamError{Name: pgWidths.Name(), Value: sims.Shown(text), Allowed: fmt.Sprintf(
			"up to %d whole numbers 1..%d separated by commas, the first hidden layer's first (8,4,2), or 0 for none: %s",
			pgMaxLayers, pgMaxUnits, why)}
	}
	if strings.TrimSpace(text) == "0" {
		return nil, nil
	}
	parts := strings.Split(text, ",")
	if len(parts) > pgMaxLayers {
		return nil, bad(fmt.Sprintf("%d layers given", len(parts)))
	}
	widths := make([]int, len(parts))
	for i, p := range parts {
		w, err := strconv.Atoi(strings.TrimSpace(p))
		switch {
		case err != nil:
			return nil, bad(fmt.Sprintf("layer %d's %s is not a whole number", i+1, sims.Shown(strings.TrimSpace(p))))
		case w < 1 || w > pgMaxUnits:
			return nil, bad(fmt.Sprintf("layer %d has %d units", i+1, w))
		}
		widths[i] = w
	}
	return widths, nil
}

// formatWidths writes hidden layers' widths as the widths parameter reads
// them.
func formatWidths(widths []int) string {
	if len(widths) == 0 {
		return "0"
	}
	parts := make([]string, len(widths))
	for i, w := range widths {
		parts[i] = strconv.Itoa(w)
	}
	return strings.Join(parts, ",")
}

func (s *playground) notes() []string {
	lines := []string{s.cfg}
	if s.about != "" {
		lines = []string{s.about, s.cfg}
	}
	if s.ex91 {
		lines = append(lines, "weights: the notes' Ex 9.1, U = [[1,1],[1,1]], c = (0, −1), w = (2, −4), b = −1: "+
			"ŷ = −1, +1, +1, −1 on (0,0), (1,0), (0,1), (1,1)")
	}
	if A, c, ok := s.mlp.Affine(); ok && s.mlp.Config().Out == 1 {
		lines = append(lines, "σ = identity: the whole network is one affine map, "+
			fmtAffine(s.task.feats.Names(), A, c[0])+" (Remark 9.2)")
	}
	lines = append(lines, fmt.Sprintf("gradient check at step 0: backprop = central differences to %.1e (relative)", s.gradErr))
	if s.mlp.Config().Act == nn.ReLU {
		lines = append(lines, "dead ("+deadMark+" in the network): ReLU units whose input is ≤ 0 at every training point (no gradient reaches them)")
	}
	if s.task.sameTrainTest {
		lines = append(lines, "too few points to split: train and test are the same points")
	}
	return lines
}

func (s *playground) Result() map[string]any {
	var w [][]float64
	for _, p := range s.mlp.Params() {
		w = append(w, append([]float64(nil), p.Data...))
	}
	r := map[string]any{"steps": s.tr.Steps(), "train_loss": s.train.Loss, "test_loss": s.test.Loss,
		"dead_units": s.dead, "params": w, "grad_check": s.gradErr}
	if s.task.classes > 0 {
		r["train_accuracy"], r["test_accuracy"] = s.train.Accuracy, s.test.Accuracy
	}
	if s.task.train.N <= 8 {
		s.tp.Rewind()
		r["outputs"] = append([]float64(nil), s.mlp.Forward(s.tp, s.trainX.X, nil).Data...)
	}
	if A, c, ok := s.mlp.Affine(); ok {
		r["affine_A"], r["affine_c"] = A, c
	}
	names := strings.Join(s.task.feats.Names(), ",")
	r["features"] = names
	r["widths"] = formatWidths(s.mlp.Config().Hidden)
	return r
}
