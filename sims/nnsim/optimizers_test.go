package nnsim_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/nnsim"
	"github.com/thelab/lab/sims/simtest"
)

type racerResult = map[string]any

func racer(t *testing.T, s sims.Sim, name string) racerResult {
	t.Helper()
	r, ok := s.Result()[name].(map[string]any)
	if !ok {
		t.Fatalf("no result for %s", name)
	}
	return r
}

// TestOptimizersQuadraticClosedForm: on the quadratic the pane's SGD path
// is gradient descent's closed form x_k = Rᵀ diag((1 − η)^k, (1 − ηκ)^k)
// R x₀ (A = Rᵀ diag(1, κ) R, R the rotation by π/6), and its f − f* is
// ½ x_kᵀ A x_k: the sim races the engines it says it races.
func TestOptimizersQuadraticClosedForm(t *testing.T) {
	const kappa, eta, k = 20.0, 0.05, 100
	s := simtest.Build(t, nnsim.Optimizers, map[string]string{"surface": "quadratic"}, 1, nil)
	simtest.Run(t, s, k)
	x0 := []float64{-2.5, 1.5}
	c, sn := math.Cos(math.Pi/6), math.Sin(math.Pi/6)
	z1 := (c*x0[0] + sn*x0[1]) * math.Pow(1-eta, k)
	z2 := (-sn*x0[0] + c*x0[1]) * math.Pow(1-eta*kappa, k)
	sgd := racer(t, s, "sgd")
	x := sgd["x"].([]float64)
	algotest.Near(t, "x", x[0], c*z1-sn*z2, 1e-12)
	algotest.Near(t, "y", x[1], sn*z1+c*z2, 1e-12)
	algotest.Near(t, "f − f*", sgd["gap"].(float64), 0.5*(z1*z1+kappa*z2*z2), 1e-12)
}

// TestOptimizersRace: at the default rates every racer descends on every
// surface; on Rosenbrock Adam ends within 10⁻³ of f* = 0 where plain SGD,
// creeping along the valley, does not (Remark 6.3's point); on the saddle
// every racer leaves the saddle's level f = 0 for a minimum's −¼.
func TestOptimizersRace(t *testing.T) {
	for _, c := range []struct {
		surface string
		steps   int
	}{{"rosenbrock", 3000}, {"quadratic", 500}, {"saddle", 1500}} {
		s := simtest.Build(t, nnsim.Optimizers, map[string]string{"surface": c.surface}, 1, nil)
		first := map[string]float64{}
		for _, m := range []string{"sgd", "momentum", "nesterov", "rmsprop", "adam"} {
			first[m] = racer(t, s, m)["gap"].(float64)
		}
		if err := simtest.RunErr(s, c.steps); err != nil && !errors.Is(err, sims.ErrConverged) {
			t.Fatal(err)
		}
		for m, g0 := range first {
			r := racer(t, s, m)
			g := r["gap"].(float64)
			if r["diverged"].(bool) || !(g < g0/10) {
				t.Errorf("%s: %s's f − f* %g → %g, diverged %v", c.surface, m, g0, g, r["diverged"])
			}
			if c.surface == "saddle" && !(g < 0.25-1e-3) {
				t.Errorf("saddle: %s still at the saddle's level (f − f* = %g)", m, g)
			}
		}
		if c.surface == "rosenbrock" {
			if a, g := racer(t, s, "adam")["gap"].(float64), racer(t, s, "sgd")["gap"].(float64); !(a < 1e-3 && g > 1e-3) {
				t.Errorf("rosenbrock: adam %g, sgd %g", a, g)
			}
		}
	}
}

// TestOptimizersDiverged: a rate far past 2/L stops its racer with ✗ and
// the reason in the notes, and the others run on.
func TestOptimizersDiverged(t *testing.T) {
	s := simtest.Build(t, nnsim.Optimizers, map[string]string{"surface": "quadratic", "lr_momentum": "5"}, 1, nil)
	simtest.Run(t, s, 200)
	if !racer(t, s, "momentum")["diverged"].(bool) || racer(t, s, "sgd")["diverged"].(bool) {
		t.Errorf("momentum at η = 5: %v", s.Result())
	}
	f := s.Frame()
	marked := false
	for _, m := range f.Charts[0].(sims.CanvasChart).Markers {
		marked = marked || m.Glyph == '✗'
	}
	if !marked || !strings.Contains(simtest.Text(f), "momentum stopped") {
		t.Errorf("no ✗ or reason:\n%s", simtest.Text(f))
	}
}
