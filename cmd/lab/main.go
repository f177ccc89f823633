// Command lab is a terminal laboratory for the algorithms of the lecture
// notes: each sim runs step by step in its own pane.
//
//	lab [SIM...]          open the TUI (default dashboard: gd em-gmm mh)
//	lab list              print every sim with its parameters
//	lab run SIM [flags]   run a sim headless and print JSON lines or frames
//	lab serve [flags]     serve the lab over SSH, one independent lab per session
//	lab help              print this help
//
// Exit status: 0 on success, 2 for bad usage or a bad parameter, 1 when an
// engine fails (diverges or errors).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

const usage = `lab: a terminal laboratory for the algorithms of the lecture notes.

Usage:
  lab [--seed S] [SIM...]    open the TUI with these sims (default: gd em-gmm mh)
  lab list                   print every sim with its parameters, defaults and ranges
  lab run SIM [flags]        run a sim without a terminal
  lab serve [flags] [SIM...] serve the lab over SSH: ssh -p 2222 localhost
  lab help                   print this help

Run flags:
  --steps N          steps to run (default: the sim's own; stops early when it converges)
  --seed S           random seed (default 1)
  --set name=value   set a parameter (repeatable; see lab list)
  --data FILE.csv    CSV with a header row, for sims that take data (lab list says which columns)
  --every K          print every K steps, not only the final one
  --json             one JSON object per line: {"sim","step","metrics"}; the last adds "final" and "result"
  --frames           print the rendered pane as text, exactly as the TUI draws it
  --size WxH         pane size for --frames (default 100x30)

Serve flags (each SSH session gets its own lab with these panes, default gd em-gmm mh):
  --listen ADDR                 address to listen on (default 127.0.0.1:2222; other
                                interfaces only if you say so, e.g. --listen :2222)
  --state-dir DIR               where the host key is made once and kept (default
                                $XDG_STATE_HOME/lab or ~/.local/state/lab)
  --authorized-keys FILE        admit only these public keys (default: anyone)
  --max-sessions N              sessions at once; one more is told "server full" (default 32)
  --idle-timeout D              end a session after D without a key press (default 10m; 0 never)
  --max-session-duration D      end a session D after it began (default 1h; 0 never)
  --steps-per-second N          engine steps per second of one session, shared by its
                                panes (default 1000; 0 no cap)
  --cpu-per-session C           share of a core one session's engines may use, whatever a
                                step costs, shared by its panes (default 0.25; 0 no cap)
  --conn-rate N                 new connections per minute from one address (default 30; 0 no limit)
  --fps N                       frames per second sent to each visitor, 1..60 (default 30);
                                fewer save bandwidth and CPU
  --grace D                     on SIGINT/SIGTERM, time sessions get to see the notice
                                before they are closed (default 5s)
  --seed S                      seed of each session's first pane (default 1)

In the TUI press ? for the keys.
`

// exitError carries an exit status.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func usageErr(format string, args ...any) error {
	return &exitError{code: 2, err: fmt.Errorf(format, args...)}
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run dispatches the subcommands and turns errors into exit statuses.
func run(args []string, stdout, stderr io.Writer) int {
	var err error
	switch {
	case len(args) > 0 && args[0] == "list":
		err = listCmd(args[1:], stdout)
	case len(args) > 0 && args[0] == "run":
		err = runCmd(args[1:], stdout)
	case len(args) > 0 && args[0] == "serve":
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		err = serveCmd(ctx, args[1:], stderr)
		stop()
	case len(args) > 0 && (args[0] == "help" || args[0] == "-h" || args[0] == "--help"):
		fmt.Fprint(stdout, usage)
	default:
		err = tuiCmd(args)
	}
	if err == nil {
		return 0
	}
	fmt.Fprintln(stderr, "lab:", err)
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return 1
}
