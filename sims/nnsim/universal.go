package nnsim

import (
	"fmt"
	"math"

	"github.com/thelab/lab/algo/nn"
	"github.com/thelab/lab/algo/tensor"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// target1D is universal's 1-D target on [−1, 1].
type target1D string

func (t target1D) String() string { return string(t) }

const (
	tgtSin  target1D = "sin"
	tgtBump target1D = "bump"
	tgtWave target1D = "wave"
)

// targets1D: f and max|f″| on [−1, 1] (for the interpolation bound).
var targets1D = map[target1D]struct {
	f    func(float64) float64
	curv float64
	name string
}{
	tgtSin:  {func(x float64) float64 { return math.Sin(3 * x) }, 9, "sin 3x"},
	tgtBump: {func(x float64) float64 { return math.Exp(-8 * x * x) }, 16, "exp(−8x²)"},
	tgtWave: {func(x float64) float64 { return math.Sin(8*x) * math.Exp(-x*x) }, 72, "sin(8x)·exp(−x²)"},
}

// universal's parameters.
var (
	unTarget = param.Choice("target", []target1D{tgtSin, tgtBump, tgtWave}, tgtSin,
		"sin: sin 3x; bump: exp(−8x²); wave: sin(8x)·exp(−x²), all on [−1, 1]")
	unWidth = param.Int("width", 8, "k, the hidden ReLUs of the trained network and of the constructive one").Range(1, 256)
	unOpt   = newOptParams("adam", 0.01)
)

// unPoints is the number of training points (the grid, no noise); unNX
// the points of the fine grid the networks are drawn and measured on;
// unMaxLog the largest log₂ k of the width sweep.
const (
	unPoints = 200
	unNX     = 801
	unMaxLog = 8
)

// Universal sets a trained one-hidden-layer ReLU network of width k beside
// the constructive one of Theorem 9.4 (the piecewise-linear interpolant of
// f at k + 1 knots, algo/nn.Interpolant) on a 1-D target, and draws the
// constructive network's sup error against k = 1 … 256 under the bound
// h² max|f″|/8: O(1/k²) (seed 001 [A17]).
var Universal = &sims.Spec{
	Name:   "universal",
	Title:  "Universal approximation: a trained ReLU layer of width k beside the constructive one",
	Source: "seed 001 §9 (Theorem 9.4, L1015–L1025, [A17])",
	Steps:  5000,
	Speed:  30,
	Params: param.List(unTarget, unWidth, unOpt),
	New:    newUniversal,
	Size:   universalSize,

	Metrics: universalMetrics,
}

// universalSize is the trained network, its trainer on the grid of
// points and the evaluator of its loss there, the fine grid and the tape
// that draws both networks over it, and the Frame's curves.
func universalSize(cfg sims.Config) int64 {
	v := cfg.Values
	arch := nn.MLPConfig{In: 1, Hidden: []int{unWidth.Get(v)}, Out: 1, Act: nn.ReLU}
	tc := nn.TrainConfig{Batch: unPoints, Opt: unOpt.config(v)}
	return tensor.Slack(64<<10 + 2*nn.ParamBytes(arch) + nn.SetBytes(unPoints, 1) + tc.Bytes(arch, unPoints, 1, 1, nn.Squared) +
		nn.EvaluatorBytes(arch, unPoints, unPoints, 1, 1, nn.Squared) +
		nn.BatchBytes(unNX, 1) + nn.ForwardTapeBytes(arch, unNX) + 4*tensor.Alloc(unNX) + sims.TraceBytes(1))
}

type universalSim struct {
	target     target1D
	k          int
	net, built *nn.MLP
	tr         *nn.Trainer
	ev         *nn.Evaluator // the training loss at the current θ
	set        *nn.Set
	tp         *tensor.Tape
	grid       *nn.Batch
	gridX      []float64
	sweep      [unMaxLog + 1]float64 // the constructive sup error at k = 2^i
	builtErr   float64
	loss       *sims.Trace // the training loss at θ_k, from step 0
}

func newUniversal(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	s := &universalSim{target: unTarget.Get(v), k: unWidth.Get(v), tp: tensor.NewForwardTape()}
	f := targets1D[s.target].f
	x, y := make([]float64, unPoints), make([]float64, unPoints)
	for i := range x {
		x[i] = -1 + 2*float64(i)/(unPoints-1)
		y[i] = f(x[i])
	}
	var err error
	if s.set, err = nn.NewRegressionSet(x, 1, y); err != nil {
		return nil, err
	}
	if s.grid, err = nn.NewBatch(unNX, 1); err != nil {
		return nil, err
	}
	s.gridX = make([]float64, unNX)
	for i := range s.gridX {
		s.gridX[i] = -1 + 2*float64(i)/(unNX-1)
	}
	s.grid.LoadRows(s.gridX, nil)
	// The sweep runs on a tape of its own, let go once it is done, so that
	// s.tp keeps no more than width k needs (256 units on the whole grid
	// take 6.5 MB).
	sweep := tensor.NewForwardTape()
	for i := range s.sweep {
		m, err := nn.Interpolant(f, -1, 1, 1<<i)
		if err != nil {
			return nil, err
		}
		s.sweep[i] = s.supErr(sweep, m)
	}
	if s.built, err = nn.Interpolant(f, -1, 1, s.k); err != nil {
		return nil, sims.Blame(err, v)
	}
	s.builtErr = s.supErr(s.tp, s.built)
	if s.net, err = nn.NewMLP(nn.MLPConfig{In: 1, Hidden: []int{s.k}, Out: 1, Act: nn.ReLU}, streamRNG(cfg.Seed, initStream)); err != nil {
		return nil, err
	}
	if s.tr, err = nn.NewTrainer(s.net, s.set, nn.TrainConfig{Batch: unPoints, Opt: unOpt.config(v)}, streamRNG(cfg.Seed, trainStream)); err != nil {
		return nil, sims.Blame(err, v)
	}
	if s.ev, err = nn.NewEvaluator(1, unPoints); err != nil {
		return nil, err
	}
	s.loss = sims.NewTrace(0, 1)
	if err := s.addLoss(); err != nil {
		return nil, err
	}
	return s, nil
}

// addLoss records the training loss at the current θ. The trainer's own,
// BatchLoss, is that of the θ before its update (issue 28.1): beside the
// trained curve and sup error of θ_k it would be one step behind.
func (s *universalSim) addLoss() error {
	e, err := s.ev.Run(s.net, s.set, nil)
	if err != nil {
		return err
	}
	s.loss.Add(e.Loss)
	return nil
}

// supErr is max |m(x) − f(x)| over the fine grid, run on tp.
func (s *universalSim) supErr(tp *tensor.Tape, m *nn.MLP) float64 {
	tp.Rewind()
	return s.sup(m.Forward(tp, s.grid.X, nil).Data)
}

// sup is max |g(x) − f(x)| of a network's values g over the fine grid.
func (s *universalSim) sup(g []float64) float64 {
	f := targets1D[s.target].f
	worst := 0.0
	for i, v := range g {
		worst = math.Max(worst, math.Abs(v-f(s.gridX[i])))
	}
	return worst
}

func (s *universalSim) Step() error {
	if err := s.tr.Step(); err != nil {
		return err
	}
	return s.addLoss()
}

func (s *universalSim) curve(m *nn.MLP) []float64 {
	s.tp.Rewind()
	return append([]float64(nil), m.Forward(s.tp, s.grid.X, nil).Data...)
}

func (s *universalSim) Frame() sims.Frame {
	t := targets1D[s.target]
	truth := make([]float64, len(s.gridX))
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, x := range s.gridX {
		truth[i] = t.f(x)
		lo, hi = math.Min(lo, truth[i]), math.Max(hi, truth[i])
	}
	pad := 0.15 * (hi - lo)
	view := sims.Rect{XMin: -1, XMax: 1, YMin: lo - pad, YMax: hi + pad}
	clip := func(y []float64) []float64 {
		for i := range y {
			y[i] = math.Max(view.YMin, math.Min(view.YMax, y[i]))
		}
		return y
	}
	// The trained net's sup error is read off the curve drawn, before
	// its clipping: both of the current θ (issue 28.1: it was refreshed
	// every 10 steps, the untrained net's until step 10).
	trained := s.curve(s.net)
	netErr := s.sup(trained)
	fits := sims.CanvasChart{Title: fmt.Sprintf("%s and two nets of %d ReLUs", t.name, s.k), View: view, XLabel: "x",
		Legend: []string{"trained", "constructive", "knots", t.name},
		Paths: []sims.Path{{X: s.gridX, Y: truth, Class: 3, Dotted: true},
			{X: s.gridX, Y: clip(s.curve(s.built)), Class: 1}, {X: s.gridX, Y: clip(trained), Class: 0}}}
	for j := 0; j <= s.k && s.k <= 64; j++ {
		x := -1 + 2*float64(j)/float64(s.k)
		fits.Markers = append(fits.Markers, sims.Marker{X: x, Y: t.f(x), Glyph: '◆', Class: 2})
	}
	bound := make([]float64, len(s.sweep))
	for i := range bound {
		h := 2 / float64(int(1)<<i)
		bound[i] = h * h * t.curv / 8
	}
	sweep := sims.LineChart{Title: "sup error of g against k", LogY: true, X0: 0, X1: unMaxLog,
		XLabel: "log₂ k", Series: []sims.Series{{Name: "sup |g − f|", Y: s.sweep[:], Class: 1},
			{Name: "h²·max|f″|/8", Y: bound, Class: 4, Bound: true}}}
	x0, x1 := s.loss.Span()
	loss := sims.LineChart{Title: "trained: loss ½(g − f)²", LogY: true, X0: x0, X1: x1, XLabel: "step",
		Series: []sims.Series{{Name: "train", Y: s.loss.Column(0), Class: 0}}}
	metrics := []sims.Metric{{Name: "sup_trained", Value: netErr}, {Name: "sup_constructive", Value: s.builtErr},
		{Name: "bound", Value: math.Pow(2/float64(s.k), 2) * t.curv / 8}}
	text := []string{
		fmt.Sprintf("g(x) = f(−1) + Σ c_j ReLU(x − t_j), %d knots, c_j the slope changes", s.k+1),
		"sup|g − f| ≤ h²max|f″|/8, h = 2/k: O(1/k²); training places its own knots",
		"Thm 9.4: some k reaches any ε; k = exp(1/ε) only in the worst case",
	}
	return sims.Frame{Sim: Universal.Name, Step: s.tr.Steps(), Metrics: metrics,
		Charts: []sims.Chart{fits, sweep, loss}, Text: text}
}

func (s *universalSim) Result() map[string]any {
	return map[string]any{"steps": s.tr.Steps(), "width": s.k, "sup_trained": s.supErr(s.tp, s.net),
		"sup_constructive": s.builtErr, "sweep": append([]float64(nil), s.sweep[:]...)}
}
