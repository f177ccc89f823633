package gensim

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/flow"
	"github.com/thelab/lab/algo/tensor"
	"github.com/thelab/lab/algo/tensor/opt"
	"github.com/thelab/lab/algo/toy2d"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// Flow is the change of variables (seed 001 §14, L1343–L1418, catalogue
// [A25]–[A28]) four ways, by `mode`: an affine flow fitted by maximum
// likelihood to 1-D data, converging to the sample mean and s.d.; stacked
// Real-NVP coupling layers trained on 2-D data, the density against the
// data and a noise lattice warped by T; an increasing triangular map
// inverted by bisection one halving per step; inverse-CDF sampling with
// the running Kolmogorov–Smirnov statistic.
var Flow = &sims.Spec{
	Name:   "flow",
	Title:  "Normalizing flows: affine MLE, Real-NVP coupling layers, triangular inversion by bisection, inverse CDF",
	Source: "seed 001 §14 (L1343–L1418: Theorems 14.2–14.4, Real-NVP L1402–L1406)",
	Steps:  1000,
	Speed:  30,
	Params: param.List(flMode, flTarget, flN, flLayers, flUnits, flBatch, flLR, flMean, flSD,
		flBeta, flC, flPoint, flTol, flLaw, flLambda, flDraws),
	New:  newFlow,
	Size: flowSize,

	Metrics: flowMetrics,
}

// flowSize is, by mode: the 2-D data and the Real-NVP (algo/flow's
// footprint) with the Frame's density grid, points and warped lattice;
// the 1-D data and its curves; the bisection's grid and iterates; or
// the inverse CDF's store of draws (flow.MaxDraws of them). Each with its
// trace.
func flowSize(cfg sims.Config) int64 {
	v := cfg.Values
	n := flN.Get(v)
	bound := tensor.Alloc(sims.TraceCap) // a bound line mapped over the trace's steps
	switch flMode.Get(v) {
	case fmAffine:
		return 32<<10 + sims.TraceBytes(1) + bound + tensor.Alloc(n) + 4*tensor.Alloc(flCurve)
	case fmTriangular:
		return 32<<10 + sims.TraceBytes(2) + bound + tensor.Alloc(triGridX*triGridY) + 8<<10 // the iterates: a few hundred halvings at most
	case fmICDF:
		return 32<<10 + sims.TraceBytes(2) + flow.InverseCDFBytes() + 4*tensor.Alloc(flCurve)
	}
	c := flow.RealNVPConfig{Layers: flLayers.Get(v), Units: flUnits.Get(v), Batch: flBatch.Get(v)}
	lattice := int64(2*nvpLattice) * 2 * tensor.Appended(nvpLatticePoints)
	return tensor.Slack(32<<10 + sims.TraceBytes(1) + tensor.Alloc(2*n) + c.Bytes() + tensor.Alloc(nvpGridX*nvpGridY) +
		2*tensor.Alloc(nvpShown) + lattice)
}

// flCurve is the points of the 1-D sims' curves.
const flCurve = 161

// flowMode names what flow shows.
type flowMode string

func (m flowMode) String() string { return string(m) }

const (
	fmAffine     flowMode = "affine"
	fmRealNVP    flowMode = "realnvp"
	fmTriangular flowMode = "triangular"
	fmICDF       flowMode = "icdf"
)

