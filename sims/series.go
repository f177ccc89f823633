package sims

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
)

// SeriesHeader is the header row of WriteSeriesCSV.
var SeriesHeader = []string{"chart", "series", "x", "y", "class"}

// WriteSeriesCSV writes every series of a Frame's charts as CSV in long
// form, one point per row under SeriesHeader (`lab run --series`, the
// TUI's export):
//
//   - a line chart's series: x runs evenly from X0 to X1 over the longest
//     series (the step, or whatever the chart's x axis is; the index when
//     the chart has no x axis), y is the value;
//   - a histogram: its bars as the series named by its Label ("samples"
//     when empty), x the bin's centre and y the density; then its curves;
//   - a canvas: its point sets (class per point), paths ("path 1", …) and
//     markers; its fields (Heat, Contours) are grids, not series, and are
//     left out;
//   - a bar chart: one row per bar, x its label and y its value;
//   - a table: one row per numeric cell (Cell.Numeric), y the cell's
//     Value, not its text (which may round or decorate it), series the
//     row's label, x the column's header (its number, from 1, when it has
//     none); a text cell ("·", "—") is not a row;
//   - a graph: one row per node, series its label, x and y its lattice
//     column and row;
//   - an image chart: one row per pixel, series the image's caption
//     ("image N" when it has none), x its "row:column" (from 0, top left)
//     and y its value (a NaN, a pixel not there yet, an empty cell);
//   - a network: its thumbnails as an image chart's, series the layer's
//     name and the unit's caption ("L1 n3"; "layer L" and "unit U", from
//     0, for those missing), then its weights, series "weights into" the
//     layer's name, x "i→j" (unit i of the layer before to unit j, from
//     0) and y the weight.
//
// The chart column is the chart's title ("chart N" when it has none); a
// value that is not finite is an empty cell.
func WriteSeriesCSV(w io.Writer, f Frame) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(SeriesHeader); err != nil {
		return err
	}
	for i, c := range f.Charts {
		r := seriesRows{cw: cw, chart: c.ChartTitle()}
		if r.chart == "" {
			r.chart = "chart " + strconv.Itoa(i+1)
		}
		switch c := c.(type) {
		case LineChart:
			lineRows(r, c)
		case HistChart:
			histRows(r, c)
		case CanvasChart:
			canvasRows(r, c)
		case BarChart:
			barRows(r, c)
		case TableChart:
			tableRows(r, c)
		case GraphChart:
			graphRows(r, c)
		case ImageChart:
			imageRows(r, c)
		case NetworkChart:
			networkRows(r, c)
		default:
			return fmt.Errorf("sims: no CSV form for chart %T", c)
		}
	}
	cw.Flush()
	return cw.Error()
}

// seriesRows writes the rows of one chart. A write's error is the csv
// Writer's, which WriteSeriesCSV reports when it flushes.
type seriesRows struct {
	cw    *csv.Writer
	chart string // the chart column
}

// row writes one point.
func (r seriesRows) row(series, x string, y float64, class int) {
	r.cw.Write([]string{r.chart, series, x, csvNum(y), strconv.Itoa(class)})
}

// xy writes the points (x[j], y[j]) of a curve or path.
func (r seriesRows) xy(series string, x, y []float64, class int) {
	for j := range min(len(x), len(y)) {
		r.row(series, csvNum(x[j]), y[j], class)
	}
}

// pixels writes an image's pixels, x their "row:column".
func (r seriesRows) pixels(series string, im Image) {
	if im.W <= 0 {
		return
	}
	for p, v := range im.Pix[:min(len(im.Pix), im.W*im.H)] {
		r.row(series, strconv.Itoa(p/im.W)+":"+strconv.Itoa(p%im.W), v, 0)
	}
}

func lineRows(r seriesRows, c LineChart) {
	n := 0
	for _, s := range c.Series {
		n = max(n, len(s.Y))
	}
	for _, s := range c.Series {
		for j, y := range s.Y {
			x := float64(j)
			if c.X1 > c.X0 && n > 1 {
				x = c.X0 + (c.X1-c.X0)*float64(j)/float64(n-1)
			}
			r.row(s.Name, csvNum(x), y, s.Class)
		}
	}
}

func histRows(r seriesRows, c HistChart) {
	label := c.Label
	if label == "" {
		label = "samples"
	}
	width := (c.Hi - c.Lo) / float64(max(1, len(c.Density)))
	for j, d := range c.Density {
		r.row(label, csvNum(c.Lo+(float64(j)+0.5)*width), d, 0)
	}
	for _, cv := range c.Curves {
		r.xy(cv.Name, cv.X, cv.Y, cv.Class)
	}
}

func canvasRows(r seriesRows, c CanvasChart) {
	for j, ps := range c.Points {
		name := ps.Name
		if name == "" {
			name = "points " + strconv.Itoa(j+1)
		}
		for k := range min(len(ps.X), len(ps.Y)) {
			class := ps.Class
			if k < len(ps.Classes) {
				class = ps.Classes[k]
			}
			r.row(name, csvNum(ps.X[k]), ps.Y[k], class)
		}
	}
	for j, p := range c.Paths {
		r.xy("path "+strconv.Itoa(j+1), p.X, p.Y, p.Class)
	}
	for _, m := range c.Markers {
		r.row("marker "+string(m.Glyph), csvNum(m.X), m.Y, m.Class)
	}
}

func barRows(r seriesRows, c BarChart) {
	for _, b := range c.Bars {
		r.row(b.Label, b.Label, b.Value, b.Class)
	}
}

// tableRows writes a table's numeric cells from their values: the text
// is for the eye and is never read back.
func tableRows(r seriesRows, c TableChart) {
	for _, row := range c.Rows {
		for j, cell := range row.Cells {
			if !cell.Numeric {
				continue
			}
			x := strconv.Itoa(j + 1)
			if j < len(c.Columns) && c.Columns[j] != "" {
				x = c.Columns[j]
			}
			r.row(row.Label, x, cell.Value, cell.Class)
		}
	}
}

func graphRows(r seriesRows, c GraphChart) {
	for _, n := range c.Nodes {
		r.row(n.Label, strconv.Itoa(n.Col), float64(n.Row), n.Class)
	}
}

func imageRows(r seriesRows, c ImageChart) {
	for j, im := range c.Images {
		name := im.Caption
		if name == "" {
			name = "image " + strconv.Itoa(j+1)
		}
		r.pixels(name, im)
	}
}

func networkRows(r seriesRows, c NetworkChart) {
	layerName := func(l int) string {
		if name := c.Layers[l].Name; name != "" {
			return name
		}
		return "layer " + strconv.Itoa(l)
	}
	for l, layer := range c.Layers {
		for u, im := range layer.Units {
			unit := im.Caption
			if unit == "" {
				unit = "unit " + strconv.Itoa(u)
			}
			r.pixels(layerName(l)+" "+unit, im)
		}
	}
	for l, layer := range c.Layers {
		if out := len(layer.Units); l > 0 && out > 0 && len(layer.In) == len(c.Layers[l-1].Units)*out {
			for k, w := range layer.In {
				r.row("weights into "+layerName(l), strconv.Itoa(k/out)+"→"+strconv.Itoa(k%out), w, 0)
			}
		}
	}
}

// csvNum is a number as CSV text: the shortest exact form, empty when it
// is not finite.
func csvNum(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return ""
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}
