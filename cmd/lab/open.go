package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/thelab/lab/scene"
	"github.com/thelab/lab/sims"
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

// openScene reads a scene file into the TUI's options, checking it
// against the catalogue and reading its data files: a data file whose
// checksum differs from the one saved is an error, not another dataset
// opened silently. Paths in the file are relative to the file's folder.
func openScene(path string) (tui.Options, error) {
	b, err := readSmall(path, scene.MaxBytes)
	if err != nil {
		return tui.Options{}, usageErr("open: %v", err)
	}
	sc, err := scene.Parse(bytes.NewReader(b), sims.Shown(path))
	if err != nil {
		return tui.Options{}, usageErr("open: %v", err)
	}
	cat := catalog.All()
	if err := sc.Check(cat, false); err != nil {
		return tui.Options{}, usageErr("open %s: %v", sims.Shown(path), err)
	}
	panes := tui.PaneOptionsOf(sc)
	for i, p := range sc.Panes {
		if p.Data == "" {
			continue
		}
		spec := cat.Lookup(p.Sim)
		file := p.Data
		if !filepath.IsAbs(file) {
			file = filepath.Join(filepath.Dir(path), file)
		}
		t, err := sims.LoadCSV(nil, file, spec.DataText...)
		if err != nil {
			return tui.Options{}, usageErr("open %s, pane %d: %v", sims.Shown(path), i+1, err)
		}
		if p.DataSum != "" && t.Sum != p.DataSum {
			return tui.Options{}, usageErr("open %s, pane %d: %s has changed since it was saved (its SHA-256 is %s, the scene's %s)",
				sims.Shown(path), i+1, sims.Shown(file), t.Sum[:12]+"…", p.DataSum[:12]+"…")
		}
		panes[i].Data = t
	}
	return tui.Options{Catalog: cat, Seed: 1, ExportDir: ".", Panes: panes, Focus: sc.Focus,
		Tour: scene.Builtins(), TourAt: -1}, nil
}

// readSmall reads a regular file of at most limit bytes.
func readSmall(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil {
		return nil, err
	} else if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", sims.Shown(path))
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err == nil && int64(len(b)) > limit {
		err = fmt.Errorf("%s is larger than %d bytes", sims.Shown(path), limit)
	}
	return b, err
}