var (
	flMode = param.Choice("mode", []flowMode{fmRealNVP, fmAffine, fmTriangular, fmICDF}, fmRealNVP,
		"realnvp: coupling layers trained on 2-D data; affine: T(z) = az + b fitted to 1-D data; "+
			"triangular: T⁻¹ by bisection, one halving a step; icdf: Q(U) ~ F (Theorem 14.4)")
	flTarget = param.Choice("target", toy2d.Targets, toy2d.Moons, "the 2-D data of realnvp")
	flN      = param.Int("n", 2000, "data points (realnvp, affine)").Range(2, 50000)
	flLayers = param.Int("layers", 6, "coupling layers, alternating the copied coordinate").Range(1, flow.MaxLayers)
	flUnits  = param.Int("units", 32, "tanh units of each layer's (α, μ) network").Range(1, flow.MaxUnits)
	flBatch  = param.Int("batch", 128, "minibatch of realnvp").Range(1, 1024)
	flLR     = param.Float("lr", 0.01, "step size: Adam's for realnvp, the natural-gradient step of affine").Range(0, 1).OpenMin().
			DefaultWhen(is(flMode, fmAffine), 0.2, "0.01; 0.2 for affine")
	flMean   = param.Float("mean", 3, "mean of affine's data N(mean, sd²)").Range(-10, 10)
	flSD     = param.Float("sd", 0.5, "s.d. of affine's data").Range(0.01, 10)
	flBeta   = param.Float("beta", 0.8, "β of T_i = z_i + β tanh z_i (+ c z₁²): T is increasing only for β > −1").Range(-5, 5)
	flC      = param.Float("c", 0.5, "c of T₂'s banana term c z₁²").Range(-2, 2)
	flPoint  = param.Vector("x", []float64{1, 2}, "the point x whose preimage T⁻¹(x) bisection finds").Range(-10, 10)
	flTol    = param.Float("tol", 1e-10, "bisection stops a coordinate when its bracket is below tol").Range(1e-15, 1)
	flLaw    = param.Choice("law", flow.Laws, flow.Exponential, "icdf's law: exponential, cauchy (no mean) or logistic")
	flLambda = param.Float("lambda", 1, "icdf: the exponential's rate λ, or the scale of cauchy and logistic").Range(0.01, 100)
	flDraws  = param.Int("draws", 20, "icdf: draws per step").Range(1, 10000)
)

func newFlow(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x666c_6f77)) // "flow"
	switch flMode.Get(v) {
	case fmAffine:
		x := make([]float64, flN.Get(v))
		for i := range x {
			x[i] = flMean.Get(v) + flSD.Get(v)*rng.NormFloat64()
		}
		a, err := flow.NewAffine(x, flLR.Get(v))
		if err != nil {
			return nil, err
		}
		return newAffineSim(a, x), nil
	case fmTriangular:
		t, err := flow.NewTriangular(flBeta.Get(v), flC.Get(v))
		if err != nil {
			return nil, err
		}
		p := flPoint.Get(v)
		return newTriSim(t, [2]float64{p[0], p[1]}, flTol.Get(v)), nil
	case fmICDF:
		c, err := flow.NewInverseCDF(flLaw.Get(v), flLambda.Get(v), flDraws.Get(v), rng)
		if err != nil {
			return nil, err
		}
		return &icdfSim{c: c, ks: sims.NewTrace(1, 2)}, nil
	}
	xy, _, err := toy2d.Sample(flTarget.Get(v), rng, flN.Get(v))
	if err != nil {
		return nil, err
	}
	f, err := flow.NewRealNVP(flow.RealNVPConfig{Layers: flLayers.Get(v), Units: flUnits.Get(v), Batch: flBatch.Get(v),
		Opt: opt.Config{LR: flLR.Get(v)}}, xy, rng)
	if err != nil {
		return nil, err
	}
	return newNVPSim(f, xy), nil
}

// ---- affine ----

type affineSim struct {
	a              *flow.Affine
	x              []float64
	mean, sd, nll0 float64
	nll            *sims.Trace
	lo, hi         float64
	hist           []float64
}

func newAffineSim(a *flow.Affine, x []float64) *affineSim {
	m, sd, floor := flow.MLE(x)
	s := &affineSim{a: a, x: x, mean: m, sd: sd, nll0: floor, nll: sims.NewTrace(0, 1)}
	s.lo, s.hi = math.Min(m-4*sd, -3), math.Max(m+4*sd, 3)
	s.hist = histogram(x, s.lo, s.hi, 40)
	s.nll.Add(a.NLL()) // step k's row is NLL(θ_k), the identity's at 0
	return s
}

func (s *affineSim) Step() error {
	err := s.a.Step()
	if err == nil {
		s.nll.Add(s.a.NLL())
	}
	return err
}

