package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode"

	"github.com/charmbracelet/x/ansi"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/catalog"
)

// labBin is the binary built once for the tests of this package.
var labBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "labtest")
	if err != nil {
		panic(err)
	}
	labBin = filepath.Join(dir, "lab")
	if out, err := exec.Command("go", "build", "-o", labBin, ".").CombinedOutput(); err != nil {
		panic("building lab: " + err.Error() + "\n" + string(out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// lab runs the binary and returns stdout, stderr and the exit status.
func lab(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	return labIn(t, context.Background(), args...)
}

// labIn is lab, killed when ctx is done.
func labIn(t *testing.T, ctx context.Context, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.CommandContext(ctx, labBin, args...)
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

func TestListShowsEverySim(t *testing.T) {
	out, _, code := lab(t, "list", "--long")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, s := range catalog.All().Specs() {
		if !strings.Contains(out, s.Name+" — "+s.Title) || !strings.Contains(out, s.Source) {
			t.Errorf("list lacks %s", s.Name)
		}
		for _, p := range s.Params {
			if !strings.Contains(out, p.Range()) {
				t.Errorf("list lacks the range of %s.%s", s.Name, p.Name)
			}
		}
	}
}

// The form of --json's lines (one every K steps, then a final line with
// the result) is checked on every run of TestSizeEstimates.

func TestRunIsReproducible(t *testing.T) {
	a, _, _ := lab(t, "run", "mh", "--steps", "3000", "--json", "--seed", "9")
	b, _, _ := lab(t, "run", "mh", "--steps", "3000", "--json", "--seed", "9")
	c, _, _ := lab(t, "run", "mh", "--steps", "3000", "--json", "--seed", "10")
	if a != b || a == c {
		t.Errorf("same seed differs or different seeds agree:\n%s\n%s\n%s", a, b, c)
	}
}

func TestRunResults(t *testing.T) {
	out, _, code := lab(t, "run", "gd", "--json", "--set", "fn=himmelblau")
	var obj struct {
		State  string
		Result struct{ X []float64 }
	}
	if err := json.Unmarshal([]byte(out), &obj); err != nil || code != 0 {
		t.Fatalf("exit %d, %v: %s", code, err, out)
	}
	if obj.State != "converged" || len(obj.Result.X) != 2 {
		t.Errorf("himmelblau: %+v", obj)
	}
	out, _, _ = lab(t, "run", "em-gmm", "--json", "--data", "../../testdata/blobs.csv", "--set", "k=3")
	var em struct {
		Result struct {
			Weights     []float64
			Means       [][]float64
			Covariances [][][]float64
			LoglikTrace []float64 `json:"loglik_trace"`
		}
	}
	if err := json.Unmarshal([]byte(out), &em); err != nil {
		t.Fatal(err)
	}
	if len(em.Result.Weights) != 3 || len(em.Result.Means) != 3 || len(em.Result.Covariances) != 3 || len(em.Result.LoglikTrace) == 0 {
		t.Errorf("em-gmm result: %+v", em.Result)
	}
}

func TestRunFrames(t *testing.T) {
	out, _, code := lab(t, "run", "gd", "--frames", "--size", "90x26", "--steps", "20", "--every", "10")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	frames := strings.Split(strings.TrimRight(out, "\n"), "\n\n")
	if len(frames) != 2 {
		t.Fatalf("%d frames, want 2 (step 10 and the final step 20)", len(frames))
	}
	for i, f := range frames {
		lines := strings.Split(f, "\n")
		if len(lines) != 26 {
			t.Errorf("frame %d: %d lines", i, len(lines))
		}
		for _, l := range lines {
			if ansi.StringWidth(l) != 90 {
				t.Errorf("frame %d: line of width %d: %q", i, ansi.StringWidth(l), l)
			}
		}
		if strings.Contains(f, "\x1b[") {
			t.Errorf("frame %d: escape codes in non-terminal output", i)
		}
	}
	if !strings.Contains(frames[1], "step 20") || !strings.Contains(frames[1], "quadratic contours") {
		t.Errorf("final frame:\n%s", frames[1])
	}
}

// TestExitStatus checks 0, 2 (usage, a bad parameter, file or output,
// named, or a sim name that matches none) and 1 (the engine fails). No
// message passes on a control character: what the user typed is quoted.
func TestExitStatus(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	big := write("big.csv", "x,y,label\n1e308,1e308,0\n-1e308,1e308,1\n1,2,0\n")
	labelFirst := write("labelfirst.csv", "label,x,y\n0,0,0\n0,0.5,1\n0,1,0.2\n1,5,5\n1,5.5,6\n1,6,5.2\n")
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"run", "gd", "--steps", "5"}, 0, ""},
		{[]string{"help"}, 0, ""},
		{[]string{"run"}, 2, "which sim"},
		{[]string{"run", "nope"}, 2, `unknown sim "nope"`},
		{[]string{"nope"}, 2, `unknown sim "nope"`},
		{[]string{"run", "gd", "--bogus"}, 2, "bogus"},
		{[]string{"run", "gd", "--set", "lr=11"}, 2, "parameter lr"},
		{[]string{"run", "gd", "--set", "lr"}, 2, "name=value"},
		{[]string{"run", "gd", "--set", "speed=3"}, 2, `unknown parameter "speed"`},
		{[]string{"run", "gd", "--json", "--frames"}, 2, "exclude"},
		{[]string{"run", "gd", "--frames", "--size", "3x3"}, 2, "--size"},
		{[]string{"run", "gd", "--data", "x.csv"}, 2, "takes no --data"},
		{[]string{"run", "em-gmm", "--data", filepath.Join(dir, "missing.csv")}, 2, "no such file"},
		{[]string{"run", "em-gmm", "--data", write("empty.csv", "")}, 2, "empty"},
		{[]string{"run", "em-gmm", "--data", write("ragged.csv", "x,y\n1,2\n3\n")}, 2, "line 3"},
		{[]string{"run", "em-gmm", "--data", write("text.csv", "x,y\n1,2\n3,abc\n")}, 2, "line 3, column 2"},
		{[]string{"run", "em-gmm", "--data", write("one.csv", "x\n1\n2\n")}, 2, "two"},
		{[]string{"run", "ot-lp", "--data", write("sides.csv", "x,side\n0,source\n1,target\n")}, 0, ""},
		{[]string{"run", "ot-lp", "--data", write("side.csv", "x,side\n0,source\n1,targt\n")}, 2, "line 3, column 2 (side)"},
		{[]string{"run", "ot-lp", "--data", write("mass.csv", "x,weight,side\n0,1,source\n1,2,target\n")}, 2, "sum to 1 and the target masses to 2"},
		{[]string{"run", "gd", "--set", "lr=0.3"}, 1, "diverged at step"},
		{[]string{"run", "gd", "--steps", "0"}, 2, "--steps 0: steps are a whole number, at least 1"},
		{[]string{"run", "gd", "--seed", "-5"}, 2, "--seed -5: a seed is a whole number from 0 to 18446744073709551615"},
		{[]string{"run", "gd", "--size", "80x24"}, 2, "--size is the size of --frames' pane"},
		{[]string{"run", "gd", "--color"}, 2, "--color colours --frames' pane"},
		{[]string{"run", "gd", "--series", filepath.Join(dir, "no", "such", "dir.csv")}, 2, "--series"},
		{[]string{"gd"}, 2, "needs a terminal; without one, lab run SIM"},
		{[]string{"gd", "--json"}, 2, "--json is a flag of lab run"},
		{[]string{"gd", "--set", "lr=11"}, 2, "parameter lr"},
		{[]string{"--set", "k=4", "em-gmm", "mh"}, 2, "with several sims, put each sim's"},
		{[]string{"--set", "k=4"}, 2, "need a sim"},
		{[]string{"em-gmm", "--data", filepath.Join(dir, "missing.csv")}, 2, "no such file"},
		{[]string{"list", "zzzz"}, 2, `no sim matches "zzzz"`},
		{[]string{"run", "em-gmm", "--data", ""}, 2, `--data "": the file's name is empty: leave --data out for the sim's own data`},
		{[]string{"em-gmm", "--data", ""}, 2, `--data "": the file's name is empty`},
		{[]string{"run", "em-gmm", "--data", dir}, 2, "a directory, not a regular file: the lab reads only regular files"},
		{[]string{"run", "em-gmm", "--data", "/dev/zero"}, 2, "--data /dev/zero: cannot open the file: a character device, not a regular file"},
		{[]string{"run", "em-gmm", "--data", write("noheader.csv", "1,2\n3,4\n")}, 2,
			"noheader.csv: line 1 (1,2) holds numbers, not column names: the file has no header row; the first line must name the columns (em-gmm: the columns of --data are the points"},
		{[]string{"run", "kmeans", "--data", write("dup.csv", "x,y,label,Label\n1,2,0,1\n")}, 2, "line 1: columns 3 and 4 are both named Label"},
		{[]string{"run", "kmeans", "--data", write("bom.csv", "\ufeffLABEL,x,y\n0,0,0\n0,1,0\n1,9,9\n1,9,8\n2,-9,9\n2,-9,8\n")}, 0, ""},
		{[]string{"run", "gd", "--\x1b]0;title\a"}, 2, `unknown flag "--\x1b]0;title\a"`},
		{[]string{"run", "gd", "--every", "abc"}, 2, "--every abc: must be a whole number"},
		{[]string{"run", "gd", "--json=maybe"}, 2, "--json maybe: must be true or false"},
		{[]string{"run", "gd", "--seed", "\x1b[2J"}, 2, `--seed "\x1b[2J": a seed is a whole number`},
		{[]string{"run", "gd", "--series", ""}, 2, `--series "": the file's name is empty: leave --series out to write none`},
		{[]string{"run", "gd", "--steps", "3", "--series", "/dev/full"}, 2, "--series: write /dev/full: no space left on device"},
		{[]string{"run", "lda", "--set", "corpus=" + dir}, 2, "a directory, not a regular file"},
		{[]string{"serve", "--data-dir", ""}, 2, "--data-dir is empty"},
		// Messages that name what the user set, and where a bound comes from.
		{[]string{"run", "rates", "--set", "cap=1e+05", "--steps", "1"}, 0, ""},
		{[]string{"run", "rates", "--set", "cap=1e+06"}, 2, "parameter cap = \"1e+06\": must be in 100..100000"},
		{[]string{"run", "logits", "--set", "t_min=1e6"}, 2, "parameter t_min = 1e+06: must be below t_max = 100 (its default)"},
		{[]string{"run", "logits", "--set", "t_max=0.001"}, 2, "parameter t_max = 0.001: must be above t_min = 0.01 (its default)"},
		{[]string{"run", "rates", "--set", "eps_min=0.3"}, 2, "parameter eps_min = 0.3: must be at most eps_max = 0.1 (its default)"},
		{[]string{"run", "linreg", "--data", big}, 2, "big.csv: line 2, column 1 (x): at 1e308 the sum of the column's squares overflows"},
		{[]string{"run", "logreg", "--data", big}, 2, "big.csv: line 2, column 1 (x): at 1e308 the sum of the column's squares overflows"},
		{[]string{"run", "diffusion", "--data", write("line.csv", "x,y\n1,2\n2,4\n3,6\n4,8\n5,10\n6,12\n"), "--set", "k=1"}, 2,
			"component 1 at (3.5, 7) has zero variance across a line: its points lie on one"},
		{[]string{"run", "diffusion", "--data", write("same.csv", "x,y\n2,3\n2,3\n2,3\n"), "--set", "k=1"}, 2,
			"same.csv: variance 0; it must be points that are not all equal"},
		{[]string{"run", "ot-geodesic", "--data", write("2d.csv", "x,y,side\n0,0,source\n1,1,target\n")}, 2, "ot-geodesic needs points on the line"},
		{[]string{"run", "svm", "--data", write("oneclass.csv", "x,y,label\n1,2,1\n2,3,1\n3,1,1\n")}, 2,
			"oneclass.csv: all 3 rows have the same label: a two-class classifier needs rows of both classes"},
		{[]string{"run", "lda", "--set", "corpus=" + write("tiny.txt", "one\n")}, 2, "tiny.txt\": 0 documents over 0 words after tokenising; must be at least 2 documents"},
		{[]string{"run", "dp", "--set", "mode=dpmm", "--data", labelFirst, "--steps", "2"}, 0, ""},
		{[]string{"run", "gan", "--data", labelFirst, "--steps", "2"}, 0, ""},
		{[]string{"run", "classifier", "--data", labelFirst, "--steps", "2"}, 0, ""},
		{[]string{"help", "nope"}, 2, `unknown sim "nope"`},
		{[]string{"version", "x"}, 2, "no arguments"},
	}
	for _, tt := range tests {
		_, errs, code := lab(t, tt.args...)
		if code != tt.code || !strings.Contains(errs, tt.want) {
			t.Errorf("lab %s: exit %d, stderr %q; want exit %d and %q",
				strings.Join(tt.args, " "), code, errs, tt.code, tt.want)
		}
		if strings.Contains(errs, "panic") || strings.Contains(errs, "goroutine") {
			t.Errorf("lab %s panicked: %s", strings.Join(tt.args, " "), errs)
		}
		if strings.ContainsFunc(errs, func(r rune) bool { return unicode.IsControl(r) && r != '\n' }) {
			t.Errorf("lab %q: stderr %q passes on a control character", tt.args, errs)
		}
	}
}

// TestPipesAreRefusedPromptly: a named pipe as --data or as a text
// parameter is refused at once, not read until a writer comes.
func TestPipesAreRefusedPromptly(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	for _, args := range [][]string{
		{"run", "kmeans", "--data", fifo},
		{"run", "ngram", "--data", fifo},
		{"run", "lda", "--set", "corpus=" + fifo},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		_, errs, code := labIn(t, ctx, args...)
		if ctx.Err() != nil {
			t.Errorf("lab %s: still running after a minute", strings.Join(args, " "))
		} else if code != 2 || !strings.Contains(errs, "a named pipe (FIFO), not a regular file") {
			t.Errorf("lab %s: exit %d, stderr %q", strings.Join(args, " "), code, errs)
		}
		cancel()
	}
}

// TestCrashesExit1: a sim that panics while it is built, or the command
// itself, exits 1 (a failure, with the panic's message and stack), not
// Go's 2, which is the status of bad usage.
func TestCrashesExit1(t *testing.T) {
	boom := &sims.Spec{Name: "boom", Steps: 1, New: func(sims.Config) (sims.Sim, error) { panic("boom") }}
	_, err := sims.NewRunner(boom, sims.Config{}, sims.RunnerOptions{Paused: true})
	var ee *exitError
	if e := buildError("boom", err); !errors.As(e, &ee) || ee.code != 1 || !strings.Contains(e.Error(), "boom crashed: panic while building boom: boom") {
		t.Errorf("a build that panics: %v", e)
	}
	refuse := &sims.Spec{Name: "refuse", Steps: 1, New: func(sims.Config) (sims.Sim, error) { return nil, errors.New("no") }}
	_, err = sims.NewRunner(refuse, sims.Config{}, sims.RunnerOptions{Paused: true})
	if e := buildError("refuse", err); !errors.As(e, &ee) || ee.code != 2 {
		t.Errorf("a build that refuses: %v", e)
	}
	var stderr bytes.Buffer
	if code := run([]string{"version"}, panicWriter{}, &stderr); code != 1 || !strings.Contains(stderr.String(), "lab: crashed (a bug; please report it with this message): written") {
		t.Errorf("a panic of the command: exit %d, stderr %q", code, stderr.String())
	}
}

// panicWriter panics on every write.
type panicWriter struct{}

func (panicWriter) Write([]byte) (int, error) { panic("written") }

// TestPrintable: a message reaches the terminal without its control
// characters and bytes that are not UTF-8, which are written as escapes.
func TestPrintable(t *testing.T) {
	for in, want := range map[string]string{
		"plain: é ü ∑":            "plain: é ü ∑",
		"two\nlines\tand a tab":   "two\nlines\tand a tab",
		"column \x1b]0;title\a":   `column \x1b]0;title\a`,
		"bell\a, CR\r, C1 \u009b": `bell\a, CR\r, C1 \u009b`,
		"latin-1 caf\xe9":         `latin-1 caf\xe9`,
	} {
		if got := printable(in); got != want {
			t.Errorf("printable(%q) = %q, want %q", in, got, want)
		}
	}
}
