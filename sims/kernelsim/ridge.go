package kernelsim

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/dataset"
	"github.com/thelab/lab/algo/kernel"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// Ridge is kernel ridge regression (seed 000 §4.8.1, eq 4.34; seed 003
// L77–131): the closed form α* = (K + λI)⁻¹y by Cholesky, and the same
// system solved iteratively, conjugate gradients beside gradient descent,
// one iteration of each per step.
var Ridge = &sims.Spec{
	Name:   "kernel-ridge",
	Title:  "Kernel ridge regression: Cholesky vs conjugate gradients vs gradient descent",
	Source: "seed 000 §4.8.1 (eqs 4.33–4.38, L1660–1688); seed 003 L77–131 (dual regression)",
	Data: "a CSV of numeric feature columns and a target column (named \"label\", else the last); " +
		"features are standardised; the fitted curve is drawn for one feature, fitted-vs-target otherwise",
	Steps:  2000,
	Speed:  10,
	Params: param.List(ridgeN, ridgeNoise, ridgeLambda, ridgeTol, ridgeKernel),
	New:    newRidge,
	Size:   ridgeSize,

	Metrics: ridgeMetrics,
}

const fitPoints = 200

// ridgeSize is the points, the engine (K + λI and the solvers) and, for
// data of more features, whose fit is drawn at the points, K itself; for
// one feature the kernel between the fit's grid and the points with the
// fits drawn; and the trace of the errors with its four curves.
func ridgeSize(cfg sims.Config) int64 {
	n, d := classShape(cfg, ridgeN)
	if cfg.Data == nil {
		d = 1
	}
	size := ridgeBase + int64(n)*(pointBytes(d)+32) + kernel.RidgeFootprint(n) + sims.TraceBytesAfter(2, 4, sims.TraceCap)
	if d > 1 {
		return size + 8*int64(n)*int64(n)
	}
	return size + 8*fitPoints*(int64(n)+6)
}

// ridgeBase is what kernel-ridge holds whatever its size: the sim, the
// Frame's charts and texts.
const ridgeBase = 16 << 10

type ridgeSim struct {
	data   *dataset.Labelled
	k      kernel.Kernel
	r      *kernel.Ridge
	cg, gd *kernel.RidgeIter
	cgDone bool
	gdDone bool
	gram   []float64 // K, for data of more than one feature
	xs     []float64 // the fit's x grid (1-D data)
	cross  []float64 // k(xs_a, x_i), fitPoints×n
	star   []float64 // closed-form fit on xs
	view   sims.Rect
	px, py []float64
	dots   []sims.Marker
	err    *sims.Trace // A-norm errors of cg and gd
	steps  int
}

// kernel-ridge's parameters.
var (
	ridgeN = param.Int("n", 30,
		"number of points of the preset t = sin(2πx) + ε, x uniform on [0, 1]").Range(2, 1000).BuiltInData()
	ridgeNoise  = param.Float("noise", 0.3, "standard deviation of ε in the preset").Range(0, 5).BuiltInData()
	ridgeLambda = param.Float("lambda", 0.001,
		"ridge penalty λ in ½‖Kα − y‖² + (λ/2)αᵀKα; small λ makes K + λI ill-conditioned").Range(0, 1000).OpenMin()
	ridgeTol = param.Float("tol", 1e-10,
		"an iterative solver stops when ‖y − (K+λI)α‖/‖y‖ ≤ tol").Range(0, 1)
	ridgeKernel = NewKernelParams(kernel.KindRBF, 3, 1, 20)
)

