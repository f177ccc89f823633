package sims

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/thelab/lab/algo/dataset"
)

// Table is numeric data read from a CSV file with a header row.
type Table struct {
	Name    string      // where it came from, for messages
	Columns []string    // header names
	Rows    [][]float64 // one slice per data row, len(Columns) each
	Lines   []int       // the line of the file each row came from, for messages
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

// LoadCSV reads a CSV file whose first row names the columns and whose other
// rows are numbers, or words from the list of a text column. A missing
// file, an empty file, a ragged row, a non-numeric cell or a word not in
// its column's list is an error that says where.
func LoadCSV(path string, text ...TextColumn) (*Table, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--data: %w", err)
	}
	defer f.Close()
	t, err := ReadCSV(f, text...)
	if err != nil {
		return nil, fmt.Errorf("--data %s: %w", path, err)
	}
	t.Name = path
	return t, nil
}

// ReadCSV reads a table from r; see LoadCSV.
func ReadCSV(r io.Reader, text ...TextColumn) (*Table, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1 // raggedness is reported below, with the line
	cr.TrimLeadingSpace = true
	cr.Comment = '#'
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, errors.New("the file is empty: expected a header row and at least one data row")
	}
	if err != nil {
		return nil, err
	}
	t := &Table{Columns: make([]string, len(header))}
	words := make([]*TextColumn, len(header)) // the text column of each column, or nil
	for i, h := range header {
		t.Columns[i] = strings.TrimSpace(h)
		for k := range text {
			if text[k].Name == t.Columns[i] {
				words[i] = &text[k]
			}
		}
	}
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
		if len(rec) != len(header) {
			return nil, fmt.Errorf("line %d has %d cells but the header has %d", line, len(rec), len(header))
		}
		row := make([]float64, len(rec))
		for j, cell := range rec {
			if c := words[j]; c != nil {
				k := c.index(cell)
				if k < 0 {
					return nil, fmt.Errorf("line %d, column %d (%s): %q is not one of %s", line, j+1, c.Name, cell, strings.Join(c.Values, ", "))
				}
				row[j] = float64(k)
				continue
			}
			x, err := strconv.ParseFloat(strings.TrimSpace(cell), 64)
			if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("line %d, column %d (%s): %q is not a finite number", line, j+1, t.Columns[j], cell)
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

// Line is the file line of row i, or i + 2 (the row after the header)
// when the table did not come from a file.
func (t *Table) Line(i int) int {
	if i < len(t.Lines) {
		return t.Lines[i]
	}
	return i + 2
}

// Column returns the index of the named column, or -1.
func (t *Table) Column(name string) int {
	for i, c := range t.Columns {
		if c == name {
			return i
		}
	}
	return -1
}

// Labelled returns the table as features and a target (the column named
// "label", else the last), with class labels when classify is set; see
// dataset.FromColumns.
func (t *Table) Labelled(classify bool) (*dataset.Labelled, error) {
	return dataset.FromColumns("--data "+t.Name, t.Columns, t.Rows, classify)
}

// XY returns the first two columns as point coordinates, or an error when
// the table has fewer than two columns.
func (t *Table) XY() (x, y []float64, err error) {
	if len(t.Columns) < 2 {
		return nil, nil, fmt.Errorf("--data %s: needs at least two numeric columns, found %d", t.Name, len(t.Columns))
	}
	x = make([]float64, len(t.Rows))
	y = make([]float64, len(t.Rows))
	for i, r := range t.Rows {
		x[i], y[i] = r[0], r[1]
	}
	return x, y, nil
}
