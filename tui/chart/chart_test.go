package chart

import (
	"fmt"
	"image/color"
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/thelab/lab/sims"
)

func sampleCharts() map[string]sims.Chart {
	decay := make([]float64, 300)
	bound := make([]float64, 300)
	for k := range decay {
		decay[k] = math.Pow(0.9, float64(k))
		bound[k] = 2 * math.Pow(0.95, float64(k))
	}
	grid := sims.SampleGrid(sims.Rect{XMin: -2, XMax: 2, YMin: -1, YMax: 1}, 40, 20,
		func(x, y float64) float64 { return x*x + 4*y*y })
	grid.Levels = 8
	xs, ys := make([]float64, 50), make([]float64, 50)
	for i := range xs {
		xs[i], ys[i] = -2+4*float64(i)/49, math.Sin(float64(i)/8)
	}
	return map[string]sims.Chart{
		"line": sims.LineChart{Title: "gap", LogY: true, X0: 0, X1: 299, XLabel: "step",
			Series: []sims.Series{{Name: "gap", Y: decay}, {Name: "bound", Y: bound, Class: 1, Bound: true}}},
		"line-empty": sims.LineChart{Title: "nothing"},
		"canvas": sims.CanvasChart{Title: "field", View: sims.Rect{XMin: -2, XMax: 2, YMin: -1, YMax: 1},
			Heat: grid, Contours: grid, Legend: []string{"a", "b"},
			Points:  []sims.PointSet{{X: xs, Y: ys, Classes: make([]int, 50)}},
			Paths:   []sims.Path{{X: xs, Y: ys, Class: 1}},
			Markers: []sims.Marker{{X: 0, Y: 0, Glyph: '★', Class: 2}}},
		"hist": sims.HistChart{Title: "hist", Lo: -3, Hi: 3, Density: []float64{0.05, 0.2, 0.4, 0.2, 0.05},
			Curves: []sims.Curve{{Name: "exact", X: xs, Y: ys}}},
		"bars":   sims.BarChart{Title: "weights", Bars: []sims.Bar{{Label: "one", Value: 0.5}, {Label: "two", Value: 0.25, Class: 1}}},
		"images": sampleImages(),
		"image-numbers": sims.ImageChart{Title: "Example 10.1", Numbers: true, Scale: sims.Sequential,
			Images: []sims.Image{ex101(), {Caption: "W", W: 3, H: 3, Pix: []float64{1, 0, 1, 0, 1, 0, 1, 0, 1}}}},
		"table":   sampleTable(),
		"graph":   sampleGraph(),
		"network": sampleNetwork(),
	}
}

