package gan

import (
	"github.com/thelab/lab/algo/nn"
	"github.com/thelab/lab/algo/tensor"
)

// Footprints: what a GAN holds besides its data, for estimating a model's
// memory before it is built (see tensor.Footprint).

// generator and discriminator are the two ReLU networks: R^Noise → R^Dim
// and R^Dim → a logit.
func (c Config) generator() nn.MLPConfig {
	return nn.MLPConfig{In: c.Noise, Hidden: c.Hidden, Out: c.Dim, Act: nn.ReLU}
}

func (c Config) discriminator() nn.MLPConfig {
	return nn.MLPConfig{In: c.Dim, Hidden: c.Hidden, Out: 1, Act: nn.ReLU}
}

// Bytes is what a GAN holds besides its data: the networks and their
// optimisers, the batches, the discriminator's saved gradients, and the
// tapes of a step: alternating, the generator's samples for the
// discriminator and the tape on which the discriminator's steps and the
// generator's take turns.
func (c Config) Bytes() int64 {
	G, D, B := c.generator(), c.discriminator(), c.Batch
	var step tensor.Footprint
	gen := tensor.Footprint{Forward: true} // the samples of a D-step (alternating)
	if c.Simultaneous {
		G.Record(&step, nn.Pass{Rows: B, Backward: true})
		step.Op(B*c.Dim, false) // the real half
		D.Record(&step, nn.Pass{Rows: B, Backward: true})
		D.Record(&step, nn.Pass{Rows: B, GradIn: true, Backward: true})
		c.Loss.recordD(&step, B)
		c.Loss.recordG(&step, B)
	} else {
		D.Record(&step, nn.Pass{Rows: 2 * B, Backward: true}) // dStep
		step.Op(B, true)
		step.Op(B, true)
		c.Loss.recordD(&step, B)
		step.Rewind() // gStep
		G.Record(&step, nn.Pass{Rows: B, Backward: true})
		D.Record(&step, nn.Pass{Rows: B, GradIn: true, Backward: true})
		c.Loss.recordG(&step, B)
		G.Record(&gen, nn.Pass{Rows: B})
	}
	saved := int64(0)
	for _, n := range D.ParamSizes() {
		saved += tensor.Alloc(n)
	}
	return nn.ParamBytes(G) + nn.ParamBytes(D) + nn.StateBytes(G, c.OptG.Method) + nn.StateBytes(D, c.OptD.Method) + saved +
		tensor.Alloc(2*B*c.Dim) + tensor.Alloc(B*c.Noise) + step.Bytes() + gen.Bytes()
}

// GenerateBytes is what a Generate of rows points leaves held until the
// generator's next pass (its forward tape and its copy of z), and its
// result.
func (c Config) GenerateBytes(rows int) int64 {
	f := tensor.Footprint{Forward: true}
	c.generator().Record(&f, nn.Pass{Rows: rows})
	return f.Bytes() + tensor.Alloc(rows*c.Noise) + tensor.Alloc(rows*c.Dim)
}

// DiscriminateBytes is what a Discriminate of rows points leaves held
// until the discriminator's next pass (its tape, which runs a Backward
// when grad, and its copy of the points), and its result.
func (c Config) DiscriminateBytes(rows int, grad bool) int64 {
	f := tensor.Footprint{Forward: !grad}
	c.discriminator().Record(&f, nn.Pass{Rows: rows, GradIn: grad, Backward: grad})
	b := tensor.Alloc(rows*c.Dim) + tensor.Alloc(rows)
	if grad {
		c.Loss.recordG(&f, rows)
		f.Op(1, true)
		b += tensor.Alloc(rows * c.Dim) // the points' gradient
	}
	return f.Bytes() + b
}

// recordD records the discriminator's loss on B real and B generated
// logits (lossDOn).
func (l Loss) recordD(f *tensor.Footprint, B int) {
	var sizes []int
	switch l {
	case KL: // both clamps, Exp, the two means, Sub, AddConst
		sizes = []int{B, B, B, B, B, B, B, 1, 1, 1, 1}
	case LSQ: // AddConst, Square, Mean, Square, Mean, Add, Scale
		sizes = []int{B, B, 1, B, 1, 1, 1}
	default: // Neg, Softplus, Mean, Softplus, Mean, Add
		sizes = []int{B, B, 1, B, 1, 1}
	}
	for _, n := range sizes {
		f.Op(n, true)
	}
}

// recordG records the generator's loss on B generated logits (lossGOn).
func (l Loss) recordG(f *tensor.Footprint, B int) {
	var sizes []int
	switch l {
	case NonSaturating: // Neg, Softplus, Mean
		sizes = []int{B, B, 1}
	case KL: // the clamp, Exp, Mean, Neg
		sizes = []int{B, B, B, B, 1, 1}
	case LSQ: // AddConst, Square, Mean, Scale
		sizes = []int{B, B, 1, 1}
	default: // Softplus, Mean, Neg
		sizes = []int{B, 1, 1}
	}
	for _, n := range sizes {
		f.Op(n, true)
	}
}
