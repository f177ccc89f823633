package sims

import (
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"time"
)

// Errors a Build may end with besides the sim's own.
var (
	// ErrSuperseded: a newer reset, reseed or parameter change replaced
	// this one before it was installed; its sim, if built, was discarded.
	ErrSuperseded = errors.New("superseded by a newer change")
	// ErrClosed: the runner was closed first.
	ErrClosed = errors.New("runner closed")
)

// Build is a requested (re)build of a runner's sim. It happens off the
// caller's goroutine and off the runner's loop, which keeps running the old
// sim meanwhile; Done is closed once the new sim is running and published,
// or the build was refused, failed or superseded.
type Build struct {
	done  chan struct{}
	err   error
	tuned bool // live parameters retuned the running sim: nothing was built
}

func newBuild() *Build { return &Build{done: make(chan struct{})} }

// doneBuild is a Build that ended before it began.
func doneBuild(err error) *Build {
	b := newBuild()
	b.finish(err)
	return b
}

func (b *Build) finish(err error) {
	b.err = err
	close(b.done)
}

// Done is closed when the build has ended, either way.
func (b *Build) Done() <-chan struct{} { return b.done }

// Err is, once Done is closed, nil if the new sim runs, ErrSuperseded,
// ErrClosed, a *MemoryError, or the sim's own reason (naming the
// parameter at fault).
func (b *Build) Err() error {
	select {
	case <-b.done:
		return b.err
	default:
		return nil
	}
}

// Tuned reports whether the change retuned the running sim in place
// (live parameters, Tuner) rather than building a new one.
func (b *Build) Tuned() bool { return b.tuned }

// Wait waits until the build has ended and returns Err.
func (b *Build) Wait() error {
	<-b.done
	return b.err
}

// buildConfig is what a build varies: the values and the seed (the data is
// the runner's).
type buildConfig struct {
	vals Values
	seed uint64
}

type buildReq struct {
	cfg buildConfig
	b   *Build
	seq uint64
	err error // set by the loop: why it failed
}

// builder is a runner's build state. At most one build is under way; a
// request made meanwhile waits as pending, replacing (superseding) any
// pending one, so a burst of changes costs at most the build under way and
// the last one.
type builder struct {
	mu        sync.Mutex
	want      buildConfig // the latest request: what later ones start from
	installed buildConfig // the last request that was installed
	tunable   bool        // the installed sim is a Tuner
	pending   *buildReq
	busy      bool // the build goroutine is alive
	stopped   bool
	seq       uint64
}

// Reset rebuilds the sim with the same parameters and seed.
func (r *Runner) Reset() *Build {
	want := r.wanted()
	return r.rebuild(want.vals, want.seed)
}

// Reseed rebuilds the sim with the same parameters and the next seed:
// one more than the last seed it was given, so that seeds stay short
// enough to read on a pane's edge and to type into `lab run --seed`.
func (r *Runner) Reseed() *Build {
	return r.rebuild(r.wanted().vals, r.seeds.Add(1))
}

// Set changes one parameter and rebuilds the sim with it. An invalid value
// ends the Build at once with an error naming the parameter; the running
// sim is then left untouched.
func (r *Runner) Set(name, text string) *Build {
	want := r.wanted()
	vals, err := want.vals.With(name, text)
	if err != nil {
		return doneBuild(err)
	}
	return r.SetValues(vals)
}

// SetValues changes the sim's parameters to vals. A change of live
// parameters alone (param.Param.Live) retunes the running sim in place
// (Tuner) when no build is under way: no build, the same seed, the run
// goes on. Any other change rebuilds the sim.
func (r *Runner) SetValues(vals Values) *Build {
	if b := r.tune(vals); b != nil {
		return b
	}
	return r.rebuild(vals, r.wanted().seed)
}

// tune asks the loop to retune the installed sim to vals, or returns nil
// when it cannot: a build under way or pending, a sim that is not a
// Tuner, or a parameter changed that is not live.
func (r *Runner) tune(vals Values) *Build {
	bs := &r.builds
	bs.mu.Lock()
	defer bs.mu.Unlock()
	if bs.stopped || bs.busy || bs.pending != nil || !bs.tunable || !liveChange(bs.installed.vals, vals) {
		return nil
	}
	bs.seq++ // numbers the request, so that a failure knows whether a later one came
	req := &buildReq{cfg: buildConfig{vals, bs.installed.seed}, b: newBuild(), seq: bs.seq}
	req.b.tuned = true
	bs.want, bs.installed = req.cfg, req.cfg
	r.post(command{op: opTune, build: req})
	return req.b
}

