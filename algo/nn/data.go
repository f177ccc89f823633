package nn

import (
	"fmt"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/tensor"
)

// Set is a data set of N examples of D features, row-major in X, with
// class labels (classification: Classes ≥ 2, Labels in 0..Classes−1) or a
// real target per example (regression: Classes = 0).
type Set struct {
	X       []float64
	N, D    int
	Labels  []int
	Classes int
	Targets []float64
}

// NewClassSet wraps x (N·d values, kept) and labels (kept) as a
// classification set of the given number of classes.
func NewClassSet(x []float64, d int, labels []int, classes int) (*Set, error) {
	s, err := newSet(x, d, len(labels))
	if err != nil {
		return nil, err
	}
	if classes < 2 {
		return nil, algo.BadParam("classes", classes, "≥ 2")
	}
	for i, y := range labels {
		if y < 0 || y >= classes {
			return nil, algo.BadParam("labels", fmt.Sprintf("%d at row %d", y, i+1), fmt.Sprintf("in 0..%d", classes-1))
		}
	}
	s.Labels, s.Classes = labels, classes
	return s, nil
}

// NewRegressionSet wraps x (N·d values, kept) and one target per row
// (kept) as a regression set.
func NewRegressionSet(x []float64, d int, targets []float64) (*Set, error) {
	s, err := newSet(x, d, len(targets))
	if err != nil {
		return nil, err
	}
	if !algo.AllFinite(targets) {
		return nil, algo.BadParam("targets", "non-finite", "finite numbers")
	}
	s.Targets = targets
	return s, nil
}

func newSet(x []float64, d, n int) (*Set, error) {
	if d < 1 {
		return nil, algo.BadParam("features", d, "≥ 1")
	}
	if n < 1 || len(x) != n*d {
		return nil, algo.BadParam("examples", fmt.Sprintf("%d values for %d rows of %d", len(x), n, d), "n ≥ 1 rows of d values")
	}
	if !algo.AllFinite(x) {
		return nil, algo.BadParam("x", "non-finite", "finite numbers")
	}
	return &Set{X: x, N: n, D: d}, nil
}

// Row is example i's features (shared, not copied).
func (s *Set) Row(i int) []float64 { return s.X[i*s.D : (i+1)*s.D] }

// Subset returns the examples idx, copied, in that order.
func (s *Set) Subset(idx []int) *Set {
	out := &Set{X: make([]float64, 0, len(idx)*s.D), N: len(idx), D: s.D, Classes: s.Classes}
	for _, i := range idx {
		out.X = append(out.X, s.Row(i)...)
		if s.Labels != nil {
			out.Labels = append(out.Labels, s.Labels[i])
		}
		if s.Targets != nil {
			out.Targets = append(out.Targets, s.Targets[i])
		}
	}
	return out
}

// Split shuffles the examples with rng and returns the first
// ⌊frac·N⌉ as the training set and the rest as the test set. Each side
// keeps at least one example.
func (s *Set) Split(frac float64, rng *rand.Rand) (train, test *Set, err error) {
	if !(frac > 0 && frac < 1) {
		return nil, nil, algo.BadParam("train_frac", frac, "in (0, 1)")
	}
	if s.N < 2 {
		return nil, nil, algo.BadParam("examples", s.N, "≥ 2 to split")
	}
	perm := rng.Perm(s.N)
	k := SplitSize(s.N, frac)
	return s.Subset(perm[:k]), s.Subset(perm[k:]), nil
}

// SplitSize is the training examples of a Split of n ≥ 2 examples:
// ⌊frac·n⌉, at least one and leaving one.
func SplitSize(n int, frac float64) int { return min(max(int(frac*float64(n)+0.5), 1), n-1) }

// Batch is a minibatch: inputs X [n, D], their labels, and Y [n, 1], the
// regression targets or, for the logistic loss, the signs 2y − 1. Its
// buffers are reused from one Load to the next: a Batch of a fixed size
// allocates nothing after it is made (a smaller size allocates its tensor
// headers once).
type Batch struct {
	X      *tensor.Tensor
	Labels []int
	Y      *tensor.Tensor
	x, y   []float64
	d      int
	full   [2]*tensor.Tensor // X and Y at the full size
	tail   [2]*tensor.Tensor // X and Y at the last smaller size
}

// NewBatch returns a batch of up to n rows of d features.
func NewBatch(n, d int) (*Batch, error) {
	if n < 1 || d < 1 {
		return nil, algo.BadParam("batch", fmt.Sprintf("%d×%d", n, d), "≥ 1 rows of ≥ 1 features")
	}
	b := &Batch{x: make([]float64, n*d), y: make([]float64, n), Labels: make([]int, n), d: d}
	var err error
	if b.full[0], err = tensor.FromData(b.x, n, d); err != nil {
		return nil, err
	}
	if b.full[1], err = tensor.FromData(b.y, n, 1); err != nil {
		return nil, err
	}
	b.X, b.Y = b.full[0], b.full[1]
	return b, nil
}

// Cap is the largest number of rows.
func (b *Batch) Cap() int { return len(b.y) }

// Load copies the examples idx of s into the batch (len(idx) ≤ Cap).
func (b *Batch) Load(s *Set, idx []int) {
	n := len(idx)
	b.resize(n)
	for r, i := range idx {
		copy(b.x[r*b.d:(r+1)*b.d], s.Row(i))
		switch {
		case s.Labels != nil:
			b.Labels[r] = s.Labels[i]
			b.y[r] = float64(2*s.Labels[i] - 1)
		case s.Targets != nil:
			b.y[r] = s.Targets[i]
		}
	}
}

// LoadRows copies n rows of x (n·D values) with their labels (nil for
// none) into the batch: a caller's own inputs, such as a perturbed digit.
func (b *Batch) LoadRows(x []float64, labels []int) {
	n := len(x) / b.d
	b.resize(n)
	copy(b.x, x[:n*b.d])
	for r := range n {
		if labels != nil {
			b.Labels[r] = labels[r]
			b.y[r] = float64(2*labels[r] - 1)
		}
	}
}

// resize points X, Y and Labels at the first n rows.
func (b *Batch) resize(n int) {
	b.Labels = b.Labels[:cap(b.Labels)][:n]
	if n == b.Cap() {
		b.X, b.Y = b.full[0], b.full[1]
		return
	}
	if b.tail[0] == nil || b.tail[0].Dim(0) != n {
		b.tail[0], _ = tensor.FromData(b.x[:n*b.d], n, b.d)
		b.tail[1], _ = tensor.FromData(b.y[:n], n, 1)
		if b.full[0].Grad != nil {
			b.tail[0].Grad = b.full[0].Grad[:n*b.d]
		}
	}
	b.X, b.Y = b.tail[0], b.tail[1]
}

// RequireGrad gives the inputs a gradient, so that a Backward fills
// ∂loss/∂x (saliency, attacks).
func (b *Batch) RequireGrad() {
	b.full[0].RequireGrad()
	if b.tail[0] != nil {
		b.tail[0].Grad = b.full[0].Grad[:b.tail[0].Size()]
	}
}

// SampleRows fills dst (a whole number of rows of d values) with rows of
// data (n·d values) drawn uniformly with replacement: the minibatch of a
// generative model's step, which has no labels.
func SampleRows(dst, data []float64, d int, rng *rand.Rand) {
	n := len(data) / d
	for i := 0; i+d <= len(dst); i += d {
		j := rng.IntN(n) * d
		copy(dst[i:i+d], data[j:j+d])
	}
}
