package sims

import (
	"fmt"
	"math"
)

// Frame is an immutable snapshot of a sim: the one data model that the TUI,
// the headless output and the tests all read.
//
// A Frame and every slice it holds are never written after the sim returns
// it. A sim may therefore share a slice that it never mutates (its data
// points, say) between successive Frames, but must copy anything it goes on
// updating.
type Frame struct {
	Sim     string   // the spec's name
	Step    int      // iterations completed
	Metrics []Metric // named scalars, in display order
	Charts  []Chart  // the pictures, in display order
	Text    []string // a few short lines shown under the charts
	// Primary is the index in Charts of the sim's hero picture, the one
	// a learner should look at first (gan's D(x) field, optimizers'
	// paths): the first chart unless set. A pane gives it the space
	// first: it is drawn largest, first (left or top), its legend keeps
	// its entries' names, and in a small pane the other charts yield
	// before it does (the zoom shows them).
	Primary int
}

// PrimaryChart returns the index of the hero picture in Charts: Primary
// when it is one, else 0 (-1 when there are no charts).
func (f Frame) PrimaryChart() int {
	if len(f.Charts) == 0 {
		return -1
	}
	if f.Primary < 0 || f.Primary >= len(f.Charts) {
		return 0
	}
	return f.Primary
}

// Metric is a named scalar. Name is the display name of one of the
// metrics its Spec declares (Spec.Metrics: its --json key and meaning).
// Untrusted marks a value that is computed but not to be relied on (an ESS
// while the chains disagree): the pane prints "—" for it, headless output
// keeps the number.
type Metric struct {
	Name      string
	Value     float64
	Untrusted bool
	// Undefined, when not "", says why the metric has no value now (ε of a
	// run that adds no noise is infinite; a held-out loss before its first
	// evaluation does not exist): Value is ignored, the pane prints "—"
	// and headless output writes null with this reason, never a stand-in
	// number such as -1 or 0 (MetricOr).
	Undefined string
	// Scale is the size of the quantities Value is computed from (the
	// function's value at the start, for a value that falls to a minimum
	// of 0; the numbers two ways of computing one thing give, for their
	// difference): a |Value| at most RoundingNoise times it is rounding
	// error and reads ≈ 0 on screen (Negligible). Left 0, a Runner sets
	// it to the largest |Value| of the metric it has published since the
	// sim was built. Headless output keeps the number.
	Scale float64
}

// RoundingNoise is the size, relative to a metric's Scale, at or below
// which its value is rounding error: 64 units in the last place of 1.
const RoundingNoise = 64 * 0x1p-52

// Negligible reports whether the metric's value is rounding error at its
// scale (f = 4e-17 at the minimum of an f that started at 10).
func (m Metric) Negligible() bool { return AtRounding(m.Value, m.Scale) }

// AtRounding reports whether x, not 0, is rounding error at scale: |x| at
// most RoundingNoise times it.
func AtRounding(x, scale float64) bool { return x != 0 && math.Abs(x) <= RoundingNoise*scale }

// NoiseFloor returns x, or the rounding-noise level of its scale
// (RoundingNoise·scale) when x is below it: a log chart of a quantity
// falling to 0 (an error, an angle) then ends in a flat line at that
// level rather than plotting rounding error between 1e-14 and 1e-17.
func NoiseFloor(x, scale float64) float64 { return math.Max(x, RoundingNoise*scale) }

// Residual formats x, a quantity that is 0 in exact arithmetic (an
// error, a marginal's defect, the gap between two ways of computing one
// thing), with the fmt verb: "0" when it is, and "≈ 0" when it is
// rounding error at scale (|x| ≤ RoundingNoise·scale), so that no note or
// table shows the digits of rounding noise (issue 26.8).
func Residual(verb string, x, scale float64) string {
	switch {
	case x == 0:
		return "0"
	case AtRounding(x, scale):
		return "≈ 0"
	}
	return fmt.Sprintf(verb, x)
}

// IsResidual is Residual as a relation, to follow the quantity's name:
// "≈ 0" at rounding level, else "= " and the value.
func IsResidual(verb string, x, scale float64) string {
	if AtRounding(x, scale) {
		return "≈ 0"
	}
	return "= " + Residual(verb, x, scale)
}

// FiniteOr returns x, or alt when x is NaN or infinite: a metric must be
// finite, and some are undefined early in a run or on some data.
func FiniteOr(x, alt float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return alt
	}
	return x
}

// MetricOr is the metric name = x when x is finite, else the metric
// undefined for the reason why.
func MetricOr(name string, x float64, why string) Metric {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return Metric{Name: name, Undefined: why}
	}
	return Metric{Name: name, Value: x}
}

