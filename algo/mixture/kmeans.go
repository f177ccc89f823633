package mixture

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/par"
)

// KPhase names the half of a k-means iteration that a Step performs.
type KPhase int

const (
	// Assign sets r_nk = 1 for the nearest centre, k = argmin_j ‖x_n − μ_j‖²
	// (eq 2.3), ties to the lowest j.
	Assign KPhase = iota
	// Update moves every centre to the mean of its points,
	// μ_k = Σ_n r_nk x_n / Σ_n r_nk (eq 2.4).
	Update
)

func (p KPhase) String() string {
	if p == Assign {
		return "assign"
	}
	return "update"
}

// KMeans is Lloyd's algorithm for k-means (seed 002 §2.1, eqs 2.2–2.4,
// L579–611) on points in d dimensions, one half-iteration per Step: an
// assignment (2.3), then an update (2.4), so that each phase can be watched.
//
// The objective J = Σ_n Σ_k r_nk ‖x_n − μ_k‖² (2.2) never increases: the
// assignment minimises J over r for fixed μ, the update minimises it over μ
// for fixed r (the mean is the global optimum, Remark 2.1). There are
// finitely many assignments, so the run ends after finitely many steps: an
// assignment that changes no point returns algo.ErrConverged (L601–605).
//
// Initial centres are chosen by k-means++ seeding from the caller's rng, by
// the same code as EM's, so an EM and a KMeans built from equal rng states
// start at the same centres. A centre that owns no point (Σ_n r_nk = 0, the
// 0/0 of eq 2.4) keeps its position: J does not depend on it, so the update
// is still a minimiser, and the centre may win points back later.
//
// The update needs no pass over the points: the assignment accumulates each
// cluster's count and coordinate sums about its old centre c_k, and by the
// parallel-axis identity Σ_{n∈k} ‖x_n − μ_k‖² = Σ_{n∈k} ‖x_n − c_k‖² −
// n_k‖μ_k − c_k‖², the J after the update is the J of the assignment less
// Σ_k n_k‖μ_k − c_k‖². Step never allocates on one worker (on several it
// starts their goroutines).
//
// The assignment runs over fixed blocks of kmBlock points, on SetWorkers
// goroutines, each block's counts and sums in its own slot, reduced in
// block order (package par): the results do not depend on the number of
// workers. Its inner loop has no branch: each centre's squared distance,
// a non-negative float64, compares as its bit pattern does, so the centre
// index in the pattern's four lowest bits makes the argmin a minimum of
// integers, taken by arithmetic (six times faster than a branch on this
// data); distances equal to 48 bits are then ties, which go to the lowest
// j as exact ties always did. Points in the plane, the common case, take a
// loop unrolled for d = 2 (twice as fast as the general one there); it
// computes the same sums in the same order, so the numbers are the same.
type KMeans struct {
	n, k, d int
	cols    [][]float64 // the points by coordinate, cols[t][i]; never modified
	c       []float64   // the centres μ_k, k×d row-major
	assign  []int       // r: each point's cluster; −1 before the first assignment

	// Per cluster, from the last assignment: n_k, and in s (k×d) the sum
	// Σ (x − c_k) about the centre c_k that the assignment used.
	cnt [MaxK]int
	s   []float64

	next    KPhase
	half    int
	changed int     // points whose cluster changed at the last assignment
	j       float64 // J at the current r and μ (+Inf before the first assignment)
	moved   float64 // Σ_k n_k ‖μ_new − μ_old‖² of the last update

	workers  int
	loop     par.Loop
	parts    []kmPart  // one per block of kmBlock points
	assignFn func(int) // the assignment of one block, made once
}

// kmBlock is the number of points of one block of the assignment: large
// enough that a block's work (about 0.1 ms at k = 8) dwarfs a goroutine's
// start, small enough that 100,000 points make 25 blocks to share out.
const kmBlock = 4096

// kmPart is one block's share of an assignment.
type kmPart struct {
	cnt     [MaxK]int
	s       []float64 // k×d sums about the centres
	total   float64
	changed int
}

