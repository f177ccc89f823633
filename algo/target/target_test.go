package target

import (
	"errors"
	"math"
	"testing"

	"github.com/thelab/lab/algo"
)

func presets(t *testing.T) []Target {
	t.Helper()
	var out []Target
	for _, name := range Names {
		for _, rho := range []float64{0.9, -0.5, 0} {
			tg, err := New(name, rho)
			if err != nil {
				t.Fatalf("New(%q, %g): %v", name, rho, err)
			}
			out = append(out, tg)
			if name != "correlated" {
				break
			}
		}
	}
	b, err := NewBanana(1.3, -0.7)
	if err != nil {
		t.Fatal(err)
	}
	n, err := NewNormal(-1.5, 0.4)
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewMixture([]float64{0.2, 0.3, 0.5}, [][]float64{{-2}, {0.5}, {3}}, 0.8)
	if err != nil {
		t.Fatal(err)
	}
	return append(out, b, n, m)
}

// quadMoments integrates p, x p and x xᵀ p by the midpoint rule over a box
// that extends the target's bounds by `pad` on every side; for a banana
// with pad > 0 the box follows the ridge out to |x₁| = 8a instead.
func quadMoments(tg Target, pad float64, n int) (mass float64, mean []float64, cov [][]float64) {
	lo, hi := tg.Bounds()
	d := tg.Dim()
	for i := range lo {
		lo[i] -= pad
		hi[i] += pad
	}
	if bn, ok := tg.(Banana); ok && pad > 0 {
		r0, r1 := bn.ridge(0), bn.ridge(8*bn.a)
		lo = []float64{-8 * bn.a, math.Min(r0, r1) - 9}
		hi = []float64{8 * bn.a, math.Max(r0, r1) + 9}
	}
	h := make([]float64, d)
	vol := 1.0
	for i := range h {
		h[i] = (hi[i] - lo[i]) / float64(n)
		vol *= h[i]
	}
	s1 := make([]float64, d)
	s2 := make([][]float64, d)
	for i := range s2 {
		s2[i] = make([]float64, d)
	}
	x := make([]float64, d)
	idx := make([]int, d)
	for {
		for i := range x {
			x[i] = lo[i] + (float64(idx[i])+0.5)*h[i]
		}
		p := tg.Density(x) * vol
		mass += p
		for i := range x {
			s1[i] += p * x[i]
			for j := range x {
				s2[i][j] += p * x[i] * x[j]
			}
		}
		k := 0
		for ; k < d; k++ {
			idx[k]++
			if idx[k] < n {
				break
			}
			idx[k] = 0
		}
		if k == d {
			break
		}
	}
	mean = make([]float64, d)
	for i := range mean {
		mean[i] = s1[i] / mass
	}
	cov = s2
	for i := range cov {
		for j := range cov[i] {
			cov[i][j] = s2[i][j]/mass - mean[i]*mean[j]
		}
	}
	return mass, mean, cov
}

// TestExactMoments checks by quadrature that Density is normalised and that
// Mean and Cov are its moments.
func TestExactMoments(t *testing.T) {
	for _, tg := range presets(t) {
		n := 4000
		if tg.Dim() == 2 {
			n = 1500
		}
		mass, mean, cov := quadMoments(tg, 12, n)
		if math.Abs(mass-1) > 1e-6 {
			t.Errorf("%s: ∫p = %.9f, want 1", tg.Name(), mass)
		}
		wantM, wantC := tg.Mean(), tg.Cov()
		for i := range mean {
			if math.Abs(mean[i]-wantM[i]) > 1e-6 {
				t.Errorf("%s: mean[%d] = %.9f, exact %g", tg.Name(), i, mean[i], wantM[i])
			}
			for j := range cov[i] {
				if math.Abs(cov[i][j]-wantC[i][j]) > 1e-4*math.Max(1, math.Abs(wantC[i][j])) {
					t.Errorf("%s: cov[%d][%d] = %.9f, exact %g", tg.Name(), i, j, cov[i][j], wantC[i][j])
				}
			}
		}
	}
}

// TestBoundsHoldMass checks that the drawing box holds nearly all the mass.
func TestBoundsHoldMass(t *testing.T) {
	for _, tg := range presets(t) {
		n := 4000
		if tg.Dim() == 2 {
			n = 500
		}
		mass, _, _ := quadMoments(tg, 0, n)
		if mass < 0.97 {
			t.Errorf("%s: bounds hold %.4f of the mass", tg.Name(), mass)
		}
	}
}

