// Package gan trains generative adversarial networks on the tape of
// algo/tensor (seed 001 §13, L1303–L1339, catalogue [A24]; seed 002
// §6.2.2, F3): a generator G: R^{dz} → R^d and a discriminator with logit
// a(x), D(x) = σ(a(x)), in 1-D or 2-D, with the losses of the notes (signs
// corrected, erratum E20) and least squares, k discriminator steps per
// generator step or simultaneous updates.
//
// For a fixed generator with density p_g, every discriminator loss here
// is minimised at D*(x) = p_data/(p_data + p_g) (Prop 6.1), and at
// D = D* the standard value is C(G) = −log 4 + 2 JS(p_data ‖ p_g)
// (Thm 6.1).
package gan

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/nn"
	"github.com/thelab/lab/algo/tensor"
	"github.com/thelab/lab/algo/tensor/opt"
)

// Loss names a GAN objective. With a_r, a_f the discriminator's outputs on
// real and generated points (means over the batch):
//
//	standard        L_D = softplus(−a_r) + softplus(a_f)  (= −E log D(x) − E log(1 − D(G z)), eq 6.5)
//	                L_G = −softplus(a_f)                  (= E log(1 − D(G z)): the minimax, saturating)
//	nonsaturating   L_D as standard; L_G = softplus(−a_f) (= −E log D(G z), L2964–2968)
//	js              the notes' JS form (L1311–L1319 with E20's signs): the standard game,
//	                its value E_q S + E_p log(1 − e^S) + log 4 with S = log D equal to 2·JS at D*
//	kl              S = SMax·tanh(a/SMax); L_D = −S_r + e^{S_f} − 1, L_G = −e^{S_f} (eq 13.b, KL(data‖G)); D = σ(S)
//	lsq             raw output b = a: L_D = ½(b_r − 1)² + ½b_f², L_G = ½(b_f − 1)² (least squares; D = b clipped)
type Loss string

// The losses.
const (
	Standard      Loss = "standard"
	NonSaturating Loss = "nonsaturating"
	JS            Loss = "js"
	KL            Loss = "kl"
	LSQ           Loss = "lsq"
)

// Losses lists them.
var Losses = []Loss{NonSaturating, Standard, JS, KL, LSQ}

func (l Loss) String() string { return string(l) }

// SMax bounds the KL form's S = log(q/p) estimate so that e^S cannot
// overflow (catalogue [A23]: "clip S").
const SMax = 20

// Equilibrium is L_D at D ≡ ½ (p_g = p_data): log 4 for the logistic
// losses, ¼ for least squares, 0 for KL (S ≡ 0).
func (l Loss) Equilibrium() float64 {
	switch l {
	case KL:
		return 0
	case LSQ:
		return 0.25
	}
	return math.Log(4)
}

// D is the discriminator's probability that x is real, from its output a.
func (l Loss) D(a float64) float64 {
	switch l {
	case LSQ:
		return math.Min(1, math.Max(0, a))
	case KL:
		a = SMax * math.Tanh(a/SMax)
	}
	if a >= 0 {
		return 1 / (1 + math.Exp(-a))
	}
	e := math.Exp(a)
	return e / (1 + e)
}

// Bounds.
const (
	MaxUnits  = 512
	MaxLayers = 4
	MaxDim    = 2
	MaxSteps  = 20 // discriminator steps per generator step
)

// Config configures a GAN.
type Config struct {
	Dim          int   // data dimension, 1 or 2
	Noise        int   // latent dimension dz
	Hidden       []int // hidden widths of both networks
	Batch        int
	Loss         Loss
	DSteps       int  // discriminator steps per generator step (alternating)
	Simultaneous bool // one simultaneous update of both instead
	OptD, OptG   opt.Config
}

