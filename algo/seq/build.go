package seq

import (
	"math/rand/v2"

	"github.com/thelab/lab/algo/tensor"
)

// builder allocates a model's parameter tensors in order, keeping the
// first error: each call after it returns nil.
type builder struct {
	rng    *rand.Rand
	params []*tensor.Tensor
	err    error
}

// param is a new parameter tensor of the given shape filled by init.
func (b *builder) param(init tensor.Init, dims ...int) *tensor.Tensor {
	if b.err != nil {
		return nil
	}
	var t *tensor.Tensor
	if t, b.err = tensor.New(dims...); b.err == nil {
		b.err = t.Fill(init, b.rng)
		b.params = append(b.params, t)
	}
	return t
}
