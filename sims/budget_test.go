package sims

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/thelab/lab/internal/cputime"
)

// fakeClock is a budget's clock moved by hand.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time      { return c.t }
func (c *fakeClock) add(d time.Duration) { c.t = c.t.Add(d) }
func budgetAt(l Limits) (*Budget, *fakeClock) {
	c := &fakeClock{t: time.Unix(1e9, 0)}
	return newBudget(l, c.now), c
}

// TestStepBucket: a greedy caller who asks for a thousand steps each time
// and comes back exactly when told gets no more than the rate allows over
// ten (simulated) seconds, plus the bucket's burst; and it is never told to
// wait when a step is there.
func TestStepBucket(t *testing.T) {
	b, clock := budgetAt(Limits{StepsPerSec: 300})
	if g, w := b.allowSteps(1000); g != 10 || w != 0 {
		t.Fatalf("first call: %d steps, wait %v; want the burst of 10", g, w)
	}
	g, w := b.allowSteps(1000)
	if g != 0 || w <= 0 || w > 4*time.Millisecond {
		t.Fatalf("empty bucket: %d steps, wait %v; want 0 and 1/300 s", g, w)
	}
	clock.add(20 * time.Millisecond)
	if g, _ := b.allowSteps(1000); g != 6 {
		t.Errorf("after 20 ms: %d steps, want 6", g)
	}
	total := 0
	for start := clock.t; clock.t.Sub(start) < 10*time.Second; {
		g, w := b.allowSteps(1000)
		total += g
		if g == 0 && w <= 0 {
			t.Fatal("no steps and no wait")
		}
		clock.add(w)
		if g > 0 {
			clock.add(time.Millisecond) // the steps take time
		}
	}
	if total > 3000+10 || total < 2900 {
		t.Errorf("%d steps in 10 s at 300/s", total)
	}
	// No limit: everything asked is granted.
	if g, w := (*Budget)(nil).allowSteps(77); g != 77 || w != 0 {
		t.Errorf("nil budget: %d, %v", g, w)
	}
	if g, w := NewBudget(Limits{}).allowSteps(77); g != 77 || w != 0 {
		t.Errorf("no limits: %d, %v", g, w)
	}
}

// TestCPURest: a session starts with a second's worth of its share of a
// core; work is charged after it is done, and a session in debt rests
// until it has paid for it.
func TestCPURest(t *testing.T) {
	b, clock := budgetAt(Limits{Cores: 0.25})
	if g, _ := b.allowSteps(5); g != 5 {
		t.Fatal("a fresh budget refused steps")
	}
	b.charge(100*time.Millisecond, 5, 0)
	if _, w := b.allowSteps(1); w != 0 {
		t.Errorf("after 100 ms of work within the burst of 250 ms: rest %v", w)
	}
	b.charge(200*time.Millisecond, 0, 0)
	if _, w := b.allowSteps(1); w != 200*time.Millisecond {
		t.Errorf("50 ms in debt at a quarter core: rest %v, want 200 ms", w)
	}
	clock.add(199 * time.Millisecond)
	if g, w := b.allowSteps(1); g != 0 || w != time.Millisecond {
		t.Errorf("1 ms early: %d steps, rest %v", g, w)
	}
	clock.add(time.Millisecond)
	if g, _ := b.allowSteps(1); g != 1 {
		t.Error("no step once rested")
	}
	// A 2 s build at a quarter core: the session rests 8 s.
	b.charge(2*time.Second, 0, 1)
	rested := time.Duration(0)
	for {
		w := b.allowBuild()
		if w == 0 {
			break
		}
		clock.add(w)
		rested += w
	}
	if rested < 7900*time.Millisecond || rested > 8100*time.Millisecond {
		t.Errorf("rested %v after a 2 s build at a quarter core, want 8 s", rested)
	}
	if u := b.Usage(); u.Steps != 5 || u.Builds != 1 || u.Busy != 2300*time.Millisecond {
		t.Errorf("usage %+v", u)
	}
}

