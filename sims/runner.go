package sims

import (
	"errors"
	"fmt"
	"github.com/thelab/lab/algo"
	"math"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
)

// State is what a runner's sim is doing.
type State int

const (
	Paused State = iota
	Running
	Converged
	Diverged
	Failed
)

func (s State) String() string {
	return [...]string{"paused", "running", "converged", "diverged", "failed"}[s]
}

// Done reports whether the run has ended (converged, diverged or failed);
// only reset, reseed or a parameter change starts it again.
func (s State) Done() bool { return s >= Converged }

// Snapshot is what a runner publishes: the latest Frame and the run's status.
type Snapshot struct {
	Frame       Frame
	Spec        *Spec
	Values      Values
	Seed        uint64
	State       State
	Err         error   // why the run stopped, when Diverged or Failed
	Speed       float64 // target steps per second; 0 = as fast as it goes
	StepsPerSec float64 // measured over the last second or so
	Version     uint64  // increases with every publication
}

// MaxSpeed is the Speed value meaning "as fast as it goes".
const MaxSpeed = 0

// Speeds are the steps-per-second settings the speed keys move through;
// the last, MaxSpeed, is "as fast as it goes".
var Speeds = []float64{1, 2, 5, 10, 30, 100, 300, 1000, 10000, MaxSpeed}

// RunnerOptions tune a runner. The zero value is usable.
type RunnerOptions struct {
	Speed   float64       // initial steps per second; 0 = as fast as it goes
	Paused  bool          // start paused
	Publish time.Duration // minimum interval between Frames while running; default 1/30 s
	// RateCap, when positive, caps the steps per second whatever the speed
	// (a server's per-session budget).
	RateCap float64
	// CPUCap, when positive, caps the share of one core this runner's
	// stepping may use (0.25: a quarter of a core), whatever a step costs:
	// a server's per-session CPU budget, shared among its panes.
	CPUCap float64
	// AckWait, when positive, bounds how long a command waits for the
	// runner to carry it out (a step in progress must finish first). A
	// screen sets it so that one slow step cannot freeze the keys; the
	// command still takes effect, in order, and shows in a later snapshot.
	// Zero waits until it is done.
	AckWait time.Duration
}

// Runner owns one sim and drives it in its own goroutine. Its methods are
// safe to call from any goroutine; the latest Snapshot wins, so a slow
// reader never slows the engine and a fast engine never floods the reader.
type Runner struct {
	spec  *Spec
	data  *Table
	opts  RunnerOptions
	cmds  chan command
	quit  chan struct{}
	done  chan struct{}
	once  sync.Once
	snap  atomic.Pointer[Snapshot]
	seeds atomic.Uint64 // source of fresh seeds for Reseed
}

type command struct {
	op    op
	speed float64
	sim   Sim    // for opRestart
	vals  Values // for opRestart
	seed  uint64 // for opRestart
	ack   chan struct{}
}

type op int

const (
	opPlay op = iota
	opPause
	opToggle
	opStep
	opSpeed
	opRateCap
	opCPUCap
	opRestart
)

// NewRunner builds the sim from cfg and starts its goroutine.
func NewRunner(spec *Spec, cfg Config, opts RunnerOptions) (*Runner, error) {
	if cfg.Values.IsZero() {
		cfg.Values = spec.Defaults()
	}
	sim, err := spec.Build(cfg)
	if err != nil {
		return nil, err
	}
	if opts.Publish <= 0 {
		opts.Publish = time.Second / 30
	}
	r := &Runner{
		spec: spec,
		data: cfg.Data,
		opts: opts,
		cmds: make(chan command, 16),
		quit: make(chan struct{}),
		done: make(chan struct{}),
	}
	r.seeds.Store(cfg.Seed)
	l := &loop{r: r, sim: sim, vals: cfg.Values, seed: cfg.Seed, speed: opts.Speed, rateCap: opts.RateCap, cpuCap: opts.CPUCap, state: Running}
	if opts.Paused {
		l.state = Paused
	}
	l.publish()
	go l.run()
	return r, nil
}

// Latest returns the most recent snapshot.
func (r *Runner) Latest() *Snapshot { return r.snap.Load() }

// Play resumes stepping (a finished run stays finished).
func (r *Runner) Play() { r.send(command{op: opPlay}) }

// Pause stops stepping.
func (r *Runner) Pause() { r.send(command{op: opPause}) }

