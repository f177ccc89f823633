// Package adsim holds the automatic-differentiation sims of seed 000
// chapter 1: forward and reverse mode node by node on a typed expression
// (ad-graph), Jacobians by JVPs and VJPs (jacobian), the four Hessian
// strategies (hessian), implicit differentiation (implicit), sparse
// Jacobians and Hessians by colouring (coloring), and gradient checks of
// the tensor engine's models (gradcheck).
package adsim

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/thelab/lab/algo/ad"
	"github.com/thelab/lab/sims"
)

// Colour classes shared by the sims' pictures.
const (
	classDone  = 0 // computed: blue
	classNow   = 1 // the last step, and adjoints (the notes' "orange part", L97)
	classOK    = 2 // agrees: green
	classWrong = 7 // disagrees, or failed: red
)

// num formats a number in at most about seven characters: four
// significant digits, exponents only when needed.
func num(x float64) string {
	switch {
	case x == 0:
		return "0"
	case math.IsNaN(x) || math.IsInf(x, 0):
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	ax := math.Abs(x)
	if ax >= 1e5 || ax < 1e-3 {
		return strconv.FormatFloat(x, 'e', 1, 64)
	}
	return strconv.FormatFloat(x, 'g', 4, 64)
}

// numCell is a table cell that shows num(x) and holds x, for the export.
func numCell(x float64) sims.Cell { return sims.Num(x, num(x)) }

// parseVars reads "x=3, y=2" into variables, naming the parameter in its
// errors.
func parseVars(param, text string) ([]ad.Var, error) {
	var vars []ad.Var
	for item := range strings.SplitSeq(text, ",") {
		name, value, ok := strings.Cut(item, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			return nil, fmt.Errorf("parameter %s = %q: %q is not name=value (as in x=3, y=2)", param, text, strings.TrimSpace(item))
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
		if err != nil || math.IsInf(v, 0) {
			return nil, fmt.Errorf("parameter %s = %q: the value of %s, %q, is not a finite number", param, text, name, strings.TrimSpace(value))
		}
		vars = append(vars, ad.Var{Name: name, Value: v})
	}
	return vars, nil
}

// parseExpr parses src over vars, turning a parse error into one line that
// names the parameter and marks the byte in the source.
func parseExpr(param, src string, vars []ad.Var) (*ad.Graph, error) {
	g, err := ad.Parse(src, vars)
	var pe *ad.ParseError
	if errors.As(err, &pe) {
		return nil, fmt.Errorf("parameter %s = %q: %v (at %s)", param, src, err, markByte(src, pe.Pos))
	}
	if err != nil {
		return nil, fmt.Errorf("parameter %s = %q: %w", param, src, err)
	}
	return g, nil
}

// markByte shows src with »« around the byte at pos, or » at its end.
func markByte(src string, pos int) string {
	if pos >= len(src) {
		return src + "»"
	}
	end := pos + 1
	for end < len(src) && src[end]&0xC0 == 0x80 { // the rest of a UTF-8 rune
		end++
	}
	return src[:pos] + "»" + src[pos:end] + "«" + src[end:]
}

// opSymbol is how an operation is written in a box or a tape row.
func opSymbol(op ad.Op) string {
	switch op {
	case ad.Mul:
		return "×"
	case ad.Div:
		return "÷"
	case ad.Sub:
		return "−"
	}
	return op.String()
}

// nodeName is how the pictures name node i: a variable's or a defined
// name, a constant's text, else s_i.
func nodeName(g *ad.Graph, i int) string {
	if n := g.Node(i); n.Name != "" {
		return n.Name
	}
	return "s" + strconv.Itoa(i)
}

// nodeFormula is node i written in terms of its arguments: "x × y",
// "sin(u)", "input", "const".
func nodeFormula(g *ad.Graph, i int) string {
	n := g.Node(i)
	switch n.Op.Arity() {
	case 0:
		if n.Op == ad.Input {
			return "input"
		}
		return "const"
	case 1:
		if n.Op == ad.Neg {
			return "−" + nodeName(g, n.A)
		}
		return n.Op.String() + "(" + nodeName(g, n.A) + ")"
	}
	return nodeName(g, n.A) + " " + opSymbol(n.Op) + " " + nodeName(g, n.B)
}

// evalMessage writes an evaluation error: the reason, then the failing
// node with its source and byte span ("division by zero: s4 = 1/(x-3),
// bytes 4–11").
func evalMessage(g *ad.Graph, src string, e *ad.EvalError) string {
	if e.Start >= 0 && e.End <= len(src) {
		return fmt.Sprintf("%s: %s = %s, bytes %d–%d", e.Reason, nodeName(g, e.Node), src[e.Start:e.End], e.Start, e.End)
	}
	return fmt.Sprintf("%s: %s = %s", e.Reason, nodeName(g, e.Node), nodeFormula(g, e.Node))
}

// layout places a graph's nodes on a lattice for a GraphChart: the column
// is the depth (Levels), so every edge points right; within a column a
// node takes the free row nearest its first argument's. An edge that skips
// columns runs level at its source's row, so that row is kept free in
// every column it crosses.
func layout(g *ad.Graph) (cols, rows []int) {
	cols = g.Levels()
	n := g.Len()
	rows = make([]int, n)
	depth := 0
	for _, c := range cols {
		depth = max(depth, c)
	}
	byCol := make([][]int, depth+1)
	for i, c := range cols {
		byCol[c] = append(byCol[c], i)
	}
	for c, nodes := range byCol {
		taken := map[int]bool{}
		for i := range n { // edges crossing column c keep their source's row
			if cols[i] <= c {
				continue
			}
			nd := g.Node(i)
			for _, a := range [2]int{nd.A, nd.B} {
				if a >= 0 && cols[a] < c {
					taken[rows[a]] = true
				}
			}
		}
		for k, i := range nodes {
			want := k
			if nd := g.Node(i); nd.A >= 0 {
				want = rows[nd.A]
			}
			rows[i] = nearestFree(taken, want)
			taken[rows[i]] = true
		}
	}
	return cols, rows
}

// nearestFree is the free row nearest want (the lower one on a tie).
func nearestFree(taken map[int]bool, want int) int {
	for d := 0; ; d++ {
		if want-d >= 0 && !taken[want-d] {
			return want - d
		}
		if !taken[want+d] {
			return want + d
		}
	}
}

// edges lists the graph's edges (argument → node) for a GraphChart, the
// ones into node focus (−1 for none) in the focus tone.
func graphEdges(g *ad.Graph, focus int) []sims.GraphEdge {
	var es []sims.GraphEdge
	for i := range g.Len() {
		nd := g.Node(i)
		for s, a := range [2]int{nd.A, nd.B} {
			if a < 0 || (s == 1 && a == nd.A) {
				continue
			}
			e := sims.GraphEdge{From: a, To: i}
			if i == focus {
				e.Tone, e.Class = sims.ToneFocus, classNow
			}
			es = append(es, e)
		}
	}
	return es
}

// evaluator evaluates g's outputs at a point for finite differences,
// keeping the first evaluation error (a difference stencil that leaves
// the function's domain) for the caller to report.
type evaluator struct {
	g   *ad.Graph
	err error
}

// at writes g's outputs at x into y.
func (e *evaluator) at(y, x []float64) {
	err := e.g.SetInputs(x)
	if err == nil {
		err = e.g.Forward()
	}
	if err != nil && e.err == nil {
		e.err = err
	}
	for i := range y {
		y[i] = e.g.Value(i)
	}
}

// scalar is f_1 at x.
func (e *evaluator) scalar(x []float64) float64 {
	var y [1]float64
	e.at(y[:], x)
	return y[0]
}

// residual is sci(x, 3) for an error that is 0 in exact arithmetic, and
// "≈ 0" where it is rounding error at scale (sims.Residual).
func residual(x, scale float64) string {
	if sims.AtRounding(x, scale) {
		return "≈ 0"
	}
	return sci(x, 3)
}

// sciCell is a table cell that shows sci(x, digits) and holds x.
func sciCell(x float64, digits int) sims.Cell { return sims.Num(x, sci(x, digits)) }

// sci writes x with the given significant digits and a short exponent, as
// the notes quote errors: sci(0.1463, 3) = "1.46e-1", sci(0, 1) = "0",
// and NaN and ±Inf as strconv writes them.
func sci(x float64, digits int) string {
	if x == 0 {
		return "0"
	}
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	s := strconv.FormatFloat(x, 'e', digits-1, 64)
	mant, exp, _ := strings.Cut(s, "e")
	sign := exp[:1]
	exp = strings.TrimLeft(exp[1:], "0")
	if exp == "" {
		exp = "0"
	}
	if sign == "+" {
		sign = ""
	}
	return mant + "e" + sign + exp
}
