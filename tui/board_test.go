package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/colorprofile"
	"github.com/thelab/lab/scene"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/catalog"
)

// TestBoardIsTheDashboard: a Board handed a dashboard's snapshots draws
// the screen the dashboard's Model does, caption and key line included,
// in colour and (converted as a terminal without colours shows it) in
// monochrome; a new Version redraws a pane, the same one keeps it.
func TestBoardIsTheDashboard(t *testing.T) {
	tour := scene.Builtins()
	const at = 3
	sc := tour[at]
	for _, mono := range []bool{false, true} {
		l := newLabWith(t, 90, 28, mono, Options{Catalog: catalog.All(), Seed: 1, Paused: true,
			Panes: PaneOptionsOf(sc), Focus: sc.Focus, Tour: tour, TourAt: at})
		var snaps []*sims.Snapshot
		for _, p := range l.m.panes {
			snaps = append(snaps, p.snap)
		}
		if len(snaps) < 2 {
			t.Fatalf("scene %s has %d panes: pick one with two or more", sc.Name, len(snaps))
		}
		profile := colorprofile.TrueColor
		if mono {
			profile = colorprofile.Ascii
		}
		b := NewBoard(BoardOptions{Width: 90, Height: 28, Profile: profile, Tour: tour, TourAt: at, Focus: sc.Focus})
		got := b.Render(snaps)
		want := l.m.Render()
		if mono {
			var sb strings.Builder
			(&colorprofile.Writer{Forward: &sb, Profile: colorprofile.Ascii}).Write([]byte(want))
			want = sb.String()
		}
		if got != want {
			t.Fatalf("mono %v: the board draws\n%s\nthe dashboard\n%s", mono, got, want)
		}
		if !strings.Contains(got, strings.Fields(sc.Title)[0]) || len(strings.Split(got, "\n")) != 28 {
			t.Errorf("mono %v: no caption, or not 28 rows:\n%s", mono, got)
		}
		// The same Version keeps the pane's drawing; a new one redraws it.
		changed := *snaps[0]
		changed.State = sims.Converged
		before := b.Render([]*sims.Snapshot{&changed, snaps[1]})
		changed.Version++
		if after := b.Render([]*sims.Snapshot{&changed, snaps[1]}); before != got || after == got {
			t.Errorf("mono %v: a pane redrawn without a new Version, or not with one", mono)
		}
	}
}
