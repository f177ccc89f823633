package serve

import (
	"cmp"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"charm.land/wish/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/ssh"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/tui"
	gossh "golang.org/x/crypto/ssh"
)

// A session passes through small middlewares, outermost first, which share
// its state (a *session in its context, put there by the first):
//
//	logging     connect and disconnect lines, the session's state
//	recovering  a panic ends this session only, logged with its stack
//	terminal    no pty, a command or a subsystem: one line on how to connect
//	capacity    at most MaxSessions at once: "the server is full"
//	perAddr     at most MaxSessionsPerAddr from one address
//	limits      the wall-clock backstop of the idle, visit and shutdown limits
//	lab         the session's lab, run by Bubble Tea until it ends
//
// Each is a wish.Middleware and is tested on its own.
func (s *Server) middlewares() []wish.Middleware {
	// wish.WithMiddleware composes them last to first.
	return []wish.Middleware{s.lab, s.limits, s.perAddr, s.capacity, s.terminal, s.recovering, s.logging}
}

// Why a session ended, as logged.
const (
	reasonQuit     = "quit"
	reasonClient   = "client closed"
	reasonIdle     = "idle timeout"
	reasonMax      = "max session duration"
	reasonShutdown = "server shutdown"
	reasonFull     = "server full"
	reasonAddrFull = "too many sessions from this address"
	reasonNoPTY    = "no pty"
	reasonKeyNoPTY = "key allows no pty"
	reasonCommand  = "command"
	reasonPanic    = "panic"
	reasonYield    = "yielded to a new visitor"
	reasonMemory   = "server memory full"
)

// extNoPTY marks, in a connection's permissions, a key whose
// authorized_keys line forbids a terminal (no-pty, restrict).
const extNoPTY = "lab-no-pty"

// stateKey finds a session's *session in its context.
type stateKey struct{}

// session is one SSH session's state, shared by its middlewares: who,
// since when, its terminal, when it last heard from the client, and why
// it ended.
type session struct {
	srv   *Server
	sess  ssh.Session
	id    uint64
	start time.Time
	addr  string // the client's address and port
	ip    string // its address, the key of per-address limits
	user  string
	term  string

	mu      sync.Mutex
	w, h    int
	profile string
	reason  string

	quitSeen  atomic.Bool  // the program saw a QuitMsg
	inputEOF  atomic.Bool  // the client closed its input
	lastInput atomic.Int64 // unix nanoseconds of the last input or resize
	// lastActive is when the visitor was last active: input that came
	// within activityGap of the input before it (a key now and then
	// keeps a session from its idle timeout, not from yielding).
	lastActive atomic.Int64
	lastKey    atomic.Int64 // unix nanoseconds of the last input read
	// yieldAt is when the session was asked to make room for a new
	// visitor (0: never); its program ends it with a notice.
	yieldAt atomic.Int64
	poke    chan struct{} // wakes the wall-clock backstop: a deadline moved

	budget *sims.Budget // the session's allowance, once its lab is made
	// opening is what the lab opens on, read from the visitor's command
	// by the terminal middleware.
	opening opening

	// Under srv.mu: the session holds one of the MaxSessions slots, and
	// gave it to a new visitor when it yielded.
	slot, slotGiven bool
}

// stateOf is the state the logging middleware gave sess.
func stateOf(sess ssh.Session) *session {
	st, _ := sess.Context().Value(stateKey{}).(*session)
	return st
}

func (st *session) setReason(r string) {
	st.mu.Lock()
	if st.reason == "" {
		st.reason = r
	}
	st.mu.Unlock()
}

func (st *session) getReason() string {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.reason
}

func (st *session) setSize(w, h int) {
	st.mu.Lock()
	st.w, st.h = w, h
	st.mu.Unlock()
}

func (st *session) size() string {
	st.mu.Lock()
	defer st.mu.Unlock()
	return fmt.Sprintf("%dx%d", st.w, st.h)
}

// touch records input from the client now: a key or a resize.
func (st *session) touch() { st.lastInput.Store(time.Now().UnixNano()) }

// idle reports whether the visitor has been idle for d (> 0) at now: not
// active (lastActive) and without input since.
func (st *session) idle(now time.Time, d time.Duration) bool {
	last := max(st.lastActive.Load(), st.lastInput.Load())
	return d > 0 && now.UnixNano()-last >= int64(d)
}