// Toggle switches between running and paused.
func (r *Runner) Toggle() { r.send(command{op: opToggle}) }

// StepOnce pauses and advances exactly one step.
func (r *Runner) StepOnce() { r.send(command{op: opStep}) }

// SetSpeed sets the target steps per second; MaxSpeed means as fast as it goes.
func (r *Runner) SetSpeed(stepsPerSec float64) { r.send(command{op: opSpeed, speed: stepsPerSec}) }

// SetRateCap caps the steps per second whatever the speed (0 removes the
// cap): a server's per-session budget, shared among its panes.
func (r *Runner) SetRateCap(stepsPerSec float64) { r.send(command{op: opRateCap, speed: stepsPerSec}) }

// SetCPUCap caps the share of a core the runner may spend stepping (0
// removes the cap).
func (r *Runner) SetCPUCap(cores float64) { r.send(command{op: opCPUCap, speed: cores}) }

// Reset restarts the sim with the same parameters and seed.
func (r *Runner) Reset() error {
	s := r.Latest()
	return r.restart(s.Values, s.Seed)
}

// Reseed restarts the sim with the same parameters and a new seed.
func (r *Runner) Reseed() error {
	s := r.Latest()
	return r.restart(s.Values, r.seeds.Add(0x9e3779b97f4a7c15))
}

// Set changes one parameter and restarts the sim with it. An invalid value
// is refused with an error naming the parameter; the running sim is then
// left untouched.
func (r *Runner) Set(name, text string) error {
	s := r.Latest()
	vals, err := s.Values.With(name, text)
	if err != nil {
		return err
	}
	return r.restart(vals, s.Seed)
}

// SetValues restarts the sim with a whole new set of values.
func (r *Runner) SetValues(vals Values) error { return r.restart(vals, r.Latest().Seed) }

// restart builds the new sim on the caller's goroutine, so that a bad
// configuration is reported to the caller and the old sim keeps running.
func (r *Runner) restart(vals Values, seed uint64) error {
	sim, err := r.spec.Build(Config{Values: vals, Seed: seed, Data: r.data})
	if err != nil {
		return err
	}
	r.send(command{op: opRestart, sim: sim, vals: vals, seed: seed})
	return nil
}

// send delivers a command and waits until the loop has published its effect
// (or AckWait has passed), so that Latest reflects the command on return.
// Commands are carried out in the order sent. After Close it does nothing.
func (r *Runner) send(c command) {
	c.ack = make(chan struct{})
	select {
	case r.cmds <- c:
	case <-r.done:
		return
	}
	var timeout <-chan time.Time
	if r.opts.AckWait > 0 {
		t := time.NewTimer(r.opts.AckWait)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-c.ack:
	case <-r.done:
	case <-timeout:
	}
}

// Close stops the goroutine and waits for it to end. It is idempotent.
func (r *Runner) Close() {
	r.once.Do(func() { close(r.quit) })
	<-r.done
}

// loop is the state owned by the runner's goroutine.
type loop struct {
	r       *Runner
	sim     Sim
	vals    Values
	seed    uint64
	state   State
	err     error
	speed   float64
	rateCap float64
	cpuCap  float64
	version uint64

	// CPU budget: time spent stepping and publishing since budgetStart.
	busy        time.Duration
	budgetStart time.Time

	lastPublish time.Time
	// pacing: steps owed since paceStart at the current speed
	paceStart time.Time
	paceDone  int
	// measuring: steps in the current window
	rateStart time.Time
	rateSteps int
	rate      float64
	batch     int // steps per batch at full speed, adapted to ~1 ms
}

func (l *loop) run() {
	defer close(l.r.done)
	l.resetPace()
	l.batch = 1
	for {
		if l.state != Running {
			select {
			case c := <-l.r.cmds:
				l.handle(c)
			case <-l.r.quit:
				return
			}
			continue
		}
		select {
		case c := <-l.r.cmds:
			l.handle(c)
			continue
		case <-l.r.quit:
			return
		default:
		}
		n, wait := l.due()
		if n > 0 {
			if over := l.overBudget(); over > 0 {
				n, wait = 0, over
			}
		}
		if n == 0 {
			t := time.NewTimer(wait)
			select {
			case c := <-l.r.cmds:
				l.handle(c)
			case <-l.r.quit:
				t.Stop()
				return
			case <-t.C:
			}
			t.Stop()
			continue
		}
		start := time.Now()
		done := l.stepN(n)
		l.paceDone += done
		l.count(done)
		if l.effectiveSpeed() == MaxSpeed {
			l.adaptBatch(time.Since(start))
		}
		if l.state != Running || time.Since(l.lastPublish) >= l.r.opts.Publish {
			l.publish()
		}
		l.busy += time.Since(start)
	}
}

