package scene

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/thelab/lab/sims"
)

// Claim is what a built-in scene's caption says, as a check on a headless
// run of its panes: every pane stepped up to Steps times (scene.Run),
// then Check on the results. Its test runs every built-in scene's.
type Claim struct {
	Steps int
	Check func(r []Result) error
}

// claims are the built-in scenes' claims, by scene name: each file of
// claims (one per seed of the notes) registers its own in an init.
var claims = map[string]Claim{}

// register adds claims; a name claimed twice is a bug TestBuiltins
// reports as a panic at start.
func register(c map[string]Claim) {
	for name, claim := range c {
		if _, dup := claims[name]; dup {
			panic("scene: claim " + name + " registered twice")
		}
		claims[name] = claim
	}
}

// The checks claims are written in, each an error saying what failed.

func all(errs ...error) error { return errors.Join(errs...) }

func below(r Result, metric string, x float64) error {
	v, err := r.Metric(metric)
	if err == nil && !(v < x) {
		err = fmt.Errorf("%s's %s = %g, want below %g", r.Frame.Sim, metric, v, x)
	}
	return err
}

func above(r Result, metric string, x float64) error {
	v, err := r.Metric(metric)
	if err == nil && !(v > x) {
		err = fmt.Errorf("%s's %s = %g, want above %g", r.Frame.Sim, metric, v, x)
	}
	return err
}

// ratio checks that a's metric is at least k times b's.
func ratio(a, b Result, metric string, k float64) error {
	va, vb, err := metrics2(a, metric, b, metric)
	if err != nil {
		return err
	}
	if !(va >= k*vb) {
		return fmt.Errorf("%s's %s = %g, want at least %g × %s's %g", a.Frame.Sim, metric, va, k, b.Frame.Sim, vb)
	}
	return nil
}

// metrics2 are a's metric ma and b's metric mb (a and b may be one pane).
func metrics2(a Result, ma string, b Result, mb string) (float64, float64, error) {
	va, err := a.Metric(ma)
	if err != nil {
		return 0, 0, err
	}
	vb, err := b.Metric(mb)
	return va, vb, err
}

// near checks that a metric is within tol of x.
func near(r Result, metric string, x, tol float64) error {
	v, err := r.Metric(metric)
	if err == nil && !(math.Abs(v-x) <= tol) {
		err = fmt.Errorf("%s's %s = %g, want %g ± %g", r.Frame.Sim, metric, v, x, tol)
	}
	return err
}

// undefined checks that r's metric is undefined (what has not happened
// yet: a point never fooled), with its reason.
func undefined(r Result, metric string) error {
	v, err := r.Metric(metric)
	if err == nil {
		return fmt.Errorf("%s's %s = %g, want it undefined", r.Frame.Sim, metric, v)
	}
	if !strings.Contains(err.Error(), "undefined") {
		return err
	}
	return nil
}

// ratioWithin checks that one pane's metric a is at least k times its
// metric b.
func ratioWithin(r Result, a, b string, k float64) error {
	va, vb, err := metrics2(r, a, r, b)
	if err != nil {
		return err
	}
	if !(va >= k*vb) {
		return fmt.Errorf("%s's %s = %g, want at least %g × its %s = %g", r.Frame.Sim, a, va, k, b, vb)
	}
	return nil
}

// exceeds checks that a's metric is above b's by d or more.
func exceeds(a, b Result, metric string, d float64) error {
	va, vb, err := metrics2(a, metric, b, metric)
	if err != nil {
		return err
	}
	if !(va >= vb+d) {
		return fmt.Errorf("%s's %s = %g, want at least %g above %s's %g", a.Frame.Sim, metric, va, d, b.Frame.Sim, vb)
	}
	return nil
}

func converged(r Result) error {
	if !errors.Is(r.Err, sims.ErrConverged) {
		return fmt.Errorf("%s did not converge in %d steps (%v)", r.Frame.Sim, r.Steps, r.Err)
	}
	return nil
}

func diverged(r Result) error {
	if !errors.Is(r.Err, sims.ErrDiverged) {
		return fmt.Errorf("%s did not diverge in %d steps (%v)", r.Frame.Sim, r.Steps, r.Err)
	}
	return nil
}
