package divergence

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/algotest"
	"gonum.org/v1/gonum/mat"
)

// TestDiscrete checks the A6 identities and numbers: H ≤ log K with
// equality for the uniform (1.22–1.23), the Bernoulli entropy of Ex 1.7,
// H(p) ≤ H(p, q) (1.26–1.28), KL = H(p, q) − H(p) (1.32), 0 log 0 = 0 and
// KL = ∞ when p is not ≪ q.
func TestDiscrete(t *testing.T) {
	algotest.Near(t, "H(uniform 4)", Entropy([]float64{.25, .25, .25, .25}), math.Log(4), 1e-15)
	algotest.Near(t, "H(Bernoulli ½)", BernoulliEntropy(0.5), math.Log(2), 1e-15)
	algotest.Near(t, "H(Bernoulli 0.1)", BernoulliEntropy(0.1), 0.325083, 1e-6)
	algotest.Near(t, "H(point mass)", Entropy([]float64{0, 1, 0}), 0, 0)
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		k := 2 + rng.IntN(8)
		p, q := randPMF(rng, k), randPMF(rng, k)
		h, ce, kl := Entropy(p), CrossEntropy(p, q), KL(p, q)
		if h < 0 || h > math.Log(float64(k))+1e-12 {
			t.Errorf("H = %g outside [0, log %d]", h, k)
		}
		if ce < h-1e-12 || kl < 0 {
			t.Errorf("H(p,q) = %g < H(p) = %g or KL = %g < 0", ce, h, kl)
		}
		algotest.Near(t, "KL − (H(p,q) − H(p))", kl, ce-h, 1e-12)
		algotest.Near(t, "KL(p‖p)", KL(p, p), 0, 0)
	}
	p, q := []float64{0.5, 0.5, 0}, []float64{0.5, 0, 0.5}
	if !math.IsInf(KL(p, q), 1) || !math.IsInf(CrossEntropy(p, q), 1) || !math.IsInf(Chi2(p, q), 1) {
		t.Errorf("p not ≪ q: KL %g, H(p,q) %g, χ² %g, want +Inf", KL(p, q), CrossEntropy(p, q), Chi2(p, q))
	}
	algotest.Near(t, "L1", L1(p, q), 1, 1e-15)
}

func randPMF(rng *rand.Rand, k int) []float64 {
	p := make([]float64, k)
	s := 0.0
	for i := range p {
		p[i] = rng.ExpFloat64()
		s += p[i]
	}
	for i := range p {
		p[i] /= s
	}
	return p
}

func TestCheckPMF(t *testing.T) {
	algotest.WantParam(t, CheckPMF("p", []float64{0.5, 0.6}), "p")
	algotest.WantParam(t, CheckPMF("q", []float64{-0.1, 1.1}), "q")
	algotest.WantParam(t, CheckPMF("q", nil), "q")
	algotest.WantParam(t, CheckPMF("p", []float64{math.NaN(), 1}), "p")
	if err := CheckPMF("p", []float64{0, 1}); err != nil {
		t.Error(err)
	}
}

// TestKLNormal checks (1.38) against quadrature, the Ex 1.11 values at
// v = 2 (0.318147 and 0.806853, swapped at v = ½), the notes' printed
// forms (L505–506) and the identity KL(p‖q)(v) = KL(q‖p)(1/v).
func TestKLNormal(t *testing.T) {
	for _, c := range []struct{ m0, s0, m1, s1 float64 }{
		{0, 1, 0, 2}, {0, 1, 3, 0.5}, {-1, 0.3, 2, 4}, {5, 2, 5, 2}, {1, 1, -1, 1},
	} {
		lo := math.Min(c.m0-14*c.s0, c.m1-14*c.s1)
		hi := math.Max(c.m0+14*c.s0, c.m1+14*c.s1)
		q := KLQuad(func(x float64) float64 { return LogNormalPDF(x, c.m0, c.s0) },
			func(x float64) float64 { return LogNormalPDF(x, c.m1, c.s1) }, []float64{lo, hi}, 40)
		algotest.Near(t, "KL by quadrature − (1.38)", q, KLNormal(c.m0, c.s0, c.m1, c.s1), 1e-9)
	}
	r := EvalGauss(2)
	algotest.Near(t, "KL(p‖q) at v=2", r.Forward, 0.318147, 5e-7)
	algotest.Near(t, "KL(q‖p) at v=2", r.Reverse, 0.806853, 5e-7)
	algotest.Near(t, "quadrature KL(p‖q)", r.ForwardQ, r.Forward, 1e-6)
	algotest.Near(t, "quadrature KL(q‖p)", r.ReverseQ, r.Reverse, 1e-6)
	algotest.Near(t, "notes' form KL(p‖q)", r.ForwardF, r.Forward, 1e-14)
	algotest.Near(t, "notes' form KL(q‖p)", r.ReverseF, r.Reverse, 1e-14)
	h := EvalGauss(0.5)
	algotest.Near(t, "KL(p‖q) at v=½", h.Forward, 0.806853, 5e-7)
	algotest.Near(t, "KL(q‖p) at v=½", h.Reverse, 0.318147, 5e-7)
	algotest.Near(t, "entropy of N(0, 4)", EntropyNormal(2), EntropyQuad(func(x float64) float64 { return LogNormalPDF(x, 0, 2) }, []float64{-40, 40}, 20), 1e-10)
}

