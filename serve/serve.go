// Package serve puts the lab on an SSH server: anyone with an ssh client
// gets their own lab in their own terminal, nothing to install. It is built
// on charm.land/wish/v2 and Bubble Tea; each session runs the same
// tui.Model as `lab`, with its own runners, under limits an operator sets:
// sessions in all, per address and per connection, idle time, visit
// length, engine steps per second, new connections per address, pending
// handshakes, and the login grace.
//
// Visitors are not trusted. What they send is bounded before it reaches
// the lab: terminal sizes, environment, control sequences, pastes; the
// requests of an SSH channel are answered without ever waiting; every
// goroutine a session owns recovers from a panic, and where a library owns
// the goroutine (Bubble Tea's input reader) hostile input is kept from it;
// the session limits hold on the wall clock whatever the session's
// goroutines are doing; and no parameter a visitor can set reads the
// server's files, except by name from the operator's --data-dir.
//
// Sessions share no state, so several servers behind a TCP load balancer
// serve anyone from any of them: one host key (--host-key) and the PROXY
// protocol (--proxy-protocol --proxy-from) so that per-address limits and
// logs see the real client.
package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/netip"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/wish/v2"
	"github.com/charmbracelet/ssh"
	"github.com/thelab/lab/scene"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/catalog"
	gossh "golang.org/x/crypto/ssh"
)

// Defaults of the operator's limits.
const (
	DefaultAddr               = "127.0.0.1:2222"
	DefaultMaxSessions        = 32
	DefaultMaxSessionsPerAddr = 8
	// DefaultMaxSessionsPerConn is OpenSSH's MaxSessions: session
	// channels one connection may hold open.
	DefaultMaxSessionsPerConn = 4
	// DefaultMaxStartups bounds the connections still in their handshake,
	// in all and from one address (OpenSSH's MaxStartups).
	DefaultMaxStartups        = 32
	DefaultMaxStartupsPerAddr = 8
	// DefaultLoginGrace is OpenSSH's LoginGraceTime: the time a connection
	// has to authenticate, and then to open a session.
	DefaultLoginGrace = 20 * time.Second
	// DefaultClientAlive is OpenSSH's ClientAliveInterval: a keep-alive
	// request this often; DefaultClientAliveCount unanswered in a row end
	// the connection.
	DefaultClientAlive        = 15 * time.Second
	DefaultClientAliveCount   = 3
	DefaultIdleTimeout        = 10 * time.Minute
	DefaultYieldAfter         = 2 * time.Minute
	DefaultMaxSessionDuration = time.Hour
	// DefaultStepsPerSecond caps the engine steps of one session, shared
	// by its panes: ten times mh's default speed, and at most a few percent
	// of a core for the sims at their default sizes. It bounds steps, not
	// their cost; DefaultCPUPerSession bounds the cost.
	DefaultStepsPerSecond = 1000
	// DefaultCPUPerSession caps the CPU time a session's engines may use,
	// in cores, whatever a step costs: a quarter of a core.
	DefaultCPUPerSession = 0.25
	// DefaultRebuildsPerSecond caps a session's sim builds (reset, reseed,
	// new parameters, a new pane), after a burst of three.
	DefaultRebuildsPerSecond = 2
	// DefaultMaxPanes caps a session's panes.
	DefaultMaxPanes = 8
	// DefaultCPUPerAddr caps the CPU of all the sessions of one address
	// together, in cores: two sessions' worth, so that one visitor cannot
	// take the machine's cores however many sessions they open.
	DefaultCPUPerAddr = 0.5
	// DefaultCPUShare is the part of the machine's cores (GOMAXPROCS) that
	// all visitors together may spend when --cpu-total is not given: the
	// rest answers keys at once, draws what Bubble Tea's renderer draws
	// beyond its charge, encrypts, collects garbage. With 32 visitors of
	// the default dashboard from 8 addresses taking about 1.15 of 2 cores,
	// an attacker gets a ninth of 1.4 (each honest address is counted at
	// 1.25 times what it spends, which is more than the rest) and every
	// key is still answered within 150 ms (TestCapacityUnderAttack); at
	// 0.6, 1.2 was less than the honest addresses' needs with their
	// headroom, and they were held to the attacker's level and put in
	// debt.
	DefaultCPUShare = 0.7
	// DefaultMemoryPerSession caps the estimated bytes a session holds: its
	// sims (their Spec.Size) and its screen.
	DefaultMemoryPerSession = 256 << 20
	DefaultConnPerMinute    = 30
	DefaultGrace            = 5 * time.Second
	// DefaultFPS is the frames per second sent to a visitor: two thirds of
	// the local lab's (tui.TickInterval), because drawing and sending a
	// frame is most of what a session costs the server (at 30, 32 default
	// dashboards took 1.6 of 2 cores, most of it in Bubble Tea's renderer;
	// at 20, 1.3), and charts moving 20 times a second still look smooth.
	DefaultFPS = 20
	// MaxDataFile is the largest file a visitor may open from --data-dir.
	MaxDataFile = 8 << 20
)

