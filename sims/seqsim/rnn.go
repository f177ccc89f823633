package seqsim

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"

	"github.com/thelab/lab/algo/seq"
	"github.com/thelab/lab/algo/tensor"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// RNN is a character RNN, h_t = tanh(h_{t−1}W + x_t U + b), trained by
// backpropagation through time next to the k-gram baseline (seed 002
// G2, L3178–3182; seed 000 §2.4, eq 2.8), and the norm of the state
// Jacobian ‖∂h_T/∂h_0‖ against T: exactly ρ^T for the linear recursion
// with W = ρQ (0.9⁵⁰ = 0.00515, 1.1⁵⁰ = 117.4; catalogue §2.5), and for
// the trained W with tanh along a held-out sentence — why gradients
// through time vanish or explode.
var RNN = &sims.Spec{
	Name:     "rnn",
	Title:    "Character RNN against the k-gram baseline, and ‖∂h_T/∂h_0‖ against T for ρ below, at and above 1",
	Source:   "seed 002 §7.1 (G2, L3178–3182); seed 000 §2.4 (eq 2.8, L954–960)",
	Steps:    150, // it beats the k-gram line by about step 250: --steps 300
	Speed:    10,
	Params:   param.List(seqText, seqChars, rnnHidden, rnnRho, rnnT, lmBatch, lmLR, lmEval, lmTemp, lmTopK, lmTopP),
	Data:     "a UTF-8 text file to model instead of the built-in language; its last tenth is held out" + samplesShown,
	DataFile: seqText.Name(),
	New:      newRNN,
	Size:     rnnSize,

	Metrics: rnnMetrics,
}

// rnnSize is the language model's run (lmRunBytes) and the Jacobians'
// norms along rnnHorizon characters, for three ρ and the trained W, with
// the workspace gonum's SVD of an H×H matrix keeps in its pool (a power
// of two of floats), which outlives a collection.
func rnnSize(cfg sims.Config) int64 {
	v := cfg.Values
	T, H := rnnT.Get(v), rnnHidden.Get(v)
	a := seq.RNNConfig{Vocab: alphabet(v), Hidden: H}
	pool := 8 << bits.Len(uint(H*H-1))
	return tensor.Slack(32<<10 + lmRunBytes(v, a, lmBatch.Get(v), T, max(T+1, rnnHorizon), true) + (int64(len(rnnRhos))+2)*tensor.Alloc(rnnHorizon) +
		rnnHorizon*tensor.Alloc(H) + int64(pool))
}

var (
	rnnHidden = param.Int("hidden", 64, "units of the state h (at most 128: the Jacobian chart "+
		"multiplies and factorises 60 H×H matrices, H³ work each, at the build and each evaluation: at 256 a step took 1.2 s)").Range(1, rnnMaxHidden)
	rnnRho = param.Float("rho", 1, "W starts as ρ times a random orthogonal matrix: spectral radius ρ").Range(0, 3)
	rnnT   = param.Int("context", 32, "characters per training sequence (backpropagation through T steps)").Range(2, 256)
)

// rnnHorizon is the longest T of the Jacobian chart.
const rnnHorizon = 60

// rnnMaxHidden is the widest state the sim offers (the engine takes up to
// seq.MaxHidden): the Jacobian chart multiplies and factorises rnnHorizon
// H×H matrices at the build (four times) and at each evaluation, so at
// H = 256 the build took 2.8 s and an evaluating step 1.2 s; at 128,
// 0.6 s and 0.3 s.
const rnnMaxHidden = 128

// rnnRhos are the reference radii of the Jacobian chart.
var rnnRhos = []float64{0.9, 1, 1.1}

type rnnSim struct {
	lm  *lmRun
	r   *seq.RNN
	ref [][]float64 // ‖∂h_T/∂h_0‖ of the linear recursion for each of rnnRhos
	jac []float64   // the trained W's with tanh along the first rnnHorizon held-out characters, at the last evaluation (lm.evalAt)
}

func newRNN(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	T := rnnT.Get(v)
	c, err := loadCorpus(cfg, max(T+1, rnnHorizon))
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x72_6e6e)) // "rnn"
	r, err := seq.NewRNN(c.vocab.Size(), rnnHidden.Get(v), rnnRho.Get(v), rng)
	if err != nil {
		return nil, err
	}
	lm, err := newLMRun(cfg, c, r, lmBatch.Get(v), T)
	if err != nil {
		return nil, err
	}
	s := &rnnSim{lm: lm, r: r}
	H := r.Hidden()
	zero := make([][]float64, rnnHorizon)
	for t := range zero {
		zero[t] = make([]float64, H)
	}
	for _, rho := range rnnRhos {
		n, err := seq.JacobianNorms(seq.ScaledOrthogonal(H, rho, rng), H, zero, false)
		if err != nil {
			return nil, err
		}
		s.ref = append(s.ref, n)
	}
	return s, s.jacobian()
}

// jacobian is the trained W's ‖∂h_T/∂h_0‖ with tanh along the held-out
// text.
func (s *rnnSim) jacobian() error {
	in, err := s.r.Inputs(s.lm.c.held[:rnnHorizon])
	if err != nil {
		return err
	}
	s.jac, err = seq.JacobianNorms(s.r.W(), s.r.Hidden(), in, true)
	return err
}

func (s *rnnSim) Step() error {
	if err := s.lm.step(); err != nil {
		return err
	}
	if n := s.lm.tr.Steps(); n == 1 || n%s.lm.every == 0 {
		return s.jacobian()
	}
	return nil
}

// Tune adopts a new temperature, top-k or top-p (sims.Tuner): the
// training goes on.
func (s *rnnSim) Tune(v sims.Values) error { return s.lm.tune(v) }

func (s *rnnSim) Frame() sims.Frame {
	f := sims.Frame{Sim: RNN.Name, Step: s.lm.tr.Steps(), Metrics: s.lm.metrics()}
	f.Metrics = append(f.Metrics, sims.Metric{Name: "‖∂h_50/∂h_0‖", Value: s.jac[49]})
	jac := sims.LineChart{Title: "‖∂h_T/∂h_0‖ against T", LogY: true, X0: 1, X1: rnnHorizon, XLabel: "T"}
	for i, rho := range rnnRhos {
		jac.Series = append(jac.Series, sims.Series{Name: fmt.Sprintf("ρ = %g", rho), Y: s.ref[i], Class: 5 + i, Bound: true})
	}
	jac.Series = append(jac.Series, sims.Series{Name: "trained, tanh", Y: clone(s.jac), Class: 8})
	f.Charts = []sims.Chart{s.lm.lossChart(), jac}
	what := "held-out, ‖∂h_T/∂h_0‖ (trained) and sample"
	if s.lm.evalAt == 0 {
		what = "held-out and sample (‖∂h_T/∂h_0‖: the initial W's)"
	}
	f.Text = []string{
		"sample: " + s.lm.sample,
		asOf(what, s.lm.evalAt, s.lm.every),
		fmt.Sprintf("%d params; linear, W = ρQ: ρ^T (0.9⁵⁰ = %.3g, 1.1⁵⁰ = %.4g)", s.r.NumParams(), math.Pow(0.9, 50), math.Pow(1.1, 50)),
	}
	return f
}

func (s *rnnSim) Result() map[string]any {
	r := s.lm.result()
	r["params"] = s.r.NumParams()
	r["jacobian_norms"] = s.jac
	return r
}
