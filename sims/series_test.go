package sims

import (
	"encoding/csv"
	"math"
	"slices"
	"strings"
	"testing"
)

func TestWriteSeriesCSV(t *testing.T) {
	f := Frame{Charts: []Chart{
		LineChart{Title: "loss", X0: 0, X1: 40, Series: []Series{
			{Name: "f", Y: []float64{4, 2, 1}}, {Name: "bound", Y: []float64{5, math.Inf(1)}, Class: 1},
		}},
		HistChart{Title: "draws", Lo: 0, Hi: 2, Density: []float64{0.25, 0.75},
			Curves: []Curve{{Name: "target", X: []float64{0, 2}, Y: []float64{0.1, 0.9}, Class: 2}}},
		CanvasChart{Points: []PointSet{{Name: "data", X: []float64{1, 2}, Y: []float64{3, 4}, Classes: []int{0, 1}}},
			Paths:   []Path{{X: []float64{0}, Y: []float64{1}, Class: 3}},
			Markers: []Marker{{X: 5, Y: 6, Glyph: '●'}}},
		BarChart{Title: "weights", Bars: []Bar{{Label: "π₁, first", Value: 0.4}}},
		TableChart{Title: "J", Columns: []string{"x1", ""}, Rows: []TableRow{
			{Label: "f1", Cells: []Cell{Num(1.5, "1.5").Styled(ToneInk, 1), Num(-2, "✗ -2")}}, {Label: "f2", Cells: []Cell{{Text: "·"}}}}},
		GraphChart{Title: "g", Nodes: []GraphNode{{Col: 2, Row: 1, Label: "s2 ×", Class: 3}}},
		NetworkChart{Title: "net", Layers: []NetLayer{
			{Units: []Image{{Caption: "x", W: 2, H: 1, Pix: []float64{-1, 1}}, {W: 1, H: 1, Pix: []float64{0.5}}}},
			{Name: "out", Units: []Image{{W: 1, H: 1, Pix: []float64{0.25}}}, In: []float64{2, -3}},
		}},
	}}
	rows := csvRecords(t, f)
	want := [][]string{
		SeriesHeader,
		{"loss", "f", "0", "4", "0"}, {"loss", "f", "20", "2", "0"}, {"loss", "f", "40", "1", "0"},
		{"loss", "bound", "0", "5", "1"}, {"loss", "bound", "20", "", "1"},
		{"draws", "samples", "0.5", "0.25", "0"}, {"draws", "samples", "1.5", "0.75", "0"},
		{"draws", "target", "0", "0.1", "2"}, {"draws", "target", "2", "0.9", "2"},
		{"chart 3", "data", "1", "3", "0"}, {"chart 3", "data", "2", "4", "1"},
		{"chart 3", "path 1", "0", "1", "3"},
		{"chart 3", "marker ●", "5", "6", "0"},
		{"weights", "π₁, first", "π₁, first", "0.4", "0"},
		{"J", "f1", "x1", "1.5", "1"}, {"J", "f1", "2", "-2", "0"},
		{"g", "s2 ×", "2", "1", "3"},
		{"net", "layer 0 x", "0:0", "-1", "0"}, {"net", "layer 0 x", "0:1", "1", "0"}, {"net", "layer 0 unit 1", "0:0", "0.5", "0"},
		{"net", "out unit 0", "0:0", "0.25", "0"},
		{"net", "weights into out", "0→0", "2", "0"}, {"net", "weights into out", "1→0", "-3", "0"},
	}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d:\n%q", len(rows), len(want), rows)
	}
	for i := range want {
		if !slices.Equal(rows[i], want[i]) {
			t.Errorf("row %d: %q, want %q", i, rows[i], want[i])
		}
	}
}

// TestWriteSeriesCSVEveryKind: every kind of chart has a CSV form.
func TestWriteSeriesCSVEveryKind(t *testing.T) {
	var b strings.Builder
	if err := WriteSeriesCSV(&b, Frame{Charts: ChartKinds()}); err != nil {
		t.Error(err)
	}
}

// TestWriteSeriesCSVTableValues: a table exports its cells' values, not
// their texts, which round or decorate them (issue 28.9); a text cell is
// not a row, even when its text reads as a number.
func TestWriteSeriesCSVTableValues(t *testing.T) {
	third := 1.0 / 3
	f := Frame{Charts: []Chart{TableChart{Title: "φ", Corner: "player", Columns: []string{"exact", "perm ±2se", "tol"}, Rows: []TableRow{
		{Label: "1", Cells: []Cell{Num(third, "✓ 0.333").Styled(ToneInk, 2), Num(1.2345, "1.2±0.1"), Num(1e-3, "0.001")}},
		{Label: "2", Cells: []Cell{{Text: "·", Tone: ToneDim}, {Text: "—"}, {Text: "7"}, Num(-2.5e-17, "≈ 0")}},
		{Label: "3", Cells: []Cell{Num(math.Inf(1), "∞"), Num(math.NaN(), "—"), {}}},
	}}}}
	rows := csvRecords(t, f)
	want := [][]string{
		SeriesHeader,
		{"φ", "1", "exact", "0.3333333333333333", "2"}, {"φ", "1", "perm ±2se", "1.2345", "0"}, {"φ", "1", "tol", "0.001", "0"},
		{"φ", "2", "4", "-2.5e-17", "0"},
		{"φ", "3", "exact", "", "0"}, {"φ", "3", "perm ±2se", "", "0"},
	}
	if !slices.EqualFunc(rows, want, slices.Equal) {
		t.Errorf("got\n%q\nwant\n%q", rows, want)
	}
}

// TestCellText: Num keeps the text it is given; a literal Cell is text.
func TestCellText(t *testing.T) {
	c := Num(0.125, "✗ 0.13").Styled(ToneFocus, 3)
	if c.Text != "✗ 0.13" || c.Value != 0.125 || !c.Numeric || c.Tone != ToneFocus || c.Class != 3 {
		t.Errorf("Num(0.125, \"✗ 0.13\").Styled(ToneFocus, 3) = %+v", c)
	}
	if c := (Cell{Text: "0.5"}); c.Numeric {
		t.Errorf("%+v is numeric", c)
	}
}

// csvRecords is f's WriteSeriesCSV, read back as CSV records.
func csvRecords(t *testing.T, f Frame) [][]string {
	t.Helper()
	var b strings.Builder
	if err := WriteSeriesCSV(&b, f); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(strings.NewReader(b.String())).ReadAll()
	if err != nil {
		t.Fatalf("not CSV: %v\n%s", err, b.String())
	}
	return rows
}
