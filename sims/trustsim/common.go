// Package trustsim turns the trustworthy-ML engines of seed 001 §17–20
// into sims: robust regression as the square-root Lasso, the poisoning
// reachability threshold, adversarial attacks and adversarial training on
// the lab's own classifiers, and what a digits network's neurons and
// gradients say about it (saliency).
package trustsim

import (
	"math/rand/v2"

	"github.com/thelab/lab/sims"
)

// The PCG streams of the sims' randomness: the data follow the seed and
// stay put when a parameter of a model or an attack changes.
const (
	dataStream  = 0x74727573745f64 // "trust_d"
	initStream  = 0x74727573745f69 // "trust_i"
	trainStream = 0x74727573745f74 // "trust_t"
	drawStream  = 0x74727573745f72 // "trust_r": draws a pane makes (random perturbations)
)

func streamRNG(seed, stream uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, stream)) }

// curve samples y = f(x) at n points of [x0, x1].
func curve(x0, x1 float64, n int, f func(float64) float64, class int, dotted bool) sims.Path {
	p := sims.Path{X: make([]float64, n), Y: make([]float64, n), Class: class, Dotted: dotted}
	for i := range p.X {
		p.X[i] = x0 + (x1-x0)*float64(i)/float64(n-1)
		p.Y[i] = f(p.X[i])
	}
	return p
}

// vline is a dotted vertical line at x across [y0, y1].
func vline(x, y0, y1 float64, class int) sims.Path {
	return sims.Path{X: []float64{x, x}, Y: []float64{y0, y1}, Class: class, Dotted: true}
}
