package adsim

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/sims/simtest"
)

// TestHeronErrors is catalogue §1.9 (a = 2, x₀ = 1) through the pane: the
// iterates, and the errors of the unrolled derivative (1.46e-1, 7.6e-3,
// 1.3e-5, 1.8e-11, 0) and of the IFT derivative (6.1e-4, 5.3e-7, 4.0e-13,
// then rounding) step by step, within half a unit of the quoted digits;
// the run stops at k = 6.
func TestHeronErrors(t *testing.T) {
	s := simtest.Build(t, Implicit, nil, 0, nil)
	iterates := []float64{1.5, 1.4166666666666665, 1.4142156862745097, 1.4142135623746899}
	unrolled := []float64{1.46e-1, 7.6e-3, 1.3e-5, 1.8e-11, 0}
	ift := []float64{6.1e-4, 5.3e-7, 4.0e-13, 0, 0}
	quoted := func(got, want float64, digits int) bool {
		if want == 0 {
			return got <= 1e-16
		}
		unit := math.Pow(10, math.Floor(math.Log10(want))-float64(digits-1))
		return math.Abs(got-want) <= unit/2
	}
	for k := range unrolled {
		simtest.Run(t, s, 1)
		f := s.Frame()
		if k < len(iterates) {
			algotest.Near(t, fmt.Sprintf("x_%d", k+1), simtest.Metric(t, f, "x"), iterates[k], 0)
		}
		digits := 2
		if k == 0 {
			digits = 3
		}
		if got := simtest.Metric(t, f, "unrolled_err"); !quoted(got, unrolled[k], digits) {
			t.Errorf("k=%d unrolled error %.3g, want %.2g", k+1, got, unrolled[k])
		}
		if got := simtest.Metric(t, f, "ift_err"); !quoted(got, ift[k], 2) {
			t.Errorf("k=%d IFT error %.3g, want %.2g", k+1, got, ift[k])
		}
	}
	row := tableNamed(t, s.Frame(), "x_k").Rows[1]
	if row.Cells[1].Text != "1.46e-1" || row.Cells[2].Text != "6.12e-4" {
		t.Errorf("row k=1: %+v", row.Cells)
	}
	if steps := simtest.RunToEnd(t, s, 10); steps != 0 {
		t.Errorf("converged %d steps after k = 5, want at k = 6", steps+1)
	}
	if _, err := simtest.BuildErr(Implicit, map[string]string{"x0": "0"}, 0, nil); err == nil {
		t.Error("x0 = 0 accepted")
	}
	// The least x₀ the parameter takes overflows the first iteration's
	// derivative: refused, naming x0, not a crash or a run stuck at +Inf.
	if _, err := simtest.BuildErr(Implicit, map[string]string{"x0": "5e-324"}, 0, nil); !algo.IsParamError(err, "x0") {
		t.Errorf("x0 = 5e-324: %v, want a ParamError naming x0", err)
	}
}

// TestCircleSlopes is Example 1.1: at (0.6, 0.8) the IFT slope is −0.75 =
// d/dx √(1 − x²); at (−1, 0) and (1, 0) the theorem fails and the pane says
// so; on the lower branch the slope is x/√(1 − x²).
func TestCircleSlopes(t *testing.T) {
	s := simtest.Build(t, Implicit, map[string]string{"demo": "circle"}, 0, nil)
	simtest.Run(t, s, 1)
	f := s.Frame()
	algotest.Near(t, "x", simtest.Metric(t, f, "x"), 0.6, 0)
	algotest.Near(t, "y", simtest.Metric(t, f, "y"), 0.8, 1e-15)
	algotest.Near(t, "slope at (0.6, 0.8)", simtest.Metric(t, f, "slope"), -0.75, 1e-15)
	simtest.Run(t, s, 8) // x = −1
	f = s.Frame()
	if simtest.Metric(t, f, "fails") != 1 || !strings.Contains(simtest.Text(f), "IFT fails at (-1, 0)") {
		t.Errorf("at (−1, 0): fails %v, notes\n%s", simtest.Metric(t, f, "fails"), simtest.Text(f))
	}
	simtest.Run(t, s, 2) // x = −0.6 on the lower branch
	f = s.Frame()
	algotest.Near(t, "slope at (−0.6, −0.8)", simtest.Metric(t, f, "slope"), -0.6/0.8, 1e-15)
	simtest.Run(t, s, 8) // back at (1, 0)
	if simtest.Metric(t, s.Frame(), "fails") != 2 {
		t.Error("(1, 0) not flagged")
	}
}

