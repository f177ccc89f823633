package tui

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"unicode"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/catalog"
	"github.com/thelab/lab/sims/simtest"
	"github.com/thelab/lab/tui/chart"
)

// screenSizes are the terminals every sim is drawn at: the smallest the
// lab is designed for, a laptop's and a projector's.
var screenSizes = [][2]int{{80, 24}, {140, 45}, {220, 60}}

// walkSteps is how far each sim runs before its screen is drawn: enough
// for curves, few enough to keep the walk fast.
const walkSteps = 12

// walkedSims holds each catalogued sim built from seed 1 and stepped
// walkSteps times, with its snapshot then; built once for every walk, on
// as many goroutines as there are cores (the walks wait for it: built on
// one, it kept the other idle), as lab serve builds its sessions' sims
// side by side. The tests draw the snapshots (immutable);
// TestEveryScreenSizeFits alone takes the sims themselves, to open them
// in a lab.
var walkedSims = sync.OnceValues(func() ([]*simtest.Shared, error) {
	specs := catalog.All().Specs()
	out := make([]*simtest.Shared, len(specs))
	errs := make([]error, len(specs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range next {
				if out[i], errs[i] = simtest.Share(specs[i], nil, 1, walkSteps); errs[i] != nil {
					errs[i] = fmt.Errorf("%s: %w", specs[i].Name, errs[i])
				}
			}
		})
	}
	for i := range specs {
		next <- i
	}
	close(next)
	wg.Wait()
	return out, errors.Join(errs...)
})

// walked is each catalogued sim's snapshot after walkSteps steps from
// seed 1 (walkedSims).
func walked() ([]*sims.Snapshot, error) {
	shared, err := walkedSims()
	if err != nil {
		return nil, err
	}
	var out []*sims.Snapshot
	for _, sh := range shared {
		out = append(out, sh.Snap)
	}
	return out, nil
}

// TestEverySimKeepsItsSeriesApart checks the charts of every sim's frame
// from the walk in truecolor, 256 colours, 16 colours and without colour:
// no two series, curves or classes of a chart share both colour and glyph
// (from each chart's declared data and the styles the renderer gives it),
// and no colour of a class region, as drawn at 60×18, stands for two
// classes (chart.Clashes).
func TestEverySimKeepsItsSeriesApart(t *testing.T) {
	t.Parallel() // a walk of the shared snapshots: the walks run side by side
	snaps, err := walked()
	if err != nil {
		t.Fatal(err)
	}
	profiles := []colorprofile.Profile{colorprofile.TrueColor, colorprofile.ANSI256, colorprofile.ANSI, colorprofile.Ascii}
	for _, s := range snaps {
		for _, c := range s.Frame.Charts {
			for _, p := range profiles {
				for _, bad := range chart.Clashes(c, 60, 18, p) {
					t.Errorf("%s: %s, %s: %s", s.Spec.Name, c.ChartTitle(), p, bad)
				}
			}
		}
	}
}

// roundingNoise matches a number printed at rounding level, 1e-14 or
// below (issue 26.8: such a value reads "≈ 0"), with what comes before and
// after it: a bound (≤ 1e-14·f, a tolerance) and an axis's tick (whose
// curves TestNoChartPlotsRoundingNoise checks, at their own scales) are
// not values.
var roundingNoise = regexp.MustCompile(`(.?.?)\b(\d(?:\.\d+)?e-(?:1[4-9]|[2-9]\d|\d{3}))\b(.?)`)

// notesLine matches a citation of a line of the notes' source file (L1220,
// L357–L361): a pointer into the seed's text, not something a person at
// the screen can follow. Screens cite sections, equations and examples;
// `lab help` keeps the lines in its sources.
var notesLine = regexp.MustCompile(`\bL\d{2,4}\b`)

// checkReadable asserts what the screen shows a person (issue 26.3 and
// 26.8): no control character but the escape sequences of its colours and
// its newlines — no C0, DEL, C1 or bidi control from a sim's text — no
// number at rounding level in its header, notes or tables, and no line
// number of the notes' source.
func checkReadable(t *testing.T, screen string) {
	t.Helper()
	for _, u := range unreadable(screen) {
		t.Error(u.msg)
	}
}

// unreadableItem is something checkReadable fails a screen for, and the
// number at rounding level it shows ("" for another fault).
type unreadableItem struct{ msg, number string }

