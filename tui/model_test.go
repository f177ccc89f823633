package tui

import (
	"bytes"
	"fmt"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest/v2"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/catalog"
)

// press builds the key message whose String() is name.
func press(t testing.TB, name string) tea.KeyPressMsg {
	t.Helper()
	var k tea.KeyPressMsg
	switch name {
	case "tab":
		k = tea.KeyPressMsg{Code: tea.KeyTab}
	case "shift+tab":
		k = tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	case "enter":
		k = tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		k = tea.KeyPressMsg{Code: tea.KeyEscape}
	case "space":
		k = tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	case "backspace":
		k = tea.KeyPressMsg{Code: tea.KeyBackspace}
	case "up":
		k = tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		k = tea.KeyPressMsg{Code: tea.KeyDown}
	case "left":
		k = tea.KeyPressMsg{Code: tea.KeyLeft}
	case "right":
		k = tea.KeyPressMsg{Code: tea.KeyRight}
	case "ctrl+c":
		k = tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	default:
		r := []rune(name)
		if len(r) != 1 {
			t.Fatalf("press: no key %q", name)
		}
		k = tea.KeyPressMsg{Code: r[0], Text: name}
	}
	if k.String() != name {
		t.Fatalf("press(%q) builds %q", name, k.String())
	}
	return k
}

// lab is a model under test, driven by direct Update calls, with the
// commands it returns run as the program would run them.
type lab struct {
	t    testing.TB
	m    *Model
	msgs chan tea.Msg
	out  int // commands started whose messages have not come back
}

// deadline bounds every wait of these tests: far longer than anything
// takes on a loaded machine under the race detector, so reaching it means
// the awaited event will not come.
const deadline = 10 * time.Second

func newLab(t *testing.T, w, h int, mono bool, sims ...string) *lab {
	t.Helper()
	return newLabWith(t, w, h, mono, Options{Catalog: catalog.All(), Sims: sims, Seed: 1, Paused: true})
}

func newLabWith(t testing.TB, w, h int, mono bool, o Options) *lab {
	t.Helper()
	m, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	l := &lab{t: t, m: m, msgs: make(chan tea.Msg, 64)}
	l.send(tea.WindowSizeMsg{Width: w, Height: h})
	profile := colorprofile.TrueColor
	if mono {
		profile = colorprofile.Ascii
	}
	l.send(tea.ColorProfileMsg{Profile: profile})
	return l
}

// send delivers msg, then settles. It returns the command msg returned.
func (l *lab) send(msg tea.Msg) tea.Cmd {
	cmd := l.post(msg)
	l.settle()
	return cmd
}

// post delivers msg and starts the command it returns, without waiting.
func (l *lab) post(msg tea.Msg) tea.Cmd {
	_, cmd := l.m.Update(msg)
	l.start(cmd)
	return cmd
}

func (l *lab) start(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	l.out++
	go func() { l.msgs <- cmd() }()
}

// settle delivers the messages of every command started until none is left
// (the model starts no timers but the frame tick, which these tests send
// by hand), then waits for every runner to carry out the commands sent to
// it, and takes their snapshots: the screen is then what the keys sent so
// far produce.
func (l *lab) settle() {
	l.t.Helper()
	for l.out > 0 {
		select {
		case msg := <-l.msgs:
			l.out--
			l.deliver(msg)
		case <-time.After(deadline):
			l.t.Fatalf("%d commands still running after %v", l.out, deadline)
		}
	}
	for _, p := range l.m.panes {
		select {
		case <-p.r.Sync():
		case <-time.After(deadline):
			l.t.Fatalf("%s: runner busy for %v", p.snap.Spec.Name, deadline)
		}
	}
	l.m.refresh()
}

func (l *lab) deliver(msg tea.Msg) {
	switch msg := msg.(type) {
	case nil, tea.QuitMsg:
	case tea.BatchMsg:
		for _, c := range msg {
			l.start(c)
		}
	default:
		l.post(msg)
	}
}

