package divergencesim

import (
	"fmt"
	"math"

	"github.com/thelab/lab/algo/divergence"
	"github.com/thelab/lab/algo/target"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// KLFit fits one Gaussian to the `mixture` target, ½N((d, d), I) +
// ½N((−d, −d), I) (Fig 3.7's target at d = 3), by minimising the forward
// KL(p‖q) and the reverse KL(q‖p), side by side (seed 002 Suggested
// exercise 4, L568–571): the forward fit covers both modes (moment
// matching), the reverse fit seeks one mode, with KL → log 2; at small d the
// reverse fit straddles the modes too. One step is one gradient step of
// both.
var KLFit = &sims.Spec{
	Name:   "kl-fit",
	Title:  "A Gaussian fitted to `mixture` by forward KL(p‖q) and by reverse KL(q‖p), side by side",
	Source: "seed 002 §1.6–1.7 (L489–511, Suggested exercise 4 L568–571)",
	Steps:  1000,
	Speed:  10,
	Params: param.List(fitD, fitStart, fitStartSD, fitLR, fitTol),
	New:    newKLFit,
	// Three Traces of two columns (the KLs and both fits' paths) and their
	// copies in a Frame, and a measured base: the engine's quadrature grid
	// (96 KiB) and the Frame's density grids and ellipses.
	Size: func(sims.Config) int64 { return 2*3*2*8*sims.TraceCap + 160<<10 },

	Metrics: klFitMetrics,
}

// kl-fit's parameters.
var (
	fitD = param.Float("d", 3,
		"the modes at ±(d, d); 3 is the `mixture` target of Fig 3.7; below about 1.4 the reverse fit straddles both").Range(0, 6)
	fitStart = param.Vector("start", []float64{1, 0},
		"the mean both fits start from; the reverse fit goes to the mode it starts nearer").Range(-10, 10)
	fitStartSD = param.Float("start_sd", 2,
		"the standard deviation both fits start with, q₀ = N(start, start_sd² I)").Range(0.1, 10)
	fitLR  = param.Float("lr", 0.2, "gradient step size (the means move by Σ times their gradient)").Range(0, 1).OpenMin()
	fitTol = param.Float("tol", 1e-7, "stop when both gradients' norms are at most tol").Range(0, 1)
)

type fitSim struct {
	f    *divergence.Fit
	d    float64
	kls  *sims.Trace // forward KL, reverse KL
	fwd  *sims.Trace // forward mean path
	rev  *sims.Trace // reverse mean path
	heat *sims.Grid
	view sims.Rect
}

func newKLFit(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	d := fitD.Get(v)
	var p target.Target = target.Fig37()
	if d != 3 {
		m, err := target.NewMixture([]float64{0.5, 0.5}, [][]float64{{d, d}, {-d, -d}}, 1)
		if err != nil {
			return nil, err
		}
		p = m
	}
	f, err := divergence.NewFit(p, divergence.FitConfig{Start: fitStart.Get(v), StartSD: fitStartSD.Get(v),
		LR: fitLR.Get(v), Tol: fitTol.Get(v)})
	if err != nil {
		return nil, err
	}
	s := &fitSim{f: f, d: d, kls: sims.NewTrace(0, 2), fwd: sims.NewTrace(0, 2), rev: sims.NewTrace(0, 2)}
	s.record()
	// The view holds the target and the forward fit's 2σ ellipse: the
	// mixture's covariance is I + d²[[1, 1], [1, 1]].
	r := math.Max(2*math.Sqrt(1+2*d*d), d+4)
	start := fitStart.Get(v)
	r = math.Max(r, math.Max(math.Abs(start[0]), math.Abs(start[1]))+2*fitStartSD.Get(v))
	s.view = sims.Rect{XMin: -r, XMax: r, YMin: -r, YMax: r}
	x := make([]float64, 2)
	s.heat = sims.SampleGrid(s.view, 80, 40, func(a, b float64) float64 { x[0], x[1] = a, b; return p.Density(x) })
	s.heat.Lo = 0
	return s, nil
}

func (s *fitSim) record() {
	fw, rv := s.f.Forward(), s.f.Reverse()
	s.kls.Add(s.f.ForwardKL(), s.f.ReverseKL())
	s.fwd.Add(fw.Mu[0], fw.Mu[1])
	s.rev.Add(rv.Mu[0], rv.Mu[1])
}

func (s *fitSim) Step() error {
	if err := s.f.Step(); err != nil {
		return err
	}
	s.record()
	return nil
}

func ellipses(g divergence.Gauss, class int) []sims.Path {
	sxx, sxy, syy := g.Cov()
	one := sims.Ellipse(g.Mu[0], g.Mu[1], sxx, sxy, syy, 1, class)
	two := sims.Ellipse(g.Mu[0], g.Mu[1], sxx, sxy, syy, 2, class)
	two.Dotted = true
	return []sims.Path{one, two}
}

func (s *fitSim) Frame() sims.Frame {
	f := s.f
	fw, rv := f.Forward(), f.Reverse()
	gf, gr := f.GradNorms()
	metrics := []sims.Metric{
		{Name: "KL(p‖q_fwd)", Value: f.ForwardKL()},
		{Name: "KL(q_rev‖p)", Value: f.ReverseKL()},
		{Name: "|∇| fwd", Value: gf},
		{Name: "|∇| rev", Value: gr},
	}
	canvas := func(title string, g divergence.Gauss, path *sims.Trace, class int, legend []string) sims.CanvasChart {
		return sims.CanvasChart{Title: title, View: s.view, Heat: s.heat,
			Paths:   append(ellipses(g, class), sims.Path{X: path.Column(0), Y: path.Column(1), Class: class}),
			Markers: []sims.Marker{{X: g.Mu[0], Y: g.Mu[1], Glyph: '●', Class: class}},
			Legend:  legend, XLabel: "x", YLabel: "y"}
	}
	// Each canvas names only its own fit (class 0 forward, 1 reverse): a
	// legend shared by both named, on the reverse one, the fit it does not
	// draw, and hid its own behind "+1".
	forward := canvas("forward KL(p‖q): covers the modes", fw, s.fwd, 0, []string{"q_fwd: 1σ, 2σ"})
	reverse := canvas("reverse KL(q‖p): seeks a mode", rv, s.rev, 1, []string{"", "q_rev: 1σ, 2σ"})
	x0, x1 := s.kls.Span()
	kl := sims.LineChart{Title: "KL per step", X0: x0, X1: x1, XLabel: "step",
		Series: []sims.Series{
			{Name: "KL(p‖q_fwd)", Y: s.kls.Column(0), Class: 0},
			{Name: "KL(q_rev‖p)", Y: s.kls.Column(1), Class: 1},
			{Name: "log 2", Y: s.kls.Map(func(int) float64 { return math.Ln2 }), Class: 3, Bound: true},
		}}
	sxx, sxy, syy := fw.Cov()
	rxx, rxy, ryy := rv.Cov()
	lines := []string{
		fmt.Sprintf("forward: q covers all of p: p's moments, 0, [[%.3g, %.3g], [%.3g, %.3g]]",
			1+s.d*s.d, s.d*s.d, s.d*s.d, 1+s.d*s.d),
		fmt.Sprintf("  now mean (%.2f, %.2f), Σ = [[%.3g, %.3g], [%.3g, %.3g]]", fw.Mu[0], fw.Mu[1], sxx, sxy, sxy, syy),
		"reverse: q must vanish where p does: one mode, KL → log 2 = 0.693",
		fmt.Sprintf("  now mean (%.2f, %.2f), Σ = [[%.2g, %.2g], [%.2g, %.2g]]", rv.Mu[0], rv.Mu[1], rxx, rxy, rxy, ryy),
	}
	switch {
	case s.d < 1.5:
		lines = append(lines, "the modes overlap at this d: the reverse fit straddles them too (catalogue A10)")
	case math.Hypot(rv.Mu[0], rv.Mu[1]) < s.d/2 && rxx > 2:
		lines = append(lines, "the reverse fit sits between the modes: a local optimum; start off-centre")
	}
	return sims.Frame{Sim: KLFit.Name, Step: f.Iter(), Metrics: metrics, Charts: []sims.Chart{forward, reverse, kl}, Text: lines}
}

func (s *fitSim) Result() map[string]any {
	g := func(q divergence.Gauss) map[string]any {
		xx, xy, yy := q.Cov()
		return map[string]any{"mean": []float64{q.Mu[0], q.Mu[1]}, "cov": [][]float64{{xx, xy}, {xy, yy}}}
	}
	return map[string]any{
		"forward": g(s.f.Forward()), "reverse": g(s.f.Reverse()),
		"forward_kl": s.f.ForwardKL(), "reverse_kl": s.f.ReverseKL(), "steps": s.f.Iter(),
	}
}
