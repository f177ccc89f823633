// Package simtest holds the helpers that the sims' tests share: building a
// sim from its spec and a few parameter settings, stepping it, and reading
// its Frame. It is imported only by _test.go files.
//
// The helpers that take a testing.TB fail the test (t.Fatal) when the sim
// cannot be built or a step fails; the ones named …Err return the error
// instead, for tests that check it.
package simtest

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/thelab/lab/sims"
)

// BuildErr resolves set against the spec's parameters and builds the sim
// with that seed and data (nil for none), returning the first error.
func BuildErr(spec *sims.Spec, set map[string]string, seed uint64, data *sims.Table) (sims.Sim, error) {
	v, err := sims.Resolve(spec.Params, set)
	if err != nil {
		return nil, err
	}
	return spec.Build(sims.Config{Values: v, Seed: seed, Data: data})
}

// Build is BuildErr failing the test on an error.
func Build(t testing.TB, spec *sims.Spec, set map[string]string, seed uint64, data *sims.Table) sims.Sim {
	t.Helper()
	s, err := BuildErr(spec, set, seed, data)
	if err != nil {
		t.Fatalf("%s %v: %v", spec.Name, set, err)
	}
	return s
}

// RunErr steps s up to n times, stopping at the first error, which it
// returns (nil when all n steps succeeded).
func RunErr(s sims.Sim, n int) error {
	for range n {
		if err := s.Step(); err != nil {
			return err
		}
	}
	return nil
}

// Run steps s n times; any error, convergence included, fails the test.
func Run(t testing.TB, s sims.Sim, n int) {
	t.Helper()
	if err := RunErr(s, n); err != nil {
		t.Fatal(err)
	}
}

// RunUntil steps s n times or until it converges; any other error fails
// the test. It returns the steps that succeeded and whether s converged.
func RunUntil(t testing.TB, s sims.Sim, n int) (steps int, converged bool) {
	t.Helper()
	for i := range n {
		err := s.Step()
		if errors.Is(err, sims.ErrConverged) {
			return i, true
		}
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	return n, false
}

// RunToEnd steps s until it converges and returns the steps that succeeded
// before; any other error, or no convergence within max steps, fails the
// test.
func RunToEnd(t testing.TB, s sims.Sim, max int) int {
	t.Helper()
	steps, ok := RunUntil(t, s, max)
	if !ok {
		t.Fatalf("no convergence in %d steps", max)
	}
	return steps
}

// Metric returns the frame's named metric; a missing one fails the test.
func Metric(t testing.TB, f sims.Frame, name string) float64 {
	t.Helper()
	v, ok := f.Metric(name)
	if !ok {
		t.Fatalf("%s: no metric %q", f.Sim, name)
	}
	return v
}

// FiniteMetrics reports each NaN or infinite metric of f (one not said to
// be Undefined) as a test error, and whether all were finite.
func FiniteMetrics(t testing.TB, f sims.Frame) bool {
	t.Helper()
	ok := true
	for _, m := range f.Metrics {
		if m.Undefined == "" && (math.IsNaN(m.Value) || math.IsInf(m.Value, 0)) {
			t.Errorf("%s: metric %s = %v", f.Sim, m.Name, m.Value)
			ok = false
		}
	}
	return ok
}

// Float is the number that a setting's text (a test's own constant, such
// as "0.9") stands for; it panics on anything else.
func Float(s string) float64 {
	var x float64
	if err := json.Unmarshal([]byte(s), &x); err != nil {
		panic(err)
	}
	return x
}

// Text is the frame's text lines joined by newlines.
func Text(f sims.Frame) string { return strings.Join(f.Text, "\n") }

// SnapshotErr builds spec with set and seed, takes up to steps steps and
// returns what a paused pane would show: the frame, with the state
// Converged when a step converged, Diverged (and the error) when one
// failed. It is what the golden screens of the sims draw.
func SnapshotErr(spec *sims.Spec, set map[string]string, seed uint64, steps int) (*sims.Snapshot, error) {
	r, err := Share(spec, set, seed, steps)
	if err != nil {
		return nil, err
	}
	return r.Snap, nil
}

// Shared is a sim and the snapshot SnapshotErr takes of it, kept for a
// test to run the sim on from where a golden screen was taken (a Frame is
// immutable, so the snapshot stays as it was).
type Shared struct {
	Sim  sims.Sim
	Snap *sims.Snapshot
}

// Share is SnapshotErr that keeps the sim.
func Share(spec *sims.Spec, set map[string]string, seed uint64, steps int) (*Shared, error) {
	s, err := BuildErr(spec, set, seed, nil)
	if err != nil {
		return nil, err
	}
	snap := &sims.Snapshot{Spec: spec, Seed: seed, State: sims.Paused, Speed: spec.Speed}
	for range steps {
		err := s.Step()
		if errors.Is(err, sims.ErrConverged) {
			snap.State = sims.Converged
			break
		}
		if err != nil {
			snap.State, snap.Err = sims.Diverged, err
			break
		}
	}
	// A pane that is not running shows a settled Frame (sims.Settler): so
	// does its golden (digits' caption said "as of step 0" at step 12).
	if st, ok := s.(sims.Settler); ok {
		st.Settle()
	}
	snap.Frame = s.Frame()
	return &Shared{Sim: s, Snap: snap}, nil
}