// unreadable is what checkReadable fails screen for.
func unreadable(screen string) []unreadableItem {
	var out []unreadableItem
	plain := ansi.Strip(screen)
	for i, r := range plain {
		if r != '\n' && (r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)) {
			out = append(out, unreadableItem{msg: fmt.Sprintf("control character %U at byte %d", r, i)})
		}
	}
	for i, line := range strings.Split(plain, "\n") {
		if m := notesLine.FindString(line); m != "" {
			out = append(out, unreadableItem{msg: fmt.Sprintf("line %d cites %s, a line of the notes' source: %q", i+1, m, line)})
		}
		for _, m := range roundingNoise.FindAllStringSubmatch(line, -1) {
			before, number, after := strings.TrimSpace(m[1]), m[2], m[3]
			if strings.ContainsAny(before, "≤<") || strings.ContainsAny(after, "┤┼") {
				continue
			}
			out = append(out, unreadableItem{fmt.Sprintf("line %d shows %s, a number at rounding level: %q", i+1, number, line), number})
		}
	}
	return out
}

// TestNothingCutWithoutEllipsis walks every sim at the three sizes and
// checks the layout rules on what the screen shows: every chart title,
// legend entry and note is whole, or cut at a word boundary and marked
// "…", or left out whole (a legend's "+N", a hidden chart, notes past the
// pane's room).
func TestNothingCutWithoutEllipsis(t *testing.T) {
	t.Parallel() // a walk of the shared snapshots: the walks run side by side
	snaps, err := walked()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range snaps {
		for _, size := range screenSizes {
			for _, zoomed := range []bool{false, true} {
				w, h := size[0], size[1]-1
				if !zoomed { // one of a dashboard's three panes
					w, h = w/2, h/2
				}
				screen := RenderPane(s, w, h, PaneStyle{Focused: true, Mono: true, Zoomed: zoomed})
				flow := flowText(screen)
				for _, item := range textItems(s) {
					if msg := cutWithoutEllipsis(item, flow); msg != "" {
						t.Errorf("%s at %d×%d: %s\n%s", s.Spec.Name, w, h, msg, ansi.Strip(screen))
					}
				}
			}
		}
	}
}

// textItems are the texts of a snapshot that the layout rules govern: chart
// titles, legend entries and notes.
func textItems(s *sims.Snapshot) []string {
	var items []string
	for _, c := range s.Frame.Charts {
		items = append(items, c.ChartTitle())
		switch c := c.(type) {
		case sims.LineChart:
			for _, se := range c.Series {
				items = append(items, se.Name)
			}
		case sims.HistChart:
			for _, cu := range c.Curves {
				items = append(items, cu.Name)
			}
		case sims.CanvasChart:
			items = append(items, c.Legend...)
		case sims.GraphChart:
			items = append(items, c.Legend...)
		}
	}
	return append(items, paneNotes(s)...)
}

var spaces = regexp.MustCompile(`\s+`)

// flowText is what a pane shows under its edge and metrics row as one
// line of text: borders dropped, lines joined by a space, runs of spaces
// collapsed (so a wrapped note reads whole). It is spaces and the borders
// │ ┃ replaced, in one pass: a regexp replacement of every screen of the
// walk was most of this package's layout checks.
func flowText(screen string) string {
	lines := strings.Split(ansi.Strip(screen), "\n")
	var b strings.Builder
	gap := false // a run of blanks (as \s matches them), borders or line ends
	for i, l := range lines[min(2, len(lines)):] {
		if i > 0 {
			gap = true
		}
		for _, r := range l {
			switch r {
			case ' ', '\t', '\n', '\f', '\r', '│', '┃':
				gap = true
				continue
			}
			if gap {
				b.WriteByte(' ')
				gap = false
			}
			b.WriteRune(r)
		}
	}
	if gap {
		b.WriteByte(' ')
	}
	return b.String() + " "
}

