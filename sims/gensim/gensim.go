// Package gensim adapts the generative-model engines to Frames: the
// variational f-divergence estimator (fdiv), flows (flow), autoencoders
// (autoencoder), GANs (gan) and VAEs (vae) of seed 000 chapter 3, seed 001
// §13–15 and seed 002 §6.2–6.3.
package gensim

import (
	"math"

	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// Colour classes shared by the sims of this package.
const (
	classData  = 0 // data, q, the real samples
	classModel = 1 // the model, p, generated samples
	classFit   = 2 // what is being learned: S(x), the bound
	classAlt   = 3 // a second model beside the first
	classMark  = 4 // arrows, the current point
	classRef   = 9 // a closed form, a floor, an oracle
)

// xs returns n evenly spaced points of [lo, hi].
func xs(lo, hi float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = lo + (hi-lo)*float64(i)/float64(n-1)
	}
	return out
}

// mapped returns f at each x.
func mapped(x []float64, f func(float64) float64) []float64 {
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = f(v)
	}
	return y
}

// histogram returns the density of x on bins equal bins of [lo, hi]
// (points outside are left out of the bars but count in the total).
func histogram(x []float64, lo, hi float64, bins int) []float64 {
	d := make([]float64, bins)
	w := (hi - lo) / float64(bins)
	for _, v := range x {
		k := int(math.Floor((v - lo) / w))
		if k >= 0 && k < bins {
			d[k]++
		}
	}
	for k := range d {
		d[k] /= float64(len(x)) * w
	}
	return d
}

// traceChart is a LineChart of a trace's columns against the step.
func traceChart(title string, t *sims.Trace, series ...sims.Series) sims.LineChart {
	x0, x1 := t.Span()
	return sims.LineChart{Title: title, X0: x0, X1: x1, XLabel: "step", Series: series}
}

// is holds when the choice d is set to value: the condition of a
// dependent default (`mode=affine` changes lr's, say).
func is[T param.Enum](d *param.ChoiceDecl[T], value T) func(param.Values) bool {
	return func(v param.Values) bool { return d.Get(v) == value }
}
