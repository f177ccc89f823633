package sims

import (
	"fmt"
	"math"
	"sync"
	"time"
)

// Limits are what one session may spend, all its runners together. A zero
// field is no limit.
type Limits struct {
	// StepsPerSec caps engine steps per second, batched or single.
	StepsPerSec float64
	// Cores caps the share of one core (0.25: a quarter) spent stepping,
	// building Frames and building sims, measured in wall time.
	Cores float64
	// RebuildsPerSec caps sim builds (reset, reseed, a parameter change, a
	// new pane) per second, after a burst of RebuildBurst.
	RebuildsPerSec float64
	// RebuildBurst is how many builds may start at once before
	// RebuildsPerSec applies; 0 means DefaultRebuildBurst.
	RebuildBurst int
	// Memory caps the estimated bytes of the session's sims (Spec.Size):
	// a build that would take the session over it is refused.
	Memory int64
}

// DefaultRebuildBurst is the builds a session may start at once when
// Limits.RebuildsPerSec is set and RebuildBurst is not.
const DefaultRebuildBurst = 3

// Usage is what a session has spent since its Budget was made.
type Usage struct {
	Steps  int64         // engine steps taken
	Busy   time.Duration // wall time spent stepping, building Frames and sims
	Builds int           // sims built (including the first of each pane)
	Memory int64         // estimated bytes of the sims alive or being built
}

// Budget is one session's allowance, shared by all its runners (pass the
// same *Budget in every RunnerOptions): every step, single or batched,
// every Frame and every build is charged to it, so that no key, held down
// or pasted in a burst, can take the session past its limits. A nil
// *Budget is no limit at all. Its methods are safe for concurrent use.
type Budget struct {
	lim Limits
	now func() time.Time // the clock; tests replace it

	mu       sync.Mutex
	steps    bucket
	rebuilds bucket
	// CPU: wall time charged since windowStart, the overspend of earlier
	// windows carried in.
	busy        time.Duration
	windowStart time.Time
	// memory: each runner's installed sim and the build it has under way
	sizes map[*Runner]memSize
	usage Usage
}

type memSize struct{ installed, building int64 }

// NewBudget makes a session's budget.
func NewBudget(l Limits) *Budget {
	if l.RebuildBurst <= 0 {
		l.RebuildBurst = DefaultRebuildBurst
	}
	b := &Budget{lim: l, now: time.Now, sizes: map[*Runner]memSize{}}
	// The step bucket holds a publication interval's worth (at least one
	// step), so a paced pane's catch-up batch fits and a burst is short.
	b.steps = bucket{rate: l.StepsPerSec, burst: max(1, l.StepsPerSec/30)}
	b.rebuilds = bucket{rate: l.RebuildsPerSec, burst: float64(l.RebuildBurst)}
	b.steps.tokens, b.rebuilds.tokens = b.steps.burst, b.rebuilds.burst
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
	for _, s := range b.sizes {
		u.Memory += max(s.installed, s.building)
	}
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

// cpuRest says how long the session must rest so that the time it spent
// stays within Cores of the time elapsed (0: go on). Time is counted over
// windows of about a second, carrying an overspend into the next, so a
// long build makes the session rest in proportion. Called with mu held.
func (b *Budget) cpuRest(now time.Time) time.Duration {
	if b.lim.Cores <= 0 {
		return 0
	}
	if b.windowStart.IsZero() {
		b.windowStart = now
	}
	elapsed := now.Sub(b.windowStart)
	allowed := time.Duration(float64(elapsed) * b.lim.Cores)
	if elapsed > time.Second {
		b.busy = max(0, b.busy-allowed)
		b.windowStart, elapsed, allowed = now, 0, 0
	}
	if b.busy <= allowed {
		return 0
	}
	return time.Duration(float64(b.busy)/b.lim.Cores) - elapsed
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

// cpuWait says how long the session must rest before more work.
func (b *Budget) cpuWait() time.Duration {
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

// charge records work done: its wall time, the steps it took and the sims
// it built.
func (b *Budget) charge(d time.Duration, steps, builds int) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.busy += d
	b.usage.Busy += d
	b.usage.Steps += int64(steps)
	b.usage.Builds += builds
}

// reserve sets aside size bytes for the sim r is about to build, which
// will replace r's present sim; it is refused, saying why, when the
// session's other sims and this one would exceed Memory.
func (b *Budget) reserve(r *Runner, size int64) error {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.lim.Memory > 0 {
		others := int64(0)
		for q, s := range b.sizes {
			if q != r {
				others += max(s.installed, s.building)
			}
		}
		if others+size > b.lim.Memory {
			return &MemoryError{Sim: r.spec.Name, Need: size, Used: others, Limit: b.lim.Memory}
		}
	}
	s := b.sizes[r]
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
}

// release forgets r's sims: it has stopped.
func (b *Budget) release(r *Runner) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.sizes, r)
}

// MemoryError is a build refused because the session's memory budget
// would be exceeded.
type MemoryError struct {
	Sim               string
	Need, Used, Limit int64 // bytes: the new sim's estimate, the others', the budget
}

func (e *MemoryError) Error() string {
	if e.Used == 0 {
		return fmt.Sprintf("%s with these parameters needs about %s, over this session's memory budget of %s",
			e.Sim, Bytes(e.Need), Bytes(e.Limit))
	}
	return fmt.Sprintf("%s with these parameters needs about %s; this session's other sims use %s of its %s budget (close a pane or choose smaller sizes)",
		e.Sim, Bytes(e.Need), Bytes(e.Used), Bytes(e.Limit))
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
