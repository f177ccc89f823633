package rff

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/thelab/lab/algo"
)

// estimates returns R independent estimates (1/m)Σcos(w_iᵀz) of the unit
// Gaussian kernel (γ = ½) at z = r·e₁ in d dimensions.
func estimates(t *testing.T, kind Kind, d, m, trials int, r float64, seed uint64) []float64 {
	t.Helper()
	s, err := NewSampler(d, 0.5, kind, rand.New(rand.NewPCG(seed, 1)))
	if err != nil {
		t.Fatal(err)
	}
	w := make([]float64, d)
	out := make([]float64, trials)
	for k := range out {
		s.next = d // every trial starts a fresh, independent block
		sum := 0.0
		for range m {
			s.Next(w)
			sum += math.Cos(r * w[0])
		}
		out[k] = sum / float64(m)
	}
	return out
}

func meanVar(x []float64) (float64, float64) {
	m := 0.0
	for _, v := range x {
		m += v
	}
	m /= float64(len(x))
	s := 0.0
	for _, v := range x {
		s += (v - m) * (v - m)
	}
	return m, s / float64(len(x)-1)
}

// TestRFFUnbiasedAndVariance is the seed-003/004 catalogue's oracle (Part
// G.4, G.5) at d = m = 16 over 4000 seeded trials: iid features are
// unbiased within 4 standard errors with variance (1 − k²)²/(2m) within
// 10%; orthogonal features are unbiased too and have a smaller variance.
func TestRFFUnbiasedAndVariance(t *testing.T) {
	const d, m, trials = 16, 16, 4000
	for _, r := range []float64{0.5, 1, 2} {
		k := math.Exp(-r * r / 2)
		iid := estimates(t, IID, d, m, trials, r, 11)
		orf := estimates(t, ORF, d, m, trials, r, 12)
		mi, vi := meanVar(iid)
		mo, vo := meanVar(orf)
		if se := math.Sqrt(vi / trials); math.Abs(mi-k) > 4*se {
			t.Errorf("‖z‖ = %v: iid mean %v, k = %v (se %v)", r, mi, k, se)
		}
		if se := math.Sqrt(vo / trials); math.Abs(mo-k) > 4*se {
			t.Errorf("‖z‖ = %v: orf mean %v, k = %v (se %v)", r, mo, k, se)
		}
		if want := GaussVariance(k) / m; math.Abs(vi-want) > 0.1*want {
			t.Errorf("‖z‖ = %v: iid variance %v, theory %v", r, vi, want)
		}
		if !(vo < vi) {
			t.Errorf("‖z‖ = %v: orf variance %v not below iid %v", r, vo, vi)
		}
	}
}

// TestORFRowsOrthogonal: the rows of a block are exactly orthogonal and
// their norms are χ(d)·√(2γ) draws, with mean √(2γ)·√2Γ((d+1)/2)/Γ(d/2)
// (3.938·√(2γ) for d = 16).
func TestORFRowsOrthogonal(t *testing.T) {
	const d, gamma = 16, 0.8
	s, _ := NewSampler(d, gamma, ORF, rand.New(rand.NewPCG(3, 3)))
	rows := make([][]float64, 200*d)
	norms := make([]float64, len(rows))
	for i := range rows {
		rows[i] = make([]float64, d)
		s.Next(rows[i])
		norms[i] = math.Sqrt(dot(rows[i], rows[i]))
	}
	for b := 0; b < 200; b++ {
		for i := b * d; i < (b+1)*d; i++ {
			for j := i + 1; j < (b+1)*d; j++ {
				if c := dot(rows[i], rows[j]) / (norms[i] * norms[j]); math.Abs(c) > 1e-12 {
					t.Fatalf("block %d: rows %d, %d have cosine %g", b, i, j, c)
				}
			}
		}
	}
	lg1, _ := math.Lgamma(float64(d+1) / 2)
	lg2, _ := math.Lgamma(float64(d) / 2)
	want := math.Sqrt(2*gamma) * math.Sqrt2 * math.Exp(lg1-lg2)
	m, v := meanVar(norms)
	if se := math.Sqrt(v / float64(len(norms))); math.Abs(m-want) > 4*se {
		t.Errorf("mean row norm %v, χ(d) mean %v (se %v)", m, want, se)
	}
}

