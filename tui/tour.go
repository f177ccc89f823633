package tui

import (
	"errors"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/list"
	tea "charm.land/bubbletea/v2"
	"github.com/thelab/lab/scene"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/tui/chart"
)

// PaneOptionsOf are the panes of a scene as the TUI opens them, on the
// data scene.Load read (the TUI reads no file).
func PaneOptionsOf(s scene.Scene) []PaneOptions {
	out := make([]PaneOptions, len(s.Panes))
	for i, p := range s.Panes {
		seed := s.PaneSeed(i)
		out[i] = PaneOptions{Sim: p.Sim, Set: p.SetMap(), Seed: &seed, Steps: p.Steps, Data: p.Table}
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
	panes := PaneOptionsOf(sc)
	if n := m.opts.MaxPanes; n > 0 && len(panes) > n {
		m.report(fmt.Errorf("this session has at most %d panes: the scene's first %d open", n, n))
		panes = panes[:n]
	}
	for _, po := range panes {
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
		if po.Data != nil && spec.Data == "" {
			m.report(fmt.Errorf("sim %s takes no --data", po.Sim))
			continue
		}
		p, b := m.startPane(spec, vals, po.Seed, po.Data, po.Speed)
		p.stepsOnBuild = po.Steps
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
	title := sc.Title
	if where := chapterOf(sc); where != "" {
		title += " · " + where
	}
	left := chart.Clip(title, max(m.w-chart.Width(right), 0))
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

// openSceneMsg asks the root to open scene i of the tour (the picker's
// enter).
type openSceneMsg struct{ i int }

// sceneItem is a scene in the picker.
type sceneItem struct {
	s scene.Scene
	i int
}

func (it sceneItem) Title() string { return it.s.Name + " — " + it.s.Title }
func (it sceneItem) Description() string {
	caption := strings.Join(it.s.Caption, " ")
	if where := chapterOf(it.s); where != "" {
		return where + " · " + caption
	}
	return caption
}

// chapterOf is where a scene stands in the notes ("seed 002 §5.4
// Calculating OT"), or in a teacher's folder (its chapter line alone).
func chapterOf(s scene.Scene) string {
	if s.Notes == "" {
		return s.Chapter
	}
	return strings.TrimSpace("seed " + s.Notes + " " + s.Chapter)
}

// FilterValue is what the picker's filter matches: the name, title,
// chapter and caption.
func (it sceneItem) FilterValue() string {
	return it.Title() + " " + it.s.Notes + " " + it.s.Chapter + " " + strings.Join(it.s.Caption, " ")
}

// scenePicker is the filterable list of the tour's scenes, in the notes'
// order; enter opens one in place of the panes.
type scenePicker struct {
	list list.Model
	keys keyMap
}

func newScenePicker(tour []scene.Scene, at int, keys keyMap, s screen) *scenePicker {
	items := make([]list.Item, len(tour))
	for i, sc := range tour {
		items[i] = sceneItem{sc, i}
	}
	l := list.New(items, list.NewDefaultDelegate(), 0, 0)
	l.Title = "The tour: scenes chapter by chapter, an idea each"
	l.Styles = list.DefaultStyles(true)
	l.FilterInput.SetStyles(steadyCursor(l.FilterInput.Styles()))
	l.SetStatusBarItemName("scene", "scenes")
	l.DisableQuitKeybindings()
	l.SetShowHelp(false)
	if at >= 0 {
		l.Select(at)
	}
	p := &scenePicker{list: l, keys: keys}
	p.resize(s.w, s.h)
	return p
}

func (p *scenePicker) resize(w, h int) {
	p.list.SetSize(max(30, min(110, w-8)), max(6, h-6))
}

func (p *scenePicker) Help() []key.Binding {
	if p.list.FilterState() == list.Filtering {
		return []key.Binding{helpOnly("enter", "keep the filter"), helpOnly("esc", "clear it"), p.keys.ForceQuit}
	}
	return []key.Binding{helpOnly("↑↓", "move"), helpOnly("tab", "next chapter"), helpOnly("/", "filter"),
		helpOnly("enter", "open"), helpOnly("esc", "close"), p.keys.ForceQuit}
}

func (p *scenePicker) Update(msg tea.Msg) (modal, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		p.resize(msg.Width, msg.Height)
	case tea.KeyPressMsg:
		if p.list.FilterState() != list.Filtering {
			switch {
			case key.Matches(msg, p.keys.Cancel):
				if p.list.FilterState() == list.Unfiltered {
					return nil, nil
				}
			case msg.String() == "tab" || msg.String() == "shift+tab":
				p.nextChapter(msg.String() == "tab")
				return p, nil
			case key.Matches(msg, p.keys.Accept):
				if it, ok := p.list.SelectedItem().(sceneItem); ok {
					return nil, send(openSceneMsg{it.i})
				}
				return nil, nil
			}
		}
	}
	var cmd tea.Cmd
	p.list, cmd = p.list.Update(msg)
	return p, cmd
}

// nextChapter moves to the first scene of the next chapter shown (or
// of the one before: to the first scene of this chapter, or of the
// previous one when already there), wrapping around: a presenter's
// chapter is a key away.
func (p *scenePicker) nextChapter(forward bool) {
	items := p.list.VisibleItems()
	n := len(items)
	if n == 0 {
		return
	}
	chap := func(i int) string { return chapterOf(items[(i+n)%n].(sceneItem).s) }
	i := p.list.Index()
	if forward {
		for j := 1; j < n; j++ {
			if chap(i+j) != chap(i) {
				i += j
				break
			}
		}
	} else {
		if i > 0 && chap(i-1) == chap(i) {
			for i > 0 && chap(i-1) == chap(i) {
				i--
			}
		} else {
			i = (i - 1 + n) % n
			for i > 0 && chap(i-1) == chap(i) {
				i--
			}
		}
	}
	p.list.Select((i + n) % n)
}

func (p *scenePicker) View(screen) string { return overlayStyle.Render(p.list.View()) }

// SceneOf is the dashboard as a scene, for lab open to restore exactly:
// every pane's sim, seed, speed, step count (a pane that ended, the step
// after its last, as lab run stops), the parameters set by hand (in the
// sim's order), its data file and checksum; the focused pane.
func (m *Model) SceneOf() scene.Scene {
	s := scene.Scene{Name: "dashboard", Title: "a saved dashboard", Focus: m.focus}
	for _, p := range m.panes {
		snap := p.snap
		sp := scene.Pane{Sim: snap.Spec.Name, Seed: snap.Seed, SeedSet: true,
			Speed: sims.Speeds[p.speedIdx], SpeedSet: true, Steps: snap.Frame.Step}
		if snap.State.Done() {
			sp.Steps++
		}
		sp.Set = scene.SettingsOf(snap.Values)
		if p.data != nil {
			sp.Data, sp.DataSum = p.data.Path, p.data.Sum
		}
		s.Panes = append(s.Panes, sp)
	}
	return s
}

// save writes the dashboard as a scene file (lab open FILE restores it):
// in the export directory, or, in a visitor's session, to the visitor's
// clipboard (OSC 52), never on the server's disk.
func (m *Model) save() tea.Cmd {
	if len(m.panes) == 0 {
		m.report(errors.New("no panes to save"))
		return nil
	}
	text := m.SceneOf().Format()
	switch dir := m.opts.ExportDir; {
	case m.opts.Remote:
		m.setFlash("copied the dashboard to your clipboard (OSC 52): save it as a .scene file, lab open it")
		return tea.SetClipboard(text)
	case dir == "":
		m.report(errors.New("saving is off in this session"))
		return nil
	default:
		paths, err := writeFree(dir, "lab-dashboard", []fileContent{{".scene", []byte(text)}})
		if err != nil {
			m.report(fmt.Errorf("save: %w", err))
			return nil
		}
		m.setFlash("saved " + paths[0] + ": lab open " + paths[0] + " restores it")
		return nil
	}
}
