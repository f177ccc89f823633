package tui

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/tui/chart"
)

// PaneStyle says how a pane is drawn around its charts.
type PaneStyle struct {
	Focused bool
	Mono    bool
	Basic   bool // a 16-colour terminal: see chart.Options.Basic
	// Palette256 is a 256-colour terminal: see chart.Options.Palette256.
	Palette256 bool
	// Zoomed is the zoom's one pane: notes that do not fit scroll, from
	// wrapped line NoteScroll, instead of sending the reader to the zoom.
	Zoomed     bool
	NoteScroll int
}

// Minimum pane size: a border, a metrics row and a line chart at its
// minimum size (chart.MinSize), the widest of the chart kinds but graphs.
const (
	MinPaneWidth  = 26
	MinPaneHeight = 8
)

// RenderPane draws a snapshot as a w×h pane: a border whose top edge carries
// the sim's name and status, a metrics row, the charts, and the sim's notes.
// It is a pure function of its arguments: the TUI and `lab run --frames`
// both call it, so the headless output is exactly what the TUI shows.
func RenderPane(s *sims.Snapshot, w, h int, st PaneStyle) string {
	return strings.Join(paneLines(s, w, h, st), "\n")
}

func paneLines(s *sims.Snapshot, w, h int, st PaneStyle) []string {
	if w < MinPaneWidth || h < MinPaneHeight {
		return chart.TooSmall(w, h)
	}
	iw, ih := w-2, h-2
	o := chart.Options{Mono: st.Mono, Basic: st.Basic, Palette256: st.Palette256}
	p := planPane(s, iw, ih, st)
	body := []string{chart.FitLine(metricsLine(s, iw, st), iw)}
	body = append(body, chartBlock(p.charts, p.w, p.h, o, p.zoomed)...)
	for _, n := range noteWindow(p.notes, p.nNotes, p.hidden, iw, st) {
		body = append(body, chart.FitLine(dim(n, st), iw))
	}
	lines := frame(body, w, h, statusTitle(s, st, w-5), st)
	if s.Building {
		overlayLabel(lines, h/2, buildingLabel(st), w)
	}
	return lines
}

// panePlan is what a pane shows inside its border under the metrics row:
// the charts, in a block of w×h, and nNotes of the note lines under them,
// hidden charts being left out.
type panePlan struct {
	charts         chartSet
	w, h           int
	notes          []string
	nNotes, hidden int
	zoomed         bool
}

// planPane decides what a pane of iw×ih cells inside its border shows.
func planPane(s *sims.Snapshot, iw, ih int, st PaneStyle) panePlan {
	notes, keep := wrapNotes(paneNotes(s), stateNotes(s), iw)
	all := frameCharts(s.Frame) // without the charts that have no data yet
	charts, nNotes := fitCharts(all, iw, ih-1, len(notes), keep, st.Zoomed)
	hidden := len(all.charts) - len(charts.charts)
	// Say what was left out, on a row the charts can spare.
	if hidden > 0 && nNotes == len(notes) && fits(charts, iw, ih-2-nNotes, st.Zoomed) {
		notes = append(notes, fmt.Sprintf("(%s more: enter zooms)", sims.Count(hidden, "chart")))
		nNotes++
	}
	return panePlan{charts: charts, w: iw, h: ih - 1 - nNotes, notes: notes, nNotes: nNotes, hidden: hidden, zoomed: st.Zoomed}
}

// wrapNotes wraps each note to w cells; keep, the number of leading notes
// that are always shown, becomes the number of their wrapped lines.
func wrapNotes(notes []string, keep, w int) ([]string, int) {
	var out []string
	keepLines := 0
	for i, n := range notes {
		out = append(out, chart.Wrap(n, w)...)
		if i < keep {
			keepLines = len(out)
		}
	}
	return out, keepLines
}

