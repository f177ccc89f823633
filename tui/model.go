// Package tui is the lab's terminal interface: a Bubble Tea v2 model that
// keeps a grid of panes, each showing the latest Frame of one runner, with
// keys and mouse to steer them, a catalogue to add sims and an editor for
// their parameters. Rendering is a pure function of the model's state; the
// model never touches an engine, only runners and their snapshots.
package tui

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/tui/chart"
)

// DefaultSims is the dashboard opened by a bare `lab`.
var DefaultSims = []string{"gd", "em-gmm", "mh"}

// TickInterval is how often the model collects the runners' latest frames.
const TickInterval = time.Second / 30

// Options configure a lab session.
type Options struct {
	Catalog *sims.Catalog
	Sims    []string // the panes to open; nil means DefaultSims
	Seed    uint64   // seed of the first pane; later panes derive theirs
	// RateCap, when positive, caps the steps per second of the whole
	// session, shared equally by its panes.
	RateCap float64
	// CPUCap, when positive, caps the share of a core the session's
	// stepping may use, shared equally by its panes.
	CPUCap float64
	// Paused opens every pane paused (for tests and screenshots).
	Paused bool
	// AckWait bounds how long a key waits for a runner busy with a slow
	// step (the command lands anyway, at a later tick); zero means 15 ms.
	// Tests that check a command's effect at once set it long.
	AckWait time.Duration
}

// Model is the root Bubble Tea model of one lab session. Close it (Quit
// does) to stop its runners.
type Model struct {
	opts   Options
	keys   keyMap
	help   help.Model
	panes  []*pane
	focus  int
	zoom   bool
	w, h   int
	mono   bool
	basic  bool // 16 colours: fields drawn as in mono, the rest in colour
	seeds  uint64
	modal  modal
	flash  string
	flashE bool // the flash is an error
	flashT time.Time
	closed bool
}

// modal is an overlay that takes the keys while it is open.
type modal interface {
	update(m *Model, msg tea.Msg) (modal, tea.Cmd)
	view(m *Model) string
}

// pane is one runner and its last snapshot, with the rendering cached.
type pane struct {
	r        *sims.Runner
	snap     *sims.Snapshot
	speedIdx int
	cache    []string
	cacheKey paneKey
}

type paneKey struct {
	version              uint64
	w, h                 int
	focused, mono, basic bool
}

type tickMsg struct{}

// New starts the runners of a session. It fails on an unknown sim name.
func New(o Options) (*Model, error) {
	if o.Sims == nil {
		o.Sims = DefaultSims
	}
	if o.AckWait == 0 {
		o.AckWait = 15 * time.Millisecond
	}
	m := &Model{opts: o, keys: newKeyMap(), help: help.New(), seeds: o.Seed, w: 80, h: 24}
	m.help.Styles = help.DefaultDarkStyles()
	for _, name := range o.Sims {
		if err := m.addPane(name); err != nil {
			m.Close()
			return nil, err
		}
	}
	m.focus = 0
	return m, nil
}

// addPane starts a runner for the named sim at its defaults and focuses it.
func (m *Model) addPane(name string) error {
	spec := m.opts.Catalog.Lookup(name)
	if spec == nil {
		return fmt.Errorf("unknown sim %q (try: %s)", name, strings.Join(m.opts.Catalog.Names(), ", "))
	}
	seed := m.seeds
	m.seeds += 0x9e3779b97f4a7c15
	idx := nearestSpeed(spec.Speed)
	r, err := sims.NewRunner(spec, sims.Config{Seed: seed}, sims.RunnerOptions{
		Speed: sims.Speeds[idx], Paused: m.opts.Paused, AckWait: m.opts.AckWait,
	})
	if err != nil {
		return err
	}
	m.panes = append(m.panes, &pane{r: r, snap: r.Latest(), speedIdx: idx})
	m.focus = len(m.panes) - 1
	m.shareRateCap()
	return nil
}

