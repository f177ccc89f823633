package tui

import (
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/catalog"
	"github.com/thelab/lab/sims/simtest"
)

// goldenSize is a terminal a golden pane is drawn on, as the zoom draws
// it: the pane alone above the bottom bar, W columns by H−1 lines.
type goldenSize struct {
	W, H int
	Mono bool
}

// goldenSizes are the screens every golden pane is pinned at: the
// smallest the lab is designed for and a laptop's in monochrome (as
// plain text), and the smallest in colour (its ANSI sequences kept: the
// one place the panes' colours are pinned).
var goldenSizes = []goldenSize{{80, 24, true}, {140, 45, true}, {80, 24, false}}

func (g goldenSize) String() string {
	if g.Mono {
		return fmt.Sprintf("%dx%d mono", g.W, g.H)
	}
	return fmt.Sprintf("%dx%d colour", g.W, g.H)
}

// paneCase is a golden pane beside the catalogue's defaults: a sim (by
// its catalogue name) with settings, or with a --data table, that draw
// another picture, after Steps steps from seed 1 (fewer when a step
// converges or fails: the pane then says so).
type paneCase struct {
	Name  string // names the golden file, testdata/TestGoldenPanes/<Name>.golden
	Sim   string
	Set   map[string]string
	Data  func() *sims.Table // a --data table, or nil
	Steps int
}

