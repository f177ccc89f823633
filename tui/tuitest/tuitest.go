// Package tuitest holds what the sims' golden tests share: a sim's pane
// built from its spec, stepped and drawn as `lab run --frames` and the TUI
// draw it. It is imported only by _test.go files.
package tuitest

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/simtest"
	"github.com/thelab/lab/tui"
)

// Name is a golden case's name: the sim and its settings, sorted.
func Name(spec *sims.Spec, set map[string]string) string {
	parts := []string{spec.Name}
	for _, k := range slices.Sorted(maps.Keys(set)) {
		parts = append(parts, k+"="+set[k])
	}
	return strings.Join(parts, "_")
}

// Screens builds the sim with seed 1 and the settings, takes up to steps
// steps as simtest.SnapshotErr does (a step that converges or fails ends
// the run, and the pane says so), and draws its pane at 80×24 and 140×45
// in monochrome and at 80×24 in colour, one after the other under a
// header each; a screen with a line not exactly the pane's width, or not
// exactly its height, fails the test.
func Screens(t testing.TB, spec *sims.Spec, set map[string]string, steps int) string {
	t.Helper()
	snap, err := simtest.SnapshotErr(spec, set, 1, steps)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	for _, sz := range []struct {
		w, h int
		mono bool
	}{{80, 24, true}, {140, 45, true}, {80, 24, false}} {
		screen := tui.RenderPane(snap, sz.w, sz.h, tui.PaneStyle{Focused: true, Mono: sz.mono})
		lines := strings.Split(screen, "\n")
		if len(lines) != sz.h {
			t.Errorf("%dx%d: %d lines", sz.w, sz.h, len(lines))
		}
		for i, l := range lines {
			if w := ansi.StringWidth(l); w != sz.w {
				t.Errorf("%dx%d line %d: width %d", sz.w, sz.h, i, w)
			}
		}
		fmt.Fprintf(&out, "%dx%d mono=%v\n%s\n\n", sz.w, sz.h, sz.mono, screen)
	}
	return out.String()
}
