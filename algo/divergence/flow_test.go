package divergence

import (
	"errors"
	"math"
	"testing"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/algo/integrate"
	"github.com/thelab/lab/algo/target"
)

// TestFlowConverges runs the exact flow from several starts and checks that
// it reaches the target (μ0, σ0) and that KL never increases at these step
// sizes (Ex 1.12).
func TestFlowConverges(t *testing.T) {
	for _, c := range []FlowConfig{
		{Mu0: 2, Sigma0: 1, Mu: -3, Sigma: 1.5, EtaMu: 0.1, EtaSigma: 0.1},
		{Mu0: 0, Sigma0: 0.5, Mu: 4, Sigma: 3, EtaMu: 0.02, EtaSigma: 0.02},
		{Mu0: -1, Sigma0: 2, Mu: -1, Sigma: 0.7, EtaMu: 0.2, EtaSigma: 0.05},
		{Mu0: 1, Sigma0: 1, Mu: 0, Sigma: 1, EtaMu: 0.05, EtaSigma: 0.2},
	} {
		c.Gradient, c.Tol = Exact, 1e-10
		f, err := NewFlow(c)
		if err != nil {
			t.Fatal(err)
		}
		prev := f.KL()
		var stepErr error
		for range 100000 {
			if stepErr = f.Step(); stepErr != nil {
				break
			}
			if f.KL() > prev {
				t.Fatalf("%+v: KL rose from %.17g to %.17g at step %d", c, prev, f.KL(), f.Iter())
			}
			prev = f.KL()
		}
		if !errors.Is(stepErr, algo.ErrConverged) {
			t.Fatalf("%+v: %v after %d steps", c, stepErr, f.Iter())
		}
		algotest.Near(t, "μ", f.Mu(), c.Mu0, 1e-8)
		algotest.Near(t, "σ", f.Sigma(), c.Sigma0, 1e-8)
		algotest.Near(t, "KL at the end", f.KL(), 0, 1e-15)
	}
}

// TestNotesGradientIsNotDescent shows the erratum at work: from μ far from
// μ0 with σ a little above σ0, the notes' (1.42) shrinks σ (the exact
// gradient widens it) and, with η_σ ≫ η_μ, raises the KL at once; the exact
// flow lowers it. Both have the fixed point (μ0, σ0).
func TestNotesGradientIsNotDescent(t *testing.T) {
	base := FlowConfig{Mu0: 0, Sigma0: 1, Mu: 3, Sigma: 1.5, EtaMu: 0.01, EtaSigma: 0.1}
	notes, exact := base, base
	notes.Gradient, exact.Gradient = Notes, Exact
	fn, _ := NewFlow(notes)
	fe, _ := NewFlow(exact)
	kl0 := fn.KL()
	_ = fn.Step()
	_ = fe.Step()
	if !(fn.KL() > kl0) || !(fn.Sigma() < 1.5) {
		t.Errorf("notes' flow: KL %g → %g, σ 1.5 → %g; want KL up and σ down", kl0, fn.KL(), fn.Sigma())
	}
	if !(fe.KL() < kl0) || !(fe.Sigma() > 1.5) {
		t.Errorf("exact flow: KL %g → %g, σ 1.5 → %g; want KL down and σ up", kl0, fe.KL(), fe.Sigma())
	}
	notes.Tol = 1e-10
	fn, _ = NewFlow(notes)
	for fn.Step() == nil {
	}
	algotest.Near(t, "notes' flow μ", fn.Mu(), 0, 1e-8)
	algotest.Near(t, "notes' flow σ", fn.Sigma(), 1, 1e-8)
}

func TestFlowDivergesAndBadParams(t *testing.T) {
	// From σ = 3 the step η_σ(1/3 − 1/27) = 20·0.296 overshoots below zero.
	f, _ := NewFlow(FlowConfig{Mu0: 0, Sigma0: 1, Mu: 0, Sigma: 3, EtaMu: 0.1, EtaSigma: 20, Gradient: Exact})
	if err := f.Step(); !errors.Is(err, algo.ErrDiverged) {
		t.Errorf("σ = 3, η_σ = 20: %v, want ErrDiverged", err)
	}
	ok := FlowConfig{Mu0: 0, Sigma0: 1, Mu: 1, Sigma: 1, EtaMu: 0.1, EtaSigma: 0.1, Gradient: Exact}
	for _, c := range []struct {
		mod  func(*FlowConfig)
		name string
	}{
		{func(c *FlowConfig) { c.Sigma0 = 0 }, "sigma0"},
		{func(c *FlowConfig) { c.Sigma = -1 }, "sigma"},
		{func(c *FlowConfig) { c.Mu = math.NaN() }, "mu"},
		{func(c *FlowConfig) { c.Mu0 = math.Inf(1) }, "mu0"},
		{func(c *FlowConfig) { c.EtaMu = 0 }, "eta_mu"},
		{func(c *FlowConfig) { c.EtaSigma = -1 }, "eta_sigma"},
		{func(c *FlowConfig) { c.Gradient = "adam" }, "gradient"},
		{func(c *FlowConfig) { c.Tol = -1 }, "tol"},
	} {
		cfg := ok
		c.mod(&cfg)
		_, err := NewFlow(cfg)
		algotest.WantParam(t, err, c.name)
	}
	f, _ = NewFlow(ok)
	if a := testing.AllocsPerRun(1000, func() { _ = f.Step() }); a != 0 {
		t.Errorf("Step allocates %v times", a)
	}
}

