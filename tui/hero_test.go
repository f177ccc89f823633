package tui

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/tui/chart"
)

// namedLegendWidth is the pane width from which the primary's legend must
// name every entry.
const namedLegendWidth = 60

// maxBlankRows is how many rows (or a sixth of them, if more) of a zoomed
// chart block at the largest screen size may go unused across its whole
// width (blankRows).
const maxBlankRows = 4

// legendMore is a legend's "+N" for entries left out.
var legendMore = regexp.MustCompile(`(^|\s)\+\d+(\s|$)`)

// TestHeroGetsTheSpace walks every sim at the three screen sizes, zoomed
// and as each differently sized pane of the default three-pane dashboard,
// and checks that the sim's primary chart (sims.Frame.Primary) gets the
// space first: it is shown; its cell is at least as large as any other
// chart's (or it is bars, a table or a graph drawn full width with all
// the rows it can use, chart.MaxRows); from namedLegendWidth columns its
// legend names every entry, no "+N" (but in the zoom's fallback grid of
// equal cells, which keeps every chart at the cost of the hero's room);
// and at the largest size the zoom leaves no more than a few rows of its
// chart block (maxBlankRows) unused across its width while a chart in it would
// draw larger (bars thicker, a table or numbers spaced out, pixels
// bigger) given the rows.
func TestHeroGetsTheSpace(t *testing.T) {
	t.Parallel() // a walk of the shared snapshots: the walks run side by side
	snaps, err := walked()
	if err != nil {
		t.Fatal(err)
	}
	type pane struct {
		w, h   int
		zoomed bool
	}
	for _, size := range screenSizes {
		panes := []pane{{size[0], size[1] - 1, true}}
		seen := map[[2]int]bool{}
		for _, r := range gridLayout(3, size[0], size[1]-1) {
			if !seen[[2]int{r.w, r.h}] {
				seen[[2]int{r.w, r.h}] = true
				panes = append(panes, pane{r.w, r.h, false})
			}
		}
		largest := size == screenSizes[len(screenSizes)-1]
		for _, s := range snaps {
			if len(s.Frame.Charts) == 0 {
				continue
			}
			if p := s.Frame.Primary; p < 0 || p >= len(s.Frame.Charts) {
				t.Errorf("%s: Primary %d names none of its %d charts", s.Spec.Name, p, len(s.Frame.Charts))
			}
			for _, pn := range panes {
				st := PaneStyle{Focused: true, Mono: true, Zoomed: pn.zoomed}
				p := planPane(s, pn.w-2, pn.h-2, st)
				where := fmt.Sprintf("%s at %d×%d (zoomed %v)", s.Spec.Name, pn.w, pn.h, pn.zoomed)
				if msg := heroSpace(p); msg != "" {
					t.Errorf("%s: %s\n%s", where, msg, ansi.Strip(RenderPane(s, pn.w, pn.h, st)))
					continue
				}
				if pn.w >= namedLegendWidth {
					if msg := heroLegend(p); msg != "" {
						t.Errorf("%s: %s\n%s", where, msg, ansi.Strip(RenderPane(s, pn.w, pn.h, st)))
					}
				}
				if largest && pn.zoomed {
					if n, grow := blankRows(p); n > max(maxBlankRows, p.h/6) && len(grow) > 0 {
						t.Errorf("%s: %d blank rows in a chart block of %d, yet %q would draw larger\n%s", where, n, p.h,
							grow, ansi.Strip(RenderPane(s, pn.w, pn.h, st)))
					}
				}
			}
		}
	}
}

// heroSpace says what is wrong with the primary chart's cell in a pane's
// plan, or "".
func heroSpace(p panePlan) string {
	cells, ok := layoutCharts(p.charts, p.w, p.h, p.zoomed)
	if !ok || len(cells) == 0 {
		return "" // too small for any chart: the pane says so
	}
	var hero *placed
	for i := range cells {
		if cells[i].primary {
			if hero != nil {
				return "two primary charts"
			}
			hero = &cells[i]
		}
	}
	if hero == nil {
		return "the primary chart is not shown"
	}
	if n := chart.MaxRows(hero.chart); n > 0 && hero.w == p.w && hero.h >= n {
		return "" // all it can use
	}
	for _, c := range cells {
		if !c.primary && c.w*c.h > hero.w*hero.h {
			return fmt.Sprintf("the primary %q gets %d×%d, %q %d×%d", hero.chart.ChartTitle(), hero.w, hero.h,
				c.chart.ChartTitle(), c.w, c.h)
		}
	}
	return ""
}

