package otsim

import (
	"fmt"
	"strings"
	"testing"

	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/simtest"
)

// table reads CSV text as --data does for the OT sims.
func table(t *testing.T, text string) *sims.Table {
	t.Helper()
	tab, err := sims.ReadCSV(strings.NewReader(text), sideColumn)
	if err != nil {
		t.Fatal(err)
	}
	tab.Name = "f.csv"
	return tab
}

// TestDataPoints: point rows with weights and sides, in any order, are a
// transport problem whose masses are the weights divided by each side's
// total; without a weight column the masses are uniform; the LP solves
// them (the 1-D optimum is the sorted cost).
func TestDataPoints(t *testing.T) {
	tab := table(t, "x,weight,side\n2,1,target\n0,1,source\n# a comment\n1,3,source\n3,3,target\n")
	s := simtest.Build(t, LP, nil, 1, tab)
	simtest.RunToEnd(t, s, 100)
	f := s.Frame()
	// μ = ¼δ0 + ¾δ1, ν = ¼δ2 + ¾δ3: the monotone coupling moves every
	// atom by 2, so ⟨C, P⟩ = 4 for |x − y|².
	algotest.Near(t, "cost", simtest.Metric(t, f, "cost"), 4, 1e-12)
	algotest.Near(t, "sorted", simtest.Metric(t, f, "sorted"), 4, 1e-12)

	tab = table(t, "x,y,side\n0,0,source\n1,0,source\n0,1,target\n1,1,target\n")
	s = simtest.Build(t, Sinkhorn, map[string]string{"eps": "0.01"}, 1, tab)
	simtest.RunToEnd(t, s, 10000)
	algotest.Near(t, "2-D cost", simtest.Metric(t, s.Frame(), "cost"), 1, 1e-6)
}

// TestDataHistograms: x,a,b columns are two histograms on a shared
// support; the sims that take a discrete problem and the 1-D ones read
// them.
func TestDataHistograms(t *testing.T) {
	tab := table(t, "x,a,b\n0,1,0\n1,1,0\n2,0,1\n3,0,1\n")
	s := simtest.Build(t, OneD, map[string]string{"p": "1"}, 1, tab)
	algotest.Near(t, "W1", simtest.Metric(t, s.Frame(), "W1"), 2, 1e-12)
	s = simtest.Build(t, Sinkhorn, map[string]string{"eps": "1"}, 1, tab)
	simtest.RunToEnd(t, s, 10000)
	algotest.Near(t, "LP", simtest.Metric(t, s.Frame(), "lp"), 4, 1e-12)
	s = simtest.Build(t, Geodesic, nil, 1, tab)
	simtest.RunToEnd(t, s, 1000)
	algotest.Near(t, "geodesic end mean", simtest.Metric(t, s.Frame(), "mean"), 2.5, 1e-12)
}

// TestDataRefusals: every bad file is refused with a message that says
// what is wrong and where: unequal totals with both sums (never
// rescaled), a negative weight with its line, an empty side, a missing
// column, and 2-D points for a 1-D sim.
func TestDataRefusals(t *testing.T) {
	for _, tt := range []struct {
		name string
		spec *sims.Spec
		text string
		want []string
	}{
		{"unequal", LP, "x,weight,side\n0,1,source\n1,1.5,target\n",
			[]string{"source masses sum to 1", "target masses to 1.5", "not rescaled"}},
		{"negative", Sinkhorn, "x,weight,side\n0,1,source\n# c\n1,-2,target\n2,3,target\n",
			[]string{"line 4", "weight -2"}},
		{"empty side", Assignment, "x,side\n0,source\n1,source\n", []string{"target side has no rows"}},
		{"no side", LP, "x,weight\n0,1\n", []string{"no column side", "x,a,b"}},
		{"no x", LP, "y,side\n0,source\n", []string{"no column x"}},
		{"a without b", Sinkhorn, "x,a\n0,1\n", []string{"no column b"}},
		{"negative bin", Sinkhorn, "x,a,b\n0,1,1\n1,-1,1\n", []string{"line 3", "mass -1"}},
		{"overflowing cost", LP, "x,side\n-9e153,source\n9e153,target\n", []string{"ground cost", "overflows", "+Inf"}}, // the reader refuses a column whose squares overflow
		{"2-D for 1-D", OneD, "x,y,side\n0,0,source\n1,1,target\n", []string{"on the line", "2 coordinates"}},
		// Too many atoms to enumerate: the file is what the user set, not n.
		{"10 by 10 to enumerate", Assignment, atomsCSV(10, 1, 10, 1),
			[]string{"--data f.csv", "20 rows", "10 source and 10 target atoms", "method = enumerate takes at most 8 atoms", "--set method=hungarian"}},
		{"9 by 3 to enumerate", Assignment, atomsCSV(9, 1, 3, 3),
			[]string{"--data f.csv", "12 rows", "9 source and 3 target atoms", "at most 8 atoms"}},
	} {
		_, err := simtest.BuildErr(tt.spec, nil, 1, table(t, tt.text))
		if err == nil {
			t.Errorf("%s: accepted", tt.name)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q lacks %q", tt.name, err, w)
			}
		}
		if strings.Contains(err.Error(), "parameter n ") {
			t.Errorf("%s: %q blames n, which --data overrides", tt.name, err)
		}
	}
}

// atomsCSV is n source atoms of weight a and m target atoms of weight b
// on the line, as --data text.
func atomsCSV(n int, a float64, m int, b float64) string {
	var s strings.Builder
	s.WriteString("x,weight,side\n")
	for i := range n {
		fmt.Fprintf(&s, "%d,%g,source\n", i, a)
	}
	for j := range m {
		fmt.Fprintf(&s, "%d.5,%g,target\n", j, b)
	}
	return s.String()
}
