package cluster

import (
	"fmt"
	"math"

	"github.com/thelab/lab/algo"
)

// Linkage is how agglomerative clustering measures the distance between
// two clusters A and B.
type Linkage string

// The linkages (Lance–Williams updates of the merged cluster's distances,
// d(i∪j, k) from d(i, k), d(j, k) and d(i, j)):
//
//	ward      the rise of the within-cluster sum of squares, as
//	          √(2·ΔSS): d(i∪j, k)² = ((n_i+n_k) d_ik² + (n_j+n_k) d_jk² − n_k d_ij²)/(n_i+n_j+n_k)
//	single    the least distance between their points: min(d_ik, d_jk)
//	complete  the greatest: max(d_ik, d_jk)
//	average   the mean over pairs: (n_i d_ik + n_j d_jk)/(n_i + n_j)
const (
	Ward     Linkage = "ward"
	Single   Linkage = "single"
	Complete Linkage = "complete"
	Average  Linkage = "average"
)

// Linkages lists them.
var Linkages = []Linkage{Ward, Single, Complete, Average}

// String is the linkage's name.
func (l Linkage) String() string { return string(l) }

// Agglomerative is bottom-up hierarchical clustering (Ward 1963; scipy's
// and scikit-learn's AgglomerativeClustering without a connectivity
// constraint, Euclidean distances): every point starts as its own
// cluster, and each Step merges the two clusters at the least linkage
// distance, ties to the lowest pair of slots, and updates the distances of
// the merged cluster by the Lance–Williams formula of the linkage (see
// Linkage). The heights of the merges never decrease for these four
// linkages (they are reducible), so merging the closest pair each time
// builds the same dendrogram as scipy's nearest-neighbour chain, and the
// clusters after n − k merges are scikit-learn's n_clusters = k labels,
// up to their names.
//
// Step returns algo.ErrConverged once the clusters number the target k.
// Each slot i keeps its nearest active slot j > i (ties to the lowest j),
// so a Step finds the closest pair, ties to the lowest (i, j), by a scan
// of n values, and after the merge updates the nearest of the rows that
// pointed at the merged slots (O(n) each) or that the merged cluster is
// now as near as their nearest (reducibility, d(i∪j, k) ≥ min(d_ik, d_jk),
// keeps it from coming nearer; at a tie the lower slot wins); it
// allocates nothing. The constructor keeps the n×n matrix
// of distances.
type Agglomerative struct {
	n, k    int
	link    Linkage
	d       []float64 // n×n distances between the clusters held in slots
	active  []bool    // slot holds a cluster
	size    []int     // its number of points
	owner   []int     // each point's slot
	head    []int     // the first point of a slot's cluster; −1 for none
	next    []int     // the next point of the same cluster; −1 at the end
	tail    []int     // the last point of a slot's cluster
	live    int       // clusters
	heights []float64 // the merges' distances, in order
	lastA   int       // the slots of the last merge (the merged cluster stays in lastA)
	lastB   int
	nn      []int     // each active slot's nearest active slot above it; −1 for none
	nnd     []float64 // its distance (+Inf for none)
}

// AgglomerativeBytes is what NewAgglomerative allocates for n points.
func AgglomerativeBytes(n int) int64 {
	return algo.HeapBytes(8*int64(n)*int64(n)) + algo.HeapBytes(int64(n)*(1+8*8)) + 1<<10
}

// NewAgglomerative validates its inputs (2..MaxN points, k in 1..n, a
// known linkage) and starts with every point its own cluster.
func NewAgglomerative(points [][]float64, link Linkage, k int) (*Agglomerative, error) {
	switch link {
	case Ward, Single, Complete, Average:
	default:
		return nil, algo.BadParam("linkage", link, fmt.Sprint(Linkages))
	}
	if err := checkPoints(points, 2); err != nil {
		return nil, err
	}
	n := len(points)
	if k < 1 || k > n {
		return nil, algo.BadParam("k", k, fmt.Sprintf("in 1..%d (the points)", n))
	}
	m := &Agglomerative{n: n, k: k, link: link, d: make([]float64, n*n), active: make([]bool, n),
		size: make([]int, n), owner: make([]int, n), head: make([]int, n), next: make([]int, n),
		tail: make([]int, n), live: n, heights: make([]float64, 0, n), lastA: -1, lastB: -1,
		nn: make([]int, n), nnd: make([]float64, n)}
	for i, p := range points {
		m.active[i], m.size[i], m.owner[i], m.head[i], m.next[i], m.tail[i] = true, 1, i, i, -1, i
		for j := range i {
			v := math.Sqrt(algo.SqDist(p, points[j]))
			m.d[i*n+j], m.d[j*n+i] = v, v
		}
	}
	for i := range n {
		m.nearest(i)
	}
	return m, nil
}

