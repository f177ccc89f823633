package serve

import (
	"net"
	"net/netip"
	"sync"
	"time"
)

// addrLimiter is a token bucket per client IP address: each address may
// open up to perMinute connections at once and then perMinute a minute.
// Full buckets are forgotten, so memory follows the addresses seen in the
// last minute.
type addrLimiter struct {
	mu        sync.Mutex
	perMinute float64
	buckets   map[string]*bucket
	swept     time.Time
	now       func() time.Time
}

type bucket struct {
	tokens float64
	at     time.Time
}

func newAddrLimiter(perMinute int) *addrLimiter {
	return &addrLimiter{perMinute: float64(perMinute), buckets: map[string]*bucket{}, now: time.Now}
}

// allow takes a token for addr's IP and reports whether there was one.
func (l *addrLimiter) allow(addr net.Addr) bool {
	if l == nil || l.perMinute <= 0 {
		return true
	}
	key := hostOf(addr)
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	if now.Sub(l.swept) > time.Minute {
		l.sweep(now)
	}
	b := l.buckets[key]
	if b == nil {
		b = &bucket{tokens: l.perMinute, at: now}
		l.buckets[key] = b
	}
	b.tokens = min(l.perMinute, b.tokens+now.Sub(b.at).Minutes()*l.perMinute)
	b.at = now
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

// sweep forgets the buckets that have refilled.
func (l *addrLimiter) sweep(now time.Time) {
	for k, b := range l.buckets {
		if b.tokens+now.Sub(b.at).Minutes()*l.perMinute >= l.perMinute {
			delete(l.buckets, k)
		}
	}
	l.swept = now
}

// hostOf is the IP address of addr, as text: the key of per-address limits.
func hostOf(addr net.Addr) string {
	if a, ok := addr.(*net.TCPAddr); ok {
		if ip, ok := netip.AddrFromSlice(a.IP); ok {
			return ip.Unmap().String()
		}
		return a.IP.String()
	}
	return hostPart(addr.String())
}

// hostPart is the host of a host:port address.
func hostPart(addr string) string {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	return host
}

// counter counts holders per key (sessions or pending handshakes per
// address) and forgets a key at zero, so its size follows the addresses
// holding something now.
type counter map[string]int

// take adds one for key if it has fewer than limit (0: no limit).
func (c counter) take(key string, limit int) bool {
	if limit > 0 && c[key] >= limit {
		return false
	}
	c[key]++
	return true
}

func (c counter) give(key string) {
	if c[key] <= 1 {
		delete(c, key)
		return
	}
	c[key]--
}
