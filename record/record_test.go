package record

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	"github.com/thelab/lab/scene"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/catalog"
)

// sceneOf parses a scene written in the format and checks it.
func sceneOf(t *testing.T, text string) scene.Scene {
	t.Helper()
	sc, err := scene.Parse(strings.NewReader(text), "test.scene")
	if err != nil {
		t.Fatal(err)
	}
	if err := sc.Check(catalog.All(), false); err != nil {
		t.Fatal(err)
	}
	return sc
}

// record records sc and returns the cast and its last frame.
func record(t *testing.T, sc scene.Scene, o Options) ([]byte, string) {
	t.Helper()
	var b bytes.Buffer
	last, err := Record(&b, sc, catalog.All(), o)
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes(), last
}

// TestRecordPlays: a recording is an asciicast v2 file whose events,
// played on a terminal of its size, leave exactly the last frame on the
// screen, the cursor shown; the same scene recorded twice gives the same
// bytes. In colour and in monochrome, with the caption and without.
func TestRecordPlays(t *testing.T) {
	two := sceneOf(t, "name two\ntitle Two panes\nnotes 001\nchapter §8 Optimisation\ncaption gd and mh.\nfocus 2\n"+
		"pane gd --speed=100\npane mh --speed=30 --seed=7\n")
	for _, tt := range []struct {
		name    string
		sc      scene.Scene
		o       Options
		caption bool
	}{
		{"colour", two, Options{Seconds: 2, FPS: 4, Width: 80, Height: 24, Profile: colorprofile.TrueColor,
			Tour: []scene.Scene{two}, TourAt: 0, Title: "two"}, true},
		{"mono", two, Options{Seconds: 2, FPS: 3, Width: 60, Height: 20, Profile: colorprofile.Ascii, TourAt: -1}, false},
		{"256", sceneOf(t, "name one\npane kmeans --speed=5\n"), Options{Seconds: 2, FPS: 2, Width: 40, Height: 12,
			Profile: colorprofile.ANSI256}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b, last := record(t, tt.sc, tt.o)
			c := readCast(t, b)
			if c.header["width"] != float64(tt.o.Width) || c.header["height"] != float64(tt.o.Height) ||
				c.header["duration"] != float64(tt.o.Seconds) {
				t.Errorf("header %v", c.header)
			}
			if got, want := c.screen.Render(), screenOf(last, tt.o.Width, tt.o.Height).Render(); got != want {
				t.Errorf("the cast's last screen\n%s\nwant the last frame\n%s", got, want)
			}
			if !c.cursor {
				t.Error("the cursor stays hidden")
			}
			if n := len(strings.Split(last, "\n")); n != tt.o.Height {
				t.Errorf("the last frame has %d rows, want %d", n, tt.o.Height)
			}
			if c.times[0] != 0 || c.times[len(c.times)-1] != float64(tt.o.Seconds) {
				t.Errorf("events from %v to %v, want 0 to %d", c.times[0], c.times[len(c.times)-1], tt.o.Seconds)
			}
			text := ansi.Strip(last)
			if strings.Contains(text, "PAUSED") || strings.Contains(text, "paused") {
				t.Errorf("a pane reads as paused:\n%s", text)
			}
			if has := strings.Contains(text, "Two panes"); has != tt.caption {
				t.Errorf("caption shown %v, want %v:\n%s", has, tt.caption, text)
			}
			if tt.o.Profile == colorprofile.Ascii && strings.Contains(string(b), `[38;`) {
				t.Error("a monochrome recording has colours")
			}
			again, _ := record(t, tt.sc, tt.o)
			if !bytes.Equal(b, again) {
				t.Error("two recordings of the same scene differ")
			}
		})
	}
}

// TestClockSteps: at frame k each pane has made floor(rate·k/fps) steps
// (after a saved pane's own), max running at MaxRate, and reads as
// running at its speed; a converged pane stops.
func TestClockSteps(t *testing.T) {
	sc := sceneOf(t, "name steps\npane mh --speed=30\npane mh --speed=10 --steps=50\npane mh --speed=max\npane gd --speed=100\n")
	const fps = 4
	c, err := newClock(sc, catalog.All(), fps)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	for _, k := range []int{0, 1, 2, 5, 8} {
		snaps, err := c.frame(k)
		if err != nil {
			t.Fatal(err)
		}
		for i, want := range []int{30 * k / fps, 50 + 10*k/fps, MaxRate * k / fps} {
			s := snaps[i]
			if s.Frame.Step != want || s.State != sims.Running || s.StepsPerSec != c.tracks[i].rate {
				t.Errorf("frame %d, pane %d: step %d %s at %v/s, want step %d running at %v/s",
					k, i+1, s.Frame.Step, s.State, s.StepsPerSec, want, c.tracks[i].rate)
			}
		}
		if s := snaps[2]; s.Speed != sims.MaxSpeed {
			t.Errorf("max pane's speed %v", s.Speed)
		}
		switch gd := snaps[3]; {
		case k < 8 && (gd.State != sims.Running || gd.Frame.Step != 100*k/fps):
			t.Errorf("frame %d: gd %s at step %d, want running at %d", k, gd.State, gd.Frame.Step, 100*k/fps)
		case k == 8 && (gd.State != sims.Converged || gd.Frame.Step != 179):
			t.Errorf("frame %d: gd %s at step %d, want converged at 179 (lab run gd)", k, gd.State, gd.Frame.Step)
		}
		if live := c.tracks[0].r.Latest(); live.State != sims.Paused || live.StepsPerSec != 0 {
			t.Errorf("the runner itself reads %s at %v/s: only the copy drawn runs", live.State, live.StepsPerSec)
		}
	}
}