// extraPanes are the pictures the defaults do not show: other views,
// presets, data and models, and a run caught before it ends (or after)
// where the walk's walkSteps show it at the other side. A setting whose
// pane is the defaults' with other numbers (a smaller n, a later step)
// is no case: the defaults pin that picture.
var extraPanes = []paneCase{
	// Automatic differentiation.
	{Name: "ad-graph-forward", Sim: "ad-graph", Set: map[string]string{"mode": "forward"}, Steps: 2},
	{Name: "ad-graph-fanout", Sim: "ad-graph", Set: map[string]string{"preset": "fanout", "mode": "reverse"}, Steps: 10},
	{Name: "jacobian-step3", Sim: "jacobian", Steps: 3},
	{Name: "implicit-heron-step3", Sim: "implicit", Steps: 3},
	{Name: "implicit-circle", Sim: "implicit", Set: map[string]string{"demo": "circle"}, Steps: 1},
	{Name: "implicit-lu", Sim: "implicit", Set: map[string]string{"demo": "lu"}, Steps: 9},
	{Name: "implicit-lp", Sim: "implicit", Set: map[string]string{"demo": "lp"}, Steps: 9},
	{Name: "coloring-step8", Sim: "coloring", Steps: 8},
	{Name: "coloring-jacobian", Sim: "coloring", Set: map[string]string{"problem": "jacobian"}, Steps: 8},
	{Name: "gradcheck-hinge", Sim: "gradcheck", Set: map[string]string{"model": "hinge"}, Steps: 6},
	// Generative models.
	{Name: "diffusion-moons-guided", Sim: "diffusion", Set: map[string]string{"data": "moons", "class": "0", "method": "ddpm"}, Steps: 100},
	{Name: "score-match-sampling", Sim: "score-match", Set: map[string]string{"width": "16", "train": "100", "steps": "20", "n": "300"}, Steps: 130},
	{Name: "fdiv-js", Sim: "fdiv", Set: map[string]string{"divergence": "js", "mq": "3", "sq": "0.5"}, Steps: 60},
	{Name: "flow-affine", Sim: "flow", Set: map[string]string{"mode": "affine"}, Steps: 30},
	{Name: "flow-triangular", Sim: "flow", Set: map[string]string{"mode": "triangular"}, Steps: 40},
	{Name: "flow-icdf", Sim: "flow", Set: map[string]string{"mode": "icdf"}, Steps: 50},
	{Name: "autoencoder-nonlinear", Sim: "autoencoder", Set: map[string]string{"mode": "nonlinear"}, Steps: 30},
	{Name: "autoencoder-denoise", Sim: "autoencoder", Set: map[string]string{"mode": "denoise"}, Steps: 30},
	{Name: "vae-plane", Sim: "vae", Set: map[string]string{"data": "plane"}, Steps: 60},
	{Name: "vae-toy", Sim: "vae", Set: map[string]string{"data": "toy"}, Steps: 20},
	{Name: "gan-1d", Sim: "gan", Set: map[string]string{"dim": "1", "target": "twomodes"}, Steps: 25},
	// Gaussian identities at the step their histograms are full, and the
	// sum that breaks (a).
	{Name: "gaussian-famous", Sim: "gaussian", Steps: 1800},
	{Name: "gaussian-dependent", Sim: "gaussian", Set: map[string]string{"identity": "sum-dependent"}, Steps: 600},
	// Clustering in 4-D, drawn on the first two principal components.
	{Name: "em-gmm-4d", Sim: "em-gmm", Set: map[string]string{"k": "4"}, Data: hiddenClusters, Steps: 1},
	{Name: "kmeans-4d", Sim: "kmeans", Set: map[string]string{"k": "4"}, Data: hiddenClusters, Steps: 3},
	{Name: "clustering-agglomerative", Sim: "clustering", Set: map[string]string{"method": "agglomerative", "data": "aniso"}, Steps: 397},
	{Name: "clustering-spectral", Sim: "clustering", Set: map[string]string{"method": "spectral", "data": "circles"}, Steps: 4},
	{Name: "clustering-dbscan-varied", Sim: "clustering", Set: map[string]string{"data": "varied"}, Steps: 400},
	{Name: "classifiers-svm", Sim: "classifiers", Set: map[string]string{"model": "svm"}, Steps: 400},
	{Name: "classifiers-mlp", Sim: "classifiers", Set: map[string]string{"model": "mlp"}, Steps: 200},
	{Name: "svgd-converged", Sim: "svgd", Steps: 500},
	{Name: "adaptive-mh-adapted", Sim: "adaptive-mh", Steps: 3000},
	// Networks.
	{Name: "conv-step4", Sim: "conv", Steps: 4},
	{Name: "conv-digit-same-max", Sim: "conv", Set: map[string]string{"image": "digit", "padding": "same", "pool": "max"}, Steps: 300},
	{Name: "optimizers-saddle", Sim: "optimizers", Set: map[string]string{"surface": "saddle"}, Steps: 300},
	{Name: "attention-positions", Sim: "attention", Set: map[string]string{"view": "positions"}, Steps: 5},
	{Name: "attention-kernel", Sim: "attention", Set: map[string]string{"view": "kernel"}, Steps: 20},
	{Name: "tinygpt-sort", Sim: "tinygpt", Set: map[string]string{"task": "sort", "length": "4"}, Steps: 25},
	// The explain view: 20 training steps, then 6 characters drawn after
	// the prompt, top-k 5 cutting the rest.
	{Name: "tinygpt-explain", Sim: "tinygpt", Set: map[string]string{"view": "explain", "train_steps": "20", "eval_every": "20", "top_k": "5"}, Steps: 26},
	{Name: "tinygpt-block", Sim: "tinygpt", Set: map[string]string{"view": "block", "eval_every": "20"}, Steps: 20},
	{Name: "tinygpt-greedy", Sim: "tinygpt", Set: map[string]string{"view": "explain", "train_steps": "20", "eval_every": "20", "decode": "greedy"}, Steps: 26},
	// Kernels: the geometry demos at their end, blr on bump features.
	{Name: "kernel-geometry-cholesky", Sim: "kernel-geometry", Set: map[string]string{"demo": "cholesky"}, Steps: 20},
	{Name: "kernel-geometry-rotation", Sim: "kernel-geometry", Set: map[string]string{"demo": "rotation"}, Steps: 20},
	{Name: "kernel-geometry-poly", Sim: "kernel-geometry", Set: map[string]string{"demo": "poly"}, Steps: 19},
	{Name: "kernel-geometry-angle", Sim: "kernel-geometry", Set: map[string]string{"demo": "angle"}, Steps: 20},
	{Name: "blr-bumps", Sim: "blr", Set: map[string]string{"features": "bumps"}, Steps: 12},
	{Name: "rff-models-svm", Sim: "rff-models", Set: map[string]string{"model": "svm"}, Steps: 40},
	{Name: "rff-models-perceptron", Sim: "rff-models", Set: map[string]string{"model": "perceptron"}, Steps: 40},
	{Name: "gram-schmidt-done", Sim: "gram-schmidt", Steps: 16},
	// Optimal transport.
	{Name: "ot-lp-optimal", Sim: "ot-lp", Steps: 25},
	{Name: "assignment-hungarian", Sim: "assignment", Set: map[string]string{"preset": "gaussians", "n": "12"}, Steps: 40},
	{Name: "sinkhorn-plain-stall", Sim: "sinkhorn", Set: map[string]string{"preset": "three", "eps": "0.001", "domain": "plain"}, Steps: 100},
	{Name: "gromov-3d", Sim: "gromov", Set: map[string]string{"shape": "3d"}, Steps: 1},
	{Name: "partial-ot-full", Sim: "partial-ot", Steps: 50},
	{Name: "distances-boxes", Sim: "distances", Set: map[string]string{"pair": "boxes"}, Steps: 60},
	{Name: "barycenter-shapes", Sim: "barycenter", Set: map[string]string{"input": "shapes"}, Steps: 30},
	// Trustworthy ML.
	{Name: "attack-digits", Sim: "attack", Set: map[string]string{"model": "digits", "norm": "l2", "eps": "1", "step": "0.1", "target": "3"}, Steps: 40},
	{Name: "attack-deepfool", Sim: "attack", Set: map[string]string{"method": "deepfool"}, Steps: 12},
	{Name: "attack-cw", Sim: "attack", Set: map[string]string{"method": "cw"}, Steps: 120},
	{Name: "dp-mechanisms-laplace", Sim: "dp-mechanisms", Set: map[string]string{"mech": "laplace"}, Steps: 100},
	{Name: "dp-sgd-logistic-sum", Sim: "dp-sgd", Set: map[string]string{"model": "logistic", "noise": "sum", "n": "600"}, Steps: walkSteps},
	{Name: "shapley-digit", Sim: "shapley", Set: map[string]string{"game": "digit"}, Steps: 40},
	{Name: "perceptron-gd-sgd", Sim: "perceptron", Set: map[string]string{"update": "gd-sgd"}, Steps: 60},
	{Name: "gd-batches", Sim: "gd", Set: map[string]string{"fn": "lsq", "method": "batches"}, Steps: 40},
}