// noteWindow picks the n of the wrapped note lines that a pane shows. When
// they do not all fit, the last row says how many are left: in the zoom it
// scrolls them (from st.NoteScroll), elsewhere it sends the reader to the
// zoom; a one-row window shows the first line marked "…".
func noteWindow(notes []string, n, hiddenCharts, w int, st PaneStyle) []string {
	if n >= len(notes) || n <= 0 {
		return notes[:max(0, min(n, len(notes)))]
	}
	if n == 1 {
		return []string{clipMore(notes[0], w)}
	}
	from := 0
	if st.Zoomed {
		from = max(0, min(st.NoteScroll, len(notes)-(n-1)))
	}
	shown := append([]string(nil), notes[from:from+n-1]...)
	after := len(notes) - from - (n - 1)
	var hint string
	switch {
	case st.Zoomed:
		hint = fmt.Sprintf("(note lines %d–%d of %d: pgup/pgdn scroll)", from+1, from+n-1, len(notes))
	case hiddenCharts > 0:
		hint = fmt.Sprintf("(%s, %s more: enter zooms)", sims.Count(after, "more note line"), sims.Count(hiddenCharts, "chart"))
	default:
		hint = fmt.Sprintf("(%s: enter zooms)", sims.Count(after, "more note line"))
	}
	return append(shown, chart.Clip(hint, w))
}

// clipMore marks a line that more notes follow: "line …", or the line cut
// at a word boundary to make room.
func clipMore(s string, w int) string {
	if chart.Width(s)+2 <= w {
		return s + " " + chart.Ellipsis
	}
	return chart.Clip(s, chart.Width(s)-1)
}

// buildingLabel is what a pane shows, over its last frame, while its new
// sim is built.
func buildingLabel(st PaneStyle) string {
	if st.Mono {
		return "[ building… ]"
	}
	return buildingStyle.Render(" building… ")
}

// overlayLabel writes label over line y of a w-wide block, centred.
func overlayLabel(lines []string, y int, label string, w int) {
	lw := chart.Width(label)
	if y < 0 || y >= len(lines) || lw > w-2 {
		return
	}
	x := (w - lw) / 2
	lines[y] = ansi.Truncate(lines[y], x, "") + "\x1b[m" + label + ansi.TruncateLeft(lines[y], x+lw, "")
}

// chartSet is the charts a pane shows, in the sim's order, and which of
// them is the hero picture (sims.Frame.Primary).
type chartSet struct {
	charts  []sims.Chart
	primary int
}

// frameCharts is a frame's charts and its hero picture, without the
// charts other than the primary that have nothing to draw yet
// (chart.Empty): gibbs and hmc at 80×24 gave two "no data yet" boxes the
// rows of their notes during the burn-in.
func frameCharts(f sims.Frame) chartSet {
	primary := max(0, f.PrimaryChart())
	var cs chartSet
	for i, c := range f.Charts {
		if i == primary {
			cs.primary = len(cs.charts)
		} else if chart.Empty(c) {
			continue
		}
		cs.charts = append(cs.charts, c)
	}
	return cs
}

// rest is the charts other than the primary, in order.
func (cs chartSet) rest() []sims.Chart {
	out := make([]sims.Chart, 0, max(0, len(cs.charts)-1))
	for i, c := range cs.charts {
		if i != cs.primary {
			out = append(out, c)
		}
	}
	return out
}

// withRest is the primary and the first k of the other charts, in the
// sim's order.
func (cs chartSet) withRest(k int) chartSet {
	var out chartSet
	for i, c := range cs.charts {
		if i == cs.primary {
			out.primary = len(out.charts)
		} else if k == 0 {
			continue
		} else {
			k--
		}
		out.charts = append(out.charts, c)
	}
	return out
}