// Metric returns the value of the named metric.
func (f Frame) Metric(name string) (float64, bool) {
	for _, m := range f.Metrics {
		if m.Name == name {
			return m.Value, true
		}
	}
	return 0, false
}

// Series returns the first series of that name in any line chart.
func (f Frame) Series(name string) (Series, bool) {
	for _, c := range f.Charts {
		if lc, ok := c.(LineChart); ok {
			for _, s := range lc.Series {
				if s.Name == name {
					return s, true
				}
			}
		}
	}
	return Series{}, false
}

// Chart is one picture in a Frame: a LineChart, CanvasChart, HistChart,
// BarChart, ImageChart, TableChart, GraphChart or NetworkChart. The set is sealed by the unexported method: a new kind of
// picture is added here, listed in ChartKinds, and drawn by every renderer
// (tui/chart), whose tests fail until it is.
type Chart interface {
	ChartTitle() string
	chart()
}

// ChartKinds returns an empty chart of every kind, so that a renderer's
// tests can check that it draws them all.
func ChartKinds() []Chart {
	return []Chart{LineChart{}, CanvasChart{}, HistChart{}, BarChart{}, ImageChart{}, TableChart{}, GraphChart{}, NetworkChart{}}
}

// LineChart draws curves against the step (or any evenly spaced x).
type LineChart struct {
	Title  string
	Series []Series
	// LogY draws log10(y); values at or below zero are floored at 1e-16
	// (the notes' advice for gaps that reach zero).
	LogY bool
	// X0 and X1 are the x values of the first and last point of the longest
	// series, for the axis ticks. Equal values mean "no x axis".
	X0, X1 float64
	XLabel string
	YLabel string
	// Fraction says the series never pass 1 (an accuracy, an acceptance
	// rate, a correlation, a likelihood ratio to its maximum): the y axis
	// stops at 1 rather than running to 1.5 around a constant 1.
	Fraction bool
}

// MaxClasses is the number of classes the categorical palette tells apart
// (Class 0..MaxClasses−1): a sim that colours components, clusters or
// topics by class offers at most this many.
const MaxClasses = 10

// Series is a named curve of evenly spaced y values. A NaN is no value
// at its x (drawn as a gap); ±Inf is drawn off scale.
type Series struct {
	Name  string
	Y     []float64
	Class int  // colour index in the categorical palette
	Bound bool // a theoretical bound or reference: drawn dotted
}

// CanvasChart is a 2-D picture in world coordinates: a coloured field,
// level lines of another field, labelled points, polylines and markers,
// layered in that order.
type CanvasChart struct {
	Title    string
	View     Rect   // world rectangle shown
	Heat     *Grid  // drawn as coloured background (or shade glyphs in monochrome)
	Bands    []Band // filled regions, drawn over Heat and under the rest
	Contours *Grid  // drawn as level lines
	Points   []PointSet
	Paths    []Path
	Markers  []Marker
	Legend   []string // Legend[i] names class i
	XLabel   string
	YLabel   string
	// XIndex and YIndex, when set, say that the axis counts the columns or
	// rows of a matrix drawn as Heat (an attention map, a Gram matrix, a
	// transport plan) instead of measuring: its range reads as the first
	// and last index, the indices' labels are drawn along it where they
	// fit, and the Heat gets a colour bar with its range.
	XIndex, YIndex *Index
}

// Index is an axis of a canvas that counts cells: indices First..Last,
// index k's cell centred at world coordinate At + k·Step (Step < 0 for
// rows numbered from the top; with maps side by side, the first map's).
type Index struct {
	First, Last int
	At, Step    float64
	// Labels, when it has Last−First+1 entries, names the indices (the
	// tokens of an attention map). Text from data is passed through
	// Visible first: the renderer draws it as it is.
	Labels []string
}

// Band is the region between the curves Lo and Hi over increasing X (a
// confidence band, say), filled with a dim tint of its class colour, or a
// light shade in monochrome.
type Band struct {
	X, Lo, Hi []float64
	Class     int
}

// Rect is an axis-aligned rectangle in world coordinates.
type Rect struct{ XMin, XMax, YMin, YMax float64 }

// Grid is a scalar field sampled at the centres of NX×NY cells tiling the
// chart's View. Z is row-major from the bottom row (y = YMin) upwards:
// Z[j*NX+i] is the value in column i, row j.
type Grid struct {
	NX, NY int
	Z      []float64
	Scale  ColorScale
	// Lo and Hi fix the colour range; when Lo >= Hi the data's range is used.
	Lo, Hi float64
	// Levels > 0 quantises the field into that many bands; contours are
	// drawn between bands.
	Levels int
	// Shade, when it has NX·NY values in [0, 1], sets each cell's
	// brightness (0 dim, 1 full): a class region's colour with its
	// confidence, say. Monochrome drawing ignores it.
	Shade []float64
}

