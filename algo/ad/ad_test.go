package ad

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/algotest"
	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/mat"
)

func mustParse(t testing.TB, src string, vars ...Var) *Graph {
	t.Helper()
	g, err := Parse(src, vars)
	if err != nil {
		t.Fatalf("Parse(%q): %v", src, err)
	}
	return g
}

// TestWorkedExample is seed 000 §1.4 (eqs 1.9–1.12): f₃ = x + x² at x = 3
// has value 12; forward mode gives the tangents t = 1, 1, 6, 7 (the input,
// s₁ = x, s₂ = x², s₃); reverse mode accumulates ∂s₃/∂x += 1·1 and
// += 1·2x = 6, giving 7.
func TestWorkedExample(t *testing.T) {
	g := NewGraph()
	x := g.Input("x", 3)
	s2 := g.Mul(x, x)
	s3 := g.Add(x, s2)
	if err := g.SetOutputs(s3); err != nil {
		t.Fatal(err)
	}
	jv := make([]float64, 1)
	if err := g.JVP(jv, []float64{1}); err != nil {
		t.Fatal(err)
	}
	algotest.Near(t, "f(3)", g.Value(0), 12, 0)
	for i, want := range []float64{1, 6, 7} {
		algotest.Near(t, fmt.Sprintf("t_%d", i), g.Node(i).Tangent, want, 0)
	}
	if err := g.Backward(0); err != nil {
		t.Fatal(err)
	}
	algotest.Near(t, "∂s₃/∂x", g.Node(x).Adjoint, 7, 0)
	algotest.Near(t, "∂s₃/∂s₂", g.Node(s2).Adjoint, 1, 0)
	// Backward twice: reset, never pile up.
	if err := g.Backward(0); err != nil {
		t.Fatal(err)
	}
	algotest.Near(t, "∂s₃/∂x again", g.Node(x).Adjoint, 7, 0)
	if lv := fmt.Sprint(g.Levels()); lv != "[0 1 2]" {
		t.Errorf("levels %s", lv)
	}

	// The same through the parser, with x^2 for x².
	p := mustParse(t, "x + x^2", Var{"x", 3})
	grad := make([]float64, 1)
	if err := p.Gradient(grad, 0); err != nil {
		t.Fatal(err)
	}
	algotest.Near(t, "parsed f(3)", p.Value(0), 12, 0)
	algotest.Near(t, "parsed f'(3)", grad[0], 7, 0)
}

// TestNaiveDoubleCounts: on x + x² the naive recursion happens to be right
// (both paths end at the leaf); on u + sin(u), u = xy, it re-sends u's first
// contribution and gets y(2 + cos u) where reverse mode gets y(1 + cos u).
func TestNaiveDoubleCounts(t *testing.T) {
	g := mustParse(t, "x + x*x", Var{"x", 3})
	naive := make([]float64, 1)
	if err := NaiveBackprop(g, naive, 0); err != nil {
		t.Fatal(err)
	}
	algotest.Near(t, "naive on x+x²", naive[0], 7, 0)

	x, y := 0.7, -1.3
	b := NewGraph()
	xi, yi := b.Input("x", x), b.Input("y", y)
	u := b.Mul(xi, yi)
	if err := b.SetOutputs(b.Add(u, b.Unary(Sin, u))); err != nil {
		t.Fatal(err)
	}
	naive, right := make([]float64, 2), make([]float64, 2)
	if err := NaiveBackprop(b, naive, 0); err != nil {
		t.Fatal(err)
	}
	if err := b.Gradient(right, 0); err != nil {
		t.Fatal(err)
	}
	c := math.Cos(x * y)
	algotest.Near(t, "∂f/∂x", right[0], y*(1+c), 1e-15)
	algotest.Near(t, "∂f/∂y", right[1], x*(1+c), 1e-15)
	algotest.Near(t, "naive ∂f/∂x", naive[0], y*(2+c), 1e-15)
	algotest.Near(t, "naive ∂f/∂y", naive[1], x*(2+c), 1e-15)
}

