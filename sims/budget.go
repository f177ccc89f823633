package sims

import (
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/thelab/lab/internal/cputime"
)

// Limits are what one session may spend, all its runners together. A zero
// field is no limit.
type Limits struct {
	// StepsPerSec caps engine steps per second, batched or single.
	StepsPerSec float64
	// Cores caps the share of one core (0.25: a quarter) spent stepping,
	// building Frames, building sims, and whatever else is charged to the
	// session (Charge: its drawing, its exports), measured in CPU time
	// (Meter).
	Cores float64
	// RebuildsPerSec caps sim builds (reset, reseed, a parameter change, a
	// new pane) per second, after a burst of RebuildBurst.
	RebuildsPerSec float64
	// RebuildBurst is how many builds may start at once before
	// RebuildsPerSec applies; 0 means DefaultRebuildBurst.
	RebuildBurst int
	// Memory caps the estimated bytes of the session: its sims (Spec.Size)
	// and what it holds besides (Hold: a screen, an export). A build that
	// would take the session over it is refused.
	Memory int64
	// Visitor is the account of the visitor the session belongs to (lab
	// serve: one per client address), shared with the visitor's other
	// sessions and kept after they end: its CPU cap bounds them together,
	// it builds one sim at a time, and a session's CPU balance passes to
	// the visitor's next one. Nil: the session stands alone.
	Visitor *Account
	// Server is the memory every session of the server draws on (lab serve
	// --memory-total): what the session holds is taken from it too, and a
	// build or a hold it cannot supply is refused. Nil: no such total.
	Server *Pool
}

// DefaultRebuildBurst is the builds a session may start at once when
// Limits.RebuildsPerSec is set and RebuildBurst is not.
const DefaultRebuildBurst = 3

// cpuBurst is how long a CPU bucket takes to fill: a session or a visitor
// may spend that long's worth of its share at once (a quarter core: a
// quarter of a second of work), and no more, before resting.
const cpuBurst = time.Second

// Usage is what a session has spent since its Budget was made.
type Usage struct {
	Steps  int64         // engine steps taken
	Busy   time.Duration // CPU time spent stepping, building Frames and sims, and charged
	Builds int           // sims built (including the first of each pane)
	Memory int64         // estimated bytes of the sims alive or being built, and of the holds
}

// Budget is one session's allowance, shared by all its runners (pass the
// same *Budget in every RunnerOptions): every step, single or batched,
// every Frame and every build is charged to it, so that no key, held down
// or pasted in a burst, can take the session past its limits. CPU is
// charged before it is spent: work starts only while the session (and its
// visitor) are in credit, and what it took is then deducted, so a session
// overdraws by at most one piece of work and then rests until it has paid
// for it. A nil *Budget is no limit at all. Its methods are safe for
// concurrent use. Close it when the session ends.
type Budget struct {
	lim Limits
	now func() time.Time // the clock; tests replace it

	mu       sync.Mutex
	steps    bucket
	rebuilds bucket
	cpu      cpuBucket // the session's own share; the visitor's is lim.Visitor's
	// memory: each runner's installed sim and the build it has under way,
	// the holds by name, and what has been taken from lim.Server
	sizes  map[*Runner]memSize
	holds  map[string]int64
	pooled int64
	closed bool
	usage  Usage
}

type memSize struct{ installed, building int64 }

// NewBudget makes a session's budget. With a Visitor, its CPU balance
// starts where the visitor's last session left it (refilled for the time
// since): reconnecting does not reset it.
func NewBudget(l Limits) *Budget { return newBudget(l, time.Now) }

// newBudget is NewBudget on the clock now.
func newBudget(l Limits, now func() time.Time) *Budget {
	if l.RebuildBurst <= 0 {
		l.RebuildBurst = DefaultRebuildBurst
	}
	b := &Budget{lim: l, now: now, sizes: map[*Runner]memSize{}, holds: map[string]int64{}}
	// The step bucket holds a publication interval's worth (at least one
	// step), so a paced pane's catch-up batch fits and a burst is short.
	b.steps = bucket{rate: l.StepsPerSec, burst: max(1, l.StepsPerSec/30)}
	b.rebuilds = bucket{rate: l.RebuildsPerSec, burst: float64(l.RebuildBurst)}
	b.steps.tokens, b.rebuilds.tokens = b.steps.burst, b.rebuilds.burst
	b.cpu = newCPUBucket(l.Cores, b.now())
	if l.Visitor != nil {
		b.cpu.tokens = l.Visitor.join(b.cpu, b.now())
	}
	return b
}

