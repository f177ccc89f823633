package tui

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/catalog"
	"github.com/thelab/lab/sims/param"
)

// slowSim is a test sim: it counts its steps. Its spec's New blocks, for
// as long as a test likes, when its "gate" parameter names a channel the
// test holds; n = 13 is refused; its estimated size is n MB.
type slowSim struct{ n, size int }

func (s *slowSim) Step() error { s.n++; return nil }
func (s *slowSim) Frame() sims.Frame {
	return sims.Frame{Sim: "slow", Step: s.n, Metrics: []sims.Metric{{Name: "n", Value: float64(s.n)}},
		Text: []string{"a test sim whose builds wait for the test"}}
}
func (s *slowSim) Result() map[string]any { return map[string]any{"n": s.n} }

// slowSpec builds slow sims; New waits on gates[gate] and counts its builds
// for each gate.
func slowSpec(gates map[int]chan struct{}, built map[int]*atomic.Int64) *sims.Spec {
	return &sims.Spec{
		Name: "slow", Title: "a test sim with slow builds", Source: "test", Steps: 10, Speed: 10,
		Params: param.List(slowN, slowGate),
		New: func(c sims.Config) (sims.Sim, error) {
			gate := slowGate.Get(c.Values)
			if ch, ok := gates[gate]; ok {
				<-ch
			}
			if n, ok := built[gate]; ok {
				n.Add(1)
			}
			if slowN.Get(c.Values) == 13 {
				return nil, errors.New("n 13 is unlucky")
			}
			return &slowSim{size: slowN.Get(c.Values)}, nil
		},
		Size: func(c sims.Config) int64 { return int64(slowN.Get(c.Values)) << 20 },
	}
}

// The slow sim's parameters.
var (
	slowN    = param.Int("n", 1, "size in MB").Range(1, 1000)
	slowGate = param.Int("gate", 0, "the test's gate to wait on").Range(0, 100)
)

