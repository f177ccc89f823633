// Command lab is a terminal laboratory for the algorithms of the lecture
// notes: each sim runs step by step in its own pane.
//
//	lab [SIM [flags]]...  open the TUI (default dashboard: gd em-gmm mh)
//	lab list [FILTER]     list the sims, best matches first
//	lab tour [NAME]       the scenes of the notes' tour, or open one
//	lab open FILE         open a saved dashboard (S in the TUI) or a scene file
//	lab record SCENE|FILE render a scene headless into an asciinema cast (and an SVG still)
//	lab save SIM...       write a dashboard as a scene file without opening it
//	lab help [SIM]        print the usage, or a sim's parameters and examples
//	lab run [SIM [flags]]... run sims headless, one after another, and print JSON lines or frames
//	lab serve [flags]     serve the lab over SSH, one independent lab per session
//	lab version           print the module version and commit
//
// Exit status: 0 on success; 2 for bad usage: a bad flag, parameter or
// file (one it cannot read, or an output it cannot write), or a sim name
// that matches none; 1 when a run fails: the engine diverges or fails, or
// the sim or lab crashes (a panic, printed with its stack). Go's own
// status for a crash is 2; lab recovers its panics to keep 2 for usage.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"unicode"
	"unicode/utf8"

	_ "github.com/thelab/lab/internal/sysblas" // with -tags cblas: gonum's level-3 BLAS from the system
)

const usage = `lab: a terminal laboratory for the algorithms of the lecture notes.

Usage:
  lab [SIM [flags]]...        open the TUI with these sims (default: gd em-gmm mh)
  lab list [--long] [FILTER]  list the sims, best matches of FILTER first (--long: with parameters)
  lab tour [WORDS | NAME]     the scenes of the notes, grouped by chapter; NAME opens one
                              (--scenes DIR, here and in lab: a teacher's folder of scenes)
  lab open FILE.scene         open a dashboard saved with S (or a scene file) as it was
  lab record SCENE|FILE       render a scene headless into an asciinema cast: lab record --help
  lab save [flags] SIM...     write the dashboard these sims open as a scene file (lab save --help)
  lab help SIM                a sim's parameters, defaults, ranges, source and examples
  lab help run | keys         lab run's flags | the TUI's keys
  lab run SIM [flags]...      run sims without a terminal: a summary, JSON lines or frames
  lab serve [flags] [SIM...]  serve the lab over SSH: ssh -p 2222 localhost
  lab version                 the module version and commit of this binary
  lab help                    print this help

` + simFlagsUsage + `
` + runFlagsUsage + `
` + serveUsage + `
In the TUI press ? for the keys.
`

// exitError carries an exit status.
type exitError struct {
	code   int
	err    error
	output bool // lab run could not write its output (status 2)
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func usageErr(format string, args ...any) error {
	return &exitError{code: 2, err: fmt.Errorf(format, args...)}
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run dispatches the subcommands and turns errors into exit statuses. A
// panic of the command is a crash, status 1: left to Go, it would exit 2,
// which here means bad usage.
func run(args []string, stdout, stderr io.Writer) (code int) {
	defer func() {
		if p := recover(); p != nil {
			fmt.Fprintln(stderr, printable(fmt.Sprintf("lab: crashed (a bug; please report it with this message): %v\n%s", p, debug.Stack())))
			code = 1
		}
	}()
	var err error
	switch {
	case len(args) > 0 && args[0] == "list":
		err = listCmd(args[1:], stdout)
	case len(args) > 0 && args[0] == "tour":
		err = tourCmd(args[1:], stdout)
	case len(args) > 0 && args[0] == "open":
		err = openCmd(args[1:], stdout)
	case len(args) > 0 && args[0] == "record":
		err = recordCmd(args[1:], stdout, stderr)
	case len(args) > 0 && args[0] == "save":
		err = saveCmd(args[1:], stdout)
	case len(args) > 0 && args[0] == "run":
		err = runCmd(args[1:], stdout, stderr)
	case len(args) > 0 && args[0] == "serve":
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		hup := make(chan os.Signal, 1)
		signal.Notify(hup, syscall.SIGHUP)
		err = serveCmd(ctx, hup, args[1:], stdout, stderr)
		signal.Stop(hup)
		stop()
	case len(args) > 0 && args[0] == "help":
		err = helpCmd(args[1:], stdout)
	case len(args) > 0 && (args[0] == "-h" || args[0] == "--help"):
		fmt.Fprint(stdout, usage)
	case len(args) > 0 && (args[0] == "version" || args[0] == "--version"):
		err = versionCmd(args[1:], stdout)
	default:
		err = tuiCmd(args, stdout)
	}
	if err == nil {
		return 0
	}
	fmt.Fprintln(stderr, "lab:", printable(err.Error()))
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return 1
}

// printable is a message as the terminal may receive it: each control
// character but a line end or a tab is written as an escape (\x1b), and
// so is a byte that is not UTF-8. What the user typed is quoted where a
// message repeats it (sims.Shown), but a message may carry text from
// anywhere (a file's column names, an engine's reason), and none of it
// may drive the terminal: an OSC sequence would retitle it.
func printable(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unicode.IsControl(r) && r != '\n' && r != '\t':
			b.WriteString(strings.Trim(strconv.QuoteRune(r), "'"))
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}