func (l *lab) keys(names ...string) {
	for _, n := range names {
		l.send(press(l.t, n))
	}
}

// screen is the rendered screen without escape codes, at the next tick.
func (l *lab) screen() string {
	l.m.Update(tickMsg{})
	return ansi.Strip(l.m.Render())
}

func (l *lab) snap(i int) *sims.Snapshot { return l.m.panes[i].r.Latest() }

// TestGoldenScreens pins the default dashboard, stepped a few times, at
// fixed sizes, in colour and in monochrome (NO_COLOR). Run with -update to
// rewrite the files under testdata/ after an intended change.
func TestGoldenScreens(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}, {200, 50}} {
		for _, mono := range []bool{false, true} {
			name := fmt.Sprintf("%dx%d", size[0], size[1])
			if mono {
				name += "-mono"
			}
			t.Run(name, func(t *testing.T) {
				l := newLab(t, size[0], size[1], mono)
				for i := range l.m.panes {
					for range 6 {
						l.m.panes[i].r.Step(1)
					}
				}
				l.settle()
				screen := l.m.Render()
				checkScreen(t, screen, size[0], size[1])
				golden.RequireEqual(t, screen)
			})
		}
	}
}

// checkScreen asserts that every line has exactly the screen's width.
func checkScreen(t *testing.T, screen string, w, h int) {
	t.Helper()
	lines := strings.Split(screen, "\n")
	if len(lines) != h {
		t.Fatalf("%d lines, want %d", len(lines), h)
	}
	for i, line := range lines {
		if got := ansi.StringWidth(line); got != w {
			t.Errorf("line %d has width %d, want %d: %q", i, got, w, ansi.Strip(line))
		}
	}
}

// TestSixteenColours: a 16-colour terminal (an ssh client with TERM=xterm,
// say) gets its fields drawn plainly, as in mono, and keeps every other
// colour; a later TrueColor profile brings the shaded fields back.
func TestSixteenColours(t *testing.T) {
	bg := regexp.MustCompile(`\x1b\[[0-9;]*48;2;`)
	l := newLab(t, 120, 40, false, "gd", "mh")
	l.send(tea.ColorProfileMsg{Profile: colorprofile.ANSI})
	screen := l.m.Render()
	if strings.Contains(ansi.Strip(screen), "▀") || bg.MatchString(screen) {
		t.Errorf("16 colours: fields drawn as coloured half blocks:\n%s", ansi.Strip(screen))
	}
	if !strings.Contains(screen, "38;2;") || !strings.Contains(ansi.Strip(screen), "paused") {
		t.Error("16 colours lost the colours, or went monochrome")
	}
	checkScreen(t, screen, 120, 40)
	l.send(tea.ColorProfileMsg{Profile: colorprofile.TrueColor})
	if !strings.Contains(ansi.Strip(l.m.Render()), "▀") {
		t.Error("back in true colour, the fields are not shaded")
	}
}

// TestEveryScreenSizeFits resizes through many sizes, small to large, with
// every sim of the catalogue open, zoomed and not: no line may overflow.
func TestEveryScreenSizeFits(t *testing.T) {
	t.Parallel() // beside the walks, which draw the same sims' snapshots
	// The sims the walk built, opened as they are: building the whole
	// catalogue again for this lab would double the walk's cost. Their
	// specs differ from the catalogue's in nothing but building.
	shared, err := walkedSims()
	if err != nil {
		t.Fatal(err)
	}
	var specs []*sims.Spec
	for _, sh := range shared {
		spec, sim := *sh.Snap.Spec, sh.Sim
		spec.New = func(sims.Config) (sims.Sim, error) { return sim, nil }
		specs = append(specs, &spec)
	}
	c, err := sims.NewCatalog(specs...)
	if err != nil {
		t.Fatal(err)
	}
	l := newLabWith(t, 80, 24, false, Options{Catalog: c, Sims: c.Names(), Seed: 1, Paused: true})
	for _, w := range []int{1, 10, 25, 47, 80, 133, 211} {
		for _, h := range []int{1, 3, 7, 19, 24, 41, 60} {
			for _, zoom := range []bool{false, true} {
				l.m.zoom = zoom
				l.send(tea.WindowSizeMsg{Width: w, Height: h})
				checkScreen(t, l.m.Render(), w, h)
			}
		}
	}
}

