package nn

import (
	"fmt"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/tensor"
)

// Bounds of an MLP (what a CPU trains at a useful speed, and what a tensor
// holds).
const (
	MaxLayers = 16
	MaxWidth  = 4096
)

// MLPConfig describes a multilayer perceptron.
type MLPConfig struct {
	In     int   // input features
	Hidden []int // widths of the hidden layers; none is a linear model
	Out    int   // outputs: 1 (a logit, or a regression), or one per class
	Act    Activation
	// Residual adds each hidden layer's input to its output where the
	// widths agree: h_k = σ(h_{k−1} W_k + b_k) + h_{k−1} (He et al. 2016;
	// beyond the notes).
	Residual bool
	// Dropout is the probability p of dropping each hidden unit in
	// training (inverted dropout, seed 001 [A16]: survivors are scaled by
	// 1/(1 − p)); 0 for none.
	Dropout float64
	// Init draws the weights; empty: He for ReLU, Xavier otherwise.
	Init tensor.Init
}

// MLP is a multilayer perceptron h_0 = x, h_k = σ(h_{k−1} W_k + b_k),
// out = h_H W_{H+1} + b_{H+1} (seed 000 eq 2.1 with the notes' W_{k+1}
// read as W_{H+1}, erratum 6; seed 002 eq 6.1). The output is linear: the
// loss applies the sigmoid or softmax (from logits, by log-sum-exp).
type MLP struct {
	cfg    MLPConfig
	Layers []*Dense // H hidden layers, then the output layer
	// The last Forward's tensors (tape-owned, valid until the tape is
	// rewound): pre-activations and activations of each hidden layer.
	pre, hid []*tensor.Tensor
	params   []*tensor.Tensor
}

// NewMLP validates cfg and draws the weights from rng (biases 0).
func NewMLP(cfg MLPConfig, rng *rand.Rand) (*MLP, error) {
	if cfg.In < 1 || cfg.In > MaxWidth {
		return nil, algo.BadParam("inputs", cfg.In, fmt.Sprintf("in 1..%d", MaxWidth))
	}
	if cfg.Out < 1 || cfg.Out > MaxWidth {
		return nil, algo.BadParam("outputs", cfg.Out, fmt.Sprintf("in 1..%d", MaxWidth))
	}
	if len(cfg.Hidden) > MaxLayers {
		return nil, algo.BadParam("layers", len(cfg.Hidden), fmt.Sprintf("at most %d", MaxLayers))
	}
	for _, h := range cfg.Hidden {
		if h < 1 || h > MaxWidth {
			return nil, algo.BadParam("units", h, fmt.Sprintf("in 1..%d", MaxWidth))
		}
	}
	if cfg.Act == "" {
		cfg.Act = ReLU
	}
	if !cfg.Act.valid() {
		return nil, algo.BadParam("activation", cfg.Act, fmt.Sprintf("one of %v", Activations))
	}
	if !(cfg.Dropout >= 0 && cfg.Dropout < 1) {
		return nil, algo.BadParam("dropout", cfg.Dropout, "in [0, 1)")
	}
	if cfg.Init == "" {
		cfg.Init = cfg.Act.init()
	}
	if rng == nil {
		return nil, algo.BadParam("rng", nil, "a random source")
	}
	cfg.Hidden = append([]int(nil), cfg.Hidden...)
	m := &MLP{cfg: cfg}
	in := cfg.In
	for _, w := range append(append([]int(nil), cfg.Hidden...), cfg.Out) {
		d, err := NewDense(in, w, cfg.Init, rng)
		if err != nil {
			return nil, err
		}
		m.Layers = append(m.Layers, d)
		m.params = append(m.params, d.W, d.B)
		in = w
	}
	m.pre = make([]*tensor.Tensor, len(cfg.Hidden))
	m.hid = make([]*tensor.Tensor, len(cfg.Hidden))
	return m, nil
}

// Config returns the configuration the network was built from.
func (m *MLP) Config() MLPConfig {
	c := m.cfg
	c.Hidden = append([]int(nil), c.Hidden...)
	return c
}

// Forward records the network on a batch x [N, In] and returns [N, Out].
// With rng set and Dropout > 0 each hidden unit is dropped with
// probability p (a fresh mask per example and step).
func (m *MLP) Forward(tp *tensor.Tape, x *tensor.Tensor, rng *rand.Rand) *tensor.Tensor {
	h := x
	H := len(m.cfg.Hidden)
	for k, d := range m.Layers[:H] {
		z := d.Forward(tp, h, nil)
		a := m.cfg.Act.Apply(tp, z)
		if m.cfg.Residual && d.In() == d.Out() {
			a = tp.Add(a, h)
		}
		m.pre[k], m.hid[k] = z, a
		h = a
		if m.cfg.Dropout > 0 && rng != nil {
			h = tp.Dropout(h, m.cfg.Dropout, rng)
		}
	}
	return m.Layers[H].Forward(tp, h, nil)
}

// Hidden returns hidden layer k's activations [N, width] and its
// pre-activations from the last Forward (before dropout). They belong to
// the tape and are valid until it is rewound.
func (m *MLP) Hidden(k int) (act, pre *tensor.Tensor) { return m.hid[k], m.pre[k] }

// Params lists W_1, b_1, …, W_{H+1}, b_{H+1}.
func (m *MLP) Params() []*tensor.Tensor { return m.params }

// Shape is (In, Out).
func (m *MLP) Shape() (in, out int) { return m.cfg.In, m.cfg.Out }

// FLOPs counts 2·in·out per dense layer and one operation per hidden unit
// for σ (and the residual addition).
func (m *MLP) FLOPs() float64 {
	f := 0.0
	for k, d := range m.Layers {
		f += 2 * float64(d.In()*d.Out())
		if k < len(m.cfg.Hidden) {
			f += 2 * float64(d.Out())
		}
	}
	return f
}

// Affine returns, for a network with the identity activation, the one
// affine map it computes (seed 001 Remark 9.2: without a nonlinearity the
// layers collapse): out = x·A + c with A [In, Out] row-major and c [Out],
// composed layer by layer (a residual layer is x(W + I) + b). ok is false
// for any other activation.
func (m *MLP) Affine() (A, c []float64, ok bool) {
	if m.cfg.Act != Linear {
		return nil, nil, false
	}
	in := m.cfg.In
	A = make([]float64, in*in) // the identity
	for i := range in {
		A[i*in+i] = 1
	}
	c = make([]float64, in)
	for k, d := range m.Layers {
		n := d.Out()
		A2, c2 := make([]float64, in*n), make([]float64, n)
		for j := range n {
			c2[j] = d.B.Data[j]
			for r := range d.In() {
				w := d.W.Data[r*n+j]
				if m.cfg.Residual && k < len(m.cfg.Hidden) && d.In() == n && r == j {
					w++
				}
				c2[j] += c[r] * w
				for i := range in {
					A2[i*n+j] += A[i*d.In()+r] * w
				}
			}
		}
		A, c = A2, c2
	}
	return A, c, true
}