func nearestSpeed(s float64) int {
	if s == sims.MaxSpeed {
		return len(sims.Speeds) - 1
	}
	best := 0
	for i, v := range sims.Speeds[:len(sims.Speeds)-1] {
		if abs(v-s) < abs(sims.Speeds[best]-s) {
			best = i
		}
	}
	return best
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// shareRateCap divides the session's step and CPU budgets among its panes.
func (m *Model) shareRateCap() {
	n := float64(len(m.panes))
	for _, p := range m.panes {
		if m.opts.RateCap > 0 {
			p.r.SetRateCap(m.opts.RateCap / n)
		}
		if m.opts.CPUCap > 0 {
			p.r.SetCPUCap(m.opts.CPUCap / n)
		}
	}
}

func (m *Model) closePane(i int) {
	m.panes[i].r.Close()
	m.panes = slices.Delete(m.panes, i, i+1)
	if m.focus >= len(m.panes) {
		m.focus = max(0, len(m.panes)-1)
	}
	if len(m.panes) == 0 {
		m.zoom = false
	}
	m.shareRateCap()
}

// Close stops every runner. It is idempotent.
func (m *Model) Close() {
	if m.closed {
		return
	}
	m.closed = true
	for _, p := range m.panes {
		p.r.Close()
	}
}

// Init starts the frame tick.
func (m *Model) Init() tea.Cmd { return tick() }

func tick() tea.Cmd {
	return tea.Tick(TickInterval, func(time.Time) tea.Msg { return tickMsg{} })
}

// Update handles one message.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.w, m.h = msg.Width, msg.Height
		return m, nil
	case tea.ColorProfileMsg:
		m.mono = msg.Profile == colorprofile.Ascii || msg.Profile == colorprofile.NoTTY
		m.basic = msg.Profile == colorprofile.ANSI
		return m, nil
	case tickMsg:
		m.refresh()
		if m.flash != "" && time.Since(m.flashT) > 4*time.Second {
			m.flash = ""
		}
		return m, tick()
	}
	if m.modal != nil {
		if k, ok := msg.(tea.KeyPressMsg); ok && k.String() == "ctrl+c" {
			return m.quit()
		}
		var cmd tea.Cmd
		m.modal, cmd = m.modal.update(m, msg)
		return m, cmd
	}
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		return m.key(msg)
	case tea.MouseClickMsg:
		if msg.Button == tea.MouseLeft && !m.zoom {
			mouse := msg.Mouse()
			for i, r := range m.rects() {
				if r.contains(mouse.X, mouse.Y) {
					m.focus = i
				}
			}
		}
	}
	return m, nil
}

// refresh takes each runner's latest snapshot.
func (m *Model) refresh() {
	for _, p := range m.panes {
		p.snap = p.r.Latest()
	}
}

func (m *Model) quit() (tea.Model, tea.Cmd) {
	m.Close()
	return m, tea.Quit
}

func (m *Model) key(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	k := m.keys
	switch {
	case key.Matches(msg, k.Quit):
		return m.quit()
	case key.Matches(msg, k.Help):
		m.modal = helpModal{}
		return m, nil
	case key.Matches(msg, k.Add):
		m.modal = newCatalogModal(m)
		return m, nil
	}
	if len(m.panes) == 0 {
		return m, nil
	}
	p := m.panes[m.focus]
	switch {
	case key.Matches(msg, k.Play):
		p.r.Toggle()
	case key.Matches(msg, k.Step):
		p.r.StepOnce()
	case key.Matches(msg, k.Faster):
		p.speedIdx = min(p.speedIdx+1, len(sims.Speeds)-1)
		p.r.SetSpeed(sims.Speeds[p.speedIdx])
	case key.Matches(msg, k.Slower):
		p.speedIdx = max(p.speedIdx-1, 0)
		p.r.SetSpeed(sims.Speeds[p.speedIdx])
	case key.Matches(msg, k.Reset):
		m.report(p.r.Reset())
	case key.Matches(msg, k.Reseed):
		m.report(p.r.Reseed())
	case key.Matches(msg, k.Next):
		m.focus = (m.focus + 1) % len(m.panes)
	case key.Matches(msg, k.Prev):
		m.focus = (m.focus + len(m.panes) - 1) % len(m.panes)
	case key.Matches(msg, k.Left):
		m.move(-1, 0)
	case key.Matches(msg, k.Right):
		m.move(1, 0)
	case key.Matches(msg, k.Up):
		m.move(0, -1)
	case key.Matches(msg, k.Down):
		m.move(0, 1)
	case key.Matches(msg, k.Zoom):
		m.zoom = !m.zoom
	case key.Matches(msg, k.Params):
		m.modal = newParamEditor(m, p)
	case key.Matches(msg, k.Close):
		m.setFlash("closed " + p.snap.Spec.Name)
		m.closePane(m.focus)
	}
	p.snap = p.r.Latest()
	return m, nil
}

