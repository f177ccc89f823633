package divergencesim

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/simtest"
)

// TestKLFlowConverges runs the default (exact gradient) to convergence: it
// must reach (μ0, σ0) = (2, 1), with the KL never rising, and the notes
// must say that (1.40) was corrected.
func TestKLFlowConverges(t *testing.T) {
	s := simtest.Build(t, KLFlow, nil, 1, nil)
	var err error
	for i := 0; i < 10000 && err == nil; i++ {
		err = s.Step()
	}
	if !errors.Is(err, sims.ErrConverged) {
		t.Fatalf("%v", err)
	}
	res := s.Result()
	if math.Abs(res["mu"].(float64)-2) > 1e-7 || math.Abs(res["sigma"].(float64)-1) > 1e-7 || res["kl_rises"].(int) != 0 {
		t.Errorf("result %v", res)
	}
	f := s.Frame()
	simtest.FiniteMetrics(t, f)
	if txt := strings.Join(f.Text, "\n"); !strings.Contains(txt, "drops (μ−μ0)²") || !strings.Contains(txt, "erratum") {
		t.Errorf("notes %q", f.Text)
	}
	kl, ok := f.Series("KL")
	if !ok || len(kl.Y) < 2 {
		t.Fatal("no KL series")
	}
	for i := 1; i < len(kl.Y); i++ {
		if kl.Y[i] > kl.Y[i-1] {
			t.Fatalf("KL rose at point %d: %g → %g", i, kl.Y[i-1], kl.Y[i])
		}
	}
}

// TestKLFlowNotes shows the erratum in the pane: with the printed gradient
// and a large η_σ the KL rises and the notes say so.
func TestKLFlowNotes(t *testing.T) {
	s := simtest.Build(t, KLFlow, map[string]string{"gradient": "notes", "eta_sigma": "0.5", "eta_mu": "0.02"}, 1, nil)
	simtest.RunUntil(t, s, 50)
	if s.Result()["kl_rises"].(int) == 0 {
		t.Error("the KL never rose under the notes' gradient")
	}
	if txt := strings.Join(s.Frame().Text, "\n"); !strings.Contains(txt, "KL rose") {
		t.Errorf("notes %q", s.Frame().Text)
	}
	d := simtest.Build(t, KLFlow, map[string]string{"sigma": "2", "eta_sigma": "10", "mu": "2"}, 1, nil)
	if err := d.Step(); !errors.Is(err, sims.ErrDiverged) {
		t.Errorf("σ = 2, η_σ = 10: %v, want diverged (σ would be 2 − 3.75)", err)
	}
}

// TestKLFitOptima runs the default fit on the `mixture` target to
// convergence: the forward fit matches its moments, the reverse fit sits on
// the mode (3, 3) with KL ≈ log 2.
func TestKLFitOptima(t *testing.T) {
	s := simtest.Build(t, KLFit, nil, 1, nil)
	var err error
	for i := 0; i < 3000 && err == nil; i++ {
		err = s.Step()
	}
	if !errors.Is(err, sims.ErrConverged) {
		t.Fatalf("%v", err)
	}
	res := s.Result()
	fw, rv := res["forward"].(map[string]any), res["reverse"].(map[string]any)
	fc, rm := fw["cov"].([][]float64), rv["mean"].([]float64)
	if math.Abs(fc[0][0]-10) > 1e-4 || math.Abs(fc[0][1]-9) > 1e-4 || math.Abs(rm[0]-3) > 1e-3 || math.Abs(rm[1]-3) > 1e-3 ||
		math.Abs(res["reverse_kl"].(float64)-math.Ln2) > 1e-3 {
		t.Errorf("result %v", res)
	}
	f := s.Frame()
	simtest.FiniteMetrics(t, f)
	if len(f.Charts) != 3 {
		t.Errorf("%d charts", len(f.Charts))
	}
}

func TestKLBadParams(t *testing.T) {
	for _, c := range []struct {
		spec *sims.Spec
		set  map[string]string
		name string
	}{
		{KLFlow, map[string]string{"sigma": "0"}, "sigma"},
		{KLFlow, map[string]string{"eta_mu": "0"}, "eta_mu"},
		{KLFlow, map[string]string{"gradient": "adam"}, "gradient"},
		{KLFit, map[string]string{"lr": "0"}, "lr"},
		{KLFit, map[string]string{"start": "1"}, "start"},
		{KLFit, map[string]string{"d": "7"}, "d"},
	} {
		_, err := simtest.BuildErr(c.spec, c.set, 1, nil)
		if err == nil || !strings.Contains(err.Error(), c.name) {
			t.Errorf("%s %v: error %v does not name %s", c.spec.Name, c.set, err, c.name)
		}
	}
}

func TestKLImmutableNoAlloc(t *testing.T) {
	for _, spec := range []*sims.Spec{KLFlow, KLFit} {
		s := simtest.Build(t, spec, nil, 1, nil)
		simtest.RunUntil(t, s, 20)
		f := s.Frame()
		before, _ := json.Marshal(f)
		simtest.RunUntil(t, s, 20)
		_ = s.Frame()
		if after, _ := json.Marshal(f); string(before) != string(after) {
			t.Errorf("%s: a frame changed after it was returned", spec.Name)
		}
		if a := testing.AllocsPerRun(20, func() { _ = s.Step() }); a != 0 {
			t.Errorf("%s: Step allocates %v times", spec.Name, a)
		}
	}
}
