package stable

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestAgainstNaiveWhereSafe(t *testing.T) {
	for _, x := range []float64{-30, -5, -0.5, 0, 0.3, 4, 30} {
		if d := Softplus(x) - math.Log(1+math.Exp(x)); math.Abs(d) > 1e-14 {
			t.Errorf("softplus(%v) off by %v", x, d)
		}
		if d := Sigmoid(x) - 1/(1+math.Exp(-x)); math.Abs(d) > 1e-15 {
			t.Errorf("sigmoid(%v) off by %v", x, d)
		}
		if d := LogSigmoid(x) - math.Log(Sigmoid(x)); math.Abs(d) > 1e-14 {
			t.Errorf("log sigmoid(%v) off by %v", x, d)
		}
	}
	if d := LogSumExp([]float64{1, 2, 3}) - math.Log(math.E+math.Exp(2)+math.Exp(3)); math.Abs(d) > 1e-15 {
		t.Errorf("logsumexp off by %v", d)
	}
}

func TestExtremes(t *testing.T) {
	if got := Softplus(1000); got != 1000 {
		t.Errorf("softplus(1000) = %v", got)
	}
	if got := Softplus(-1000); got != 0 || math.IsNaN(got) {
		t.Errorf("softplus(-1000) = %v", got)
	}
	if got := Sigmoid(-1000); got != 0 || math.IsNaN(got) {
		t.Errorf("sigmoid(-1000) = %v", got)
	}
	if got := LogSigmoid(-1000); got != -1000 {
		t.Errorf("log sigmoid(-1000) = %v", got)
	}
	if got := LogSumExp([]float64{1000, 1000}); math.Abs(got-1000-math.Ln2) > 1e-12 {
		t.Errorf("logsumexp(1000, 1000) = %v", got)
	}
	if got := LogSumExp([]float64{math.Inf(-1), math.Inf(-1)}); !math.IsInf(got, -1) {
		t.Errorf("logsumexp(-Inf, -Inf) = %v", got)
	}
}

// TestSoftplusSigmoidFused: the fused pair equals the separate functions
// bit for bit or to an ulp, across the range and at the extremes.
func TestSoftplusSigmoidFused(t *testing.T) {
	for _, x := range []float64{-1000, -40, -5, -0.5, -1e-300, 0, 1e-300, 0.3, 4, 40, 1000} {
		sp, sg := SoftplusSigmoid(x)
		if math.Abs(sp-Softplus(x)) > 1e-15*math.Max(1, math.Abs(sp)) || math.Abs(sg-Sigmoid(x)) > 1e-16 {
			t.Errorf("x=%v: (%v, %v), separately (%v, %v)", x, sp, sg, Softplus(x), Sigmoid(x))
		}
	}
}

// TestSoftmax: probabilities sum to one, match exp(x − LogSumExp(x)), and
// survive huge logits; the returned value is LogSumExp.
func TestSoftmax(t *testing.T) {
	for _, x := range [][]float64{{1, 2, 3}, {1000, 1000, -1000}, {-800, -801}, {0}} {
		p := make([]float64, len(x))
		lse := Softmax(p, x)
		if want := LogSumExp(x); math.Abs(lse-want) > 1e-12*math.Max(1, math.Abs(want)) {
			t.Errorf("%v: lse %v, want %v", x, lse, want)
		}
		sum := 0.0
		for i, v := range p {
			sum += v
			// exp(x − lse) loses ~1e-13 where |lse| ~ 1000; p is computed
			// from x − max instead.
			if math.Abs(v-math.Exp(x[i]-lse)) > 1e-12 {
				t.Errorf("%v: p[%d] = %v", x, i, v)
			}
		}
		if math.Abs(sum-1) > 1e-15 {
			t.Errorf("%v: Σp = %v", x, sum)
		}
	}
}

// TestLogOdds: log(σ(t)/σ(−t)) = t to 1e-12 relative for |t| ≤ 700 (seed
// 001 L423); the naive log(p/(1 − p)) from p alone holds to 1e-12 only
// while e^t stays small (here |t| ≤ 5) and is +Inf at t = 40.
func TestLogOdds(t *testing.T) {
	for _, tt := range []float64{-700, -100, -40, -5, -1, -1e-8, 0, 1e-8, 0.3, 1, 5, 40, 100, 700} {
		got := LogOdds(Sigmoid(tt), Sigmoid(-tt))
		if math.Abs(got-tt) > 1e-12*math.Max(1, math.Abs(tt)) {
			t.Errorf("LogOdds(σ(%g), σ(−%g)) = %.17g", tt, tt, got)
		}
		if math.Abs(tt) <= 5 {
			if l := Logit(Sigmoid(tt)); math.Abs(l-tt) > 1e-12*math.Max(1, math.Abs(tt)) {
				t.Errorf("Logit(σ(%g)) = %.17g", tt, l)
			}
		}
	}
	if !math.IsInf(Logit(Sigmoid(40)), 1) {
		t.Errorf("Logit(σ(40)) = %v: 1 − σ(40) should round to 0", Logit(Sigmoid(40)))
	}
}