// activityGap is how close two inputs must come for the second to count
// as the visitor being active (see session.lastActive).
const activityGap = time.Minute

// typed records input the client typed now (keys, mouse, a paste).
func (st *session) typed() {
	now := time.Now().UnixNano()
	st.touch()
	if prev := st.lastKey.Swap(now); now-prev <= int64(activityGap) {
		st.lastActive.Store(now)
	}
}

// panicked records a recovered panic: it ends only this session.
func (st *session) panicked(v any, stack []byte) {
	st.mu.Lock()
	first := st.reason != reasonPanic
	st.reason = reasonPanic
	st.mu.Unlock()
	if first {
		st.srv.log.Error("panic", "session", st.id, "addr", st.addr, "user", st.user,
			"panic", fmt.Sprint(v), "stack", string(stack))
	}
}

// refuse tells the client why in one line and ends the session.
func (st *session) refuse(reason, line string) {
	st.setReason(reason)
	fmt.Fprintln(st.sess, line) // a PTY session's writer adds the \r
	_ = st.sess.Exit(1)
}

// logging registers the session, logs its connect line, and after the
// session logs its disconnect line with why it ended — however it ended.
func (s *Server) logging(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		st := s.begin(sess)
		defer s.end(st)
		next(sess)
	}
}

func (s *Server) begin(sess ssh.Session) *session {
	now := time.Now()
	st := &session{srv: s, sess: sess, id: s.ids.Add(1), start: now, poke: make(chan struct{}, 1),
		addr: sess.RemoteAddr().String(), ip: hostOf(sess.RemoteAddr()), user: clip(sess.User(), 64)}
	st.lastInput.Store(now.UnixNano())
	st.lastActive.Store(now.UnixNano())
	attrs := []any{"session", st.id, "addr", st.addr, "user", st.user}
	if pty, _, ok := sess.Pty(); ok {
		st.term = pty.Term
		st.w, st.h = pty.Window.Width, pty.Window.Height
		attrs = append(attrs, "term", pty.Term, "size", st.size(),
			"colour", colorprofile.Env(append(sess.Environ(), "TERM="+pty.Term)).String())
	} else {
		attrs = append(attrs, "term", "none")
	}
	if k := sess.PublicKey(); k != nil {
		attrs = append(attrs, "key", gossh.FingerprintSHA256(k))
	}
	if e, ok := sess.(interface{ envRefusals() int }); ok && e.envRefusals() > 0 {
		attrs = append(attrs, "env_refused", e.envRefusals())
	}
	sess.Context().SetValue(stateKey{}, st)
	s.mu.Lock()
	s.sessions[st] = struct{}{}
	s.mu.Unlock()
	s.log.Info("connect", attrs...)
	return st
}

func (s *Server) end(st *session) {
	reason := st.getReason()
	if reason == "" {
		reason = "ended"
	}
	attrs := []any{"session", st.id, "addr", st.addr, "user", st.user}
	if st.term != "" {
		attrs = append(attrs, "size", st.size())
	}
	attrs = append(attrs, "duration", time.Since(st.start).Round(time.Millisecond))
	st.mu.Lock()
	b := st.budget
	st.mu.Unlock()
	if b != nil {
		u := b.Usage()
		attrs = append(attrs, "cpu", u.Busy.Round(time.Millisecond), "steps", u.Steps, "builds", u.Builds)
	}
	attrs = append(attrs, "reason", reason)
	s.log.Info("disconnect", attrs...)
	s.mu.Lock()
	delete(s.sessions, st)
	s.mu.Unlock()
}

// recovering turns a panic in the session's handlers into the end of this
// session only: logged with its stack, the client told.
func (s *Server) recovering(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		defer func() {
			if v := recover(); v != nil {
				if st := stateOf(sess); st != nil {
					st.panicked(v, debug.Stack())
				} else {
					s.log.Error("panic", "addr", sess.RemoteAddr().String(), "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
				}
				fmt.Fprint(sess, "\r\n"+farewell(reasonPanic, s.cfg)+"\r\n")
			}
		}()
		next(sess)
	}
}

