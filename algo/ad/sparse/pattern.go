package sparse

import (
	"fmt"
	"slices"

	"github.com/thelab/lab/algo"
	"gonum.org/v1/gonum/mat"
)

// Pattern is the structural sparsity pattern of an m×n matrix: Rows[i]
// lists, ascending, the columns j where entry (i, j) may be non-zero ("the
// sparsity pattern of the Jacobian matrix is assumed to be known", §1.9).
type Pattern struct {
	M, N int
	Rows [][]int
}

// NewPattern validates and copies rows (one list per row, columns in
// 0..n−1; order and repeats do not matter).
func NewPattern(m, n int, rows [][]int) (*Pattern, error) {
	if m < 1 || n < 1 || m > MaxVertices || n > MaxVertices {
		return nil, algo.BadParam("pattern", fmt.Sprintf("%d×%d", m, n), fmt.Sprintf("between 1×1 and %d×%d", MaxVertices, MaxVertices))
	}
	if len(rows) != m {
		return nil, algo.BadParam("rows", len(rows), fmt.Sprintf("%d lists", m))
	}
	p := &Pattern{M: m, N: n, Rows: make([][]int, m)}
	for i, r := range rows {
		for _, j := range r {
			if j < 0 || j >= n {
				return nil, algo.BadParam(fmt.Sprintf("row %d", i), j, fmt.Sprintf("columns in 0..%d", n-1))
			}
		}
		p.Rows[i] = slices.Compact(slices.Sorted(slices.Values(r)))
	}
	return p, nil
}

// Has reports whether (i, j) is in the pattern.
func (p *Pattern) Has(i, j int) bool {
	_, ok := slices.BinarySearch(p.Rows[i], j)
	return ok
}

// NNZ is the number of entries in the pattern.
func (p *Pattern) NNZ() int {
	k := 0
	for _, r := range p.Rows {
		k += len(r)
	}
	return k
}

// ColumnGraph is the column-intersection graph (§1.9.1, the first model):
// columns j and k are joined when some row has entries in both. Its
// distance-1 colourings are exactly the distance-2 colourings of the
// columns in the bipartite row/column graph (the second model, L691), and
// each colour class is a group of columns one JVP can carry.
func (p *Pattern) ColumnGraph() *Graph {
	g := &Graph{adj: make([][]int, p.N)}
	for _, r := range p.Rows {
		for _, j := range r {
			for _, k := range r {
				if j != k {
					g.adj[j] = append(g.adj[j], k)
				}
			}
		}
	}
	for v := range g.adj {
		g.adj[v] = slices.Compact(slices.Sorted(slices.Values(g.adj[v])))
	}
	return g
}

// RowGraph is the row-intersection graph: rows joined when they share a
// column; its colour classes are groups of rows one VJP can carry.
func (p *Pattern) RowGraph() *Graph {
	return p.transpose().ColumnGraph()
}

func (p *Pattern) transpose() *Pattern {
	t := &Pattern{M: p.N, N: p.M, Rows: make([][]int, p.N)}
	for i, r := range p.Rows {
		for _, j := range r {
			t.Rows[j] = append(t.Rows[j], i)
		}
	}
	return t
}

// AdjacencyGraph is the graph of a symmetric pattern (a Hessian's): i ~ j
// for every off-diagonal entry. The pattern must be square and symmetric.
func (p *Pattern) AdjacencyGraph() (*Graph, error) {
	if p.M != p.N {
		return nil, algo.BadParam("pattern", fmt.Sprintf("%d×%d", p.M, p.N), "square")
	}
	var es [][2]int
	for i, r := range p.Rows {
		for _, j := range r {
			if !p.Has(j, i) {
				return nil, algo.BadParam("pattern", fmt.Sprintf("(%d, %d) without (%d, %d)", i, j, j, i), "symmetric")
			}
			if i < j {
				es = append(es, [2]int{i, j})
			}
		}
	}
	return NewGraph(p.N, es)
}

// Seeds is the n×k seed matrix S of a column colouring with k colours:
// S_jc = 1 when column j has colour c (the v₁, v₂ of eq 1.57). J·S has one
// column per colour: one JVP each.
func Seeds(colors []int) *mat.Dense {
	k := numColors(colors)
	S := mat.NewDense(len(colors), max(k, 1), nil)
	for j, c := range colors {
		S.Set(j, c, 1)
	}
	return S
}

func numColors(colors []int) int {
	k := 0
	for _, c := range colors {
		k = max(k, c+1)
	}
	return k
}

// Decompress puts the compressed product B = J·S (m×k) back into an m×n
// matrix (§1.9, "decompression"): J_ij = B_{i, colors[j]} for every (i, j)
// in the pattern, which is exact when no two columns of one colour share a
// row (a distance-1 colouring of ColumnGraph). A colouring that is not
// gives an error naming the clash.
func Decompress(p *Pattern, colors []int, B mat.Matrix) (*mat.Dense, error) {
	if err := checkColumnColoring(p, colors, B); err != nil {
		return nil, err
	}
	J := mat.NewDense(p.M, p.N, nil)
	for i, r := range p.Rows {
		for _, j := range r {
			J.Set(i, j, B.At(i, colors[j]))
		}
	}
	return J, nil
}

// DecompressRows is Decompress for a row colouring: C = Sᵀ·J (k×n, one VJP
// per colour), J_ij = C_{colors[i], j}.
func DecompressRows(p *Pattern, colors []int, C mat.Matrix) (*mat.Dense, error) {
	J, err := Decompress(p.transpose(), colors, C.T())
	if err != nil {
		return nil, err
	}
	return mat.DenseCopyOf(J.T()), nil
}

func checkColumnColoring(p *Pattern, colors []int, B mat.Matrix) error {
	if len(colors) != p.N {
		return algo.BadParam("colors", len(colors), fmt.Sprintf("one per column (%d)", p.N))
	}
	k := numColors(colors)
	if r, c := B.Dims(); r != p.M || c < k {
		return algo.BadParam("B", fmt.Sprintf("%d×%d", r, c), fmt.Sprintf("%d×%d (rows × colours)", p.M, k))
	}
	for i, r := range p.Rows {
		seen := map[int]int{}
		for _, j := range r {
			if colors[j] < 0 {
				return algo.BadParam("colors", colors[j], "every column coloured (≥ 0)")
			}
			if k, dup := seen[colors[j]]; dup {
				return fmt.Errorf("columns %d and %d share row %d and colour %d: not a valid column colouring", k, j, i, colors[j])
			}
			seen[colors[j]] = j
		}
	}
	return nil
}
