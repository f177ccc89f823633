package sims

import (
	"errors"
	"math"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/thelab/lab/sims/param"
)

// counter is a test sim: its metric is the step count; it converges at
// "limit", and at "at" misbehaves as "fault" says. Its estimated size is
// "mb" megabytes (2^20 bytes).
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
	counterMB    = param.Int("mb", 1, "").Range(0, 1e6)
	counterSpec  = &Spec{
		Name: "counter", Title: "test", Source: "test", Steps: 10,
		Params: param.List(counterLimit, counterFault, counterAt, counterMB),
		New: func(c Config) (Sim, error) {
			if counterLimit.Get(c.Values) == 13 {
				return nil, errors.New("limit 13 is unlucky")
			}
			return &counter{limit: counterLimit.Get(c.Values), fault: counterFault.Get(c.Values), at: counterAt.Get(c.Values), seed: c.Seed}, nil
		},
		Size: func(c Config) int64 { return int64(counterMB.Get(c.Values)) << 20 },
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
	r, err := NewRunner(counterSpec, Config{Values: counterValues(t, set), Seed: 7}, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return r
}

func counterValues(t testing.TB, set map[string]string) Values {
	t.Helper()
	v, err := Resolve(counterSpec.Params, set)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// deadline bounds every wait in these tests: far longer than anything
// takes on a loaded machine under the race detector, so that reaching it
// means the event will not come.
const deadline = 10 * time.Second

// waitFor polls the runner until cond holds, failing at the deadline.
func waitFor(t *testing.T, r *Runner, what string, cond func(*Snapshot) bool) *Snapshot {
	t.Helper()
	end := time.Now().Add(deadline)
	for {
		s := r.Latest()
		if cond(s) {
			return s
		}
		if time.Now().After(end) {
			t.Fatalf("timed out waiting for %s; last state %s at step %d", what, s.State, s.Frame.Step)
		}
		time.Sleep(time.Millisecond)
	}
}

// await waits for a command's acknowledgement, failing at the deadline.
func await(t *testing.T, what string, c <-chan struct{}) {
	t.Helper()
	select {
	case <-c:
	case <-time.After(deadline):
		t.Fatalf("timed out waiting for %s", what)
	}
}

// wait waits for a build to end and returns its error.
func wait(t *testing.T, b *Build) error {
	t.Helper()
	await(t, "a build", b.Done())
	return b.Err()
}

func TestRunnerPausedStepping(t *testing.T) {
	r := newCounter(t, nil, RunnerOptions{Paused: true})
	if s := r.Latest(); s.State != Paused || s.Frame.Step != 0 {
		t.Fatalf("start: %s at %d", s.State, s.Frame.Step)
	}
	for i := 1; i <= 3; i++ {
		await(t, "a step", r.Step(1))
		if s := r.Latest(); s.Frame.Step != i || s.State != Paused {
			t.Fatalf("after %d single steps: %s at %d", i, s.State, s.Frame.Step)
		}
	}
	await(t, "many steps", r.Step(1234))
	if s := r.Latest(); s.Frame.Step != 1237 || s.State != Paused {
		t.Fatalf("Step(1234): %s at %d", s.State, s.Frame.Step)
	}
	for range 10 {
		await(t, "sync", r.Sync())
	}
	if s := r.Latest(); s.Frame.Step != 1237 {
		t.Errorf("a paused runner stepped on its own: %d", s.Frame.Step)
	}
	if res := r.Result(); res["n"] != 1237 {
		t.Errorf("Result: %v", res)
	}
}

func TestRunnerPlayPauseToggle(t *testing.T) {
	r := newCounter(t, nil, RunnerOptions{Paused: true})
	r.Play()
	waitFor(t, r, "progress", func(s *Snapshot) bool { return s.Frame.Step > 100 })
	await(t, "pause", r.Pause())
	at := r.Latest().Frame.Step
	await(t, "sync", r.Sync())
	if s := r.Latest(); s.State != Paused || s.Frame.Step != at {
		t.Errorf("pause: %s, step %d then %d", s.State, at, s.Frame.Step)
	}
	await(t, "toggle", r.Toggle())
	if r.Latest().State != Running {
		t.Error("toggle from paused did not run")
	}
	// A single step pauses a running sim.
	await(t, "a step", r.Step(1))
	if r.Latest().State != Paused {
		t.Error("a step left the sim running")
	}
}

// TestRunnerSpeed: a paced runner never runs ahead of its speed (an upper
// bound, which load cannot break) and does make progress.
func TestRunnerSpeed(t *testing.T) {
	began := time.Now()
	r := newCounter(t, nil, RunnerOptions{Speed: 100})
	waitFor(t, r, "ten steps", func(s *Snapshot) bool { return s.Frame.Step >= 10 })
	await(t, "sync", r.Sync())
	if n, most := r.Latest().Frame.Step, int(100*time.Since(began).Seconds())+1; n > most {
		t.Errorf("at 100 steps/s, %d steps in %v", n, time.Since(began))
	}
	if s := r.Latest(); s.Speed != 100 {
		t.Errorf("speed %v", s.Speed)
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
		// Single steps publish a frame each, so the NaN check, which runs
		// on publication, sees the step where it happened.
		r := newCounter(t, tt.set, RunnerOptions{Paused: true, Speed: 1})
		for i := 0; i < 50 && !r.Latest().State.Done(); i++ {
			await(t, "a step", r.Step(1))
		}
		s := r.Latest()
		if s.State != tt.state || s.Frame.Step != tt.step {
			t.Errorf("%v: %s at step %d, want %s at %d", tt.set, s.State, s.Frame.Step, tt.state, tt.step)
		}
		if tt.errText != "" && (s.Err == nil || !strings.Contains(s.Err.Error(), tt.errText)) {
			t.Errorf("%v: error %v, want %q", tt.set, s.Err, tt.errText)
		}
		// A finished run does not restart on play; reset does.
		await(t, "play", r.Play())
		if r.Latest().State != tt.state {
			t.Errorf("%v: play restarted a finished run", tt.set)
		}
		if err := wait(t, r.Reset()); err != nil {
			t.Fatal(err)
		}
		// A reset of a finished run runs it again (at 1 step/s here).
		if s := r.Latest(); s.State != Running || s.Err != nil || s.Frame.Step > 1 {
			t.Errorf("%v: after reset %s at %d, %v", tt.set, s.State, s.Frame.Step, s.Err)
		}
	}
	// Running at full speed, each run ends in the same state.
	for _, tt := range tests {
		r := newCounter(t, tt.set, RunnerOptions{})
		s := waitFor(t, r, tt.state.String(), func(s *Snapshot) bool { return s.State.Done() })
		if s.State != tt.state {
			t.Errorf("%v at full speed: %s, want %s", tt.set, s.State, tt.state)
		}
	}
}

func TestRunnerSetParameter(t *testing.T) {
	r := newCounter(t, nil, RunnerOptions{})
	if err := wait(t, r.Set("limit", "0")); err == nil || !strings.Contains(err.Error(), "parameter limit") {
		t.Errorf("out-of-range value: %v", err)
	}
	// A value the sim refuses leaves the old sim running, with the reason.
	if err := wait(t, r.Set("limit", "13")); err == nil || !strings.Contains(err.Error(), "unlucky") {
		t.Errorf("value the sim refuses: %v", err)
	}
	s := r.Latest()
	if counterLimit.Get(s.Values) == 13 || s.BuildErr == nil || !strings.Contains(s.BuildErr.Error(), "unlucky") || s.Building {
		t.Errorf("after a refused build: %s, build error %v, building %v", s.Values.Summary(false), s.BuildErr, s.Building)
	}
	at := s.Frame.Step
	waitFor(t, r, "the old sim to go on", func(s *Snapshot) bool { return s.Frame.Step > at+100 && s.State == Running })
	// The next request starts from the running sim's values, not the refused ones.
	if err := wait(t, r.Set("at", "6")); err != nil {
		t.Fatal(err)
	}
	s = r.Latest()
	if counterLimit.Get(s.Values) != 1e9 || counterAt.Get(s.Values) != 6 || s.BuildErr != nil {
		t.Errorf("after a good change: %s, build error %v", s.Values.Summary(false), s.BuildErr)
	}
	await(t, "pause", r.Pause())
	if err := wait(t, r.Set("limit", "2")); err != nil {
		t.Fatal(err)
	}
	s = r.Latest()
	if s.Frame.Step != 0 || counterLimit.Get(s.Values) != 2 || !counterLimit.IsSet(s.Values) || s.State != Paused {
		t.Errorf("after Set: %s at step %d, %s", s.State, s.Frame.Step, s.Values.Summary(false))
	}
	seed := s.Seed
	if err := wait(t, r.Reseed()); err != nil {
		t.Fatal(err)
	}
	if got := r.Latest().Seed; got != seed+1 {
		t.Errorf("Reseed from seed %d: seed %d, want the next one", seed, got)
	}
}

// TestTakenCountsSteps: Taken counts the steps of every sim the runner
// ran, as they are taken.
func TestTakenCountsSteps(t *testing.T) {
	r, err := NewRunner(counterSpec, Config{}, RunnerOptions{Paused: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	await(t, "steps", r.Step(7))
	if got := r.Taken(); got != 7 {
		t.Errorf("after 7 steps: Taken %d", got)
	}
	if err := wait(t, r.Reset()); err != nil {
		t.Fatal(err)
	}
	await(t, "steps", r.Step(3))
	if got := r.Taken(); got != 10 {
		t.Errorf("after a reset and 3 more steps: Taken %d, want 10", got)
	}
}

// TestFirstBuildFails: a runner whose first sim cannot be built is Failed
// with the reason, and a good parameter starts it.
func TestFirstBuildFails(t *testing.T) {
	if _, err := NewRunner(counterSpec, Config{Values: counterValues(t, map[string]string{"limit": "13"})}, RunnerOptions{}); err == nil {
		t.Error("NewRunner built an unlucky counter")
	}
	r, b := StartRunner(counterSpec, Config{Values: counterValues(t, map[string]string{"limit": "13"})}, RunnerOptions{})
	defer r.Close()
	if err := wait(t, b); err == nil {
		t.Fatal("no error")
	}
	if s := r.Latest(); s.State != Failed || s.Err == nil || !strings.Contains(s.Err.Error(), "unlucky") || s.Building {
		t.Errorf("after a failed first build: %s, %v", s.State, s.Err)
	}
	if err := wait(t, r.Set("limit", "20")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, r, "the fixed sim to converge", func(s *Snapshot) bool { return s.State == Converged && s.Frame.Step == 20 })
}

// TestRunnerLatestWins checks that a reader that never reads does not hold
// the engine back, and that Latest is cheap and consistent.
func TestRunnerLatestWins(t *testing.T) {
	r := newCounter(t, nil, RunnerOptions{})
	first := waitFor(t, r, "progress", func(s *Snapshot) bool { return s.Frame.Step > 1000 })
	second := waitFor(t, r, "more progress", func(s *Snapshot) bool { return s.Frame.Step > first.Frame.Step+1000 })
	if second.Version <= first.Version {
		t.Errorf("versions %d then %d", first.Version, second.Version)
	}
	waitFor(t, r, "a measured rate", func(s *Snapshot) bool { return s.StepsPerSec > 0 })
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
		r, err := NewRunner(counterSpec, Config{Values: counterValues(t, set)}, RunnerOptions{Paused: i%2 == 0, Speed: float64(i % 4 * 100)})
		if err != nil {
			t.Fatal(err)
		}
		r.Step(1)
		if i%5 == 0 {
			r.Reset()
		}
		r.Close()
		r.Close()  // idempotent
		<-r.Play() // a command after Close returns at once
		if err := r.Reset().Wait(); !errors.Is(err, ErrClosed) {
			t.Errorf("a build after Close: %v", err)
		}
	}
	end := time.Now().Add(deadline)
	for runtime.NumGoroutine() > before && time.Now().Before(end) {
		time.Sleep(5 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines before, %d after closing every runner", before, n)
	}
}

// gated is a sim whose steps, and whose builds when "at" is 77 or 78, wait
// for the test to open their gate: a step or a build that takes as long as
// the test wants, without sleeping.
type gated struct {
	counter
	gate chan struct{}
}

func (g *gated) Step() error {
	<-g.gate
	return g.counter.Step()
}

// gatedSpec builds gated sims on gate; New blocks on builds[at] for at in
// builds, and counts the sims it built for each "at".
func gatedSpec(gate chan struct{}, builds map[int]chan struct{}, built map[int]*atomic.Int64) *Spec {
	spec := *counterSpec
	spec.New = func(c Config) (Sim, error) {
		at := counterAt.Get(c.Values)
		if ch, ok := builds[at]; ok {
			<-ch
		}
		if n, ok := built[at]; ok {
			n.Add(1)
		}
		return &gated{counter{limit: 1 << 30, at: at, fault: "none"}, gate}, nil
	}
	return &spec
}

// TestCommandsNeverBlock: while a step is under way for as long as it
// likes, every command returns at once, and takes effect, in order, when
// the step ends.
func TestCommandsNeverBlock(t *testing.T) {
	gate := make(chan struct{})
	r, err := NewRunner(gatedSpec(gate, nil, nil), Config{}, RunnerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var acks []<-chan struct{}
	for range maxQueue/2 - 1 {
		acks = append(acks, r.Step(1), r.SetSpeed(10))
	}
	acks = append(acks, r.Pause())
	r.Reset() // the runner's own commands queue even when the queue is full
	// Beyond the queue's bound a caller's commands are dropped, at once.
	for range maxQueue {
		select {
		case <-r.Toggle():
		default:
			t.Fatal("a command beyond the bound was queued")
		}
	}
	select {
	case <-acks[0]:
		t.Fatal("a command was carried out during a step")
	default:
	}
	close(gate)
	for _, a := range acks {
		await(t, "the commands", a)
	}
	s := waitFor(t, r, "the pause and the reset", func(s *Snapshot) bool { return s.State == Paused && !s.Building && s.Frame.Step == 0 })
	if s.Speed != 10 {
		t.Errorf("speed %v", s.Speed)
	}
}

// TestRebuildOffTheLoop: while a new sim is built (here, for as long as the
// test likes) the old one keeps running and the snapshot says Building; a
// newer change supersedes it, and the superseded sim is never installed.
func TestRebuildOffTheLoop(t *testing.T) {
	slow77, slow78 := make(chan struct{}), make(chan struct{})
	built := map[int]*atomic.Int64{77: {}, 78: {}, 79: {}}
	gate := make(chan struct{})
	close(gate)
	r, err := NewRunner(gatedSpec(gate, map[int]chan struct{}{77: slow77, 78: slow78}, built), Config{}, RunnerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	b77 := r.Set("at", "77")
	s := waitFor(t, r, "building", func(s *Snapshot) bool { return s.Building })
	waitFor(t, r, "the old sim to go on", func(q *Snapshot) bool { return q.Frame.Step > s.Frame.Step+1000 })
	// Two more changes while 77 builds: 78 is superseded before it starts, 79 wins.
	b78 := r.Set("at", "78")
	b79 := r.Set("at", "79")
	if err := wait(t, b78); !errors.Is(err, ErrSuperseded) {
		t.Errorf("78: %v", err)
	}
	select {
	case <-b77.Done():
		t.Fatal("77 ended while its New was blocked")
	default:
	}
	close(slow77)
	if err := wait(t, b77); !errors.Is(err, ErrSuperseded) {
		t.Errorf("77: %v", err)
	}
	if err := wait(t, b79); err != nil {
		t.Fatal(err)
	}
	s = r.Latest()
	if counterAt.Get(s.Values) != 79 || s.Building {
		t.Errorf("after the builds: %s, building %v", s.Values.Summary(false), s.Building)
	}
	if built[77].Load() != 1 || built[78].Load() != 0 || built[79].Load() != 1 {
		t.Errorf("built 77×%d, 78×%d, 79×%d; want 1, 0, 1", built[77].Load(), built[78].Load(), built[79].Load())
	}
	close(slow78)
}

// settling is a counter with a cache that only Settle brings up to date
// (sims.Settler): its frames report how far behind the cache is.
type settling struct {
	*counter
	at int // the step the cache was settled at
}

func (s *settling) Settle() { s.at = s.n }

func (s *settling) Frame() Frame {
	f := s.counter.Frame()
	f.Metrics = append(f.Metrics, Metric{Name: "behind", Value: float64(s.n - s.at)})
	return f
}

// TestRunnerSettlesFramesNotRunning: a Settler's frames published for a
// sim that is not running (stepped, paused: every frame of `lab run`) are
// settled; while it runs they are not (the sim throttles its cache).
func TestRunnerSettlesFramesNotRunning(t *testing.T) {
	spec := *counterSpec
	spec.New = func(c Config) (Sim, error) {
		sim, err := counterSpec.New(c)
		if err != nil {
			return nil, err
		}
		return &settling{counter: sim.(*counter)}, nil
	}
	r, err := NewRunner(&spec, Config{Values: counterValues(t, nil), Seed: 7}, RunnerOptions{Paused: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	await(t, "steps", r.Step(500))
	if b, _ := r.Latest().Frame.Metric("behind"); b != 0 {
		t.Errorf("a stepped frame is %g steps behind, want settled", b)
	}
	r.Play()
	waitFor(t, r, "a running frame behind its cache", func(s *Snapshot) bool {
		b, _ := s.Frame.Metric("behind")
		return s.State == Running && b > 0
	})
	await(t, "pause", r.Pause())
	if s := r.Latest(); s.State != Paused {
		t.Fatalf("state %s", s.State)
	} else if b, _ := s.Frame.Metric("behind"); b != 0 {
		t.Errorf("the paused frame is %g steps behind, want settled", b)
	}
}

// TestHeadlessReachesEveryBuild: a runner made for a headless run tells
// its first build and every rebuild that nobody watches; a pane's runner
// tells none.
func TestHeadlessReachesEveryBuild(t *testing.T) {
	for _, headless := range []bool{false, true} {
		var seen []bool
		spec := &Spec{Name: "watch", Steps: 1, New: func(c Config) (Sim, error) {
			seen = append(seen, c.Headless)
			return &counter{}, nil
		}}
		r, err := NewRunner(spec, Config{Headless: headless}, RunnerOptions{Paused: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := wait(t, r.Reset()); err != nil {
			t.Fatal(err)
		}
		r.Close()
		if len(seen) != 2 || seen[0] != headless || seen[1] != headless {
			t.Errorf("headless %v: builds saw %v", headless, seen)
		}
	}
}

// TestBuildChecksTheSize: Spec.Build refuses a configuration estimated
// over MaxBytes before building it; a Size that panics lets the sim's own
// refusal speak, and is reported as a panic if the sim builds anyway; and
// EstimateSize counts such a configuration as MaxBytes.
func TestBuildChecksTheSize(t *testing.T) {
	panicky := *counterSpec
	panicky.Size = func(Config) int64 { panic("no rows") }
	for _, tc := range []struct {
		name string
		spec *Spec
		set  map[string]string
		want string // "" builds
	}{
		{"within", counterSpec, map[string]string{"mb": "1"}, ""},
		{"over MaxBytes", counterSpec, map[string]string{"mb": "1000"}, "more than the 201 MB the lab lets one sim hold"},
		{"size panics, sim refuses", &panicky, map[string]string{"limit": "13"}, "limit 13 is unlucky"},
		{"size panics, sim builds", &panicky, nil, "panic while estimating counter's size: no rows"},
	} {
		vals, err := Resolve(tc.spec.Params, tc.set)
		if err != nil {
			t.Fatal(err)
		}
		sim, err := tc.spec.Build(Config{Values: vals, Seed: 1})
		switch {
		case tc.want == "" && (err != nil || sim == nil):
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	if n := panicky.EstimateSize(Config{}); n != MaxBytes {
		t.Errorf("a Size that panics is estimated %d, want MaxBytes", n)
	}
}

// decay is a sim whose metric f falls from 10 to rounding noise (10⁻¹⁷ at
// step 3), beside one always that small, and one that small with a scale
// of its own.
type decay struct{ n int }

var decaySpec = &Spec{Name: "decay", Title: "test", Source: "test", Steps: 10,
	New: func(Config) (Sim, error) { return &decay{}, nil }, Size: func(Config) int64 { return 1 << 10 }}

func (d *decay) Step() error { d.n++; return nil }

func (d *decay) Frame() Frame {
	return Frame{Sim: "decay", Step: d.n, Metrics: []Metric{
		{Name: "f", Value: 10 * math.Pow(1e-6, float64(d.n))},
		{Name: "tiny", Value: 1e-17},
		{Name: "given", Value: 1e-17, Scale: 1},
	}}
}

func (d *decay) Result() map[string]any { return nil }

// TestMetricScales: a runner gives each metric without a Scale the
// largest |value| it has published since the build, so that a value fallen
// to rounding error reads as negligible while one that was always that
// small does not; a Scale the sim gives is kept.
func TestMetricScales(t *testing.T) {
	r, err := NewRunner(decaySpec, Config{}, RunnerOptions{Paused: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	for range 3 {
		await(t, "a step", r.Step(1))
	}
	s := r.Latest()
	if s.Frame.Step != 3 {
		t.Fatalf("at step %d", s.Frame.Step)
	}
	for i, want := range []struct {
		scale      float64
		negligible bool
	}{{10, true}, {1e-17, false}, {1, true}} {
		m := s.Frame.Metrics[i]
		if m.Scale != want.scale || m.Negligible() != want.negligible {
			t.Errorf("%s = %g: scale %g, negligible %v; want %g, %v", m.Name, m.Value, m.Scale, m.Negligible(), want.scale, want.negligible)
		}
	}
	if (Metric{Value: 1e-9, Scale: 10}).Negligible() || (Metric{Value: 0, Scale: 10}).Negligible() {
		t.Error("1e-9 at scale 10, or an exact 0, counted as rounding error")
	}
}

// TestReplay: a converged run of a sim that declares Replay stays on show
// for that long and then the next seed's run starts, again and again; a
// headless run, and a run that converged under single steps, stay.
func TestReplay(t *testing.T) {
	spec := *counterSpec
	spec.Replay = 40 * time.Millisecond
	tests := []struct {
		name     string
		headless bool
		stepped  bool
		replays  bool
	}{
		{"pane", false, false, true},
		{"headless", true, false, false},
		{"stepped by hand", false, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := Config{Values: counterValues(t, map[string]string{"limit": "5"}), Seed: 7, Headless: tt.headless}
			r, err := NewRunner(&spec, cfg, RunnerOptions{Paused: tt.stepped})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if tt.stepped {
				for !r.Latest().State.Done() {
					await(t, "a step", r.Step(1))
				}
			}
			began := time.Now()
			s := waitFor(t, r, "convergence", func(s *Snapshot) bool { return s.State == Converged })
			if s.Replaying != tt.replays {
				t.Errorf("converged: Replaying %v, want %v", s.Replaying, tt.replays)
			}
			if !tt.replays {
				time.Sleep(3 * spec.Replay)
				if s := r.Latest(); s.State != Converged || s.Seed != 7 || s.Replaying {
					t.Errorf("after %v: %s, seed %d, replaying %v; want converged on seed 7", 3*spec.Replay, s.State, s.Seed, s.Replaying)
				}
				return
			}
			for _, seed := range []uint64{8, 9} {
				s := waitFor(t, r, "the next seed", func(s *Snapshot) bool { return s.Seed == seed && !s.Building })
				// began is a poll (≤ 1 ms) after the convergence
				if took := time.Since(began); took < spec.Replay-5*time.Millisecond {
					t.Errorf("seed %d started %v after the last run converged, before the %v pause", seed, took, spec.Replay)
				}
				if s.State == Converged && s.Frame.Step < 5 || s.State == Paused || s.State.Done() && s.State != Converged {
					t.Errorf("seed %d: %s at step %d", seed, s.State, s.Frame.Step)
				}
				waitFor(t, r, "convergence", func(s *Snapshot) bool { return s.State == Converged && s.Seed == seed })
				began = time.Now()
			}
			// A reset during the pause replaces the replay: the same seed
			// runs again.
			waitFor(t, r, "replaying", func(s *Snapshot) bool { return s.Replaying })
			if err := wait(t, r.Reset()); err != nil {
				t.Fatal(err)
			}
			waitFor(t, r, "convergence", func(s *Snapshot) bool { return s.State == Converged })
			if s := r.Latest(); s.Seed != 9 {
				t.Errorf("after a reset in the pause, seed %d, want 9", s.Seed)
			}
		})
	}
}

// tuned is a counter with a live parameter, gain, that it publishes.
type tuned struct {
	counter
	gain float64
}

var (
	tunedGain = param.Float("gain", 1, "").Range(0, 10).Live()
	tunedSpec = &Spec{Name: "tuned", Title: "test", Source: "test", Steps: 10,
		Params: param.List(counterLimit, tunedGain),
		New: func(c Config) (Sim, error) {
			return &tuned{counter: counter{limit: counterLimit.Get(c.Values)}, gain: tunedGain.Get(c.Values)}, nil
		}}
)

func (s *tuned) Tune(v Values) error {
	if g := tunedGain.Get(v); g == 3 {
		return errors.New("gain 3 is unlucky")
	}
	s.gain = tunedGain.Get(v)
	return nil
}

func (s *tuned) Frame() Frame {
	return Frame{Sim: "tuned", Step: s.n, Metrics: []Metric{{Name: "gain", Value: s.gain}}}
}

// TestLiveParametersRetune: a change of live parameters alone retunes
// the running sim in place (its steps kept, no build); one the sim
// refuses leaves it running with its values and the reason; any other
// change rebuilds it.
func TestLiveParametersRetune(t *testing.T) {
	r, err := NewRunner(tunedSpec, Config{Values: tunedSpec.Defaults(), Seed: 7}, RunnerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	await(t, "pause", r.Pause())
	await(t, "steps", r.Step(5))
	at := r.Latest().Frame.Step
	if err := wait(t, r.Set("gain", "2")); err != nil {
		t.Fatal(err)
	}
	s := r.Latest()
	if s.Frame.Step != at || s.Frame.Metrics[0].Value != 2 || tunedGain.Get(s.Values) != 2 || s.Building {
		t.Errorf("after a live change: step %d, gain %v, values %s: want step %d, gain 2", s.Frame.Step, s.Frame.Metrics[0].Value, s.Values.Summary(false), at)
	}
	if err := wait(t, r.Set("gain", "3")); err == nil || !strings.Contains(err.Error(), "unlucky") {
		t.Errorf("a value the sim refuses: %v", err)
	}
	s = r.Latest()
	if s.Frame.Step != at || tunedGain.Get(s.Values) != 2 || s.BuildErr == nil {
		t.Errorf("after a refused retune: step %d, values %s, build error %v", s.Frame.Step, s.Values.Summary(false), s.BuildErr)
	}
	if err := wait(t, r.Set("limit", "100")); err != nil {
		t.Fatal(err)
	}
	s = r.Latest()
	if s.Frame.Step != 0 || tunedGain.Get(s.Values) != 2 || counterLimit.Get(s.Values) != 100 || s.BuildErr != nil {
		t.Errorf("after a change that is not live: step %d, values %s: want a new sim at step 0 with gain 2", s.Frame.Step, s.Values.Summary(false))
	}
}
