package adsim

import (
	"fmt"
	"strings"
	"testing"

	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/simtest"
)

// xiBars reads the chain of exact chromatic numbers off the bar chart.
func xiBars(t *testing.T, f sims.Frame) []int {
	t.Helper()
	for _, c := range f.Charts {
		if b, ok := c.(sims.BarChart); ok {
			var xi []int
			for _, bar := range b.Bars {
				xi = append(xi, int(bar.Value))
			}
			return xi
		}
	}
	t.Fatal("no ξ chart")
	return nil
}

// tableTexts is a table's cells as text, row by row.
func tableTexts(tc sims.TableChart) [][]string {
	out := make([][]string, len(tc.Rows))
	for i, r := range tc.Rows {
		for _, c := range r.Cells {
			out[i] = append(out[i], c.Text)
		}
	}
	return out
}

// TestColoringNotesHessian is §1.9.2 (eqs 1.61–1.63) with a_i = i: the
// colouring {1,4}/{2,3}, two HVPs giving [[1,5],[7,4],[3,6],[7,5]], and the
// ten entries recovered exactly by substitution along the path 3–1–2–4;
// its chain is ξ₁ = 2, ξ_acyclic = 2, ξ_star = 3, ξ₂ = 3 (L701: "3 JVPs").
func TestColoringNotesHessian(t *testing.T) {
	s := simtest.Build(t, Coloring, nil, 0, nil)
	simtest.Run(t, s, 4) // colour the four vertices
	if got := fmt.Sprint(s.Result()["colors"]); got != "[0 1 1 0]" {
		t.Errorf("colours %s, want {1,4} red, {2,3} blue", got)
	}
	simtest.Run(t, s, 2) // two HVPs
	B := tableTexts(tableNamed(t, s.Frame(), "B = H·S"))
	if fmt.Sprint(B) != "[[1 5] [7 4] [3 6] [7 5]]" {
		t.Errorf("H·S = %v, want [[1,5],[7,4],[3,6],[7,5]]", B)
	}
	simtest.RunToEnd(t, s, 20)
	f := s.Frame()
	H := tableTexts(tableNamed(t, f, "H"))
	if fmt.Sprint(H) != "[[1 2 3 ] [2 4  5] [3  6 ] [ 5  7]]" {
		t.Errorf("recovered H = %v", H)
	}
	algotest.Near(t, "passes", simtest.Metric(t, f, "passes"), 2, 0)
	algotest.Near(t, "dense passes", simtest.Metric(t, f, "dense"), 4, 0)
	algotest.Near(t, "recovered", simtest.Metric(t, f, "found"), 10, 0)
	algotest.Near(t, "error", simtest.Metric(t, f, "err"), 0, 0)
	if got := fmt.Sprint(xiBars(t, f)); got != "[2 2 3 3]" {
		t.Errorf("ξ chain %s, want [2 2 3 3]", got)
	}
}

// TestColoringJacobian is §1.9 (eqs 1.54–1.58): the columns {1,2,5}/{3,4}
// in 2 JVPs instead of 5, or the rows {r1,r4}/{r2,r3} in 2 VJPs instead of
// 4, and decompression puts every entry back exactly.
func TestColoringJacobian(t *testing.T) {
	for _, tc := range []struct{ by, colors, dense string }{{"columns", "[0 0 1 1 0]", "5"}, {"rows", "[0 1 1 0]", "4"}} {
		s := simtest.Build(t, Coloring, map[string]string{"problem": "jacobian", "by": tc.by}, 0, nil)
		simtest.RunToEnd(t, s, 30)
		f := s.Frame()
		if got := fmt.Sprint(s.Result()["colors"]); got != tc.colors {
			t.Errorf("%s: colours %s, want %s", tc.by, got, tc.colors)
		}
		algotest.Near(t, tc.by+" passes", simtest.Metric(t, f, "passes"), 2, 0)
		algotest.Near(t, tc.by+" dense", simtest.Metric(t, f, "dense"), simtest.Float(tc.dense), 0)
		algotest.Near(t, tc.by+" recovered", simtest.Metric(t, f, "found"), 8, 0)
		if e := simtest.Metric(t, f, "err"); e > 1e-15 {
			t.Errorf("%s: decompression off by %g", tc.by, e)
		}
	}
}

