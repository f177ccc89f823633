package main

import (
	"fmt"
	"io"

	"github.com/thelab/lab/scene"
	"github.com/thelab/lab/sims/catalog"
	"github.com/thelab/lab/tui"
)

// openCmd opens a scene file (a saved dashboard, or a teacher's scene):
// its panes with their sims, parameters, seeds and speeds, each paused
// after its saved step count, its data files read and checked against
// their checksums.
func openCmd(args []string, stdout io.Writer) error {
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help") {
		fmt.Fprint(stdout, "Usage: lab open FILE.scene\n\n  opens a dashboard saved with S (or a scene file): the same panes at the same step\n")
		return nil
	}
	if len(args) != 1 {
		return usageErr("usage: lab open FILE.scene")
	}
	opts, err := openScene(args[0])
	if err != nil {
		return err
	}
	return runDashboard(opts)
}

// openScene reads a scene file into the TUI's options (scene.Load:
// checked against the catalogue, its data files read and checked against
// their checksums).
func openScene(path string) (tui.Options, error) {
	cat := catalog.All()
	sc, err := scene.Load(path, cat)
	if err != nil {
		return tui.Options{}, usageErr("open: %v", err)
	}
	return tui.Options{Catalog: cat, Seed: 1, ExportDir: ".", Panes: tui.PaneOptionsOf(sc), Focus: sc.Focus,
		Tour: scene.Builtins(), TourAt: -1}, nil
}
