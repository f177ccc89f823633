package ad

import (
	"fmt"
	"unsafe"

	"github.com/thelab/lab/algo"
)

// MaxNodes is the largest graph the package builds: a larger one is refused
// with a *algo.ParamError naming "nodes".
const MaxNodes = 1 << 20

// Node is one vertex of the computational graph (seed 000 §1.4.1, Figure
// 1.3): an operation, its arguments (indices of earlier nodes, −1 when
// absent), and what the sweeps last wrote — the primal Value s_k, the
// forward Tangent t_k (eq 1.4), the reverse Adjoint r_k = ∂f/∂s_k (eq 1.5)
// — with the Local derivatives at the current values.
type Node struct {
	Op   Op
	A, B int     // arguments; −1 when the operation has fewer
	Name string  // an input's variable name, a constant's source text, a defined name (Parse), or ""
	Val  float64 // a leaf's value (an input's current value or a constant)

	// Start and End are the node's byte span in the parsed source
	// (End exclusive), or −1 for a graph built by hand.
	Start, End int

	// Live depends on an input: false for constants and arithmetic on
	// constants only.
	Live bool

	Value, Tangent, Adjoint float64
	Local
}

// EvalError reports the node whose operation is undefined at the current
// values: a division by zero, the log of a non-positive number, an
// overflow. Node is its index; Start and End its span in the parsed source
// (−1 for a graph built by hand).
type EvalError struct {
	Node       int
	Op         Op
	Start, End int
	Reason     string
}

func (e *EvalError) Error() string {
	if e.Start >= 0 {
		return fmt.Sprintf("node %d (%v, bytes %d–%d): %s", e.Node, e.Op, e.Start, e.End, e.Reason)
	}
	return fmt.Sprintf("node %d (%v): %s", e.Node, e.Op, e.Reason)
}

// Graph is a DAG of elementary operations in topological order: every node's
// arguments come before it, so the creation order is an evaluation order
// and its reverse a valid order for the adjoints.
//
// Build it with Input, Const and the operation methods (each returns the new
// node's index), or with Parse. A builder call with a bad argument records
// the first error, returns −1 and leaves the graph unchanged; Err reports
// it, and every evaluation refuses to run while it is set.
//
// Forward evaluates values and local derivatives; JVP fills tangents
// (forward mode, dual numbers); Backward fills adjoints (reverse mode).
// Sweep steps either mode one node at a time. A Graph is not safe for
// concurrent use.
type Graph struct {
	nodes   []Node
	inputs  []int
	outputs []int
	err     error
	fresh   bool // values and locals match the current inputs
}

// GraphFootprint is the bytes a graph of that many nodes holds: its
// nodes, in a slice grown by appending (by up to a quarter beyond).
func GraphFootprint(nodes int) int64 { return int64(unsafe.Sizeof(Node{})) * int64(nodes) * 5 / 4 }

// NewGraph returns an empty graph.
func NewGraph() *Graph { return &Graph{} }

// Err is the first error met while building the graph, or nil.
func (g *Graph) Err() error { return g.err }

// Len is the number of nodes.
func (g *Graph) Len() int { return len(g.nodes) }

// Node returns node i (a copy). i must be in 0..Len()−1.
func (g *Graph) Node(i int) Node { return g.nodes[i] }

// Inputs lists the input nodes in creation order: the variables x_1..x_n
// of every Jacobian and Hessian. The slice must not be modified.
func (g *Graph) Inputs() []int { return g.inputs }

// Outputs lists the output nodes (the f_1..f_m). The slice must not be
// modified.
func (g *Graph) Outputs() []int { return g.outputs }

// Ops counts the nodes that are operations (not inputs or constants): the
// K of the notes' cost tables (seed 000 §1.7.6).
func (g *Graph) Ops() int {
	k := 0
	for i := range g.nodes {
		if g.nodes[i].Op.Arity() > 0 {
			k++
		}
	}
	return k
}

func (g *Graph) fail(err error) int {
	if g.err == nil {
		g.err = err
	}
	return -1
}

func (g *Graph) push(n Node) int {
	if g.err != nil {
		return -1
	}
	if len(g.nodes) >= MaxNodes {
		return g.fail(algo.BadParam("nodes", len(g.nodes)+1, fmt.Sprintf("at most %d", MaxNodes)))
	}
	g.nodes = append(g.nodes, n)
	g.fresh = false
	return len(g.nodes) - 1
}

// Input adds a variable with its current value.
func (g *Graph) Input(name string, value float64) int {
	if !finite(value) {
		return g.fail(algo.BadParam(name, value, "a finite number"))
	}
	i := g.push(Node{Op: Input, A: -1, B: -1, Name: name, Val: value, Start: -1, End: -1, Live: true})
	if i >= 0 {
		g.inputs = append(g.inputs, i)
	}
	return i
}

// Const adds a constant.
func (g *Graph) Const(value float64) int {
	if !finite(value) {
		return g.fail(algo.BadParam("constant", value, "a finite number"))
	}
	return g.push(Node{Op: Const, A: -1, B: -1, Val: value, Start: -1, End: -1})
}

