package catalog

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// TestEverySimRuns builds every sim at its defaults, steps it, and checks
// its frames and results: named, finite metrics, at least one chart, and a
// JSON-encodable result.
func TestEverySimRuns(t *testing.T) {
	for _, spec := range All().Specs() {
		if spec.Title == "" || spec.Source == "" || spec.Steps <= 0 {
			t.Errorf("%s: incomplete catalogue entry", spec.Name)
		}
		for _, seed := range []uint64{1, 2} {
			s, err := spec.Build(sims.Config{Seed: seed})
			if err != nil {
				t.Fatalf("%s: %v", spec.Name, err)
			}
			for range min(spec.Steps, 300) {
				if err := s.Step(); err != nil {
					break
				}
			}
			f := s.Frame()
			if f.Sim != spec.Name || len(f.Charts) == 0 || len(f.Metrics) == 0 {
				t.Errorf("%s: frame %q with %d charts, %d metrics", spec.Name, f.Sim, len(f.Charts), len(f.Metrics))
			}
			for _, m := range f.Metrics {
				if math.IsNaN(m.Value) || math.IsInf(m.Value, 0) {
					t.Errorf("%s: metric %s = %v", spec.Name, m.Name, m.Value)
				}
			}
			if _, err := json.Marshal(s.Result()); err != nil {
				t.Errorf("%s: result does not encode: %v", spec.Name, err)
			}
		}
	}
}

// TestDefaultsValidate checks every parameter default, including the
// dependent ones under every choice of the parameters before them.
func TestDefaultsValidate(t *testing.T) {
	for _, spec := range All().Specs() {
		for _, p := range spec.Params {
			if p.Kind != param.KindChoice {
				continue
			}
			for _, c := range p.Choices {
				if _, err := sims.Resolve(spec.Params, map[string]string{p.Name: c}); err != nil {
					t.Errorf("%s with %s=%s: %v", spec.Name, p.Name, c, err)
				}
			}
		}
	}
}
