package sims

import (
	"bufio"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/thelab/lab/algo/dataset"
)

// Table is numeric data read from a CSV file with a header row.
type Table struct {
	Name    string      // where it came from, for messages
	Path    string      // the path it was read from (LoadCSV), as given
	Sum     string      // the SHA-256 of the file's bytes, in hex (LoadCSV)
	Columns []string    // header names; the label column's is label, whatever its case in the file
	Rows    [][]float64 // one slice per data row, len(Columns) each
	Lines   []int       // the line of the file each row came from, for messages
}

// Summary says whose data a run on the table shows: the file, its rows
// and its columns, e.g. "three.csv: 200 rows; columns x1, x2, label".
func (t *Table) Summary() string {
	cols := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		cols[i] = Shown(c)
	}
	return fmt.Sprintf("%s: %d rows; columns %s", t.Name, len(t.Rows), strings.Join(cols, ", "))
}

// File is the name of the table's file without its directory, for a
// pane's edge.
func (t *Table) File() string { return filepath.Base(t.Name) }

// AtMost refuses a table of more than max rows, saying why a sim takes no
// more (what each row costs it): an error naming the file, to report as
// is.
func (t *Table) AtMost(max int, why string) error {
	if len(t.Rows) > max {
		return fmt.Errorf("--data %s: %d rows, more than the %d %s: take a sample of them", t.Name, len(t.Rows), max, why)
	}
	return nil
}

// TextColumn declares a column of --data whose cells are words from a
// fixed list (the side of a transport problem, say) rather than numbers.
// The reader stores each cell as the index of its word in Values, so that
// a Table stays numeric; a word not in the list is an error naming the
// line and column. Words match without regard to case or surrounding
// spaces. A sim lists its text columns in Spec.DataText.
type TextColumn struct {
	Name   string
	Values []string
}

// index returns the position of word in Values, or −1.
func (c TextColumn) index(word string) int {
	word = strings.TrimSpace(word)
	for i, v := range c.Values {
		if strings.EqualFold(word, v) {
			return i
		}
	}
	return -1
}

// The limits of a --data table, beyond MaxFile's bytes. The reader stops
// at the first row past either, so a million-row file costs no more than
// the rows it may have.
const (
	// MaxRows is the most data rows: dataset.MaxN, the most points an
	// engine's data set holds; no sim takes more.
	MaxRows = dataset.MaxN
	// MaxCells is the most cells, rows × columns: 80 MB as numbers, and
	// room for the digits sim's 8×8 images 100 000 times, or 12 000
	// images of 28×28.
	MaxCells = 10_000_000
)

// ErrNoHeader marks the refusal of a table whose first line holds
// numbers: it has no header row, and reading its first row as column
// names would drop a row and misname every column. lab adds what the
// sim's columns should be.
var ErrNoHeader = errors.New("the first line must name the columns")

// LoadCSV reads the CSV file at path, opened through files (nil: the local
// file system), as ReadCSV does; its errors begin "--data PATH:".
func LoadCSV(files Files, path string, text ...TextColumn) (*Table, error) {
	name := Shown(path)
	f, err := open(files, path)
	if err != nil {
		return nil, fmt.Errorf("--data %s: %w", name, err)
	}
	defer f.Close()
	sum := sha256.New()
	t, err := ReadCSV(io.TeeReader(f, sum), text...)
	if err != nil {
		return nil, fmt.Errorf("--data %s: %w", name, withoutPath(err))
	}
	t.Name, t.Path, t.Sum = name, path, hex.EncodeToString(sum.Sum(nil))
	return t, nil
}

// ReadCSV reads a table whose first row names the columns and whose other
// rows are numbers, or words from the list of a text column. A UTF-8
// byte-order mark before the header is dropped; lines starting with # and
// blank lines are skipped. The names must be distinct (without regard to
// case) and not empty, and the column of classes or targets is found by
// its name, label, in any case and any place. An empty file, a first line
// of numbers (no header), a ragged row, a non-numeric cell, a word not in
// its column's list, a column too large to square, or more than MaxRows
// rows or MaxCells cells is an error that says where.
func ReadCSV(r io.Reader, text ...TextColumn) (*Table, error) {
	return readCSV(r, tableLimits{rows: MaxRows, cells: MaxCells}, text)
}

// tableLimits are the most rows and cells readCSV reads: MaxRows and
// MaxCells, smaller in the tests of the limits.
type tableLimits struct{ rows, cells int }