// nearest finds the nearest active slot above slot i, ties to the lowest.
func (m *Agglomerative) nearest(i int) {
	n := m.n
	row := m.d[i*n : i*n+n]
	best, bj := math.Inf(1), -1
	for j := i + 1; j < n; j++ {
		if m.active[j] && row[j] < best {
			best, bj = row[j], j
		}
	}
	m.nn[i], m.nnd[i] = bj, best
}

// Step merges the closest two clusters (see Agglomerative).
func (m *Agglomerative) Step() error {
	if m.live <= m.k {
		return algo.ErrConverged
	}
	n := m.n
	best, bi := math.Inf(1), -1
	for i := range n {
		if m.active[i] && m.nn[i] >= 0 && m.nnd[i] < best {
			best, bi = m.nnd[i], i
		}
	}
	bj := m.nn[bi]
	ni, nj := float64(m.size[bi]), float64(m.size[bj])
	for t := range n {
		if !m.active[t] || t == bi || t == bj {
			continue
		}
		a, b := m.d[bi*n+t], m.d[bj*n+t]
		var v float64
		switch m.link {
		case Ward:
			nt := float64(m.size[t])
			v = math.Sqrt(max(0, ((ni+nt)*a*a+(nj+nt)*b*b-nt*best*best)/(ni+nj+nt)))
		case Single:
			v = min(a, b)
		case Complete:
			v = max(a, b)
		case Average:
			v = (ni*a + nj*b) / (ni + nj)
		}
		m.d[bi*n+t], m.d[t*n+bi] = v, v
	}
	for p := m.head[bj]; p >= 0; p = m.next[p] {
		m.owner[p] = bi
	}
	m.next[m.tail[bi]] = m.head[bj]
	m.tail[bi] = m.tail[bj]
	m.head[bj] = -1
	m.size[bi] += m.size[bj]
	m.size[bj] = 0
	m.active[bj] = false
	m.live--
	m.heights = append(m.heights, best) // capacity n: no growth
	m.lastA, m.lastB = bi, bj
	m.nearest(bi)
	for i := range n {
		switch {
		case !m.active[i] || i == bi:
		case m.nn[i] == bi || m.nn[i] == bj:
			m.nearest(i)
		case i < bi:
			if v := m.d[i*n+bi]; v < m.nnd[i] || (v == m.nnd[i] && bi < m.nn[i]) {
				m.nn[i], m.nnd[i] = bi, v
			}
		}
	}
	return nil
}

// Run merges down to k clusters.
func (m *Agglomerative) Run() {
	for m.Step() == nil {
	}
}

// Link is the linkage.
func (m *Agglomerative) Link() Linkage { return m.link }

// Clusters is the number of clusters now.
func (m *Agglomerative) Clusters() int { return m.live }

// Merges is the number of merges done.
func (m *Agglomerative) Merges() int { return m.n - m.live }

// Heights is the linkage distance of each merge so far, in order (a view).
func (m *Agglomerative) Heights() []float64 { return m.heights }

// Owner is each point's cluster, named by a slot in 0..n−1, the index of
// one of its points (a view): only equality of slots means anything.
func (m *Agglomerative) Owner() []int { return m.owner }

// Size is the number of points of the cluster in slot s (0 if none).
func (m *Agglomerative) Size(s int) int { return m.size[s] }

// LastMerge is the slot the last merge kept (it holds the merged cluster),
// −1 before the first.
func (m *Agglomerative) LastMerge() int { return m.lastA }

// Labels writes each point's cluster as 0..clusters−1, numbered in the
// order of their first points, into dst (grown if short).
func (m *Agglomerative) Labels(dst []int) []int {
	return compact(dst, m.owner)
}

// compact renames the ints of ids 0, 1, … in order of first appearance.
func compact(dst, ids []int) []int {
	if cap(dst) < len(ids) {
		dst = make([]int, len(ids))
	}
	dst = dst[:len(ids)]
	seen := map[int]int{}
	for i, s := range ids {
		l, ok := seen[s]
		if !ok {
			l = len(seen)
			seen[s] = l
		}
		dst[i] = l
	}
	return dst
}