// TestApproxGram: K̂_ii = 1 at every m for the Gaussian estimator, the
// error tracks the theoretical root-mean-square √(Σ(1 − K²)²/(2m))/‖K‖, and
// its log-log slope is −½ (seed 004; seed 000 §4.7's O(1/√D)).
func TestApproxGram(t *testing.T) {
	const n, d, gamma = 30, 8, 0.1
	rng := rand.New(rand.NewPCG(5, 5))
	x := make([][]float64, n)
	for i := range x {
		x[i] = make([]float64, d)
		for j := range x[i] {
			x[i][j] = rng.NormFloat64()
		}
	}
	exact := make([]float64, n*n)
	for i := range x {
		for j := range x {
			s := 0.0
			for k := range x[i] {
				s += (x[i][k] - x[j][k]) * (x[i][k] - x[j][k])
			}
			exact[i*n+j] = math.Exp(-gamma * s)
		}
	}
	var logM, logE []float64
	for seed := uint64(0); seed < 8; seed++ {
		s, _ := NewSampler(d, gamma, IID, rand.New(rand.NewPCG(seed, 77)))
		a, err := NewApprox(x, exact, Gauss, s)
		if err != nil {
			t.Fatal(err)
		}
		for a.M() < 1024 {
			a.Step()
			for i := 0; i < n; i++ {
				if math.Abs(a.KHat()[i*n+i]-1) > 1e-12 {
					t.Fatalf("K̂_ii = %v at m = %d", a.KHat()[i*n+i], a.M())
				}
			}
			if m := a.M(); m&(m-1) == 0 && m >= 16 {
				logM = append(logM, math.Log(float64(m)))
				logE = append(logE, math.Log(a.RelError()))
				if ratio := a.RelError() / TheoryRelError(exact, m); ratio < 0.5 || ratio > 1.6 {
					t.Errorf("seed %d m = %d: error %v, theory %v", seed, m, a.RelError(), TheoryRelError(exact, m))
				}
			}
		}
	}
	// Least-squares slope of log error against log m.
	mx, my := 0.0, 0.0
	for i := range logM {
		mx += logM[i] / float64(len(logM))
		my += logE[i] / float64(len(logM))
	}
	sxy, sxx := 0.0, 0.0
	for i := range logM {
		sxy += (logM[i] - mx) * (logE[i] - my)
		sxx += (logM[i] - mx) * (logM[i] - mx)
	}
	if slope := sxy / sxx; math.Abs(slope+0.5) > 0.08 {
		t.Errorf("log-log slope %v, want −½", slope)
	}
}

// TestSoftmaxFeatures: the trigonometric features are exact where x = z
// (φ_SMᵀφ_SM = e^{‖x‖²}), the positive ones where x = −z, and both are
// unbiased for SM(x, z) = e^{xᵀz} (seed 004 L89–99; seed-003/004 catalogue
// R3, R4).
func TestSoftmaxFeatures(t *testing.T) {
	const d = 4
	x := [][]float64{{0.3, -0.2, 0.5, 0.1}, {-0.3, 0.2, -0.5, -0.1}, {0.4, 0.4, -0.1, 0.2}}
	exact := make([]float64, 9)
	for i := range x {
		for j := range x {
			exact[i*3+j] = math.Exp(dot(x[i], x[j]))
		}
	}
	for _, est := range []Estimator{SoftmaxTrig, SoftmaxPos} {
		const trials, m = 3000, 8
		var sum, sumSq [9]float64
		for k := 0; k < trials; k++ {
			s, _ := NewSampler(d, 0.5, IID, rand.New(rand.NewPCG(uint64(k), 99)))
			a, err := NewApprox(x, exact, est, s)
			if err != nil {
				t.Fatal(err)
			}
			for range m {
				a.Step()
			}
			for i, v := range a.KHat() {
				sum[i] += v
				sumSq[i] += v * v
			}
			// x₁ = −x₀: exact for positive features; the diagonal is exact
			// for trigonometric ones.
			if est == SoftmaxPos && math.Abs(a.KHat()[1]-exact[1]) > 1e-12 {
				t.Fatalf("positive features at x = −z: %v vs %v", a.KHat()[1], exact[1])
			}
			if est == SoftmaxTrig && math.Abs(a.KHat()[4]-exact[4]) > 1e-12 {
				t.Fatalf("trig features at x = z: %v vs %v", a.KHat()[4], exact[4])
			}
			if est == SoftmaxPos && a.Negatives() > 0 {
				t.Fatal("positive features gave a negative entry")
			}
		}
		for i := range exact {
			mean := sum[i] / trials
			v := sumSq[i]/trials - mean*mean
			if se := math.Sqrt(v / trials); math.Abs(mean-exact[i]) > 4*se+1e-12 {
				t.Errorf("%s entry %d: mean %v, exact %v (se %v)", est, i, mean, exact[i], se)
			}
		}
	}
}