func (m *Model) move(dx, dy int) {
	if m.zoom {
		return
	}
	m.focus = neighbour(m.rects(), m.focus, dx, dy)
}

func (m *Model) report(err error) {
	if err != nil {
		m.setFlash(err.Error())
		m.flashE = true
	}
}

func (m *Model) setFlash(s string) {
	m.flash, m.flashE, m.flashT = s, false, time.Now()
}

// rects places the panes on the screen above the bottom bar.
func (m *Model) rects() []rect {
	return gridLayout(len(m.panes), m.w, m.h-1)
}

// View draws the dashboard (or the zoomed pane), the bottom bar and any
// overlay.
func (m *Model) View() tea.View {
	v := tea.NewView(m.Render())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "the lab"
	return v
}

// Render is the screen as a string: what View shows.
func (m *Model) Render() string {
	if m.w <= 0 || m.h <= 0 {
		return ""
	}
	screen := m.dashboard()
	if m.modal != nil {
		box := m.modal.view(m)
		bw, bh := lipgloss.Width(box), lipgloss.Height(box)
		x, y := max(0, (m.w-bw)/2), max(0, (m.h-bh)/2)
		screen = lipgloss.NewCompositor(
			lipgloss.NewLayer(screen),
			lipgloss.NewLayer(box).X(x).Y(y).Z(1),
		).Render()
	}
	return screen
}

func (m *Model) dashboard() string {
	lines := make([]string, m.h)
	area := m.h - 1
	switch {
	case len(m.panes) == 0:
		for i := range area {
			lines[i] = strings.Repeat(" ", m.w)
		}
		lines[area/2] = chart.FitLine(centreText("No panes. Press a to add a sim, q to quit.", m.w), m.w)
	case m.zoom:
		copy(lines, m.panes[m.focus].render(m.w, area, PaneStyle{Focused: true, Mono: m.mono, Basic: m.basic}))
	default:
		for i, r := range m.rects() {
			block := m.panes[i].render(r.w, r.h, PaneStyle{Focused: i == m.focus, Mono: m.mono, Basic: m.basic})
			for y, line := range block {
				lines[r.y+y] += line
			}
		}
	}
	lines[m.h-1] = m.bottomBar()
	return strings.Join(lines, "\n")
}

func centreText(s string, w int) string {
	n := lipgloss.Width(s)
	return strings.Repeat(" ", max(0, (w-n)/2)) + s
}

// render draws the pane, reusing the last drawing when nothing changed.
func (p *pane) render(w, h int, st PaneStyle) []string {
	k := paneKey{version: p.snap.Version, w: w, h: h, focused: st.Focused, mono: st.Mono, basic: st.Basic}
	if k != p.cacheKey || p.cache == nil {
		p.cache = paneLines(p.snap, w, h, st)
		p.cacheKey = k
	}
	return p.cache
}

// bottomBar shows the short help, or a message.
func (m *Model) bottomBar() string {
	m.help.SetWidth(m.w)
	bar := m.help.ShortHelpView(m.keys.ShortHelp())
	if m.flash != "" {
		bar = m.flash
		if m.flashE {
			bar = errorStyle.Render(bar)
		}
	}
	return chart.FitLine(bar, m.w)
}
