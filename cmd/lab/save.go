package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/thelab/lab/scene"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/tui"
)

const saveUsage = `Usage: lab save [flags] SIM [flags] [SIM [flags]]...
       lab save [--out FILE] SCENE

  writes the dashboard lab would open with these sims as a scene file (what S
  saves in the TUI): every pane's sim, parameters, seed, steps (--steps N: open
  paused after N) and data file with its SHA-256. lab open FILE opens it; a
  folder of them is a tour (lab tour --scenes DIR). SCENE, a built-in scene's
  name, writes that scene's file, to start a teacher's own from.

  --out FILE         write to FILE (default: standard output); an existing
                     file is kept unless --overwrite
  --name NAME        the scene's name, lowercase words joined by - (default dashboard)
  --title TEXT       its title
  --chapter TEXT     where it stands in a course ("§3 Sampling")
  --caption TEXT     what to watch (once or twice: a line each)
  --focus N          the pane focused first, 1.. (default 1)
`

// captionFlags collects up to two --caption lines.
type captionFlags struct{ lines *[]string }

func (c captionFlags) String() string { return "" }
func (c captionFlags) Set(v string) error {
	if len(*c.lines) == 2 {
		return errors.New("at most two caption lines")
	}
	*c.lines = append(*c.lines, v)
	return nil
}

// saveCmd writes a dashboard (the sims and flags lab takes) or a built-in
// scene as a scene file, without opening a terminal.
func saveCmd(args []string, stdout io.Writer) error {
	var out string
	var overwrite bool
	var sc scene.Scene
	focus := 1
	opts, help, err := parseTUI("lab save", args, func(fs *flag.FlagSet) {
		fs.Var(fileFlag{&out, "leave --out out to write to standard output"}, "out", "")
		fs.BoolVar(&overwrite, "overwrite", overwrite, "")
		fs.StringVar(&sc.Name, "name", sc.Name, "")
		fs.StringVar(&sc.Title, "title", sc.Title, "")
		fs.StringVar(&sc.Chapter, "chapter", sc.Chapter, "")
		fs.Var(captionFlags{&sc.Caption}, "caption", "")
		fs.IntVar(&focus, "focus", focus, "")
	})
	switch {
	case err != nil && len(args) > 0:
		// A built-in scene's name is no sim: lab save SCENE.
		if s, ok := builtinNamed(args); ok {
			sc, err = s, nil
		} else {
			return err
		}
	case err != nil:
		return err
	case help != nil:
		fmt.Fprint(stdout, saveUsage)
		return nil
	case len(opts.Panes) == 0:
		return usageErr("save: name the sims to save (lab save gd --set lr=0.1 --out lesson.scene) or a scene (lab tour lists them)")
	case len(opts.Panes) > scene.MaxPanes:
		return usageErr("save: a scene has at most %d panes, got %d", scene.MaxPanes, len(opts.Panes))
	case focus < 1 || focus > len(opts.Panes):
		return usageErr("save: --focus %d: a pane 1..%d", focus, len(opts.Panes))
	default:
		if sc.Name == "" {
			sc.Name = "dashboard"
		}
		sc.Focus = focus - 1
		if sc.Panes, err = savedPanes(opts, out); err != nil {
			return err
		}
	}
	text := sc.Format()
	// What is written must read back: a name or a line the format
	// refuses is an error here, not in lab open.
	if _, err := scene.Parse(strings.NewReader(text), "the scene"); err != nil {
		return usageErr("save: %v", err)
	}
	if out == "" {
		_, err := io.WriteString(stdout, text)
		return err
	}
	flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if overwrite {
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	f, err := os.OpenFile(out, flags, 0o644)
	if errors.Is(err, os.ErrExist) {
		return usageErr("save: %s exists (--overwrite replaces it)", sims.Shown(out))
	}
	if err != nil {
		return usageErr("save: %v", err)
	}
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		return usageErr("save: %v", err)
	}
	return f.Close()
}

// builtinNamed is the built-in scene a save's arguments name: its name
// alone, or with --out FILE and --overwrite (nothing else applies to it).
func builtinNamed(args []string) (scene.Scene, bool) {
	var name string
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--out" || a == "-out":
			i++
		case strings.HasPrefix(a, "--out=") || strings.HasPrefix(a, "-out=") || a == "--overwrite" || a == "-overwrite":
		case name == "" && !strings.HasPrefix(a, "-"):
			name = a
		default:
			return scene.Scene{}, false
		}
	}
	for _, s := range scene.Builtins() {
		if s.Name == name {
			return s, true
		}
	}
	return scene.Scene{}, false
}

// savedPanes are a dashboard's panes as a scene keeps them: each sim's
// parameters set by hand (in its order, canonical text), its seed (the
// dashboard's rule made explicit: the first pane's, the next ones
// counting up), steps and data file — a path relative to the scene
// file's folder, with its checksum.
func savedPanes(opts tui.Options, out string) ([]scene.Pane, error) {
	var panes []scene.Pane
	seed := opts.Seed
	for _, po := range opts.Panes {
		spec := opts.Catalog.Lookup(po.Sim)
		vals, err := sims.Resolve(spec.Params, po.Set)
		if err != nil {
			return nil, usageErr("%s: %v", po.Sim, err)
		}
		p := scene.Pane{Sim: po.Sim, Set: scene.SettingsOf(vals), SeedSet: true, Steps: po.Steps}
		if po.Seed != nil {
			p.Seed = *po.Seed
		} else {
			p.Seed, seed = seed, seed+1
		}
		if po.Data != nil {
			p.Data, p.DataSum = relativeTo(po.Data.Path, out), po.Data.Sum
		}
		panes = append(panes, p)
	}
	return panes, nil
}

// relativeTo is path as lab open reads it from a scene file written to
// out: relative to out's folder when it can be, else absolute.
func relativeTo(path, out string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	dir := "."
	if out != "" {
		dir = filepath.Dir(out)
	}
	if absDir, err := filepath.Abs(dir); err == nil {
		if rel, err := filepath.Rel(absDir, abs); err == nil {
			return rel
		}
	}
	return abs
}
