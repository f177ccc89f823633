package tui

import (
	"bytes"
	"encoding/base64"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest/v2"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/catalog"
)

// TestGoldenOverlays pins the parameter editor (at the smallest size the
// lab promises, 80×24, and at 140×45, with a refused value), the key help
// and the reproducing command: each box as drawn for that screen, and the
// bottom bar under it (the dashboard behind them is pinned by
// TestGoldenScreens); the whole screen keeps its size.
func TestGoldenOverlays(t *testing.T) {
	for _, tt := range []struct {
		name string
		w, h int
		sims []string
		keys []string
	}{
		{"editor-80x24", 80, 24, []string{"gd"}, []string{"p", "down", "down", "down", "down", "down", "down", "9", "9", "enter"}},
		{"editor-140x45", 140, 45, []string{"gd", "svm"}, []string{"tab", "p", "down", "down", "down", "down", "down", "right"}},
		{"help-80x24", 80, 24, nil, []string{"?"}},
		{"help-140x45", 140, 45, nil, []string{"?"}},
		{"help-remote-80x24", 80, 24, nil, []string{"?"}},
		{"command-80x24", 80, 24, []string{"gd"}, []string{"p", "right", "enter", "s", "s", "c"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o := Options{Catalog: catalog.All(), Sims: tt.sims, Seed: 1, Paused: true, Remote: strings.Contains(tt.name, "remote")}
			l := newLabWith(t, tt.w, tt.h, false, o)
			l.keys(tt.keys...)
			screen := l.m.Render()
			checkScreen(t, screen, tt.w, tt.h)
			box := l.m.modal.View(l.m.screen())
			if bw, bh := lipgloss.Width(box), lipgloss.Height(box); bw > tt.w || bh > tt.h-1 {
				t.Errorf("the box is %dx%d on a %dx%d screen", bw, bh, tt.w, tt.h)
			}
			golden.RequireEqual(t, ansi.Strip(box+"\n"+l.m.bottomBar()))
		})
	}
}

// editorBox finds the editor's box on the screen: its top and bottom rows
// must both be there (the box keeps its borders at every size).
func editorBox(t *testing.T, screen string) []string {
	t.Helper()
	lines := strings.Split(screen, "\n")
	top := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, "╭───") })
	bottom := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, "╰───") })
	if top < 0 || bottom <= top {
		t.Fatalf("the editor's box has lost a border:\n%s", screen)
	}
	return lines[top : bottom+1]
}

// TestEditorScrollsToTheCursor: on screens from 80×24 down to a few rows
// too short for all of gd's fourteen parameters, moving through every one
// keeps the focused parameter in view and the box bordered, and the full
// help of the focused parameter is shown.
func TestEditorScrollsToTheCursor(t *testing.T) {
	for _, h := range []int{24, 18, 14} {
		l := newLab(t, 80, h, false, "gd")
		l.keys("p")
		ed := l.m.modal.(*paramEditor)
		for i := range ed.params {
			screen := l.screen()
			box := strings.Join(editorBox(t, screen), "\n")
			name := ed.params[i].Name
			if !regexp.MustCompile(`▸ ` + regexp.QuoteMeta(name) + ` `).MatchString(box) {
				t.Fatalf("80×%d: focused %s is not in view:\n%s", h, name, screen)
			}
			if !strings.Contains(box, " fn ") && !strings.Contains(box, "↑") {
				t.Errorf("80×%d at %s: no sign of the parameters scrolled above", h, name)
			}
			l.keys("down")
		}
		if ed.focus != 0 {
			t.Errorf("down past the last parameter: focus %d, want 0 (it wraps)", ed.focus)
		}
	}
	// The whole help of the focused parameter, wrapped, at 80×24.
	l := newLab(t, 80, 24, false, "gd")
	l.keys("p")
	ed := l.m.modal.(*paramEditor)
	for i, p := range ed.params {
		var inside []string
		for _, line := range editorBox(t, l.screen()) {
			if i, j := strings.Index(line, "│"), strings.LastIndex(line, "│"); i >= 0 && j > i {
				inside = append(inside, line[i+len("│"):j])
			}
		}
		words := strings.Fields(strings.Join(inside, " "))
		if !strings.Contains(strings.Join(words, " "), strings.Join(strings.Fields(p.Explained()), " ")) {
			t.Errorf("the help of %s is not shown whole:\n%s", p.Name, l.screen())
		}
		if i < len(ed.params)-1 {
			l.keys("down")
		}
	}
}

