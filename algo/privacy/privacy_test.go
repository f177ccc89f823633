package privacy

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/algo/digits"
	"github.com/thelab/lab/algo/nn"
	"github.com/thelab/lab/algo/tensor/opt"
)

func rng(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 19)) }

// TestRandomizedResponseExample19_2: Pr[yes | cheater] = ¾, Pr[yes | not]
// = ¼, their ratio exactly 3, ε = ln 3, and p̂ = 2(p̂′ − ¼) unbiased
// (within 4 standard errors after 20 000 respondents, for several p).
func TestRandomizedResponseExample19_2(t *testing.T) {
	algotest.Near(t, "ε", RREpsilon(0.5), 1.0986122886681098, 1e-15)
	for _, p := range []float64{0, 0.1, 0.3, 0.5, 0.9} {
		r, err := NewRandomizedResponse(p, 0.5, rng(uint64(100*p)))
		if err != nil {
			t.Fatal(err)
		}
		if got := (1 + 0.5) / 2 / ((1 - 0.5) / 2); got != 3 {
			t.Fatalf("likelihood ratio %v", got)
		}
		algotest.Near(t, "p′", r.YesProb(), 0.25+0.5*p, 1e-15)
		const n = 20000
		for range n {
			_ = r.Step()
		}
		se := r.StdErr()
		algotest.Near(t, "p̂", r.Estimate(), p, 4*se)
		algotest.Near(t, "p̂ = 2(p̂′ − ¼)", r.Estimate(), 2*(r.YesShare()-0.25), 1e-12)
		cheat, honest := r.YesGiven()
		if p > 0 {
			algotest.Near(t, "Pr[yes|cheater]", cheat, 0.75, 4*math.Sqrt(0.75*0.25/(p*n)))
		}
		if p < 1 {
			algotest.Near(t, "Pr[yes|not]", honest, 0.25, 4*math.Sqrt(0.75*0.25/((1-p)*n)))
		}
	}
	for _, h := range []float64{0, 1, math.NaN()} {
		_, err := NewRandomizedResponse(0.3, h, rng(1))
		algotest.WantParam(t, err, "honest")
	}
	_, err := NewRandomizedResponse(1.5, 0.5, rng(1))
	algotest.WantParam(t, err, "p")
}

// TestRenyiGaussianExample: D_3(N(1, 2²)‖N(0, 2²)) = 0.375 in closed form
// and by Monte Carlo within 4 standard errors (delta method on the mean
// of e^{2L}); Laplace's closed form against Monte Carlo, its limits KL
// (α → 1) and Δ/b (α → ∞).
func TestRenyiGaussianExample(t *testing.T) {
	for _, tt := range []struct {
		kind         Kind
		delta, scale float64
		alpha, want  float64
	}{
		{Gaussian, 1, 2, 3, 0.375},
		{Gaussian, 1, 1, 2, 1},
		{Laplace, 1, 1, 2, math.Log(2.0/3*math.E + 1.0/3*math.Exp(-2))},
		{Laplace, 1, 2, 3, math.Log(3.0/5*math.Exp(1)+2.0/5*math.Exp(-1.5)) / 2},
	} {
		m, err := NewMechanism(tt.kind, tt.delta, tt.scale)
		if err != nil {
			t.Fatal(err)
		}
		algotest.Near(t, "closed form", m.Renyi(tt.alpha), tt.want, 1e-14)
		est, _ := NewRenyiEstimator(tt.alpha)
		r := rng(7)
		const n = 200000
		var s, s2 float64
		for range n {
			l := m.LogRatio(m.Sample(r, tt.delta))
			est.Add(l)
			e := math.Exp((tt.alpha - 1) * l)
			s, s2 = s+e, s2+e*e
		}
		mean := s / n
		se := math.Sqrt((s2/n-mean*mean)/n) / mean / (tt.alpha - 1)
		algotest.Near(t, string(tt.kind)+" Monte Carlo", est.Value(), tt.want, 4*se)
	}
	lap, _ := NewMechanism(Laplace, 1, 0.5)
	algotest.Near(t, "α → ∞", lap.Renyi(2000), lap.PureEpsilon(), 2e-3)
	algotest.Near(t, "α → 1", lap.Renyi(1+1e-6), lap.KL(), 1e-5)
	g, _ := NewMechanism(Gaussian, 1, 2)
	algotest.Near(t, "Gaussian KL", g.Renyi(1+1e-9), g.KL(), 1e-8)
	_, err := NewMechanism(Gaussian, 1, 0)
	algotest.WantParam(t, err, "scale")
	_, err = NewRenyiEstimator(1)
	algotest.WantParam(t, err, "alpha")
}

