package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/charmbracelet/x/term"
	"github.com/thelab/lab/scene"
	"github.com/thelab/lab/sims/catalog"
	"github.com/thelab/lab/tui"
)

// tourCmd lists the tour's scenes grouped by the notes' seed files and
// chapters (those matching every word given), or opens the one named: its
// panes, focus and caption, with n and N walking the tour from there. On a
// terminal, with no words, it opens the scene picker. The tour is the
// built-in scenes, or a teacher's folder of scene files (--scenes).
func tourCmd(args []string, stdout io.Writer) error {
	var dir string
	var list, help bool
	var words []string
	for {
		fs := flag.NewFlagSet("tour", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.StringVar(&dir, "scenes", dir, "")
		fs.BoolVar(&list, "list", list, "")
		fs.BoolVar(&help, "help", help, "")
		fs.BoolVar(&help, "h", help, "")
		if err := fs.Parse(args); err != nil {
			return usageErr("tour: %s (usage: lab tour [--scenes DIR] [--list] [WORDS | NAME])", flagError(fs, err))
		}
		if fs.NArg() == 0 {
			break
		}
		words = append(words, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if help {
		fmt.Fprint(stdout, tourUsage)
		return nil
	}
	scenes, err := loadTour(dir)
	if err != nil {
		return err
	}
	if len(words) == 1 {
		if i := slices.IndexFunc(scenes, func(s scene.Scene) bool { return s.Name == words[0] }); i >= 0 {
			return openTour(scenes, i, false)
		}
	}
	if len(words) == 0 && !list && isTerminal(stdout) {
		return openTour(scenes, -1, true)
	}
	shown := matchScenes(scenes, words)
	if len(shown) == 0 {
		return usageErr("no scene matches %q (lab tour --list lists them all)", strings.Join(words, " "))
	}
	writeTour(stdout, shown, len(scenes))
	return nil
}

const tourUsage = `Usage: lab tour [--scenes DIR] [--list] [WORDS | NAME]

  lab tour            on a terminal, the scene picker: ↑↓ move, tab next chapter,
                      / filter, enter opens the scene; elsewhere (or --list) the
                      scenes, grouped by the notes' seed files and chapters
  lab tour WORDS      the scenes whose name, title, chapter or caption has every word
  lab tour NAME       open a scene: its panes side by side, its caption above them;
                      n and N go to the next and previous scene, esc hides the caption
  --scenes DIR        the tour is this folder's .scene files, in their names' order
                      (a teacher's course: lab save writes one, lab open opens one)
`

// loadTour is the tour: the built-in scenes, or those of a folder.
func loadTour(dir string) ([]scene.Scene, error) {
	if dir == "" {
		return scene.Builtins(), nil
	}
	scenes, err := scene.LoadDir(dir, catalog.All())
	if err != nil {
		return nil, usageErr("--scenes: %v", err)
	}
	return scenes, nil
}

// isTerminal says whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(f.Fd())
}

// matchScenes are the scenes whose text has every word (case folded).
func matchScenes(scenes []scene.Scene, words []string) []scene.Scene {
	var out []scene.Scene
	for _, s := range scenes {
		text := strings.ToLower(strings.Join(append([]string{s.Name, s.Title, s.Notes, s.Chapter}, s.Caption...), " "))
		ok := true
		for _, w := range words {
			ok = ok && strings.Contains(text, strings.ToLower(w))
		}
		if ok {
			out = append(out, s)
		}
	}
	return out
}

// writeTour prints scenes under their seed's and chapter's headings.
func writeTour(w io.Writer, scenes []scene.Scene, all int) {
	nameW := 0
	for _, s := range scenes {
		nameW = max(nameW, len(s.Name))
	}
	notes, chapter := "", ""
	for _, s := range scenes {
		if s.Notes != notes {
			if chapter != "" {
				fmt.Fprintln(w)
			}
			notes, chapter = s.Notes, ""
			if title, ok := scene.NotesTitles[s.Notes]; ok {
				fmt.Fprintf(w, "Seed %s: %s\n", s.Notes, title)
			} else if s.Notes != "" {
				fmt.Fprintf(w, "Seed %s\n", s.Notes)
			}
		}
		if s.Chapter != chapter {
			chapter = s.Chapter
			fmt.Fprintf(w, "  %s\n", chapter)
		}
		fmt.Fprintf(w, "    %-*s  %s\n", nameW, s.Name, s.Title)
	}
	fmt.Fprintf(w, "\n%d of %d scenes. lab tour NAME opens one; in it n and N go to the next and previous.\n", len(scenes), all)
}

// openTour opens the dashboard on scene i of the tour (none: -1), or on
// the scene picker.
func openTour(scenes []scene.Scene, i int, picker bool) error {
	opts := tui.Options{Catalog: catalog.All(), Seed: 1, ExportDir: ".", Tour: scenes, TourAt: i, Picker: picker}
	if i >= 0 {
		opts.Panes, opts.Focus = tui.PaneOptionsOf(scenes[i]), scenes[i].Focus
	} else {
		opts.Sims = []string{}
	}
	return runDashboard(opts)
}
