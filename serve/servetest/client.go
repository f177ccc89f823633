package servetest

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/charmbracelet/x/ansi"
	gossh "golang.org/x/crypto/ssh"
)

// Options for a client session.
type Options struct {
	User    string            // default "visitor"
	Signer  gossh.Signer      // a key to authenticate with; nil tries none
	HostKey gossh.PublicKey   // the key the server must have; nil accepts any
	Env     map[string]string // sent with setenv before the PTY
	Term    string            // default "xterm-256color"
	W, H    int               // default 120×40
	NoPTY   bool              // ask for no PTY
	Command string            // run this instead of a shell
	// Sync answers the renderer's query for synchronized output, so that
	// each frame arrives between mode-2026 markers and can be counted.
	Sync bool
	// Discard keeps no screen, only counts (for load measurements).
	Discard bool
	// From is the local address to connect from (an address of 127/8 to
	// look like another client on loopback); empty: any.
	From string
	// Conn, when set, is the connection to run SSH over (one that has
	// already sent a PROXY header, say) instead of dialling addr.
	Conn net.Conn
	// Tweak, when set, edits the client's configuration (its algorithms).
	Tweak func(*gossh.ClientConfig)
}

// Dial opens an SSH connection to addr.
func Dial(addr string, o Options) (*gossh.Client, error) {
	if o.User == "" {
		o.User = "visitor"
	}
	cfg := &gossh.ClientConfig{
		User:            o.User,
		HostKeyCallback: gossh.InsecureIgnoreHostKey(),
		Timeout:         5 * time.Second,
	}
	if o.HostKey != nil {
		cfg.HostKeyCallback = gossh.FixedHostKey(o.HostKey)
	}
	if o.Signer != nil {
		cfg.Auth = []gossh.AuthMethod{gossh.PublicKeys(o.Signer)}
	}
	if o.Tweak != nil {
		o.Tweak(cfg)
	}
	conn := o.Conn
	if conn == nil {
		d := net.Dialer{Timeout: cfg.Timeout}
		if o.From != "" {
			d.LocalAddr = &net.TCPAddr{IP: net.ParseIP(o.From)}
		}
		var err error
		if conn, err = d.Dial("tcp", addr); err != nil {
			return nil, err
		}
	}
	_ = conn.SetDeadline(time.Now().Add(cfg.Timeout))
	c, chans, reqs, err := gossh.NewClientConn(conn, addr, cfg)
	if err != nil {
		conn.Close()
		return nil, err
	}
	_ = conn.SetDeadline(time.Time{})
	return gossh.NewClient(c, chans, reqs), nil
}

// NewKey is a fresh Ed25519 key for a test client.
func NewKey() (gossh.Signer, error) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	return gossh.NewSignerFromKey(priv)
}

// Session is one SSH session whose output feeds a Screen.
type Session struct {
	Client  *gossh.Client
	Sess    *gossh.Session
	Screen  *Screen
	stdin   io.WriteCloser
	bytes   atomic.Int64
	counter *Screen // counts frames: the Screen, or a blank one
	mu      sync.Mutex
	raw     bytes.Buffer
	done    chan struct{}
	changed chan struct{} // closed, and replaced, when the screen may have changed
	exitErr error
	waiters []waiter
	tail    []byte // the end of the output so far, for text split across reads
}

// waiter is an Await in progress; old is how many bytes at the start of
// the session's tail arrived before it began.
type waiter struct {
	sub []byte
	ch  chan struct{}
	old int
}

// Open dials addr and starts a session (by default a shell with a PTY).
func Open(addr string, o Options) (*Session, error) {
	c, err := Dial(addr, o)
	if err != nil {
		return nil, err
	}
	s, err := Start(c, o)
	if err != nil {
		c.Close()
		return nil, err
	}
	return s, nil
}

// Start opens a session on an existing connection.
func Start(c *gossh.Client, o Options) (*Session, error) {
	if o.Term == "" {
		o.Term = "xterm-256color"
	}
	if o.W == 0 {
		o.W, o.H = 120, 40
	}
	sess, err := c.NewSession()
	if err != nil {
		return nil, err
	}
	for k, v := range o.Env {
		if err := sess.Setenv(k, v); err != nil {
			sess.Close()
			return nil, fmt.Errorf("setenv %s: %w", k, err)
		}
	}
	s := &Session{Client: c, Sess: sess, done: make(chan struct{}), changed: make(chan struct{})}
	if !o.Discard {
		s.Screen = NewScreen(o.W, o.H)
	}
	if s.stdin, err = sess.StdinPipe(); err != nil {
		sess.Close()
		return nil, err
	}
	out, err := sess.StdoutPipe()
	if err != nil {
		sess.Close()
		return nil, err
	}
	if !o.NoPTY {
		if err := sess.RequestPty(o.Term, o.H, o.W, gossh.TerminalModes{}); err != nil {
			sess.Close()
			return nil, err
		}
	}
	if o.Command != "" {
		err = sess.Start(o.Command)
	} else {
		err = sess.Shell()
	}
	if err != nil {
		sess.Close()
		return nil, err
	}
	s.counter = s.Screen
	if o.Sync {
		if s.counter == nil {
			s.counter = NewCounter()
		}
		s.counter.Reply = func(b []byte) { go s.Send(string(b)) }
	}
	go s.read(out)
	return s, nil
}

