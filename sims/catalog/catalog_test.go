package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// TestEverySimRuns builds every sim at its defaults, steps it, and checks
// its frames and results: named, finite metrics, at least one chart, a
// JSON-encodable result, and a Frame that its later steps leave as it was.
// Seed 1 runs up to 10 steps (every sim's own tests run it further,
// against its oracle, and TestSizeEstimates 64 and more). The sims run as parallel subtests, under -race: a
// pane draws a Frame while its sim steps on.
//
// What needs no race detector runs in cmd/lab's TestSizeEstimates, on the
// real `lab run`, a process per setting: the defaults at seed 1 as far as
// the pacing rule needs (checkPacing) and at seed 2 (a second draw of the
// data and the start), each choice and each extreme of every parameter,
// every line's metrics checked declared and finite. Under -race the walk
// was the largest share of the suite's time (at 300 and 20 steps, then
// 120; then 40, seed 2, the pacing rule's steps and every choice built
// here, 97 s of CPU).
func TestEverySimRuns(t *testing.T) {
	for _, spec := range All().Specs() {
		t.Run(spec.Name, func(t *testing.T) {
			t.Parallel()
			if spec.Title == "" || spec.Source == "" || spec.Steps <= 0 {
				t.Errorf("incomplete catalogue entry")
			}
			s, err := spec.Build(sims.Config{Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := s.(sims.Tuner); !ok && slices.ContainsFunc(spec.Params, func(p param.Param) bool { return p.Live }) {
				t.Errorf("has live parameters, but its sim is no sims.Tuner")
			}
			run := storyRun{s: s}
			run.stepTo(min(spec.Steps, 10))
			f := s.Frame()
			if f.Sim != spec.Name || len(f.Charts) == 0 || len(f.Metrics) == 0 {
				t.Errorf("frame %q with %d charts, %d metrics", f.Sim, len(f.Charts), len(f.Metrics))
			}
			for _, m := range f.Metrics {
				if m.Undefined == "" && (math.IsNaN(m.Value) || math.IsInf(m.Value, 0)) {
					t.Errorf("metric %s = %v", m.Name, m.Value)
				}
				if _, ok := spec.Metric(m.Name); !ok {
					t.Errorf("metric %q is not declared in %s's Metrics", m.Name, spec.Name)
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
				t.Errorf("result encodes as %s (%v)", got, err)
			case errors.As(encErr, &nonFinite):
				if why, ok := res["undefined"].(map[string]string); !ok || len(why) == 0 {
					t.Errorf("result has a value that is not finite (%v) and no \"undefined\" reason: %s", encErr, got)
				}
			case encErr != nil:
				t.Errorf("result does not encode: %v", encErr)
			case string(got)+"\n" != want.String():
				t.Errorf("result encodes as %s, encoding/json as %s", got, want.String())
			}
			// A Frame is immutable: the steps after it leave it as it
			// was (dropout's masks were buffers the next step rewrote,
			// under a pane drawing them).
			before := fmt.Sprint(f)
			run.stepTo(run.steps + 3)
			if fmt.Sprint(f) != before {
				t.Errorf("the frame changed as the sim stepped on")
			}
		})
	}
}

// TestMetricDeclarations checks every spec's metric declarations: ASCII
// identifier keys, unique in the sim, each with a one-line meaning
// (NewCatalog refuses others; checked here on every spec). That the
// metrics a sim's frames publish are all declared — at its defaults, at
// each value of each choice, at every extreme — is checked where each
// setting runs: TestEverySimRuns here, and cmd/lab's TestSizeEstimates on
// `lab run --json`'s lines. A sim whose metric names change with a
// parameter (a name printed from a value) fails there.
func TestMetricDeclarations(t *testing.T) {
	for _, spec := range All().Specs() {
		keys := map[string]bool{}
		for _, d := range spec.Metrics {
			if !sims.IsMetricKey(d.Key) || keys[d.Key] || d.Meaning == "" || strings.ContainsAny(d.Meaning, "\n\t") {
				t.Errorf("%s: metric %q: key %q must be a new ASCII identifier, with a one-line meaning %q", spec.Name, d.Name, d.Key, d.Meaning)
			}
			keys[d.Key] = true
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

// storyRun steps a sim and remembers how far it went and why it stopped.
type storyRun struct {
	s     sims.Sim
	steps int   // steps taken, the call that ended the run included
	err   error // what ended it (sims.ErrConverged: it converged), or nil
}

// stepTo steps the sim until it has taken n steps or has ended.
func (r *storyRun) stepTo(n int) {
	for r.err == nil && r.steps < n {
		r.steps++
		r.err = r.s.Step()
	}
}
