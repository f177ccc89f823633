package sims

import (
	"errors"
	"fmt"
	"math"
	"runtime/debug"
	"slices"
	"time"

	"github.com/thelab/lab/algo"
)

// loop is the state owned by the runner's goroutine: the sim, the run's
// state machine and the pacing. It is the one step loop of the lab: the
// TUI's panes and `lab run` both drive it.
type loop struct {
	r       *Runner
	sim     Sim // nil until the first build is installed
	vals    Values
	seed    uint64
	state   State
	err     error
	speed   float64
	version uint64

	buildSeq, doneSeq uint64 // the latest build asked for and the latest ended
	buildErr          error

	// scales are the largest |Value| of each metric published since the
	// sim was built (Metric.Scale)
	scales map[string]float64

	owed  int             // single steps still to take (while paused)
	held  []chan struct{} // acknowledgements waiting for a publication or the owed steps
	ended []*buildReq     // builds installed or failed, reported once published
	dirty bool            // a command changed what a snapshot shows

	lastPublish time.Time
	// pacing: steps owed since paceStart at the current speed
	paceStart time.Time
	paceDone  int
	// measuring: steps in the current window
	rateStart time.Time
	rateSteps int
	rate      float64
	batch     int // steps per batch at full speed, adapted to ~1 ms
	// replayAt is when a run that converged while running starts the next
	// seed (Spec.Replay); zero when it will not.
	replayAt time.Time
}

func (l *loop) run() {
	defer l.exit()
	l.resetPace()
	l.batch = 1
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	budget := l.r.opts.Budget
	for {
		select {
		case <-l.r.quit:
			return
		default:
		}
		l.drain()
		if !l.replayAt.IsZero() && !time.Now().Before(l.replayAt) {
			l.replayAt = time.Time{}
			l.r.Reseed()
			l.drain() // its opBuilding: the snapshot says Building
		}
		rest := l.flush()
		if !l.dirty && l.owed == 0 {
			l.release()
		}
		n, wait := l.due()
		if n > 0 {
			if granted, w := budget.allowSteps(n); granted == 0 {
				n, wait = 0, w
			} else {
				n = granted
			}
		}
		if n == 0 {
			if rest > 0 && (wait < 0 || rest < wait) {
				wait = rest // then publish what the commands changed
			}
			var tick <-chan time.Time
			if wait > 0 {
				timer.Reset(wait)
				tick = timer.C
			}
			select {
			case <-l.r.wake:
			case <-l.r.quit:
				return
			case <-tick:
			}
			timer.Stop()
			continue
		}
		start, cpu := time.Now(), budget.StartMeter()
		running := l.state == Running
		done := l.stepN(n)
		l.r.taken.Add(int64(done))
		if running {
			l.paceDone += done
			l.count(done)
			if l.speed == MaxSpeed {
				l.adaptBatch(time.Since(start))
			}
		} else {
			l.owed = max(0, l.owed-done)
			l.adaptBatch(time.Since(start))
		}
		if l.state.Done() {
			l.owed = 0
		}
		if l.state.Done() || (l.owed == 0 && len(l.held) > 0) || time.Since(l.lastPublish) >= l.r.opts.Cadence.Interval() {
			l.publish()
		}
		budget.charge(cpu.Spent(), done, 0)
	}
}

// scaled is a copy of ms (a Frame's, not to be written) with each Scale
// left 0 set to the largest |Value| of its metric published since the sim
// was built, this one included.
func (l *loop) scaled(ms []Metric) []Metric {
	if l.scales == nil {
		l.scales = map[string]float64{}
	}
	out := slices.Clone(ms)
	for i := range out {
		m := &out[i]
		if v := math.Abs(m.Value); !m.Untrusted && m.Undefined == "" && v <= math.MaxFloat64 {
			l.scales[m.Name] = max(l.scales[m.Name], v)
		}
		if m.Scale == 0 {
			m.Scale = l.scales[m.Name]
		}
	}
	return out
}

// due says how many steps to take now, or how long to wait for the next
// (a negative wait: until a command comes).
func (l *loop) due() (int, time.Duration) {
	switch {
	case !l.replayAt.IsZero():
		return 0, max(time.Microsecond, time.Until(l.replayAt))
	case l.sim == nil || l.state.Done():
		return 0, -1
	case l.state == Paused && l.owed > 0:
		return min(l.owed, l.batch), 0
	case l.state != Running:
		return 0, -1
	case l.speed == MaxSpeed:
		return l.batch, 0
	}
	elapsed := time.Since(l.paceStart).Seconds()
	owed := int(elapsed*l.speed) - l.paceDone
	if owed <= 0 {
		next := float64(l.paceDone+1)/l.speed - elapsed
		return 0, max(time.Microsecond, time.Duration(next*float64(time.Second)))
	}
	// Never try to catch up more than a publication interval's worth.
	maxBatch := max(1, int(l.speed*l.r.opts.Cadence.Interval().Seconds()))
	if owed > maxBatch {
		l.paceDone += owed - maxBatch
		owed = maxBatch
	}
	return owed, 0
}

