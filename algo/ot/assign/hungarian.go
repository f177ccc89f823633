package assign

import (
	"fmt"
	"math"

	"github.com/thelab/lab/algo"
)

// MaxHungarian bounds the size of a Hungarian run.
const MaxHungarian = 2000

// Move says what a Hungarian step did.
type Move int

const (
	// None: no step yet.
	None Move = iota
	// Scan: a column joined the alternating tree of the row being
	// inserted and the potentials moved by δ.
	Scan
	// Augment: the scan reached a free column and the matching grew by
	// flipping the alternating path.
	Augment
)

func (m Move) String() string {
	return [...]string{"none", "scan", "augment"}[m]
}

// Hungarian solves the assignment problem (Example 5.2, L2091–2093: N = M
// atoms of mass 1/N, so a Monge map is a permutation σ), min Σ_i C_{iσ(i)},
// by the Hungarian algorithm in its O(N³) shortest-augmenting-path form
// (Kuhn 1955, Munkres 1957; the rows inserted one at a time as in Jonker &
// Volgenant). It keeps dual potentials with u_i + v_j ≤ C_ij for every
// pair (starting from u_i = min_j C_ij, v = 0), so Σu + Σv is a lower
// bound on the optimum throughout, and each matched pair is tight
// (u_i + v_j = C_ij). To insert a row it grows an alternating tree from it:
// each Step adds one column to the tree — the one of least reduced cost —
// after shifting the potentials of the tree by that least reduced cost δ,
// which keeps them feasible and makes the new column tight. When the
// column is free the path to it is flipped and the row is matched (the
// same Step). There are at most N(N+1)/2 steps; at the end Σu + Σv equals
// the cost of the matching (strong duality), the certificate of
// optimality. The notes name the problem only; the algorithm is the
// catalogue's optional [D].
//
// Costs are reported for the plan of masses 1/N: ⟨C, P⟩ = (1/N) Σ C_{iσ(i)}.
// A step costs O(N) and does not allocate.
type Hungarian struct {
	n int
	c []float64 // C, n×n (the caller's)
	// 1-based, index 0 a virtual column: p[j] is the row (1-based)
	// matched to column j, 0 when free; way[j] the previous column on the
	// alternating path to j; minv[j] the least reduced cost from the tree
	// to j.
	u, v    []float64
	p, way  []int
	minv    []float64
	used    []bool
	row     int // the row (1-based) being inserted, 0 between rows
	j0      int // the column last added to the tree
	done    int // rows matched
	scans   int
	last    Move
	delta   float64 // the last δ
	path    []int   // the columns (0-based) of the last augmenting path
	pathBuf []int
}

// NewHungarian validates an n×n cost (n = √len(c), 1 ≤ n ≤ MaxHungarian,
// finite entries).
func NewHungarian(c []float64) (*Hungarian, error) {
	n := int(math.Round(math.Sqrt(float64(len(c)))))
	if n < 1 || n*n != len(c) || n > MaxHungarian {
		return nil, algo.BadParam("cost", fmt.Sprintf("%d entries", len(c)), fmt.Sprintf("a square matrix of side 1..%d", MaxHungarian))
	}
	for k, v := range c {
		if !algo.Finite(v) {
			return nil, algo.BadParam("cost", fmt.Sprintf("C[%d][%d] = %g", k/n, k%n, v), "finite numbers")
		}
	}
	h := &Hungarian{n: n, c: c, u: make([]float64, n+1), v: make([]float64, n+1), p: make([]int, n+1), way: make([]int, n+1),
		minv: make([]float64, n+1), used: make([]bool, n+1), pathBuf: make([]int, 0, n)}
	for i := 1; i <= n; i++ {
		h.u[i] = math.Inf(1)
		for _, x := range c[(i-1)*n : i*n] {
			h.u[i] = math.Min(h.u[i], x)
		}
	}
	return h, nil
}