// cutWithoutEllipsis says what is wrong with how item shows in flow, or ""
// when it shows whole, not at all, or cut at a word boundary with "…". A
// prefix of the item followed by a space where the item goes on inside a
// word is a cut word; a prefix that ends at a word boundary cannot be told
// from the same words used elsewhere, and passes.
func cutWithoutEllipsis(item, flow string) string {
	item = strings.TrimSpace(spaces.ReplaceAllString(item, " "))
	r := []rune(item)
	if len(r) < 5 || strings.Contains(flow, item) {
		return ""
	}
	longest := 0 // the longest prefix of at least 5 runes the screen shows
	for k := len(r) - 1; k >= 5; k-- {
		if strings.Contains(flow, string(r[:k])) {
			longest = k
			break
		}
	}
	if p := string(r[:longest]); longest == 0 || !strings.Contains(p, " ") && strings.Contains(flow, " "+p+" ") {
		return "" // not drawn, or only its first word, a word of something else
	}
	for k := longest; k >= 1; k-- {
		if !strings.Contains(flow, string(r[:k])+"…") {
			continue
		}
		if strings.ContainsRune(" ,;:·–—(", r[k]) || !strings.Contains(string(r[:k]), " ") {
			return ""
		}
		return fmt.Sprintf("%q cut inside a word: %q", item, string(r[:k])+"…")
	}
	k := longest
	inWord := func(c rune) bool { return unicode.IsLetter(c) || unicode.IsDigit(c) }
	if inWord(r[k-1]) && inWord(r[k]) && strings.Contains(flow, string(r[:k])+" ") {
		return fmt.Sprintf("%q cut without …: shows %q", item, string(r[:k]))
	}
	return ""
}

