package adsim

import (
	"errors"
	"fmt"
	"strconv"
	"testing"

	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/simtest"
)

// scoreboard reads the hessian sim's scoreboard: per strategy, runs done,
// passes and peak tape.
func scoreboard(t *testing.T, f sims.Frame) map[string][3]int {
	t.Helper()
	out := map[string][3]int{}
	for _, r := range tableNamed(t, f, "cost").Rows {
		var runs, total int
		if _, err := fmt.Sscanf(r.Cells[0].Text, "%d/%d", &runs, &total); err != nil {
			t.Fatal(err)
		}
		passes, _ := strconv.Atoi(r.Cells[1].Text)
		tape, _ := strconv.Atoi(r.Cells[2].Text)
		out[r.Label] = [3]int{runs, passes, tape}
	}
	return out
}

// TestHessianRosenbrock is catalogue §1.8: at (1, 1) all four strategies
// give [[802, −400], [−400, 200]]; FoF takes n² = 4 runs of one pass, the
// others n = 2 runs of 3, 2 and 3 passes (Table 1.1), with tapes of 0, K,
// K and 2K records; gonum's fd.Hessian agrees.
func TestHessianRosenbrock(t *testing.T) {
	s := simtest.Build(t, Hessian, map[string]string{"n": "2"}, 0, nil)
	simtest.Run(t, s, 2)
	board := scoreboard(t, s.Frame())
	if board["FoR"][0] != 2 || board["FoF"][0] != 2 {
		t.Errorf("after 2 steps: %v; want FoR done, FoF half way", board)
	}
	simtest.RunToEnd(t, s, 10)
	f := s.Frame()
	res := s.Result()
	for _, st := range []string{"FoF", "FoR", "RoF", "RoR"} {
		H := res[st].(map[string]any)["hessian"].([]float64)
		for i, want := range []float64{802, -400, -400, 200} {
			algotest.Near(t, fmt.Sprintf("%s H[%d]", st, i), H[i], want, 1e-12)
		}
	}
	K := int(simtest.Metric(t, f, "ops"))
	board = scoreboard(t, f)
	for st, want := range map[string][3]int{"FoF": {4, 4, 0}, "FoR": {2, 6, K}, "RoF": {2, 4, K}, "RoR": {2, 6, 2 * K}} {
		if board[st] != want {
			t.Errorf("%s: runs, passes, tape %v; want %v", st, board[st], want)
		}
	}
	if e := simtest.Metric(t, f, "fd_err"); e > 1e-6 {
		t.Errorf("fd.Hessian differs by %g (relative)", e)
	}
	if a := simtest.Metric(t, f, "diff"); a > 1e-12 {
		t.Errorf("strategies disagree by %g", a)
	}
}

// TestHessianChain: on a chain of K = 60 sines after x₁x₂x₃ the four agree
// to 1e-12 (relative), FoF needs n² = 9 runs and the others 3, RoR's tape
// is twice FoR's, and the run stops after n² steps.
func TestHessianChain(t *testing.T) {
	s := simtest.Build(t, Hessian, map[string]string{"fn": "chain", "n": "3", "k": "60"}, 0, nil)
	steps := simtest.RunToEnd(t, s, 20)
	if steps != 9 {
		t.Errorf("%d steps, want n² = 9", steps)
	}
	f := s.Frame()
	board := scoreboard(t, f)
	if board["FoF"][0] != 9 || board["RoF"][0] != 3 || board["RoR"][2] != 2*board["FoR"][2] || board["FoR"][2] < 60 {
		t.Errorf("scoreboard %v", board)
	}
	if a := simtest.Metric(t, f, "diff"); a > 1e-12 {
		t.Errorf("strategies disagree by %g", a)
	}
	if e := simtest.Metric(t, f, "fd_err"); e > 1e-5 {
		t.Errorf("fd.Hessian differs by %g", e)
	}
	if err := s.Step(); !errors.Is(err, sims.ErrConverged) {
		t.Errorf("after the end: %v", err)
	}
}
