package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/catalog"
	"github.com/thelab/lab/sims/simtest"
)

// sgr matches the SGR sequences the charts colour with.
var sgr = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// textSizes are the screens the text sims' panes are checked on, as one
// pane of a dashboard (not zoomed).
var textSizes = []goldenSize{{100, 30, true}, {160, 50, false}, {80, 24, true}}

// checkAligned draws snap's pane, focused, at each size, and fails t
// unless it has the size's lines, each exactly the size's width both by
// grapheme clusters (ansi.StringWidth, what the lab pads by) and by code
// points (ansi.StringWidthWc, what a terminal without grapheme clustering
// draws), and holding no control, format or separator character but the
// ESC of the SGR sequences of its colours.
func checkAligned(t *testing.T, snap *sims.Snapshot, sizes []goldenSize) {
	t.Helper()
	for _, sz := range sizes {
		lines := strings.Split(RenderPane(snap, sz.W, sz.H, PaneStyle{Focused: true, Mono: sz.Mono}), "\n")
		if len(lines) != sz.H {
			t.Errorf("%s at %s: %d lines", snap.Spec.Name, sz, len(lines))
		}
		for i, l := range lines {
			if g, wc := ansi.StringWidth(l), ansi.StringWidthWc(l); g != sz.W || wc != sz.W {
				t.Errorf("%s at %s, line %d: %d cells by grapheme clusters, %d by code points: %q",
					snap.Spec.Name, sz, i, g, wc, ansi.Strip(l))
			}
			if r, bad := simtest.Unprintable(sgr.ReplaceAllString(l, "")); bad {
				t.Errorf("%s at %s, line %d: holds %U: %q", snap.Spec.Name, sz, i, r, l)
			}
		}
	}
}

// TestHostileTextAligned: the text sims' panes on the strongest text
// their readers take, from files whose names hold a bidi control and a
// byte that is not UTF-8 (the sims show the name), are drawn aligned,
// with no control character, at every step checked. The sims' own tests
// (TestTextShownSafely in seqsim and ldasim) check the same runs' Frames
// and results string by string.
func TestHostileTextAligned(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "corpus \u202etxt.\xff.txt")
	docs := filepath.Join(dir, "docs \u202etxt.\xff.txt")
	for path, body := range map[string]string{text: simtest.HostileText(12_000, 1), docs: simtest.HostileDocs()} {
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// rnn and tinygpt read the first 1 000 characters (as hostile as the
	// whole file; a build on all 12 000 bytes costs 1.5 s under -race).
	small := map[string]string{"text": text, "chars": "1000", "context": "16", "batch": "4"}
	for _, c := range []struct {
		sim   string
		set   map[string]string
		steps []int // the steps at which the pane is drawn
	}{
		{"lda", map[string]string{"corpus": docs}, []int{3}},
		{"ngram", map[string]string{"text": text, "k": "3"}, []int{0, 5}},
		{"bpe", map[string]string{"text": text, "merges": "300"}, []int{300}},
		{"rnn", with(small, "hidden", "16"), []int{2}},
		{"tinygpt", with(small, "dim", "16", "heads", "2", "layers", "1", "ffn", "16"), []int{2}},
		// A sentence holds no control (a text parameter is one line), but
		// anything else.
		{"attention", map[string]string{"sentence": "the \u202edog e\u0301 \u0301x ❤\ufe0f 漢字 a\xffb 👍🏽 का x\u200by"},
			[]int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
	} {
		t.Run(c.sim, func(t *testing.T) {
			spec := catalog.All().Lookup(c.sim)
			if spec == nil {
				t.Fatalf("no sim %q in the catalogue", c.sim)
			}
			s := simtest.Build(t, spec, c.set, 1, nil)
			step := 0
			for _, to := range c.steps {
				simtest.RunUntil(t, s, to-step)
				step = to
				checkAligned(t, &sims.Snapshot{Spec: spec, Seed: 1, State: sims.Paused, Frame: s.Frame()}, textSizes)
			}
		})
	}
}

// with is set with the pairs kv added, a new map.
func with(set map[string]string, kv ...string) map[string]string {
	out := map[string]string{}
	for k, v := range set {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}

// TestADNotesFit: every note line and the metrics row of the automatic
// differentiation sims fit a pane of 70 columns (two panes side by side
// on a 140-column screen), so nothing is cut mid-word there; at every
// step of a run, for every choice of every choice parameter.
func TestADNotesFit(t *testing.T) {
	const inner = 68
	for _, name := range []string{"ad-graph", "jacobian", "hessian", "implicit", "coloring", "gradcheck"} {
		spec := catalog.All().Lookup(name)
		if spec == nil {
			t.Fatalf("no sim %q in the catalogue", name)
		}
		for _, p := range spec.Params {
			for _, choice := range p.Choices {
				where := spec.Name + " " + p.Name + "=" + choice
				s := simtest.Build(t, spec, map[string]string{p.Name: choice}, 1, nil)
				check := func(step int) {
					f := s.Frame()
					for _, line := range f.Text {
						if w := ansi.StringWidth(line); w > inner {
							t.Errorf("%s step %d: note of %d columns: %q", where, step, w, line)
						}
					}
					var metrics []string
					for _, m := range f.Metrics {
						metrics = append(metrics, fmt.Sprintf("%s %.4g", m.Name, m.Value))
					}
					if w := ansi.StringWidth(strings.Join(metrics, "   ")); w > inner {
						t.Errorf("%s step %d: metrics row of %d columns", where, step, w)
					}
				}
				check(0)
				for step := 1; step <= 120; step++ {
					err := s.Step()
					check(step)
					if err != nil {
						break
					}
				}
			}
		}
	}
}
