package ad

import (
	"fmt"

	"github.com/thelab/lab/algo"
	"gonum.org/v1/gonum/mat"
)

// Jacobian assembles the m×n Jacobian of the graph's outputs with respect
// to its inputs (seed 000 §1.5), one pass per Step: in ForwardMode a JVP
// with the one-hot e_k fills column k (eq 1.13, "horizontal
// concatenation"), in ReverseMode a VJP with the one-hot e_j fills row j
// (eq 1.14, "vertical concatenation"). The whole matrix takes exactly n
// forward or m reverse passes (L183).
type Jacobian struct {
	g      *Graph
	mode   Mode
	J      *mat.Dense // filled column by column or row by row
	k      int        // passes taken
	seed   []float64
	result []float64
}

// NewJacobian starts the assembly at the graph's current input values.
func NewJacobian(g *Graph, mode Mode) (*Jacobian, error) {
	if err := g.Forward(); err != nil {
		return nil, err
	}
	if mode != ForwardMode && mode != ReverseMode {
		return nil, algo.BadParam("mode", mode, "forward or reverse")
	}
	m, n := len(g.outputs), len(g.inputs)
	if n == 0 {
		return nil, algo.BadParam("inputs", 0, "at least one variable")
	}
	j := &Jacobian{g: g, mode: mode, J: mat.NewDense(m, n, nil)}
	if mode == ForwardMode {
		j.seed, j.result = make([]float64, n), make([]float64, m)
	} else {
		j.seed, j.result = make([]float64, m), make([]float64, n)
	}
	return j, nil
}

// Passes is the number of passes taken (JVPs or VJPs).
func (j *Jacobian) Passes() int { return j.k }

// Len is the number of passes of the whole assembly: n in forward mode, m
// in reverse mode.
func (j *Jacobian) Len() int { return len(j.seed) }

// Done reports whether the Jacobian is complete.
func (j *Jacobian) Done() bool { return j.k >= len(j.seed) }

// Filled reports whether entry (r, c) has been computed.
func (j *Jacobian) Filled(r, c int) bool {
	if j.mode == ForwardMode {
		return c < j.k
	}
	return r < j.k
}

// Step takes one pass; algo.ErrConverged once the matrix is complete.
func (j *Jacobian) Step() error {
	if j.Done() {
		return algo.ErrConverged
	}
	clear(j.seed)
	j.seed[j.k] = 1
	if j.mode == ForwardMode {
		if err := j.g.JVP(j.result, j.seed); err != nil {
			return err
		}
		j.J.SetCol(j.k, j.result)
	} else {
		if err := j.g.VJP(j.result, j.seed); err != nil {
			return err
		}
		j.J.SetRow(j.k, j.result)
	}
	j.k++
	return nil
}

// Run takes every remaining pass and returns the Jacobian.
func (j *Jacobian) Run() (*mat.Dense, error) {
	for !j.Done() {
		if err := j.Step(); err != nil {
			return nil, fmt.Errorf("pass %d: %w", j.k+1, err)
		}
	}
	return j.J, nil
}
