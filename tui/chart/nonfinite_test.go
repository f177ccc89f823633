package chart

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/thelab/lab/sims"
)

// renderBudget is how long one chart may take to draw in the tests below,
// far above the milliseconds it takes, so that a loop that depends on the
// data for its end fails the test rather than hangs it.
const renderBudget = 10 * time.Second

// renderWithin draws c as RenderLines does, failing t if it takes longer
// than renderBudget or if its lines are not exactly h lines of width w.
func renderWithin(t testing.TB, c sims.Chart, w, h int, o Options) []string {
	t.Helper()
	done := make(chan []string, 1)
	go func() { done <- RenderLines(c, w, h, o) }()
	var lines []string
	select {
	case lines = <-done:
	case <-time.After(renderBudget):
		t.Fatalf("%T %q at %dx%d: not drawn within %v", c, c.ChartTitle(), w, h, renderBudget)
	}
	if len(lines) != h {
		t.Fatalf("%T %q at %dx%d: %d lines", c, c.ChartTitle(), w, h, len(lines))
	}
	for i, l := range lines {
		if got := ansi.StringWidth(l); got != w {
			t.Fatalf("%T %q at %dx%d: line %d is %d wide: %q", c, c.ChartTitle(), w, h, i, got, ansi.Strip(l))
		}
	}
	return lines
}

// floats reads data as little-endian float64s (a trailing part ignored).
func floats(data []byte) []float64 {
	out := make([]float64, len(data)/8)
	for i := range out {
		out[i] = math.Float64frombits(binary.LittleEndian.Uint64(data[8*i:]))
	}
	return out
}

func bytesOf(y []float64) []byte {
	out := make([]byte, 8*len(y))
	for i, v := range y {
		binary.LittleEndian.PutUint64(out[8*i:], math.Float64bits(v))
	}
	return out
}

// cyclic is y[i] wrapped around, or 0 for no values.
func cyclic(y []float64, i int) float64 {
	if len(y) == 0 {
		return 0
	}
	return y[i%len(y)]
}

// chartsOf makes a chart of every kind from the values y: they are a
// line's points (and on a log scale), its x range, a canvas's view,
// points, path, markers, heat field and band, a histogram's range,
// densities and curve, bars and their full value, an image's pixels and
// its colour range (as pixels and as numbers), a table's texts and a
// graph's lattice places.
func chartsOf(y []float64) []sims.Chart {
	half := len(y) / 2
	line := sims.LineChart{Title: "line", X0: cyclic(y, 0), X1: cyclic(y, 1), XLabel: "x",
		Series: []sims.Series{{Name: "a", Y: y}, {Name: "b", Y: y[half:], Class: 1, Bound: true}}}
	logLine := line
	logLine.Title, logLine.LogY = "log line", true

	side := max(1, int(math.Sqrt(float64(len(y)))))
	grid := &sims.Grid{NX: side, NY: len(y) / side, Z: y, Lo: cyclic(y, 2), Hi: cyclic(y, 3), Levels: len(y) % 5, Shade: y}
	canvas := sims.CanvasChart{Title: "canvas",
		View:    sims.Rect{XMin: cyclic(y, 0), XMax: cyclic(y, 1), YMin: cyclic(y, 2), YMax: cyclic(y, 3)},
		Heat:    grid,
		Bands:   []sims.Band{{X: y, Lo: y[half:], Hi: y}},
		Points:  []sims.PointSet{{X: y, Y: y[half:]}},
		Paths:   []sims.Path{{X: y[half:], Y: y, Dotted: true}, {X: y, Y: y[half:], Class: 2}},
		Markers: []sims.Marker{{X: cyclic(y, 4), Y: cyclic(y, 5), Glyph: '●'}},
		Legend:  []string{"a", "b"}}
	inView := canvas
	inView.Title, inView.View, inView.Contours = "canvas, unit view", sims.Rect{XMin: -1, XMax: 1, YMin: -1, YMax: 1}, grid

	hist := sims.HistChart{Title: "hist", Lo: cyclic(y, 0), Hi: cyclic(y, 1), Density: y,
		Curves: []sims.Curve{{Name: "exact", X: y, Y: y[half:]}}}
	unitHist := hist
	unitHist.Title, unitHist.Lo, unitHist.Hi = "hist, unit range", 0, 1

	bars := sims.BarChart{Title: "bars", Max: cyclic(y, 0)}
	table := sims.TableChart{Title: "table", Corner: "k", Columns: []string{"v", "v²"}}
	graph := sims.GraphChart{Title: "graph", Legend: []string{"a"}}
	for i, v := range y {
		bars.Bars = append(bars.Bars, sims.Bar{Label: fmt.Sprint(i), Value: v, Class: i})
		table.Rows = append(table.Rows, sims.TableRow{Label: fmt.Sprint(i),
			Cells: []sims.Cell{{Text: fmt.Sprint(v)}, {Text: fmt.Sprint(v * v), Tone: sims.Tone(i % 5)}}})
		// Lattice places from the bits: negative and overlapping ones too.
		bits := math.Float64bits(v)
		graph.Nodes = append(graph.Nodes, sims.GraphNode{Col: int(int8(bits)) % 4, Row: int(int8(bits>>8)) % 3,
			Label: fmt.Sprint(v), Detail: "d", Tone: sims.Tone(i % 5)})
		graph.Edges = append(graph.Edges, sims.GraphEdge{From: i, To: int(bits>>16) % len(y)})
	}

	im := sims.Image{Caption: "im", W: side, H: len(y) / side, Pix: y, Mark: sims.Window{X1: 1, Y1: 1}}
	images := sims.ImageChart{Title: "images", Images: []sims.Image{im, im}, Scale: sims.Diverging, Lo: cyclic(y, 0), Hi: cyclic(y, 1)}
	numbers := images
	numbers.Title, numbers.Numbers, numbers.Scale = "numbers", true, sims.Sequential

	// A network of the values as thumbnails and weights: layers of 1 to 3
	// units, their weights taken from y in turn.
	network := sims.NetworkChart{Title: "network", Scale: sims.Diverging, Lo: cyclic(y, 0), Hi: cyclic(y, 1)}
	for k := range 4 {
		ly := sims.NetLayer{Name: fmt.Sprint("L", k)}
		for u := range 1 + k%3 {
			ly.Units = append(ly.Units, sims.Image{Caption: fmt.Sprint(u), W: im.W, H: im.H, Pix: y})
		}
		if k > 0 {
			for i := range len(network.Layers[k-1].Units) * len(ly.Units) {
				ly.In = append(ly.In, cyclic(y, i+k))
			}
		}
		network.Layers = append(network.Layers, ly)
	}
	return []sims.Chart{line, logLine, canvas, inView, hist, unitHist, bars, images, numbers, table, graph, network}
}