// KMeansBytes is what NewKMeans allocates for n points of d coordinates:
// the points by coordinate and the assignment, besides the centres.
func KMeansBytes(n, d int) int64 {
	return algo.HeapBytes(8*int64(n)*int64(d)) + algo.HeapBytes(8*int64(n)) + 2<<10
}

// NewKMeans validates its inputs and starts k-means on points, each a point
// of the same dimension d in 1..MaxDim; the slice is read, not kept. k is
// in 1..MaxK and at most the number of points. The first Step is an
// assignment.
func NewKMeans(points [][]float64, k int, rng *rand.Rand) (*KMeans, error) {
	if k < 1 || k > MaxK {
		return nil, algo.BadParam("k", k, fmt.Sprintf("in 1..%d", MaxK))
	}
	if rng == nil {
		return nil, algo.BadParam("rng", "nil", "a non-nil *rand.Rand")
	}
	cols, err := columns(points, 1)
	if err != nil {
		return nil, err
	}
	if k > len(points) {
		return nil, algo.BadParam("k", k, fmt.Sprintf("at most the number of points, %d", len(points)))
	}
	m := newKMeans(cols, k)
	plusPlus(cols, k, rng, make([]float64, m.n), m.c)
	return m, nil
}

// columns validates points (at least min of them, each of the same
// dimension d in 1..MaxDim, every coordinate finite) and returns them by
// coordinate: cols[t][i] is coordinate t of point i.
func columns(points [][]float64, min int) ([][]float64, error) {
	n := len(points)
	if n < min || n == 0 {
		return nil, algo.BadParam("data", fmt.Sprintf("%d points", n), fmt.Sprintf("at least %d", max(min, 1)))
	}
	d := len(points[0])
	if d < 1 || d > MaxDim {
		return nil, algo.BadParam("data", fmt.Sprintf("points of %d coordinates", d), fmt.Sprintf("1..%d coordinates", MaxDim))
	}
	cols := make([][]float64, d)
	flat := make([]float64, n*d)
	for t := range cols {
		cols[t] = flat[t*n : (t+1)*n : (t+1)*n]
	}
	for i, p := range points {
		if len(p) != d {
			return nil, algo.BadParam("data", fmt.Sprintf("point %d has %d coordinates", i+1, len(p)),
				fmt.Sprintf("%d, as point 1 has", d))
		}
		for t, v := range p {
			if !algo.Finite(v) {
				return nil, algo.BadParam("data", fmt.Sprintf("point %d has coordinate %d = %v", i+1, t+1, v), "finite numbers")
			}
			cols[t][i] = v
		}
	}
	return cols, nil
}

// newKMeans is a k-means on the points cols (by coordinate), which it
// keeps, with no point assigned and every centre at the origin.
func newKMeans(cols [][]float64, k int) *KMeans {
	n, d := len(cols[0]), len(cols)
	m := &KMeans{n: n, k: k, d: d, cols: cols, c: make([]float64, k*d), s: make([]float64, k*d),
		assign: make([]int, n), j: inf, parts: make([]kmPart, par.Blocks(n, kmBlock)), workers: 1}
	sums := make([]float64, len(m.parts)*k*d)
	for b := range m.parts {
		m.parts[b].s = sums[b*k*d : (b+1)*k*d : (b+1)*k*d]
	}
	m.assignFn = m.assignBlock
	if d == 2 {
		m.assignFn = m.assignBlock2
	}
	for i := range m.assign {
		m.assign[i] = -1
	}
	return m
}

// Step performs the next half-iteration: an assignment or an update,
// alternately, starting with an assignment. An assignment that leaves every
// point where it was returns algo.ErrConverged and changes nothing.
func (m *KMeans) Step() error {
	if m.next == Assign {
		if !m.assignStep() {
			return algo.ErrConverged
		}
		m.next = Update
	} else {
		m.updateStep()
		m.next = Assign
	}
	m.half++
	return nil
}

// SetWorkers sets the number of goroutines of an assignment: 1 (the
// default) runs it on the caller's, 0 on GOMAXPROCS. Results do not depend
// on it.
func (m *KMeans) SetWorkers(w int) { m.workers = w }

