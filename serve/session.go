package serve

import (
	"fmt"
	"io"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	bm "charm.land/wish/v2/bubbletea"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/ssh"
	"github.com/thelab/lab/tui"
	"github.com/thelab/lab/tui/chart"
	gossh "golang.org/x/crypto/ssh"
)

// Why a session ended, as logged.
const (
	reasonQuit     = "quit"
	reasonClient   = "client closed"
	reasonIdle     = "idle timeout"
	reasonMax      = "max session duration"
	reasonShutdown = "server shutdown"
	reasonFull     = "server full"
	reasonNoPTY    = "no pty"
	reasonCommand  = "command"
	reasonPanic    = "panic"
)

// session is one SSH session: who, since when, its lab, and why it ended.
type session struct {
	srv   *Server
	sess  ssh.Session
	id    uint64
	start time.Time
	addr  string
	user  string
	term  string

	mu      sync.Mutex
	w, h    int
	profile string
	reason  string
	lab     *tui.Model

	quitSeen atomic.Bool // the program saw a QuitMsg
	inputEOF atomic.Bool // the client closed its input
}

func (st *session) setReason(r string) {
	st.mu.Lock()
	if st.reason == "" {
		st.reason = r
	}
	st.mu.Unlock()
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

// admit is the outer middleware: it logs the session, turns away those
// without a terminal or over the limit, builds the session's lab, and
// after the program ends closes the lab's runners, says goodbye and logs
// why the session ended — however it ended.
func (s *Server) admit(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		st := s.begin(sess)
		defer s.end(st)
		defer func() {
			if v := recover(); v != nil {
				st.panicked(v, debug.Stack())
				fmt.Fprint(sess, "\r\n"+farewell(reasonPanic, s.cfg)+"\r\n")
			}
		}()
		pty, _, ok := sess.Pty()
		switch {
		case len(sess.Command()) > 0 || sess.Subsystem() != "":
			st.refuse(reasonCommand, noPTYLine(sess))
			return
		case !ok:
			st.refuse(reasonNoPTY, noPTYLine(sess))
			return
		}
		st.setSize(pty.Window.Width, pty.Window.Height)
		if !s.take() {
			st.refuse(reasonFull, fmt.Sprintf("lab: the server is full (%d visitors at once); please try again in a few minutes.", s.cfg.MaxSessions))
			return
		}
		defer s.give()
		lab, err := tui.New(tui.Options{Catalog: s.cfg.Catalog, Sims: s.cfg.Sims, Seed: s.cfg.Seed, RateCap: s.cfg.StepsPerSecond, CPUCap: s.cfg.CPUPerSession})
		if err != nil {
			st.refuse("error: "+err.Error(), "lab: "+err.Error())
			return
		}
		st.mu.Lock()
		st.lab = lab
		st.mu.Unlock()
		defer lab.Close()
		next(sess)
		// The program has ended and the terminal is restored.
		st.mu.Lock()
		if st.reason == "" {
			_, closing := s.shutdownDeadline()
			switch {
			case closing:
				st.reason = reasonShutdown
			case sess.Context().Err() != nil || st.inputEOF.Load():
				st.reason = reasonClient
			case st.quitSeen.Load():
				st.reason = reasonQuit
			default:
				st.reason = "ended"
			}
		}
		reason := st.reason
		st.mu.Unlock()
		if msg := farewell(reason, s.cfg); msg != "" {
			fmt.Fprint(sess, "\r\n"+msg+"\r\n")
		}
	}
}

// begin registers and logs a new session.
func (s *Server) begin(sess ssh.Session) *session {
	st := &session{srv: s, sess: sess, id: s.ids.Add(1), start: time.Now(),
		addr: sess.RemoteAddr().String(), user: sess.User()}
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
	s.mu.Lock()
	s.sessions[sess] = st
	s.mu.Unlock()
	s.log.Info("connect", attrs...)
	return st
}

// end logs the session's end and forgets it.
func (s *Server) end(st *session) {
	st.mu.Lock()
	reason := st.reason
	if reason == "" {
		reason = "ended"
	}
	st.mu.Unlock()
	attrs := []any{"session", st.id, "addr", st.addr, "user", st.user}
	if st.term != "" {
		attrs = append(attrs, "size", st.size())
	}
	attrs = append(attrs, "duration", time.Since(st.start).Round(time.Millisecond), "reason", reason)
	s.log.Info("disconnect", attrs...)
	s.mu.Lock()
	delete(s.sessions, st.sess)
	s.mu.Unlock()
}