// nastySeries are the series a renderer is most likely to choke on: not
// finite, signed zeros, denormals, the ends of float64, ranges too wide
// for float64 and too narrow to tell apart, constants, nothing.
var nastySeries = [][]float64{
	{},                                   // empty
	{0.5},                                // one point
	{math.Inf(1)},                        // one point, off scale
	{math.NaN(), math.NaN(), math.NaN()}, // NaN
	{math.Inf(1), 1, 2},                  // +Inf
	{1, math.Inf(-1), 2},                 // -Inf
	{math.Inf(-1), math.Inf(1), math.Inf(-1), math.Inf(1)},                    // ±Inf
	{1, math.NaN(), 3, math.NaN(), 2, 4},                                      // NaN among
	{math.Copysign(0, -1), 0, math.Copysign(0, -1)},                           // -0
	{5e-324, 1e-323, 5e-324, 0},                                               // denormal
	{-5e-324, 5e-324, -5e-324, 5e-324},                                        // ±denormal
	{-1e308, 1e308, -1e308, 1e308, 0, 1},                                      // ±1e308
	{math.MaxFloat64, -math.MaxFloat64, math.MaxFloat64},                      // max
	{-1.7e308, 0, 1.7e308, 1},                                                 // huge range
	{1, 1 + 1e-15, 1 - 1e-15, 1},                                              // tiny range
	{1e20, 1e20 + 16384, 1e20},                                                // tiny at 1e20
	{3, 3, 3, 3, 3, 3},                                                        // constant
	{1e300, 1e300, 1e300},                                                     // constant 1e300
	{0, -1, math.NaN(), 2e300, math.Inf(1), 1e-310, -3, 7, math.Inf(-1), 1e5}, // mixed
	{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},                    // ramp
	{1, -10, 100, -1e17, 1e36, -1e55, 1e150, -1e250, 1e304, -1e305},           // diverging
}

// FuzzRender draws a chart of every kind (chartsOf) from arbitrary numbers
// at an arbitrary size, in colour or not: it must not panic, must finish
// within renderBudget and must fill exactly h lines of width w. The seed
// corpus (nastySeries at a few sizes) is what `go test` runs.
func FuzzRender(f *testing.F) {
	for _, y := range nastySeries {
		for _, size := range [][2]uint8{{80, 24}, {26, 9}, {17, 5}} {
			f.Add(bytesOf(y), size[0], size[1], size[0] == 26)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, w, h uint8, mono bool) {
		y := floats(data)
		if len(y) > 512 {
			y = y[:512] // the data's length is not what is tested
		}
		for _, c := range chartsOf(y) {
			renderWithin(t, c, 1+int(w)%200, 1+int(h)%70, Options{Mono: mono})
		}
	})
}