// Step adds one column to the alternating tree of the row being inserted
// (starting the next row first when none is), and augments when that
// column is free. It returns algo.ErrConverged once every row is matched.
func (h *Hungarian) Step() error {
	n := h.n
	if h.done == n {
		return algo.ErrConverged
	}
	if h.row == 0 {
		h.row = h.done + 1
		h.p[0], h.j0 = h.row, 0
		for j := range h.minv {
			h.minv[j], h.used[j] = math.Inf(1), false
		}
	}
	h.used[h.j0] = true
	i0 := h.p[h.j0]
	crow := h.c[(i0-1)*n : i0*n]
	delta, j1 := math.Inf(1), 0
	for j := 1; j <= n; j++ {
		if h.used[j] {
			continue
		}
		if cur := crow[j-1] - h.u[i0] - h.v[j]; cur < h.minv[j] {
			h.minv[j], h.way[j] = cur, h.j0
		}
		if h.minv[j] < delta {
			delta, j1 = h.minv[j], j
		}
	}
	for j := 0; j <= n; j++ {
		if h.used[j] {
			h.u[h.p[j]] += delta
			h.v[j] -= delta
		} else {
			h.minv[j] -= delta
		}
	}
	h.j0, h.delta = j1, delta
	h.scans++
	h.last = Scan
	if h.p[j1] != 0 {
		return nil
	}
	// j1 is free: flip the path back to the virtual column.
	h.path = h.pathBuf[:0]
	for j := j1; j != 0; {
		h.path = append(h.path, j-1)
		prev := h.way[j]
		h.p[j] = h.p[prev]
		j = prev
	}
	h.pathBuf = h.path
	h.done++
	h.row = 0
	h.last = Augment
	if h.done == n {
		return algo.ErrConverged
	}
	return nil
}

// Matching writes σ into dst (allocated when nil): dst[i] is the column
// matched to row i, or −1.
func (h *Hungarian) Matching(dst []int) []int {
	if cap(dst) < h.n {
		dst = make([]int, h.n)
	}
	dst = dst[:h.n]
	for i := range dst {
		dst[i] = -1
	}
	for j := 1; j <= h.n; j++ {
		if h.p[j] != 0 {
			dst[h.p[j]-1] = j - 1
		}
	}
	return dst
}

// Potentials are u (rows) and v (columns), 0-based views (read-only).
func (h *Hungarian) Potentials() (u, v []float64) { return h.u[1:], h.v[1:] }

// InTree reports whether column j (0-based) is in the alternating tree of
// the row being inserted (Reached included).
func (h *Hungarian) InTree(j int) bool { return h.row != 0 && (h.used[j+1] || h.j0 == j+1) }

// Reached is the column (0-based) that the last scan added to the tree:
// matched (its row joins the tree at the next scan) unless the scan
// augmented.
func (h *Hungarian) Reached() int { return h.j0 - 1 }

// Row is the row (0-based) being inserted, −1 between rows.
func (h *Hungarian) Row() int { return h.row - 1 }

// Last is what the last Step did, Delta its δ, and Path the columns of the
// last augmenting path (read-only, from the free column back).
func (h *Hungarian) Last() Move     { return h.last }
func (h *Hungarian) Delta() float64 { return h.delta }
func (h *Hungarian) Path() []int    { return h.path }
func (h *Hungarian) Matched() int   { return h.done }
func (h *Hungarian) Scans() int     { return h.scans }
func (h *Hungarian) Size() int      { return h.n }

// Cost is ⟨C, P⟩ of the partial matching with masses 1/N; LowerBound the
// dual value (Σu + Σv)/N, a lower bound on the optimal ⟨C, P⟩, equal to
// Cost at the end.
func (h *Hungarian) Cost() float64 {
	s := 0.0
	for j := 1; j <= h.n; j++ {
		if i := h.p[j]; i != 0 {
			s += h.c[(i-1)*h.n+j-1]
		}
	}
	return s / float64(h.n)
}

func (h *Hungarian) LowerBound() float64 {
	s := 0.0
	for k := 1; k <= h.n; k++ {
		s += h.u[k] + h.v[k]
	}
	return s / float64(h.n)
}
