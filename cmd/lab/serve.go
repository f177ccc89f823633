package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"runtime/debug"
	"strings"

	"github.com/thelab/lab/serve"
)

// serveUsage is the serve flags' part of the usage, also what
// `lab serve --help` prints.
const serveUsage = `Serve flags (each SSH session gets its own lab: on the SIMs named, on --scene, or by
default on the tour's scene picker; a visitor may ask for a scene: ssh -t -p 2222 HOST tour NAME):
  --scene NAME                  every session opens on this scene of the tour (lab tour lists them)
  --scenes DIR                  the tour is this folder's .scene files (read once, at the start)
  --listen ADDR                 address to listen on (default 127.0.0.1:2222; other
                                interfaces only if you say so, e.g. --listen :2222)
  --state-dir DIR               where the host key is made once and kept, owner-only (default
                                $XDG_STATE_HOME/lab or ~/.local/state/lab)
  --host-key FILE               use this host key instead (owner-only, not RSA under 2048
                                bits; the one key every replica behind a load balancer shares)
  --authorized-keys FILE        admit only these public keys, re-read when it changes;
                                options from=, expiry-time=, no-pty, restrict honoured,
                                any other stops the server (default: anyone)
  --data-dir DIR                files visitors may name in parameters (lda's corpus), by
                                name only, no dot-files (default: none; visitors read no files)
  --max-sessions N              sessions at once; one more is told "server full" (default 32)
  --max-sessions-per-addr N     sessions at once from one address (default 8; 0 no limit)
  --max-sessions-per-conn N     session channels of one connection, 1..10 (default 4)
  --idle-timeout D              end a session after D without a key press (default 10m; 0 never)
  --yield-after D               on a full server, a session idle for D (no two keys within a
                                minute) yields its place to a newcomer (default 2m)
  --max-session-duration D      end a session D after it began (default 1h; 0 never)
  --steps-per-second N          engine steps per second of one session, shared by its
                                panes (default 1000; 0 no cap)
  --cpu-per-session C           share of a core one session may spend stepping, drawing and
                                building, all its panes together (default 0.25; 0 no cap)
  --rebuilds-per-second R       sim builds (reset, new parameters, a new pane) per second of
                                one session, after a burst of 3 (default 2; 0 no cap)
  --max-panes N                 panes of one session (default 8; 0 no cap)
  --cpu-per-addr C              share of a core the sessions of one address may spend
                                together; a session's debt passes to the address's next
                                one (default 0.5; 0 no cap on the sum)
  --cpu-total C                 cores all visitors may spend together: past it, those who
                                want more than a fair share are held to it (default 0.7
                                of the machine's cores; 0 no total)
  --memory-per-session MIB      estimated bytes one session holds: its sims and its
                                screen; a build over it is refused on screen, a larger
                                screen drawn smaller (default 256; 0 no cap)
  --memory-total MIB            estimated bytes all sessions hold together; past it a new
                                visitor waits for an idle session to yield, or is told
                                the server is full (default 40% of the machine's memory
                                or the cgroup's limit). The Go runtime's soft memory limit
                                is set to 1.5 times it, unless GOMEMLIMIT is set
  --conn-rate N                 new connections per minute from one address (default 30; 0 no limit)
  --login-grace D               time to authenticate, then to open a session (default 20s)
  --max-startups N              connections in their handshake at once; past it the oldest
                                of the busiest address is dropped (default 32)
  --max-startups-per-addr N     of them from one address (default 8). Connections in all:
                                2 × --max-sessions + --max-startups, shared fairly: when
                                full, a newcomer takes the place of the oldest idle one (no
                                key typed) of an address holding more than the newcomer's
                                would
  --client-alive-interval D     keep-alive request this often (default 15s; 0 never) ...
  --client-alive-count N        ... and the connection ends after N unanswered (default 3)
  --proxy-protocol              read a PROXY v1/v2 header (HAProxy) from the balancers ...
  --proxy-from CIDR[,CIDR]      ... at these addresses only (required with it). Their health
                                checks (v2 LOCAL, v1 UNKNOWN or a header naming the check's
                                own connection) get the SSH version line and are counted
                                nowhere. Per-address limits hold per replica: to cap an
                                address across replicas, see docs/serving.md (a stick table)
  --log-level L                 debug, info, warn or error (default info); debug adds the
                                balancers' health checks
  --fps N                       frames per second sent to each visitor, 1..60 (default 20);
                                fewer save bandwidth and CPU
  --min-fps N                   while the server's cores are busy, every visitor's charts
                                move less often, down to N frames a second, so that keys
                                are still answered at once (default 5; N = --fps: never)
  --grace D                     on SIGINT/SIGTERM, time sessions get to see the notice
                                before they are closed (default 5s). SIGHUP re-reads
                                --authorized-keys at once and logs whether it is usable;
                                sessions go on
  --seed S                      seed of each session's first pane (default 1)
`