// Apply adds the operation op on the earlier nodes a and b (b is ignored,
// and may be −1, for a one-argument operation).
func (g *Graph) Apply(op Op, a, b int) int {
	ar := op.Arity()
	if ar < 1 {
		return g.fail(algo.BadParam("op", op, "an operation (not an input or a constant)"))
	}
	args := [2]int{a, b}
	for s, x := range args[:ar] {
		if x < 0 || x >= len(g.nodes) {
			return g.fail(algo.BadParam(fmt.Sprintf("argument %d of %v", s+1, op), x,
				fmt.Sprintf("an existing node in 0..%d", len(g.nodes)-1)))
		}
	}
	if ar == 1 {
		b = -1
	}
	live := g.nodes[a].Live || (b >= 0 && g.nodes[b].Live)
	return g.push(Node{Op: op, A: a, B: b, Start: -1, End: -1, Live: live})
}

// Add is a + b.
func (g *Graph) Add(a, b int) int { return g.Apply(Add, a, b) }

// Sub is a − b.
func (g *Graph) Sub(a, b int) int { return g.Apply(Sub, a, b) }

// Mul is a · b.
func (g *Graph) Mul(a, b int) int { return g.Apply(Mul, a, b) }

// Div is a / b.
func (g *Graph) Div(a, b int) int { return g.Apply(Div, a, b) }

// Pow is a ^ b.
func (g *Graph) Pow(a, b int) int { return g.Apply(Pow, a, b) }

// Unary applies a one-argument operation (Neg, Exp, Log, Sin, Cos, Tanh,
// Sigmoid, Relu, Abs, Sqrt).
func (g *Graph) Unary(op Op, a int) int {
	if op.Arity() != 1 {
		return g.fail(algo.BadParam("op", op, "a one-argument operation"))
	}
	return g.Apply(op, a, -1)
}

// SetOutputs names the outputs f_1..f_m (at least one).
func (g *Graph) SetOutputs(ids ...int) error {
	if g.err != nil {
		return g.err
	}
	if len(ids) == 0 {
		return algo.BadParam("outputs", 0, "at least one node")
	}
	for _, id := range ids {
		if id < 0 || id >= len(g.nodes) {
			return algo.BadParam("output", id, fmt.Sprintf("a node in 0..%d", len(g.nodes)-1))
		}
	}
	g.outputs = append(g.outputs[:0], ids...)
	return nil
}

// SetInput sets input number i (an index into Inputs) to v.
func (g *Graph) SetInput(i int, v float64) error {
	if i < 0 || i >= len(g.inputs) {
		return algo.BadParam("input", i, fmt.Sprintf("in 0..%d", len(g.inputs)-1))
	}
	n := &g.nodes[g.inputs[i]]
	if !finite(v) {
		return algo.BadParam(n.Name, v, "a finite number")
	}
	n.Val = v
	g.fresh = false
	return nil
}

// SetInputs sets every input, in the order of Inputs.
func (g *Graph) SetInputs(x []float64) error {
	if len(x) != len(g.inputs) {
		return algo.BadParam("inputs", len(x), fmt.Sprintf("exactly %d values", len(g.inputs)))
	}
	for i, v := range x {
		if err := g.SetInput(i, v); err != nil {
			return err
		}
	}
	return nil
}

// InputValues writes the inputs' current values into x (len = number of
// inputs) and returns it.
func (g *Graph) InputValues(x []float64) []float64 {
	for i, id := range g.inputs {
		x[i] = g.nodes[id].Val
	}
	return x
}

// Value is the value of output j after Forward.
func (g *Graph) Value(j int) float64 { return g.nodes[g.outputs[j]].Value }

func (g *Graph) ready() error {
	if g.err != nil {
		return g.err
	}
	if len(g.outputs) == 0 {
		return algo.BadParam("outputs", 0, "at least one node (SetOutputs)")
	}
	return nil
}

// eval computes node i's value and local derivatives from its arguments'
// values.
func (g *Graph) eval(i int) error {
	n := &g.nodes[i]
	switch n.Op {
	case Input, Const:
		n.Value, n.Local = n.Val, Local{V: n.Val}
		return nil
	}
	a := g.nodes[n.A].Value
	var b float64
	constExp := true
	if n.B >= 0 {
		b = g.nodes[n.B].Value
		constExp = !g.nodes[n.B].Live
	}
	l, why := local(n.Op, a, b, constExp)
	if why != "" {
		return &EvalError{Node: i, Op: n.Op, Start: n.Start, End: n.End, Reason: why}
	}
	n.Value, n.Local = l.V, l
	return nil
}

// Forward is the primal pass (a "forward pass", §1.2): every value s_k and
// local derivative, in creation order. On an EvalError the nodes before
// the failing one hold their new values.
func (g *Graph) Forward() error {
	if err := g.ready(); err != nil {
		return err
	}
	if g.fresh {
		return nil
	}
	for i := range g.nodes {
		if err := g.eval(i); err != nil {
			return err
		}
	}
	g.fresh = true
	return nil
}

