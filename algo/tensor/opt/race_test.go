package opt_test

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/algo/optim"
	"github.com/thelab/lab/algo/tensor/opt"
)

func race(t *testing.T, f opt.Objective, x0 []float64, cfgs ...opt.Config) *opt.Race {
	t.Helper()
	r, err := opt.NewRace(f, x0, cfgs)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestRaceSGDClosedForm: plain gradient descent on f = ½xᵀAx, A = Rᵀ
// diag(1, κ) R (the rotated quadratic of algo/optim), is x_k = Rᵀ diag((1 −
// η)^k, (1 − ηκ)^k) R x_0.
func TestRaceSGDClosedForm(t *testing.T) {
	const kappa, eta = 20.0, 0.08
	x0 := []float64{-2.5, 1.5}
	r := race(t, optim.NewQuadratic(kappa), x0, opt.Config{Method: opt.SGD, LR: eta})
	c, s := math.Cos(math.Pi/6), math.Sin(math.Pi/6)
	z1, z2 := c*x0[0]+s*x0[1], -s*x0[0]+c*x0[1] // R x_0
	for k := 1; k <= 60; k++ {
		if err := r.Step(); err != nil {
			t.Fatal(err)
		}
		a, b := z1*math.Pow(1-eta, float64(k)), z2*math.Pow(1-eta*kappa, float64(k))
		algotest.Near(t, fmt.Sprintf("x_%d", k), r.X(0)[0], c*a-s*b, 1e-12)
		algotest.Near(t, fmt.Sprintf("y_%d", k), r.X(0)[1], s*a+c*b, 1e-12)
	}
}

// TestRaceHeavyBallRate: heavy-ball momentum with Polyak's tuning η =
// 4/(√L + √m)², μ = ρ², ρ = (√κ − 1)/(√κ + 1), converges like ρ^k on
// the quadratic (up to a factor k: A's eigenvalues meet a double root),
// against 1 − 2/(κ + 1) for the best plain step 2/(m + L).
func TestRaceHeavyBallRate(t *testing.T) {
	const kappa = 100.0
	rho := (math.Sqrt(kappa) - 1) / (math.Sqrt(kappa) + 1)
	eta := 4 / math.Pow(1+math.Sqrt(kappa), 2)
	r := race(t, optim.NewQuadratic(kappa), []float64{-2.5, 1.5},
		opt.Config{Method: opt.Momentum, LR: eta, Momentum: rho * rho},
		opt.Config{Method: opt.SGD, LR: 2 / (1 + kappa)})
	norm0 := math.Hypot(-2.5, 1.5)
	const k = 400
	for range k {
		if err := r.Step(); err != nil {
			t.Fatal(err)
		}
	}
	rate := math.Pow(math.Hypot(r.X(0)[0], r.X(0)[1])/norm0, 1.0/k)
	if rate < 0.97*rho || rate > 1.03*rho {
		t.Errorf("heavy ball: rate %.5f, Polyak's ρ = %.5f", rate, rho)
	}
	gd := math.Pow(math.Hypot(r.X(1)[0], r.X(1)[1])/norm0, 1.0/k)
	algotest.Near(t, "GD's rate", gd, 1-2/(kappa+1), 1e-3)
}

// TestRaceSaddleEscape: from (1, y₀) with y₀ = 10⁻⁶, gradient descent
// walks into the saddle and leaves it as y grows by 1 + η a step: |y|
// first passes 0.01 after ln(10⁴)/ln(1 + η) steps (the cubic term is
// below 10⁻⁴ of the linear one until then); Adam, whose steps do not
// shrink with the gradient, leaves far sooner.
func TestRaceSaddleEscape(t *testing.T) {
	const eta = 0.1
	r := race(t, optim.Saddle{}, []float64{1, 1e-6},
		opt.Config{Method: opt.SGD, LR: eta}, opt.Config{Method: opt.Adam, LR: eta})
	want := math.Log(1e4) / math.Log(1+eta)
	escape := [2]int{}
	for k := 1; k <= 300; k++ {
		if err := r.Step(); err != nil {
			t.Fatal(err)
		}
		for i := range 2 {
			if escape[i] == 0 && math.Abs(r.X(i)[1]) > 0.01 {
				escape[i] = k
			}
		}
	}
	if math.Abs(float64(escape[0])-want) > 1.5 {
		t.Errorf("GD left the saddle at step %d, the linearisation says %.1f", escape[0], want)
	}
	if escape[1] == 0 || escape[1] > escape[0]/2 {
		t.Errorf("Adam left at step %d, GD at %d", escape[1], escape[0])
	}
	algotest.Near(t, "GD's minimum", r.F(0), -0.25, 1e-9)
}

// TestRaceDiverged: an optimiser whose rate is far past 2/L stops at its
// last finite iterate with the reason, the others run on, and the race
// ends only when all have stopped; a step allocates nothing.
func TestRaceDiverged(t *testing.T) {
	r := race(t, optim.NewQuadratic(10), []float64{1, 1}, opt.Config{Method: opt.SGD, LR: 50}, opt.Config{Method: opt.SGD, LR: 0.05})
	for range 200 {
		if err := r.Step(); err != nil {
			t.Fatal(err)
		}
	}
	if !r.Diverged(0) || r.Stopped(1) != nil || !algo.AllFinite(r.X(0)) || !(r.F(1) < 1e-6) {
		t.Errorf("stopped: %v, %v; f = %g, %g", r.Stopped(0), r.Stopped(1), r.F(0), r.F(1))
	}
	if allocs := testing.AllocsPerRun(20, func() { _ = r.Step() }); allocs != 0 {
		t.Errorf("a race step allocates %v times", allocs)
	}
	r = race(t, optim.NewQuadratic(10), []float64{1, 1}, opt.Config{Method: opt.SGD, LR: 50})
	var err error
	for range 400 {
		if err = r.Step(); err != nil {
			break
		}
	}
	if !errors.Is(err, algo.ErrDiverged) {
		t.Errorf("lone diverging optimiser: %v", err)
	}
	_, err = opt.NewRace(optim.Saddle{}, []float64{math.NaN(), 0}, []opt.Config{{LR: 1}})
	algotest.WantParam(t, err, "x0")
}
