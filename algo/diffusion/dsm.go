package diffusion

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/nn"
	"github.com/thelab/lab/algo/tensor"
	"github.com/thelab/lab/algo/tensor/opt"
)

// DSMConfig configures denoising score matching.
type DSMConfig struct {
	Hidden []int         // the network's hidden widths
	Act    nn.Activation // their activation
	Batch  int           // (x, σ, ε) triples per step
	LR     float64       // Adam's rate
	// Decay > 0 lowers the rate along a cosine to 1 % of LR over that many
	// steps (the planned training), so that the last steps settle.
	Decay int
	// SigmaMin and SigmaMax bound the training noise, drawn log-uniform
	// between them (the λ_t weighting of [A31]: every decade of σ weighs
	// the same, so neither end dominates).
	SigmaMin, SigmaMax float64
	Eval               int // the fixed evaluation triples
}

// Bounds of a DSM.
const (
	MaxDSMBatch = 4096
	MaxDSMEval  = 100000
)

// DSM trains a network ε_θ(y, σ) to predict the noise of Y = X + σε from
// samples of a data mixture by denoising score matching, the noise-
// conditional objective E‖ε_θ(X + σε, σ) − ε‖² (seed 000 eq 3.5, L1201;
// seed 001 [A31]). The network sees c(σ)·y with c = 1/√(v + σ²), v the data's
// variance per coordinate (so its input has unit scale at every σ), and
// log σ; ε_θ is its output plus ε_G, the exact denoiser of the Gaussian
// with the data's mean and variance, so that it learns only what the
// modes add. ε_θ predicts ε itself, so the target is ε and not −ε/σ (the
// score is −ε_θ/σ: the erratum E23 of the notes' scale).
//
// The minimiser is ε*(y, σ) = E[ε | Y = y], so the loss cannot go below
// the irreducible E‖ε − ε*(Y, σ)‖², which the exact ε* of the mixture
// gives on a fixed evaluation set; the gap E‖ε_θ − ε*‖² is the Fisher
// divergence in ε's units (L1193). A DSM is a Denoiser: a sampler takes
// it in place of the exact ε*.
type DSM struct {
	cfg     DSMConfig
	mix     *Mixture
	m       [2]float64 // the data's mean
	v       float64    // and variance per coordinate
	net     *nn.MLP
	opt     *opt.Optimizer
	tp      *tensor.Tape
	x, y    *tensor.Tensor // a training batch: features [B, 3], targets [B, 2]
	rng     *rand.Rand
	steps   int
	loss    float64
	evalY   []float64 // the evaluation set: y, σ, ε and ε*(y, σ)
	evalS   []float64
	evalE   []float64
	evalX   []float64
	floor   float64
	buf     *tensor.Tensor // Eps's chunk of features
	sample  []float64      // data draws
	pts     []float64      // a batch's noisy points
	sig     []float64      // and their σ
	evalOut []float64
}

// dsmChunk is the rows Eps runs through the network at once.
const dsmChunk = 512

// NewDSM draws the network and the evaluation set from rng.
func NewDSM(mix *Mixture, cfg DSMConfig, rng *rand.Rand) (*DSM, error) {
	if mix == nil || mix.D != 2 {
		return nil, algo.BadParam("data", mix, "a 2-D mixture")
	}
	if cfg.Batch < 1 || cfg.Batch > MaxDSMBatch {
		return nil, algo.BadParam("batch", cfg.Batch, fmt.Sprintf("in 1..%d", MaxDSMBatch))
	}
	if !(cfg.SigmaMin > 0 && cfg.SigmaMin < cfg.SigmaMax && cfg.SigmaMax <= MaxSigma) {
		return nil, algo.BadParam("sigma_min", cfg.SigmaMin, fmt.Sprintf("in (0, σ_max) with σ_max ≤ %d", MaxSigma))
	}
	if cfg.Eval < 1 || cfg.Eval > MaxDSMEval {
		return nil, algo.BadParam("eval", cfg.Eval, fmt.Sprintf("in 1..%d", MaxDSMEval))
	}
	if rng == nil {
		return nil, algo.BadParam("rng", nil, "a random source")
	}
	net, err := nn.NewMLP(cfg.net(), rng)
	if err != nil {
		return nil, err
	}
	oc := opt.Config{Method: opt.Adam, LR: cfg.LR}
	if cfg.Decay > 0 {
		oc.Schedule = opt.Schedule{Kind: opt.Cosine, Total: cfg.Decay, MinFrac: 0.01}
	}
	o, err := opt.New(net.Params(), oc)
	if err != nil {
		return nil, err
	}
	d := &DSM{cfg: cfg, mix: mix, net: net, opt: o, tp: tensor.NewTape(), rng: rng,
		sample: make([]float64, 2*max(cfg.Batch, cfg.Eval))}
	d.m, d.v = mix.Moments()
	if d.x, err = tensor.New(cfg.Batch, 3); err != nil {
		return nil, err
	}
	if d.y, err = tensor.New(cfg.Batch, 2); err != nil {
		return nil, err
	}
	if d.buf, err = tensor.New(dsmChunk, 3); err != nil {
		return nil, err
	}
	d.pts, d.sig = make([]float64, 2*cfg.Batch), make([]float64, cfg.Batch)
	d.evalSet()
	return d, nil
}

