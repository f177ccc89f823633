package serve

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thelab/lab/serve/servetest"
)

// setCorpus opens lda's parameter editor in s, clears its first field
// (the corpus) and types name there, as a visitor would, and waits for
// the screen to show want.
func setCorpus(t *testing.T, s *servetest.Session, name, want string) {
	t.Helper()
	s.Send("p")
	s.Send("\x15" + name + "\r") // ctrl+u clears the field
	// Each key redraws a 4-chart lda pane, which the test's terminal
	// emulator parses: slow under -race on a loaded machine.
	if screen, err := s.WaitText(wait, want); err != nil {
		t.Fatalf("corpus=%s: %v; screen:\n%s", name, err, screen)
	}
}

// closeEditor closes the parameter editor and waits until it is gone.
func closeEditor(t *testing.T, s *servetest.Session) {
	t.Helper()
	s.Send("\x1b")
	if screen, err := s.WaitFor(wait, func(sc string) bool { return !strings.Contains(sc, "Parameters of") }); err != nil {
		t.Fatalf("closing the editor: %v; screen:\n%s", err, screen)
	}
}

func TestVisitorsReadNoServerFiles(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "secret.txt")
	os.WriteFile(secret, []byte("zebra quokka narwhal\n"), 0o600)
	cfg := testConfig(t)
	cfg.Sims = []string{"lda"}
	cfg.CPUPerSession = 0 // the cap charges wall time, which a loaded machine inflates: builds would wait for it
	ts := start(t, cfg)
	s := ts.open(t, servetest.Options{W: 90, H: 26})
	setCorpus(t, s, "/etc/passwd", "cannot open the file")
	closeEditor(t, s)
	// The catalogue the sessions build from refuses, however a parameter
	// was set, and says why.
	spec := ts.cfg.Catalog.Lookup("lda")
	if _, err := spec.Build(corpusConfig(t, spec, secret)); err == nil || !strings.Contains(err.Error(), "no files") {
		t.Errorf("building lda on a server file: %v", err)
	}
}

func TestVisitorsPickFilesFromTheDataDirByName(t *testing.T) {
	top := t.TempDir()
	data := filepath.Join(top, "data")
	os.Mkdir(data, 0o755)
	var docs strings.Builder
	for i := range 40 {
		docs.WriteString([]string{"gradient descent step size convergence rate\n", "markov chain sampler proposal acceptance\n"}[i%2])
	}
	os.WriteFile(filepath.Join(data, "notes.txt"), []byte(docs.String()), 0o644)
	secret := filepath.Join(top, "secret.txt")
	os.WriteFile(secret, []byte("zebra quokka narwhal\n"), 0o600)
	os.Symlink(secret, filepath.Join(data, "esc.txt"))
	cfg := testConfig(t)
	cfg.Sims = []string{"lda"}
	cfg.CPUPerSession = 0 // the cap charges wall time, which a loaded machine inflates: builds would wait for it
	cfg.DataDir = data
	ts := start(t, cfg)
	s := ts.open(t, servetest.Options{W: 90, H: 26})
	setCorpus(t, s, "notes.txt", "restarted lda")
	setCorpus(t, s, "../secret.txt", "cannot open the file")
	closeEditor(t, s)
	if strings.Contains(s.Output(), "quokka") {
		t.Error("a visitor saw the words of a file outside the data directory")
	}
	spec := ts.cfg.Catalog.Lookup("lda")
	for name, want := range map[string]string{"esc.txt": "not readable", secret: "by its name alone", "nope.txt": "it holds notes.txt"} {
		if _, err := spec.Build(corpusConfig(t, spec, name)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("lda on %s: %v, want %q", name, err, want)
		}
	}
}

func TestDataDirMustBeADirectory(t *testing.T) {
	cfg := testConfig(t)
	cfg.DataDir = filepath.Join(t.TempDir(), "missing")
	if _, err := New(cfg); err == nil || !strings.Contains(err.Error(), "--data-dir") {
		t.Errorf("a missing data directory: %v", err)
	}
}
