package serve

// Tests that play the attacker: scripted SSH clients and raw TCP on
// loopback, each bounded in time, none synchronised by sleeping.

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/thelab/lab/serve/servetest"
	gossh "golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
)

// toggled waits for the focused pane (sim) to switch between running and
// paused after a space, whatever state it was in: the session answers keys.
func toggled(t *testing.T, s *servetest.Session, sim string) {
	t.Helper()
	was := strings.Contains(title(s.Screen.String(), sim), "paused")
	s.Send(" ")
	waitScreen(t, s, sim+" toggled", func(sc string) bool {
		return strings.Contains(title(sc, sim), "paused") != was
	})
}

func TestHostileSequencesDoNotCrashTheServer(t *testing.T) {
	cfg := testConfig(t)
	cfg.Sims = []string{"mh"}
	ts := start(t, cfg)
	// The 90 bytes and its variants, each in one write: the
	// session goes on and answers the next key.
	a := ts.open(t, servetest.Options{W: 80, H: 24, User: "crash"})
	for _, in := range hostile[:12] {
		if err := a.Send(in); err != nil {
			t.Fatal(err)
		}
	}
	toggled(t, a, "mh")
	// Everything, whole and split into 7-byte writes, and random bytes: a
	// sequence split by the parser's escape timeout reads as keys (q
	// quits), so this session may end; the server may not.
	b := ts.open(t, servetest.Options{W: 80, H: 24, User: "garbage"})
	rng := rand.New(rand.NewPCG(5, 6))
	for _, in := range append(hostile, randomInputs(rng, 100)...) {
		if b.Send(in) != nil {
			break
		}
		for i := 0; i < len(in); i += 7 {
			b.Send(in[i:min(len(in), i+7)])
		}
	}
	c := ts.open(t, servetest.Options{W: 80, H: 24, User: "next"})
	toggled(t, c, "mh")
	toggled(t, a, "mh")
	if l := ts.log.lines("msg=panic"); len(l) > 0 {
		t.Errorf("panics logged: %q", l)
	}
}

func TestHugePasteIsCutAndTheSessionGoesOn(t *testing.T) {
	cfg := testConfig(t)
	cfg.Sims = []string{"mh"}
	ts := start(t, cfg)
	s := ts.open(t, servetest.Options{W: 80, H: 24})
	// 1 MB pasted: the lab sees at most maxPaste of it, as one paste, and
	// the key after it.
	s.Send("\x1b[200~" + strings.Repeat("0123456789abcdef", 1<<16) + "\x1b[201~")
	toggled(t, s, "mh")
}