// take claims a session slot; give returns it.
func (s *Server) take() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing || s.active >= s.cfg.MaxSessions {
		return false
	}
	s.active++
	return true
}

func (s *Server) give() {
	s.mu.Lock()
	s.active--
	s.mu.Unlock()
}

// refuse tells the client why in one line and ends the session.
func (st *session) refuse(reason, line string) {
	st.setReason(reason)
	fmt.Fprintln(st.sess, line) // a PTY session's writer adds the \r
	_ = st.sess.Exit(1)
}

// noPTYLine tells a client without a terminal how to connect.
func noPTYLine(sess ssh.Session) string {
	return "lab: the lab is interactive and needs a terminal; connect with `" +
		connectHint(sess.LocalAddr()) + "` (no -T, no command)."
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
	}
	return ""
}

// program is the Bubble Tea middleware's program handler: the session's
// lab wrapped in a sessionModel, reading and writing the SSH channel.
func (s *Server) program(sess ssh.Session) *tea.Program {
	s.mu.Lock()
	st := s.sessions[sess]
	s.mu.Unlock()
	if st == nil {
		return nil
	}
	st.mu.Lock()
	lab := st.lab
	st.mu.Unlock()
	if lab == nil {
		return nil
	}
	now := time.Now()
	m := &sessionModel{st: st, lab: lab, cfg: s.cfg, started: now, lastInput: now}
	m.in = newInput(sess, func() {
		st.inputEOF.Store(true)
		m.quitLater()
	})
	opts := append(bm.MakeOptions(sess),
		// The server handles SIGINT/SIGTERM for all sessions at once.
		tea.WithoutSignalHandler(),
		tea.WithFPS(s.cfg.FPS),
		tea.WithInput(m.in),
		tea.WithFilter(m.filter),
	)
	p := tea.NewProgram(m, opts...)
	m.prog.Store(p)
	return p
}

// input feeds the program the client's keystrokes. A pump goroutine reads
// the channel, so that a Read can be ended when the program quits (Bubble
// Tea cannot cancel a read from an SSH channel, and would wait half a
// second for it); the end of the client's input quits the program (the
// client closed its side without closing the connection).
type input struct {
	ch   chan []byte
	stop chan struct{}
	once sync.Once
	buf  []byte
	eof  func()
}

func newInput(r io.Reader, eof func()) *input {
	in := &input{ch: make(chan []byte), stop: make(chan struct{}), eof: eof}
	go in.pump(r)
	return in
}

func (in *input) pump(r io.Reader) {
	for {
		b := make([]byte, 256)
		n, err := r.Read(b)
		if n > 0 {
			select {
			case in.ch <- b[:n]:
			case <-in.stop:
				return
			}
		}
		if err != nil {
			close(in.ch)
			return
		}
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
	cfg       Config
	prog      atomic.Pointer[tea.Program]
	in        *input
	started   time.Time
	lastInput time.Time
	notice    string
	idleWarn  bool // the notice is the idle warning
	broken    bool // View panicked
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
	switch msg := msg.(type) {
	case checkMsg:
		return m, m.check(time.Time(msg))
	case panicMsg:
		m.st.panicked(msg.v, msg.stack)
		return m, tea.Quit
	case tea.WindowSizeMsg:
		if msg.Width <= 0 || msg.Height <= 0 {
			return m, nil // the middleware's resize feed after the channel closed
		}
		m.st.setSize(msg.Width, msg.Height)
		m.lastInput = time.Now()
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
	return checkTick()
}

// warnBefore is how long before a limit the notice shows.
func warnBefore(d time.Duration) time.Duration { return min(30*time.Second, d/4) }

func seconds(d time.Duration) string {
	return fmt.Sprintf("%d s", int((d+time.Second-1)/time.Second))
}

var noticeStyle = lipgloss.NewStyle().Reverse(true).Bold(true)

func (m *sessionModel) View() (v tea.View) {
	defer func() {
		if r := recover(); r != nil {
			m.st.panicked(r, debug.Stack())
			m.broken = true
			v = tea.NewView("lab: something broke; closing this session.")
		}
	}()
	v = m.lab.View()
	if m.notice != "" {
		w, _ := m.size()
		i := strings.LastIndexByte(v.Content, '\n')
		v.Content = v.Content[:i+1] + noticeStyle.Render(chart.FitLine(" "+m.notice, w))
	}
	return v
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