// ColorScale says how grid values map to colour.
type ColorScale int

const (
	Sequential  ColorScale = iota // low to high on one ramp
	Diverging                     // two hues about the middle of [Lo, Hi]
	Categorical                   // integer values are class indices
	Grey                          // ink on paper: dark to white (images)
)

// PointSet is a set of 2-D points. Classes, when not nil, gives each point's
// class; otherwise every point has Class. Class -1 is "unlabelled".
type PointSet struct {
	Name    string
	X, Y    []float64
	Classes []int
	Class   int
	// Glyph draws each point as its class's glyph, one a cell, in colour
	// too, rather than as a braille dot: a set told apart from the others
	// without colour (generated points among real ones).
	Glyph bool
}

// Path is a polyline, e.g. an iterate path or an ellipse.
type Path struct {
	X, Y   []float64
	Class  int
	Dotted bool
}

// Marker is a single glyph at a world position, e.g. the current iterate.
type Marker struct {
	X, Y  float64
	Glyph rune
	Class int
}

// HistChart is a histogram of densities on equal bins spanning [Lo, Hi], with
// exact curves (such as the target density) drawn over it.
type HistChart struct {
	Title   string
	Lo, Hi  float64
	Density []float64 // per bin, normalised so that the bars integrate to one
	Curves  []Curve
	XLabel  string
	// Label names what the bars count in the legend ("samples" when empty).
	Label string
}

// Curve is y = f(x) at increasing x, drawn over a histogram.
type Curve struct {
	Name  string
	X, Y  []float64
	Class int
}

// BarChart draws labelled horizontal bars.
type BarChart struct {
	Title string
	Bars  []Bar
	// Max fixes the full-bar value; when zero the largest bar is used.
	Max float64
}

// Bar is one labelled bar.
type Bar struct {
	Label string
	Value float64
	Class int
}

// ImageChart draws small images side by side — digits, a layer's filters,
// a neuron's activation over the plane, a matrix of numbers — each a W×H
// grid of values drawn as half-block pixels (two pixels a cell, one above
// the other, enlarged when there is room and shrunk when there is not), or
// as its numbers when Numbers is set and they fit, with a caption under
// each. Images that do not fit are left out and counted in the title.
type ImageChart struct {
	Title  string
	Images []Image
	// Scale maps values to colour (Grey for pictures, Diverging for signed
	// weights, Sequential for counts); Lo and Hi fix the range for every
	// image, or when Lo >= Hi each image uses its own.
	Scale  ColorScale
	Lo, Hi float64
	// Columns > 0 starts a new row after every Columns images (a layer per
	// row); 0 fits as many in a row as the width allows.
	Columns int
	// Numbers prints each value in its cell (a numeric grid, a confusion
	// matrix) when the images fit that way.
	Numbers bool
}

// Image is one picture of an ImageChart: W×H values, row-major from the
// top row. A NaN is a value not there (yet): a blank cell.
type Image struct {
	Caption string
	W, H    int
	Pix     []float64
	// Mark outlines pixels [X0, X1) × [Y0, Y1) (a sliding window, the cell
	// being computed); none when X1 <= X0.
	Mark Window
	// RowLabels (H of them) and ColLabels (W) name the rows and columns of
	// a numeric image (a confusion matrix's classes); pixels ignore them.
	RowLabels, ColLabels []string
	// NewRow starts a new row of tiles at this image, as Columns does
	// for every row: a network's next layer, with its own number of maps.
	NewRow bool
}

// Window is a rectangle of pixels: columns X0..X1−1, rows Y0..Y1−1.
type Window struct{ X0, Y0, X1, Y1 int }

// Tone says how a table cell, a graph node or an edge stands out from the
// rest: a matrix entry not yet computed, a colour group, the entry the
// last step wrote.
type Tone uint8

const (
	TonePlain Tone = iota // the default ink
	ToneDim               // not there yet (an entry to compute, a node to visit): faint
	ToneInk               // drawn in its class colour (bold in monochrome)
	ToneFill              // on a tint of its class colour (its class glyph beside it in monochrome)
	ToneFocus             // what the last step did: bold, in its class colour, marked ▸ or double-framed
)

// TableChart is a grid of short texts under column headers, one labelled
// row each: a matrix filling entry by entry, a tape, a scoreboard. Texts
// are right-aligned in their columns. When the rows or columns do not fit,
// the renderer keeps the first ToneFocus cell in view and says how many
// are hidden.
type TableChart struct {
	Title   string
	Corner  string   // header of the row-label column
	Columns []string // column headers; nil for no header row
	Rows    []TableRow
	// Matrix says the cells form a matrix (a Jacobian, a sparsity
	// pattern): given room, its rows and columns spread apart so that it
	// keeps its shape. Other tables (a record a row) keep one line a row.
	Matrix bool
}