// Config is what an operator chooses. Start from DefaultConfig.
type Config struct {
	Addr     string // where ListenAndServe listens
	StateDir string // holds the host key unless HostKey names one; created owner-only
	// HostKey names a host key file to use instead of the state
	// directory's: the one key replicas behind a balancer share.
	HostKey        string
	AuthorizedKeys string // an authorized_keys file; empty admits anyone
	// DataDir is a directory whose files visitors may name, by name only,
	// in parameters that read a file (lda's corpus); empty: none.
	DataDir string
	// MaxSessions is how many sessions may run at once; one more visitor
	// is told the server is full.
	MaxSessions int
	// MaxSessionsPerAddr is how many of them one address may hold
	// (0: no limit).
	MaxSessionsPerAddr int
	// MaxSessionsPerConn is how many session channels one connection may
	// hold open.
	MaxSessionsPerConn int
	// MaxStartups is how many connections may be in their handshake at
	// once; past it the oldest pending one of the address with the most is
	// dropped. MaxStartupsPerAddr bounds those of one address.
	MaxStartups        int
	MaxStartupsPerAddr int
	// LoginGrace is how long a connection has to authenticate, and then to
	// ask for a session.
	LoginGrace time.Duration
	// ClientAliveInterval is how often the server asks an idle-looking
	// client for a reply; ClientAliveCountMax unanswered requests end the
	// connection (0 interval: never ask).
	ClientAliveInterval time.Duration
	ClientAliveCountMax int
	// IdleTimeout ends a session after this long without a key press,
	// mouse event or resize (0: never).
	IdleTimeout time.Duration
	// MaxSessionDuration ends a session this long after it began (0: never).
	MaxSessionDuration time.Duration
	// StepsPerSecond caps a session's engine steps per second, shared
	// equally by its panes (0: no cap).
	StepsPerSecond float64
	// CPUPerSession caps the share of a core a session may spend stepping,
	// building Frames and building sims, all its panes together (0: no cap).
	CPUPerSession float64
	// RebuildsPerSecond caps a session's sim builds (0: no cap).
	RebuildsPerSecond float64
	// MaxPanes caps a session's panes (0: no cap).
	MaxPanes int
	// CPUPerAddr caps the share of a core the sessions of one address
	// may spend together; what a session leaves unpaid passes to the
	// address's next session, and the address builds one sim at a time
	// (0: no cap on the sum).
	CPUPerAddr float64
	// CPUTotal is the cores all visitors together may spend: when they want
	// more, those who want more than a fair share are held to it, and the
	// others keep what they use (sims.Share; 0: no total).
	CPUTotal float64
	// MemoryPerSession caps the estimated bytes a session holds: its sims
	// (Spec.Size) and its screen. A build over it is refused with the reason
	// on screen, and a screen over it drawn smaller (0: no cap).
	MemoryPerSession int64
	// YieldAfter is how long a session must have been idle (no two inputs
	// within a minute) before it yields its place to a newcomer on a full
	// server (by sessions or by memory).
	YieldAfter time.Duration
	// MemoryTotal caps the estimated bytes every session holds together: a
	// new session, a build or a larger screen that would pass it waits for
	// an idle session to yield, or is refused. 0 means DefaultMemoryShare of
	// the machine's memory (or of the cgroup's limit).
	MemoryTotal int64
	// ConnPerMinute is how many new connections one address may open per
	// minute, as a burst or spread out (0: no limit).
	ConnPerMinute int
	// FPS caps the frames per second sent to each client: fewer frames
	// cost less bandwidth and CPU, each carrying the changes since the last.
	FPS int
	// MinFPS is the frame rate a busy server may slow every session's
	// charts down to, so that keys are answered at once while the cores
	// are short (see governor): 0 means DefaultMinFPS (or FPS, if lower);
	// FPS never slows them.
	MinFPS int
	// Grace is how long sessions get, after Shutdown, to see the notice
	// and end before their connections are closed.
	Grace time.Duration
	// ProxyProtocol reads a PROXY header (v1 or v2) from connections whose
	// peer is in ProxyFrom, and takes the client's address from it.
	ProxyProtocol bool
	ProxyFrom     []netip.Prefix
	// Sims are the panes of a session whose visitor asks for nothing;
	// nil, and no Scene, opens the tour's scene picker.
	Sims []string
	// Scene, when set, is the scene of the Tour such a session opens on
	// instead.
	Scene string
	// Tour are the scenes a visitor walks (t, n, N) and may ask for
	// (ssh -t host tour NAME); nil is the built-in tour. A folder of them
	// is read by the operator before serving: a visitor reads no file.
	Tour    []scene.Scene
	Seed    uint64 // seed of each session's first pane
	Catalog *sims.Catalog
	Log     io.Writer // where the structured log goes; nil means os.Stderr
	// LogLevel is the least level logged: Debug adds the balancers'
	// health checks.
	LogLevel slog.Level

	hook func(tea.Msg) // tests: called first in every session's Update
	// tests: the wall-clock backstop's delays (zero: hardSlack and
	// forceConnAfter) and how long a newcomer waits for memory (zero:
	// admitWait)
	slack, forceAfter, admitWait time.Duration
}