// args returns node n's arguments and how many there are.
func (n *Node) args() (a [2]int, k int) {
	return [2]int{n.A, n.B}, n.Op.Arity()
}

// JVP is forward mode (§1.2, eq 1.4; §1.5.1, eq 1.13): with the inputs'
// tangents seeded from v (len = number of inputs; a one-hot v picks a
// variable), every node's tangent is t_k = Σ_s ∂f_k/∂s · t_s over its
// arguments s — parents' tangents are summed (§1.4). The outputs' tangents
// are J_f(x)·v; jv, if not nil, receives them (len = number of outputs).
func (g *Graph) JVP(jv, v []float64) error {
	if err := g.Forward(); err != nil {
		return err
	}
	if err := vecLen("v", v, len(g.inputs), false); err != nil {
		return err
	}
	if err := vecLen("jv", jv, len(g.outputs), true); err != nil {
		return err
	}
	for i := range g.nodes {
		g.nodes[i].Tangent = 0
	}
	for k, id := range g.inputs {
		g.nodes[id].Tangent = v[k]
	}
	for i := range g.nodes {
		g.tangent(i)
	}
	for j, id := range g.outputs {
		if jv != nil {
			jv[j] = g.nodes[id].Tangent
		}
	}
	return nil
}

// tangent sets node i's tangent from its arguments' (inputs keep theirs).
func (g *Graph) tangent(i int) {
	n := &g.nodes[i]
	a, k := n.args()
	if k == 0 {
		return
	}
	t := 0.0
	for s := range k {
		t += n.D1[s] * g.nodes[a[s]].Tangent
	}
	n.Tangent = t
}

// Backward is reverse mode (§1.3, eq 1.5; §1.4.2, eqs 1.10–1.12) for output
// j: every adjoint is first reset to 0 (eq 1.10), the output's set to 1,
// then in reverse creation order each node adds r_k·∂f_k/∂s to each
// argument's adjoint (+=, so a variable used twice gets both
// contributions, eq 1.11). Calling it twice gives the same adjoints.
func (g *Graph) Backward(j int) error {
	if err := g.Forward(); err != nil {
		return err
	}
	if j < 0 || j >= len(g.outputs) {
		return algo.BadParam("output", j, fmt.Sprintf("in 0..%d", len(g.outputs)-1))
	}
	for i := range g.nodes {
		g.nodes[i].Adjoint = 0
	}
	g.nodes[g.outputs[j]].Adjoint = 1
	g.reverse()
	return nil
}

func (g *Graph) reverse() {
	for i := len(g.nodes) - 1; i >= 0; i-- {
		g.adjoint(i)
	}
}

// VJP is reverse mode seeded with uᵀ on the outputs (§1.5.2, eq 1.14): the
// inputs' adjoints become uᵀJ_f(x), written into g if not nil (len =
// number of inputs).
func (g *Graph) VJP(uJ, u []float64) error {
	if err := g.Forward(); err != nil {
		return err
	}
	if err := vecLen("u", u, len(g.outputs), false); err != nil {
		return err
	}
	if err := vecLen("uJ", uJ, len(g.inputs), true); err != nil {
		return err
	}
	g.seedAdjoints(u)
	g.reverse()
	for k, id := range g.inputs {
		if uJ != nil {
			uJ[k] = g.nodes[id].Adjoint
		}
	}
	return nil
}

func (g *Graph) seedAdjoints(u []float64) {
	for i := range g.nodes {
		g.nodes[i].Adjoint = 0
	}
	for j, id := range g.outputs {
		g.nodes[id].Adjoint += u[j]
	}
}

// adjoint pushes node i's adjoint to its arguments.
func (g *Graph) adjoint(i int) {
	n := &g.nodes[i]
	a, k := n.args()
	for s := range k {
		g.nodes[a[s]].Adjoint += n.Adjoint * n.D1[s]
	}
}

// Gradient writes ∇f_j (the inputs' adjoints after Backward(j)) into grad
// (len = number of inputs).
func (g *Graph) Gradient(grad []float64, j int) error {
	if err := vecLen("grad", grad, len(g.inputs), false); err != nil {
		return err
	}
	if err := g.Backward(j); err != nil {
		return err
	}
	for k, id := range g.inputs {
		grad[k] = g.nodes[id].Adjoint
	}
	return nil
}

// Levels gives every node its depth: 0 for inputs and constants, else one
// more than its deepest argument — the column a pane draws it in, so that
// every edge points to the right.
func (g *Graph) Levels() []int {
	lv := make([]int, len(g.nodes))
	for i := range g.nodes {
		a, k := g.nodes[i].args()
		for _, x := range a[:k] {
			lv[i] = max(lv[i], lv[x]+1)
		}
	}
	return lv
}

// vecLen checks that v has n entries (or is nil, when optional).
func vecLen(name string, v []float64, n int, optional bool) error {
	if len(v) == n || optional && v == nil {
		return nil
	}
	return algo.BadParam(name, len(v), fmt.Sprintf("a vector of %d entries", n))
}
