// Package tuitest holds what the sims' golden tests share: a sim's pane
// built from its spec, stepped and drawn as `lab run --frames` and the TUI
// draw it, checked for its size and compared with a golden file. It is
// imported only by _test.go files.
//
// A sims package keeps its own table of cases and hands it to Run:
//
//	func TestGoldenFrames(t *testing.T) {
//		tuitest.Run(t, tuitest.Standard, []tuitest.Case{
//			{Spec: Majorise, Steps: 40},
//			{Spec: Majorise, Set: map[string]string{"fn": "wavy"}, Steps: 40},
//		})
//	}
//
// `go test -run TestGoldenFrames -update` rewrites testdata/ after an
// intended change; look at the result with git diff.
package tuitest

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/simtest"
	"github.com/thelab/lab/tui"
)

// Seed is the seed every golden case is built with.
const Seed = 1

// Size is a terminal a pane is drawn on: W columns, H lines, in
// monochrome or in colour.
type Size struct {
	W, H int
	Mono bool
}

// The size sets the sims' golden screens use.
var (
	// Standard is the pane on the smallest terminal the lab is designed
	// for and on a laptop's, in monochrome, and on the smallest in
	// colour.
	Standard = []Size{{80, 24, true}, {140, 45, true}, {80, 24, false}}
	// Frames is one 100×30 screen in monochrome, as `lab run SIM
	// --frames --size 100x30` writes it to a pipe or a file.
	Frames = []Size{{100, 30, true}}
)

// Case is one golden screen: a sim with its settings after Steps steps
// from seed Seed.
type Case struct {
	// Name names the subtest and its golden file,
	// testdata/<test>/<Name>.golden; empty for Name(Spec, Set).
	Name  string
	Spec  *sims.Spec
	Set   map[string]string
	Steps int
}

// Name is a golden case's default name: the sim and its settings, sorted.
func Name(spec *sims.Spec, set map[string]string) string {
	parts := []string{spec.Name}
	for _, k := range slices.Sorted(maps.Keys(set)) {
		parts = append(parts, k+"="+set[k])
	}
	return strings.Join(parts, "_")
}

// Run pins each case as a subtest of t. The sim is built with seed Seed
// and the case's settings and stepped up to Steps times, as
// simtest.SnapshotErr does: a step that converges or fails stops the run
// and the pane says so (converged, or diverged with the error), otherwise
// it is paused. Golden draws the snapshot and compares it with the case's
// golden file; a sim that cannot be built fails the subtest.
func Run(t *testing.T, sizes []Size, cases []Case) {
	t.Helper()
	for _, c := range cases {
		name := c.Name
		if name == "" {
			name = Name(c.Spec, c.Set)
		}
		t.Run(name, func(t *testing.T) {
			snap, err := simtest.SnapshotErr(c.Spec, c.Set, Seed, c.Steps)
			if err != nil {
				t.Fatal(err)
			}
			Golden(t, snap, sizes)
		})
	}
}

// SharedCase is a golden case whose run a package's other tests continue
// (a sync.OnceValues of simtest.Share), so that it is built and stepped
// once for all of them.
type SharedCase struct {
	Name string
	Run  func() (*simtest.Shared, error)
}

// RunShared pins each shared case's snapshot as a subtest of t, as Run
// pins a Case's.
func RunShared(t *testing.T, sizes []Size, cases []SharedCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			r, err := c.Run()
			if err != nil {
				t.Fatal(err)
			}
			Golden(t, r.Snap, sizes)
		})
	}
}

// Golden draws snap's pane, focused, at each size and compares the
// screens with t's golden file, testdata/<t.Name()>.golden. A screen
// without exactly the size's lines, or with a line not exactly its width
// (text cut or spilling at the border), fails the test. One size gives
// the bare screen; several give each under a header "WxH mono=…" and a
// blank line after it. It is Run's second half, for a snapshot built
// another way (a run shared with another test).
func Golden(t testing.TB, snap *sims.Snapshot, sizes []Size) {
	t.Helper()
	var out strings.Builder
	for _, sz := range sizes {
		screen := tui.RenderPane(snap, sz.W, sz.H, tui.PaneStyle{Focused: true, Mono: sz.Mono})
		lines := strings.Split(screen, "\n")
		if len(lines) != sz.H {
			t.Errorf("%dx%d: %d lines", sz.W, sz.H, len(lines))
		}
		for i, l := range lines {
			if w := ansi.StringWidth(l); w != sz.W {
				t.Errorf("%dx%d line %d: width %d: %q", sz.W, sz.H, i, w, ansi.Strip(l))
			}
		}
		if len(sizes) == 1 {
			out.WriteString(screen)
		} else {
			fmt.Fprintf(&out, "%dx%d mono=%v\n%s\n\n", sz.W, sz.H, sz.Mono, screen)
		}
	}
	golden.RequireEqual(t, out.String())
}

// sgr matches the SGR sequences the charts colour with.
var sgr = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// Aligned draws snap's pane, focused, at each size, as Golden does, and
// fails t unless it has the size's lines, each exactly the size's width
// both by grapheme clusters (ansi.StringWidth, what the lab pads by) and
// by code points (ansi.StringWidthWc, what a terminal without grapheme
// clustering draws), and holding no control, format or separator
// character but the ESC of the SGR sequences of its colours.
func Aligned(t testing.TB, snap *sims.Snapshot, sizes []Size) {
	t.Helper()
	for _, sz := range sizes {
		lines := strings.Split(tui.RenderPane(snap, sz.W, sz.H, tui.PaneStyle{Focused: true, Mono: sz.Mono}), "\n")
		if len(lines) != sz.H {
			t.Errorf("%dx%d: %d lines", sz.W, sz.H, len(lines))
		}
		for i, l := range lines {
			if g, wc := ansi.StringWidth(l), ansi.StringWidthWc(l); g != sz.W || wc != sz.W {
				t.Errorf("%dx%d line %d: %d cells by grapheme clusters, %d by code points: %q", sz.W, sz.H, i, g, wc, ansi.Strip(l))
			}
			if r, bad := simtest.Unprintable(sgr.ReplaceAllString(l, "")); bad {
				t.Errorf("%dx%d line %d: holds %U: %q", sz.W, sz.H, i, r, l)
			}
		}
	}
}
