package serve

import (
	"fmt"
	"io"
	"net"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/charmbracelet/ssh"
	gossh "golang.org/x/crypto/ssh"
)

// connKey finds a connection's *conn in its ssh.Context.
type connKey struct{}

// conn is one TCP connection, from accept to close: its client's address
// (from a PROXY header when the peer is a trusted balancer), whether it
// has authenticated, its session channels, and the timers that end it.
// Its deadlines belong to the server: a stalled handshake ends at the login
// grace, an authenticated connection without a session a grace later, a
// client that answers no keep-alive after ClientAliveCountMax intervals,
// and a write that the client does not take within as long fails.
type conn struct {
	net.Conn
	srv    *Server
	remote net.Addr
	local  net.Addr // the balancer's front, from a PROXY header; else nil
	ip     string
	start  time.Time
	done   chan struct{} // closed when the connection closes
	once   sync.Once
	alive  sync.Once
	timer  *time.Timer // login grace, then a connection without a session
	wrote  time.Duration

	// mu is taken after the server's when both are held (idle, in
	// tableVictimLocked), never before it.
	mu         sync.Mutex
	authed     bool
	chans      map[*channel]struct{} // open session channels
	hadSession bool                  // a session channel was ever opened
	keys       []string              // fingerprints of the keys the client offered
	triedAuth  bool                  // the client asked to authenticate
	msg, why   string                // why the server closed it, for the log
	detail     string                // the error, if any
}

// connOf is the connection behind ctx.
func connOf(ctx ssh.Context) *conn {
	c, _ := ctx.Value(connKey{}).(*conn)
	return c
}

// reasonIdleConn closes, quietly, a connection whose sessions have ended
// and which opened no other within the login grace.
const reasonIdleConn = "idle connection"

// maxOfferedKeys bounds the key fingerprints kept for the log of a failed
// authentication.
const maxOfferedKeys = 8