func (s *affineSim) Frame() sims.Frame {
	g := xs(s.lo, s.hi, flCurve)
	hist := sims.HistChart{Title: "data against T_# N(0,1)", Lo: s.lo, Hi: s.hi, Density: s.hist, Label: "data", XLabel: "x",
		Curves: []sims.Curve{
			{Name: "T_# r", X: g, Y: mapped(g, s.a.Density), Class: classModel},
			{Name: "N(x̄, σ̂²)", X: g, Y: mapped(g, func(x float64) float64 {
				z := (x - s.mean) / s.sd
				return math.Exp(-0.5*z*z) / (s.sd * math.Sqrt(2*math.Pi))
			}), Class: classRef},
		}}
	nll := traceChart("NLL per step", s.nll,
		sims.Series{Name: "NLL", Y: s.nll.Column(0), Class: classFit},
		sims.Series{Name: "½log(2πeσ̂²)", Y: s.nll.Map(func(int) float64 { return s.nll0 }), Class: classRef, Bound: true})
	scale := math.Exp(s.a.Alpha)
	return sims.Frame{Sim: Flow.Name, Step: s.a.Steps(),
		Metrics: []sims.Metric{{Name: "a", Value: scale}, {Name: "b", Value: s.a.B}, {Name: "sd", Value: s.sd},
			{Name: "mean", Value: s.mean}, {Name: "NLL", Value: s.a.NLL()}, {Name: "grad", Value: s.a.GradNorm()}},
		Charts: []sims.Chart{hist, nll},
		Text: []string{
			s.a.String() + fmt.Sprintf(": MLE b = x̄ = %.6g, a = σ̂ (1/n) = %.6g", s.mean, s.sd),
			"p(x) = r(T⁻¹x)·|det ∇T⁻¹| = N((x − b)/a)/a (Thm 14.2), a = e^α > 0",
		}}
}

func (s *affineSim) Result() map[string]any {
	return map[string]any{"a": math.Exp(s.a.Alpha), "b": s.a.B, "mean": s.mean, "sd": s.sd, "nll": s.a.NLL(), "nll_mle": s.nll0}
}

// ---- realnvp ----

// nvpGrid is the heat map's resolution, nvpLattice the lattice's lines
// (each way) and nvpLatticePoints the points of each, nvpShown the data
// points drawn.
const (
	nvpGridX         = 64
	nvpGridY         = 32
	nvpLattice       = 7
	nvpLatticePoints = 41
	nvpShown         = 200
)

type nvpSim struct {
	f     *flow.RealNVP
	xy    []float64
	view  sims.Rect
	nll   *sims.Trace
	shown []float64 // a few hundred data points drawn
}

func newNVPSim(f *flow.RealNVP, xy []float64) *nvpSim {
	x, y := split(xy)
	s := &nvpSim{f: f, xy: xy, view: sims.Bounds(x, y).Pad(0.1), nll: sims.NewTrace(1, 1)}
	s.shown = xy[:min(len(xy), 2*nvpShown)]
	return s
}

// split separates (x, y) pairs.
func split(xy []float64) (x, y []float64) {
	x, y = make([]float64, len(xy)/2), make([]float64, len(xy)/2)
	for i := range x {
		x[i], y[i] = xy[2*i], xy[2*i+1]
	}
	return x, y
}

func (s *nvpSim) Step() error {
	err := s.f.Step()
	if err == nil || !errors.Is(err, algo.ErrDiverged) {
		s.nll.Add(s.f.NLL())
	}
	return err
}

// lattice is the image under T of the lines z₁ = const and z₂ = const
// over [−2.5, 2.5]², drawn solid (class 0) so that a monochrome pane does
// not dash them into noise.
func (s *nvpSim) lattice() []sims.Path {
	var out []sims.Path
	ts := xs(-2.5, 2.5, nvpLatticePoints)
	for i := range nvpLattice {
		c := -2.5 + 5*float64(i)/(nvpLattice-1)
		for dir := range 2 {
			p := sims.Path{Class: classData}
			for _, t := range ts {
				z := [2]float64{c, t}
				if dir == 1 {
					z = [2]float64{t, c}
				}
				x, _ := s.f.Forward(z)
				p.X, p.Y = append(p.X, x[0]), append(p.Y, x[1])
			}
			out = append(out, p)
		}
	}
	return out
}

