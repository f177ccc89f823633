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

// KMeans is Lloyd's algorithm for k-means in the plane (seed 002 §2.1,
// eqs 2.2–2.4, L579–611), one half-iteration per Step: an assignment (2.3),
// then an update (2.4), so that each phase can be watched.
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
// j as exact ties always did.
type KMeans struct {
	n, k   int
	x, y   []float64 // the points, never modified
	cx, cy []float64 // the centres μ_k
	assign []int     // r: each point's cluster; −1 before the first assignment

	// Per cluster, from the last assignment: n_k and Σ (x − c_k) about the
	// centre c_k that the assignment used.
	cnt    [MaxK]int
	sx, sy [MaxK]float64

	next    KPhase
	half    int
	changed int     // points whose cluster changed at the last assignment
	j       float64 // J at the current r and μ (+Inf before the first assignment)
	moved   float64 // Σ_k n_k ‖μ_new − μ_old‖² of the last update

	workers  int
	loop     par.Loop
	parts    []kmPart  // one per block of kmBlock points
	assignFn func(int) // m.assignBlock, made once
}

// kmBlock is the number of points of one block of the assignment: large
// enough that a block's work (about 0.1 ms at k = 8) dwarfs a goroutine's
// start, small enough that 100,000 points make 25 blocks to share out.
const kmBlock = 4096

// kmPart is one block's share of an assignment.
type kmPart struct {
	cnt     [MaxK]int
	sx, sy  [MaxK]float64
	total   float64
	changed int
}

// NewKMeans validates its inputs and starts k-means on points, each a 2-D
// point (x, y); the slice is read, not kept. k is in 1..MaxK and at most the
// number of points. The first Step is an assignment.
func NewKMeans(points [][]float64, k int, rng *rand.Rand) (*KMeans, error) {
	if k < 1 || k > MaxK {
		return nil, algo.BadParam("k", k, fmt.Sprintf("in 1..%d", MaxK))
	}
	if rng == nil {
		return nil, algo.BadParam("rng", "nil", "a non-nil *rand.Rand")
	}
	n := len(points)
	if n < 1 {
		return nil, algo.BadParam("data", "0 points", "at least 1 point")
	}
	if k > n {
		return nil, algo.BadParam("k", k, fmt.Sprintf("at most the number of points, %d", n))
	}
	m := newKMeans(make([]float64, n), make([]float64, n), k)
	for i, p := range points {
		if len(p) != 2 {
			return nil, algo.BadParam("data", fmt.Sprintf("point %d has %d coordinates", i+1, len(p)), "2-D points (x, y)")
		}
		if !algo.Finite(p[0]) || !algo.Finite(p[1]) {
			return nil, algo.BadParam("data", fmt.Sprintf("point %d is (%v, %v)", i+1, p[0], p[1]), "finite numbers")
		}
		m.x[i], m.y[i] = p[0], p[1]
	}
	d2 := make([]float64, n)
	plusPlus(m.x, m.y, k, rng, d2, m.cx, m.cy)
	return m, nil
}

// newKMeans is a k-means on the points (x[i], y[i]), which it keeps, with
// no point assigned and every centre at the origin.
func newKMeans(x, y []float64, k int) *KMeans {
	n := len(x)
	m := &KMeans{n: n, k: k, x: x, y: y, cx: make([]float64, k), cy: make([]float64, k), assign: make([]int, n),
		j: inf, parts: make([]kmPart, par.Blocks(n, kmBlock)), workers: 1}
	m.assignFn = m.assignBlock
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
	var cnt [MaxK]int
	var sx, sy [MaxK]float64
	changed, total := 0, 0.0
	for b := range m.parts {
		p := &m.parts[b]
		changed += p.changed
		total += p.total
		for j := 0; j < m.k; j++ {
			cnt[j] += p.cnt[j]
			sx[j] += p.sx[j]
			sy[j] += p.sy[j]
		}
	}
	if changed == 0 && m.half > 0 {
		return false
	}
	m.changed, m.cnt, m.sx, m.sy, m.j = changed, cnt, sx, sy, total
	return true
}

// assignBlock assigns the points of block b to their nearest centres and
// writes the block's counts, sums about the centres and J into its slot.
func (m *KMeans) assignBlock(b int) {
	lo := b * kmBlock
	hi := min(lo+kmBlock, m.n)
	var cx, cy [MaxK]float64
	copy(cx[:], m.cx)
	copy(cy[:], m.cy)
	var p kmPart
	xs, ys, as := m.x[lo:hi], m.y[lo:hi], m.assign[lo:hi]
	ys, as = ys[:len(xs)], as[:len(xs)]
	ccx, ccy := cx[:m.k], cy[:m.k]
	ccy = ccy[:len(ccx)]
	for i, xi := range xs {
		yi := ys[i]
		key := int64(math.MaxInt64)
		for j, c := range ccx {
			dx, dy := xi-c, yi-ccy[j]
			// key = min(key, k) by arithmetic: the compiler would make a
			// branch of min (a loop-carried value), mispredicted about one
			// time in three, which costs more than all the rest.
			d := int64(math.Float64bits(dx*dx+dy*dy)&^15|uint64(j)) - key
			key += d & (d >> 63)
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
	m.parts[b] = p
}

// updateStep applies eq (2.4) from the sums of the last assignment.
func (m *KMeans) updateStep() {
	moved := 0.0
	for j := 0; j < m.k; j++ {
		c := m.cnt[j]
		if c == 0 {
			continue // empty: keep the centre (see KMeans)
		}
		dx, dy := m.sx[j]/float64(c), m.sy[j]/float64(c)
		m.cx[j] += dx
		m.cy[j] += dy
		moved += float64(c) * (dx*dx + dy*dy)
	}
	m.moved = moved
	m.j = max(m.j-moved, 0)
}

// N is the number of points; K the number of clusters.
func (m *KMeans) N() int { return m.n }

// K is the number of clusters.
func (m *KMeans) K() int { return m.k }

// X returns the points' first coordinates (a view: do not modify).
func (m *KMeans) X() []float64 { return m.x }

// Y returns the points' second coordinates (a view: do not modify).
func (m *KMeans) Y() []float64 { return m.y }

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

// Center returns centre j.
func (m *KMeans) Center(j int) [2]float64 { return [2]float64{m.cx[j], m.cy[j]} }

// Centers returns the centres (a fresh slice).
func (m *KMeans) Centers() [][2]float64 {
	out := make([][2]float64, m.k)
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
