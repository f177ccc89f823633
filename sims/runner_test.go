package sims

import (
	"errors"
	"math"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/thelab/lab/sims/param"
)

// counter is a test sim: its metric is the step count; it converges at
// "limit", and at "at" misbehaves as "fault" says.
type counter struct {
	n, limit, at int
	fault        fault
	seed         uint64
}

// fault is how a counter misbehaves.
type fault string

func (f fault) String() string { return string(f) }

var (
	counterLimit = param.Int("limit", 1e9, "").Range(1, 1e9)
	counterFault = param.Choice("fault", []fault{"none", "nan", "panic", "error", "diverge"}, "none", "")
	counterAt    = param.Int("at", 5, "").Range(0, 1e9)
	counterSpec  = &Spec{
		Name: "counter", Title: "test", Source: "test", Steps: 10,
		Params: param.List(counterLimit, counterFault, counterAt),
		New: func(c Config) (Sim, error) {
			if counterLimit.Get(c.Values) == 13 {
				return nil, errors.New("limit 13 is unlucky")
			}
			return &counter{limit: counterLimit.Get(c.Values), fault: counterFault.Get(c.Values), at: counterAt.Get(c.Values), seed: c.Seed}, nil
		},
	}
)

func (c *counter) Step() error {
	if c.n >= c.limit {
		return ErrConverged
	}
	c.n++
	if c.n == c.at {
		switch c.fault {
		case "panic":
			panic("boom")
		case "error":
			return errors.New("engine broke")
		case "diverge":
			return ErrDiverged
		}
	}
	return nil
}

func (c *counter) Frame() Frame {
	v := float64(c.n)
	if c.fault == "nan" && c.n >= c.at {
		v = math.NaN()
	}
	return Frame{Sim: "counter", Step: c.n, Metrics: []Metric{{Name: "n", Value: v}}}
}

func (c *counter) Result() map[string]any { return map[string]any{"n": c.n} }

