package ad

import "github.com/thelab/lab/algo"

// NaiveBackprop is a deliberately WRONG reverse mode, kept for teaching: it
// writes into grad (len = number of inputs) what a first attempt at
// recursive backpropagation computes for output j, so a pane can show the
// wrong number next to Backward's right one.
//
// It visits the graph depth-first from the output. Each visit adds the
// incoming contribution to the node's adjoint — then passes the node's
// running total (not the contribution it just received) on to the node's
// arguments. A node reached along one path only is right; a node reached
// along several paths (fan-out, §1.4) re-sends what it had already sent,
// so everything below it is counted more than once. Reverse mode avoids
// this by finishing a node's adjoint (all its contributions summed with
// +=, eq 1.11) before passing it on, which processing nodes in reverse
// topological order guarantees (Backward).
//
// On x + x² both paths end at the leaf x and the answer is right (7 at
// x = 3); on u + sin(u) with u = x·y the inner node u has two parents and
// ∂f/∂x comes out as y(2 + cos u) instead of y(1 + cos u). The visit
// count is exponential in the depth of nested fan-outs; graphs over
// MaxNaiveVisits visits are refused with a *algo.ParamError.
func NaiveBackprop(g *Graph, grad []float64, j int) error {
	if err := g.Forward(); err != nil {
		return err
	}
	if len(grad) != len(g.inputs) {
		return algo.BadParam("grad", len(grad), "one entry per input")
	}
	if j < 0 || j >= len(g.outputs) {
		return algo.BadParam("output", j, "an output index")
	}
	adj := make([]float64, len(g.nodes))
	visits := 0
	var visit func(i int, contrib float64) bool
	visit = func(i int, contrib float64) bool {
		if visits++; visits > MaxNaiveVisits {
			return false
		}
		adj[i] += contrib
		n := &g.nodes[i]
		a, k := n.args()
		for s := range k {
			if !visit(a[s], adj[i]*n.D1[s]) { // the bug: adj[i], not contrib
				return false
			}
		}
		return true
	}
	if !visit(g.outputs[j], 1) {
		return algo.BadParam("nodes", len(g.nodes), "a graph whose naive recursion takes at most MaxNaiveVisits visits")
	}
	for k, id := range g.inputs {
		grad[k] = adj[id]
	}
	return nil
}

// MaxNaiveVisits bounds NaiveBackprop's recursion.
const MaxNaiveVisits = 1 << 20