// fitCharts decides what a pane of w×h (below its metrics row) shows: all
// charts if they can be laid out (layoutCharts), with as many of the
// nNotes note lines as leave them fitting (at most a third of the rows,
// and never fewer than the keep lines that say why a run stopped);
// otherwise the primary and as many of the others, in order, as leave a
// layout. The others yield first: outside the zoom they are shown only
// beside a primary that gets the larger part of the pane. In the zoom,
// which shows every chart, the notes yield rows to the primary before it
// shrinks to a cell of an equal grid (hmc at 80×24 had its samples in 3
// rows under 5 of notes). At each of those steps a chart that has a
// compact form (chart.Compact: a graph's list of nodes) takes it only
// when its full form leaves no layout: ad-graph in half a pane at 80×24
// lists its nodes beside its memory chart rather than saying "pane too
// small".
func fitCharts(cs chartSet, w, h, nNotes, keep int, zoomed bool) (chartSet, int) {
	keep = min(keep, nNotes)
	forms := []chartSet{cs}
	if small, ok := cs.compact(); ok {
		forms = append(forms, small)
	}
	for _, f := range forms {
		if zoomed && len(f.charts) > 1 {
			for n := min(nNotes, max(keep, h/3)); n >= keep; n-- {
				if _, _, ok := heroLayout(f, w, h-n, false); ok {
					return f, roomierHero(f, w, h, n, keep, false)
				}
			}
		}
		for n := min(nNotes, max(keep, h/3)); n >= keep; n-- {
			if fits(f, w, h-n, zoomed) {
				return f, roomierHero(f, w, h, n, keep, !zoomed)
			}
		}
	}
	for k := len(cs.charts) - 2; k >= 1; k-- {
		for _, f := range forms {
			if sub := f.withRest(k); fits(sub, w, h-keep, zoomed) {
				return sub, keep
			}
		}
	}
	if len(cs.charts) == 0 {
		return cs, keep
	}
	for _, f := range forms {
		if alone := f.withRest(0); fits(alone, w, h-keep, zoomed) {
			return alone, keep
		}
	}
	return forms[len(forms)-1].withRest(0), keep
}

// roomierHero is the number of note lines, n or up to two fewer (never
// fewer than keep), that gives the primary its best cell: a note line
// yields when the primary's cell scores half again as high without it
// (mh at 80×24 drew its 2-D samples in 78×8 above three charts; one note
// line fewer puts them in 47×15 beside the charts, the note a scroll
// away).
func roomierHero(cs chartSet, w, h, n, keep int, wholeLegend bool) int {
	if len(cs.charts) < 2 {
		return n
	}
	_, base, ok := heroLayout(cs, w, h-n, wholeLegend)
	if !ok {
		return n
	}
	best, bar := n, 1.5*base
	for m := n - 1; m >= max(keep, n-2); m-- {
		if _, score, ok := heroLayout(cs, w, h-m, wholeLegend); ok && score > bar {
			best, bar = m, score
		}
	}
	return best
}

// compact is the set with every chart that has a compact form in it
// (chart.Compact), and whether there was one.
func (cs chartSet) compact() (chartSet, bool) {
	out := chartSet{charts: make([]sims.Chart, len(cs.charts)), primary: cs.primary}
	any := false
	for i, c := range cs.charts {
		var ok bool
		out.charts[i], ok = chart.Compact(c)
		any = any || ok
	}
	return out, any
}

// fits reports whether the charts can all be laid out at or above their
// minimum sizes.
func fits(cs chartSet, w, h int, zoomed bool) bool {
	if len(cs.charts) == 0 {
		return h >= 0
	}
	_, ok := layoutCharts(cs, w, h, zoomed)
	return ok
}

// stateNotes is how many of paneNotes' lines say why the run stopped or
// why a build was refused: they are always shown.
func stateNotes(s *sims.Snapshot) int {
	n := 0
	if s.State.Done() {
		n++
	}
	if s.BuildErr != nil {
		n++
	}
	return n
}

// statusTitle is the text on the pane's top edge, in room cells: name
// (and "zoomed", in the zoom), the --data file it runs on, state, step,
// seed (what `lab run --seed` takes to reproduce it), "next seed soon"
// when a converged run replays, measured rate and
// speed, as many whole parts as
// fit, the name first (cut only when it alone does not fit): a part is
// never cut mid-word, and " …" says some were left out.
func statusTitle(s *sims.Snapshot, st PaneStyle, room int) string {
	name := s.Spec.Name
	state := s.State.String()
	if st.Mono {
		state = strings.ToUpper(state)
	} else {
		state = color(stateColor[s.State], state)
	}
	parts := []string{bold(name), state, fmt.Sprintf("step %d", s.Frame.Step), fmt.Sprintf("seed %d", s.Seed)}
	if s.Data != nil {
		parts = slices.Insert(parts, 1, s.Data.File())
	}
	if st.Zoomed {
		parts = slices.Insert(parts, 1, "zoomed")
	}
	if s.State == sims.Running {
		parts = append(parts, Rate(s.StepsPerSec)+"/s")
	}
	if s.Replaying {
		parts = append(parts, "next seed soon")
	}
	if s.Speed == sims.MaxSpeed {
		parts = append(parts, "speed max")
	} else {
		parts = append(parts, "speed "+Rate(s.Speed))
	}
	for n := len(parts); n > 1; n-- {
		title := strings.Join(parts[:n], " · ")
		if n < len(parts) {
			title += " …"
		}
		if ansi.StringWidth(title) <= room {
			return title
		}
	}
	return parts[0] // frame cuts a name that alone does not fit
}

