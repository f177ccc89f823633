package ad

import (
	"fmt"
	"math/bits"

	"github.com/thelab/lab/algo"
)

// bitset is a set of input positions.
type bitset []uint64

func (b bitset) or(c bitset) {
	for w := range b {
		b[w] |= c[w]
	}
}

func (b bitset) list() []int {
	var out []int
	for w, word := range b {
		for word != 0 {
			out = append(out, w*64+bits.TrailingZeros64(word))
			word &= word - 1
		}
	}
	return out
}

// deps returns, for every node, the set of inputs it depends on.
func (g *Graph) deps() []bitset {
	words := (len(g.inputs) + 63) / 64
	flat := make([]uint64, len(g.nodes)*words)
	dep := make([]bitset, len(g.nodes))
	for i := range dep {
		dep[i] = flat[i*words : (i+1)*words]
	}
	for k, id := range g.inputs {
		dep[id][k/64] |= 1 << (k % 64)
	}
	for i := range g.nodes {
		a, k := g.nodes[i].args()
		for _, x := range a[:k] {
			dep[i].or(dep[x])
		}
	}
	return dep
}

// JacobianPattern is the sparsity pattern of the Jacobian found by
// propagating dependency sets through the graph: row j lists (ascending)
// the inputs that output j depends on. It is structural — an entry that
// cancels numerically (x − x) is still listed — which is what sparse
// compression needs (seed 000 §1.9: "the sparsity pattern … is assumed to
// be known").
func (g *Graph) JacobianPattern() ([][]int, error) {
	if err := g.ready(); err != nil {
		return nil, err
	}
	dep := g.deps()
	rows := make([][]int, len(g.outputs))
	for j, o := range g.outputs {
		rows[j] = dep[o].list()
	}
	return rows, nil
}

// secondOrder reports which argument-slot pairs (s, t) of op can have a
// non-zero second derivative: D2 index 0 (aa), 1 (ab), 2 (bb).
func secondOrder(op Op, liveExp bool) [3]bool {
	switch op {
	case Mul:
		return [3]bool{false, true, false}
	case Div:
		return [3]bool{false, true, true}
	case Pow:
		if liveExp {
			return [3]bool{true, true, true}
		}
		return [3]bool{true, false, false}
	case Exp, Log, Sin, Cos, Tanh, Sigmoid, Sqrt:
		return [3]bool{true, false, false}
	}
	return [3]bool{} // + − neg relu abs: locally linear
}

// HessianPattern is the structural sparsity pattern of ∇²f for output out:
// row i lists (ascending) the j with H_ij possibly non-zero. The Hessian is
// Σ_k r_k · (local second derivatives of node k contracted with its
// arguments' Jacobians), so every ancestor k of the output whose operation
// couples arguments s and t non-linearly adds every pair of inputs (one
// from each argument's dependency set).
func (g *Graph) HessianPattern(out int) ([][]int, error) {
	if err := g.ready(); err != nil {
		return nil, err
	}
	if out < 0 || out >= len(g.outputs) {
		return nil, algo.BadParam("output", out, fmt.Sprintf("in 0..%d", len(g.outputs)-1))
	}
	dep := g.deps()
	n := len(g.inputs)
	rows := make([]bitset, n)
	words := (n + 63) / 64
	for i := range rows {
		rows[i] = make(bitset, words)
	}
	anc := make([]bool, len(g.nodes))
	anc[g.outputs[out]] = true
	for k := len(g.nodes) - 1; k >= 0; k-- {
		if !anc[k] {
			continue
		}
		nd := &g.nodes[k]
		a, ar := nd.args()
		for _, x := range a[:ar] {
			anc[x] = true
		}
		if ar == 0 {
			continue
		}
		so := secondOrder(nd.Op, nd.B >= 0 && g.nodes[nd.B].Live)
		for s := range ar {
			for t := range ar {
				if !so[s+t] {
					continue
				}
				for _, i := range dep[a[s]].list() {
					rows[i].or(dep[a[t]])
				}
			}
		}
	}
	out2 := make([][]int, n)
	for i := range rows {
		out2[i] = rows[i].list()
	}
	return out2, nil
}