func newRidge(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	var data *dataset.Labelled
	var err error
	if t := cfg.Data; t != nil {
		if data, err = t.Labelled(false); err != nil {
			return nil, err
		}
		data.X = dataset.Standardize(data.X)
	} else {
		rng := rand.New(rand.NewPCG(cfg.Seed, 0x7269646765)) // "ridge"
		if data, err = dataset.Sinusoid(rng, ridgeN.Get(v), ridgeNoise.Get(v), 0, 0); err != nil {
			return nil, err
		}
	}
	k, err := ridgeKernel.Build(v)
	if err != nil {
		return nil, err
	}
	gram := kernel.Gram(k, data.X)
	s := &ridgeSim{data: data, k: k, err: sims.NewTrace(0, 2)}
	if s.r, err = kernel.NewRidge(gram, data.Y, ridgeLambda.Get(v)); err != nil {
		return nil, err
	}
	if data.D() > 1 {
		s.gram = gram // the fit is drawn at the points (targetChart)
	}
	if s.cg, err = kernel.NewRidgeIter(s.r, kernel.CG, ridgeTol.Get(v)); err != nil {
		return nil, err
	}
	s.gd, _ = kernel.NewRidgeIter(s.r, kernel.GD, ridgeTol.Get(v))
	if data.D() == 1 {
		s.px = make([]float64, data.N())
		for i, x := range data.X {
			s.px[i] = x[0]
		}
		s.py = data.Y
		for i := range s.px {
			s.dots = append(s.dots, sims.Marker{X: s.px[i], Y: s.py[i], Glyph: '●', Class: 0})
		}
		b := sims.Bounds(s.px, s.py)
		lo, hi := b.XMin-0.05*(b.XMax-b.XMin), b.XMax+0.05*(b.XMax-b.XMin)
		grid := make([][]float64, fitPoints)
		s.xs = make([]float64, fitPoints)
		for a := range grid {
			s.xs[a] = lo + (hi-lo)*float64(a)/(fitPoints-1)
			grid[a] = []float64{s.xs[a]}
		}
		s.cross = kernel.Cross(k, grid, data.X)
		s.star = s.curve(s.r.Star())
		ys := append(append([]float64(nil), s.py...), s.star...)
		yb := sims.Bounds(ys, ys)
		s.view = sims.Rect{XMin: lo, XMax: hi, YMin: yb.XMin, YMax: yb.XMax}.Pad(0.05)
		s.view.XMin, s.view.XMax = lo, hi
	}
	s.record()
	return s, nil
}

// curve evaluates f(x) = Σ α_i k(x_i, x) on the x grid.
func (s *ridgeSim) curve(alpha []float64) []float64 {
	n := len(alpha)
	out := make([]float64, fitPoints)
	for a := range out {
		row := s.cross[a*n : (a+1)*n]
		f := 0.0
		for i, kv := range row {
			f += alpha[i] * kv
		}
		out[a] = f
	}
	return out
}

func (s *ridgeSim) record() {
	s.err.Add(math.Max(s.r.ErrorA(s.cg.Alpha()), 1e-16), math.Max(s.r.ErrorA(s.gd.Alpha()), 1e-16))
}

func (s *ridgeSim) Step() error {
	for _, it := range []struct {
		r    *kernel.RidgeIter
		done *bool
	}{{s.cg, &s.cgDone}, {s.gd, &s.gdDone}} {
		if *it.done {
			continue
		}
		if err := it.r.Step(); err != nil {
			if !errors.Is(err, algo.ErrConverged) {
				return err
			}
			*it.done = true
		}
	}
	if s.cgDone && s.gdDone {
		return algo.ErrConverged
	}
	s.steps++
	s.record()
	return nil
}

func (s *ridgeSim) Frame() sims.Frame {
	kappa, _, _ := s.r.Cond()
	x0, x1 := s.err.Span()
	charts := []sims.Chart{s.fitChart(),
		sims.LineChart{
			Title: "‖α−α*‖_A / ‖α*‖_A", LogY: true, X0: x0, X1: x1, XLabel: "iterations",
			Series: []sims.Series{
				{Name: "CG", Y: s.err.Column(0), Class: 1},
				{Name: "GD", Y: s.err.Column(1), Class: 2},
				{Name: "CG bound", Y: s.err.Map(s.cg.Bound), Class: 1, Bound: true},
				{Name: "GD bound", Y: s.err.Map(s.gd.Bound), Class: 2, Bound: true},
			},
		},
	}
	return sims.Frame{
		Sim:  Ridge.Name,
		Step: s.steps,
		Metrics: []sims.Metric{
			{Name: "kappa", Value: kappa},
			{Name: "cg_error", Value: s.r.ErrorA(s.cg.Alpha())},
			{Name: "gd_error", Value: s.r.ErrorA(s.gd.Alpha())},
			{Name: "gd_J_gap", Value: s.r.Objective(s.gd.Alpha()) - s.r.Objective(s.r.Star())},
		},
		Charts: charts,
		Text:   s.notes(kappa),
	}
}

