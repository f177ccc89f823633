package stable

import (
	"math"
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
