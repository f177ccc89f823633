package sims

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// ReadLines reads a text file of one item per line (a document, for
// instance), for sims whose data is text rather than the numeric CSV of
// --data: such a sim names the file in a Text parameter and opens it
// through files, its Config's (nil: the local file system). A UTF-8
// byte-order mark is dropped and blank lines are skipped; a missing,
// empty, binary (NUL bytes) or over-large file, one that is not a regular
// file, or one files refuses, is an error that names the parameter param
// (and the line, for a binary one).
func ReadLines(files Files, param, path string) ([]string, error) {
	data, bad, err := readText(files, param, path)
	if err != nil {
		return nil, err
	}
	var lines []string
	for line := range strings.Lines(string(data)) {
		if line = strings.TrimSpace(line); line != "" {
			lines = append(lines, line)
		}
	}
	if len(lines) == 0 {
		return nil, bad("the file has no text")
	}
	return lines, nil
}

// ReadText reads a whole text file, as ReadLines checks it, for sims that
// model the text itself (a character language model): line ends become
// "\n", and the text is trimmed of space at both ends.
func ReadText(files Files, param, path string) (string, error) {
	data, bad, err := readText(files, param, path)
	if err != nil {
		return "", err
	}
	text := strings.TrimSpace(strings.ReplaceAll(string(data), "\r\n", "\n"))
	if text == "" {
		return "", bad("the file has no text")
	}
	return text, nil
}

// readText opens path through files (which refuse what is not a regular
// file and cap its size) and checks that it is UTF-8 text, without the
// byte-order mark some editors put first; bad formats an error naming the
// parameter.
func readText(files Files, param, path string) (data []byte, bad func(string, ...any) error, err error) {
	bad = func(format string, args ...any) error {
		return fmt.Errorf("parameter %s = %q: %s", param, path, fmt.Sprintf(format, args...))
	}
	f, err := open(files, path)
	if err != nil {
		return nil, bad, bad("%v", err)
	}
	defer f.Close()
	data, err = io.ReadAll(f)
	if err != nil {
		return nil, bad, bad("%v", withoutPath(err))
	}
	if data, err = withoutBOM(data); err != nil {
		return nil, bad, bad("%v", err)
	}
	if line, col, what := notText(data); line > 0 {
		return nil, bad, bad("line %d, column %d: %s: not a UTF-8 text file", line, col, what)
	}
	return data, bad, nil
}

// utf8BOM is the byte-order mark some editors write first in a UTF-8 file.
var utf8BOM = []byte{0xef, 0xbb, 0xbf}

// withoutBOM is data without a leading UTF-8 byte-order mark, which is no
// part of the text: kept, it would be the first character of a corpus or
// of the first column's name. A UTF-16 mark is an error that says so: the
// file is not UTF-8.
func withoutBOM(data []byte) ([]byte, error) {
	if bytes.HasPrefix(data, []byte{0xff, 0xfe}) || bytes.HasPrefix(data, []byte{0xfe, 0xff}) {
		return nil, errors.New("the file is UTF-16 (it starts with a UTF-16 byte-order mark): save it as UTF-8")
	}
	return bytes.TrimPrefix(data, utf8BOM), nil
}

// Shown is s as a message shows what a user typed or a file holds: s
// itself when it is printable text, else quoted as a Go string, so that
// no escape code in a flag, a path or a column's name reaches the
// terminal that prints the message (an OSC sequence would retitle it).
// A message quotes a value whole, to show exactly what was typed; text
// drawn from data in a pane or a result is written by Visible instead.
// Both let through raw only what printable says.
func Shown(s string) string {
	if s != "" && utf8.ValidString(s) && !strings.ContainsFunc(s, func(r rune) bool { return !printable(r) }) {
		return s
	}
	return strconv.Quote(s)
}

// printable reports whether the character r may reach a terminal as it
// is: a letter, mark, number, punctuation, symbol or the ASCII space
// (strconv.IsPrint). Not a control (C0, DEL, C1), a format character (the
// bidi controls U+202A–U+202E and U+2066–U+2069, zero-width characters,
// the soft hyphen, the byte-order mark), a line or paragraph separator, a
// space other than U+0020, a private-use or unassigned code point.
func printable(r rune) bool { return strconv.IsPrint(r) }

// Spaces says how Visible writes a space (U+0020).
type Spaces bool

const (
	// PlainSpaces writes a space as a space: running text (a sample, a
	// word, a path).
	PlainSpaces Spaces = false
	// MarkSpaces writes a space as ␣: a token, whose edges matter.
	MarkSpaces Spaces = true
)

