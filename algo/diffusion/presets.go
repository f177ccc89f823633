package diffusion

import (
	"fmt"
	"math"

	"github.com/thelab/lab/algo"
)

// Ring is k equal Gaussians N(μ_j, s²I) with μ_j = r(cos 2πj/k, sin 2πj/k),
// each its own class: the "ring of 8" of 2-D diffusion demos.
func Ring(k int, r, s float64) (*Mixture, error) {
	if k < 1 || k > MaxComponents {
		return nil, algo.BadParam("modes", k, fmt.Sprintf("in 1..%d", MaxComponents))
	}
	comps := make([]Component, k)
	for j := range comps {
		th := 2 * math.Pi * float64(j) / float64(k)
		comps[j] = Component{Weight: 1, Mean: [2]float64{r * math.Cos(th), r * math.Sin(th)},
			Cov: [3]float64{s * s, 0, s * s}, Class: j}
	}
	return NewMixture(2, comps)
}

// Stats describes particles against a mixture: the fraction of them that
// each component claims (the one with the largest posterior probability
// at noise 0), their variance per coordinate, and their within-mode spread
// (the mean squared distance to their component's mean, per coordinate).
type Stats struct {
	Mass     []float64
	Variance float64
	Spread   float64
}

// Assess computes the Stats of particles x (n rows of m.D values); labels
// is scratch of n entries (nil: allocated).
func (m *Mixture) Assess(x []float64, labels []int) Stats {
	n := len(x) / m.D
	if len(labels) < n {
		labels = make([]int, n)
	}
	labels = labels[:n]
	m.Nearest(x, labels)
	st := Stats{Mass: make([]float64, m.K())}
	var mean [2]float64
	for i, k := range labels {
		st.Mass[k]++
		for j := range m.D {
			v := x[i*m.D+j]
			mean[j] += v
			d := v - m.comps[k].Mean[j]
			st.Spread += d * d
		}
	}
	for j := range m.D {
		mean[j] /= float64(n)
	}
	for i := range n {
		for j := range m.D {
			d := x[i*m.D+j] - mean[j]
			st.Variance += d * d
		}
	}
	for k := range st.Mass {
		st.Mass[k] /= float64(n)
	}
	st.Variance /= float64(n * m.D)
	st.Spread /= float64(n * m.D)
	return st
}
