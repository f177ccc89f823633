package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/term"
	"github.com/thelab/lab/sims/catalog"
	"github.com/thelab/lab/tui"
)

// paneArgs are a sim named on the TUI's command line and the flags that
// follow it.
type paneArgs struct {
	name string
	o    simOptions
}

// tuiCmd opens the dashboard: the named sims, each with the flags that
// follow it, or the default three; n, N and t walk the tour (--scenes: a
// folder's).
func tuiCmd(args []string, stdout io.Writer) error {
	scenes := ""
	opts, help, err := parseTUI("lab", args, func(fs *flag.FlagSet) {
		fs.StringVar(&scenes, "scenes", scenes, "")
	})
	if err != nil {
		return err
	}
	if help != nil {
		return tuiHelp(help, stdout)
	}
	if opts.Tour, err = loadTour(scenes); err != nil {
		return err
	}
	return runDashboard(opts)
}

// runDashboard opens the TUI on a terminal with these options and runs it
// until the user quits: the dashboard of lab, lab tour NAME and lab open.
func runDashboard(opts tui.Options) error {
	if err := needTerminal(); err != nil {
		return err
	}
	m, err := tui.New(opts)
	if err != nil {
		return usageErr("%v", err)
	}
	defer m.Close()
	_, err = tea.NewProgram(m).Run()
	return err
}

// parseTUI reads a dashboard's command line (lab's, lab save's) into the
// TUI's options, checking every sim, parameter and data file before
// anything opens; own registers the command's own flags. With --help it
// returns the sims named (an empty, non-nil list for none) instead.
func parseTUI(cmd string, args []string, own func(*flag.FlagSet)) (tui.Options, []*paneArgs, error) {
	help := false
	lead, panes, err := parseSims(cmd, args, func(fs *flag.FlagSet) {
		fs.BoolVar(&help, "help", help, "")
		fs.BoolVar(&help, "h", help, "")
		own(fs)
	})
	if err != nil {
		var fe flagErr
		if errors.As(err, &fe) {
			return tui.Options{}, nil, tuiFlagError(fe.fs, fe.err)
		}
		return tui.Options{}, nil, err
	}
	if help {
		return tui.Options{}, append([]*paneArgs{}, panes...), nil
	}
	if err := leadFlags(&lead, panes, cmd); err != nil {
		return tui.Options{}, nil, err
	}
	opts := tui.Options{Catalog: catalog.All(), Seed: 1, ExportDir: ".", TourAt: -1}
	if lead.seedSet {
		opts.Seed = lead.seed
	}
	for _, p := range panes {
		spec, err := lookupSim(p.name)
		if err != nil {
			return tui.Options{}, nil, err
		}
		// Checked here, for a usage error before the screen opens; the
		// pane resolves the same --set again.
		_, data, err := p.o.config(spec)
		if err != nil {
			return tui.Options{}, nil, err
		}
		po := tui.PaneOptions{Sim: p.name, Set: p.o.set, Data: data, Steps: p.o.steps}
		if p.o.seedSet {
			seed := p.o.seed
			po.Seed = &seed
		}
		opts.Panes = append(opts.Panes, po)
	}
	return opts, nil, nil
}

// flagErr is a flag the flag package refused, with the FlagSet that
// refused it (for the wording of the error: flagError).
type flagErr struct {
	fs  *flag.FlagSet
	err error
}

func (e flagErr) Error() string { return e.err.Error() }

// parseSims reads a command line of sims, each followed by its flags (the
// TUI's and lab run's): the flags before the first sim (lead) and each
// sim's. own registers the command's own flags, which are the command's
// wherever they stand. A flag the flag package refuses is a flagErr.
func parseSims(name string, args []string, own func(*flag.FlagSet)) (simOptions, []*paneArgs, error) {
	var lead simOptions
	var panes []*paneArgs
	cur := &lead
	for {
		fs := flag.NewFlagSet(name, flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		simFlags(fs, cur)
		own(fs)
		if err := fs.Parse(args); err != nil {
			return lead, nil, flagErr{fs, err}
		}
		if fs.NArg() == 0 {
			return lead, panes, nil
		}
		panes = append(panes, &paneArgs{name: fs.Arg(0)})
		cur = &panes[len(panes)-1].o
		args = fs.Args()[1:]
	}
}

// leadFlags applies the flags given before the first sim: --seed is the
// session's (the first pane's, the next ones count up); --set, --data and
// --steps there belong to the one sim named, and are an error with several
// sims or none.
func leadFlags(lead *simOptions, panes []*paneArgs, cmd string) error {
	if len(lead.set) == 0 && lead.data == "" && !lead.stepsOK {
		return nil
	}
	switch len(panes) {
	case 0:
		return usageErr("--set, --data and --steps need a sim: %s SIM --set name=value (lab help SIM lists its parameters)", cmd)
	case 1:
	default:
		return usageErr("with several sims, put each sim's --set, --data and --steps after its name: %s gd --set fn=rosenbrock mh", cmd)
	}
	p := &panes[0].o
	for k, v := range lead.set {
		if _, ok := p.set[k]; !ok {
			p.set[k] = v
		}
	}
	if p.data == "" {
		p.data = lead.data
	}
	if !p.stepsOK {
		p.steps, p.stepsOK = lead.steps, lead.stepsOK
	}
	return nil
}

// runOnly are the flags of lab run that the TUI has no use for.
var runOnly = []string{"every", "json", "frames", "color", "size", "series"}

// tuiFlagError explains a flag of fs the TUI does not take.
func tuiFlagError(fs *flag.FlagSet, err error) error {
	if m := noSuchArg().FindStringSubmatch(err.Error()); m != nil && slices.Contains(runOnly, m[1]) {
		return usageErr("--%s is a flag of lab run, which prints output without a terminal: lab run SIM --%s", m[1], m[1])
	}
	return usageErr("%s (lab help shows the usage)", flagError(fs, err))
}

// tuiHelp answers `lab SIM --help`: the sims' help, or the usage.
func tuiHelp(panes []*paneArgs, w io.Writer) error {
	if len(panes) == 0 {
		fmt.Fprint(w, usage)
		return nil
	}
	for i, p := range panes {
		spec, err := lookupSim(p.name)
		if err != nil {
			return err
		}
		if i > 0 {
			fmt.Fprintln(w)
		}
		writeSimHelp(w, spec)
	}
	return nil
}

// errNoTerminal says what to do without a terminal.
var errNoTerminal = errors.New("the lab's screen needs a terminal; without one, lab run SIM prints a sim's " +
	"summary, JSON lines (--json) or its pane as text (--frames): lab help run")

// needTerminal checks that the TUI can run: stdout is a terminal, and so
// is stdin or the process's controlling terminal (/dev/tty), from which
// Bubble Tea then reads the keys.
func needTerminal() error {
	if !term.IsTerminal(os.Stdout.Fd()) {
		return usageErr("%v", errNoTerminal)
	}
	if term.IsTerminal(os.Stdin.Fd()) {
		return nil
	}
	tty, err := os.Open("/dev/tty")
	if err != nil {
		return usageErr("%v", errNoTerminal)
	}
	tty.Close()
	return nil
}