func (s *ridgeSim) fitChart() sims.CanvasChart {
	if s.xs == nil {
		return s.targetChart()
	}
	return sims.CanvasChart{
		Title:   fmt.Sprintf("f(x) = Σα_i k(x_i,x), λ = %g", s.r.Lambda()),
		View:    s.view,
		Markers: s.dots,
		Paths: []sims.Path{
			{X: s.xs, Y: s.star, Class: 3, Dotted: true},
			{X: s.xs, Y: s.curve(s.gd.Alpha()), Class: 2},
			{X: s.xs, Y: s.curve(s.cg.Alpha()), Class: 1},
		},
		Legend: []string{"data", "CG", "GD", "Cholesky"},
		XLabel: s.data.Features[0], YLabel: "y",
	}
}

// targetChart plots fitted against target values at the training points,
// for data with more than one feature.
func (s *ridgeSim) targetChart() sims.CanvasChart {
	n := s.data.N()
	fit := func(alpha []float64) []float64 {
		out := make([]float64, n)
		for i := 0; i < n; i++ {
			f := 0.0
			for j, a := range alpha {
				f += a * s.gram[i*n+j]
			}
			out[i] = f
		}
		return out
	}
	cg, gd := fit(s.cg.Alpha()), fit(s.gd.Alpha())
	b := sims.Bounds(s.data.Y, s.data.Y)
	lo, hi := b.XMin, b.XMax
	return sims.CanvasChart{
		Title: "fitted vs target at the data",
		View:  sims.Rect{XMin: lo, XMax: hi, YMin: lo, YMax: hi}.Pad(0.1),
		Points: []sims.PointSet{
			{Name: "GD", X: s.data.Y, Y: gd, Class: 2},
			{Name: "CG", X: s.data.Y, Y: cg, Class: 1},
		},
		Paths:  []sims.Path{{X: []float64{lo, hi}, Y: []float64{lo, hi}, Class: -1, Dotted: true}},
		Legend: []string{"", "CG", "GD"},
		XLabel: "target", YLabel: "fitted",
	}
}

func (s *ridgeSim) notes(kappa float64) []string {
	return []string{
		fmt.Sprintf("%s, %d points; α* = (K+λI)⁻¹y by Cholesky (dotted). One step = one iteration of each solver.", s.k, s.data.N()),
		fmt.Sprintf("κ(K+λI) = %.3g: GD contracts by (κ−1)/(κ+1) = %.6f per step, CG by (√κ−1)/(√κ+1) = %.4f (dotted bounds)",
			kappa, (kappa-1)/(kappa+1), (math.Sqrt(kappa)-1)/(math.Sqrt(kappa)+1)),
		"so GD needs ~κ steps per decade of error and CG ~√κ; CG is exact after n steps in exact arithmetic",
	}
}

func (s *ridgeSim) Result() map[string]any {
	kappa, lo, hi := s.r.Cond()
	return map[string]any{
		"alpha":      append([]float64(nil), s.r.Star()...),
		"lambda":     s.r.Lambda(),
		"kappa":      kappa,
		"eig_min":    lo,
		"eig_max":    hi,
		"cg_error":   s.r.ErrorA(s.cg.Alpha()),
		"gd_error":   s.r.ErrorA(s.gd.Alpha()),
		"cg_steps":   s.cg.Iter(),
		"gd_steps":   s.gd.Iter(),
		"objective":  s.r.Objective(s.r.Star()),
		"cg_alpha":   append([]float64(nil), s.cg.Alpha()...),
		"iterations": s.steps,
	}
}