// guard, deferred at the top of a goroutine the server owns or of a
// callback the SSH library calls in its own, turns a panic into a log
// line: nothing a session does can end the process.
func (s *Server) guard(what string) {
	if v := recover(); v != nil {
		s.log.Error("panic", "in", what, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
	}
}

// guardSession is guard for a session's own goroutine, given recover()'s
// value: the session ends.
func (s *Server) guardSession(v any, ch *channel) {
	if v == nil {
		return
	}
	s.log.Error("panic", "in", "session", "addr", ch.conn.remote.String(), "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
}

// terminal turns away a session that cannot show the lab: no pty, a
// subsystem or a command other than the tour's (openingOf), or a key
// whose options forbid a pty.
func (s *Server) terminal(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		st := stateOf(sess)
		_, _, ok := sess.Pty()
		_, keyNoPTY := sess.Permissions().Extensions[extNoPTY]
		var refusal string
		st.opening, refusal = s.openingOf(sess)
		switch {
		case sess.Subsystem() != "":
			st.refuse(reasonCommand, noPTYLine(sess))
		case keyNoPTY:
			st.refuse(reasonKeyNoPTY, "lab: your key's line in the server's authorized_keys forbids a terminal (no-pty or restrict), and the lab needs one.")
		case !ok && sess.RawCommand() != "":
			st.refuse(reasonCommand, noPTYLine(sess))
		case !ok:
			st.refuse(reasonNoPTY, noPTYLine(sess))
		case refusal != "":
			st.refuse(reasonCommand, refusal)
		default:
			next(sess)
		}
	}
}

// opening is what a session's lab opens on: scene at of the tour (≥ 0),
// the scene picker, or the operator's sims.
type opening struct {
	at     int
	picker bool
}

// openingOf is what the visitor's command asks the lab to open: nothing,
// what the operator chose (Scene, Sims, or the picker); "tour", the scene
// picker; "tour NAME", that scene. The command is the exec request's
// words, split as a shell would but never given to one; anything else is
// refused, with the line saying what a visitor may ask for.
func (s *Server) openingOf(sess ssh.Session) (opening, string) {
	words := sess.Command()
	switch {
	case sess.RawCommand() == "":
		switch {
		case s.cfg.Scene != "":
			return opening{at: sceneIndex(s.cfg.Tour, s.cfg.Scene)}, ""
		case len(s.cfg.Sims) > 0:
			return opening{at: -1}, ""
		}
		return opening{at: -1, picker: true}, ""
	case len(words) == 1 && words[0] == "tour":
		return opening{at: -1, picker: true}, ""
	case len(words) == 2 && words[0] == "tour":
		if i := sceneIndex(s.cfg.Tour, words[1]); i >= 0 {
			return opening{at: i}, ""
		}
		return opening{}, fmt.Sprintf("lab: no scene %s here; `%s tour` opens the list of scenes.",
			sims.Shown(words[1]), ttyHint(sess))
	}
	return opening{}, fmt.Sprintf("lab: this server runs the lab only: connect with `%s`, or ask for a scene of the tour with `%s tour NAME` (`tour` alone lists them).",
		connectHint(sess.LocalAddr()), ttyHint(sess))
}

// ttyHint is the ssh command line that asks for a terminal with a command.
func ttyHint(sess ssh.Session) string {
	return strings.Replace(connectHint(sess.LocalAddr()), "ssh ", "ssh -t ", 1)
}

// capacity holds one of MaxSessions slots for the session. When the
// server is full, the idlest session of the busiest address yields its
// slot to the newcomer (yieldVictimLocked), if one has been idle long
// enough; else the newcomer is told the server is full.
func (s *Server) capacity(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		st := stateOf(sess)
		var victim *session
		s.mu.Lock()
		ok := !s.closing && s.active < s.cfg.MaxSessions
		switch {
		case ok:
			s.active++
		case !s.closing && !s.addrFullLocked(st.ip):
			// The victim's slot passes to the newcomer at once: the
			// count stays and the victim will not give it back.
			if victim = s.yieldVictimLocked(st.ip); victim != nil {
				victim.slotGiven, ok = true, true
			}
		}
		st.slot = ok
		s.mu.Unlock()
		if !ok {
			st.refuse(reasonFull, fmt.Sprintf("lab: the server is full (%d visitors at once); please try again in a few minutes.", s.cfg.MaxSessions))
			return
		}
		if victim != nil {
			victim.yield(st)
		}
		defer func() {
			s.mu.Lock()
			st.slot = false
			if !st.slotGiven {
				s.active--
			}
			s.mu.Unlock()
		}()
		next(sess)
	}
}

