package tui

import (
	"strings"

	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/thelab/lab/scene"
	"github.com/thelab/lab/sims"
)

// BoardOptions configure a Board: the screen it draws and what sits
// around the panes.
type BoardOptions struct {
	// Width and Height are the screen's size in cells (what a
	// tea.WindowSizeMsg gives the Model).
	Width, Height int
	// Profile is the terminal's colours (what a tea.ColorProfileMsg gives
	// the Model): TrueColor keeps every colour, Ascii draws as NO_COLOR
	// does. The screen Render returns is already converted to it.
	Profile colorprofile.Profile
	// Tour and TourAt put a scene's title and caption above the panes, as
	// Options' do (TourAt -1: none).
	Tour   []scene.Scene
	TourAt int
	// Focus is the index of the pane drawn focused (its heavy border).
	Focus int
}

// Board draws dashboards from snapshots handed to it, with no runners
// behind them: lab record's frames. It is the TUI's own drawing — a Model
// that only ever renders (Model.Render), sized and coloured through the
// same messages a terminal sends the Model — so that a frame is, cell for
// cell, the screen the TUI shows with panes in those states, the caption
// on top and the key line at the bottom.
type Board struct {
	m       *Model
	profile colorprofile.Profile
	out     strings.Builder
}

// NewBoard is a board for o's screen.
func NewBoard(o BoardOptions) *Board {
	m := &Model{opts: Options{Tour: o.Tour, TourAt: o.TourAt}, keys: newKeyMap(false), help: help.New(), tourAt: -1}
	m.help.Styles = help.DefaultDarkStyles()
	if o.Tour != nil && o.TourAt >= 0 && o.TourAt < len(o.Tour) {
		m.tourAt = o.TourAt
	}
	m.captionOn = m.tourAt >= 0
	m.focus = max(o.Focus, 0)
	m.Update(tea.WindowSizeMsg{Width: o.Width, Height: o.Height})
	m.Update(tea.ColorProfileMsg{Profile: o.Profile})
	return &Board{m: m, profile: o.Profile}
}

// Render draws the dashboard with one pane per snapshot, in order, and
// returns the screen: Height lines of Width cells joined by "\n", in the
// board's colour profile. A pane's drawing is kept while its snapshot's
// Version stays the same (as the TUI keeps it between a runner's
// publications), so a caller hands a snapshot with a Version that
// increases whenever what it shows changes.
func (b *Board) Render(snaps []*sims.Snapshot) string {
	m := b.m
	if len(m.panes) != len(snaps) {
		m.panes = make([]*pane, len(snaps))
		for i := range m.panes {
			m.panes[i] = &pane{}
		}
	}
	for i, s := range snaps {
		m.panes[i].snap = s
	}
	m.focus = min(m.focus, max(len(m.panes)-1, 0))
	screen := m.Render()
	if b.profile == colorprofile.TrueColor {
		return screen
	}
	b.out.Reset()
	w := colorprofile.Writer{Forward: &b.out, Profile: b.profile}
	w.Write([]byte(screen)) // a strings.Builder does not fail
	return b.out.String()
}