// TestImplicitLU is §1.11: Newton solves the layer to rounding, ∂₁F is
// factorised once, two JVPs (columns) and three VJPs (rows) take five
// solves, give the same ∂w*/∂λ to 1e-14, and re-solving agrees to 1e-8.
func TestImplicitLU(t *testing.T) {
	s := simtest.Build(t, Implicit, map[string]string{"demo": "lu"}, 0, nil)
	steps := simtest.RunToEnd(t, s, 30)
	f := s.Frame()
	newton := int(simtest.Metric(t, f, "newton"))
	if newton > 8 || steps != newton+1+2+3 {
		t.Errorf("%d steps with %d Newton steps; want Newton, 1 factorisation, 2 JVPs, 3 VJPs", steps, newton)
	}
	algotest.Near(t, "factorisations", simtest.Metric(t, f, "lu"), 1, 0)
	algotest.Near(t, "solves", simtest.Metric(t, f, "solves"), 5, 0)
	if d := simtest.Metric(t, f, "jvp_vjp"); d > 1e-14 {
		t.Errorf("JVPs and VJPs differ by %g", d)
	}
	if d := simtest.Metric(t, f, "fd_err"); d > 1e-8 {
		t.Errorf("re-solving differs by %g", d)
	}
}

// TestLPSensitivity is catalogue §1.12 through the pane: x* = (3, 1) at
// b = (4, 6), y* = (−0.5, −0.5), dx*/db = [[1.5, −0.5], [−0.5, 0.5]] from
// the KKT system, re-solving gives the same; sweeping b₁ the prediction is
// exact until the vertex degenerates at b₁ = 6 (the IFT fails there) and
// misses after the basis changes.
func TestLPSensitivity(t *testing.T) {
	s := simtest.Build(t, Implicit, map[string]string{"demo": "lp"}, 0, nil)
	f := s.Frame()
	algotest.Near(t, "x1", simtest.Metric(t, f, "x1"), 3, 1e-12)
	algotest.Near(t, "x2", simtest.Metric(t, f, "x2"), 1, 1e-12)
	algotest.Near(t, "obj", simtest.Metric(t, f, "obj"), -5, 1e-12)
	sens := tableNamed(t, f, "at b₀")
	want := [][]string{{"3", "1.5", "-0.5", "1.5", "-0.5"}, {"1", "-0.5", "0.5", "-0.5", "0.5"},
		{"0", "0", "0", "0", "0"}, {"0", "0", "0", "0", "0"}, {"-5", "-0.5", "-0.5"}}
	for i, row := range sens.Rows {
		for j, c := range row.Cells {
			if c.Text != want[i][j] {
				t.Errorf("%s, column %d: %q, want %q", row.Label, j, c.Text, want[i][j])
			}
		}
	}
	for k := 1; k <= 12; k++ {
		simtest.Run(t, s, 1)
		f := s.Frame()
		b1, miss, ift := simtest.Metric(t, f, "b1"), simtest.Metric(t, f, "miss"), simtest.Metric(t, f, "ift")
		switch {
		case b1 < 6:
			if miss > 1e-9 || ift != 1 {
				t.Errorf("b1 = %g: prediction misses by %g, ift %v", b1, miss, ift)
			}
			algotest.Near(t, fmt.Sprintf("x1 at b1 = %g", b1), simtest.Metric(t, f, "x1"), 3+1.5*(b1-4), 1e-9)
		case b1 == 6:
			if ift != 0 || !strings.Contains(simtest.Text(f), "degenerate") {
				t.Errorf("b1 = 6: ift %v, notes\n%s", ift, simtest.Text(f))
			}
		default:
			if miss < 0.1 || !strings.Contains(simtest.Text(f), "basis changed") {
				t.Errorf("b1 = %g: miss %g, notes\n%s", b1, miss, simtest.Text(f))
			}
		}
	}
}

// TestSci: the notes' short scientific form, and a value that is not
// finite written out rather than cut (a table cell never crashes a pane).
func TestSci(t *testing.T) {
	for _, c := range []struct {
		x      float64
		digits int
		want   string
	}{
		{0.1463, 3, "1.46e-1"}, {0, 1, "0"}, {6.1e-4, 2, "6.1e-4"}, {1234, 2, "1.2e3"}, {-5.6e-17, 2, "-5.6e-17"},
		{math.NaN(), 3, "NaN"}, {math.Inf(1), 3, "+Inf"}, {math.Inf(-1), 3, "-Inf"},
	} {
		if got := sci(c.x, c.digits); got != c.want {
			t.Errorf("sci(%g, %d) = %q, want %q", c.x, c.digits, got, c.want)
		}
	}
}
