package diffusion

import (
	"github.com/thelab/lab/algo/nn"
	"github.com/thelab/lab/algo/tensor"
	"github.com/thelab/lab/algo/tensor/opt"
)

// Footprints: what the samplers and the score model hold, for estimating
// a model's memory before it is built (see tensor.Footprint).

// SamplerBytes is what a Sampler of n particles in d dimensions over
// steps levels holds: the particles, ε at this level and at the one
// above, and the levels.
func SamplerBytes(n, d, steps int) int64 { return 3*tensor.Alloc(d*n) + tensor.Alloc(steps+1) }

// GuidedBytes is the scratch a Guided keeps for n values (the
// unconditional ε).
func GuidedBytes(n int) int64 { return tensor.Alloc(n) }

// ViewsBytes is the scratch a Views keeps for n values (the mapped
// points, their ε and the sum).
func ViewsBytes(n int) int64 { return 3 * tensor.Alloc(n) }

// net is the score model's network (x/s, y/s, log σ/4) ↦ ε − ε_G.
func (c DSMConfig) net() nn.MLPConfig {
	return nn.MLPConfig{In: 3, Hidden: c.Hidden, Out: 2, Act: c.Act}
}

// Bytes is what a DSM holds besides its mixture: the network and Adam,
// the batch, the fixed evaluation set and its ε, and the tape, which
// takes turns between a training step and the evaluation of ε in chunks.
func (c DSMConfig) Bytes() int64 {
	net, B, E := c.net(), c.Batch, c.Eval
	var f tensor.Footprint
	net.Record(&f, nn.Pass{Rows: B, GradIn: true, Backward: true}) // the batch's features have a gradient
	for _, n := range []int{2 * B, 2 * B, 1, 1} {                  // Sub, Square, Mean, Scale
		f.Op(n, true)
	}
	f.Rewind()
	net.Record(&f, nn.Pass{Rows: min(dsmChunk, max(E, 1)), GradIn: true})
	tensors := 2*tensor.Alloc(3*B) + 2*tensor.Alloc(2*B) + 2*tensor.Alloc(3*dsmChunk)
	eval := 4*tensor.Alloc(2*E) + tensor.Alloc(E)
	return nn.ParamBytes(net) + nn.StateBytes(net, opt.Adam) + f.Bytes() + tensors + eval + tensor.Alloc(2*max(B, E)) +
		tensor.Alloc(2*B) + tensor.Alloc(B)
}
