package mcmc

import (
	"errors"
	"math"
	"testing"

	"github.com/thelab/lab/algo"
)

// checkKernel verifies that t is a stochastic matrix in detailed balance
// with p (eq 3.1) and that p is stationary, pT = p, all to 1e-12.
func checkKernel(t *testing.T, name string, p []float64, k [][]float64) {
	t.Helper()
	n := len(p)
	for i := range n {
		row := 0.0
		for j := range n {
			if k[i][j] < 0 {
				t.Errorf("%s: T[%d][%d] = %g < 0", name, i, j, k[i][j])
			}
			row += k[i][j]
			if d := math.Abs(p[i]*k[i][j] - p[j]*k[j][i]); d > 1e-12 {
				t.Errorf("%s: detailed balance fails at (%d,%d) by %g", name, i, j, d)
			}
		}
		if math.Abs(row-1) > 1e-12 {
			t.Errorf("%s: row %d sums to %.15f", name, i, row)
		}
	}
	for j := range n {
		s := 0.0
		for i := range n {
			s += p[i] * k[i][j]
		}
		if math.Abs(s-p[j]) > 1e-12 {
			t.Errorf("%s: (pT)_%d = %.15f, p_%d = %g", name, j, s, j, p[j])
		}
	}
}

// TestFiniteKernelDetailedBalance is the catalogue's oracle (i) for C4:
// target (0.1, 0.2, 0.4, 0.3) with a symmetric proposal.
func TestFiniteKernelDetailedBalance(t *testing.T) {
	p := []float64{0.1, 0.2, 0.4, 0.3}
	// Uniform over the other states: symmetric (the Metropolis kernel).
	uniform := [][]float64{
		{0, 1. / 3, 1. / 3, 1. / 3},
		{1. / 3, 0, 1. / 3, 1. / 3},
		{1. / 3, 1. / 3, 0, 1. / 3},
		{1. / 3, 1. / 3, 1. / 3, 0},
	}
	// A random walk on the ring 0–1–2–3–0, also symmetric.
	ring := [][]float64{
		{0, 0.5, 0, 0.5},
		{0.5, 0, 0.5, 0},
		{0, 0.5, 0, 0.5},
		{0.5, 0, 0.5, 0},
	}
	// An asymmetric proposal: detailed balance needs the Hastings
	// correction π(z|z')/π(z'|z) of eq 3.2.
	skew := [][]float64{
		{0.1, 0.6, 0.2, 0.1},
		{0.3, 0.1, 0.5, 0.1},
		{0.05, 0.05, 0.1, 0.8},
		{0.4, 0.3, 0.2, 0.1},
	}
	for _, c := range []struct {
		name string
		q    [][]float64
	}{{"uniform", uniform}, {"ring", ring}, {"asymmetric", skew}} {
		k, err := FiniteKernel(p, c.q)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		checkKernel(t, c.name, p, k)
	}

	// Unnormalised targets give the same kernel (Remark 3.2).
	k1, _ := FiniteKernel(p, uniform)
	k2, _ := FiniteKernel([]float64{1, 2, 4, 3}, uniform)
	for i := range k1 {
		for j := range k1[i] {
			if math.Abs(k1[i][j]-k2[i][j]) > 1e-15 {
				t.Errorf("kernel depends on the normalisation at (%d,%d)", i, j)
			}
		}
	}
	// Symmetric proposal: the Metropolis ratio min(1, p_j/p_i) (Remark 3.4).
	if got, want := k1[2][0], (1./3)*0.1/0.4; math.Abs(got-want) > 1e-15 {
		t.Errorf("T[2][0] = %g, want q·p0/p2 = %g", got, want)
	}
	if got := k1[0][2]; math.Abs(got-1./3) > 1e-15 {
		t.Errorf("T[0][2] = %g, want q = 1/3 (uphill moves always accepted)", got)
	}
}

func TestFiniteKernelBadParams(t *testing.T) {
	sym := [][]float64{{0.5, 0.5}, {0.5, 0.5}}
	cases := []struct {
		name string
		p    []float64
		q    [][]float64
	}{
		{"p", nil, nil},
		{"p", []float64{0.5, 0}, sym},
		{"p", []float64{0.5, math.Inf(1)}, sym},
		{"q", []float64{0.5, 0.5}, [][]float64{{1}}},
		{"q", []float64{0.5, 0.5}, [][]float64{{0.5, 0.6}, {0.5, 0.5}}},
		{"q", []float64{0.5, 0.5}, [][]float64{{0, 1}, {0, 1}}}, // q01 > 0, q10 = 0
		{"q", []float64{0.5, 0.5}, [][]float64{{1.5, -0.5}, {0.5, 0.5}}},
	}
	for _, c := range cases {
		_, err := FiniteKernel(c.p, c.q)
		var pe *algo.ParamError
		if !errors.As(err, &pe) || pe.Name != c.name {
			t.Errorf("FiniteKernel(%v, %v) = %v, want a ParamError naming %s", c.p, c.q, err, c.name)
		}
	}
}

// TestFiniteKernelRowTolerance: a proposal's rows must sum to one within
// 1e-12, as FiniteKernel says: off by half that accepted, by twice refused.
func TestFiniteKernelRowTolerance(t *testing.T) {
	p := []float64{0.5, 0.5}
	for _, c := range []struct {
		off float64
		ok  bool
	}{{5e-13, true}, {-5e-13, true}, {2e-12, false}, {-2e-12, false}} {
		_, err := FiniteKernel(p, [][]float64{{0.25, 0.75 + c.off}, {0.5, 0.5}})
		if c.ok != (err == nil) || !c.ok && !algo.IsParamError(err, "q") {
			t.Errorf("a row off by %g: %v", c.off, err)
		}
	}
}