// TestTerminalTooSmall: below the smallest screen the lab says so once;
// a screen too small for every pane shows the focused one and says what
// size they all need.
func TestTerminalTooSmall(t *testing.T) {
	l := newLab(t, 80, 24, false) // the default dashboard: three panes
	for _, size := range [][2]int{{MinWidth - 1, 30}, {100, MinHeight - 1}, {10, 3}} {
		l.send(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		screen := ansi.Strip(l.m.Render())
		checkScreen(t, l.m.Render(), size[0], size[1])
		want := fmt.Sprintf("terminal too small: need at least %d×%d", MinWidth, MinHeight)
		if strings.Contains(screen, "pane too small") || strings.Count(flowText("\n\n"+screen), "terminal too small") != 1 ||
			size[0] >= len(want) && !strings.Contains(screen, want) {
			t.Errorf("%dx%d:\n%s", size[0], size[1], screen)
		}
	}
	l.send(tea.WindowSizeMsg{Width: 50, Height: 14})
	screen := ansi.Strip(l.m.Render())
	if strings.Contains(screen, "too small") || !strings.Contains(screen, "3 panes need") || strings.Count(screen, "· step ") != 1 { // pane headers, not an x label
		t.Errorf("50x14, three panes: want the focused pane alone and what they need:\n%s", screen)
	}
	l.send(tea.WindowSizeMsg{Width: MinWidth, Height: MinHeight})
	if screen := ansi.Strip(l.m.Render()); strings.Contains(screen, "too small") {
		t.Errorf("%dx%d is the minimum, yet:\n%s", MinWidth, MinHeight, screen)
	}
}

// TestLegendsKeepToTheirCharts walks every sim at the three sizes, as a
// zoom and as one of a dashboard's panes, and checks that charts side by
// side read as separate charts: on every line of a row the neighbours are
// parted by the rule, and on the legend line (a chart's last) the left
// chart's legend ends apart from the right one's, by the rule or by more
// blanks than a legend leaves between its items; and a legend's "+N" never
// runs into the text after it.
func TestLegendsKeepToTheirCharts(t *testing.T) {
	t.Parallel() // a walk of the shared snapshots: the walks run side by side
	snaps, err := walked()
	if err != nil {
		t.Fatal(err)
	}
	sideBySide := 0
	for _, s := range snaps {
		for _, size := range screenSizes {
			for _, zoomed := range []bool{false, true} {
				w, h := size[0]-2, size[1]-4 // inside the border, below the metrics row
				if !zoomed {
					w, h = size[0]/2-2, (size[1]-1)/2-3
				}
				charts, _ := fitCharts(frameCharts(s.Frame), w, h, 0, 0, zoomed)
				lines := chartBlock(charts, w, h, chart.Options{Mono: true}, zoomed)
				cells, _ := layoutCharts(charts, w, h, zoomed)
				for _, l := range lines {
					if m := markerTouches.FindString(ansi.Strip(l)); m != "" {
						t.Errorf("%s at %d×%d: a legend's %q runs into what follows it:\n%s", s.Spec.Name, w, h, m,
							ansi.Strip(strings.Join(lines, "\n")))
					}
				}
				for i := 1; i < len(cells); i++ {
					a, b := cells[i-1], cells[i]
					if b.y != a.y {
						continue
					}
					sideBySide++
					if msg := apart(lines, a.rect, b.rect); msg != "" {
						t.Errorf("%s at %d×%d: %q and %q: %s\n%s", s.Spec.Name, w, h,
							a.chart.ChartTitle(), b.chart.ChartTitle(), msg, ansi.Strip(strings.Join(lines, "\n")))
					}
				}
			}
		}
	}
	if sideBySide == 0 {
		t.Fatal("no sim drew two charts side by side: the walk checks nothing")
	}
}

// markerTouches finds a legend's "+N" (entries left out) with no blank
// after it.
var markerTouches = regexp.MustCompile(`(^|\s)\+\d+[^\s\d.,]`)

// apart says what makes the charts in cells a and b (b right of a, in the
// same row) read as one, or "" when they read apart.
func apart(lines []string, a, b rect) string {
	for y := a.y; y < a.y+a.h; y++ {
		if gap := ansi.Strip(ansi.Cut(lines[y], a.x+a.w, b.x)); !strings.Contains(gap, ruleGlyph) {
			return fmt.Sprintf("line %d: no rule between them: %q", y, gap)
		}
	}
	legend := lines[a.y+a.h-1]
	left := strings.TrimRight(ansi.Strip(ansi.Cut(legend, a.x, a.x+a.w)), " ")
	right := ansi.Strip(ansi.Cut(legend, b.x, b.x+b.w))
	between := ansi.Strip(ansi.Cut(legend, a.x+ansi.StringWidth(left), b.x)) // width, not runes: τ̂ is two
	if len(left) > 0 && !strings.Contains(between, ruleGlyph) && len(between) <= 2 {
		return fmt.Sprintf("legends merge: %q|%q|%q", left, between, right)
	}
	return ""
}

// TestNoChartPlotsRoundingNoise checks item 8 of issue 26 on the charts
// of every sim's frame from the walk: a curve on a log axis never plots a
// value at rounding level of its own largest (RoundingNoise times it, or
// 0, which the axis would floor at 1e-16): a quantity that falls to 0 in
// exact arithmetic is drawn down to its noise floor (sims.NoiseFloor), not
// through the digits of rounding error.
func TestNoChartPlotsRoundingNoise(t *testing.T) {
	t.Parallel() // a walk of the shared snapshots: the walks run side by side
	snaps, err := walked()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range snaps {
		for _, c := range s.Frame.Charts {
			lc, ok := c.(sims.LineChart)
			if !ok || !lc.LogY {
				continue
			}
			for _, se := range lc.Series {
				top := 0.0
				for _, y := range se.Y {
					if !math.IsInf(y, 0) && !math.IsNaN(y) {
						top = math.Max(top, math.Abs(y))
					}
				}
				floor := sims.RoundingNoise * top / 2
				for i, y := range se.Y {
					if a := math.Abs(y); a < floor {
						t.Errorf("%s: %q, series %q: point %d is %.3g, rounding noise of its largest, %.3g", s.Spec.Name, lc.Title, se.Name, i, y, top)
						break
					}
				}
			}
		}
	}
}

// TestSmallPanesDrawTheirCharts: in the panes of a dashboard at 80×24
// (two side by side, 40×22; four, 40×11) every sim draws its picture,
// none says "pane too small": a chart whose full form has no room there
// takes its compact form (ad-graph's graph as a list of its nodes).
func TestSmallPanesDrawTheirCharts(t *testing.T) {
	t.Parallel() // a walk of the shared snapshots: the walks run side by side
	snaps, err := walked()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range snaps {
		for _, sz := range [][2]int{{40, 22}, {40, 11}} {
			screen := RenderPane(s, sz[0], sz[1], PaneStyle{Focused: true, Mono: true})
			if strings.Contains(screen, "too small") {
				t.Errorf("%s at %d×%d says it is too small:\n%s", s.Spec.Name, sz[0], sz[1], screen)
			}
		}
	}
}