// DefaultConfig is a local demo with safe limits.
func DefaultConfig() Config {
	return Config{
		Tour:                scene.Builtins(),
		Addr:                DefaultAddr,
		MaxSessions:         DefaultMaxSessions,
		MaxSessionsPerAddr:  DefaultMaxSessionsPerAddr,
		MaxSessionsPerConn:  DefaultMaxSessionsPerConn,
		MaxStartups:         DefaultMaxStartups,
		MaxStartupsPerAddr:  DefaultMaxStartupsPerAddr,
		LoginGrace:          DefaultLoginGrace,
		ClientAliveInterval: DefaultClientAlive,
		ClientAliveCountMax: DefaultClientAliveCount,
		IdleTimeout:         DefaultIdleTimeout,
		YieldAfter:          DefaultYieldAfter,
		MaxSessionDuration:  DefaultMaxSessionDuration,
		StepsPerSecond:      DefaultStepsPerSecond,
		CPUPerSession:       DefaultCPUPerSession,
		CPUPerAddr:          DefaultCPUPerAddr,
		CPUTotal:            DefaultCPUShare * float64(runtime.GOMAXPROCS(0)),
		RebuildsPerSecond:   DefaultRebuildsPerSecond,
		MaxPanes:            DefaultMaxPanes,
		MemoryPerSession:    DefaultMemoryPerSession,
		ConnPerMinute:       DefaultConnPerMinute,
		Grace:               DefaultGrace,
		FPS:                 DefaultFPS,
		Seed:                1,
	}
}

