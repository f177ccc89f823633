package serve

import (
	"testing"
	"time"

	"github.com/thelab/lab/sims"
)

// TestGovernorSlowsChartsWhileBusy: the governor's control law on a made-up
// process whose CPU use is a fixed part (keys, stepping) plus drawing that
// scales with the frame rate: while that use is over busyShare the
// cadence stretches until it is not, never past minFPS, and it returns to
// the full rate once the load is gone.
func TestGovernorSlowsChartsWhileBusy(t *testing.T) {
	const fps, minFPS, cores = 20, 5, 2.0
	cases := []struct {
		name         string
		fixed, draw  float64 // cores: the fixed part, drawing at the full rate
		want         float64 // the stretch it settles at
		wantInterval time.Duration
	}{
		{"idle", 0.05, 0.2, 1, time.Second / fps},
		{"at the share", 0.3, 0.8, 1, time.Second / fps},
		// 0.3 + 1.2/s = 1.1 cores → s = 1.5
		{"busy", 0.3, 1.2, 1.5, time.Second / fps * 3 / 2},
		// even at minFPS it would use more than busyShare: held at the floor
		{"overloaded", 1.5, 2, fps / minFPS, time.Second / minFPS},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cad := sims.NewCadence(time.Second / fps)
			g := newGovernor(cad, fps, minFPS)
			g.cores = cores
			var used time.Duration
			g.cpu = func() time.Duration { return used }
			now := time.Unix(0, 0)
			g.look(now)
			for range 60 {
				used += time.Duration((c.fixed + c.draw/g.stretch) * float64(governEvery))
				now = now.Add(governEvery)
				g.look(now)
			}
			if d := g.stretch - c.want; d > 0.02*c.want || d < -0.02*c.want {
				t.Errorf("stretch %.3f after 30 s, want %.3f", g.stretch, c.want)
			}
			if got := cad.Interval(); got < c.wantInterval*98/100 || got > c.wantInterval*102/100 {
				t.Errorf("interval %v, want %v", got, c.wantInterval)
			}
			// The load goes: back to the full rate within a few looks.
			for range 5 {
				used += time.Duration(0.05 * float64(governEvery))
				now = now.Add(governEvery)
				g.look(now)
			}
			if got := cad.Interval(); got != time.Second/fps {
				t.Errorf("interval %v once idle, want %v", got, time.Second/fps)
			}
		})
	}
}
