// Package lp solves the Kantorovich problem exactly (seed 002 §5.3–5.4,
// Algorithm 4, L2234–2252): min ⟨C, P⟩ over the transport polytope
// Π(μ, ν) = {P ≥ 0 : P1 = μ, Pᵀ1 = ν} (eq 5.5–5.6), a linear programme
// whose optimum sits at a vertex, so the optimal plan has at most
// n + m − 1 nonzero entries (L2222). Two solvers: the transportation
// simplex, stepped pivot by pivot, and gonum's general simplex as a
// reference.
package lp

import (
	"fmt"
	"math"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/ot"
)

// Cell is an entry (I, J) of a plan: source I, target J.
type Cell struct{ I, J int }

// Pivot records what a Step of the Simplex did.
type Pivot struct {
	// Enter is the cell that entered the basis, with its reduced cost
	// C_ij − u_i − v_j < 0 before the pivot.
	Enter   Cell
	Reduced float64
	// Cycle is the unique cycle that Enter closes in the basis tree:
	// Cycle[0] = Enter, then cells alternately losing and gaining θ
	// (Cycle[1], Cycle[3], … lose it). It is valid until the next Step.
	Cycle []Cell
	// Leave is the cell that left the basis: the losing cell of least
	// flow (the least index among ties), and Theta that flow, the mass
	// moved round the cycle. A degenerate pivot moves θ = 0: the basis
	// changes, the plan and its cost do not.
	Leave      Cell
	Theta      float64
	Degenerate bool
}

// Simplex is the transportation simplex (the "MODI" or u–v method; not in
// the notes, which call a generic LP solver, Remark 5.5): a walk along the
// edges of Π(μ, ν) from vertex to vertex, one pivot per Step.
//
//   - Start: the north-west corner rule fills the plan along a staircase
//     from (0, 0) to (n−1, m−1), each cell taking as much as its row and
//     column still allow. Its n + m − 1 cells (some perhaps with flow 0)
//     are the basis: a spanning tree of the bipartite graph of rows and
//     columns.
//   - Potentials: u_i + v_j = C_ij on the basis cells, with u_0 = 0,
//     solved down the tree.
//   - Pricing: the reduced cost r_ij = C_ij − u_i − v_j of every other
//     cell. If all are ≥ −tol the plan is optimal (u, v are then a
//     feasible dual: u_i + v_j ≤ C_ij, and Σμu + Σνv = ⟨C, P⟩). Otherwise
//     the cell of most negative r enters (Dantzig's rule).
//   - Pivot: the entering cell closes one cycle in the tree; moving θ
//     round it (+ on the entering cell, then −, +, … alternately) keeps
//     the marginals, and θ is the least flow on a − cell, which leaves
//     the basis. The cost falls by θ·|r|.
//
// Degeneracy: zero-flow basis cells are kept, so the basis always has
// n + m − 1 cells, and a pivot may move θ = 0. Such pivots could cycle;
// after n + m degenerate pivots in a row the entering cell is chosen by
// Bland's rule (the first cell in row-major order with r < −tol) until a
// pivot moves mass again, and ties for leaving always go to the least cell
// index, which rules cycling out.
//
// A Step costs O(nm) for the pricing plus O(n + m) for the tree and does
// not allocate. The cost matrix is kept, not copied: do not modify it.
type Simplex struct {
	n, m   int
	c      []float64 // C, n×m row-major (the caller's)
	mu, nu []float64
	tol    float64 // reduced costs above −tol count as ≥ 0

	x      []float64 // the plan
	in     []bool    // basis membership, n×m
	basis  []int     // the n + m − 1 basis cells, as row-major indices
	u, v   []float64 // potentials
	cost   float64
	enter  int     // the cell to enter next, −1 when optimal
	minRed float64 // its reduced cost (the least at this basis)

	// The basis tree: nodes 0..n−1 are rows, n..n+m−1 columns; edge 2s
	// and 2s+1 are the two directions of basis slot s.
	head, next []int32
	parent     []int32 // the slot joining a node to its parent, −1 at the root
	depth      []int32
	queue      []int32
	sa, sb     []int32 // scratch: the two halves of the cycle, as slots
	cycle      []Cell

	last       Pivot
	pivots     int
	degenerate int
	degRun     int
	blandAfter int // the run of degenerate pivots that brings in Bland's rule: n + m
	bland      bool
}

// Footprint is the bytes New allocates for n source and m target atoms:
// the plan and the basis membership (9 bytes a cell) and, per atom, the
// marginals, the potentials, the basis and its tree (about 80 bytes). The
// cost C is the caller's.
func Footprint(n, m int) int64 {
	return 9*int64(n)*int64(m) + 80*int64(n+m)
}