// TestEditorTypingAndChoices: typing replaces the selected value, a
// cursor key keeps it and edits it, ←/→ cycle a choice (and a Bool), and
// the bottom bar shows the editor's keys, not the dashboard's.
func TestEditorTypingAndChoices(t *testing.T) {
	l := newLab(t, 120, 40, false, "gd")
	l.keys("p")
	ed := l.m.modal.(*paramEditor)
	bar := ansi.Strip(l.m.bottomBar())
	for _, want := range []string{"move", "←/→ choose", "enter apply", "esc cancel"} {
		if !strings.Contains(bar, want) {
			t.Errorf("bottom bar %q lacks %q", bar, want)
		}
	}
	if strings.Contains(bar, "play/pause") {
		t.Errorf("the bottom bar shows the dashboard's keys under the editor: %q", bar)
	}
	value := func(name string) string {
		i := slices.IndexFunc(ed.params, func(p sims.Param) bool { return p.Name == name })
		return ed.fields[i].in.Value()
	}
	// fn is a choice: → and ← step through it.
	l.keys("right")
	if got := value("fn"); got != "rosenbrock" {
		t.Errorf("→ on fn: %q", got)
	}
	l.keys("left", "left")
	if got := value("fn"); got != "logistic" {
		t.Errorf("← twice from rosenbrock: %q, want it to wrap to logistic", got)
	}
	// kappa: typing replaces 10 at once.
	l.keys("down", "3", "5")
	if got := value("kappa"); got != "35" {
		t.Errorf("typing 35 over kappa's 10: %q", got)
	}
	if strings.Contains(ansi.Strip(l.m.bottomBar()), "←/→") {
		t.Error("the bottom bar offers ←/→ on a number")
	}
	// A cursor key keeps the value: ← then 1 edits 35 into 315.
	l.keys("down", "up", "left", "1")
	if got := value("kappa"); got != "315" {
		t.Errorf("← then 1 in 35: %q, want 315", got)
	}
	// Backspace on a selected value clears it.
	l.keys("down", "backspace", "5", "0")
	if got := value("n"); got != "50" {
		t.Errorf("backspace, 50 over n: %q", got)
	}
	// A Bool cycles on|off.
	var boolPane *paramEditor
	for _, spec := range catalog.All().Specs() {
		for _, p := range spec.Params {
			if slices.Equal(p.Choices, []string{"on", "off"}) || slices.Equal(p.Choices, []string{"off", "on"}) {
				bl := newLab(t, 120, 40, false, spec.Name)
				bl.keys("p")
				boolPane = bl.m.modal.(*paramEditor)
				for boolPane.params[boolPane.focus].Name != p.Name {
					bl.keys("down")
				}
				before := boolPane.fields[boolPane.focus].in.Value()
				bl.keys("right")
				after := boolPane.fields[boolPane.focus].in.Value()
				if before == after || !slices.Contains(p.Choices, after) {
					t.Errorf("%s.%s: → turned %q into %q", spec.Name, p.Name, before, after)
				}
				break
			}
		}
		if boolPane != nil {
			break
		}
	}
	if boolPane == nil {
		t.Error("no sim has an on|off parameter to try")
	}
	// Applying: fn = logistic, kappa = 315, n = 50 run.
	l.keys("enter")
	v := l.snap(0).Values
	if v.Text("fn") != "logistic" || v.Text("kappa") != "315" || v.Text("n") != "50" {
		t.Errorf("applied: %s", v.Summary(false))
	}
}