// TestVisitorAccount: sessions of one visitor share the account's cap, and
// a session's debt passes to the visitor's next session, so reconnecting
// does not reset it; an account in credit with no session may be forgotten.
func TestVisitorAccount(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1e9, 0)}
	acct := NewAccount(0.5, nil)
	acct.cpu.last = clock.t
	b1 := newBudget(Limits{Cores: 0.25, Visitor: acct}, clock.now)
	b2 := newBudget(Limits{Cores: 0.25, Visitor: acct}, clock.now)
	// Together past the visitor's burst of half a second: both rest until
	// the visitor is out of debt, though b2 spent nothing.
	b1.charge(400*time.Millisecond, 0, 0)
	b1.charge(400*time.Millisecond, 0, 0)
	if w := b2.Rest(); w != 600*time.Millisecond {
		t.Errorf("b2 rests %v, want the visitor's 300 ms of debt at half a core: 600 ms", w)
	}
	if w := b1.Rest(); w != 2200*time.Millisecond {
		t.Errorf("b1 rests %v, want its own 550 ms of debt at a quarter core: 2.2 s", w)
	}
	if acct.Idle() {
		t.Error("an account with sessions is idle")
	}
	// b1 leaves in debt; the next session starts from that debt.
	b1.Close()
	b2.Close()
	clock.add(200 * time.Millisecond)
	b3 := newBudget(Limits{Cores: 0.25, Visitor: acct}, clock.now)
	if got := b3.cpu.tokens; got != -500*time.Millisecond {
		t.Errorf("the next session starts with %v, want the debt of -550 ms refilled for 200 ms: -500 ms", got)
	}
	b3.Close()
}

// TestBuildBucket: a burst of builds, then the rate.
func TestBuildBucket(t *testing.T) {
	b, clock := budgetAt(Limits{RebuildsPerSec: 2})
	for i := range DefaultRebuildBurst {
		if w := b.allowBuild(); w != 0 {
			t.Fatalf("build %d of the burst waits %v", i, w)
		}
	}
	if w := b.allowBuild(); w != 500*time.Millisecond {
		t.Fatalf("after the burst: wait %v, want 500 ms", w)
	}
	clock.add(500 * time.Millisecond)
	if w := b.allowBuild(); w != 0 {
		t.Errorf("after 500 ms: wait %v", w)
	}
}

