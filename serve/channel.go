package serve

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/anmitsu/go-shlex"
	"github.com/charmbracelet/ssh"
	gossh "golang.org/x/crypto/ssh"
)

// The largest terminal a session gets: a pty request or a window change
// beyond it is clamped (the screen buffers grow with width × height).
const (
	MaxTermWidth  = 500
	MaxTermHeight = 200
)

// What a client may set with env requests: the variables that describe its
// terminal, each at most envMaxValue bytes, at most envMaxVars of them.
// Past envMaxRequests requests on one channel, every further one is
// refused unread and the flood is logged.
const (
	envMaxVars     = 16
	envMaxName     = 64
	envMaxValue    = 256
	envMaxRequests = 64
	maxTermName    = 64
)

// envAllowed reports whether a client may set the variable name.
func envAllowed(name string) bool {
	switch name {
	case "TERM", "COLORTERM", "NO_COLOR", "LANG":
		return true
	}
	return strings.HasPrefix(name, "LC_")
}

// channel is one session channel, the ssh.Session that lab serve's
// middlewares see. It replaces charmbracelet/ssh's own session so that its
// requests never block the connection: the SSH library delivers a
// channel's requests from the connection's single read loop, so a request
// handler that waits (charmbracelet/ssh's window-change handler waits for a
// reader of a one-slot channel) stalls every channel of the connection and
// the writes that wait for the client's window adjustments. Here window
// changes are clamped and coalesced into a one-slot mailbox where the
// latest wins, env requests are filtered, forwarding is refused, and each
// request is answered at once.
type channel struct {
	gossh.Channel
	srv    *Server
	conn   *conn
	sc     *gossh.ServerConn
	ctx    *sessCtx
	cancel context.CancelFunc
	winch  chan ssh.Window
	done   chan struct{} // closed when the handler has returned
	heard  atomic.Bool   // the session has read input from the client

	mu         sync.Mutex
	pty        *ssh.Pty
	env        []string
	envReqs    int
	envRefused int
	envFlood   bool
	forwarded  bool
	rawCmd     string
	subsystem  string
	started    bool
	exited     bool
}

// sessCtx is a session's context: the connection's, with values of its own
// (the session's state) and a Done that closes when the channel does.
type sessCtx struct {
	ssh.Context
	ctx    context.Context
	mu     sync.Mutex
	values map[any]any
}

func (c *sessCtx) Deadline() (time.Time, bool) { return c.ctx.Deadline() }
func (c *sessCtx) Done() <-chan struct{}       { return c.ctx.Done() }
func (c *sessCtx) Err() error                  { return c.ctx.Err() }

func (c *sessCtx) Value(key any) any {
	c.mu.Lock()
	v, ok := c.values[key]
	c.mu.Unlock()
	if ok {
		return v
	}
	return c.Context.Value(key)
}

func (c *sessCtx) SetValue(key, value any) {
	c.mu.Lock()
	c.values[key] = value
	c.mu.Unlock()
}

// newSessCtx is a session context inside the connection's ctx; cancel
// ends it.
func newSessCtx(conn ssh.Context) (*sessCtx, context.CancelFunc) {
	ctx, cancel := context.WithCancel(conn)
	return &sessCtx{Context: conn, ctx: ctx, values: map[any]any{}}, cancel
}

// handleSession is the "session" channel handler: it takes a channel slot
// of the connection (at most MaxSessionsPerConn, as OpenSSH's MaxSessions),
// then serves the channel's requests until it closes.
func (s *Server) handleSession(_ *ssh.Server, sc *gossh.ServerConn, nc gossh.NewChannel, ctx ssh.Context) {
	defer s.guard("session channel")
	c := connOf(ctx)
	ch := &channel{srv: s, conn: c, sc: sc, winch: make(chan ssh.Window, 1), done: make(chan struct{})}
	if c == nil || !c.openChannel(ch) {
		_ = nc.Reject(gossh.ResourceShortage, "too many sessions on this connection")
		if c != nil {
			s.refused.note("refused", "too many sessions on one connection", c.remote.String())
		}
		return
	}
	defer c.closeChannel(ch)
	gch, reqs, err := nc.Accept()
	if err != nil {
		return
	}
	c.keepAlive(sc)
	ch.Channel = gch
	ch.ctx, ch.cancel = newSessCtx(ctx)
	ch.serve(reqs)
}