// TestFitGradients checks both fits' gradients against central finite
// differences of their KLs, in 1-D and 2-D, at several Gaussians.
func TestFitGradients(t *testing.T) {
	m1, _ := target.NewMixture([]float64{0.3, 0.7}, [][]float64{{-2}, {1.5}}, 0.8)
	for _, tg := range []target.Target{target.Fig37(), m1} {
		f, err := NewFit(tg, FitConfig{Start: []float64{0.5, -0.5}[:tg.Dim()], StartSD: 1.5, LR: 0.1})
		if err != nil {
			t.Fatal(err)
		}
		qs := []Gauss{{D: 2, Mu: [2]float64{1, -0.5}, L: [4]float64{1.3, 0, 0.4, 0.8}},
			{D: 2, Mu: [2]float64{2.5, 3.2}, L: [4]float64{0.9, 0, -0.2, 1.1}}}
		if tg.Dim() == 1 {
			qs = []Gauss{{D: 1, Mu: [2]float64{0.3}, L: [4]float64{1.7}}, {D: 1, Mu: [2]float64{1.4}, L: [4]float64{0.6}}}
		}
		for _, q := range qs {
			_, gf, _, gr := f.Gradients(q)
			for i := range gf {
				const h = 1e-5
				plus, minus := perturb(q, i, h), perturb(q, i, -h)
				fp, rp := f.KLs(plus)
				fm, rm := f.KLs(minus)
				algotest.Near(t, "∂KL(p‖q)", gf[i], (fp-fm)/(2*h), 1e-6)
				algotest.Near(t, "∂KL(q‖p)", gr[i], (rp-rm)/(2*h), 1e-6)
			}
		}
	}
}

// perturb moves parameter i (μ…, log L₁₁, L₂₁, log L₂₂) of q by h.
func perturb(q Gauss, i int, h float64) Gauss {
	idx := []int{0, 2}
	if q.D == 2 {
		idx = []int{0, 1, 2, 3, 4}
	}
	switch idx[i] {
	case 0, 1:
		q.Mu[idx[i]] += h
	case 2:
		q.L[0] *= math.Exp(h)
	case 3:
		q.L[2] += h
	case 4:
		q.L[3] *= math.Exp(h)
	}
	return q
}