// TestBochner: the estimate is unbiased and its per-term variance is
// (1 + f(2δ))/2 − f(δ)², for the Gaussian and the Laplace kernels.
func TestBochner(t *testing.T) {
	for _, kind := range []Spectral{GaussSpectral, LaplaceSpectral} {
		b, err := NewBochner(kind, 0.7, []float64{0.6, -0.4, 0.3}, rand.New(rand.NewPCG(21, 21)))
		if err != nil {
			t.Fatal(err)
		}
		for range 200000 {
			b.Step()
		}
		se := math.Sqrt(b.Var1() / float64(b.M()))
		if math.Abs(b.Estimate()-b.Exact()) > 4*se {
			t.Errorf("%s: estimate %v, exact %v (se %v)", kind, b.Estimate(), b.Exact(), se)
		}
		if sd := b.SampleSD(); math.Abs(sd*sd-b.Var1()) > 0.03*b.Var1() {
			t.Errorf("%s: sample variance %v, formula %v", kind, sd*sd, b.Var1())
		}
		if kind == GaussSpectral {
			if v := GaussVariance(b.Exact()); math.Abs(v-b.Var1()) > 1e-15 {
				t.Errorf("Var1 %v vs (1 − k²)²/2 = %v", b.Var1(), v)
			}
		}
	}
}

func TestBadParams(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	errs := map[string]error{}
	_, errs["d"] = NewSampler(0, 1, IID, rng)
	_, errs["gamma"] = NewSampler(2, -1, IID, rng)
	_, errs["features"] = NewSampler(2, 1, "haar", rng)
	_, errs["kernel"] = NewBochner("cauchy", 1, []float64{1}, rng)
	s, _ := NewSampler(2, 1, IID, rng)
	_, err := NewApprox([][]float64{{1, 2}}, []float64{1}, SoftmaxTrig, s)
	errs["gamma "] = err
	for name, err := range errs {
		var pe *algo.ParamError
		if !errors.As(err, &pe) || pe.Name != name && pe.Name+" " != name {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// BenchmarkApproxStep is one frequency added to a 100-point matrix in 16-D.
func BenchmarkApproxStep(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	x := make([][]float64, 100)
	for i := range x {
		x[i] = make([]float64, 16)
		for j := range x[i] {
			x[i][j] = rng.NormFloat64()
		}
	}
	s, _ := NewSampler(16, 0.05, ORF, rng)
	a, _ := NewApprox(x, make([]float64, 100*100), Gauss, s)
	b.ReportAllocs()
	for b.Loop() {
		a.Step()
	}
}

// TestORFOrthogonalToRounding: the two Gram–Schmidt passes leave a block's
// rows orthogonal to rounding, as newBlock says: every cosine between two
// rows of a block is at most 4ε (1.2ε is seen, at every d; one pass —
// newBlock's "cosines of 1e-11" — left a median of 2e-15 and at most
// 7e-12 over 2,500 blocks at d = 16, measured once, not here).
func TestORFOrthogonalToRounding(t *testing.T) {
	const eps = 0x1p-52
	for _, c := range []struct{ d, blocks int }{{2, 100}, {16, 20}, {64, 3}, {128, 1}} {
		s, err := NewSampler(c.d, 0.8, ORF, rand.New(rand.NewPCG(3, uint64(c.d))))
		if err != nil {
			t.Fatal(err)
		}
		rows := make([][]float64, c.d)
		for i := range rows {
			rows[i] = make([]float64, c.d)
		}
		worst := 0.0
		for range c.blocks {
			for _, r := range rows {
				s.Next(r)
			}
			for i := range rows {
				for j := i + 1; j < c.d; j++ {
					cos := math.Abs(dot(rows[i], rows[j])) / math.Sqrt(dot(rows[i], rows[i])*dot(rows[j], rows[j]))
					worst = math.Max(worst, cos)
				}
			}
		}
		if worst > 4*eps {
			t.Errorf("d = %d: largest |cosine| %.2g = %.2gε, want ≤ 4ε", c.d, worst, worst/eps)
		}
		t.Logf("d = %d: largest |cosine| %.2gε", c.d, worst/eps)
	}
}