// TestLogOddsToRounding: LogOdds is exact to rounding, as its doc comment
// says — on p = 2⁻ᵃ, q = 2⁻ᵇ, whose log-odds is (b − a) log 2, it errs by
// at most ε(|log p| + |log q| + |log(p/q)|), the rounding of two
// logarithms and a difference — down to the least normal numbers, and
// LogOdds(σ(t), σ(−t)) = t to 1e-12 relative out to |t| = 708, where
// σ(−t) is still normal. Below 2⁻¹⁰²² math.Log misreads its input on amd64
// (golang/go#56600), which the doc comment says.
func TestLogOddsToRounding(t *testing.T) {
	const eps = 0x1p-52
	for _, a := range []int{0, 1, 3, 40, 500, 1022} {
		for _, b := range []int{1, 2, 60, 700, 1022} {
			lp, lq := -float64(a)*math.Ln2, -float64(b)*math.Ln2
			want := float64(b-a) * math.Ln2
			got := LogOdds(math.Ldexp(1, -a), math.Ldexp(1, -b))
			if tol := eps * (math.Abs(lp) + math.Abs(lq) + math.Abs(want)); math.Abs(got-want) > tol {
				t.Errorf("LogOdds(2^−%d, 2^−%d) = %.17g, want %.17g (±%.2g)", a, b, got, want, tol)
			}
		}
	}
	for _, tt := range []float64{-708, 708} {
		if got := LogOdds(Sigmoid(tt), Sigmoid(-tt)); math.Abs(got-tt) > 1e-12*math.Abs(tt) {
			t.Errorf("LogOdds(σ(%g), σ(−%g)) = %.17g", tt, tt, got)
		}
	}
}

// TestLogitNearOne: near p = 1 the rounding of p itself dominates Logit's
// error, about 2⁻⁵³/(1 − p) absolute as its doc comment says: for
// p = σ(t), rounded once, |Logit(p) − t| stays within twice that (1.3
// times is seen) from t = 3 to 35, where it has grown to 0.05; on an
// exact p = 1 − 2⁻ᵏ, with no rounding to carry, Logit agrees with
// log(2ᵏ − 1) to the last bit.
func TestLogitNearOne(t *testing.T) {
	for tt := 3.0; tt <= 35; tt += 0.5 {
		bound := 2 * 0x1p-53 / Sigmoid(-tt)
		if e := math.Abs(Logit(Sigmoid(tt)) - tt); e > bound {
			t.Errorf("t = %g: |Logit(σ(t)) − t| = %.2g > 2·2⁻⁵³/(1 − p) = %.2g", tt, e, bound)
		}
	}
	for _, k := range []int{2, 10, 30, 52} {
		if got, want := Logit(1-math.Ldexp(1, -k)), math.Log(math.Ldexp(1, k)-1); got != want {
			t.Errorf("Logit(1 − 2^−%d) = %.17g, want %.17g", k, got, want)
		}
	}
}

// TestTanhIsMathTanh: Tanh returns math.Tanh's bits on both sides of each
// branch's edge (0.625, 44.0…), at ±0, subnormals, ±Inf and NaN, and on
// 200,000 points spread over [−50, 50] by a fixed generator.
func TestTanhIsMathTanh(t *testing.T) {
	big := 0.5 * 8.8029691931113054295988e+01
	xs := []float64{0, math.Copysign(0, -1), 5e-324, -5e-324, 1e-300, 1e-8, 0.625, big, math.Inf(1), math.Inf(-1), math.NaN()}
	for _, e := range []float64{0.625, big} {
		xs = append(xs, math.Nextafter(e, 0), math.Nextafter(e, 100))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200_000 {
		xs = append(xs, 100*rng.Float64()-50)
	}
	for _, x := range append(xs, negate(xs)...) {
		if got, want := Tanh(x), math.Tanh(x); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("Tanh(%v) = %v, math.Tanh %v", x, got, want)
		}
	}
}

func negate(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = -x
	}
	return out
}
