package nnsim

import (
	"fmt"
	"math"
	"slices"

	"github.com/thelab/lab/algo/dataset"
	"github.com/thelab/lab/algo/nn"
	"github.com/thelab/lab/algo/tensor"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// dropout's parameters.
var (
	doN      = param.Int("n", 10, "training points of t = sin 2πx + noise (few: the network can memorise them)").Range(4, 500)
	doNoise  = param.Float("noise", 0.5, "s.d. of the noise on the targets").Range(0, 1)
	doP      = param.Float("p", 0.5, "probability of dropping each hidden unit in training (q = 1 − p keep)").Range(0.05, 0.9)
	doLayers = param.Int("layers", 3, "hidden layers").Range(1, 4)
	doUnits  = param.Int("units", 64, "units in each hidden layer").Range(4, 128)
	doOpt    = newOptParams("adam", 0.01)
)

// doTest is the size of the test set, drawn like the training set.
const doTest = 100

// doEvery is the number of steps between evaluations.
const doEvery = 5

// doMaskRows and doMaskCols bound the masks drawn: the first training
// examples by the first units of each layer.
const (
	doMaskRows = 8
	doMaskCols = 24
)

// Dropout trains two copies of one network from the same weights on the
// same few noisy points, one with inverted dropout (seed 001 [A16]) and
// one without: the plain network memorises the noise (train loss → 0,
// test loss rising) while dropout keeps the gap small; the masks of the
// last step are drawn per hidden unit.
var Dropout = &sims.Spec{
	Name:   "dropout",
	Title:  "Dropout: the train/test gap with and without, on a problem made to overfit",
	Source: "seed 001 §9 ([A16], L1027–L1029)",
	Steps:  3000,
	Speed:  30,
	Params: param.List(doN, doNoise, doP, doLayers, doUnits, doOpt),
	New:    newDropout,
	Size:   dropoutSize,

	Metrics: dropoutMetrics,
}

// dropoutSize is the points, the two networks with their trainers (a
// batch of every training point), the evaluator, the fits' grid and tape,
// the masks, and the Frame's fits and curves.
func dropoutSize(cfg sims.Config) int64 {
	v := cfg.Values
	n := doN.Get(v)
	hidden := slices.Repeat([]int{doUnits.Get(v)}, doLayers.Get(v))
	plain := nn.MLPConfig{In: 1, Hidden: hidden, Out: 1, Act: nn.ReLU}
	dropped := plain
	dropped.Dropout = doP.Get(v)
	tc := nn.TrainConfig{Batch: n, Opt: doOpt.config(v)}
	points := func(n int) int64 { return 8*int64(n) + 4*tensor.Appended(n) + tensor.Alloc(n) } // rows, X, Y; the set's x
	const nx = 120
	masks := 2 * int64(len(hidden)) * tensor.Alloc(min(doMaskRows, n)*min(doUnits.Get(v), doMaskCols))
	return tensor.Slack(16<<10 + points(n) + points(doTest) + 2*nn.ParamBytes(plain) + tc.Bytes(plain, n, 1, 1, nn.Squared) +
		tc.Bytes(dropped, n, 1, 1, nn.Squared) + nn.EvaluatorBytes(plain, doTest, doTest, 1, 1, nn.Squared) +
		nn.BatchBytes(nx, 1) + nn.ForwardTapeBytes(plain, nx) + masks + 4*tensor.Alloc(nx) + sims.TraceBytes(4))
}

type dropoutSim struct {
	p, noise    float64
	train, test *nn.Set
	net         [2]*nn.MLP // plain, dropout
	tr          [2]*nn.Trainer
	ev          *nn.Evaluator
	tp          *tensor.Tape
	curve       *nn.Batch // the grid of the fits
	gridX       []float64
	trace       *sims.Trace // train, test of each network
	last        [4]float64
	mask        [][]float64 // per hidden layer, the last step's mask image
	arch        string
}

func newDropout(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	rng := streamRNG(cfg.Seed, dataStream)
	noise := doNoise.Get(v)
	tr, err := dataset.Sinusoid(rng, doN.Get(v), noise, 0, 0)
	if err != nil {
		return nil, err
	}
	te, err := dataset.Sinusoid(rng, doTest, noise, 0, 0)
	if err != nil {
		return nil, err
	}
	s := &dropoutSim{p: doP.Get(v), noise: noise, tp: tensor.NewForwardTape()}
	for i, l := range []*dataset.Labelled{tr, te} {
		x := make([]float64, len(l.X))
		for j, r := range l.X {
			x[j] = r[0]
		}
		set, err := nn.NewRegressionSet(x, 1, l.Y)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			s.train = set
		} else {
			s.test = set
		}
	}
	hidden := make([]int, doLayers.Get(v))
	for i := range hidden {
		hidden[i] = doUnits.Get(v)
	}
	s.arch = architecture(1, hidden, 1)
	for i, p := range []float64{0, s.p} {
		// The same initial weights for both: the same init stream.
		m, err := nn.NewMLP(nn.MLPConfig{In: 1, Hidden: hidden, Out: 1, Act: nn.ReLU, Dropout: p}, streamRNG(cfg.Seed, initStream))
		if err != nil {
			return nil, err
		}
		if err := checkLive(cfg, "dropout", m, s.train.N); err != nil {
			return nil, err
		}
		t, err := nn.NewTrainer(m, s.train, nn.TrainConfig{Batch: s.train.N, Opt: doOpt.config(v)}, streamRNG(cfg.Seed, trainStream))
		if err != nil {
			return nil, sims.Blame(err, v)
		}
		s.net[i], s.tr[i] = m, t
	}
	if s.ev, err = nn.NewEvaluator(1, doTest); err != nil {
		return nil, err
	}
	const nx = 120
	if s.curve, err = nn.NewBatch(nx, 1); err != nil {
		return nil, err
	}
	s.gridX = make([]float64, nx)
	for i := range s.gridX {
		s.gridX[i] = float64(i) / (nx - 1)
	}
	s.curve.LoadRows(s.gridX, nil)
	s.trace = sims.NewTrace(0, 4)
	if err := s.record(); err != nil {
		return nil, err
	}
	return s, nil
}

