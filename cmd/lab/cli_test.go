package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/creack/pty"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/catalog"
	"github.com/thelab/lab/tui"
)

// TestCLIGolden pins the help and list outputs.
func TestCLIGolden(t *testing.T) {
	for _, args := range [][]string{
		{"help"}, {"help", "kmeans"}, {"help", "keys"}, {"help", "run"}, {"list"}, {"list", "gauss"}, {"list", "--long", "kme"},
		{"tour"}, {"tour", "sinkhorn"}, {"tour", "--help"},
	} {
		t.Run(strings.Join(args, "_"), func(t *testing.T) {
			out, errs, code := lab(t, args...)
			if code != 0 || errs != "" {
				t.Fatalf("exit %d: %s", code, errs)
			}
			golden.RequireEqual(t, out)
		})
	}
}

// TestHelpEverywhere: every way of asking for help exits 0 and says
// something useful.
func TestHelpEverywhere(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--help"}, "Usage:"},
		{[]string{"-h"}, "Usage:"},
		{[]string{"help", "em-gmm"}, "Parameters (--set name=value"},
		{[]string{"run", "em-gmm", "--help"}, "Run flags"},
		{[]string{"run", "--help"}, "Run flags"},
		{[]string{"run", "--help", "em-gmm"}, "em-gmm — "},
		{[]string{"em-gmm", "--help"}, "Examples:"},
		{[]string{"gd", "mh", "--help"}, "mh — "},
		{[]string{"version"}, "lab "},
		{[]string{"list", "kme"}, "kmeans"},
	} {
		out, errs, code := lab(t, tt.args...)
		if code != 0 || !strings.Contains(out, tt.want) {
			t.Errorf("lab %s: exit %d, stderr %q, stdout lacks %q:\n%s", strings.Join(tt.args, " "), code, errs, tt.want, out)
		}
	}
}

// TestEverySimsHelp: every sim's help lists each parameter with its
// default and range and each metric with its key, prints every word of
// its texts whole, its examples parse, and the one that sets a parameter
// is the setting TestSizeEstimates builds and steps (exampleConfig).
func TestEverySimsHelp(t *testing.T) {
	for _, spec := range catalog.All().Specs() {
		t.Run(spec.Name, func(t *testing.T) {
			t.Parallel()
			var b bytes.Buffer
			writeSimHelp(&b, spec)
			out := b.String()
			defaults := spec.Defaults()
			for _, p := range spec.Params {
				if !strings.Contains(out, "  "+p.Name+" = "+defaults.Text(p.Name)) || !strings.Contains(out, p.Range()) {
					t.Errorf("%s: help lacks %s = %s in %s", spec.Name, p.Name, defaults.Text(p.Name), p.Range())
				}
			}
			if !strings.Contains(strings.Join(strings.Fields(out), " "), strings.Join(strings.Fields(spec.Source), " ")) {
				t.Errorf("%s: help lacks the source", spec.Name)
			}
			// Every word of the texts help wraps is printed whole: the
			// wrapping breaks only at spaces (not --data's hyphen).
			words := map[string]bool{}
			for _, w := range strings.Fields(out) {
				words[w] = true
			}
			texts := []string{spec.Source, strings.TrimPrefix(spec.Data, "--data: ")}
			for _, p := range spec.Params {
				texts = append(texts, p.Help, p.DefaultNote)
			}
			for _, d := range spec.Metrics {
				texts = append(texts, d.Meaning)
				if !strings.Contains(out, "\n  "+d.Key+"\n") && !strings.Contains(out, "\n  "+d.Key+"  ("+d.Name+")\n") {
					t.Errorf("%s: help does not list metric %s (%s)", spec.Name, d.Key, d.Name)
				}
			}
			for _, text := range texts {
				for _, w := range strings.Fields(text) {
					if !words[w] {
						t.Errorf("%s: help splits the word %q", spec.Name, w)
					}
				}
			}
			for _, ex := range simExamples(spec) {
				args := strings.Fields(ex[0])[1:]
				if strings.Contains(ex[0], " --data ") {
					continue // a file of the user's
				}
				if args[0] == "run" {
					runs, _, err := parseRun(args[1:])
					if err != nil {
						t.Errorf("%s: %s: %v", spec.Name, ex[0], err)
						continue
					}
					for _, r := range runs {
						if _, _, err := r.o.config(catalog.All().Lookup(r.name)); err != nil {
							t.Errorf("%s: %s: %v", spec.Name, ex[0], err)
						}
					}
					continue
				}
				opts, _, err := parseLab(args)
				if err != nil {
					t.Errorf("%s: %s: %v", spec.Name, ex[0], err)
					continue
				}
				po := opts.Panes[0]
				if len(po.Set) == 0 && po.Seed == nil {
					continue // the default build: sims/catalog's TestEverySimRuns builds it
				}
				// The example that sets a parameter is built and stepped
				// by TestSizeEstimates (exampleConfig), outside the race
				// detector, in the process of the sim's other settings:
				// it must be the setting that test builds.
				set, _ := exampleSet(spec)
				name, value, _ := strings.Cut(set, "=")
				if po.Seed == nil || *po.Seed != exampleSeed || len(po.Set) != 1 || po.Set[name] != value {
					t.Errorf("%s: %s sets %v at seed %v, not %s at seed %d as TestSizeEstimates builds it", spec.Name, ex[0], po.Set, po.Seed, set, exampleSeed)
				}
			}
		})
	}
}