// TestKLGaussian checks the d-dimensional formula against (1.38) in one
// dimension, additivity over independent coordinates, and the mean-field
// form of Ex 3.6 (L1315).
func TestKLGaussian(t *testing.T) {
	kl, err := KLGaussian([]float64{1}, mat.NewSymDense(1, []float64{0.25}), []float64{-2}, mat.NewSymDense(1, []float64{9}))
	if err != nil {
		t.Fatal(err)
	}
	algotest.Near(t, "1-D", kl, KLNormal(1, 0.5, -2, 3), 1e-14)
	kl, _ = KLGaussian([]float64{1, 0}, mat.NewSymDense(2, []float64{0.25, 0, 0, 4}), []float64{-2, 1}, mat.NewSymDense(2, []float64{9, 0, 0, 1}))
	algotest.Near(t, "independent coordinates", kl, KLNormal(1, 0.5, -2, 3)+KLNormal(0, 2, 1, 1), 1e-13)
	// Ex 3.6: q = N(m, diag(s)), p = N(μ, Σ).
	sig := mat.NewSymDense(2, []float64{1, 1.2, 1.2, 2})
	m, mu, s := []float64{0.3, -0.4}, []float64{1, -1}, []float64{0.5, 0.7}
	kl, _ = KLGaussian(m, mat.NewSymDense(2, []float64{s[0], 0, 0, s[1]}), mu, sig)
	det := 1*2 - 1.2*1.2
	inv := [2][2]float64{{2 / det, -1.2 / det}, {-1.2 / det, 1 / det}}
	dm := []float64{m[0] - mu[0], m[1] - mu[1]}
	maha := dm[0]*(inv[0][0]*dm[0]+inv[0][1]*dm[1]) + dm[1]*(inv[1][0]*dm[0]+inv[1][1]*dm[1])
	want := 0.5 * (math.Log(det/(s[0]*s[1])) - 2 + inv[0][0]*s[0] + inv[1][1]*s[1] + maha)
	algotest.Near(t, "Ex 3.6 (L1315)", kl, want, 1e-13)
	_, err = KLGaussian([]float64{0, 0}, mat.NewSymDense(2, []float64{1, 2, 2, 1}), []float64{0, 0}, sig)
	algotest.WantParam(t, err, "S0")
}

// TestKLNormalGrad checks the corrected σ-derivative against finite
// differences of (1.38), and that the notes' (1.40) agrees only when
// μ1 = μ0.
func TestKLNormalGrad(t *testing.T) {
	for _, c := range []struct{ m0, s0, m1, s1 float64 }{{0, 1, 3, 1.5}, {2, 0.5, -1, 2}, {1, 1, 1, 0.3}} {
		dm, ds := KLNormalGrad(c.m0, c.s0, c.m1, c.s1)
		const h = 1e-6
		fm := (KLNormal(c.m0, c.s0, c.m1+h, c.s1) - KLNormal(c.m0, c.s0, c.m1-h, c.s1)) / (2 * h)
		fs := (KLNormal(c.m0, c.s0, c.m1, c.s1+h) - KLNormal(c.m0, c.s0, c.m1, c.s1-h)) / (2 * h)
		algotest.Near(t, "∂KL/∂μ", dm, fm, 1e-7)
		algotest.Near(t, "∂KL/∂σ", ds, fs, 1e-7)
		_, ns := NotesGrad(c.m0, c.s0, c.m1, c.s1)
		if c.m0 == c.m1 {
			algotest.Near(t, "notes' ∂KL/∂σ at μ = μ0", ns, ds, 1e-15)
		} else if math.Abs(ns-ds) < 1e-3 {
			t.Errorf("notes' (1.40) = %g agrees with the derivative %g although μ ≠ μ0", ns, ds)
		}
	}
}