// serve answers the channel's requests until the client closes it or the
// connection ends. A channel that has not asked for a shell within the
// login grace is closed.
func (ch *channel) serve(reqs <-chan *gossh.Request) {
	noShell := time.AfterFunc(ch.srv.cfg.LoginGrace, func() {
		ch.mu.Lock()
		started := ch.started
		ch.mu.Unlock()
		if !started {
			ch.srv.refused.note("dropped", "session without a shell", ch.conn.remote.String())
			_ = ch.Close()
		}
	})
	for req := range reqs {
		ok := ch.handle(req)
		if req.WantReply {
			_ = req.Reply(ok, nil)
		}
		if ok && (req.Type == "shell" || req.Type == "exec" || req.Type == "subsystem") {
			// After the reply: the session may end at once, and its
			// exit status must not overtake the reply.
			go ch.run()
		}
	}
	noShell.Stop()
	ch.cancel()
	ch.mu.Lock()
	started := ch.started
	ch.mu.Unlock()
	if started {
		<-ch.done
	}
}

// handle answers one request; it never waits.
func (ch *channel) handle(req *gossh.Request) bool {
	switch req.Type {
	case "pty-req":
		return ch.ptyRequest(req.Payload)
	case "window-change":
		return ch.windowChange(req.Payload)
	case "env":
		return ch.setenv(req.Payload)
	case "shell", "exec", "subsystem":
		return ch.start(req.Type, req.Payload)
	case "x11-req", "auth-agent-req@openssh.com":
		ch.mu.Lock()
		first := !ch.forwarded
		ch.forwarded = true
		ch.mu.Unlock()
		if first {
			ch.srv.refused.note("refused", "forwarding: "+req.Type, ch.conn.remote.String())
		}
	}
	return false // signals, breaks and anything else: refused
}

// clampWindow keeps a terminal size within 1..MaxTermWidth ×
// 1..MaxTermHeight; an unknown (zero) size is 80×24.
func clampWindow(w, h uint32) ssh.Window {
	if w == 0 || h == 0 {
		w, h = 80, 24
	}
	return ssh.Window{Width: int(min(w, MaxTermWidth)), Height: int(min(h, MaxTermHeight))}
}

// validTerm reports whether a TERM value is a plain terminal name.
func validTerm(t string) bool {
	if t == "" || len(t) > maxTermName {
		return false
	}
	for _, r := range t {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._+-", r)) {
			return false
		}
	}
	return true
}

func (ch *channel) ptyRequest(payload []byte) bool {
	var p struct {
		Term          string
		Columns, Rows uint32
		Width, Height uint32
		Modes         string
	}
	if gossh.Unmarshal(payload, &p) != nil || !validTerm(p.Term) {
		return false
	}
	ch.mu.Lock()
	defer ch.mu.Unlock()
	if ch.started || ch.pty != nil {
		return false
	}
	ch.pty = &ssh.Pty{Term: p.Term, Window: clampWindow(p.Columns, p.Rows)}
	return true
}

func (ch *channel) windowChange(payload []byte) bool {
	var p struct{ Columns, Rows, Width, Height uint32 }
	if gossh.Unmarshal(payload, &p) != nil {
		return false
	}
	w := clampWindow(p.Columns, p.Rows)
	ch.mu.Lock()
	if ch.pty == nil {
		ch.mu.Unlock()
		return false
	}
	ch.pty.Window = w
	ch.mu.Unlock()
	// The latest size replaces one not yet taken; only this goroutine
	// sends, so after the drain the send cannot block.
	select {
	case ch.winch <- w:
	default:
		select {
		case <-ch.winch:
		default:
		}
		ch.winch <- w
	}
	return true
}

func (ch *channel) setenv(payload []byte) bool {
	ok := ch.acceptEnv(payload)
	if !ok {
		ch.mu.Lock()
		ch.envRefused++
		ch.mu.Unlock()
	}
	return ok
}

// envRefusals is how many env requests were refused, for the connect line.
func (ch *channel) envRefusals() int {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	return ch.envRefused
}

func (ch *channel) acceptEnv(payload []byte) bool {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	if ch.envReqs++; ch.envReqs > envMaxRequests {
		if !ch.envFlood {
			ch.envFlood = true
			ch.srv.refused.note("refused", "env flood", ch.conn.remote.String(), "requests", ch.envReqs)
		}
		return false
	}
	var kv struct{ Name, Value string }
	if ch.started || gossh.Unmarshal(payload, &kv) != nil || !envAllowed(kv.Name) ||
		len(kv.Name) > envMaxName || len(kv.Value) > envMaxValue || strings.ContainsAny(kv.Value, "\x00\n\r") {
		return false
	}
	entry := kv.Name + "=" + kv.Value
	for i, e := range ch.env {
		if strings.HasPrefix(e, kv.Name+"=") {
			ch.env[i] = entry
			return true
		}
	}
	if len(ch.env) >= envMaxVars {
		return false
	}
	ch.env = append(ch.env, entry)
	return true
}