// wrapConn admits or refuses a TCP connection before the SSH handshake.
// A trusted balancer's connection first gives its client's address in a
// PROXY header (readProxy); then, under the client's address, admitLocked
// decides, and closes whatever it evicts to make room.
func (s *Server) wrapConn(ctx ssh.Context, raw net.Conn) (wrapped net.Conn) {
	defer func() {
		// A callback of the SSH library's connection goroutine: a panic
		// here would end the process.
		if v := recover(); v != nil {
			s.log.Error("panic", "in", "accept", "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			raw.Close()
			wrapped = nil
		}
	}()
	c := &conn{Conn: raw, srv: s, remote: raw.RemoteAddr(), start: time.Now(), done: make(chan struct{}),
		wrote: s.writeTimeout()}
	c.ip = hostOf(c.remote)
	if s.cfg.ProxyProtocol && trusted(s.cfg.ProxyFrom, raw.RemoteAddr()) && !s.readProxy(c) {
		return nil
	}
	s.mu.Lock()
	full, pending, reason := s.admitLocked(c)
	s.mu.Unlock()
	if full != nil {
		full.shut("dropped", "evicted: connection table full", "")
	}
	if pending != nil {
		pending.shut("dropped", "evicted: too many unauthenticated connections", "")
	}
	if reason != "" {
		c.shut("refused", reason, "")
		return nil
	}
	ctx.SetValue(connKey{}, c)
	c.mu.Lock()
	c.timer = time.AfterFunc(s.cfg.LoginGrace, c.expire)
	c.mu.Unlock()
	return c
}

// readProxy reads the PROXY header of a trusted balancer's connection,
// within the login grace, and takes the client's address from it. It
// reports false when it has closed the connection: a bad header, more than
// MaxStartups headers being read at once (a header is part of the
// handshake), or the balancer's own health check. A check, every few
// seconds from every balancer, is neither a visitor to count or limit nor
// news: it gets the server's version line (for a check that expects one)
// and a debug line only.
func (s *Server) readProxy(c *conn) bool {
	s.mu.Lock()
	ok := s.headers < s.cfg.MaxStartups
	if ok {
		s.headers++
	}
	s.mu.Unlock()
	if !ok {
		c.shut("refused", "too many connections", "")
		return false
	}
	_ = c.Conn.SetDeadline(time.Now().Add(s.cfg.LoginGrace))
	src, dst, local, err := readProxyHeader(c.Conn)
	s.mu.Lock()
	s.headers--
	s.mu.Unlock()
	switch {
	case err != nil:
		c.shut("refused", "bad PROXY header", err.Error())
		return false
	case healthCheck(local, src, dst, c.Conn):
		s.log.Debug("health check", "balancer", c.remote.String())
		_, _ = io.WriteString(c.Conn, "SSH-2.0-"+s.ssh.Version+"\r\n")
		c.Conn.Close()
		return false
	case src != nil:
		c.remote, c.local, c.ip = src, dst, hostOf(src)
	}
	_ = c.Conn.SetDeadline(time.Time{})
	return true
}

// admitLocked admits c under its client's address, or says why not: the
// server is closing, the address is over its rate or its pending
// handshakes, or the table of connections is full and no fair eviction
// makes room. It returns the connections it has taken out of the counts
// for c, for the caller to close: an idle one of a full table
// (tableVictimLocked), and past MaxStartups pending handshakes the oldest
// pending one of the address holding the most, so that stalled handshakes
// never keep a new visitor out.
func (s *Server) admitLocked(c *conn) (full, pending *conn, reason string) {
	switch {
	case s.closing:
		return nil, nil, "server shutting down"
	case !s.limiter.allow(c.remote):
		return nil, nil, "rate limited"
	case s.pendingPer[c.ip] >= s.cfg.MaxStartupsPerAddr:
		return nil, nil, "too many unauthenticated connections from this address"
	}
	if len(s.conns) >= s.maxConns() {
		if full = s.tableVictimLocked(c.ip); full == nil {
			return nil, nil, "too many connections"
		}
		s.forgetLocked(full)
	}
	if len(s.pending) >= s.cfg.MaxStartups {
		pending = oldestOfBusiest(s.pending, s.pendingPer, func(*conn) bool { return true })
		s.releasePendingLocked(pending)
	}
	s.conns[c] = struct{}{}
	s.connsPer.take(c.ip, 0)
	s.pending[c] = struct{}{}
	s.pendingPer.take(c.ip, 0)
	s.byAddr[addrKey(c)] = c
	return full, pending, ""
}

// tableVictimLocked is the connection to close so that one more from ip
// fits in the full table: the oldest idle one of the address holding the
// most, among the addresses that hold more than ip would with it. The
// table is shared fairly: stalled connections, logged in or not, count
// against their address's share, a newcomer takes a place only from an
// address above its own share (never from an address's only connection),
// and a visitor using a session is never evicted (conn.idle). Nil: no
// connection may go, and the newcomer is refused.
func (s *Server) tableVictimLocked(ip string) *conn {
	return oldestOfBusiest(s.conns, s.connsPer, func(p *conn) bool {
		return s.connsPer[p.ip] > s.connsPer[ip]+1 && p.idle()
	})
}

// oldestOfBusiest is the oldest connection of set, among those ok admits,
// of the address holding the most of set (per counts them); nil if ok
// admits none.
func oldestOfBusiest(set map[*conn]struct{}, per counter, ok func(*conn) bool) *conn {
	var victim *conn
	for p := range set {
		if !ok(p) {
			continue
		}
		if victim == nil {
			victim = p
			continue
		}
		np, nv := per[p.ip], per[victim.ip]
		if np > nv || np == nv && p.start.Before(victim.start) {
			victim = p
		}
	}
	return victim
}

// forgetLocked takes c out of the table and out of the pending ones; it
// may be called more than once.
func (s *Server) forgetLocked(c *conn) {
	if _, ok := s.conns[c]; ok {
		delete(s.conns, c)
		s.connsPer.give(c.ip)
	}
	s.releasePendingLocked(c)
}

func (s *Server) releasePendingLocked(c *conn) {
	if _, ok := s.pending[c]; ok {
		delete(s.pending, c)
		s.pendingPer.give(c.ip)
	}
}

// addrKey names a connection by its two ends, as charmbracelet/ssh's
// wrapper of it shows them, to find it from ConnectionFailedCallback.
func addrKey(c net.Conn) string { return c.LocalAddr().String() + "|" + c.RemoteAddr().String() }

// maxConns bounds open TCP connections: sessions' connections, and room
// for the pending ones.
func (s *Server) maxConns() int { return 2*s.cfg.MaxSessions + s.cfg.MaxStartups }

// writeTimeout is how long one write may wait for a client that does not
// read: as long as the keep-alives give it.
func (s *Server) writeTimeout() time.Duration {
	if s.cfg.ClientAliveInterval <= 0 {
		return 0
	}
	return s.cfg.ClientAliveInterval * time.Duration(max(1, s.cfg.ClientAliveCountMax))
}

// RemoteAddr is the client's address: the PROXY header's when a trusted
// balancer sent one.
func (c *conn) RemoteAddr() net.Addr { return c.remote }

// LocalAddr is where the client connected: the balancer's front when a
// trusted balancer said so.
func (c *conn) LocalAddr() net.Addr {
	if c.local != nil {
		return c.local
	}
	return c.Conn.LocalAddr()
}

// Write fails when the client has not taken the bytes within the write
// timeout, so a client that stops reading cannot hold a writer forever.
func (c *conn) Write(p []byte) (int, error) {
	if c.wrote <= 0 {
		return c.Conn.Write(p)
	}
	_ = c.Conn.SetWriteDeadline(time.Now().Add(c.wrote))
	n, err := c.Conn.Write(p)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		go c.shut("dropped", "client stopped reading", "a write waited "+c.wrote.String())
	}
	return n, err
}

