package flow

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/nn"
	"github.com/thelab/lab/algo/tensor"
	"github.com/thelab/lab/algo/tensor/opt"
)

// RealNVP is a stack of coupling layers of the plane ([A26], L1402–L1406).
// Layer k copies coordinate c = k mod 2 and moves the other, o:
//
//	x_c = z_c,   x_o = e^{α(z_c)} z_o + μ(z_c),
//
// (α, μ) = a tanh MLP of z_c, α softly bounded by AlphaMax·tanh(·/AlphaMax)
// so that no layer can blow up. log det ∇T = Σ_k α_k, and the inverse is
// z_o = (x_o − μ(x_c)) e^{−α(x_c)}: exact, with no iteration. Alternating
// the copied coordinate is the notes' permutation between layers (L1400).
//
// Training maximises the likelihood (L1366) of data under T_# N(0, I):
//
//	NLL = (1/n) Σ_i [½‖T⁻¹x_i‖² + log 2π + Σ_k α_k],
//
// by minibatch steps of an optimiser on the tape.
type RealNVP struct {
	nets  []*nn.MLP
	tp    *tensor.Tape
	opt   *opt.Optimizer
	data  []float64
	batch []float64
	xb    *tensor.Tensor
	rng   *rand.Rand
	nll   float64
	steps int
}

// Bounds of a RealNVP.
const (
	MaxLayers = 16
	MaxUnits  = 256
	AlphaMax  = 3
)

// RealNVPConfig configures a RealNVP.
type RealNVPConfig struct {
	Layers, Units, Batch int
	Opt                  opt.Config
}

// NewRealNVP draws the layers (the output layer at zero: T starts as the
// identity) for data xy of (x, y) pairs (kept).
func NewRealNVP(cfg RealNVPConfig, xy []float64, rng *rand.Rand) (*RealNVP, error) {
	if cfg.Layers < 1 || cfg.Layers > MaxLayers {
		return nil, algo.BadParam("layers", cfg.Layers, fmt.Sprintf("in 1..%d", MaxLayers))
	}
	if cfg.Units < 1 || cfg.Units > MaxUnits {
		return nil, algo.BadParam("units", cfg.Units, fmt.Sprintf("in 1..%d", MaxUnits))
	}
	if len(xy) < 4 || len(xy)%2 != 0 || !algo.AllFinite(xy) {
		return nil, algo.BadParam("data", len(xy)/2, "at least 2 finite points (x, y)")
	}
	if cfg.Batch < 1 || cfg.Batch > nn.MaxBatch {
		return nil, algo.BadParam("batch", cfg.Batch, fmt.Sprintf("in 1..%d", nn.MaxBatch))
	}
	f := &RealNVP{tp: tensor.NewTape(), data: xy, rng: rng, batch: make([]float64, 2*cfg.Batch)}
	var params []*tensor.Tensor
	for range cfg.Layers {
		m, err := nn.NewMLP(cfg.coupling(), rng)
		if err != nil {
			return nil, err
		}
		out := m.Layers[len(m.Layers)-1]
		clear(out.W.Data)
		f.nets = append(f.nets, m)
		params = append(params, m.Params()...)
	}
	var err error
	if f.opt, err = opt.New(params, cfg.Opt); err != nil {
		return nil, err
	}
	if f.xb, err = tensor.FromData(f.batch, cfg.Batch, 2); err != nil {
		return nil, err
	}
	return f, nil
}