// drain carries out every queued command. Their acknowledgements, and the
// builds installed or failed, wait for the next publication (and the
// acknowledgements for the single steps owed).
func (l *loop) drain() {
	r := l.r
	r.qmu.Lock()
	cmds := r.queue
	r.queue = nil
	r.qmu.Unlock()
	for _, c := range cmds {
		l.handle(c)
		if c.build != nil {
			l.ended = append(l.ended, c.build)
		}
		l.held = append(l.held, c.acks...)
	}
}

// flush publishes what commands changed, once for them all, when the
// budget allows; otherwise it says how long until it does, so that a burst
// of keys cannot make a session build Frames past its share of a core.
func (l *loop) flush() time.Duration {
	if !l.dirty {
		return 0
	}
	budget := l.r.opts.Budget
	if rest := budget.Rest(); rest > 0 {
		return rest
	}
	cpu := budget.StartMeter()
	l.publish()
	cpu.Charge()
	return 0
}

// release acknowledges the commands carried out.
func (l *loop) release() {
	for _, a := range l.held {
		close(a)
	}
	l.held = l.held[:0]
}

func (l *loop) handle(c command) {
	switch c.op {
	case opPlay:
		if l.sim != nil && !l.state.Done() {
			l.state = Running
			l.resetPace()
		}
		l.owed, l.dirty = 0, true
	case opPause:
		if l.state == Running {
			l.state = Paused
		}
		l.owed, l.dirty = 0, true
	case opToggle:
		switch l.state {
		case Running:
			l.state = Paused
		case Paused:
			l.state = Running
			l.resetPace()
		}
		l.owed, l.dirty = 0, true
	case opStep:
		if l.sim == nil || l.state.Done() {
			break
		}
		if l.state == Running {
			l.state, l.dirty = Paused, true
		}
		l.owed = satAdd(l.owed, c.n)
	case opSpeed:
		l.speed, l.dirty = c.speed, true
		l.resetPace()
	case opResult:
		c.reply <- l.safeResult()
	case opBuilding:
		l.buildSeq, l.buildErr, l.dirty = c.seq, nil, true
		l.replayAt = time.Time{} // the build asked for replaces the replay
	case opInstall:
		l.sim, l.vals, l.seed = c.sim, c.build.cfg.vals, c.build.cfg.seed
		clear(l.scales)
		if l.state != Paused {
			l.state = Running
		}
		l.err, l.owed = nil, 0
		l.doneSeq, l.dirty = c.seq, true
		l.resetPace()
	case opTune:
		if err := l.safeTune(c.build.cfg.vals); err != nil {
			// The sim runs on with the values it had: later changes
			// start from them.
			c.build.err, l.buildErr = err, err
			bs := &l.r.builds
			bs.mu.Lock()
			if bs.seq == c.build.seq { // no request came after it
				bs.installed.vals = l.vals
				bs.want = bs.installed
			}
			bs.mu.Unlock()
		} else {
			l.vals, l.buildErr = c.build.cfg.vals, nil
		}
		l.dirty = true
	case opFailed:
		c.build.err = c.err // reported once the failure is published
		if l.sim == nil {
			l.state, l.err = Failed, c.err // the first build: nothing runs
		} else {
			l.buildErr = c.err
		}
		l.doneSeq, l.dirty = c.seq, true
	}
}

// exit ends the loop: whoever waits on a command is released.
func (l *loop) exit() {
	r := l.r
	r.qmu.Lock()
	r.qclosed = true
	cmds := r.queue
	r.queue = nil
	r.qmu.Unlock()
	for _, c := range cmds {
		c.abandon()
	}
	for _, b := range l.ended {
		b.b.finish(b.err) // carried out, though not yet shown
	}
	l.release()
	r.opts.Budget.release(r)
	close(r.done)
}

func (l *loop) resetPace() {
	l.paceStart = time.Now()
	l.paceDone = 0
	l.rateStart = l.paceStart
	l.rateSteps = 0
	l.rate = 0
}

