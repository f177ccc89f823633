// Package tui is the lab's terminal interface: a Bubble Tea v2 model that
// keeps a grid of panes, each showing the latest Frame of one runner, with
// keys and mouse to steer them, a catalogue to add sims and an editor for
// their parameters. Rendering is a pure function of the model's state; the
// model never touches an engine, only runners and their snapshots.
package tui

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	"github.com/thelab/lab/scene"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/tui/chart"
)

// DefaultSims is the dashboard opened by a bare `lab`.
var DefaultSims = []string{"gd", "em-gmm", "mh"}

// Options configure a lab session. The limits are for a session a
// visitor opens (`lab serve`); zero is no limit, as in the local lab.
type Options struct {
	Catalog *sims.Catalog
	Sims    []string // the panes to open; nil means DefaultSims
	Seed    uint64   // seed of the first pane; later panes derive theirs
	// Budget is the session's allowance, shared by its panes (lab serve
	// makes one per visitor's session: steps, CPU, builds and memory); nil
	// is no limit, as in the local lab. Model.Budget returns it.
	Budget *sims.Budget
	// MaxPanes, when positive, caps the panes of the session; the
	// catalogue says so when it is reached.
	MaxPanes int
	// Paused opens every pane paused (for tests and screenshots).
	Paused bool

	// Panes, when set, are the panes to open, each with its own settings
	// (`lab em-gmm --data points.csv --set k=4 --seed 7`); it replaces
	// Sims. Data in it is already read: the TUI opens no file named on a
	// command line, and lab serve, whose visitors choose nothing here,
	// leaves Panes nil.
	Panes []PaneOptions
	// Remote is a visitor's session (lab serve): export (e, E) and the
	// reproducing command (c) go to the visitor's terminal, through its
	// clipboard (OSC 52), and nothing is written on this machine's disk.
	Remote bool
	// ExportDir is where export (e) writes its files when the session is
	// not Remote: the local lab sets it ("." for the current directory).
	// Empty, export writes nothing and says so, so that a session whose
	// options forget both writes no file.
	ExportDir string
	// Cadence is how often the runners publish Frames while stepping and
	// the model collects them, and so draws a new screen: nil is
	// sims.FrameInterval. lab serve's starts at the frame rate it sends its
	// visitors (--fps), so that no Frame is built and no screen drawn that
	// the renderer would not send, and slows while the server is busy.
	Cadence *sims.Cadence
	// Focus is the index of the pane focused first.
	Focus int
	// Tour, when set, are the scenes n and N walk through, and TourAt the
	// one open (Panes are its panes, or the caller's when TourAt is
	// -1): its title and caption stay above the panes until esc.
	Tour   []scene.Scene
	TourAt int
	// Picker opens the tour's scene picker over the panes (lab tour on a
	// terminal, a visitor of lab serve who asked for nothing): with Sims
	// empty and not nil, over an empty dashboard.
	Picker bool
	// Context, when set, bounds New's wait for the first builds: once it
	// is done, New stops the runners it started and returns its error.
	// lab serve passes the visitor's session, so that a visitor who
	// leaves while their builds wait for their budget frees the server
	// at once rather than after the rest.
	Context context.Context
}

// PaneOptions are the settings of one pane from the command line.
type PaneOptions struct {
	Sim string
	// Set holds parameter values as typed (`--set name=value`).
	Set map[string]string
	// Seed, when not nil, is the pane's seed; otherwise it takes the
	// session's next one.
	Seed *uint64
	// Data is the table the sim runs on (`--data`, read by the caller);
	// nil is the sim's own data.
	Data *sims.Table
	// Steps, when positive, opens the pane paused after that many steps.
	Steps int
	// Speed, when not nil, is the steps a second the pane starts at (the
	// nearest of sims.Speeds); otherwise the sim's own.
	Speed *float64
}

