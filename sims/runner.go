package sims

import (
	"math"
	"sync"
	"sync/atomic"
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
	// Building is set while a new sim (reset, reseed, new parameters, or
	// the first one) is being built; Frame is still the previous sim's.
	Building bool
	// BuildErr is why the last build was refused or failed: the sim shown
	// is still the previous one. The next build clears it.
	BuildErr error
	// Replaying says that the run converged and the next seed's starts
	// soon (Spec.Replay).
	Replaying bool
	// Data is the --data table the sim runs on, nil for its built-in
	// data; read only.
	Data *Table
}

// MaxSpeed is the Speed value meaning "as fast as it goes".
const MaxSpeed = 0

// Speeds are the steps-per-second settings the speed keys move through;
// the last, MaxSpeed, is "as fast as it goes".
var Speeds = []float64{1, 2, 5, 10, 30, 100, 300, 1000, 10000, MaxSpeed}

// NearestSpeed is the index in Speeds of the notch nearest to s
// (MaxSpeed's for MaxSpeed): where a pane of a Spec whose Speed is s
// starts.
func NearestSpeed(s float64) int {
	if s == MaxSpeed {
		return len(Speeds) - 1
	}
	best := 0
	for i, v := range Speeds[:len(Speeds)-1] {
		if math.Abs(v-s) < math.Abs(Speeds[best]-s) {
			best = i
		}
	}
	return best
}

// RunnerOptions tune a runner. The zero value is usable.
type RunnerOptions struct {
	Speed  float64 // initial steps per second; 0 = as fast as it goes
	Paused bool    // start paused
	// Cadence is the least interval between Frames while stepping (what a
	// command changes is published at once); nil is FrameInterval.
	// Headless runs that read only the last Frame pass
	// NewCadence(math.MaxInt64).
	Cadence *Cadence
	// Budget is the session's allowance, shared by all its runners; nil
	// is no limit.
	Budget *Budget
}

// Runner owns one sim and drives it in its own goroutine; builds (the
// first sim, reset, reseed, new parameters) happen in another, so the old
// sim keeps running until the new one is ready. Its methods never block
// (except Close, Result and the waits they return) and are safe to call
// from any goroutine; the latest Snapshot wins, so a slow reader never
// slows the engine and a fast engine never floods the reader.
type Runner struct {
	spec    *Spec
	data    *Table
	workers int // Config.Workers of every build
	opts    RunnerOptions
	quit    chan struct{}
	done    chan struct{}
	once    sync.Once
	snap    atomic.Pointer[Snapshot]
	seeds   atomic.Uint64 // source of fresh seeds for Reseed
	taken   atomic.Int64  // steps taken so far, by every sim of this runner

	// commands for the loop, in order
	qmu     sync.Mutex
	queue   []command
	qclosed bool          // the loop has ended: commands are dropped
	wake    chan struct{} // capacity 1: there are commands

	builds builder

	headless bool // from Config: every build is told nobody watches
}

// StartRunner starts a runner and the build of its first sim from cfg,
// and returns at once. Until the build is done the runner's snapshots say
// Building and have an empty Frame; if it fails the run is Failed with the
// reason, and Reset or a parameter change tries again.
func StartRunner(spec *Spec, cfg Config, opts RunnerOptions) (*Runner, *Build) {
	if cfg.Values.IsZero() {
		cfg.Values = spec.Defaults()
	}
	r := &Runner{
		spec:    spec,
		data:    cfg.Data,
		workers: cfg.Workers,
		opts:    opts,
		quit:    make(chan struct{}),
		done:    make(chan struct{}),
		wake:    make(chan struct{}, 1),

		headless: cfg.Headless,
	}
	r.seeds.Store(cfg.Seed)
	r.builds.installed = buildConfig{cfg.Values, cfg.Seed}
	l := &loop{r: r, vals: cfg.Values, seed: cfg.Seed, speed: opts.Speed, state: Running, buildSeq: 1}
	if opts.Paused {
		l.state = Paused
	}
	l.publish()
	go l.run()
	return r, r.rebuild(cfg.Values, cfg.Seed)
}

