// Package serve puts the lab on an SSH server: anyone with an ssh client
// gets their own lab in their own terminal, nothing to install. It is built
// on charm.land/wish/v2 and its Bubble Tea middleware; each session runs the
// same tui.Model as `lab`, with its own runners, under limits an operator
// sets: sessions, idle time, visit length, engine steps per second and new
// connections per address.
//
// Sessions share no state, so several servers behind a TCP load balancer
// serve anyone from any of them.
package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/wish/v2"
	bm "charm.land/wish/v2/bubbletea"
	"github.com/charmbracelet/ssh"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/catalog"
	"github.com/thelab/lab/tui"
	gossh "golang.org/x/crypto/ssh"
)

// Defaults of the operator's limits.
const (
	DefaultAddr               = "127.0.0.1:2222"
	DefaultMaxSessions        = 32
	DefaultIdleTimeout        = 10 * time.Minute
	DefaultMaxSessionDuration = time.Hour
	// DefaultStepsPerSecond caps the engine steps of one session, shared by
	// its panes: ten times mh's default speed, and at most a few percent of
	// a core for the sims at their default sizes. It bounds steps, not
	// their cost; DefaultCPUPerSession bounds the cost.
	DefaultStepsPerSecond = 1000
	// DefaultCPUPerSession caps the CPU time a session's engines may use,
	// in cores, whatever a step costs: a quarter of a core.
	DefaultCPUPerSession = 0.25
	DefaultConnPerMinute = 30
	DefaultGrace         = 5 * time.Second
	// DefaultFPS is the lab's own refresh rate (tui.TickInterval).
	DefaultFPS = 30
)

// Config is what an operator chooses. Start from DefaultConfig.
type Config struct {
	Addr           string // where ListenAndServe listens
	StateDir       string // holds the host key; created owner-only
	AuthorizedKeys string // an authorized_keys file; empty admits anyone
	// MaxSessions is how many sessions may run at once; one more visitor
	// is told the server is full.
	MaxSessions int
	// IdleTimeout ends a session after this long without a key press,
	// mouse event or resize (0: never).
	IdleTimeout time.Duration
	// MaxSessionDuration ends a session this long after it began (0: never).
	MaxSessionDuration time.Duration
	// StepsPerSecond caps a session's engine steps per second, shared
	// equally by its panes (0: no cap).
	StepsPerSecond float64
	// CPUPerSession caps the share of a core a session's engines may use,
	// shared equally by its panes (0: no cap).
	CPUPerSession float64
	// ConnPerMinute is how many new connections one address may open per
	// minute, as a burst or spread out (0: no limit).
	ConnPerMinute int
	// FPS caps the frames per second sent to each client: fewer frames
	// cost less bandwidth and CPU, each carrying the changes since the last.
	FPS int
	// Grace is how long sessions get, after Shutdown, to see the notice
	// and end before their connections are closed.
	Grace   time.Duration
	Sims    []string // panes of a new session; nil means tui.DefaultSims
	Seed    uint64   // seed of each session's first pane
	Catalog *sims.Catalog
	Log     io.Writer // where the structured log goes; nil means os.Stderr

	hook func(tea.Msg) // tests: called first in every session's Update
}

// DefaultConfig is a local demo with safe limits.
func DefaultConfig() Config {
	return Config{
		Addr:               DefaultAddr,
		MaxSessions:        DefaultMaxSessions,
		IdleTimeout:        DefaultIdleTimeout,
		MaxSessionDuration: DefaultMaxSessionDuration,
		StepsPerSecond:     DefaultStepsPerSecond,
		CPUPerSession:      DefaultCPUPerSession,
		ConnPerMinute:      DefaultConnPerMinute,
		Grace:              DefaultGrace,
		FPS:                DefaultFPS,
		Seed:               1,
	}
}

// Server is a running `lab serve`.
type Server struct {
	cfg     Config
	ssh     *ssh.Server
	log     *slog.Logger
	keyPath string
	hostKey gossh.PublicKey
	authKey []gossh.PublicKey
	limiter *addrLimiter
	ids     atomic.Uint64

	mu       sync.Mutex
	sessions map[ssh.Session]*session // every session being handled
	active   int                      // sessions holding a slot
	conns    int                      // open TCP connections
	closing  bool
	endAt    time.Time // when sessions must end, once closing
}