// Visible is text from data (a token's bytes, a sample of characters, a
// word, a path the user typed) as every pane, note and --json result
// shows it: what a terminal draws as it is, at the width the lab
// measures, and nothing that drives the terminal. The notation:
//
//   - a whole printable character (printable) is itself, and a combining
//     mark (Mn, Me) stays on the character before it; a mark with no
//     character before it (first, or after a space, an escape or a
//     symbol below) is drawn on ◌ (U+25CC), so that it cannot join a
//     table's border or the cell before;
//   - a byte that is not part of a whole UTF-8 character (a BPE token
//     that splits one, invalid UTF-8) is <E2>: two upper-case hex digits
//     in angle brackets, one a byte;
//   - a newline is ⏎, a tab →, and with MarkSpaces a space is ␣;
//   - any other character that is not printable (a C0 control, ESC
//     included, DEL, a C1 control, a bidi control, a zero-width or line
//     separator) is <U+001B>: its code point, four to six upper-case hex
//     digits after U+, in angle brackets;
//   - and so is a printable character that the lab and a terminal could
//     measure at different widths: one that would join the character
//     before into a cluster whose width in cells depends on how it is
//     counted (an emoji's variation selector U+FE0F or skin tone, the
//     second regional indicator of a flag, a spacing mark of an Indic
//     script), that would join whatever follows it (a prepended mark),
//     or whose own width is not one or two cells; and a combining mark
//     beyond maxMarks on one character. What is written is then as wide
//     by grapheme clusters (ansi.StringWidth), by code points
//     (ansi.StringWidthWc) and in tui/chart's cells, so that tables and
//     the pane's border stay aligned on every terminal.
//
// The result is valid UTF-8 whatever s holds. Literal text such as "<E2>"
// or "⏎" in the data is written as it is: the notation is for reading,
// not for decoding (a sim that gives the exact bytes says where).
func Visible(s string, spaces Spaces) string {
	var b strings.Builder
	b.Grow(len(s))
	// cluster is the character last written as itself with its marks,
	// which a mark or a joining character after it would join; "" when
	// nothing may join (the start, a space, an escape, a symbol).
	cluster, marks := "", 0
	escape := func(r rune) {
		b.WriteString("<U+")
		for d := max(4, (bits.Len32(uint32(r))+3)/4); d > 0; d-- {
			b.WriteByte(upperHex[r>>(4*(d-1))&0xf])
		}
		b.WriteByte('>')
		cluster = ""
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c > ' ' && c < 0x7f {
			b.WriteByte(c)
			cluster, marks = s[i:i+1], 0
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteString("<")
			b.WriteByte(upperHex[c>>4])
			b.WriteByte(upperHex[c&0xf])
			b.WriteString(">")
			cluster = ""
		case r == ' ' && spaces == MarkSpaces:
			b.WriteString("␣")
			cluster = ""
		case r == ' ':
			b.WriteByte(' ')
			cluster = ""
		case r == '\n':
			b.WriteString("⏎")
			cluster = ""
		case r == '\t':
			b.WriteString("→")
			cluster = ""
		case !printable(r):
			escape(r)
		case unicode.In(r, unicode.Mn, unicode.Me):
			base := cluster
			if base == "" {
				base, marks = "◌", 0
			}
			if marks == maxMarks || !fits(base+string(r)) {
				escape(r)
				break
			}
			if cluster == "" {
				b.WriteString("◌")
			}
			b.WriteRune(r)
			cluster, marks = base+string(r), marks+1
		case cluster != "" && joins(cluster, r):
			// A character that is not a combining mark but joins the one
			// before (a spacing mark, an emoji modifier): kept only when
			// the cluster measures the same every way.
			if marks == maxMarks || !fits(cluster+string(r)) {
				escape(r)
				break
			}
			b.WriteRune(r)
			cluster, marks = cluster+string(r), marks+1
		case joins("x", r) || joins(string(r), 'x') || !fits(string(r)):
			// Joining a character before it (which is not there to join)
			// or any after it, or of no clear width.
			escape(r)
		default:
			b.WriteRune(r)
			cluster, marks = string(r), 0
		}
	}
	return b.String()
}

// maxMarks bounds the combining marks Visible keeps on one character: a
// few for any script (Vietnamese takes two, pointed Hebrew three), and no
// tower of them spilling into the rows above and below.
const maxMarks = 8

const upperHex = "0123456789ABCDEF"

// joins reports whether r joins the grapheme cluster c, which is one
// cluster: whether c followed by r is still one.
func joins(c string, r rune) bool {
	s := c + string(r)
	first, _ := ansi.FirstGraphemeCluster(s, ansi.GraphemeWidth)
	return len(first) == len(s)
}

// fits reports whether the cluster c is as wide (one cell or two) by
// grapheme clusters, by code points and in tui/chart's cells, where each
// character takes one cell, or two when ansi measures it alone as wide
// (from U+1100), and a combining mark none.
func fits(c string) bool {
	w := ansi.StringWidth(c)
	if w < 1 || w > 2 || ansi.StringWidthWc(c) != w {
		return false
	}
	cells := 0
	for _, r := range c {
		switch {
		case unicode.In(r, unicode.Mn, unicode.Me):
		case r >= 0x1100 && ansi.StringWidth(string(r)) == 2:
			cells += 2
		default:
			cells++
		}
	}
	return cells == w
}

// notText finds the first NUL byte or invalid UTF-8 sequence of data: its
// line and column (in characters, from 1) and what it is; line 0 when
// there is none.
func notText(data []byte) (line, col int, what string) {
	line, col = 1, 1
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		switch {
		case r == 0:
			return line, col, "a NUL byte (binary data)"
		case r == utf8.RuneError && n == 1:
			return line, col, fmt.Sprintf("the byte 0x%02x is not UTF-8", data[i])
		case r == '\n':
			line, col = line+1, 0
		}
		col++
		i += n
	}
	return 0, 0, ""
}