// yieldVictimLocked is the session that makes room for a new visitor from
// the address newcomer when the server is full: of the sessions idle for
// YieldAfter or more, the one of the address holding the most sessions,
// the longest idle first; nil when none is idle enough. A session yields
// only to a visitor whose address holds fewer sessions than its own, so
// never to its own address: an address that reconnects does not churn its own idle
// sessions (under the capacity test's idle attack, visitors whose
// sessions had yielded came straight back and took the places of their
// own idle sessions, each new session a build and a full first screen).
func (s *Server) yieldVictimLocked(newcomer string) *session {
	now, idle := time.Now().UnixNano(), int64(s.cfg.YieldAfter)
	var victim *session
	for c := range s.sessions {
		if !c.slot || c.slotGiven || c.yieldAt.Load() != 0 || now-c.lastActive.Load() < idle ||
			s.perAddrCount[c.ip] <= s.perAddrCount[newcomer] {
			continue
		}
		if victim == nil {
			victim = c
			continue
		}
		nc, nv := s.perAddrCount[c.ip], s.perAddrCount[victim.ip]
		if nc > nv || nc == nv && c.lastActive.Load() < victim.lastActive.Load() {
			victim = c
		}
	}
	return victim
}

// addrFullLocked reports whether ip holds MaxSessionsPerAddr sessions
// already: no session yields to a newcomer perAddr would refuse.
func (s *Server) addrFullLocked(ip string) bool {
	return s.cfg.MaxSessionsPerAddr > 0 && s.perAddrCount[ip] >= s.cfg.MaxSessionsPerAddr
}

// yield asks the session to end and make room for the newcomer: its
// program says why on its screen and quits at its next check, and the
// wall-clock backstop holds it to that.
func (st *session) yield(newcomer *session) {
	idle := time.Since(time.Unix(0, st.lastActive.Load())).Round(time.Second)
	st.yieldAt.Store(time.Now().UnixNano())
	select {
	case st.poke <- struct{}{}:
	default:
	}
	st.srv.log.Info("yield", "session", st.id, "addr", st.addr, "idle", idle, "to", newcomer.addr)
}

// perAddr holds one of MaxSessionsPerAddr slots of the client's address.
func (s *Server) perAddr(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		st := stateOf(sess)
		s.mu.Lock()
		ok := s.perAddrCount.take(st.ip, s.cfg.MaxSessionsPerAddr)
		s.mu.Unlock()
		if !ok {
			st.refuse(reasonAddrFull, fmt.Sprintf("lab: %d sessions are open from your address already; close one and connect again.", s.cfg.MaxSessionsPerAddr))
			return
		}
		defer func() {
			s.mu.Lock()
			s.perAddrCount.give(st.ip)
			s.mu.Unlock()
		}()
		next(sess)
	}
}

// The wall-clock backstop: a session that has not ended hardSlack after a
// limit (its program stuck writing to a client that stopped reading, say)
// is closed; if its handler is still running forceConnAfter later, so is
// its connection.
const (
	hardSlack      = 2 * time.Second
	forceConnAfter = 2 * time.Second
)

// limits watches the session's idle, visit and shutdown deadlines on the
// wall clock, whatever its goroutines are doing. The session's own model
// ends it politely first, with a notice and a goodbye.
func (s *Server) limits(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		done := make(chan struct{})
		go s.watch(sess, stateOf(sess), done)
		defer close(done)
		next(sess)
	}
}

func (s *Server) watch(sess ssh.Session, st *session, done <-chan struct{}) {
	defer s.guard("session limits")
	closing := s.closingCh
	t := time.NewTimer(time.Hour)
	defer t.Stop()
	for {
		at, reason := st.hardDeadline()
		var fire <-chan time.Time
		if !at.IsZero() {
			if !time.Now().Before(at) {
				s.force(sess, st, reason, done)
				return
			}
			t.Reset(time.Until(at))
			fire = t.C
		}
		select {
		case <-done:
			return
		case <-closing:
			closing = nil // the shutdown deadline now counts
		case <-st.poke:
		case <-fire:
		}
	}
}