// assignStep applies eq (2.3) and accumulates the sums of the update. It
// reports whether any point changed cluster; if none did (after the first
// assignment) the state is left as it was.
func (m *KMeans) assignStep() bool {
	m.loop.Run(m.workers, len(m.parts), m.assignFn)
	changed := 0
	for b := range m.parts {
		changed += m.parts[b].changed
	}
	if changed == 0 && m.half > 0 {
		m.changed = 0 // the last assignment moved no point: Changed says so
		return false
	}
	clear(m.s)
	m.cnt = [MaxK]int{}
	total := 0.0
	for b := range m.parts {
		p := &m.parts[b]
		total += p.total
		for j := 0; j < m.k; j++ {
			m.cnt[j] += p.cnt[j]
		}
		for i, v := range p.s {
			m.s[i] += v
		}
	}
	m.changed, m.j = changed, total
	return true
}

// nearest returns the index of the smallest of the squared distances
// dist(j), j < k, ties to the lowest j, without a branch (see KMeans):
// key = min(key, bits|j) by arithmetic, because the compiler would make a
// branch of min (a loop-carried value), mispredicted about one time in
// three, which costs more than all the rest.
func nearest(key int64, dist float64, j int) int64 {
	d := int64(math.Float64bits(dist)&^15|uint64(j)) - key
	return key + d&(d>>63)
}

// assignBlock assigns the points of block b to their nearest centres and
// writes the block's counts, sums about the centres and J into its slot:
// any dimension. It takes a chunk of points at a time (see chunk): the
// squared distances of all of them to one centre, coordinate by
// coordinate, then each point's nearest.
func (m *KMeans) assignBlock(b int) {
	lo := b * kmBlock
	hi := min(lo+kmBlock, m.n)
	d := m.d
	p := &m.parts[b]
	p.cnt, p.total, p.changed = [MaxK]int{}, 0, 0
	clear(p.s)
	var dist [MaxK][chunk]float64
	for c0 := lo; c0 < hi; c0 += chunk {
		n := min(chunk, hi-c0)
		j := 0
		for ; j+4 <= m.k; j += 4 { // four centres at a time: each x loaded once
			d0, d1, d2, d3 := dist[j][:n], dist[j+1][:n], dist[j+2][:n], dist[j+3][:n]
			clear(d0)
			clear(d1)
			clear(d2)
			clear(d3)
			for t, col := range m.cols {
				c0t, c1t, c2t, c3t := m.c[j*d+t], m.c[(j+1)*d+t], m.c[(j+2)*d+t], m.c[(j+3)*d+t]
				xs := col[c0 : c0+n]
				d1, d2, d3 = d1[:len(d0)], d2[:len(d0)], d3[:len(d0)]
				xs = xs[:len(d0)]
				for q, v := range xs {
					d0[q] += sq(v - c0t)
					d1[q] += sq(v - c1t)
					d2[q] += sq(v - c2t)
					d3[q] += sq(v - c3t)
				}
			}
		}
		for ; j < m.k; j++ {
			dj := dist[j][:n]
			clear(dj)
			for t, col := range m.cols {
				ct := m.c[j*d+t]
				xs := col[c0 : c0+n]
				xs = xs[:len(dj)]
				for q, v := range xs {
					dj[q] += sq(v - ct)
				}
			}
		}
		for q := range n {
			key := int64(math.MaxInt64)
			for j := 0; j < m.k; j++ {
				key = nearest(key, dist[j][q], j)
			}
			bj, i := int(key&15), c0+q
			p.total += dist[bj][q]
			p.cnt[bj]++
			sj, cj := p.s[bj*d:bj*d+d], m.c[bj*d:bj*d+d]
			for t, col := range m.cols {
				sj[t] += col[i] - cj[t]
			}
			if m.assign[i] != bj {
				p.changed++
				m.assign[i] = bj
			}
		}
	}
}