// TestColoringChains are the catalogue's exact chromatic numbers (§1.17):
// P7 2, 2, 3, 3; the star K₁,₅ 2, 2, 2, 6; C4 2, 3, 3, 4; the 3×3 grid 2,
// 3, 4, 5; each Hessian recovered exactly with its acyclic and star
// colourings.
func TestColoringChains(t *testing.T) {
	for _, tc := range []struct {
		problem, n, want string
	}{{"path", "7", "[2 2 3 3]"}, {"star", "6", "[2 2 2 6]"}, {"cycle", "4", "[2 3 3 4]"}, {"grid", "3", "[2 3 4 5]"}} {
		for _, kind := range []string{"acyclic", "star", "distance-2"} {
			s := simtest.Build(t, Coloring, map[string]string{"problem": tc.problem, "n": tc.n, "kind": kind}, 0, nil)
			simtest.RunToEnd(t, s, 200)
			f := s.Frame()
			if got := fmt.Sprint(xiBars(t, f)); got != tc.want {
				t.Errorf("%s: ξ chain %s, want %s", tc.problem, got, tc.want)
			}
			if e := simtest.Metric(t, f, "err"); e > 1e-14 || simtest.Metric(t, f, "found") != simtest.Metric(t, f, "of") {
				t.Errorf("%s %s: recovered %v of %v, error %g", tc.problem, kind, simtest.Metric(t, f, "found"),
					simtest.Metric(t, f, "of"), e)
			}
		}
	}
}

// TestColoringDistance1Stuck: a distance-1 colouring of a cycle leaves a
// two-coloured cycle, whose unknowns peeling cannot separate (§1.9.4): the
// run stops with the reason, never a panic.
func TestColoringDistance1Stuck(t *testing.T) {
	s := simtest.Build(t, Coloring, map[string]string{"problem": "cycle", "n": "6", "kind": "distance-1"}, 0, nil)
	err := simtest.RunErr(s, 100)
	if err == nil || !strings.Contains(err.Error(), "cycle") {
		t.Fatalf("ended with %v", err)
	}
	f := s.Frame()
	if !strings.Contains(simtest.Text(f), "✗ peeling stuck: 6 unknowns coupled") || simtest.Metric(t, f, "found") >= simtest.Metric(t, f, "of") {
		t.Errorf("notes\n%s", simtest.Text(f))
	}
}

// TestColoringChainProperty is eq 1.68 on random graphs: ξ₁ ≤ ξ_acyclic ≤
// ξ_star ≤ ξ₂, and a greedy colouring never beats the exact number of its
// kind.
func TestColoringChainProperty(t *testing.T) {
	for seed := range uint64(12) {
		n := fmt.Sprint(5 + seed%6)
		for _, kind := range []string{"distance-1", "acyclic", "star", "distance-2"} {
			s := simtest.Build(t, Coloring, map[string]string{"problem": "random", "n": n, "p": "0.35", "kind": kind}, seed, nil)
			xi := xiBars(t, s.Frame())
			for k := 1; k < len(xi); k++ {
				if xi[k-1] > xi[k] {
					t.Errorf("seed %d: chain %v is not increasing", seed, xi)
				}
			}
			_ = simtest.RunErr(s, 100) // distance-1 may be stuck on a cycle
			exact := xi[map[string]int{"distance-1": 0, "acyclic": 1, "star": 2, "distance-2": 3}[kind]]
			if got := simtest.Metric(t, s.Frame(), "colours"); int(got) < exact {
				t.Errorf("seed %d %s: greedy used %v colours, below ξ = %d", seed, kind, got, exact)
			}
		}
	}
}

// TestColoringLimits: a grid past 16 vertices is refused with the limit.
func TestColoringLimits(t *testing.T) {
	_, err := simtest.BuildErr(Coloring, map[string]string{"problem": "grid", "n": "5"}, 0, nil)
	if err == nil || !strings.Contains(err.Error(), "at most 16") {
		t.Errorf("5×5 grid: %v", err)
	}
}
