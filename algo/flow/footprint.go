package flow

import (
	"github.com/thelab/lab/algo/nn"
	"github.com/thelab/lab/algo/tensor"
)

// Footprints: what the flows hold, for estimating a model's memory before
// it is built (see tensor.Footprint).

// coupling is a layer's network z_c ↦ (α, μ).
func (c RealNVPConfig) coupling() nn.MLPConfig {
	return nn.MLPConfig{In: 1, Hidden: []int{c.Units}, Out: 2, Act: nn.Tanh}
}

// Bytes is what a RealNVP holds besides its data: the layers' networks
// and their optimiser, the batch, and the tape of a step: each layer's
// coupling from the last to the first (inverseOn), then the NLL.
func (c RealNVPConfig) Bytes() int64 {
	net, B := c.coupling(), c.Batch
	var f tensor.Footprint
	for k := range c.Layers {
		grad := k > 0 // the data have no gradient; what the first layer makes of them has
		f.Op(B, grad) // z_c
		f.Op(B, grad) // z_o
		net.Record(&f, nn.Pass{Rows: B, GradIn: grad, Backward: true})
		for range 9 { // α: slice, scale, tanh, scale; μ; z_o − μ, −α, exp, product
			f.Op(B, true)
		}
		f.Op(2*B, true) // Concat
		if k > 0 {
			f.Op(B, true) // log det's sum
		}
	}
	for _, n := range []int{2 * B, 1, 1, 1, 1, 1, 1} { // Square, Sum, Scale, Sum, Scale, Add, AddConst
		f.Op(n, true)
	}
	return int64(c.Layers)*(nn.ParamBytes(net)+nn.StateBytes(net, c.Opt.Method)) + tensor.Alloc(2*B) + f.Bytes()
}

// InverseCDFBytes is what an InverseCDF holds: its store of MaxDraws
// draws.
func InverseCDFBytes() int64 { return tensor.Alloc(MaxDraws) }