// Model is the root Bubble Tea model of one lab session. Close it when the
// program has ended, to stop its runners and wait for them.
type Model struct {
	bar struct {
		key  barKey
		text string
	}
	opts    Options
	keys    keyMap
	help    help.Model
	budget  *sims.Budget
	panes   []*pane
	retired []*sims.Runner // runners of closed panes, stopping
	focus   int
	zoom    bool
	w, h    int
	mono    bool
	basic   bool // 16 colours: fields drawn as in mono, the rest in colour
	pal256  bool // 256 colours: ramps in colours of the palette (chart.Options.Palette256)
	seeds   uint64
	// tourAt is the scene of Options.Tour open (-1: none), and
	// captionOn whether its caption is shown above the panes.
	tourAt    int
	captionOn bool
	modal     modal
	flash     string
	flashE    bool // the flash is an error
	flashT    time.Time
	closed    bool
	// exporting: an export's command is under way (one at a time).
	exporting bool
	// Reused by dashboard from frame to frame: the screen's bytes and the
	// panes' blocks of lines.
	screenBuf []byte
	blocks    [][]string
}

// pane is one runner and its last snapshot, with the rendering cached.
type pane struct {
	r        *sims.Runner
	snap     *sims.Snapshot
	data     *sims.Table // the --data it runs on, or nil
	speedIdx int
	// noteScroll is the first wrapped note line the zoom shows.
	noteScroll int
	cache      []string
	cacheKey   paneKey
	// showing says a key's answer is awaited (shown): one waiter a pane,
	// however many keys come meanwhile.
	showing bool
	// stepsOnBuild are the steps a scene's pane makes, paused, once
	// built (PaneOptions.Steps of a scene opened by n, N or the picker).
	stepsOnBuild int
}

type paneKey struct {
	version uint64
	w, h    int
	st      PaneStyle
}

type tickMsg struct{}

// shownMsg says a pane's runner has published the answer to a key
// (shown).
type shownMsg struct{ p *pane }

// buildKind says what a build was for.
type buildKind int

const (
	buildAdd buildKind = iota
	buildReset
	buildReseed
	buildParams
)

// builtMsg reports the end of a build asked of a pane's runner.
type builtMsg struct {
	p     *pane
	what  buildKind
	err   error
	tuned bool // live parameters retuned the running sim (sims.Build.Tuned)
}

// awaitBuild is the command that waits, off the update loop, for a build.
func awaitBuild(p *pane, b *sims.Build, what buildKind) tea.Cmd {
	return func() tea.Msg {
		err := b.Wait()
		return builtMsg{p, what, err, b.Tuned()}
	}
}

// New starts the runners of a session and builds their sims (before the
// program starts, so this may take a moment). It fails on an unknown sim
// name, more sims than MaxPanes, or a sim that cannot be built.
func New(o Options) (*Model, error) {
	panes := o.Panes
	if panes == nil {
		if o.Sims == nil {
			o.Sims = DefaultSims
		}
		for _, name := range o.Sims {
			panes = append(panes, PaneOptions{Sim: name})
		}
	}
	if o.MaxPanes > 0 && len(panes) > o.MaxPanes {
		return nil, fmt.Errorf("%d sims asked for, at most %d panes", len(panes), o.MaxPanes)
	}
	m := &Model{opts: o, keys: newKeyMap(o.Remote), help: help.New(), seeds: o.Seed, w: 80, h: 24, tourAt: -1}
	if o.Tour != nil && o.TourAt >= 0 && o.TourAt < len(o.Tour) {
		m.tourAt = o.TourAt
	}
	m.help.Styles = help.DefaultDarkStyles()
	m.budget = o.Budget
	var builds []*sims.Build
	for _, po := range panes {
		spec, err := m.lookup(po.Sim)
		if err != nil {
			m.Close()
			return nil, err
		}
		vals, err := sims.Resolve(spec.Params, po.Set)
		if err != nil {
			m.Close()
			return nil, fmt.Errorf("%s: %w", po.Sim, err)
		}
		if po.Data != nil && spec.Data == "" {
			m.Close()
			return nil, fmt.Errorf("sim %s takes no --data", po.Sim)
		}
		_, b := m.startPane(spec, vals, po.Seed, po.Data, po.Speed)
		builds = append(builds, b)
	}
	var gone <-chan struct{} // nil, never closed, without a Context
	if o.Context != nil {
		gone = o.Context.Done()
	}
	for i, b := range builds {
		select {
		case <-b.Done():
		case <-gone:
			m.Close()
			return nil, fmt.Errorf("%s: %w", panes[i].Sim, context.Cause(o.Context))
		}
		if err := b.Err(); err != nil {
			m.Close()
			return nil, fmt.Errorf("%s: %w", panes[i].Sim, err)
		}
		if n := panes[i].Steps; n > 0 {
			m.panes[i].r.Step(n)
		}
	}
	m.refresh()
	m.focus = min(max(o.Focus, 0), max(len(m.panes)-1, 0))
	m.captionOn = m.tourAt >= 0
	if o.Picker && len(o.Tour) > 0 {
		m.modal = newScenePicker(o.Tour, m.tourAt, m.keys, m.screen())
	}
	return m, nil
}

