package sims

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
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
func Shown(s string) string {
	if s != "" && utf8.ValidString(s) && !strings.ContainsFunc(s, func(r rune) bool { return !strconv.IsPrint(r) }) {
		return s
	}
	return strconv.Quote(s)
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