// TestEditorTakesAPaste: a paste (bracketed, one message) replaces a
// selected value as typing does, and edits at the cursor otherwise.
func TestEditorTakesAPaste(t *testing.T) {
	l := newLab(t, 120, 40, false, "gd")
	l.keys("p", "down") // kappa, selected
	ed := l.m.modal.(*paramEditor)
	l.send(tea.PasteMsg{Content: "25"})
	if got := ed.fields[ed.focus].in.Value(); got != "25" {
		t.Fatalf("pasting 25 over kappa's 10: %q", got)
	}
	l.keys("left")
	l.send(tea.PasteMsg{Content: "7"})
	if got := ed.fields[ed.focus].in.Value(); got != "275" {
		t.Fatalf("pasting 7 before the last digit of 25: %q", got)
	}
	l.keys("enter")
	if v := l.snap(0).Values; v.Text("kappa") != "275" {
		t.Errorf("applied: %s", v.Summary(false))
	}
}

// TestCatalogueRanksNamesFirst: "kme" finds kmeans, and only it; "gd"
// puts gd first.
func TestCatalogueRanksNamesFirst(t *testing.T) {
	l := newLab(t, 120, 40, false, "mh")
	for _, tt := range []struct{ term, first string }{{"kme", "kmeans"}, {"gd", "gd"}, {"svm", "svm"}} {
		l.keys("a", "/")
		for _, r := range tt.term {
			l.keys(string(r))
		}
		c := l.m.modal.(*catalogModal)
		items := c.list.VisibleItems()
		if len(items) == 0 || items[0].(catalogItem).spec.Name != tt.first {
			t.Errorf("%q: first of %d is not %s", tt.term, len(items), tt.first)
		}
		if tt.term == "kme" && len(items) != 1 {
			t.Errorf("kme: %d matches, want kmeans alone", len(items))
		}
		l.keys("enter", "esc", "esc")
		if l.m.modal != nil {
			t.Fatal("esc did not close the catalogue")
		}
	}
}

// TestPaneOptions: the command line's per-pane settings reach the panes:
// parameters, seed, data, steps; panes without a seed count up from the
// session's.
func TestPaneOptions(t *testing.T) {
	data := &sims.Table{Name: "my points.csv", Columns: []string{"x", "y"}}
	for i := range 60 {
		data.Rows = append(data.Rows, []float64{float64(i%7) + 0.1*float64(i%3), float64(i%5) * 1.3})
	}
	seven := uint64(7)
	l := newLabWith(t, 140, 45, false, Options{Catalog: catalog.All(), Seed: 3, Paused: true, Panes: []PaneOptions{
		{Sim: "em-gmm", Set: map[string]string{"k": "4"}, Seed: &seven, Data: data, Steps: 2},
		{Sim: "mh"},
		{Sim: "gd", Set: map[string]string{"fn": "rosenbrock"}},
	}})
	l.settle()
	em, mh, gd := l.snap(0), l.snap(1), l.snap(2)
	if em.Values.Text("k") != "4" || em.Seed != 7 || em.Frame.Step != 2 || em.State != sims.Paused {
		t.Errorf("em-gmm: %s, seed %d, step %d, %s", em.Values.Summary(false), em.Seed, em.Frame.Step, em.State)
	}
	if mh.Seed != 3 || gd.Seed != 4 || gd.Values.Text("fn") != "rosenbrock" {
		t.Errorf("mh seed %d, gd seed %d (want 3, 4), gd %s", mh.Seed, gd.Seed, gd.Values.Summary(false))
	}
	if s := l.screen(); !strings.Contains(s, "seed 7") || !strings.Contains(s, "seed 3") || !strings.Contains(s, "seed 4") {
		t.Errorf("the panes' edges do not show their seeds:\n%s", s)
	}
	if got, want := RunCommand(em, data), "lab run em-gmm --seed 7 --set k=4 --data 'my points.csv' --steps 2"; got != want {
		t.Errorf("command: %q, want %q", got, want)
	}
	for _, bad := range []PaneOptions{{Sim: "gd", Set: map[string]string{"lr": "99"}}, {Sim: "gd", Data: data}, {Sim: "nope"}} {
		if m, err := New(Options{Catalog: catalog.All(), Panes: []PaneOptions{bad}}); err == nil {
			m.Close()
			t.Errorf("%+v was accepted", bad)
		}
	}
}