// Budget is the session's budget, shared by its panes: what it has spent
// is in its Usage.
func (m *Model) Budget() *sims.Budget { return m.budget }

func (m *Model) lookup(name string) (*sims.Spec, error) {
	spec := m.opts.Catalog.Lookup(name)
	if spec == nil {
		return nil, fmt.Errorf("unknown sim %q (try: %s)", name, strings.Join(m.opts.Catalog.Names(), ", "))
	}
	return spec, nil
}

// startPane adds a pane for spec, focused, and starts building its sim;
// until it is built the pane says so. Zero vals are the defaults; a nil
// seed is the session's next (the session's seed, then one more for each
// pane: short seeds that a pane's edge shows and `lab run` takes).
func (m *Model) startPane(spec *sims.Spec, vals sims.Values, seed *uint64, data *sims.Table, speed *float64) (*pane, *sims.Build) {
	s := m.seeds
	if seed != nil {
		s = *seed
	} else {
		m.seeds++
	}
	idx := sims.NearestSpeed(spec.Speed)
	if speed != nil {
		idx = sims.NearestSpeed(*speed)
	}
	// Engines may use every core for a step (sims.Config.Workers), unless
	// the session's CPU is capped: the cap charges the CPU time of the
	// thread that steps, so its engines keep to that one goroutine.
	workers := 0
	if m.budget.Limits().Cores > 0 {
		workers = 1
	}
	r, b := sims.StartRunner(spec, sims.Config{Values: vals, Seed: s, Data: data, Workers: workers}, sims.RunnerOptions{
		Speed: sims.Speeds[idx], Paused: m.opts.Paused, Budget: m.budget, Cadence: m.opts.Cadence,
	})
	p := &pane{r: r, snap: r.Latest(), data: data, speedIdx: idx}
	m.panes = append(m.panes, p)
	m.focus = len(m.panes) - 1
	return p, b
}

// addPane adds a pane for the named sim; its build ends in a builtMsg.
func (m *Model) addPane(name string) tea.Cmd {
	if full := m.full(); full != "" {
		m.report(errors.New(full))
		return nil
	}
	spec, err := m.lookup(name)
	if err != nil {
		m.report(err)
		return nil
	}
	p, b := m.startPane(spec, sims.Values{}, nil, nil, nil)
	return awaitBuild(p, b, buildAdd)
}

// full says why no pane can be added, or "".
func (m *Model) full() string {
	if n := m.opts.MaxPanes; n > 0 && len(m.panes) >= n {
		return fmt.Sprintf("this session has %d panes, the most it may have; close one (x) first", n)
	}
	return ""
}

// closePane removes pane i; its runner stops without being waited for.
func (m *Model) closePane(i int) {
	m.panes[i].r.Stop()
	m.retired = append(m.retired, m.panes[i].r)
	m.panes = slices.Delete(m.panes, i, i+1)
	if m.focus >= len(m.panes) {
		m.focus = max(0, len(m.panes)-1)
	}
	if len(m.panes) == 0 {
		m.zoom = false
	}
}

// index is the position of p among the panes, or -1 once it is closed.
func (m *Model) index(p *pane) int { return slices.Index(m.panes, p) }

// stop tells every runner to stop, without waiting. It is idempotent.
func (m *Model) stop() {
	if m.closed {
		return
	}
	m.closed = true
	for _, p := range m.panes {
		p.r.Stop()
	}
}

