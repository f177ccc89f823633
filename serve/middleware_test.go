package serve

// Each middleware on its own, over a fake session.

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/ssh"
	"github.com/thelab/lab/sims"
	gossh "golang.org/x/crypto/ssh"
)

// fakeConnCtx is a connection's ssh.Context outside any server.
type fakeConnCtx struct {
	context.Context
	sync.Mutex
	remote net.Addr
	perms  *ssh.Permissions
}

func (c *fakeConnCtx) User() string          { return "visitor" }
func (c *fakeConnCtx) SessionID() string     { return "fake" }
func (c *fakeConnCtx) ClientVersion() string { return "SSH-2.0-fake" }
func (c *fakeConnCtx) ServerVersion() string { return "SSH-2.0-lab" }
func (c *fakeConnCtx) RemoteAddr() net.Addr  { return c.remote }
func (c *fakeConnCtx) LocalAddr() net.Addr {
	return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 2222}
}
func (c *fakeConnCtx) Permissions() *ssh.Permissions { return c.perms }
func (c *fakeConnCtx) SetValue(key, value any)       {}

// fakeSession is an ssh.Session that records what a middleware does to it.
// Methods the middlewares do not use panic (the embedded nil interface).
type fakeSession struct {
	ssh.Session
	ctx    *sessCtx
	cancel context.CancelFunc
	remote net.Addr
	pty    *ssh.Pty
	cmd    string
	perms  ssh.Permissions

	mu       sync.Mutex
	out      bytes.Buffer
	exit     int
	exited   bool
	closed   chan struct{}
	connShut bool
}

func newFakeSession(ip string, pty bool) *fakeSession {
	remote := &net.TCPAddr{IP: net.ParseIP(ip), Port: 40000}
	perms := &ssh.Permissions{Permissions: &gossh.Permissions{}}
	ctx, cancel := newSessCtx(&fakeConnCtx{Context: context.Background(), remote: remote, perms: perms})
	f := &fakeSession{ctx: ctx, cancel: cancel, remote: remote, perms: *perms, closed: make(chan struct{}), exit: -1}
	if pty {
		f.pty = &ssh.Pty{Term: "xterm", Window: ssh.Window{Width: 80, Height: 24}}
	}
	return f
}

func (f *fakeSession) Context() ssh.Context         { return f.ctx }
func (f *fakeSession) RemoteAddr() net.Addr         { return f.remote }
func (f *fakeSession) LocalAddr() net.Addr          { return f.ctx.LocalAddr() }
func (f *fakeSession) User() string                 { return "visitor" }
func (f *fakeSession) Environ() []string            { return nil }
func (f *fakeSession) PublicKey() ssh.PublicKey     { return nil }
func (f *fakeSession) RawCommand() string           { return f.cmd }
func (f *fakeSession) Command() []string            { return strings.Fields(f.cmd) }
func (f *fakeSession) Subsystem() string            { return "" }
func (f *fakeSession) Permissions() ssh.Permissions { return f.perms }

func (f *fakeSession) Pty() (ssh.Pty, <-chan ssh.Window, bool) {
	if f.pty == nil {
		return ssh.Pty{}, nil, false
	}
	return *f.pty, nil, true
}

func (f *fakeSession) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.out.Write(p)
}

func (f *fakeSession) Exit(code int) error {
	f.mu.Lock()
	f.exit, f.exited = code, true
	f.mu.Unlock()
	return f.Close()
}

func (f *fakeSession) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	select {
	case <-f.closed:
	default:
		close(f.closed)
		f.cancel()
	}
	return nil
}

func (f *fakeSession) closeConn() {
	f.mu.Lock()
	f.connShut = true
	f.mu.Unlock()
}

func (f *fakeSession) output() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.out.String()
}

// bareServer is a Server without a listener, for its middlewares.
func bareServer(cfg Config) (*Server, *syncBuffer) {
	logs := &syncBuffer{}
	log := newLogger(logs, slog.LevelInfo)
	return &Server{cfg: cfg, log: log, refused: newRefusals(log), sessions: map[*session]struct{}{},
		perAddrCount: counter{}, conns: map[*conn]struct{}{}, pending: map[*conn]struct{}{},
		pendingPer: counter{}, byAddr: map[string]*conn{}, closingCh: make(chan struct{})}, logs
}

// withState runs h with the session state the logging middleware makes.
func withState(s *Server, h ssh.Handler) ssh.Handler { return s.logging(h) }

// blocking is a handler that returns when release is closed or its
// session is closed, and says when it has begun.
func blocking(began chan<- struct{}, release <-chan struct{}) ssh.Handler {
	return func(sess ssh.Session) {
		began <- struct{}{}
		select {
		case <-release:
		case <-sess.Context().Done():
		}
	}
}