// chain builds s_k = sin(s_{k−1}) K times from x.
func chain(t testing.TB, K int) *Graph {
	g := NewGraph()
	s := g.Input("x", 0.5)
	for range K {
		s = g.Unary(Sin, s)
	}
	if err := g.SetOutputs(s); err != nil {
		t.Fatal(err)
	}
	return g
}

// TestSweepMemory is §1.6: on a chain of K operations, forward mode holds
// one (value, tangent) pair at every step, reverse mode's tape rises to
// K + 1 entries (the input and K operations) and falls back to 0.
func TestSweepMemory(t *testing.T) {
	const K = 20
	g := chain(t, K)
	f, err := NewSweep(g, ForwardMode, []float64{1}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Run(); err != nil {
		t.Fatal(err)
	}
	for k, m := range f.Memory() {
		if m != 1 {
			t.Fatalf("forward live memory at step %d = %d, want 1", k, m)
		}
	}
	tangent := g.Node(g.Outputs()[0]).Tangent

	r, err := NewSweep(g, ReverseMode, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Run(); err != nil {
		t.Fatal(err)
	}
	mem := r.Memory()
	N := K + 1
	if len(mem) != 2*N || r.Peak() != N {
		t.Fatalf("reverse: %d steps, peak %d; want %d, %d", len(mem), r.Peak(), 2*N, N)
	}
	for k, m := range mem {
		want := k + 1
		if k >= N {
			want = 2*N - 1 - k
		}
		if m != want {
			t.Fatalf("tape at step %d = %d, want %d (a triangle)", k, m, want)
		}
	}
	algotest.Near(t, "reverse = forward derivative", g.Node(0).Adjoint, tangent, 1e-15)
	if err := r.Step(); !errors.Is(err, algo.ErrConverged) {
		t.Errorf("step after the end: %v, want ErrConverged", err)
	}
}

// TestSweepStepsMatchBatch: stepping either mode node by node gives the
// batch JVP and Backward results on a DAG with fan-out, and Processed
// tracks the cursor.
func TestSweepStepsMatchBatch(t *testing.T) {
	src := "x*y + sin(x) - exp(y/x), tanh(x*y)^2"
	g := mustParse(t, src, Var{"x", 1.2}, Var{"y", -0.4})
	jv := make([]float64, 2)
	if err := g.JVP(jv, []float64{0.3, 1}); err != nil {
		t.Fatal(err)
	}
	s, err := NewSweep(g, ForwardMode, []float64{0.3, 1}, 0)
	if err != nil {
		t.Fatal(err)
	}
	for k := 0; !s.Done(); k++ {
		if s.Processed(k) {
			t.Fatalf("node %d processed before its step", k)
		}
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
		if s.Last() != k || !s.Processed(k) {
			t.Fatalf("step %d processed node %d", k, s.Last())
		}
	}
	for j, o := range g.Outputs() {
		algotest.Near(t, fmt.Sprintf("stepped JVP %d", j), g.Node(o).Tangent, jv[j], 0)
	}
	want := make([]float64, 2)
	if err := g.Gradient(want, 1); err != nil {
		t.Fatal(err)
	}
	r, err := NewSweep(g, ReverseMode, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Run(); err != nil {
		t.Fatal(err)
	}
	for k, id := range g.Inputs() {
		algotest.Near(t, fmt.Sprintf("stepped gradient %d", k), g.Node(id).Adjoint, want[k], 0)
	}
}

// TestParseErrors: every malformed expression names the byte where it
// fails; none panics.
func TestParseErrors(t *testing.T) {
	vars := []Var{{"x", 1}, {"y", 2}}
	for _, tc := range []struct {
		src  string
		pos  int
		text string
	}{
		{"x*", 2, "end of the expression"},
		{"x + (y", 6, "expected ')'"},
		{"2x", 1, `"x"`},
		{"foo(x)", 0, "undefined variable foo"},
		{"z + 1", 0, "undefined variable z (defined: x, y)"},
		{"x $ y", 2, `character "$"`},
		{"sin x", 4, "'(' after the function sin"},
		{"1e999", 0, "not a number in range"},
		{"", 0, "expected a number"},
		{"x,", 2, "expected a number"},
		{"(x))", 3, `found ")"`},
		{strings.Repeat("(", 70) + "x" + strings.Repeat(")", 70), 65, "nested deeper than 64"},
		{strings.Repeat("-", 70) + "x", 65, "nested deeper than 64"},
		{strings.Repeat("x+", 2100) + "x", MaxSourceBytes, "longer than 4096 bytes"},
		// Definitions (TestParseDefinitions).
		{"x = 2; x", 0, "cannot define x: it is a variable"},
		{"x + 1 = 2", 6, `found "="`},
		{"sin = x; sin", 0, "cannot define sin"},
		{"u = x; u = y; u", 7, "u is already defined"},
		{"u = x*y, u", 7, "';' after the definition of u"},
		{"u = v; u", 4, "undefined variable v (defined: x, y)"},
		{"u = x; w", 7, "undefined variable w (defined: x, y, u)"},
	} {
		_, err := Parse(tc.src, vars)
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Errorf("Parse(%.20q) = %v, want a ParseError", tc.src, err)
			continue
		}
		if pe.Pos != tc.pos || !strings.Contains(pe.Error(), tc.text) {
			t.Errorf("Parse(%.20q): %v; want position %d and %q", tc.src, pe, tc.pos, tc.text)
		}
	}
	for _, bad := range [][]Var{{{"sin", 1}}, {{"x", 1}, {"x", 2}}, {{"1x", 0}}, {{"pi", 3}}} {
		_, err := Parse("1", bad)
		algotest.WantParam(t, err, "variable")
	}
}

// TestParseDefinitions: "u = x*y; u + sin(u)" makes one node u with two
// parents, named u, on which NaiveBackprop double-counts (y(2 + cos u)
// against reverse mode's y(1 + cos u)); the tree "x*y + sin(x*y)" has no
// inner fan-out and the naive recursion is right there. Bad definitions
// name their byte (TestParseErrors).
func TestParseDefinitions(t *testing.T) {
	x, y := 0.7, -1.3
	vars := []Var{{"x", x}, {"y", y}}
	g := mustParse(t, "u = x*y; u + sin(u)", vars...)
	if g.Len() != 5 || g.Node(2).Name != "u" || g.Node(2).Op != Mul {
		t.Fatalf("graph of %d nodes, node 2 = %+v", g.Len(), g.Node(2))
	}
	naive, right := make([]float64, 2), make([]float64, 2)
	if err := NaiveBackprop(g, naive, 0); err != nil {
		t.Fatal(err)
	}
	if err := g.Gradient(right, 0); err != nil {
		t.Fatal(err)
	}
	c := math.Cos(x * y)
	algotest.Near(t, "∂f/∂x", right[0], y*(1+c), 1e-15)
	algotest.Near(t, "naive ∂f/∂x", naive[0], y*(2+c), 1e-15)
	tree := mustParse(t, "x*y + sin(x*y)", vars...)
	if err := NaiveBackprop(tree, naive, 0); err != nil {
		t.Fatal(err)
	}
	algotest.Near(t, "naive on the tree", naive[0], y*(1+c), 1e-15)
	chained := mustParse(t, "a = x + 1; b = a*a ; b - a", vars...)
	if err := chained.Forward(); err != nil {
		t.Fatal(err)
	}
	algotest.Near(t, "chained definitions", chained.Value(0), 1.7*1.7-1.7, 1e-15)
}

// TestParsePrecedence: −x^2 = −(x²), 2^3^2 = 2^9, 2^−1 = ½, left-assoc − and
// /, pi, ln, whitespace.
func TestParsePrecedence(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want float64
	}{
		{"-x^2", -9},
		{"2^3^2", 512},
		{"2^-1", 0.5},
		{"10 - 4 - 3", 3},
		{"12 / 3 / 2", 2},
		{"-(x)*-2", 6},
		{"ln(x)\t*\n1.5e-1", 0.15 * math.Log(3)},
		{"cos(pi) + abs(-x) + relu(-x) + sqrt(x*3) + sigmoid(0)", -1 + 3 + 0 + 3 + 0.5},
		{"(-3)^3 + x^0", -26},
	} {
		g := mustParse(t, tc.src, Var{"x", 3})
		if err := g.Forward(); err != nil {
			t.Fatalf("%s: %v", tc.src, err)
		}
		algotest.Near(t, tc.src, g.Value(0), tc.want, 1e-15)
	}
}

// TestEvalErrors: division by zero, log and sqrt out of domain, overflow and
// a power with a variable exponent on a negative base each name the failing
// node and its span; nothing panics.
func TestEvalErrors(t *testing.T) {
	for _, tc := range []struct {
		src    string
		span   string
		reason string
	}{
		{"x + 1/(x-x)", "1/(x-x)", "division by zero"},
		{"2*log(x-5)", "log(x-5)", "log of a non-positive number (-2)"},
		{"sqrt(-x)", "sqrt(-x)", "square root of a negative"},
		{"sqrt(x-3)", "sqrt(x-3)", "derivative is infinite"},
		{"exp(x*1000)", "exp(x*1000)", "overflows"},
		{"(-x)^x", "(-x)^x", "variable exponent needs a base > 0"},
		{"(-x)^0.5", "(-x)^0.5", "non-integer power"},
		{"(x-3)^-1", "(x-3)^-1", "division by zero"},
		{"(x-3)^0.5", "(x-3)^0.5", "infinite derivative"},
	} {
		g := mustParse(t, tc.src, Var{"x", 3})
		err := g.Forward()
		var ee *EvalError
		if !errors.As(err, &ee) {
			t.Errorf("%s: %v, want an EvalError", tc.src, err)
			continue
		}
		if got := tc.src[ee.Start:ee.End]; got != tc.span || !strings.Contains(ee.Reason, tc.reason) {
			t.Errorf("%s: failing node %q (%s), want %q (%s)", tc.src, got, ee.Reason, tc.span, tc.reason)
		}
		if err := g.Backward(0); !errors.As(err, &ee) {
			t.Errorf("%s: Backward = %v, want the EvalError", tc.src, err)
		}
	}
	// A negative base with a constant integer exponent is fine: (x−5)² at 3.
	g := mustParse(t, "(x-5)^2", Var{"x", 3})
	grad := []float64{0}
	if err := g.Gradient(grad, 0); err != nil {
		t.Fatal(err)
	}
	algotest.Near(t, "d(x−5)²/dx", grad[0], -4, 0)
}

// TestBuildErrors: bad arguments and limits are refused with a ParamError
// and stick.
func TestBuildErrors(t *testing.T) {
	g := NewGraph()
	x := g.Input("x", 1)
	if id := g.Add(x, 5); id != -1 {
		t.Fatalf("Add with a missing node = %d", id)
	}
	algotest.WantParam(t, g.Err(), "argument 2 of +")
	if err := g.Forward(); err == nil {
		t.Error("Forward on a broken graph succeeded")
	}
	g = NewGraph()
	algotest.WantParam(t, g.SetOutputs(), "outputs")
	if id := g.Unary(Add, g.Const(1)); id != -1 {
		t.Error("Unary(Add) accepted")
	}
	algotest.WantParam(t, NewGraph().SetInput(0, 1), "input")
	g = NewGraph()
	g.Input("x", math.NaN())
	algotest.WantParam(t, g.Err(), "x")
}

// ops lists every operation with a point inside its domain.
var opCases = []struct {
	op   Op
	a, b float64
}{
	{Add, 0.3, -1.1}, {Sub, 0.3, -1.1}, {Mul, 0.3, -1.1}, {Div, 0.3, -1.1},
	{Pow, 1.7, -0.6}, {Pow, 1.7, 2.5}, {Neg, 0.4, 0}, {Exp, 0.4, 0}, {Log, 0.4, 0},
	{Sin, 0.4, 0}, {Cos, 0.4, 0}, {Tanh, 0.4, 0}, {Sigmoid, -0.8, 0},
	{Relu, 0.4, 0}, {Relu, -0.4, 0}, {Abs, 0.4, 0}, {Abs, -0.4, 0}, {Sqrt, 0.4, 0},
}

func apply(op Op, a, b float64) float64 {
	l, why := local(op, a, b, false)
	if why != "" {
		return math.NaN()
	}
	return l.V
}

// TestDualRules: for every operation, the dual number's ε part equals a
// central finite difference of the value in the direction (da, db), and
// the hyper-dual's ε₁ε₂ part equals the finite-difference second
// directional derivative along (da, db) and (ea, eb). Tolerances: 1e-8
// (first order, step 1e-5) and 1e-5 (second order, step 1e-4).
func TestDualRules(t *testing.T) {
	da, db, ea, eb := 0.7, -0.4, -0.3, 0.9
	for _, tc := range opCases {
		if tc.op.Arity() == 1 {
			db, eb = 0, 0
		} else {
			db, eb = -0.4, 0.9
		}
		d, err := ApplyDual(tc.op, Dual{tc.a, da}, Dual{tc.b, db})
		if err != nil {
			t.Fatalf("%v: %v", tc.op, err)
		}
		f := func(s float64) float64 { return apply(tc.op, tc.a+s*da, tc.b+s*db) }
		algotest.Near(t, fmt.Sprintf("%v(%g,%g) value", tc.op, tc.a, tc.b), d.V, f(0), 0)
		algotest.Near(t, fmt.Sprintf("%v(%g,%g) tangent", tc.op, tc.a, tc.b), d.D,
			fd.Derivative(f, 0, &fd.Settings{Formula: fd.Central, Step: 1e-5}), 1e-8)

		h, err := ApplyHyperDual(tc.op, HyperDual{V: tc.a, E1: da, E2: ea}, HyperDual{V: tc.b, E1: db, E2: eb})
		if err != nil {
			t.Fatal(err)
		}
		f2 := func(x []float64) float64 { return apply(tc.op, tc.a+x[0]*da+x[1]*ea, tc.b+x[0]*db+x[1]*eb) }
		H := mat.NewSymDense(2, nil)
		fd.Hessian(H, f2, []float64{0, 0}, &fd.Settings{Formula: fd.Central, Step: 1e-4})
		algotest.Near(t, fmt.Sprintf("%v(%g,%g) ε₁ε₂", tc.op, tc.a, tc.b), h.E12, H.At(0, 1), 1e-5)
		algotest.Near(t, fmt.Sprintf("%v ε₁", tc.op), h.E1, d.D, 1e-15)
	}
	if _, err := ApplyDual(Log, Dual{-1, 1}, Dual{}); err == nil {
		t.Error("log(−1) accepted")
	}
	if _, err := ApplyDual(Input, Dual{}, Dual{}); err == nil {
		t.Error("Input applied")
	}
}

// jacobianCase is f: R⁵ → R⁴ (catalogue §1.5's test size).
const jacobianCase = "x1*x2 + sin(x3), exp(x4/2) - x5^2*x1, tanh(x2 - x3*x4), log(1 + x5^2) + x1/x3"

func jacobianVars() []Var {
	return []Var{{"x1", 0.3}, {"x2", -1.2}, {"x3", 0.8}, {"x4", 0.5}, {"x5", 1.7}}
}

// TestJacobian is §1.5: the Jacobian of f: R⁵ → R⁴ takes exactly 5 JVPs
// (columns) or 4 VJPs (rows); both agree to 1e-15 and match central
// differences (gonum diff/fd.Jacobian) to 1e-8.
func TestJacobian(t *testing.T) {
	g := mustParse(t, jacobianCase, jacobianVars()...)
	var Js [2]*mat.Dense
	for k, mode := range []Mode{ForwardMode, ReverseMode} {
		jac, err := NewJacobian(g, mode)
		if err != nil {
			t.Fatal(err)
		}
		for !jac.Done() {
			if err := jac.Step(); err != nil {
				t.Fatal(err)
			}
			if mode == ForwardMode && (!jac.Filled(3, jac.Passes()-1) || jac.Filled(0, jac.Passes())) {
				t.Fatalf("columns filled wrongly after %d passes", jac.Passes())
			}
		}
		want := []int{5, 4}[k]
		if jac.Passes() != want {
			t.Errorf("%v mode: %d passes, want %d", mode, jac.Passes(), want)
		}
		Js[k] = jac.J
	}
	if !mat.EqualApprox(Js[0], Js[1], 1e-15) {
		t.Errorf("JVP and VJP Jacobians differ:\n%v\n%v", mat.Formatted(Js[0]), mat.Formatted(Js[1]))
	}
	x := make([]float64, 5)
	g.InputValues(x)
	fdJ := mat.NewDense(4, 5, nil)
	fd.Jacobian(fdJ, func(y, x []float64) {
		if err := g.SetInputs(x); err != nil {
			t.Fatal(err)
		}
		if err := g.Forward(); err != nil {
			t.Fatal(err)
		}
		for j := range y {
			y[j] = g.Value(j)
		}
	}, x, &fd.JacobianSettings{Formula: fd.Central})
	if !mat.EqualApprox(Js[0], fdJ, 1e-8) {
		t.Errorf("AD Jacobian vs finite differences:\n%v\n%v", mat.Formatted(Js[0]), mat.Formatted(fdJ))
	}
}

func rosenbrock(t testing.TB, x, y float64) *Graph {
	return mustParse(t, "(1-x)^2 + 100*(y-x^2)^2", Var{"x", x}, Var{"y", y})
}

// fullHessian assembles ∇²f of output 0 with strategy s.
func fullHessian(t *testing.T, g *Graph, s Strategy) (*Hessian, []float64) {
	t.Helper()
	h, err := NewHessian(g, s, 0)
	if err != nil {
		t.Fatal(err)
	}
	H, err := h.Run()
	if err != nil {
		t.Fatal(err)
	}
	return h, H
}

// TestHessianStrategies is §1.7 and its catalogue oracle: at (1, 1) every
// strategy gives Rosenbrock's Hessian [[802, −400], [−400, 200]] exactly,
// FoF in n² = 4 runs and the others in n = 2; the passes and tape records
// follow Table 1.1.
func TestHessianStrategies(t *testing.T) {
	want := []float64{802, -400, -400, 200}
	for _, s := range Strategies {
		g := rosenbrock(t, 1, 1)
		K := g.Ops()
		h, H := fullHessian(t, g, s)
		for k := range want {
			algotest.Near(t, fmt.Sprintf("%v H[%d]", s, k), H[k], want[k], 0)
		}
		runs := map[Strategy]int{FoF: 4, FoR: 2, RoF: 2, RoR: 2}[s]
		tape := map[Strategy]int{FoF: 0, FoR: K, RoF: K, RoR: 2 * K}[s]
		if h.Runs() != runs || h.Passes() != runs*s.PassesPerRun() || h.PeakTape() != tape {
			t.Errorf("%v: runs %d passes %d tape %d; want %d, %d, %d",
				s, h.Runs(), h.Passes(), h.PeakTape(), runs, runs*s.PassesPerRun(), tape)
		}
		if err := h.Step(); !errors.Is(err, algo.ErrConverged) {
			t.Errorf("%v: step after the end = %v", s, err)
		}
	}
}

// TestHessianAgreement: on a non-polynomial function of 4 variables with
// every kind of operation, the four strategies agree to 1e-12 and match
// gonum's diff/fd.Hessian to 1e-5 (central differences, step 1e-4).
func TestHessianAgreement(t *testing.T) {
	src := "x1*x2*exp(x3/3) + sin(x1 - x4)^3 + log(1 + x2^2) * tanh(x3) + x4^x1 / sqrt(1 + x3^2) + sigmoid(x1*x4) - cos(x2)/(2 + x4)"
	vars := []Var{{"x1", 0.6}, {"x2", -0.8}, {"x3", 1.1}, {"x4", 1.4}}
	var ref []float64
	for _, s := range Strategies {
		g := mustParse(t, src, vars...)
		_, H := fullHessian(t, g, s)
		if ref == nil {
			ref = append([]float64(nil), H...)
			g.InputValues(make([]float64, 4))
			x := []float64{0.6, -0.8, 1.1, 1.4}
			fdH := mat.NewSymDense(4, nil)
			fd.Hessian(fdH, func(x []float64) float64 {
				if err := g.SetInputs(x); err != nil {
					t.Fatal(err)
				}
				if err := g.Forward(); err != nil {
					t.Fatal(err)
				}
				return g.Value(0)
			}, x, &fd.Settings{Formula: fd.Central, Step: 1e-4})
			for i := range 4 {
				for j := range 4 {
					algotest.Near(t, fmt.Sprintf("H[%d,%d] vs fd", i, j), H[i*4+j], fdH.At(i, j), 1e-5)
				}
			}
			continue
		}
		for k := range H {
			algotest.Near(t, fmt.Sprintf("%v H[%d] vs FoF", s, k), H[k], ref[k], 1e-12)
		}
	}
}

// TestHessianChainTape: on a chain of K operations the peak tape is 0, K, K
// and 2K, whatever K.
func TestHessianChainTape(t *testing.T) {
	for _, K := range []int{1, 10, 50} {
		for _, s := range Strategies {
			h, _ := fullHessian(t, chain(t, K), s)
			want := map[Strategy]int{FoF: 0, FoR: K, RoF: K, RoR: 2 * K}[s]
			if h.PeakTape() != want {
				t.Errorf("K=%d %v: tape %d, want %d", K, s, h.PeakTape(), want)
			}
		}
	}
}

// TestHessianInfiniteCurvature: x^1.5 at 0 has a finite first derivative
// and an infinite second one; every strategy reports the node.
func TestHessianInfiniteCurvature(t *testing.T) {
	for _, s := range Strategies {
		h, err := NewHessian(mustParse(t, "x^1.5", Var{"x", 0}), s, 0)
		if err != nil {
			t.Fatal(err)
		}
		var ee *EvalError
		if _, err := h.Run(); !errors.As(err, &ee) || !strings.Contains(ee.Reason, "second derivative") {
			t.Errorf("%v: %v", s, err)
		}
	}
}

// TestPatterns: the Jacobian pattern of (1.54)'s shape and the tridiagonal
// Hessian of Σ (x_{i+1} − x_i²)² (catalogue §1.17's demo).
func TestPatterns(t *testing.T) {
	vars := []Var{{"a", 1}, {"b", 2}, {"c", 3}, {"d", 4}, {"e", 5}}
	g := mustParse(t, "b*d, d+e, sin(b*c), a-c", vars...)
	J, err := g.JacobianPattern()
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(J); got != "[[1 3] [3 4] [1 2] [0 2]]" {
		t.Errorf("Jacobian pattern %s", got)
	}
	g = mustParse(t, "(b-a^2)^2 + (c-b^2)^2 + (d-c^2)^2 + 3*e", vars...)
	H, err := g.HessianPattern(0)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(H); got != "[[0 1] [0 1 2] [1 2 3] [2 3] []]" {
		t.Errorf("Hessian pattern %s", got)
	}
}