// Limits returns the limits the budget was made with.
func (b *Budget) Limits() Limits {
	if b == nil {
		return Limits{}
	}
	return b.lim
}

// Usage reports what has been spent so far.
func (b *Budget) Usage() Usage {
	if b == nil {
		return Usage{}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	u := b.usage
	u.Memory = b.usedLocked()
	return u
}

// bucket is a token bucket: rate tokens a second up to burst. A zero rate
// is no limit.
type bucket struct {
	rate, burst, tokens float64
	last                time.Time
}

// take grants up to n tokens (at least one, or none and how long until
// one is there).
func (k *bucket) take(n int, now time.Time) (int, time.Duration) {
	if k.rate <= 0 {
		return n, 0
	}
	if !k.last.IsZero() {
		k.tokens = min(k.burst, k.tokens+k.rate*now.Sub(k.last).Seconds())
	}
	k.last = now
	if k.tokens < 1 {
		return 0, time.Duration(math.Ceil((1 - k.tokens) / k.rate * float64(time.Second)))
	}
	g := min(n, int(k.tokens))
	k.tokens -= float64(g)
	return g, 0
}

// cpuBucket holds CPU time, filling at rate (cores: seconds of work a
// second) up to cpuBurst's worth. Work may start while it is not
// negative; its time is then deducted, which may take it below zero: the
// debt is repaid by resting. A zero rate is no limit.
type cpuBucket struct {
	rate   float64
	tokens time.Duration
	last   time.Time
}

func newCPUBucket(cores float64, now time.Time) cpuBucket {
	return cpuBucket{rate: cores, tokens: cpuFill(cores), last: now}
}

// cpuFill is a full bucket at a share of cores.
func cpuFill(cores float64) time.Duration { return time.Duration(cores * float64(cpuBurst)) }

func (k *cpuBucket) refill(now time.Time) {
	if k.rate <= 0 {
		return
	}
	k.tokens = min(cpuFill(k.rate), k.tokens+time.Duration(k.rate*float64(now.Sub(k.last))))
	k.last = now
}

// rest is how long to wait until the bucket is out of debt (0: now).
func (k *cpuBucket) rest(now time.Time) time.Duration {
	if k.rate <= 0 {
		return 0
	}
	k.refill(now)
	if k.tokens >= 0 {
		return 0
	}
	return time.Duration(math.Ceil(float64(-k.tokens) / k.rate))
}

func (k *cpuBucket) spend(d time.Duration, now time.Time) {
	if k.rate <= 0 {
		return
	}
	k.refill(now)
	k.tokens -= d
}

// cpuRest says how long the session must rest before more work: until
// both its own bucket and its visitor's are out of debt (0: go on).
// Called with mu held.
func (b *Budget) cpuRest(now time.Time) time.Duration {
	return max(b.cpu.rest(now), b.lim.Visitor.rest(now))
}

// allowSteps grants up to n steps now, or none and how long to wait.
func (b *Budget) allowSteps(n int) (int, time.Duration) {
	if b == nil {
		return n, 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	if rest := b.cpuRest(now); rest > 0 {
		return 0, rest
	}
	return b.steps.take(n, now)
}

// Rest says how long the session must rest before more work (0: it is in
// credit). Work that is not a runner's — drawing the session's screen, an
// export — asks it first and is charged with Charge after.
func (b *Budget) Rest() time.Duration {
	if b == nil {
		return 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.cpuRest(b.now())
}

// allowBuild takes a build token, or says how long to wait for one.
func (b *Budget) allowBuild() time.Duration {
	if b == nil {
		return 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	if rest := b.cpuRest(now); rest > 0 {
		return rest
	}
	_, wait := b.rebuilds.take(1, now)
	return wait
}

// buildSlot is the visitor's one build at a time (nil: none to take).
func (b *Budget) buildSlot() chan struct{} {
	if b == nil || b.lim.Visitor == nil {
		return nil
	}
	return b.lim.Visitor.building
}

// Meter measures the CPU time of work a session does on one goroutine,
// which it locks to its thread meanwhile: charging wall time would also
// charge the session for the time a loaded machine keeps its goroutine
// waiting, so that contention would put honest sessions in debt. Start
// one with StartMeter and end it with Charge, on the same goroutine. For
// a nil budget it measures nothing.
//
// Metered work of one visitor takes turns (Account): while a Meter runs,
// the visitor's other sessions and panes wait to start theirs, so that
// however many sessions a visitor opens, their work keeps at most one core
// busy at a time and leaves the other cores to everyone else (eight
// sessions of one visitor redrawing at once held both cores of a server
// for a quarter of a second, and every other session's keys waited). A
// Meter must not be started while the same goroutine runs another.
type Meter struct {
	b    *Budget
	t0   time.Duration
	turn chan struct{} // the visitor's turn, held until Spent
}

// StartMeter waits for the visitor's turn and starts measuring work for
// the budget on the calling goroutine.
func (b *Budget) StartMeter() Meter {
	if b == nil {
		return Meter{}
	}
	m := Meter{b: b}
	if a := b.lim.Visitor; a != nil {
		m.turn = a.turn
		m.turn <- struct{}{}
	}
	m.t0 = cputime.Start()
	return m
}

// startBuildMeter measures a build without taking the visitor's turn: a
// visitor builds one sim at a time already (Account.building), and a
// build of seconds must not stop the visitor's screens meanwhile.
func (b *Budget) startBuildMeter() Meter {
	if b == nil {
		return Meter{}
	}
	return Meter{b: b, t0: cputime.Start()}
}

// Spent ends the measure, gives the visitor's turn back and returns the
// CPU time spent since it began.
func (m Meter) Spent() time.Duration {
	if m.b == nil {
		return 0
	}
	d := cputime.Stop(m.t0)
	if m.turn != nil {
		<-m.turn
	}
	return d
}

// Charge ends the measure and charges what was spent to the budget.
func (m Meter) Charge() { m.b.Charge(m.Spent()) }

// endBuild gives back the visitor's build slot, if there is one.
func (b *Budget) endBuild() {
	if slot := b.buildSlot(); slot != nil {
		<-slot
	}
}

// Charge records d of work done for the session besides its runners'
// (drawing its screen, an export): it is deducted from its CPU share and
// its visitor's like a step's.
func (b *Budget) Charge(d time.Duration) { b.charge(d, 0, 0) }

// charge records work done: its CPU time, the steps it took and the sims
// it built.
func (b *Budget) charge(d time.Duration, steps, builds int) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	b.cpu.spend(d, now)
	b.lim.Visitor.spend(d, now)
	b.usage.Busy += d
	b.usage.Steps += int64(steps)
	b.usage.Builds += builds
}

// usedLocked is the session's memory: its sims and its holds.
func (b *Budget) usedLocked() int64 {
	var u int64
	for _, s := range b.sizes {
		u += s.installed + s.building
	}
	for _, n := range b.holds {
		u += n
	}
	return u
}

// admitLocked checks that the session may go from its present use to
// used bytes — within its Memory and, for growth, the server's pool — and
// takes the growth from the pool. what names the sim or hold for the
// error; others is the rest of the session's use.
func (b *Budget) admitLocked(what string, need, others int64) error {
	if b.closed {
		return ErrClosed
	}
	if b.lim.Memory > 0 && others+need > b.lim.Memory {
		return &MemoryError{What: what, Need: need, Used: others, Limit: b.lim.Memory}
	}
	if grow := others + need - b.pooled; grow > 0 {
		if used, ok := b.lim.Server.take(grow); !ok {
			return &MemoryError{What: what, Need: need, Used: used, Limit: b.lim.Server.Limit(), Server: true}
		}
		b.pooled += grow
	}
	return nil
}

// syncLocked returns to the pool what the session no longer uses.
func (b *Budget) syncLocked() {
	if used := b.usedLocked(); used < b.pooled {
		b.lim.Server.give(b.pooled - used)
		b.pooled = used
	}
}

// reserve sets aside size bytes for the sim r is about to build. r's
// present sim runs on until the new one replaces it, so while it is built
// both count; it is refused, saying why, when the session's sims and this
// one would exceed Memory, or the server's pool cannot supply the growth.
func (b *Budget) reserve(r *Runner, size int64) error {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.sizes[r]
	others := b.usedLocked() - s.building
	if err := b.admitLocked(r.spec.Name, size, others); err != nil {
		return err
	}
	s.building = size
	b.sizes[r] = s
	return nil
}

// settle ends r's reservation: its sim is now the one built (installed) or
// stays as it was.
func (b *Budget) settle(r *Runner, installed bool) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.sizes[r]
	if installed {
		s.installed = s.building
	}
	s.building = 0
	if s == (memSize{}) {
		delete(b.sizes, r)
	} else {
		b.sizes[r] = s
	}
	b.syncLocked()
}

// release forgets r's sims: it has stopped.
func (b *Budget) release(r *Runner) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.sizes, r)
	b.syncLocked()
}