// record evaluates both networks (no dropout at evaluation: inverted
// dropout scaled the survivors in training) on the training and test sets.
func (s *dropoutSim) record() error {
	for i, m := range s.net {
		for j, set := range []*nn.Set{s.train, s.test} {
			e, err := s.ev.Run(m, set, nil)
			if err != nil {
				return err
			}
			s.last[2*i+j] = e.Loss
		}
	}
	s.trace.Add(s.last[:]...)
	return nil
}

func (s *dropoutSim) Step() error {
	for _, t := range s.tr {
		if err := t.Step(); err != nil {
			return err
		}
	}
	s.snapMasks()
	if s.tr[0].Steps()%doEvery != 0 {
		return nil
	}
	return s.record()
}

// snapMasks copies the last training step's dropout masks (the tape's
// tensors are overwritten by the next forward pass, the fits' included):
// per hidden layer, the first training examples (rows) by the units
// (columns), 1 kept, 0 dropped, ½ a kept unit whose ReLU was silent anyway.
func (s *dropoutSim) snapMasks() {
	m := s.net[1]
	layers := len(m.Layers) - 1 // the hidden ones
	if s.mask == nil {
		s.mask = make([][]float64, layers)
	}
	for k := range layers {
		act, _ := m.Hidden(k)
		d := m.Dropped(k)
		w := act.Dim(1)
		cols := min(w, doMaskCols)
		n := min(doMaskRows, act.Dim(0)) * cols
		if s.mask[k] == nil {
			s.mask[k] = make([]float64, n)
		}
		for i := range s.mask[k] {
			j := i/cols*w + i%cols
			switch {
			case d.Data[j] != 0:
				s.mask[k][i] = 1
			case act.Data[j] == 0:
				s.mask[k][i] = 0.5
			default:
				s.mask[k][i] = 0
			}
		}
	}
}

// fit is network i's prediction on the grid.
func (s *dropoutSim) fit(i int) []float64 {
	s.tp.Rewind()
	out := s.net[i].Forward(s.tp, s.curve.X, nil)
	return append([]float64(nil), out.Data...)
}

