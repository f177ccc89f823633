package trustsim

import (
	"fmt"
	"github.com/thelab/lab/algo/tensor"
	"math"

	"github.com/thelab/lab/algo/adversarial"
	"github.com/thelab/lab/algo/attrib"
	"github.com/thelab/lab/algo/nn"
	"github.com/thelab/lab/algo/stable"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// saliency's parameters.
var (
	saSize    = param.Choice("size", []imageSide{8, 16}, 8, "side of the digits")
	saUnit    = param.Int("unit", 0, "the hidden unit analysed (8×8: 32 units, 16×16: 128)").Range(0, 127)
	saLR      = param.Float("lr", 0.05, "η of activation maximisation x ← clip(x + η∇ₓh, 0, 1)").Range(0, 10).OpenMin()
	saExample = param.Int("example", 0, "the first of the three test digits whose saliency is drawn").Range(0, 199)
	saSharp   = param.Float("sharpness", 10, "k of the smooth OR σ(k(x₁ + x₂ − ½)) whose gradient is shown").Range(1, 50)
)

// Saliency looks inside the digits MLP (seed 001 §20 L1710–L1720, [A40]):
// the test digits that excite a hidden unit most, an input grown by
// gradient ascent to excite it (one step per step), gradient saliency
// maps, and the OR example where gradients and flips see nothing that
// the Shapley value splits evenly.
var Saliency = &sims.Spec{
	Name:   "saliency",
	Title:  "Neuron analysis: top-activating digits, activation maximisation, gradient saliency; the OR example",
	Source: "seed 001 §20 L1710–L1720 ([A40])",
	Steps:  200,
	Speed:  10,
	Params: param.List(saSize, saUnit, saLR, saExample, saSharp),
	New:    newSaliency,
	Size:   saliencySize,

	Metrics: saliencyMetrics,
}

// saliencySize is the digits task and its network, the activation
// maximisation (a digit with its gradient, the tape to the unit), the
// images it draws (the unit's weights, the saliency maps, the grown
// digit) and its trace.
func saliencySize(cfg sims.Config) int64 {
	side := int(saSize.Get(cfg.Values))
	a := taskArch(taskDigits, side)
	actMax := nn.TapeBytes(a, nn.Pass{Rows: 1, GradIn: true, Backward: true}) + nn.BatchBytes(1, a.In) + tensor.Alloc(a.In) +
		tensor.Alloc(a.Hidden[0])
	return tensor.Slack(32<<10 + taskBytes(taskDigits, saliencyN, side) + actMax + (saMaps+2)*tensor.Alloc(a.In) +
		sims.TraceBytes(1))
}

// saTop is the number of top-activating digits shown; saMaps the digits
// whose saliency is drawn.
const (
	saTop     = 8
	saMaps    = 3
	saliencyN = 1500 // digits
)

type saliencySim struct {
	t         *task
	model     *nn.MLP
	unit      int
	am        *attrib.ActMax
	top       sims.ImageChart
	maps      []sims.Image // digit, saliency pairs
	weights   sims.Image
	trace     *sims.Trace
	sharp     float64
	orGrad    [2]float64
	orShapley [2]float64
	orFlip    [2]float64
	lr        float64
	topAct    float64 // the largest activation over the test set
}

func newSaliency(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	t, err := newDigitsTask(cfg.Seed, saliencyN, int(saSize.Get(v)))
	if err != nil {
		return nil, err
	}
	width := t.hidden[0]
	s := &saliencySim{t: t, unit: saUnit.Get(v), sharp: saSharp.Get(v), lr: saLR.Get(v), trace: sims.NewTrace(0, 1)}
	if s.unit >= width {
		return nil, fmt.Errorf("parameter unit = %d: the %d×%d network has hidden units 0–%d", s.unit, t.side, t.side, width-1)
	}
	if saExample.Get(v)+saMaps > t.test.N {
		return nil, fmt.Errorf("parameter example = %d: the test set has %d digits", saExample.Get(v), t.test.N)
	}
	if s.model, err = t.trainModel(cfg.Seed, digitsTrainSteps, 1, adversarial.Config{}); err != nil {
		return nil, err
	}
	d, side := t.test.D, t.side
	idx, acts, err := attrib.TopActivating(s.model, t.test, 0, s.unit, saTop)
	if err != nil {
		return nil, err
	}
	s.topAct = acts[0]
	s.top = sims.ImageChart{Title: fmt.Sprintf("unit %d: most active test digits (activation)", s.unit), Scale: sims.Grey, Lo: 0, Hi: 1}
	for r, i := range idx {
		s.top.Images = append(s.top.Images, sims.Image{Caption: fmt.Sprintf("%.2f", acts[r]), W: side, H: side,
			Pix: t.test.X[i*d : (i+1)*d]})
	}
	// The unit's incoming weights, grey = 0.
	w := s.model.Layers[0].W
	pix := make([]float64, d)
	for p := range d {
		pix[p] = w.Data[p*width+s.unit]
	}
	s.weights = sims.Image{Caption: "its weights", W: side, H: side, Pix: centred(pix)}
	// Saliency |∂z_y/∂x| of the example digits, each scaled to [0, 1].
	g := make([]float64, d)
	for e := saExample.Get(v); e < saExample.Get(v)+saMaps; e++ {
		x, y := t.test.X[e*d:(e+1)*d], t.test.Labels[e]
		if _, err := attrib.Saliency(s.model, x, y, g); err != nil {
			return nil, err
		}
		m := math.Max(maxAbs(g), 1e-300)
		sal := make([]float64, d)
		for p, gv := range g {
			sal[p] = math.Abs(gv) / m
		}
		s.maps = append(s.maps, sims.Image{Caption: fmt.Sprintf("digit %d", y), W: side, H: side, Pix: x},
			sims.Image{Caption: fmt.Sprintf("|∂z_%d/∂x|", y), W: side, H: side, Pix: sal})
	}
	x0 := make([]float64, d)
	for p := range x0 {
		x0[p] = 0.5
	}
	if s.am, err = attrib.NewActMax(s.model, 0, s.unit, x0, saLR.Get(v), 0, 1); err != nil {
		return nil, err
	}
	s.trace.Add(s.am.Activation()) // step 0: the grey start's
	s.orGame()
	return s, nil
}

// centred maps signed values into [0, 1] with 0 at ½ (grey).
func centred(x []float64) []float64 {
	m := math.Max(maxAbs(x), 1e-300)
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = 0.5 + 0.5*v/m
	}
	return out
}