var stateColor = map[sims.State]string{
	sims.Running:   "42",
	sims.Paused:    "214",
	sims.Converged: "39",
	sims.Diverged:  "196",
	sims.Failed:    "196",
}

// Rate prints steps per second compactly: 12, 3.4k, 1.2M (a pane's edge,
// lab run's progress).
func Rate(r float64) string {
	switch {
	case r >= 1e6:
		return strconv.FormatFloat(r/1e6, 'f', 1, 64) + "M"
	case r >= 1e4:
		return strconv.FormatFloat(r/1e3, 'f', 0, 64) + "k"
	case r >= 1e3:
		return strconv.FormatFloat(r/1e3, 'f', 1, 64) + "k"
	default:
		return strconv.FormatFloat(math.Round(r), 'f', 0, 64)
	}
}

// metricsLine prints "name value" pairs that fit in w cells, whole, with
// "+N" for the ones left out.
func metricsLine(s *sims.Snapshot, w int, st PaneStyle) string {
	const gap = "   "
	var b strings.Builder
	used := 0
	for i, m := range s.Frame.Metrics {
		value := "—"
		switch {
		case m.Untrusted, m.Undefined != "":
		case m.Negligible():
			value = "≈ 0"
		default:
			value = fmtMetric(m.Value)
		}
		n := chart.Width(m.Name) + 1 + chart.Width(value)
		if i > 0 {
			n += len(gap)
		}
		more := ""
		if rest := len(s.Frame.Metrics) - i - 1; rest > 0 {
			more = fmt.Sprintf("%s+%d", gap, rest)
		}
		if used+n+len(more) > w {
			fmt.Fprintf(&b, "%s+%d", gap[:min(len(gap), used)], len(s.Frame.Metrics)-i)
			break
		}
		if i > 0 {
			b.WriteString(gap)
		}
		b.WriteString(dim(m.Name, st))
		b.WriteByte(' ')
		b.WriteString(value)
		used += n
	}
	return b.String()
}

// fmtMetric prints a metric with four significant digits.
func fmtMetric(x float64) string {
	ax := math.Abs(x)
	if x == math.Trunc(x) && ax < 1e7 {
		return strconv.FormatFloat(x, 'f', 0, 64)
	}
	if ax != 0 && (ax < 1e-3 || ax >= 1e6) {
		return strconv.FormatFloat(x, 'e', 3, 64)
	}
	return strconv.FormatFloat(x, 'g', 4, 64)
}

// paneNotes are the sim's notes, preceded by why a build was refused and
// why the run stopped.
func paneNotes(s *sims.Snapshot) []string {
	var notes []string
	if s.BuildErr != nil {
		notes = append(notes, "✗ "+firstLine(s.BuildErr)+" (the sim shown runs on)")
	}
	switch s.State {
	case sims.Diverged, sims.Failed:
		msg := "error"
		if s.Err != nil {
			msg = firstLine(s.Err)
		}
		notes = append(notes, fmt.Sprintf("%s at step %d: %s (press r to reset)", s.State, s.Frame.Step, msg))
	case sims.Converged:
		notes = append(notes, fmt.Sprintf("converged at step %d (press r to reset)", s.Frame.Step))
	}
	return append(notes, s.Frame.Text...)
}

func firstLine(err error) string {
	line, _, _ := strings.Cut(err.Error(), "\n")
	return line
}