// TestFitOptima fits the `mixture` target (Fig 3.7) from an off-centre start:
// the forward fit must match p's moments, mean 0 and covariance
// [[10, 9], [9, 10]], with KL(p‖q) = −H(p) + ½ log det(2πeΣ); the reverse fit
// must settle on the nearer mode, N((3, 3), I), with KL(q‖p) ≈ log 2 (the
// far mode pulls it by 1e-4 towards itself: the exact optimum is not quite
// N((3, 3), I)). Both KLs never increase at the default step.
func TestFitOptima(t *testing.T) {
	for _, c := range []struct {
		start []float64
		mode  float64
	}{{[]float64{1, 0}, 3}, {[]float64{-0.5, -1}, -3}} {
		f, err := NewFit(target.Fig37(), FitConfig{Start: c.start, StartSD: 2, LR: 0.2, Tol: 1e-7})
		if err != nil {
			t.Fatal(err)
		}
		pf, pr := f.ForwardKL(), f.ReverseKL()
		var stepErr error
		for range 5000 {
			if stepErr = f.Step(); stepErr != nil {
				break
			}
			if f.ForwardKL() > pf+1e-12 || f.ReverseKL() > pr+1e-12 {
				t.Fatalf("step %d: KLs %g → %g, %g → %g", f.Iter(), pf, f.ForwardKL(), pr, f.ReverseKL())
			}
			pf, pr = f.ForwardKL(), f.ReverseKL()
		}
		if !errors.Is(stepErr, algo.ErrConverged) {
			t.Fatalf("%v after %d steps", stepErr, f.Iter())
		}
		fw, rv := f.Forward(), f.Reverse()
		sxx, sxy, syy := fw.Cov()
		algotest.Near(t, "forward μ₁", fw.Mu[0], 0, 1e-6)
		algotest.Near(t, "forward μ₂", fw.Mu[1], 0, 1e-6)
		algotest.Near(t, "forward Σ₁₁", sxx, 10, 1e-5)
		algotest.Near(t, "forward Σ₁₂", sxy, 9, 1e-5)
		algotest.Near(t, "forward Σ₂₂", syy, 10, 1e-5)
		algotest.Near(t, "forward KL", f.ForwardKL(), -f.TargetEntropyValue()+math.Log(2*math.Pi*math.E)+0.5*math.Log(19), 1e-9)
		rxx, rxy, ryy := rv.Cov()
		algotest.Near(t, "reverse μ₁", rv.Mu[0], c.mode, 1e-3)
		algotest.Near(t, "reverse μ₂", rv.Mu[1], c.mode, 1e-3)
		algotest.Near(t, "reverse Σ₁₁", rxx, 1, 1e-3)
		algotest.Near(t, "reverse Σ₁₂", rxy, 0, 1e-3)
		algotest.Near(t, "reverse Σ₂₂", ryy, 1, 1e-3)
		algotest.Near(t, "reverse KL", f.ReverseKL(), math.Log(2), 1e-3)
	}
	// H(Fig 3.7): along (1, 1)/√2 the target is ½N(±3√2, 1), across it
	// N(0, 1); the entropy is the sum of the two 1-D entropies.
	f, _ := NewFit(target.Fig37(), FitConfig{Start: []float64{1, 0}, StartSD: 2, LR: 0.2})
	m1, _ := target.NewMixture([]float64{0.5, 0.5}, [][]float64{{-3 * math.Sqrt2}, {3 * math.Sqrt2}}, 1)
	x := []float64{0}
	h1 := EntropyQuad(func(t float64) float64 { x[0] = t; return m1.LogP(x) }, []float64{-20, 20}, 100)
	algotest.Near(t, "H(p)", f.TargetEntropyValue(), h1+EntropyNormal(1), 1e-9)
}

// TestFitCloseModes repeats the catalogue's A10 observation in 1-D for
// p = ½N(−d, 1) + ½N(d, 1): at d = 2 the reverse fit straddles both modes
// (μ = 0, σ ≈ 2.05, KL ≈ 0.227, catalogue [M]); at d = 3 it picks the mode it
// starts near (μ ≈ 3, σ ≈ 1, KL ≈ 0.689), while from near 0 it stops at the
// centred local minimum (σ ≈ 2.74, KL ≈ 0.841): reverse KL has local optima.
// The engine's KL is checked against independent 1-D quadrature.
func TestFitCloseModes(t *testing.T) {
	for _, c := range []struct{ d, start, mu, sigma, kl float64 }{
		{2, 0.5, 0, 2.05, 0.227},
		{3, 2, 3, 1, 0.689},
		{3, 0.5, 0, 2.744, 0.8406},
	} {
		p, _ := target.NewMixture([]float64{0.5, 0.5}, [][]float64{{-c.d}, {c.d}}, 1)
		f, _ := NewFit(p, FitConfig{Start: []float64{c.start}, StartSD: 1, LR: 0.2, Tol: 1e-9})
		for f.Step() == nil {
		}
		rv := f.Reverse()
		algotest.Near(t, "reverse μ", rv.Mu[0], c.mu, 0.02)
		algotest.Near(t, "reverse σ", rv.L[0], c.sigma, 0.03)
		algotest.Near(t, "reverse KL", f.ReverseKL(), c.kl, 1e-3)
		x := []float64{0}
		quad := KLQuad(func(t float64) float64 { return LogNormalPDF(t, rv.Mu[0], rv.L[0]) },
			func(t float64) float64 { x[0] = t; return p.LogP(x) }, []float64{-40, 40}, 200)
		algotest.Near(t, "reverse KL against quadrature", f.ReverseKL(), quad, 1e-8)
		algotest.Near(t, "forward σ", f.Forward().L[0], math.Sqrt(1+c.d*c.d), 1e-6)
	}
}

