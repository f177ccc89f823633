package target

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/integrate"
)

func presets(t *testing.T) []Target {
	t.Helper()
	var out []Target
	for _, name := range kinds {
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
	dn, err := NewDonut(1.2, 0.9)
	if err != nil {
		t.Fatal(err)
	}
	fn, err := NewFunnel(1.5)
	if err != nil {
		t.Fatal(err)
	}
	return append(out, b, n, m, dn, fn)
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
	if f, ok := tg.(Funnel); ok {
		return funnelMoments(f, lo, hi, pad > 0, n)
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

// funnelMoments is quadMoments for the funnel, whose neck is too narrow for
// a grid in (x, y): it integrates in (u, y) with x = u e^{y/2} (Jacobian
// e^{y/2}), over u ∈ ±10 and y ∈ ±8τ, keeping only the points inside the
// box [lo, hi] unless unbounded.
func funnelMoments(f Funnel, lo, hi []float64, unbounded bool, n int) (mass float64, mean []float64, cov [][]float64) {
	// Both axes are smooth Gaussians in (u, y): 600 cells resolve them.
	n = min(n, 600)
	ylo, yhi := -8*f.tau, 8*f.tau
	hu, hy := 20.0/float64(n), (yhi-ylo)/float64(n)
	var s1 [2]float64
	var s2 [2][2]float64
	x := make([]float64, 2)
	for j := range n {
		y := ylo + (float64(j)+0.5)*hy
		jac := math.Exp(y / 2)
		for i := range n {
			u := -10 + (float64(i)+0.5)*hu
			x[0], x[1] = u*jac, y
			if !unbounded && (x[0] < lo[0] || x[0] > hi[0] || y < lo[1] || y > hi[1]) {
				continue
			}
			p := f.Density(x) * jac * hu * hy
			mass += p
			for a := range 2 {
				s1[a] += p * x[a]
				for b := range 2 {
					s2[a][b] += p * x[a] * x[b]
				}
			}
		}
	}
	mean = []float64{s1[0] / mass, s1[1] / mass}
	cov = [][]float64{make([]float64, 2), make([]float64, 2)}
	for a := range 2 {
		for b := range 2 {
			cov[a][b] = s2[a][b]/mass - mean[a]*mean[b]
		}
	}
	return mass, mean, cov
}

// TestExactMoments checks by quadrature that Density is normalised and that
// Mean and Cov are its moments.
//
// The grid is sized by the quadrature's own error against the tolerances
// (1e-6 for the mass and mean, 1e-4 for the covariance): the midpoint rule
// converges exponentially for these smooth densities, so 300 cells a side
// leave every 2-D target but one within 1e-9 of the exact moments (most
// at rounding, 1e-13) — 1500 had cost 25 times as much for nothing. The
// exception is a donut whose density at its centre is not negligible
// (radius 1.2, width 0.9): |x| has a cone there, and its error falls only
// as h³ (6.5e-7 at 500, 1.9e-7 at 750, 2.4e-8 at 1500), so donuts take
// 750 cells, 5 times inside the tolerance (a deterministic error, not a
// noise: 1500 cost four times as much for a margin it does not need).
func TestExactMoments(t *testing.T) {
	for _, tg := range presets(t) {
		n := 4000
		if tg.Dim() == 2 {
			n = 300
			if _, ok := tg.(Donut); ok {
				n = 750
			}
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
		{"kind", func() error { _, err := New("cauchy", 0); return err }()},
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

// rows returns n rows of d values over one backing array: n draws without
// n allocations for the collector to trace.
func rows(n, d int) [][]float64 {
	back := make([]float64, n*d)
	xs := make([][]float64, n)
	for s := range xs {
		xs[s] = back[s*d : (s+1)*d : (s+1)*d]
	}
	return xs
}

// exactDraws returns nDraws exact draws of preset k (its index in presets,
// seed (k, 99)), made on first use and kept for TestDrawMatchesMoments and
// TestMarginalQuantiles, which read them and never write them; nil for a
// target with no exact sampler.
func exactDraws(k int, tg Target) [][]float64 {
	drawsMu.Lock()
	defer drawsMu.Unlock()
	if xs, ok := drawsByPreset[k]; ok {
		return xs
	}
	dr, ok := tg.(Drawer)
	if !ok {
		return nil
	}
	xs := rows(nDraws, tg.Dim())
	rng := rand.New(rand.NewPCG(uint64(k), 99))
	for _, x := range xs {
		dr.Draw(x, rng)
	}
	drawsByPreset[k] = xs
	return xs
}

var (
	drawsMu       sync.Mutex
	drawsByPreset = map[int][][]float64{}
)

const nDraws = 100000

// TestDrawMatchesMoments checks the exact samplers: the mean and covariance
// of 100 000 independent draws lie within 4.5 standard errors of the exact
// moments (s.e. from the sample variance of each averaged quantity, the
// draws being independent).
func TestDrawMatchesMoments(t *testing.T) {
	for k, tg := range presets(t) {
		dr, ok := tg.(Drawer)
		if !ok {
			t.Errorf("%s: no exact sampler", tg.Name())
			continue
		}
		d := tg.Dim()
		xs := exactDraws(k, tg)
		rng := rand.New(rand.NewPCG(uint64(k), 99))
		mu, sigma := tg.Mean(), tg.Cov()
		for i := range d {
			checkAverage(t, tg.Name()+" mean", xs, func(x []float64) float64 { return x[i] }, mu[i])
			for j := i; j < d; j++ {
				checkAverage(t, tg.Name()+" cov", xs, func(x []float64) float64 { return (x[i] - mu[i]) * (x[j] - mu[j]) }, sigma[i][j])
			}
		}
		x := make([]float64, d)
		if a := testing.AllocsPerRun(100, func() { dr.Draw(x, rng) }); a != 0 {
			t.Errorf("%s: Draw allocates %v times", tg.Name(), a)
		}
	}
}

// checkAverage asserts that the average of f over independent xs is within
// 4.5 standard errors of want.
func checkAverage(t *testing.T, label string, xs [][]float64, f func([]float64) float64, want float64) {
	t.Helper()
	var m, m2 float64
	for _, x := range xs {
		v := f(x)
		m += v
		m2 += v * v
	}
	n := float64(len(xs))
	m /= n
	se := math.Sqrt((m2/n - m*m) / n)
	if math.Abs(m-want) > 4.5*se {
		t.Errorf("%s: average %.5f, exact %.5f: %.1f s.e. (s.e. %.2g)", label, m, want, math.Abs(m-want)/se, se)
	}
}

// TestConditionals checks every closed-form full conditional against the
// joint: log p(x_i = v | x_{−i}) − log p(x_i = w | x_{−i}) must equal
// log p(x with v) − log p(x with w) (the conditional is the joint
// renormalised), it must integrate to one, and CondSample's draws must have
// its mean and variance (4.5 s.e.).
func TestConditionals(t *testing.T) {
	pts := [][]float64{{0.3, -0.7}, {2.1, 1.4}, {-1.2, 3.3}, {-2.9, -2.6}}
	rng := rand.New(rand.NewPCG(5, 5))
	for _, tg := range presets(t) {
		c, ok := tg.(Conditionals)
		if !ok {
			t.Errorf("%s: does not report its conditionals", tg.Name())
			continue
		}
		d := tg.Dim()
		found := false
		for i := range d {
			if !c.HasConditional(i) {
				continue
			}
			found = true
			for _, p := range pts {
				x := append([]float64(nil), p[:d]...)
				y := append([]float64(nil), x...)
				v, w := x[i]+0.37, x[i]-1.1
				x[i], y[i] = v, w
				got := c.CondLogPDF(i, x, v) - c.CondLogPDF(i, x, w)
				want := tg.LogP(x) - tg.LogP(y)
				if math.Abs(got-want) > 1e-10*math.Max(1, math.Abs(want)) {
					t.Errorf("%s: conditional %d at %v: log ratio %.12g, joint %.12g", tg.Name(), i, p, got, want)
				}
				// Quadrature of the conditional over ±60 around the point
				// (h = 0.03, a seventh of the smallest conditional sd, 0.2:
				// the midpoint rule on these smooth densities agrees with
				// h = 0.003 to 3e-13 in mass, mean and variance).
				const m = 4000
				lo, h := x[i]-60, 120.0/m
				var mass, m1, m2 float64
				for k := range m {
					u := lo + (float64(k)+0.5)*h
					q := math.Exp(c.CondLogPDF(i, x, u)) * h
					mass += q
					m1 += q * u
					m2 += q * u * u
				}
				if math.Abs(mass-1) > 1e-8 {
					t.Errorf("%s: conditional %d at %v integrates to %.10f", tg.Name(), i, p, mass)
				}
				mean, vr := m1/mass, m2/mass-(m1/mass)*(m1/mass)
				draws := rows(20000, 1)
				for _, z := range draws {
					z[0] = c.CondSample(i, x, rng)
				}
				checkAverage(t, tg.Name()+" conditional mean", draws, func(z []float64) float64 { return z[0] }, mean)
				checkAverage(t, tg.Name()+" conditional variance", draws, func(z []float64) float64 { return (z[0] - mean) * (z[0] - mean) }, vr)
				if a := testing.AllocsPerRun(100, func() { c.CondSample(i, x, rng) }); a != 0 {
					t.Errorf("%s: CondSample allocates %v times", tg.Name(), a)
				}
			}
		}
		switch tg.Name() {
		case "donut":
			if found {
				t.Error("donut claims a closed-form conditional")
			}
		default:
			if !found {
				t.Errorf("%s: no closed-form conditional", tg.Name())
			}
		}
	}
}

func TestFormulas(t *testing.T) {
	want := map[Kind]string{
		"normal":     "p(x) = N(x; 0, 1²)",
		"mixture":    "p = 0.5 N((3,3), I) + 0.5 N((−3,−3), I)",
		"banana":     "x ~ N(0, 2²), y | x ~ N(0.5(x² − 4), 1)",
		"correlated": "p(x, y) = N(0, [[1, ρ], [ρ, 1]]), ρ = 0.9",
		"donut":      "p(x) ∝ exp(−(‖x‖ − r)²/(2σ²)), r = 2.5, σ = 0.4",
		"funnel":     "y ~ N(0, 3²), x | y ~ N(0, e^y) (Neal's funnel)",
		"squiggle":   "(x, y + sin(5x)) ~ N(0, [[2, 0.25], [0.25, 0.5]])",
	}
	for _, name := range kinds {
		tg, _ := New(name, 0.9)
		if got := Formula(tg); got != want[name] {
			t.Errorf("%s: formula %q, want %q", name, got, want[name])
		}
	}
}

func TestNewTargetBadParams(t *testing.T) {
	cases := []struct {
		name string
		err  error
	}{
		{"r", func() error { _, err := NewDonut(0, 1); return err }()},
		{"r", func() error { _, err := NewDonut(math.Inf(1), 1); return err }()},
		{"sigma", func() error { _, err := NewDonut(1, -1); return err }()},
		{"sigma", func() error { _, err := NewDonut(1, math.NaN()); return err }()},
		{"tau", func() error { _, err := NewFunnel(0); return err }()},
		{"tau", func() error { _, err := NewFunnel(math.Inf(1)); return err }()},
	}
	for _, c := range cases {
		var pe *algo.ParamError
		if !errors.As(c.err, &pe) || pe.Name != c.name {
			t.Errorf("got %v, want a ParamError naming %s", c.err, c.name)
		}
	}
}

// TestMarginalQuantiles: for every preset and coordinate, the fraction of
// exact draws below Quantile(p) is p within 4.5 standard errors
// √(p(1 − p)/n) (the CDF and its inversion checked against the sampler:
// the draws TestDrawMatchesMoments checks), and the CDF of a symmetric
// marginal is ½ at 0.
func TestMarginalQuantiles(t *testing.T) {
	for k, tg := range presets(t) {
		xs := exactDraws(k, tg)
		if xs == nil {
			t.Fatalf("%s: no exact sampler", tg.Name())
		}
		d := tg.Dim()
		for i := range d {
			for _, p := range []float64{0.05, 0.5, 0.95} {
				q, ok := Quantile(tg, i, p)
				if !ok {
					t.Fatalf("%s: no marginal quantile", tg.Name())
				}
				checkAverage(t, tg.Name()+" P(x ≤ q_p)", xs, func(x []float64) float64 {
					if x[i] <= q {
						return 1
					}
					return 0
				}, p)
			}
		}
	}
	for _, tg := range []Target{StdNormal(), Fig37()} {
		if c := tg.(Marginals).MarginalCDF(0, 0); math.Abs(c-0.5) > 1e-12 {
			t.Errorf("%s: CDF(0) = %g, want ½", tg.Name(), c)
		}
	}
	fn, _ := NewFunnel(FunnelTau)
	dn, _ := NewDonut(DonutR, DonutSigma)
	for _, c := range []struct {
		tg Target
		i  int
	}{{fn, 0}, {dn, 0}, {dn, 1}} {
		if v := c.tg.(Marginals).MarginalCDF(c.i, 0); math.Abs(v-0.5) > 1e-7 {
			t.Errorf("%s: CDF_%d(0) = %.10f, want ½", c.tg.Name(), c.i, v)
		}
	}
	if _, ok := Quantile(StdNormal(), 0, 1); ok {
		t.Error("Quantile(p = 1): ok")
	}
}

// TestKindDim checks that a preset's Dim, known before it is built, is its
// built target's.
func TestKindDim(t *testing.T) {
	for _, k := range kinds {
		tg, err := New(k, DefaultRho)
		if err != nil {
			t.Fatal(err)
		}
		if k.Dim() != tg.Dim() {
			t.Errorf("%s: Kind.Dim %d, built %d", k, k.Dim(), tg.Dim())
		}
	}
}

// stdNormalDensity is φ(u).
func stdNormalDensity(u float64) float64 { return math.Exp(-u*u/2) / math.Sqrt(2*math.Pi) }

// donutCDF is the donut's marginal CDF by another computation than
// MarginalCDF's Simpson rule: 20-point Gauss–Legendre panels over ρ ∈
// (0, r + 20σ), and above ρ = |v|, where arccos(v/ρ) has its square-root
// kink, in the variable s = √(ρ − |v|), in which the integrand is smooth
// (the rule then agrees with its 12-point self to 1e-16).
func donutCDF(d Donut, v float64) float64 {
	gl, _ := integrate.NewLegendre(20)
	dens := func(rho float64) float64 {
		u := (rho - d.r) / d.sigma
		return rho * math.Exp(-u*u/2)
	}
	hi := d.r + 20*d.sigma
	k := math.Abs(v)
	below := 0.0 // ρ < |v|: x₁ ≤ v for every θ when v > 0, for none when v < 0
	if v >= 0 {
		below = gl.Pieces(dens, []float64{0, k}, 50)
	}
	above := gl.Pieces(func(s float64) float64 {
		rho := k + s*s
		return 2 * s * dens(rho) * (1 - math.Acos(math.Max(-1, math.Min(1, v/rho)))/math.Pi)
	}, []float64{0, math.Sqrt(hi - k)}, 100)
	return (below + above) / gl.Pieces(dens, []float64{0, hi}, 100)
}

// TestMarginalCDFAccuracy measures the accuracy Marginals claims: to 1e-7
// where the marginal is a smooth one-dimensional integral (the banana's
// x₂ and the funnel's x, by Simpson's rule over |u| ≤ 10: the error seen
// is 5e-15), and the donut's, whose integrand has a square-root kink, to
// 3e-6 at the preset and 5e-6 at r = 2, σ = 1 (Donut.MarginalCDF), each
// against the same integral by 20-point Gauss–Legendre panels (over
// |u| ≤ 14; for the donut in a variable that removes the kink, donutCDF).
// The v run through each marginal's bulk and tails, and for the donut
// past ±r, where the error peaks.
func TestMarginalCDFAccuracy(t *testing.T) {
	gl, _ := integrate.NewLegendre(20)
	bn, _ := NewBanana(BananaA, BananaB)
	fn, _ := NewFunnel(FunnelTau)
	dn, _ := NewDonut(DonutR, DonutSigma)
	wide, _ := NewDonut(2, 1)
	expect := func(f func(u float64) float64) float64 {
		return gl.Pieces(func(u float64) float64 { return stdNormalDensity(u) * f(u) }, []float64{-14, 14}, 100)
	}
	for _, c := range []struct {
		name   string
		m      Marginals
		i      int
		lo, hi float64
		oracle func(v float64) float64
		tol    float64
	}{
		{"banana x₂", bn, 1, -6, 20, func(v float64) float64 {
			return expect(func(u float64) float64 { return phi(v - bn.b*bn.a*bn.a*(u*u-1)) })
		}, 1e-7},
		{"funnel x", fn, 0, -30, 30, func(v float64) float64 {
			return expect(func(u float64) float64 { return phi(v * math.Exp(-fn.tau*u/2)) })
		}, 1e-7},
		{"donut", dn, 0, -3.7, 3.7, func(v float64) float64 { return donutCDF(dn, v) }, 3e-6},
		{"donut r = 2, σ = 1", wide, 1, -5, 5, func(v float64) float64 { return donutCDF(wide, v) }, 5e-6},
	} {
		const n = 37
		worst := 0.0
		for k := range n {
			v := c.lo + (c.hi-c.lo)*float64(k)/(n-1)
			e := math.Abs(c.m.MarginalCDF(c.i, v) - c.oracle(v))
			worst = math.Max(worst, e)
			if !(e <= c.tol) {
				t.Errorf("%s: CDF(%g) = %.12g, the oracle's %.12g (error %.2g > %g)", c.name, v, c.m.MarginalCDF(c.i, v), c.oracle(v), e, c.tol)
			}
		}
		t.Logf("%s: largest error %.2g", c.name, worst)
	}
}

// TestExpectNormalAccuracy: expectNormal's Simpson rule leaves an error
// below 1e-9 (its doc comment; 2e-15 is seen) on E[Φ(a + bU)] =
// Φ(a/√(1 + b²)), a bounded smooth f like the uses', from gentle to steep;
// the mass it leaves out, |U| > 10, is the 2·10⁻²³ quoted (1.5e-23).
func TestExpectNormalAccuracy(t *testing.T) {
	if s := fmt.Sprintf("%.0e", math.Erfc(10/math.Sqrt2)); s != "2e-23" {
		t.Errorf("P(|U| > 10) = %s, quoted 2e-23", s)
	}
	for _, a := range []float64{-3, -1, 0, 0.4, 2, 5} {
		for _, b := range []float64{0.1, 1, 3, 10, 30} {
			got := expectNormal(func(u float64) float64 { return phi(a + b*u) })
			if want := 0.5 * math.Erfc(-a/math.Sqrt(1+b*b)/math.Sqrt2); !(math.Abs(got-want) <= 1e-9) {
				t.Errorf("E[Φ(%g + %gU)] = %.15g, want %.15g", a, b, got, want)
			}
		}
	}
}

// TestQuantileAccuracy: Quantile is within 1e-7 of the Bounds' width of
// the quantile μ + σz_p of a Gaussian, from the far tails to the middle;
// z_p is math.Erfcinv's, polished by Newton's method on Φ by erfc (Go's
// Erfcinv(x) is Erfinv(1 − x), which loses the lower tail).
func TestQuantileAccuracy(t *testing.T) {
	n, _ := NewNormal(-1.5, 0.4)
	for _, tg := range []Normal{StdNormal(), n} {
		lo, hi := tg.Bounds()
		w := hi[0] - lo[0]
		for _, p := range []float64{1e-9, 1e-6, 0.001, 0.05, 0.3, 0.5, 0.9, 0.999999} {
			q, ok := Quantile(tg, 0, p)
			z := -math.Sqrt2 * math.Erfcinv(2*p)
			for range 3 {
				z -= (phi(z) - p) / stdNormalDensity(z)
			}
			want := tg.mu + tg.sigma*z
			if !ok || !(math.Abs(q-want) <= 1e-7*w) {
				t.Errorf("%s: Quantile(%g) = %.12g, want %.12g (±%.2g)", tg.Formula(), p, q, want, 1e-7*w)
			}
		}
	}
}

// TestNormalBoundsMass: μ ± 4.5σ leaves out 2Φ(−4.5) = 6.8·10⁻⁶ of the
// mass, the 7·10⁻⁶ Bounds quotes (to its one digit).
func TestNormalBoundsMass(t *testing.T) {
	n, _ := NewNormal(-1.5, 0.4)
	lo, hi := n.Bounds()
	out := 0.5*math.Erfc((hi[0]+1.5)/0.4/math.Sqrt2) + 0.5*math.Erfc(-(lo[0]+1.5)/0.4/math.Sqrt2)
	if got := fmt.Sprintf("%.0e", out); got != "7e-06" {
		t.Errorf("mass outside the bounds %.3g, quoted 7e-06", out)
	}
}

// TestMixtureWeightTolerance: NewMixture takes weights summing to one
// within 1e-9, as its doc comment says — off by half that they are
// accepted (and renormalised), off by twice it refused naming weights.
func TestMixtureWeightTolerance(t *testing.T) {
	means := [][]float64{{-1}, {1}}
	for _, c := range []struct {
		off float64
		ok  bool
	}{{5e-10, true}, {-5e-10, true}, {2e-9, false}, {-2e-9, false}} {
		_, err := NewMixture([]float64{0.25, 0.75 + c.off}, means, 1)
		if c.ok && err != nil {
			t.Errorf("weights off by %g: %v", c.off, err)
		}
		var pe *algo.ParamError
		if !c.ok && (!errors.As(err, &pe) || pe.Name != "weights") {
			t.Errorf("weights off by %g: %v, want a ParamError naming weights", c.off, err)
		}
	}
}