// Hold sets the bytes held under name besides the sims (a session's own
// state, its screen's buffers, an export under way), replacing what was
// held under that name: refused, with the reason, when it would take the
// session over its Memory or the server's pool cannot supply the growth;
// then what was held stays held.
func (b *Budget) Hold(name string, n int64) error {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	others := b.usedLocked() - b.holds[name]
	if err := b.admitLocked(name, n, others); err != nil {
		if me, ok := err.(*MemoryError); ok {
			me.Hold = true
		}
		return err
	}
	if n == 0 {
		delete(b.holds, name)
	} else {
		b.holds[name] = n
	}
	b.syncLocked()
	return nil
}

// Close ends the session's budget: its holds are let go and everything it
// took from the server's pool is returned (its runners release their sims
// as they stop), and its CPU balance passes to its visitor's next session.
// It is idempotent; later holds and builds are refused.
func (b *Budget) Close() {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return
	}
	b.closed = true
	clear(b.holds)
	b.syncLocked()
	b.lim.Visitor.leave(b.cpu, b.now())
}

// Account is a visitor's allowance across all their sessions (lab serve:
// one per client address, kept by the server after the sessions end until
// it has filled again): their CPU together, one build at a time, and the
// balance a session leaves for the next. Its methods are safe for
// concurrent use; a nil *Account is none.
type Account struct {
	building chan struct{} // a one-slot semaphore: the build under way
	turn     chan struct{} // a one-slot semaphore: the metered work under way (Meter)

	cores float64      // its own cap (0: none)
	share *Share       // the server's CPU, or nil
	spent atomic.Int64 // CPU time spent in all, for the share's measure

	mu  sync.Mutex
	cpu cpuBucket // filling at its cap, or the share's level if lower
	// sessions is how many budgets draw on it now; carry is the lowest
	// balance a session left (refilled at the session rate since), which
	// the next session starts from.
	sessions int
	carry    cpuBucket
	carried  bool
}

