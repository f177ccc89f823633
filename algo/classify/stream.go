package classify

import (
	"fmt"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
)

// MaxPoints is the most points a Stream takes before it stops
// (ErrConverged).
const MaxPoints = 20000

// Stream feeds labelled points to a Fit one per Step: drawn from a known
// generative model (the truth, so the Bayes classifier is there to compare
// with), or taken in a seeded random order from a given data set. It stops
// (ErrConverged) when the data set is used up, or at MaxPoints. Step does
// not allocate.
type Stream struct {
	fit   *Fit
	truth *Params
	rng   *rand.Rand
	xs    [][2]float64 // the points added so far
	ys    []int
	data  [][2]float64 // a data set, in the order it will be added
	lab   []int
}

// StreamBytes is what NewStream allocates for a stream of n points (at
// most MaxPoints are added): room for the points added and their labels,
// and for a data set's its shuffled copy too.
func StreamBytes(n int, data bool) int64 {
	b := (16 + 8) * int64(min(n, MaxPoints))
	if data {
		b *= 2
	}
	return b + 256
}

// NewStream starts a stream from the truth (data nil) or from data with
// labels 0/1 (truth nil), shuffled by rng.
func NewStream(fit *Fit, truth *Params, data [][2]float64, labels []int, rng *rand.Rand) (*Stream, error) {
	if fit == nil {
		return nil, algo.BadParam("fit", nil, "a Fit")
	}
	if rng == nil {
		return nil, algo.BadParam("rng", nil, "a random source")
	}
	s := &Stream{fit: fit, rng: rng}
	switch {
	case truth != nil && data != nil, truth == nil && data == nil:
		return nil, algo.BadParam("data", "", "either a true model or a data set")
	case truth != nil:
		if err := truth.Check(); err != nil {
			return nil, err
		}
		t := *truth
		s.truth = &t
		s.xs, s.ys = make([][2]float64, 0, MaxPoints), make([]int, 0, MaxPoints)
	default:
		if len(data) != len(labels) || len(data) < 2 {
			return nil, algo.BadParam("data", fmt.Sprintf("%d points, %d labels", len(data), len(labels)), "at least two labelled points")
		}
		seen := [2]bool{}
		for i, y := range labels {
			if y != 0 && y != 1 {
				return nil, algo.BadParam("data", fmt.Sprintf("label %d of point %d", y, i+1), "labels of two classes, 0 and 1")
			}
			seen[y] = true
		}
		if !seen[0] || !seen[1] {
			return nil, algo.BadParam("data", "one class only", "points of both classes")
		}
		n := min(len(data), MaxPoints)
		perm := rng.Perm(len(data))[:n]
		s.data, s.lab = make([][2]float64, n), make([]int, n)
		for i, j := range perm {
			s.data[i], s.lab[i] = data[j], labels[j]
		}
		s.xs, s.ys = make([][2]float64, 0, n), make([]int, 0, n)
	}
	return s, nil
}

// Step adds the next point.
func (s *Stream) Step() error {
	if len(s.xs) == cap(s.xs) {
		return algo.ErrConverged
	}
	var x [2]float64
	var y int
	if s.truth != nil {
		x, y = s.truth.Sample(s.rng)
	} else {
		x, y = s.data[len(s.xs)], s.lab[len(s.xs)]
	}
	s.fit.Add(x, y)
	s.xs, s.ys = append(s.xs, x), append(s.ys, y)
	return nil
}

// Fit is the classifier's fit.
func (s *Stream) Fit() *Fit { return s.fit }

// Truth returns the true model, or nil with a data set.
func (s *Stream) Truth() *Params { return s.truth }

// Points returns the points added so far and their labels (views: do not
// modify; later steps only extend them).
func (s *Stream) Points() ([][2]float64, []int) {
	return s.xs[:len(s.xs):len(s.xs)], s.ys[:len(s.ys):len(s.ys)]
}

// N is the number of points added.
func (s *Stream) N() int { return len(s.xs) }

// Accuracy is the fraction of points that p classifies correctly, with
// the rule p(Y = 1 | x) > ½ (log-odds > 0), the log-odds evaluated in its
// quadratic form (Params.Quadratic).
func Accuracy(p Params, xs [][2]float64, ys []int) float64 {
	if len(xs) == 0 {
		return 0
	}
	a, b, c := p.Quadratic()
	ok := 0
	for i, x := range xs {
		g := x[0]*(a[0][0]*x[0]+a[0][1]*x[1]) + x[1]*(a[1][0]*x[0]+a[1][1]*x[1]) + b[0]*x[0] + b[1]*x[1] + c
		if (g > 0) == (ys[i] == 1) {
			ok++
		}
	}
	return float64(ok) / float64(len(xs))
}