// chartBlock lays the charts out (layoutCharts) and draws each one in its
// cell; neighbours in a row are parted by a rule (ruleGap), so that each
// chart's title and legend read as its own. The primary is drawn as the
// hero (chart.Options.Primary).
func chartBlock(cs chartSet, w, h int, o chart.Options, zoomed bool) []string {
	if h <= 0 {
		return nil
	}
	cells, _ := layoutCharts(cs, w, h, zoomed)
	if len(cells) == 0 {
		return chart.Fit(nil, w, h)
	}
	rule := " " + ruleGlyph + " "
	if !o.Mono {
		rule = " " + blurWrap().around(ruleGlyph) + " "
	}
	out := make([]string, h)
	for _, p := range cells {
		po := o
		po.Primary = p.primary
		for dy, line := range chart.RenderLines(p.chart, p.w, p.h, po) {
			if p.x > 0 {
				out[p.y+dy] += rule
			}
			out[p.y+dy] += line
		}
	}
	return out
}

// ruleGlyph is the rule between charts side by side, with a blank on
// either side of it: ruleGap cells in all.
const (
	ruleGlyph = "│"
	ruleGap   = 3
)

// placed is a chart and its cell in a chart block; primary marks the
// sim's hero picture.
type placed struct {
	chart   sims.Chart
	primary bool
	rect
}

// heroShare is the part of a pane's width (or height) that its primary
// chart takes when the others fit in the rest.
const heroShare = 0.6

// layoutCharts places a pane's charts in a w×h block, in drawing order
// (the cells of a row left to right, rows top down), and reports whether
// every chart gets at least its minimum size. The primary gets the space
// first (heroLayout): a cell left of, or above, the others, larger than
// any of theirs, where outside the zoom its legend names every entry.
// When that leaves the others no room, the zoom (zoomed) falls back to a
// grid of equal cells, the primary first and stretched when a row is
// short (gridCharts); a pane reports that they do not fit, and
// fitCharts leaves some out.
func layoutCharts(cs chartSet, w, h int, zoomed bool) ([]placed, bool) {
	if len(cs.charts) == 0 {
		return nil, h >= 0
	}
	if len(cs.charts) > 1 {
		if cells, _, ok := heroLayout(cs, w, h, !zoomed); ok {
			return cells, true
		}
		if !zoomed {
			return nil, false
		}
	}
	// The primary first: the grid's top-left cell.
	cells := gridCharts(append([]sims.Chart{cs.charts[cs.primary]}, cs.rest()...), 0, w, h)
	return cells, cellsFit(cells)
}

// largest reports whether a cell of the given area is at least as large
// as every one of the others: the primary's stays so.
func largest(area int, others []placed) bool {
	for _, p := range others {
		if p.w*p.h > area {
			return false
		}
	}
	return true
}

// cellsFit reports whether every chart has at least its minimum size.
func cellsFit(cells []placed) bool {
	for _, p := range cells {
		if mw, mh := chart.MinSize(p.chart); p.w < mw || p.h < mh {
			return false
		}
	}
	return true
}

