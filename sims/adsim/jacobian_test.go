package adsim

import (
	"errors"
	"strings"
	"testing"

	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/simtest"
)

// filled lists which cells of a table hold a value (not "·").
func filled(tc sims.TableChart) [][]bool {
	out := make([][]bool, len(tc.Rows))
	for i, r := range tc.Rows {
		for _, c := range r.Cells {
			out[i] = append(out[i], c.Text != "·")
		}
	}
	return out
}

// TestJacobianPasses is §1.5 on f: R⁵ → R⁴ (the catalogue's test): exactly
// 5 JVPs filling column by column, or 4 VJPs filling row by row; both
// assemblies give the same matrix, and central differences agree to 1e-8.
func TestJacobianPasses(t *testing.T) {
	var J [2][][]float64
	for k, mode := range []string{"forward", "reverse"} {
		s := simtest.Build(t, Jacobian, map[string]string{"mode": mode}, 3, nil)
		want := map[string]int{"forward": 5, "reverse": 4}[mode]
		for pass := 1; pass <= want; pass++ {
			simtest.Run(t, s, 1)
			f := s.Frame()
			fill := filled(tableNamed(t, f, "J"))
			for i := range 4 {
				for j := range 5 {
					want := j < pass
					if mode == "reverse" {
						want = i < pass
					}
					if fill[i][j] != want {
						t.Fatalf("%s pass %d: entry (%d, %d) filled %v", mode, pass, i, j, fill[i][j])
					}
				}
			}
		}
		if err := s.Step(); !errors.Is(err, sims.ErrConverged) {
			t.Errorf("%s: pass %d: %v, want the end", mode, want+1, err)
		}
		f := s.Frame()
		algotest.Near(t, mode+" passes", simtest.Metric(t, f, "passes"), float64(want), 0)
		if e := simtest.Metric(t, f, "fd_err"); e > 1e-8 {
			t.Errorf("%s: central differences differ by %g", mode, e)
		}
		J[k] = s.Result()["jacobian"].([][]float64)
	}
	for i := range J[0] {
		for j := range J[0][i] {
			algotest.Near(t, "JVP = VJP", J[0][i][j], J[1][i][j], 1e-15)
		}
	}
}

// TestJacobianCheaperMode: the notes say which mode prevails (L187–189).
func TestJacobianCheaperMode(t *testing.T) {
	for _, tc := range []struct{ n, m, want string }{
		{"2", "7", "forward is faster"}, {"7", "2", "reverse is faster"}, {"3", "3", "neither mode prevails"},
	} {
		s := simtest.Build(t, Jacobian, map[string]string{"n": tc.n, "m": tc.m}, 1, nil)
		if text := simtest.Text(s.Frame()); !strings.Contains(text, tc.want) {
			t.Errorf("n=%s m=%s: notes lack %q:\n%s", tc.n, tc.m, tc.want, text)
		}
	}
	if _, err := simtest.BuildErr(Jacobian, map[string]string{"n": "9"}, 1, nil); err == nil {
		t.Error("n = 9 accepted; the table shows at most 8")
	}
}
