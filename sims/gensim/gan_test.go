package gensim

import (
	"strings"
	"testing"

	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/simtest"
)

// TestGANPanes: the 2-D ring (coverage meter over 8 modes), the 1-D
// two-mode GAN and a GAN on --data all train with finite losses; D(x)
// stays a probability; --data with too few columns is refused.
func TestGANPanes(t *testing.T) {
	ring := simtest.Build(t, GAN, nil, 1, nil)
	simtest.Run(t, ring, 25)
	oneD := simtest.Build(t, GAN, map[string]string{"dim": "1", "target": "twomodes"}, 1, nil)
	simtest.Run(t, oneD, 25)
	simultaneous := simtest.Build(t, GAN, map[string]string{"update": "simultaneous", "loss": "lsq"}, 1, nil)
	simtest.Run(t, simultaneous, 30)
	for _, c := range []struct {
		name string
		s    sims.Sim
	}{{"ring", ring}, {"1-D", oneD}, {"simultaneous, lsq", simultaneous}} {
		f := c.s.Frame()
		if !simtest.FiniteMetrics(t, f) {
			t.Fatalf("%s: metrics not finite", c.name)
		}
		if c.s == ring {
			if m := simtest.Metric(t, f, "modes"); m < 0 || m > 8 {
				t.Errorf("modes covered %g", m)
			}
		}
	}
	data := &sims.Table{Name: "pts.csv", Columns: []string{"x", "y"}}
	for i := range 50 {
		data.Rows = append(data.Rows, []float64{float64(i % 7), float64(i % 3)})
	}
	s := simtest.Build(t, GAN, nil, 1, data)
	simtest.Run(t, s, 20)
	one := &sims.Table{Name: "one.csv", Columns: []string{"x"}, Rows: [][]float64{{1}, {2}, {3}}}
	if _, err := simtest.BuildErr(GAN, nil, 1, one); err == nil || !strings.Contains(err.Error(), "2 numeric columns") {
		t.Errorf("one column for dim 2: %v", err)
	}
}

// TestGANAsGANLab: GAN Lab's picture and stepping. With stepping = phase
// a step is one network's move — k D-steps, then the G-step that ends the
// round — and the note says which comes next; a round moves the same as
// with stepping = round. The plane carries an arrow head at the tip of
// each gradient, pointing its way, the image of the latent grid (2 × 5
// lines of the latent plane), and the generated points as glyphs.
func TestGANAsGANLab(t *testing.T) {
	round := simtest.Build(t, GAN, map[string]string{"k": "2"}, 1, nil)
	phase := simtest.Build(t, GAN, map[string]string{"k": "2", "stepping": "phase"}, 1, nil)
	// No loss before its network's first step (issue 28.1: both read 0).
	for _, name := range []string{"L_D", "L_G"} {
		if m := metric(phase.Frame(), name); m.Undefined == "" {
			t.Errorf("%s at step 0: %+v", name, m)
		}
	}
	for i, next := range []string{"next: D-step 2 of 2", "next: the G-step", "next: D-step 1 of 2"} {
		simtest.Run(t, phase, 1)
		f := phase.Frame()
		if f.Step != i+1 || !strings.Contains(simtest.Text(f), next) {
			t.Errorf("move %d: step %d, notes %q, want %q", i+1, f.Step, simtest.Text(f), next)
		}
		if ld, lg := metric(f, "L_D"), metric(f, "L_G"); ld.Undefined != "" || (lg.Undefined == "") != (i == 2) {
			t.Errorf("move %d: L_D %+v, L_G %+v", i+1, ld, lg)
		}
	}
	// A row of the losses' chart is a round, and its axis says so when a
	// step is a move.
	for s, want := range map[sims.Sim]string{phase: "round", round: "step"} {
		for _, c := range s.Frame().Charts {
			if lc, ok := c.(sims.LineChart); ok && strings.HasPrefix(lc.Title, "losses") && lc.XLabel != want {
				t.Errorf("losses against %q, want %q", lc.XLabel, want)
			}
		}
	}
	simtest.Run(t, round, 1)
	if a, b := simtest.Metric(t, round.Frame(), "L_G"), simtest.Metric(t, phase.Frame(), "L_G"); a != b {
		t.Errorf("a round's L_G: %v stepped whole, %v a move at a time", a, b)
	}
	if _, err := simtest.BuildErr(GAN, map[string]string{"stepping": "phase", "update": "simultaneous"}, 1, nil); err == nil ||
		!strings.Contains(err.Error(), "update = alternating") {
		t.Errorf("phase with simultaneous updates: %v", err)
	}
	c := round.Frame().Charts[0].(sims.CanvasChart)
	grid, arrows := 0, 0
	for _, p := range c.Paths {
		if p.Dotted {
			grid++
		} else {
			arrows++
		}
	}
	if grid != 10 || len(c.Markers) == 0 || len(c.Markers) > arrows {
		t.Errorf("%d latent-grid lines (want 10), %d arrow heads for %d arrows", grid, len(c.Markers), arrows)
	}
	for _, m := range c.Markers {
		for _, p := range c.Paths {
			if !p.Dotted && p.X[1] == m.X && p.Y[1] == m.Y && m.Glyph != arrowHead(p.X[1]-p.X[0], p.Y[1]-p.Y[0]) {
				t.Errorf("head %c at the tip of an arrow (%g, %g)", m.Glyph, p.X[1]-p.X[0], p.Y[1]-p.Y[0])
			}
		}
	}
	if !c.Points[1].Glyph || c.Points[0].Glyph {
		t.Error("generated points are not told apart from real ones by glyph")
	}
	for _, tt := range []struct {
		dx, dy float64
		want   rune
	}{{1, 0, '→'}, {1, 1, '↗'}, {0, 2, '↑'}, {-1, 0.1, '←'}, {-1, -1, '↙'}, {0.1, -3, '↓'}, {2, -1.9, '↘'}} {
		if got := arrowHead(tt.dx, tt.dy); got != tt.want {
			t.Errorf("arrowHead(%g, %g) = %c, want %c", tt.dx, tt.dy, got, tt.want)
		}
	}
}
