package sims

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestReadCSV(t *testing.T) {
	tab, err := ReadCSV(strings.NewReader("x, y,label\n# a comment\n1,2,0\n\n3.5,-4e-1,1\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(tab.Columns, "|"); got != "x|y|label" {
		t.Errorf("columns %q", got)
	}
	if len(tab.Rows) != 2 || tab.Rows[1][0] != 3.5 || tab.Rows[1][1] != -0.4 {
		t.Errorf("rows %v", tab.Rows)
	}
	if tab.Column("label") != 2 || tab.Column("z") != -1 {
		t.Error("Column lookup")
	}
	// The rows' file lines skip the comment and the blank line.
	if tab.Line(0) != 3 || tab.Line(1) != 5 {
		t.Errorf("lines %v", tab.Lines)
	}
	x, y, err := tab.XY()
	if err != nil || x[0] != 1 || y[1] != -0.4 {
		t.Errorf("XY = %v %v %v", x, y, err)
	}
}

func TestReadCSVErrors(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string
	}{
		{"empty", "", []string{"empty"}},
		{"header only", "a,b\n", []string{"no data rows"}},
		{"ragged", "a,b\n1,2\n3\n", []string{"line 3", "1 cells", "header has 2"}},
		{"not a number", "a,b\n1,2\n3,x7\n", []string{"line 3", "column 2", "(b)", `"x7"`}},
		{"nan", "a,b\n1,NaN\n", []string{"line 2", "column 2", "finite"}},
		{"bad quote", "a,b\n1,\"2\n", []string{"line"}},
	}
	for _, tt := range tests {
		_, err := ReadCSV(strings.NewReader(tt.text))
		if err == nil {
			t.Errorf("%s: no error", tt.name)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", tt.name, err, w)
			}
		}
	}
}

// TestReadCSVText: a declared text column stores each word as its index
// in the list (any case, spaces trimmed), and a word outside the list, or
// a word in a numeric column, is refused with its line and column; rows
// remember their lines past comments and blank lines.
func TestReadCSVText(t *testing.T) {
	side := TextColumn{Name: "side", Values: []string{"source", "target"}}
	tab, err := ReadCSV(strings.NewReader("x,side\n# c\n1, source\n\n2,TARGET \n"), side)
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Rows) != 2 || tab.Rows[0][1] != 0 || tab.Rows[1][1] != 1 || tab.Rows[1][0] != 2 {
		t.Errorf("rows %v", tab.Rows)
	}
	if len(tab.Lines) != 2 || tab.Lines[0] != 3 || tab.Lines[1] != 5 {
		t.Errorf("lines %v, want [3 5]", tab.Lines)
	}
	for _, tt := range []struct {
		text string
		want []string
	}{
		{"x,side\n1,source\n2,sorce\n", []string{"line 3", "column 2 (side)", `"sorce"`, "source, target"}},
		{"x,side\n1,source\nabc,target\n", []string{"line 3", "column 1 (x)", "not a finite number"}},
	} {
		_, err := ReadCSV(strings.NewReader(tt.text), side)
		if err == nil {
			t.Errorf("%q: no error", tt.text)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%q: error %q lacks %q", tt.text, err, w)
			}
		}
	}
	// Without the declaration the word is not a number.
	if _, err := ReadCSV(strings.NewReader("x,side\n1,source\n")); err == nil {
		t.Error("an undeclared text column was accepted")
	}
}

func TestLoadCSV(t *testing.T) {
	if _, err := LoadCSV(nil, filepath.Join(t.TempDir(), "missing.csv")); err == nil ||
		!strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing file: %v", err)
	}
	path := filepath.Join(t.TempDir(), "one.csv")
	if err := os.WriteFile(path, []byte("a\n1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tab, err := LoadCSV(nil, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := tab.XY(); err == nil || !strings.Contains(err.Error(), "two numeric columns besides label") {
		t.Errorf("XY of one column: %v", err)
	}
}

