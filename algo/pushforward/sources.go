package pushforward

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
)

// Source is the distribution P_X of the source variable.
type Source interface {
	// Name is the source's name (its SourceKind's).
	Name() string
	// Formula describes it, e.g. "X ~ N(0, 1)".
	Formula() string
	// Sample draws one x.
	Sample(rng *rand.Rand) float64
	// PDF is the density (continuous sources; 0 for discrete ones).
	PDF(x float64) float64
	// CDF is P(X ≤ x).
	CDF(x float64) float64
	// Support is the smallest interval holding the mass.
	Support() (lo, hi float64)
	// Atoms returns the values and probabilities of a discrete source, or
	// nil for a continuous one.
	Atoms() (x, p []float64)
}

// SourceKind names a source of NewSource.
type SourceKind string

// The sources: N(0, 1), U(0, 1), or Example 1.2's X on {1, 2, 3} with P =
// 0.2, 0.5, 0.3 (seed 002 L148–160).
const (
	SourceNormal   SourceKind = "normal"
	SourceUniform  SourceKind = "uniform"
	SourceDiscrete SourceKind = "discrete"
)

// String is the source's name.
func (k SourceKind) String() string { return string(k) }

// NewSource returns a source.
func NewSource(kind SourceKind) (Source, error) {
	switch kind {
	case SourceNormal:
		return normal{}, nil
	case SourceUniform:
		return uniform{}, nil
	case SourceDiscrete:
		return discrete{x: []float64{1, 2, 3}, p: []float64{0.2, 0.5, 0.3}}, nil
	}
	return nil, badParam("source", string(kind), fmt.Sprintf("one of %v", []SourceKind{SourceNormal, SourceUniform, SourceDiscrete}))
}

type normal struct{}

func (normal) Name() string                  { return "normal" }
func (normal) Formula() string               { return "X ~ N(0, 1)" }
func (normal) Sample(rng *rand.Rand) float64 { return rng.NormFloat64() }
func (normal) PDF(x float64) float64         { return math.Exp(-x*x/2) / math.Sqrt(2*math.Pi) }
func (normal) CDF(x float64) float64         { return 0.5 * math.Erfc(-x/math.Sqrt2) }
func (normal) Support() (lo, hi float64)     { return math.Inf(-1), math.Inf(1) }
func (normal) Atoms() (x, p []float64)       { return nil, nil }

type uniform struct{}

func (uniform) Name() string    { return "uniform" }
func (uniform) Formula() string { return "X ~ U(0, 1)" }

// Sample draws from (0, 1): 0 itself is redrawn, so that every quantile map
// is finite.
func (uniform) Sample(rng *rand.Rand) float64 {
	for {
		if u := rng.Float64(); u > 0 {
			return u
		}
	}
}
func (uniform) PDF(x float64) float64 {
	if x < 0 || x > 1 {
		return 0
	}
	return 1
}
func (uniform) CDF(x float64) float64     { return math.Min(math.Max(x, 0), 1) }
func (uniform) Support() (lo, hi float64) { return 0, 1 }
func (uniform) Atoms() (x, p []float64)   { return nil, nil }

type discrete struct{ x, p []float64 }

func (discrete) Name() string    { return "discrete" }
func (discrete) Formula() string { return "X ∈ {1, 2, 3}, P = 0.2, 0.5, 0.3 (Ex 1.2)" }
func (d discrete) Sample(rng *rand.Rand) float64 {
	u := rng.Float64()
	for i, p := range d.p {
		if u -= p; u < 0 {
			return d.x[i]
		}
	}
	return d.x[len(d.x)-1]
}
func (discrete) PDF(float64) float64 { return 0 }
func (d discrete) CDF(x float64) float64 {
	s := 0.0
	for i, v := range d.x {
		if v <= x {
			s += d.p[i]
		}
	}
	return s
}
func (d discrete) Support() (lo, hi float64) { return d.x[0], d.x[len(d.x)-1] }
func (d discrete) Atoms() (x, p []float64)   { return d.x, d.p }

func badParam(name string, v any, allowed string) error { return algo.BadParam(name, v, allowed) }