// SetDeadline and its kin are ignored: the connection's deadlines are the
// server's (charmbracelet/ssh would otherwise reset them on every read).
func (c *conn) SetDeadline(time.Time) error      { return nil }
func (c *conn) SetReadDeadline(time.Time) error  { return nil }
func (c *conn) SetWriteDeadline(time.Time) error { return nil }

// Close releases the connection's place in the server's counts, once, and
// logs it if it was refused or abandoned.
func (c *conn) Close() error {
	c.once.Do(c.closed)
	return c.Conn.Close()
}

// shut closes the connection; msg ("refused" or "dropped"), why and
// detail are its log line.
func (c *conn) shut(msg, why, detail string) {
	c.mu.Lock()
	if c.why == "" {
		c.msg, c.why, c.detail = msg, why, detail
	}
	c.mu.Unlock()
	c.Close()
}

func (c *conn) closed() {
	close(c.done)
	s := c.srv
	c.mu.Lock()
	if c.timer != nil {
		c.timer.Stop()
	}
	why, authed, had := c.why, c.authed, c.hadSession
	c.mu.Unlock()
	// A handshake that failed is logged by handshakeFailed, which the SSH
	// library calls after closing the connection, with the error.
	failed := why == "" && !authed
	s.mu.Lock()
	s.forgetLocked(c)
	if !failed && s.byAddr[addrKey(c)] == c {
		delete(s.byAddr, addrKey(c))
	}
	s.mu.Unlock()
	switch {
	case failed, why == reasonIdleConn:
	case why != "":
		c.logEnd("", "")
	case !had:
		c.logEnd("dropped", "no session")
	}
}

// logEnd logs the connection's end: its own msg and why if it has them,
// else these.
func (c *conn) logEnd(msg, why string) {
	c.mu.Lock()
	if c.why != "" {
		msg, why = c.msg, c.why
	}
	attrs := []any{"duration", time.Since(c.start).Round(time.Millisecond)}
	if len(c.keys) > 0 {
		attrs = append(attrs, "keys", strings.Join(c.keys, ","))
	}
	if c.detail != "" {
		attrs = append(attrs, "error", c.detail)
	}
	c.mu.Unlock()
	c.srv.refused.note(msg, why, c.remote.String(), attrs...)
}

