// Package seq holds the lab's sequence models on the tensor tape: scaled
// dot-product and multi-head attention with the causal mask and positional
// encodings (seed 000 §2.5–2.6, seed 001 [A19], seed 002 G3–G6), a
// decoder-only transformer (GPT) with the notes' cost model (seed 000
// §2.6–2.7), a character RNN and the norm of its state Jacobians (seed 000
// §2.4, seed 002 G2), sampling with temperature, top-k and top-p, the
// tasks they train on and a trainer that steps any of them without
// allocating.
package seq

import (
	"fmt"
	"math"

	"github.com/thelab/lab/algo"
)

// PEBase is the base of the sinusoids' wavelengths (10000 in seed 000 eq
// 2.13 and Vaswani et al. 2017).
const PEBase = 10000

// Sinusoidal returns the positional encodings of positions 0..T−1 in d
// dimensions, row-major T×d (seed 000 eq 2.13, L1041; seed 001 L1139):
//
//	PE[t, 2i] = sin(t / 10000^{2i/d}),  PE[t, 2i+1] = cos(t / 10000^{2i/d}).
//
// Positions start at 0 and even dimensions hold the sines ([A19]'s
// conventions); for odd d the last dimension is a sine alone.
func Sinusoidal(T, d int) ([]float64, error) {
	if T < 1 || d < 1 {
		return nil, algo.BadParam("size", fmt.Sprintf("%d×%d", T, d), "at least 1×1")
	}
	pe := make([]float64, T*d)
	for t := range T {
		for j := 0; j < d; j += 2 {
			a := float64(t) / math.Pow(PEBase, float64(j)/float64(d))
			pe[t*d+j] = math.Sin(a)
			if j+1 < d {
				pe[t*d+j+1] = math.Cos(a)
			}
		}
	}
	return pe, nil
}

// PEDot is ⟨PE_t, PE_{t+k}⟩ for even d: each pair of dimensions gives
// sin a sin b + cos a cos b = cos(a − b), so the product is
//
//	Σ_{i < d/2} cos(k / 10000^{2i/d}),
//
// the same for every t (the derived property of [A19]: for d = 16, 7.4851662
// at k = 1, 5.5431010 at k = 3, 6.1370400 at k = 5), and d/2 at k = 0.
func PEDot(k, d int) float64 {
	s := 0.0
	for j := 0; j+1 < d; j += 2 {
		s += math.Cos(float64(k) / math.Pow(PEBase, float64(j)/float64(d)))
	}
	return s
}
