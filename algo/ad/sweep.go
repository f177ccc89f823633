package ad

import (
	"fmt"

	"github.com/thelab/lab/algo"
)

// Mode names the direction in which derivatives travel.
type Mode int

const (
	// ForwardMode carries (value | tangent) pairs from the inputs to the
	// outputs in one pass per input direction (§1.2).
	ForwardMode Mode = iota
	// ReverseMode records every node on a tape in a forward pass, then pops
	// the tape, carrying adjoints from one output back to every input
	// (§1.3).
	ReverseMode
)

func (m Mode) String() string {
	if m == ReverseMode {
		return "reverse"
	}
	return "forward"
}

// Sweep steps a forward- or reverse-mode evaluation one node at a time, for
// a pane to draw each node as it is processed and the memory held so far
// (seed 000 §1.6, the lost Figures 1.4 and 1.5):
//
//   - forward mode processes node k at step k, computing its value and
//     tangent together; it holds a (value, tangent) pair only while a later
//     node still needs it (or it is an output), so on a chain the live
//     memory stays flat at one pair;
//   - reverse mode records node k on the tape at step k (k < N), then at
//     step N + k pops node N−1−k, adding its adjoint to its arguments'; the
//     tape grows to N entries and shrinks back to 0: a triangle.
//
// The graph's nodes are updated in place (Value, Tangent, Adjoint), so the
// pane reads them from the graph; Processed says which are current.
type Sweep struct {
	g       *Graph
	mode    Mode
	v       []float64 // the forward seed, one entry per input
	out     int       // the reverse output index
	k       int       // steps taken
	last    int       // the node processed by the last step, −1 before
	lastUse []int     // forward: the last node that reads each node
	live    int
	peak    int
	memory  []int // live entries after each step
	err     error
}

// NewSweep starts a sweep of g. In ForwardMode, dir seeds the inputs'
// tangents (len = number of inputs; one-hot for one Jacobian column) and
// out is ignored; in ReverseMode, out is the output whose adjoint is seeded
// with 1 and dir is ignored.
func NewSweep(g *Graph, mode Mode, dir []float64, out int) (*Sweep, error) {
	if err := g.ready(); err != nil {
		return nil, err
	}
	n := len(g.nodes)
	s := &Sweep{g: g, mode: mode, last: -1, out: out}
	switch mode {
	case ForwardMode:
		if len(dir) != len(g.inputs) {
			return nil, algo.BadParam("direction", len(dir), fmt.Sprintf("a vector of %d entries", len(g.inputs)))
		}
		s.v = append([]float64(nil), dir...)
		s.lastUse = make([]int, n)
		for i := range g.nodes {
			s.lastUse[i] = i
			a, k := g.nodes[i].args()
			for _, x := range a[:k] {
				s.lastUse[x] = i
			}
		}
		for _, o := range g.outputs {
			s.lastUse[o] = n // outputs are kept to the end
		}
		s.memory = make([]int, 0, n)
	case ReverseMode:
		if out < 0 || out >= len(g.outputs) {
			return nil, algo.BadParam("output", out, fmt.Sprintf("in 0..%d", len(g.outputs)-1))
		}
		s.memory = make([]int, 0, 2*n)
	default:
		return nil, algo.BadParam("mode", mode, "forward or reverse")
	}
	g.fresh = false // values are rewritten node by node
	return s, nil
}

// Len is the number of steps of the whole sweep: N in forward mode, 2N in
// reverse mode (N = number of nodes).
func (s *Sweep) Len() int {
	if s.mode == ReverseMode {
		return 2 * len(s.g.nodes)
	}
	return len(s.g.nodes)
}

// Steps is the number of steps taken.
func (s *Sweep) Steps() int { return s.k }

// Done reports whether every step has been taken.
func (s *Sweep) Done() bool { return s.k >= s.Len() }

// Last is the node processed by the last step, −1 before the first.
func (s *Sweep) Last() int { return s.last }

// Backward reports whether the sweep is in (or has finished) its reverse
// pass: the last step popped the tape.
func (s *Sweep) Backward() bool { return s.mode == ReverseMode && s.k > len(s.g.nodes) }

// Processed reports whether node i has its value (and, in forward mode,
// tangent) from this sweep; in the reverse pass, whether its adjoint is
// final (it has been popped).
func (s *Sweep) Processed(i int) bool {
	n := len(s.g.nodes)
	if s.mode == ReverseMode && s.k > n {
		return i >= 2*n-s.k
	}
	return i < s.k
}

// Live is the number of stored entries after the last step: (value,
// tangent) pairs still needed in forward mode, tape entries in reverse
// mode.
func (s *Sweep) Live() int { return s.live }

// Peak is the largest Live so far.
func (s *Sweep) Peak() int { return s.peak }

// Memory is Live after each step taken so far (the memory chart). The
// slice must not be modified.
func (s *Sweep) Memory() []int { return s.memory }

// Step processes one node. It returns algo.ErrConverged once the sweep is
// done, or the *EvalError of a node that cannot be evaluated (the sweep
// then stays at that node and returns the error again).
func (s *Sweep) Step() error {
	if s.err != nil {
		return s.err
	}
	if s.Done() {
		return algo.ErrConverged
	}
	g := s.g
	n := len(g.nodes)
	switch {
	case s.mode == ForwardMode:
		i := s.k
		if err := g.eval(i); err != nil {
			s.err = err
			return err
		}
		node := &g.nodes[i]
		if node.Op == Input {
			node.Tangent = s.v[s.inputIndex(i)]
		} else {
			node.Tangent = 0
			g.tangent(i)
		}
		s.live++
		if s.lastUse[i] == i {
			s.live-- // read by no one and not an output
		}
		a, k := node.args()
		for t, x := range a[:k] {
			if s.lastUse[x] == i && (t == 0 || x != a[0]) {
				s.live--
			}
		}
		s.last = i
	case s.k < n: // reverse mode, recording
		i := s.k
		if err := g.eval(i); err != nil {
			s.err = err
			return err
		}
		s.live++
		s.last = i
		if s.k == n-1 {
			for j := range g.nodes {
				g.nodes[j].Adjoint = 0
			}
			g.nodes[g.outputs[s.out]].Adjoint = 1
			g.fresh = true
		}
	default: // reverse mode, popping
		i := 2*n - 1 - s.k
		g.adjoint(i)
		s.live--
		s.last = i
	}
	s.k++
	s.peak = max(s.peak, s.live)
	s.memory = append(s.memory, s.live)
	if s.mode == ForwardMode && s.Done() {
		g.fresh = true
	}
	return nil
}

// Run takes every remaining step.
func (s *Sweep) Run() error {
	for {
		if err := s.Step(); err == algo.ErrConverged {
			return nil
		} else if err != nil {
			return err
		}
	}
}

func (s *Sweep) inputIndex(node int) int {
	for k, id := range s.g.inputs {
		if id == node {
			return k
		}
	}
	return -1
}