// serveCmd runs `lab serve` until ctx is done (SIGINT or SIGTERM), then
// shuts down gracefully and returns nil. A signal on reload (SIGHUP, a
// daemon's reload by convention) re-reads the authorized keys: by default
// it would end the process at once, every session unwarned and unlogged,
// and what an operator sending it means is a reload (one who means to stop
// the server has SIGTERM, with its notice and grace). A closed terminal
// sends it too, and the server goes on, as under nohup.
func serveCmd(ctx context.Context, reload <-chan os.Signal, args []string, stdout, stderr io.Writer) error {
	cfg := serve.DefaultConfig()
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&cfg.Addr, "listen", cfg.Addr, "")
	fs.StringVar(&cfg.StateDir, "state-dir", "", "")
	fs.StringVar(&cfg.HostKey, "host-key", "", "")
	fs.StringVar(&cfg.AuthorizedKeys, "authorized-keys", "", "")
	fs.StringVar(&cfg.DataDir, "data-dir", "", "")
	fs.IntVar(&cfg.MaxSessions, "max-sessions", cfg.MaxSessions, "")
	fs.IntVar(&cfg.MaxSessionsPerAddr, "max-sessions-per-addr", cfg.MaxSessionsPerAddr, "")
	fs.IntVar(&cfg.MaxSessionsPerConn, "max-sessions-per-conn", cfg.MaxSessionsPerConn, "")
	fs.DurationVar(&cfg.IdleTimeout, "idle-timeout", cfg.IdleTimeout, "")
	fs.DurationVar(&cfg.YieldAfter, "yield-after", cfg.YieldAfter, "")
	fs.DurationVar(&cfg.MaxSessionDuration, "max-session-duration", cfg.MaxSessionDuration, "")
	fs.Float64Var(&cfg.StepsPerSecond, "steps-per-second", cfg.StepsPerSecond, "")
	fs.Float64Var(&cfg.CPUPerSession, "cpu-per-session", cfg.CPUPerSession, "")
	fs.Float64Var(&cfg.RebuildsPerSecond, "rebuilds-per-second", cfg.RebuildsPerSecond, "")
	fs.IntVar(&cfg.MaxPanes, "max-panes", cfg.MaxPanes, "")
	fs.Float64Var(&cfg.CPUPerAddr, "cpu-per-addr", cfg.CPUPerAddr, "")
	fs.Float64Var(&cfg.CPUTotal, "cpu-total", cfg.CPUTotal, "")
	memMiB := fs.Int64("memory-per-session", cfg.MemoryPerSession>>20, "")
	totalMiB := fs.Int64("memory-total", 0, "")
	fs.IntVar(&cfg.ConnPerMinute, "conn-rate", cfg.ConnPerMinute, "")
	fs.DurationVar(&cfg.LoginGrace, "login-grace", cfg.LoginGrace, "")
	fs.IntVar(&cfg.MaxStartups, "max-startups", cfg.MaxStartups, "")
	fs.IntVar(&cfg.MaxStartupsPerAddr, "max-startups-per-addr", cfg.MaxStartupsPerAddr, "")
	fs.DurationVar(&cfg.ClientAliveInterval, "client-alive-interval", cfg.ClientAliveInterval, "")
	fs.IntVar(&cfg.ClientAliveCountMax, "client-alive-count", cfg.ClientAliveCountMax, "")
	fs.BoolVar(&cfg.ProxyProtocol, "proxy-protocol", false, "")
	proxyFrom := fs.String("proxy-from", "", "")
	fs.TextVar(&cfg.LogLevel, "log-level", cfg.LogLevel, "")
	fs.DurationVar(&cfg.Grace, "grace", cfg.Grace, "")
	fs.IntVar(&cfg.FPS, "fps", cfg.FPS, "")
	fs.IntVar(&cfg.MinFPS, "min-fps", cfg.MinFPS, "")
	fs.Uint64Var(&cfg.Seed, "seed", cfg.Seed, "")
	fs.StringVar(&cfg.Scene, "scene", "", "")
	scenes := fs.String("scenes", "", "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, "Usage: lab serve [flags] [SIM...]\n\n"+serveUsage)
			return nil
		}
		return usageErr("serve: %s (lab serve --help shows the flags)", flagError(fs, err))
	}
	if fs.NArg() > 0 {
		cfg.Sims = fs.Args()
	}
	cfg.Log = stderr
	if *memMiB < 0 || *memMiB > 1<<24 {
		return usageErr("serve: --memory-per-session must be in 0..%d MiB, got %d", 1<<24, *memMiB)
	}
	cfg.MemoryPerSession = *memMiB << 20
	if *totalMiB < 0 || *totalMiB > 1<<30 {
		return usageErr("serve: --memory-total must be in 0..%d MiB, got %d", 1<<30, *totalMiB)
	}
	cfg.MemoryTotal = *totalMiB << 20
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if given["state-dir"] && strings.TrimSpace(cfg.StateDir) == "" {
		return usageErr("serve: --state-dir is empty: name a directory, or leave the flag out for the default")
	}
	if given["data-dir"] && cfg.DataDir == "" {
		return usageErr("serve: --data-dir is empty: name a directory, or leave the flag out to offer visitors no files")
	}
	if given["proxy-from"] {
		var err error
		if cfg.ProxyFrom, err = serve.ParseProxyFrom(*proxyFrom); err != nil {
			return usageErr("serve: %v", err)
		}
	}
	if given["scenes"] && *scenes == "" {
		return usageErr("serve: --scenes is empty: name a folder of .scene files, or leave the flag out for the built-in tour")
	}
	if given["scenes"] {
		var err error
		if cfg.Tour, err = loadTour(*scenes); err != nil {
			return err
		}
	}
	if cfg.StateDir == "" && cfg.HostKey == "" {
		dir, err := serve.DefaultStateDir()
		if err != nil {
			return usageErr("serve: %v", err)
		}
		cfg.StateDir = dir
	}
	srv, err := serve.New(cfg)
	if err != nil {
		return usageErr("serve: %v", err)
	}
	// The runtime's soft limit follows what the server admits, so that the
	// collector works harder before the process outgrows it; an operator's
	// GOMEMLIMIT wins.
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(serve.SoftMemoryLimit(srv.MemoryTotal()))
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return usageErr("serve: %v", err)
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
serving:
	for {
		select {
		case err := <-errc:
			return err
		case <-reload:
			srv.Reload()
		case <-ctx.Done():
			break serving
		}
	}
	// Sessions still open at the end of the grace period are closed by
	// force: that is the point of a grace period, not a failure.
	_ = srv.Shutdown(context.Background())
	return <-errc
}
