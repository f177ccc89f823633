package ad

import (
	"fmt"

	"github.com/thelab/lab/algo"
)

// Strategy is one of the four ways of composing two first-order modes into
// a Hessian (seed 000 §1.7, Tables 1.1–1.3).
type Strategy int

// The strategies. With K the number of operations (Ops) and n the number of
// inputs:
//
//	strategy  one run gives        passes per run   tape records   runs for ∇²f
//	FoF       wᵀHv (one entry)     1→               0              n²
//	FoR       Hv (one column)      1→ + 1← + 1→     K              n
//	RoF       Hw (one column)      1→ + 1←          K              n
//	RoR       Hw (one column)      1→ + 2←          2K             n
const (
	// FoF: forward on forward (§1.7.2, eqs 1.21–1.23): one hyper-dual
	// evaluation seeded with e_i on ε₁ and e_j on ε₂ gives H_ij.
	FoF Strategy = iota
	// FoR: forward on reverse (§1.7.3, eqs 1.24–1.26, the pseudo-code at
	// L321–352): a forward pass of (value | tangent along e_j), a reverse
	// pass of adjoints r, then the tangent pass over the reverse sweep,
	// ṙ_a += ṙ_k ∂_s f_k + r_k Σ_t ∂²_{st} f_k ṫ_t, gives ṙ_x = H e_j.
	FoR
	// RoF: reverse on forward (§1.7.4, eqs 1.27–1.30, L396–420): a forward
	// pass of (value | tangent along e_i), then one reverse pass carrying
	// adjoints of both parts with the local Jacobian [[J, 0], [H_i, J]]
	// (eq 1.28), seeded r̄ = 0, r̄̇ = 1 on the output, gives r̄_x = ∇⟨∇f, e_i⟩
	// = H e_i.
	RoF
	// RoR: reverse on reverse (§1.7.5, eqs 1.31–1.41): a forward pass, a
	// first reverse pass storing every adjoint r_k, then a second reverse
	// pass over the whole gradient program — its K adjoint statements
	// r_a += r_k ∂_s f_k (visited in creation order), then its K primal
	// statements (in reverse order) — seeded with e_i on the gradient,
	// gives H e_i. Its tape holds both programs: 2K records.
	RoR
)

// Strategies lists the strategies in the notes' order.
var Strategies = []Strategy{FoF, FoR, RoF, RoR}

func (s Strategy) String() string {
	switch s {
	case FoF:
		return "FoF"
	case FoR:
		return "FoR"
	case RoF:
		return "RoF"
	case RoR:
		return "RoR"
	}
	return fmt.Sprintf("Strategy(%d)", int(s))
}

// PassesPerRun is the number of sweeps over the graph in one run (Table
// 1.1).
func (s Strategy) PassesPerRun() int {
	switch s {
	case FoF:
		return 1
	case RoF:
		return 2
	}
	return 3
}

// Hessian assembles ∇²f of one output f of the graph at the current input
// values with one Strategy, one run per Step (FoF: one entry H_ij, in row
// order; the others: one column), counting runs, passes and the peak tape
// (records held for a later pass: an operation's value and local
// derivatives, or one adjoint statement).
type Hessian struct {
	g        *Graph
	s        Strategy
	out      int
	n        int
	h        []float64 // n×n, row-major
	runs     int
	passes   int
	peakTape int
	col      []int // input position of each node, −1 if not an input

	// per-node scratch: ṫ (tangent), r (adjoint), and the strategy's
	// second-order part (FoF ε₂ tangent and ε₁ε₂ part; FoR ṙ; RoF r̄ with
	// r̄̇ in r; RoR ŝ with r̂ in t)
	t, t2, r, u []float64
}

// HessianFootprint is the bytes NewHessian allocates for a graph of that
// many nodes and n inputs: H and four vectors and a column index a node.
// The graph is the caller's.
func HessianFootprint(nodes, n int) int64 { return 8*int64(n)*int64(n) + 5*8*int64(nodes) }

// NewHessian prepares the assembly for output out.
func NewHessian(g *Graph, s Strategy, out int) (*Hessian, error) {
	if err := g.Forward(); err != nil {
		return nil, err
	}
	if s < FoF || s > RoR {
		return nil, algo.BadParam("strategy", s, "FoF, FoR, RoF or RoR")
	}
	if out < 0 || out >= len(g.outputs) {
		return nil, algo.BadParam("output", out, fmt.Sprintf("in 0..%d", len(g.outputs)-1))
	}
	n := len(g.inputs)
	if n == 0 {
		return nil, algo.BadParam("inputs", 0, "at least one variable")
	}
	N := len(g.nodes)
	h := &Hessian{g: g, s: s, out: out, n: n, h: make([]float64, n*n), col: make([]int, N),
		t: make([]float64, N), t2: make([]float64, N), r: make([]float64, N), u: make([]float64, N)}
	for i := range h.col {
		h.col[i] = -1
	}
	for k, id := range g.inputs {
		h.col[id] = k
	}
	return h, nil
}

