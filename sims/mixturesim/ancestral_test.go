package mixturesim

import (
	"encoding/json"
	"errors"
	"math"
	"testing"

	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/simtest"
)

// TestAncestral runs every model to its n draws: the run ends with
// ErrConverged after exactly n steps, the frames are immutable and finite,
// and for the mixtures the frequencies in the Result sum to one and agree
// with the bars; for the linear state-space model the pane's stationary
// variance note is there.
func TestAncestral(t *testing.T) {
	for _, model := range ancestralModels {
		t.Run(model.String(), func(t *testing.T) {
			s := simtest.Build(t, Ancestral, map[string]string{"model": model.String(), "n": "300"}, 7, nil)
			var early sims.Frame
			for i := 0; ; i++ {
				err := s.Step()
				if errors.Is(err, sims.ErrConverged) {
					if i != 300 {
						t.Fatalf("converged after %d steps, want 300", i)
					}
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				if i == 10 {
					early = s.Frame()
				}
			}
			snap, _ := json.Marshal(early)
			f := s.Frame()
			if again, _ := json.Marshal(early); string(again) != string(snap) || early.Step != 11 || f.Step != 300 {
				t.Fatalf("frames: early step %d changed or final step %d", early.Step, f.Step)
			}
			for _, m := range f.Metrics {
				if math.IsNaN(m.Value) || math.IsInf(m.Value, 0) {
					t.Fatalf("metric %s = %v", m.Name, m.Value)
				}
			}
			r := s.Result()
			if _, err := json.Marshal(r); err != nil {
				t.Fatal(err)
			}
			if freq, ok := r["frequencies"].([]float64); ok {
				sum := 0.0
				bars := f.Charts[1].(sims.BarChart).Bars
				for k, q := range freq {
					sum += q
					if bars[k].Value != q {
						t.Errorf("bar %d = %v, frequency %v", k, bars[k].Value, q)
					}
				}
				if math.Abs(sum-1) > 1e-12 {
					t.Errorf("frequencies sum to %v", sum)
				}
			}
		})
	}
}