func TestFocusKeysAndMouse(t *testing.T) {
	l := newLab(t, 120, 40, false) // gd and em-gmm on top, mh below
	want := func(what string, i int) {
		t.Helper()
		if l.m.focus != i {
			t.Errorf("%s: focus %d, want %d", what, l.m.focus, i)
		}
	}
	want("start", 0)
	l.keys("tab")
	want("tab", 1)
	l.keys("tab", "tab")
	want("tab wraps", 0)
	l.keys("shift+tab")
	want("shift+tab wraps", 2)
	l.keys("up")
	if l.m.focus == 2 {
		t.Error("up from the bottom pane stayed put")
	}
	l.m.focus = 0
	l.keys("right")
	want("right", 1)
	l.keys("down")
	want("down", 2)
	l.keys("left") // nothing left of a full-width pane
	want("left at the edge", 2)
	// A click focuses the pane under it.
	l.send(tea.MouseClickMsg{X: 100, Y: 5, Button: tea.MouseLeft})
	want("click top right", 1)
	l.send(tea.MouseClickMsg{X: 10, Y: 30, Button: tea.MouseLeft})
	want("click bottom", 2)
}

func TestRunnerKeys(t *testing.T) {
	l := newLab(t, 120, 40, false, "gd")
	if l.snap(0).State != sims.Paused {
		t.Fatal("not paused")
	}
	l.keys("s", "s", ".")
	if s := l.snap(0); s.Frame.Step != 3 {
		t.Errorf("three single steps: step %d", s.Frame.Step)
	}
	l.keys("space")
	if s := l.snap(0); s.State != sims.Running {
		t.Errorf("space: %s", s.State)
	}
	l.keys("space")
	if s := l.snap(0); s.State != sims.Paused {
		t.Errorf("space again: %s", s.State)
	}
	speed := l.snap(0).Speed
	l.keys("+")
	if s := l.snap(0).Speed; s <= speed && s != sims.MaxSpeed {
		t.Errorf("+: speed %v → %v", speed, s)
	}
	l.keys("-", "-")
	if s := l.snap(0).Speed; s >= speed {
		t.Errorf("-: speed %v → %v", speed, s)
	}
	l.keys("r")
	if s := l.snap(0); s.Frame.Step != 0 {
		t.Errorf("reset: step %d", s.Frame.Step)
	}
	seed := l.snap(0).Seed
	l.keys("R")
	if l.snap(0).Seed == seed {
		t.Error("R kept the seed")
	}
	l.keys("enter")
	if !l.m.zoom || !strings.Contains(l.screen(), "gd") {
		t.Error("enter did not zoom")
	}
	l.keys("enter")
	if l.m.zoom {
		t.Error("enter did not unzoom")
	}
}

func TestCloseAndAddPanes(t *testing.T) {
	l := newLab(t, 120, 40, false)
	l.keys("x")
	if len(l.m.panes) != 2 || l.snap(0).Spec.Name != "em-gmm" {
		t.Fatalf("after x: %d panes", len(l.m.panes))
	}
	l.keys("x", "x")
	if !strings.Contains(l.screen(), "No panes. Press a to add a sim") {
		t.Error("empty dashboard has no hint")
	}
	// The catalogue: filter for "metropolis", add it.
	l.keys("a")
	if !strings.Contains(l.screen(), "Add a sim") {
		t.Fatal("a did not open the catalogue")
	}
	l.keys("/")
	for _, r := range "metropolis" {
		l.keys(string(r))
	}
	l.keys("enter", "enter")
	if len(l.m.panes) != 1 || l.snap(0).Spec.Name != "mh" {
		t.Fatalf("catalogue added %d panes", len(l.m.panes))
	}
	// esc closes the catalogue without adding.
	l.keys("a", "esc")
	if l.m.modal != nil || len(l.m.panes) != 1 {
		t.Error("esc did not close the catalogue cleanly")
	}
}

