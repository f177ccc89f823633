package otsim

import (
	"errors"
	"fmt"
	"math"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/ot"
	"github.com/thelab/lab/algo/ot/oned"
	"github.com/thelab/lab/algo/ot/sinkhorn"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// Barycenter is the Wasserstein barycenter of two measures with weights λ
// and 1 − λ (seed 002 §5.5, L2379–2396, Ex 5.8–5.9, Figs 5.16–5.17), by
// iterated Sinkhorn (Bregman) projections on a fixed grid, one round per
// step (the notes leave the algorithm open: catalogue E8 [D]). On the line
// the exact W₂ barycenter, whose quantile function is λF₁⁻ + (1 − λ)F₂⁻,
// is drawn over the entropic one it approaches: Ex 5.8's U[0,1] and U[2,3]
// give U[2 − 2λ, 3 − 2λ], Ex 5.9's δ0 and δ1 give δ_{1/2} where the
// Euclidean average ½δ0 + ½δ1 keeps both atoms. In the plane, the
// barycenter of two shapes beside their mixture.
var Barycenter = &sims.Spec{
	Name:   "barycenter",
	Title:  "Wasserstein barycenters: exact in 1-D (Ex 5.8, 5.9), by Sinkhorn projections on a grid",
	Source: "seed 002 §5.5 (L2379–2396, Ex 5.8–5.9, L2601; Figs 5.16–5.17)",
	Steps:  2000,
	Speed:  10,
	Params: param.List(bcInput, bcLambda, bcShape1, bcShape2, bcGrid, bcEps, bcTol),
	New:    newBarycenter,
	Size:   barycenterSize,

	Metrics: barycenterMetrics,
}

// bcInputs names the inputs of the barycenter sim.
type bcInputs string

func (p bcInputs) String() string { return string(p) }

const (
	bcEx58      bcInputs = "ex5.8"
	bcEx59      bcInputs = "ex5.9"
	bcGaussians bcInputs = "gaussians"
	bcShapes    bcInputs = "shapes"
)

// shapeName is one of ot.Shapes.
type shapeName string

func (s shapeName) String() string { return string(s) }

func shapeNames() []shapeName {
	out := make([]shapeName, len(ot.Shapes))
	for i, s := range ot.Shapes {
		out[i] = shapeName(s)
	}
	return out
}

// bcLine is the 1-D grid of an input: points lo + a·h, a = 0 … n−1.
type bcLine struct {
	lo, hi float64
	n      int
}

// bcLines are the grids of the 1-D inputs: each holds the inputs' atoms
// and the barycenter's (0, ½ and 1 for Ex 5.9) on its points.
var bcLines = map[bcInputs]bcLine{
	bcEx58:      {-0.5, 3.5, 81},
	bcEx59:      {-0.5, 1.5, 81},
	bcGaussians: {-2.5, 3.5, 121},
}

var (
	bcInput = param.Choice("input", []bcInputs{bcEx58, bcEx59, bcGaussians, bcShapes}, bcEx58,
		"ex5.8: U[0,1] and U[2,3] (barycenter U[2−2λ, 3−2λ]); ex5.9: δ0 and δ1 (barycenter δ_{1/2}); "+
			"gaussians: N(0, 0.3²) and N(1, 0.3²) (barycenter N(1−λ, 0.3²)); shapes: shape1 and shape2 on a grid×grid image")
	bcLambda = param.Float("lambda", 0.25, "λ, the weight of the first input (the second has 1 − λ)").Range(0, 1)
	bcShape1 = param.Choice("shape1", shapeNames(), "disk", "the first image (input=shapes)")
	bcShape2 = param.Choice("shape2", shapeNames(), "cross", "the second image (input=shapes)")
	bcGrid   = param.Int("grid", 32, "cells per side of the images (input=shapes)").Range(8, 128)
	bcEps    = param.Float("eps", 0.002,
		"ε of the entropic barycenter (cost ‖z − z'‖²; the notes' λ = 1/ε is not the weight λ): the blur is about √ε").
		Range(1e-5, 10).
		DefaultFunc(func(v param.Values) float64 { return bcDefaultEps[bcInput.Get(v)] },
			"0.005 for ex5.8 and gaussians, 0.002 for ex5.9 and shapes")
	bcTol = param.Float("tol", 1e-9, "stop when the marginal error Σλ_s‖u_s⊙Kv_s − p_s‖₁ ≤ tol").Range(0, 1)
)

var bcDefaultEps = map[bcInputs]float64{bcEx58: 0.005, bcEx59: 0.002, bcGaussians: 0.005, bcShapes: 0.002}

// barycenterSize is the engine (sinkhorn.BarycenterFootprint) on the
// images of input=shapes or the grid of a 1-D input, the sim's two inputs
// and mixture, the Frame's pictures (three images and the inputs side by
// side; in 1-D the barycenter's bars and five curves) and the trace of the
// error with its curve.
func barycenterSize(cfg sims.Config) int64 {
	size := bcBase + sims.TraceBytesAfter(1, 1, sims.TraceCap)
	if bcInput.Get(cfg.Values) == bcShapes {
		g := bcGrid.Get(cfg.Values)
		return size + sinkhorn.BarycenterFootprint(g, g, 2) + 8*(3+4)*int64(g)*int64(g)
	}
	n := bcLines[bcInput.Get(cfg.Values)].n
	return size + sinkhorn.BarycenterFootprint(n, 1, 2) + 8*(3+6)*int64(n) + 24*2*int64(n)
}

// bcBase is what barycenter holds whatever its size: the sim, the Frame's
// charts and texts.
const bcBase = 24 << 10

type bcSim struct {
	g      *sinkhorn.Barycenter
	input  bcInputs
	lambda float64
	eps    float64
	in     [2][]float64 // the inputs on the grid
	names  [2]string
	errs   *sims.Trace
	// 1-D
	line  bcLine
	exact *oned.Measure // the exact W₂ barycenter of the gridded inputs
	mix   []float64     // λp1 + (1 − λ)p2
	// 2-D
	side int
	done bool
}

func newBarycenter(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	s := &bcSim{input: bcInput.Get(v), lambda: bcLambda.Get(v), eps: bcEps.Get(v), errs: sims.NewTrace(1, 1)}
	bc := sinkhorn.BarycenterConfig{Eps: bcEps.Get(v), Tol: bcTol.Get(v)}
	if s.input == bcShapes {
		s.side = bcGrid.Get(v)
		for k, d := range []*param.ChoiceDecl[shapeName]{bcShape1, bcShape2} {
			p, err := ot.Shape(string(d.Get(v)), s.side)
			if err != nil {
				return nil, sims.Blame(err, v, sims.As("grid", bcGrid), sims.As("shape", d))
			}
			s.in[k], s.names[k] = p, string(d.Get(v))
		}
		bc.NX, bc.NY, bc.H = s.side, s.side, 1/float64(s.side)
	} else {
		s.line = bcLines[s.input]
		s.oneD()
		bc.NX, bc.NY, bc.H = s.line.n, 1, s.h()
	}
	s.mix = make([]float64, len(s.in[0]))
	for z := range s.mix {
		s.mix[z] = s.lambda*s.in[0][z] + (1-s.lambda)*s.in[1][z]
	}
	g, err := sinkhorn.NewBarycenter(s.in[:], []float64{s.lambda, 1 - s.lambda}, bc)
	if err != nil {
		return nil, sims.Blame(err, v, sims.As("eps", bcEps), sims.As("tol", bcTol), sims.As("weights", bcLambda))
	}
	s.g = g
	return s, nil
}

// h is the spacing of the 1-D grid.
func (s *bcSim) h() float64 { return (s.line.hi - s.line.lo) / float64(s.line.n-1) }

// z is the a-th point of the 1-D grid.
func (s *bcSim) z(a int) float64 { return s.line.lo + float64(a)*s.h() }

// oneD puts the 1-D inputs on the grid and computes the exact barycenter
// of the gridded inputs (atoms at the grid points).
func (s *bcSim) oneD() {
	n := s.line.n
	on := func(f func(x float64) float64) []float64 {
		p, t := make([]float64, n), 0.0
		for a := range p {
			p[a] = f(s.z(a))
			t += p[a]
		}
		return ot.Normalised(p, t)
	}
	in := func(lo, hi float64) func(float64) float64 {
		return func(x float64) float64 {
			if x >= lo-1e-9 && x <= hi+1e-9 {
				return 1
			}
			return 0
		}
	}
	switch s.input {
	case bcEx58:
		s.in = [2][]float64{on(in(0, 1)), on(in(2, 3))}
		s.names = [2]string{"U[0,1]", "U[2,3]"}
	case bcEx59:
		s.in = [2][]float64{on(in(0, 0)), on(in(1, 1))}
		s.names = [2]string{"δ0", "δ1"}
	case bcGaussians:
		s.in = [2][]float64{on(func(x float64) float64 { return math.Exp(-x * x / (2 * 0.09)) }),
			on(func(x float64) float64 { return math.Exp(-(x - 1) * (x - 1) / (2 * 0.09)) })}
		s.names = [2]string{"N(0,0.3²)", "N(1,0.3²)"}
	}
	xs := make([]float64, n)
	for a := range xs {
		xs[a] = s.z(a)
	}
	m1, err1 := oned.Discrete(xs, s.in[0])
	m2, err2 := oned.Discrete(xs, s.in[1])
	if err1 != nil || err2 != nil {
		panic(errors.Join(err1, err2)) // finite points, masses summing to 1 by construction
	}
	s.exact, _ = oned.Barycenter([]*oned.Measure{m1, m2}, []float64{s.lambda, 1 - s.lambda})
}

func (s *bcSim) Step() error {
	err := s.g.Step()
	if err == nil || errors.Is(err, algo.ErrConverged) {
		s.errs.Add(s.g.MarginalError())
	}
	s.done = errors.Is(err, algo.ErrConverged)
	return err
}

// mass is the barycenter's total, its mean point (1-D) or centroid (2-D).
func (s *bcSim) moments() (mass, mx, my float64) {
	for z, v := range s.g.B() {
		mass += v
		if s.side == 0 {
			mx += v * s.z(z)
		} else {
			mx += v * (float64(z/s.side) + 0.5) / float64(s.side)
			my += v * (float64(z%s.side) + 0.5) / float64(s.side)
		}
	}
	if mass > 0 {
		mx, my = mx/mass, my/mass
	}
	return mass, mx, my
}

// w1Exact is W₁ between the normalised entropic barycenter and the exact
// one (1-D).
func (s *bcSim) w1Exact() float64 {
	xs := make([]float64, s.line.n)
	for a := range xs {
		xs[a] = s.z(a)
	}
	mass, _, _ := s.moments()
	if !(mass > 0) {
		return math.NaN()
	}
	b, err := oned.Discrete(xs, ot.Normalised(s.g.B(), mass))
	if err != nil {
		return math.NaN()
	}
	w, _ := oned.W(b, s.exact, 1)
	return w
}

func (s *bcSim) Frame() sims.Frame {
	mass, mx, my := s.moments()
	x0, x1 := s.errs.Span()
	errChart := sims.LineChart{Title: "error", LogY: true, X0: x0, X1: x1, XLabel: "round",
		Series: []sims.Series{{Name: "Σλ‖u⊙Kv − p‖₁", Y: s.errs.Column(0), Class: classBad}}}
	metrics := []sims.Metric{
		{Name: "iter", Value: float64(s.g.Iter())},
		sims.MetricOr("err", s.g.MarginalError(), bcNoErr),
		{Name: "mass", Value: mass},
	}
	var charts []sims.Chart
	var text []string
	if s.side == 0 {
		w1 := s.w1Exact()
		metrics = append(metrics, sims.Metric{Name: "mean", Value: mx}, sims.Metric{Name: "exact_mean", Value: s.exact.Mean()},
			sims.MetricOr("W1_exact", w1, bcNoW1))
		charts = []sims.Chart{s.lineChart(), errChart}
		text = s.lineNotes(mx, w1)
	} else {
		metrics = append(metrics, sims.Metric{Name: "cx", Value: mx}, sims.Metric{Name: "cy", Value: my})
		charts = []sims.Chart{
			s.image(fmt.Sprintf("barycenter, λ = %.2f", s.lambda), s.g.B()),
			s.image("mixture λp1+(1−λ)p2", s.mix),
			s.inputs(),
			errChart,
		}
		text = []string{
			fmt.Sprintf("b = argmin λW₂²(b, %s) + (1−λ)W₂²(b, %s)", s.names[0], s.names[1]),
			fmt.Sprintf("entropic, ε = %.3g: blurred by about √ε = %.2g", s.eps, math.Sqrt(s.eps)),
			"one round: u_s = p_s/(Kv_s), b = Π(Kᵀu_s)^λ_s, v_s = b/(Kᵀu_s), in logs",
			"the mixture overlays the shapes; the barycenter morphs one into the other",
		}
	}
	return sims.Frame{Sim: Barycenter.Name, Step: s.g.Iter(), Metrics: metrics, Charts: charts, Text: text}
}

// lineChart draws the entropic barycenter as bars over the grid's cells
// with the inputs, the mixture and the exact barycenter as curves.
func (s *bcSim) lineChart() sims.HistChart {
	h, n := s.h(), s.line.n
	lo, hi := s.line.lo-h/2, s.line.hi+h/2
	x := make([]float64, n)
	curve := func(p []float64) []float64 {
		y := make([]float64, n)
		for a, v := range p {
			y[a] = v / h
		}
		return y
	}
	for a := range x {
		x[a] = s.z(a)
	}
	return sims.HistChart{Title: fmt.Sprintf("b, λ = %.2f", s.lambda), Lo: lo, Hi: hi,
		Density: curve(s.g.B()), XLabel: "x", Label: "b",
		Curves: []sims.Curve{
			{Name: "μ1", X: x, Y: curve(s.in[0]), Class: classTarget},
			{Name: "μ2", X: x, Y: curve(s.in[1]), Class: classPlan},
			{Name: "exact", X: x, Y: densityBins(s.exact, lo, hi, n), Class: classMark},
			{Name: "mix", X: x, Y: curve(s.mix), Class: classRef},
		}}
}

func (s *bcSim) lineNotes(mean, w1 float64) []string {
	l := s.lambda
	lines := []string{fmt.Sprintf("exact: F⁻ = λF₁⁻ + (1−λ)F₂⁻; entropic b (ε = %.2g): W₁ %.2g off", s.eps, w1)}
	switch s.input {
	case bcEx58:
		lines = append(lines, fmt.Sprintf("Ex 5.8: U[2−2λ, 3−2λ] = U[%.3g, %.3g], mean 2.5 − 2λ = %.4g (b: %.4g)", 2-2*l, 3-2*l, 2.5-2*l, mean))
	case bcEx59:
		lines = append(lines, fmt.Sprintf("Ex 5.9: the barycenter is δ at %.3g; the mixture keeps δ0 and δ1", 1-l))
	case bcGaussians:
		lines = append(lines, fmt.Sprintf("Gaussians of one sd: N(1 − λ, 0.3²) = N(%.3g, 0.3²); the mixture is bimodal", 1-l))
	}
	lines = append(lines, fmt.Sprintf("μ1 = %s, μ2 = %s; mix = λμ1 + (1−λ)μ2, the Euclidean average", s.names[0], s.names[1]))
	lines = append(lines, fmt.Sprintf("one round of Bregman projections a step, on %d grid points", s.line.n))
	return lines
}

// image draws a g×g image of the grid (index a·g + b at ((a+½)/g, (b+½)/g)).
func (s *bcSim) image(title string, p []float64) sims.CanvasChart {
	g := s.side
	z := make([]float64, g*g)
	for a := range g {
		for b := range g {
			z[b*g+a] = p[a*g+b]
		}
	}
	return sims.CanvasChart{Title: title, View: sims.Rect{XMin: 0, XMax: 1, YMin: 0, YMax: 1},
		Heat: &sims.Grid{NX: g, NY: g, Z: z, Scale: sims.Sequential}}
}

// inputs draws the two inputs side by side.
func (s *bcSim) inputs() sims.CanvasChart {
	g := s.side
	z := make([]float64, 2*g*g)
	for k, p := range s.in {
		for a := range g {
			for b := range g {
				z[b*2*g+k*g+a] = p[a*g+b]
			}
		}
	}
	return sims.CanvasChart{Title: fmt.Sprintf("%s | %s", s.names[0], s.names[1]),
		View: sims.Rect{XMin: 0, XMax: 2, YMin: 0, YMax: 1}, Heat: &sims.Grid{NX: 2 * g, NY: g, Z: z, Scale: sims.Sequential}}
}

func (s *bcSim) Result() map[string]any {
	mass, mx, my := s.moments()
	r := map[string]any{
		"iterations":     s.g.Iter(),
		"marginal_error": s.g.MarginalError(),
		"mass":           mass,
		"lambda":         s.lambda,
		"converged":      s.done,
	}
	if s.side == 0 {
		lo, hi := s.exact.Support()
		r["mean"], r["exact_mean"], r["exact_support"] = mx, s.exact.Mean(), []float64{lo, hi}
		r["exact_sd"], r["w1_to_exact"] = sd(s.exact), s.w1Exact()
	} else {
		r["centroid"] = []float64{mx, my}
	}
	why := map[string]string{}
	if !algo.Finite(s.g.MarginalError()) {
		why["marginal_error"] = bcNoErr
	}
	if w, ok := r["w1_to_exact"].(float64); ok && !algo.Finite(w) {
		why["w1_to_exact"] = bcNoW1
	}
	if len(why) > 0 {
		r["undefined"] = why
	}
	return r
}

// Why barycenter's figures may have no value.
const (
	bcNoErr = "no iteration yet"
	bcNoW1  = "the barycenter has no mass to compare"
)
