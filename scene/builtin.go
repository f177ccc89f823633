package scene

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// The built-in scenes are files in scenes/, in the format every scene
// has; each has a claim (claims) that its test checks.
//
//go:embed scenes/*.scene
var files embed.FS

var builtins = sync.OnceValues(func() ([]Scene, error) {
	names, err := fs.Glob(files, "scenes/*.scene")
	if err != nil {
		return nil, err
	}
	var out []Scene
	for _, n := range names {
		b, err := files.ReadFile(n)
		if err != nil {
			return nil, err
		}
		s, err := Parse(bytes.NewReader(b), path.Base(n))
		if err != nil {
			return nil, err
		}
		if want := strings.TrimSuffix(path.Base(n), ".scene"); s.Name != want {
			return nil, fmt.Errorf("%s: named %q, want the file's name %q", n, s.Name, want)
		}
		out = append(out, s)
	}
	slices.SortStableFunc(out, func(a, b Scene) int {
		if c := strings.Compare(a.Notes, b.Notes); c != 0 {
			return c
		}
		if c := slices.Compare(section(a.Chapter), section(b.Chapter)); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out, nil
})

// Builtins are the scenes the lab ships, in the order of the notes: by
// seed file, then section, then name. The files are the package's own:
// an error is a bug its tests catch.
func Builtins() []Scene {
	s, err := builtins()
	if err != nil {
		panic(err)
	}
	return slices.Clone(s)
}

// NotesTitles say what each seed file of the notes is about, for the
// tour's headings.
var NotesTitles = map[string]string{
	"000": "automatic differentiation, neural networks, diffusion, kernels",
	"001": "classic, deep and trustworthy machine learning",
	"002": "probabilistic generative models, optimal transport, sequence models",
	"003": "kernels, support vector machines, Gaussian processes",
	"004": "random features",
}

// section is a chapter's section number as numbers ("§3.2 MCMC" → 3, 2),
// for ordering: §10 after §9.
func section(chapter string) []int {
	s := strings.TrimPrefix(strings.TrimSpace(chapter), "§")
	num, _, _ := strings.Cut(s, " ")
	var out []int
	for _, part := range strings.Split(num, ".") {
		n, err := strconv.Atoi(part)
		if err != nil {
			break
		}
		out = append(out, n)
	}
	return out
}
