package tui

import (
	"slices"
	"testing"
	"time"

	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/catalog"
)

// fourPanes is a 200×50 dashboard of four panes, each stepped 500 times.
func fourPanes(b testing.TB, mono bool) *lab {
	l := newLabWith(b, 200, 50, mono, Options{Catalog: catalog.All(), Sims: []string{"gd", "em-gmm", "mh", "gd"}, Seed: 1, Paused: true})
	for _, p := range l.m.panes {
		p.r.Step(500)
	}
	l.settle()
	return l
}

// BenchmarkRenderFullScreen draws a 200×50 screen of four panes from
// scratch (no cached pane) each time: the cost of a frame in which every
// pane changed.
func BenchmarkRenderFullScreen(b *testing.B) {
	for _, mono := range []bool{false, true} {
		name := "colour"
		if mono {
			name = "mono"
		}
		b.Run(name, func(b *testing.B) {
			defer algotest.CPUTime(b)()
			l := fourPanes(b, mono)
			b.ReportAllocs()
			for b.Loop() {
				for _, p := range l.m.panes {
					p.cache = nil
				}
				_ = l.m.Render()
			}
		})
	}
}

// BenchmarkRenderSteadyState redraws the same 200×50 screen of four panes
// at each tick while nothing has changed: the panes' cached blocks are
// assembled into the Model's reused buffer (issue 14.8: such a frame
// should allocate almost nothing).
func BenchmarkRenderSteadyState(b *testing.B) {
	defer algotest.CPUTime(b)()
	l := fourPanes(b, false)
	b.ReportAllocs()
	for b.Loop() {
		l.m.Update(tickMsg{})
		_ = l.m.Render()
	}
}

// BenchmarkKeyWhileRunningFlatOut measures how long the model takes to
// answer a key (pause/resume of the focused pane) and draw the screen
// while all four panes run as fast as they go. The target is well under
// one frame (33 ms).
func BenchmarkKeyWhileRunningFlatOut(b *testing.B) {
	l := flatOut(b)
	var worst time.Duration
	for b.Loop() {
		worst = max(worst, l.timeKey("space"))
	}
	b.ReportMetric(float64(worst.Microseconds()), "worst-µs")
}

// flatOut is fourPanes with every pane running as fast as it goes.
func flatOut(t testing.TB) *lab {
	l := fourPanes(t, false)
	for _, p := range l.m.panes {
		p.r.SetSpeed(sims.MaxSpeed)
		p.r.Play()
	}
	l.settle()
	return l
}

// TestKeyAnsweredWithinAFrame is the test form of the benchmark above: a
// key costs what drawing the screen costs. That cost scales with the
// machine, so it is compared with the same screen drawn without the key,
// measured in the same conditions: the median key may add no more than a
// frame. Medians, because one descheduling of a loaded machine's thread
// can cost a single sample a hundred milliseconds or more (measured at a
// load average of 17 on 2 cores under -race); that a key never waits for a
// runner, whatever the load, is TestKeyAnsweredDuringAStalledStep's
// business, by events rather than by clocks.
func TestKeyAnsweredWithinAFrame(t *testing.T) {
	if testing.Short() {
		t.Skip("timing test")
	}
	l := flatOut(t)
	var key, draw []time.Duration
	for i := range 60 {
		if i%2 == 0 {
			key = append(key, l.timeKey("space"))
			continue
		}
		start := time.Now()
		l.m.Update(tickMsg{})
		l.m.Render()
		draw = append(draw, time.Since(start))
	}
	slices.Sort(key)
	slices.Sort(draw)
	if mk, md := key[len(key)/2], draw[len(draw)/2]; mk > md+sims.FrameInterval {
		t.Errorf("median key-to-screen %v against %v for a draw alone", mk, md)
	}
	t.Logf("key-to-screen median %v, worst %v; draw alone median %v", key[len(key)/2], key[len(key)-1], draw[len(draw)/2])
}

// stallSim is a test sim whose second step waits for the test: it says so
// on entered, then blocks until gate is closed.
type stallSim struct {
	n       int
	entered chan<- struct{}
	gate    <-chan struct{}
}

func (s *stallSim) Step() error {
	if s.n++; s.n == 2 {
		select {
		case s.entered <- struct{}{}:
		default: // a rebuilt sim's: the test waits for the first only
		}
		<-s.gate
	}
	return nil
}
func (s *stallSim) Frame() sims.Frame {
	return sims.Frame{Sim: "stall", Step: s.n, Text: []string{"a test sim whose second step waits for the test"}}
}
func (s *stallSim) Result() map[string]any { return nil }

// TestKeyAnsweredDuringAStalledStep: while a pane's step is under way (held
// by the test for as long as it likes), every key is answered and the
// screen drawn — the pane's own pause, step, speed and reset, focus, zoom,
// help, reset — so no key ever waits for a runner. Each key must be answered
// before the step is let go: a key that waited would wait for ever, and
// fail at the deadline.
func TestKeyAnsweredDuringAStalledStep(t *testing.T) {
	entered, gate := make(chan struct{}, 1), make(chan struct{})
	spec := &sims.Spec{Name: "stall", Title: "a test sim whose step stalls", Source: "test", Steps: 10, Speed: 100,
		Size: func(sims.Config) int64 { return 0 },
		New:  func(sims.Config) (sims.Sim, error) { return &stallSim{entered: entered, gate: gate}, nil }}
	l := newLabWith(t, 140, 45, false, Options{Catalog: withSpecs(t, spec), Sims: []string{"stall", "gd"}, Seed: 1, Paused: true})
	t.Cleanup(func() { close(gate) }) // before the model closes its runners
	l.m.focus = 0
	l.m.panes[0].r.Play()
	select {
	case <-entered:
	case <-time.After(deadline):
		t.Fatal("the stalling step never began")
	}
	for _, k := range []string{"space", "s", "+", "-", "space", "tab", "s", "shift+tab", "z", "z", "?", "esc", "r"} {
		done := make(chan struct{})
		go func() {
			defer close(done)
			l.post(press(t, k))
			l.m.Update(tickMsg{})
			l.m.Render()
		}()
		select {
		case <-done:
		case <-time.After(deadline):
			t.Fatalf("key %q waited for the stalled step", k)
		}
	}
}

// BenchmarkRenderPane draws one 100×25 pane of a sim stepped 300 times,
// from its snapshot: the cost of a frame of that pane.
func BenchmarkRenderPane(b *testing.B) {
	for _, name := range []string{"em-gmm", "svm", "gd", "mh"} {
		b.Run(name, func(b *testing.B) {
			defer algotest.CPUTime(b)()
			r, err := sims.NewRunner(catalog.All().Lookup(name), sims.Config{Seed: 1}, sims.RunnerOptions{Paused: true})
			if err != nil {
				b.Fatal(err)
			}
			defer r.Close()
			<-r.Step(300)
			snap := r.Latest()
			b.ReportAllocs()
			for b.Loop() {
				_ = RenderPane(snap, 100, 25, PaneStyle{})
			}
		})
	}
}
