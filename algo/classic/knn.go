package classic

import (
	"fmt"

	"github.com/thelab/lab/algo"
)

// KNN is the k-nearest-neighbour classifier (Cover and Hart 1967; ESL
// §13.3): the class probabilities at q are the shares of the classes among
// the k training points nearest q in Euclidean distance,
//
//	p_c(q) = #{i ∈ N_k(q) : y_i = c} / k,
//
// and the prediction is the majority class, the smallest label among tied
// classes (scikit-learn's KNeighborsClassifier with weights="uniform").
// Neighbours are found by brute force; among points at the same distance
// as the k-th, those of smaller index come first. (scikit-learn's order
// among equidistant neighbours is its search's, so the two agree whenever
// no distance ties straddle the k-th place.) At k = 1 every training point
// is its own nearest neighbour: the training accuracy is 1 unless two
// points of different classes coincide.
type KNN struct {
	x       [][]float64
	y       []int
	classes int
	k       int
	// The k nearest so far of a query, by squared distance, ascending.
	bestD []float64
	bestI []int
	votes []int
}

// NewKNN returns the classifier of the rows x with labels y in
// 0..classes−1, with k in 1..len(x).
func NewKNN(x [][]float64, y []int, classes, k int) (*KNN, error) {
	if _, err := checkData(x, y, classes); err != nil {
		return nil, err
	}
	m := &KNN{x: x, y: y, classes: classes, bestD: make([]float64, len(x)), bestI: make([]int, len(x)),
		votes: make([]int, classes)}
	return m, m.SetK(k)
}

// K is the number of neighbours.
func (m *KNN) K() int { return m.k }

// N is the number of training points.
func (m *KNN) N() int { return len(m.x) }

// SetK sets the number of neighbours, in 1..N.
func (m *KNN) SetK(k int) error {
	if k < 1 || k > len(m.x) {
		return algo.BadParam("k", k, fmt.Sprintf("in 1..%d (the training points)", len(m.x)))
	}
	m.k = k
	return nil
}

// Step moves to k + 1 neighbours; at k = N it returns algo.ErrConverged.
func (m *KNN) Step() error {
	if m.k >= len(m.x) {
		return algo.ErrConverged
	}
	m.k++
	return nil
}

// neighbours finds the k nearest training points of q into bestD, bestI
// by insertion into a sorted list (strictly nearer goes first, so the
// smaller index wins a tie): O(n) distances and few insertions.
func (m *KNN) neighbours(q []float64) {
	k, got := m.k, 0
	for i, r := range m.x {
		d2 := 0.0
		for j, v := range r {
			t := v - q[j]
			d2 += t * t
		}
		if got == k && d2 >= m.bestD[k-1] {
			continue
		}
		pos := got
		if got < k {
			got++
		} else {
			pos = k - 1
		}
		for pos > 0 && m.bestD[pos-1] > d2 {
			m.bestD[pos], m.bestI[pos] = m.bestD[pos-1], m.bestI[pos-1]
			pos--
		}
		m.bestD[pos], m.bestI[pos] = d2, i
	}
}

// Proba writes the class shares among the k nearest neighbours of q into p.
func (m *KNN) Proba(q, p []float64) {
	m.neighbours(q)
	for c := range m.votes {
		m.votes[c] = 0
	}
	for _, i := range m.bestI[:m.k] {
		m.votes[m.y[i]]++
	}
	for c, v := range m.votes {
		p[c] = float64(v) / float64(m.k)
	}
}

// Predict returns the majority class among the k nearest neighbours of q,
// the smallest label among tied classes.
func (m *KNN) Predict(q []float64) int {
	m.neighbours(q)
	for c := range m.votes {
		m.votes[c] = 0
	}
	for _, i := range m.bestI[:m.k] {
		m.votes[m.y[i]]++
	}
	best := 0
	for c, v := range m.votes {
		if v > m.votes[best] {
			best = c
		}
	}
	return best
}
