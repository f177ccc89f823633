package optim

import (
	"errors"
	"math"
	"testing"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/algotest"
)

// TestDualAscentToy: the notes' toy, min w² s.t. w ≥ 1 (catalogue O1):
// α* = 2, w* = 1, θ_D(α*) = 1 = p* (strong duality); on the way θ_D(α_k)
// ≤ p* (weak duality) with the gap falling, and each step contracts α −
// α* by exactly 1 − η/2.
func TestDualAscentToy(t *testing.T) {
	for _, eta := range []float64{0.2, 1, 2, 3} {
		d, err := NewDualAscent(0, 1, eta, 0, 1e-13)
		if err != nil {
			t.Fatal(err)
		}
		w, p, as := d.Optimum()
		algotest.Near(t, "w*", w, 1, 0)
		algotest.Near(t, "p*", p, 1, 0)
		algotest.Near(t, "α*", as, 2, 0)
		prevGap := p - d.Dual(d.Alpha())
		for {
			before := d.Alpha() - as
			err := d.Step()
			if gap := p - d.Dual(d.Alpha()); gap < 0 {
				t.Fatalf("η = %g, step %d: θ_D = %v above p* = %v: weak duality broken", eta, d.Steps(), d.Dual(d.Alpha()), p)
			} else if eta <= 2 && gap > prevGap {
				t.Errorf("η = %g, step %d: the gap rose %g → %g", eta, d.Steps(), prevGap, gap)
			} else {
				prevGap = gap
			}
			if d.Alpha() > 0 && math.Abs(before) > 1e-6 {
				algotest.Near(t, "contraction", (d.Alpha()-as)/before, 1-eta/2, 1e-9)
			}
			if errors.Is(err, algo.ErrConverged) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if d.Steps() > 10000 {
				t.Fatalf("η = %g: no convergence", eta)
			}
		}
		algotest.Near(t, "α at the end", d.Alpha(), 2, 1e-11)
		algotest.Near(t, "w(α) at the end", d.W(d.Alpha()), 1, 1e-11)
		algotest.Near(t, "θ_D at the end", d.Dual(d.Alpha()), 1, 1e-11)
	}
}

// TestDualFunction: θ_D(α) is min_w L(w, α), attained at w(α) (checked
// against a grid of w), and its derivative is g(w(α)) (Danskin; central
// differences).
func TestDualFunction(t *testing.T) {
	d, err := NewDualAscent(0.5, 2, 1, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, alpha := range []float64{0, 0.3, 1, 3, 7} {
		algotest.Near(t, "L(w(α), α) = θ_D(α)", d.L(d.W(alpha), alpha), d.Dual(alpha), 1e-14)
		for w := -5.0; w <= 5; w += 0.01 {
			if d.L(w, alpha) < d.Dual(alpha)-1e-12 {
				t.Fatalf("α = %g: L(%g, α) = %g below θ_D = %g", alpha, w, d.L(w, alpha), d.Dual(alpha))
			}
		}
		h := 1e-5
		fd := (d.Dual(alpha+h) - d.Dual(alpha-h)) / (2 * h)
		algotest.Near(t, "θ_D′ = g(w(α))", fd, d.G(d.W(alpha)), 1e-9)
	}
}

// TestInactiveConstraint: with the bound below the target (c < a) the
// constraint is inactive: α* = 0, w* = a, p* = 0, and the ascent from α
// = 1 projects onto α = 0 and stays, with complementary slackness α g =
// 0 and g < 0.
func TestInactiveConstraint(t *testing.T) {
	d, err := NewDualAscent(1, -1, 0.5, 1, 1e-12)
	if err != nil {
		t.Fatal(err)
	}
	w, p, as := d.Optimum()
	if w != 1 || p != 0 || as != 0 {
		t.Errorf("optimum (%g, %g, %g), want (1, 0, 0)", w, p, as)
	}
	var last error
	for range 100 {
		if last = d.Step(); last != nil {
			break
		}
	}
	if !errors.Is(last, algo.ErrConverged) || d.Alpha() != 0 {
		t.Fatalf("α = %g (%v), want 0 and converged", d.Alpha(), last)
	}
	if g := d.G(d.W(0)); !(g < 0) || d.Alpha()*g != 0 {
		t.Errorf("g = %g, α g = %g", g, d.Alpha()*g)
	}
}

// TestDualAscentCycles: past η = 4 the iterates oscillate outward
// until the projection catches them in the cycle 0 ↔ η(c − a).
func TestDualAscentCycles(t *testing.T) {
	d, err := NewDualAscent(0, 1, 4.5, 2.5, 1e-9)
	if err != nil {
		t.Fatal(err)
	}
	for range 100 {
		if err = d.Step(); err != nil {
			t.Fatalf("step %d: %v", d.Steps(), err)
		}
	}
	for range 4 {
		a := d.Alpha()
		d.Step()
		if !(a == 0 && d.Alpha() == 4.5 || a == 4.5 && d.Alpha() == 0) {
			t.Fatalf("α %g → %g, want the cycle 0 ↔ 4.5", a, d.Alpha())
		}
	}
}

func TestDualAscentValidation(t *testing.T) {
	for _, c := range []struct {
		name                   string
		a, c, eta, alpha0, tol float64
	}{
		{"a", math.NaN(), 1, 1, 0, 0},
		{"c", 0, math.Inf(1), 1, 0, 0},
		{"eta", 0, 1, 0, 0, 0},
		{"alpha0", 0, 1, 1, -1, 0},
		{"tol", 0, 1, 1, 0, -1},
	} {
		_, err := NewDualAscent(c.a, c.c, c.eta, c.alpha0, c.tol)
		algotest.WantParam(t, err, c.name)
	}
}