func TestLoggingMiddleware(t *testing.T) {
	s, logs := bareServer(DefaultConfig())
	f := newFakeSession("192.0.2.1", true)
	var seen *session
	s.logging(func(sess ssh.Session) {
		seen = stateOf(sess)
		seen.setReason(reasonQuit)
	})(f)
	if seen == nil || seen.ip != "192.0.2.1" || seen.term != "xterm" {
		t.Fatalf("the state the next middleware saw: %+v", seen)
	}
	for _, want := range []string{"msg=connect session=1 addr=192.0.2.1:40000 user=visitor term=xterm size=80x24",
		"msg=disconnect session=1 addr=192.0.2.1:40000", "reason=quit"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, logs.String())
		}
	}
	if len(s.sessions) != 0 {
		t.Error("the session was not forgotten")
	}
}

func TestRecoveringMiddleware(t *testing.T) {
	s, logs := bareServer(DefaultConfig())
	f := newFakeSession("192.0.2.1", true)
	withState(s, s.recovering(func(ssh.Session) { panic("boom") }))(f)
	if !strings.Contains(f.output(), "something broke") {
		t.Errorf("the client read %q", f.output())
	}
	if !strings.Contains(logs.String(), "msg=panic") || !strings.Contains(logs.String(), "panic=boom") ||
		!strings.Contains(logs.String(), "reason=panic") {
		t.Errorf("log:\n%s", logs.String())
	}
}

func TestTerminalMiddleware(t *testing.T) {
	s, _ := bareServer(DefaultConfig())
	noKeyPTY := newFakeSession("192.0.2.1", true)
	noKeyPTY.perms.Permissions = &gossh.Permissions{Extensions: map[string]string{extNoPTY: ""}}
	command := func(cmd string) *fakeSession {
		f := newFakeSession("192.0.2.1", true)
		f.cmd = cmd
		return f
	}
	for name, tc := range map[string]struct {
		f      *fakeSession
		reason string
		says   string
	}{
		"no pty":        {newFakeSession("192.0.2.1", false), reasonNoPTY, "needs a terminal"},
		"command":       {command("uptime"), reasonCommand, "runs the lab only"},
		"tour and more": {command("tour sinkhorn-underflow; rm -rf /"), reasonCommand, "runs the lab only"},
		"no such scene": {command("tour nosuch"), reasonCommand, "no scene nosuch"},
		"key no-pty":    {noKeyPTY, reasonKeyNoPTY, "forbids a terminal"},
		"a terminal":    {newFakeSession("192.0.2.1", true), "reached", ""},
		"tour":          {command("tour"), "reached", ""},
		"tour NAME":     {command("tour sinkhorn-underflow"), "reached", ""},
		"tour NAME no pty": {func() *fakeSession {
			f := newFakeSession("192.0.2.1", false)
			f.cmd = "tour sinkhorn-underflow"
			return f
		}(), reasonNoPTY, "needs a terminal"},
	} {
		withState(s, s.terminal(func(sess ssh.Session) { stateOf(sess).setReason("reached") }))(tc.f)
		if tc.says != "" && (!tc.f.exited || tc.f.exit != 1 || !strings.Contains(tc.f.output(), tc.says)) {
			t.Errorf("%s: exit %d, read %q", name, tc.f.exit, tc.f.output())
		}
		if tc.says == "" && tc.f.exited {
			t.Errorf("%s: refused: %q", name, tc.f.output())
		}
	}
}

func TestCapacityAndPerAddressMiddlewares(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxSessions, cfg.MaxSessionsPerAddr = 2, 1
	s, _ := bareServer(cfg)
	began, release := make(chan struct{}, 4), make(chan struct{})
	h := withState(s, s.capacity(s.perAddr(blocking(began, release))))
	run := func(f *fakeSession) chan struct{} {
		done := make(chan struct{})
		go func() { h(f); close(done) }()
		return done
	}
	first := run(newFakeSession("192.0.2.1", true))
	<-began
	// Another from the same address: refused by perAddr.
	same := newFakeSession("192.0.2.1", true)
	<-run(same)
	if same.exit != 1 || !strings.Contains(same.output(), "from your address") {
		t.Errorf("a second session from one address: exit %d, %q", same.exit, same.output())
	}
	second := run(newFakeSession("192.0.2.2", true))
	<-began
	// A third address: the server is full.
	full := newFakeSession("192.0.2.3", true)
	<-run(full)
	if full.exit != 1 || !strings.Contains(full.output(), "the server is full") {
		t.Errorf("over capacity: exit %d, %q", full.exit, full.output())
	}
	close(release)
	<-first
	<-second
	if s.active != 0 || len(s.perAddrCount) != 0 {
		t.Errorf("after the sessions: %d active, per address %v", s.active, s.perAddrCount)
	}
	// The slots are free again.
	again := newFakeSession("192.0.2.1", true)
	<-run(again)
	if again.exited {
		t.Errorf("refused after the others left: %q", again.output())
	}
}

