package tui

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/tui/chart"
)

// PaneStyle says how a pane is drawn around its charts.
type PaneStyle struct {
	Focused bool
	Mono    bool
}

// Minimum pane size: a border, a metrics row and the smallest chart.
const (
	MinPaneWidth  = 20
	MinPaneHeight = 6
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
	var body []string
	body = append(body, chart.FitLine(metricsLine(s, st), iw))
	notes := paneNotes(s)
	// Notes take what room the charts can spare, at most a third.
	nNotes := min(len(notes), max(0, (ih-1)/3))
	chartRows := ih - 1 - nNotes
	body = append(body, chartBlock(s.Frame.Charts, iw, chartRows, chart.Options{Mono: st.Mono})...)
	for _, n := range notes[:nNotes] {
		body = append(body, chart.FitLine(dim(n, st), iw))
	}
	return frame(body, w, h, statusTitle(s, st), st)
}

// statusTitle is the text on the pane's top edge: name, state, step, speed.
func statusTitle(s *sims.Snapshot, st PaneStyle) string {
	name := s.Spec.Name
	state := s.State.String()
	if st.Mono {
		state = strings.ToUpper(state)
	} else {
		state = color(stateColor[s.State], state)
	}
	parts := []string{bold(name), state, fmt.Sprintf("step %d", s.Frame.Step)}
	if s.State == sims.Running {
		parts = append(parts, rate(s.StepsPerSec)+"/s")
	}
	if s.Speed == sims.MaxSpeed {
		parts = append(parts, "speed max")
	} else {
		parts = append(parts, "speed "+rate(s.Speed))
	}
	return strings.Join(parts, " · ")
}

var stateColor = map[sims.State]string{
	sims.Running:   "42",
	sims.Paused:    "214",
	sims.Converged: "39",
	sims.Diverged:  "196",
	sims.Failed:    "196",
}

// rate prints steps per second compactly: 12, 3.4k, 1.2M.
func rate(r float64) string {
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

// metricsLine prints "name value" pairs.
func metricsLine(s *sims.Snapshot, st PaneStyle) string {
	var b strings.Builder
	for i, m := range s.Frame.Metrics {
		if i > 0 {
			b.WriteString("   ")
		}
		b.WriteString(dim(m.Name, st))
		b.WriteByte(' ')
		b.WriteString(fmtMetric(m.Value))
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

// paneNotes are the sim's notes, preceded by why the run stopped.
func paneNotes(s *sims.Snapshot) []string {
	var notes []string
	switch s.State {
	case sims.Diverged, sims.Failed:
		msg := "error"
		if s.Err != nil {
			msg, _, _ = strings.Cut(s.Err.Error(), "\n")
		}
		notes = append(notes, fmt.Sprintf("%s at step %d: %s (r resets)", s.State, s.Frame.Step, msg))
	case sims.Converged:
		notes = append(notes, fmt.Sprintf("converged at step %d (r restarts)", s.Frame.Step))
	}
	return append(notes, s.Frame.Text...)
}

// chartBlock lays the charts out in a grid that suits their number and the
// room, and draws each one. A row of charts that need few lines (bar
// charts) gets only those; the other rows share the rest.
func chartBlock(charts []sims.Chart, w, h int, o chart.Options) []string {
	if h <= 0 {
		return nil
	}
	if len(charts) == 0 {
		return chart.Fit(nil, w, h)
	}
	cols := chartColumns(charts, w, h)
	rows := (len(charts) + cols - 1) / cols
	heights := rowHeights(charts, cols, rows, h)
	out := make([]string, 0, h)
	for r := 0; r < rows; r++ {
		rh := heights[r]
		first := r * cols
		last := min(len(charts), first+cols)
		n := last - first
		blocks := make([][]string, n)
		widths := make([]int, n)
		for i := range n {
			// One blank column between charts.
			cw := (w - (n - 1)) / n
			if i == n-1 {
				cw = w - (n-1)*(cw+1)
			}
			widths[i] = cw
			blocks[i] = chart.RenderLines(charts[first+i], cw, rh, o)
		}
		for y := 0; y < rh; y++ {
			var b strings.Builder
			for i := range n {
				if i > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(blocks[i][y])
			}
			out = append(out, b.String())
		}
	}
	return out
}

// rowHeights shares h lines among the rows of charts: a row whose charts
// all have a natural height (chart.NaturalHeight) gets at most that, and
// the other rows split what is left equally.
func rowHeights(charts []sims.Chart, cols, rows, h int) []int {
	heights := make([]int, rows)
	want := make([]int, rows) // 0: as much as it can get
	flexible, left := 0, h
	for r := range rows {
		for _, c := range charts[r*cols : min(len(charts), (r+1)*cols)] {
			n := chart.NaturalHeight(c)
			if n == 0 {
				want[r] = 0
				break
			}
			want[r] = max(want[r], n)
		}
		if want[r] == 0 {
			flexible++
		}
	}
	if flexible > 0 {
		for r := range rows {
			if want[r] > 0 {
				heights[r] = min(want[r], h/rows)
				left -= heights[r]
			}
		}
	}
	share := 0
	for r := range rows {
		if want[r] == 0 || flexible == 0 {
			n := flexible
			if n == 0 {
				n = rows
			}
			heights[r] = left / n
			share += heights[r]
		}
	}
	// Rounding leftovers go to the last flexible row.
	for r := rows - 1; r >= 0; r-- {
		if want[r] == 0 || flexible == 0 {
			heights[r] += left - share
			break
		}
	}
	return heights
}

// chartColumns picks how many charts go side by side: the layout whose
// chart cells are closest to a 3:1 (cells) shape, among those where every
// chart reaches its minimum size; one column if none does.
func chartColumns(charts []sims.Chart, w, h int) int {
	best, bestScore := 1, math.Inf(1)
	for cols := 1; cols <= len(charts); cols++ {
		rows := (len(charts) + cols - 1) / cols
		cw, ch := (w-(cols-1))/cols, h/rows
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
		if score < bestScore {
			best, bestScore = cols, score
		}
	}
	return best
}