// Strategy is the strategy in use.
func (h *Hessian) Strategy() Strategy { return h.s }

// Runs is the number of runs taken.
func (h *Hessian) Runs() int { return h.runs }

// Passes is the number of sweeps over the graph so far.
func (h *Hessian) Passes() int { return h.passes }

// PeakTape is the largest number of tape records held in any run.
func (h *Hessian) PeakTape() int { return h.peakTape }

// Len is the number of runs of the whole assembly: n² for FoF, n otherwise
// (Table 1.3).
func (h *Hessian) Len() int {
	if h.s == FoF {
		return h.n * h.n
	}
	return h.n
}

// Done reports whether the Hessian is complete.
func (h *Hessian) Done() bool { return h.runs >= h.Len() }

// At is H_ij as computed so far (0 where not yet filled).
func (h *Hessian) At(i, j int) float64 { return h.h[i*h.n+j] }

// Filled reports whether H_ij has been computed.
func (h *Hessian) Filled(i, j int) bool {
	if h.s == FoF {
		return i*h.n+j < h.runs
	}
	return j < h.runs
}

// Step takes one run; algo.ErrConverged once the Hessian is complete.
func (h *Hessian) Step() error {
	if h.Done() {
		return algo.ErrConverged
	}
	var err error
	switch h.s {
	case FoF:
		err = h.fof(h.runs/h.n, h.runs%h.n)
	case FoR:
		err = h.forR(h.runs)
	case RoF:
		err = h.roF(h.runs)
	case RoR:
		err = h.roR(h.runs)
	}
	if err != nil {
		return err
	}
	h.runs++
	return nil
}

// Run takes every remaining run and returns H (n×n, row-major; the slice
// must not be modified).
func (h *Hessian) Run() ([]float64, error) {
	for !h.Done() {
		if err := h.Step(); err != nil {
			return nil, err
		}
	}
	return h.h, nil
}

// primal is a forward pass of values and local derivatives; with dir ≥ 0 it
// also carries the tangent ṫ along e_dir into h.t (a dual-number pass).
// It returns the number of operation records a tape would hold.
func (h *Hessian) primal(dir int) (records int, err error) {
	return h.primalAlong(dir, nil)
}

// primalAlong is primal with the tangent seeded from the vector v (len n)
// when v is not nil.
func (h *Hessian) primalAlong(dir int, v []float64) (records int, err error) {
	g := h.g
	h.passes++
	for i := range g.nodes {
		if err := g.eval(i); err != nil {
			return 0, err
		}
		n := &g.nodes[i]
		if n.Op.Arity() > 0 {
			records++
			for _, d := range n.D2 {
				if !finite(d) {
					return 0, &EvalError{Node: i, Op: n.Op, Start: n.Start, End: n.End, Reason: "the second derivative is infinite here"}
				}
			}
		}
		if dir >= 0 || v != nil {
			h.t[i] = 0
			if h.col[i] >= 0 && v != nil {
				h.t[i] = v[h.col[i]]
			} else if h.col[i] == dir && dir >= 0 {
				h.t[i] = 1
			}
			a, k := n.args()
			for s := range k {
				h.t[i] += n.D1[s] * h.t[a[s]]
			}
		}
	}
	g.fresh = true
	return records, nil
}

// adjoints is the first-order reverse pass into h.r, seeded 1 on the
// output.
func (h *Hessian) adjoints() {
	g := h.g
	h.passes++
	clear(h.r)
	h.r[g.outputs[h.out]] = 1
	for i := len(g.nodes) - 1; i >= 0; i-- {
		n := &g.nodes[i]
		a, k := n.args()
		for s := range k {
			h.r[a[s]] += h.r[i] * n.D1[s]
		}
	}
}

// curv is Σ_t ∂²_{st} f_i · v[a_t]: the local Hessian H_i of node i applied
// to the vector v on its arguments, slot s.
func curv(n *Node, s int, a [2]int, k int, v []float64) float64 {
	c := 0.0
	for t := range k {
		if d := n.d2(s, t); d != 0 {
			c += d * v[a[t]]
		}
	}
	return c
}

func (h *Hessian) tape(records int) { h.peakTape = max(h.peakTape, records) }