// check reports the first problem with c, naming its flag.
func (c *Config) check() error {
	switch {
	case c.MaxSessions < 1:
		return fmt.Errorf("--max-sessions must be at least 1, got %d", c.MaxSessions)
	case c.MaxSessionsPerAddr < 0:
		return fmt.Errorf("--max-sessions-per-addr must be ≥ 0, got %d", c.MaxSessionsPerAddr)
	case c.MaxSessionsPerConn < 1 || c.MaxSessionsPerConn > 10:
		return fmt.Errorf("--max-sessions-per-conn must be in 1..10, got %d", c.MaxSessionsPerConn)
	case c.MaxStartups < 1:
		return fmt.Errorf("--max-startups must be at least 1, got %d", c.MaxStartups)
	case c.MaxStartupsPerAddr < 1:
		return fmt.Errorf("--max-startups-per-addr must be at least 1, got %d", c.MaxStartupsPerAddr)
	case c.LoginGrace <= 0 || c.LoginGrace > 2*time.Minute:
		return fmt.Errorf("--login-grace must be in (0, 2m], got %s", c.LoginGrace)
	case c.ClientAliveInterval < 0:
		return fmt.Errorf("--client-alive-interval must be ≥ 0, got %s", c.ClientAliveInterval)
	case c.ClientAliveCountMax < 1:
		return fmt.Errorf("--client-alive-count must be at least 1, got %d", c.ClientAliveCountMax)
	case c.IdleTimeout < 0:
		return fmt.Errorf("--idle-timeout must be ≥ 0, got %s", c.IdleTimeout)
	case c.YieldAfter <= 0:
		return fmt.Errorf("--yield-after must be > 0, got %s", c.YieldAfter)
	case c.MaxSessionDuration < 0:
		return fmt.Errorf("--max-session-duration must be ≥ 0, got %s", c.MaxSessionDuration)
	case c.StepsPerSecond < 0:
		return fmt.Errorf("--steps-per-second must be ≥ 0, got %g", c.StepsPerSecond)
	case c.CPUPerSession < 0:
		return fmt.Errorf("--cpu-per-session must be ≥ 0, got %g", c.CPUPerSession)
	case c.RebuildsPerSecond < 0:
		return fmt.Errorf("--rebuilds-per-second must be ≥ 0, got %g", c.RebuildsPerSecond)
	case c.MaxPanes < 0:
		return fmt.Errorf("--max-panes must be ≥ 0, got %d", c.MaxPanes)
	case c.MaxPanes > 0 && len(c.Sims) > c.MaxPanes:
		return fmt.Errorf("%d sims asked for, but --max-panes is %d", len(c.Sims), c.MaxPanes)
	case c.CPUPerAddr < 0:
		return fmt.Errorf("--cpu-per-addr must be ≥ 0, got %g", c.CPUPerAddr)
	case c.CPUTotal < 0:
		return fmt.Errorf("--cpu-total must be ≥ 0, got %g", c.CPUTotal)
	case c.MemoryPerSession < 0:
		return fmt.Errorf("--memory-per-session must be ≥ 0, got %d", c.MemoryPerSession)
	case c.MemoryPerSession > 0 && c.MemoryPerSession < screenBytes(80, 24):
		return fmt.Errorf("--memory-per-session must leave room for a screen of 80×24 (%s), got %s", sims.Bytes(screenBytes(80, 24)), sims.Bytes(c.MemoryPerSession))
	case c.MemoryTotal < 0:
		return fmt.Errorf("--memory-total must be ≥ 0, got %d", c.MemoryTotal)
	case c.MemoryTotal > 0 && c.MemoryTotal < screenBytes(80, 24):
		return fmt.Errorf("--memory-total must leave room for one session (%s at 80×24), got %s", sims.Bytes(screenBytes(80, 24)), sims.Bytes(c.MemoryTotal))
	case c.ConnPerMinute < 0:
		return fmt.Errorf("--conn-rate must be ≥ 0, got %d", c.ConnPerMinute)
	case c.FPS < 1 || c.FPS > 60:
		return fmt.Errorf("--fps must be in 1..60, got %d", c.FPS)
	case c.MinFPS < 0 || c.MinFPS > c.FPS:
		return fmt.Errorf("--min-fps must be in 1..--fps (%d), got %d", c.FPS, c.MinFPS)
	case c.Grace <= 0:
		return fmt.Errorf("--grace must be > 0, got %s", c.Grace)
	case c.ProxyProtocol && len(c.ProxyFrom) == 0:
		return errors.New("--proxy-protocol needs --proxy-from: the balancers' addresses, the only peers whose PROXY header is believed")
	case !c.ProxyProtocol && len(c.ProxyFrom) > 0:
		return errors.New("--proxy-from is only used with --proxy-protocol")
	}
	for _, name := range c.Sims {
		if c.Catalog.Lookup(name) == nil {
			return fmt.Errorf("unknown sim %q (lab list shows them)", name)
		}
	}
	if c.Scene != "" {
		i := sceneIndex(c.Tour, c.Scene)
		switch {
		case len(c.Sims) > 0:
			return errors.New("--scene or a list of sims, not both")
		case i < 0:
			return fmt.Errorf("--scene %s: no such scene in the tour (lab tour lists them)", sims.Shown(c.Scene))
		case c.MaxPanes > 0 && len(c.Tour[i].Panes) > c.MaxPanes:
			return fmt.Errorf("--scene %s has %d panes, but --max-panes is %d", c.Scene, len(c.Tour[i].Panes), c.MaxPanes)
		}
	}
	return nil
}

