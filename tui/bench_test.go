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
// key's Update never waits for a runner (not even for a step under way),
// so a key costs what drawing the screen costs. That cost scales with the
// machine, so it is compared with the same screen drawn without the key,
// measured in the same conditions: the key may add no more than a frame.
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
	// Medians, so that one descheduling of a loaded machine's thread does
	// not decide; and the worst key against the worst draw plus a frame.
	if mk, md := key[len(key)/2], draw[len(draw)/2]; mk > md+TickInterval {
		t.Errorf("median key-to-screen %v against %v for a draw alone", mk, md)
	}
	if wk, wd := key[len(key)-1], draw[len(draw)-1]; wk > wd+3*TickInterval {
		t.Errorf("worst key-to-screen %v against %v for a draw alone", wk, wd)
	}
	t.Logf("key-to-screen median %v, worst %v; draw alone median %v", key[len(key)/2], key[len(key)-1], draw[len(draw)/2])
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