// masks draws the last step's masks, white kept, black dropped.
func (s *dropoutSim) masks() sims.ImageChart {
	c := sims.ImageChart{Title: "masks: examples × units; white kept, black dropped, grey silent",
		Scale: sims.Grey, Lo: 0, Hi: 1}
	for k, pix := range s.mask {
		kept, dropped := 0.0, 0.0
		for _, v := range pix {
			switch v {
			case 1:
				kept++
			case 0:
				dropped++
			}
		}
		w := min(s.net[1].Config().Hidden[k], doMaskCols)
		c.Images = append(c.Images, sims.Image{W: w, H: len(pix) / w, Pix: slices.Clone(pix), // the next step rewrites s.mask
			Caption: fmt.Sprintf("layer %d: %.0f%% dropped", k+1, 100*dropped/max(1, kept+dropped))})
	}
	return c
}

func (s *dropoutSim) Frame() sims.Frame {
	names := [2]string{"no dropout", fmt.Sprintf("dropout p=%g", s.p)}
	fits := sims.CanvasChart{Title: "the fits on sin 2πx (dotted) and the training points",
		View: sims.Rect{XMin: 0, XMax: 1, YMin: -2, YMax: 2}, XLabel: "x",
		Legend: []string{names[0], names[1], "train", "sin 2πx"}}
	truth := make([]float64, len(s.gridX))
	for i, x := range s.gridX {
		truth[i] = math.Sin(2 * math.Pi * x)
	}
	fits.Paths = append(fits.Paths, sims.Path{X: s.gridX, Y: truth, Class: 3, Dotted: true})
	for i := range s.net {
		y := s.fit(i)
		for j := range y {
			y[j] = math.Max(-2, math.Min(2, y[j]))
		}
		fits.Paths = append(fits.Paths, sims.Path{X: s.gridX, Y: y, Class: i})
	}
	fits.Points = []sims.PointSet{{Name: "train", X: s.train.X, Y: s.train.Targets, Class: 2}}
	x0, x1 := s.trace.Span()
	losses := sims.LineChart{Title: "loss ½(f − t)²: train, test", LogY: true, X0: x0 * doEvery, X1: x1 * doEvery, XLabel: "step"}
	for i, n := range []string{"train", "test"} {
		for j, short := range []string{"plain", "dropout"} {
			losses.Series = append(losses.Series, sims.Series{Name: short + " " + n, Y: s.trace.Column(2*j + i), Class: j + 2*i})
		}
	}
	floor := make([]float64, s.trace.Len())
	for i := range floor {
		floor[i] = s.noise * s.noise / 2
	}
	losses.Series = append(losses.Series, sims.Series{Name: "σ²/2", Y: floor, Class: 4, Bound: true})
	gap := func(i int) float64 { return s.last[2*i+1] - s.last[2*i] }
	metrics := []sims.Metric{
		{Name: "train_plain", Value: s.last[0]}, {Name: "test_plain", Value: s.last[1]},
		{Name: "train_dropout", Value: s.last[2]}, {Name: "test_dropout", Value: s.last[3]},
		{Name: "gap_plain", Value: gap(0)}, {Name: "gap_dropout", Value: gap(1)},
	}
	text := []string{
		fmt.Sprintf("%s relu, %d points; σ²/2 dotted: sin 2πx's own test loss", s.arch, s.train.N),
		"train: h ← mask⊙h/q, q = 1 − p, a fresh mask per example and step;",
		"E[mask⊙h/q] = h, so testing uses h as it is (the notes scale in backprop)",
	}
	return sims.Frame{Sim: Dropout.Name, Step: s.tr[0].Steps(), Metrics: metrics,
		Charts: []sims.Chart{fits, losses, s.masks()}, Text: text}
}

func (s *dropoutSim) Result() map[string]any {
	return map[string]any{"steps": s.tr[0].Steps(), "p": s.p,
		"train_plain": s.last[0], "test_plain": s.last[1], "train_dropout": s.last[2], "test_dropout": s.last[3]}
}
