package pca

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/algotest"
)

// rotated draws n points whose coordinates have standard deviations sd
// along the axes, rotated by a random orthogonal matrix Q and shifted by
// off; it returns them by coordinate,
// with Q's columns, the true principal directions.
func rotated(rng *rand.Rand, n int, sd, off []float64) (cols, q [][]float64) {
	d := len(sd)
	q = algotest.Orthogonal(rng, d)
	cols = make([][]float64, d)
	for t := range cols {
		cols[t] = make([]float64, n)
	}
	for i := range n {
		for a, s := range sd {
			z := s * rng.NormFloat64()
			for t := range cols {
				cols[t][i] += z * q[a][t]
			}
		}
		for t := range cols {
			cols[t][i] += off[t]
		}
	}
	return cols, q
}

// covariance is the (1/n) covariance of cols, computed directly.
func covariance(cols [][]float64) [][]float64 {
	d, n := len(cols), float64(len(cols[0]))
	m := make([]float64, d)
	for t, col := range cols {
		for _, v := range col {
			m[t] += v / n
		}
	}
	c := make([][]float64, d)
	for t := range c {
		c[t] = make([]float64, d)
		for u := range c[t] {
			for i := range cols[t] {
				c[t][u] += (cols[t][i] - m[t]) * (cols[u][i] - m[u]) / n
			}
		}
	}
	return c
}

// TestFitEigen is eq (4.51): each axis is a unit eigenvector of the
// sample covariance, C a = λ a to 1e-10 of tr C, the two orthogonal, their
// eigenvalues the two largest (every other eigenvalue is at most λ₂:
// tr C − λ₁ − λ₂ ≥ 0 and, with d = 3, equal to the third), and close to the
// generating variances within sampling error (a variance estimated from n
// normal draws has relative s.d. √(2/n), 4.5% at n = 1,000; we allow 5 s.d.).
func TestFitEigen(t *testing.T) {
	for _, tc := range []struct {
		name    string
		sd, off []float64
	}{
		{"d=3", []float64{3, 2, 0.5}, []float64{1, -2, 5}},
		{"d=5", []float64{4, 1.5, 1, 0.3, 0.1}, []float64{0, 0, 0, 10, -10}},
		{"d=2", []float64{2, 1}, []float64{-3, 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const n = 1000
			cols, q := rotated(rand.New(rand.NewPCG(1, 2)), n, tc.sd, tc.off)
			p, err := Fit(cols)
			if err != nil {
				t.Fatal(err)
			}
			c := covariance(cols)
			tr := 0.0
			for i := range c {
				tr += c[i][i]
			}
			if math.Abs(p.Total-tr) > 1e-12*tr {
				t.Errorf("Total = %v, tr C = %v", p.Total, tr)
			}
			for a, axis := range p.Axes {
				norm := 0.0
				for i, row := range c {
					ca := 0.0
					for u, x := range row {
						ca += x * axis[u]
					}
					if r := ca - p.Var[a]*axis[i]; math.Abs(r) > 1e-10*tr {
						t.Errorf("axis %d: (C a − λ a)_%d = %v", a, i, r)
					}
					norm += axis[i] * axis[i]
				}
				if math.Abs(norm-1) > 1e-12 {
					t.Errorf("axis %d has norm² %v", a, norm)
				}
				want := tc.sd[a] * tc.sd[a]
				if math.Abs(p.Var[a]-want) > 5*math.Sqrt(2.0/n)*want {
					t.Errorf("λ_%d = %v, generating variance %v", a+1, p.Var[a], want)
				}
				// The axis is ± the generating direction, up to sampling error.
				dot := 0.0
				for i := range axis {
					dot += axis[i] * q[a][i]
				}
				if math.Abs(dot) < 0.99 {
					t.Errorf("axis %d: |a·q| = %v, want ≈ 1", a, math.Abs(dot))
				}
			}
			dot := 0.0
			for i := range p.Axes[0] {
				dot += p.Axes[0][i] * p.Axes[1][i]
			}
			if math.Abs(dot) > 1e-12 || p.Var[0] < p.Var[1] || p.Total-p.Var[0]-p.Var[1] < -1e-12*tr {
				t.Errorf("a₁·a₂ = %v, λ = %v, tr C = %v", dot, p.Var, tr)
			}
			if len(tc.sd) == 2 {
				if a, b := p.Explained(); math.Abs(a+b-1) > 1e-12 {
					t.Errorf("d = 2: explained %v + %v, want 1", a, b)
				}
			}
		})
	}
}