func TestFitBadParams(t *testing.T) {
	ok := FitConfig{Start: []float64{0, 0}, StartSD: 1, LR: 0.1}
	for _, c := range []struct {
		mod  func(*FitConfig)
		name string
	}{
		{func(c *FitConfig) { c.Start = []float64{0} }, "start"},
		{func(c *FitConfig) { c.StartSD = 0 }, "start_sd"},
		{func(c *FitConfig) { c.LR = 2 }, "lr"},
		{func(c *FitConfig) { c.Tol = math.NaN() }, "tol"},
	} {
		cfg := ok
		c.mod(&cfg)
		_, err := NewFit(target.Fig37(), cfg)
		algotest.WantParam(t, err, c.name)
	}
	b, _ := target.NewBanana(1, 1)
	f, err := NewFit(b, ok)
	if err != nil {
		t.Fatal(err)
	}
	if a := testing.AllocsPerRun(100, func() { _ = f.Step() }); a != 0 {
		t.Errorf("Step allocates %v times", a)
	}
}

// TestRuleForAccuracy measures RuleFor's doc comment. In 1-D, on its
// example (q = N(0, 2.07²) on ½N(±2, 1)), the reverse KL by the 64×8
// panel rule is within 1e-10 of the same integral by 20-point
// Gauss–Legendre panels over [−40, 40] (1.4e-13 is seen), and by 20-node
// Gauss–Hermite wrong by 0.02 (to its one digit). In 2-D, on the
// `mixture` target, the KL of a q as wide as the target (its moments,
// N(0, [[10, 9], [9, 10]])) is within 5e-5 of a 16 384-node rule's (32
// panels of 4 nodes per axis; 1.5e-5 is seen), and the reverse fits by
// either rule, run from N((3, 3), I) until the gradient's norm is 1e-9,
// end within 1e-7 of each other (7.1e-8 is seen).
func TestRuleForAccuracy(t *testing.T) {
	bimodal, err := target.NewMixture([]float64{0.5, 0.5}, [][]float64{{-2}, {2}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	f, err := NewFit(bimodal, FitConfig{Start: []float64{0}, StartSD: 2.07, LR: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	q := Gauss{D: 1, L: [4]float64{2.07}}
	_, _, kl, _ := f.Gradients(q)
	x := make([]float64, 1)
	want := integrate.Integrate(func(v float64) float64 {
		lq := LogNormalPDF(v, 0, 2.07)
		x[0] = v
		return math.Exp(lq) * (lq - bimodal.LogP(x))
	}, -40, 40, 400)
	algotest.Near(t, "1-D reverse KL", kl, want, 1e-10)
	h, _ := integrate.NewHermite(20)
	f.z, f.w = h.Z, h.W
	_, _, klh, _ := f.Gradients(q)
	if e := math.Abs(klh - want); math.Abs(e-0.02) > 0.005 {
		t.Errorf("20-node Gauss–Hermite: reverse KL wrong by %.2g, RuleFor says 0.02", e)
	}

	f2, err := NewFit(target.Fig37(), FitConfig{Start: []float64{3, 3}, StartSD: 1, LR: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	fine, _ := integrate.NewPanelNormal(32, 4)
	zf, wf, _ := fine.Grid(2)
	if len(wf) != 16384 {
		t.Fatalf("the fine rule has %d nodes", len(wf))
	}
	coarse := [2][]float64{f2.z, f2.w}
	l11 := math.Sqrt(10)
	wide := Gauss{D: 2, L: [4]float64{l11, 0, 9 / l11, math.Sqrt(10 - 81/10.0)}}
	_, _, klc, _ := f2.Gradients(wide)
	f2.z, f2.w = zf, wf
	_, _, klf, _ := f2.Gradients(wide)
	algotest.Near(t, "2-D reverse KL of a wide q, 4096 nodes against 16 384", klc, klf, 5e-5)

	descend := func(z, w []float64, q Gauss) Gauss {
		f2.z, f2.w = z, w
		for range 200 {
			_, g := f2.reverse(&q)
			if g.norm() <= 1e-9 {
				return q
			}
			f2.apply(&q, g, 0.5)
		}
		t.Fatalf("the reverse fit did not converge: %+v", q)
		return q
	}
	a := descend(coarse[0], coarse[1], Gauss{D: 2, Mu: [2]float64{3, 3}, L: [4]float64{1, 0, 0, 1}})
	b := descend(zf, wf, a)
	for i := range a.Mu {
		algotest.Near(t, "optimum's mean", a.Mu[i], b.Mu[i], 1e-7)
	}
	for i := range a.L {
		algotest.Near(t, "optimum's factor", a.L[i], b.L[i], 1e-7)
	}
}
