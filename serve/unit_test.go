package serve

import (
	"fmt"
	"io"
	"log/slog"
	"net"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/thelab/lab/sims/catalog"
	"github.com/thelab/lab/tui"
)

func TestAddrLimiterRefillsPerAddress(t *testing.T) {
	now := time.Unix(1000, 0)
	l := newAddrLimiter(3)
	l.now = func() time.Time { return now }
	a := &net.TCPAddr{IP: net.IPv4(10, 0, 0, 1), Port: 1}
	a2 := &net.TCPAddr{IP: net.IPv4(10, 0, 0, 1), Port: 2} // same address, other port
	b := &net.TCPAddr{IP: net.IPv4(10, 0, 0, 2), Port: 1}
	for i := range 3 {
		if !l.allow(a) {
			t.Fatalf("connection %d refused within the burst", i+1)
		}
	}
	if l.allow(a2) {
		t.Fatal("a fourth connection from the same address within the minute was allowed")
	}
	if !l.allow(b) {
		t.Fatal("another address was refused")
	}
	now = now.Add(20 * time.Second) // 3/min: one token back
	if !l.allow(a) || l.allow(a) {
		t.Fatal("after 20 s at 3/min exactly one more connection should pass")
	}
	// Refilled buckets are forgotten.
	now = now.Add(2 * time.Minute)
	l.allow(b)
	if len(l.buckets) != 1 {
		t.Errorf("%d buckets kept after a quiet minute, want 1 (the one just used)", len(l.buckets))
	}
	if !newAddrLimiter(0).allow(a) {
		t.Error("a zero rate must mean no limit")
	}
}

