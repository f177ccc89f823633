package classic

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/thelab/lab/algo"
)

// GaussianNB is Gaussian naive Bayes (ESL §6.6.3): the features are taken
// independent given the class, each normal, so that
//
//	log p(c | x) = log π_c − ½ Σ_j [ log(2π σ²_cj) + (x_j − μ_cj)²/σ²_cj ] − log Z(x),
//
// with π_c = n_c/n, μ_cj the class means and σ²_cj the class variances
// (divided by n_c, the maximum-likelihood estimate) plus ε = smoothing ·
// max_j Var(x_j), the largest variance of a feature over all the points:
// scikit-learn's GaussianNB with var_smoothing = smoothing (1e-9 by
// default). The boundary between two classes, where their log posteriors
// are equal, is a quadric (in the plane a conic) with axes along the
// features. Points arrive one at a time (Add); the means and variances
// are updated by Welford's method, so that after n points the model is
// the batch fit on them. A class not seen yet has probability 0.
type GaussianNB struct {
	d, classes int
	smoothing  float64
	n          []int
	mean, m2   []float64 // classes×d
	all        []int     // points seen (one count, in a slice for symmetry)
	allMean    []float64 // over every point, for ε
	allM2      []float64
	lj         []float64 // scratch: the joint log-likelihoods
}

// DefaultSmoothing is scikit-learn's var_smoothing.
const DefaultSmoothing = 1e-9

// NewGaussianNB returns an empty model of d features and the given
// classes, with var_smoothing smoothing in [0, 1].
func NewGaussianNB(d, classes int, smoothing float64) (*GaussianNB, error) {
	if d < 1 {
		return nil, algo.BadParam("d", d, "≥ 1")
	}
	if classes < 2 || classes > MaxClasses {
		return nil, algo.BadParam("classes", classes, fmt.Sprintf("in 2..%d", MaxClasses))
	}
	if !(smoothing >= 0 && smoothing <= 1) {
		return nil, algo.BadParam("smoothing", smoothing, "in [0, 1]")
	}
	return &GaussianNB{d: d, classes: classes, smoothing: smoothing, n: make([]int, classes),
		mean: make([]float64, classes*d), m2: make([]float64, classes*d), all: make([]int, 1),
		allMean: make([]float64, d), allM2: make([]float64, d), lj: make([]float64, classes)}, nil
}

// Add takes in the point x of class y.
func (m *GaussianNB) Add(x []float64, y int) error {
	if len(x) != m.d || !algo.AllFinite(x) {
		return algo.BadParam("x", x, fmt.Sprintf("%d finite numbers", m.d))
	}
	if y < 0 || y >= m.classes {
		return algo.BadParam("y", y, fmt.Sprintf("in 0..%d", m.classes-1))
	}
	welford(&m.n[y], m.mean[y*m.d:(y+1)*m.d], m.m2[y*m.d:(y+1)*m.d], x)
	welford(&m.all[0], m.allMean, m.allM2, x)
	return nil
}

func welford(n *int, mean, m2, x []float64) {
	*n++
	k := float64(*n)
	for j, v := range x {
		dl := v - mean[j]
		mean[j] += dl / k
		m2[j] += dl * (v - mean[j])
	}
}

// N is the number of points taken in.
func (m *GaussianNB) N() int { return m.all[0] }

// Count is the number of points of class c taken in.
func (m *GaussianNB) Count(c int) int { return m.n[c] }

// Epsilon is the variance added to every class variance: smoothing times
// the largest variance of a feature over all the points.
func (m *GaussianNB) Epsilon() float64 {
	if m.all[0] == 0 {
		return 0
	}
	v := 0.0
	for _, s := range m.allM2 {
		v = max(v, s/float64(m.all[0]))
	}
	return m.smoothing * v
}

// Params returns class c's prior, mean of feature j and smoothed variance.
func (m *GaussianNB) Params(c, j int) (prior, mean, variance float64) {
	if m.n[c] == 0 {
		return 0, math.NaN(), math.NaN()
	}
	return float64(m.n[c]) / float64(m.all[0]), m.mean[c*m.d+j], m.m2[c*m.d+j]/float64(m.n[c]) + m.Epsilon()
}

// Ready says whether the model predicts: some point taken in and every
// seen class's smoothed variances positive.
func (m *GaussianNB) Ready() bool {
	if m.all[0] == 0 {
		return false
	}
	eps := m.Epsilon()
	for c, n := range m.n {
		for j := range m.d {
			if n > 0 && !(m.m2[c*m.d+j]/float64(n)+eps > 0) {
				return false
			}
		}
	}
	return true
}

// joint fills m.lj with the joint log-likelihoods log π_c + log p(x | c)
// (−Inf for an unseen class) and returns the largest.
func (m *GaussianNB) joint(q []float64) float64 {
	eps := m.Epsilon()
	top := math.Inf(-1)
	for c, n := range m.n {
		if n == 0 {
			m.lj[c] = math.Inf(-1)
			continue
		}
		l := math.Log(float64(n) / float64(m.all[0]))
		a, b := 0.0, 0.0
		for j := range m.d {
			v := m.m2[c*m.d+j]/float64(n) + eps
			a += math.Log(2 * math.Pi * v)
			t := q[j] - m.mean[c*m.d+j]
			b += t * t / v
		}
		m.lj[c] = l - 0.5*a - 0.5*b
		top = max(top, m.lj[c])
	}
	return top
}

// Proba writes p(c | q) into p, computed stably: exp(l_c − logsumexp l).
// Before Ready it writes NaN.
func (m *GaussianNB) Proba(q, p []float64) {
	if !m.Ready() {
		for c := range p {
			p[c] = math.NaN()
		}
		return
	}
	top := m.joint(q)
	s := 0.0
	for _, l := range m.lj {
		s += math.Exp(l - top)
	}
	lse := top + math.Log(s)
	for c, l := range m.lj {
		p[c] = math.Exp(l - lse)
	}
}

// Predict returns the class of largest posterior, the smallest label
// among ties (0 before Ready).
func (m *GaussianNB) Predict(q []float64) int {
	if !m.Ready() {
		return 0
	}
	m.joint(q)
	return floats.MaxIdx(m.lj)
}
