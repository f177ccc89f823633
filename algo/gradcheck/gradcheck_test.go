package gradcheck

import (
	"errors"
	"math"
	"testing"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/algotest"
)

// TestFunc: a right gradient of f(x, y) = sin(x)·e^y passes with relative
// error ≤ 1e-9; one wrong entry is found and named.
func TestFunc(t *testing.T) {
	f := func(x []float64) float64 { return math.Sin(x[0]) * math.Exp(x[1]) }
	x := []float64{0.7, -0.3}
	grad := []float64{math.Cos(0.7) * math.Exp(-0.3), math.Sin(0.7) * math.Exp(-0.3)}
	r, err := Func(f, grad, x, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.MaxRel > 1e-9 || r.Kinks != 0 {
		t.Errorf("right gradient: max rel %g, kinks %d", r.MaxRel, r.Kinks)
	}
	if x[0] != 0.7 || x[1] != -0.3 {
		t.Errorf("x not restored: %v", x)
	}
	grad[1] *= 1.01
	r, _ = Func(f, grad, x, nil)
	if r.Worst != 1 {
		t.Errorf("worst entry %d, want 1", r.Worst)
	}
	algotest.Near(t, "relative error of a 1% mistake", r.MaxRel, 0.01/1.01, 1e-6)
}

// TestWithKinks: |x| at x = 0 with the branch as hash: the entry is
// flagged and left out of MaxRel; away from 0 it is not.
func TestWithKinks(t *testing.T) {
	f := func(x []float64) (float64, uint64) {
		var h uint64
		if x[0] > 0 {
			h = 1
		}
		return math.Abs(x[0]) + x[1]*x[1], h
	}
	r, err := WithKinks(f, []float64{0, 2}, []float64{0, 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Kink[0] || r.Kink[1] || r.Kinks != 1 || r.Worst != 1 {
		t.Errorf("kinks %v, worst %d", r.Kink, r.Worst)
	}
	r, _ = WithKinks(f, []float64{1, 2}, []float64{0.5, 1}, nil)
	if r.Kinks != 0 || r.MaxRel > 1e-9 {
		t.Errorf("away from the kink: kinks %d, max rel %g", r.Kinks, r.MaxRel)
	}
}

// TestBadInput names the refused parameter.
func TestBadInput(t *testing.T) {
	f := func(x []float64) float64 { return x[0] }
	_, err := Func(f, []float64{1, 2}, []float64{0}, nil)
	algotest.WantParam(t, err, "grad")
	_, err = Func(f, []float64{1}, []float64{0}, &Settings{Step: -1})
	algotest.WantParam(t, err, "step")
	_, err = Func(f, []float64{1}, []float64{math.NaN()}, nil)
	algotest.WantParam(t, err, "x, grad")
}

// TestCheckerSteps: one entry per Step gives what Func gives at once, with
// the result so far covering the entries checked, x restored after every
// step, and ErrConverged at the end.
func TestCheckerSteps(t *testing.T) {
	f := func(x []float64) (float64, uint64) { return x[0]*x[1] + math.Exp(x[2]), 0 }
	x := []float64{0.5, -2, 0.1}
	grad := []float64{-2, 0.5 * 1.5, math.Exp(0.1)} // the second entry 50% off
	c, err := NewChecker(f, grad, x, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k := range 3 {
		if err := c.Step(); err != nil {
			t.Fatal(err)
		}
		if c.Checked() != k+1 || x[0] != 0.5 || x[1] != -2 || x[2] != 0.1 {
			t.Fatalf("after step %d: checked %d, x %v", k+1, c.Checked(), x)
		}
		if wantWorst := map[int]int{0: 0, 1: 1, 2: 1}[k]; c.Result().Worst != wantWorst {
			t.Errorf("after step %d: worst %d, want %d", k+1, c.Result().Worst, wantWorst)
		}
	}
	if err := c.Step(); !errors.Is(err, algo.ErrConverged) {
		t.Errorf("step past the end: %v", err)
	}
	all, _ := WithKinks(f, grad, x, nil)
	for i := range 3 {
		algotest.Near(t, "rel", c.Result().Rel[i], all.Rel[i], 0)
	}
	algotest.Near(t, "a 50% mistake", c.Result().MaxRel, 0.25/0.75, 1e-6)
}

// TestCentralDifferenceError measures the Step doc comment's error budget
// at the default h = 1e-5 on f = x³, whose f‴ = 6 makes the truncation
// error exactly h² f‴/6 = 1e-10: the difference FD − f′ is that within the
// rounding error, at most ε(|f| + |x f′|)/h (the rounding of f(x ± h) and
// of x ± h); at x = 1 both are near 1e-10 and the whole error is 9.7e-11.
func TestCentralDifferenceError(t *testing.T) {
	const h, eps = 1e-5, 0x1p-52
	f := func(x []float64) float64 { return x[0] * x[0] * x[0] }
	for _, x0 := range []float64{1, 2, -3, 0.1, 0.5} {
		d := 3 * x0 * x0
		r, err := Func(f, []float64{d}, []float64{x0}, nil)
		if err != nil {
			t.Fatal(err)
		}
		rounding := eps * (math.Abs(x0*x0*x0) + math.Abs(x0*d)) / h
		if e := r.FD[0] - d; math.Abs(e-h*h) > rounding {
			t.Errorf("x = %g: FD − f′ = %.3g, want h²f‴/6 = 1e-10 ± %.2g", x0, e, rounding)
		}
	}
}
