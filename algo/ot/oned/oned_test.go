package oned

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/algo/divergence"
	"github.com/thelab/lab/algo/ot"
	"github.com/thelab/lab/algo/ot/lp"
)

// musts returns a function that fails t on an error and passes the
// measure through.
func musts(t testing.TB) func(*Measure, error) *Measure {
	return func(m *Measure, err error) *Measure {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
}

func cost(t testing.TB, a, b *Measure, p float64) float64 {
	t.Helper()
	c, err := Cost(a, b, p)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// randomAtoms draws n atoms of N(m, 1) with random masses summing to 1.
func randomAtoms(rng *rand.Rand, n int, m float64) (x, w []float64) {
	x, w = make([]float64, n), make([]float64, n)
	s := 0.0
	for i := range x {
		x[i], w[i] = m+rng.NormFloat64(), rng.Float64()
		s += w[i]
	}
	return x, ot.Normalised(w, s)
}

// TestEx55: μ = ½δ₀ + ½δ₁ against ν = U[0, 1] (Ex 5.5, L2502–2522):
// W₁ = 1/8 + 1/8 = 1/4 and W₂² = 1/24 + 1/24 = 1/12 (W₂ = 0.288675),
// exactly; the coupling sends t ∈ (0, ½) to 0 and (½, 1) to 1.
func TestEx55(t *testing.T) {
	must := musts(t)
	mu := must(Discrete([]float64{0, 1}, []float64{0.5, 0.5}))
	nu := must(Uniform(0, 1))
	w1, _ := W(mu, nu, 1)
	w2, _ := W(mu, nu, 2)
	algotest.Near(t, "W1", w1, 0.25, 1e-15)
	algotest.Near(t, "W2", w2, math.Sqrt(1.0/12), 1e-15)
	algotest.Near(t, "W2 (notes' 6 digits)", w2, 0.288675, 5e-7)
	segs := Segments(mu, nu, nil)
	want := []Segment{{0, 0.5, 0, 0, 0, 0.5}, {0.5, 1, 1, 1, 0.5, 1}}
	if !slices.Equal(segs, want) {
		t.Errorf("segments %v, want %v", segs, want)
	}
}

// TestGaussianW2: the closed form of Ex 5.7, W₂² = (m₁ − m₂)² + (s₁ − s₂)²,
// on quantile grids of n = 10⁴ atoms: between two grids on the same t's
// W₂² is exactly (m₁ − m₂)² + (s₁ − s₂)² c_n with c_n = mean z_k² (to
// 1e-12), and c_n = 1 − 1.3e-4, so the closed form holds to 2e-4·(s₁ − s₂)².
func TestGaussianW2(t *testing.T) {
	must := musts(t)
	const n = 10000
	z := must(QuantileGrid(func(u float64) float64 { return NormalQuantile(0, 1, u) }, n))
	cn := z.Variance() + z.Mean()*z.Mean()
	algotest.Near(t, "c_n", cn, 1, 2e-4)
	for _, g := range [][4]float64{{0, 1, 0, 1}, {0, 1, 3, 1}, {-1, 2, 1, 0.5}, {5, 0.1, -2, 3}} {
		a := must(QuantileGrid(func(u float64) float64 { return NormalQuantile(g[0], g[1], u) }, n))
		b := must(QuantileGrid(func(u float64) float64 { return NormalQuantile(g[2], g[3], u) }, n))
		dm, ds := g[0]-g[2], g[1]-g[3]
		name := fmt.Sprintf("N(%g,%g²)–N(%g,%g²)", g[0], g[1], g[2], g[3])
		algotest.Near(t, name+" grid", cost(t, a, b, 2), dm*dm+ds*ds*cn, 1e-12*(1+dm*dm+ds*ds))
		algotest.Near(t, name+" Ex 5.7", cost(t, a, b, 2), GaussianW2Sq(g[0], g[1], g[2], g[3]), 2e-4*ds*ds+1e-12*(1+dm*dm))
	}
}

// TestAgainstLP: on random atoms with unequal masses and unequal numbers
// of atoms, the quantile cost equals the LP optimum (lp.Simplex) for
// p = 1, 2, 3 to 1e-12, and the monotone coupling uses at most n + m − 1
// segments (a vertex of the polytope).
func TestAgainstLP(t *testing.T) {
	must := musts(t)
	rng := rand.New(rand.NewPCG(7, 8))
	for _, sz := range [][2]int{{1, 1}, {1, 4}, {5, 2}, {12, 17}, {40, 30}} {
		x, wx := randomAtoms(rng, sz[0], 0)
		y, wy := randomAtoms(rng, sz[1], 1)
		a, b := must(Discrete(x, wx)), must(Discrete(y, wy))
		if k := len(Segments(a, b, nil)); k > sz[0]+sz[1]-1 {
			t.Errorf("%v: %d segments", sz, k)
		}
		for _, p := range []float64{1, 2, 3} {
			s, err := lp.New(wx, wy, ot.GroundCost(x, y, 1, p))
			if err != nil {
				t.Fatal(err)
			}
			for !errors.Is(s.Step(), algo.ErrConverged) {
			}
			algotest.Near(t, fmt.Sprintf("%v p=%g", sz, p), cost(t, a, b, p), s.Cost(), 1e-12)
		}
	}
}

// TestW1ByCDF: W₁ = ∫ |F_a − F_b| dx, the CDF form, summed over the sorted
// union of the atoms — a different route from the quantile form.
func TestW1ByCDF(t *testing.T) {
	must := musts(t)
	rng := rand.New(rand.NewPCG(9, 10))
	for rep := range 20 {
		x, wx := randomAtoms(rng, 1+rng.IntN(30), 0)
		y, wy := randomAtoms(rng, 1+rng.IntN(30), 0.5)
		a, b := must(Discrete(x, wx)), must(Discrete(y, wy))
		pts := slices.Sorted(slices.Values(slices.Concat(x, y)))
		want := 0.0
		for k := 0; k+1 < len(pts); k++ {
			want += math.Abs(a.CDF(pts[k])-b.CDF(pts[k])) * (pts[k+1] - pts[k])
		}
		algotest.Near(t, fmt.Sprintf("#%d", rep), cost(t, a, b, 1), want, 1e-12)
	}
}

// TestQuantileCDF: the quantile is the generalised inverse of the CDF:
// F(F⁻(t)) ≥ t and F⁻(F(x)) ≤ x where F(x) > 0, on atoms, a histogram with a gap and
// their mixture; the density integrates to the continuous mass.
func TestQuantileCDF(t *testing.T) {
	must := musts(t)
	d := must(Discrete([]float64{2, -1, 0.5, 2}, []float64{0.1, 0.4, 0.3, 0.2}))
	h := must(Histogram([]float64{0, 1, 2, 3, 5}, []float64{0.25, 0, 0.5, 0.25}))
	mx := must(Mixture(d, h, 0.4))
	for _, m := range []*Measure{d, h, mx} {
		for k := 0; k <= 200; k++ {
			u := float64(k) / 200
			if q := m.Quantile(u); m.CDF(q) < u-1e-15 {
				t.Errorf("F(F⁻(%g)) = %g", u, m.CDF(q))
			}
			// (F⁻(0) is the least point of the support, not −∞.)
			x := -2 + 8*u
			if m.CDF(x) > 0 && m.Quantile(m.CDF(x)) > x+1e-15 {
				t.Errorf("F⁻(F(%g)) = %g", x, m.Quantile(m.CDF(x)))
			}
		}
	}
	algotest.Near(t, "CDF at the atom", d.CDF(0.5), 0.7, 1e-15)
	algotest.Near(t, "CDF in the gap", h.CDF(1.5), 0.25, 1e-15)
	algotest.Near(t, "density", h.Density(4), 0.125, 1e-15)
	algotest.Near(t, "density in the gap", h.Density(1.5), 0, 0)
	xs, ws := d.Atoms(nil, nil)
	if !slices.Equal(xs, []float64{-1, 0.5, 2}) || math.Abs(ws[2]-0.3) > 1e-15 {
		t.Errorf("atoms %v %v", xs, ws)
	}
	mass := 0.0
	for k := range 5000 {
		mass += mx.Density(-1+float64(k)*0.002+0.001) * 0.002
	}
	algotest.Near(t, "∫ density of the mixture", mass, 0.4, 1e-12)
}

// TestMixture: the CDF of (1 − s) a + s b is (1 − s) F_a + s F_b, for
// overlapping histograms and atoms; its variance is (1 − s)v_a + s v_b +
// s(1 − s)(m_a − m_b)², not the geodesic's.
func TestMixture(t *testing.T) {
	must := musts(t)
	a := must(Histogram([]float64{0, 1, 3}, []float64{0.5, 0.5}))
	b := must(Discrete([]float64{0.5, 2, 4}, []float64{0.2, 0.5, 0.3}))
	c := must(Uniform(1.5, 2.5))
	for _, pair := range [][2]*Measure{{a, b}, {a, c}, {b, c}} {
		for _, s := range []float64{0, 0.3, 1} {
			m := must(Mixture(pair[0], pair[1], s))
			for k := 0; k <= 100; k++ {
				x := -1 + 6*float64(k)/100
				algotest.Near(t, fmt.Sprintf("s=%g F(%g)", s, x), m.CDF(x), (1-s)*pair[0].CDF(x)+s*pair[1].CDF(x), 1e-14)
			}
			ma, mb := pair[0].Mean(), pair[1].Mean()
			algotest.Near(t, "mixture variance", m.Variance(), (1-s)*pair[0].Variance()+s*pair[1].Variance()+s*(1-s)*(ma-mb)*(ma-mb), 1e-12)
		}
	}
}

// TestBarycenters: Ex 5.8, μ₁ = U[0, 1], μ₂ = U[2, 3] with weights λ,
// 1 − λ: the barycenter is U[2 − 2λ, 3 − 2λ]; Ex 5.9, δ₀ and δ₁ with ½
// each: δ_{1/2}, while the mixture is ½δ₀ + ½δ₁; the proposed variant,
// N(0, σ²) and N(1, σ²) on quantile grids: N(½, σ²) on the same grid.
func TestBarycenters(t *testing.T) {
	must := musts(t)
	u1, u2 := must(Uniform(0, 1)), must(Uniform(2, 3))
	for _, l := range []float64{0, 0.25, 0.5, 0.9, 1} {
		b := must(Barycenter([]*Measure{u1, u2}, []float64{l, 1 - l}))
		for k := 0; k <= 50; k++ {
			u := float64(k) / 50
			algotest.Near(t, fmt.Sprintf("λ=%g F⁻(%g)", l, u), b.Quantile(u), 2-2*l+u, 1e-15)
		}
		lo, hi := b.Support()
		algotest.Near(t, "support lo", lo, 2-2*l, 1e-15)
		algotest.Near(t, "support hi", hi, 3-2*l, 1e-15)
		algotest.Near(t, "variance", b.Variance(), 1.0/12, 1e-15)
	}
	d0, d1 := must(Discrete([]float64{0}, nil)), must(Discrete([]float64{1}, nil))
	b := must(Barycenter([]*Measure{d0, d1}, []float64{0.5, 0.5}))
	if xs, ws := b.Atoms(nil, nil); !slices.Equal(xs, []float64{0.5}) || ws[0] != 1 {
		t.Errorf("Ex 5.9 barycenter atoms %v %v, want δ_½", xs, ws)
	}
	if xs, ws := must(Mixture(d0, d1, 0.5)).Atoms(nil, nil); !slices.Equal(xs, []float64{0, 1}) || !slices.Equal(ws, []float64{0.5, 0.5}) {
		t.Errorf("Ex 5.9 mixture atoms %v %v, want ½δ₀ + ½δ₁", xs, ws)
	}
	sigma := 0.3
	q := func(m float64) *Measure {
		return must(QuantileGrid(func(u float64) float64 { return NormalQuantile(m, sigma, u) }, 1000))
	}
	b = must(Barycenter([]*Measure{q(0), q(1)}, []float64{0.5, 0.5}))
	algotest.Near(t, "Gaussian barycenter vs N(½, σ²)", cost(t, b, q(0.5), 2), 0, 1e-24)
}

// TestBarycenterMinimises: the barycenter of random discrete measures
// beats perturbations of itself on Σ λ_k W₂²(·, μ_k).
func TestBarycenterMinimises(t *testing.T) {
	must := musts(t)
	rng := rand.New(rand.NewPCG(11, 12))
	ms := make([]*Measure, 3)
	for k := range ms {
		x, w := randomAtoms(rng, 5+rng.IntN(10), float64(k))
		ms[k] = must(Discrete(x, w))
	}
	lambda := []float64{0.2, 0.5, 0.3}
	obj := func(m *Measure) float64 {
		s := 0.0
		for k, mk := range ms {
			s += lambda[k] * cost(t, m, mk, 2)
		}
		return s
	}
	b := must(Barycenter(ms, lambda))
	best := obj(b)
	for _, other := range []*Measure{ms[0], ms[1], must(Mixture(ms[0], ms[2], 0.5)), must(Interpolate(b, ms[1], 0.1))} {
		if o := obj(other); o < best-1e-12 {
			t.Errorf("a perturbation scores %g < the barycenter's %g", o, best)
		}
	}
}

// TestGeodesic: Ex 5.6 — the displacement interpolation of two Gaussians
// has mean and sd linear in t (on quantile grids, sd = s_t·√c_n exactly);
// and along any geodesic W₂(μ₀, μ_t) = t·W₂(μ₀, μ₁) (constant speed).
func TestGeodesic(t *testing.T) {
	must := musts(t)
	const n = 2000
	g := func(m, s float64) *Measure {
		return must(QuantileGrid(func(u float64) float64 { return NormalQuantile(m, s, u) }, n))
	}
	a, b := g(-2, 0.5), g(3, 2)
	cn := g(0, 1).Variance()
	for _, s := range []float64{0, 0.2, 0.5, 0.8, 1} {
		m := must(Interpolate(a, b, s))
		mt, st := GaussianGeodesic(-2, 0.5, 3, 2, s)
		algotest.Near(t, fmt.Sprintf("t=%g mean", s), m.Mean(), mt, 1e-12)
		algotest.Near(t, fmt.Sprintf("t=%g sd", s), math.Sqrt(m.Variance()), st*math.Sqrt(cn), 1e-12)
	}
	rng := rand.New(rand.NewPCG(13, 14))
	x, wx := randomAtoms(rng, 9, 0)
	y, wy := randomAtoms(rng, 14, 2)
	m0, m1 := must(Discrete(x, wx)), must(Discrete(y, wy))
	full, _ := W(m0, m1, 2)
	for _, s := range []float64{0.1, 0.5, 0.75} {
		part, _ := W(m0, must(Interpolate(m0, m1, s)), 2)
		algotest.Near(t, fmt.Sprintf("W2(μ0, μ_%g)", s), part, s*full, 1e-12)
	}
}

// TestDistancesGauss: E6 for N(0, 1) against N(d, 1): W₁ = W₂ = d,
// L1 = 2(2Φ(d/2) − 1), KL = d²/2, and JS rising to log 2 (9.4e-5 short of
// it at d = 8); for N(0, 1) against N(d, 2²), W₂² = d² + 1 (Ex 5.7) and KL
// from (1.38). Quadrature tolerance 1e-9.
func TestDistancesGauss(t *testing.T) {
	prevJS := -1.0
	for _, d := range []float64{0, 0.5, 1, 2, 4, 8} {
		r, err := Between(Normal{0, 1}, Normal{d, 1})
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("d=%g", d)
		algotest.Near(t, name+" W1", r.W1, d, 1e-9)
		algotest.Near(t, name+" W2", r.W2, d, 1e-9)
		algotest.Near(t, name+" L1", r.L1, 2*(2*NormalCDF(0, 1, d/2)-1), 1e-9)
		algotest.Near(t, name+" KL", r.KL, d*d/2, 1e-9)
		if !(r.JS > prevJS && r.JS < math.Ln2) {
			t.Errorf("%s: JS %g after %g, want rising below log 2", name, r.JS, prevJS)
		}
		prevJS = r.JS
		r2, _ := Between(Normal{0, 1}, Normal{d, 2})
		algotest.Near(t, name+" W2 (sd 1 vs 2)", r2.W2*r2.W2, d*d+1, 1e-9)
		algotest.Near(t, name+" KL (sd 1 vs 2)", r2.KL, divergence.KLNormal(0, 1, d, 2), 1e-9)
	}
	algotest.Near(t, "JS at d=8", prevJS, math.Ln2, 1e-4)
}

// TestDistancesBoxes: E6 for U[0, 1] against U[d, d + 1]: W₁ = W₂ = d,
// L1 = 2 min(d, 1), KL = +Inf for d > 0, JS = min(d, 1) log 2.
func TestDistancesBoxes(t *testing.T) {
	for _, d := range []float64{0, 0.25, 0.5, 1, 2, 5} {
		r, err := Between(Box{0, 1}, Box{d, d + 1})
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("d=%g", d)
		algotest.Near(t, name+" W1", r.W1, d, 1e-12)
		algotest.Near(t, name+" W2", r.W2, d, 1e-12)
		algotest.Near(t, name+" L1", r.L1, 2*math.Min(d, 1), 1e-12)
		algotest.Near(t, name+" JS", r.JS, math.Min(d, 1)*math.Ln2, 1e-12)
		if (d > 0) != math.IsInf(r.KL, 1) || (d == 0 && r.KL != 0) {
			t.Errorf("%s: KL = %g", name, r.KL)
		}
	}
}

// TestSeparation: the stepper visits d = Δ, 2Δ, … up to the end, each with
// the distances of Between.
func TestSeparation(t *testing.T) {
	s, err := NewSeparation(Normal{0, 1}, Normal{0, 1}, 0.5, 2)
	if err != nil {
		t.Fatal(err)
	}
	for k := 1; ; k++ {
		err := s.Step()
		algotest.Near(t, "shift", s.Shift(), 0.5*float64(k), 1e-15)
		algotest.Near(t, "W1", s.Values().W1, s.Shift(), 1e-9)
		if errors.Is(err, algo.ErrConverged) {
			if k != 4 {
				t.Errorf("ended after %d steps, want 4", k)
			}
			break
		}
		if err != nil || k > 4 {
			t.Fatal(err, k)
		}
	}
}

func TestBadInput(t *testing.T) {
	must := musts(t)
	nan := math.NaN()
	_, err := Discrete(nil, nil)
	algotest.WantParam(t, err, "x")
	_, err = Discrete([]float64{0, nan}, nil)
	algotest.WantParam(t, err, "x")
	_, err = Discrete([]float64{0, 1}, []float64{0.5, -0.5})
	algotest.WantParam(t, err, "weights")
	_, err = Discrete([]float64{0, 1}, []float64{0.5, 0.6})
	algotest.WantParam(t, err, "weights")
	_, err = Uniform(1, 0)
	algotest.WantParam(t, err, "interval")
	_, err = Histogram([]float64{0, 1, 1}, []float64{0.5, 0.5})
	algotest.WantParam(t, err, "edges")
	a := must(Uniform(0, 1))
	_, err = Cost(a, a, 0.5)
	algotest.WantParam(t, err, "p")
	_, err = Interpolate(a, a, 1.5)
	algotest.WantParam(t, err, "t")
	_, err = Barycenter([]*Measure{a, a}, []float64{0.5})
	algotest.WantParam(t, err, "weights")
	_, err = Between(Normal{0, 0}, Normal{0, 1})
	algotest.WantParam(t, err, "P")
	_, err = Between(Normal{0, 1}, Box{1, 1})
	algotest.WantParam(t, err, "Q")
	_, err = NewSeparation(Normal{0, 1}, Normal{0, 1}, 0, 1)
	algotest.WantParam(t, err, "delta")
}

// TestSortAtoms: the radix sort agrees with slices.Sort on values of both
// signs, ±0, duplicates and magnitudes from 1e-300 to 1e300, carrying each
// weight with its atom.
func TestSortAtoms(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	x := []float64{0, math.Copysign(0, -1), 1e-300, -1e-300, 1e300, -1e300, 3, 3, -3}
	for range 5000 {
		x = append(x, rng.NormFloat64()*math.Pow(10, float64(rng.IntN(40)-20)))
	}
	w := make([]float64, len(x))
	for i := range w {
		w[i] = float64(i)
	}
	xs, ws := sortAtoms(x, w)
	if want := slices.Sorted(slices.Values(x)); !slices.Equal(xs, want) {
		t.Fatal("radix order differs from slices.Sort")
	}
	for i, v := range ws {
		if x[int(v)] != xs[i] {
			t.Fatalf("weight %g travelled to atom %g", v, xs[i])
		}
	}
	if only, _ := sortAtoms(x, nil); !slices.Equal(only, xs) {
		t.Error("without weights the order differs")
	}
}

// exactPowIntegral is ∫ |d|^p over [0, l] for d running linearly from d0
// to d1 of one sign, p an integer or half an odd one, as
// l (b^{p+1} − a^{p+1}) / ((p + 1)(b − a)) with a = |d0|, b = |d1| (l a^p
// when a = b), in 256-bit arithmetic: the cancellation that powIntegral
// avoids costs nothing here.
func exactPowIntegral(l, d0, d1, p float64) float64 {
	const prec = 256
	pow := func(x *big.Float, e float64) *big.Float { // x^e, 2e an integer ≥ 0
		r := new(big.Float).SetPrec(prec).SetInt64(1)
		for range int(e) {
			r.Mul(r, x)
		}
		if e != math.Trunc(e) {
			r.Mul(r, new(big.Float).SetPrec(prec).Sqrt(x))
		}
		return r
	}
	a := new(big.Float).SetPrec(prec).SetFloat64(math.Abs(d0))
	b := new(big.Float).SetPrec(prec).SetFloat64(math.Abs(d1))
	bl := new(big.Float).SetPrec(prec).SetFloat64(l)
	var r *big.Float
	if a.Cmp(b) == 0 {
		r = pow(a, p)
		r.Mul(r, bl)
	} else {
		r = pow(b, p+1)
		r.Sub(r, pow(a, p+1))
		r.Mul(r, bl)
		r.Quo(r, new(big.Float).SetPrec(prec).Sub(b, a))
		r.Quo(r, new(big.Float).SetPrec(prec).SetFloat64(p+1))
	}
	f, _ := r.Float64()
	return f
}

// TestPowIntegralAccuracy measures what powIntegral's doc comment
// claims, against exactPowIntegral: where |d0| and |d1| agree to 1e-4 the
// Taylor expansion is within (p + 1)ε for p ≤ 8 (its truncation below
// 1e-16, the rest the rounding of the mean raised to p; 0.81(p + 1)ε is
// seen), and just above that gap the quotient loses at most ε/1e-4 ≈
// 2e-12 to cancellation (1.1e-12 is seen) — on random intervals of either
// sign, at scales from e⁻¹² to e¹².
func TestPowIntegralAccuracy(t *testing.T) {
	const eps = 0x1p-52
	rng := rand.New(rand.NewPCG(1, 2))
	for _, p := range []float64{1.5, 2.5, 3, 3.5, 4, 5, 6, 8} {
		taylor, quotient := 0.0, 0.0
		for range 300 {
			m := math.Exp(4 * rng.NormFloat64())
			l := 0.1 + rng.Float64()
			sign := float64(1 - 2*rng.IntN(2))
			// A relative gap r ≤ 1e-4 (the Taylor branch), then one in (1e-4, 1e-3].
			r := 1e-4 * math.Pow(10, -6*rng.Float64()) * float64(1-2*rng.IntN(2))
			r2 := 1e-4 * (1 + 9*rng.Float64())
			for _, c := range []struct {
				r   float64
				tol float64
				max *float64
			}{{r, (p + 1) * eps, &taylor}, {r2, 2e-12, &quotient}} {
				d0, d1 := sign*m*(1-c.r/2), sign*m*(1+c.r/2)
				want := exactPowIntegral(l, d0, d1, p)
				e := math.Abs(powIntegral(l, d0, d1, p)-want) / want
				if e > c.tol {
					t.Errorf("p = %g, d0 = %.17g, d1 = %.17g: relative error %.2g > %.2g", p, d0, d1, e, c.tol)
				}
				*c.max = math.Max(*c.max, e)
			}
		}
		t.Logf("p = %g: Taylor within %.2g(p + 1)ε, the quotient near the switch %.2g", p, taylor/((p+1)*eps), quotient)
	}
}
