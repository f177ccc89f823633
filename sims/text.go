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
// one files refuses, is an error that names the parameter param.
func ReadLines(files Files, param, path string) ([]string, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("parameter %s = %q: %s", param, path, fmt.Sprintf(format, args...))
	}
	f, err := filesOr(files).Open(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, bad("cannot open the file: %v", err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, bad("is a directory, not a text file")
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxTextFile+1))
	if err != nil {
		return nil, bad("%v", err)
	}
	if len(data) > MaxTextFile {
		return nil, bad("the file is over %d MiB", MaxTextFile>>20)
	}
	if bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data) {
		return nil, bad("not a UTF-8 text file")
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
