package record

import (
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/thelab/lab/scene"
	"github.com/thelab/lab/sims"
)

// MaxRate is the steps a second at which a recording runs a pane set to
// sims.MaxSpeed: live, such a pane runs as fast as the machine lets it,
// which no two machines (nor two runs) share, so a recording takes the
// fastest notch that has a rate instead (the one - goes to from max).
// Its edge still says "speed max".
const MaxRate = 10000

// clock drives the panes of a scene on a virtual clock: at frame k, time
// k/fps, each pane has made floor(rate·t) steps since its sim started, as
// a live pane at that speed would have, whatever the steps cost. Each
// pane's real runner is kept paused and stepped (Runner.Step), and the
// clock waits for the steps to be published, so the Frames are exactly
// the engine's and the recording the same on every machine.
type clock struct {
	fps    int
	tracks []*track
}

// track is one pane on the clock.
type track struct {
	spec  *sims.Spec
	vals  sims.Values
	seed  uint64
	data  *sims.Table
	speed float64 // the pane's setting (sims.MaxSpeed: max), shown on its edge
	rate  float64 // its steps a second on the clock
	r     *sims.Runner
	// start is when the sim running started, in steps at rate (time ×
	// rate); base the steps it made before (a saved pane's Steps); taken
	// the steps asked of it so far, base included.
	start       float64
	base, taken int
	// replayAt is when a converged sim's next seed starts (Spec.Replay),
	// in steps at rate; it is set once the sim has converged.
	replayAt float64
	replay   bool
	snap     *sims.Snapshot // the runner's latest
	shown    *sims.Snapshot // the copy drawn
	version  uint64         // numbers the copies drawn
}

// newClock builds every pane of sc, paused at its start, and waits for
// them; a pane that cannot be built is an error (as it is to lab tour).
func newClock(sc scene.Scene, cat *sims.Catalog, fps int) (*clock, error) {
	c := &clock{fps: fps}
	for i, p := range sc.Panes {
		spec := cat.Lookup(p.Sim)
		if spec == nil {
			c.close()
			return nil, fmt.Errorf("scene %s, pane %d: unknown sim %q", sc.Name, i+1, p.Sim)
		}
		if p.Data != "" && p.Table == nil {
			c.close()
			return nil, fmt.Errorf("scene %s, pane %d: runs on %s, not read (scene.Load reads it)", sc.Name, i+1, p.Data)
		}
		vals, err := sims.Resolve(spec.Params, p.SetMap())
		if err != nil {
			c.close()
			return nil, fmt.Errorf("scene %s, pane %d (%s): %w", sc.Name, i+1, p.Sim, err)
		}
		// A pane's speed as the TUI sets it (tui.startPane): the notch
		// nearest to the scene's, or to the sim's own.
		speed := sims.Speeds[sims.NearestSpeed(spec.Speed)]
		if p.SpeedSet {
			speed = sims.Speeds[sims.NearestSpeed(p.Speed)]
		}
		rate := speed
		if speed == sims.MaxSpeed {
			rate = MaxRate
		}
		c.tracks = append(c.tracks, &track{spec: spec, vals: vals, seed: sc.PaneSeed(i), data: p.Table,
			speed: speed, rate: rate, base: p.Steps})
	}
	err := c.each(func(tr *track) error {
		if err := tr.begin(tr.seed); err != nil {
			return err
		}
		return tr.stepTo(tr.base)
	})
	if err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

// each runs f on every track at once (each runner steps on its own
// goroutine) and returns the first error, in the panes' order.
func (c *clock) each(f func(*track) error) error {
	errs := make([]error, len(c.tracks))
	var wg sync.WaitGroup
	for i, tr := range c.tracks {
		wg.Go(func() { errs[i] = f(tr) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// frame advances every pane to frame k and returns the snapshots to draw.
// Frames go forward: k never decreases.
func (c *clock) frame(k int) ([]*sims.Snapshot, error) {
	err := c.each(func(tr *track) error {
		// The clock in steps at the pane's rate: integers over fps, so the
		// floor below is exact (rates are whole numbers).
		now := tr.rate * float64(k) / float64(c.fps)
		for tr.replay && now >= tr.replayAt {
			// The next seed, as the live pane's Runner.Reseed takes it;
			// a new runner, so that it starts paused (a reseeded runner
			// that had converged would start running on the wall clock).
			start := tr.replayAt
			tr.r.Close()
			tr.seed++
			if err := tr.begin(tr.seed); err != nil {
				return err
			}
			tr.start = start
			tr.base, tr.taken = 0, 0
		}
		if tr.snap.State.Done() {
			return nil
		}
		return tr.stepTo(tr.base + int(math.Floor(now-tr.start)))
	})
	if err != nil {
		return nil, err
	}
	out := make([]*sims.Snapshot, len(c.tracks))
	for i, tr := range c.tracks {
		out[i] = tr.shown
	}
	return out, nil
}

// begin starts the pane's runner on seed, paused, and waits for its sim.
func (tr *track) begin(seed uint64) error {
	r, b := sims.StartRunner(tr.spec, sims.Config{Values: tr.vals, Seed: seed, Data: tr.data, Workers: 1},
		sims.RunnerOptions{Speed: tr.speed, Paused: true,
			// No Frame but those the clock asks for: one published on a
			// timer would move the metrics' scales (Metric.Scale).
			Cadence: sims.NewCadence(math.MaxInt64)})
	tr.r = r
	if err := b.Wait(); err != nil {
		return fmt.Errorf("%s: %w", tr.spec.Name, err)
	}
	tr.update()
	return nil
}

// stepTo steps the pane's sim until it has made n steps (fewer if it
// ends first) and takes the Frame published.
func (tr *track) stepTo(n int) error {
	if n <= tr.taken || tr.snap.State.Done() {
		return nil
	}
	<-tr.r.Step(n - tr.taken)
	tr.taken = n
	tr.update()
	if tr.snap.State == sims.Converged && tr.spec.Replay > 0 {
		// It converged at its step Taken: the live pane shows the result
		// for Replay, then starts the next seed.
		made := float64(tr.r.Taken() - int64(tr.base))
		tr.replayAt = tr.start + max(made, 0) + tr.rate*tr.spec.Replay.Seconds()
		tr.replay = true
	}
	return nil
}

// update takes the runner's latest snapshot and, when it is new, a copy
// to draw that reads as a live pane's: running at its speed until it
// ends (the runner itself is paused between frames), "next seed soon"
// once it has converged and will replay.
func (tr *track) update() {
	s := tr.r.Latest()
	if s == tr.snap {
		return
	}
	tr.snap = s
	tr.replay = false
	shown := *s
	if !shown.State.Done() {
		shown.State, shown.StepsPerSec = sims.Running, tr.rate
	}
	shown.Replaying = s.State == sims.Converged && tr.spec.Replay > 0
	tr.version++
	shown.Version = tr.version
	tr.shown = &shown
}

// close stops every runner and waits for them.
func (c *clock) close() {
	for _, tr := range c.tracks {
		if tr.r != nil {
			tr.r.Close()
		}
	}
}
