package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/thelab/lab/scene"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/catalog"
)

// tourLab opens scene i of the built-in tour, paused.
func tourLab(t *testing.T, w, h, i int) (*lab, []scene.Scene) {
	t.Helper()
	tour := scene.Builtins()
	sc := tour[i]
	return newLabWith(t, w, h, true, Options{Catalog: catalog.All(), Seed: 1, Paused: true,
		Panes: PaneOptionsOf(sc), Focus: sc.Focus, Tour: tour, TourAt: i}), tour
}

// TestTourKeys: a scene opens with its panes, its focus and its caption
// above them; n and N walk the tour (round), esc hides the caption and
// gives its rows back to the panes.
func TestTourKeys(t *testing.T) {
	l, tour := tourLab(t, 120, 36, 0)
	names := func() []string {
		var out []string
		for _, p := range l.m.panes {
			out = append(out, p.snap.Spec.Name)
		}
		return out
	}
	want := func(i int) {
		t.Helper()
		sc := tour[i]
		got := names()
		if len(got) != len(sc.Panes) || l.m.focus != sc.Focus || l.m.tourAt != i {
			t.Fatalf("scene %s: panes %v, focus %d, at %d; want %d panes, focus %d", sc.Name, got, l.m.focus, l.m.tourAt, len(sc.Panes), sc.Focus)
		}
		for k, p := range sc.Panes {
			if got[k] != p.Sim {
				t.Fatalf("scene %s: pane %d is %s, want %s", sc.Name, k, got[k], p.Sim)
			}
		}
		if first := strings.SplitN(l.screen(), "\n", 2)[0]; !strings.Contains(first, sc.Title[:min(len(sc.Title), 20)]) {
			t.Fatalf("scene %s: first line %q, want its title", sc.Name, first)
		}
	}
	want(0)
	l.keys("n")
	want(1 % len(tour))
	l.keys("N", "N")
	want(len(tour) - 1)
	rows := l.m.captionRows()
	h0 := l.m.rects()[0].h
	l.keys("esc")
	if l.m.captionRows() != 0 || l.m.rects()[0].h <= h0 || rows == 0 {
		t.Errorf("esc: caption rows %d → %d, first pane %d → %d rows", rows, l.m.captionRows(), h0, l.m.rects()[0].h)
	}
}

// TestScenesRender: every built-in scene opens, and its dashboard at 80×24
// and 140×45 shows the caption and every pane, readable.
func TestScenesRender(t *testing.T) {
	t.Parallel() // each scene builds its own sims: the scenes run side by side
	for i, sc := range scene.Builtins() {
		t.Run(sc.Name, func(t *testing.T) {
			t.Parallel()
			sceneRenders(t, sc, i)
		})
	}
}