func (s *Session) read(out io.Reader) {
	buf := make([]byte, 32<<10)
	for {
		n, err := out.Read(buf)
		if n > 0 {
			s.bytes.Add(int64(n))
			if s.counter != nil {
				s.counter.Write(buf[:n])
			}
			s.mu.Lock()
			if s.Screen != nil {
				s.raw.Write(buf[:n])
			}
			s.wake(buf[:n])
			s.change()
			s.mu.Unlock()
		}
		if err != nil {
			break
		}
	}
	s.exitErr = s.Sess.Wait()
	close(s.done)
}

// change tells WaitFor the screen may have changed, with s.mu held.
func (s *Session) change() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// changes is closed when the screen may have changed after this call.
func (s *Session) changes() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changed
}

// maxAwait is the longest text Await looks for.
const maxAwait = 64

// wake tells the waiters whose text has arrived, with s.mu held.
func (s *Session) wake(b []byte) {
	if len(s.waiters) == 0 {
		s.tail = nil
		return
	}
	data := append(s.tail, b...)
	cut := max(0, len(data)-maxAwait)
	kept := s.waiters[:0]
	for _, w := range s.waiters {
		if containsAfter(data, w.sub, w.old) {
			close(w.ch)
			continue
		}
		w.old = max(0, w.old-cut)
		kept = append(kept, w)
	}
	s.waiters = kept
	s.tail = append([]byte(nil), data[cut:]...)
}

// containsAfter reports whether sub occurs in data ending past data[:old].
func containsAfter(data, sub []byte, old int) bool {
	for from := 0; ; {
		i := bytes.Index(data[from:], sub)
		if i < 0 {
			return false
		}
		if from+i+len(sub) > old {
			return true
		}
		from += i + 1
	}
}

// Await returns a channel closed when text (at most 64 bytes, as sent:
// escape sequences are not removed) arrives in the output after this call.
// Load measurements time keys with it, with or without a screen.
func (s *Session) Await(text string) <-chan struct{} {
	ch := make(chan struct{})
	s.mu.Lock()
	s.waiters = append(s.waiters, waiter{sub: []byte(text)[:min(len(text), maxAwait)], ch: ch, old: len(s.tail)})
	s.mu.Unlock()
	return ch
}

// Send types keys (raw bytes, as a terminal would send them).
func (s *Session) Send(keys string) error {
	_, err := io.WriteString(s.stdin, keys)
	return err
}

// Resize tells the server the terminal is now w×h, and resizes the screen.
func (s *Session) Resize(w, h int) error {
	if s.Screen != nil {
		s.Screen.Resize(w, h)
		s.mu.Lock()
		s.change()
		s.mu.Unlock()
	}
	return s.Sess.WindowChange(h, w)
}

// Bytes is how many bytes of output have arrived.
func (s *Session) Bytes() int64 { return s.bytes.Load() }

// Frames is how many synchronized frames have arrived (with Options.Sync).
func (s *Session) Frames() int {
	if s.counter == nil {
		return 0
	}
	return s.counter.Frames()
}

// Output is every byte received so far.
func (s *Session) Output() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.raw.String()
}

// Text is the output with escape sequences removed (for the lines written
// after the program restored the terminal).
func (s *Session) Text() string { return ansi.Strip(s.Output()) }

// WaitFor waits until the screen satisfies ok, and returns the screen. It
// looks again whenever output arrives (or the screen is resized), not on
// a clock: the screen shows it as soon as it comes, and a wait costs
// nothing while nothing comes.
func (s *Session) WaitFor(timeout time.Duration, ok func(screen string) bool) (string, error) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		changed := s.changes()
		screen := s.Screen.String()
		if ok(screen) {
			return screen, nil
		}
		select {
		case <-changed:
		case <-s.done:
			screen = s.Screen.String()
			if ok(screen) {
				return screen, nil
			}
			return screen, errors.New("the session ended before the screen showed it")
		case <-deadline.C:
			return screen, errors.New("timed out waiting for the screen")
		}
	}
}

// WaitText waits until the screen contains every one of subs.
func (s *Session) WaitText(timeout time.Duration, subs ...string) (string, error) {
	return s.WaitFor(timeout, func(screen string) bool {
		for _, sub := range subs {
			if !strings.Contains(screen, sub) {
				return false
			}
		}
		return true
	})
}

// Wait waits for the session to end and returns its exit error (nil for
// status 0, *gossh.ExitError otherwise).
func (s *Session) Wait(timeout time.Duration) error {
	select {
	case <-s.done:
		return s.exitErr
	case <-time.After(timeout):
		return errors.New("timed out waiting for the session to end")
	}
}

// Done is closed when the session has ended.
func (s *Session) Done() <-chan struct{} { return s.done }

// Close ends the session and the connection.
func (s *Session) Close() error {
	s.Sess.Close()
	return s.Client.Close()
}