func newCounter(t *testing.T, set map[string]string, opts RunnerOptions) *Runner {
	t.Helper()
	v, err := Resolve(counterSpec.Params, set)
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewRunner(counterSpec, Config{Values: v, Seed: 7}, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return r
}

// waitFor polls the runner until cond holds or a second passes.
func waitFor(t *testing.T, r *Runner, what string, cond func(*Snapshot) bool) *Snapshot {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for {
		s := r.Latest()
		if cond(s) {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s; last state %s at step %d", what, s.State, s.Frame.Step)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestRunnerPausedStepping(t *testing.T) {
	r := newCounter(t, nil, RunnerOptions{Paused: true})
	if s := r.Latest(); s.State != Paused || s.Frame.Step != 0 {
		t.Fatalf("start: %s at %d", s.State, s.Frame.Step)
	}
	for i := 1; i <= 3; i++ {
		r.StepOnce()
		if s := r.Latest(); s.Frame.Step != i || s.State != Paused {
			t.Fatalf("after %d single steps: %s at %d", i, s.State, s.Frame.Step)
		}
	}
	time.Sleep(20 * time.Millisecond)
	if s := r.Latest(); s.Frame.Step != 3 {
		t.Errorf("a paused runner stepped on its own: %d", s.Frame.Step)
	}
}

func TestRunnerPlayPauseToggle(t *testing.T) {
	r := newCounter(t, nil, RunnerOptions{Paused: true})
	r.Play()
	waitFor(t, r, "progress", func(s *Snapshot) bool { return s.Frame.Step > 100 })
	r.Pause()
	at := r.Latest().Frame.Step
	time.Sleep(20 * time.Millisecond)
	if s := r.Latest(); s.State != Paused || s.Frame.Step != at {
		t.Errorf("pause: %s, step %d then %d", s.State, at, s.Frame.Step)
	}
	r.Toggle()
	if r.Latest().State != Running {
		t.Error("toggle from paused did not run")
	}
}

func TestRunnerSpeed(t *testing.T) {
	r := newCounter(t, nil, RunnerOptions{Speed: 100})
	time.Sleep(500 * time.Millisecond)
	n := r.Latest().Frame.Step
	// 100 steps/s for half a second is 50; allow for a slow, loaded machine.
	if n < 20 || n > 60 {
		t.Errorf("at 100 steps/s, %d steps in 0.5 s", n)
	}
	r.SetRateCap(10)
	before := r.Latest().Frame.Step
	time.Sleep(500 * time.Millisecond)
	if d := r.Latest().Frame.Step - before; d > 10 {
		t.Errorf("rate cap 10/s allowed %d steps in 0.5 s", d)
	}
}

func TestRunnerEndStates(t *testing.T) {
	tests := []struct {
		set     map[string]string
		state   State
		step    int
		errText string
	}{
		{map[string]string{"limit": "40"}, Converged, 40, ""},
		{map[string]string{"fault": "diverge", "at": "9"}, Diverged, 9, "diverged"},
		{map[string]string{"fault": "nan", "at": "12"}, Diverged, 12, "metric n = NaN"},
		{map[string]string{"fault": "panic", "at": "6"}, Failed, 6, "panic in step: boom"},
		{map[string]string{"fault": "error", "at": "3"}, Failed, 3, "engine broke"},
	}
	for _, tt := range tests {
		// The speed keeps the NaN check, which runs on publication, close
		// to the step where it happened.
		r := newCounter(t, tt.set, RunnerOptions{Speed: 1000, Publish: time.Millisecond})
		s := waitFor(t, r, tt.state.String(), func(s *Snapshot) bool { return s.State.Done() })
		if s.State != tt.state {
			t.Errorf("%v: state %s, want %s", tt.set, s.State, tt.state)
		}
		if tt.state != Diverged || tt.set["fault"] != "nan" {
			if s.Frame.Step != tt.step {
				t.Errorf("%v: stopped at step %d, want %d", tt.set, s.Frame.Step, tt.step)
			}
		}
		if tt.errText != "" && (s.Err == nil || !strings.Contains(s.Err.Error(), tt.errText)) {
			t.Errorf("%v: error %v, want %q", tt.set, s.Err, tt.errText)
		}
		// A finished run does not restart on play; reset does.
		r.Play()
		if r.Latest().State != tt.state {
			t.Errorf("%v: play restarted a finished run", tt.set)
		}
		if err := r.Reset(); err != nil {
			t.Fatal(err)
		}
		if s := r.Latest(); s.State.Done() || s.Err != nil {
			t.Errorf("%v: after reset %s, %v", tt.set, s.State, s.Err)
		}
	}
}

func TestRunnerSetParameter(t *testing.T) {
	r := newCounter(t, nil, RunnerOptions{Paused: true})
	r.StepOnce()
	if err := r.Set("limit", "0"); err == nil || !strings.Contains(err.Error(), "parameter limit") {
		t.Errorf("out-of-range value: %v", err)
	}
	if err := r.Set("limit", "13"); err == nil || !strings.Contains(err.Error(), "unlucky") {
		t.Errorf("value the sim refuses: %v", err)
	}
	if s := r.Latest(); s.Frame.Step != 1 || counterLimit.Get(s.Values) == 13 {
		t.Errorf("a refused value touched the running sim: step %d, %s", s.Frame.Step, s.Values.Summary())
	}
	if err := r.Set("limit", "2"); err != nil {
		t.Fatal(err)
	}
	s := r.Latest()
	if s.Frame.Step != 0 || counterLimit.Get(s.Values) != 2 || !counterLimit.IsSet(s.Values) {
		t.Errorf("after Set: step %d, %s", s.Frame.Step, s.Values.Summary())
	}
	seed := s.Seed
	if err := r.Reseed(); err != nil {
		t.Fatal(err)
	}
	if r.Latest().Seed == seed {
		t.Error("Reseed kept the seed")
	}
}

// TestRunnerLatestWins checks that a reader that never reads does not hold
// the engine back, and that Latest is cheap and consistent.
func TestRunnerLatestWins(t *testing.T) {
	r := newCounter(t, nil, RunnerOptions{})
	time.Sleep(100 * time.Millisecond)
	first := r.Latest()
	time.Sleep(100 * time.Millisecond)
	second := r.Latest()
	if second.Frame.Step <= first.Frame.Step || second.Version <= first.Version {
		t.Errorf("no progress while unread: %d→%d", first.Frame.Step, second.Frame.Step)
	}
	if second.StepsPerSec <= 0 {
		t.Error("no measured rate")
	}
}

// TestRunnersDoNotLeak opens and closes many runners, in every state, and
// checks that no goroutine outlives its runner.
func TestRunnersDoNotLeak(t *testing.T) {
	before := runtime.NumGoroutine()
	for i := 0; i < 50; i++ {
		set := map[string]string{}
		if i%3 == 1 {
			set["limit"] = "3"
		}
		v, _ := Resolve(counterSpec.Params, set)
		r, err := NewRunner(counterSpec, Config{Values: v}, RunnerOptions{Paused: i%2 == 0, Speed: float64(i % 4 * 100)})
		if err != nil {
			t.Fatal(err)
		}
		r.StepOnce()
		r.Close()
		r.Close() // idempotent
		r.Play()  // a command after Close returns at once
	}
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines before, %d after closing every runner", before, n)
	}
}

// slow is a sim whose every step takes 200 ms.
type slow struct{ counter }

func (s *slow) Step() error { time.Sleep(200 * time.Millisecond); return s.counter.Step() }

// TestAckWaitBoundsSlowSteps: with AckWait a command returns before a slow
// step ends, and still takes effect.
func TestAckWaitBoundsSlowSteps(t *testing.T) {
	spec := *counterSpec
	spec.New = func(c Config) (Sim, error) { return &slow{counter{limit: 1 << 30, fault: "none"}}, nil }
	r, err := NewRunner(&spec, Config{}, RunnerOptions{AckWait: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	time.Sleep(20 * time.Millisecond) // a step is under way
	start := time.Now()
	r.Pause()
	if took := time.Since(start); took > 100*time.Millisecond {
		t.Errorf("Pause waited %v for a slow step", took)
	}
	waitFor(t, r, "the pause to land", func(s *Snapshot) bool { return s.State == Paused })
}

// busy is a sim whose every step burns about a millisecond of CPU.
type busy struct{ counter }

func (b *busy) Step() error {
	for start := time.Now(); time.Since(start) < time.Millisecond; {
	}
	return b.counter.Step()
}

// TestCPUCap: a runner capped at a fifth of a core takes about a fifth as
// many millisecond steps as the wall time allows, at full speed.
func TestCPUCap(t *testing.T) {
	spec := *counterSpec
	spec.New = func(c Config) (Sim, error) { return &busy{counter{limit: 1 << 30, fault: "none"}}, nil }
	r, err := NewRunner(&spec, Config{}, RunnerOptions{CPUCap: 0.2})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	time.Sleep(1500 * time.Millisecond)
	// 1.5 s at 0.2 core is 300 ms of stepping: at most ~300 steps (fewer on
	// a loaded machine, where a step takes longer than 1 ms).
	if n := r.Latest().Frame.Step; n > 400 || n < 30 {
		t.Errorf("%d millisecond steps in 1.5 s at a 0.2-core cap", n)
	}
}