// TestMemoryAccounting: a build reserves its estimate as a replacement of
// the runner's present sim; the others' count against it.
func TestMemoryAccounting(t *testing.T) {
	pool := NewPool(12 << 20)
	b := NewBudget(Limits{Memory: 10 << 20, Server: pool})
	r1, r2 := &Runner{spec: counterSpec}, &Runner{spec: counterSpec}
	if err := b.reserve(r1, 6<<20); err != nil {
		t.Fatal(err)
	}
	b.settle(r1, true)
	var me *MemoryError
	// r1's 6 MB runs on while its replacement is built: both count.
	if err := b.reserve(r1, 5<<20); !errors.As(err, &me) || !strings.Contains(err.Error(), "this session holds 6.3 MB of its 10 MB memory budget") {
		t.Fatalf("a replacement that does not fit beside the sim it replaces: %v", err)
	}
	if err := b.reserve(r1, 3<<20); err != nil {
		t.Fatalf("a replacement that fits: %v", err)
	}
	if u := b.Usage(); u.Memory != 9<<20 || pool.Used() != 9<<20 {
		t.Errorf("while building: %d bytes, %d from the pool", u.Memory, pool.Used())
	}
	b.settle(r1, true) // it was built: r1 holds 3 MB
	if u := b.Usage(); u.Memory != 3<<20 || pool.Used() != 3<<20 {
		t.Errorf("once built: %d bytes, %d from the pool", u.Memory, pool.Used())
	}
	// The server's pool runs short before the session's budget does.
	other := NewBudget(Limits{Server: pool})
	if err := other.Hold("state", 7<<20); err != nil {
		t.Fatal(err)
	}
	if err := b.reserve(r2, 4<<20); !errors.As(err, &me) || !me.Server || !strings.Contains(err.Error(), "this server has 10 MB of its 13 MB") {
		t.Errorf("over the server's total: %v", err)
	}
	other.Close()
	if err := b.reserve(r2, 4<<20); err != nil {
		t.Fatal(err)
	}
	b.release(r2)
	b.release(r1)
	if u := b.Usage(); u.Memory != 0 || len(b.sizes) != 0 || pool.Used() != 0 {
		t.Errorf("after release: %d bytes, %d runners, %d from the pool", u.Memory, len(b.sizes), pool.Used())
	}
	// Holds count like sims, and Close gives them back.
	if err := b.Hold("screen", 11<<20); !errors.As(err, &me) {
		t.Errorf("a hold over the budget: %v", err)
	}
	if err := b.Hold("screen", 2<<20); err != nil || pool.Used() != 2<<20 {
		t.Errorf("a hold: %v, %d from the pool", err, pool.Used())
	}
	b.Close()
	if pool.Used() != 0 {
		t.Errorf("after Close: %d from the pool", pool.Used())
	}
	if err := b.Hold("screen", 1); !errors.Is(err, ErrClosed) {
		t.Errorf("a hold after Close: %v", err)
	}
	for _, tt := range []struct {
		n    int64
		want string
	}{{0, "0 B"}, {999, "999 B"}, {1500, "1.5 kB"}, {12_345, "12 kB"}, {3_400_000, "3.4 MB"}, {1 << 40, "1100 GB"}} {
		if got := Bytes(tt.n); got != tt.want {
			t.Errorf("Bytes(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

// TestSingleStepsAreCharged: single steps pasted in a burst (a key held
// down) and a pane at full speed share one session's step cap: together
// they never take more than the cap allows since the budget was made.
func TestSingleStepsAreCharged(t *testing.T) {
	began := time.Now()
	budget := NewBudget(Limits{StepsPerSec: 50})
	held := newCounter(t, nil, RunnerOptions{Paused: true, Budget: budget})
	flat := newCounter(t, nil, RunnerOptions{Budget: budget})
	for range 2000 {
		held.Step(1)
	}
	end := time.Now().Add(deadline)
	for time.Now().Before(end) && (budget.Usage().Steps < 40 || held.Latest().Frame.Step == 0 || flat.Latest().Frame.Step == 0) {
		time.Sleep(time.Millisecond)
	}
	elapsed := time.Since(began)
	steps := budget.Usage().Steps
	if most := int64(50*elapsed.Seconds()) + 2; steps > most || steps < 40 {
		t.Errorf("%d steps in %v under a cap of 50/s (at most %d)", steps, elapsed, most)
	}
	// Pausing drops the single steps not yet taken (and acknowledges
	// them: until then they wait for their turn).
	await(t, "pause", held.Pause())
	at := held.Latest().Frame.Step
	if at == 0 || flat.Latest().Frame.Step == 0 {
		t.Errorf("a runner was starved: %d single steps, %d at full speed", at, flat.Latest().Frame.Step)
	}
	await(t, "sync", held.Sync())
	if s := held.Latest(); s.Frame.Step != at || at >= 2000 {
		t.Errorf("after pause: step %d then %d", at, s.Frame.Step)
	}
}

// burn spends d of CPU time on the calling thread: what a budget charges,
// whatever a loaded machine does to the wall time.
func burn(d time.Duration) {
	t0 := cputime.Start()
	for cputime.Thread()-t0 < d {
	}
	cputime.Stop(t0)
}

// busy is a sim whose every step burns about a millisecond of CPU.
type busy struct{ counter }

func (b *busy) Step() error {
	burn(time.Millisecond)
	return b.counter.Step()
}

// TestCPUCap: two runners at full speed, each step a millisecond of work,
// share a fifth of a core: the time they spend never exceeds a fifth of the
// time elapsed (plus the steps under way), and both progress.
func TestCPUCap(t *testing.T) {
	spec := *counterSpec
	spec.New = func(c Config) (Sim, error) { return &busy{counter{limit: 1 << 30, fault: "none"}}, nil }
	began := time.Now()
	budget := NewBudget(Limits{Cores: 0.2})
	var rs []*Runner
	for range 2 {
		r, err := NewRunner(&spec, Config{}, RunnerOptions{Budget: budget})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		rs = append(rs, r)
	}
	for _, r := range rs {
		waitFor(t, r, "progress", func(s *Snapshot) bool { return s.Frame.Step >= 100 })
	}
	// Uncapped, 200 such steps take 100 ms on two cores and this fails; the
	// slack is for steps stretched by a loaded machine's scheduler.
	u, elapsed := budget.Usage(), time.Since(began)
	if most := time.Duration(0.2*float64(elapsed)) + cpuFill(0.2) + 100*time.Millisecond; u.Busy > most {
		t.Errorf("%v busy in %v at a 0.2-core cap (at most %v)", u.Busy, elapsed, most)
	}
}

// TestRebuildsAreRateLimited: a pasted burst of resets costs at most the
// bucket's burst and its rate, and the last one wins.
func TestRebuildsAreRateLimited(t *testing.T) {
	began := time.Now()
	budget := NewBudget(Limits{RebuildsPerSec: 20, RebuildBurst: 1})
	r := newCounter(t, nil, RunnerOptions{Paused: true, Budget: budget})
	var last *Build
	for i := range 200 {
		last = r.Set("at", string(rune('0'+i%10)))
	}
	if err := wait(t, last); err != nil {
		t.Fatal(err)
	}
	if counterAt.Get(r.Latest().Values) != 9 {
		t.Errorf("the last change did not win: %s", r.Latest().Values.Summary(false))
	}
	u, elapsed := budget.Usage(), time.Since(began)
	if most := 1 + int(20*elapsed.Seconds()) + 1; u.Builds > most {
		t.Errorf("%d builds in %v at 20/s", u.Builds, elapsed)
	}
	// One after another, builds cannot come faster than the rate.
	start := time.Now()
	for range 6 {
		if err := wait(t, r.Reset()); err != nil {
			t.Fatal(err)
		}
	}
	if took := time.Since(start); took < 250*time.Millisecond {
		t.Errorf("six builds in %v at 20/s", took)
	}
}

// TestMemoryBudget: a build over the session's memory budget is refused
// with the reason before anything is built, and the old sim keeps running;
// a new runner over budget does not start; closing a runner frees its share.
func TestMemoryBudget(t *testing.T) {
	budget := NewBudget(Limits{Memory: 10 << 20})
	a := newCounter(t, map[string]string{"mb": "4"}, RunnerOptions{Budget: budget})
	b := newCounter(t, map[string]string{"mb": "4"}, RunnerOptions{Budget: budget})
	err := wait(t, b.Set("mb", "7"))
	var me *MemoryError
	if !errors.As(err, &me) || !strings.Contains(err.Error(), "needs about 7.3 MB") {
		t.Fatalf("over budget: %v", err)
	}
	s := b.Latest()
	if counterMB.Get(s.Values) != 4 || s.BuildErr == nil || s.State != Running {
		t.Errorf("after the refusal: %s, %s, %v", s.State, s.Values.Summary(false), s.BuildErr)
	}
	waitFor(t, b, "the old sim to go on", func(q *Snapshot) bool { return q.Frame.Step > s.Frame.Step+100 })
	if err := wait(t, b.Set("mb", "2")); err != nil {
		t.Errorf("a replacement that fits beside the sim it replaces: %v", err)
	}
	if _, err := NewRunner(counterSpec, Config{Values: counterValues(t, map[string]string{"mb": "5"})}, RunnerOptions{Budget: budget}); !errors.As(err, &me) {
		t.Errorf("a new runner over budget: %v", err)
	}
	a.Close()
	if u := budget.Usage(); u.Memory != 2<<20 {
		t.Errorf("after closing a: %d bytes", u.Memory)
	}
	c, err := NewRunner(counterSpec, Config{Values: counterValues(t, map[string]string{"mb": "4"})}, RunnerOptions{Budget: budget})
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
}

// heavyFrame is a sim whose every Frame burns two milliseconds of CPU.
type heavyFrame struct{ counter }

func (h *heavyFrame) Frame() Frame {
	burn(2 * time.Millisecond)
	return h.counter.Frame()
}

// TestFramesAreCharged: Frames published for commands (here speed keys,
// each acknowledged before the next) are charged and wait for the
// session's CPU share: fifteen Frames of 2 ms at a fiftieth of a core,
// whose burst is 20 ms, take at least (30 − 20 − 2) ms / 0.02 = 400 ms.
func TestFramesAreCharged(t *testing.T) {
	spec := *counterSpec
	spec.New = func(c Config) (Sim, error) { return &heavyFrame{counter{limit: 1 << 30, fault: "none"}}, nil }
	r, err := NewRunner(&spec, Config{}, RunnerOptions{Paused: true, Budget: NewBudget(Limits{Cores: 0.02})})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	start := time.Now()
	for i := range 15 {
		await(t, "a speed change", r.SetSpeed(float64(i+1)))
	}
	if took := time.Since(start); took < 350*time.Millisecond {
		t.Errorf("fifteen 2 ms Frames in %v at a fiftieth of a core", took)
	}
	if s := r.Latest(); s.Speed != 15 {
		t.Errorf("speed %v", s.Speed)
	}
}

// TestVisitorTakesTurns: the metered work of a visitor's sessions takes
// turns (one Meter at a time per Account), while another visitor's work
// and a build of the same visitor do not wait for it.
func TestVisitorTakesTurns(t *testing.T) {
	acct, other := NewAccount(0, nil), NewAccount(0, nil)
	a, b := NewBudget(Limits{Visitor: acct}), NewBudget(Limits{Visitor: acct})
	c := NewBudget(Limits{Visitor: other})
	defer a.Close()
	defer b.Close()
	defer c.Close()
	started := make(chan struct{})
	release := make(chan struct{})
	go func() {
		m := a.StartMeter()
		close(started)
		<-release
		m.Charge()
	}()
	<-started
	c.StartMeter().Charge()     // another visitor: no wait
	b.startBuildMeter().Spent() // a build: no wait
	second := make(chan struct{})
	go func() {
		b.StartMeter().Charge()
		close(second)
	}()
	select {
	case <-second:
		t.Fatal("a second session of the visitor metered work while the first's was under way")
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	<-second // its turn comes once the first is charged
}
