package sims

import (
	"os"
	"path/filepath"
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
	if _, err := LoadCSV(filepath.Join(t.TempDir(), "missing.csv")); err == nil ||
		!strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing file: %v", err)
	}
	path := filepath.Join(t.TempDir(), "one.csv")
	if err := os.WriteFile(path, []byte("a\n1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tab, err := LoadCSV(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := tab.XY(); err == nil || !strings.Contains(err.Error(), "two numeric columns") {
		t.Errorf("XY of one column: %v", err)
	}
}