// sampleTable is a 4×5 matrix filling by columns: two columns known (one
// a colour group), the third just written, the rest to come.
func sampleTable() sims.TableChart {
	t := sims.TableChart{Title: "J", Corner: "f\\x", Columns: []string{"x1", "x2", "x3", "x4", "x5"}, Matrix: true}
	for i := range 4 {
		row := sims.TableRow{Label: fmt.Sprintf("f%d", i+1)}
		for j := range 5 {
			cell := sims.Cell{Text: fmt.Sprintf("%.3g", float64(i+1)*0.5-float64(j))}
			switch {
			case j == 0:
				cell.Tone, cell.Class = sims.ToneFill, i%2
			case j == 2 && i == 1:
				cell.Tone, cell.Class = sims.ToneFocus, 1
			case j >= 2:
				cell = sims.Cell{Text: "·", Tone: sims.ToneDim}
			}
			row.Cells = append(row.Cells, cell)
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// sampleGraph is f = x·y + sin x by depth, mid-way through a forward sweep.
func sampleGraph() sims.GraphChart {
	return sims.GraphChart{Title: "x·y + sin x", Legend: []string{"done", "now"},
		Nodes: []sims.GraphNode{
			{Col: 0, Row: 0, Label: "x", Detail: "3 | 1"},
			{Col: 0, Row: 1, Label: "y", Detail: "2 | 0"},
			{Col: 1, Row: 0, Label: "s2 ×", Detail: "6 | 2", Tone: sims.ToneInk},
			{Col: 1, Row: 1, Label: "s3 sin", Detail: "0.1411 | −0.99", Tone: sims.ToneFocus, Class: 1},
			{Col: 2, Row: 0, Label: "s4 +", Detail: "· | ·", Tone: sims.ToneDim},
		},
		Edges: []sims.GraphEdge{{From: 0, To: 2}, {From: 1, To: 2}, {From: 0, To: 3, Tone: sims.ToneFocus, Class: 1},
			{From: 2, To: 4}, {From: 3, To: 4}},
	}
}

// TestExactSize: every chart, at every size, is exactly h lines of width w,
// in colour and in mono, and says so when the room is below its minimum.
func TestExactSize(t *testing.T) {
	for name, c := range sampleCharts() {
		mw, mh := MinSize(c)
		for _, w := range []int{1, 5, mw - 1, mw, 31, 64, 157} {
			for _, h := range []int{1, 2, mh - 1, mh, 9, 17, 48} {
				for _, mono := range []bool{false, true} {
					lines := RenderLines(c, w, h, Options{Mono: mono})
					if len(lines) != h {
						t.Fatalf("%s %dx%d: %d lines", name, w, h, len(lines))
					}
					for i, l := range lines {
						if got := ansi.StringWidth(l); got != w {
							t.Fatalf("%s %dx%d mono=%v: line %d has width %d: %q", name, w, h, mono, i, got, ansi.Strip(l))
						}
					}
					small := w < mw || h < mh
					said := strings.Contains(strings.Join(lines, ""), "pane too small")
					if small && w >= 14 && !said {
						t.Errorf("%s %dx%d: below the minimum but no message", name, w, h)
					}
					if !small && said {
						t.Errorf("%s %dx%d: fits but says too small", name, w, h)
					}
				}
			}
		}
	}
}

var colourCode = regexp.MustCompile(`\x1b\[[0-9;]*[34]8;[0-9;]*m`)

func TestMonoHasNoColour(t *testing.T) {
	for name, c := range sampleCharts() {
		out := Render(c, 60, 16, Options{Mono: true})
		if colourCode.MatchString(out) {
			t.Errorf("%s: colour in mono output", name)
		}
		if colourCode.MatchString(Render(c, 60, 16, Options{})) == (name == "line-empty") {
			t.Errorf("%s: colour mode without colour (or an empty chart with it)", name)
		}
	}
}

var background = regexp.MustCompile(`\x1b\[[0-9;]*48;[0-9;]*m`)

// TestBasicDrawsFieldsPlainly: for a 16-colour terminal a field is drawn
// with level lines or shades, not as coloured backgrounds, while the rest
// keeps its colours.
func TestBasicDrawsFieldsPlainly(t *testing.T) {
	c := sampleCharts()["canvas"]
	if !background.MatchString(Render(c, 60, 16, Options{})) {
		t.Fatal("in colour the field should be a coloured background")
	}
	basic := Render(c, 60, 16, Options{Basic: true})
	if background.MatchString(basic) {
		t.Errorf("Basic drew the field as coloured backgrounds:\n%s", basic)
	}
	if !colourCode.MatchString(basic) {
		t.Error("Basic lost the foreground colours")
	}
	if strings.Contains(ansi.Strip(basic), "▀") {
		t.Errorf("Basic drew the field with half blocks:\n%s", ansi.Strip(basic))
	}
}

func TestLogScaleLabels(t *testing.T) {
	out := ansi.Strip(Render(sampleCharts()["line"], 60, 16, Options{Mono: true}))
	// The curve falls from 2 to 0.9^299 ≈ 2e-14: labels run in powers of ten.
	if !strings.Contains(out, "e-1") || !strings.Contains(out, "(log scale)") {
		t.Errorf("log labels missing:\n%s", out)
	}
	// The bound is dotted, and the legend names both series.
	if !strings.Contains(out, "┄") || !strings.Contains(out, "gap") || !strings.Contains(out, "bound") {
		t.Errorf("legend or dotted bound missing:\n%s", out)
	}
}

// TestCanvasPlacesThings checks world-to-screen mapping: a marker at the
// centre of the view is drawn in the middle cell, and mono classes get
// their glyphs.
func TestCanvasPlacesThings(t *testing.T) {
	c := sims.CanvasChart{Title: "t", View: sims.Rect{XMin: 0, XMax: 10, YMin: 0, YMax: 10},
		Points:  []sims.PointSet{{X: []float64{1, 9}, Y: []float64{9, 1}, Classes: []int{0, 1}}},
		Markers: []sims.Marker{{X: 5, Y: 5, Glyph: '★'}}}
	lines := RenderLines(c, 21, 13, Options{Mono: true}) // canvas area 21×11 below the title
	at := func(x, y int) rune { return []rune(ansi.Strip(lines[1+y]))[x] }
	if at(10, 5) != '★' {
		t.Errorf("marker not at the centre cell:\n%s", strings.Join(lines, "\n"))
	}
	if at(2, 1) != classGlyph(0) || at(18, 9) != classGlyph(1) {
		t.Errorf("points: %q %q", at(2, 1), at(18, 9))
	}
}

// TestBandFill: a band y ∈ [2, 4] over x ∈ [0, 5] of a 10×10 view fills
// exactly those cells: light shade in mono, a tinted background (half
// blocks, here whole cells) in colour, nothing outside it.
func TestBandFill(t *testing.T) {
	c := sims.CanvasChart{Title: "t", View: sims.Rect{XMin: 0, XMax: 10, YMin: 0, YMax: 10},
		Bands: []sims.Band{{X: []float64{0, 5}, Lo: []float64{2, 2}, Hi: []float64{4, 4}, Class: 1}}}
	lines := RenderLines(c, 20, 12, Options{Mono: true}) // canvas 20×10: a cell is 0.5 × 1
	for cy := 0; cy < 10; cy++ {
		row := []rune(lines[1+cy])
		for cx := 0; cx < 20; cx++ {
			x, y := (float64(cx)+0.5)/2, 10-(float64(cy)+0.5)
			want := x <= 5 && y >= 2 && y <= 4
			if got := row[cx] == '░'; got != want {
				t.Fatalf("cell (%d, %d) at (%g, %g): shaded %v, want %v\n%s", cx, cy, x, y, got, want, strings.Join(lines, "\n"))
			}
		}
	}
	colour := RenderLines(c, 20, 12, Options{})
	if inside, outside := colour[1+7], colour[1+2]; !strings.Contains(inside, "▀") || !strings.Contains(inside, "48;2;") ||
		strings.Contains(outside, "▀") || strings.Contains(outside, "48;2;") {
		t.Errorf("colour band: inside %q, outside %q", inside, outside)
	}
}

func TestHistogramBars(t *testing.T) {
	c := sims.HistChart{Title: "h", Lo: 0, Hi: 1, Density: []float64{1, 2}}
	lines := RenderLines(c, 30, 12, Options{Mono: true})
	// The right bin is twice the left: its column reaches higher.
	height := func(col int) int {
		n := 0
		for _, l := range lines[1:10] {
			if r := []rune(ansi.Strip(l)); r[col] != ' ' {
				n++
			}
		}
		return n
	}
	left, right := height(6), height(25)
	if right < 2*left-1 || left == 0 {
		t.Errorf("bar heights %d and %d for densities 1 and 2:\n%s", left, right, strings.Join(lines, "\n"))
	}
	// The legend names the bars: "samples" unless the chart says otherwise.
	for label, want := range map[string]string{"": "█ samples", "points": "█ points"} {
		c.Label = label
		got := ansi.Strip(strings.Join(RenderLines(c, 30, 12, Options{Mono: true}), "\n"))
		if !strings.Contains(got, want) {
			t.Errorf("label %q: no %q in\n%s", label, want, got)
		}
	}
}

// TestNarrowSpikeShows: with more bins than columns a column draws the
// mean density of the bins it covers, so a spike one bin wide shows (bbvi's
// reparameterisation errors at 80×24, between two columns' centres, drew
// nothing) and keeps its area.
func TestNarrowSpikeShows(t *testing.T) {
	for bin := range 60 {
		density := make([]float64, 60)
		density[bin] = 60 // all the mass in one bin of width 1/60
		c := sims.HistChart{Title: "spike", Lo: 0, Hi: 1, Density: density}
		lines := RenderLines(c, 24, 6, Options{Mono: true})
		got := ansi.Strip(strings.Join(lines, "\n"))
		plot := ansi.Strip(strings.Join(lines[1:len(lines)-2], "\n")) // not the axis and legend
		bars := 0
		for _, r := range "▁▂▃▄▅▆▇█" {
			bars += strings.Count(plot, string(r))
		}
		if bars == 0 {
			t.Errorf("spike in bin %d: no bar drawn:\n%s", bin, got)
		}
	}
}

func BenchmarkCanvas(b *testing.B) {
	c := sampleCharts()["canvas"]
	for b.Loop() {
		RenderLines(c, 100, 40, Options{})
	}
}

func BenchmarkTable(b *testing.B) {
	c := sampleCharts()["table"]
	for b.Loop() {
		RenderLines(c, 100, 40, Options{})
	}
}

func BenchmarkGraph(b *testing.B) {
	c := sampleCharts()["graph"]
	for b.Loop() {
		RenderLines(c, 100, 40, Options{})
	}
}

func BenchmarkLine(b *testing.B) {
	c := sampleCharts()["line"]
	for b.Loop() {
		RenderLines(c, 100, 40, Options{})
	}
}

// TestCombiningMarksTakeNoCell: "K̂" and "λ̃" are one cell each, so titles
// with them keep the chart's exact width.
func TestCombiningMarksTakeNoCell(t *testing.T) {
	c := sims.BarChart{Title: "K̂ against λ̃", Bars: []sims.Bar{{Label: "K̂", Value: 1}}}
	for _, l := range RenderLines(c, 30, 3, Options{}) {
		if w := ansi.StringWidth(l); w != 30 {
			t.Errorf("width %d: %q", w, ansi.Strip(l))
		}
	}
	if !strings.Contains(ansi.Strip(Render(c, 30, 3, Options{})), "K̂ against λ̃") {
		t.Error("marks lost")
	}
}

// TestShadeDimsCells: a cell of a shaded field with brightness 0 is drawn
// darker than one with brightness 1, in the same class colour.
func TestShadeDimsCells(t *testing.T) {
	g := &sims.Grid{NX: 2, NY: 1, Z: []float64{1, 1}, Scale: sims.Categorical, Lo: 0, Hi: 1, Shade: []float64{0, 1}}
	cv := newCanvas(2, 1, sims.Rect{XMin: 0, XMax: 2, YMin: 0, YMax: 1}, false)
	cv.heat(g, false, false, false, monoShade, Options{})
	dim, full := cv.top[0], cv.top[1]
	lum := func(c rgb) int { r, g, b := c.parts(); return int(r) + int(g) + int(b) }
	if lum(dim) >= lum(full) || dim == 0 || full == 0 {
		t.Errorf("shade 0 gives %06x, shade 1 gives %06x", dim&0xffffff, full&0xffffff)
	}
}

// TestBarsAlignWithCombiningMarks: a label with a combining mark (x̄ is
// two runes, one column) is padded by display width, so every bar starts
// in the same column.
func TestBarsAlignWithCombiningMarks(t *testing.T) {
	c := sims.BarChart{Title: "b", Bars: []sims.Bar{{Label: "x̄", Value: 1}, {Label: "ab", Value: 1}, {Label: "漢", Value: 1}}}
	lines := RenderLines(c, 30, 5, Options{Mono: true})
	col := func(l string) int { return ansi.StringWidth(l[:strings.Index(l, "█")]) }
	for _, l := range lines[2:4] {
		if col(l) != col(lines[1]) {
			t.Errorf("bars start at different columns:\n%s", strings.Join(lines, "\n"))
		}
	}
	for _, l := range lines {
		if w := ansi.StringWidth(l); w != 30 {
			t.Errorf("line %q is %d columns wide, want 30", l, w)
		}
	}
	// A wide rune overwritten in half leaves no half behind.
	b := newBuffer(4, 1, true)
	b.text(0, 0, "漢漢", 0, false)
	b.text(1, 0, "x", 0, false)
	if got := b.lines()[0]; got != " x漢" {
		t.Errorf("overwritten wide rune: %q, want %q", got, " x漢")
	}
}

// TestEveryKindDrawn: the renderer knows every kind of chart that sims
// defines (sims.ChartKinds, which sims' own test keeps complete): each has a
// minimum size and is drawn, empty, without falling through to "unknown".
func TestEveryKindDrawn(t *testing.T) {
	for _, c := range sims.ChartKinds() {
		if w, h := MinSize(c); w <= 1 || h <= 1 {
			t.Errorf("%T: no minimum size", c)
		}
		for _, mono := range []bool{false, true} {
			if out := Render(c, 40, 12, Options{Mono: mono}); strings.Contains(out, "unknown chart") {
				t.Errorf("%T (mono %v) not drawn:\n%s", c, mono, out)
			}
		}
	}
}

// TestPaletteHoldsMaxClasses: the palette and the monochrome glyphs tell
// apart the sims.MaxClasses classes a sim may offer.
func TestPaletteHoldsMaxClasses(t *testing.T) {
	if len(classAnsi) != sims.MaxClasses || len(classColors) != sims.MaxClasses || len(classGlyphs) < sims.MaxClasses {
		t.Errorf("palette %d colours, %d glyphs; sims.MaxClasses = %d", len(classAnsi), len(classGlyphs), sims.MaxClasses)
	}
}

// TestGoldenTableAndGraph pins the text-bearing kinds at a fixed size,
// in colour and in monochrome. Run with -update after an intended change.
func TestGoldenTableAndGraph(t *testing.T) {
	for _, name := range []string{"table", "graph", "network"} {
		for _, mono := range []bool{false, true} {
			sub := name
			if mono {
				sub += "-mono"
			}
			t.Run(sub, func(t *testing.T) {
				golden.RequireEqual(t, Render(sampleCharts()[name], 44, 12, Options{Mono: mono}))
			})
		}
	}
}

// TestTableKeepsFocusInView: a table taller and wider than the chart
// scrolls to the focused cell and says which rows and columns it shows.
func TestTableKeepsFocusInView(t *testing.T) {
	tab := sims.TableChart{Title: "tape", Columns: []string{"a", "b", "c", "d", "e", "f"}}
	for i := range 30 {
		row := sims.TableRow{Label: fmt.Sprintf("r%02d", i)}
		for j := range 6 {
			cell := sims.Cell{Text: fmt.Sprintf("%d.%d", i, j)}
			if i == 25 && j == 5 {
				cell = sims.Cell{Text: "HERE", Tone: sims.ToneFocus}
			}
			row.Cells = append(row.Cells, cell)
		}
		tab.Rows = append(tab.Rows, row)
	}
	out := ansi.Strip(Render(tab, 30, 8, Options{Mono: true}))
	for _, want := range []string{"▸HERE", "r25", "rows ", "/30", "cols "} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "r00") {
		t.Errorf("the first row is still shown:\n%s", out)
	}
}

// TestGraphBoxesAndEdges: with room, each node is a three-line box with its
// label in the top edge and its detail inside, the focused one framed
// double; edges join them; a short chart falls back to one line per node.
func TestGraphBoxesAndEdges(t *testing.T) {
	g := sampleGraph()
	out := ansi.Strip(Render(g, 72, 9, Options{Mono: true}))
	for _, want := range []string{"┌─", "x", "3 | 1", "╔", "s3 sin", "0.1411 | −0.99", "s4 +"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	if !strings.ContainsAny(out, "⠁⠂⠄⡀⠈⠐⠠⢀⠉⠒⠤⣀") {
		t.Errorf("no edges drawn:\n%s", out)
	}
	small := ansi.Strip(Render(g, 60, 4, Options{Mono: true}))
	if !strings.Contains(small, "[x 3 | 1]") || strings.Contains(small, "┌") {
		t.Errorf("short chart not drawn inline:\n%s", small)
	}
	// Too narrow for "s2 × 6 | 2", an inline box keeps the name and the
	// numbers.
	narrow := ansi.Strip(Render(g, 33, 4, Options{Mono: true}))
	if !strings.Contains(narrow, "[s2 6 | 2]") {
		t.Errorf("narrow inline box lost its numbers:\n%s", narrow)
	}
}

// TestClassTintsKeepTheirColour: a class's dimmed region, band or filled
// cell is a colour of the xterm-256 palette (so a 256-colour terminal
// shows exactly it) of the class's own hue, never a grey for a coloured
// class: the region, the points and the legend swatch read as one colour
// in every profile (softmax's third class, green, turned grey in 256
// colours).
func TestClassTintsKeepTheirColour(t *testing.T) {
	for c := range sims.MaxClasses {
		full := classColor(c)
		for k := 0; k <= tintLevels; k++ {
			tint := classTint(c, float64(k)/tintLevels)
			r, g, b := tint.parts()
			n := ansi.Convert256(color.RGBA{r, g, b, 255})
			if got := xterm256(int(n)); got != tint {
				t.Errorf("class %d keep %d/%d: %06x is not xterm-256 colour %d (%06x)", c, k, tintLevels, tint&0xffffff, n, got&0xffffff)
			}
			if isGrey(tint) != isGrey(full) {
				t.Errorf("class %d keep %d/%d: %06x, grey %v, class colour grey %v", c, k, tintLevels, tint&0xffffff, isGrey(tint), isGrey(full))
			}
			if dh := math.Abs(hue(tint) - hue(full)); !isGrey(full) && math.Min(dh, 360-dh) > 35 {
				t.Errorf("class %d keep %d/%d: hue %.0f°, class %.0f°", c, k, tintLevels, hue(tint), hue(full))
			}
		}
	}
}

// TestScaleUpWithRoom: given rows to spare, bars grow thick and apart and
// a table spaces its rows out, each up to its largest scale (MaxRows);
// in their natural height they take a line a row.
func TestScaleUpWithRoom(t *testing.T) {
	bars := sims.BarChart{Title: "b", Bars: []sims.Bar{{Label: "a", Value: 1}, {Label: "b", Value: 2}}}
	table := sims.TableChart{Title: "t", Columns: []string{"x"}, Rows: []sims.TableRow{
		{Label: "r1", Cells: []sims.Cell{{Text: "1"}}}, {Label: "r2", Cells: []sims.Cell{{Text: "2"}}}}}
	for _, c := range []sims.Chart{bars, table} {
		for _, h := range []int{NaturalHeight(c), MaxRows(c), 2 * MaxRows(c)} {
			lines := RenderLines(c, 30, h, Options{Mono: true})
			used := 0
			for _, l := range lines {
				if strings.TrimSpace(ansi.Strip(l)) != "" {
					used++
				}
			}
			lastUsed := 0
			for y, l := range lines {
				if strings.TrimSpace(ansi.Strip(l)) != "" {
					lastUsed = y + 1
				}
			}
			want := min(h, MaxRows(c))
			if h == NaturalHeight(c) && used != h || lastUsed < want-2 || lastUsed > want {
				t.Errorf("%T in %d rows: uses %d rows up to line %d, want about %d:\n%s", c, h, used, lastUsed, want,
					ansi.Strip(strings.Join(lines, "\n")))
			}
		}
	}
}

// TestGraphListShowsTheFocusAndInputs: a graph drawn as a list (where its
// lattice has no room) has a line per node in the lattice's order, each
// with the names of the nodes its edges come from; cut to its height, it
// keeps the focused node in view and counts the nodes left out.
func TestGraphListShowsTheFocusAndInputs(t *testing.T) {
	var g sims.GraphChart
	g.Title = "chain"
	for i := range 12 {
		n := sims.GraphNode{Col: i, Label: fmt.Sprintf("s%d op", i), Detail: fmt.Sprint(i)}
		if i == 9 {
			n.Tone = sims.ToneFocus
		}
		g.Nodes = append(g.Nodes, n)
		if i > 0 {
			g.Edges = append(g.Edges, sims.GraphEdge{From: i - 1, To: i})
		}
	}
	if mw, _ := MinSize(g); mw <= 30 {
		t.Fatalf("a 12-column lattice fits in 30 columns (min width %d): the test needs one that does not", mw)
	}
	small, ok := Compact(g)
	if !ok {
		t.Fatal("a graph has no compact form")
	}
	all := ansi.Strip(Render(small, 30, 14, Options{Mono: true}))
	lines := strings.Split(all, "\n")
	for i := 1; i < 12; i++ {
		node, in := fmt.Sprintf("s%d op %d", i, i), fmt.Sprintf("← s%d ", i-1)
		if j := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, node) }); j != i+1 || !strings.Contains(lines[j], in) {
			t.Errorf("node %q is not on line %d with %q:\n%s", node, i+1, in, all)
		}
	}
	cut := ansi.Strip(Render(small, 30, 6, Options{Mono: true}))
	if !strings.Contains(cut, "s9 op 9") || !strings.Contains(cut, "8 more nodes") {
		t.Errorf("cut to 6 lines the list lost the focused node s9 or the count of the rest:\n%s", cut)
	}
}