// inverseOn records T⁻¹ on the tape for x [N, 2] and returns z and
// Σ_k α_k [N, 1].
func (f *RealNVP) inverseOn(x *tensor.Tensor) (z, logdet *tensor.Tensor) {
	tp := f.tp
	z = x
	for k := len(f.nets) - 1; k >= 0; k-- {
		c := k % 2
		zc, zo := tp.Slice(z, 1, c, c+1), tp.Slice(z, 1, 1-c, 2-c)
		out := f.nets[k].Forward(tp, zc, nil)
		alpha := tp.Scale(tp.Tanh(tp.Scale(tp.Slice(out, 1, 0, 1), 1.0/AlphaMax)), AlphaMax)
		mu := tp.Slice(out, 1, 1, 2)
		zo = tp.Mul(tp.Sub(zo, mu), tp.Exp(tp.Neg(alpha)))
		if c == 0 {
			z = tp.Concat(1, zc, zo)
		} else {
			z = tp.Concat(1, zo, zc)
		}
		if logdet == nil {
			logdet = alpha
		} else {
			logdet = tp.Add(logdet, alpha)
		}
	}
	return z, logdet
}

// Step is one minibatch step on the NLL.
func (f *RealNVP) Step() error {
	b := len(f.batch) / 2
	nn.SampleRows(f.batch, f.data, 2, f.rng)
	tp := f.tp
	tp.Rewind()
	z, ld := f.inverseOn(f.xb)
	loss := tp.AddConst(tp.Add(tp.Scale(tp.Sum(tp.Square(z)), 0.5/float64(b)), tp.Scale(tp.Sum(ld), 1/float64(b))), log2Pi)
	if err := tp.Backward(loss); err != nil {
		return err
	}
	f.nll = loss.Item()
	f.steps++
	if !algo.Finite(f.nll) {
		return algo.Diverged("the flow's NLL is not finite at step %d: lower lr or use fewer layers", f.steps)
	}
	return f.opt.Step()
}

// NLL is the last minibatch's negative log-likelihood per point, under
// the flow before that minibatch's update (the loss of its gradient); 0
// before the first Step.
func (f *RealNVP) NLL() float64 { return f.nll }

// Steps is the number of steps taken.
func (f *RealNVP) Steps() int { return f.steps }

// Layers is the number of coupling layers.
func (f *RealNVP) Layers() int { return len(f.nets) }

// net evaluates layer k's (α, μ) at one input, outside the tape.
func (f *RealNVP) net(k int, v float64) (alpha, mu float64) {
	m := f.nets[k]
	hid, out := m.Layers[0], m.Layers[1]
	u := hid.Out()
	for j := range u {
		h := math.Tanh(v*hid.W.Data[j] + hid.B.Data[j])
		alpha += h * out.W.Data[2*j]
		mu += h * out.W.Data[2*j+1]
	}
	alpha += out.B.Data[0]
	mu += out.B.Data[1]
	return AlphaMax * math.Tanh(alpha/AlphaMax), mu
}

// ForwardTo applies the first `layers` layers to z (the lattice warped
// layer by layer), returning x and log det of those layers.
func (f *RealNVP) ForwardTo(z [2]float64, layers int) (x [2]float64, logdet float64) {
	x = z
	for k := range layers {
		c := k % 2
		a, mu := f.net(k, x[c])
		x[1-c] = math.Exp(a)*x[1-c] + mu
		logdet += a
	}
	return x, logdet
}

// Forward is T(z) and log det ∇T(z).
func (f *RealNVP) Forward(z [2]float64) ([2]float64, float64) { return f.ForwardTo(z, len(f.nets)) }

// Inverse is T⁻¹(x) and log det ∇T⁻¹(x) = −Σα.
func (f *RealNVP) Inverse(x [2]float64) (z [2]float64, logdet float64) {
	z = x
	for k := len(f.nets) - 1; k >= 0; k-- {
		c := k % 2
		a, mu := f.net(k, z[c])
		z[1-c] = (z[1-c] - mu) * math.Exp(-a)
		logdet -= a
	}
	return z, logdet
}

// LogDensity is log p(x) = log r(T⁻¹x) + log|det ∇T⁻¹(x)| (Theorem 14.2).
func (f *RealNVP) LogDensity(x [2]float64) float64 {
	z, ld := f.Inverse(x)
	return -0.5*(z[0]*z[0]+z[1]*z[1]) - log2Pi + ld
}