// GAN is a generator and a discriminator being trained.
type GAN struct {
	cfg        Config
	G, D       *nn.MLP
	data       []float64 // real points, Dim per row
	rng        *rand.Rand
	tp, tpG    *tensor.Tape
	optD, optG *opt.Optimizer
	both       *tensor.Tensor // [2B, Dim] leaf: the real batch, then the fake one
	real, fake []float64      // its two halves
	z          *tensor.Tensor // [B, Noise]
	dSave      [][]float64    // D's gradients kept across the second Backward (simultaneous)
	lossD      float64
	lossG      float64
	steps      int
}

// New draws both networks for the real points data (Dim values a row,
// kept).
func New(cfg Config, data []float64, rng *rand.Rand) (*GAN, error) {
	if cfg.Dim < 1 || cfg.Dim > MaxDim {
		return nil, algo.BadParam("dim", cfg.Dim, "1 or 2")
	}
	if cfg.Noise < 1 || cfg.Noise > 16 {
		return nil, algo.BadParam("noise", cfg.Noise, "in 1..16")
	}
	if len(cfg.Hidden) < 1 || len(cfg.Hidden) > MaxLayers {
		return nil, algo.BadParam("layers", len(cfg.Hidden), fmt.Sprintf("in 1..%d", MaxLayers))
	}
	for _, h := range cfg.Hidden {
		if h < 1 || h > MaxUnits {
			return nil, algo.BadParam("units", h, fmt.Sprintf("in 1..%d", MaxUnits))
		}
	}
	if cfg.Batch < 1 || cfg.Batch > nn.MaxBatch {
		return nil, algo.BadParam("batch", cfg.Batch, fmt.Sprintf("in 1..%d", nn.MaxBatch))
	}
	if !slices.Contains(Losses, cfg.Loss) {
		return nil, algo.BadParam("loss", cfg.Loss, fmt.Sprint(Losses))
	}
	if cfg.DSteps < 1 || cfg.DSteps > MaxSteps {
		return nil, algo.BadParam("k", cfg.DSteps, fmt.Sprintf("in 1..%d", MaxSteps))
	}
	if len(data) < 2*cfg.Dim || len(data)%cfg.Dim != 0 || !algo.AllFinite(data) {
		return nil, algo.BadParam("data", len(data)/max(cfg.Dim, 1), fmt.Sprintf("at least 2 finite points of %d values", cfg.Dim))
	}
	g := &GAN{cfg: cfg, data: data, rng: rng, tp: tensor.NewTape(), tpG: tensor.NewForwardTape()}
	var err error
	if g.G, err = nn.NewMLP(cfg.generator(), rng); err != nil {
		return nil, err
	}
	if g.D, err = nn.NewMLP(cfg.discriminator(), rng); err != nil {
		return nil, err
	}
	if g.optD, err = opt.New(g.D.Params(), cfg.OptD); err != nil {
		return nil, err
	}
	if g.optG, err = opt.New(g.G.Params(), cfg.OptG); err != nil {
		return nil, err
	}
	b := cfg.Batch
	g.both, _ = tensor.FromData(make([]float64, 2*b*cfg.Dim), 2*b, cfg.Dim)
	g.real, g.fake = g.both.Data[:b*cfg.Dim], g.both.Data[b*cfg.Dim:]
	g.z, _ = tensor.FromData(make([]float64, b*cfg.Noise), b, cfg.Noise)
	for _, p := range g.D.Params() {
		g.dSave = append(g.dSave, make([]float64, len(p.Data)))
	}
	return g, nil
}

// drawReal fills the real batch from the data.
func (g *GAN) drawReal() { nn.SampleRows(g.real, g.data, g.cfg.Dim, g.rng) }

func (g *GAN) drawNoise() {
	for i := range g.z.Data {
		g.z.Data[i] = g.rng.NormFloat64()
	}
}

