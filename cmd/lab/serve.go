package main

import (
	"context"
	"flag"
	"io"
	"net"

	"github.com/thelab/lab/serve"
)

// serveCmd runs `lab serve` until ctx is done (SIGINT or SIGTERM), then
// shuts down gracefully and returns nil.
func serveCmd(ctx context.Context, args []string, stderr io.Writer) error {
	cfg := serve.DefaultConfig()
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&cfg.Addr, "listen", cfg.Addr, "")
	fs.StringVar(&cfg.StateDir, "state-dir", "", "")
	fs.StringVar(&cfg.AuthorizedKeys, "authorized-keys", "", "")
	fs.IntVar(&cfg.MaxSessions, "max-sessions", cfg.MaxSessions, "")
	fs.DurationVar(&cfg.IdleTimeout, "idle-timeout", cfg.IdleTimeout, "")
	fs.DurationVar(&cfg.MaxSessionDuration, "max-session-duration", cfg.MaxSessionDuration, "")
	fs.Float64Var(&cfg.StepsPerSecond, "steps-per-second", cfg.StepsPerSecond, "")
	fs.Float64Var(&cfg.CPUPerSession, "cpu-per-session", cfg.CPUPerSession, "")
	fs.IntVar(&cfg.ConnPerMinute, "conn-rate", cfg.ConnPerMinute, "")
	fs.DurationVar(&cfg.Grace, "grace", cfg.Grace, "")
	fs.IntVar(&cfg.FPS, "fps", cfg.FPS, "")
	fs.Uint64Var(&cfg.Seed, "seed", cfg.Seed, "")
	if err := fs.Parse(args); err != nil {
		return usageErr("serve: %v (lab help shows the usage)", err)
	}
	if fs.NArg() > 0 {
		cfg.Sims = fs.Args()
	}
	cfg.Log = stderr
	if cfg.StateDir == "" {
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
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return usageErr("serve: %v", err)
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	// Sessions still open at the end of the grace period are closed by
	// force: that is the point of a grace period, not a failure.
	_ = srv.Shutdown(context.Background())
	return <-errc
}