// withSpecs is the catalogue and the test's specs.
func withSpecs(t testing.TB, specs ...*sims.Spec) *sims.Catalog {
	t.Helper()
	c, err := sims.NewCatalog(append(catalog.All().Specs(), specs...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// next waits for the next message of a command started with post and
// delivers it.
func (l *lab) next() {
	l.t.Helper()
	select {
	case msg := <-l.msgs:
		l.out--
		l.deliver(msg)
	case <-time.After(deadline):
		l.t.Fatal("no message came")
	}
}

// waitSnap polls pane i's runner until cond holds, failing at the deadline.
func (l *lab) waitSnap(i int, what string, cond func(*sims.Snapshot) bool) {
	l.t.Helper()
	end := time.Now().Add(deadline)
	for !cond(l.m.panes[i].r.Latest()) {
		if time.Now().After(end) {
			l.t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// timeKey is how long the model takes to answer a key and show it: the
// key's Update, the next tick and the render.
func (l *lab) timeKey(name string) time.Duration {
	start := time.Now()
	l.post(press(l.t, name))
	l.m.Update(tickMsg{})
	l.m.Render()
	return time.Since(start)
}

// TestKeysAnsweredDuringASlowBuild: while a pane's new sim is being built
// (for as long as the test holds its gate), every key is answered at
// once: focus, zoom, help, the other pane's play and step, this pane's own
// keys; the pane shows "building…" over its last frame; a newer change
// supersedes the build, whose sim is never installed.
func TestKeysAnsweredDuringASlowBuild(t *testing.T) {
	gate := make(chan struct{})
	built := map[int]*atomic.Int64{0: {}, 7: {}}
	l := newLabWith(t, 140, 45, false, Options{Catalog: withSpecs(t, slowSpec(map[int]chan struct{}{7: gate}, built)),
		Sims: []string{"slow", "gd"}, Seed: 1, Paused: true})
	l.m.focus = 0
	// p, gate = 7, enter: the build waits at the gate.
	l.keys("p", "down", "backspace", "7")
	l.post(press(t, "enter"))
	l.next() // the editor's request; the build's command now waits
	l.waitSnap(0, "the slow pane to be building", func(s *sims.Snapshot) bool { return s.Building })
	if s := l.screen(); !strings.Contains(s, "building…") || !strings.Contains(s, "Parameters of slow") {
		t.Fatalf("the editor does not say it is building:\n%s", s)
	}
	l.post(press(t, "esc")) // the editor closes; the build goes on
	if l.m.modal != nil {
		t.Fatal("esc did not close the editor")
	}
	var answers []time.Duration
	for _, k := range []string{"tab", "s", "enter", "enter", "?", "j", "shift+tab", "s", "+", "-", "tab", "s", "s", "tab"} {
		start := time.Now()
		l.post(press(t, k))
		answers = append(answers, time.Since(start))
		l.m.Update(tickMsg{})
		l.m.Render()
	}
	if l.m.focus != 0 || l.m.zoom || l.m.modal != nil {
		t.Errorf("after the keys: focus %d, zoom %v, modal %v", l.m.focus, l.m.zoom, l.m.modal)
	}
	l.waitSnap(1, "gd to take its three steps", func(s *sims.Snapshot) bool { return s.Frame.Step == 3 })
	l.waitSnap(0, "the slow pane's old sim to take its step", func(s *sims.Snapshot) bool { return s.Frame.Step == 1 && s.Building })
	screen := l.screen()
	if !strings.Contains(screen, "building…") || !strings.Contains(screen, "a test sim whose builds wait") {
		t.Errorf("the slow pane does not show building… over its last frame:\n%s", screen)
	}
	// A newer change (n = 5, from the sim that runs: gate 0) supersedes the
	// build at the gate.
	for _, k := range []string{"p", "backspace", "5"} {
		l.post(press(t, k))
	}
	for l.out > 1 { // all but the first build's
		l.next()
	}
	l.post(press(t, "enter"))
	l.next() // the editor's request: the second build waits for the first
	if l.out != 2 {
		t.Fatalf("%d commands running, want the two builds'", l.out)
	}
	close(gate)
	l.settle()
	s := l.m.panes[0].snap
	if slowN.Get(s.Values) != 5 || slowGate.Get(s.Values) != 0 || s.Building || s.Frame.Step != 0 {
		t.Errorf("after the builds: %s, building %v, step %d", s.Values.Summary(false), s.Building, s.Frame.Step)
	}
	if built[7].Load() != 1 || built[0].Load() != 2 {
		t.Errorf("builds: gate 7 ×%d, gate 0 ×%d; want 1 and 2 (the first pane and n = 5)", built[7].Load(), built[0].Load())
	}
	if l.m.modal != nil || !strings.Contains(l.screen(), "restarted slow with new parameters") {
		t.Errorf("the editor did not close on the new sim:\n%s", l.screen())
	}
	// Every key was answered while the build was held at its gate, so none
	// waited for it. A key's Update only queues a command, so it takes
	// microseconds, race detector or not: the median must be far under a
	// frame (33 ms). Not the worst: a loaded machine may deschedule any one
	// sample for a hundred milliseconds. (Drawing the screen is
	// TestKeyAnsweredWithinAFrame's business.)
	slices.Sort(answers)
	if med := answers[len(answers)/2]; med > sims.FrameInterval/10 {
		t.Errorf("keys answered in %v (median) during a build", med)
	}
	t.Logf("keys answered during a build in %v (median), %v (worst)", answers[len(answers)/2], answers[len(answers)-1])
}

// TestFailedBuildShown: a value the sim refuses is shown in the editor and
// on the pane, and the pane keeps its sim.
func TestFailedBuildShown(t *testing.T) {
	l := newLabWith(t, 120, 40, false, Options{Catalog: withSpecs(t, slowSpec(nil, nil)), Sims: []string{"slow"}, Seed: 1, Paused: true})
	l.keys("s", "s", "p", "backspace", "1", "3", "enter")
	if s := l.screen(); l.m.modal == nil || !strings.Contains(s, "✗ n 13 is unlucky") {
		t.Fatalf("the editor does not show the refusal:\n%s", s)
	}
	l.keys("esc")
	s := l.screen()
	if !strings.Contains(s, "✗ n 13 is unlucky (the sim shown runs on)") || !strings.Contains(s, "step 2") {
		t.Errorf("the pane does not show the refusal over its sim:\n%s", s)
	}
	if v := l.m.panes[0].snap.Values; slowN.Get(v) != 1 {
		t.Errorf("values %s", v.Summary(false))
	}
	// The next good change clears it.
	l.keys("p", "backspace", "2", "enter")
	if s := l.screen(); strings.Contains(s, "unlucky") || slowN.Get(l.m.panes[0].snap.Values) != 2 {
		t.Errorf("after a good change:\n%s", s)
	}
}

// TestSessionStepCap: single steps pasted on two panes share the session's
// step cap: together they never take more than it allows.
func TestSessionStepCap(t *testing.T) {
	began := time.Now()
	l := newLabWith(t, 120, 40, false, Options{Catalog: catalog.All(), Sims: []string{"gd", "mh"}, Seed: 1, Paused: true, Budget: sims.NewBudget(sims.Limits{StepsPerSec: 30})})
	for _, k := range []string{"s", "tab"} {
		for range 300 {
			l.post(press(t, k))
		}
	}
	for range 300 {
		l.post(press(t, "s"))
	}
	end := time.Now().Add(deadline)
	for l.m.Budget().Usage().Steps < 15 && time.Now().Before(end) {
		time.Sleep(time.Millisecond)
	}
	steps, elapsed := l.m.Budget().Usage().Steps, time.Since(began)
	if most := int64(30*elapsed.Seconds()) + 1; steps > most || steps < 15 {
		t.Errorf("%d steps in %v under a session cap of 30/s (at most %d)", steps, elapsed, most)
	}
	l.keys("space", "tab", "space") // run both: the steps not taken are dropped
}

// TestRebuildsRateLimited: a burst of resets is cheap (each supersedes the
// one still waiting), and resets one after another come no faster than the
// session's rate.
func TestRebuildsRateLimited(t *testing.T) {
	began := time.Now()
	l := newLabWith(t, 120, 40, false, Options{Catalog: catalog.All(), Sims: []string{"gd"}, Seed: 1, Paused: true, Budget: sims.NewBudget(sims.Limits{RebuildsPerSec: 20})})
	for range 100 {
		l.post(press(t, "r"))
	}
	l.settle()
	if b, most := l.m.Budget().Usage().Builds, 1+sims.DefaultRebuildBurst+int(20*time.Since(began).Seconds())+1; b > most {
		t.Errorf("%d builds for a burst of 100 resets (at most %d)", b, most)
	}
	start := time.Now()
	for range 6 {
		l.keys("r")
	}
	// The bucket may have refilled its burst meanwhile: the other three
	// wait for the rate.
	if took := time.Since(start); took < (6-sims.DefaultRebuildBurst)*time.Second/20 {
		t.Errorf("six resets in a row took %v at 20/s", took)
	}
	if s := l.m.panes[0].snap; s.Building || s.Frame.Step != 0 {
		t.Errorf("after the resets: building %v, step %d", s.Building, s.Frame.Step)
	}
}

// TestMaxPanes: a full session's catalogue says why nothing can be added.
func TestMaxPanes(t *testing.T) {
	if _, err := New(Options{Catalog: catalog.All(), Sims: []string{"gd", "mh", "gd"}, MaxPanes: 2}); err == nil {
		t.Error("three sims opened with at most two panes")
	}
	l := newLabWith(t, 120, 40, false, Options{Catalog: catalog.All(), Sims: []string{"gd", "mh"}, Seed: 1, Paused: true, MaxPanes: 2})
	l.keys("a")
	if s := l.screen(); !strings.Contains(s, "the most it may have") {
		t.Fatalf("the full catalogue does not say why:\n%s", s)
	}
	l.keys("enter")
	if len(l.m.panes) != 2 {
		t.Errorf("%d panes", len(l.m.panes))
	}
	l.keys("esc", "x", "a", "enter")
	if len(l.m.panes) != 2 || l.m.modal != nil {
		t.Errorf("after closing one, adding one: %d panes", len(l.m.panes))
	}
}

// TestMemoryBudget: a parameter change whose sim would take the session
// over its memory budget is refused before anything is built, with the
// reason in the editor and on the pane, and the pane keeps its sim; a pane
// over budget is not added.
func TestMemoryBudget(t *testing.T) {
	l := newLabWith(t, 140, 45, false, Options{Catalog: catalog.All(), Sims: []string{"kernel-pca"}, Seed: 1, Paused: true, Budget: sims.NewBudget(sims.Limits{Memory: 16 << 20})})
	l.keys("p", "down", "backspace", "backspace", "backspace", "1", "5", "0", "0", "enter")
	if s := l.screen(); l.m.modal == nil || !strings.Contains(s, "of its 17 MB memory budget") {
		t.Fatalf("the editor does not show the refusal:\n%s", s)
	}
	l.keys("esc")
	if s := l.screen(); !strings.Contains(s, "memory budget") || l.m.panes[0].snap.Values.Text("n") != "200" {
		t.Errorf("the pane does not show the refusal over its sim:\n%s", s)
	}
	if u := l.m.Budget().Usage(); u.Builds != 1 {
		t.Errorf("%d builds: the refused one was built", u.Builds)
	}
	// A pane whose sim is over the budget is not added.
	l.keys("a", "/", "t", "i", "n", "y", "g", "p", "t", "enter", "enter")
	if n := len(l.m.panes); n != 1 || !strings.Contains(l.screen(), "could not add tinygpt") {
		t.Errorf("%d panes after adding tinygpt to a 16 MiB session:\n%s", n, l.screen())
	}
}

// TestKeyAnswerIsShownWithoutATick: the answer to space (pause) is drawn
// as soon as the runner has published it, not at the next tick (here, an
// hour away), by one waiter a pane however many keys come.
func TestKeyAnswerIsShownWithoutATick(t *testing.T) {
	m, err := New(Options{Catalog: catalog.All(), Sims: []string{"mh"}, Seed: 1, Cadence: sims.NewCadence(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	_, cmd := m.Update(tea.KeyPressMsg{Code: tea.KeySpace, Text: " "})
	if cmd == nil {
		t.Fatal("space returned no command to wait for its answer")
	}
	// A second key while the first's answer is awaited starts no second
	// waiter (a paste of keys starts no more goroutines than panes).
	if _, again := m.Update(tea.KeyPressMsg{Code: '+', Text: "+"}); again != nil {
		t.Error("a key while another's answer is awaited returned a command to wait for it")
	}
	msg := cmd() // waits for the runner's acknowledgement
	if _, ok := msg.(shownMsg); !ok {
		t.Fatalf("space's command returned %T, want shownMsg", msg)
	}
	m.Update(msg)
	if got := m.panes[0].snap.State; got != sims.Paused {
		t.Errorf("after the acknowledgement the pane shows %v, want paused", got)
	}
}

// TestNewGivesUpWithItsContext: a session whose first builds wait for its
// budget (deep in debt) stops waiting when its context ends (lab serve: the
// visitor left): New returns the context's error, having built nothing.
func TestNewGivesUpWithItsContext(t *testing.T) {
	built := map[int]*atomic.Int64{0: {}}
	budget := sims.NewBudget(sims.Limits{Cores: 0.001})
	budget.Charge(time.Second) // a thousand seconds of rest at a thousandth of a core
	ctx, cancel := context.WithCancel(context.Background())
	res := make(chan error, 1)
	go func() {
		m, err := New(Options{Catalog: withSpecs(t, slowSpec(nil, built)), Sims: []string{"slow"}, Budget: budget, Context: ctx})
		if m != nil {
			m.Close()
		}
		res <- err
	}()
	cancel()
	select {
	case err := <-res:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("New returned %v, want the context's error", err)
		}
	case <-time.After(deadline):
		t.Fatal("New kept waiting for the budget after its context ended")
	}
	if n := built[0].Load(); n != 0 {
		t.Errorf("%d sims built after the context ended", n)
	}
}
