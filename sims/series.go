package sims

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
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
//   - a table: one row per cell whose text is a number (after a leading
//     ✓ or ✗), series the row's label, x the column's header;
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
		title := c.ChartTitle()
		if title == "" {
			title = "chart " + strconv.Itoa(i+1)
		}
		row := func(series, x string, y float64, class int) {
			cw.Write([]string{title, series, x, csvNum(y), strconv.Itoa(class)})
		}
		xy := func(series string, x, y []float64, class int) {
			for j := range min(len(x), len(y)) {
				row(series, csvNum(x[j]), y[j], class)
			}
		}
		pixels := func(series string, im Image) {
			if im.W <= 0 {
				return
			}
			for p, v := range im.Pix[:min(len(im.Pix), im.W*im.H)] {
				row(series, strconv.Itoa(p/im.W)+":"+strconv.Itoa(p%im.W), v, 0)
			}
		}
		switch c := c.(type) {
		case LineChart:
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
					row(s.Name, csvNum(x), y, s.Class)
				}
			}
		case HistChart:
			label := c.Label
			if label == "" {
				label = "samples"
			}
			width := (c.Hi - c.Lo) / float64(max(1, len(c.Density)))
			for j, d := range c.Density {
				row(label, csvNum(c.Lo+(float64(j)+0.5)*width), d, 0)
			}
			for _, cv := range c.Curves {
				xy(cv.Name, cv.X, cv.Y, cv.Class)
			}
		case CanvasChart:
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
					row(name, csvNum(ps.X[k]), ps.Y[k], class)
				}
			}
			for j, p := range c.Paths {
				xy("path "+strconv.Itoa(j+1), p.X, p.Y, p.Class)
			}
			for _, m := range c.Markers {
				row("marker "+string(m.Glyph), csvNum(m.X), m.Y, m.Class)
			}
		case BarChart:
			for _, b := range c.Bars {
				row(b.Label, b.Label, b.Value, b.Class)
			}
		case TableChart:
			for _, r := range c.Rows {
				for j, cell := range r.Cells {
					v, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimLeft(cell.Text, "✓✗ ")), 64)
					if err != nil {
						continue
					}
					x := strconv.Itoa(j + 1)
					if j < len(c.Columns) && c.Columns[j] != "" {
						x = c.Columns[j]
					}
					row(r.Label, x, v, cell.Class)
				}
			}
		case GraphChart:
			for _, n := range c.Nodes {
				row(n.Label, strconv.Itoa(n.Col), float64(n.Row), n.Class)
			}
		case ImageChart:
			for j, im := range c.Images {
				name := im.Caption
				if name == "" {
					name = "image " + strconv.Itoa(j+1)
				}
				pixels(name, im)
			}
		case NetworkChart:
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
					pixels(layerName(l)+" "+unit, im)
				}
			}
			for l, layer := range c.Layers {
				if out := len(layer.Units); l > 0 && out > 0 && len(layer.In) == len(c.Layers[l-1].Units)*out {
					for k, w := range layer.In {
						row("weights into "+layerName(l), strconv.Itoa(k/out)+"→"+strconv.Itoa(k%out), w, 0)
					}
				}
			}
		default:
			return fmt.Errorf("sims: no CSV form for chart %T", c)
		}
	}
	cw.Flush()
	return cw.Error()
}

// csvNum is a number as CSV text: the shortest exact form, empty when it
// is not finite.
func csvNum(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return ""
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}