// TestRecordPastTheEnd: a pane whose sim converges stays on its result,
// and the cast has no event while nothing changes; a sim that replays
// (Spec.Replay) shows its result for Replay, says so, then runs its next
// seed, as a live pane does.
func TestRecordPastTheEnd(t *testing.T) {
	t.Run("converges", func(t *testing.T) {
		sc := sceneOf(t, "name end\npane gd --speed=100\n") // converges at step 179, 1.8 s
		b, last := record(t, sc, Options{Seconds: 3, FPS: 5, Width: 60, Height: 16, Profile: colorprofile.Ascii})
		c := readCast(t, b)
		text := ansi.Strip(last)
		if !strings.Contains(text, "CONVERGED") || !strings.Contains(text, "step 179 ") {
			t.Errorf("last frame:\n%s", text)
		}
		// Events up to convergence, then only the cursor's at the end.
		if n := len(c.times); n < 2 || c.times[n-2] > 2 || c.times[n-1] != 3 {
			t.Errorf("events at %v: want none between convergence (1.8 s) and the end", c.times)
		}
	})
	t.Run("replays", func(t *testing.T) {
		sc := sceneOf(t, "name again\npane kmeans --speed=10\n") // converges within a second
		if sims.ReplayPause != 10*1e9 || catalog.All().Lookup("kmeans").Replay != sims.ReplayPause {
			t.Fatal("kmeans no longer replays after 10 s: pick another sim or time")
		}
		clk, err := newClock(sc, catalog.All(), 1)
		if err != nil {
			t.Fatal(err)
		}
		defer clk.close()
		var seeds []uint64
		var states []string
		for k := 0; k <= 12; k++ {
			snaps, err := clk.frame(k)
			if err != nil {
				t.Fatal(err)
			}
			s := snaps[0]
			seeds = append(seeds, s.Seed)
			st := s.State.String()
			if s.Replaying {
				st += "+replay"
			}
			states = append(states, st)
		}
		// Converged at step c ≤ 10 (t = c/10 s ≤ 1 s): seed 2 from 10 + c/10 s.
		for k := range seeds {
			want := uint64(1)
			if k >= 11 {
				want = 2
			}
			if seeds[k] != want || (k >= 1 && k <= 10 && states[k] != "converged+replay") {
				t.Fatalf("seeds %v, states %v: want seed 1 converged and replaying from 1 s to 10 s, seed 2 from 11 s", seeds, states)
			}
		}
		b, last := record(t, sc, Options{Seconds: 12, FPS: 1, Width: 60, Height: 16, Profile: colorprofile.Ascii})
		readCast(t, b)
		if text := ansi.Strip(last); !strings.Contains(text, "seed 2") || !strings.Contains(text, "next seed soon") {
			t.Errorf("last frame:\n%s", text)
		}
	})
}

// TestRecordRefuses: options out of range and scenes that cannot run are
// errors, before anything is written.
func TestRecordRefuses(t *testing.T) {
	good := sceneOf(t, "name ok\npane gd\n")
	o := Options{Seconds: 1, FPS: 1, Width: 80, Height: 24}
	for _, tt := range []struct {
		name string
		sc   scene.Scene
		edit func(*Options)
		want string
	}{
		{"seconds", good, func(o *Options) { o.Seconds = MaxSeconds + 1 }, "from 1 to 600"},
		{"fps", good, func(o *Options) { o.FPS = 0 }, "from 1 to 30"},
		{"small", good, func(o *Options) { o.Width = 10 }, "from 26×9"},
		{"large", good, func(o *Options) { o.Height = math.MaxInt32 }, "to 400×200"},
		{"no pane", scene.Scene{Name: "none"}, nil, "no pane"},
		{"unknown sim", scene.Scene{Name: "x", Panes: []scene.Pane{{Sim: "nosuch"}}}, nil, `unknown sim "nosuch"`},
		{"data not read", scene.Scene{Name: "x", Panes: []scene.Pane{{Sim: "kmeans", Data: "p.csv"}}}, nil, "not read"},
		{"bad parameter", scene.Scene{Name: "x", Panes: []scene.Pane{{Sim: "gd", Set: []scene.Setting{{Name: "lr", Value: "-1"}}}}}, nil, "lr"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o := o
			if tt.edit != nil {
				tt.edit(&o)
			}
			var b bytes.Buffer
			_, err := Record(&b, tt.sc, catalog.All(), o)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one with %q", err, tt.want)
			}
			if b.Len() != 0 {
				t.Errorf("wrote %d bytes", b.Len())
			}
		})
	}
}