// TestWholeDashboardKeys: P pauses every running pane and then resumes
// them all; > and < move every pane's speed one notch.
func TestWholeDashboardKeys(t *testing.T) {
	l := newLab(t, 140, 45, false, "gd", "mh", "em-gmm")
	l.keys("tab", "space") // mh runs, the others are paused
	l.keys("P")
	for i := range l.m.panes {
		if s := l.snap(i); s.State == sims.Running {
			t.Errorf("P: pane %d still runs", i)
		}
	}
	l.keys("P")
	for i := range l.m.panes {
		if s := l.snap(i); s.State != sims.Running && !s.State.Done() {
			t.Errorf("P again: pane %d is %s", i, s.State)
		}
	}
	speeds := func() []int {
		var out []int
		for _, p := range l.m.panes {
			out = append(out, p.speedIdx)
		}
		return out
	}
	before := speeds()
	l.keys("<")
	after := speeds()
	for i := range before {
		if after[i] != max(0, before[i]-1) || sims.Speeds[after[i]] != l.snap(i).Speed {
			t.Errorf("<: pane %d speed index %d → %d (runner at %v)", i, before[i], after[i], l.snap(i).Speed)
		}
	}
	l.keys(">", ">")
	for i, s := range speeds() {
		if s != min(len(sims.Speeds)-1, after[i]+2) {
			t.Errorf(">>: pane %d speed index %d", i, s)
		}
	}
}

// TestExportWritesFilesWithoutOverwriting: e writes the focused pane as
// plain text, ANSI colour and series CSV in the export directory, under
// names that never overwrite; the flash gives the path.
func TestExportWritesFilesWithoutOverwriting(t *testing.T) {
	dir := t.TempDir()
	l := newLabWith(t, 120, 40, false, Options{Catalog: catalog.All(), Sims: []string{"gd", "mh"}, Seed: 1, Paused: true, ExportDir: dir})
	l.keys("s", "s", "e", "e")
	base := filepath.Join(dir, "lab-gd-seed1-step2")
	for _, suffix := range []string{"", "-2"} {
		txt, err := os.ReadFile(base + suffix + ".txt")
		if err != nil {
			t.Fatal(err)
		}
		ans, err1 := os.ReadFile(base + suffix + ".ans")
		csv, err2 := os.ReadFile(base + suffix + ".csv")
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if strings.Contains(string(txt), "\x1b") || !strings.Contains(string(txt), "gd · PAUSED · step 2 · seed 1") {
			t.Errorf("%s.txt is not the plain pane:\n%s", suffix, txt)
		}
		if !strings.Contains(string(ans), "\x1b[") || ansi.Strip(string(ans)) == string(ans) {
			t.Errorf("%s.ans has no colour", suffix)
		}
		if !strings.HasPrefix(string(csv), "chart,series,x,y,class\n") || !strings.Contains(string(csv), "f−f*") {
			t.Errorf("%s.csv:\n%.300s", suffix, csv)
		}
		// The text is the pane at its size on screen (half of 120 wide).
		lines := strings.Split(strings.TrimSuffix(string(txt), "\n"), "\n")
		w, h := l.m.paneSize(0)
		if len(lines) != h || ansi.StringWidth(lines[0]) != w {
			t.Errorf("%s.txt is %d lines of %d, want %dx%d", suffix, len(lines), ansi.StringWidth(lines[0]), w, h)
		}
	}
	if !strings.Contains(l.m.flash, "lab-gd-seed1-step2-2.txt") || !strings.Contains(l.m.flash, dir) {
		t.Errorf("flash %q does not say where", l.m.flash)
	}
}

