package adsim

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/simtest"
)

// graphChart returns the frame's computational graph.
func graphChart(t *testing.T, f sims.Frame) sims.GraphChart {
	t.Helper()
	for _, c := range f.Charts {
		if g, ok := c.(sims.GraphChart); ok {
			return g
		}
	}
	t.Fatalf("%s: no graph chart", f.Sim)
	return sims.GraphChart{}
}

// tableNamed returns the frame's table whose title starts with prefix.
func tableNamed(t *testing.T, f sims.Frame, prefix string) sims.TableChart {
	t.Helper()
	for _, c := range f.Charts {
		if tc, ok := c.(sims.TableChart); ok && strings.HasPrefix(tc.Title, prefix) {
			return tc
		}
	}
	t.Fatalf("%s: no table %q", f.Sim, prefix)
	return sims.TableChart{}
}

// series returns the frame's named series.
func series(t *testing.T, f sims.Frame, name string) []float64 {
	t.Helper()
	s, ok := f.Series(name)
	if !ok {
		t.Fatalf("%s: no series %q", f.Sim, name)
	}
	return s.Y
}

// TestGraphWorkedExample is §1.4 (eqs 1.9–1.12): x + x² at 3 has value 12;
// forward mode's tangents are 1, 6, 7 node by node, reverse mode's adjoint
// of x is 7 (1·1 + 1·2x), and on this graph a naive recursion agrees. The
// forward trace holds at most 2 pairs; the reverse tape rises to 3 and
// falls back to 0.
func TestGraphWorkedExample(t *testing.T) {
	s := simtest.Build(t, Graph, map[string]string{"preset": "notes", "mode": "forward"}, 0, nil)
	var tangents []string
	for range 3 {
		simtest.Run(t, s, 1)
		for _, n := range graphChart(t, s.Frame()).Nodes {
			if n.Tone == sims.ToneFocus {
				tangents = append(tangents, n.Detail)
			}
		}
	}
	if got := strings.Join(tangents, " "); got != "3|1 9|6 12|7" {
		t.Errorf("value|tangent node by node: %s, want 3|1 9|6 12|7", got)
	}
	if err := s.Step(); err != sims.ErrConverged {
		t.Errorf("after the last node: %v", err)
	}
	f := s.Frame()
	algotest.Near(t, "f", simtest.Metric(t, f, "f"), 12, 0)
	algotest.Near(t, "tangent", simtest.Metric(t, f, "tangent"), 7, 0)
	if peak := simtest.Metric(t, f, "peak"); peak > 2 {
		t.Errorf("forward mode held %v pairs", peak)
	}

	r := simtest.Build(t, Graph, map[string]string{"preset": "notes", "mode": "reverse"}, 0, nil)
	simtest.RunToEnd(t, r, 10)
	f = r.Frame()
	algotest.Near(t, "adjoint", simtest.Metric(t, f, "adjoint"), 7, 0)
	algotest.Near(t, "naive", simtest.Metric(t, f, "naive"), 7, 0)
	if got := fmt.Sprint(series(t, f, "tape")); got != "[1 2 3 2 1 0]" {
		t.Errorf("tape per step %s, want the triangle 1 2 3 2 1 0", got)
	}
	if !strings.Contains(simtest.Text(f), "✓ naive backprop agrees") {
		t.Errorf("notes:\n%s", simtest.Text(f))
	}
}

// TestGraphFanout: with u = x·y read twice (u + sin u at x = 3, y = 2),
// reverse mode gives ∂f/∂x = y(1 + cos u) and ∂f/∂y = x(1 + cos u); the
// naive recursion's y(2 + cos u) is shown beside it, marked wrong.
func TestGraphFanout(t *testing.T) {
	s := simtest.Build(t, Graph, map[string]string{"preset": "fanout", "mode": "reverse"}, 0, nil)
	simtest.RunToEnd(t, s, 20)
	f := s.Frame()
	c := math.Cos(6)
	algotest.Near(t, "∂f/∂x", simtest.Metric(t, f, "adjoint"), 2*(1+c), 1e-15)
	algotest.Near(t, "naive ∂f/∂x", simtest.Metric(t, f, "naive"), 2*(2+c), 1e-15)
	tape := tableNamed(t, f, "tape")
	for _, row := range tape.Rows[:2] {
		adj, naive := row.Cells[2].Text, row.Cells[4]
		want := map[string][2]string{"x": {num(2 * (1 + c)), "✗ " + num(2*(2+c))}, "y": {num(3 * (1 + c)), "✗ " + num(3*(2+c))}}[row.Label]
		if adj != want[0] || naive.Text != want[1] || naive.Class != classWrong {
			t.Errorf("row %s: adjoint %q, naive %q; want %q beside %q", row.Label, adj, naive.Text, want[0], want[1])
		}
	}
	if !strings.Contains(simtest.Text(f), "✗ naive backprop counts u twice") {
		t.Errorf("notes:\n%s", simtest.Text(f))
	}
}