func TestTerminalSizeIsClamped(t *testing.T) {
	cfg := testConfig(t)
	cfg.Sims = []string{"gd"}
	ts := start(t, cfg)
	heap0 := liveHeap()
	s, err := servetest.Open(ts.addr, servetest.Options{W: 3000, H: 3000, User: "huge", Discard: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ts.log.waitLog(t, "msg=connect", "user=huge", "size=500x200")
	for _, r := range []struct{ w, h int }{{100, 30}, {10000, 10000}, {80, 24}, {3000, 1}} {
		if err := s.Resize(r.w, r.h); err != nil {
			t.Fatal(err)
		}
		// The channel clamps the window; a screen of more than
		// maxScreenCells is drawn smaller.
		w, h := capScreen(min(r.w, MaxTermWidth), min(r.h, MaxTermHeight))
		want := fmt.Sprintf("%dx%d", w, h)
		waitUntil(t, "the resize to "+want, func() bool { return ts.sizeOf("huge") == want })
		if r.w >= MaxTermWidth && r.h >= MaxTermHeight {
			// The largest screen is a few megabytes; 10000x10000 would be
			// gigabytes.
			if grown := liveHeap() - heap0; grown > 200<<20 {
				t.Errorf("the heap grew by %d MiB with one huge terminal", grown>>20)
			}
		}
	}
	if w := clampWindow(0, 0); w.Width != 80 || w.Height != 24 {
		t.Errorf("an unknown size became %v", w)
	}
}

func TestEnvRequestsAreFilteredAndCapped(t *testing.T) {
	ts := start(t, testConfig(t))
	_, sess := rawSession(t, ts, "env")
	for _, kv := range [][2]string{{"NO_COLOR", "1"}, {"LANG", "C.UTF-8"}, {"LC_ALL", "C.UTF-8"}, {"COLORTERM", "truecolor"}} {
		if err := sess.Setenv(kv[0], kv[1]); err != nil {
			t.Errorf("setenv %s: %v, want it accepted", kv[0], err)
		}
	}
	for _, kv := range [][2]string{{"LD_PRELOAD", "/tmp/x.so"}, {"PATH", "/tmp"}, {"LANG", strings.Repeat("x", 1000)}, {"TERM", "a\nb"}} {
		if sess.Setenv(kv[0], kv[1]) == nil {
			t.Errorf("setenv %s=%.20q was accepted", kv[0], kv[1])
		}
	}
	// A flood: 2000 requests of 32 KiB each, 64 MiB if kept.
	heap0 := liveHeap()
	big := strings.Repeat("v", 32<<10)
	accepted := 0
	for i := range 2000 {
		if sess.Setenv(fmt.Sprintf("LC_%d", i), big) == nil {
			accepted++
		}
	}
	if accepted > 0 {
		t.Errorf("%d of the flood's requests were accepted", accepted)
	}
	if grown := liveHeap() - heap0; grown > 16<<20 {
		t.Errorf("the heap grew by %d MiB during the flood", grown>>20)
	}
	ts.log.waitLog(t, "msg=refused", `reason="env flood"`)
	if n := len(ts.log.lines(`reason="env flood"`)); n != 1 {
		t.Errorf("%d env flood lines for one flood", n)
	}
	// What was accepted before the flood reached the lab.
	sess.RequestPty("xterm-256color", 24, 80, gossh.TerminalModes{})
	sess.Shell()
	ts.log.waitLog(t, "msg=connect", "user=env", "colour=Ascii", "env_refused=2004")
}

func TestWindowChangesBeforeAShellLeakNothing(t *testing.T) {
	ts := start(t, testConfig(t))
	base := runtime.NumGoroutine()
	for i := range 5 {
		c, err := servetest.Dial(ts.addr, servetest.Options{})
		if err != nil {
			t.Fatal(err)
		}
		sess, err := c.NewSession()
		if err != nil {
			t.Fatal(err)
		}
		if err := sess.RequestPty("xterm", 24, 80, gossh.TerminalModes{}); err != nil {
			t.Fatal(err)
		}
		for j := range 2000 {
			if err := sess.WindowChange(24+j%10, 80+i); err != nil {
				t.Fatal(err)
			}
		}
		// The connection still answers: a request that waits for a reply.
		if _, _, err := c.SendRequest("ping@lab", true, nil); err != nil {
			t.Fatalf("connection %d stopped answering after 2000 window changes: %v", i, err)
		}
		c.Close()
	}
	if !eventually(wait, func() bool { return runtime.NumGoroutine() <= base+2 }) {
		t.Fatalf("%d goroutines after five connections, %d before:\n%s", runtime.NumGoroutine(), base, goroutines())
	}
}

func TestWindowChangeStormWithAClientThatDoesNotRead(t *testing.T) {
	cfg := testConfig(t)
	cfg.MaxSessionDuration = time.Second
	cfg.slack, cfg.forceAfter = 300*time.Millisecond, 300*time.Millisecond
	ts := start(t, cfg)
	c, sess := rawSession(t, ts, "storm")
	sess.StdoutPipe() // never read: the server's writes wait for the client's window
	sess.StdinPipe()  // kept open (a nil Stdin would send EOF: the client left)
	if err := sess.RequestPty("xterm-256color", 40, 120, gossh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	if err := sess.Shell(); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	stormed := make(chan int, 1)
	go func() {
		n := 0
		for ; n < 100000; n++ {
			if sess.WindowChange(20+n%100, 40+n%400) != nil {
				break
			}
		}
		stormed <- n
	}()
	ts.log.waitLog(t, "msg=disconnect", "user=storm", `reason="max session duration"`)
	if d := time.Since(began); d > cfg.MaxSessionDuration+cfg.slack+cfg.forceAfter+5*time.Second {
		t.Errorf("the session ended %s after it began, its limit %s", d, cfg.MaxSessionDuration)
	}
	c.Close()
	<-stormed
	ts.takesSessions(t)
}

func TestLimitsFireOnTheWallClockWhenTheProgramIsStuck(t *testing.T) {
	cfg := testConfig(t)
	cfg.Sims = []string{"gd"}
	// Long enough for the first screen (and the stuck key) on a loaded
	// machine under -race: 800 ms ended the session before it showed.
	cfg.MaxSessionDuration = 3 * time.Second
	cfg.slack, cfg.forceAfter = 200*time.Millisecond, 200*time.Millisecond
	release := make(chan struct{})
	cfg.hook = func(msg tea.Msg) {
		if k, ok := msg.(tea.KeyPressMsg); ok && k.String() == "!" {
			<-release // the program's loop is stuck here
		}
	}
	ts := start(t, cfg)
	var once sync.Once
	unblock := func() { once.Do(func() { close(release) }) }
	t.Cleanup(unblock) // before the server's shutdown
	began := time.Now()
	s := ts.open(t, servetest.Options{User: "stuck"})
	s.Send("!")
	// A window-change storm too: the channel keeps answering.
	go func() {
		for i := 0; s.Sess.WindowChange(30+i%20, 100) == nil && i < 20000; i++ {
		}
	}()
	s.Wait(wait) // any end will do: an exit status or a closed connection
	select {
	case <-s.Done():
	default:
		t.Fatal("the stuck session did not end")
	}
	if d := time.Since(began); d > cfg.MaxSessionDuration+cfg.slack+cfg.forceAfter+2*time.Second {
		t.Errorf("the stuck session ended after %s", d)
	}
	ts.log.waitLog(t, "closing a session past its limit", "reason=\"max session duration\"")
	unblock()
	ts.log.waitLog(t, "msg=disconnect", "user=stuck", `reason="max session duration"`)
	waitUntil(t, "the stuck lab closed", func() bool { return ts.openLabs() == 0 })
	ts.takesSessions(t)
}

func TestSessionChannelsPerConnectionAreCapped(t *testing.T) {
	cfg := testConfig(t)
	cfg.Sims = []string{"gd"}
	cfg.MaxSessionsPerConn = 2
	ts := start(t, cfg)
	c, err := servetest.Dial(ts.addr, servetest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var open []*servetest.Session
	for range 2 {
		s, err := servetest.Start(c, servetest.Options{W: 80, H: 24})
		if err != nil {
			t.Fatal(err)
		}
		open = append(open, s)
	}
	for range 30 { // 32 sessions on one connection filled the server
		if _, err := c.NewSession(); err == nil || !strings.Contains(err.Error(), "too many sessions") {
			t.Fatalf("a third session on one connection: %v", err)
		}
	}
	ts.log.waitLog(t, "msg=refused", `reason="too many sessions on one connection"`)
	// A closed one frees its slot.
	open[0].Sess.Close()
	waitUntil(t, "a free channel slot", func() bool {
		s, err := c.NewSession()
		if err == nil {
			s.Close()
		}
		return err == nil
	})
}

func TestSessionsPerAddressAreCapped(t *testing.T) {
	cfg := testConfig(t)
	cfg.Sims = []string{"gd"}
	cfg.MaxSessionsPerAddr = 1
	ts := start(t, cfg)
	ts.open(t, servetest.Options{User: "first"})
	b, err := servetest.Open(ts.addr, servetest.Options{User: "second"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if st := exitStatus(t, b.Wait(wait)); st != 1 || !strings.Contains(b.Text(), "from your address") {
		t.Errorf("a second session from one address: status %d, read %q", st, b.Text())
	}
	ts.log.waitLog(t, "msg=disconnect", "user=second", `reason="too many sessions from this address"`)
	ts.open(t, servetest.Options{User: "elsewhere", From: "127.0.0.2"})
}

func TestLoginGraceDropsStalledHandshakes(t *testing.T) {
	cfg := testConfig(t)
	cfg.LoginGrace = 300 * time.Millisecond
	ts := start(t, cfg)
	silent := dialRaw(t, ts.addr, "")
	trickle := dialRaw(t, ts.addr, "")
	go func() { // a byte every 50 ms: never a complete version line
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for _, b := range []byte("SSH-2.0-slowclient-that-never-ends-its-version-line") {
			if _, err := trickle.Write([]byte{b}); err != nil {
				return
			}
			<-tick.C
		}
	}()
	for name, c := range map[string]net.Conn{"silent": silent, "trickling": trickle} {
		if !closedWithin(c, wait) {
			t.Errorf("the %s connection was not closed at the login grace", name)
		}
	}
	ts.log.waitLogs(t, 2, "msg=dropped", `reason="login grace expired"`)

	// Authenticated, but no session: dropped a grace later.
	c, err := servetest.Dial(ts.addr, servetest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	select {
	case <-done:
	case <-time.After(wait):
		t.Fatal("an authenticated connection without a session stayed open")
	}
	ts.log.waitLog(t, "msg=dropped", `reason="no session within the login grace"`)
	waitUntil(t, "no connection left", func() bool { return ts.openConns() == 0 })
}

func TestStalledHandshakesNeverKeepAVisitorOut(t *testing.T) {
	cfg := testConfig(t)
	cfg.MaxStartups, cfg.MaxStartupsPerAddr = 4, 2
	ts := start(t, cfg) // the default login grace: 20 s
	var stalled []net.Conn
	for _, from := range []string{"127.0.0.2", "127.0.0.2", "127.0.0.3", "127.0.0.3"} {
		stalled = append(stalled, dialRaw(t, ts.addr, from))
	}
	waitUntil(t, "four pending handshakes", func() bool { return ts.pendingConns() == 4 })
	// A third from one address is refused at once.
	if !closedWithin(dialRaw(t, ts.addr, "127.0.0.2"), wait) {
		t.Error("a third pending connection from one address was kept")
	}
	ts.log.waitLog(t, "msg=refused", `reason="too many unauthenticated connections from this address"`)
	// A visitor gets in: the oldest stalled handshake makes room.
	ts.open(t, servetest.Options{User: "visitor"})
	ts.log.waitLog(t, "msg=dropped", "evicted")
	evicted := 0
	for _, c := range stalled {
		if closedWithin(c, 300*time.Millisecond) {
			evicted++
		}
	}
	if evicted != 1 {
		t.Errorf("%d stalled connections were dropped for one visitor, want 1", evicted)
	}
}

// TestStalledConnectionsNeverKeepAVisitorOut: one address fills the table
// of connections with logged-in connections that do nothing, the oldest
// with a session that has had no key; visitors from other addresses still
// get a session, each in the place of that address's oldest idle
// connection, and the address itself gets no more.
func TestStalledConnectionsNeverKeepAVisitorOut(t *testing.T) {
	cfg := testConfig(t)
	cfg.Sims = []string{"gd"}
	cfg.MaxSessions, cfg.MaxStartups = 3, 2 // a table of 2×3+2 = 8 connections
	ts := start(t, cfg)
	quiet := ts.open(t, servetest.Options{From: "127.0.0.2", User: "quiet"})
	var stalled []*gossh.Client
	for i := range 7 {
		stalled = append(stalled, dialFrom(t, ts, "127.0.0.2", fmt.Sprintf("stalled%d", i)))
	}
	if n := ts.openConns(); n != 8 {
		t.Fatalf("%d connections open, want a full table of 8", n)
	}
	toggled(t, ts.open(t, servetest.Options{From: "127.0.0.3", User: "first"}), "gd")
	select {
	case <-quiet.Done():
	case <-time.After(wait):
		t.Fatal("the session that had no key was not evicted for a visitor")
	}
	ts.log.waitLog(t, "msg=dropped", `reason="evicted: connection table full"`, "addr=127.0.0.2:")
	toggled(t, ts.open(t, servetest.Options{From: "127.0.0.4", User: "second"}), "gd")
	if !clientClosedWithin(stalled[0], wait) {
		t.Error("the oldest stalled connection was not evicted for the second visitor")
	}
	for i, c := range stalled[1:] {
		if _, _, err := c.SendRequest("ping@lab", true, nil); err != nil {
			t.Errorf("stalled connection %d was closed too: %v", i+1, err)
		}
	}
	// The busiest address takes no place but its own.
	if c, err := servetest.Dial(ts.addr, servetest.Options{From: "127.0.0.2"}); err == nil {
		c.Close()
		t.Error("one more connection from the address holding most of the table was admitted")
	}
	ts.log.waitLog(t, "msg=refused", `reason="too many connections"`, "addr=127.0.0.2:")
}

// TestAFullTableNeverEvictsAVisitorWhoIsTyping: a classroom behind one
// address holds two sessions it types in, attackers one idle connection
// from each of three addresses; an attacker from a fourth is refused
// rather than take a typing visitor's place.
func TestAFullTableNeverEvictsAVisitorWhoIsTyping(t *testing.T) {
	cfg := testConfig(t)
	cfg.Sims = []string{"gd"}
	cfg.MaxSessions, cfg.MaxStartups = 2, 1 // a table of 2×2+1 = 5 connections
	ts := start(t, cfg)
	var class []*servetest.Session
	for i := range 2 {
		s := ts.open(t, servetest.Options{From: "127.0.0.3", User: fmt.Sprintf("pupil%d", i)})
		toggled(t, s, "gd")
		class = append(class, s)
	}
	for _, from := range []string{"127.0.0.4", "127.0.0.5", "127.0.0.6"} {
		dialFrom(t, ts, from, "attacker")
	}
	if c, err := servetest.Dial(ts.addr, servetest.Options{From: "127.0.0.7"}); err == nil {
		c.Close()
		t.Error("a fifth connection was admitted to a table of five")
	}
	ts.log.waitLog(t, "msg=refused", `reason="too many connections"`, "addr=127.0.0.7:")
	for _, s := range class {
		toggled(t, s, "gd")
	}
	if l := ts.log.lines("evicted"); len(l) > 0 {
		t.Errorf("evictions: %q", l)
	}
}

// dialFrom is an SSH connection to ts from a loopback address, logged in,
// without a session; closed when the test ends.
func dialFrom(t *testing.T, ts *testServer, from, user string) *gossh.Client {
	t.Helper()
	c, err := servetest.Dial(ts.addr, servetest.Options{From: from, User: user})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// clientClosedWithin reports whether the server closes c within d.
func clientClosedWithin(c *gossh.Client, d time.Duration) bool {
	done := make(chan struct{})
	go func() {
		c.Wait()
		close(done)
	}()
	select {
	case <-done:
		return true
	case <-time.After(d):
		return false
	}
}

func TestKeepAlivesDropClientsThatStopReading(t *testing.T) {
	cfg := testConfig(t)
	cfg.Sims = []string{"gd"}
	cfg.ClientAliveInterval, cfg.ClientAliveCountMax = 100*time.Millisecond, 3
	ts := start(t, cfg)
	raw := dialRaw(t, ts.addr, "")
	fc := &freezeConn{Conn: raw, frozen: make(chan struct{}), release: make(chan struct{})}
	t.Cleanup(func() { close(fc.release) })
	s, err := servetest.Open(ts.addr, servetest.Options{User: "gone", Conn: fc, W: 80, H: 24})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.WaitText(wait, "play/pause"); err != nil {
		t.Fatal(err)
	}
	close(fc.frozen) // the client stops reading, as a vanished laptop would
	// Unanswered keep-alives end it, or a write the client does not take.
	waitUntil(t, "the silent client dropped", func() bool {
		return len(ts.log.lines("msg=dropped", `reason="no keep-alive reply"`))+
			len(ts.log.lines("msg=dropped", `reason="client stopped reading"`)) > 0
	})
	ts.log.waitLog(t, "msg=disconnect", "user=gone")
	waitUntil(t, "no connection left", func() bool { return ts.openConns() == 0 })
	waitUntil(t, "its lab closed", func() bool { return ts.openLabs() == 0 })
}

func TestForwardingIsRefusedAndLogged(t *testing.T) {
	ts := start(t, testConfig(t))
	c, sess := rawSession(t, ts, "")
	if conn, err := c.Dial("tcp", ts.addr); err == nil { // ssh -L
		conn.Close()
		t.Error("a direct-tcpip channel was opened")
	}
	if ln, err := c.Listen("tcp", "127.0.0.1:0"); err == nil { // ssh -R
		ln.Close()
		t.Error("remote forwarding was granted")
	}
	if err := agent.RequestAgentForwarding(sess); err == nil { // ssh -A
		t.Error("agent forwarding was granted")
	}
	for _, what := range []string{"direct-tcpip", "tcpip-forward", "auth-agent-req@openssh.com"} {
		ts.log.waitLog(t, "msg=refused", `reason="forwarding: `+what+`"`)
	}
	// Channel types a client makes up are one reason, however many.
	for i := range 30 {
		if ch, _, err := c.OpenChannel(fmt.Sprintf("made-up-%d", i), nil); err == nil {
			ch.Close()
			t.Fatal("a made-up channel type was accepted")
		}
	}
	ts.log.waitLog(t, "msg=refused", `reason="channel type refused"`, "type=made-up-0")
	if n := len(ts.log.lines(`reason="channel type refused"`)); n > refusalBurst {
		t.Errorf("%d lines for one kind of refusal in a minute, want at most %d", n, refusalBurst)
	}
}

func TestNoSHA1IsOffered(t *testing.T) {
	ts := start(t, testConfig(t))
	for name, tweak := range map[string]func(*gossh.ClientConfig){
		"kex": func(c *gossh.ClientConfig) { c.KeyExchanges = []string{gossh.InsecureKeyExchangeDH14SHA1} },
		"mac": func(c *gossh.ClientConfig) {
			c.MACs = []string{gossh.HMACSHA1}
			c.Ciphers = []string{gossh.CipherAES128CTR}
		},
		"hmac-sha1-96": func(c *gossh.ClientConfig) {
			c.MACs = []string{gossh.InsecureHMACSHA196}
			c.Ciphers = []string{gossh.CipherAES128CTR}
		},
	} {
		if c, err := servetest.Dial(ts.addr, servetest.Options{Tweak: tweak}); err == nil {
			c.Close()
			t.Errorf("%s: a client offering only SHA-1 connected", name)
		}
	}
	cfg := ts.serverConfig(nil)
	for _, list := range [][]string{cfg.KeyExchanges, cfg.MACs, cfg.PublicKeyAuthAlgorithms} {
		for _, a := range list {
			if strings.Contains(a, "sha1") || a == gossh.KeyAlgoRSA {
				t.Errorf("%s is offered", a)
			}
		}
	}
}

func TestChannelWithoutAShellIsClosed(t *testing.T) {
	cfg := testConfig(t)
	cfg.LoginGrace = 300 * time.Millisecond
	ts := start(t, cfg)
	_, sess := rawSession(t, ts, "")
	out, _ := sess.StdoutPipe()
	if err := sess.RequestPty("xterm", 24, 80, gossh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := io.Copy(io.Discard, out); done <- err }()
	select {
	case <-done:
	case <-time.After(wait):
		t.Fatal("a session channel without a shell stayed open")
	}
	ts.log.waitLog(t, "msg=dropped", `reason="session without a shell"`)
}

// dialRaw opens a TCP connection to addr (from the given loopback
// address), closed when the test ends.
func dialRaw(t *testing.T, addr, from string) net.Conn {
	t.Helper()
	d := net.Dialer{Timeout: wait}
	if from != "" {
		d.LocalAddr = &net.TCPAddr{IP: net.ParseIP(from)}
	}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// closedWithin reports whether the server closes c within d: a read
// reaches the end of the stream (after the server's version line).
func closedWithin(c net.Conn, d time.Duration) bool {
	_ = c.SetReadDeadline(time.Now().Add(d))
	_, err := io.Copy(io.Discard, c)
	var ne net.Error
	return err == nil || !(errors.As(err, &ne) && ne.Timeout())
}

// freezeConn stops delivering what the server sends once frozen is
// closed, as a client that stopped reading, until release.
type freezeConn struct {
	net.Conn
	frozen, release chan struct{}
}

func (f *freezeConn) Read(p []byte) (int, error) {
	select {
	case <-f.frozen:
		<-f.release
		return 0, io.EOF
	default:
	}
	return f.Conn.Read(p)
}

// TestSessionsLeaveNothingBehind: after four sessions running two panes
// flat out have come and gone, the server holds no more goroutines and no
// more heap than before (generous bounds: a session holds several MiB).
func TestSessionsLeaveNothingBehind(t *testing.T) {
	cfg := testConfig(t)
	cfg.Sims = []string{"mh", "mh"}
	cfg.CPUPerSession = 0 // flat out, whatever -race costs
	ts := start(t, cfg)
	goroutines0, heap0 := runtime.NumGoroutine(), liveHeap()
	var ss []*servetest.Session
	for i := range 4 {
		s, err := servetest.Open(ts.addr, servetest.Options{W: 80, H: 24, User: fmt.Sprintf("s%d", i), Sync: true, Discard: true})
		if err != nil {
			t.Fatal(err)
		}
		s.Send(strings.Repeat(strings.Repeat("+", 12)+"\t", 2)) // every pane at full speed
		ss = append(ss, s)
	}
	waitRunners(t, 8)
	waitUntil(t, "frames in every session", func() bool {
		for _, s := range ss {
			if s.Frames() < 2 {
				return false
			}
		}
		return true
	})
	for _, s := range ss {
		s.Close()
	}
	waitRunners(t, 0)
	waitUntil(t, "the sessions forgotten", func() bool { return ts.openLabs() == 0 && ts.openConns() == 0 })
	if !eventually(wait, func() bool { return runtime.NumGoroutine() <= goroutines0 }) {
		t.Errorf("%d goroutines after the sessions, %d before:\n%s", runtime.NumGoroutine(), goroutines0, goroutines())
	}
	if grown := liveHeap() - heap0; grown > 8<<20 {
		t.Errorf("the live heap grew by %.1f MiB after four sessions came and went", float64(grown)/(1<<20))
	}
}

// rawSession is a connection to ts as user and a session channel on it
// that has asked for nothing yet; both closed when the test ends.
func rawSession(t *testing.T, ts *testServer, user string) (*gossh.Client, *gossh.Session) {
	t.Helper()
	c, err := servetest.Dial(ts.addr, servetest.Options{User: user})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	sess, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	return c, sess
}