// heroLayout gives the primary a cell left of the others (heroShare of
// the width) or above them (heroShare of the height), shrunk towards an
// even split until the others fit beside it in a grid of their own
// (gridCharts). Of the two, the one where the primary's legend names
// every entry (chart.LegendWhole) wins, then the one whose primary cell
// is larger in area, weighed by how close it comes to the 3:1 shape (in
// cells) that charts are drawn best at; a primary that uses only so many
// rows (chart.MaxRows: bars, tables, graphs) counts only those, and above
// the others gets only those. ok is false when neither leaves the primary
// at least half the room (or all it uses) and every chart its minimum
// size, or, with wholeLegend, when neither keeps the primary's legend
// whole.
func heroLayout(cs chartSet, w, h int, wholeLegend bool) ([]placed, float64, bool) {
	hero := cs.charts[cs.primary]
	rest := cs.rest()
	mw, mh := chart.MinSize(hero)
	var best []placed
	bestScore, bestRaw := 0.0, 0.0
	try := func(pw, ph int, others []placed) {
		if pw < mw || ph < mh {
			return
		}
		if n := chart.MaxRows(hero); !(n > 0 && pw == w && ph >= n) && !largest(pw*ph, others) {
			return // (unless it has the width and all the rows it can use)
		}
		whole := chart.LegendWhole(hero, pw, ph)
		if wholeLegend && !whole {
			return
		}
		uw, used := chart.Used(hero, pw, ph) // the rows it puts to use
		score := float64(pw*used) * math.Exp(-math.Abs(math.Log(float64(pw)/float64(used)/3))/2)
		if _, ok := hero.(sims.ImageChart); ok {
			// Pictures are shaped by their tiles: the area they cover.
			score = float64(uw * used)
		}
		raw := score
		if whole {
			score += float64(w * h) // beats any cell that cuts the legend
		}
		if score > bestScore {
			best = append([]placed{{chart: hero, primary: true, rect: rect{w: pw, h: ph}}}, others...)
			bestScore, bestRaw = score, raw
		}
	}
	// Beside: the primary left, the others in the column right of it; a
	// primary that uses fewer columns (chart.Used: a gallery of digits)
	// leaves the rest to them.
	for pw := int(math.Round(float64(w) * heroShare)); 2*pw >= w-ruleGap; pw-- {
		if others := gridCharts(rest, -1, w-pw-ruleGap, h); cellsFit(others) {
			if uw, _ := chart.Used(hero, pw, h); uw < pw && uw >= mw {
				if more := gridCharts(rest, -1, w-uw-ruleGap, h); cellsFit(more) && largest(uw*h, more) {
					pw, others = uw, more
				}
			}
			for i := range others {
				others[i].x += pw + ruleGap
			}
			try(pw, h, others)
			break
		}
	}
	// Above: the primary on top, the others in the rows under it: when
	// they are all bars and tables, only in the rows they use.
	// A primary that uses fewer rows (chart.Used) gets just those.
	top := int(math.Round(float64(h) * heroShare))
	if n := naturalRows(rest, w, h/2); n > 0 {
		top = max(top, h-n)
	}
	least := (h + 1) / 2
	if _, used := chart.Used(hero, w, top); used < top {
		top, least = max(used, mh), max(used, mh)
	}
	for ph := top; ph >= least; ph-- {
		if others := gridCharts(rest, -1, w, h-ph); cellsFit(others) {
			for i := range others {
				others[i].y += ph
			}
			try(w, ph, others)
			break
		}
	}
	return best, bestRaw, best != nil
}

// stackRows shares h rows among charts stacked one a row (cols 1) that
// all use only so many rows (chart.MaxRows), in proportion to those, the
// rows left over going to the first; nil for any other grid, whose rows
// are equal.
func stackRows(charts []sims.Chart, cols, h int) []int {
	if cols != 1 || len(charts) < 2 {
		return nil
	}
	total := 0
	for _, c := range charts {
		m := chart.MaxRows(c)
		if m == 0 {
			return nil
		}
		total += m
	}
	out := make([]int, len(charts))
	left := h
	for i, c := range charts {
		out[i] = h * chart.MaxRows(c) / total
		left -= out[i]
	}
	out[0] += left
	for i, c := range charts {
		if _, mh := chart.MinSize(c); out[i] < mh {
			return nil
		}
	}
	return out
}

// naturalRows is the fewest rows, up to most, in which gridCharts gives
// every chart its natural height (chart.NaturalHeight), or 0 when some
// chart has none or most rows are not enough.
func naturalRows(charts []sims.Chart, w, most int) int {
	for _, c := range charts {
		if chart.NaturalHeight(c) == 0 {
			return 0
		}
	}
	for rows := 1; rows <= most; rows++ {
		cells := gridCharts(charts, -1, w, rows)
		ok := cellsFit(cells)
		for _, p := range cells {
			ok = ok && p.h >= chart.NaturalHeight(p.chart)
		}
		if ok {
			return rows
		}
	}
	return 0
}