// TestSequences checks the closed forms (1.33)–(1.37) against the
// catalogue's table (A7) and against numerical integration of the densities
// themselves, and the limits of Remark 1.12.
func TestSequences(t *testing.T) {
	for _, c := range []struct{ n, cn, l1, kl float64 }{
		{2, 1.864665, 0.864665, 0.688459},
		{10, 1.111106, 0.199991, 0.905180},
		{100, 1.010101, 0.020000, 0.990050},
		{1000, 1.001001, 0.002000, 0.999001},
	} {
		s := StepSequence{N: c.n}
		algotest.Near(t, "c_n", s.C(), c.cn, 1e-6)
		algotest.Near(t, "L1 (1.34)", s.L1(), c.l1, 1e-6)
		algotest.Near(t, "KL (1.35)", s.KL(), c.kl, 1e-6)
		r := EvalSequences(c.n)
		algotest.Near(t, "L1 by quadrature", r.L1Quad, r.L1, 1e-12)
		algotest.Near(t, "KL by quadrature", r.KLQuad, r.KL, 1e-12)
	}
	for _, c := range []struct{ eps, chi2, kl float64 }{
		{0.5, 0.333333, 0.143841}, {0.1, 0.818182, 0.144479}, {0.01, 0.980198, 0.036201}, {0.001, 0.998002, 0.005909},
	} {
		b := BernoulliSequence{Eps: c.eps}
		algotest.Near(t, "χ² (1.36)", b.Chi2(), c.chi2, 1e-6)
		algotest.Near(t, "KL (1.37)", b.KL(), c.kl, 1e-6)
		algotest.Near(t, "χ² by the sum", Chi2(b.P(), b.Q()), b.Chi2(), 1e-12)
		algotest.Near(t, "KL by the sum", KL(b.P(), b.Q()), b.KL(), 1e-12)
	}
	far := EvalSequences(1e6)
	if far.L1 > 1e-5 || math.Abs(far.KL-1) > 1e-5 || far.KLEps > 1e-4 || math.Abs(far.Chi2-1) > 1e-5 {
		t.Errorf("limits: L1 %g (→0), KL %g (→1), KL_ε %g (→0), χ² %g (→1)", far.L1, far.KL, far.KLEps, far.Chi2)
	}
	s, err := NewSequences(50, 30)
	if err != nil {
		t.Fatal(err)
	}
	for range 30 {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
	}
	rows := s.Rows()
	if err := s.Step(); !errors.Is(err, algo.ErrConverged) || len(rows) != 30 || rows[0].N != 2 || math.Abs(rows[29].N-50) > 1e-12 {
		t.Errorf("after n = 50: %v, %d rows", err, len(rows))
	}
	_, err = NewSequences(2, 10)
	algotest.WantParam(t, err, "max_n")
	_, err = NewSequences(20, 1)
	algotest.WantParam(t, err, "points")
}

func TestGaussSweep(t *testing.T) {
	g, err := NewGaussSweep(0.25, 4.25, 9)
	if err != nil {
		t.Fatal(err)
	}
	for g.Step() == nil {
	}
	rows := g.Rows()
	if len(rows) != 9 || rows[0].V != 0.25 || math.Abs(rows[8].V-4.25) > 1e-12 || math.Abs(rows[2].V-1.25) > 1e-12 {
		t.Fatalf("grid %v", rows)
	}
	for _, r := range rows {
		algotest.Near(t, "forward by quadrature", r.ForwardQ, r.Forward, 1e-6)
		algotest.Near(t, "reverse by quadrature", r.ReverseQ, r.Reverse, 1e-6)
		// KL(p‖q)(v) = KL(q‖p)(1/v).
		algotest.Near(t, "KL(p‖q)(v) − KL(q‖p)(1/v)", r.Forward, EvalGauss(1/r.V).Reverse, 1e-12)
	}
	for _, bad := range []struct {
		lo, hi float64
		n      int
		name   string
	}{{0, 1, 5, "v_min"}, {2, 1, 5, "v_min"}, {1, 200, 5, "v_max"}, {1, 2, 1, "points"}} {
		_, err := NewGaussSweep(bad.lo, bad.hi, bad.n)
		algotest.WantParam(t, err, bad.name)
	}
}