// TestRemoteExportGoesToTheClipboard drives the real program in a remote
// session: e puts the plain pane, and E its series CSV, on the visitor's
// clipboard as OSC 52 sequences; nothing is written to disk.
func TestRemoteExportGoesToTheClipboard(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	m, err := New(Options{Catalog: catalog.All(), Sims: []string{"gd"}, Seed: 1, Paused: true, Remote: true, ExportDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(100, 30),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.Ascii)))
	osc52 := regexp.MustCompile(`\x1b\]52;c;([A-Za-z0-9+/=]*)(?:\x07|\x1b\\)`)
	var out bytes.Buffer
	copied := func(key string) string {
		t.Helper()
		tm.Send(press(t, key))
		var text string
		teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
			out.Write(b)
			if m := osc52.FindAllSubmatch(out.Bytes(), -1); m != nil {
				raw, err := base64.StdEncoding.DecodeString(string(m[len(m)-1][1]))
				if err == nil {
					text = string(raw)
					out.Reset()
					return true
				}
			}
			return false
		}, teatest.WithDuration(5*time.Second))
		return text
	}
	if pane := copied("e"); !strings.Contains(pane, "gd · PAUSED · step 0 · seed 1") || strings.Contains(pane, "\x1b") {
		t.Errorf("e copied:\n%s", pane)
	}
	if csv := copied("E"); !strings.HasPrefix(csv, "chart,series,x,y,class\n") {
		t.Errorf("E copied:\n%.200s", csv)
	}
	if cmd := copied("c"); cmd != "lab run gd --seed 1" {
		t.Errorf("c copied %q", cmd)
	}
	tm.Send(press(t, "q"))
	tm.Send(press(t, "q"))
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
	if files, _ := os.ReadDir(dir); len(files) > 0 {
		t.Errorf("a remote export wrote %d files", len(files))
	}
}

// TestEveryKeyIsListed: the `?` screen lists every key of the dashboard's
// key map.
func TestEveryKeyIsListed(t *testing.T) {
	k := newKeyMap(false)
	var listed []string
	for _, s := range k.sections() {
		for _, e := range s.entries {
			listed = append(listed, e.keys)
		}
	}
	text := strings.Join(listed, " ")
	for _, b := range []string{"space", "s/.", "+/=", "-/_", "r", "R", "p", "enter", "x", "c", "e", "P", ">", "<", "tab",
		"shift+tab", "hjkl", "a", "?", "q/ctrl+c", "/", "esc", "ctrl+c", "←/→"} {
		if !strings.Contains(text, b) {
			t.Errorf("the key help lacks %q", b)
		}
	}
	if got := KeysText(); !strings.Contains(got, "The parameter editor (p):") || !strings.Contains(got, "ctrl+c") {
		t.Errorf("KeysText:\n%s", got)
	}
}

// TestExportNeedsADirectory: options that name neither a directory nor a
// remote session write nothing (a server that forgot Remote is safe).
func TestExportNeedsADirectory(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	l := newLab(t, 120, 40, false, "gd")
	l.keys("e")
	if files, _ := os.ReadDir(dir); len(files) > 0 || !strings.Contains(l.m.flash, "export is off") {
		t.Errorf("export without a directory: %d files, flash %q", len(files), l.m.flash)
	}
}

// TestRoundingNoiseReadsZero (issue 26.8): a metric fallen to rounding
// error at its scale reads ≈ 0 in the pane's header, an exact 0 reads 0,
// and a small value that is not noise keeps its digits.
func TestRoundingNoiseReadsZero(t *testing.T) {
	snap := &sims.Snapshot{Frame: sims.Frame{Metrics: []sims.Metric{
		{Name: "f", Value: 4.162e-17, Scale: 10},
		{Name: "g", Value: 0, Scale: 10},
		{Name: "h", Value: 7.25e-10, Scale: 10},
	}}}
	got := ansi.Strip(metricsLine(snap, 80, PaneStyle{Mono: true}))
	if want := "f ≈ 0   g 0   h 7.250e-10"; got != want {
		t.Errorf("metrics line %q, want %q", got, want)
	}
}

