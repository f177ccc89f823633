package diffusionsim

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/diffusion"
	"github.com/thelab/lab/algo/nn"
	"github.com/thelab/lab/algo/tensor"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// ScoreMatch trains a small network ε_θ(x, σ) by denoising score matching
// (seed 000 §3.3, eq 3.5; seed 001 [A31]) on the 2-D data mixture of
// diffusion, then plugs it into the same sampler in place of the exact ε*.
//
// The lab's keys are the lab's own (no sim has action keys) and a
// parameter change rebuilds a sim, which would throw the network away; so
// the trained model goes into diffusion here, inside the sim: after
// `train` steps each further step is one DDIM level of two samplers
// (diffusion.Sampler, the engine of the diffusion sim) started from the
// same noise, one driven by ε_θ and one by ε*, side by side. Pressing
// space or s past training is the key that samples with the trained model.
var ScoreMatch = &sims.Spec{
	Name:  "score-match",
	Title: "Denoising score matching: ε_θ(x, σ) against the exact ε*, loss against its floor, then sampling with it",
	Source: "seed 000 §3.3 (eqs 3.4–3.5, L1181–1201), §3.1 (Tweedie), §3.4 (DDIM); " +
		"seed 001 §15 [A31] (L1486–1514; E23: the target is ε, the score −ε/σ)",
	Data:   dataHelp,
	Steps:  3050,
	Speed:  100,
	Params: param.List(append(dp.decls(), smWidth, smLayers, smAct, smBatch, smLR, smTrain, smSteps, smN)...),
	New:    newScoreMatch,
	Size:   scoreMatchSize,

	Metrics: scoreMatchMetrics,
}

// scoreMatchSize is the score model (diffusion's DSM footprint), the
// field's grid, the labels, the two samplers of the sampling phase and
// the Frame: the fields' arrows in training, the two clouds in sampling,
// and the loss trace.
func scoreMatchSize(cfg sims.Config) int64 {
	v := cfg.Values
	n, steps := smN.Get(v), smSteps.Get(v)
	c := diffusion.DSMConfig{Hidden: slices.Repeat([]int{smWidth.Get(v)}, smLayers.Get(v)), Act: smAct.Get(v),
		Batch: smBatch.Get(v), Eval: smEval}
	field := 4 * smGrid * smGrid * (64 + 2*tensor.Alloc(2)) // two σ, two fields: an arrow's path and its ends
	sampling := 2*diffusion.SamplerBytes(n, 2, steps) + 4*tensor.Alloc(n)
	return tensor.Slack(32<<10 + c.Bytes() + 2*tensor.Alloc(2*smGrid*smGrid) + tensor.Alloc(n) + max(int64(field), sampling) +
		sims.TraceBytes(3))
}

var (
	smWidth  = param.Int("width", 64, "hidden units per layer of ε_θ").Range(4, 256)
	smLayers = param.Int("layers", 2, "hidden layers of ε_θ").Range(1, 4)
	smAct    = param.Choice("act", []nn.Activation{nn.ReLU, nn.Tanh}, nn.ReLU, "hidden activation")
	smBatch  = param.Int("batch", 256, "(x, σ, ε) triples per step, σ log-uniform in [0.01, 20]").Range(8, diffusion.MaxDSMBatch)
	smLR     = param.Float("lr", 3e-3, "Adam's learning rate, lowered along a cosine to 1 % by the end of training").Range(1e-5, 0.1)
	smTrain  = param.Int("train", 3000, "training steps; then each step is one DDIM level with ε_θ beside ε*").Range(0, 1_000_000)
	smSteps  = param.Int("steps", 50, "DDIM levels of the sampling phase (geometric σ from 20 to 0.01, then 0)").Range(1, 1000)
	smN      = param.Int("n", 1000, "particles of each sampler").Range(1, 20000)
)

// Sampling and field constants: the training noise range (also the
// sampler's schedule), the σ of the two field pictures, the evaluation
// set and how often it is scored.
const (
	smSigmaMin = 0.01
	smSigmaMax = 20
	smEval     = 2048
	smEvery    = 25
	smGrid     = 9
)

var smFieldSigmas = [2]float64{0.3, 2}

type smSim struct {
	mix   *diffusion.Mixture
	about string
	dsm   *diffusion.DSM
	train int
	k     int
	trace *sims.Trace // batch loss, evaluation loss (every smEvery steps), floor
	// eval and gap are the held-out loss and its gap as of step evalK:
	// every smEvery steps while running (the trace's), now when paused
	// (Settle); periodic is the trace's last.
	eval, gap, periodic float64
	evalK               int
	learned             *diffusion.Sampler
	exact               *diffusion.Sampler
	sc                  diffusion.SamplerConfig
	n                   int
	seed                uint64
	view                sims.Rect
	labels              []int
	grid                []float64 // field points
	e                   []float64
}