// TestCoding checks that the mean code lengths tend to H(p) and H(p, q)
// within 4 Monte Carlo standard errors, and that a symbol with q = 0 makes
// the q-code infinite.
func TestCoding(t *testing.T) {
	p, q := []float64{0.1, 0.2, 0.4, 0.3}, []float64{0.25, 0.25, 0.25, 0.25}
	c, err := NewCoding(p, q, rand.New(rand.NewPCG(3, 4)))
	if err != nil {
		t.Fatal(err)
	}
	const n = 40000
	for range n {
		_ = c.Step()
	}
	lp, lq := c.MeanLengths()
	se := c.LengthSD() / math.Sqrt(n)
	algotest.Near(t, "mean length under p", lp, Entropy(p), 4*se)
	algotest.Near(t, "mean length under q (uniform: exactly log 4)", lq, math.Log(4), 1e-9)
	emp := c.Empirical(nil)
	for i := range p {
		algotest.Near(t, "frequency", emp[i], p[i], 4*math.Sqrt(p[i]*(1-p[i])/n))
	}
	z, err := NewCoding([]float64{0.5, 0.5}, []float64{1, 0}, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	for range 20 {
		_ = z.Step()
	}
	if _, lq := z.MeanLengths(); !math.IsInf(lq, 1) {
		t.Errorf("q-code length %g after a symbol with q = 0, want +Inf", lq)
	}
	_, err = NewCoding(p, []float64{0.5, 0.5}, rand.New(rand.NewPCG(1, 1)))
	algotest.WantParam(t, err, "q")
	_, err = NewCoding([]float64{0.5, 0.4}, q, rand.New(rand.NewPCG(1, 1)))
	algotest.WantParam(t, err, "p")
	if a := testing.AllocsPerRun(1000, func() { _ = c.Step() }); a != 0 {
		t.Errorf("Step allocates %v times", a)
	}
}

// TestMLasKL checks eqs (1.43)–(1.46) at work: at every N the MLE's
// empirical objective is at most θ*'s and its exact KL at least θ*'s (both
// exact), and after many points all three are within 4 standard errors of
// min KL.
func TestMLasKL(t *testing.T) {
	for _, d := range []float64{0, 1.5, 3} {
		m, err := NewMLasKL(d, rand.New(rand.NewPCG(5, uint64(10*d))))
		if err != nil {
			t.Fatal(err)
		}
		_, sb, best := m.Best()
		algotest.Near(t, "σ*", sb, math.Sqrt(1+d*d), 1e-15)
		// H(p) by quadrature: for d = 0, p = N(0, 1) exactly.
		if d == 0 {
			algotest.Near(t, "H(N(0,1))", m.Entropy(), EntropyNormal(1), 1e-10)
			algotest.Near(t, "min KL at d = 0", best, 0, 1e-10)
		}
		for i := 0; i < 50000; i++ {
			_ = m.Step()
			atBest, atMLE, _, ok := m.Empirical()
			if !ok {
				continue
			}
			mu, s, _ := m.MLE()
			if atMLE > atBest+1e-12 {
				t.Fatalf("d=%g N=%d: empirical KL at the MLE %g > at θ* %g", d, m.N(), atMLE, atBest)
			}
			if kl := m.ExactKL(mu, s); kl < best-1e-12 {
				t.Fatalf("d=%g N=%d: KL(p‖q_MLE) = %g < min KL %g", d, m.N(), kl, best)
			}
		}
		atBest, atMLE, se, _ := m.Empirical()
		algotest.Near(t, "empirical KL at θ*", atBest, best, 4*se)
		algotest.Near(t, "empirical KL at the MLE", atMLE, best, 4*se+1e-3)
		// Reference: the catalogue's A10 table gives forward-KL optima 0.462
		// at d = 3 (N(0, 3.162²)).
		if d == 3 {
			algotest.Near(t, "min KL at d = 3", best, 0.462, 1e-3)
		}
	}
	_, err := NewMLasKL(-1, rand.New(rand.NewPCG(1, 1)))
	algotest.WantParam(t, err, "d")
}

// normalL1 is ∫|p − q| for p = N(m1, s1²), q = N(m2, s2²) in closed form:
// 2(P(A) − Q(A)) for A = {p > q}, bounded by the roots of log p = log q.
func normalL1(m1, s1, m2, s2 float64) float64 {
	cdf := func(x, m, s float64) float64 { return 0.5 * math.Erfc(-(x-m)/(s*math.Sqrt2)) }
	if s1 == s2 {
		r := (m1 + m2) / 2
		if m1 < m2 {
			return 2 * (cdf(r, m1, s1) - cdf(r, m2, s2))
		}
		return 2 * (cdf(r, m2, s2) - cdf(r, m1, s1))
	}
	// a x² + b x + c = 0 with log p − log q = −(a x² + b x + c).
	a := 1/(2*s1*s1) - 1/(2*s2*s2)
	b := m2/(s2*s2) - m1/(s1*s1)
	c := m1*m1/(2*s1*s1) - m2*m2/(2*s2*s2) + math.Log(s1/s2)
	d := math.Sqrt(b*b - 4*a*c)
	qq := -0.5 * (b + math.Copysign(d, b))
	r1, r2 := qq/a, c/qq
	if r1 > r2 {
		r1, r2 = r2, r1
	}
	mass := func(m, s float64) float64 { return cdf(r2, m, s) - cdf(r1, m, s) }
	if s1 < s2 { // p > q between the roots
		return 2 * (mass(m1, s1) - mass(m2, s2))
	}
	return 2 * (mass(m2, s2) - mass(m1, s1))
}

// TestL1QuadAtCrossings: L1Quad, split where the densities cross, matches
// the closed form (normalL1) to 1e-13 relative, where the plain rule on
// the same panels (64 per piece between the ±12σ breaks) keeps only five
// or six digits, as L1Quad's doc comment says: it errs by at most 1e-5
// and, on the worst pair, by more than 1e-6.
func TestL1QuadAtCrossings(t *testing.T) {
	worst := 0.0
	for _, c := range []struct{ m1, s1, m2, s2 float64 }{
		{0, 1, 0.3, 2}, {0, 1, 0, 3}, {1, 0.5, -2, 1.5}, {0, 1, 0.7, 1.05}, {0, 1, 1, 1},
	} {
		p := func(x float64) float64 { return math.Exp(LogNormalPDF(x, c.m1, c.s1)) }
		q := func(x float64) float64 { return math.Exp(LogNormalPDF(x, c.m2, c.s2)) }
		br := []float64{c.m1 - 12*c.s1, c.m2 - 12*c.s2, c.m1 + 12*c.s1, c.m2 + 12*c.s2}
		slices.Sort(br)
		br = slices.Compact(br)
		want := normalL1(c.m1, c.s1, c.m2, c.s2)
		if got := L1Quad(p, q, br, 64); math.Abs(got-want) > 1e-13*want {
			t.Errorf("%+v: L1Quad = %.17g, closed form %.17g", c, got, want)
		}
		plain := rule.Pieces(func(x float64) float64 { return math.Abs(p(x) - q(x)) }, br, 64)
		e := math.Abs(plain-want) / want
		if e > 1e-5 {
			t.Errorf("%+v: the plain rule errs by %.2g: fewer than five digits", c, e)
		}
		worst = math.Max(worst, e)
	}
	if worst <= 1e-6 {
		t.Errorf("the plain rule's worst error %.2g: more than six digits", worst)
	}
	t.Logf("the plain rule's worst error %.2g", worst)
}

// TestCheckPMFTolerance: CheckPMF takes a sum of one within 1e-9, as its
// doc comment says: off by half that accepted, by twice refused.
func TestCheckPMFTolerance(t *testing.T) {
	for _, c := range []struct {
		off float64
		ok  bool
	}{{5e-10, true}, {-5e-10, true}, {2e-9, false}, {-2e-9, false}} {
		err := CheckPMF("p", []float64{0.25, 0.75 + c.off})
		if c.ok != (err == nil) || !c.ok && !algo.IsParamError(err, "p") {
			t.Errorf("a sum off by %g: %v", c.off, err)
		}
	}
}