// TestProjection: eq (4.52) maps the mean to the origin, the projected
// points' variances are λ₁ and λ₂ with no covariance between them, and Cov
// of the sample covariance is the projected points' covariance (A C Aᵀ is
// exactly the covariance of A x): to 1e-10 relative.
func TestProjection(t *testing.T) {
	cols, _ := rotated(rand.New(rand.NewPCG(3, 4)), 500, []float64{2, 1.5, 0.4, 0.2}, []float64{1, 2, 3, 4})
	p, err := Fit(cols)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := p.Point(p.Mean); a != 0 || b != 0 {
		t.Errorf("the mean maps to (%v, %v)", a, b)
	}
	a, b := p.Points(cols)
	x := make([]float64, len(cols))
	for i := range a {
		for t := range x {
			x[t] = cols[t][i]
		}
		if pa, pb := p.Point(x); math.Abs(pa-a[i]) > 1e-12 || math.Abs(pb-b[i]) > 1e-12 {
			t.Fatalf("point %d: Point (%v, %v), Points (%v, %v)", i, pa, pb, a[i], b[i])
		}
	}
	pc := covariance([][]float64{a, b})
	sxx, sxy, syy := p.Cov(covariance(cols))
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"var 1", pc[0][0], p.Var[0]}, {"var 2", pc[1][1], p.Var[1]}, {"cov 12", pc[0][1], 0},
		{"Cov xx", sxx, pc[0][0]}, {"Cov xy", sxy, pc[0][1]}, {"Cov yy", syy, pc[1][1]},
	} {
		if math.Abs(c.got-c.want) > 1e-10*p.Total {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}

// TestFitLine: points on a line have one principal direction, the line's,
// and no variance across it; equal points have none at all.
func TestFitLine(t *testing.T) {
	dir := []float64{1 / math.Sqrt(3), -1 / math.Sqrt(3), 1 / math.Sqrt(3)}
	cols := make([][]float64, 3)
	for i := range 10 {
		for t := range cols {
			cols[t] = append(cols[t], float64(i)*dir[t]+1)
		}
	}
	p, err := Fit(cols)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range dir {
		if math.Abs(p.Axes[0][i]-v) > 1e-12 {
			t.Errorf("axis 1 = %v, want %v (largest entry positive)", p.Axes[0], dir)
		}
	}
	if want := 8.25; math.Abs(p.Var[0]-want) > 1e-12 || p.Var[1] > 1e-12 {
		t.Errorf("λ = %v, want [%v 0]", p.Var, want) // the variance of 0..9
	}
	same, err := Fit([][]float64{{2, 2}, {5, 5}})
	if err != nil {
		t.Fatal(err)
	}
	if a, b := same.Explained(); a != 0 || b != 0 {
		t.Errorf("equal points: explained %v, %v", a, b)
	}
}

func TestFitBad(t *testing.T) {
	for _, c := range []struct {
		name string
		cols [][]float64
	}{
		{"one coordinate", [][]float64{{1, 2}}},
		{"no points", [][]float64{{}, {}}},
		{"ragged", [][]float64{{1, 2}, {1}}},
		{"NaN", [][]float64{{1, math.NaN()}, {1, 2}}},
	} {
		if _, err := Fit(c.cols); !algo.IsParamError(err, "data") {
			t.Errorf("%s: got %v, want an error naming data", c.name, err)
		}
	}
}