// TestReadCSVFindsColumnsByName: a byte-order mark before the header is
// dropped and a label column is found by its name, in any case and any
// place, so that neither changes what the columns mean.
func TestReadCSVFindsColumnsByName(t *testing.T) {
	for _, text := range []string{
		"label,x,y\n0,1,2\n1,3,4\n",
		"\ufefflabel,x,y\n0,1,2\n1,3,4\n",
		"\ufeffLabel,x,y\r\n0,1,2\r\n1,3,4\r\n",
		"x,LABEL,y\n1,0,2\n3,1,4\n",
	} {
		tab, err := ReadCSV(strings.NewReader(text))
		if err != nil {
			t.Errorf("%q: %v", text, err)
			continue
		}
		if tab.Column("label") < 0 || tab.Column("X") != tab.Column("x") || len(tab.Features()) != 2 {
			t.Errorf("%q: columns %q, features %v", text, tab.Columns, tab.Features())
		}
		x, y, err := tab.XY()
		if err != nil || x[1] != 3 || y[1] != 4 {
			t.Errorf("%q: XY = %v %v %v, want the x and y columns", text, x, y, err)
		}
		l, err := tab.Labelled(true)
		if err != nil || l.Y[0] != 0 || l.Y[1] != 1 || l.X[1][0] != 3 {
			t.Errorf("%q: Labelled = %+v, %v", text, l, err)
		}
	}
	side := TextColumn{Name: "side", Values: []string{"source", "target"}}
	if tab, err := ReadCSV(strings.NewReader("x,Side\n1,target\n"), side); err != nil || tab.Rows[0][1] != 1 {
		t.Errorf("a text column named in another case: %v, %v", tab, err)
	}
}

// TestReadCSVRefusals: what the reader refuses, and that each refusal
// says what it found, where, and what it expected.
func TestReadCSVRefusals(t *testing.T) {
	for _, tt := range []struct {
		name, text string
		want       []string
	}{
		{"no header", "1,2,0\n3,4,1\n", []string{"line 1 (1,2,0) holds numbers", "no header row", "must name the columns"}},
		{"no header, a cell missing", "# points\n1,,0.5\n", []string{"line 2 (1,,0.5) holds numbers"}},
		{"no header, long", strings.Repeat("1.5,", 30) + "2\n", []string{"line 1 (1.5,1.5,", "…) holds numbers"}},
		{"duplicate", "x,y,x\n1,2,3\n", []string{"line 1", "columns 1 and 3 are both named x"}},
		{"duplicate label", "label,x,Label\n1,2,3\n", []string{"columns 1 and 3 are both named Label"}},
		{"unnamed", "x,,y\n1,2,3\n", []string{"line 1, column 2 has no name"}},
		{"binary name", "x,\x01\x02\n1,2\n", []string{"line 1, column 2", `"\x01\x02" is not plain text`}},
		{"a mark inside a name", "x\ufeffy,z\n1,2\n", []string{"line 1, column 1", `"x\ufeffy" is not plain text`}},
		{"utf-16", "\xff\xfex\x00,\x00y\x00", []string{"UTF-16", "save it as UTF-8"}},
		{"overflow", "x,y\n1e154,1\n-1e154,2\n", []string{"line 3, column 1 (x)", "at -1e154 the sum of the column's squares overflows", "rescale"}},
		{"nan", "x\nNaN\n", []string{"line 2, column 1 (x)", `"NaN" is not a finite number`}},
		{"escape in a cell", "x\n\x1b]0;t\a\n", []string{"line 2", `"\x1b]0;t\a" is not a finite number`}},
	} {
		_, err := ReadCSV(strings.NewReader(tt.text))
		if err == nil {
			t.Errorf("%s: accepted", tt.name)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", tt.name, err, w)
			}
		}
	}
	if _, err := ReadCSV(strings.NewReader("1,2\n3,4\n")); !errors.Is(err, ErrNoHeader) {
		t.Errorf("a header of numbers: %v, want ErrNoHeader", err)
	}
	// Words and numbers make a header, as do number-like names beside others.
	if _, err := ReadCSV(strings.NewReader("label,1,2\n0,3,4\n")); err != nil {
		t.Errorf("pixel columns named by numbers: %v", err)
	}
}