// TestTUIFlags: the TUI takes lab run's flags per sim, each after the sim
// it is for.
func TestTUIFlags(t *testing.T) {
	opts, _, err := parseLab([]string{"--seed", "5", "em-gmm", "--data", "../../testdata/blobs.csv", "--set", "k=4", "--seed", "7",
		"mh", "gd", "--set", "fn=rosenbrock", "--steps", "3"})
	if err != nil {
		t.Fatal(err)
	}
	if opts.Seed != 5 || len(opts.Panes) != 3 {
		t.Fatalf("%+v", opts)
	}
	em, mh, gd := opts.Panes[0], opts.Panes[1], opts.Panes[2]
	if em.Sim != "em-gmm" || em.Set["k"] != "4" || em.Seed == nil || *em.Seed != 7 || em.Data == nil || len(em.Data.Rows) == 0 {
		t.Errorf("em-gmm: %+v", em)
	}
	if mh.Sim != "mh" || len(mh.Set) != 0 || mh.Seed != nil || mh.Data != nil {
		t.Errorf("mh: %+v", mh)
	}
	if gd.Set["fn"] != "rosenbrock" || gd.Steps != 3 {
		t.Errorf("gd: %+v", gd)
	}
	// One sim: flags before it are its own.
	opts, _, err = parseLab([]string{"--set", "k=4", "em-gmm"})
	if err != nil || opts.Panes[0].Set["k"] != "4" {
		t.Errorf("lead --set with one sim: %+v, %v", opts, err)
	}
	m, err := tui.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
}