func newScoreMatch(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	mix, about, err := dp.build(cfg)
	if err != nil {
		return nil, err
	}
	mix.Workers = cfg.Workers
	hidden := make([]int, smLayers.Get(v))
	for i := range hidden {
		hidden[i] = smWidth.Get(v)
	}
	dsm, err := diffusion.NewDSM(mix, diffusion.DSMConfig{Hidden: hidden, Act: smAct.Get(v), Batch: smBatch.Get(v), LR: smLR.Get(v), Decay: smTrain.Get(v),
		SigmaMin: smSigmaMin, SigmaMax: smSigmaMax, Eval: smEval}, rand.New(rand.NewPCG(cfg.Seed, 0x6473_6d)))
	if err != nil {
		return nil, err
	}
	s := &smSim{mix: mix, about: about, dsm: dsm, train: smTrain.Get(v), trace: sims.NewTrace(0, 3), n: smN.Get(v), seed: cfg.Seed,
		labels: make([]int, smN.Get(v)),
		sc: diffusion.SamplerConfig{Method: diffusion.DDIM, Steps: smSteps.Get(v), Schedule: diffusion.Geometric,
			SigmaMax: smSigmaMax, SigmaMin: smSigmaMin}}
	s.view = dataView(mix)
	for j := range smGrid {
		for i := range smGrid {
			s.grid = append(s.grid, s.view.XMin+(s.view.XMax-s.view.XMin)*(float64(i)+0.5)/smGrid,
				s.view.YMin+(s.view.YMax-s.view.YMin)*(float64(j)+0.5)/smGrid)
		}
	}
	s.e = make([]float64, len(s.grid))
	s.eval, s.gap = dsm.Evaluate()
	s.periodic = s.eval
	if s.train == 0 {
		if err := s.startSampling(); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// startSampling builds the two samplers from the same data draws and
// noise (the same seed): only the denoiser differs.
func (s *smSim) startSampling() error {
	var err error
	if s.learned, err = startSampler(s.sc, s.mix, s.dsm, s.n, s.seed); err != nil {
		return err
	}
	s.exact, err = startSampler(s.sc, s.mix, s.mix, s.n, s.seed)
	return err
}

func (s *smSim) Step() error {
	if s.k < s.train {
		if err := s.dsm.Step(); err != nil {
			return err
		}
		s.k++
		if s.k%smEvery == 0 || s.k == s.train {
			s.eval, s.gap = s.dsm.Evaluate()
			s.evalK, s.periodic = s.k, s.eval
		}
		s.trace.Add(s.dsm.Loss(), s.periodic, s.dsm.Floor())
		if s.k == s.train {
			return s.startSampling()
		}
		return nil
	}
	if s.learned.Done() {
		return algo.ErrConverged
	}
	s.k++
	err := s.learned.Step()
	s.exact.Step()
	if err != nil && !errors.Is(err, algo.ErrConverged) {
		return err
	}
	return err
}

// Settle evaluates the network on the held-out set as it stands, when the
// figures are older (a paused pane, lab run's last frame): the evaluation
// set is fixed, so when it is done changes no run.
func (s *smSim) Settle() {
	if s.evalK != s.k && s.k <= s.train {
		s.eval, s.gap = s.dsm.Evaluate()
		s.evalK = s.k
	}
}

// field is the arrows y → y − σ ε(y, σ) (Tweedie's denoised point) of a
// denoiser at σ over the grid.
func (s *smSim) field(eps diffusion.Denoiser, sigma float64, class int, dotted bool) []sims.Path {
	eps.Eps(s.e, s.grid, sigma)
	out := make([]sims.Path, len(s.grid)/2)
	for i := range out {
		x, y := s.grid[2*i], s.grid[2*i+1]
		out[i] = sims.Path{X: []float64{x, x - sigma*s.e[2*i]}, Y: []float64{y, y - sigma*s.e[2*i+1]}, Class: class, Dotted: dotted}
	}
	return out
}

func (s *smSim) Frame() sims.Frame {
	x0, x1 := s.trace.Span()
	loss := sims.LineChart{Title: "loss E‖ε_θ − ε‖² vs its floor E‖ε − ε*‖²", X0: x0, X1: x1, XLabel: "step",
		Series: []sims.Series{
			{Name: "batch", Y: s.trace.Column(0), Class: 2},
			{Name: "held-out", Y: s.trace.Column(1), Class: 1},
			{Name: "floor", Y: s.trace.Column(2), Class: 0, Bound: true},
		}}
	charts := []sims.Chart{}
	if s.learned == nil {
		for _, sg := range smFieldSigmas {
			paths := append(s.field(s.mix, sg, 0, true), s.field(s.dsm, sg, 1, false)...)
			charts = append(charts, sims.CanvasChart{Title: fmt.Sprintf("σ = %g: y → y − σε (Tweedie)", sg), View: s.view,
				Paths: paths, Legend: []string{"exact ε*", "learned ε_θ"}})
		}
	} else {
		pts := func(x []float64, class int, name string) sims.PointSet {
			n := len(x) / 2
			p := sims.PointSet{Name: name, X: make([]float64, n), Y: make([]float64, n), Class: class}
			for i := range n {
				p.X[i], p.Y[i] = x[2*i], x[2*i+1]
			}
			return p
		}
		charts = append(charts, sims.CanvasChart{
			Title: fmt.Sprintf("DDIM %d/%d, σ = %.3g: ε_θ vs ε*", s.learned.Index(), len(s.learned.Levels())-1, s.learned.Level()),
			View:  s.view, Points: []sims.PointSet{pts(s.exact.X, 0, "exact ε*"), pts(s.learned.X, 1, "learned ε_θ")},
			Legend: []string{"exact ε*", "learned ε_θ"}})
		st := s.mix.Assess(s.learned.X, s.labels)
		bars := make([]sims.Bar, len(st.Mass))
		for k, c := range s.mix.Components() {
			bars[k] = sims.Bar{Label: fmt.Sprintf("%d π %.2f", k+1, c.Weight), Value: st.Mass[k], Class: 1}
		}
		charts = append(charts, sims.BarChart{Title: "mass per mode with ε_θ vs π", Bars: bars})
	}
	charts = append(charts, loss)
	batch := sims.Metric{Name: "loss", Value: s.dsm.Loss()}
	if s.dsm.Steps() == 0 {
		batch = sims.Metric{Name: "loss", Undefined: "no training step yet"}
	}
	metrics := []sims.Metric{batch, {Name: "held_out", Value: s.eval},
		{Name: "floor", Value: s.dsm.Floor()}, {Name: "gap", Value: s.gap},
	}
	asOf := ""
	if s.evalK != min(s.k, s.train) {
		asOf = fmt.Sprintf(" (as of step %d: every %d steps while running)", s.evalK, smEvery)
	}
	text := []string{
		fmt.Sprintf("%s; MLP ε_θ(x, σ) on E‖ε_θ(X+σε, σ) − ε‖² (3.5)", s.about),
		fmt.Sprintf("held-out %.4f, floor %.4f: gap E‖ε_θ − ε*‖² = %.4f (Fisher)%s", s.eval, s.dsm.Floor(), s.gap, asOf),
	}
	if s.learned == nil {
		text = append(text, fmt.Sprintf("after %d steps ε_θ drives DDIM beside ε*: step on to sample", s.train))
	} else {
		ex, ln := s.mix.Assess(s.exact.X, s.labels), s.mix.Assess(s.learned.X, s.labels)
		text = append(text, fmt.Sprintf("spread in modes %.4f with ε_θ, %.4f with ε* (data %.4f)", ln.Spread, ex.Spread, s.mix.Spread()))
		metrics = append(metrics, sims.Metric{Name: "spread_learned", Value: ln.Spread}, sims.Metric{Name: "spread_exact", Value: ex.Spread},
			sims.Metric{Name: "mass_err", Value: massErr(s.mix, ln.Mass)})
	}
	return sims.Frame{Sim: ScoreMatch.Name, Step: s.k, Metrics: metrics, Charts: charts, Text: text}
}

// massErr is the largest |mass − π| over the modes.
func massErr(mix *diffusion.Mixture, mass []float64) float64 {
	e := 0.0
	for k, c := range mix.Components() {
		e = math.Max(e, math.Abs(mass[k]-c.Weight))
	}
	return e
}

func (s *smSim) Result() map[string]any {
	r := map[string]any{"steps": s.k, "held_out": s.eval, "floor": s.dsm.Floor(), "gap": s.gap}
	if s.learned != nil {
		st := s.mix.Assess(s.learned.X, s.labels)
		r["mass_learned"], r["spread_learned"] = st.Mass, st.Spread
	}
	return r
}