// TestReadCSVLimits: past the rows or cells a table may have, the reader
// stops at the first row over, saying where and what the limit is.
func TestReadCSVLimits(t *testing.T) {
	small := tableLimits{rows: 3, cells: 5}
	for _, tt := range []struct{ text, want string }{
		{"x\n1\n2\n3\n4\n5\n", "line 5: more than 3 data rows"},
		{"x,y\n1,2\n3,4\n5,6\n", "line 4: more than 5 cells (3 rows of 2)"},
		{"a,b,c,d,e,f,g,h\n", "line 1: 8 columns, more than the 5 cells"},
	} {
		_, err := readCSV(strings.NewReader(tt.text), small, nil)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v, want %q", tt.text, err, tt.want)
		}
	}
	if tab, err := readCSV(strings.NewReader("x,y\n1,2\n3,4\n# c\n\n5,6\n"), tableLimits{rows: 3, cells: 6}, nil); err != nil || len(tab.Rows) != 3 {
		t.Errorf("a table at the limits: %v", err)
	}
	// A million rows: refused at row MaxRows + 1, having read little more.
	rows := &countingReader{r: io.MultiReader(strings.NewReader("x\n"), strings.NewReader(strings.Repeat("1\n", 1_000_000)))}
	_, err := ReadCSV(rows)
	want := fmt.Sprintf("line %d: more than %d data rows", MaxRows+2, MaxRows)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("a million rows: %v, want %q", err, want)
	}
	if rows.n > 2*(MaxRows+2)+64<<10 {
		t.Errorf("a million rows: read %d bytes before refusing them", rows.n)
	}
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// FuzzReadCSV: whatever the bytes, the reader does not panic, and it
// returns either a well-formed table (names distinct, not empty, text;
// every row as long as the header, finite, with increasing lines) or an
// error that names a line, or the whole file's fault. A seed run is part
// of go test; go test -fuzz FuzzReadCSV ./sims/ searches further.
func FuzzReadCSV(f *testing.F) {
	for _, seed := range []string{
		"x,y,label\n1,2,0\n3,4,1\n",
		"\ufeffx,y\n1,2\n",
		"x\ufeffy,z\n1,2\n",
		"\xff\xfex\x00\n\x001\x00",
		"x,y\r\n1,2\r\n3,4\r\n",
		"\"x\",\"y, z\"\n\"1\",\" 2\"\n\"3\"\"\",4\n",
		"x,\"y\n1,2\n",
		"x\n1e308\n1e308\n-1e308\n",
		"x\n1e309\n",
		"x,y\nNaN,1\n",
		"x\nInf\n",
		"",
		"\n\n\n",
		"# only a comment\n",
		"x\n",
		"1,2\n3,4\n",
		"x,X\n1,2\n",
		"x,side\n1,source\n2,Target\n3,sorce\n",
		"\x00\x01\x02\x7fELF\n\xfe\xff",
		"x,y\n" + strings.Repeat("1,", 5000) + "2\n",
		strings.Repeat("a", 100_000) + "\n1\n",
		"label,x\n1,2\n\n# c\n3,4,5\n",
	} {
		f.Add(seed)
	}
	side := TextColumn{Name: "side", Values: []string{"source", "target"}}
	f.Fuzz(func(t *testing.T, text string) {
		tab, err := ReadCSV(strings.NewReader(text), side)
		if err != nil {
			msg := err.Error()
			if !strings.Contains(msg, "line ") && !strings.Contains(msg, "the file") {
				t.Fatalf("%q: the error %q names neither a line nor the file", text, msg)
			}
			return
		}
		checkTable(t, text, tab)
	})
}

// checkTable fails t unless tab is a table ReadCSV may return.
func checkTable(t *testing.T, text string, tab *Table) {
	t.Helper()
	if len(tab.Columns) == 0 || len(tab.Rows) == 0 || len(tab.Rows) != len(tab.Lines) {
		t.Fatalf("%q: %d columns, %d rows, %d lines", text, len(tab.Columns), len(tab.Rows), len(tab.Lines))
	}
	seen := map[string]bool{}
	numbers := 0
	for _, c := range tab.Columns {
		key := strings.ToLower(c)
		if c == "" || seen[key] || Shown(c) != c || strings.HasPrefix(c, "\ufeff") || (key == "label" && c != "label") {
			t.Fatalf("%q: column names %q", text, tab.Columns)
		}
		seen[key] = true
		if _, err := strconv.ParseFloat(c, 64); err == nil {
			numbers++
		}
	}
	if numbers == len(tab.Columns) {
		t.Fatalf("%q: a header of numbers %q", text, tab.Columns)
	}
	sumsq := make([]float64, len(tab.Columns))
	for i, r := range tab.Rows {
		if len(r) != len(tab.Columns) || tab.Lines[i] < 2 || (i > 0 && tab.Lines[i] <= tab.Lines[i-1]) {
			t.Fatalf("%q: row %d %v on line %d", text, i, r, tab.Lines[i])
		}
		for j, x := range r {
			if sumsq[j] += x * x; math.IsNaN(x) || math.IsInf(sumsq[j], 0) {
				t.Fatalf("%q: row %d: %v", text, i, r)
			}
		}
	}
}

// TestAtMost: a table of more rows than a sim takes is refused naming the
// file, its rows, the limit and why; one within it passes.
func TestAtMost(t *testing.T) {
	tab := &Table{Name: "points.csv", Columns: []string{"x"}, Rows: [][]float64{{1}, {2}, {3}}}
	if err := tab.AtMost(3, "the sim takes"); err != nil {
		t.Errorf("3 rows, at most 3: %v", err)
	}
	err := tab.AtMost(2, "the grid holds")
	want := "--data points.csv: 3 rows, more than the 2 the grid holds: take a sample of them"
	if err == nil || err.Error() != want {
		t.Errorf("3 rows, at most 2: %v, want %q", err, want)
	}
}
