package mixture

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
)

// DefaultSep is the separation of well-separated clusters for Blobs, and
// MaxSep the largest separation it accepts.
const (
	DefaultSep = 8
	MaxSep     = 100
)

// Sample is synthetic mixture data with the truth that generated it.
type Sample struct {
	Points [][]float64 // n points (x, y)
	Labels []int       // the component that drew each point, in 0..k-1
	Truth  []Component // the generating mixture
}

// Blobs draws n points from a random mixture of k 2-D Gaussians whose means
// are at least sep apart, by ancestral sampling (seed 002 Remark 2.2, L651):
// first z ~ Categorical(π), then x ~ N(μ_z, Σ_z). (The remark prints
// p(z) = Π_k z_k; the prior is p(z) = Π_k π_k^{z_k}, eq 2.8 — erratum in the
// seed-002 catalogue, §4.)
//
// The mixture itself is random too:
//
//   - weights π_k ∝ 1 + U(0, 1), so no cluster has less than half another's;
//   - covariances R(α) diag(a², b²) R(α)ᵀ with standard deviations
//     a ∈ [0.5, 1], b ∈ [0.3, a] and orientation α uniform, so no cluster is
//     wider than 1 in any direction;
//   - means on a ring about the origin, at angles 2πj/k + φ with φ uniform
//     and a jitter of ±10% of the spacing, and at radii r(1 ± 10%), with r
//     chosen so that any two means are at least sep apart:
//     2·0.9r·sin(0.8π/k) = sep. For k = 1 the mean is at the origin.
//
// sep is thus the least distance between two means in standard deviations of
// the widest possible cluster. With sep = DefaultSep = 8 the clusters barely
// overlap (a point is misattributed with probability below Φ(−4) ≈ 3e-5), EM
// recovers the truth up to sampling error and label permutation, and it
// converges in a few iterations; at sep = 4 the clusters touch and EM takes
// tens of iterations.
func Blobs(rng *rand.Rand, n, k int, sep float64) (*Sample, error) {
	if k < 1 || k > MaxK {
		return nil, algo.BadParam("clusters", k, fmt.Sprintf("in 1..%d", MaxK))
	}
	if n < 1 {
		return nil, algo.BadParam("n", n, "≥ 1")
	}
	if !(sep >= 0 && sep <= MaxSep) {
		return nil, algo.BadParam("sep", sep, fmt.Sprintf("in [0, %g]", float64(MaxSep)))
	}
	if rng == nil {
		return nil, algo.BadParam("rng", "nil", "a non-nil *rand.Rand")
	}
	s := &Sample{Truth: make([]Component, k)}
	total := 0.0
	for j := range s.Truth {
		s.Truth[j].Weight = 1 + rng.Float64()
		total += s.Truth[j].Weight
	}
	r := sep / (1.8 * math.Sin(0.8*math.Pi/float64(k)))
	phi := 2 * math.Pi * rng.Float64()
	spacing := 2 * math.Pi / float64(k)
	chol := make([][3]float64, k) // l11, l21, l22 of each Σ_k
	for j := range s.Truth {
		c := &s.Truth[j]
		c.Weight /= total
		if k > 1 {
			ang := phi + spacing*(float64(j)+0.1*(2*rng.Float64()-1))
			rad := r * (1 + 0.1*(2*rng.Float64()-1))
			c.Mean = [2]float64{rad * math.Cos(ang), rad * math.Sin(ang)}
		}
		a := 0.5 + 0.5*rng.Float64()
		b := 0.3 + (a-0.3)*rng.Float64()
		al := math.Pi * rng.Float64()
		co, si := math.Cos(al), math.Sin(al)
		sxx := co*co*a*a + si*si*b*b
		sxy := co * si * (a*a - b*b)
		syy := si*si*a*a + co*co*b*b
		c.Cov = [2][2]float64{{sxx, sxy}, {sxy, syy}}
		l11 := math.Sqrt(sxx)
		l21 := sxy / l11
		chol[j] = [3]float64{l11, l21, math.Sqrt(syy - l21*l21)}
	}
	s.Points = make([][]float64, n)
	s.Labels = make([]int, n)
	flat := make([]float64, 2*n)
	for i := range s.Points {
		u, z := rng.Float64(), k-1
		for j, c := range s.Truth {
			if u -= c.Weight; u < 0 {
				z = j
				break
			}
		}
		e1, e2 := rng.NormFloat64(), rng.NormFloat64()
		c, l := s.Truth[z], chol[z]
		p := flat[2*i : 2*i+2 : 2*i+2]
		p[0] = c.Mean[0] + l[0]*e1
		p[1] = c.Mean[1] + l[1]*e1 + l[2]*e2
		s.Points[i], s.Labels[i] = p, z
	}
	return s, nil
}
