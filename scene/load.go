package scene

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/thelab/lab/sims"
)

// Load reads the scene file at path (a saved dashboard, or a teacher's
// scene): parsed, checked against cat, and each pane's data file read
// into its Table — a path relative to the scene file's folder — and
// checked against the checksum saved with it: a file that has changed
// since is an error, not another dataset opened silently.
func Load(path string, cat *sims.Catalog) (Scene, error) {
	b, err := readSmall(path, MaxBytes)
	if err != nil {
		return Scene{}, err
	}
	sc, err := Parse(bytes.NewReader(b), sims.Shown(path))
	if err != nil {
		return Scene{}, err
	}
	if err := sc.Check(cat, false); err != nil {
		return Scene{}, fmt.Errorf("%s: %w", sims.Shown(path), err)
	}
	for i, p := range sc.Panes {
		if p.Data == "" {
			continue
		}
		file := p.Data
		if !filepath.IsAbs(file) {
			file = filepath.Join(filepath.Dir(path), file)
		}
		t, err := sims.LoadCSV(nil, file, cat.Lookup(p.Sim).DataText...)
		if err != nil {
			return Scene{}, fmt.Errorf("%s, pane %d: %w", sims.Shown(path), i+1, err)
		}
		if p.DataSum != "" && t.Sum != p.DataSum {
			return Scene{}, fmt.Errorf("%s, pane %d: %s has changed since it was saved (its SHA-256 is %s, the scene's %s)",
				sims.Shown(path), i+1, sims.Shown(file), t.Sum[:12]+"…", p.DataSum[:12]+"…")
		}
		sc.Panes[i].Table = t
	}
	return sc, nil
}

// MaxDirScenes is the most scene files LoadDir reads from a folder.
const MaxDirScenes = 500

// LoadDir reads every *.scene file of a folder (Load), in the order of
// their names — a teacher's course, 01-intro.scene first. Two scenes of
// one name, or a folder without scenes, are errors.
func LoadDir(dir string, cat *sims.Catalog) ([]Scene, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.scene"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		if _, err := os.Stat(dir); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%s has no .scene files", sims.Shown(dir))
	}
	if len(files) > MaxDirScenes {
		return nil, fmt.Errorf("%s has %d .scene files, more than %d", sims.Shown(dir), len(files), MaxDirScenes)
	}
	slices.Sort(files)
	out := make([]Scene, 0, len(files))
	seen := map[string]string{}
	for _, f := range files {
		sc, err := Load(f, cat)
		if err != nil {
			return nil, err
		}
		if prev, ok := seen[sc.Name]; ok {
			return nil, fmt.Errorf("%s and %s both name a scene %s", sims.Shown(prev), sims.Shown(f), sc.Name)
		}
		seen[sc.Name] = f
		out = append(out, sc)
	}
	return out, nil
}

// readSmall reads a regular file of at most limit bytes.
func readSmall(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil {
		return nil, err
	} else if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", sims.Shown(path))
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err == nil && int64(len(b)) > limit {
		err = fmt.Errorf("%s is larger than %d bytes", sims.Shown(path), limit)
	}
	return b, err
}