// fof is one hyper-dual forward pass: ε₁ along e_i in h.t, ε₂ along e_j in
// h.t2, the ε₁ε₂ part in h.u; H_ij = u_out.
func (h *Hessian) fof(i, j int) error {
	g := h.g
	h.passes++
	for k := range g.nodes {
		if err := g.eval(k); err != nil {
			return err
		}
		n := &g.nodes[k]
		a, ar := n.args()
		e1, e2, e12 := 0.0, 0.0, 0.0
		if h.col[k] >= 0 {
			if h.col[k] == i {
				e1 = 1
			}
			if h.col[k] == j {
				e2 = 1
			}
		}
		for s := range ar {
			e1 += n.D1[s] * h.t[a[s]]
			e2 += n.D1[s] * h.t2[a[s]]
			e12 += n.D1[s] * h.u[a[s]]
			for t := range ar {
				if d := n.d2(s, t); d != 0 {
					if !finite(d) {
						return &EvalError{Node: k, Op: n.Op, Start: n.Start, End: n.End, Reason: "the second derivative is infinite here"}
					}
					e12 += d * h.t[a[s]] * h.t2[a[t]]
				}
			}
		}
		h.t[k], h.t2[k], h.u[k] = e1, e2, e12
	}
	g.fresh = true
	h.h[i*h.n+j] = h.u[g.outputs[h.out]]
	return nil
}

// forR fills column j by forward on reverse.
func (h *Hessian) forR(j int) error {
	if err := h.hvp(j, nil); err != nil {
		return err
	}
	h.column(j)
	return nil
}

// HVP writes the Hessian-vector product ∇²f·v into hv (both of len n) by one
// forward-on-reverse run (eq 1.24) at the graph's current input values: the
// product a sparse Hessian is compressed with (seed 000 §1.9.4, eq 1.67).
// It counts as a run of the Hessian's strategy only in Passes and PeakTape.
func (h *Hessian) HVP(hv, v []float64) error {
	if len(v) != h.n || len(hv) != h.n {
		return algo.BadParam("v", len(v), fmt.Sprintf("vectors of %d entries", h.n))
	}
	if err := h.hvp(-1, v); err != nil {
		return err
	}
	for k, id := range h.g.inputs {
		hv[k] = h.u[id]
	}
	return nil
}

// hvp runs forward on reverse along e_j (v nil) or v, leaving Hv in h.u.
func (h *Hessian) hvp(j int, v []float64) error {
	records, err := h.primalAlong(j, v)
	if err != nil {
		return err
	}
	h.tape(records)
	h.adjoints()
	// The tangent pass over the reverse sweep: ṙ (in h.u) in the adjoint
	// statements' own order.
	g := h.g
	h.passes++
	clear(h.u)
	for i := len(g.nodes) - 1; i >= 0; i-- {
		n := &g.nodes[i]
		a, k := n.args()
		for s := range k {
			h.u[a[s]] += h.u[i]*n.D1[s] + h.r[i]*curv(n, s, a, k, h.t)
		}
	}
	return nil
}

// roF fills column i by reverse on forward: r̄̇ in h.r, r̄ in h.u.
func (h *Hessian) roF(i int) error {
	records, err := h.primal(i)
	if err != nil {
		return err
	}
	h.tape(records)
	g := h.g
	h.passes++
	clear(h.r)
	clear(h.u)
	h.r[g.outputs[h.out]] = 1 // r̄̇_y = w = 1, r̄_y = 0
	for k := len(g.nodes) - 1; k >= 0; k-- {
		n := &g.nodes[k]
		a, ar := n.args()
		for s := range ar {
			h.r[a[s]] += h.r[k] * n.D1[s]                               // r_{1,2} = r_{2,2} J₂
			h.u[a[s]] += h.u[k]*n.D1[s] + h.r[k]*curv(n, s, a, ar, h.t) // r_{1,1} = r_{2,1} J₂ + r_{2,2} H₂ᵢ
		}
	}
	h.column(i)
	return nil
}

// roR fills column i by reverse on reverse: r̂ in h.t, ŝ in h.u.
func (h *Hessian) roR(i int) error {
	records, err := h.primal(-1)
	if err != nil {
		return err
	}
	h.adjoints() // its K statements join the tape
	h.tape(2 * records)
	g := h.g
	h.passes++
	clear(h.t)
	clear(h.u)
	h.t[g.inputs[i]] = 1 // the adjoint of the gradient's entry i
	// The adjoint statements r_a += r_k ∂_s f_k, undone in creation order:
	// r̂_k += r̂_a ∂_s f_k and ŝ_b += r̂_a r_k ∂²_{sb} f_k.
	for k := range g.nodes {
		n := &g.nodes[k]
		a, ar := n.args()
		for s := range ar {
			h.t[k] += h.t[a[s]] * n.D1[s]
			for t := range ar {
				if d := n.d2(s, t); d != 0 {
					h.u[a[t]] += h.t[a[s]] * h.r[k] * d
				}
			}
		}
	}
	// The primal statements s_k = f_k(s_a), undone in reverse order.
	for k := len(g.nodes) - 1; k >= 0; k-- {
		n := &g.nodes[k]
		a, ar := n.args()
		for s := range ar {
			h.u[a[s]] += h.u[k] * n.D1[s]
		}
	}
	h.column(i)
	return nil
}

// column stores h.u on the inputs as column j.
func (h *Hessian) column(j int) {
	for k, id := range h.g.inputs {
		h.h[k*h.n+j] = h.u[id]
	}
}
