package trustsim

import (
	"fmt"
	"github.com/thelab/lab/algo/tensor"
	"math"

	"github.com/thelab/lab/algo/adversarial"
	"github.com/thelab/lab/algo/nn"
	"github.com/thelab/lab/algo/tensor/opt"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// adv-train's parameters.
var (
	avEps = param.Vector("eps", []float64{0, 0.1, 0.2, 0.3},
		"the four ε the four networks are trained at (0: plain training), L∞").Range(0, 1)
	avInner = param.Int("inner", 5, "sign-PGD steps of the inner max in each training step").Range(1, adversarial.MaxInner)
	avN     = param.Int("n", 400, "two-moons points, 70% for training").Range(40, 5000)
	avLR    = param.Float("lr", 0.01, "Adam's learning rate of the outer min").Range(0, 1).OpenMin()
	avEvery = param.Int("every", 25, "steps between evaluations on the test set").Range(1, 1000)
)

// AdvTrain trains four copies of one network on two moons side by side,
// each by min_w Ê[max_{‖Δx‖∞ ≤ ε} ℓ(x + Δx; w)] at its own ε (seed 001
// §17 L1555–L1559, [A33]): clean against robust test accuracy over the
// epochs, and the boundary moving away from the data as ε grows.
var AdvTrain = &sims.Spec{
	Name:   "adv-train",
	Title:  "Adversarial training: clean against robust accuracy for several ε; the boundary moves off the data",
	Source: "seed 001 §17 L1555–L1559 ([A33], inner PGD of [A32])",
	Steps:  1500,
	Speed:  30,
	Params: param.List(avEps, avInner, avN, avLR, avEvery),
	New:    newAdvTrain,
	Size:   advTrainSize,

	Metrics: advTrainMetrics,
}

// advTrainSize is the task and a network for each ε with its trainer
// (and attack, for ε > 0), what the networks' last passes keep: the two
// drawn ones their decision maps, the others an evaluation's chunk; and
// the accuracies' trace.
func advTrainSize(cfg sims.Config) int64 {
	v := cfg.Values
	n, eps := avN.Get(v), avEps.Get(v)
	a, test := taskArch(taskPlane, 0), testSize(taskPlane, n)
	b := taskBytes(taskPlane, n, 0) + int64(len(eps)-1)*nn.ParamBytes(a) + 2*decisionMapBytes(a, test) +
		int64(len(eps)-2)*adversarial.RobustBytes(a, min(advChunk, test), a.In, true) + sims.TraceBytes(2*len(eps))
	for _, e := range eps {
		b += adversarial.TrainerBytes(a, nn.Logistic, opt.Adam, n-test, advBatch, a.In, a.Out, e > 0)
	}
	return tensor.Slack(32<<10 + b)
}

// advBatch is the training batch; advChunk the rows of an evaluation's
// pass.
const (
	advBatch = 32
	advChunk = 256
)

type advTrainSim struct {
	t        *task
	eps      []float64
	models   []*nn.MLP
	trainers []*adversarial.Trainer
	every    int
	inner    int
	trace    *sims.Trace // per ε: clean accuracy, robust accuracy
	last     []float64   // the last evaluation, same layout
	gap      float64     // the least robust − clean batch loss seen (ε > 0)
}

func newAdvTrain(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	t, err := newPlaneTask(cfg.Seed, avN.Get(v))
	if err != nil {
		return nil, err
	}
	s := &advTrainSim{t: t, eps: avEps.Get(v), every: avEvery.Get(v), inner: avInner.Get(v), gap: math.Inf(1)}
	for _, e := range s.eps {
		m, err := nn.NewMLP(taskArch(taskPlane, 0), streamRNG(cfg.Seed, initStream))
		if err != nil {
			return nil, err
		}
		tr, err := adversarial.NewTrainer(m, t.train, advBatch, s.inner, s.attackConfig(e),
			opt.Config{Method: opt.Adam, LR: avLR.Get(v)}, streamRNG(cfg.Seed, trainStream)) // the same batches for all
		if err != nil {
			return nil, sims.Blame(err, v, sims.As("eps", avEps))
		}
		s.models, s.trainers = append(s.models, m), append(s.trainers, tr)
	}
	s.trace = sims.NewTrace(0, 2*len(s.eps))
	return s, s.evaluate()
}

// attackConfig is the inner (and evaluation) attack at ε: sign-PGD whose
// steps add up to 2.5ε.
func (s *advTrainSim) attackConfig(e float64) adversarial.Config {
	return adversarial.Config{Method: adversarial.SignPGD, Norm: adversarial.LInf, Eps: e, Step: 2.5 * e / float64(s.inner)}
}

func (s *advTrainSim) Step() error {
	for i, tr := range s.trainers {
		if err := tr.Step(); err != nil {
			return fmt.Errorf("ε = %g: %w", s.eps[i], err)
		}
		if s.eps[i] > 0 {
			cl, rb := tr.Losses()
			s.gap = math.Min(s.gap, rb-cl)
		}
	}
	if s.trainers[0].Steps()%s.every == 0 {
		return s.evaluate()
	}
	return nil
}

// evaluate measures each network's test accuracy, clean and under a
// 10-step attack at its own ε (the ε = 0 network at the largest ε, so that
// its robust curve says what plain training leaves).
func (s *advTrainSim) evaluate() error {
	row := make([]float64, 0, 2*len(s.eps))
	top := 0.0
	for _, e := range s.eps {
		top = math.Max(top, e)
	}
	for i, m := range s.models {
		clean, err := adversarial.Robust(m, s.t.test, adversarial.Config{}, 0, advChunk)
		if err != nil {
			return err
		}
		e := s.eps[i]
		if e == 0 {
			e = top
		}
		robust := clean
		if e > 0 {
			if robust, err = adversarial.Robust(m, s.t.test, s.attackConfig(e), accAttackSteps, advChunk); err != nil {
				return err
			}
		}
		row = append(row, clean, robust)
	}
	s.trace.Add(row...)
	s.last = row
	return nil
}

func (s *advTrainSim) Frame() sims.Frame {
	// The first and last ε's figures (Result has them all), named by
	// place so that their keys do not change with eps.
	hi := len(s.eps) - 1
	metrics := []sims.Metric{{Name: "clean ε₀", Value: s.last[0]}, {Name: "robust ε₀", Value: s.last[1]},
		{Name: "clean ε₃", Value: s.last[2*hi]}, {Name: "robust ε₃", Value: s.last[2*hi+1]}}
	metrics = append(metrics, sims.Metric{Name: "epoch", Value: math.Round(s.trainers[0].Epochs()*100) / 100})
	if !math.IsInf(s.gap, 1) {
		metrics = append(metrics, sims.Metric{Name: "min_gap", Value: s.gap})
	}
	return sims.Frame{
		Sim: AdvTrain.Name, Step: s.trainers[0].Steps(), Metrics: metrics,
		Charts: []sims.Chart{s.accuracyChart(),
			s.t.decisionMap(fmt.Sprintf("ε = %g: p(class 1)", s.eps[0]), s.models[0]),
			s.t.decisionMap(fmt.Sprintf("ε = %g: p(class 1)", s.eps[hi]), s.models[hi])},
		Text: s.notes(),
	}
}

// accuracyChart draws each ε's clean accuracy (solid) and robust accuracy
// (dotted) against the step.
func (s *advTrainSim) accuracyChart() sims.LineChart {
	x0, x1 := s.trace.Span()
	c := sims.LineChart{Title: "test accuracy: clean ─, under attack at ε ┄", XLabel: "step", Fraction: true,
		X0: x0 * float64(s.every), X1: x1 * float64(s.every)}
	for i, e := range s.eps {
		c.Series = append(c.Series, sims.Series{Name: fmt.Sprintf("ε%g", e), Y: s.trace.Column(2 * i), Class: i},
			sims.Series{Name: fmt.Sprintf("ε%g atk", e), Y: s.trace.Column(2*i + 1), Class: i, Bound: true})
	}
	return c
}

func (s *advTrainSim) notes() []string {
	gap := "—"
	if !math.IsInf(s.gap, 1) {
		gap = fmt.Sprintf("%.3g", s.gap)
	}
	return []string{
		fmt.Sprintf("a step: %d sign-PGD steps on 32 points (inner max), one Adam step (outer min)", s.inner),
		fmt.Sprintf("least robust − clean batch loss: %s (≥ 0: Δx = 0 is in the ball)", gap),
		"ε0 is attacked at the largest ε; robustness costs clean accuracy",
	}
}

func (s *advTrainSim) Result() map[string]any {
	clean, robust := make([]float64, len(s.eps)), make([]float64, len(s.eps))
	for i := range s.eps {
		clean[i], robust[i] = s.last[2*i], s.last[2*i+1]
	}
	return map[string]any{"eps": s.eps, "clean_accuracy": clean, "robust_accuracy": robust,
		"steps": s.trainers[0].Steps(), "min_robust_minus_clean": s.gap}
}
