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
  --data FILE.csv    numeric CSV with a header row, for sims that take data
  --every K          print every K steps, not only the final one
  --json             one JSON object per line: {"sim","step","metrics"}; the last adds "final" and "result"
  --frames           print the rendered pane as text, exactly as the TUI draws it
  --size WxH         pane size for --frames (default 100x30)

` + serveUsage + `
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
		err = serveCmd(ctx, args[1:], stdout, stderr)
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
