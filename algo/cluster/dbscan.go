package cluster

import (
	"math"

	"github.com/thelab/lab/algo"
)

// Noise is the label of DBSCAN's noise points, as scikit-learn's.
const Noise = -1

// Kind says what DBSCAN makes of a point.
type Kind int8

const (
	// Core points have at least minSamples points (themselves included)
	// within ε.
	Core Kind = iota
	// Border points are not core but lie within ε of a core point.
	Border
	// Outlier points are neither: noise.
	Outlier
)

// DBSCAN is density-based clustering (Ester, Kriegel, Sander & Xu 1996)
// exactly as scikit-learn's DBSCAN labels points. The ε-neighbourhood of
// point i is N(i) = {j : ‖x_i − x_j‖ ≤ ε}, i itself included; i is a core
// point when |N(i)| ≥ minSamples. Clusters are the connected components of
// the core points under "within ε", each with the non-core points within ε
// of its core points (border points); the rest is noise (label −1).
//
// Labels follow scikit-learn's dbscan_inner: points are scanned in index
// order, and the first unlabelled core point found starts cluster 0, the
// next one cluster 1, …; a cluster is grown depth first from a stack
// before the scan goes on (a point is pushed once, not once per core
// neighbour as in scikit-learn's loop: the order within a cluster changes,
// not its members). A border point within ε of the core points of
// two clusters therefore takes the first discovered (so the labelling is
// exactly scikit-learn's, not merely a partition up to names).
//
// One Step labels points popped from the stack until it has expanded one
// core point, pushing its unlabelled neighbours: the cluster grows by one
// core point's neighbourhood a step. When the stack is empty the scan goes
// on to the next unlabelled core point. The Step that expands the last
// core point also labels the border points left on the stack, so that
// the labels are final when the next Step returns algo.ErrConverged,
// which changes nothing. The constructor counts every
// neighbourhood (n² distances) to find the kinds; a Step scans the n
// points for the neighbours of the point it expands (memory O(n), not the
// pairs within ε).
type DBSCAN struct {
	n, d     int
	pts      []float64 // the points, n×d row-major
	e2       float64   // ε²
	kind     []Kind
	labels   []int
	stack    []int32
	queued   []bool // pushed once: a point is on the stack at most once
	scan     int    // the next point of the index-order scan
	clusters int
	cur      int // the point expanded by the last Step; −1 before
	expanded int // core points expanded so far
	cores    int
	done     bool
}

// NewDBSCAN validates its inputs (eps > 0 finite, minSamples ≥ 1, 1..MaxN
// points) and finds every neighbourhood; no point is labelled yet.
func NewDBSCAN(points [][]float64, eps float64, minSamples int) (*DBSCAN, error) {
	if !(eps > 0) || math.IsInf(eps, 0) {
		return nil, algo.BadParam("eps", eps, "a finite number > 0")
	}
	if minSamples < 1 {
		return nil, algo.BadParam("minSamples", minSamples, "≥ 1")
	}
	if err := checkPoints(points, 1); err != nil {
		return nil, err
	}
	n := len(points)
	d := len(points[0])
	m := &DBSCAN{n: n, d: d, pts: make([]float64, 0, n*d), e2: eps * eps, kind: make([]Kind, n),
		labels: make([]int, n), stack: make([]int32, 0, n), queued: make([]bool, n), cur: -1}
	for _, p := range points {
		m.pts = append(m.pts, p...)
	}
	for i, p := range points {
		cnt := 0
		for _, q := range points {
			if algo.SqDist(p, q) <= m.e2 {
				cnt++
			}
		}
		m.labels[i] = Noise
		m.kind[i] = Outlier
		if cnt >= minSamples {
			m.kind[i] = Core
			m.cores++
		}
	}
	for i, p := range points {
		if m.kind[i] == Core {
			continue
		}
		for j, q := range points {
			if m.kind[j] == Core && algo.SqDist(p, q) <= m.e2 {
				m.kind[i] = Border
				break
			}
		}
	}
	return m, nil
}