// TestRunCommandReproducesThePane: the command a pane shows (c) run
// headless gives the pane's metrics, data file, parameters and all.
func TestRunCommandReproducesThePane(t *testing.T) {
	data, err := sims.LoadCSV(nil, "../../testdata/blobs.csv")
	if err != nil {
		t.Fatal(err)
	}
	spec := catalog.All().Lookup("em-gmm")
	vals, err := sims.Resolve(spec.Params, map[string]string{"k": "4", "restarts": "2"})
	if err != nil {
		t.Fatal(err)
	}
	r, err := sims.NewRunner(spec, sims.Config{Values: vals, Seed: 7, Data: data}, sims.RunnerOptions{Paused: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	<-r.Step(5)
	snap := r.Latest()
	cmd := tui.RunCommand(snap, data)
	if !strings.HasPrefix(cmd, "lab run em-gmm --seed 7 ") || !strings.Contains(cmd, "--data ../../testdata/blobs.csv") {
		t.Fatalf("command %q", cmd)
	}
	out, errs, code := lab(t, append(strings.Fields(cmd)[1:], "--json")...)
	if code != 0 {
		t.Fatalf("%s: exit %d: %s", cmd, code, errs)
	}
	var got struct {
		Step    int
		Metrics map[string]float64
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if got.Step != snap.Frame.Step {
		t.Errorf("%s: step %d, the pane's %d", cmd, got.Step, snap.Frame.Step)
	}
	for _, m := range snap.Frame.Metrics {
		if key := spec.MetricKey(m.Name); got.Metrics[key] != m.Value {
			t.Errorf("%s: %s = %v, the pane's %s %v", cmd, key, got.Metrics[key], m.Name, m.Value)
		}
	}
}

// TestRunOutputs: a run that reaches its step count is "stopped"; --series
// writes every chart series; --frames --color keeps colour in a pipe.
func TestRunOutputs(t *testing.T) {
	out, _, _ := lab(t, "run", "gd", "--steps", "5", "--json")
	if !strings.Contains(out, `"final":true,"state":"stopped"`) {
		t.Errorf("a run stopped at its step count: %s", out)
	}
	out, _, _ = lab(t, "run", "gd", "--steps", "5")
	if !strings.HasPrefix(out, "gd: stopped after 5 steps (seed 1)\n") {
		t.Errorf("summary: %s", out)
	}
	out, _, _ = lab(t, "run", "gd", "--json")
	if !strings.Contains(out, `"state":"converged"`) {
		t.Errorf("a converged run: %s", out)
	}
	path := filepath.Join(t.TempDir(), "series.csv")
	if _, errs, code := lab(t, "run", "gd", "--steps", "20", "--series", path); code != 0 {
		t.Fatalf("--series: exit %d: %s", code, errs)
	}
	csv, err := os.ReadFile(path)
	if err != nil || !strings.HasPrefix(string(csv), "chart,series,x,y,class\n") || strings.Count(string(csv), "f−f*") != 21 {
		t.Errorf("--series file (%v):\n%.400s", err, csv)
	}
	// A run on --data says whose data: the file, its rows and columns, and
	// none of the parameters that only shape the built-in data.
	data := filepath.Join(t.TempDir(), "pts.csv")
	if err := os.WriteFile(data, []byte("u,v,label\n0,0,0\n1,0,1\n0,1,1\n1,1,0\n2,2,1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, _, _ = lab(t, "run", "kmeans", "--data", data, "--steps", "2")
	if !strings.Contains(out, "\ndata: "+data+": 5 rows; columns u, v, label\nparameters: k=3 restarts=10 columns=all\n") {
		t.Errorf("a run on --data:\n%s", out)
	}
	// NO_COLOR and a pipe: colour only when asked for.
	plain, _, _ := lab(t, "run", "gd", "--steps", "5", "--frames", "--size", "60x20")
	colour, _, _ := lab(t, "run", "gd", "--steps", "5", "--frames", "--size", "60x20", "--color")
	if strings.Contains(plain, "\x1b[") || !regexp.MustCompile(`\x1b\[[0-9;]*38;2;`).MatchString(colour) {
		t.Errorf("--color: plain has escapes %v, coloured has 24-bit colour %v",
			strings.Contains(plain, "\x1b["), strings.Contains(colour, "38;2;"))
	}
}

// TestSeveralRuns: lab run runs several sims one after another, each with
// its flags and a dashboard's seeds; a run that cannot start or fails does
// not stop the next, each says its number and outcome in JSON, and the
// exit status is the worst. A run among several gives what it gives alone.
func TestSeveralRuns(t *testing.T) {
	out, errs, code := lab(t, "run", "gd", "--steps", "3", "--json", "mh", "--set", "step=-1",
		"gd", "--set", "fn=rosenbrock", "--set", "lr=0.01", "em-gmm", "--seed", "1", "--steps", "4")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	type line struct {
		Sim, State, Reason string
		Run, Step          int
		Metrics            map[string]float64
	}
	var got []line
	for _, l := range lines {
		var x line
		if err := json.Unmarshal([]byte(l), &x); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		got = append(got, x)
	}
	want := []line{{Sim: "gd", Run: 1, Step: 3, State: "stopped"}, {Sim: "mh", Run: 2, State: "refused"},
		{Sim: "gd", Run: 3, State: "diverged"}, {Sim: "em-gmm", Run: 4, State: "stopped"}}
	if len(got) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(got), len(want), out)
	}
	for i, w := range want {
		g := got[i]
		if g.Sim != w.Sim || g.Run != w.Run || g.State != w.State || (w.Step > 0 && g.Step != w.Step) ||
			(g.Reason == "") != (w.State == "stopped") {
			t.Errorf("line %d: %+v, want %+v", i+1, g, w)
		}
	}
	if code != 2 || !strings.Contains(errs, "lab: run 2: mh: parameter step") || !strings.Contains(errs, "lab: run 3: gd diverged") ||
		!strings.Contains(errs, "runs 2, 3 of 4 did not end well") {
		t.Errorf("exit %d, stderr:\n%s", code, errs)
	}
	// The last run, alone (its seed given: the runs without one took the
	// dashboard's 1, 2 and 3).
	alone, _, _ := lab(t, "run", "em-gmm", "--seed", "1", "--steps", "4", "--json")
	if want := strings.Replace(strings.TrimSpace(alone), `{"sim":"em-gmm",`, `{"sim":"em-gmm","run":4,`, 1); lines[3] != want {
		t.Errorf("em-gmm among several:\n%s\nalone:\n%s", lines[3], want)
	}
	// Seeds as a dashboard's: the session's, counting up for the sims
	// without their own.
	out, _, _ = lab(t, "run", "--seed", "5", "gd", "--steps", "1", "mh", "--seed", "9", "--steps", "1", "gd", "--steps", "1")
	if seeds := regexp.MustCompile(`\(seed (\d+)\)`).FindAllStringSubmatch(out, -1); len(seeds) != 3 ||
		seeds[0][1] != "5" || seeds[1][1] != "9" || seeds[2][1] != "6" {
		t.Errorf("seeds %v, want 5, 9, 6:\n%s", seeds, out)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "gd", "mh", "--series", "x.csv"}, "--series writes the series of one run"},
		{[]string{"run", "--set", "lr=1", "gd", "mh"}, "put each sim's --set, --data and --steps after its name: lab run gd"},
		{[]string{"run", "gd", "nosuch", "--json"}, `unknown sim "nosuch"`},
	} {
		if out, errs, code := lab(t, c.args...); code != 2 || out != "" || !strings.Contains(errs, c.want) {
			t.Errorf("lab %s: exit %d, stdout %q, stderr %q; want 2 and %q", strings.Join(c.args, " "), code, out, errs, c.want)
		}
	}
}

// TestTourErrors: a filter that matches no scene, an unknown flag and a
// scene opened without a terminal are usage errors (status 2).
func TestTourErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"tour", "no-such-words-anywhere"}, `no scene matches "no-such-words-anywhere"`},
		{[]string{"tour", "--colour"}, "unknown flag --colour"},
		{[]string{"tour", "spiral-features"}, "terminal"},
	} {
		if out, errs, code := lab(t, c.args...); code != 2 || out != "" || !strings.Contains(errs, c.want) {
			t.Errorf("lab %s: exit %d, stdout %q, stderr %q; want 2 and %q", strings.Join(c.args, " "), code, out, errs, c.want)
		}
	}
}