// newModel is a sessionModel over a paused lab, outside any server.
func newModel(t *testing.T, cfg Config) (*sessionModel, *Server) {
	t.Helper()
	lab, err := tui.New(tui.Options{Catalog: catalog.All(), Sims: []string{"gd"}, Paused: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(lab.Close)
	srv := &Server{cfg: cfg, log: newLogger(io.Discard, slog.LevelInfo)}
	st := &session{srv: srv, w: 80, h: 24}
	now := time.Now()
	m := &sessionModel{st: st, lab: lab, cfg: cfg, started: now, lastInput: now}
	m.in = newInput(strings.NewReader(""), st, nil, func() {})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	m.lastInput = m.started
	return m, srv
}

func bottom(m *sessionModel) string {
	c := m.View().Content
	return c[strings.LastIndexByte(c, '\n')+1:]
}

func TestLimitsWarnThenEnd(t *testing.T) {
	cfg := DefaultConfig()
	cfg.IdleTimeout = 4 * time.Minute
	cfg.MaxSessionDuration = time.Hour
	m, _ := newModel(t, cfg)
	t0 := m.started

	if m.check(t0.Add(time.Minute)) == nil || m.notice != "" {
		t.Fatalf("a minute in: notice %q, want none and a next check", m.notice)
	}
	// 30 s before the idle limit the bottom line asks for a key.
	m.check(t0.Add(3*time.Minute + 40*time.Second))
	if !strings.Contains(bottom(m), "this session closes in 20 s. Press any key to stay") {
		t.Fatalf("bottom line %q", bottom(m))
	}
	// The key that answers only does that: space does not start the pane.
	m.Update(tea.KeyPressMsg{Code: ' ', Text: " "})
	if m.notice != "" || !strings.Contains(m.lab.Render(), "paused") {
		t.Fatalf("after the key: notice %q; the key reached the lab:\n%s", m.notice, m.lab.Render())
	}
	// Without keys the session ends at the limit.
	m.lastInput = t0
	if cmd := m.check(t0.Add(4 * time.Minute)); cmd == nil || m.st.reason != reasonIdle {
		t.Fatalf("at the idle limit: reason %q", m.st.reason)
	}

	// The visit limit warns in its last 30 s and ends at the hour.
	m, _ = newModel(t, cfg)
	t0 = m.started
	m.lastInput = t0.Add(59 * time.Minute)
	m.check(t0.Add(59*time.Minute + 45*time.Second))
	if !strings.Contains(bottom(m), "This visit ends in 15 s") {
		t.Fatalf("bottom line %q", bottom(m))
	}
	m.check(t0.Add(time.Hour))
	if m.st.reason != reasonMax {
		t.Fatalf("at the hour: reason %q", m.st.reason)
	}

	// A shutdown notice takes over the bottom line and ends the session at
	// the server's deadline.
	m, srv := newModel(t, cfg)
	srv.closing, srv.endAt = true, m.started.Add(3*time.Second)
	m.check(m.started.Add(time.Second))
	if !strings.Contains(bottom(m), "The server is shutting down: this session ends in 2 s") {
		t.Fatalf("bottom line %q", bottom(m))
	}
	m.check(m.started.Add(3 * time.Second))
	if m.st.reason != reasonShutdown {
		t.Fatalf("at the deadline: reason %q", m.st.reason)
	}
}

func TestPanicsInCommandsAndViewAreCaught(t *testing.T) {
	msg := safe(func() tea.Msg { panic("in a command") })()
	p, ok := msg.(panicMsg)
	if !ok || p.v != "in a command" || len(p.stack) == 0 {
		t.Fatalf("safe returned %#v", msg)
	}
	if safe(nil) != nil {
		t.Error("safe(nil) must stay nil")
	}

	logs := &syncBuffer{}
	m, srv := newModel(t, DefaultConfig())
	srv.log = newLogger(logs, slog.LevelInfo)
	m.st.id = 7
	if _, cmd := m.Update(p); cmd == nil || m.st.reason != reasonPanic {
		t.Fatalf("a panicMsg gave reason %q", m.st.reason)
	}
	if !strings.Contains(logs.String(), "msg=panic session=7") {
		t.Errorf("log %q", logs.String())
	}

	// A panic in View shows a plain line and quits at the next check.
	m, srv = newModel(t, DefaultConfig())
	srv.log = newLogger(logs, slog.LevelInfo)
	m.lab = nil // View will panic
	if v := m.View(); !strings.Contains(v.Content, "something broke") {
		t.Fatalf("view after a panic: %q", v.Content)
	}
	if m.check(time.Now()) == nil || m.st.reason != reasonPanic {
		t.Fatalf("after a View panic: reason %q", m.st.reason)
	}
}

func TestZeroSizeIsIgnored(t *testing.T) {
	m, _ := newModel(t, DefaultConfig())
	m.Update(tea.WindowSizeMsg{}) // what the middleware sends after the channel closed
	if w, h := m.size(); w != 80 || h != 24 {
		t.Errorf("size %dx%d after a 0x0 resize, want 80x24", w, h)
	}
}

func TestDefaultStateDir(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", "/srv/state")
	if d, _ := DefaultStateDir(); d != "/srv/state/lab" {
		t.Errorf("with XDG_STATE_HOME: %s", d)
	}
	t.Setenv("XDG_STATE_HOME", "relative") // not absolute: ignored, as the spec says
	t.Setenv("HOME", "/home/ada")
	if d, _ := DefaultStateDir(); d != filepath.Join("/home/ada", ".local", "state", "lab") {
		t.Errorf("without XDG_STATE_HOME: %s", d)
	}
}

func TestConfigIsChecked(t *testing.T) {
	for name, tc := range map[string]struct {
		edit func(*Config)
		want string
	}{
		"sessions": {func(c *Config) { c.MaxSessions = 0 }, "--max-sessions"},
		"idle":     {func(c *Config) { c.IdleTimeout = -time.Second }, "--idle-timeout"},
		"duration": {func(c *Config) { c.MaxSessionDuration = -time.Second }, "--max-session-duration"},
		"steps":    {func(c *Config) { c.StepsPerSecond = -1 }, "--steps-per-second"},
		"rate":     {func(c *Config) { c.ConnPerMinute = -1 }, "--conn-rate"},
		"grace":    {func(c *Config) { c.Grace = 0 }, "--grace"},
		"fps":      {func(c *Config) { c.FPS = 0 }, "--fps"},
		"sim":      {func(c *Config) { c.Sims = []string{"nope"} }, `unknown sim "nope"`},
		"no dir":   {func(c *Config) { c.StateDir = "" }, "no state directory"},
	} {
		cfg := DefaultConfig()
		cfg.StateDir = t.TempDir()
		tc.edit(&cfg)
		if _, err := New(cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error mentioning %s", name, err, tc.want)
		}
	}
}

func TestConnectHint(t *testing.T) {
	for addr, want := range map[string]string{
		"127.0.0.1:2222": "ssh -p 2222 localhost",
		"[::1]:2022":     "ssh -p 2022 localhost",
		"0.0.0.0:22":     "ssh -p 22 localhost",
		"192.0.2.7:2222": "ssh -p 2222 192.0.2.7",
	} {
		a, _ := net.ResolveTCPAddr("tcp", addr)
		if got := connectHint(a); got != want {
			t.Errorf("%s: %q, want %q", addr, got, want)
		}
	}
}

func TestRefusalsAreSummarisedPastABurst(t *testing.T) {
	logs := &syncBuffer{}
	r := newRefusals(newLogger(logs, slog.LevelInfo))
	now := time.Unix(1000, 0)
	r.now = func() time.Time { return now }
	for i := range 25 {
		r.note("refused", "rate limited", fmt.Sprintf("192.0.2.%d:%d", i%3, 1000+i))
	}
	if n := len(logs.lines("msg=refused", `reason="rate limited"`)); n != refusalBurst {
		t.Fatalf("%d lines for 25 refusals, want %d", n, refusalBurst)
	}
	now = now.Add(refusalWindow)
	r.flush()
	sum := logs.lines(`msg="refusals summarised"`)
	if len(sum) != 1 || !strings.Contains(sum[0], "more=15 addresses=3") {
		t.Fatalf("summary %q", sum)
	}
	r.note("refused", "rate limited", "192.0.2.9:1")
	if n := len(logs.lines("msg=refused", "192.0.2.9")); n != 1 {
		t.Error("a new window did not log its first refusal")
	}
	r.flush() // nothing suppressed: no summary
	if n := len(logs.lines(`msg="refusals summarised"`)); n != 1 {
		t.Errorf("%d summaries, want 1", n)
	}
}

// TestFullTableEvictsFairly: which connection a newcomer from one address
// takes the place of, in a full table, oldest first in each case.
func TestFullTableEvictsFairly(t *testing.T) {
	// A connection is addr:state, state one of idle (logged in or not, no
	// session), quiet (a session that has read nothing from its client)
	// and typing (one that has).
	for _, tc := range []struct {
		name     string
		table    []string
		newcomer string
		want     int // the victim's index in table; -1 none
	}{
		{"the busiest address's oldest", []string{"a:idle", "b:idle", "a:idle", "a:idle"}, "c", 0},
		{"a session without input is idle", []string{"a:quiet", "a:idle"}, "c", 0},
		{"the busiest address, not the oldest", []string{"b:idle", "b:idle", "a:idle", "a:idle", "a:idle"}, "c", 2},
		{"a typing visitor stays, the busiest's next idle goes", []string{"a:typing", "a:quiet", "a:typing", "b:idle", "b:idle"}, "c", 1},
		{"the next busiest when the busiest is all typing", []string{"a:typing", "a:typing", "a:typing", "b:quiet", "b:idle"}, "c", 3},
		{"typing visitors only", []string{"a:typing", "a:typing", "b:typing", "b:typing"}, "c", -1},
		{"one connection per address", []string{"a:idle", "b:idle", "c:idle"}, "d", -1},
		{"not from the newcomer's own address", []string{"a:idle", "a:idle", "a:idle"}, "a", -1},
		{"not down to the newcomer's share", []string{"a:idle", "a:idle", "b:idle"}, "b", -1},
		{"above the newcomer's share", []string{"a:idle", "a:idle", "a:idle", "b:idle"}, "b", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &Server{conns: map[*conn]struct{}{}, connsPer: counter{}}
			t0 := time.Unix(1000, 0)
			var table []*conn
			for i, spec := range tc.table {
				ip, state, _ := strings.Cut(spec, ":")
				c := &conn{ip: ip, start: t0.Add(time.Duration(i) * time.Second)}
				if state != "idle" {
					ch := &channel{}
					ch.heard.Store(state == "typing")
					c.chans = map[*channel]struct{}{ch: {}}
				}
				s.conns[c] = struct{}{}
				s.connsPer.take(ip, 0)
				table = append(table, c)
			}
			got := slices.Index(table, s.tableVictimLocked(tc.newcomer))
			if got != tc.want {
				t.Errorf("evicted #%d, want #%d", got, tc.want)
			}
		})
	}
}
