package sparse

import (
	"fmt"

	"github.com/thelab/lab/algo"
	"gonum.org/v1/gonum/mat"
)

// checkSymmetric validates a colouring of g against the compressed
// product B = H·S (n×k) and that it is at least distance-1 (each diagonal
// entry alone in its row's colour group).
func checkSymmetric(g *Graph, colors []int, B mat.Matrix) error {
	if err := Check(g, Distance1, colors); err != nil {
		return err
	}
	k := numColors(colors)
	if r, c := B.Dims(); r != g.N() || c < k {
		return algo.BadParam("B", fmt.Sprintf("%d×%d", r, c), fmt.Sprintf("%d×%d (vertices × colours)", g.N(), k))
	}
	return nil
}

// RecoverDirect recovers a symmetric H with graph g from B = H·S (one HVP
// per colour, eq 1.67) when every entry can be read without solving:
// H_ii = B_{i,c(i)}, and for an edge (i, j), H_ij = B_{i,c(j)} when j is i's
// only neighbour of colour c(j) (else B_{j,c(i)} when i is j's only
// neighbour of colour c(i)). Star and distance-2 colourings always allow
// this (§1.9.3: "all the values can be immediately retrieved"); otherwise
// the error names an edge both of whose readings are blurred.
func RecoverDirect(g *Graph, colors []int, B mat.Matrix) (*mat.SymDense, error) {
	if err := checkSymmetric(g, colors, B); err != nil {
		return nil, err
	}
	n := g.N()
	H := mat.NewSymDense(n, nil)
	alone := func(i, j int) bool { // j is i's only neighbour of colour c(j)
		for _, w := range g.adj[i] {
			if w != j && colors[w] == colors[j] {
				return false
			}
		}
		return true
	}
	for i := range n {
		H.SetSym(i, i, B.At(i, colors[i]))
		for _, j := range g.adj[i] {
			if j < i {
				continue
			}
			switch {
			case alone(i, j):
				H.SetSym(i, j, B.At(i, colors[j]))
			case alone(j, i):
				H.SetSym(i, j, B.At(j, colors[i]))
			default:
				return nil, fmt.Errorf("entry (%d, %d) cannot be read directly: both %d and %d have other neighbours of the other's colour (not a star colouring)", i, j, i, j)
			}
		}
	}
	return H, nil
}

// Peeler recovers a symmetric H from B = H·S under an acyclic colouring by
// tree peeling (§1.9.4, L783–793), one off-diagonal entry per Step:
//
//	(H v^{(c)})_i = Σ_{j ∈ N(i), c(j) = c} H_ij   (+ H_ii when c(i) = c)   (eq 1.67)
//
// The diagonal is read at once (H_ii = B_{i,c(i)}, no neighbour shares i's
// colour). Then, with R the residuals of B after subtracting the entries
// already known, a vertex i with exactly one unknown neighbour j of colour
// c is a leaf of the two-coloured forest of {c(i), c}: H_ij = R_{i,c};
// subtracting it from R_{j,c(i)} removes the leaf and the tree shrinks.
// Two colours inducing a forest guarantees a leaf while entries remain; a
// two-coloured cycle leaves coupled equations and Step reports it.
type Peeler struct {
	g      *Graph
	colors []int
	R      *mat.Dense // residuals, n×k
	H      *mat.SymDense
	cnt    [][]int // unknown neighbours of each vertex, by colour
	known  map[[2]int]bool
	left   int
	last   [2]int
}

// NewPeeler reads the diagonal and prepares the residuals. colors must be
// at least a distance-1 colouring of g and B the n×k product H·S.
func NewPeeler(g *Graph, colors []int, B mat.Matrix) (*Peeler, error) {
	if err := checkSymmetric(g, colors, B); err != nil {
		return nil, err
	}
	n, k := g.N(), numColors(colors)
	p := &Peeler{g: g, colors: colors, R: mat.NewDense(n, k, nil), H: mat.NewSymDense(n, nil),
		cnt: make([][]int, n), known: map[[2]int]bool{}, last: [2]int{-1, -1}}
	for i := range n {
		for c := range k {
			p.R.Set(i, c, B.At(i, c))
		}
		d := B.At(i, colors[i])
		p.H.SetSym(i, i, d)
		p.R.Set(i, colors[i], 0)
		p.cnt[i] = make([]int, k)
		for _, j := range g.adj[i] {
			p.cnt[i][colors[j]]++
			if i < j {
				p.left++
			}
		}
	}
	return p, nil
}

// Left is the number of off-diagonal entries (pairs) still unknown.
func (p *Peeler) Left() int { return p.left }

// Done reports whether H is complete.
func (p *Peeler) Done() bool { return p.left == 0 }

// Last is the entry (i, j) revealed by the last Step, i the peeled leaf;
// (−1, −1) before the first.
func (p *Peeler) Last() (i, j int) { return p.last[0], p.last[1] }

// Known reports whether H_ij is recovered (the diagonal always is).
func (p *Peeler) Known(i, j int) bool {
	if i == j {
		return true
	}
	return p.known[[2]int{min(i, j), max(i, j)}]
}

// Step peels one leaf: the smallest i (then colour) with exactly one
// unknown neighbour of some colour. It returns algo.ErrConverged when H is
// complete, or an error naming the stuck vertices when the remaining
// equations form a cycle (the colouring is not acyclic).
func (p *Peeler) Step() error {
	if p.Done() {
		return algo.ErrConverged
	}
	n := p.g.N()
	for i := range n {
		for c, m := range p.cnt[i] {
			if m != 1 {
				continue
			}
			for _, j := range p.g.adj[i] {
				if p.colors[j] != c || p.Known(i, j) {
					continue
				}
				h := p.R.At(i, c)
				p.H.SetSym(i, j, h)
				p.known[[2]int{min(i, j), max(i, j)}] = true
				p.R.Set(i, c, 0)
				ci := p.colors[i]
				p.R.Set(j, ci, p.R.At(j, ci)-h)
				p.cnt[i][c]--
				p.cnt[j][ci]--
				p.left--
				p.last = [2]int{i, j}
				return nil
			}
		}
	}
	var stuck []int
	for i := range n {
		for _, m := range p.cnt[i] {
			if m > 0 {
				stuck = append(stuck, i)
				break
			}
		}
	}
	return fmt.Errorf("no leaf left: the %d unknown entries among vertices %v are coupled in a cycle (not an acyclic colouring)", p.left, stuck)
}

// Run peels to the end and returns H.
func (p *Peeler) Run() (*mat.SymDense, error) {
	for !p.Done() {
		if err := p.Step(); err != nil {
			return nil, err
		}
	}
	return p.H, nil
}
