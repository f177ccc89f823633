package main

import (
	"flag"
	"io"

	tea "charm.land/bubbletea/v2"
	"github.com/thelab/lab/sims/catalog"
	"github.com/thelab/lab/tui"
)

// tuiCmd opens the dashboard: the named sims, or the default three.
func tuiCmd(args []string) error {
	fs := flag.NewFlagSet("lab", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	seed := fs.Uint64("seed", 1, "")
	if err := fs.Parse(args); err != nil {
		return usageErr("%v (lab help shows the usage)", err)
	}
	opts := tui.Options{Catalog: catalog.All(), Seed: *seed}
	if fs.NArg() > 0 {
		opts.Sims = fs.Args()
	}
	m, err := tui.New(opts)
	if err != nil {
		return usageErr("%v", err)
	}
	defer m.Close()
	_, err = tea.NewProgram(m).Run()
	return err
}