// TestHypothesisTestRegion: the best test's power never exceeds the
// (ε, δ) bound — Laplace at ε = Δ/b, δ = 0 (touching it where the
// likelihood ratio is e^ε), Gaussian at the exact δ(ε) of Balle & Wang —
// and the bound is not met with a smaller ε.
func TestHypothesisTestRegion(t *testing.T) {
	lap, _ := NewMechanism(Laplace, 1, 1)
	g, _ := NewMechanism(Gaussian, 1, 1)
	gd := GaussianDelta(1, 1)
	touchL := 0.0
	for i := 1; i < 1000; i++ {
		f := float64(i) / 1000
		if p, b := lap.Power(f), DPPowerBound(1, 0, f); p > b+1e-12 {
			t.Fatalf("Laplace power %v > bound %v at fpr %v", p, b, f)
		} else {
			touchL = math.Max(touchL, p-DPPowerBound(0.9, 0, f))
		}
		if p, b := g.Power(f), DPPowerBound(1, gd, f); p > b+1e-9 {
			t.Fatalf("Gaussian power %v > bound %v at fpr %v", p, b, f)
		}
	}
	if touchL <= 0 {
		t.Fatal("Laplace's power stays under the ε = 0.9 bound: ε = 1 is not tight")
	}
	// randomized response at (¼, ¾) lies on the ln 3 boundary
	algotest.Near(t, "RR on the boundary", DPPowerBound(math.Log(3), 0, 0.25), 0.75, 1e-15)
}

// TestSequentialComposition: k Gaussian releases give exactly k·αΔ²/(2σ²)
// at every order (Proposition 19.4(3), Example 19.5).
func TestSequentialComposition(t *testing.T) {
	a := NewAccountant()
	g, _ := NewMechanism(Gaussian, 1, 2)
	for range 7 {
		a.Compose(g.Renyi)
	}
	for i, al := range Orders {
		algotest.Near(t, "k·α/(2σ²)", a.RDP(i), 7*al/8, 1e-12)
	}
}

// TestAccountantPublished: one epoch of DP-SGD at q = 0.004, σ = 1.3, δ =
// 1e-5 (250 steps) spends ε = 0.711, as TF Privacy's
// compute_dp_sgd_privacy and Opacus's RDP accountant report (our Python
// transcription of their formulas gives 0.7109975, and 1.0130189 for ten
// epochs).
func TestAccountantPublished(t *testing.T) {
	algotest.Near(t, "1 epoch", SGMEpsilon(0.004, 1.3, 250, 1e-5), 0.7109975, 1e-6)
	algotest.Near(t, "10 epochs", SGMEpsilon(0.004, 1.3, 2500, 1e-5), 1.0130189, 1e-6)
	// q = 1 is the Gaussian mechanism
	algotest.Near(t, "q = 1", SubsampledGaussianRDP(1, 2, 3), 0.375, 1e-15)
	// the fractional series agrees with the binomial sum at integer orders
	for _, al := range []int{2, 3, 5, 8} {
		algotest.Near(t, "frac = int", logAFrac(0.01, 1.1, float64(al)), logAInt(0.01, 1.1, al), 1e-9)
	}
	// RDP grows with the order and with q, and falls with σ
	prev := 0.0
	for _, al := range Orders {
		r := SubsampledGaussianRDP(0.01, 1, al)
		if r < prev-1e-15 {
			t.Fatalf("RDP not increasing in α at %v: %v < %v", al, r, prev)
		}
		prev = r
	}
	if SubsampledGaussianRDP(0.02, 1, 4) <= SubsampledGaussianRDP(0.01, 1, 4) ||
		SubsampledGaussianRDP(0.01, 2, 4) >= SubsampledGaussianRDP(0.01, 1, 4) {
		t.Error("RDP not monotone in q and σ")
	}
	// subsampling amplifies: far below the unsampled mechanism
	if SubsampledGaussianRDP(0.01, 1, 4) > 0.01*SubsampledGaussianRDP(1, 1, 4) {
		t.Error("no amplification by subsampling")
	}
}