// Close stops every runner and waits for them. It is idempotent.
func (m *Model) Close() {
	m.stop()
	for _, p := range m.panes {
		p.r.Close()
	}
	for _, r := range m.retired {
		r.Close()
	}
}

// Init starts the frame tick.
func (m *Model) Init() tea.Cmd { return m.tick() }

func (m *Model) tick() tea.Cmd {
	return tea.Tick(m.opts.Cadence.Interval(), func(time.Time) tea.Msg { return tickMsg{} })
}

// Update handles one message. It never waits: runner commands are queued,
// and builds end in a builtMsg from a command.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.w, m.h = msg.Width, msg.Height
		return m, m.toModal(msg)
	case tea.ColorProfileMsg:
		m.mono = msg.Profile == colorprofile.Ascii || msg.Profile == colorprofile.NoTTY
		m.basic = msg.Profile == colorprofile.ANSI
		m.pal256 = msg.Profile == colorprofile.ANSI256
		return m, nil
	case tickMsg:
		m.refresh()
		if m.flash != "" && time.Since(m.flashT) > 4*time.Second {
			m.flash = ""
		}
		return m, m.tick()
	case shownMsg:
		msg.p.showing = false
		m.refresh()
		return m, nil
	case builtMsg:
		return m, m.built(msg)
	case exportedMsg:
		m.exporting = false
		if msg.err != nil {
			m.report(msg.err)
		} else {
			m.setFlash(msg.note)
		}
		return m, nil
	case addSimMsg:
		return m, m.addPane(msg.name)
	case openSceneMsg:
		return m, m.openScene(msg.i)
	case applyParamsMsg:
		if m.index(msg.p) < 0 {
			return m, nil
		}
		return m, awaitBuild(msg.p, msg.p.r.SetValues(msg.vals), buildParams)
	}
	if m.modal != nil {
		if k, ok := msg.(tea.KeyPressMsg); ok && key.Matches(k, m.keys.ForceQuit) {
			return m.quit()
		}
		return m, m.toModal(msg)
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

// toModal hands msg to the open overlay, if any.
func (m *Model) toModal(msg tea.Msg) tea.Cmd {
	if m.modal == nil {
		return nil
	}
	var cmd tea.Cmd
	m.modal, cmd = m.modal.Update(msg)
	return cmd
}

// built takes note of a finished build: the parameter editor shows its
// own outcome; a pane that could not be added goes, with the reason; other
// failures are flashed (the pane also shows them, over its running sim).
func (m *Model) built(msg builtMsg) tea.Cmd {
	cmd := m.toModal(msg)
	i := m.index(msg.p)
	if i < 0 || errors.Is(msg.err, sims.ErrSuperseded) || errors.Is(msg.err, sims.ErrClosed) {
		return cmd
	}
	msg.p.snap = msg.p.r.Latest()
	name := msg.p.snap.Spec.Name
	switch {
	case msg.err != nil && msg.what == buildAdd:
		m.closePane(i)
		m.report(fmt.Errorf("could not add %s: %w", name, msg.err))
	case msg.err != nil:
		m.report(msg.err)
	case msg.what == buildAdd && msg.p.stepsOnBuild > 0:
		msg.p.r.Step(msg.p.stepsOnBuild)
		msg.p.stepsOnBuild = 0
	case msg.what == buildAdd:
		m.setFlash("added " + name)
	case msg.what == buildParams && msg.tuned:
		m.setFlash(name + " goes on with the new parameters")
	case msg.what == buildParams:
		m.setFlash("restarted " + name + " with new parameters")
	}
	return cmd
}

// refresh takes each runner's latest snapshot.
func (m *Model) refresh() {
	for _, p := range m.panes {
		p.snap = p.r.Latest()
	}
}

func (m *Model) quit() (tea.Model, tea.Cmd) {
	m.stop()
	return m, tea.Quit
}

func (m *Model) key(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	k := m.keys
	switch {
	case key.Matches(msg, k.Quit):
		return m.quit()
	case key.Matches(msg, k.Help):
		m.modal = helpModal{keys: m.keys}
		return m, nil
	case key.Matches(msg, k.Add):
		m.modal = newCatalogModal(m.opts.Catalog, m.keys, m.full(), m.screen())
		return m, nil
	case key.Matches(msg, k.Save):
		return m, m.save()
	case key.Matches(msg, k.Tour) && len(m.opts.Tour) > 0:
		m.modal = newScenePicker(m.opts.Tour, m.tourAt, m.keys, m.screen())
		return m, nil
	case key.Matches(msg, k.NextScene) && len(m.opts.Tour) > 0:
		return m, m.openScene((m.tourAt + 1) % len(m.opts.Tour))
	case key.Matches(msg, k.PrevScene) && len(m.opts.Tour) > 0:
		return m, m.openScene((max(m.tourAt, 0) + len(m.opts.Tour) - 1) % len(m.opts.Tour))
	case key.Matches(msg, k.HideCaption) && m.captionOn:
		m.captionOn = false
		return m, nil
	}
	if len(m.panes) == 0 {
		return m, nil
	}
	switch {
	case key.Matches(msg, k.PauseAll):
		m.pauseAll()
		return m, nil
	case key.Matches(msg, k.FasterAll):
		m.speedAll(1)
		return m, nil
	case key.Matches(msg, k.SlowerAll):
		m.speedAll(-1)
		return m, nil
	}
	p := m.panes[m.focus]
	var cmd tea.Cmd
	switch {
	case key.Matches(msg, k.Play):
		cmd = p.shown(p.r.Toggle())
	case key.Matches(msg, k.Step):
		cmd = p.shown(p.r.Step(1))
	case key.Matches(msg, k.Faster):
		cmd = p.shown(p.setSpeed(1))
	case key.Matches(msg, k.Slower):
		cmd = p.shown(p.setSpeed(-1))
	case key.Matches(msg, k.Reset):
		cmd = awaitBuild(p, p.r.Reset(), buildReset)
	case key.Matches(msg, k.Reseed):
		cmd = awaitBuild(p, p.r.Reseed(), buildReseed)
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
	case key.Matches(msg, k.NotesUp) && m.zoom:
		p.noteScroll = max(0, p.noteScroll-m.noteRows())
	case key.Matches(msg, k.NotesDown) && m.zoom:
		p.noteScroll = min(p.noteScroll+m.noteRows(), p.noteLines(m.w))
	case key.Matches(msg, k.Params):
		m.modal = newParamEditor(p, m.keys, m.screen())
	case key.Matches(msg, k.Command):
		args := runArgs(p.snap, p.data)
		m.modal = commandModal{name: p.snap.Spec.Name, args: args}
		cmd = tea.SetClipboard(joinArgs(args))
	case key.Matches(msg, k.Export):
		cmd = m.export(p, false)
	case key.Matches(msg, k.ExportSeries):
		cmd = m.export(p, true)
	case key.Matches(msg, k.Close):
		m.setFlash("closed " + p.snap.Spec.Name)
		m.closePane(m.focus)
	}
	return m, cmd
}

// noteRows is how far a page of notes scrolls in the zoom: a third of it,
// what a pane gives its notes at most.
func (m *Model) noteRows() int { return max(1, (m.h-4)/3-1) }

// noteLines is the number of wrapped note lines of the pane zoomed to
// width w.
func (p *pane) noteLines(w int) int {
	notes, _ := wrapNotes(paneNotes(p.snap), 0, w-2)
	return len(notes)
}

// setSpeed moves the pane's speed d notches along sims.Speeds.
func (p *pane) setSpeed(d int) <-chan struct{} {
	p.speedIdx = max(0, min(p.speedIdx+d, len(sims.Speeds)-1))
	return p.r.SetSpeed(sims.Speeds[p.speedIdx])
}

// shown waits, off the update loop, for the pane's runner to acknowledge
// a command (it has published the Frame that shows it) and then has the
// model collect it at once: a key's answer is drawn without waiting for
// the next tick. A pane has one waiter at a time: keys that come while
// it waits are drawn by the same collection or the next tick, so that a
// paste of keys starts no more goroutines than there are panes.
func (p *pane) shown(ack <-chan struct{}) tea.Cmd {
	if p.showing {
		return nil
	}
	p.showing = true
	return func() tea.Msg {
		<-ack
		return shownMsg{p}
	}
}

// pauseAll pauses every running pane, or, when none runs, resumes every
// pane (those that have finished stay finished).
func (m *Model) pauseAll() {
	running := slices.ContainsFunc(m.panes, func(p *pane) bool { return p.snap.State == sims.Running })
	for _, p := range m.panes {
		if running {
			p.r.Pause()
		} else {
			p.r.Play()
		}
	}
	if running {
		m.setFlash("paused every pane (P resumes them)")
	} else {
		m.setFlash("resumed every pane (P pauses them)")
	}
}

// speedAll moves every pane's speed d notches, each from its own.
func (m *Model) speedAll(d int) {
	for _, p := range m.panes {
		p.setSpeed(d)
	}
	if d > 0 {
		m.setFlash("every pane one notch faster")
	} else {
		m.setFlash("every pane one notch slower")
	}
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

func (m *Model) screen() screen { return screen{w: m.w, h: m.h, mono: m.mono} }

// rects places the panes on the screen above the bottom bar.
func (m *Model) rects() []rect {
	top := m.captionRows()
	rs := gridLayout(len(m.panes), m.w, m.h-1-top)
	for i := range rs {
		rs[i].y += top
	}
	return rs
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
		screen = behindOverlay(screen)
		box := m.modal.View(m.screen())
		bw, bh := lipgloss.Width(box), lipgloss.Height(box)
		x, y := max(0, (m.w-bw)/2), max(0, (m.h-bh)/2)
		screen = lipgloss.NewCompositor(
			lipgloss.NewLayer(screen),
			lipgloss.NewLayer(box).X(x).Y(y).Z(1),
		).Render()
		// The compositor drops trailing blanks; the screen keeps its width.
		screen = strings.Join(chart.Fit(strings.Split(screen, "\n"), m.w, m.h), "\n")
	}
	return screen
}

// behindOverlay is the dashboard under an overlay: faint and without its
// colours, so that the box reads as what takes the keys and the panes'
// edges beside it as background (issue 26.9); its bottom line, the
// overlay's keys, stays as it is.
func behindOverlay(screen string) string {
	lines := strings.Split(screen, "\n")
	for i, l := range lines[:len(lines)-1] {
		lines[i] = faintStyle.Render(ansi.Strip(l))
	}
	return strings.Join(lines, "\n")
}

var faintStyle = lipgloss.NewStyle().Faint(true)

// dashboard draws the panes (or the zoomed one) and the bottom bar into
// the Model's reused buffer, row by row: a frame whose panes are cached
// allocates little more than the string it returns.
func (m *Model) dashboard() string {
	if m.w < MinWidth || m.h < MinHeight {
		return strings.Join(tooSmall(m.w, m.h, MinWidth, MinHeight), "\n")
	}
	b := m.screenBuf[:0]
	top := m.captionRows()
	for _, l := range m.captionLines(top) {
		b = append(b, l...)
		b = append(b, '\n')
	}
	area := m.h - 1 - top
	needW, needH := dashboardNeeds(len(m.panes), m.w, area)
	zoom := m.zoom || (len(m.panes) > 1 && (needW > m.w || needH > m.h-top))
	switch {
	case len(m.panes) == 0:
		for y := range area {
			if y == area/2 {
				b = append(b, chart.FitLine(centreText(m.noPanes(), m.w), m.w)...)
			} else {
				b = append(b, strings.Repeat(" ", m.w)...)
			}
			b = append(b, '\n')
		}
	case zoom:
		p := m.panes[m.focus]
		block := p.render(m.w, area, PaneStyle{Focused: true, Mono: m.mono, Basic: m.basic, Palette256: m.pal256,
			Zoomed: m.zoom, NoteScroll: p.noteScroll})
		for y := range area {
			if y < len(block) {
				b = append(b, block[y]...)
			}
			b = append(b, '\n')
		}
	default:
		rects := m.rects()
		blocks := m.blocks[:0]
		for i, r := range rects {
			blocks = append(blocks, m.panes[i].render(r.w, r.h, PaneStyle{Focused: i == m.focus, Mono: m.mono, Basic: m.basic, Palette256: m.pal256}))
		}
		for y := top; y < top+area; y++ {
			for i, r := range rects { // the panes of a row, left to right
				if k := y - r.y; k >= 0 && k < len(blocks[i]) {
					b = append(b, blocks[i][k]...)
				}
			}
			b = append(b, '\n')
		}
		clear(blocks) // the panes keep their own caches
		m.blocks = blocks[:0]
	}
	if zoom && !m.zoom && m.modal == nil {
		msg := fmt.Sprintf("%d panes need %d×%d: the focused one shown (tab: next)", len(m.panes), needW, needH)
		b = append(b, chart.FitLine(dim(chart.Clip(msg, m.w), PaneStyle{Mono: m.mono}), m.w)...)
	} else {
		b = append(b, m.bottomBar()...)
	}
	m.screenBuf = b
	return string(b)
}

// noPanes is what an empty dashboard says.
func (m *Model) noPanes() string {
	if len(m.opts.Tour) > 0 {
		return "No panes. Press t for the tour's scenes, a to add a sim, q to quit."
	}
	return "No panes. Press a to add a sim, q to quit."
}

// The smallest screen the lab draws on: one pane of the minimum size above
// the bottom bar. Below it the screen says so, once.
const (
	MinWidth  = MinPaneWidth
	MinHeight = MinPaneHeight + 1
)

// tooSmall is a w×h screen saying it is smaller than needW×needH.
func tooSmall(w, h, needW, needH int) []string {
	lines := make([]string, h)
	msg := chart.Wrap(fmt.Sprintf("terminal too small: need at least %d×%d", needW, needH), w)
	top := max(0, (h-len(msg))/2)
	for i := range lines {
		s := ""
		if j := i - top; j >= 0 && j < len(msg) {
			s = centreText(msg[j], w)
		}
		lines[i] = chart.FitLine(s, w)
	}
	return lines
}

// dashboardNeeds is the smallest screen of the w×(h+1) screen's shape
// (h rows above the bottom bar) on which gridLayout gives each of n panes
// at least the minimum pane size; w×(h+1) itself when it already does.
func dashboardNeeds(n, w, h int) (needW, needH int) {
	for s := 1.0; ; s *= 1.02 {
		needW, needH = int(math.Ceil(float64(w)*s)), int(math.Ceil(float64(h)*s))
		ok := true
		for _, r := range gridLayout(n, needW, needH) {
			ok = ok && r.w >= MinPaneWidth && r.h >= MinPaneHeight
		}
		if ok {
			return needW, needH + 1
		}
	}
}

func centreText(s string, w int) string {
	n := lipgloss.Width(s)
	return strings.Repeat(" ", max(0, (w-n)/2)) + s
}

// render draws the pane, reusing the last drawing when nothing changed.
func (p *pane) render(w, h int, st PaneStyle) []string {
	k := paneKey{version: p.snap.Version, w: w, h: h, st: st}
	if k != p.cacheKey || p.cache == nil {
		p.cache = paneLines(p.snap, w, h, st)
		p.cacheKey = k
	}
	return p.cache
}

// bottomBar shows the keys (an open overlay's, else the dashboard's), or
// a message.
func (m *Model) bottomBar() string {
	// The dashboard's key map never changes: without an overlay the bar is
	// redrawn only when the width or the flash does.
	key := barKey{m.w, m.flash, m.flashE, m.zoom}
	if m.modal == nil && m.bar.text != "" && m.bar.key == key {
		return m.bar.text
	}
	m.help.SetWidth(m.w)
	keys := m.keys.ShortHelp()
	if m.zoom {
		for i, k := range keys {
			if k.Help() == m.keys.Zoom.Help() {
				keys[i] = helpOnly(k.Help().Key, "all panes")
			}
		}
	}
	if m.modal != nil {
		keys = m.modal.Help()
	}
	bar := m.help.ShortHelpView(keys)
	if m.flash != "" && m.modal == nil {
		bar = m.flash
		if m.flashE {
			bar = errorStyle.Render(bar)
		}
	}
	bar = chart.FitLine(bar, m.w)
	if m.modal == nil {
		m.bar.key, m.bar.text = key, bar
	}
	return bar
}

// barKey is what the bottom bar depends on.
type barKey struct {
	w      int
	flash  string
	flashE bool
	zoom   bool
}