// TestProgressOnATerminal: a long run draws its progress on stderr when
// that is a terminal (here a pty), and nothing when it is a pipe.
func TestProgressOnATerminal(t *testing.T) {
	cmd := exec.Command(labBin, "run", "mh", "--steps", "2000000000", "--json")
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skip("no pty:", err)
	}
	defer ptmx.Close()
	cmd.Stderr = tty
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close()
	defer cmd.Process.Kill()
	line := regexp.MustCompile(`mh: step [0-9,]+ of 2,000,000,000 · [0-9.]+[kM]? steps/s · about [0-9:]+ left`)
	seen := make(chan string, 1)
	go func() {
		var all []byte
		buf := make([]byte, 4096)
		for {
			n, err := ptmx.Read(buf)
			all = append(all, buf[:n]...)
			if line.Match(all) {
				seen <- string(line.Find(all))
				return
			}
			if err != nil {
				seen <- ""
				return
			}
		}
	}()
	select {
	case got := <-seen:
		if got == "" {
			t.Error("no progress line on the terminal")
		}
	case <-time.After(30 * time.Second):
		t.Error("no progress line within 30 s")
	}
	// A pipe gets nothing.
	short := exec.Command(labBin, "run", "mh", "--steps", "300000")
	var errb bytes.Buffer
	short.Stderr = &errb
	if err := short.Run(); err != nil || errb.Len() > 0 {
		t.Errorf("stderr a pipe: %v, %q", err, errb.String())
	}
}