// liveChange reports whether b differs from a, and only in live
// parameters (a default derived from a live parameter counts as a
// change of its own parameter).
func liveChange(a, b Values) bool {
	if len(a.Params()) != len(b.Params()) {
		return false
	}
	changed := false
	for _, p := range b.Params() {
		if a.Text(p.Name) != b.Text(p.Name) {
			if !p.Live {
				return false
			}
			changed = true
		}
	}
	return changed
}

// wanted is the configuration of the latest request.
func (r *Runner) wanted() buildConfig {
	r.builds.mu.Lock()
	defer r.builds.mu.Unlock()
	return r.builds.want
}

// rebuild asks for a new sim, superseding any request not yet started, and
// starts the build goroutine if it is not running.
func (r *Runner) rebuild(vals Values, seed uint64) *Build {
	bs := &r.builds
	bs.mu.Lock()
	defer bs.mu.Unlock()
	if bs.stopped {
		return doneBuild(ErrClosed)
	}
	if bs.pending != nil {
		bs.pending.b.finish(ErrSuperseded)
	}
	bs.seq++
	bs.want = buildConfig{vals, seed}
	bs.pending = &buildReq{cfg: bs.want, b: newBuild(), seq: bs.seq}
	r.post(command{op: opBuilding, seq: bs.seq})
	if !bs.busy {
		bs.busy = true
		go r.buildLoop()
	}
	return bs.pending.b
}

// stopBuilds ends the pending request; the build under way, if any, is
// discarded when it ends.
func (r *Runner) stopBuilds() {
	bs := &r.builds
	bs.mu.Lock()
	defer bs.mu.Unlock()
	bs.stopped = true
	if bs.pending != nil {
		bs.pending.b.finish(ErrClosed)
		bs.pending = nil
	}
}

// buildLoop builds the pending request, waiting first for the budget to
// allow a build (so the request built is the latest when it does), then
// hands the sim to the loop, or builds again if a newer request came in
// meanwhile.
func (r *Runner) buildLoop() {
	bs := &r.builds
	for {
		ok := r.waitForBuild()
		bs.mu.Lock()
		req := bs.pending
		bs.pending = nil
		if !ok || req == nil {
			if ok {
				r.opts.Budget.endBuild()
			}
			bs.busy = false
			bs.mu.Unlock()
			return
		}
		bs.mu.Unlock()

		sim, err := r.build(req.cfg)
		r.opts.Budget.endBuild()

		bs.mu.Lock()
		switch {
		case bs.stopped:
			req.b.finish(ErrClosed)
			r.opts.Budget.release(r)
		case bs.pending != nil:
			req.b.finish(ErrSuperseded)
			r.opts.Budget.settle(r, false)
			bs.mu.Unlock()
			continue
		case err != nil:
			r.opts.Budget.settle(r, false)
			bs.want = bs.installed // later requests start from the sim that runs
			r.post(command{op: opFailed, seq: req.seq, build: req, err: err})
		default:
			r.opts.Budget.settle(r, true)
			bs.installed = req.cfg
			_, bs.tunable = sim.(Tuner)
			r.post(command{op: opInstall, seq: req.seq, build: req, sim: sim})
		}
		bs.busy = false
		bs.mu.Unlock()
		return
	}
}

// waitForBuild waits for the visitor's build slot (one build at a time,
// whichever of their panes and sessions asks) and then until the budget
// allows a build; false if the runner stopped first. On true the slot is
// held until endBuild.
func (r *Runner) waitForBuild() bool {
	if slot := r.opts.Budget.buildSlot(); slot != nil {
		select {
		case slot <- struct{}{}:
		case <-r.quit:
			return false
		}
	}
	for {
		wait := r.opts.Budget.allowBuild()
		if wait <= 0 {
			return true
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-r.quit:
			t.Stop()
			r.opts.Budget.endBuild()
			return false
		}
	}
}

// ErrPanic marks the error of a sim that panicked while it was built,
// stepped or drawn: a bug in the sim, not bad input, which lab run
// reports with the stack and exit status 1, not the 2 of a usage error.
var ErrPanic = errors.New("panic")

// build checks the memory budget and builds the sim, charging the time.
func (r *Runner) build(c buildConfig) (sim Sim, err error) {
	cfg := Config{Values: c.vals, Seed: c.seed, Data: r.data, Workers: r.workers, Headless: r.headless}
	if b := r.opts.Budget; b != nil {
		if err := b.reserve(r, r.spec.EstimateSize(cfg)); err != nil {
			return nil, err
		}
	}
	cpu := r.opts.Budget.startBuildMeter()
	defer func() {
		r.opts.Budget.charge(cpu.Spent(), 0, 1)
		if p := recover(); p != nil {
			sim, err = nil, fmt.Errorf("%w while building %s: %v\n%s", ErrPanic, r.spec.Name, p, debug.Stack())
		}
	}()
	return r.spec.Build(cfg)
}