// hiddenClusters is a --data table of four clusters in 4-D, N(6e_j,
// 0.5²I) with 100 points each: clusters 3 and 4 coincide in columns 1
// and 2, so only all four columns tell them apart (mixturesim's tests
// cluster the same table).
func hiddenClusters() *sims.Table {
	rng := rand.New(rand.NewPCG(4, 4))
	tab := &sims.Table{Name: "hidden.csv", Columns: []string{"p", "q", "r", "s"}}
	for i := range 400 {
		row := make([]float64, 4)
		for a := range row {
			row[a] = 0.5 * rng.NormFloat64()
		}
		row[i%4] += 6
		tab.Rows = append(tab.Rows, row)
	}
	return tab
}

// snapshot builds c's sim from seed 1 and steps it as simtest.Share does:
// a step that converges or fails stops the run, and the snapshot says so.
func (c paneCase) snapshot() (*sims.Snapshot, error) {
	spec := catalog.All().Lookup(c.Sim)
	if spec == nil {
		return nil, fmt.Errorf("no sim %q in the catalogue", c.Sim)
	}
	if c.Data == nil {
		return simtest.SnapshotErr(spec, c.Set, 1, c.Steps)
	}
	s, err := simtest.BuildErr(spec, c.Set, 1, c.Data())
	if err != nil {
		return nil, err
	}
	snap := &sims.Snapshot{Spec: spec, Seed: 1, State: sims.Paused, Speed: spec.Speed}
	for range c.Steps {
		if err := s.Step(); errors.Is(err, sims.ErrConverged) {
			snap.State = sims.Converged
			break
		} else if err != nil {
			snap.State, snap.Err = sims.Diverged, err
			break
		}
	}
	snap.Frame = s.Frame()
	return snap, nil
}