// NewAccount makes a visitor's account whose sessions together may use
// cores of a core (0: no cap on their sum), or less while the server's
// CPU, share (nil: none), is wanted by more than it holds.
func NewAccount(cores float64, share *Share) *Account {
	return &Account{building: make(chan struct{}, 1), turn: make(chan struct{}, 1),
		cores: cores, share: share, cpu: newCPUBucket(cores, time.Now())}
}

// cap is the account's own cap in cores (+Inf: none).
func (a *Account) cap() float64 {
	if a.cores <= 0 {
		return math.Inf(1)
	}
	return a.cores
}

// follow sets the account's rate to its cap or the share's level, the
// lower. Called with mu held.
func (a *Account) follow(now time.Time) {
	if a.share == nil {
		return
	}
	r := math.Min(a.cap(), a.share.Level(now))
	if math.IsInf(r, 1) {
		r = 0 // no limit
	}
	if r != a.cpu.rate {
		a.cpu.refill(now)
		a.cpu.rate = r
		a.cpu.tokens = min(a.cpu.tokens, cpuFill(r))
	}
}

// Idle reports whether no session draws on the account and it holds no
// debt that a next session would inherit: it may be forgotten.
func (a *Account) Idle() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := time.Now()
	if a.sessions > 0 || a.cpu.rest(now) > 0 {
		return false
	}
	return !a.carried || a.carry.rest(now) == 0
}

