package privacysim_test

import (
	"strings"
	"testing"

	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/algo/privacy"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/privacysim"
	"github.com/thelab/lab/sims/simtest"
)

// prv is the PRV accountant's bracket as the sim asks it: a grid sized
// for the run's maxSteps, asked after steps.
func prv(t *testing.T, q, sigma float64, maxSteps, steps int, delta float64) privacy.Bracket {
	t.Helper()
	p, err := privacy.NewPLD(q, sigma, maxSteps, privacy.PRVEta)
	if err != nil {
		t.Fatal(err)
	}
	var b [1]privacy.Bracket
	p.Epsilon(steps, []float64{delta}, b[:])
	return b[0]
}

// settled is the sim's Frame after Settle, as a pane that is not running
// shows it.
func settled(s sims.Sim) sims.Frame {
	if st, ok := s.(sims.Settler); ok {
		st.Settle()
	}
	return s.Frame()
}

// TestDPSGDPane: the ε the pane shows is the chosen accountant's for the
// run's q, noise multiplier (σb for noise=mean, σ for noise=sum) and
// steps: by default the PRV accountant's upper bound, below RDP by Balle
// et al.'s conversion, below Mironov's; logistic regression on the blobs
// learns under noise; an unreachable target is refused with the σ and
// the steps that would reach it.
func TestDPSGDPane(t *testing.T) {
	s := simtest.Build(t, privacysim.DPSGD, map[string]string{"n": "1000"}, 1, nil)
	// The accountants are checked after asked = 20 steps (the pane asks
	// every ⌈63/16⌉ = 4): ε is a function of q, σ and the steps, equal to
	// the oracle's to 1e-12 at any step count, so 40 proved no more.
	const asked = 20
	simtest.Run(t, s, asked)
	f := settled(s)
	q, mult := 64.0/1000, 0.02*64
	b := prv(t, q, mult, 63, asked, 1e-5) // ⌈4·1000/64⌉ = 63 steps in the run
	algotest.Near(t, "ε (noise=mean)", simtest.Metric(t, f, "ε"), b.Hi, 1e-12)
	algotest.Near(t, "ε PRV", simtest.Metric(t, f, "ε PRV"), b.Hi, 1e-12)
	balle := privacy.SGMEpsilonBy(privacy.RDPBalle, q, mult, asked, 1e-5)
	mironov := privacy.SGMEpsilon(q, mult, asked, 1e-5)
	algotest.Near(t, "ε Balle", simtest.Metric(t, f, "ε Balle"), balle, 1e-12)
	algotest.Near(t, "ε Mironov", simtest.Metric(t, f, "ε Mironov"), mironov, 1e-12)
	if !(b.Lo < b.Hi && b.Hi < balle && balle < mironov) {
		t.Errorf("PRV %v, Balle %g, Mironov %g not ordered", b, balle, mironov)
	}
	if c := simtest.Metric(t, f, "clipped"); c < 0 || c > 1 {
		t.Errorf("clipped fraction %v", c)
	}
	simtest.FiniteMetrics(t, f)
	if !strings.Contains(strings.Join(f.Text, "\n"), "the exact ε lies in [") {
		t.Errorf("no PRV bracket in the notes: %q", f.Text)
	}

	// The RDP accountants' panes train logistic regression on the blobs,
	// not the MLP on the digits: ε depends on q, the noise multiplier and
	// the steps alone, which are the same (n = 1000, b = 64, noise=mean,
	// σ = 0.02), and a 2-D model's steps cost a fraction of the MLP's.
	for _, m := range []privacy.Method{privacy.RDPBalle, privacy.RDPMironov} {
		r := simtest.Build(t, privacysim.DPSGD, map[string]string{"model": "logistic", "n": "1000", "accountant": m.String()}, 1, nil)
		simtest.Run(t, r, asked)
		want := privacy.SGMEpsilonBy(m, q, mult, asked, 1e-5)
		algotest.Near(t, "ε ("+m.String()+")", simtest.Metric(t, settled(r), "ε"), want, 1e-12)
	}

	// One epoch (16 steps), not five: at σ = 1 the σ/2 run's PRV grid is
	// long and the pane asks it every epsEvery steps, so 79 steps cost
	// 2 s under -race. Seeds 1–6 end the epoch at accuracy 0.904–0.936
	// (mean 0.92) on 250 test points: s.e. √(0.92·0.08/250) = 0.017, so
	// the bar 0.85 stands 4 s.e. below.
	l := simtest.Build(t, privacysim.DPSGD, map[string]string{"model": "logistic", "noise": "sum", "n": "1000", "epochs": "1"}, 1, nil)
	steps := simtest.RunToEnd(t, l, 1000)
	if steps != 16 { // ⌈1·1000/64⌉
		t.Errorf("%d steps for 1 epoch", steps)
	}
	f = settled(l)
	algotest.Near(t, "ε (noise=sum)", simtest.Metric(t, f, "ε"), privacy.SGMEpsilonBy(privacy.PRV, 0.064, 1, 16, 1e-5), 1e-12)
	if a := simtest.Metric(t, f, "acc σ"); a < 0.85 {
		t.Errorf("logistic regression at σ = 1: accuracy %v", a)
	}

	// The targets are checked on logistic regression at the default n =
	// 2000: CheckTarget sees the same q, σ and 125 steps as for the MLP,
	// without the digits to draw and four MLPs to build.
	_, err := simtest.BuildErr(privacysim.DPSGD, map[string]string{"model": "logistic", "target": "0.5"}, 1, nil)
	if err == nil || !strings.Contains(err.Error(), "unreachable") || !strings.Contains(err.Error(), "σ ≥") {
		t.Fatalf("target 0.5: %v", err)
	}
	if _, err := simtest.BuildErr(privacysim.DPSGD, map[string]string{"model": "logistic", "target": "50"}, 1, nil); err != nil {
		t.Fatalf("target 50: %v", err)
	}
	// 1.6 is within the PRV accountant's ε (about 1.5) and beyond RDP's
	if _, err := simtest.BuildErr(privacysim.DPSGD, map[string]string{"model": "logistic", "target": "1.6"}, 1, nil); err != nil {
		t.Fatalf("target 1.6 by PRV: %v", err)
	}
	if _, err := simtest.BuildErr(privacysim.DPSGD, map[string]string{"model": "logistic", "target": "1.6", "accountant": "rdp-balle"}, 1, nil); err == nil {
		t.Fatal("target 1.6 by RDP: accepted")
	}
}
