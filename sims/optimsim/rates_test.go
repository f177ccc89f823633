package optimsim

import (
	"math"
	"strings"
	"testing"

	"github.com/thelab/lab/sims/simtest"
)

// TestRatesPane: run to the end at the defaults; the measured curves lie
// on or under their theorem's dotted count (deterministic regimes), the
// fitted slopes shown match the table (2 and 1 within 0.05; the strongly
// convex per-e-fold count within 2% of 1/ln(1/γ); SGD within three
// standard errors of 2), and the table rows are in the text.
//
// The run stops at ε = 10^−2.75 (eps_min 0.00177: eight grid values)
// instead of the default 10⁻³, as algo/optim's TestRatesTable does: the
// stochastic counts grow as 1/ε², so the ninth value alone cost 1.5 times
// the other eight (37 Steps instead of 99). The fits hold as well on eight
// values: slopes 1.998 and 1.007, the e-fold count 0.6% from 1/ln(1/γ),
// SGD 1.951 ± 0.060 (1.937 ± 0.050 on nine).
func TestRatesPane(t *testing.T) {
	s := simtest.Build(t, Rates, map[string]string{"eps_min": "0.00177"}, 1, nil)
	simtest.RunToEnd(t, s, 1000)
	f := s.Frame()
	for _, pair := range [][2]string{{"non-convex", "Thm 8.8"}, {"convex", "Thm 8.5"}, {"strong cvx", "Thm 8.7"}} {
		m, ok1 := f.Series(pair[0])
		b, ok2 := f.Series(pair[1])
		if !ok1 || !ok2 || len(m.Y) != 8 || len(b.Y) != 8 {
			t.Fatalf("%v: %v %v", pair, ok1, ok2)
		}
		for j := range m.Y {
			if m.Y[j] > b.Y[j] {
				t.Errorf("%s ε #%d: %v > %v", pair[0], j, m.Y[j], b.Y[j])
			}
		}
	}
	near := func(name string, want, tol float64) {
		if v := simtest.Metric(t, f, name); math.Abs(v-want) > tol {
			t.Errorf("%s = %v, want %v ± %v", name, v, want, tol)
		}
	}
	near("slope_nonconvex", 2, 0.05)
	near("slope_convex", 1, 0.05)
	g := (10 - 1.0) / (10 + 1)
	perE := 1 / math.Log(1/(g*g))
	near("per_efold_strong", perE, 0.02*perE)
	se := simtest.Metric(t, f, "slope_sgd_se")
	near("slope_sgd", 2, 3*se)
	text := simtest.Text(f)
	for _, w := range []string{"O(1/ε²)", "O(1/ε)", "O(log 1/ε)", "γ = 0.6694"} {
		if !strings.Contains(text, w) {
			t.Errorf("text lacks %q", w)
		}
	}
	simtest.FiniteMetrics(t, f)
}

// TestRatesReportsCap: with a small cap the lagging regimes are named as
// capped in the text and counted in the metric.
func TestRatesReportsCap(t *testing.T) {
	s := simtest.Build(t, Rates, map[string]string{"cap": "100"}, 1, nil)
	simtest.Run(t, s, 4)
	f := s.Frame()
	if simtest.Metric(t, f, "capped") < 1 || !strings.Contains(simtest.Text(f), "capped k=") {
		t.Errorf("cap not reported:\n%s", simtest.Text(f))
	}
}

func TestRatesBadParams(t *testing.T) {
	_, err := simtest.BuildErr(Rates, map[string]string{"eps_max": "0.01", "eps_min": "0.1"}, 0, nil)
	if err == nil || !strings.Contains(err.Error(), "eps_min") {
		t.Errorf("eps_min > eps_max: %v", err)
	}
}