func (a *Account) rest(now time.Time) time.Duration {
	if a == nil {
		return 0
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.follow(now)
	return a.cpu.rest(now)
}

func (a *Account) spend(d time.Duration, now time.Time) {
	if a == nil {
		return
	}
	a.spent.Add(int64(d))
	a.mu.Lock()
	a.follow(now)
	a.cpu.spend(d, now)
	a.mu.Unlock()
}

// join counts a new session and returns the balance it starts from: its
// share's full burst, or the debt the visitor's last sessions left.
func (a *Account) join(fresh cpuBucket, now time.Time) time.Duration {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.sessions++
	if a.sessions == 1 {
		a.share.join(a, now)
	}
	if !a.carried || fresh.rate <= 0 {
		return fresh.tokens
	}
	c := a.carry
	c.rate = fresh.rate
	c.refill(now)
	return min(fresh.tokens, c.tokens)
}

// leave takes back a session's balance as it ends.
func (a *Account) leave(k cpuBucket, now time.Time) {
	if a == nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.sessions--
	if a.sessions == 0 {
		a.share.leave(a)
	}
	k.refill(now)
	if a.carried {
		a.carry.refill(now)
		if a.carry.tokens <= k.tokens {
			return
		}
	}
	a.carry, a.carried = k, true
}

// Pool is memory shared by many budgets: a server's total. Its methods
// are safe for concurrent use; a nil *Pool is no limit.
type Pool struct {
	mu          sync.Mutex
	limit, used int64
	freed       chan struct{} // closed and replaced whenever bytes are given back
}

// NewPool makes a pool of limit bytes.
func NewPool(limit int64) *Pool { return &Pool{limit: limit, freed: make(chan struct{})} }

// Limit is the pool's size in bytes.
func (p *Pool) Limit() int64 {
	if p == nil {
		return 0
	}
	return p.limit
}

// Used is the bytes taken from the pool now.
func (p *Pool) Used() int64 {
	if p == nil {
		return 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.used
}

// Free is the bytes not taken from the pool now.
func (p *Pool) Free() int64 {
	if p == nil {
		return math.MaxInt64
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.limit - p.used
}

// Freed is closed the next time bytes are given back: a caller refused
// for want of room may wait on it and try again.
func (p *Pool) Freed() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.freed
}

// take takes n bytes if they fit, and reports the bytes in use before.
func (p *Pool) take(n int64) (int64, bool) {
	if p == nil {
		return 0, true
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.used+n > p.limit {
		return p.used, false
	}
	p.used += n
	return p.used - n, true
}

func (p *Pool) give(n int64) {
	if p == nil || n <= 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.used -= n
	close(p.freed)
	p.freed = make(chan struct{})
}

// MemoryError is a build (or a hold) refused because the session's
// memory budget, or the server's total, would be exceeded.
type MemoryError struct {
	What              string // the sim, or what is held
	Need, Used, Limit int64  // bytes: what was asked for, the rest in use, the budget or total
	// Server: the server's total was short, not the session's budget.
	Server bool
	// Hold: what was refused is a hold (What names it), not a sim.
	Hold bool
}

func (e *MemoryError) Error() string {
	switch {
	case e.Server:
		return fmt.Sprintf("%s: about %s, and this server has %s of its %s for every visitor in use: try again in a while, or choose smaller sizes",
			e.What, Bytes(e.Need), Bytes(e.Used), Bytes(e.Limit))
	case e.Hold && e.Used == 0:
		return fmt.Sprintf("%s would take about %s, over this session's memory budget of %s",
			e.What, Bytes(e.Need), Bytes(e.Limit))
	case e.Hold:
		return fmt.Sprintf("%s would take about %s; this session holds %s of its %s memory budget besides",
			e.What, Bytes(e.Need), Bytes(e.Used), Bytes(e.Limit))
	case e.Used == 0:
		return fmt.Sprintf("%s with these parameters needs about %s, over this session's memory budget of %s",
			e.What, Bytes(e.Need), Bytes(e.Limit))
	}
	return fmt.Sprintf("%s with these parameters needs about %s; this session holds %s of its %s memory budget (close a pane or choose smaller sizes)",
		e.What, Bytes(e.Need), Bytes(e.Used), Bytes(e.Limit))
}

// Bytes prints a size compactly in powers of 1000: 900 B, 12 kB, 3.4 MB,
// 1.2 GB.
func Bytes(n int64) string {
	x, unit := float64(n), "B"
	for _, u := range []string{"kB", "MB", "GB"} {
		if x < 999.5 {
			break
		}
		x, unit = x/1000, u
	}
	if unit == "B" || x >= 9.95 {
		return fmt.Sprintf("%.0f %s", x, unit)
	}
	return fmt.Sprintf("%.1f %s", x, unit)
}