// NewRunner starts a runner and waits for its first sim: a configuration
// that cannot be built is an error and leaves nothing running.
func NewRunner(spec *Spec, cfg Config, opts RunnerOptions) (*Runner, error) {
	r, b := StartRunner(spec, cfg, opts)
	if err := b.Wait(); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// Latest returns the most recent snapshot.
func (r *Runner) Latest() *Snapshot { return r.snap.Load() }

// Taken is the number of steps the runner has taken so far, by all its
// sims, counted after each batch: between publications it says how far a
// long Step has come (lab run's progress line).
func (r *Runner) Taken() int64 { return r.taken.Load() }

// The commands below return at once. The channel each returns is closed
// once the loop has carried the command out and published its effect (for
// Step, once the steps are taken), so that Latest then reflects it; a
// caller that does not need to know ignores it. Commands are carried out in
// the order sent; after Close they do nothing.

// Play resumes stepping (a finished run stays finished).
func (r *Runner) Play() <-chan struct{} { return r.post(command{op: opPlay}) }

// Pause stops stepping, dropping single steps not yet taken.
func (r *Runner) Pause() <-chan struct{} { return r.post(command{op: opPause}) }

// Toggle switches between running and paused.
func (r *Runner) Toggle() <-chan struct{} { return r.post(command{op: opToggle}) }

// Step pauses and advances n steps (fewer if the run ends first). Under a
// Budget the steps wait for their turn like any other.
func (r *Runner) Step(n int) <-chan struct{} { return r.post(command{op: opStep, n: n}) }

// SetSpeed sets the target steps per second; MaxSpeed means as fast as it goes.
func (r *Runner) SetSpeed(stepsPerSec float64) <-chan struct{} {
	return r.post(command{op: opSpeed, speed: stepsPerSec})
}

// Sync does nothing, in turn: once it is done, so is every command sent
// before it.
func (r *Runner) Sync() <-chan struct{} { return r.post(command{op: opSync}) }

// Result returns the sim's outcome (Sim.Result), read on the runner's
// goroutine; nil when there is no sim or the runner is closed.
func (r *Runner) Result() map[string]any {
	reply := make(chan map[string]any, 1)
	r.post(command{op: opResult, reply: reply})
	select {
	case res := <-reply:
		return res
	case <-r.done:
		return nil
	}
}

// maxQueue bounds the commands waiting for a loop stuck in a long step:
// beyond it a caller's commands are dropped (acknowledged at once, with no
// effect) while the runner's own (builds, results) still queue. Single
// steps in a row coalesce, so a key held down does not fill it.
const maxQueue = 1024

// post queues a command for the loop without waiting.
func (r *Runner) post(c command) <-chan struct{} {
	ack := make(chan struct{})
	r.qmu.Lock()
	n := len(r.queue)
	switch {
	case r.qclosed:
		r.qmu.Unlock()
		c.abandon()
		close(ack)
		return ack
	case c.op == opStep && n > 0 && r.queue[n-1].op == opStep:
		last := &r.queue[n-1]
		last.n = satAdd(last.n, c.n)
		last.acks = append(last.acks, ack)
	case n >= maxQueue && c.op < opResult: // the runner's own commands are never dropped
		r.qmu.Unlock()
		close(ack)
		return ack
	default:
		c.acks = append(c.acks, ack)
		r.queue = append(r.queue, c)
	}
	r.qmu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default:
	}
	return ack
}

// satAdd adds two non-negative counts, saturating.
func satAdd(a, b int) int {
	if a > maxInt-b {
		return maxInt
	}
	return a + b
}

const maxInt = int(^uint(0) >> 1)

// Stop tells the runner to end and returns at once: its sim stops after
// the step under way, and a build under way is discarded when it ends.
func (r *Runner) Stop() {
	r.once.Do(func() {
		r.stopBuilds()
		close(r.quit)
	})
}

// Close stops the runner and waits for its loop to end. It is idempotent.
func (r *Runner) Close() {
	r.Stop()
	<-r.done
}

type op int

const (
	opPlay op = iota
	opPause
	opToggle
	opStep
	opSpeed
	opSync
	opResult
	opBuilding // a build has been asked for
	opInstall  // a build is ready
	opFailed   // a build was refused or failed
	opTune     // live parameters changed: retune the sim in place
)

type command struct {
	op    op
	n     int     // opStep: how many
	speed float64 // opSpeed
	seq   uint64  // build commands: the request's number
	build *buildReq
	sim   Sim                 // opInstall
	err   error               // opFailed
	reply chan map[string]any // opResult
	acks  []chan struct{}
}

// abandon releases whoever waits on a command that will not be carried out.
func (c command) abandon() {
	for _, a := range c.acks {
		close(a)
	}
	if c.reply != nil {
		close(c.reply)
	}
	if c.build != nil {
		c.build.b.finish(ErrClosed)
	}
}