// DBSCANBytes is what NewDBSCAN allocates for n points of d coordinates.
func DBSCANBytes(n, d int) int64 {
	return algo.HeapBytes(8*int64(n*d)) + algo.HeapBytes(int64(n)) + algo.HeapBytes(8*int64(n)) +
		2*algo.HeapBytes(4*int64(n)) + 1<<10
}

// within reports whether points i and j are within ε.
func (m *DBSCAN) within(i, j int) bool {
	return algo.SqDist(m.pts[i*m.d:(i+1)*m.d], m.pts[j*m.d:(j+1)*m.d]) <= m.e2
}

// Step expands the next core point (see DBSCAN).
func (m *DBSCAN) Step() error {
	if m.done {
		return algo.ErrConverged
	}
	for {
		if len(m.stack) == 0 {
			for m.scan < m.n && (m.labels[m.scan] != Noise || m.kind[m.scan] != Core) {
				m.scan++
			}
			if m.scan == m.n {
				m.done = true
				return algo.ErrConverged
			}
			m.stack = append(m.stack, int32(m.scan))
			m.queued[m.scan] = true
			m.clusters++
		}
		i := m.stack[len(m.stack)-1]
		m.stack = m.stack[:len(m.stack)-1]
		if m.labels[i] != Noise {
			continue
		}
		m.labels[i] = m.clusters - 1
		if m.kind[i] != Core {
			continue // a border point: labelled, not expanded
		}
		for j := range m.n {
			if m.labels[j] == Noise && !m.queued[j] && m.within(int(i), j) {
				m.queued[j] = true
				m.stack = append(m.stack, int32(j)) // at most n queued: no growth
			}
		}
		m.cur = int(i)
		m.expanded++
		if m.expanded == m.cores {
			m.drain()
		}
		return nil
	}
}

// drain labels the points left on the stack once the last core point is
// expanded (border points of the last cluster, none of them core), so
// that the Step returning algo.ErrConverged labels nothing.
func (m *DBSCAN) drain() {
	for _, i := range m.stack {
		if m.labels[i] == Noise {
			m.labels[i] = m.clusters - 1
		}
	}
	m.stack = m.stack[:0]
}

// Run steps to the end and returns the labels (a view).
func (m *DBSCAN) Run() []int {
	for m.Step() == nil {
	}
	return m.labels
}

// Labels is each point's cluster so far, −1 for noise or not yet reached
// (a view: do not modify).
func (m *DBSCAN) Labels() []int { return m.labels }

// Kinds is each point's kind, core, border or outlier (a view).
func (m *DBSCAN) Kinds() []Kind { return m.kind }

// Neighbours writes N(i), i included, in index order into dst (grown if
// short).
func (m *DBSCAN) Neighbours(i int, dst []int) []int {
	dst = dst[:0]
	for j := range m.n {
		if m.within(i, j) {
			dst = append(dst, j)
		}
	}
	return dst
}

// Clusters is the number of clusters discovered so far.
func (m *DBSCAN) Clusters() int { return m.clusters }

// Current is the core point the last Step expanded, −1 before the first.
func (m *DBSCAN) Current() int { return m.cur }

// Expanded is the number of core points expanded so far: a run takes
// Cores() Steps.
func (m *DBSCAN) Expanded() int { return m.expanded }

// Cores is the number of core points.
func (m *DBSCAN) Cores() int { return m.cores }

// Unlabelled is the number of points with label −1 so far: at the end,
// the noise.
func (m *DBSCAN) Unlabelled() int {
	c := 0
	for _, l := range m.labels {
		if l == Noise {
			c++
		}
	}
	return c
}

// Done reports whether every core point has been expanded.
func (m *DBSCAN) Done() bool { return m.done }

// String names the kind.
func (k Kind) String() string {
	switch k {
	case Core:
		return "core"
	case Border:
		return "border"
	}
	return "outlier"
}