func (s *nvpSim) Frame() sims.Frame {
	heat := sims.SampleGrid(s.view, nvpGridX, nvpGridY, func(x, y float64) float64 {
		return math.Exp(s.f.LogDensity([2]float64{x, y}))
	})
	heat.Lo = 0
	px, py := split(s.shown)
	dens := sims.CanvasChart{Title: "density T_# N(0, I) and the data", View: s.view, Heat: heat,
		Points: []sims.PointSet{{Name: "data", X: px, Y: py, Class: classData}}, Legend: []string{"data"}}
	warp := sims.CanvasChart{Title: fmt.Sprintf("noise lattice warped by %d layers", s.f.Layers()), View: s.view,
		Paths: s.lattice(), Legend: []string{"T(lattice of N(0, I))"}}
	nll := traceChart("NLL (batch, before update)", s.nll, sims.Series{Name: "NLL", Y: s.nll.Column(0), Class: classFit})
	// The step's minibatch's NLL, taken with its gradient before the
	// update (the density and the lattice are of the updated flow): none
	// before the first step.
	m := sims.Metric{Name: "NLL", Undefined: "no minibatch trained yet"}
	if s.f.Steps() > 0 {
		m = sims.Metric{Name: "NLL", Value: sims.FiniteOr(s.f.NLL(), 0)}
	}
	return sims.Frame{Sim: Flow.Name, Step: s.f.Steps(),
		Metrics: []sims.Metric{m, {Name: "layers", Value: float64(s.f.Layers())}},
		Charts:  []sims.Chart{dens, warp, nll},
		Text: []string{
			"layer k: x_c = z_c, x_o = e^{α(z_c)}z_o + μ(z_c); log det ∇T = Σα_k",
			"NLL = mean ½‖T⁻¹x‖² + log 2π + Σα_k; T⁻¹ exact",
		}}
}

func (s *nvpSim) Result() map[string]any {
	return map[string]any{"nll": s.f.NLL(), "steps": s.f.Steps(), "layers": s.f.Layers()}
}

// ---- triangular ----

// triGrid is the resolution of the bisection's density map.
const (
	triGridX = 48
	triGridY = 24
)

type triSim struct {
	t     flow.Triangular
	b     *flow.Bisection
	x     [2]float64
	tol   float64
	trace *sims.Trace // bracket width, residual
	view  sims.Rect
	heat  *sims.Grid
	iters []float64 // T(Z) after each step
	steps int
}

func newTriSim(t flow.Triangular, x [2]float64, tol float64) *triSim {
	s := &triSim{t: t, x: x, tol: tol, b: flow.NewBisection(t, x, tol), trace: sims.NewTrace(0, 2)}
	s.view = sims.Rect{XMin: -4, XMax: 4, YMin: -3, YMax: 6}
	s.view.XMin, s.view.XMax = math.Min(s.view.XMin, x[0]-1), math.Max(s.view.XMax, x[0]+1)
	s.view.YMin, s.view.YMax = math.Min(s.view.YMin, x[1]-1), math.Max(s.view.YMax, x[1]+1)
	s.heat = sims.SampleGrid(s.view, triGridX, triGridY, func(a, b float64) float64 { return t.Density([2]float64{a, b}) })
	s.heat.Lo = 0
	s.record()
	return s
}

func (s *triSim) record() {
	s.trace.Add(s.b.Hi-s.b.Lo, s.b.Residual())
	tz := s.t.Map(s.b.Z)
	s.iters = append(s.iters, tz[0], tz[1])
}

func (s *triSim) Step() error {
	err := s.b.Step()
	s.steps++
	s.record()
	return err
}

func (s *triSim) Frame() sims.Frame {
	ix, iy := split(s.iters)
	tz := s.t.Map(s.b.Z)
	pic := sims.CanvasChart{Title: "T_# N(0, I), T(z_k) → x", View: s.view, Heat: s.heat,
		Paths:   []sims.Path{{X: ix, Y: iy, Class: classFit, Dotted: true}},
		Markers: []sims.Marker{{X: s.x[0], Y: s.x[1], Glyph: '✚', Class: classData}, {X: tz[0], Y: tz[1], Glyph: '●', Class: classFit}},
		Legend:  []string{"x", "", "T(z_k)"}}
	conv := traceChart("bracket, ‖T(z)−x‖∞", s.trace,
		sims.Series{Name: "bracket", Y: s.trace.Column(0), Class: classModel},
		sims.Series{Name: "residual", Y: s.trace.Column(1), Class: classFit},
		sims.Series{Name: "tol", Y: s.trace.Map(func(int) float64 { return s.tol }), Class: classRef, Bound: true})
	conv.LogY = true
	coord := "z₁"
	if s.b.I == 1 {
		coord = "z₂ (z₁ solved)"
	} else if s.b.I == 2 {
		coord = "done"
	}
	return sims.Frame{Sim: Flow.Name, Step: s.steps,
		Metrics: []sims.Metric{{Name: "z1", Value: s.b.Z[0]}, {Name: "z2", Value: s.b.Z[1]},
			{Name: "residual", Value: s.b.Residual()}, {Name: "halvings1", Value: float64(s.b.Halves[0])},
			{Name: "halvings2", Value: float64(s.b.Halves[1])}, {Name: "logdet", Value: s.t.LogDet(s.b.Z)}},
		Charts: []sims.Chart{pic, conv},
		Text: []string{
			s.t.String(),
			fmt.Sprintf("solving %s: bracket [%.6g, %.6g]", coord, s.b.Lo, s.b.Hi),
			"T₂ needs z₁: z₁ first; det ∇T = Π(1 + β sech² z_i), O(d)",
		}}
}

