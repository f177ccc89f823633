package tui

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/catalog"
)

// TestSeriesClipIsCut: a Frame whose series as CSV would run to megabytes
// is copied as its first whole rows up to the clipboard's bound, and the
// note says how many rows were copied and that the rest was cut; a small
// one is copied whole.
func TestSeriesClipIsCut(t *testing.T) {
	ys := make([]float64, 200_000)
	for i := range ys {
		ys[i] = float64(i) / 7
	}
	big := sims.Frame{Charts: []sims.Chart{sims.LineChart{Title: "loss", Series: []sims.Series{{Name: "train", Y: ys}}}}}
	text, note, err := seriesClip(big)
	if err != nil {
		t.Fatal(err)
	}
	rows := strings.Count(text, "\n") - 1
	switch {
	case len(text) > maxClipboard || len(text) < maxClipboard-200:
		t.Errorf("%d bytes copied, want just under %d", len(text), maxClipboard)
	case !strings.HasPrefix(text, "chart,series,x,y,class\n") || !strings.HasSuffix(text, "\n"):
		t.Errorf("not whole rows: %.60q … %q", text, text[len(text)-40:])
	case !strings.Contains(note, "first "+strconv.Itoa(rows)+" rows") || !strings.Contains(note, "the rest was cut"):
		t.Errorf("%d rows copied, note %q", rows, note)
	}
	small := sims.Frame{Charts: []sims.Chart{sims.LineChart{Title: "loss", Series: []sims.Series{{Name: "train", Y: ys[:10]}}}}}
	if text, note, err := seriesClip(small); err != nil || strings.Count(text, "\n") != 11 || strings.Contains(note, "cut") {
		t.Errorf("a small series: %v, %d lines, %q", err, strings.Count(text, "\n"), note)
	}
}

// TestExportsRunOneAtATime: a second export asked while one is under way
// is dropped with a note, not queued; once it has ended the next one runs.
// An export is held on the session's memory budget while it is made: a
// budget that cannot hold it refuses it.
func TestExportsRunOneAtATime(t *testing.T) {
	l := newLabWith(t, 120, 40, false, Options{Catalog: catalog.All(), Sims: []string{"gd"}, Seed: 1, Paused: true, Remote: true})
	_, first := l.m.Update(press(t, "E"))
	_, second := l.m.Update(press(t, "E"))
	if first == nil || second != nil || !strings.Contains(l.m.flash, "under way") {
		t.Fatalf("two exports at once: %v, %v, flash %q", first != nil, second != nil, l.m.flash)
	}
	msg := first()
	batch, ok := msg.(tea.BatchMsg)
	if !ok || len(batch) != 2 {
		t.Fatalf("the export's message: %T", msg)
	}
	l.m.Update(batch[1]())
	if l.m.exporting || !strings.Contains(l.m.flash, "copied its series as CSV") {
		t.Errorf("after the export: exporting %v, flash %q", l.m.exporting, l.m.flash)
	}
	if _, third := l.m.Update(press(t, "E")); third == nil {
		t.Error("no export after the first ended")
	}

	tight := newLabWith(t, 120, 40, false, Options{Catalog: catalog.All(), Sims: []string{"gd"}, Seed: 1, Paused: true, Remote: true,
		Budget: sims.NewBudget(sims.Limits{Memory: catalog.All().Lookup("gd").EstimateSize(sims.Config{}) + exportBytes/2})})
	_, cmd := tight.m.Update(press(t, "E"))
	var me *sims.MemoryError
	if got, ok := cmd().(exportedMsg); !ok || !errors.As(got.err, &me) {
		t.Errorf("an export over the memory budget: %#v", cmd())
	}
}
