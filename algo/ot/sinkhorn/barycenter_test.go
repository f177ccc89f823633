package sinkhorn

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/algo/ot"
	"github.com/thelab/lab/algo/ot/oned"
)

func runBarycenter(t testing.TB, inputs [][]float64, lambda []float64, cfg BarycenterConfig, iters int) *Barycenter {
	t.Helper()
	g, err := NewBarycenter(inputs, lambda, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for range iters {
		if err := g.Step(); errors.Is(err, algo.ErrConverged) {
			return g
		} else if err != nil {
			t.Fatal(err)
		}
	}
	t.Fatalf("no convergence in %d iterations: error %g", iters, g.MarginalError())
	return nil
}

// TestBarycenterEx58: on a 1-D grid of 50 cells of [−0.5, 3.5], the
// entropic barycenter of U[0, 1] and U[2, 3] with weights λ, 1 − λ is
// U[2 − 2λ, 3 − 2λ] (Ex 5.8) blurred by ε = 0.016: its mean is 2.5 − 2λ to
// 1e-6, it is within W₁ = 0.01 (an eighth of a cell) of the exact
// barycenter of oned.Barycenter, and it has mass 1 to 1e-6.
func TestBarycenterEx58(t *testing.T) {
	const n, h = 50, 0.08
	edges := make([]float64, n+1)
	for a := range edges {
		edges[a] = -0.5 + float64(a)*h
	}
	box := func(lo, hi float64) []float64 {
		p, k := make([]float64, n), 0.0
		for a := range p {
			if c := edges[a] + h/2; c > lo && c < hi {
				p[a], k = 1, k+1
			}
		}
		return ot.Normalised(p, k)
	}
	p1, p2 := box(0, 1), box(2, 3)
	for _, l := range []float64{0.3, 0.5} {
		g := runBarycenter(t, [][]float64{p1, p2}, []float64{l, 1 - l}, BarycenterConfig{NX: n, NY: 1, H: h, Eps: 0.016, Tol: 1e-8}, 5000)
		b := g.B()
		mass, mean := 0.0, 0.0
		for a, v := range b {
			mass += v
			mean += v * (edges[a] + h/2)
		}
		algotest.Near(t, fmt.Sprintf("λ=%g mass", l), mass, 1, 1e-6)
		algotest.Near(t, fmt.Sprintf("λ=%g mean", l), mean/mass, 2.5-2*l, 1e-6)
		got, err := oned.Histogram(edges, ot.Normalised(b, mass))
		if err != nil {
			t.Fatal(err)
		}
		h1, _ := oned.Histogram(edges, p1)
		h2, _ := oned.Histogram(edges, p2)
		want, _ := oned.Barycenter([]*oned.Measure{h1, h2}, []float64{l, 1 - l})
		w1, _ := oned.W(got, want, 1)
		if w1 > 0.01 {
			t.Errorf("λ=%g: W1 to the exact barycenter %g", l, w1)
		}
	}
}

// TestBarycenter2D: two disks of radius 0.12 centred at (0.25, 0.25) and
// (0.75, 0.75) on a 24×24 grid (ε = 5e-3): with equal weights the
// barycenter is one disk in the middle — its centroid within a third of a
// cell of (0.5, 0.5) and 95% of its mass within 0.2 of it, where the
// mixture has none — and swapping the inputs gives the same b to 1e-12.
func TestBarycenter2D(t *testing.T) {
	const g = 24
	disk := func(cx, cy float64) []float64 {
		p, k := make([]float64, g*g), 0.0
		for a := range g {
			for b := range g {
				if math.Hypot((float64(a)+0.5)/g-cx, (float64(b)+0.5)/g-cy) <= 0.12 {
					p[a*g+b], k = 1, k+1
				}
			}
		}
		return ot.Normalised(p, k)
	}
	p1, p2 := disk(0.25, 0.25), disk(0.75, 0.75)
	cfg := BarycenterConfig{NX: g, NY: g, H: 1.0 / g, Eps: 5e-3, Tol: 1e-8}
	bc := runBarycenter(t, [][]float64{p1, p2}, []float64{0.5, 0.5}, cfg, 3000)
	var mass, cx, cy, near float64
	for a := range g {
		for b := range g {
			v := bc.B()[a*g+b]
			x, y := (float64(a)+0.5)/g, (float64(b)+0.5)/g
			mass += v
			cx, cy = cx+v*x, cy+v*y
			if math.Hypot(x-0.5, y-0.5) <= 0.2 {
				near += v
			}
		}
	}
	algotest.Near(t, "centroid x", cx/mass, 0.5, 1.0/(3*g))
	algotest.Near(t, "centroid y", cy/mass, 0.5, 1.0/(3*g))
	if near/mass < 0.95 {
		t.Errorf("%.3f of the mass near the middle, want ≥ 0.95", near/mass)
	}
	sw := runBarycenter(t, [][]float64{p2, p1}, []float64{0.5, 0.5}, cfg, 3000)
	for z, v := range sw.B() {
		algotest.Near(t, "swapped", v, bc.B()[z], 1e-12)
	}
}

func TestBarycenterBadInput(t *testing.T) {
	p, _ := ot.Shape("disk", 16)
	cfg := BarycenterConfig{NX: 16, NY: 16, H: 1.0 / 16, Eps: 1e-2}
	for _, tt := range []struct {
		inputs [][]float64
		lambda []float64
		cfg    BarycenterConfig
		param  string
	}{
		{[][]float64{p}, []float64{0.5}, cfg, "weights"},
		{[][]float64{p, p}, []float64{1}, cfg, "weights"},
		{[][]float64{p, p[:10]}, []float64{0.5, 0.5}, cfg, "input 2"},
		{[][]float64{p}, []float64{1}, BarycenterConfig{NX: 16, NY: 16, H: 1.0 / 16}, "eps"},
		{[][]float64{p}, []float64{1}, BarycenterConfig{NX: 0, NY: 16, H: 1, Eps: 1}, "grid"},
		{[][]float64{p}, []float64{1}, BarycenterConfig{NX: 16, NY: 16, Eps: 1}, "spacing"},
	} {
		_, err := NewBarycenter(tt.inputs, tt.lambda, tt.cfg)
		algotest.WantParam(t, err, tt.param)
	}
	neg := append([]float64(nil), p...)
	neg[0] = -0.1
	_, err := NewBarycenter([][]float64{neg}, []float64{1}, cfg)
	algotest.WantParam(t, err, "input 1")
}
