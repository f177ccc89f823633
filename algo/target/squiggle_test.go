package target

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/integrate"
)

// squiggles are the preset and a slow, anti-correlated squiggle whose
// exponential terms in Cov are not negligible (a²σxx/2 = 0.48: Cov(x, y)
// = −0.3 − 0.8·1.5·e^{−0.48} = −1.0425, Var y = 0.4 + 0.4267 + 0.2970
// = 1.1237).
func squiggles(t *testing.T) []Squiggle {
	slow, err := NewSquiggle(0.8, 1.5, -0.3, 0.4)
	if err != nil {
		t.Fatal(err)
	}
	return []Squiggle{DefaultSquiggle(), slow}
}

// TestSquiggleMoments checks the closed forms by quadrature: the density
// integrates to one (the shear's unit Jacobian) and Mean and Cov are its
// moments, to 1e-6 and 1e-5. The preset's ridge turns every π/5 in x and
// its y-section has s = 0.68, so the midpoint rule takes 1200 cells a side
// over the padded box (0.03 × 0.02).
func TestSquiggleMoments(t *testing.T) {
	for _, s := range squiggles(t) {
		mass, mean, cov := quadMoments(s, 6, 1200)
		if math.Abs(mass-1) > 1e-6 {
			t.Errorf("%s: ∫p = %.9f", s.Formula(), mass)
		}
		wantM, wantC := s.Mean(), s.Cov()
		for i := range 2 {
			if math.Abs(mean[i]-wantM[i]) > 1e-6 {
				t.Errorf("%s: mean[%d] = %.9f, exact %g", s.Formula(), i, mean[i], wantM[i])
			}
			for j := range 2 {
				if math.Abs(cov[i][j]-wantC[i][j]) > 1e-5 {
					t.Errorf("%s: cov[%d][%d] = %.9f, exact %.9f", s.Formula(), i, j, cov[i][j], wantC[i][j])
				}
			}
		}
		t.Logf("%s: Cov %.6f by quadrature, %.6f exact", s.Formula(), cov, wantC)
	}
	if c := squiggles(t)[1].Cov(); math.Abs(c[0][1]+1.0425) > 1e-4 || math.Abs(c[1][1]-1.1237) > 1e-4 {
		t.Errorf("slow squiggle: Cov %v, worked by hand [[1.5, −1.0425], [·, 1.1237]]", c)
	}
}

// TestSquiggleGradient: ∇log p against central differences (h = 1e-5,
// relative 1e-6) at points on and off the ridge, and Density = exp(LogP).
func TestSquiggleGradient(t *testing.T) {
	g := make([]float64, 2)
	for _, s := range squiggles(t) {
		for _, p := range [][]float64{{0.3, -0.7}, {1.1, 0.9}, {-2.3, 0.6}, {0.05, -0.2}, {3.4, -2.5}} {
			x := append([]float64(nil), p...)
			s.Grad(g, x)
			for i := range 2 {
				const h = 1e-5
				xi := x[i]
				x[i] = xi + h
				fp := s.LogP(x)
				x[i] = xi - h
				fm := s.LogP(x)
				x[i] = xi
				if fd := (fp - fm) / (2 * h); math.Abs(fd-g[i]) > 1e-6*math.Max(1, math.Abs(fd)) {
					t.Errorf("%s at %v: ∂%d = %.9g, finite difference %.9g", s.Formula(), x, i, g[i], fd)
				}
			}
		}
	}
}

// TestSquiggleMarginalCDF checks MarginalCDF of y against the other order
// of integration: the marginal density p_y(t) = ∫ p(x, t) dx by 20-point
// Gauss–Legendre panels over |x| ≤ 12√σxx (40 panels: 4 radians of the
// preset's sine a panel), integrated from y = −12 up through the v in
// turn by 5 more panels a unit, to 1e-7 (the claim of Marginals); and x's,
// Φ(v/√σxx), at its upper quartile.
func TestSquiggleMarginalCDF(t *testing.T) {
	gl, _ := integrate.NewLegendre(20)
	for _, s := range squiggles(t) {
		bx := 12 * math.Sqrt(s.sxx)
		x := make([]float64, 2)
		py := func(v float64) float64 {
			return gl.Pieces(func(u float64) float64 {
				x[0], x[1] = u, v
				return s.Density(x)
			}, []float64{-bx, bx}, 40)
		}
		worst, cdf, from := 0.0, 0.0, -12.0
		for _, v := range []float64{-3, -1.5, -0.4, 0, 0.7, 2} {
			cdf += gl.Pieces(py, []float64{from, v}, int(math.Ceil(5*(v-from))))
			from = v
			e := math.Abs(s.MarginalCDF(1, v) - cdf)
			worst = math.Max(worst, e)
			if !(e <= 1e-7) {
				t.Errorf("%s: P(y ≤ %g) = %.10f, by quadrature %.10f", s.Formula(), v, s.MarginalCDF(1, v), cdf)
			}
		}
		t.Logf("%s: largest error of CDF_y %.2g", s.Formula(), worst)
		if c := s.MarginalCDF(0, 0.6745*math.Sqrt(s.sxx)); math.Abs(c-0.75) > 1e-4 {
			t.Errorf("%s: CDF_x at the upper quartile %.6f", s.Formula(), c)
		}
	}
	// The preset is symmetric under (x, y) ↦ (−x, −y): P(y ≤ 0) = ½.
	if c := DefaultSquiggle().MarginalCDF(1, 0); math.Abs(c-0.5) > 1e-12 {
		t.Errorf("P(y ≤ 0) = %.15f, want ½", c)
	}
}

// TestSquiggleDraws: 10⁵ exact draws of the slow squiggle have its mean
// and covariance within 4.5 standard errors (the preset's draws are
// checked with every preset's in TestDrawMatchesMoments).
func TestSquiggleDraws(t *testing.T) {
	s := squiggles(t)[1]
	xs := rows(100000, 2)
	rng := rand.New(rand.NewPCG(3, 3))
	for _, x := range xs {
		s.Draw(x, rng)
	}
	c := s.Cov()
	for i := range 2 {
		checkAverage(t, "slow squiggle mean", xs, func(x []float64) float64 { return x[i] }, 0)
		for j := i; j < 2; j++ {
			checkAverage(t, "slow squiggle cov", xs, func(x []float64) float64 { return x[i] * x[j] }, c[i][j])
		}
	}
}

func TestSquiggleBadParams(t *testing.T) {
	for _, c := range []struct {
		name             string
		a, sxx, sxy, syy float64
	}{
		{"a", math.NaN(), 2, 0, 1},
		{"sxx", 5, 0, 0, 1},
		{"syy", 5, 2, 0, math.Inf(1)},
		{"sxy", 5, 2, 2, 1},
		{"sxy", 5, 2, math.NaN(), 1},
	} {
		if _, err := NewSquiggle(c.a, c.sxx, c.sxy, c.syy); !algo.IsParamError(err, c.name) {
			t.Errorf("NewSquiggle(%g, %g, %g, %g): %v, want a ParamError naming %s", c.a, c.sxx, c.sxy, c.syy, err, c.name)
		}
	}
}