// TestMonoShowsTheSign: in monochrome a signed field drawn alone shows
// each sign in its own glyphs, darker with the magnitude, and leaves 0
// and a cell without a value blank (jacobian's most negative entries
// were blank like the columns not yet computed); under points it keeps
// the one ramp.
func TestMonoShowsTheSign(t *testing.T) {
	g := &sims.Grid{NX: 4, NY: 1, Z: []float64{-1, 0, 1, math.NaN()}, Scale: sims.Diverging, Lo: -1, Hi: 1}
	c := sims.CanvasChart{Title: "J", View: sims.Rect{XMin: 0, XMax: 4, YMin: 0, YMax: 1}, Heat: g}
	lines := RenderLines(c, 12, 5, Options{Mono: true}) // a value 3 columns wide
	row := []rune(ansi.Strip(lines[1]))
	at := func(x float64) rune { return row[int(3*x)] }
	if neg, zero, pos, none := at(0.5), at(1.5), at(2.5), at(3.5); !slices.Contains(negShades[1:], neg) ||
		zero != ' ' || pos != posShades[len(posShades)-1] || none != ' ' {
		t.Errorf("−1, 0, +1, none drawn %q %q %q %q in %q", neg, zero, pos, none, string(row))
	}
	s := newScale(g)
	for _, tc := range []struct {
		t    float64
		want rune
	}{{0, negShades[len(negShades)-1]}, {0.5, ' '}, {1, '█'}} {
		if got := monoShade(s, tc.t); got != tc.want {
			t.Errorf("monoShade(%g) = %q, want %q", tc.t, got, tc.want)
		}
	}
	c.Points = []sims.PointSet{{X: []float64{0.5}, Y: []float64{0.5}}}
	if row := []rune(ansi.Strip(RenderLines(c, 12, 5, Options{Mono: true})[1])); row[0] != ' ' {
		t.Errorf("under points the field's least value is not the one ramp's blank: %q", string(row))
	}
}

// TestViewEdgesAreInTheView: a marker on the view's right or bottom edge
// is drawn in the last column or row (logits' ● pinned to the edge of its
// t range vanished past it).
func TestViewEdgesAreInTheView(t *testing.T) {
	for _, m := range []sims.Marker{{X: 1, Y: 0.5}, {X: 0.5, Y: 0}, {X: 1, Y: 0}} {
		m.Glyph = '◆'
		c := sims.CanvasChart{Title: "edge", View: sims.Rect{XMin: 0, XMax: 1, YMin: 0, YMax: 1}, Markers: []sims.Marker{m}}
		if got := ansi.Strip(strings.Join(RenderLines(c, 30, 10, Options{Mono: true}), "\n")); !strings.Contains(got, "◆") {
			t.Errorf("marker at (%g, %g) not drawn:\n%s", m.X, m.Y, got)
		}
	}
}
