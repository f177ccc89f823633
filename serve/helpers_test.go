package serve

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/thelab/lab/serve/servetest"
	"github.com/thelab/lab/sims"
)

// syncBuffer is a log sink safe for the server's goroutines, which tells
// waiters of every write.
type syncBuffer struct {
	mu      sync.Mutex
	b       bytes.Buffer
	changed chan struct{} // closed at the next write
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.changed != nil {
		close(s.changed)
		s.changed = nil
	}
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// next is closed at the next write.
func (s *syncBuffer) next() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.changed == nil {
		s.changed = make(chan struct{})
	}
	return s.changed
}

// lines are the log lines holding every one of subs.
func (s *syncBuffer) lines(subs ...string) []string {
	var out []string
	for _, l := range strings.Split(s.String(), "\n") {
		ok := l != ""
		for _, sub := range subs {
			ok = ok && strings.Contains(l, sub)
		}
		if ok {
			out = append(out, l)
		}
	}
	return out
}

// waitLog waits for a log line holding every one of subs.
func (s *syncBuffer) waitLog(t *testing.T, subs ...string) string {
	t.Helper()
	return s.waitLogs(t, 1, subs...)[0]
}

// waitLogs waits, up to wait, for n log lines holding every one of subs.
func (s *syncBuffer) waitLogs(t *testing.T, n int, subs ...string) []string {
	t.Helper()
	deadline := time.After(wait)
	for {
		next := s.next()
		if l := s.lines(subs...); len(l) >= n {
			return l
		}
		select {
		case <-next:
		case <-deadline:
			t.Fatalf("fewer than %d log lines with %q in:\n%s", n, subs, s.String())
		}
	}
}

type testServer struct {
	*Server
	addr    string
	log     *syncBuffer
	done    chan error
	stopped bool
}

// testConfig is a server for tests: a fresh state directory, quick
// limits, no rate limit unless a test sets one.
func testConfig(t *testing.T) Config {
	cfg := DefaultConfig()
	cfg.StateDir = t.TempDir()
	cfg.ConnPerMinute = 0
	cfg.Grace = 300 * time.Millisecond
	cfg.FPS = 15 // half the frames: the clients' screens keep up under -race
	// The panes these tests watch (a visitor's default is the tour's
	// picker: TestTourOverSSH).
	cfg.Sims = []string{"gd", "em-gmm", "mh"}
	return cfg
}

// start serves cfg on a free loopback port; the server is shut down when
// the test ends and must then have no runner left.
func start(t *testing.T, cfg Config) *testServer {
	t.Helper()
	logs := &syncBuffer{}
	cfg.Log = logs
	srv, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ts := &testServer{Server: srv, addr: ln.Addr().String(), log: logs, done: make(chan error, 1)}
	go func() { ts.done <- srv.Serve(ln) }()
	logs.waitLog(t, "msg=listening")
	t.Cleanup(func() {
		ts.shutdown(t)
		waitUntil(t, "every lab closed", func() bool { return ts.openLabs() == 0 })
		waitRunners(t, 0)
		if t.Failed() {
			t.Logf("server log:\n%s", logs.String())
		}
	})
	return ts
}

func (ts *testServer) shutdown(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = ts.Shutdown(ctx)
	if ts.stopped {
		return
	}
	ts.stopped = true
	select {
	case err := <-ts.done:
		if err != nil {
			t.Errorf("Serve returned %v after Shutdown, want nil", err)
		}
	case <-time.After(3 * time.Second):
		t.Error("Serve did not return after Shutdown")
	}
}

// open starts a PTY session and waits for the lab's screen.
func (ts *testServer) open(t *testing.T, o servetest.Options) *servetest.Session {
	t.Helper()
	s, err := servetest.Open(ts.addr, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if !o.NoPTY && o.Command == "" {
		if screen, err := s.WaitText(wait, " · step ", "play/pause"); err != nil {
			t.Fatalf("%v; screen:\n%s\nlog:\n%s", err, screen, ts.log.String())
		}
	}
	return s
}

// takesSessions checks that the server still takes a session, by its
// connect line: not by its screen, since a test's short visit limit may
// end the session before a loaded machine under -race draws the first.
func (ts *testServer) takesSessions(t *testing.T) {
	t.Helper()
	s, err := servetest.Open(ts.addr, servetest.Options{User: "next"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ts.log.waitLog(t, "msg=connect", "user=next")
}

// runners counts the goroutines of live sims.Runners in this process.
func runners() int {
	var b bytes.Buffer
	_ = pprof.Lookup("goroutine").WriteTo(&b, 2)
	return strings.Count(b.String(), "sims.(*loop).run(")
}

// waitRunners waits until exactly n runners are alive.
func waitRunners(t *testing.T, n int) {
	t.Helper()
	waitUntil(t, fmt.Sprintf("%d runner goroutines", n), func() bool { return runners() == n })
}

// waitUntil checks cond every few milliseconds until it holds, and fails
// the test if it does not within wait.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	if !eventually(wait, cond) {
		t.Fatalf("timed out waiting for %s", what)
	}
}

// eventually reports whether cond holds within d, checking it every few
// milliseconds.
func eventually(d time.Duration, cond func() bool) bool {
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(d)
	for !cond() {
		select {
		case <-tick.C:
		case <-deadline:
			return cond()
		}
	}
	return true
}

// title is the top edge of the pane showing sim on the screen.
func title(screen, sim string) string {
	for _, l := range strings.Split(screen, "\n") {
		if i := strings.Index(l, sim+" · "); i >= 0 {
			rest := l[i:]
			if j := strings.IndexAny(rest, "━─"); j > 0 {
				rest = rest[:j]
			}
			return strings.TrimSpace(rest)
		}
	}
	return ""
}

// goroutines is a dump of every goroutine, for a failure's message.
func goroutines() string {
	var b bytes.Buffer
	_ = pprof.Lookup("goroutine").WriteTo(&b, 1)
	return b.String()
}

// liveHeap is the heap in use after a full collection.
func liveHeap() int64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// sizeOf is the terminal size of user's session ("" if none).
func (ts *testServer) sizeOf(user string) string {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	for st := range ts.sessions {
		if st.user == user {
			return st.size()
		}
	}
	return ""
}

// openConns and pendingConns count the server's TCP connections, and
// those not yet authenticated.
func (ts *testServer) openConns() int {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return len(ts.conns)
}

func (ts *testServer) pendingConns() int {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return len(ts.pending)
}

// corpusConfig is a configuration of spec (lda) with its corpus set.
func corpusConfig(t *testing.T, spec *sims.Spec, corpus string) sims.Config {
	t.Helper()
	vals, err := sims.Resolve(spec.Params, map[string]string{"corpus": corpus})
	if err != nil {
		t.Fatal(err)
	}
	return sims.Config{Values: vals, Seed: 1}
}

// openLabs is how many sessions' labs are not yet closed.
func (ts *testServer) openLabs() int {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.labs
}
