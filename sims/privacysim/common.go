// Package privacysim turns the differential-privacy engines of
// algo/privacy into sims (seed 001 §19): the coin-flip survey, the Laplace
// and Gaussian mechanisms under their e^ε envelope with Rényi divergences
// and a composing budget, and DP-SGD on the lab's classifiers with a
// privacy accountant (PRV, or RDP by two conversions) running beside the
// loss.
package privacysim

import "math/rand/v2"

// The PCG streams of the sims' randomness.
const (
	surveyStream = 0x64705f7272   // "dp_rr"
	mechStream   = 0x64705f6d6563 // "dp_mec"
	dataStream   = 0x64705f64617461
	initStream   = 0x64705f696e6974
	batchStream  = 0x64705f6261746368
	noiseStream  = 0x64705f6e6f697365 // the privacy noise: its own stream ([A39])
)

func streamRNG(seed, stream uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, stream)) }