// New checks the configuration, loads (or makes) the host key and reads
// the authorized keys. Every problem is reported here, before listening.
func New(cfg Config) (*Server, error) {
	if cfg.Catalog == nil {
		cfg.Catalog = catalog.All()
	}
	if cfg.Sims == nil {
		cfg.Sims = tui.DefaultSims
	}
	if cfg.Log == nil {
		cfg.Log = os.Stderr
	}
	switch {
	case cfg.MaxSessions < 1:
		return nil, fmt.Errorf("--max-sessions must be at least 1, got %d", cfg.MaxSessions)
	case cfg.IdleTimeout < 0:
		return nil, fmt.Errorf("--idle-timeout must be ≥ 0, got %s", cfg.IdleTimeout)
	case cfg.MaxSessionDuration < 0:
		return nil, fmt.Errorf("--max-session-duration must be ≥ 0, got %s", cfg.MaxSessionDuration)
	case cfg.StepsPerSecond < 0:
		return nil, fmt.Errorf("--steps-per-second must be ≥ 0, got %g", cfg.StepsPerSecond)
	case cfg.CPUPerSession < 0:
		return nil, fmt.Errorf("--cpu-per-session must be ≥ 0, got %g", cfg.CPUPerSession)
	case cfg.ConnPerMinute < 0:
		return nil, fmt.Errorf("--conn-rate must be ≥ 0, got %d", cfg.ConnPerMinute)
	case cfg.FPS < 1 || cfg.FPS > 60:
		return nil, fmt.Errorf("--fps must be in 1..60, got %d", cfg.FPS)
	case cfg.Grace <= 0:
		return nil, fmt.Errorf("--grace must be > 0, got %s", cfg.Grace)
	}
	for _, name := range cfg.Sims {
		if cfg.Catalog.Lookup(name) == nil {
			return nil, fmt.Errorf("unknown sim %q (lab list shows them)", name)
		}
	}
	s := &Server{
		cfg:      cfg,
		log:      newLogger(cfg.Log),
		limiter:  newAddrLimiter(cfg.ConnPerMinute),
		sessions: map[ssh.Session]*session{},
	}
	signer, path, err := LoadHostKey(cfg.StateDir)
	if err != nil {
		return nil, err
	}
	s.keyPath, s.hostKey = path, signer.PublicKey()
	if cfg.AuthorizedKeys != "" {
		if s.authKey, err = LoadAuthorizedKeys(cfg.AuthorizedKeys); err != nil {
			return nil, err
		}
	}
	opts := []ssh.Option{
		wish.WithAddress(cfg.Addr),
		wish.WithVersion("lab"),
		func(srv *ssh.Server) error { srv.AddHostKey(signer); return nil },
		// The middlewares run last to first: ours admits the session and
		// owns its lab; the Bubble Tea middleware runs the program.
		wish.WithMiddleware(bm.MiddlewareWithProgramHandler(s.program), s.admit),
		ssh.WrapConn(s.wrapConn),
	}
	// Connection-level backstops behind the sessions' own polite limits:
	// a connection that stalls (in the handshake, or a client that stops
	// reading) is cut a minute after a session would have been.
	if cfg.IdleTimeout > 0 {
		opts = append(opts, wish.WithIdleTimeout(cfg.IdleTimeout+time.Minute))
	}
	if cfg.MaxSessionDuration > 0 {
		opts = append(opts, wish.WithMaxTimeout(cfg.MaxSessionDuration+cfg.Grace+time.Minute))
	}
	if s.authKey != nil {
		opts = append(opts, wish.WithPublicKeyAuth(s.authorized))
	}
	if s.ssh, err = wish.NewServer(opts...); err != nil {
		return nil, err
	}
	s.ssh.ConnectionFailedCallback = func(conn net.Conn, err error) {
		s.log.Info("refused", "addr", conn.RemoteAddr().String(), "reason", "handshake: "+err.Error())
	}
	return s, nil
}

// newLogger writes one logfmt line per event.
func newLogger(w io.Writer) *slog.Logger { return slog.New(slog.NewTextHandler(w, nil)) }

// HostKey is the server's public host key.
func (s *Server) HostKey() gossh.PublicKey { return s.hostKey }

// ListenAndServe listens on the configured address and serves until
// Shutdown.
func (s *Server) ListenAndServe() error {
	ln, err := net.Listen("tcp", s.cfg.Addr)
	if err != nil {
		return err
	}
	return s.Serve(ln)
}