// assignBlock2 is assignBlock for points in the plane, unrolled: the same
// sums in the same order. (Its sums live in one local struct: as separate
// locals the loop ran 20% slower.)
func (m *KMeans) assignBlock2(b int) {
	lo := b * kmBlock
	hi := min(lo+kmBlock, m.n)
	var cx, cy [MaxK]float64
	for j := 0; j < m.k; j++ {
		cx[j], cy[j] = m.c[2*j], m.c[2*j+1]
	}
	var p struct {
		cnt     [MaxK]int
		sx, sy  [MaxK]float64
		total   float64
		changed int
	}
	xs, ys, as := m.cols[0][lo:hi], m.cols[1][lo:hi], m.assign[lo:hi]
	ys, as = ys[:len(xs)], as[:len(xs)]
	ccx, ccy := cx[:m.k], cy[:m.k]
	ccy = ccy[:len(ccx)]
	for i, xi := range xs {
		yi := ys[i]
		key := int64(math.MaxInt64)
		for j, c := range ccx {
			dx, dy := xi-c, yi-ccy[j]
			key = nearest(key, dx*dx+dy*dy, j)
		}
		bj := int(key & 15)
		dx, dy := xi-cx[bj], yi-cy[bj]
		p.total += dx*dx + dy*dy
		p.cnt[bj]++
		p.sx[bj] += dx
		p.sy[bj] += dy
		if as[i] != bj {
			p.changed++
			as[i] = bj
		}
	}
	q := &m.parts[b]
	q.cnt, q.total, q.changed = p.cnt, p.total, p.changed
	for j := 0; j < m.k; j++ {
		q.s[2*j], q.s[2*j+1] = p.sx[j], p.sy[j]
	}
}

// updateStep applies eq (2.4) from the sums of the last assignment.
func (m *KMeans) updateStep() {
	moved := 0.0
	d := m.d
	for j := 0; j < m.k; j++ {
		c := m.cnt[j]
		if c == 0 {
			continue // empty: keep the centre (see KMeans)
		}
		step := 0.0
		for t := range d {
			dt := m.s[j*d+t] / float64(c)
			m.c[j*d+t] += dt
			step += dt * dt
		}
		moved += float64(c) * step
	}
	m.moved = moved
	m.j = max(m.j-moved, 0)
}

// N is the number of points; K the number of clusters.
func (m *KMeans) N() int { return m.n }

// K is the number of clusters.
func (m *KMeans) K() int { return m.k }

// Dim is the dimension d of the points.
func (m *KMeans) Dim() int { return m.d }

// Coord returns coordinate t of every point (a view: do not modify).
func (m *KMeans) Coord(t int) []float64 { return m.cols[t] }

// Next is the phase the next Step performs.
func (m *KMeans) Next() KPhase { return m.next }

// Last is the phase the last Step performed; ok is false before the first.
func (m *KMeans) Last() (p KPhase, ok bool) { return 1 - m.next, m.half > 0 }

// HalfSteps is the number of successful Steps taken.
func (m *KMeans) HalfSteps() int { return m.half }

// Iter is the number of updates (full iterations) taken.
func (m *KMeans) Iter() int { return m.half / 2 }

// J is the objective (2.2) at the current assignment and centres; +Inf
// before the first assignment.
func (m *KMeans) J() float64 { return m.j }

// Changed is the number of points that changed cluster at the last
// assignment (all n at the first).
func (m *KMeans) Changed() int { return m.changed }

// Moved is Σ_k n_k ‖μ_k,new − μ_k,old‖², the fall of J at the last update.
func (m *KMeans) Moved() float64 { return m.moved }

// Center returns centre j (a fresh slice of d coordinates).
func (m *KMeans) Center(j int) []float64 {
	return append([]float64(nil), m.c[j*m.d:(j+1)*m.d]...)
}

// Centers returns the centres (fresh slices).
func (m *KMeans) Centers() [][]float64 {
	out := make([][]float64, m.k)
	for j := range out {
		out[j] = m.Center(j)
	}
	return out
}

// Assign writes each point's cluster into dst (grown if short): −1 before
// the first assignment.
func (m *KMeans) Assign(dst []int) []int {
	dst = grow(dst, m.n)
	copy(dst, m.assign)
	return dst
}

// Counts writes the cluster sizes of the last assignment into dst (grown if
// short).
func (m *KMeans) Counts(dst []int) []int {
	dst = grow(dst, m.k)
	copy(dst, m.cnt[:m.k])
	return dst
}

var inf = math.Inf(1)
