package sims

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"
)

// MaxTextFile is the largest text file ReadLines reads, in bytes.
const MaxTextFile = 64 << 20

// ReadLines reads a text file of one item per line (a document, for
// instance), for sims whose data is text rather than the numeric CSV of
// --data: such a sim names the file in a Text parameter and opens it
// through files, its Config's (nil: the local file system). Blank lines
// are skipped; a missing, empty, binary (NUL bytes) or over-large file, or
// one files refuses, is an error that names the parameter param (and the
// line, for a binary one).
func ReadLines(files Files, param, path string) ([]string, error) {
	data, bad, err := readText(files, param, path)
	if err != nil {
		return nil, err
	}
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), MaxTextFile)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" {
			lines = append(lines, line)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, bad("%v", err)
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

// readText opens path through files and checks that it is UTF-8 text of
// at most MaxTextFile bytes; bad formats an error naming the parameter.
func readText(files Files, param, path string) (data []byte, bad func(string, ...any) error, err error) {
	bad = func(format string, args ...any) error {
		return fmt.Errorf("parameter %s = %q: %s", param, path, fmt.Sprintf(format, args...))
	}
	f, err := filesOr(files).Open(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, bad, bad("cannot open the file: %v", err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, bad, bad("is a directory, not a text file")
	}
	data, err = io.ReadAll(io.LimitReader(f, MaxTextFile+1))
	if err != nil {
		return nil, bad, bad("%v", err)
	}
	if len(data) > MaxTextFile {
		return nil, bad, bad("the file is over %d MiB", MaxTextFile>>20)
	}
	if line, col, what := notText(data); line > 0 {
		return nil, bad, bad("line %d, column %d: %s: not a UTF-8 text file", line, col, what)
	}
	return data, bad, nil
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
