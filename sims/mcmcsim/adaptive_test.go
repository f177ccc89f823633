package mcmcsim

import (
	"encoding/json"
	"testing"

	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/simtest"
)

// TestAdaptiveMHLearnsTheShape is the pane's promise: at the defaults (the
// correlated Gaussian, ρ = 0.9, from (3, −3) with a proposal 0.1² I) chain
// 1's proposal starts as a circle (error ≈ 1 against 2.38²/d Σ) and by
// Famous is within 20% of it with a correlation above 0.7 (measured: 0.084
// and 0.79 at seed 1, 0.144 and 0.786 at seed 2; the history still holds
// the start's transient, which fades as 1/t).
func TestAdaptiveMHLearnsTheShape(t *testing.T) {
	for _, seed := range []uint64{1, 2} {
		s := simtest.Build(t, AdaptiveMH, nil, seed, nil)
		f := s.Frame()
		if e := simtest.Metric(t, f, "prop_err"); e < 0.95 {
			t.Errorf("seed %d: start error %.3f, want ≈ 1 (a small circle)", seed, e)
		}
		simtest.Run(t, s, AdaptiveMH.Famous)
		f = s.Frame()
		e, r := simtest.Metric(t, f, "prop_err"), simtest.Metric(t, f, "prop_corr")
		t.Logf("seed %d: error %.3f, correlation %.3f", seed, e, r)
		if e > 0.2 || r < 0.7 {
			t.Errorf("seed %d at step %d: error %.3f, correlation %.3f: want ≤ 0.2 and ≥ 0.7", seed, f.Step, e, r)
		}
		cv, ok := f.Charts[pictureChart].(sims.CanvasChart)
		if !ok || len(cv.Legend) != 3 {
			t.Fatalf("picture %T, legend %v", f.Charts[pictureChart], cv.Legend)
		}
		var dotted int
		for _, p := range cv.Paths {
			if len(p.X) == ellipsePoints && p.Dotted {
				dotted++
			}
		}
		if dotted != 1 {
			t.Errorf("%d dotted ellipses, want the optimal one", dotted)
		}
		if _, err := json.Marshal(s.Result()); err != nil {
			t.Error(err)
		}
		simtest.CheckText(t, f, s.Result())
	}
}

// TestAdaptiveMHOneDimension: the 1-D target runs and draws no ellipse.
func TestAdaptiveMHOneDimension(t *testing.T) {
	s := simtest.Build(t, AdaptiveMH, map[string]string{"target": "normal", "chains": "2"}, 1, nil)
	simtest.Run(t, s, 3000)
	f := s.Frame()
	simtest.FiniteMetrics(t, f)
	if e := simtest.Metric(t, f, "prop_err"); e > 0.5 { // 0.25 measured
		t.Errorf("error %.3f", e)
	}
	if _, ok := f.Charts[pictureChart].(sims.HistChart); !ok {
		t.Errorf("picture %T", f.Charts[pictureChart])
	}
	simtest.CheckText(t, f, s.Result())
}