func TestProgressLine(t *testing.T) {
	p := &progress{name: "mh", total: 2_500_000}
	if got, want := p.line(500_000, 2*time.Second), "mh: step 500,000 of 2,500,000 · 250k steps/s · about 0:08 left (less if it converges)"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	if got := clock(2*time.Hour + 5*time.Minute + 3*time.Second); got != "2:05:03" {
		t.Errorf("clock: %s", got)
	}
	if got := thousands(-1234567); got != "-1,234,567" {
		t.Errorf("thousands: %s", got)
	}
}

func TestVersionText(t *testing.T) {
	info := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/thelab/lab", Version: "v0.3.0"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.time", Value: "2026-01-02T03:04:05Z"}, {Key: "vcs.modified", Value: "true"}}}
	got := versionText(info, true)
	for _, want := range []string{"lab v0.3.0 (github.com/thelab/lab)", "commit abc123 (2026-01-02T03:04:05Z, with uncommitted changes)", "go1.26.8"} {
		if !strings.Contains(got, want) {
			t.Errorf("%q lacks %q", got, want)
		}
	}
	// go run, -buildvcs=false: no vcs settings, and it says so.
	info.Settings = nil
	if got := versionText(info, true); !strings.Contains(got, "commit unknown") {
		t.Errorf("without vcs: %q", got)
	}
	if got := versionText(nil, false); !strings.Contains(got, "no build information") {
		t.Errorf("without build info: %q", got)
	}
}

// TestREADMEMatchesTheProgram: the README's numbers come from the
// program: the count of sims, the table of sims, the smallest terminal,
// the range of speeds.
func TestREADMEMatchesTheProgram(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	names := catalog.All().Names()
	m := regexp.MustCompile(`There are (\d+)\s+sims`).FindStringSubmatch(text)
	if m == nil || m[1] != strconv.Itoa(len(names)) {
		t.Errorf("README says %v sims; the catalogue has %d", m, len(names))
	}
	table, _, _ := strings.Cut(text[strings.Index(text, "## The sims"):][1:], "\n## ")
	rows := regexp.MustCompile("(?m)^\\| `([a-z0-9-]+)` \\|").FindAllStringSubmatch(table, -1)
	inTable := map[string]bool{}
	for _, r := range rows {
		inTable[r[1]] = true
	}
	for _, n := range names {
		if !inTable[n] {
			t.Errorf("README's table of sims lacks %s", n)
		}
	}
	if len(inTable) != len(names) {
		t.Errorf("README's table has %d sims, the catalogue %d", len(inTable), len(names))
	}
	small := fmt.Sprintf("need at least %d×%d", tui.MinWidth, tui.MinHeight)
	if !strings.Contains(text, small) || !strings.Contains(text, fmt.Sprintf("smallest terminal is %d×%d", tui.MinWidth, tui.MinHeight)) {
		t.Errorf("README does not state the smallest terminal, %d×%d, and its message %q", tui.MinWidth, tui.MinHeight, small)
	}
	top := sims.Speeds[len(sims.Speeds)-2]
	if !strings.Contains(text, "1 … "+thousandsSpace(int64(top))+" steps/s") {
		t.Errorf("README does not give the speeds as 1 … %v steps/s", top)
	}
}