// authenticated moves the connection out of the pending ones: it has the
// login grace again to open a session.
func (c *conn) authenticated() {
	s := c.srv
	s.mu.Lock()
	s.releasePendingLocked(c)
	s.mu.Unlock()
	c.mu.Lock()
	c.authed = true
	if c.timer != nil && len(c.chans) == 0 {
		c.timer.Reset(s.cfg.LoginGrace)
	}
	c.mu.Unlock()
}

// offered records a key the client tried, for the log.
func (c *conn) offered(fp string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, k := range c.keys {
		if k == fp {
			return
		}
	}
	if len(c.keys) < maxOfferedKeys {
		c.keys = append(c.keys, fp)
	}
}

// noteError records why an authentication attempt failed, for the log.
func (c *conn) noteError(err string) {
	c.mu.Lock()
	if c.why == "" {
		c.detail = err
	}
	c.mu.Unlock()
}

// noteAuth records a failed authentication attempt. The first "none"
// attempt of a client that has a key is how every client starts, and says
// nothing.
func (c *conn) noteAuth(method string, err error) {
	c.mu.Lock()
	c.triedAuth = true
	c.mu.Unlock()
	if method != "none" && method != "publickey" {
		c.noteError(method + ": " + err.Error())
	}
}

// expire ends a connection that has not authenticated within the login
// grace, or has had no session for as long.
func (c *conn) expire() {
	c.mu.Lock()
	channels, authed, had := len(c.chans), c.authed, c.hadSession
	c.mu.Unlock()
	switch {
	case channels > 0:
	case !authed:
		c.shut("dropped", "login grace expired", "")
	case !had:
		c.shut("dropped", "no session within the login grace", "")
	default:
		c.shut("", reasonIdleConn, "")
	}
}

// openChannel takes a session channel slot of the connection for ch.
func (c *conn) openChannel(ch *channel) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.chans) >= c.srv.cfg.MaxSessionsPerConn {
		return false
	}
	if c.chans == nil {
		c.chans = map[*channel]struct{}{}
	}
	c.chans[ch] = struct{}{}
	c.hadSession = true
	if c.timer != nil {
		c.timer.Stop()
	}
	return true
}

func (c *conn) closeChannel(ch *channel) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if delete(c.chans, ch); len(c.chans) == 0 && c.timer != nil {
		c.timer.Reset(c.srv.cfg.LoginGrace)
	}
}

// idle reports whether no open session channel of the connection has
// carried its visitor's input: a connection not yet authenticated, one
// without a session, and one whose sessions have had no key from the
// client are idle, and a full table may close them (tableVictimLocked).
func (c *conn) idle() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for ch := range c.chans {
		if ch.heard.Load() {
			return false
		}
	}
	return true
}

// keepAlive asks the client for a reply every ClientAliveInterval and
// closes the connection when ClientAliveCountMax go unanswered in a row
// (OpenSSH's ClientAliveInterval): a client that stopped reading, or whose
// network went away, does not hold its sessions.
func (c *conn) keepAlive(sc *gossh.ServerConn) {
	every, most := c.srv.cfg.ClientAliveInterval, c.srv.cfg.ClientAliveCountMax
	if every <= 0 {
		return
	}
	c.alive.Do(func() {
		go func() {
			defer c.srv.guard("keep-alive")
			t := time.NewTicker(every)
			defer t.Stop()
			replied := make(chan struct{}, 1)
			inflight, missed := false, 0
			for {
				select {
				case <-c.done:
					return
				case <-replied:
					inflight, missed = false, 0
				case <-t.C:
					if inflight {
						if missed++; missed >= max(1, most) {
							c.shut("dropped", "no keep-alive reply", (every*time.Duration(missed)).String()+" without a reply")
							return
						}
						continue
					}
					inflight = true
					go func() {
						defer c.srv.guard("keep-alive request")
						// Any reply, success or failure, shows the client is there.
						if _, _, err := sc.SendRequest("keepalive@openssh.com", true, nil); err == nil {
							replied <- struct{}{}
						}
					}()
				}
			}
		}()
	})
}
