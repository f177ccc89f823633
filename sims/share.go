package sims

import (
	"math"
	"slices"
	"sync"
	"time"
)

// Share is a server's CPU, shared by its visitors' accounts (lab serve
// --cpu-total). While the accounts together want less than Total cores,
// each may spend up to its own cap; when they want more, those that want
// more than a fair share are held to it and those that want less keep
// all they use: the share is max-min fair. Its level L solves
//
//	Σᵢ min(dᵢ, L) = Total,
//
// where dᵢ is what account i wants: what it has spent of late (a moving
// average over shareTau) with headroom to spare, or its whole cap when it
// spends nearly all it is allowed (it would spend more). A visitor at the cap of a busy server is
// so held to what the others leave, and one who merely looks on is never
// slowed by them. Its methods are safe for concurrent use; a nil *Share
// is no total.
type Share struct {
	total float64

	mu    sync.Mutex
	use   map[*Account]*shareUse
	level float64 // +Inf: the accounts want less than the total
	at    time.Time
}

// shareUse is what the share knows of an account.
type shareUse struct {
	spent   time.Duration // the account's spending at the last look
	rate    float64       // its moving average, in cores
	allowed float64       // the rate it was allowed since (+Inf: its cap)
}

// NewShare makes a share of total cores (0: none, nil).
func NewShare(total float64) *Share {
	if total <= 0 {
		return nil
	}
	return &Share{total: total, use: map[*Account]*shareUse{}, level: math.Inf(1)}
}

// Total is the cores the share divides (0 for nil).
func (s *Share) Total() float64 {
	if s == nil {
		return 0
	}
	return s.total
}

// shareEvery is how often the level is set again; shareTau is the time
// constant of the accounts' moving averages.
const (
	shareEvery = 250 * time.Millisecond
	shareTau   = time.Second
)

// hungry is the part of its allowance an account must spend to count as
// wanting more; headroom is what an account that does not is counted as
// wanting beyond what it spends, so that the level leaves it room to vary
// (were the level just what it spends, its next busy moment would put it
// in debt, and a session in debt is drawn twice a second).
const (
	hungry   = 0.95
	headroom = 1.25
)

// join counts an account among those sharing; leave takes it out.
func (s *Share) join(a *Account, now time.Time) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.use[a] == nil {
		s.use[a] = &shareUse{spent: time.Duration(a.spent.Load()), allowed: math.Inf(1)}
	}
}

func (s *Share) leave(a *Account) {
	if s == nil {
		return
	}
	s.mu.Lock()
	delete(s.use, a)
	s.mu.Unlock()
}

// Level is the most a hungry account may spend now, in cores (+Inf: its
// own cap). It is set again at most every shareEvery.
func (s *Share) Level(now time.Time) float64 {
	if s == nil {
		return math.Inf(1)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	dt := now.Sub(s.at)
	if s.at.IsZero() {
		s.at = now
		return s.level
	}
	if dt < shareEvery {
		return s.level
	}
	s.at = now
	keep := 1 - math.Exp(-dt.Seconds()/shareTau.Seconds())
	want := make([]float64, 0, len(s.use))
	for a, u := range s.use {
		spent := time.Duration(a.spent.Load())
		u.rate += (float64(spent-u.spent)/float64(dt) - u.rate) * keep
		u.spent = spent
		d := headroom * u.rate
		if u.rate >= hungry*u.allowed {
			d = a.cap()
		}
		want = append(want, d)
	}
	s.level = waterLevel(want, s.total)
	for a, u := range s.use {
		u.allowed = math.Min(a.cap(), s.level)
	}
	return s.level
}

// waterLevel is the max-min fair level L of want over total: Σ min(wᵢ, L)
// = total, or +Inf when Σ wᵢ ≤ total.
func waterLevel(want []float64, total float64) float64 {
	slices.Sort(want)
	rest := total
	for i, w := range want {
		n := float64(len(want) - i)
		if w*n > rest {
			return rest / n
		}
		rest -= w
	}
	return math.Inf(1)
}