// TestLimitsAreStated: lab help run and the README state the limits of a
// --data file that the reader enforces.
func TestLimitsAreStated(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	help := strings.Join(strings.Fields(simFlagsUsage), " ")
	text := strings.Join(strings.Fields(string(readme)), " ")
	want := fmt.Sprintf("of at most %d MiB, %d rows and %d cells", sims.MaxFile>>20, sims.MaxRows, sims.MaxCells)
	if !strings.Contains(help, want) || !strings.Contains(text, want) {
		t.Errorf("lab help run or the README does not say %q", want)
	}
}

// TestREADMEScreenIsTheProgram: the screen the README opens with is what
// the command under it prints today.
func TestREADMEScreenIsTheProgram(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	start := strings.Index(text, "```\n┏━ gd")
	m := regexp.MustCompile("`(lab run gd --frames --size \\d+x\\d+ --steps \\d+)`").FindStringSubmatch(text)
	if start < 0 || m == nil {
		t.Fatal("README lacks its gd screen and the command that prints it")
	}
	screen, _, _ := strings.Cut(text[start+4:], "```")
	out, errs, code := lab(t, strings.Fields(m[1])[1:]...)
	if code != 0 || strings.TrimRight(out, "\n") != strings.TrimRight(screen, "\n") {
		t.Errorf("%s (exit %d, %s) prints\n%s\nthe README shows\n%s\n(regenerate both it and docs/gd.svg as the README says)", m[1], code, errs, out, screen)
	}
}

// thousandsSpace prints n with thin-space groups as the README does: 10 000.
func thousandsSpace(n int64) string { return strings.ReplaceAll(thousands(n), ",", " ") }

// TestDataIsTheTextOfATextSim: for a sim that reads a whole file
// (Spec.DataFile), --data FILE.txt is --set text=FILE.txt, in lab run as
// in the TUI; both at once is an error.
func TestDataIsTheTextOfATextSim(t *testing.T) {
	path := filepath.Join(t.TempDir(), "book.txt")
	book := strings.Repeat("the cat sat on the mat. the dog ate the hat. ", 60)
	if err := os.WriteFile(path, []byte(book), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errs, code := lab(t, "run", "ngram", "--data", path, "--set", "chars=1000", "--steps", "3", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "the dog ate the hat") { // its sample
		t.Errorf("the run did not model the file: %s", out)
	}
	_, errs, code = lab(t, "run", "ngram", "--data", path, "--set", "text="+path)
	if code != 2 || !strings.Contains(errs, "both name the file") {
		t.Errorf("--data with --set text: exit %d, %q", code, errs)
	}
	opts, _, err := parseLab([]string{"ngram", "--data", path, "--set", "chars=1000"})
	if err != nil {
		t.Fatal(err)
	}
	if po := opts.Panes[0]; po.Set["text"] != path || po.Data != nil {
		t.Errorf("the TUI's pane: set %v, data %v", po.Set, po.Data)
	}
}

// parseLab parses lab's command line as tuiCmd does, without its own
// flags.
func parseLab(args []string) (tui.Options, []*paneArgs, error) {
	return parseTUI("lab", args, func(*flag.FlagSet) {})
}