// New validates μ (n), ν (m) and an n×m cost (row-major) as ot.Validate
// does, and builds the north-west corner
// vertex, its potentials and the first entering cell.
func New(mu, nu, c []float64) (*Simplex, error) {
	a, b, err := ot.Validate(mu, nu, c)
	if err != nil {
		return nil, err
	}
	n, m := len(a), len(b)
	scale := 0.0
	for _, v := range c {
		scale = math.Max(scale, math.Abs(v))
	}
	if scale == 0 {
		scale = 1
	}
	nodes := n + m
	s := &Simplex{n: n, m: m, c: c, mu: a, nu: b, tol: 1e-11 * scale, blandAfter: n + m,
		x: make([]float64, n*m), in: make([]bool, n*m), basis: make([]int, 0, nodes-1),
		u: make([]float64, n), v: make([]float64, m),
		head: make([]int32, nodes), next: make([]int32, 2*(nodes-1)),
		parent: make([]int32, nodes), depth: make([]int32, nodes), queue: make([]int32, 0, nodes),
		sa: make([]int32, 0, nodes), sb: make([]int32, 0, nodes), cycle: make([]Cell, 0, nodes+1)}
	s.northWest()
	s.potentials()
	s.price()
	return s, nil
}

// northWest fills the staircase from (0, 0) to (n−1, m−1): each cell takes
// the least of what its row and its column still need, then the walk moves
// down if the row is exhausted (or this is the last column) and right
// otherwise. When row and column run out together the next cell gets a
// zero flow: a degenerate vertex, but the basis keeps n + m − 1 cells.
func (s *Simplex) northWest() {
	sup := append([]float64(nil), s.mu...)
	dem := append([]float64(nil), s.nu...)
	i, j := 0, 0
	for {
		k := i*s.m + j
		f := math.Min(sup[i], dem[j])
		s.x[k], s.in[k] = f, true
		s.basis = append(s.basis, k)
		sup[i] -= f
		dem[j] -= f
		switch {
		case i == s.n-1 && j == s.m-1:
			s.cost = ot.PlanCost(s.c, s.x)
			return
		case j == s.m-1 || (i < s.n-1 && sup[i] <= dem[j]):
			i++
		default:
			j++
		}
	}
}

// potentials rebuilds the adjacency of the basis tree and walks it breadth-first
// from row 0, setting the potentials, parents and depths.
func (s *Simplex) potentials() {
	for a := range s.head {
		s.head[a] = -1
	}
	for slot, k := range s.basis {
		i, j := k/s.m, k%s.m
		s.next[2*slot], s.head[i] = s.head[i], int32(2*slot)
		s.next[2*slot+1], s.head[s.n+j] = s.head[s.n+j], int32(2*slot+1)
	}
	for a := range s.parent {
		s.parent[a] = -2 // not reached
	}
	s.parent[0], s.depth[0], s.u[0] = -1, 0, 0
	s.queue = append(s.queue[:0], 0)
	for q := 0; q < len(s.queue); q++ {
		a := s.queue[q]
		for e := s.head[a]; e >= 0; e = s.next[e] {
			slot := int(e / 2)
			k := s.basis[slot]
			i, j := k/s.m, k%s.m
			b := int32(i) // the other end of the edge
			if e%2 == 0 {
				b = int32(s.n + j)
			}
			if s.parent[b] != -2 {
				continue
			}
			s.parent[b], s.depth[b] = int32(slot), s.depth[a]+1
			if b < int32(s.n) {
				s.u[i] = s.c[k] - s.v[j]
			} else {
				s.v[j] = s.c[k] - s.u[i]
			}
			s.queue = append(s.queue, b)
		}
	}
}

// price finds the entering cell: the least reduced cost (Dantzig), or
// under Bland's rule the first negative one; enter is −1 when none is
// below −tol.
func (s *Simplex) price() {
	s.enter, s.minRed = -1, 0
	for i := range s.n {
		ui := s.u[i]
		row := s.c[i*s.m : (i+1)*s.m]
		for j, c := range row {
			r := c - ui - s.v[j]
			if r < s.minRed && r < -s.tol && !s.in[i*s.m+j] {
				s.enter, s.minRed = i*s.m+j, r
				if s.bland {
					return
				}
			}
		}
	}
}

// Step makes one pivot. It returns algo.ErrConverged once the plan is
// optimal (after the pivot that made it so, or at once if the north-west
// corner already is).
func (s *Simplex) Step() error {
	if s.enter < 0 {
		return algo.ErrConverged
	}
	s.pivot(s.enter)
	s.potentials()
	s.price()
	if !algo.Finite(s.cost) {
		return algo.Diverged("⟨C, P⟩ = %g after pivot %d", s.cost, s.pivots)
	}
	if s.enter < 0 {
		return algo.ErrConverged
	}
	return nil
}

func (s *Simplex) cell(k int) Cell { return Cell{k / s.m, k % s.m} }