// TestZoomSaysSo (issue 26.9): at 80 columns the bottom bar begins with
// play, parameters, zoom, add and help; in the zoom the pane's title says
// "zoomed" and the bar says enter goes back to all panes.
func TestZoomSaysSo(t *testing.T) {
	l := newLab(t, 80, 24, true, "gd", "mh")
	lines := strings.Split(l.screen(), "\n")
	bar := lines[len(lines)-1]
	if !strings.HasPrefix(bar, "space play/pause • p parameters • enter zoom • a add a sim • ? all keys") {
		t.Errorf("bottom bar at 80 columns: %q", bar)
	}
	l.keys("enter")
	lines = strings.Split(l.screen(), "\n")
	if !strings.Contains(lines[0], "gd · zoomed ·") || !strings.Contains(lines[len(lines)-1], "enter all panes") {
		t.Errorf("zoomed: title %q, bar %q", lines[0], lines[len(lines)-1])
	}
	l.keys("enter")
	lines = strings.Split(l.screen(), "\n")
	if strings.Contains(l.screen(), "zoomed") || !strings.Contains(lines[len(lines)-1], "enter zoom") {
		t.Errorf("back from the zoom: bar %q", lines[len(lines)-1])
	}
}

// TestOverlayDimsTheDashboard (issue 26.9): under an overlay the panes are
// drawn faint and without colour, so that their edges beside the box read
// as background; the bottom line keeps the overlay's keys as they are.
func TestOverlayDimsTheDashboard(t *testing.T) {
	l := newLab(t, 80, 24, false, "gd", "mh")
	l.keys("a")
	l.m.Update(tickMsg{})
	lines := strings.Split(l.m.Render(), "\n")
	if top := lines[0]; !strings.HasPrefix(top, "\x1b[2m") || strings.Contains(top, "38;") || !strings.Contains(ansi.Strip(top), "gd") {
		t.Errorf("the pane's title behind the catalogue: %q", top)
	}
	if bar := ansi.Strip(lines[len(lines)-1]); !strings.Contains(bar, "filter") {
		t.Errorf("bottom line under the catalogue: %q", bar)
	}
}

// TestTitleKeepsWholeParts: a pane's title drops its last parts whole,
// with " …", rather than cutting one mid-word ("seed…", "sp…").
func TestTitleKeepsWholeParts(t *testing.T) {
	snap := &sims.Snapshot{Spec: &sims.Spec{Name: "em-gmm"}, State: sims.Converged, Seed: 12, Speed: 5,
		Frame: sims.Frame{Step: 4}}
	for _, tt := range []struct {
		room int
		want string
	}{
		{60, "em-gmm · CONVERGED · step 4 · seed 12 · speed 5"},
		{40, "em-gmm · CONVERGED · step 4 · seed 12 …"},
		{33, "em-gmm · CONVERGED · step 4 …"},
		{3, "em-gmm"},
	} {
		if got := ansi.Strip(statusTitle(snap, PaneStyle{Mono: true}, tt.room)); got != tt.want {
			t.Errorf("room %d: %q, want %q", tt.room, got, tt.want)
		}
	}
	// A run on --data names its file, without the directory, next to
	// the sim's name: the pane shows whose data.
	snap.Data = &sims.Table{Name: "/home/u/three.csv"}
	if got, want := ansi.Strip(statusTitle(snap, PaneStyle{Mono: true}, 52)), "em-gmm · three.csv · CONVERGED · step 4 · seed 12 …"; got != want {
		t.Errorf("on a file: %q, want %q", got, want)
	}
}
