package tui

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/catalog"
)

// paneBudget is how long a pane may take to draw here: far above the
// milliseconds it takes, so that a drawing loop that depends on the data
// for its end fails the test rather than hangs it.
const paneBudget = 10 * time.Second

// TestBadDataDrawsAndEnds replays the runs of issue 25 as `lab run`
// drives them (a paused runner stepped in one chunk) and draws their
// last pane at a dashboard's size and larger, in monochrome and colour,
// each within paneBudget: a diverged Langevin chain, whose trace spanned
// ±1e305 (the y axis's tick loop never ended); Metropolis–Hastings with a
// step of 5e-324 and noiseless Langevin, whose traces span denormals
// (asciigraph indexed row MinInt64); and a geodesic between laws at
// ±1e308, whose histograms' range is infinite (their ticks took all
// memory). A run that diverges says so on its pane's edge and in its
// notes. A sim that comes to refuse one of these inputs has nothing to
// draw: its case is skipped.
func TestBadDataDrawsAndEnds(t *testing.T) {
	for _, tt := range []struct {
		name     string
		sim      string
		set      map[string]string
		data     string // CSV for --data, or ""
		steps    int
		diverges bool // must end Diverged
	}{
		{"langevin step=10", "langevin", map[string]string{"step": "10"}, "", 1000, true},
		{"mh step=5e-324", "mh", map[string]string{"step": "5e-324"}, "", 20000, false},
		{"langevin noise=off", "langevin", map[string]string{"noise": "off"}, "", 5000, false},
		{"ot-geodesic at ±1e308", "ot-geodesic", nil, "x,side\n-1e308,source\n1e308,source\n-1e308,target\n1e308,target\n", 100, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			spec := catalog.All().Lookup(tt.sim)
			vals, err := sims.Resolve(spec.Params, tt.set)
			if err != nil {
				t.Skipf("refused: %v", err)
			}
			cfg := sims.Config{Values: vals, Seed: 1, Headless: true}
			if tt.data != "" {
				if cfg.Data, err = sims.ReadCSV(strings.NewReader(tt.data), spec.DataText...); err != nil {
					t.Skipf("refused: %v", err)
				}
			}
			r, err := sims.NewRunner(spec, cfg, sims.RunnerOptions{Paused: true, Cadence: sims.NewCadence(math.MaxInt64)})
			if err != nil {
				t.Skipf("refused: %v", err)
			}
			defer r.Close()
			<-r.Step(tt.steps)
			snap := r.Latest()
			if tt.diverges && snap.State != sims.Diverged {
				t.Errorf("state %v after %d steps, want diverged", snap.State, tt.steps)
			}
			for _, size := range [][2]int{{MinPaneWidth, MinPaneHeight}, {80, 24}, {100, 30}, {220, 60}} {
				for _, mono := range []bool{true, false} {
					lines := paneWithin(t, snap, size[0], size[1], mono)
					screen := strings.Join(lines, "\n")
					if snap.State == sims.Diverged && mono && size[0] >= 100 &&
						(!strings.Contains(lines[0], "DIVERGED") || !strings.Contains(screen, "diverged at step")) {
						t.Errorf("%dx%d: a diverged run not said on its edge and in its notes:\n%s", size[0], size[1], screen)
					}
				}
			}
		})
	}
}

// paneWithin draws snap's pane, failing t unless that takes less than
// paneBudget and gives exactly h lines of width w; it returns them
// stripped of colour.
func paneWithin(t *testing.T, snap *sims.Snapshot, w, h int, mono bool) []string {
	t.Helper()
	done := make(chan string, 1)
	go func() { done <- RenderPane(snap, w, h, PaneStyle{Focused: true, Mono: mono}) }()
	var screen string
	select {
	case screen = <-done:
	case <-time.After(paneBudget):
		t.Fatalf("%dx%d mono=%v: not drawn within %v", w, h, mono, paneBudget)
	}
	lines := strings.Split(ansi.Strip(screen), "\n")
	if len(lines) != h {
		t.Fatalf("%dx%d mono=%v: %d lines", w, h, mono, len(lines))
	}
	for i, l := range lines {
		if got := ansi.StringWidth(l); got != w {
			t.Fatalf("%dx%d mono=%v: line %d is %d wide: %q", w, h, mono, i, got, l)
		}
	}
	return lines
}

// FuzzRenderPane draws a whole pane (metrics row, a chart of each kind
// that takes numbers, notes, a diverged state) from four arbitrary
// numbers at an arbitrary size (1 to 256 cells each way): no panic,
// within paneBudget, exactly h lines of width w.
func FuzzRenderPane(f *testing.F) {
	nan, inf := math.NaN(), math.Inf(1)
	for _, v := range [][4]float64{
		{nan, inf, -inf, 0}, {-1e308, 1e308, 5e-324, -5e-324}, {math.MaxFloat64, -math.MaxFloat64, 1, 1},
		{1, 1 + 1e-15, 1e-310, math.Copysign(0, -1)}, {0, 1, 2, 3},
	} {
		f.Add(v[0], v[1], v[2], v[3], uint8(100-1), uint8(30-1), true)
		f.Add(v[0], v[1], v[2], v[3], uint8(MinPaneWidth-1), uint8(MinPaneHeight-1), false)
	}
	f.Fuzz(func(t *testing.T, a, b, c, d float64, w, h uint8, mono bool) {
		y := []float64{a, b, c, d, a, c}
		snap := &sims.Snapshot{
			Spec:  &sims.Spec{Name: "fuzz"},
			State: sims.Diverged, Err: errors.New("metric a = " + strconv.FormatFloat(a, 'g', -1, 64)),
			Frame: sims.Frame{Step: 6,
				Metrics: []sims.Metric{{Name: "a", Value: a}, {Name: "b", Value: b}, {Name: "c", Value: c, Untrusted: true}},
				Charts: []sims.Chart{
					sims.LineChart{Title: "y", Series: []sims.Series{{Name: "y", Y: y}}, X0: c, X1: d},
					sims.LineChart{Title: "log y", LogY: true, Series: []sims.Series{{Name: "y", Y: y}}},
					sims.HistChart{Title: "h", Lo: a, Hi: b, Density: y, Curves: []sims.Curve{{Name: "p", X: y, Y: y}}},
					sims.CanvasChart{Title: "c", View: sims.Rect{XMin: a, XMax: b, YMin: c, YMax: d},
						Points: []sims.PointSet{{X: y, Y: y}}, Paths: []sims.Path{{X: y, Y: y[1:]}}},
					sims.BarChart{Title: "b", Bars: []sims.Bar{{Label: "a", Value: a}, {Label: "b", Value: b}}, Max: c},
				},
				Text: []string{"a = " + strconv.FormatFloat(a, 'g', -1, 64)}},
		}
		paneWithin(t, snap, 1+int(w), 1+int(h), mono)
	})
}