// readCSV is ReadCSV under the limits lim.
func readCSV(r io.Reader, lim tableLimits, text []TextColumn) (*Table, error) {
	br := bufio.NewReader(r)
	if err := skipBOM(br); err != nil {
		return nil, err
	}
	cr := csv.NewReader(br)
	cr.FieldsPerRecord = -1 // raggedness is reported below, with the line
	cr.TrimLeadingSpace = true
	cr.Comment = '#'
	cr.ReuseRecord = true // each row is copied into numbers
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, errors.New("the file is empty: expected a header row and at least one data row")
	}
	if err != nil {
		return nil, err
	}
	line, _ := cr.FieldPos(0)
	t, words, err := readHeader(header, line, lim, text)
	if err != nil {
		return nil, err
	}
	n := len(t.Columns)
	sumsq := make([]float64, n) // of each column so far: a sim squares its data
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		line, _ := cr.FieldPos(0)
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue // a blank line
		}
		if len(rec) != n {
			return nil, fmt.Errorf("line %d has %d cells but the header has %d", line, len(rec), n)
		}
		switch {
		case len(t.Rows) == lim.rows:
			return nil, fmt.Errorf("line %d: more than %d data rows, the most the lab's sims take", line, lim.rows)
		case (len(t.Rows)+1)*n > lim.cells:
			return nil, fmt.Errorf("line %d: more than %d cells (%d rows of %d), the most the lab reads", line, lim.cells, len(t.Rows)+1, n)
		}
		row := make([]float64, n)
		for j, cell := range rec {
			if c := words[j]; c != nil {
				k := c.index(cell)
				if k < 0 {
					return nil, fmt.Errorf("line %d, column %d (%s): %q is not one of %s", line, j+1, Shown(c.Name), cell, strings.Join(c.Values, ", "))
				}
				row[j] = float64(k)
				continue
			}
			x, err := strconv.ParseFloat(strings.TrimSpace(cell), 64)
			if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("line %d, column %d (%s): %q is not a finite number", line, j+1, Shown(t.Columns[j]), cell)
			}
			if sumsq[j] += x * x; math.IsInf(sumsq[j], 1) {
				return nil, fmt.Errorf("line %d, column %d (%s): at %s the sum of the column's squares overflows (past 1.8e308), "+
					"and every sim squares its data: rescale the column", line, j+1, Shown(t.Columns[j]), strings.TrimSpace(cell))
			}
			row[j] = x
		}
		t.Rows = append(t.Rows, row)
		t.Lines = append(t.Lines, line)
	}
	if len(t.Rows) == 0 {
		return nil, errors.New("the file has a header but no data rows")
	}
	return t, nil
}

// skipBOM drops a UTF-8 byte-order mark at the start of br (as
// withoutBOM does of a text), and refuses a UTF-16 one.
func skipBOM(br *bufio.Reader) error {
	start, _ := br.Peek(len(utf8BOM))
	rest, err := withoutBOM(start)
	if err != nil {
		return err
	}
	_, err = br.Discard(len(start) - len(rest))
	return err
}

// readHeader reads the column names of the header, found on line, and
// the text column of each (nil for a numeric one): names trimmed, label
// in any case written label, the text columns matched without regard to
// case. A header of numbers, a name that is empty, repeated (in any case)
// or not plain text (Shown), or more columns than lim's cells, is an error.
func readHeader(header []string, line int, lim tableLimits, text []TextColumn) (*Table, []*TextColumn, error) {
	if len(header) > lim.cells {
		return nil, nil, fmt.Errorf("line %d: %d columns, more than the %d cells the lab reads", line, len(header), lim.cells)
	}
	t := &Table{Columns: make([]string, len(header))}
	numbers, empty := 0, 0
	for i, h := range header {
		t.Columns[i] = strings.TrimSpace(h)
		if x, err := strconv.ParseFloat(t.Columns[i], 64); err == nil && !math.IsNaN(x) && !math.IsInf(x, 0) {
			numbers++
		} else if t.Columns[i] == "" {
			empty++ // a missing number, in a row of data
		}
	}
	if numbers > 0 && numbers+empty == len(header) {
		return nil, nil, fmt.Errorf("line %d (%s) holds numbers, not column names: the file has no header row; %w",
			line, preview(strings.Join(t.Columns, ","), 40), ErrNoHeader)
	}
	words := make([]*TextColumn, len(header))
	seen := make(map[string]int, len(header)) // the column of each name, in lower case
	for i, name := range t.Columns {
		switch {
		case name == "":
			return nil, nil, fmt.Errorf("line %d, column %d has no name: every column needs one", line, i+1)
		case Shown(name) != name:
			return nil, nil, fmt.Errorf("line %d, column %d: the name %s is not plain text: is this a CSV file?", line, i+1, Shown(name))
		case strings.EqualFold(name, "label"):
			t.Columns[i] = "label"
		}
		if j, ok := seen[strings.ToLower(name)]; ok {
			return nil, nil, fmt.Errorf("line %d: columns %d and %d are both named %s: each column needs its own name", line, j+1, i+1, Shown(name))
		}
		seen[strings.ToLower(name)] = i
		for k := range text {
			if strings.EqualFold(text[k].Name, name) {
				words[i] = &text[k]
			}
		}
	}
	return t, words, nil
}

// preview is s cut to at most n characters, with … when it was longer.
func preview(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// Line is the file line of row i, or i + 2 (the row after the header)
// when the table did not come from a file.
func (t *Table) Line(i int) int {
	if i < len(t.Lines) {
		return t.Lines[i]
	}
	return i + 2
}

// Column returns the index of the named column, or -1. Names match
// without regard to case: the reader refuses two that differ only by it.
func (t *Table) Column(name string) int {
	return slices.IndexFunc(t.Columns, func(c string) bool { return strings.EqualFold(c, name) })
}

// Features are the indices of the columns other than label, in order: a
// point's coordinates, wherever the label column stands.
func (t *Table) Features() []int {
	f := make([]int, 0, len(t.Columns))
	for i, c := range t.Columns {
		if c != "label" {
			f = append(f, i)
		}
	}
	return f
}

// Labelled returns the table as features and a target (the column named
// "label", else the last), with class labels when classify is set; see
// dataset.FromColumns.
func (t *Table) Labelled(classify bool) (*dataset.Labelled, error) {
	return dataset.FromColumns("--data "+t.Name, t.Columns, t.Rows, classify)
}

// XY returns the first two feature columns (Features: a label column is
// not a coordinate) as point coordinates, or an error when there are
// fewer than two.
func (t *Table) XY() (x, y []float64, err error) {
	f := t.Features()
	if len(f) < 2 {
		return nil, nil, fmt.Errorf("--data %s: needs two numeric columns besides label, found %d", t.Name, len(f))
	}
	x = make([]float64, len(t.Rows))
	y = make([]float64, len(t.Rows))
	for i, r := range t.Rows {
		x[i], y[i] = r[f[0]], r[f[1]]
	}
	return x, y, nil
}