// pivot moves θ round the cycle that cell k closes.
func (s *Simplex) pivot(k int) {
	// The tree path from column je up to the common ancestor (sb), and
	// from row ie up to it (sa): the cycle is the entering cell, sb in
	// order, then sa reversed.
	a, b := int32(k/s.m), int32(s.n+k%s.m)
	sa, sb := s.sa[:0], s.sb[:0]
	for s.depth[b] > s.depth[a] {
		sb = append(sb, s.parent[b])
		b = s.otherEnd(b)
	}
	for s.depth[a] > s.depth[b] {
		sa = append(sa, s.parent[a])
		a = s.otherEnd(a)
	}
	for a != b {
		sa, sb = append(sa, s.parent[a]), append(sb, s.parent[b])
		a, b = s.otherEnd(a), s.otherEnd(b)
	}
	s.sa, s.sb = sa, sb
	s.cycle = append(s.cycle[:0], s.cell(k))
	for _, slot := range sb {
		s.cycle = append(s.cycle, s.cell(s.basis[slot]))
	}
	for p := len(sa) - 1; p >= 0; p-- {
		s.cycle = append(s.cycle, s.cell(s.basis[sa[p]]))
	}
	// Ratio test over the losing cells (odd positions).
	theta, leave := math.Inf(1), -1
	for p := 1; p < len(s.cycle); p += 2 {
		c := s.cycle[p]
		kk := c.I*s.m + c.J
		if f := s.x[kk]; f < theta || (f == theta && kk < leave) {
			theta, leave = f, kk
		}
	}
	for p, c := range s.cycle {
		kk := c.I*s.m + c.J
		if p%2 == 0 {
			s.x[kk] += theta
		} else {
			s.x[kk] = math.Max(s.x[kk]-theta, 0)
		}
	}
	s.x[leave] = 0
	s.in[leave], s.in[k] = false, true
	for slot, kk := range s.basis {
		if kk == leave {
			s.basis[slot] = k
			break
		}
	}
	s.cost += theta * s.minRed
	s.pivots++
	deg := theta == 0
	if deg {
		s.degenerate++
		s.degRun++
		if s.degRun >= s.blandAfter {
			s.bland = true
		}
	} else {
		s.degRun, s.bland = 0, false
	}
	s.last = Pivot{Enter: s.cell(k), Reduced: s.minRed, Cycle: s.cycle, Leave: s.cell(leave), Theta: theta, Degenerate: deg}
}

// otherEnd returns the parent of node a (the far end of its parent slot).
func (s *Simplex) otherEnd(a int32) int32 {
	k := s.basis[s.parent[a]]
	if a < int32(s.n) {
		return int32(s.n + k%s.m)
	}
	return int32(k / s.m)
}

// Plan is the current plan P, n×m row-major (read-only).
func (s *Simplex) Plan() []float64 { return s.x }

// Cost is ⟨C, P⟩ of the current plan.
func (s *Simplex) Cost() float64 { return s.cost }

// Potentials are the dual variables u (n) and v (m) of the current basis
// (read-only); at the optimum u_i + v_j ≤ C_ij everywhere and
// Σ μ_i u_i + Σ ν_j v_j = ⟨C, P⟩.
func (s *Simplex) Potentials() (u, v []float64) { return s.u, s.v }

// Reduced is the reduced cost C_ij − u_i − v_j of cell (i, j): 0 on the
// basis.
func (s *Simplex) Reduced(i, j int) float64 { return s.c[i*s.m+j] - s.u[i] - s.v[j] }

// Next is the cell that the next Step brings into the basis and its
// reduced cost; ok is false when the plan is optimal.
func (s *Simplex) Next() (c Cell, reduced float64, ok bool) {
	if s.enter < 0 {
		return Cell{}, 0, false
	}
	return s.cell(s.enter), s.minRed, true
}

// Basis appends the n + m − 1 basis cells to dst and returns it.
func (s *Simplex) Basis(dst []Cell) []Cell {
	for _, k := range s.basis {
		dst = append(dst, s.cell(k))
	}
	return dst
}

// Last is the last pivot (the zero Pivot before the first).
func (s *Simplex) Last() Pivot { return s.last }

// Pivots is the number of pivots made; Degenerate how many of them moved
// no mass; Bland whether the entering rule is Bland's at present.
func (s *Simplex) Pivots() int     { return s.pivots }
func (s *Simplex) Degenerate() int { return s.degenerate }
func (s *Simplex) Bland() bool     { return s.bland }

// Nonzeros is the number of entries of the plan above zero: at most
// n + m − 1, the size of the basis.
func (s *Simplex) Nonzeros() int {
	k := 0
	for _, v := range s.x {
		if v > 0 {
			k++
		}
	}
	return k
}

// Mu and Nu are the normalised marginals.
func (s *Simplex) Mu() []float64 { return s.mu }
func (s *Simplex) Nu() []float64 { return s.nu }

// String describes the last pivot, for a log line.
func (p Pivot) String() string {
	if p.Cycle == nil {
		return "north-west corner"
	}
	return fmt.Sprintf("(%d,%d) enters (r = %.4g), (%d,%d) leaves, θ = %.4g round a %d-cycle",
		p.Enter.I, p.Enter.J, p.Reduced, p.Leave.I, p.Leave.J, p.Theta, len(p.Cycle))
}