// draw fills y (n rows), sigma and eps with n fresh triples.
func (d *DSM) draw(y, sigma, eps []float64) {
	x := d.sample[:len(y)]
	d.mix.Sample(d.rng, x, nil)
	lo, hi := math.Log(d.cfg.SigmaMin), math.Log(d.cfg.SigmaMax)
	for i := range sigma {
		s := math.Exp(lo + (hi-lo)*d.rng.Float64())
		sigma[i] = s
		for j := range 2 {
			e := d.rng.NormFloat64()
			eps[2*i+j] = e
			y[2*i+j] = x[2*i+j] + s*e
		}
	}
}

// evalSet draws the fixed evaluation triples and the floor E‖ε − ε*‖².
func (d *DSM) evalSet() {
	n := d.cfg.Eval
	d.evalY, d.evalS, d.evalE, d.evalX = make([]float64, 2*n), make([]float64, n), make([]float64, 2*n), make([]float64, 2*n)
	d.draw(d.evalY, d.evalS, d.evalE)
	for i := range n { // ε* one point at a time: each has its own σ
		d.mix.Eps(d.evalX[2*i:2*i+2], d.evalY[2*i:2*i+2], d.evalS[i])
	}
	for i := range d.evalE {
		e := d.evalE[i] - d.evalX[i]
		d.floor += e * e
	}
	d.floor /= float64(n)
}

// gauss is ε_G(y, σ) = σ(y − m)/(v + σ²), the exact denoiser of the
// Gaussian with the data's mean m and variance v per coordinate: the
// network adds its correction to it (exact at large σ, where every law
// looks like its moments).
func (d *DSM) gauss(y0, y1, sigma float64) (float64, float64) {
	c := sigma / (d.v + sigma*sigma)
	return c * (y0 - d.m[0]), c * (y1 - d.m[1])
}

// features writes the network's inputs for a point y at noise σ.
func (d *DSM) features(dst []float64, y0, y1, sigma float64) {
	c := 1 / math.Sqrt(d.v+sigma*sigma)
	dst[0], dst[1], dst[2] = c*y0, c*y1, math.Log(sigma)/4
}

// Step is one Adam step on a fresh minibatch of (x, σ, ε).
func (d *DSM) Step() error {
	B := d.cfg.Batch
	pts, sig := d.pts[:2*B], d.sig[:B]
	d.draw(pts, sig, d.y.Data) // the noise ε, drawn straight into the tensor
	for i := range B {
		d.features(d.x.Data[3*i:3*i+3], pts[2*i], pts[2*i+1], sig[i])
		g0, g1 := d.gauss(pts[2*i], pts[2*i+1], sig[i])
		d.y.Data[2*i] -= g0 // the network's target is the residual ε − ε_G
		d.y.Data[2*i+1] -= g1
	}
	tp := d.tp
	tp.Rewind()
	out := d.net.Forward(tp, d.x, nil)
	loss := tp.Scale(tp.Mean(tp.Square(tp.Sub(out, d.y))), 2) // the batch mean of ‖ε_θ − ε‖²
	if err := tp.Backward(loss); err != nil {
		return err
	}
	d.loss = loss.Item()
	d.steps++
	if !algo.Finite(d.loss) {
		return algo.Diverged("loss %g at step %d: lower the learning rate", d.loss, d.steps)
	}
	return d.opt.Step()
}

// Eps writes ε_θ(y, σ) for every particle of y: the trained network as a
// Denoiser.
func (d *DSM) Eps(dst, y []float64, sigma float64) {
	d.eps(dst, y, func(int) float64 { return sigma })
}

// eps runs the network over y in chunks, the noise of row i being sig(i).
func (d *DSM) eps(dst, y []float64, sig func(i int) float64) {
	n := len(y) / 2
	for lo := 0; lo < n; lo += dsmChunk {
		m := min(dsmChunk, n-lo)
		for i := range m {
			d.features(d.buf.Data[3*i:3*i+3], y[2*(lo+i)], y[2*(lo+i)+1], sig(lo+i))
		}
		x := d.buf
		if m < dsmChunk {
			x, _ = tensor.FromData(d.buf.Data[:3*m], m, 3)
		}
		d.tp.Rewind()
		out := d.net.Forward(d.tp, x, nil)
		for i := range m {
			g0, g1 := d.gauss(y[2*(lo+i)], y[2*(lo+i)+1], sig(lo+i))
			dst[2*(lo+i)] = out.Data[2*i] + g0
			dst[2*(lo+i)+1] = out.Data[2*i+1] + g1
		}
	}
}

// Evaluate returns the loss of the network as it stands on the fixed
// evaluation set and its gap E‖ε_θ − ε*‖² to the exact denoiser there: a
// caller that evaluates only now and then holds figures as of the step
// it last did.
func (d *DSM) Evaluate() (loss, gap float64) {
	n := d.cfg.Eval
	if cap(d.evalOut) < 2*n {
		d.evalOut = make([]float64, 2*n)
	}
	e := d.evalOut[:2*n]
	d.eps(e, d.evalY, func(i int) float64 { return d.evalS[i] })
	for i := range e {
		a, b := e[i]-d.evalE[i], e[i]-d.evalX[i]
		loss += a * a
		gap += b * b
	}
	return loss / float64(n), gap / float64(n)
}

// Floor is the irreducible loss E‖ε − ε*(Y, σ)‖² on the evaluation set:
// no network does better there but by the set's chance.
func (d *DSM) Floor() float64 { return d.floor }

// Loss is the last minibatch's loss, taken with its gradient before the
// update (0 before the first Step); Steps the steps taken.
func (d *DSM) Loss() float64 { return d.loss }
func (d *DSM) Steps() int    { return d.steps }
