package autoenc

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/nn"
	"github.com/thelab/lab/algo/tensor"
	"github.com/thelab/lab/algo/tensor/opt"
)

// Net is a network autoencoder x ↦ D(E(x)) with tanh MLPs E: R^d → R^r
// and D: R^r → R^d, trained by minibatch steps on
//
//	J = E‖D(E(x + σε)) − x‖²,  ε ~ N(0, I):
//
// the plain autoencoder (3.9) for σ = 0, and for σ > 0 the denoising
// autoencoder of §3.6.7 (L1366–L1378), whose best map is the posterior
// mean y ↦ E[X | X + σε = y], Tweedie's formula (3.1) (catalogue §3.9).
type Net struct {
	Enc, Dec *nn.MLP
	sigma    float64
	data     []float64
	d        int
	tp       *tensor.Tape
	opt      *opt.Optimizer
	xb, yb   *tensor.Tensor // clean targets, noisy inputs
	rng      *rand.Rand
	loss     float64
	steps    int
	eval     *tensor.Tape
}

// NetConfig configures a Net.
type NetConfig struct {
	D, Code, Units, Batch int
	Sigma                 float64 // denoising noise σ ≥ 0
	Opt                   opt.Config
}

// MaxUnits bounds a Net's hidden width.
const MaxUnits = 512

// NewNet draws the networks for data (n rows of cfg.D values, kept).
func NewNet(cfg NetConfig, data []float64, rng *rand.Rand) (*Net, error) {
	if cfg.D < 1 || len(data) < 2*cfg.D || len(data)%cfg.D != 0 || !algo.AllFinite(data) {
		return nil, algo.BadParam("data", len(data), fmt.Sprintf("at least 2 finite rows of %d values", cfg.D))
	}
	if cfg.Code < 1 || cfg.Code > cfg.D*4 {
		return nil, algo.BadParam("code", cfg.Code, "≥ 1")
	}
	if cfg.Units < 1 || cfg.Units > MaxUnits {
		return nil, algo.BadParam("units", cfg.Units, fmt.Sprintf("in 1..%d", MaxUnits))
	}
	if cfg.Batch < 1 || cfg.Batch > nn.MaxBatch {
		return nil, algo.BadParam("batch", cfg.Batch, fmt.Sprintf("in 1..%d", nn.MaxBatch))
	}
	if !(cfg.Sigma >= 0) || math.IsInf(cfg.Sigma, 0) {
		return nil, algo.BadParam("sigma", cfg.Sigma, "≥ 0")
	}
	a := &Net{sigma: cfg.Sigma, data: data, d: cfg.D, tp: tensor.NewTape(), eval: tensor.NewForwardTape(), rng: rng}
	var err error
	if a.Enc, err = nn.NewMLP(cfg.encoder(), rng); err != nil {
		return nil, err
	}
	if a.Dec, err = nn.NewMLP(cfg.decoder(), rng); err != nil {
		return nil, err
	}
	if a.opt, err = opt.New(append(a.Enc.Params(), a.Dec.Params()...), cfg.Opt); err != nil {
		return nil, err
	}
	a.xb, _ = tensor.FromData(make([]float64, cfg.Batch*cfg.D), cfg.Batch, cfg.D)
	a.yb, _ = tensor.FromData(make([]float64, cfg.Batch*cfg.D), cfg.Batch, cfg.D)
	return a, nil
}

// Step is one minibatch step.
func (a *Net) Step() error {
	b := a.xb.Dim(0)
	nn.SampleRows(a.xb.Data, a.data, a.d, a.rng)
	for i, x := range a.xb.Data {
		a.yb.Data[i] = x + a.sigma*a.rng.NormFloat64()
	}
	tp := a.tp
	tp.Rewind()
	out := a.Dec.Forward(tp, a.Enc.Forward(tp, a.yb, nil), nil)
	loss := tp.Scale(tp.Sum(tp.Square(tp.Sub(out, a.xb))), 1/float64(b))
	if err := tp.Backward(loss); err != nil {
		return err
	}
	a.loss = loss.Item()
	a.steps++
	if !algo.Finite(a.loss) {
		return algo.Diverged("the autoencoder's loss is not finite at step %d: lower lr", a.steps)
	}
	return a.opt.Step()
}

// Loss is the last minibatch's mean ‖D(E(y)) − x‖².
func (a *Net) Loss() float64 { return a.loss }

// Steps is the number of steps taken.
func (a *Net) Steps() int { return a.steps }

// Map applies y ↦ D(E(y)) to n rows y (n·d values) and returns the
// outputs; codes, when not nil, receives E(y) (n·code values).
func (a *Net) Map(y []float64, codes []float64) []float64 {
	n := len(y) / a.d
	in, err := tensor.FromData(y, n, a.d)
	if err != nil {
		return nil
	}
	tp := a.eval
	tp.Rewind()
	z := a.Enc.Forward(tp, in, nil)
	out := a.Dec.Forward(tp, z, nil)
	if codes != nil {
		copy(codes, z.Data)
	}
	return append([]float64(nil), out.Data...)
}