// gridCharts places charts in a w×h block, in drawing order (rows top
// down, left to right); charts[primary] is marked the primary (none when
// primary < 0). Beside a chart that uses any height, charts with a
// natural height (bar charts, tables) become full-width strips at the
// bottom, given their height while that leaves at least two thirds of the
// room; the others share the rest in a grid of equal cells that suits
// their number and shape (chartColumns), ruleGap cells apart in a row.
func gridCharts(charts []sims.Chart, primary, w, h int) []placed {
	var main, strips []int
	rows := 0
	growing := false // some chart uses any height: the others can be strips
	for _, c := range charts {
		growing = growing || chart.MaxRows(c) == 0
	}
	for i, c := range charts {
		if n := chart.NaturalHeight(c); growing && n > 0 && (rows+n)*3 <= h {
			strips = append(strips, i)
			rows += n
		} else {
			main = append(main, i)
		}
	}
	if len(main) == 0 { // nothing but strips: everything goes in the grid
		main, strips, rows = strips, nil, 0
	}
	var out []placed
	if gh := h - rows; len(main) > 0 {
		mainCharts := make([]sims.Chart, len(main))
		for k, i := range main {
			mainCharts[k] = charts[i]
		}
		cols, _ := chartColumns(mainCharts, w, gh)
		gridRows := (len(main) + cols - 1) / cols
		// A short row is stretched: the last, or the first when it holds
		// the primary, which then gets the larger cells.
		short := len(main) % cols
		first := 0
		// Rows and columns left over go to the first row and column; a
		// stack of charts that use only so many rows shares the rows in
		// proportion to those (stackRows).
		heights := stackRows(mainCharts, cols, gh)
		y := 0
		for r := 0; r < gridRows; r++ {
			rh := gh / gridRows
			if r == 0 {
				rh = gh - rh*(gridRows-1)
			}
			if heights != nil {
				rh = heights[r]
			}
			n := min(len(main)-first, cols)
			if r == 0 && short > 0 && main[0] == primary {
				n = short
			}
			x := 0
			for k := range n {
				cw := (w - (n-1)*ruleGap) / n
				if k == 0 {
					cw = w - (n-1)*(cw+ruleGap)
				}
				i := main[first+k]
				out = append(out, placed{charts[i], i == primary, rect{x: x, y: y, w: cw, h: rh}})
				x += cw + ruleGap
			}
			first += n
			y += rh
		}
	}
	y := h - rows
	for _, i := range strips {
		n := chart.NaturalHeight(charts[i])
		out = append(out, placed{charts[i], i == primary, rect{x: 0, y: y, w: w, h: n}})
		y += n
	}
	return out
}

// chartColumns picks how many charts go side by side: the layout whose
// chart cells are closest to a 3:1 (cells) shape, or, when every chart
// uses only so many rows (bars, tables, graphs: chart.MaxRows), the one
// that puts the most area to use, among those where every chart reaches
// its minimum size; ok is false (and cols 1) if none does.
func chartColumns(charts []sims.Chart, w, h int) (cols int, ok bool) {
	best, bestScore := 1, math.Inf(1)
	bounded := true // every chart uses only so many rows (chart.MaxRows)
	for _, c := range charts {
		bounded = bounded && chart.MaxRows(c) > 0
	}
	for cols = 1; cols <= len(charts); cols++ {
		rows := (len(charts) + cols - 1) / cols
		cw, ch := (w-(cols-1)*ruleGap)/cols, h/rows
		fits := true
		for _, c := range charts {
			mw, mh := chart.MinSize(c)
			fits = fits && cw >= mw && ch >= mh
		}
		if !fits || ch == 0 {
			continue
		}
		score := math.Abs(math.Log(float64(cw) / float64(ch) / 3))
		if len(charts)%cols != 0 {
			score += 0.3 // a ragged last row leaves one chart stretched
		}
		if bounded {
			// Charts that use only so many rows (and some only so many
			// columns: chart.MaxCols): the most area put to use, so that
			// small tables and grids go side by side rather than each
			// across a wide pane (conv at 220×60 stacked three in one
			// column, 97% blank).
			used := 0
			for _, c := range charts {
				uw := cw
				if mc := chart.MaxCols(c); mc > 0 {
					uw = min(cw, mc)
				}
				used += uw * min(ch, chart.MaxRows(c))
			}
			score = -float64(used)
		}
		if score < bestScore {
			best, bestScore, ok = cols, score, true
		}
	}
	return best, ok
}