func (l *loop) adaptBatch(took time.Duration) {
	switch {
	case took < 500*time.Microsecond && l.batch < 1<<20:
		l.batch *= 2
	case took > 2*time.Millisecond && l.batch > 1:
		l.batch /= 2
	}
}

func (l *loop) count(n int) {
	l.rateSteps += n
	if el := time.Since(l.rateStart); el >= 250*time.Millisecond {
		l.rate = float64(l.rateSteps) / el.Seconds()
		l.rateStart = time.Now()
		l.rateSteps = 0
	}
}

// stepN takes up to n steps and returns how many were taken. A step that
// ends the run changes the state.
func (l *loop) stepN(n int) int {
	for i := 0; i < n; i++ {
		if err := l.safeStep(); err != nil {
			l.finish(err)
			return i + 1
		}
	}
	return n
}

// safeTune retunes the sim to vals (Tuner), turning a panic into an
// error.
func (l *loop) safeTune(vals Values) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w while retuning: %v\n%s", ErrPanic, p, debug.Stack())
		}
	}()
	return l.sim.(Tuner).Tune(vals)
}

// safeStep runs one step, turning a panic into an error so that a bug in
// one sim ends only that sim.
func (l *loop) safeStep() (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w in step: %v\n%s", ErrPanic, p, debug.Stack())
		}
	}()
	return l.sim.Step()
}

// finish ends the run: the one place a Step or Frame error becomes a state.
func (l *loop) finish(err error) {
	l.replayAt = time.Time{}
	switch {
	case errors.Is(err, ErrConverged):
		if r := l.r.spec.Replay; r > 0 && l.state == Running && !l.r.headless {
			l.replayAt = time.Now().Add(r) // stepped by hand, it stays
		}
		l.state = Converged
	case errors.Is(err, ErrDiverged):
		l.state, l.err = Diverged, err
	default:
		l.state, l.err = Failed, err
	}
}

// publish builds a Frame and makes it the latest snapshot. A frame whose
// metrics are not finite (and not said to be Undefined) marks the run
// diverged even if the engine did not notice.
func (l *loop) publish() {
	frame := Frame{Sim: l.r.spec.Name}
	if l.sim != nil {
		var err error
		if frame, err = l.safeFrame(l.state != Running); err != nil {
			l.finish(err)
		} else if frame.Metrics = l.scaled(frame.Metrics); !l.state.Done() || l.state == Converged {
			for _, m := range frame.Metrics {
				if m.Undefined == "" && (math.IsNaN(m.Value) || math.IsInf(m.Value, 0)) {
					if l.state == Converged {
						// A run never reports a value that is not finite
						// as its converged result.
						l.state, l.err = Failed, fmt.Errorf("converged to a result that is not finite: metric %s = %v", m.Name, m.Value)
					} else {
						l.finish(algo.Diverged("metric %s = %v", m.Name, m.Value))
					}
					break
				}
			}
		}
	}
	l.version++
	l.dirty = false
	l.lastPublish = time.Now()
	rate := l.rate
	if el := time.Since(l.rateStart); rate == 0 && el > 50*time.Millisecond {
		rate = float64(l.rateSteps) / el.Seconds() // before the first full window
	}
	if l.state != Running {
		rate = 0
	}
	l.r.snap.Store(&Snapshot{
		Frame:       frame,
		Spec:        l.r.spec,
		Values:      l.vals,
		Seed:        l.seed,
		State:       l.state,
		Err:         l.err,
		Speed:       l.speed,
		StepsPerSec: rate,
		Version:     l.version,
		Building:    l.buildSeq > l.doneSeq,
		BuildErr:    l.buildErr,
		Replaying:   !l.replayAt.IsZero(),
		Data:        l.r.data,
	})
	for _, b := range l.ended {
		b.b.finish(b.err)
	}
	l.ended = l.ended[:0]
	if l.owed == 0 {
		l.release()
	}
}

// safeFrame returns the sim's Frame, settling its caches first (Settler)
// when asked: for a sim that is not running (paused, stepped, finished; lab
// run's frames among them) there is no hurry, and its figures are current.
func (l *loop) safeFrame(settle bool) (f Frame, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w in frame: %v\n%s", ErrPanic, p, debug.Stack())
		}
	}()
	if st, ok := l.sim.(Settler); ok && settle {
		st.Settle()
	}
	return l.sim.Frame(), nil
}

func (l *loop) safeResult() (res map[string]any) {
	if l.sim == nil {
		return nil
	}
	defer func() {
		if p := recover(); p != nil {
			res = map[string]any{"error": fmt.Sprintf("panic in result: %v", p)}
		}
	}()
	return l.sim.Result()
}