// sceneIndex is the index of the scene named name in tour, or -1.
func sceneIndex(tour []scene.Scene, name string) int {
	return slices.IndexFunc(tour, func(s scene.Scene) bool { return s.Name == name })
}

// Server is a running `lab serve`.
type Server struct {
	cfg     Config
	ssh     *ssh.Server
	handler ssh.Handler // the middlewares
	log     *slog.Logger
	refused *refusals
	keyPath string
	hostKey gossh.PublicKey
	auth    *authKeys // nil: anyone
	limiter *addrLimiter
	pool    *sims.Pool  // the memory every session draws on (MemoryTotal)
	share   *sims.Share // the CPU every visitor draws on (CPUTotal)
	// cadence is every session's frame interval: 1/FPS, stretched by the
	// governor while the server is busy
	cadence *sims.Cadence
	ids     atomic.Uint64
	flushed chan struct{} // closed when the refusal summaries stop

	mu           sync.Mutex
	sessions     map[*session]struct{}    // every session being handled
	active       int                      // sessions holding a slot
	labs         int                      // sessions' labs not yet closed
	perAddrCount counter                  // sessions per address
	conns        map[*conn]struct{}       // open TCP connections
	connsPer     counter                  // open ones per address
	headers      int                      // PROXY headers being read
	pending      map[*conn]struct{}       // those not yet authenticated
	pendingPer   counter                  // pending ones per address
	byAddr       map[string]*conn         // pending ones by their two ends
	visitors     map[string]*sims.Account // each address's account, kept until idle
	closing      bool
	closingCh    chan struct{} // closed when Shutdown begins
	endAt        time.Time     // when sessions must end, once closing
	serving      bool
}

