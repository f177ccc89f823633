// Package sparse computes sparse Jacobians and Hessians with fewer passes
// than columns by grouping structurally orthogonal columns (seed 000 §1.9):
// sparsity patterns and their graphs, distance-1, distance-2, star and
// acyclic colourings (greedy, one vertex per Step, and exact by search for
// small graphs), compression into seed matrices, and recovery — direct
// read-out for column, distance-2 and star colourings, tree peeling for
// acyclic ones.
package sparse

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/thelab/lab/algo"
)

// MaxVertices bounds the graphs of this package (the colourings are for
// teaching-size problems).
const MaxVertices = 4096

// Graph is a simple undirected graph on vertices 0..n−1 with sorted
// adjacency lists.
type Graph struct {
	adj [][]int
}

// NewGraph builds the graph on n vertices with the given edges (pairs of
// distinct vertices; repeats are merged).
func NewGraph(n int, edges [][2]int) (*Graph, error) {
	if n < 1 || n > MaxVertices {
		return nil, algo.BadParam("vertices", n, fmt.Sprintf("in 1..%d", MaxVertices))
	}
	g := &Graph{adj: make([][]int, n)}
	for _, e := range edges {
		u, v := e[0], e[1]
		if u < 0 || v < 0 || u >= n || v >= n || u == v {
			return nil, algo.BadParam("edge", fmt.Sprint(e), fmt.Sprintf("two distinct vertices in 0..%d", n-1))
		}
		g.adj[u] = append(g.adj[u], v)
		g.adj[v] = append(g.adj[v], u)
	}
	for v := range g.adj {
		slices.Sort(g.adj[v])
		g.adj[v] = slices.Compact(g.adj[v])
	}
	return g, nil
}

// N is the number of vertices.
func (g *Graph) N() int { return len(g.adj) }

// Adj lists v's neighbours in ascending order (must not be modified).
func (g *Graph) Adj(v int) []int { return g.adj[v] }

// Edges lists every edge once, as (u, v) with u < v, in ascending order.
func (g *Graph) Edges() [][2]int {
	var es [][2]int
	for u, ns := range g.adj {
		for _, v := range ns {
			if u < v {
				es = append(es, [2]int{u, v})
			}
		}
	}
	return es
}

// Square is G²: u ~ v when their distance in G is 1 or 2. A distance-2
// colouring of G is a distance-1 colouring of G².
func (g *Graph) Square() *Graph {
	sq := &Graph{adj: make([][]int, len(g.adj))}
	for u, ns := range g.adj {
		set := append([]int(nil), ns...)
		for _, w := range ns {
			for _, x := range g.adj[w] {
				if x != u {
					set = append(set, x)
				}
			}
		}
		slices.Sort(set)
		sq.adj[u] = slices.Compact(set)
	}
	return sq
}

// PathGraph is the path 0–1–…–(n−1).
func PathGraph(n int) (*Graph, error) {
	var es [][2]int
	for i := 0; i+1 < n; i++ {
		es = append(es, [2]int{i, i + 1})
	}
	return NewGraph(n, es)
}

// CycleGraph is the cycle on n ≥ 3 vertices.
func CycleGraph(n int) (*Graph, error) {
	if n < 3 {
		return nil, algo.BadParam("vertices", n, "at least 3 for a cycle")
	}
	es := [][2]int{{n - 1, 0}}
	for i := 0; i+1 < n; i++ {
		es = append(es, [2]int{i, i + 1})
	}
	return NewGraph(n, es)
}

// StarGraph is K_{1,k}: centre 0 joined to leaves 1..k (the graph of an
// arrowhead Hessian).
func StarGraph(k int) (*Graph, error) {
	es := make([][2]int, k)
	for i := range es {
		es[i] = [2]int{0, i + 1}
	}
	return NewGraph(k+1, es)
}

// GridGraph is the r×c grid graph (the Hessian pattern of a 5-point stencil),
// vertex i·c + j at row i, column j.
func GridGraph(r, c int) (*Graph, error) {
	if r < 1 || c < 1 {
		return nil, algo.BadParam("grid", fmt.Sprintf("%d×%d", r, c), "at least 1×1")
	}
	var es [][2]int
	for i := range r {
		for j := range c {
			if j+1 < c {
				es = append(es, [2]int{i*c + j, i*c + j + 1})
			}
			if i+1 < r {
				es = append(es, [2]int{i*c + j, (i+1)*c + j})
			}
		}
	}
	return NewGraph(r*c, es)
}

// RandomGraph is the Erdős–Rényi graph G(n, p): each pair joined with
// probability p, drawn from rng.
func RandomGraph(n int, p float64, rng *rand.Rand) (*Graph, error) {
	if !(p >= 0 && p <= 1) {
		return nil, algo.BadParam("p", p, "in [0, 1]")
	}
	if rng == nil {
		return nil, algo.BadParam("rng", nil, "a random source")
	}
	var es [][2]int
	for u := range n {
		for v := u + 1; v < n; v++ {
			if rng.Float64() < p {
				es = append(es, [2]int{u, v})
			}
		}
	}
	return NewGraph(n, es)
}