// lossD records L_D for outputs on real and fake.
func (g *GAN) lossDOn(tp *tensor.Tape, ar, af *tensor.Tensor) *tensor.Tensor {
	switch g.cfg.Loss {
	case KL:
		sr, sf := g.kls(tp, ar), g.kls(tp, af)
		return tp.AddConst(tp.Sub(tp.Mean(tp.Exp(sf)), tp.Mean(sr)), -1)
	case LSQ:
		return tp.Scale(tp.Add(tp.Mean(tp.Square(tp.AddConst(ar, -1))), tp.Mean(tp.Square(af))), 0.5)
	}
	return tp.Add(tp.Mean(tp.Softplus(tp.Neg(ar))), tp.Mean(tp.Softplus(af)))
}

func (g *GAN) kls(tp *tensor.Tape, a *tensor.Tensor) *tensor.Tensor {
	return tp.Scale(tp.Tanh(tp.Scale(a, 1.0/SMax)), SMax)
}

// lossGOn records L_G for the outputs on generated points.
func (g *GAN) lossGOn(tp *tensor.Tape, af *tensor.Tensor) *tensor.Tensor {
	switch g.cfg.Loss {
	case NonSaturating:
		return tp.Mean(tp.Softplus(tp.Neg(af)))
	case KL:
		return tp.Neg(tp.Mean(tp.Exp(g.kls(tp, af))))
	case LSQ:
		return tp.Scale(tp.Mean(tp.Square(tp.AddConst(af, -1))), 0.5)
	}
	return tp.Neg(tp.Mean(tp.Softplus(af)))
}

// DiscriminatorStep is one update of D on the real batch against fake
// points (Batch·Dim values, copied): the inner maximisation for a fixed
// generator. It returns L_D before the update.
func (g *GAN) DiscriminatorStep(real, fake []float64) (float64, error) {
	copy(g.real, real)
	copy(g.fake, fake)
	return g.dStep()
}

// dStep updates D on both halves of g.both, run through D as one batch
// (one pass of 2B rows costs less than two of B).
func (g *GAN) dStep() (float64, error) {
	tp := g.tp
	tp.Rewind()
	b := g.cfg.Batch
	a := g.D.Forward(tp, g.both, nil)
	l := g.lossDOn(tp, tp.Slice(a, 0, 0, b), tp.Slice(a, 0, b, 2*b))
	if err := tp.Backward(l); err != nil {
		return 0, err
	}
	v := l.Item()
	if !algo.Finite(v) {
		return v, algo.Diverged("the discriminator's loss is not finite at step %d: lower lr_d", g.steps+1)
	}
	return v, g.optD.Step()
}

// generate fills the fake batch with G(z) for fresh z, off the tape of
// the update.
func (g *GAN) generate() {
	g.drawNoise()
	g.tpG.Rewind()
	copy(g.fake, g.G.Forward(g.tpG, g.z, nil).Data)
}

// Step is one round: k discriminator steps, each on fresh real and
// generated batches, then one generator step (alternating); or one
// simultaneous update of both from the same batches.
func (g *GAN) Step() error {
	if g.cfg.Simultaneous {
		err := g.simultaneous()
		g.steps++
		if err != nil {
			return err
		}
		return g.check()
	}
	for range g.cfg.DSteps {
		if err := g.StepD(); err != nil {
			g.steps++
			return err
		}
	}
	return g.StepG()
}

// StepD is one discriminator step of an alternating round, on fresh real
// and generated batches (GAN Lab's "D step"): Step's first k moves, one at
// a time. It counts no round.
func (g *GAN) StepD() error {
	g.drawReal()
	g.generate()
	var err error
	g.lossD, err = g.dStep()
	return err
}

// StepG is the generator step that ends an alternating round (GAN Lab's
// "G step"), on the discriminator as it stands; it counts the round.
func (g *GAN) StepG() error {
	err := g.gStep()
	g.steps++
	if err != nil {
		return err
	}
	return g.check()
}