// Serve accepts connections on ln until Shutdown, after which it returns
// nil.
func (s *Server) Serve(ln net.Listener) error {
	attrs := []any{"addr", ln.Addr().String(), "connect", connectHint(ln.Addr()),
		"host_key", s.keyPath, "fingerprint", gossh.FingerprintSHA256(s.hostKey),
		"max_sessions", s.cfg.MaxSessions, "idle_timeout", s.cfg.IdleTimeout,
		"max_session_duration", s.cfg.MaxSessionDuration, "steps_per_second", s.cfg.StepsPerSecond, "cpu_per_session", s.cfg.CPUPerSession,
		"conn_per_minute", s.cfg.ConnPerMinute, "fps", s.cfg.FPS}
	if s.authKey != nil {
		attrs = append(attrs, "authorized_keys", len(s.authKey))
	} else {
		attrs = append(attrs, "access", "anyone")
	}
	s.log.Info("listening", attrs...)
	err := s.ssh.Serve(ln)
	if errors.Is(err, ssh.ErrServerClosed) {
		return nil
	}
	return err
}

// Shutdown stops accepting connections, tells every session the server is
// going down, lets them end within the grace period (or until ctx is done)
// and then closes every connection. Each session's runners are closed by
// the time it returns.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	if !s.closing {
		s.closing = true
		// Sessions end halfway through the grace period, so that their
		// goodbye reaches the client before the connections are closed.
		s.endAt = time.Now().Add(s.cfg.Grace / 2)
	}
	n := len(s.sessions)
	s.mu.Unlock()
	s.log.Info("shutting down", "sessions", n, "grace", s.cfg.Grace)

	// Closing the listeners is immediate; ssh.Server.Shutdown would then
	// wait for every connection, which is ours to bound.
	done, cancel := context.WithCancel(ctx)
	cancel()
	_ = s.ssh.Shutdown(done)

	grace, stop := context.WithTimeout(ctx, s.cfg.Grace)
	defer stop()
	left := s.waitSessions(grace)
	err := s.ssh.Close() // every connection, stalled or without a session
	// Closed connections end the sessions that were left; wait (briefly)
	// for their handlers, which close the runners.
	wait, stop2 := context.WithTimeout(context.Background(), 2*time.Second)
	defer stop2()
	if n := s.waitSessions(wait); n > 0 {
		s.log.Warn("stopped with sessions still ending", "sessions", n)
	}
	s.log.Info("stopped", "forced", left)
	return err
}

// waitSessions waits until no session is being handled or ctx is done, and
// returns how many are left.
func (s *Server) waitSessions(ctx context.Context) int {
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	for {
		s.mu.Lock()
		n := len(s.sessions)
		s.mu.Unlock()
		if n == 0 {
			return 0
		}
		select {
		case <-ctx.Done():
			return n
		case <-t.C:
		}
	}
}

// shutdownDeadline says when sessions must end, once the server is
// closing.
func (s *Server) shutdownDeadline() (time.Time, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.endAt, s.closing
}

// Sessions is how many sessions hold a slot now.
func (s *Server) Sessions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.active
}

// wrapConn admits or refuses a TCP connection before the SSH handshake:
// none while closing, at most ConnPerMinute per address, and a bound on
// the open connections so that handshakes cannot pile up.
func (s *Server) wrapConn(_ ssh.Context, conn net.Conn) net.Conn {
	addr := conn.RemoteAddr().String()
	reason := ""
	s.mu.Lock()
	switch {
	case s.closing:
		reason = "server shutting down"
	case !s.limiter.allow(conn.RemoteAddr()):
		reason = "rate limited"
	case s.conns >= 2*s.cfg.MaxSessions+16:
		reason = "too many connections"
	default:
		s.conns++
	}
	s.mu.Unlock()
	if reason != "" {
		s.log.Info("refused", "addr", addr, "reason", reason)
		return nil
	}
	return &countedConn{Conn: conn, release: func() {
		s.mu.Lock()
		s.conns--
		s.mu.Unlock()
	}}
}

func (s *Server) authorized(_ ssh.Context, key ssh.PublicKey) bool {
	for _, k := range s.authKey {
		if ssh.KeysEqual(k, key) {
			return true
		}
	}
	return false
}

// connectHint is the command that reaches a listener at addr.
func connectHint(addr net.Addr) string {
	host, port := "localhost", "2222"
	if a, ok := addr.(*net.TCPAddr); ok {
		port = strconv.Itoa(a.Port)
		if !a.IP.IsLoopback() && !a.IP.IsUnspecified() {
			host = a.IP.String()
		}
	}
	return "ssh -p " + port + " " + host
}