// TestNonFiniteData pins how each kind of chart draws what is not finite
// or beyond axisLimit: a NaN is a value not there (a gap, no bar, no
// point); ±Inf and finite values beyond ±axisLimit are off scale, drawn
// at the edge of a scale over the finite values and counted in the
// title; a range that cannot be an axis is said, not drawn.
func TestNonFiniteData(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	ramp := []float64{1, 2, 3, 4, 5}
	for _, tt := range []struct {
		name  string
		chart sims.Chart
		want  []string // in the drawing
		not   []string // nowhere in it
	}{
		{"a NaN is a gap", sims.LineChart{Title: "y", Series: []sims.Series{{Name: "y", Y: []float64{1, 2, nan, 4, 5}}}},
			[]string{"─╴", "╶─"}, []string{"off scale", "NaN"}},
		{"+Inf is off scale, the axis over the rest", sims.LineChart{Title: "y", Series: []sims.Series{{Name: "y", Y: []float64{1, 2, inf, 4, 5}}}},
			[]string{"(1 off scale)", "5┤"}, []string{"Inf", "e+"}},
		{"beyond ±1e300 is off scale", sims.LineChart{Title: "y", Series: []sims.Series{{Name: "y", Y: []float64{1, 2, -1e305, 4, 5}}}},
			[]string{"(1 off scale)", "5┤"}, []string{"e+"}},
		{"every value off scale: at the limit", sims.LineChart{Title: "y", Series: []sims.Series{{Name: "y", Y: []float64{1e305, 1e306}}}},
			[]string{"(2 off scale)", "1.00e+300┤"}, nil},
		{"nothing finite", sims.LineChart{Title: "y", Series: []sims.Series{{Name: "y", Y: []float64{nan, nan}}}},
			[]string{"no finite values"}, nil},
		{"+Inf on a log scale", sims.LineChart{Title: "y", LogY: true, Series: []sims.Series{{Name: "y", Y: []float64{1, 10, inf, 100}}}},
			[]string{"(log scale) (1 off scale)", "100┤"}, nil},
		{"only +Inf, on a log scale: at its limit", sims.LineChart{Title: "y", LogY: true, Series: []sims.Series{{Name: "y", Y: []float64{inf}}}},
			[]string{"(log scale) (1 off scale)", "1e+300┤"}, nil},
		{"a range too narrow is a constant", sims.LineChart{Title: "y", Series: []sims.Series{{Name: "y", Y: []float64{1, 1 + 1e-15}}}},
			[]string{"1.00┼", "1.10┤"}, nil},
		{"an x range not finite: no x axis", sims.LineChart{Title: "y", X0: -inf, X1: inf, Series: []sims.Series{{Name: "y", Y: ramp}}},
			nil, []string{"└"}},
		{"a histogram's range not finite", sims.HistChart{Title: "h", Lo: -inf, Hi: inf, Density: ramp},
			[]string{"off scale: x -Inf…+Inf"}, []string{"█"}},
		{"a histogram over ±1e308", sims.HistChart{Title: "h", Lo: -1e308, Hi: 1e308, Density: ramp},
			[]string{"off scale: x -1.0e+308…1.0e+308"}, nil},
		{"a density at +Inf", sims.HistChart{Title: "h", Lo: 0, Hi: 1, Density: []float64{1, inf, nan, 2}},
			[]string{"(density) (1 off scale)", "2.1"}, []string{"Inf"}},
		{"a canvas's view not finite", sims.CanvasChart{Title: "c", View: sims.Rect{XMin: 0, XMax: inf, YMin: 0, YMax: 1}},
			[]string{"off scale: x 0…+Inf"}, nil},
		{"bars: NaN has none, +Inf fills its row", sims.BarChart{Title: "b", Bars: []sims.Bar{{Label: "a", Value: 1}, {Label: "n", Value: nan}, {Label: "i", Value: inf}}},
			[]string{"n  NaN", "i ████"}, nil},
	} {
		lines := renderWithin(t, tt.chart, 40, 12, Options{Mono: true})
		out := ansi.Strip(strings.Join(lines, "\n"))
		for _, s := range tt.want {
			if !strings.Contains(out, s) {
				t.Errorf("%s: no %q in\n%s", tt.name, s, out)
			}
		}
		for _, s := range tt.not {
			if strings.Contains(out, s) {
				t.Errorf("%s: %q in\n%s", tt.name, s, out)
			}
		}
	}
}

// TestFarSegmentsAreClipped: a path to points far outside the view
// (1e300) is drawn where it crosses the view, as far as the edge, at the
// cost of a segment across the canvas.
func TestFarSegmentsAreClipped(t *testing.T) {
	view := sims.Rect{XMin: -1, XMax: 1, YMin: -1, YMax: 1}
	for _, tt := range []struct {
		name string
		path sims.Path
	}{
		{"across", sims.Path{X: []float64{-1e300, 1e300}, Y: []float64{0.1, 0.1}}},
		{"out of the middle", sims.Path{X: []float64{0, 1e300}, Y: []float64{0, 0}}},
		{"in from afar", sims.Path{X: []float64{-1e300, 0}, Y: []float64{-1e300, 0}}},
	} {
		c := sims.CanvasChart{Title: tt.name, View: view, Paths: []sims.Path{tt.path}}
		lines := renderWithin(t, c, 40, 12, Options{Mono: true})
		drawn := 0
		for _, l := range lines[1 : len(lines)-1] {
			for _, r := range l {
				if r > 0x2800 && r <= 0x28ff {
					drawn++
				}
			}
		}
		if drawn < 18 {
			t.Errorf("%s: %d cells drawn, want the half of the canvas's 40 columns it crosses:\n%s", tt.name, drawn, strings.Join(lines, "\n"))
		}
	}
}
