package sims

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"syscall"
)

// Files is how a sim opens the files its parameters name (a Text
// parameter such as lda's corpus) and how lab reads --data. A nil Files
// in a Config is the process's own file system: the local lab and `lab
// run`, where the user is the operator. `lab serve` builds its visitors'
// sims with NoFiles, or with DirFiles over the operator's --data-dir: a
// visitor is not the operator, and no parameter a visitor sets may read
// the server's files.
type Files interface {
	// Open opens the named file for reading, or says why it may not. The
	// lab's own Files open only regular files (a named pipe would block
	// the read forever, a device such as /dev/zero never ends) of at most
	// a stated size, and fail a read past it. Errors do not repeat the
	// name: the caller says what named the file.
	Open(name string) (fs.File, error)
}

// MaxFile is the largest file the local lab reads, in bytes: a --data
// table, a corpus, a text to model. No sim takes more (a table's rows and
// cells have their own limits, MaxRows and MaxCells), and it bounds what a
// file can cost before a sim sees it.
const MaxFile = 64 << 20

// localFiles opens any regular file the process may read, up to MaxFile.
type localFiles struct{}

func (localFiles) Open(name string) (fs.File, error) {
	f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, withoutPath(err)
	}
	return regular(f, MaxFile, "the lab's limit")
}

// open opens name through files (nil: the local file system) for one of
// the readers, --data's table or a text: the one way the lab reads a file
// a user names. Its error reads after what named the file.
func open(files Files, name string) (fs.File, error) {
	if files == nil {
		files = localFiles{}
	}
	f, err := files.Open(name)
	if err != nil {
		return nil, fmt.Errorf("cannot open the file: %w", err)
	}
	return f, nil
}

// errNotRegular marks the refusal of a file that is not a regular file.
var errNotRegular = errors.New("the lab reads only regular files")

// regular checks an opened file, the one check of every file the lab
// reads: it is a regular file of at most maxBytes bytes (limit names whose
// limit that is), and reading it stops with an error past maxBytes. The file
// is opened before it is checked, without blocking (O_NONBLOCK: opening a
// named pipe with no writer would wait for one), so that what is checked
// is what is read: a stat before the open could be of another file by
// the time it opens. On a refusal the file is closed.
func regular(f *os.File, maxBytes int64, limit string) (fs.File, error) {
	info, err := f.Stat()
	switch {
	case err != nil:
		f.Close()
		return nil, withoutPath(err)
	case !info.Mode().IsRegular():
		f.Close()
		return nil, fmt.Errorf("%s, not a regular file: %w", fileKind(info.Mode()), errNotRegular)
	case info.Size() > maxBytes:
		f.Close()
		return nil, fmt.Errorf("the file is %s, over %s of %s", fmtSize(info.Size()), limit, fmtSize(maxBytes))
	}
	return &cappedFile{File: f, left: maxBytes + 1, limit: fmt.Sprintf("%s of %s", limit, fmtSize(maxBytes))}, nil
}

// fileKind names what a file that is not a regular file is.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}

// fmtSize prints a size in bytes as the limits are stated: 64 MiB, 1 KiB,
// or the bytes themselves when they are not a whole number of either.
func fmtSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// withoutPath is the reason of a file system error, without the path the
// caller already names ("no such file or directory").
func withoutPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// NoFiles refuses every file, saying why.
func NoFiles(why string) Files { return noFiles(why) }

type noFiles string

func (n noFiles) Open(string) (fs.File, error) { return nil, errors.New(string(n)) }

// DirFiles opens the regular files of dir by name alone, at most maxBytes
// each. Names with a path separator are refused, and the directory is
// opened as an os.Root, so neither ".." nor a symbolic link leads out of
// it; the listing of what it holds is part of a refusal's message. Names
// beginning with '.' are neither listed nor opened: a dot-file (an editor's
// swap file, .git, .env) is rarely meant for visitors, and an operator
// who offers a directory need not think of them.
func DirFiles(dir string, maxBytes int64) (Files, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &dirFiles{root: root, max: maxBytes}, nil
}

type dirFiles struct {
	root *os.Root
	max  int64
}

// maxListed bounds the names a refusal lists.
const maxListed = 12

func (d *dirFiles) Open(name string) (fs.File, error) {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\\\x00") {
		return nil, fmt.Errorf("name a file of the server's data directory by its name alone (%s)", d.listing())
	}
	if hidden(name) {
		return nil, fmt.Errorf("the server's data directory offers no names beginning with '.' (%s)", d.listing())
	}
	f, err := d.root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("no such file in the server's data directory (%s)", d.listing())
	case err != nil:
		return nil, errors.New("not readable in the server's data directory")
	}
	file, err := regular(f, d.max, "this server's limit")
	if errors.Is(err, errNotRegular) {
		return nil, fmt.Errorf("%w; pick one of the server's data directory (%s)", err, d.listing())
	}
	return file, err
}

// listing names the regular files a visitor may pick.
func (d *dirFiles) listing() string {
	dir, err := d.root.Open(".")
	if err != nil {
		return "it cannot be listed"
	}
	defer dir.Close()
	entries, _ := dir.ReadDir(-1)
	var names []string
	for _, e := range entries {
		if e.Type().IsRegular() && !hidden(e.Name()) {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	switch {
	case len(names) == 0:
		return "it holds no files"
	case len(names) > maxListed:
		return "it holds " + strings.Join(names[:maxListed], ", ") + fmt.Sprintf(" and %d more", len(names)-maxListed)
	}
	return "it holds " + strings.Join(names, ", ")
}

// hidden reports whether a name is a dot-file's, which DirFiles keeps from
// visitors.
func hidden(name string) bool { return strings.HasPrefix(name, ".") }

// cappedFile fails a read past its size limit (a file that grew after it
// was checked, or one whose size the system does not know, as under
// /proc): left is one more than the bytes it may read.
type cappedFile struct {
	*os.File
	left  int64
	limit string // whose limit, and how much, for the error
}

func (f *cappedFile) Read(p []byte) (int, error) {
	if int64(len(p)) > f.left {
		p = p[:f.left]
	}
	n, err := f.File.Read(p)
	if f.left -= int64(n); f.left <= 0 && err == nil {
		return n, fmt.Errorf("the file grew past %s while it was read", f.limit)
	}
	return n, err
}
