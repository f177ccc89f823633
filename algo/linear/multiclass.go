package linear

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
	"gonum.org/v1/gonum/floats"
)

// Scheme is a reduction of c-class classification to binary perceptrons.
type Scheme string

// The two schemes of seed 001 §2 (L309–L317).
const (
	OneVsAll Scheme = "ova"
	OneVsOne Scheme = "ovo"
)

// String is the scheme's name.
func (s Scheme) String() string { return string(s) }

// Binary is one of the binary perceptrons of a Multiclass: class Pos is +1
// against Neg (−1 for "the rest" in one-vs-all).
type Binary struct {
	Pos, Neg int
	W        []float64 // w̃ = (w, b)
	Mistakes int
}

// Multiclass runs the perceptrons of a one-vs-all or one-vs-one scheme in
// lockstep (seed 001 §2, L309–L317):
//
//	one-vs-all: c perceptrons, w_k for "class k vs the rest";  ŷ = argmax_k ⟨x̃, w_k⟩
//	one-vs-one: C(c,2) perceptrons w_{k,l}, k < l, on classes k and l only;
//	            ŷ = argmax_k Σ_{l≠k} ⟨x̃, w_{k,l}⟩ with w_{l,k} = −w_{k,l}
//
// One Step presents one index to every perceptron that trains on its class,
// each updating on its own mistake (Algorithm 1, "≤ 0"). Ties in the argmax
// go to the lowest class (catalogue [A3]). The run has converged once a
// whole pass has no mistake in any perceptron; one-vs-all may never get
// there, since "class k vs the rest" need not be linearly separable.
type Multiclass struct {
	x      *Design
	y      []int
	c      int
	scheme Scheme
	bins   []Binary
	pres   *presenter
	t      int
	m      int
	clean  int
	conv   bool
	lastI  int
	lastMk bool
}

// MulticlassBytes is what NewMulticlass allocates for n rows of p columns
// and c classes besides the design: its labels and presentation order (a
// value a row each) and the C(c, 2) weight vectors at most (one-vs-one).
func MulticlassBytes(n, p, c int) int64 {
	return 2*algo.HeapBytes(8*int64(n)) + int64(c*(c-1)/2)*(64+8*int64(p)) + 512
}

// NewMulticlass starts every perceptron at w̃ = 0. The design must carry
// the bias column; labels are 0..classes−1.
func NewMulticlass(x *Design, y []int, classes int, scheme Scheme, order Order, rng *rand.Rand) (*Multiclass, error) {
	if !x.Bias() {
		return nil, fmt.Errorf("perceptron: the design needs the bias column (x, 1)")
	}
	if err := checkClasses(x, y, classes); err != nil {
		return nil, err
	}
	mc := &Multiclass{x: x, y: append([]int(nil), y...), c: classes, scheme: scheme, lastI: -1}
	switch scheme {
	case OneVsAll:
		for k := 0; k < classes; k++ {
			mc.bins = append(mc.bins, Binary{Pos: k, Neg: -1, W: make([]float64, x.P())})
		}
	case OneVsOne:
		for k := 0; k < classes; k++ {
			for l := k + 1; l < classes; l++ {
				mc.bins = append(mc.bins, Binary{Pos: k, Neg: l, W: make([]float64, x.P())})
			}
		}
	default:
		return nil, algo.BadParam("multiclass", scheme, "ova|ovo")
	}
	pres, err := newPresenter(x.N(), order, rng)
	if err != nil {
		return nil, err
	}
	mc.pres = pres
	return mc, nil
}

// label returns the ±1 label of class k for a binary perceptron, and
// whether that perceptron trains on class k at all.
func (b *Binary) label(k int) (float64, bool) {
	switch {
	case k == b.Pos:
		return 1, true
	case b.Neg < 0 || k == b.Neg:
		return -1, true
	}
	return 0, false
}

// Step presents one index to the perceptrons that train on its class.
func (mc *Multiclass) Step() error {
	if mc.conv {
		return algo.ErrConverged
	}
	i, _ := mc.pres.next()
	mc.t++
	mc.lastI = i
	mc.lastMk = false
	row := mc.x.Row(i)
	for b := range mc.bins {
		bin := &mc.bins[b]
		yb, ok := bin.label(mc.y[i])
		if !ok {
			continue
		}
		if yb*floats.Dot(row, bin.W) <= 0 {
			floats.AddScaled(bin.W, yb, row)
			bin.Mistakes++
			mc.m++
			mc.lastMk = true
		}
	}
	if mc.lastMk {
		mc.clean = 0
	} else {
		mc.clean++
	}
	if mc.clean >= mc.x.N() {
		if mc.binaryErrors() == 0 {
			mc.conv = true
		} else {
			mc.clean = 0
		}
	}
	return nil
}

// binaryErrors counts the (row, perceptron) pairs still misclassified.
func (mc *Multiclass) binaryErrors() int {
	e := 0
	for i := 0; i < mc.x.N(); i++ {
		for b := range mc.bins {
			if yb, ok := mc.bins[b].label(mc.y[i]); ok && yb*floats.Dot(mc.x.Row(i), mc.bins[b].W) <= 0 {
				e++
			}
		}
	}
	return e
}

// Scores writes each class's score for the feature vector x (length D)
// into dst (len c): ⟨x̃, w_k⟩ (ova) or Σ_{l≠k} ⟨x̃, w_{k,l}⟩ (ovo).
func (mc *Multiclass) Scores(x, dst []float64) []float64 {
	clear(dst)
	d := mc.x.D()
	for b := range mc.bins {
		bin := &mc.bins[b]
		s := floats.Dot(bin.W[:d], x) + bin.W[d]
		dst[bin.Pos] += s
		if bin.Neg >= 0 {
			dst[bin.Neg] -= s // w_{l,k} = −w_{k,l}
		}
	}
	return dst
}

// Predict returns argmax_k of the scores, ties to the lowest k.
func (mc *Multiclass) Predict(x, scratch []float64) int {
	s := mc.Scores(x, scratch)
	best, bestS := 0, math.Inf(-1)
	for k, v := range s {
		if v > bestS {
			best, bestS = k, v
		}
	}
	return best
}

// Accuracy is the fraction of rows that the combined classifier labels
// correctly.
func (mc *Multiclass) Accuracy() float64 {
	scratch := make([]float64, mc.c)
	ok := 0
	d := mc.x.D()
	for i := 0; i < mc.x.N(); i++ {
		if mc.Predict(mc.x.Row(i)[:d], scratch) == mc.y[i] {
			ok++
		}
	}
	return float64(ok) / float64(mc.x.N())
}

// Binaries returns the perceptrons (a view: do not modify).
func (mc *Multiclass) Binaries() []Binary { return mc.bins }

// Classes is c; Scheme the reduction; Presentations t; Mistakes the total
// over all perceptrons; Epochs the completed passes.
func (mc *Multiclass) Classes() int       { return mc.c }
func (mc *Multiclass) Scheme() Scheme     { return mc.scheme }
func (mc *Multiclass) Presentations() int { return mc.t }
func (mc *Multiclass) Mistakes() int      { return mc.m }
func (mc *Multiclass) Epochs() int        { return mc.pres.epoch }
func (mc *Multiclass) Converged() bool    { return mc.conv }

// Last returns the index presented last (−1 before the first) and whether
// any perceptron made a mistake on it.
func (mc *Multiclass) Last() (int, bool) { return mc.lastI, mc.lastMk }