func TestGradMatchesFiniteDifferences(t *testing.T) {
	pts := [][]float64{{0.3, -0.7}, {2.1, 1.4}, {-1.2, 3.3}, {-2.9, -2.6}, {0, 0}}
	for _, tg := range presets(t) {
		d := tg.Dim()
		g := make([]float64, d)
		for _, p := range pts {
			x := append([]float64(nil), p[:d]...)
			tg.Grad(g, x)
			for i := range x {
				const h = 1e-5
				xi := x[i]
				x[i] = xi + h
				fp := tg.LogP(x)
				x[i] = xi - h
				fm := tg.LogP(x)
				x[i] = xi
				fd := (fp - fm) / (2 * h)
				if math.Abs(fd-g[i]) > 1e-6*math.Max(1, math.Abs(fd)) {
					t.Errorf("%s at %v: ∂%d log p = %.9g, finite difference %.9g", tg.Name(), x, i, g[i], fd)
				}
			}
			if got, want := tg.Density(x), math.Exp(tg.LogP(x)); math.Abs(got-want) > 1e-15*math.Max(1, want) {
				t.Errorf("%s: Density %g ≠ exp(LogP) %g", tg.Name(), got, want)
			}
		}
	}
}

func TestNoAllocs(t *testing.T) {
	for _, tg := range presets(t) {
		x := []float64{0.4, -0.3}[:tg.Dim()]
		g := make([]float64, tg.Dim())
		var sink float64
		if a := testing.AllocsPerRun(100, func() { sink += tg.LogP(x) }); a != 0 {
			t.Errorf("%s: LogP allocates %v times", tg.Name(), a)
		}
		if a := testing.AllocsPerRun(100, func() { tg.Grad(g, x) }); a != 0 {
			t.Errorf("%s: Grad allocates %v times", tg.Name(), a)
		}
		_ = sink
	}
}

func TestFig37Moments(t *testing.T) {
	m := Fig37()
	c := m.Cov()
	if c[0][0] != 10 || c[0][1] != 9 || c[1][0] != 9 || c[1][1] != 10 {
		t.Errorf("Fig37 cov = %v, want [[10 9] [9 10]]", c)
	}
	if mu := m.Mean(); mu[0] != 0 || mu[1] != 0 {
		t.Errorf("Fig37 mean = %v, want 0", mu)
	}
}

func TestMixtureFarTailIsFinite(t *testing.T) {
	m := Fig37()
	x := []float64{1e3, -1e3}
	if lp := m.LogP(x); math.IsNaN(lp) || math.IsInf(lp, 0) {
		t.Errorf("log p far out = %v, want finite (log-sum-exp)", lp)
	}
	g := make([]float64, 2)
	m.Grad(g, x)
	if math.IsNaN(g[0]) || math.IsNaN(g[1]) {
		t.Errorf("grad far out = %v", g)
	}
}

func TestBadParams(t *testing.T) {
	cases := []struct {
		name string
		err  error
	}{
		{"rho", func() error { _, err := NewCorrelated(1); return err }()},
		{"rho", func() error { _, err := NewCorrelated(math.NaN()); return err }()},
		{"rho", func() error { _, err := New("correlated", -1.2); return err }()},
		{"target", func() error { _, err := New("cauchy", 0); return err }()},
		{"sigma", func() error { _, err := NewNormal(0, 0); return err }()},
		{"mu", func() error { _, err := NewNormal(math.Inf(1), 1); return err }()},
		{"a", func() error { _, err := NewBanana(-1, 0); return err }()},
		{"b", func() error { _, err := NewBanana(1, math.NaN()); return err }()},
		{"weights", func() error { _, err := NewMixture([]float64{0.5, 0.6}, [][]float64{{0}, {1}}, 1); return err }()},
		{"weights", func() error { _, err := NewMixture(nil, nil, 1); return err }()},
		{"means", func() error { _, err := NewMixture([]float64{0.5, 0.5}, [][]float64{{0}, {1, 2}}, 1); return err }()},
		{"sigma", func() error { _, err := NewMixture([]float64{1}, [][]float64{{0}}, -1); return err }()},
	}
	for _, c := range cases {
		var pe *algo.ParamError
		if !errors.As(c.err, &pe) || pe.Name != c.name {
			t.Errorf("got %v, want a ParamError naming %s", c.err, c.name)
		}
	}
}