// TestGoldenPanes pins every pane once: each catalogued sim's defaults
// after walkSteps steps from seed 1 (the shared walk), named by the sim,
// and each of extraPanes, zoomed at goldenSizes, all sizes of a case in
// its one file under a header line each. Every screen has exactly its
// size and is readable (checkReadable, but for knownUnreadable). A sim
// added to the catalogue is covered without a change here; a setting
// that draws another picture is a row of extraPanes. Run
//
//	go test ./tui -run TestGoldenPanes -update
//
// to write the goldens after an intended change, and look at them.
func TestGoldenPanes(t *testing.T) {
	t.Parallel() // a walk of the shared snapshots: the walks run side by side
	snaps, err := walked()
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, s := range snaps {
		names[s.Spec.Name] = true
		t.Run(s.Spec.Name, func(t *testing.T) {
			t.Parallel()
			goldenPane(t, s)
		})
	}
	for _, c := range extraPanes {
		if names[c.Name] {
			t.Errorf("two golden panes named %s", c.Name)
			continue
		}
		names[c.Name] = true
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel() // each builds its own sim: side by side, not the walk's tail
			snap, err := c.snapshot()
			if err != nil {
				t.Fatal(err)
			}
			goldenPane(t, snap)
		})
	}
	// A golden file no case writes is a pane that is no longer pinned.
	files, _ := filepath.Glob(filepath.Join("testdata", "TestGoldenPanes", "*.golden"))
	for _, f := range files {
		if name := strings.TrimSuffix(filepath.Base(f), ".golden"); !names[name] {
			t.Errorf("%s: no sim or case %s: delete it", f, name)
		}
	}
}

// knownUnreadable are the numbers at rounding level (checkReadable) that
// a golden pane is known to show, by case: each is a fault to mend where
// it is (then the test says to delete its entry), not a rule.
var knownUnreadable = map[string]string{
	// The lower end of the density's colour bar (its value at the
	// canvas's corner): a scale's label, as an axis's tick is, which the
	// pattern of checkReadable does not tell from a value.
	"flow-triangular": "6.5e-14",
}

// goldenPane draws s zoomed at every golden size, checks each screen and
// compares them with t's golden file.
func goldenPane(t *testing.T, s *sims.Snapshot) {
	t.Helper()
	name := t.Name()[strings.LastIndex(t.Name(), "/")+1:]
	known, seen := knownUnreadable[name], false
	var out strings.Builder
	for _, sz := range goldenSizes {
		screen := RenderPane(s, sz.W, sz.H-1, PaneStyle{Focused: true, Mono: sz.Mono, Zoomed: true})
		t.Run(sz.String(), func(t *testing.T) {
			checkScreen(t, screen, sz.W, sz.H-1)
			for _, u := range unreadable(screen) {
				if known != "" && u.number == known {
					seen = true
					continue
				}
				t.Error(u.msg)
			}
		})
		if sz.Mono {
			screen = ansi.Strip(screen)
		}
		fmt.Fprintf(&out, "%s\n%s\n\n", sz, screen)
	}
	if known != "" && !seen {
		t.Errorf("no longer shows %s: delete its entry in knownUnreadable", known)
	}
	file := filepath.Join("testdata", filepath.FromSlash(t.Name())+".golden")
	if _, err := os.Stat(file); err != nil && !updating() {
		t.Fatalf("no golden screens %s for %s: run go test ./tui -run TestGoldenPanes -update, and look at them",
			file, s.Spec.Name)
	}
	golden.RequireEqual(t, out.String())
}

// updating says whether the test runs with -update (golden's flag).
func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}