// hardDeadline is when the session must have ended, and why: hardSlack
// after its visit limit, its idle limit (from the last input the server
// read) or the shutdown's deadline, whichever comes first.
func (st *session) hardDeadline() (time.Time, string) {
	var at time.Time
	reason := ""
	consider := func(t time.Time, r string) {
		if at.IsZero() || t.Before(at) {
			at, reason = t, r
		}
	}
	cfg := st.srv.cfg
	slack := cmp.Or(cfg.slack, hardSlack)
	if cfg.MaxSessionDuration > 0 {
		consider(st.start.Add(cfg.MaxSessionDuration+slack), reasonMax)
	}
	if cfg.IdleTimeout > 0 {
		consider(time.Unix(0, st.lastInput.Load()).Add(cfg.IdleTimeout+slack), reasonIdle)
	}
	if end, closing := st.srv.shutdownDeadline(); closing {
		consider(end.Add(slack), reasonShutdown)
	}
	if y := st.yieldAt.Load(); y != 0 {
		consider(time.Unix(0, y).Add(checkEvery+slack), reasonYield)
	}
	return at, reason
}

// connCloser is a session whose connection can be closed.
type connCloser interface{ closeConn() }

func (ch *channel) closeConn() { ch.conn.shut("dropped", "session stuck past its limit", "") }

// force ends a session past its limit: its channel, then its connection.
func (s *Server) force(sess ssh.Session, st *session, reason string, done <-chan struct{}) {
	st.setReason(reason)
	s.log.Warn("closing a session past its limit", "session", st.id, "addr", st.addr, "reason", reason)
	_ = sess.Close()
	select {
	case <-done:
	case <-time.After(cmp.Or(s.cfg.forceAfter, forceConnAfter)):
		if c, ok := sess.(connCloser); ok {
			c.closeConn()
		}
	}
}

// lab runs the session's own lab until the visitor quits, the client goes
// away or a limit ends it, then says goodbye.
func (s *Server) lab(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		st := stateOf(sess)
		budget := s.newBudget(st.ip)
		defer budget.Close()
		st.mu.Lock()
		st.budget = budget
		st.mu.Unlock()
		pty, _, _ := sess.Pty()
		w, h, err := s.admit(sess, st, budget, pty.Window.Width, pty.Window.Height, s.firstPanes(st.opening))
		if err != nil {
			st.refuse(reasonMemory, "lab: "+err.Error())
			return
		}
		opts := s.firstPanes(st.opening)
		lab, err := tui.New(tui.Options{Catalog: s.cfg.Catalog, Sims: opts.Sims, Panes: opts.Panes, Focus: opts.Focus,
			Seed: s.cfg.Seed, Budget: budget, MaxPanes: s.cfg.MaxPanes, Cadence: s.cadence,
			// The tour's scenes (t, n, N): read before serving.
			Tour: s.cfg.Tour, TourAt: opts.TourAt, Picker: opts.Picker,
			// A visitor's exports go to their own clipboard, never to the
			// server's disk.
			Remote: true,
			// A visitor who leaves while the first builds wait for the
			// budget (an address in debt) ends the session at once.
			Context: sess.Context()})
		if err != nil {
			if sess.Context().Err() != nil {
				st.setReason(reasonClient) // unless a limit closed it first
				return
			}
			st.refuse("error: "+err.Error(), "lab: "+err.Error())
			return
		}
		s.mu.Lock()
		s.labs++
		s.mu.Unlock()
		defer func() {
			lab.Close()
			s.mu.Lock()
			s.labs--
			s.mu.Unlock()
		}()
		s.runProgram(sess, st, lab, budget, w, h)
		// The program has ended and the terminal is restored.
		if st.getReason() == "" {
			_, closing := s.shutdownDeadline()
			switch {
			case closing:
				st.setReason(reasonShutdown)
			case sess.Context().Err() != nil || st.inputEOF.Load():
				st.setReason(reasonClient)
			case st.quitSeen.Load():
				st.setReason(reasonQuit)
			default:
				st.setReason("ended")
			}
		}
		if msg := farewell(st.getReason(), s.cfg); msg != "" {
			fmt.Fprint(sess, "\r\n"+msg+"\r\n")
		}
		next(sess)
	}
}