// New checks the configuration, loads (or makes) the host key and reads
// the authorized keys. Every problem is reported here, before listening.
func New(cfg Config) (*Server, error) {
	if cfg.Catalog == nil {
		cfg.Catalog = catalog.All()
	}
	if cfg.Tour == nil {
		cfg.Tour = scene.Builtins()
	}
	if cfg.Log == nil {
		cfg.Log = os.Stderr
	}
	if err := cfg.check(); err != nil {
		return nil, err
	}
	if cfg.MinFPS == 0 {
		cfg.MinFPS = min(DefaultMinFPS, cfg.FPS)
	}
	if cfg.MemoryTotal == 0 {
		mem, _, err := MachineMemory()
		if err != nil {
			return nil, err
		}
		cfg.MemoryTotal = int64(DefaultMemoryShare * float64(mem))
	}
	files, err := visitorFiles(cfg.DataDir)
	if err != nil {
		return nil, err
	}
	// Every sim a visitor builds opens files through this policy, however
	// its parameters were set.
	cfg.Catalog = cfg.Catalog.WithFiles(files)
	log := newLogger(cfg.Log, cfg.LogLevel)
	s := &Server{
		cfg:          cfg,
		log:          log,
		refused:      newRefusals(log),
		limiter:      newAddrLimiter(cfg.ConnPerMinute),
		pool:         sims.NewPool(cfg.MemoryTotal),
		share:        sims.NewShare(cfg.CPUTotal),
		cadence:      sims.NewCadence(time.Second / time.Duration(cfg.FPS)),
		visitors:     map[string]*sims.Account{},
		sessions:     map[*session]struct{}{},
		perAddrCount: counter{},
		conns:        map[*conn]struct{}{},
		connsPer:     counter{},
		pending:      map[*conn]struct{}{},
		pendingPer:   counter{},
		byAddr:       map[string]*conn{},
		closingCh:    make(chan struct{}),
		flushed:      make(chan struct{}),
	}
	var signer gossh.Signer
	if cfg.HostKey != "" {
		signer, err = LoadHostKeyFile(cfg.HostKey)
		s.keyPath = cfg.HostKey
	} else {
		signer, s.keyPath, err = LoadHostKey(cfg.StateDir)
	}
	if err != nil {
		return nil, err
	}
	if signer, err = withoutSHA1(signer); err != nil {
		return nil, err
	}
	s.hostKey = signer.PublicKey()
	if cfg.AuthorizedKeys != "" {
		if s.auth, err = newAuthKeys(cfg.AuthorizedKeys, func(msg string, args ...any) { log.Warn(msg, args...) }); err != nil {
			return nil, err
		}
	}
	opts := []ssh.Option{
		wish.WithAddress(cfg.Addr),
		wish.WithVersion("lab"),
		func(srv *ssh.Server) error { srv.AddHostKey(signer); return nil },
		wish.WithMiddleware(s.middlewares()...),
		ssh.WrapConn(s.wrapConn),
	}
	if s.auth != nil {
		opts = append(opts, wish.WithPublicKeyAuth(s.authorized))
	}
	if s.ssh, err = wish.NewServer(opts...); err != nil {
		return nil, err
	}
	s.handler = s.ssh.Handler
	s.ssh.ServerConfigCallback = s.serverConfig
	s.ssh.ConnectionFailedCallback = s.handshakeFailed
	s.ssh.ChannelHandlers = map[string]ssh.ChannelHandler{"session": s.handleSession, "default": s.refuseChannel}
	s.ssh.RequestHandlers = map[string]ssh.RequestHandler{}
	for _, t := range []string{"tcpip-forward", "cancel-tcpip-forward", "streamlocal-forward@openssh.com", "cancel-streamlocal-forward@openssh.com"} {
		s.ssh.RequestHandlers[t] = s.refuseForward
	}
	return s, nil
}

// visitorFiles is the file access of visitors' sims: by name from dir, or
// none.
func visitorFiles(dir string) (sims.Files, error) {
	if dir == "" {
		return sims.NoFiles("this server lets visitors read no files (its operator can offer some with --data-dir)"), nil
	}
	f, err := sims.DirFiles(dir, MaxDataFile)
	if err != nil {
		return nil, fmt.Errorf("--data-dir: %w", err)
	}
	return f, nil
}

// withoutSHA1 keeps an RSA host key from signing with SHA-1 (ssh-rsa).
func withoutSHA1(signer gossh.Signer) (gossh.Signer, error) {
	if signer.PublicKey().Type() != gossh.KeyAlgoRSA {
		return signer, nil
	}
	as, ok := signer.(gossh.AlgorithmSigner)
	if !ok {
		return nil, errors.New("host key: an RSA key that cannot sign with SHA-2")
	}
	return gossh.NewSignerWithAlgorithms(as, []string{gossh.KeyAlgoRSASHA512, gossh.KeyAlgoRSASHA256})
}

// serverConfig is each connection's SSH configuration: no SHA-1 anywhere
// (key exchange, MACs, client signatures), and the authentication log that
// moves a connection out of the pending ones.
func (s *Server) serverConfig(ctx ssh.Context) *gossh.ServerConfig {
	algs := gossh.SupportedAlgorithms()
	noSHA1 := func(names []string) []string {
		return slices.DeleteFunc(names, func(n string) bool { return strings.Contains(n, "sha1") })
	}
	return &gossh.ServerConfig{
		Config: gossh.Config{
			KeyExchanges: noSHA1(algs.KeyExchanges),
			Ciphers:      algs.Ciphers,
			MACs:         noSHA1(algs.MACs),
		},
		PublicKeyAuthAlgorithms: noSHA1(algs.PublicKeyAuths),
		MaxAuthTries:            6,
		AuthLogCallback: func(_ gossh.ConnMetadata, method string, err error) {
			defer s.guard("authentication log")
			c := connOf(ctx)
			switch {
			case c == nil:
			case err == nil:
				c.authenticated()
			default:
				c.noteAuth(method, err)
			}
		},
	}
}

