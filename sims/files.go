package sims

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
)

// Files is how a sim opens the files its parameters name (a Text
// parameter such as lda's corpus). A nil Files in a Config is the
// process's own file system: the local lab and `lab run`, where the user
// is the operator. `lab serve` builds its visitors' sims with NoFiles, or
// with DirFiles over the operator's --data-dir: a visitor is not the
// operator, and no parameter a visitor sets may read the server's files.
type Files interface {
	// Open opens the named file for reading, or says why it may not.
	Open(name string) (fs.File, error)
}

// localFiles opens any path the process may read.
type localFiles struct{}

func (localFiles) Open(name string) (fs.File, error) { return os.Open(name) }

// filesOr is f, or the local file system when f is nil.
func filesOr(f Files) Files {
	if f == nil {
		return localFiles{}
	}
	return f
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
	info, err := d.root.Stat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("no such file in the server's data directory (%s)", d.listing())
	case err != nil:
		return nil, errors.New("not readable in the server's data directory")
	case !info.Mode().IsRegular():
		return nil, fmt.Errorf("not a regular file of the server's data directory (%s)", d.listing())
	case info.Size() > d.max:
		return nil, fmt.Errorf("the file is over %d MiB, this server's limit", d.max>>20)
	}
	f, err := d.root.Open(name)
	if err != nil {
		return nil, errors.New("not readable in the server's data directory")
	}
	return &cappedFile{File: f, left: d.max + 1}, nil
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
// was checked): left is one more than the bytes it may read.
type cappedFile struct {
	*os.File
	left int64
}

func (f *cappedFile) Read(p []byte) (int, error) {
	if int64(len(p)) > f.left {
		p = p[:f.left]
	}
	n, err := f.File.Read(p)
	if f.left -= int64(n); f.left <= 0 && err == nil {
		return n, errors.New("the file grew past this server's limit")
	}
	return n, err
}
