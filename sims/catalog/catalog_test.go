package catalog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"testing"

	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// TestEverySimRuns builds every sim at its defaults, steps it, and checks
// its frames and results: named, finite metrics, at least one chart, and a
// JSON-encodable result. Seed 1 runs up to 40 steps (every sim's own
// tests run it further, against its oracle, and cmd/lab's TestSizeEstimates
// runs 64 steps of each at its defaults, without the race detector, and
// checks its metrics are finite); seed 2, a second draw of the data and
// the start, runs 10. Under -race the walk was the largest share of the
// suite's time: at 300 and 20 steps, then at 120 (43 s of CPU, a third of
// it tinygpt's). The sims run as parallel subtests.
func TestEverySimRuns(t *testing.T) {
	for _, spec := range All().Specs() {
		t.Run(spec.Name, func(t *testing.T) {
			t.Parallel()
			if spec.Title == "" || spec.Source == "" || spec.Steps <= 0 {
				t.Errorf("incomplete catalogue entry")
			}
			for _, c := range []struct {
				seed  uint64
				steps int
			}{{1, 40}, {2, 10}} {
				s, err := spec.Build(sims.Config{Seed: c.seed})
				if err != nil {
					t.Fatalf("seed %d: %v", c.seed, err)
				}
				for range min(spec.Steps, c.steps) {
					if err := s.Step(); err != nil {
						break
					}
				}
				f := s.Frame()
				if f.Sim != spec.Name || len(f.Charts) == 0 || len(f.Metrics) == 0 {
					t.Errorf("seed %d: frame %q with %d charts, %d metrics", c.seed, f.Sim, len(f.Charts), len(f.Metrics))
				}
				for _, m := range f.Metrics {
					if math.IsNaN(m.Value) || math.IsInf(m.Value, 0) {
						t.Errorf("seed %d: metric %s = %v", c.seed, m.Name, m.Value)
					}
				}
				// The results' one encoding is encoding/json's on finite values.
				res := s.Result()
				var want bytes.Buffer
				enc := json.NewEncoder(&want)
				enc.SetEscapeHTML(false)
				if err := enc.Encode(res); err != nil {
					t.Errorf("seed %d: result does not encode: %v", c.seed, err)
				}
				if got, err := sims.AppendResultJSON(nil, res); err != nil || string(got)+"\n" != want.String() {
					t.Errorf("seed %d: result encodes as %s (%v), encoding/json as %s", c.seed, got, err, want.String())
				}
				// A Frame is immutable: the steps after it leave it as it
				// was (dropout's masks were buffers the next step rewrote,
				// under a pane drawing them).
				before := fmt.Sprint(f)
				for range 3 {
					if s.Step() != nil {
						break
					}
				}
				if fmt.Sprint(f) != before {
					t.Errorf("seed %d: the frame changed as the sim stepped on", c.seed)
				}
			}
		})
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

// TestFamilies: every sim sits under a named family, and a search by a
// family's words finds its sims (issue 26.14: "optimal transport",
// "privacy" and "neural" found nothing, pushforward, and playground
// alone).
func TestFamilies(t *testing.T) {
	c := All()
	n := 0
	for _, f := range c.Families() {
		if f.Name == "" || f.About == "" {
			t.Errorf("a family without a name or words: %+v", f)
		}
		n += len(f.Specs)
	}
	if n != len(c.Specs()) {
		t.Errorf("the families hold %d sims, the catalogue %d", n, len(c.Specs()))
	}
	for term, want := range map[string][]string{
		"optimal transport": {"assignment", "ot-lp", "ot-1d", "ot-gauss", "sinkhorn", "distances", "ot-geodesic", "barycenter"},
		"privacy":           {"randomized-response", "dp-mechanisms", "dp-sgd"},
		"neural":            {"playground", "digits", "conv", "tinygpt"},
	} {
		found := map[string]bool{}
		for _, m := range c.Search(term) {
			found[m.Spec.Name] = true
		}
		for _, name := range want {
			if !found[name] {
				t.Errorf("lab list %s does not find %s", term, name)
			}
		}
	}
}
