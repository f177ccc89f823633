// Package attrib holds the neuron analysis of seed 001 §20 (L1710–L1720,
// catalogue [A40]) on the lab's MLPs: the examples that excite a hidden
// unit most, activation maximisation by gradient ascent on the input,
// gradient saliency |∂z_c/∂x|, and the OR example on which gradients and
// single flips give no importance while the Shapley value splits it.
package attrib

import (
	"math"
	"sort"
	"strconv"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/nn"
	"github.com/thelab/lab/algo/tensor"
)

// checkUnit validates a hidden unit of m.
func checkUnit(m *nn.MLP, layer, unit int) error {
	h := m.Config().Hidden
	if layer < 0 || layer >= len(h) {
		return algo.BadParam("layer", layer, "a hidden layer of the network (it has "+strconv.Itoa(len(h))+")")
	}
	if unit < 0 || unit >= h[layer] {
		return algo.BadParam("unit", unit, "a unit of the layer (0 to "+strconv.Itoa(h[layer]-1)+")")
	}
	return nil
}

// TopActivating runs the rows of s through m and returns the k rows whose
// hidden unit (layer, unit) is most active, most active first, with those
// activations (L1710).
func TopActivating(m *nn.MLP, s *nn.Set, layer, unit, k int) (idx []int, acts []float64, err error) {
	if err := checkUnit(m, layer, unit); err != nil {
		return nil, nil, err
	}
	width := m.Config().Hidden[layer]
	all := make([]float64, s.N)
	tp := tensor.NewTape()
	const chunk = 256
	b, err := nn.NewBatch(chunk, s.D)
	if err != nil {
		return nil, nil, err
	}
	rows := make([]int, chunk)
	for lo := 0; lo < s.N; lo += chunk {
		n := min(chunk, s.N-lo)
		for i := range n {
			rows[i] = lo + i
		}
		b.Load(s, rows[:n])
		tp.Rewind()
		m.Forward(tp, b.X, nil)
		act, _ := m.Hidden(layer)
		for i := range n {
			all[lo+i] = act.Data[i*width+unit]
		}
	}
	order := make([]int, s.N)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return all[order[a]] > all[order[b]] })
	k = min(k, s.N)
	idx = order[:k]
	for _, i := range idx {
		acts = append(acts, all[i])
	}
	return idx, acts, nil
}

// Saliency writes ∂z_c/∂x of one input row x into dst (len(x)) and returns
// z_c: the gradient saliency of class c (L1716), whose magnitude a map
// draws. For a one-logit model z_1 = z and z_0 = −z.
func Saliency(m nn.Model, x []float64, c int, dst []float64) (float64, error) {
	in, out := m.Shape()
	if len(x) != in || len(dst) != in {
		return 0, algo.BadParam("x", len(x), "one row of "+strconv.Itoa(in)+" inputs")
	}
	classes := max(out, 2)
	if c < 0 || c >= classes {
		return 0, algo.BadParam("class", c, "in [0, "+strconv.Itoa(classes-1)+"]")
	}
	b, err := nn.NewBatch(1, in)
	if err != nil {
		return 0, err
	}
	b.LoadRows(x, nil)
	b.RequireGrad()
	tp := tensor.NewTape()
	z := m.Forward(tp, b.X, nil)
	seed := make([]float64, out)
	sign, k := 1.0, c
	if out == 1 {
		k = 0
		if c == 0 {
			sign = -1
		}
	}
	seed[k] = sign
	if err := tp.BackwardFrom(z, seed); err != nil {
		return 0, err
	}
	copy(dst, b.X.Grad)
	return sign * z.Data[k], nil
}

// ActMax is activation maximisation (L1712): gradient ascent on one input
// x to raise a hidden unit's activation h(x), x ← clip(x + η∇ₓh, lo, hi),
// from a grey start. A step allocates nothing, nor does Activation.
type ActMax struct {
	m           *nn.MLP
	layer, unit int
	lr, lo, hi  float64
	tp          *tensor.Tape
	b           *nn.Batch
	seed        []float64
	// act is h at the current input when fresh; a Step makes it stale,
	// and Activation evaluates it again.
	act   float64
	fresh bool
	steps int
}

// NewActMax starts at x0 (copied) with step lr; lo < hi clips the input.
func NewActMax(m *nn.MLP, layer, unit int, x0 []float64, lr, lo, hi float64) (*ActMax, error) {
	if err := checkUnit(m, layer, unit); err != nil {
		return nil, err
	}
	in, _ := m.Shape()
	if len(x0) != in {
		return nil, algo.BadParam("x0", len(x0), "one row of "+strconv.Itoa(in)+" inputs")
	}
	if !(lr > 0) || math.IsInf(lr, 1) {
		return nil, algo.BadParam("lr", lr, "> 0")
	}
	b, err := nn.NewBatch(1, in)
	if err != nil {
		return nil, err
	}
	b.LoadRows(x0, nil)
	b.RequireGrad()
	a := &ActMax{m: m, layer: layer, unit: unit, lr: lr, lo: lo, hi: hi, tp: tensor.NewTape(), b: b,
		seed: make([]float64, m.Config().Hidden[layer])}
	a.seed[unit] = 1
	return a, nil
}

// Step takes one ascent step: the gradient of h at x, the move, the clip.
// The activation at the input it leaves is Activation's.
func (a *ActMax) Step() error {
	a.tp.Rewind()
	a.m.Forward(a.tp, a.b.X, nil)
	act, _ := a.m.Hidden(a.layer)
	if err := a.tp.BackwardFrom(act, a.seed); err != nil {
		return err
	}
	a.fresh = false
	x, g := a.b.X.Data, a.b.X.Grad
	for i := range x {
		x[i] += a.lr * g[i]
		if a.lo < a.hi {
			x[i] = math.Min(math.Max(x[i], a.lo), a.hi)
		}
	}
	a.steps++
	return nil
}

// X is the current input (shared; valid until the next Step).
func (a *ActMax) X() []float64 { return a.b.X.Data }

// Activation is h at the current input X (x₀ before the first Step).
func (a *ActMax) Activation() float64 {
	if !a.fresh {
		// A forward pass at the input as it is now (issue 28.1: the
		// activation of the gradient's pass is the input's before the
		// move, one step behind the input it would be shown beside).
		a.tp.Rewind()
		a.m.Forward(a.tp, a.b.X, nil)
		act, _ := a.m.Hidden(a.layer)
		a.act, a.fresh = act.Data[a.unit], true
	}
	return a.act
}

// Steps is the number of ascent steps.
func (a *ActMax) Steps() int { return a.steps }

// Shapley2 is the Shapley value of a two-player game with payoffs u(∅),
// u({1}), u({2}), u({1,2}), by enumerating both orders of arrival:
// φ₁ = ½[u({1}) − u(∅)] + ½[u({1,2}) − u({2})], and φ₂ likewise.
func Shapley2(u0, u1, u2, u12 float64) (phi1, phi2 float64) {
	return (u1 - u0 + u12 - u2) / 2, (u2 - u0 + u12 - u1) / 2
}

// Flip2 is the single-flip (leave-one-out) attribution at the full
// coalition, u({1,2}) − u(without i): what a gradient or a one-feature
// perturbation sees there.
func Flip2(u1, u2, u12 float64) (f1, f2 float64) { return u12 - u2, u12 - u1 }