// TestGraphMemory is §1.6 on six nested sines: forward mode holds one
// (value, tangent) pair at every step; reverse mode's tape rises to the 7
// nodes and falls back to 0 — and each chart carries the other mode's
// curve for comparison.
func TestGraphMemory(t *testing.T) {
	fwd := simtest.Build(t, Graph, map[string]string{"preset": "chain", "mode": "forward"}, 0, nil)
	simtest.RunToEnd(t, fwd, 20)
	f := fwd.Frame()
	for k, m := range series(t, f, "pairs held") {
		if m != 1 {
			t.Errorf("forward step %d holds %v pairs, want 1", k+1, m)
		}
	}
	ref := series(t, f, "tape (reverse)")
	rev := simtest.Build(t, Graph, map[string]string{"preset": "chain", "mode": "reverse"}, 0, nil)
	simtest.RunToEnd(t, rev, 20)
	tape := series(t, rev.Frame(), "tape")
	if len(tape) != 14 || len(ref) != 14 {
		t.Fatalf("tape over %d steps (reference %d), want 14", len(tape), len(ref))
	}
	for k := range tape {
		want := float64(min(k+1, 14-k-1))
		if k < 7 {
			want = float64(k + 1)
		}
		if tape[k] != want || ref[k] != want {
			t.Errorf("step %d: tape %v (reference %v), want %v", k+1, tape[k], ref[k], want)
		}
	}
	algotest.Near(t, "peak", simtest.Metric(t, rev.Frame(), "peak"), 7, 0)
	// The chain's derivative: Π cos(s_{k−1}), by both modes.
	x, d := 1.0, 1.0
	for range 6 {
		d *= math.Cos(x)
		x = math.Sin(x)
	}
	algotest.Near(t, "forward tangent", simtest.Metric(t, f, "tangent"), d, 1e-15)
	algotest.Near(t, "reverse adjoint", simtest.Metric(t, rev.Frame(), "adjoint"), d, 1e-15)
}

// TestGraphBadInput: a parse error names the byte; an undefined variable
// lists the defined ones; a division by zero or the log of a negative
// number stops the sweep at the failing node, drawn in red, never a panic;
// a graph past the pane's size, an unknown seed variable or a missing
// output is refused with the limit.
func TestGraphBadInput(t *testing.T) {
	for _, tc := range []struct {
		set  map[string]string
		want string
	}{
		{map[string]string{"expr": "x + * 2"}, `at byte 4: expected a number, a variable, a function or '(', found "*" (at x + »*« 2)`},
		{map[string]string{"preset": "notes", "expr": "x + z"}, "undefined variable z (defined: x)"},
		{map[string]string{"vars": "x=3, y"}, `"y" is not name=value`},
		{map[string]string{"vars": "x=abc"}, "is not a finite number"},
		{map[string]string{"preset": "notes", "expr": strings.Repeat("sin(", 40) + "x" + strings.Repeat(")", 40)}, "its graph has 41 nodes; the pane draws at most 40"},
		{map[string]string{"wrt": "q"}, `parameter wrt = "q": not a variable`},
		{map[string]string{"output": "2"}, "parameter output = 2: the expression has 1 output(s)"},
		{map[string]string{"expr": strings.Repeat("x", 5000)}, "at most 4096 bytes"},
	} {
		_, err := simtest.BuildErr(Graph, tc.set, 0, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.set, err, tc.want)
		}
	}
	for _, tc := range []struct{ expr, want string }{
		{"x + 1/(x-3)", "division by zero: s4 = 1/(x-3), bytes 4–11"},
		{"x*log(x-5)", "log of a non-positive number (-2): s3 = log(x-5), bytes 2–10"},
	} {
		for _, mode := range []string{"forward", "reverse"} {
			s := simtest.Build(t, Graph, map[string]string{"preset": "notes", "expr": tc.expr, "mode": mode}, 0, nil)
			err := simtest.RunErr(s, 50)
			if err == nil || err == sims.ErrConverged {
				t.Fatalf("%s (%s): ran to the end", tc.expr, mode)
			}
			f := s.Frame()
			var red []string
			for _, n := range graphChart(t, f).Nodes {
				if n.Class == classWrong && n.Tone == sims.ToneFocus {
					red = append(red, n.Label)
				}
			}
			if len(red) != 1 || !strings.Contains(simtest.Text(f), tc.want) {
				t.Errorf("%s (%s): error %v, red nodes %v, notes\n%s", tc.expr, mode, err, red, simtest.Text(f))
			}
			simtest.FiniteMetrics(t, f)
		}
	}
	// Nothing typed panics.
	for _, expr := range []string{"(", ")", "x^", "sin(", "u = ; u", "u = x", "x,,x", "1e400", "-", "x/0", "0^-1", "sqrt(0*x)", "exp(exp(exp(x)))", "(-x)^x"} {
		s, err := simtest.BuildErr(Graph, map[string]string{"expr": expr}, 0, nil)
		if err == nil {
			_ = simtest.RunErr(s, 50)
			simtest.FiniteMetrics(t, s.Frame())
			s.Result()
		}
	}
}