func TestParameterEditor(t *testing.T) {
	l := newLab(t, 140, 45, false, "gd")
	l.keys("p")
	screen := l.screen()
	for _, want := range []string{"Parameters of gd", "lr", "(0, 10]", "kappa", "[1, 1000]"} {
		if !strings.Contains(screen, want) {
			t.Errorf("editor lacks %q", want)
		}
	}
	// Move to kappa and type a value out of range.
	l.keys("down")
	for range 4 {
		l.keys("backspace")
	}
	l.keys("0")
	l.keys("enter")
	screen = l.screen()
	if l.m.modal == nil || !strings.Contains(screen, "parameter kappa") || !strings.Contains(screen, "[1, 1000]") {
		t.Fatalf("bad kappa was not refused in place:\n%s", screen)
	}
	if l.snap(0).Values.Text("kappa") != "10" {
		t.Error("the refused value reached the sim")
	}
	// Fix it: kappa = 20 restarts the sim, and lr (a default) follows: 1/L.
	l.keys("backspace", "2", "0", "enter")
	if l.m.modal != nil {
		t.Fatalf("valid values kept the editor open:\n%s", l.screen())
	}
	v := l.snap(0).Values
	if v.Text("kappa") != "20" || v.Text("lr") != "0.05" {
		t.Errorf("after apply: %s", v.Summary(false))
	}
	// esc cancels without change.
	l.keys("p", "down", "9", "esc")
	if l.m.modal != nil || l.snap(0).Values.Text("kappa") != "20" {
		t.Error("esc changed something")
	}
}

func TestHelpAndQuit(t *testing.T) {
	l := newLab(t, 120, 40, false, "gd")
	l.keys("?")
	screen := l.screen()
	for _, want := range []string{"Keys", "play/pause", "next seed", "zoom", "close pane", "quit", "ctrl+c", "s/.", "/ ", "filter"} {
		if !strings.Contains(screen, want) {
			t.Errorf("help lacks %q", want)
		}
	}
	l.keys("j") // any key closes help
	if l.m.modal != nil {
		t.Error("help stayed open")
	}
	cmd := l.send(press(t, "q"))
	if cmd == nil {
		t.Fatal("q returned no command")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Error("q did not quit")
	}
	if !l.m.closed {
		t.Error("quit left the runners running")
	}
}

// TestProgramRunsAndQuits drives the real Bubble Tea program (teatest): the
// default dashboard comes up running, reacts to a key, quits on q, and no
// runner goroutine survives it. NO_COLOR (the Ascii profile) must leave no
// colour in the output.
func TestProgramRunsAndQuits(t *testing.T) {
	before := runtime.NumGoroutine()
	m, err := New(Options{Catalog: catalog.All(), Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 40),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.Ascii)))
	out := &bytes.Buffer{}
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		out.Write(b)
		s := out.String()
		return strings.Contains(s, "gd") && strings.Contains(s, "em-gmm") && strings.Contains(s, "mh") &&
			strings.Contains(s, "RUNNING")
	}, teatest.WithDuration(5*time.Second))
	tm.Send(press(t, "?"))
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		out.Write(b)
		return strings.Contains(out.String(), "all keys") || strings.Contains(out.String(), "reseed")
	}, teatest.WithDuration(5*time.Second))
	tm.Send(press(t, "q"))
	tm.Send(press(t, "q"))
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
	if m := regexp.MustCompile(`\x1b\[[0-9;]*[34]8;[0-9;]*m`).Find(out.Bytes()); m != nil {
		t.Errorf("colour escape code %q under the Ascii profile", m)
	}
	m.Close()
	deadline := time.Now().Add(3 * time.Second)
	for runtime.NumGoroutine() > before+2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before+2 {
		t.Errorf("goroutines: %d before, %d after quitting", before, n)
	}
}
