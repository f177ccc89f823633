package serve

import (
	"math"
	"runtime"
	"time"

	"github.com/thelab/lab/internal/cputime"
	"github.com/thelab/lab/sims"
)

const (
	// DefaultMinFPS is the frame rate a busy server slows every session's
	// charts down to at most (--min-fps).
	DefaultMinFPS = 5
	// busyShare is the part of the cores the server's process may use
	// before the governor slows the charts. Past it the keys wait in the
	// cores' queue: with 32 default dashboards on 2 cores, key-to-screen
	// p99 was 75 ms at 1.13 cores (56%) and 120–240 ms at 1.3–1.5 (65–75%)
	// (TestCapacityUnderAttack).
	busyShare = 0.55
	// governEvery is how often the governor looks at the process's CPU
	// time.
	governEvery = 500 * time.Millisecond
)

// governor keeps the server's CPU use under busyShare of its cores by
// stretching the one Cadence every session shares: drawing and sending
// frames is most of what a session costs (Bubble Tea's renderer and the
// lab's charts, about three quarters of the server's CPU under the
// capacity test's load), and it scales with the frame rate, so a busy
// server moves every chart less often — down to minFPS — before a key
// waits. The keys' answers do not wait for the cadence (sims.Cadence).
//
// Each look takes the share u of the cores the process used since the
// last, and multiplies the stretch by √(u / busyShare), within
// [1, maxStretch]: a damped step towards the stretch at which u would be
// busyShare, if the cost were all drawing.
type governor struct {
	cadence    *sims.Cadence
	maxStretch float64
	cores      float64
	cpu        func() time.Duration // the process's CPU time so far

	stretch float64
	lastCPU time.Duration
	lastT   time.Time
}

func newGovernor(c *sims.Cadence, fps, minFPS int) *governor {
	return &governor{cadence: c, maxStretch: float64(fps) / float64(minFPS),
		cores: float64(runtime.GOMAXPROCS(0)), cpu: cputime.Process, stretch: 1}
}

// look takes one look at the CPU used since the last and sets the
// cadence; the first look only starts the count.
func (g *governor) look(now time.Time) {
	cpu := g.cpu()
	if !g.lastT.IsZero() {
		if el := now.Sub(g.lastT); el > 0 {
			u := (cpu - g.lastCPU).Seconds() / el.Seconds() / g.cores
			g.stretch = min(g.maxStretch, max(1, g.stretch*math.Sqrt(max(u, 0.01)/busyShare)))
			g.cadence.Stretch(g.stretch)
		}
	}
	g.lastCPU, g.lastT = cpu, now
}

// run looks every governEvery until stop is closed.
func (g *governor) run(stop <-chan struct{}) {
	t := time.NewTicker(governEvery)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case now := <-t.C:
			g.look(now)
		}
	}
}