// TestCheckTarget: an unreachable target names the σ and the steps that
// would reach it, and those do.
func TestCheckTarget(t *testing.T) {
	if err := CheckTarget(RDPMironov, 0.004, 1.3, 1, 250, 1, 1e-5); err != nil {
		t.Fatal(err)
	}
	err := CheckTarget(RDPMironov, 0.004, 1.3, 1, 2500, 0.5, 1e-5)
	if err == nil || !strings.Contains(err.Error(), "unreachable") || !strings.Contains(err.Error(), "σ ≥") {
		t.Fatalf("got %v", err)
	}
	// per = b: the σ of noise=mean is the multiplier over b
	if e := CheckTarget(RDPMironov, 0.004, 1.3/64, 64, 250, 1, 1e-5); e != nil {
		t.Fatal(e)
	}
	s := SigmaFor(RDPMironov, 0.004, 2500, 0.5, 1e-5)
	if e := SGMEpsilon(0.004, s, 2500, 1e-5); e > 0.5 {
		t.Errorf("σ = %v gives ε = %v > 0.5", s, e)
	}
	k := StepsFor(RDPMironov, 0.004, 1.3, 0.5, 1e-5, 2500)
	if SGMEpsilon(0.004, 1.3, k, 1e-5) > 0.5 || SGMEpsilon(0.004, 1.3, k+1, 1e-5) <= 0.5 {
		t.Errorf("steps %d not the largest", k)
	}
	algotest.WantParam(t, CheckTarget(RDPMironov, 0.1, 1, 1, 10, 0, 1e-5), "target")
}

