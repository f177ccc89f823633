package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/thelab/lab/scene"
	"github.com/thelab/lab/sims/catalog"
	"github.com/thelab/lab/tui"
)

// tourCmd lists the built-in scenes grouped by the notes' seed files and
// chapters (those matching every word given), or opens the one named: its
// panes, focus and caption, with n and N walking the tour from there.
func tourCmd(args []string, stdout io.Writer) error {
	scenes := scene.Builtins()
	if len(args) == 1 && !strings.HasPrefix(args[0], "-") {
		if i := slices.IndexFunc(scenes, func(s scene.Scene) bool { return s.Name == args[0] }); i >= 0 {
			return openTour(scenes, i)
		}
	}
	for _, a := range args {
		if strings.HasPrefix(a, "-") && a != "-" {
			if a == "-h" || a == "--help" {
				fmt.Fprint(stdout, tourUsage)
				return nil
			}
			return usageErr("tour: unknown flag %s (usage: lab tour [WORDS | NAME])", a)
		}
	}
	shown := matchScenes(scenes, args)
	if len(shown) == 0 {
		return usageErr("no scene matches %q (lab tour lists them all)", strings.Join(args, " "))
	}
	writeTour(stdout, shown, len(scenes))
	return nil
}

const tourUsage = `Usage: lab tour [WORDS | NAME]

  lab tour            the scenes, grouped by the notes' seed files and chapters
  lab tour WORDS      the scenes whose name, title, chapter or caption has every word
  lab tour NAME       open a scene: its panes side by side, its caption above them;
                      n and N go to the next and previous scene, esc hides the caption
`

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
			if notes != "" {
				fmt.Fprintln(w)
			}
			notes, chapter = s.Notes, ""
			fmt.Fprintf(w, "Seed %s: %s\n", s.Notes, scene.NotesTitles[s.Notes])
		}
		if s.Chapter != chapter {
			chapter = s.Chapter
			fmt.Fprintf(w, "  %s\n", chapter)
		}
		fmt.Fprintf(w, "    %-*s  %s\n", nameW, s.Name, s.Title)
	}
	fmt.Fprintf(w, "\n%d of %d scenes. lab tour NAME opens one; in it n and N go to the next and previous.\n", len(scenes), all)
}

// openTour opens the dashboard on scene i of the tour.
func openTour(scenes []scene.Scene, i int) error {
	sc := scenes[i]
	return runDashboard(tui.Options{Catalog: catalog.All(), Seed: 1, ExportDir: ".",
		Panes: tui.PaneOptionsOf(sc), Focus: sc.Focus, Tour: scenes, TourAt: i})
}