// heroLegend says which of the primary chart's legend entries its legend
// leaves out, or "".
func heroLegend(p panePlan) string {
	cells, _ := layoutCharts(p.charts, p.w, p.h, p.zoomed)
	if p.zoomed && !heroLaidOut(cells) {
		return "" // the zoom keeps every chart in a grid of equal cells
	}
	for _, c := range cells {
		if !c.primary {
			continue
		}
		lines := chart.RenderLines(c.chart, c.w, c.h, chart.Options{Mono: true, Primary: true})
		if len(lines) == 0 {
			return ""
		}
		// The legend's lines: the last, and those above it a primary's
		// legend takes when one does not hold it.
		last := ansi.Strip(strings.Join(lines[max(0, len(lines)-8):], " "))
		var missing []string
		for _, e := range legendEntries(c.chart) {
			if !strings.Contains(last, e) {
				missing = append(missing, e)
			}
		}
		rest := last
		for _, e := range legendEntries(c.chart) {
			rest = strings.ReplaceAll(rest, e, "")
		}
		if len(missing) > 0 || legendMore.MatchString(rest) {
			return fmt.Sprintf("the primary %q at %d×%d leaves %q out of its legend: %q", c.chart.ChartTitle(), c.w, c.h, missing, last)
		}
	}
	return ""
}

// heroLaidOut reports whether the primary's cell is larger than every
// other, as heroLayout makes it, rather than one of the zoom's fallback
// grid of equal cells.
func heroLaidOut(cells []placed) bool {
	area := 0
	for _, c := range cells {
		if c.primary {
			area = c.w * c.h
		}
	}
	for _, c := range cells {
		if !c.primary && c.w*c.h >= area {
			return false
		}
	}
	return true
}

// legendEntries are the names a chart's legend line shows.
func legendEntries(c sims.Chart) []string {
	var out []string
	switch c := c.(type) {
	case sims.LineChart:
		for _, s := range c.Series {
			if len(s.Y) > 0 {
				out = append(out, s.Name)
			}
		}
	case sims.HistChart:
		for _, cu := range c.Curves {
			out = append(out, cu.Name)
		}
	case sims.CanvasChart:
		out = append(out, c.Legend...)
	case sims.GraphChart:
		out = append(out, c.Legend...)
	}
	var named []string
	for _, e := range out {
		if e != "" {
			named = append(named, e)
		}
	}
	return named
}

// blankRows counts the rows of a pane's chart block that no chart puts
// to use: rows below the last line each chart crossing them draws on (the
// blank lines between a scaled table's rows are its own), and names the
// charts that would draw on more rows were their cells taller: the ones
// that could have used the blank rows. A canvas uses every row: where its
// points are not is part of its picture.
func blankRows(p panePlan) (int, []string) {
	cells, _ := layoutCharts(p.charts, p.w, p.h, p.zoomed)
	used := make([]bool, p.h)
	var grow []string
	for _, c := range cells {
		_, canvas := c.chart.(sims.CanvasChart)
		o := chart.Options{Mono: true, Primary: c.primary}
		last := usedRows(chart.RenderLines(c.chart, c.w, c.h, o))
		if canvas {
			last = c.h
		}
		for dy := range last {
			used[c.y+dy] = true
		}
		if last < c.h && usedRows(chart.RenderLines(c.chart, c.w, 2*c.h, o)) > last {
			grow = append(grow, c.chart.ChartTitle())
		}
	}
	n := 0
	for _, u := range used {
		if !u {
			n++
		}
	}
	return n, grow
}

// usedRows is the number of lines up to the last that shows something.
func usedRows(lines []string) int {
	n := 0
	for y, l := range lines {
		if strings.TrimSpace(ansi.Strip(l)) != "" {
			n = y + 1
		}
	}
	return n
}
