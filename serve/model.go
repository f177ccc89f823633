package serve

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/ssh"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/tui"
	"github.com/thelab/lab/tui/chart"
)

// runProgram runs the session's lab under Bubble Tea, reading the client's
// sanitised keystrokes and writing to its channel, until the program ends.
// The program starts at w×h, the screen admit held on the session's
// budget (smaller than the client's if that is all the budget allows).
// Window changes reach it through a goroutine of its own, so that a busy
// program never holds up the channel's requests: sizes that arrive
// meanwhile replace each other, and the latest is delivered.
func (s *Server) runProgram(sess ssh.Session, st *session, lab *tui.Model, budget *sims.Budget, w, h int) {
	pty, winch, _ := sess.Pty()
	m := &sessionModel{st: st, lab: lab, budget: budget, cfg: s.cfg, started: st.start, lastInput: time.Now(), sized: make(chan struct{})}
	m.setFit(w, h, pty.Window.Width, pty.Window.Height)
	m.in = newInput(sess, st, budget.Rest, func() {
		st.inputEOF.Store(true)
		m.quitLater()
	})
	defer m.in.close()
	envs := append(sess.Environ(), "TERM="+pty.Term)
	p := tea.NewProgram(m,
		tea.WithInput(m.in),
		tea.WithOutput(sess),
		tea.WithEnvironment(envs),
		// There is no pty device: the colours come from the client's
		// TERM, COLORTERM and NO_COLOR.
		tea.WithColorProfile(colorprofile.Env(envs)),
		tea.WithWindowSize(w, h),
		// The server handles SIGINT/SIGTERM for all sessions at once.
		tea.WithoutSignalHandler(),
		tea.WithFPS(s.cfg.FPS),
		tea.WithFilter(m.filter),
		tea.WithContext(sess.Context()),
	)
	m.prog.Store(p)
	stop := make(chan struct{})
	defer close(stop)
	go s.feedWindows(sess.Context(), winch, p, st, budget, m.sized, stop)
	_, _ = p.Run()
	p.Kill() // restores the terminal if the program ended abnormally
}

// feedWindows hands the program the client's window changes (clamped by
// the channel), the latest first, each held on the session's budget first
// and drawn smaller when the budget cannot hold it (fitScreen; the
// program is told, for its notice). It starts once the program has taken
// the size it began with, which Bubble Tea sends from a goroutine of its
// own: a change sent earlier could be overtaken by it, and lost.
func (s *Server) feedWindows(ctx context.Context, winch <-chan ssh.Window, p *tea.Program, st *session, budget *sims.Budget, sized, stop <-chan struct{}) {
	defer s.guard("window changes")
	select {
	case <-sized:
	case <-stop:
		return
	case <-ctx.Done():
		return
	}
	for {
		select {
		case <-stop:
			return
		case <-ctx.Done():
			return
		case w := <-winch:
			st.touch()
			fw, fh, err := fitScreen(budget, w.Width, w.Height)
			if err != nil {
				// Not even the smallest screen fits: the program keeps the
				// size it has, whose hold stays.
				p.Send(screenMsg{asked: w, err: err})
				continue
			}
			p.Send(screenMsg{asked: w, w: fw, h: fh})
			p.Send(tea.WindowSizeMsg{Width: fw, Height: fh})
			// The renderer makes new buffers and redraws the whole screen,
			// whatever the view: charged at a frame's worth, and sizes that
			// come meanwhile wait (the channel keeps the latest) until the
			// session is out of debt.
			budget.Charge(renderCost(fw, fh, 0))
			select {
			case <-time.After(max(resizeEvery, budget.Rest())):
			case <-stop:
				return
			case <-ctx.Done():
				return
			}
		}
	}
}

// resizeEvery is how often a session's window may change: a storm of
// window changes is taken at this pace (slower while the session is in
// debt), the latest each time.
const resizeEvery = 100 * time.Millisecond

// Pacing of the client's input. Bubble Tea's reader keeps what it cannot
// decode yet (an unknown or unfinished sequence, and everything after it)
// and decodes it all again on every read until no read has come for its
// escape timeout (50 ms). A client that never pauses would make that buffer
// and its rescans grow without end, so after inputBurst bytes without a
// pause of escPause the pump makes one, between two sequences.
//
// Keys cost the session what it spends handling them and drawing what
// they change (charged by the program), and while the session is in debt
// its input waits for it to rest, at most restInput at a time: a session
// typing as fast as its link allows cannot spend more than its share,
// and a visitor resting after a heavy build still sees a key answered
// within a second.
const (
	inputBurst = 4096
	escPause   = 100 * time.Millisecond
	readChunk  = 256
	restInput  = time.Second
)

