package serve

import (
	"bytes"
	"context"
	"net"
	"runtime/pprof"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/thelab/lab/serve/servetest"
)

// syncBuffer is a log sink safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
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
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		if l := s.lines(subs...); len(l) > 0 {
			return l[0]
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no log line with %q in:\n%s", subs, s.String())
	return ""
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
	cfg.Grace = 600 * time.Millisecond
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
		if screen, err := s.WaitText(3*time.Second, " · step ", "play/pause"); err != nil {
			t.Fatalf("%v; screen:\n%s\nlog:\n%s", err, screen, ts.log.String())
		}
	}
	return s
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
	deadline := time.Now().Add(3 * time.Second)
	for runners() != n {
		if time.Now().After(deadline) {
			t.Fatalf("%d runner goroutines alive, want %d", runners(), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
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