func digitSet(t testing.TB, n int) *nn.Set {
	pix, labels, err := digits.Generate(rng(3), n, 8, digits.Default)
	if err != nil {
		t.Fatal(err)
	}
	s, err := nn.NewClassSet(pix, 64, labels, 10)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func mlp(t testing.TB, seed uint64) *nn.MLP {
	m, err := nn.NewMLP(nn.MLPConfig{In: 64, Hidden: []int{32}, Out: 10, Act: nn.Activation("tanh")}, rng(seed))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func flat(m nn.Model) []float64 {
	var out []float64
	for _, p := range m.Params() {
		out = append(out, p.Data...)
	}
	return out
}

var plainSGD = opt.Config{Method: opt.SGD, LR: 0.5}

// TestDPSGDIsSGD: σ = 0 and C = ∞ reproduce minibatch SGD (nn.Trainer,
// same seed) to rounding.
func TestDPSGDIsSGD(t *testing.T) {
	set := digitSet(t, 200)
	a, b := mlp(t, 1), mlp(t, 1)
	d, err := NewSGD(a, set, SGDConfig{Batch: 16, Clip: math.Inf(1), Sigma: 0, Noise: NoiseMean, Opt: plainSGD}, rng(5), rng(6))
	if err != nil {
		t.Fatal(err)
	}
	tr, err := nn.NewTrainer(b, set, nn.TrainConfig{Batch: 16, Opt: plainSGD}, rng(5))
	if err != nil {
		t.Fatal(err)
	}
	for range 40 {
		if err := d.Step(); err != nil {
			t.Fatal(err)
		}
		if err := tr.Step(); err != nil {
			t.Fatal(err)
		}
	}
	pa, pb := flat(a), flat(b)
	for i := range pa {
		algotest.Near(t, "θ", pa[i], pb[i], 1e-12*(1+math.Abs(pb[i])))
	}
	if e, _ := d.Epsilon(1e-5); !math.IsInf(e, 1) {
		t.Errorf("σ = 0 spends ε = %v, want +Inf", e)
	}
}

// TestDPSGDClipAndNoise: with batch 1 and lr 1 an update is −(clipped
// gradient + noise); without noise every clipped gradient has norm ≤ C
// (= C when clipped); the noise's standard deviation per coordinate is
// σC (noise=mean, the notes) or σC/b (noise=sum), within 5%.
func TestDPSGDClipAndNoise(t *testing.T) {
	set := digitSet(t, 100)
	const clip = 0.05
	m := mlp(t, 2)
	d, err := NewSGD(m, set, SGDConfig{Batch: 1, Clip: clip, Noise: NoiseMean, Opt: opt.Config{Method: opt.SGD, LR: 1}}, rng(8), rng(9))
	if err != nil {
		t.Fatal(err)
	}
	clipped := 0
	for range 60 {
		before := flat(m)
		if err := d.Step(); err != nil {
			t.Fatal(err)
		}
		after := flat(m)
		sq := 0.0
		for i := range after {
			sq += (after[i] - before[i]) * (after[i] - before[i])
		}
		norm := math.Sqrt(sq)
		if norm > clip*(1+1e-12) {
			t.Fatalf("clipped gradient norm %v > C = %v", norm, clip)
		}
		if g := d.Norms()[0]; g > clip {
			clipped++
			algotest.Near(t, "clipped to C", norm, clip, 1e-12)
		} else {
			algotest.Near(t, "unclipped", norm, g, 1e-12)
		}
	}
	if clipped == 0 {
		t.Fatal("nothing clipped: the test checks nothing")
	}
	for _, noise := range []Noise{NoiseMean, NoiseSum} {
		const sigma, b = 0.7, 8
		a, z := mlp(t, 3), mlp(t, 3)
		cfg := SGDConfig{Batch: b, Clip: 1, Sigma: sigma, Noise: noise, Opt: opt.Config{Method: opt.SGD, LR: 1}}
		dn, _ := NewSGD(a, set, cfg, rng(4), rng(10))
		cfg.Sigma = 0
		d0, _ := NewSGD(z, set, cfg, rng(4), rng(10))
		_ = dn.Step()
		_ = d0.Step()
		pa, pz := flat(a), flat(z)
		ss := 0.0
		for i := range pa {
			ss += (pa[i] - pz[i]) * (pa[i] - pz[i])
		}
		sd := math.Sqrt(ss / float64(len(pa)))
		want := sigma
		if noise == NoiseSum {
			want = sigma / b
		}
		algotest.Near(t, "noise sd "+string(noise), sd, want, 0.05*want)
		algotest.Near(t, "NoiseStd", dn.NoiseStd(), want, 1e-15)
	}
}

// TestDPSGDValidation: bad configurations name their parameter.
func TestDPSGDValidation(t *testing.T) {
	set := digitSet(t, 50)
	for _, tt := range []struct {
		cfg  SGDConfig
		name string
	}{
		{SGDConfig{Batch: 0, Clip: 1, Noise: NoiseSum, Opt: plainSGD}, "batch"},
		{SGDConfig{Batch: 51, Clip: 1, Noise: NoiseSum, Opt: plainSGD}, "batch"},
		{SGDConfig{Batch: 5, Clip: 0, Noise: NoiseSum, Opt: plainSGD}, "clip"},
		{SGDConfig{Batch: 5, Clip: math.Inf(1), Sigma: 1, Noise: NoiseSum, Opt: plainSGD}, "clip"},
		{SGDConfig{Batch: 5, Clip: 1, Sigma: -1, Noise: NoiseSum, Opt: plainSGD}, "sigma"},
		{SGDConfig{Batch: 5, Clip: 1, Noise: "median", Opt: plainSGD}, "noise"},
	} {
		_, err := NewSGD(mlp(t, 1), set, tt.cfg, rng(1), rng(2))
		algotest.WantParam(t, err, tt.name)
	}
}

// TestDPSGDStepAllocs: a DP-SGD step (per-example gradients, clipping,
// noise, the optimiser step) allocates nothing.
func TestDPSGDStepAllocs(t *testing.T) {
	set := digitSet(t, 200)
	d, err := NewSGD(mlp(t, 1), set, SGDConfig{Batch: 16, Clip: 1, Sigma: 1, Noise: NoiseSum, Opt: plainSGD}, rng(1), rng(2))
	if err != nil {
		t.Fatal(err)
	}
	_ = d.Step()
	if allocs := testing.AllocsPerRun(20, func() { _ = d.Step() }); allocs != 0 {
		t.Errorf("a step allocates %v times", allocs)
	}
}

// BenchmarkDPSGDStep: one DP-SGD step with per-example gradients for a
// batch of 64 on the 8×8 digits MLP (64–32–10); target < 2 ms.
func BenchmarkDPSGDStep(b *testing.B) {
	set := digitSet(b, 1000)
	d, err := NewSGD(mlp(b, 1), set, SGDConfig{Batch: 64, Clip: 1, Sigma: 1, Noise: NoiseSum, Opt: plainSGD}, rng(1), rng(2))
	if err != nil {
		b.Fatal(err)
	}
	_ = d.Step()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if err := d.Step(); err != nil {
			b.Fatal(err)
		}
	}
}

// logExpm1 is log(eˣ − 1) for x > 0, without overflow.
func logExpm1(x float64) float64 {
	if x > 30 {
		return x + math.Log1p(-math.Exp(-x))
	}
	return math.Log(math.Expm1(x))
}

// TestRenyiEstimatorToRounding: the running log-mean-exp is exact to
// rounding however large the exponents, as RenyiEstimator says. On losses
// c, c + δ, …, c + (n − 1)δ, whose mean of e^{(α−1)L} is a geometric sum
// in closed form, it errs by at most 2√n·ε times the scale of the running
// log-sum, (α − 1)(|c| + nδ) + log n + 1, over α − 1 (the rounding of n
// log-additions) — up to c = 10⁵ and α = 33, whose e^{(α−1)L} would
// overflow a plain sum at once, and n = 20 000.
func TestRenyiEstimatorToRounding(t *testing.T) {
	const eps, delta = 0x1p-52, 0.01
	for _, alpha := range []float64{1.5, 2, 33} {
		for _, c := range []float64{0, 50, 1000, 1e5} {
			for _, n := range []int{1, 10, 1000, 20000} {
				r, err := NewRenyiEstimator(alpha)
				if err != nil {
					t.Fatal(err)
				}
				for k := range n {
					r.Add(c + float64(k)*delta)
				}
				a := alpha - 1
				lse := a * c // log Σ_k e^{a(c + kδ)} = ac + log((e^{naδ} − 1)/(e^{aδ} − 1))
				if n > 1 {
					lse += logExpm1(float64(n)*a*delta) - logExpm1(a*delta)
				}
				want := (lse - math.Log(float64(n))) / a
				scale := (a*(math.Abs(c)+float64(n)*delta) + math.Log(float64(n)) + 1) / a // of log Σ, over α − 1
				if tol := 2 * math.Sqrt(float64(n)) * eps * scale; math.Abs(r.Value()-want) > tol {
					t.Errorf("α = %g, c = %g, n = %d: %.17g, want %.17g (±%.2g)", alpha, c, n, r.Value(), want, tol)
				}
			}
		}
	}
}