// sceneRenders checks the i-th built-in scene, sc, for TestScenesRender.
func sceneRenders(t *testing.T, sc scene.Scene, i int) {
	l, _ := tourLab(t, 80, 24, i)
	for _, size := range [][2]int{{80, 24}, {140, 45}} {
		l.send(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		screen := l.screen()
		checkReadable(t, screen)
		lines := strings.Split(screen, "\n")
		if !strings.Contains(lines[0], "scene ") && !strings.Contains(lines[0], "/") {
			t.Errorf("%s at %dx%d: no tour line on top: %q", sc.Name, size[0], size[1], lines[0])
		}
		for _, p := range sc.Panes {
			if !strings.Contains(screen, p.Sim) {
				t.Errorf("%s at %dx%d: pane %s not shown:\n%s", sc.Name, size[0], size[1], p.Sim, screen)
			}
		}
		if strings.Contains(screen, "too small") {
			t.Errorf("%s at %dx%d: says too small:\n%s", sc.Name, size[0], size[1], screen)
		}
	}
}

// TestScenePicker: t opens the tour's picker on the scene open; a filter
// and enter open the scene found, in place of the panes.
func TestScenePicker(t *testing.T) {
	tour := scene.Builtins()
	l := newLabWith(t, 120, 36, true, Options{Catalog: catalog.All(), Sims: []string{"gd"}, Seed: 1, Paused: true,
		Tour: tour, TourAt: -1})
	l.keys("t")
	if _, ok := l.m.modal.(*scenePicker); !ok {
		t.Fatalf("t opened %T", l.m.modal)
	}
	if !strings.Contains(l.screen(), tour[0].Name) {
		t.Errorf("the picker does not list %s:\n%s", tour[0].Name, l.screen())
	}
	l.keys("/")
	for _, r := range "sinkhorn-underflow" {
		l.keys(string(r))
	}
	l.keys("enter", "enter")
	if l.m.modal != nil || l.m.tourAt < 0 || tour[l.m.tourAt].Name != "sinkhorn-underflow" || len(l.m.panes) != len(tour[l.m.tourAt].Panes) {
		t.Fatalf("after enter: modal %T, scene %d, %d panes", l.m.modal, l.m.tourAt, len(l.m.panes))
	}
}

// TestPickerChapters: the picker opened first (lab tour) lists the tour
// over an empty dashboard; tab goes to the next chapter's first scene and
// shift+tab back, so a chapter's demo is two keys from lab tour.
func TestPickerChapters(t *testing.T) {
	tour := scene.Builtins()
	l := newLabWith(t, 120, 36, true, Options{Catalog: catalog.All(), Sims: []string{}, Seed: 1, Paused: true,
		Tour: tour, TourAt: -1, Picker: true})
	p, ok := l.m.modal.(*scenePicker)
	if !ok || len(l.m.panes) != 0 {
		t.Fatalf("opened %T with %d panes", l.m.modal, len(l.m.panes))
	}
	next := slices.IndexFunc(tour, func(s scene.Scene) bool { return s.Chapter != tour[0].Chapter })
	l.keys("tab")
	if p.list.Index() != next {
		t.Fatalf("tab went to %d, want %d (%s)", p.list.Index(), next, tour[next].Chapter)
	}
	l.keys("shift+tab")
	if p.list.Index() != 0 {
		t.Fatalf("shift+tab went to %d, want 0", p.list.Index())
	}
	l.keys("shift+tab") // from the first chapter to the last one's first scene
	last := len(tour) - 1
	for last > 0 && chapterOf(tour[last-1]) == chapterOf(tour[last]) {
		last--
	}
	if p.list.Index() != last {
		t.Fatalf("shift+tab from the first went to %d, want %d", p.list.Index(), last)
	}
	l.keys("tab", "tab", "enter")
	if l.m.modal != nil || l.m.tourAt != next || len(l.m.panes) != len(tour[next].Panes) {
		t.Fatalf("tab tab enter from the last chapter: modal %T, scene %d, want %d", l.m.modal, l.m.tourAt, next)
	}
	l.keys("t", "esc")
	if l.m.modal != nil {
		t.Fatalf("esc left %T open", l.m.modal)
	}
}

// TestTourSceneStepsAndData: a scene opened by n (a teacher's, read by
// scene.Load) opens its panes paused after their steps and on their data.
func TestTourSceneStepsAndData(t *testing.T) {
	tab, err := sims.LoadCSV(nil, "../testdata/blobs.csv")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scene.Parse(strings.NewReader("name lesson\npane gd --seed=2 --steps=3\npane em-gmm --data=blobs.csv\n"), "lesson.scene")
	if err != nil {
		t.Fatal(err)
	}
	sc.Panes[1].Table = tab
	l := newLabWith(t, 120, 36, true, Options{Catalog: catalog.All(), Sims: []string{"mh"}, Seed: 1, Paused: true,
		Tour: []scene.Scene{sc}, TourAt: -1})
	l.keys("n")
	if len(l.m.panes) != 2 {
		t.Fatalf("%d panes", len(l.m.panes))
	}
	if s := l.snap(0); s.Frame.Step != 3 || s.Seed != 2 || s.State != sims.Paused {
		t.Errorf("gd at step %d, seed %d, %v; want step 3, seed 2, paused", s.Frame.Step, s.Seed, s.State)
	}
	if s := l.snap(1); s.Data != tab {
		t.Errorf("em-gmm runs on %v, want the scene's table", s.Data)
	}
}

// TestSaveOpenRoundTrips: a dashboard saved as a scene (S) and opened
// again (lab open) builds every sim with the same configuration and shows
// it at the same step: each sim, stepped, with a parameter set by hand
// where it has one, its seed and speed kept. The sims are the
// catalogue's specs with a New that records the Config it is given (a
// sim's frames follow from its Config: the sims' packages test that
// they are deterministic), so the round trip is checked for every
// parameter list without training 84 models twice.
func TestSaveOpenRoundTrips(t *testing.T) {
	var specs []*sims.Spec
	for _, s := range catalog.All().Specs() {
		spec := *s
		spec.New = func(c sims.Config) (sims.Sim, error) { return &configSim{cfg: c}, nil }
		specs = append(specs, &spec)
	}
	cat, err := sims.NewCatalog(specs...)
	if err != nil {
		t.Fatal(err)
	}
	for _, spec := range cat.Specs() {
		t.Run(spec.Name, func(t *testing.T) {
			t.Parallel()
			seed := uint64(7)
			speed := 2.0
			set := map[string]string{}
			if len(spec.Params) > 0 { // its first parameter, set by hand to its default
				p0 := spec.Params[0].Name
				set[p0] = spec.Defaults().Text(p0)
			}
			a := newLabWith(t, 100, 30, true, Options{Catalog: cat, Seed: 1, Paused: true,
				Panes: []PaneOptions{{Sim: spec.Name, Set: set, Seed: &seed, Speed: &speed, Steps: 3}}})
			saved := a.m.SceneOf()
			sc, err := scene.Parse(strings.NewReader(saved.Format()), "saved")
			if err != nil {
				t.Fatalf("%v\n%s", err, saved.Format())
			}
			b := newLabWith(t, 100, 30, true, Options{Catalog: cat, Seed: 1, Paused: true, Panes: PaneOptionsOf(sc), Focus: sc.Focus})
			fa, fb := a.snap(0), b.snap(0)
			if fa.Seed != fb.Seed || fa.Frame.Step != fb.Frame.Step || b.m.panes[0].speedIdx != a.m.panes[0].speedIdx {
				t.Fatalf("seed %d → %d, step %d → %d, speed %d → %d", fa.Seed, fb.Seed, fa.Frame.Step, fb.Frame.Step,
					a.m.panes[0].speedIdx, b.m.panes[0].speedIdx)
			}
			for k, v := range set {
				if got := fb.Values.Explicit()[k]; got != v {
					t.Errorf("%s set by hand to %q, opened as %q", k, v, got)
				}
			}
			if !slices.Equal(fa.Frame.Text, fb.Frame.Text) {
				t.Errorf("built with %q, opened with %q", fa.Frame.Text, fb.Frame.Text)
			}
		})
	}
}

// configSim is a test sim that shows the Config it was built with.
type configSim struct {
	cfg  sims.Config
	step int
}

func (s *configSim) Step() error { s.step++; return nil }
func (s *configSim) Frame() sims.Frame {
	return sims.Frame{Step: s.step, Text: []string{s.cfg.Values.Summary(false), fmt.Sprintf("seed %d", s.cfg.Seed)}}
}
func (s *configSim) Result() map[string]any { return nil }

// TestSaveKey: S writes the dashboard as a scene file in the export
// folder, never over another; a visitor's goes to their clipboard.
func TestSaveKey(t *testing.T) {
	dir := t.TempDir()
	l := newLabWith(t, 100, 30, true, Options{Catalog: catalog.All(), Sims: []string{"gd", "mh"}, Seed: 1, Paused: true, ExportDir: dir})
	l.keys("S", "S")
	for _, name := range []string{"lab-dashboard.scene", "lab-dashboard-2.scene"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		sc, err := scene.Parse(strings.NewReader(string(b)), name)
		if err != nil || len(sc.Panes) != 2 || sc.Panes[1].Sim != "mh" || !sc.Panes[1].SeedSet {
			t.Fatalf("%s: %v\n%s", name, err, b)
		}
	}
	r := newLabWith(t, 100, 30, true, Options{Catalog: catalog.All(), Sims: []string{"gd"}, Seed: 1, Paused: true, Remote: true, ExportDir: dir})
	if cmd := r.m.save(); cmd == nil {
		t.Fatal("a visitor's save sent nothing to the clipboard")
	}
	if files, _ := os.ReadDir(dir); len(files) != 2 {
		t.Errorf("a visitor's save wrote a file: %d files", len(files))
	}
}