// input feeds the program the client's keystrokes, sanitised. A pump
// goroutine reads the channel, so that a Read can be ended when the
// program quits (Bubble Tea cannot cancel a read from an SSH channel, and
// would wait half a second for it); the end of the client's input quits
// the program (the client closed its side without closing the connection).
type input struct {
	ch    chan []byte
	stop  chan struct{}
	once  sync.Once
	buf   []byte
	eof   func()
	rest  func() time.Duration // how long the session must rest (nil: never)
	san   sanitiser
	burst int
	last  time.Time
}

func newInput(r io.Reader, st *session, rest func() time.Duration, eof func()) *input {
	in := &input{ch: make(chan []byte), stop: make(chan struct{}), eof: eof, rest: rest}
	go in.pump(r, st)
	return in
}

func (in *input) pump(r io.Reader, st *session) {
	// The end of the client's input (or a panic here) is the end of the
	// program's; a stop from the program is not.
	stopped := false
	defer func() {
		if !stopped {
			close(in.ch)
		}
	}()
	defer st.srv.guard("input")
	b := make([]byte, readChunk)
	for {
		n, err := r.Read(b)
		if n > 0 {
			st.typed()
			out := in.san.filter(make([]byte, 0, n+8), b[:n])
			if !in.deliver(out, in.san.mark) {
				stopped = true
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// deliver hands out to the program, first pausing at mark (the last point
// between sequences, -1 if none) when this burst has grown past
// inputBurst, or for as long as the session must rest (at most
// restInput).
func (in *input) deliver(out []byte, mark int) bool {
	if time.Since(in.last) >= escPause {
		in.burst = 0
	}
	var pause time.Duration
	if in.burst+len(out) > inputBurst {
		pause = escPause
	}
	if in.rest != nil {
		pause = max(pause, min(in.rest(), restInput))
	}
	if pause > 0 && mark >= 0 {
		if !in.send(out[:mark]) {
			return false
		}
		select {
		case <-time.After(pause):
		case <-in.stop:
			return false
		}
		in.burst, out = 0, out[mark:]
	}
	in.burst += len(out)
	in.last = time.Now()
	return in.send(out)
}

func (in *input) send(b []byte) bool {
	if len(b) == 0 {
		return true
	}
	select {
	case in.ch <- b:
		return true
	case <-in.stop:
		return false
	}
}

func (in *input) Read(p []byte) (int, error) {
	if len(in.buf) == 0 {
		select {
		case b, ok := <-in.ch:
			if !ok {
				in.eof()
				return 0, io.EOF
			}
			in.buf = b
		case <-in.stop:
			return 0, io.EOF
		}
	}
	n := copy(p, in.buf)
	in.buf = in.buf[n:]
	return n, nil
}

// close ends any Read in progress and every later one.
func (in *input) close() { in.once.Do(func() { close(in.stop) }) }

// checkEvery is how often a session checks its limits and the server's
// shutdown.
const checkEvery = 200 * time.Millisecond

type checkMsg time.Time

func checkTick() tea.Cmd {
	return tea.Tick(checkEvery, func(t time.Time) tea.Msg { return checkMsg(t) })
}

// panicMsg carries a panic recovered in a command.
type panicMsg struct {
	v     any
	stack []byte
}

// sessionModel wraps a session's lab: it enforces the idle and visit
// limits and the server's shutdown with a notice on the bottom line, and
// turns a panic anywhere in the lab's Update, View or commands into the end
// of this session only.
type sessionModel struct {
	st        *session
	lab       *tui.Model
	budget    *sims.Budget
	cfg       Config
	prog      atomic.Pointer[tea.Program]
	in        *input
	started   time.Time
	lastInput time.Time
	notice    string
	idleWarn  bool          // the notice is the idle warning
	sized     chan struct{} // closed at the first WindowSizeMsg
	sizedOnce sync.Once
	broken    bool // View panicked
	// screenNote says the screen is drawn smaller than the client's
	// (the session's memory budget), or "".
	screenNote string
	// The last screen drawn and when: a session in debt for CPU is
	// redrawn at most every throttledEvery.
	view      tea.View
	viewed    bool
	drawnAt   time.Time
	drawCost  time.Duration // what the last drawing was charged
	throttled bool
}

// screenMsg reports a window change as fitted to the session's budget:
// drawn at w×h for the asked size, or not at all (err).
type screenMsg struct {
	asked ssh.Window
	w, h  int
	err   error
}

// setFit notes whether the w×h screen held is the asked aw×ah.
func (m *sessionModel) setFit(w, h, aw, ah int) {
	m.screenNote = ""
	if w == aw && h == ah {
		return
	}
	why := "a larger one is over this session's memory budget"
	if cw, ch := capScreen(aw, ah); w == cw && h == ch {
		why = fmt.Sprintf("the server draws at most %d cells", maxScreenCells)
	}
	m.screenNote = fmt.Sprintf("This screen is drawn at %d×%d, not %d×%d: %s.", w, h, aw, ah, why)
}

func (m *sessionModel) Init() tea.Cmd {
	return tea.Batch(safe(m.lab.Init()), checkTick())
}

func (m *sessionModel) quitLater() {
	if p := m.prog.Load(); p != nil {
		go p.Quit()
	}
}

// filter runs on every message before Update (in the program's loop).
func (m *sessionModel) filter(_ tea.Model, msg tea.Msg) tea.Msg {
	switch msg.(type) {
	case tea.SuspendMsg: // ctrl+z cannot suspend a remote session
		return tea.ResumeMsg{}
	case tea.QuitMsg:
		m.st.quitSeen.Store(true)
		m.in.close() // no more input: let the program end now
	}
	return msg
}

func (m *sessionModel) Update(msg tea.Msg) (model tea.Model, cmd tea.Cmd) {
	defer func() {
		if v := recover(); v != nil {
			m.st.panicked(v, debug.Stack())
			model, cmd = m, tea.Quit
		}
	}()
	if m.cfg.hook != nil {
		m.cfg.hook(msg)
	}
	defer m.budget.StartMeter().Charge()
	switch msg := msg.(type) {
	case checkMsg:
		return m, m.check(time.Time(msg))
	case screenMsg:
		if msg.err != nil {
			m.screenNote = "This screen keeps its size: " + msg.err.Error()
		} else {
			m.setFit(msg.w, msg.h, msg.asked.Width, msg.asked.Height)
		}
		return m, nil
	case panicMsg:
		m.st.panicked(msg.v, msg.stack)
		return m, tea.Quit
	case tea.WindowSizeMsg:
		if msg.Width <= 0 || msg.Height <= 0 {
			return m, nil // the middleware's resize feed after the channel closed
		}
		m.st.setSize(msg.Width, msg.Height)
		m.lastInput = time.Now()
		if m.sized != nil {
			m.sizedOnce.Do(func() { close(m.sized) })
		}
	case tea.ColorProfileMsg:
		m.st.mu.Lock()
		m.st.profile = msg.Profile.String()
		m.st.mu.Unlock()
	case tea.KeyPressMsg, tea.MouseMsg, tea.PasteMsg:
		m.lastInput = time.Now()
		if m.idleWarn {
			// The key that answers "press any key to stay" only does that.
			m.idleWarn, m.notice = false, ""
			if _, ok := msg.(tea.KeyPressMsg); ok {
				return m, nil
			}
		}
	}
	_, cmd = m.lab.Update(msg)
	return m, safe(cmd)
}

// check enforces the limits: at the deadline the session quits, shortly
// before it the bottom line says so.
func (m *sessionModel) check(now time.Time) tea.Cmd {
	if m.broken {
		return tea.Quit
	}
	m.notice, m.idleWarn = "", false
	if m.st.yieldAt.Load() != 0 {
		m.st.setReason(reasonYield)
		return tea.Quit
	}
	if end, closing := m.st.srv.shutdownDeadline(); closing {
		if !now.Before(end) {
			m.st.setReason(reasonShutdown)
			return tea.Quit
		}
		m.notice = fmt.Sprintf("The server is shutting down: this session ends in %s.", seconds(end.Sub(now)))
		return checkTick()
	}
	if d := m.cfg.MaxSessionDuration; d > 0 {
		left := m.started.Add(d).Sub(now)
		if left <= 0 {
			m.st.setReason(reasonMax)
			return tea.Quit
		}
		if left <= warnBefore(d) {
			m.notice = fmt.Sprintf("This visit ends in %s (visits last at most %s).", seconds(left), d)
		}
	}
	if d := m.cfg.IdleTimeout; d > 0 {
		left := m.lastInput.Add(d).Sub(now)
		if left <= 0 {
			m.st.setReason(reasonIdle)
			return tea.Quit
		}
		if left <= warnBefore(d) && m.notice == "" {
			m.notice = fmt.Sprintf("No key pressed for a while: this session closes in %s. Press any key to stay.", seconds(left))
			m.idleWarn = true
		}
	}
	switch {
	case m.notice != "":
	case m.throttled:
		m.notice = "This session has used its share of the server's CPU: its screen is redrawn less often for a while."
	case m.screenNote != "":
		m.notice = m.screenNote
	}
	return checkTick()
}

// warnBefore is how long before a limit the notice shows.
func warnBefore(d time.Duration) time.Duration { return min(30*time.Second, d/4) }

func seconds(d time.Duration) string {
	return fmt.Sprintf("%d s", int((d+time.Second-1)/time.Second))
}

var noticeStyle = lipgloss.NewStyle().Reverse(true).Bold(true)

// throttledEvery is how often a session in debt for CPU is redrawn: its
// screen goes on showing what happens, more slowly, while it pays.
const throttledEvery = 500 * time.Millisecond

// View draws the lab (Bubble Tea calls it after every message) with the
// notice on its bottom line, and charges the drawing to the session's
// budget: the lab's own time, and for a screen that changed, what Bubble
// Tea's renderer will spend turning it into the changes it sends
// (renderCost). A session in debt is redrawn at most every
// throttledEvery; meanwhile it is shown its last screen, which costs the
// renderer nothing.
func (m *sessionModel) View() (v tea.View) {
	defer func() {
		if r := recover(); r != nil {
			m.st.panicked(r, debug.Stack())
			m.broken = true
			v = tea.NewView("lab: something broke; closing this session.")
		}
	}()
	now := time.Now()
	m.throttled = m.viewed && m.budget.Rest() > 0
	if m.throttled && (now.Sub(m.drawnAt) < throttledEvery || m.drawCost > cheapDraw) && !m.broken {
		return m.view
	}
	if m.viewed && m.st.idle(now, m.cfg.YieldAfter) && now.Sub(m.drawnAt) < idleEvery && !m.broken {
		return m.view
	}
	cpu := m.budget.StartMeter()
	v = m.lab.View()
	w, h := m.size()
	if m.notice != "" {
		i := strings.LastIndexByte(v.Content, '\n')
		v.Content = v.Content[:i+1] + noticeStyle.Render(chart.FitLine(" "+m.notice, w))
	}
	cost := cpu.Spent()
	if !m.viewed || v.Content != m.view.Content {
		cost += renderCost(w, h, cost)
	}
	m.budget.Charge(cost)
	m.view, m.viewed, m.drawnAt, m.drawCost = v, true, now, cost
	return v
}

// idleEvery is how often a session idle for --yield-after (no two
// inputs within a minute, and none since) is redrawn: an idle visitor's
// screen goes on moving, four times a second, and costs the server a fifth
// of a watched one's, until their next key.
const idleEvery = 250 * time.Millisecond

// cheapDraw is the most a drawing may cost for a session in debt to be
// redrawn while it rests (every throttledEvery): a visitor resting after
// a heavy build sees a screen of ordinary size go on, while one whose
// drawing is what it cannot pay for (a huge screen, an overlay composed
// over it) is redrawn only once out of debt.
const cheapDraw = 20 * time.Millisecond

// renderNsPerCell is what Bubble Tea's renderer spends on a changed frame,
// per cell of the screen, at the least: parsing the view into cells,
// comparing them with the last frame's and writing the changes. Alone and
// in a warm cache it takes 130 (BenchmarkRenderFrame, a dashboard); among
// 32 sessions sharing two cores, as a server runs it, it took 240 (a CPU
// profile of the capacity test: 7.3 s of renderer for 6,400 frames of
// 120×40). A view whose drawing took long (text whose every grapheme is
// measured, an overlay) costs the renderer more: under the draw attack
// the renderer spent 0.6 times what the views it was given took to draw.
const renderNsPerCell = 240

// renderCost is the renderer's time for a changed w×h frame whose view
// took drawn to draw.
func renderCost(w, h int, drawn time.Duration) time.Duration {
	return max(time.Duration(renderNsPerCell*w*h), drawn*6/10)
}

func (m *sessionModel) size() (int, int) {
	m.st.mu.Lock()
	defer m.st.mu.Unlock()
	return m.st.w, m.st.h
}

// safe wraps a command so that a panic in it becomes a panicMsg.
func safe(cmd tea.Cmd) tea.Cmd {
	if cmd == nil {
		return nil
	}
	return func() (msg tea.Msg) {
		defer func() {
			if v := recover(); v != nil {
				msg = panicMsg{v: v, stack: debug.Stack()}
			}
		}()
		return cmd()
	}
}