// TableRow is one row of a table: its label and cells (missing cells are
// blank).
type TableRow struct {
	Label string
	Cells []Cell
}

// Cell is one entry of a table. The table draws its Text; an export
// (WriteSeriesCSV) writes its Value, when it is Numeric. The zero Cell and
// a literal Cell{Text: …} are text ("·", "popped"): they carry no number.
// A cell that shows a number is built with Num, from the number itself,
// so that the text may round or decorate it ("✓ 0.333", "1.2±0.1",
// "≈ 0") while the export keeps every digit.
type Cell struct {
	Text    string
	Value   float64 // the number Text shows, when Numeric
	Class   int     // palette class, for ToneInk, ToneFill and ToneFocus
	Tone    Tone
	Numeric bool // Value holds the number the cell shows
}

// Num is a cell that shows text and holds the number x: text is the
// sim's own formatting of x (rounded, decorated: "✗ 1.5", "0.333±0.012"
// for the estimate 0.3331…), x is what an export writes. A non-finite x
// is a value too, written as an empty cell (WriteSeriesCSV).
func Num(x float64, text string) Cell {
	return Cell{Text: text, Value: x, Numeric: true}
}

// Styled is c drawn with tone in palette class class:
// Num(x, text).Styled(ToneInk, 2).
func (c Cell) Styled(tone Tone, class int) Cell {
	c.Tone, c.Class = tone, class
	return c
}

// GraphChart draws a graph as boxed labels on a lattice joined by edges:
// a computational graph laid out by depth, a sparsity graph with its
// colouring. The renderer sizes the lattice to the chart, draws a box
// with the node's Detail under its Label when the rows leave room (else one
// line, or only the label), and edges between the facing sides of boxes.
type GraphChart struct {
	Title  string
	Nodes  []GraphNode
	Edges  []GraphEdge
	Legend []string // Legend[i] names class i
}

// GraphNode is one node: its place on the lattice (columns left to right,
// rows top to bottom, both from 0), a short label that is always shown and
// a detail shown when there is room.
type GraphNode struct {
	Col, Row int
	Label    string
	Detail   string
	Class    int
	Tone     Tone
}

// GraphEdge joins nodes From and To (indices into Nodes).
type GraphEdge struct {
	From, To int
	Class    int
	Tone     Tone
}

// NetworkChart draws a layered network as TensorFlow Playground does: a
// column per layer, inputs first and outputs last, each unit a labelled
// thumbnail of what it computes (over the plane, say), and between
// consecutive layers every weight as a line whose colour says its sign
// (the thumbnails' diverging ramp: a positive weight in the colour of
// positive values) and whose thickness and strength say its size. Where
// the lines have no room the renderer draws the strongest ones and says
// how many it left out, or the thumbnails alone.
type NetworkChart struct {
	Title  string
	Layers []NetLayer
	// Scale maps the thumbnails' values to colour; Lo and Hi fix the
	// range for every thumbnail, or when Lo >= Hi each uses its own (as
	// an ImageChart's).
	Scale  ColorScale
	Lo, Hi float64
}

// NetLayer is one layer of a NetworkChart: its name ("inputs", "L1"),
// drawn over its column when there is room; a thumbnail per unit, its
// Caption the unit's label beside it ("x²", "n3"); and the weights into
// the layer from the one before: In[i*len(Units)+j] joins unit i there to
// unit j here (a weight matrix in the row layout, inputs down, outputs
// across). Names and captions are drawn as they are (text from data
// passes through Visible first). The first layer has no In; a layer whose
// In is not that long is drawn without its lines.
type NetLayer struct {
	Name  string
	Units []Image
	In    []float64
}

func (c LineChart) ChartTitle() string    { return c.Title }
func (c CanvasChart) ChartTitle() string  { return c.Title }
func (c HistChart) ChartTitle() string    { return c.Title }
func (c BarChart) ChartTitle() string     { return c.Title }
func (c ImageChart) ChartTitle() string   { return c.Title }
func (c TableChart) ChartTitle() string   { return c.Title }
func (c GraphChart) ChartTitle() string   { return c.Title }
func (c NetworkChart) ChartTitle() string { return c.Title }

func (LineChart) chart()    {}
func (CanvasChart) chart()  {}
func (HistChart) chart()    {}
func (BarChart) chart()     {}
func (ImageChart) chart()   {}
func (TableChart) chart()   {}
func (GraphChart) chart()   {}
func (NetworkChart) chart() {}