func TestLimitsMiddlewareEndsAStuckSessionOnTheWallClock(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxSessionDuration = 100 * time.Millisecond
	cfg.slack, cfg.forceAfter = 50*time.Millisecond, 50*time.Millisecond
	s, logs := bareServer(cfg)

	// A handler that ends when its session is closed: closed at the limit.
	f := newFakeSession("192.0.2.1", true)
	began := time.Now()
	withState(s, s.limits(func(sess ssh.Session) { <-sess.Context().Done() }))(f)
	if d := time.Since(began); d < cfg.MaxSessionDuration+cfg.slack || d > wait {
		t.Errorf("the session was closed after %s", d)
	}
	if !strings.Contains(logs.String(), `reason="max session duration"`) || f.connShut {
		t.Errorf("log:\n%s (connection closed: %v)", logs.String(), f.connShut)
	}

	// One that does not even end then: its connection is closed.
	f = newFakeSession("192.0.2.1", true)
	release := make(chan struct{})
	done := make(chan struct{})
	go func() {
		withState(s, s.limits(func(ssh.Session) { <-release }))(f)
		close(done)
	}()
	waitUntil(t, "the connection closed", func() bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		return f.connShut
	})
	close(release)
	<-done

	// Idle: input moves the deadline.
	cfg.MaxSessionDuration, cfg.IdleTimeout = 0, 100*time.Millisecond
	s, _ = bareServer(cfg)
	f = newFakeSession("192.0.2.1", true)
	var st *session
	began = time.Now()
	withState(s, s.limits(func(sess ssh.Session) {
		st = stateOf(sess)
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for range 10 { // 200 ms of typing
			<-tick.C
			st.touch()
		}
		<-sess.Context().Done()
	}))(f)
	if d := time.Since(began); d < 200*time.Millisecond+cfg.IdleTimeout {
		t.Errorf("an active session was closed as idle after %s", d)
	}
	if st.getReason() != reasonIdle {
		t.Errorf("reason %q", st.getReason())
	}
}

func TestGuardLogsAPanic(t *testing.T) {
	s, logs := bareServer(DefaultConfig())
	func() {
		defer s.guard("a test")
		panic("boom")
	}()
	if !strings.Contains(logs.String(), `msg=panic in="a test" panic=boom stack=`) {
		t.Errorf("log:\n%s", logs.String())
	}
}

// TestInputIsSanitisedAndPaced: the program reads the client's bytes
// sanitised, and a long stream with pauses of escPause every inputBurst
// bytes, between sequences.
func TestInputIsSanitisedAndPaced(t *testing.T) {
	s, _ := bareServer(DefaultConfig())
	st := &session{srv: s}
	text := strings.Repeat("abcdefgh", 3*inputBurst/8+10)
	in := newInput(strings.NewReader(crashCSI+text), st, nil, func() {})
	defer in.close()
	began := time.Now()
	got := readAll(in)
	if want := sanitise(crashCSI) + text; string(got) != want {
		t.Fatalf("the program read %d bytes, want the %d of the sanitised input", len(got), len(want))
	}
	if d := time.Since(began); d < 2*escPause { // after 4 KiB and 8 KiB

		t.Errorf("%d bytes reached the program in %s: no pause every %d bytes", len(got), d, inputBurst)
	}
	if st.lastInput.Load() == 0 {
		t.Error("the input was not recorded as activity")
	}
}

// readAll is what the program reads from in until its end.
func readAll(in *input) []byte {
	var got []byte
	buf := make([]byte, 4096)
	for {
		n, err := in.Read(buf)
		got = append(got, buf[:n]...)
		if err != nil {
			return got
		}
	}
}

// TestInputWaitsWhileTheSessionRests: while the session is in debt its
// input waits for it, at most restInput a chunk: a client that types as
// fast as its link allows is held to what its budget pays for.
func TestInputWaitsWhileTheSessionRests(t *testing.T) {
	s, _ := bareServer(DefaultConfig())
	st := &session{srv: s}
	budget := sims.NewBudget(sims.Limits{Cores: 0.1})
	budget.Charge(time.Second) // 900 ms in debt at a tenth of a core: 9 s of rest
	text := strings.Repeat("x", 2*readChunk)
	in := newInput(strings.NewReader(text), st, budget.Rest, func() {})
	defer in.close()
	began := time.Now()
	got := readAll(in)
	if string(got) != text {
		t.Fatalf("the program read %d bytes, want %d", len(got), len(text))
	}
	// Two chunks, each waiting restInput: the debt outlasts them both.
	if d := time.Since(began); d < 2*restInput {
		t.Errorf("%d bytes of a session in debt reached the program in %s", len(got), d)
	}
}