// authorized admits a key listed in the authorized_keys file (re-read when
// it changes) whose options allow this client now; a key whose line
// forbids a pty is admitted and then told so by the terminal middleware.
func (s *Server) authorized(ctx ssh.Context, key ssh.PublicKey) (ok bool) {
	defer s.guard("authorized keys") // a panic refuses the key
	fp := gossh.FingerprintSHA256(key)
	c := connOf(ctx)
	if c != nil {
		c.offered(fp)
	}
	k, why := s.auth.match(key, ctx.RemoteAddr(), time.Now())
	if k == nil {
		if c != nil {
			c.noteError(why)
		}
		return false
	}
	if k.noPTY {
		p := ctx.Permissions()
		if p.Extensions == nil {
			p.Extensions = map[string]string{}
		}
		p.Extensions[extNoPTY] = ""
	}
	return true
}

// handshakeFailed logs a connection whose handshake failed, with the
// error: one that tried to authenticate is refused, any other dropped.
func (s *Server) handshakeFailed(nc net.Conn, err error) {
	defer s.guard("handshake log")
	s.mu.Lock()
	c := s.byAddr[addrKey(nc)]
	delete(s.byAddr, addrKey(nc))
	s.mu.Unlock()
	if c == nil {
		s.refused.note("dropped", "handshake not completed", nc.RemoteAddr().String(), "error", err.Error())
		return
	}
	c.mu.Lock()
	tried, detail := c.triedAuth, c.detail
	if detail == "" {
		c.detail = err.Error()
	}
	c.mu.Unlock()
	if tried {
		c.logEnd("refused", "authentication failed")
	} else {
		c.logEnd("dropped", "handshake not completed")
	}
}

// refuseChannel refuses every channel but a session: port forwarding and
// the like.
func (s *Server) refuseChannel(_ *ssh.Server, _ *gossh.ServerConn, nc gossh.NewChannel, ctx ssh.Context) {
	defer s.guard("channel refusal")
	_ = nc.Reject(gossh.Prohibited, "lab serve offers terminal sessions only")
	// The reason is one of a few, whatever type the client names: reasons
	// are counted per kind, and a client must not make up new kinds.
	reason := "channel type refused"
	switch nc.ChannelType() {
	case "direct-tcpip", "forwarded-tcpip", "direct-streamlocal@openssh.com", "forwarded-streamlocal@openssh.com",
		"x11", "auth-agent@openssh.com", "tun@openssh.com":
		reason = "forwarding: " + nc.ChannelType()
	}
	s.refused.note("refused", reason, addrOf(ctx), "type", clip(nc.ChannelType(), 64))
}

// clip shortens a client's text (a user name, a channel type) for the log.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// refuseForward refuses a request for remote forwarding.
func (s *Server) refuseForward(ctx ssh.Context, _ *ssh.Server, req *gossh.Request) (bool, []byte) {
	defer s.guard("forwarding refusal")
	s.refused.note("refused", "forwarding: "+req.Type, addrOf(ctx))
	return false, nil
}

func addrOf(ctx ssh.Context) string {
	if c := connOf(ctx); c != nil {
		return c.remote.String()
	}
	if a := ctx.RemoteAddr(); a != nil {
		return a.String()
	}
	return "?"
}

// newLogger writes one logfmt line per event of level or above.
func newLogger(w io.Writer, level slog.Level) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))
}

// goMemoryLimit is the runtime's soft memory limit, for the log.
func goMemoryLimit() string {
	if n := debug.SetMemoryLimit(-1); n != math.MaxInt64 {
		return sims.Bytes(n)
	}
	return "none"
}

