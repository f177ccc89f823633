package algotest

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/thelab/lab/algo"
)

// recorder is a testing.TB that records whether an error was reported.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper()                   {}
func (r *recorder) Errorf(string, ...any)     { r.failed = true }
func (r *recorder) report(f func(testing.TB)) { f(r) }

func TestNear(t *testing.T) {
	for _, c := range []struct {
		got, want, tol float64
		fails          bool
	}{
		{1, 1, 0, false}, {1, 1.1, 0.2, false}, {1, 1.3, 0.2, true},
		{math.NaN(), 1, 1, true}, {1, math.Inf(1), 1e300, true},
	} {
		r := &recorder{}
		r.report(func(t testing.TB) { Near(t, "x", c.got, c.want, c.tol) })
		if r.failed != c.fails {
			t.Errorf("Near(%v, %v, ±%v): failed %v, want %v", c.got, c.want, c.tol, r.failed, c.fails)
		}
	}
}

func TestWantParam(t *testing.T) {
	bad := algo.BadParam("step", 0, "> 0")
	for _, c := range []struct {
		err   error
		name  string
		fails bool
	}{
		{bad, "step", false}, {fmt.Errorf("building: %w", bad), "step", false},
		{bad, "tol", true}, {errors.New("step"), "step", true}, {nil, "step", true},
	} {
		r := &recorder{}
		r.report(func(t testing.TB) { WantParam(t, c.err, c.name) })
		if r.failed != c.fails {
			t.Errorf("WantParam(%v, %s): failed %v, want %v", c.err, c.name, r.failed, c.fails)
		}
	}
}

// TestOrthogonal: Q Qᵀ = I to 1e-12.
func TestOrthogonal(t *testing.T) {
	for _, d := range []int{1, 2, 5} {
		q := Orthogonal(rand.New(rand.NewPCG(1, uint64(d))), d)
		for a := range q {
			for b := range q {
				dot := 0.0
				for i := range q[a] {
					dot += q[a][i] * q[b][i]
				}
				if want := float64(boolInt(a == b)); math.Abs(dot-want) > 1e-12 {
					t.Errorf("d = %d: q%d·q%d = %v", d, a, b, dot)
				}
			}
		}
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