// firstPanes are the options of a session's lab that say what it
// opens on (Sims, Panes, Focus, TourAt, Picker).
func (s *Server) firstPanes(o opening) tui.Options {
	switch {
	case o.at >= 0:
		sc := s.cfg.Tour[o.at]
		return tui.Options{Sims: []string{}, Panes: tui.PaneOptionsOf(sc), Focus: sc.Focus, TourAt: o.at}
	case o.picker:
		return tui.Options{Sims: []string{}, TourAt: -1, Picker: true}
	}
	return tui.Options{Sims: s.cfg.Sims, TourAt: -1}
}

// admitWait is how long a new session waits for memory that an idle
// session yielding, or a session ending, frees on a full server.
const admitWait = 5 * time.Second

// admit holds on the session's budget what its w×h screen takes, beside
// room for its first sims (drawn smaller if that is all its budget allows;
// the size held is returned). When the server's total is short, the
// idlest session of the busiest address is asked to yield, and the
// session waits up to admitWait for the room.
func (s *Server) admit(sess ssh.Session, st *session, b *sims.Budget, w, h int, open tui.Options) (int, int, error) {
	var first int64
	var names []string
	for _, po := range open.Panes {
		spec := s.cfg.Catalog.Lookup(po.Sim)
		vals, err := sims.Resolve(spec.Params, po.Set)
		if err != nil {
			return 0, 0, err // checked with the tour: a bug
		}
		first += spec.EstimateSize(sims.Config{Values: vals, Data: po.Data})
		names = append(names, po.Sim)
	}
	for _, name := range open.Sims {
		first += s.cfg.Catalog.Lookup(name).EstimateSize(sims.Config{})
		names = append(names, name)
	}
	holdFirstSims := "its first panes (" + strings.Join(names, ", ") + ")"
	deadline := time.NewTimer(cmp.Or(s.cfg.admitWait, admitWait))
	defer deadline.Stop()
	asked := false
	for {
		freed := s.pool.Freed()
		// The first sims' room is held while the screen is fitted, then
		// given back for their builds to take.
		err := b.Hold(holdFirstSims, first)
		if err == nil {
			var fw, fh int
			fw, fh, err = fitScreen(b, w, h)
			b.Hold(holdFirstSims, 0)
			if err == nil {
				return fw, fh, nil
			}
		}
		var me *sims.MemoryError
		if !errors.As(err, &me) || !me.Server {
			return 0, 0, err // the session's own budget: nothing will free it
		}
		if !asked {
			asked = true
			s.mu.Lock()
			victim := s.yieldVictimLocked(st.ip)
			s.mu.Unlock()
			if victim != nil {
				victim.yield(st)
			}
		}
		select {
		case <-freed:
		case <-deadline.C:
			return 0, 0, fmt.Errorf("the server's memory for visitors (%s) is all in use; please try again in a few minutes", sims.Bytes(s.pool.Limit()))
		case <-sess.Context().Done():
			return 0, 0, sess.Context().Err()
		}
	}
}

// noPTYLine tells a client without a terminal how to connect.
func noPTYLine(sess ssh.Session) string {
	return "lab: the lab is interactive and needs a terminal; connect with `" +
		connectHint(sess.LocalAddr()) + "` (no -T, no command), or `" + ttyHint(sess) + " tour NAME` for a scene."
}

// farewell is the line a client reads after its session ends.
func farewell(reason string, cfg Config) string {
	switch reason {
	case reasonIdle:
		return fmt.Sprintf("lab: session closed after %s without a key press. Connect again any time.", cfg.IdleTimeout)
	case reasonMax:
		return fmt.Sprintf("lab: session closed: a visit lasts at most %s. Connect again any time.", cfg.MaxSessionDuration)
	case reasonShutdown:
		return "lab: the server is shutting down. Goodbye!"
	case reasonPanic:
		return "lab: something broke inside the lab and this session had to end (it is logged). Sorry! Connect again to start afresh."
	case reasonYield:
		return fmt.Sprintf("lab: the server was full and this session had been idle for %s or more, so it made room for a new visitor. Connect again any time.", cfg.YieldAfter)
	case reasonMemory:
		return "lab: the server's memory for visitors is all in use; please try again in a few minutes."
	}
	return ""
}