// orGame computes the OR example at x = (1, 1): the gradient of the
// smooth OR σ(k(x₁ + x₂ − ½)), the single flips and the Shapley values of
// the game u(S) = 𝕀[S holds an active input].
func (s *saliencySim) orGame() {
	k := s.sharp
	p := stable.Sigmoid(k * 1.5)
	g := k * p * (1 - p)
	s.orGrad = [2]float64{g, g}
	u := func(a, b float64) float64 { return math.Max(a, b) }
	s.orFlip[0], s.orFlip[1] = attrib.Flip2(u(1, 0), u(0, 1), u(1, 1))
	s.orShapley[0], s.orShapley[1] = attrib.Shapley2(u(0, 0), u(1, 0), u(0, 1), u(1, 1))
}

func (s *saliencySim) Step() error {
	if err := s.am.Step(); err != nil {
		return err
	}
	// The activation of the input the step moved to, the one the frame
	// shows grown (issue 28.1: it was the input's before the move).
	s.trace.Add(s.am.Activation())
	return nil
}

func (s *saliencySim) Frame() sims.Frame {
	side := s.t.side
	grown := sims.Image{Caption: fmt.Sprintf("grown, step %d", s.am.Steps()), W: side, H: side,
		Pix: append([]float64(nil), s.am.X()...)}
	images := sims.ImageChart{Title: "activation maximisation · saliency of test digits", Scale: sims.Grey, Lo: 0, Hi: 1,
		Images: append([]sims.Image{grown, s.weights}, s.maps...)}
	x0, x1 := s.trace.Span()
	act := sims.LineChart{Title: fmt.Sprintf("activation of unit %d while ascending", s.unit), XLabel: "step",
		X0: x0, X1: x1, Series: []sims.Series{{Name: "h(x)", Y: s.trace.Column(0)}}}
	or := sims.BarChart{Title: "y = x₁ ∨ x₂ at (1, 1): importance", Max: 0.5, Bars: []sims.Bar{
		{Label: "∂σ/∂x₁", Value: s.orGrad[0], Class: 0}, {Label: "∂σ/∂x₂", Value: s.orGrad[1], Class: 0},
		{Label: "flip x₁", Value: s.orFlip[0], Class: 1}, {Label: "flip x₂", Value: s.orFlip[1], Class: 1},
		{Label: "Shapley x₁", Value: s.orShapley[0], Class: 2}, {Label: "Shapley x₂", Value: s.orShapley[1], Class: 2},
	}}
	return sims.Frame{
		Sim: Saliency.Name, Step: s.am.Steps(),
		Metrics: []sims.Metric{
			{Name: "activation", Value: s.am.Activation()},
			{Name: "top", Value: s.topAct},
			{Name: "shapley_x1", Value: s.orShapley[0]},
			{Name: "flip_x1", Value: s.orFlip[0]},
			{Name: "grad_x1", Value: s.orGrad[0]},
		},
		// The hero is what moves: the input being grown toward what the
		// unit likes, beside the saliency maps; the gallery is fixed.
		Charts:  []sims.Chart{images, s.top, act, or},
		Primary: 0,
		Text: []string{
			fmt.Sprintf("x ← clip(x + %g ∇ₓh, 0, 1) from grey: the input unit %d likes; tanh units peak at 1", s.lr, s.unit),
			"saliency: |∂z_y/∂x| per pixel, white = the pixels the class score is most sensitive to",
			fmt.Sprintf("OR: flips and ∂σ(%g(x₁+x₂−½)) see ~0 for each input; Shapley (½, ½) sums to u(N) − u(∅) = 1", s.sharp),
		},
	}
}

func (s *saliencySim) Result() map[string]any {
	return map[string]any{
		"activation": s.am.Activation(), "steps": s.am.Steps(), "unit": s.unit,
		"or_gradient": s.orGrad, "or_flip": s.orFlip, "or_shapley": s.orShapley,
	}
}
