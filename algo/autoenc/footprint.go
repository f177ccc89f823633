package autoenc

import (
	"github.com/thelab/lab/algo/nn"
	"github.com/thelab/lab/algo/tensor"
	"github.com/thelab/lab/algo/tensor/opt"
)

// Footprints: what the autoencoders hold besides their data, for
// estimating a model's memory before it is built (see tensor.Footprint).

// encoder and decoder are a Net's tanh networks R^D → R^Code → R^D.
func (c NetConfig) encoder() nn.MLPConfig {
	return nn.MLPConfig{In: c.D, Hidden: []int{c.Units}, Out: c.Code, Act: nn.Tanh}
}

func (c NetConfig) decoder() nn.MLPConfig {
	return nn.MLPConfig{In: c.Code, Hidden: []int{c.Units}, Out: c.D, Act: nn.Tanh}
}

// Bytes is what a Net holds besides its data once Map has run on at most
// rows rows: the networks and their optimiser, the batches, the tape of a
// step, and Map's forward tape (which the networks keep till their next
// pass).
func (c NetConfig) Bytes(rows int) int64 {
	enc, dec := c.encoder(), c.decoder()
	var step tensor.Footprint
	enc.Record(&step, nn.Pass{Rows: c.Batch, Backward: true})
	dec.Record(&step, nn.Pass{Rows: c.Batch, GradIn: true, Backward: true})
	for _, n := range []int{c.Batch * c.D, c.Batch * c.D, 1, 1} { // Sub, Square, Sum, Scale
		step.Op(n, true)
	}
	b := step.Bytes() + 2*tensor.Alloc(c.Batch*c.D)
	if rows > 0 {
		m := tensor.Footprint{Forward: true}
		enc.Record(&m, nn.Pass{Rows: rows})
		dec.Record(&m, nn.Pass{Rows: rows})
		b += m.Bytes()
	}
	return b + weightsBytes(enc, dec, c.Opt.Method)
}

// weightsBytes is two networks' parameters and their optimiser's state.
func weightsBytes(enc, dec nn.MLPConfig, m opt.Method) int64 {
	return nn.ParamBytes(enc) + nn.ParamBytes(dec) + nn.StateBytes(enc, m) + nn.StateBytes(dec, m)
}

// LinearBytes is what a Linear autoencoder of n points in d dimensions
// with a code of r holds: the centred data, its codes and residuals, the
// weights, their gradients and the eigenvectors (gonum matrices).
func LinearBytes(n, d, r int) int64 {
	return 1<<10 + tensor.Alloc(n*d) + tensor.Alloc(n*r) + tensor.Alloc(n*d) + 5*tensor.Alloc(d*max(d, r)) + tensor.Alloc(d)
}

// encoder and decoder are a VAE's tanh networks: R^D → (μ, log σ²) and
// R^Latent → R^D.
func (c VAEConfig) encoder() nn.MLPConfig {
	return nn.MLPConfig{In: c.D, Hidden: []int{c.Units}, Out: 2 * c.Latent, Act: nn.Tanh}
}

func (c VAEConfig) decoder() nn.MLPConfig {
	return nn.MLPConfig{In: c.Latent, Hidden: []int{c.Units}, Out: c.D, Act: nn.Tanh}
}

// Bytes is what a VAE holds besides its data: the networks and their
// optimiser, the batch and its noise, and the tape of a step (terms).
func (c VAEConfig) Bytes() int64 {
	enc, dec := c.encoder(), c.decoder()
	B, r, n := c.Batch, c.Latent, c.Batch*c.D
	var f tensor.Footprint
	enc.Record(&f, nn.Pass{Rows: B, Backward: true})
	for range 6 { // μ, log σ², their halving, exp, ⊙ε, + μ
		f.Op(B*r, true)
	}
	dec.Record(&f, nn.Pass{Rows: B, GradIn: true, Backward: true})
	recon := []int{n, n, n, 1, 1} // Softplus, Mul, Sub, Sum, Scale
	if c.Likelihood != Bernoulli {
		recon = []int{n, n, 1, 1, 1} // Sub, Square, Sum, Scale, AddConst
	}
	for _, m := range recon {
		f.Op(m, true)
	}
	for _, m := range []int{B * r, B * r, B * r, B * r, B * r, 1, 1, 1} { // the KL's terms, Sum, Scale; the loss
		f.Op(m, true)
	}
	return f.Bytes() + tensor.Alloc(B*c.D) + tensor.Alloc(B*r) + weightsBytes(enc, dec, c.Opt.Method)
}

// EncodeBytes is what an Encode of rows rows leaves held until the
// encoder's next pass: its forward tape and its copy of the rows; and its
// results.
func (c VAEConfig) EncodeBytes(rows int) int64 {
	f := tensor.Footprint{Forward: true}
	c.encoder().Record(&f, nn.Pass{Rows: rows})
	return f.Bytes() + tensor.Alloc(rows*c.D) + 2*tensor.Alloc(rows*c.Latent)
}

// DecodeBytes is what a Decode of rows latent rows leaves held until the
// decoder's next pass, and its result.
func (c VAEConfig) DecodeBytes(rows int) int64 {
	f := tensor.Footprint{Forward: true}
	c.decoder().Record(&f, nn.Pass{Rows: rows})
	return f.Bytes() + tensor.Alloc(rows*c.Latent) + tensor.Alloc(rows*c.D)
}
