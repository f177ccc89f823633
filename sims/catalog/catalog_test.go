package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
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
// it tinygpt's). The sims run as parallel subtests. Seed 1's run then
// goes on as far as the pacing rule needs (checkPacing), so that the two
// walks build each sim once.
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
				run := storyRun{s: s}
				run.stepTo(min(spec.Steps, c.steps))
				f := s.Frame()
				if f.Sim != spec.Name || len(f.Charts) == 0 || len(f.Metrics) == 0 {
					t.Errorf("seed %d: frame %q with %d charts, %d metrics", c.seed, f.Sim, len(f.Charts), len(f.Metrics))
				}
				for _, m := range f.Metrics {
					if m.Undefined == "" && (math.IsNaN(m.Value) || math.IsInf(m.Value, 0)) {
						t.Errorf("seed %d: metric %s = %v", c.seed, m.Name, m.Value)
					}
					if _, ok := spec.Metric(m.Name); !ok {
						t.Errorf("seed %d: metric %q is not declared in %s's Metrics", c.seed, m.Name, spec.Name)
					}
				}
				// The results' one encoding is encoding/json's on finite values;
				// a value that does not exist is NaN or ±Inf, written null,
				// and the result says why under "undefined" (never a
				// stand-in such as -1).
				res := s.Result()
				var want bytes.Buffer
				enc := json.NewEncoder(&want)
				enc.SetEscapeHTML(false)
				got, err := sims.AppendResultJSON(nil, res)
				var nonFinite *json.UnsupportedValueError
				switch encErr := enc.Encode(res); {
				case err != nil || !json.Valid(got):
					t.Errorf("seed %d: result encodes as %s (%v)", c.seed, got, err)
				case errors.As(encErr, &nonFinite):
					if why, ok := res["undefined"].(map[string]string); !ok || len(why) == 0 {
						t.Errorf("seed %d: result has a value that is not finite (%v) and no \"undefined\" reason: %s", c.seed, encErr, got)
					}
				case encErr != nil:
					t.Errorf("seed %d: result does not encode: %v", c.seed, encErr)
				case string(got)+"\n" != want.String():
					t.Errorf("seed %d: result encodes as %s, encoding/json as %s", c.seed, got, want.String())
				}
				// A Frame is immutable: the steps after it leave it as it
				// was (dropout's masks were buffers the next step rewrote,
				// under a pane drawing them).
				before := fmt.Sprint(f)
				run.stepTo(run.steps + 3)
				if c.seed == 1 {
					// The pacing rule's steps go on from here, on the
					// same sim: one build serves both walks.
					checkPacing(t, spec, &run)
				}
				if fmt.Sprint(f) != before {
					t.Errorf("seed %d: the frame changed as the sim stepped on", c.seed)
				}
			}
		})
	}
}

// TestMetricsAreDeclared builds every sim at each value of each choice
// parameter but its default (the views and modes that publish other
// metrics; TestEverySimRuns checks the defaults), steps it once, and checks that every metric its frames
// publish is declared on its Spec (so that lab help lists it with its
// meaning and --json writes its key), and that the declarations have
// ASCII identifier keys, unique in the sim, and a meaning (NewCatalog
// refuses others; checked here on every spec). A sim whose metric names
// change with a parameter (a name printed from a value) fails here.
func TestMetricsAreDeclared(t *testing.T) {
	for _, spec := range All().Specs() {
		t.Run(spec.Name, func(t *testing.T) {
			t.Parallel()
			keys := map[string]bool{}
			for _, d := range spec.Metrics {
				if !sims.IsMetricKey(d.Key) || keys[d.Key] || d.Meaning == "" || strings.ContainsAny(d.Meaning, "\n\t") {
					t.Errorf("metric %q: key %q must be a new ASCII identifier, with a one-line meaning %q", d.Name, d.Key, d.Meaning)
				}
				keys[d.Key] = true
			}
			check := func(what string, f sims.Frame) {
				for _, m := range f.Metrics {
					if _, ok := spec.Metric(m.Name); !ok {
						t.Errorf("%s: metric %q is not declared in %s's Metrics", what, m.Name, spec.Name)
					}
				}
			}
			run := func(set map[string]string, steps int) {
				v, err := sims.Resolve(spec.Params, set)
				if err != nil {
					return // a choice some other default rules out
				}
				s, err := spec.Build(sims.Config{Seed: 1, Values: v})
				if err != nil {
					return // refused, by its own tests' account
				}
				what := fmt.Sprint(set)
				check(what, s.Frame())
				for range steps {
					if s.Step() != nil {
						break
					}
					check(what, s.Frame())
				}
			}
			// The defaults' frames are checked by TestEverySimRuns, as it
			// steps them; here each other choice, built and stepped once
			// (under -race a choice's build is most of the cost: attack
			// trains two networks for each).
			defaults := spec.Defaults()
			for _, p := range spec.Params {
				if p.Kind == param.KindChoice {
					for _, c := range p.Choices {
						if c != defaults.Text(p.Name) {
							run(map[string]string{p.Name: c}, 1)
						}
					}
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