func (s *triSim) Result() map[string]any {
	return map[string]any{"z": s.b.Z[:], "residual": s.b.Residual(), "halvings": s.b.Halves[:], "log_det": s.t.LogDet(s.b.Z)}
}

// ---- inverse CDF ----

type icdfSim struct {
	c  *flow.InverseCDF
	ks *sims.Trace // KS, 0.87/√n
}

func (s *icdfSim) Step() error {
	err := s.c.Step()
	if err == nil {
		s.ks.Add(s.c.KS(), 0.8687/math.Sqrt(float64(s.c.N())))
	}
	return err
}

func (s *icdfSim) Frame() sims.Frame {
	law, lambda := s.c.Law()
	lo, hi := law.Quantile(0.01, lambda), law.Quantile(0.99, lambda)
	if law == flow.Exponential {
		lo = 0
	}
	g := xs(lo, hi, flCurve)
	var dens []float64
	if s.c.N() > 0 {
		dens = histogram(s.c.Sorted(), lo, hi, 40)
	} else {
		dens = make([]float64, 40)
	}
	hist := sims.HistChart{Title: "Q(U) against the density", Lo: lo, Hi: hi, Density: dens, Label: "Q(U)", XLabel: "x",
		Curves: []sims.Curve{{Name: string(law), X: g, Y: mapped(g, func(x float64) float64 { return law.PDF(x, lambda) }), Class: classRef}}}
	u := xs(0.005, 0.995, 100)
	q := sims.LineChart{Title: "the quantile Q = F⁻¹", X0: 0, X1: 1, XLabel: "u",
		Series: []sims.Series{{Name: "Q(u)", Y: mapped(u, func(u float64) float64 { return law.Quantile(u, lambda) }), Class: classModel}}}
	ks := traceChart("Kolmogorov–Smirnov D_n", s.ks,
		sims.Series{Name: "D_n", Y: s.ks.Column(0), Class: classFit},
		sims.Series{Name: "E D_n ≈ 0.87/√n", Y: s.ks.Column(1), Class: classRef, Bound: true})
	ks.LogY = true
	metrics := []sims.Metric{{Name: "n", Value: float64(s.c.N())}}
	text := []string{"U ~ U(0, 1) open, X = Q(U) ~ F (Theorem 14.4)"}
	if s.c.N() > 0 {
		metrics = append(metrics, sims.Metric{Name: "KS", Value: s.c.KS()},
			sims.Metric{Name: "sqrt_n_KS", Value: math.Sqrt(float64(s.c.N())) * s.c.KS()},
			sims.Metric{Name: "mean", Value: s.c.Mean(), Untrusted: law == flow.Cauchy})
		switch law {
		case flow.Exponential:
			text = append(text, fmt.Sprintf("mean %.5g → 1/λ = %.5g; √n·D_n stays O(1)", s.c.Mean(), 1/lambda))
		case flow.Cauchy:
			text = append(text, "cauchy has no mean: the mean never settles; D_n → 0")
		default:
			text = append(text, "√n·D_n stays O(1): D_n → 0 like 1/√n (Kolmogorov)")
		}
	}
	return sims.Frame{Sim: Flow.Name, Step: s.ks.Len(), Metrics: metrics, Charts: []sims.Chart{hist, q, ks}, Text: text}
}

func (s *icdfSim) Result() map[string]any {
	law, lambda := s.c.Law()
	r := map[string]any{"law": law.String(), "lambda": lambda, "n": s.c.N()}
	if s.c.N() > 0 {
		r["ks"], r["mean"] = s.c.KS(), s.c.Mean()
	}
	return r
}