// overBudget says how long to rest so that the time spent stepping stays
// within cpuCap of the time elapsed (0: go on). The budget is counted over
// windows of about a second, carrying any overspend into the next.
func (l *loop) overBudget() time.Duration {
	if l.cpuCap <= 0 {
		return 0
	}
	now := time.Now()
	if l.budgetStart.IsZero() {
		l.budgetStart = now
	}
	elapsed := now.Sub(l.budgetStart)
	allowed := time.Duration(float64(elapsed) * l.cpuCap)
	if elapsed > time.Second {
		l.busy = max(0, l.busy-allowed)
		l.budgetStart, elapsed, allowed = now, 0, 0
	}
	if l.busy <= allowed {
		return 0
	}
	return time.Duration(float64(l.busy)/l.cpuCap) - elapsed
}

// effectiveSpeed is the speed after the runner's rate cap.
func (l *loop) effectiveSpeed() float64 {
	cap := l.rateCap
	if cap > 0 && (l.speed == MaxSpeed || l.speed > cap) {
		return cap
	}
	return l.speed
}

// due says how many steps to take now, or how long to wait for the next.
func (l *loop) due() (int, time.Duration) {
	speed := l.effectiveSpeed()
	if speed == MaxSpeed {
		return l.batch, 0
	}
	elapsed := time.Since(l.paceStart).Seconds()
	owed := int(elapsed*speed) - l.paceDone
	if owed <= 0 {
		next := float64(l.paceDone+1)/speed - elapsed
		return 0, time.Duration(next * float64(time.Second))
	}
	// Never try to catch up more than a publication interval's worth.
	maxBatch := max(1, int(speed*l.r.opts.Publish.Seconds()))
	if owed > maxBatch {
		l.paceDone += owed - maxBatch
		owed = maxBatch
	}
	return owed, 0
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

// safeStep runs one step, turning a panic into an error so that a bug in
// one sim ends only that sim.
func (l *loop) safeStep() (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic in step: %v\n%s", p, debug.Stack())
		}
	}()
	return l.sim.Step()
}

func (l *loop) finish(err error) {
	switch {
	case errors.Is(err, ErrConverged):
		l.state = Converged
	case errors.Is(err, ErrDiverged):
		l.state, l.err = Diverged, err
	default:
		l.state, l.err = Failed, err
	}
}

func (l *loop) handle(c command) {
	switch c.op {
	case opPlay:
		if !l.state.Done() {
			l.state = Running
			l.resetPace()
		}
	case opPause:
		if l.state == Running {
			l.state = Paused
		}
	case opToggle:
		switch l.state {
		case Running:
			l.state = Paused
		case Paused:
			l.state = Running
			l.resetPace()
		}
	case opStep:
		if !l.state.Done() {
			l.state = Paused
			l.stepN(1)
		}
	case opSpeed:
		l.speed = c.speed
		l.resetPace()
	case opRateCap:
		l.rateCap = c.speed
		l.resetPace()
	case opCPUCap:
		l.cpuCap = c.speed
		l.busy, l.budgetStart = 0, time.Time{}
	case opRestart:
		l.sim, l.vals, l.seed = c.sim, c.vals, c.seed
		if l.state != Paused {
			l.state = Running
		}
		l.err = nil
		l.resetPace()
	}
	l.publish()
	close(c.ack)
}

// publish builds a Frame and makes it the latest snapshot. A frame whose
// metrics are not finite marks the run diverged even if the engine did not
// notice.
func (l *loop) publish() {
	frame, err := l.safeFrame()
	if err != nil {
		l.finish(err)
	} else if !l.state.Done() {
		for _, m := range frame.Metrics {
			if math.IsNaN(m.Value) || math.IsInf(m.Value, 0) {
				l.finish(algo.Diverged("metric %s = %v", m.Name, m.Value))
				break
			}
		}
	}
	l.version++
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
	})
}

func (l *loop) safeFrame() (f Frame, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic in frame: %v\n%s", p, debug.Stack())
		}
	}()
	return l.sim.Frame(), nil
}
