package serve

// Tests of what a session is charged: the server's memory total, the
// visitor's account across sessions, the screen and its drawing, and the
// idle sessions that yield to newcomers. Loopback only, each bounded in
// time, none synchronised by sleeping.

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/thelab/lab/serve/servetest"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/catalog"
	"github.com/thelab/lab/tui"
)

// session finds the state of user's session.
func (ts *testServer) session(t *testing.T, user string) *session {
	t.Helper()
	var found *session
	waitUntil(t, "session of "+user, func() bool {
		ts.mu.Lock()
		defer ts.mu.Unlock()
		for st := range ts.sessions {
			if st.user == user {
				st.mu.Lock()
				ok := st.budget != nil
				st.mu.Unlock()
				if ok {
					found = st
					return true
				}
			}
		}
		return false
	})
	return found
}

// TestServerMemoryTotalAdmitsSessions: sessions are admitted against the
// server's total (their screens and first sims), whatever addresses they
// come from: one more than it holds waits, is told why and is logged; when
// a session ends its memory goes back and the next visitor gets in. A build
// the total cannot supply is refused on the pane, the old sim running on.
func TestServerMemoryTotalAdmitsSessions(t *testing.T) {
	cfg := testConfig(t)
	cfg.Sims = []string{"gd"}
	one := screenBytes(80, 24) + catalog.All().Lookup("gd").EstimateSize(sims.Config{})
	cfg.MemoryTotal = 2*one + one/2
	cfg.admitWait = 200 * time.Millisecond
	ts := start(t, cfg)
	a := ts.open(t, servetest.Options{W: 80, H: 24, From: "127.0.0.2", User: "a"})
	ts.open(t, servetest.Options{W: 80, H: 24, From: "127.0.0.3", User: "b"})
	c, err := servetest.Open(ts.addr, servetest.Options{W: 80, H: 24, From: "127.0.0.4", User: "c"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if st := exitStatus(t, c.Wait(wait)); st != 1 || !strings.Contains(c.Text(), "memory for visitors") {
		t.Errorf("a third session past the total: status %d, read %q", st, c.Text())
	}
	ts.log.waitLog(t, "msg=disconnect", "user=c", `reason="server memory full"`)
	if used := ts.pool.Used(); used > cfg.MemoryTotal || used < 2*screenBytes(80, 24) {
		t.Errorf("the pool holds %d of %d", used, cfg.MemoryTotal)
	}
	a.Send("q")
	a.Close()
	waitUntil(t, "a's memory given back", func() bool { return ts.pool.Used() <= one+one/2 })
	ts.open(t, servetest.Options{W: 80, H: 24, From: "127.0.0.4", User: "d"})
}

// TestABuildPastTheServerTotalIsRefused: a new pane whose estimate the
// server's total cannot supply is refused with the reason, and the pool
// holds no more than it did.
func TestABuildPastTheServerTotalIsRefused(t *testing.T) {
	cfg := testConfig(t)
	cfg.Sims = []string{"gd"}
	cfg.MemoryTotal = screenBytes(120, 40) + catalog.All().Lookup("gd").EstimateSize(sims.Config{}) + 64<<10
	ts := start(t, cfg)
	s := ts.open(t, servetest.Options{User: "a"})
	before := ts.pool.Used()
	s.Send("a")
	if _, err := s.WaitText(wait, "Add a sim"); err != nil {
		t.Fatal(err)
	}
	s.Send("/tinygpt\r\r")
	if _, err := s.WaitText(wait, "could not add tinygpt", "this server has"); err != nil {
		t.Fatalf("%v\n%s", err, s.Text())
	}
	if after := ts.pool.Used(); after != before {
		t.Errorf("the pool held %d before the refused build, %d after", before, after)
	}
}

// TestVisitorAccountOutlivesItsSessions: an address's sessions draw on one
// account; a session that leaves in debt leaves the debt to the address's
// next session, which starts resting, and the account is kept until it is
// out of debt with no session.
func TestVisitorAccountOutlivesItsSessions(t *testing.T) {
	cfg := testConfig(t)
	cfg.Sims = []string{"gd"}
	cfg.CPUPerSession = 0.001 // a millisecond a second: any session ends in debt
	cfg.CPUPerAddr = 0.001
	ts := start(t, cfg)
	s := ts.open(t, servetest.Options{From: "127.0.0.2", User: "first"})
	first := ts.session(t, "first")
	if first.budget.Rest() == 0 {
		t.Fatal("a session that built gd and drew its screen is not in debt at a thousandth of a core")
	}
	s.Close()
	ts.log.waitLog(t, "msg=disconnect", "user=first")
	ts.forgetIdleVisitors()
	ts.mu.Lock()
	acct := ts.visitors["127.0.0.2"]
	ts.mu.Unlock()
	if acct == nil || acct.Idle() {
		t.Fatal("the account of an address in debt was forgotten when its session ended")
	}
	s2, err := servetest.Open(ts.addr, servetest.Options{From: "127.0.0.2", User: "second"})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if ts.session(t, "second").budget.Rest() == 0 {
		t.Error("the next session from the address starts out of debt")
	}
	ts.mu.Lock()
	same := ts.visitors["127.0.0.2"] == acct
	ts.mu.Unlock()
	if !same {
		t.Error("the next session from the address has another account")
	}
	// Its first build waits until the address is out of debt: its visitor
	// leaving meanwhile ends it at once, unbuilt, rather than after the
	// rest and a build nobody sees.
	second := ts.session(t, "second")
	s2.Close()
	ts.log.waitLog(t, "msg=disconnect", "user=second", `reason="client closed"`)
	if n := second.budget.Usage().Builds; n != 0 {
		t.Errorf("the session built %d sims after its visitor left", n)
	}
}

// TestDrawingIsCharged: a session whose panes are all paused spends no
// steps, but what it draws (resizes redraw everything) and the keys it
// handles are charged to it.
func TestDrawingIsCharged(t *testing.T) {
	cfg := testConfig(t)
	cfg.Sims = []string{"gd"}
	ts := start(t, cfg)
	s := ts.open(t, servetest.Options{User: "painter"})
	toggled(t, s, "gd")
	st := ts.session(t, "painter")
	steps, busy := st.budget.Usage().Steps, st.budget.Usage().Busy
	for i := range 20 {
		s.Resize(100+i, 30+i%5)
	}
	waitUntil(t, "the resizes drawn", func() bool { return ts.sizeOf("painter") == "119x34" })
	s.WaitFor(wait, func(string) bool { return true })
	u := st.budget.Usage()
	if u.Busy <= busy || u.Steps != steps {
		t.Errorf("after 20 redraws of a paused pane: busy %v → %v, steps %d → %d", busy, u.Busy, steps, u.Steps)
	}
}

// TestScreenOverTheBudgetIsDrawnSmaller: a session whose memory budget
// cannot hold the screen its client asks for is drawn at the largest of the
// same shape it can hold, and told so; a later window that fits is drawn
// whole.
func TestScreenOverTheBudgetIsDrawnSmaller(t *testing.T) {
	cfg := testConfig(t)
	cfg.Sims = []string{"gd"}
	cfg.MemoryPerSession = screenBytes(200, 60) + catalog.All().Lookup("gd").EstimateSize(sims.Config{})
	ts := start(t, cfg)
	s, err := servetest.Open(ts.addr, servetest.Options{User: "wide", W: MaxTermWidth, H: MaxTermHeight})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.WaitText(wait, "This screen is drawn at", "a larger one is over this session's memory budget"); err != nil {
		t.Fatalf("%v\n%s", err, s.Text())
	}
	var w, h int
	if _, err := fmt.Sscanf(ts.sizeOf("wide"), "%dx%d", &w, &h); err != nil || w >= MaxTermWidth || w*h > 200*60 || float64(w)/float64(h) < 2 {
		t.Errorf("drawn at %s for %dx%d under a budget for 200x60", ts.sizeOf("wide"), MaxTermWidth, MaxTermHeight)
	}
	s.Resize(120, 40)
	waitUntil(t, "the fitting window", func() bool { return ts.sizeOf("wide") == "120x40" })
}

// TestHugeScreenIsDrawnAtTheCellCap: a client's window of more than
// maxScreenCells is drawn at the largest of its shape within them, and the
// visitor is told why; a window within them is drawn whole.
func TestHugeScreenIsDrawnAtTheCellCap(t *testing.T) {
	cfg := testConfig(t)
	cfg.Sims = []string{"gd"}
	ts := start(t, cfg)
	s, err := servetest.Open(ts.addr, servetest.Options{User: "huge", W: MaxTermWidth, H: MaxTermHeight})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.WaitText(wait, "This screen is drawn at", fmt.Sprintf("the server draws at most %d cells", maxScreenCells)); err != nil {
		t.Fatalf("%v\n%s", err, s.Text())
	}
	var w, h int
	if _, err := fmt.Sscanf(ts.sizeOf("huge"), "%dx%d", &w, &h); err != nil || w*h > maxScreenCells || w*h < maxScreenCells*9/10 {
		t.Errorf("drawn at %s for %dx%d (at most %d cells)", ts.sizeOf("huge"), MaxTermWidth, MaxTermHeight, maxScreenCells)
	}
	s.Resize(220, 60)
	waitUntil(t, "the projector's window", func() bool { return ts.sizeOf("huge") == "220x60" })
}

// TestThrottledSessionKeepsItsScreen: a session in debt for CPU is shown
// its last screen, unchanged, until throttledEvery has passed since it
// was drawn; then it is drawn afresh and charged for it.
func TestThrottledSessionKeepsItsScreen(t *testing.T) {
	budget := sims.NewBudget(sims.Limits{Cores: 0.01})
	lab, err := tui.New(tui.Options{Catalog: catalog.All(), Sims: []string{"gd"}, Seed: 1, Paused: true, Budget: budget})
	if err != nil {
		t.Fatal(err)
	}
	defer lab.Close()
	srv := &Server{}
	m := &sessionModel{st: &session{srv: srv, w: 100, h: 30}, lab: lab, budget: budget}
	m.lab.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	first := m.View().Content
	budget.Charge(time.Second)                          // deep in debt
	m.lab.Update(tea.KeyPressMsg{Code: 'a', Text: "a"}) // the catalogue opens
	if got := m.View().Content; got != first || !m.throttled {
		t.Fatal("a session in debt was drawn afresh at once")
	}
	busy := budget.Usage().Busy
	m.drawnAt = m.drawnAt.Add(-throttledEvery)
	if got := m.View().Content; got == first {
		t.Error("a session in debt was not drawn again after throttledEvery")
	}
	if budget.Usage().Busy <= busy {
		t.Error("the redraw was not charged")
	}
}

// TestIdleSessionIsDrawnSlowly: a session idle for YieldAfter is shown its
// last screen until idleEvery has passed since it was drawn; a key makes it
// a watched session again, drawn at once.
func TestIdleSessionIsDrawnSlowly(t *testing.T) {
	lab, err := tui.New(tui.Options{Catalog: catalog.All(), Sims: []string{"gd"}, Seed: 1, Paused: true})
	if err != nil {
		t.Fatal(err)
	}
	defer lab.Close()
	st := &session{srv: &Server{}, w: 100, h: 30}
	m := &sessionModel{st: st, lab: lab, cfg: Config{YieldAfter: time.Minute}}
	m.lab.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	long := time.Now().Add(-2 * time.Minute).UnixNano()
	st.lastActive.Store(long)
	st.lastInput.Store(long)
	first := m.View().Content
	m.lab.Update(tea.KeyPressMsg{Code: 'a', Text: "a"}) // the catalogue opens
	if got := m.View().Content; got != first {
		t.Fatal("an idle session was drawn afresh within idleEvery")
	}
	m.drawnAt = m.drawnAt.Add(-idleEvery)
	if got := m.View().Content; got == first {
		t.Fatal("an idle session was not drawn again after idleEvery")
	}
	second := m.View().Content
	m.lab.Update(tea.KeyPressMsg{Code: tea.KeyEscape})
	st.typed()
	if got := m.View().Content; got == second {
		t.Error("a key did not make the session drawn at once")
	}
}

// TestIdleSessionYieldsToANewcomer: on a full server, a newcomer takes the
// slot of the idlest session of the address holding the most; that
// session's visitor is told why. A session whose visitor types now and then
// but not within a minute counts as idle; one typing is never chosen; and
// no session yields to a newcomer whose address holds as many as its own.
func TestIdleSessionYieldsToANewcomer(t *testing.T) {
	cfg := testConfig(t)
	cfg.Sims = []string{"gd"}
	cfg.MaxSessions = 3
	cfg.YieldAfter = time.Minute
	ts := start(t, cfg)
	busy1 := ts.open(t, servetest.Options{From: "127.0.0.2", User: "busy1"})
	busy2 := ts.open(t, servetest.Options{From: "127.0.0.2", User: "busy2"})
	lone := ts.open(t, servetest.Options{From: "127.0.0.3", User: "lone"})
	// Nobody has been idle a minute yet: a fourth visitor is turned away.
	turnedAway(t, ts, "127.0.0.4", "a newcomer with no idle session to yield")
	// Every session idle for ten minutes; busy2 the longest, lone longer
	// still but alone on its address. busy1 pressed a key nine minutes ago,
	// which does not make it active.
	old := time.Now().Add(-10 * time.Minute).UnixNano()
	ts.session(t, "busy1").lastActive.Store(old + int64(time.Minute))
	ts.session(t, "busy1").lastKey.Store(time.Now().Add(-9 * time.Minute).UnixNano())
	ts.session(t, "busy1").typed()
	ts.session(t, "busy2").lastActive.Store(old)
	ts.session(t, "lone").lastActive.Store(old - int64(time.Minute))
	if got := ts.session(t, "busy1").lastActive.Load(); got != old+int64(time.Minute) {
		t.Error("a key nine minutes after the last one counted as activity")
	}
	// A newcomer from the busiest address itself takes no one's place: its
	// own idle sessions do not churn, and lone's address holds fewer.
	turnedAway(t, ts, "127.0.0.2", "a newcomer from the busiest address")
	ts.open(t, servetest.Options{From: "127.0.0.4", User: "newcomer"})
	if _, err := busy2.WaitText(wait, "made room for a new visitor"); err != nil {
		t.Errorf("the idlest session of the busiest address was not told: %v\n%s", err, busy2.Text())
	}
	ts.log.waitLog(t, "msg=yield", "addr=127.0.0.2:", "to=127.0.0.4:")
	ts.log.waitLog(t, "msg=disconnect", "user=busy2", `reason="yielded to a new visitor"`)
	// Now busy1 types: two keys within a minute make it active; lone is
	// the one left to yield.
	toggled(t, busy1, "gd")
	toggled(t, busy1, "gd")
	ts.open(t, servetest.Options{From: "127.0.0.5", User: "another"})
	if _, err := lone.WaitText(wait, "made room for a new visitor"); err != nil {
		t.Errorf("lone did not yield: %v", err)
	}
	if ts.Sessions() != cfg.MaxSessions {
		t.Errorf("%d sessions hold slots, want %d", ts.Sessions(), cfg.MaxSessions)
	}
	toggled(t, busy1, "gd")
}

// turnedAway opens a session from the address from and checks that the
// server tells it it is full and ends it with status 1; who says who the
// newcomer is.
func turnedAway(t *testing.T, ts *testServer, from, who string) {
	t.Helper()
	c, err := servetest.Open(ts.addr, servetest.Options{From: from, User: "turned-away"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if st := exitStatus(t, c.Wait(wait)); st != 1 || !strings.Contains(c.Text(), "server is full") {
		t.Errorf("%s: status %d, %q", who, st, c.Text())
	}
}

// TestHeldExportKeyIsBounded: E held down (500 presses in one write) in a
// session whose pane has a long series: the copies go one at a time, each
// held on the session's memory while it is made and charged to its CPU;
// afterwards nothing is held but the screen and the sims, and another
// visitor's session answers its keys throughout.
func TestHeldExportKeyIsBounded(t *testing.T) {
	cfg := testConfig(t)
	cfg.Sims = []string{"mh"}
	ts := start(t, cfg)
	other := ts.open(t, servetest.Options{From: "127.0.0.3", User: "other"})
	s := ts.open(t, servetest.Options{From: "127.0.0.2", User: "holder"})
	st := ts.session(t, "holder")
	before, busy := ts.pool.Used(), st.budget.Usage().Busy
	s.Send(strings.Repeat("E", 500))
	toggled(t, other, "mh")
	if _, err := s.WaitText(wait, "copied its series as CSV"); err != nil {
		t.Fatalf("%v\n%s", err, s.Text())
	}
	waitUntil(t, "the exports' memory given back", func() bool { return ts.pool.Used() == before })
	if st.budget.Usage().Busy <= busy {
		t.Error("the exports were not charged")
	}
	toggled(t, s, "mh")
}

// TestSessionMemoryIsCharged: what screenBytes charges a session besides
// its sims covers what a session holds, measured as the live heap that
// sessions of one tiny sim add at 80×24 and at 500×200 (after a
// collection, their screens drawn, the sim paused); its part per cell is within
// 1.5 times the measure, and its fixed part covers the rest (it adds the
// SSH receive window a client may fill, which the measure does not see).
func TestSessionMemoryIsCharged(t *testing.T) {
	cfg := testConfig(t)
	cfg.Sims = []string{"majorise"}
	cfg.MaxSessionsPerAddr = 0
	ts := start(t, cfg)
	const n = 4
	held := func(w, h int) float64 {
		before := liveHeap()
		var ss []*servetest.Session
		for i := range n {
			s, err := servetest.Open(ts.addr, servetest.Options{W: w, H: h, Discard: true, User: fmt.Sprintf("m%d", i)})
			if err != nil {
				t.Fatal(err)
			}
			paused := s.Await("paused")
			s.Send(" ")
			select {
			case <-paused:
			case <-time.After(wait):
				t.Fatalf("no paused screen at %dx%d", w, h)
			}
			ss = append(ss, s)
		}
		after := liveHeap()
		for _, s := range ss {
			s.Close()
		}
		waitUntil(t, "the sessions closed", func() bool { return ts.Sessions() == 0 })
		return float64(after-before) / n
	}
	small, large := held(80, 24), held(MaxTermWidth, MaxTermHeight)
	w, h := capScreen(MaxTermWidth, MaxTermHeight) // what the large sessions are drawn at
	perCell := (large - small) / float64(w*h-80*24)
	base := small - perCell*80*24
	t.Logf("a session holds %.0f kB at 80x24, %.1f MB at %dx%d: %.0f bytes a cell and %.0f kB besides",
		small/1e3, large/1e6, w, h, perCell, base/1e3)
	if perCell > sessionBytes || sessionBytes > 1.5*perCell {
		t.Errorf("a cell is charged %d bytes and holds %.0f", sessionBytes, perCell)
	}
	if base > sessionBase {
		t.Errorf("a session is charged %d bytes besides its cells and holds %.0f", sessionBase, base)
	}
}
