package serve

import (
	"log/slog"
	"sort"
	"strconv"
	"sync"
	"time"
)

// Refusals are logged one line each until a flood: past refusalBurst lines
// for one reason within refusalWindow, the rest of the window is counted
// and summarised in one line when it ends.
const (
	refusalBurst  = 10
	refusalWindow = time.Minute
	// refusalAddrs bounds the distinct addresses a summary counts.
	refusalAddrs = 4096
)

// refusals logs refused and abandoned connections, rate-limited.
type refusals struct {
	log *slog.Logger
	now func() time.Time

	mu      sync.Mutex
	start   time.Time
	reasons map[string]*refusalCount
}

type refusalCount struct {
	logged     int
	suppressed int
	addrs      map[string]struct{}
	more       bool // more addresses than refusalAddrs
}

func newRefusals(log *slog.Logger) *refusals {
	return &refusals{log: log, now: time.Now, reasons: map[string]*refusalCount{}}
}

// note logs one refusal (msg is "refused" or "dropped"): a line of its own
// while its reason is under the burst, else a count for the summary.
func (r *refusals) note(msg, reason, addr string, attrs ...any) {
	r.mu.Lock()
	now := r.now()
	if now.Sub(r.start) >= refusalWindow {
		r.flushLocked(now)
	}
	c := r.reasons[reason]
	if c == nil {
		c = &refusalCount{}
		r.reasons[reason] = c
	}
	if c.logged < refusalBurst {
		c.logged++
		r.mu.Unlock()
		r.log.Info(msg, append([]any{"addr", addr, "reason", reason}, attrs...)...)
		return
	}
	c.suppressed++
	if c.addrs == nil {
		c.addrs = map[string]struct{}{}
	}
	if len(c.addrs) < refusalAddrs {
		c.addrs[hostPart(addr)] = struct{}{}
	} else if _, ok := c.addrs[hostPart(addr)]; !ok {
		c.more = true
	}
	r.mu.Unlock()
}

// flush summarises the window so far and starts a new one.
func (r *refusals) flush() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.flushLocked(r.now())
}

func (r *refusals) flushLocked(now time.Time) {
	reasons := make([]string, 0, len(r.reasons))
	for k, c := range r.reasons {
		if c.suppressed > 0 {
			reasons = append(reasons, k)
		}
	}
	sort.Strings(reasons)
	for _, k := range reasons {
		c := r.reasons[k]
		addrs := any(len(c.addrs))
		if c.more {
			addrs = ">" + strconv.Itoa(refusalAddrs)
		}
		r.log.Info("refusals summarised", "reason", k, "more", c.suppressed, "addresses", addrs,
			"window", now.Sub(r.start).Round(time.Second), "logged", c.logged)
	}
	r.reasons = map[string]*refusalCount{}
	r.start = now
}