// maxCommand bounds the command text kept from an exec request (it is
// only ever refused).
const maxCommand = 256

func (ch *channel) start(kind string, payload []byte) bool {
	var p struct{ Value string }
	if gossh.Unmarshal(payload, &p) != nil && kind != "shell" {
		return false
	}
	if len(p.Value) > maxCommand {
		p.Value = p.Value[:maxCommand]
	}
	ch.mu.Lock()
	defer ch.mu.Unlock()
	if ch.started {
		return false
	}
	ch.started = true
	switch kind {
	case "exec":
		ch.rawCmd = p.Value
		if ch.rawCmd == "" {
			ch.rawCmd = " " // an empty command is still a command, not a shell
		}
	case "subsystem":
		ch.subsystem = p.Value
		if ch.subsystem == "" {
			ch.subsystem = "?"
		}
	}
	return true
}

// run runs the middlewares, then ends the session with status 0 unless a
// middleware ended it already.
func (ch *channel) run() {
	defer close(ch.done)
	defer func() {
		ch.srv.guardSession(recover(), ch)
		_ = ch.Exit(0)
	}()
	ch.srv.handler(ch)
}

// The ssh.Session methods.

func (ch *channel) User() string         { return ch.sc.User() }
func (ch *channel) RemoteAddr() net.Addr { return ch.conn.remote }
func (ch *channel) LocalAddr() net.Addr  { return ch.sc.LocalAddr() }
func (ch *channel) Context() ssh.Context { return ch.ctx }
func (ch *channel) EmulatedPty() bool    { return true }

func (ch *channel) Environ() []string {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	return append([]string(nil), ch.env...)
}

func (ch *channel) RawCommand() string {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	return strings.TrimSpace(ch.rawCmd)
}

func (ch *channel) Command() []string {
	ch.mu.Lock()
	raw := ch.rawCmd
	ch.mu.Unlock()
	if raw == "" {
		return nil
	}
	cmd, _ := shlex.Split(raw, true)
	if len(cmd) == 0 {
		cmd = []string{raw}
	}
	return cmd
}

func (ch *channel) Subsystem() string {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	return ch.subsystem
}

func (ch *channel) PublicKey() ssh.PublicKey {
	k, _ := ch.ctx.Value(ssh.ContextKeyPublicKey).(ssh.PublicKey)
	return k
}

func (ch *channel) Permissions() ssh.Permissions {
	if p := ch.ctx.Permissions(); p != nil && p.Permissions != nil {
		return *p
	}
	return ssh.Permissions{Permissions: &gossh.Permissions{}}
}

// Pty is the terminal the client asked for, its size the latest; the
// channel carries sizes not yet taken, latest first.
func (ch *channel) Pty() (ssh.Pty, <-chan ssh.Window, bool) {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	if ch.pty == nil {
		return ssh.Pty{}, ch.winch, false
	}
	return *ch.pty, ch.winch, true
}

// Read is the client's input, which only the session's program reads: a
// byte of it marks the channel as in use, and a full table of connections
// does not take its connection (conn.idle).
func (ch *channel) Read(p []byte) (int, error) {
	n, err := ch.Channel.Read(p)
	if n > 0 {
		ch.heard.Store(true)
	}
	return n, err
}

// Signals and Break: signal and break requests are refused.
func (ch *channel) Signals(chan<- ssh.Signal) {}
func (ch *channel) Break(chan<- bool)         {}

// Write writes to the client, with newlines as a terminal shows them when
// the client has a pty (there is no pty device to translate them).
func (ch *channel) Write(p []byte) (int, error) {
	if _, _, ok := ch.Pty(); ok {
		return ssh.NewPtyWriter(ch.Channel).Write(p)
	}
	return ch.Channel.Write(p)
}

// Exit sends the exit status and closes the channel; only the first call
// does anything.
func (ch *channel) Exit(code int) error {
	ch.mu.Lock()
	if ch.exited {
		ch.mu.Unlock()
		return errors.New("session already exited")
	}
	ch.exited = true
	ch.mu.Unlock()
	status := struct{ Status uint32 }{uint32(code)}
	_, err := ch.SendRequest("exit-status", false, gossh.Marshal(&status))
	if cerr := ch.Close(); err == nil {
		err = cerr
	}
	return err
}
