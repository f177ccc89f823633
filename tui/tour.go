package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/thelab/lab/scene"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/tui/chart"
)

// PaneOptionsOf are the panes of a scene as the TUI opens them (data
// files are the caller's to read: a scene pane with one is not here).
func PaneOptionsOf(s scene.Scene) []PaneOptions {
	out := make([]PaneOptions, len(s.Panes))
	for i, p := range s.Panes {
		seed := s.PaneSeed(i)
		out[i] = PaneOptions{Sim: p.Sim, Set: p.SetMap(), Seed: &seed, Steps: p.Steps}
		if p.SpeedSet {
			speed := p.Speed
			out[i].Speed = &speed
		}
	}
	return out
}

// openScene replaces the panes by those of scene i of the tour, focused
// and captioned as it says; their builds end in builtMsgs.
func (m *Model) openScene(i int) tea.Cmd {
	sc := m.opts.Tour[i]
	for len(m.panes) > 0 {
		m.closePane(len(m.panes) - 1)
	}
	m.zoom = false
	m.tourAt, m.captionOn = i, true
	var cmds []tea.Cmd
	for _, po := range PaneOptionsOf(sc) {
		spec, err := m.lookup(po.Sim)
		if err != nil {
			m.report(err)
			continue
		}
		vals, err := sims.Resolve(spec.Params, po.Set)
		if err != nil {
			m.report(fmt.Errorf("%s: %w", po.Sim, err))
			continue
		}
		p, b := m.startPane(spec, vals, po.Seed, nil, po.Speed)
		cmds = append(cmds, awaitBuild(p, b, buildAdd))
	}
	m.focus = min(max(sc.Focus, 0), max(len(m.panes)-1, 0))
	return tea.Batch(cmds...)
}

// captionRows is how many rows the open scene's caption takes above the
// panes: its title and caption wrapped to the width, at most a sixth of
// the screen (and 2); none when hidden.
func (m *Model) captionRows() int {
	if !m.captionOn || m.tourAt < 0 {
		return 0
	}
	return len(m.captionText())
}

// captionText is the caption's lines, wrapped, within captionRows' bound.
func (m *Model) captionText() []string {
	sc := m.opts.Tour[m.tourAt]
	// The title, then where it is in the notes, and at the right where it
	// is in the tour and its keys; the title yields first.
	right := fmt.Sprintf("  scene %d/%d · n next · N back · esc hide", m.tourAt+1, len(m.opts.Tour))
	if chart.Width(right) > m.w/2 {
		right = fmt.Sprintf("  %d/%d · n N esc", m.tourAt+1, len(m.opts.Tour))
	}
	left := chart.Clip(sc.Title+" · seed "+sc.Notes+" "+sc.Chapter, max(m.w-chart.Width(right), 0))
	head := left + strings.Repeat(" ", max(m.w-chart.Width(left)-chart.Width(right), 0)) + right
	lines := []string{chart.Clip(head, m.w)}
	// The caption as one paragraph: its two lines are written for a
	// wide screen, and wrapped one by one they left a word alone on a
	// line at 80 columns.
	lines = append(lines, chart.Wrap(strings.Join(sc.Caption, " "), m.w)...)
	if most := max(2, m.h/6); len(lines) > most {
		// the rest on the last row, cut after a word and marked
		lines[most-1] = chart.Clip(strings.Join(lines[most-1:], " "), m.w)
		lines = lines[:most]
	}
	return lines
}

// captionLines are the caption's rows as drawn: the title bold, the
// caption dim, each the screen's width.
func (m *Model) captionLines(rows int) []string {
	if rows == 0 {
		return nil
	}
	st := PaneStyle{Mono: m.mono}
	out := make([]string, 0, rows)
	for i, l := range m.captionText() {
		if i == 0 {
			l = bold(l)
		} else {
			l = dim(l, st)
		}
		out = append(out, chart.FitLine(l, m.w))
	}
	return out
}