func (g *GAN) gStep() error {
	g.drawNoise()
	tp := g.tp
	tp.Rewind()
	l := g.lossGOn(tp, g.D.Forward(tp, g.G.Forward(tp, g.z, nil), nil))
	if err := tp.Backward(l); err != nil {
		return err
	}
	g.lossG = l.Item()
	return g.optG.Step()
}

func (g *GAN) simultaneous() error {
	g.drawReal()
	g.drawNoise()
	tp := g.tp
	tp.Rewind()
	x := g.G.Forward(tp, g.z, nil)
	b := g.cfg.Batch
	ar, af := g.D.Forward(tp, tp.Slice(g.both, 0, 0, b), nil), g.D.Forward(tp, x, nil)
	ld, lg := g.lossDOn(tp, ar, af), g.lossGOn(tp, af)
	if err := tp.Backward(ld); err != nil {
		return err
	}
	for i, p := range g.D.Params() {
		copy(g.dSave[i], p.Grad)
	}
	if err := tp.Backward(lg); err != nil {
		return err
	}
	for i, p := range g.D.Params() {
		copy(p.Grad, g.dSave[i])
	}
	g.lossD, g.lossG = ld.Item(), lg.Item()
	if err := g.optD.Step(); err != nil {
		return err
	}
	return g.optG.Step()
}

// MaxOutput is the size of a generated point past which training is
// called diverged.
const MaxOutput = 1e6

func (g *GAN) check() error {
	if !algo.Finite(g.lossD) || !algo.Finite(g.lossG) {
		return algo.Diverged("the losses are not finite at step %d: lower lr_d and lr_g, or use the nonsaturating loss", g.steps)
	}
	for _, v := range g.fake {
		if math.Abs(v) > MaxOutput || math.IsNaN(v) {
			return algo.Diverged("the generator's samples exceed %g at step %d: lower lr_g", MaxOutput, g.steps)
		}
	}
	return nil
}

// LossD and LossG are the last losses, each of its network's last batch
// and taken with its gradient, before that network's update. Alternating,
// they are of two states by construction: L_D of the D before its last
// inner step, L_G of G against the D after the round's D-steps.
// Simultaneous, both are of the state before the update. 0 before the
// first step (L_G before the first G-step).
func (g *GAN) LossD() float64 { return g.lossD }
func (g *GAN) LossG() float64 { return g.lossG }

// Steps is the number of rounds taken.
func (g *GAN) Steps() int { return g.steps }

// Config is the configuration.
func (g *GAN) Config() Config { return g.cfg }

// Generate returns G(z) for n latent points z (n·Noise values), without
// touching the training's random stream: a pane draws a fixed z so that
// what it shows does not depend on how often it looks.
func (g *GAN) Generate(z []float64) []float64 {
	n := len(z) / g.cfg.Noise
	zt, err := tensor.FromData(slices.Clone(z), n, g.cfg.Noise)
	if err != nil {
		return nil
	}
	tp := tensor.NewForwardTape()
	return append([]float64(nil), g.G.Forward(tp, zt, nil).Data...)
}

// Discriminate returns D(x) at n points x (n·Dim values) and, when grad is
// not nil, −∇_x L_G per point: the direction in which the generator's loss
// would move a generated sample there.
func (g *GAN) Discriminate(x []float64, grad []float64) []float64 {
	n := len(x) / g.cfg.Dim
	xt, err := tensor.FromData(slices.Clone(x), n, g.cfg.Dim)
	if err != nil {
		return nil
	}
	tp := tensor.NewForwardTape()
	if grad != nil {
		tp = tensor.NewTape()
		xt.RequireGrad()
	}
	a := g.D.Forward(tp, xt, nil)
	out := make([]float64, n)
	for i, v := range a.Data {
		out[i] = g.cfg.Loss.D(v)
	}
	if grad != nil {
		l := tp.Scale(g.lossGOn(tp, a), float64(n))
		if tp.Backward(l) == nil {
			for i, v := range xt.Grad {
				grad[i] = -v
			}
		}
	}
	return out
}