// MemoryTotal is the bytes the server admits sessions against: the
// configured total, or the default share of the machine's memory.
func (s *Server) MemoryTotal() int64 { return s.cfg.MemoryTotal }

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
	c := s.cfg
	attrs := []any{"addr", ln.Addr().String(), "connect", connectHint(ln.Addr()),
		"host_key", s.keyPath, "fingerprint", gossh.FingerprintSHA256(s.hostKey),
		"max_sessions", c.MaxSessions, "per_addr", c.MaxSessionsPerAddr, "per_conn", c.MaxSessionsPerConn,
		"max_startups", c.MaxStartups, "login_grace", c.LoginGrace, "client_alive", c.ClientAliveInterval,
		"idle_timeout", c.IdleTimeout, "yield_after", c.YieldAfter, "max_session_duration", c.MaxSessionDuration,
		"steps_per_second", c.StepsPerSecond, "cpu_per_session", c.CPUPerSession,
		"rebuilds_per_second", c.RebuildsPerSecond, "cpu_per_addr", c.CPUPerAddr, "cpu_total", c.CPUTotal, "max_panes", c.MaxPanes,
		"memory_per_session_mib", c.MemoryPerSession >> 20, "memory_total_mib", c.MemoryTotal >> 20,
		"go_memory_limit", goMemoryLimit(),
		"conn_per_minute", c.ConnPerMinute, "fps", c.FPS, "min_fps", c.MinFPS}
	if s.auth != nil {
		attrs = append(attrs, "authorized_keys", s.auth.count())
	} else {
		attrs = append(attrs, "access", "anyone")
	}
	if c.DataDir != "" {
		attrs = append(attrs, "data_dir", c.DataDir)
	}
	if c.ProxyProtocol {
		attrs = append(attrs, "proxy_from", fmt.Sprint(c.ProxyFrom))
	}
	s.mu.Lock()
	first := !s.serving
	s.serving = true
	s.mu.Unlock()
	if first {
		go s.summarise()
		if c.MinFPS < c.FPS {
			go func() {
				defer s.guard("governor")
				newGovernor(s.cadence, c.FPS, c.MinFPS).run(s.closingCh)
			}()
		}
	}
	s.log.Info("listening", attrs...)
	err := s.ssh.Serve(ln)
	if errors.Is(err, ssh.ErrServerClosed) {
		return nil
	}
	return err
}

// summarise logs the refusal summaries once a window until Shutdown.
func (s *Server) summarise() {
	defer s.guard("refusal summaries")
	t := time.NewTicker(refusalWindow)
	defer t.Stop()
	for {
		select {
		case <-s.closingCh:
			close(s.flushed)
			return
		case <-t.C:
			s.refused.flush()
			s.forgetIdleVisitors()
		}
	}
}

// newBudget makes the budget of a session of the visitor at ip: its own
// limits, the visitor's account (made on the visitor's first session) and
// the server's memory.
func (s *Server) newBudget(ip string) *sims.Budget {
	s.mu.Lock()
	defer s.mu.Unlock()
	acct := s.visitors[ip]
	if acct == nil {
		acct = sims.NewAccount(s.cfg.CPUPerAddr, s.share)
		s.visitors[ip] = acct
	}
	// Made under s.mu, so that the account counts the session before
	// forgetIdleVisitors can see it.
	return sims.NewBudget(sims.Limits{StepsPerSec: s.cfg.StepsPerSecond, Cores: s.cfg.CPUPerSession,
		RebuildsPerSec: s.cfg.RebuildsPerSecond, Memory: s.cfg.MemoryPerSession, Visitor: acct, Server: s.pool})
}

// forgetIdleVisitors drops the accounts of addresses with no session and
// no debt, so that the map follows the visitors of the last minutes.
func (s *Server) forgetIdleVisitors() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for ip, a := range s.visitors {
		if a.Idle() {
			delete(s.visitors, ip)
		}
	}
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
		close(s.closingCh)
	}
	n, serving := len(s.sessions), s.serving
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
	err := s.ssh.Close() // every authenticated connection
	s.mu.Lock()
	conns := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	for _, c := range conns { // and those still in their handshake
		c.shut("dropped", "server shutting down", "")
	}
	// Closed connections end the sessions that were left; wait (briefly)
	// for their handlers, which close the runners.
	wait, stop2 := context.WithTimeout(context.Background(), 2*time.Second)
	defer stop2()
	if n := s.waitSessions(wait); n > 0 {
		s.log.Warn("stopped with sessions still ending", "sessions", n)
	}
	if serving {
		<-s.flushed
	}
	s.refused.flush()
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
