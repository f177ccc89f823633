package kernelsim

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/dataset"
	"github.com/thelab/lab/algo/svm"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// SVMPrimal is the linear soft-margin SVM trained on its primal hinge
// objective by subgradient descent or SGD with the notes' step rules, its
// objective drawn against the dual optimum that an interior-point method
// finds (svm.IPM).
var SVMPrimal = &sims.Spec{
	Name:   "svm-primal",
	Title:  "Linear SVM by primal subgradient / SGD, against the dual optimum",
	Source: "seed 001 §6 (eq 6.a, hinge L542–548, GD L626–636) and §8 (L765–771, step table L905–911); seed 003 L797–811",
	Data:   dataNote,
	Steps:  5000,
	Speed:  30,
	Params: param.List(primalPreset, primalN, primalC, primalMethod, primalStep, primalT0),
	New:    newSVMPrimal,
	Size:   primalSize,

	Metrics: svmPrimalMetrics,
}

// primalSize is the points and the trace of the gaps with its two
// curves: the engine keeps w and b. The reference optimum's interior
// point holds (17 + 2d)·n numbers while it runs (0.84 MB at n = 5000),
// garbage once it has solved the dual; the sim keeps w*, b* and D*.
func primalSize(cfg sims.Config) int64 {
	n, d := classShape(cfg, primalN)
	return primalBase + int64(n)*pointBytes(d) + sims.TraceBytesAfter(2, 2, sims.TraceCap)
}

// primalBase is what svm-primal holds whatever its size: the sim, the
// Frame's charts and texts.
const primalBase = 24 << 10

// primalWork bounds n·(d + 14)² for a --data table of n rows and d
// features. The reference optimum's interior point takes 30 to 45
// iterations of 0.35 to 0.55·(d + 14)² ns a point (measured from d = 1
// to 100 on a loaded machine: the O(d²) product-form factorisation, the
// O(d) sweeps and the vector work), so the bound keeps it near 0.15 s:
// 35 555 rows of 1 feature, 31 250 of 2, 4 132 of 30, 615 of 100. A
// subgradient step, O(n·d), is then at most 1.4·10⁵ multiply-adds (at
// d = 14).
const primalWork = 8_000_000

// primalMaxRows is the most --data rows svm-primal takes with d features.
func primalMaxRows(d int) int { return primalWork / ((d + 14) * (d + 14)) }

type svmPrimalSim struct {
	data   *dataset.Labelled
	p      *svm.Primal
	pstar  float64
	wstar  []float64
	bstar  float64
	c      float64
	px, py []float64
	cls    []int
	view   sims.Rect
	gap    *sims.Trace // P − D*, best − D*
	// refIter is the interior point's iterations.
	refIter int
}

// svm-primal's parameters.
var (
	primalPreset = classPreset(presetOverlap)
	primalN      = classSize(150, 5000)
	primalC      = param.Float("C", 1, "error penalty C of ½‖w‖² + CΣ(1 − y(⟨w,x⟩+b))⁺ (eq 6.a)").Range(0, 1e4).OpenMin()
	primalMethod = param.Choice("method", []svm.Method{svm.Subgradient, svm.SGD}, svm.Subgradient,
		"subgradient: the full sum over the points (L771); sgd: one random point, scaled by N (L895–903)")
	primalStep = param.Choice("step", []svm.Rule{svm.InvK, svm.InvSqrtK, svm.Const}, svm.InvK,
		"step size t_k: t0/k (the notes' stochastic-convex row, L911), t0/√k, or a constant t0 (L771)")
	primalT0 = param.Float("t0", 1,
		"step scale t0; with 1/k, t0 = 1 is the 1/(μk) rule for the μ = 1 strongly convex ½‖w‖²").Range(0, 100).OpenMin()
)

func newSVMPrimal(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	if cfg.Data != nil {
		// The reference optimum's work grows as n·d² (primalWork).
		_, d := classShape(cfg, primalN)
		why := fmt.Sprintf("for which, with %d features, the reference optimum (an interior-point method, n·d² work an iteration) takes well under a second", d)
		if err := cfg.Data.AtMost(primalMaxRows(d), why); err != nil {
			return nil, err
		}
	}
	data, err := classData(cfg, primalPreset.Get(v), primalN.Get(v))
	if err != nil {
		return nil, err
	}
	y, err := data.PlusMinus()
	if err != nil {
		return nil, err
	}
	c := primalC.Get(v)
	// The reference optimum: the dual solved by an interior-point method
	// to a relative duality gap of 1e-10, in a few dozen iterations
	// whatever C. Its dual value D(α) is a lower bound on every P(w, b)
	// (weak duality) within 1e-10 of the optimum P* = D* (strong
	// duality); w* and b* are the optimum's hyperplane.
	opt, err := svm.IPM(data.X, y, svm.IPMConfig{C: c})
	if err != nil {
		if pe := (*algo.ParamError)(nil); errors.As(err, &pe) {
			return nil, sims.Blame(err, v, sims.As("labels", primalN)) // a small preset drew one class
		}
		return nil, fmt.Errorf("the reference optimum: %w", err)
	}
	s := &svmPrimalSim{data: data, c: c, pstar: opt.Dual, wstar: opt.W, bstar: opt.B, refIter: opt.Iter,
		cls: data.Int(), gap: sims.NewTrace(0, 2)}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x736764)) // "sgd"
	s.p, err = svm.NewPrimal(data.X, y, svm.PrimalConfig{
		C: c, Method: primalMethod.Get(v), Rule: primalStep.Get(v), T0: primalT0.Get(v),
	}, rng)
	if err != nil {
		return nil, err
	}
	if s.px, s.py = columns(data); s.px != nil {
		s.view = sims.Bounds(s.px, s.py).Pad(0.08)
	}
	s.record()
	return s, nil
}

func (s *svmPrimalSim) record() {
	best, _, _ := s.p.Best()
	s.gap.Add(math.Max(s.p.Obj()-s.pstar, 1e-16), math.Max(best-s.pstar, 1e-16))
}

func (s *svmPrimalSim) Step() error {
	if err := s.p.Step(); err != nil {
		return err
	}
	s.record()
	return nil
}

// line returns the segment of {x : w·x + b = level} inside the view.
func (s *svmPrimalSim) line(w []float64, b, level float64, class int, dotted bool) sims.Path {
	v := s.view
	p := sims.Path{Class: class, Dotted: dotted}
	if math.Abs(w[1]) >= math.Abs(w[0]) && w[1] != 0 {
		for _, x := range []float64{v.XMin, v.XMax} {
			p.X = append(p.X, x)
			p.Y = append(p.Y, (level-b-w[0]*x)/w[1])
		}
	} else if w[0] != 0 {
		for _, y := range []float64{v.YMin, v.YMax} {
			p.X = append(p.X, (level-b-w[1]*y)/w[0])
			p.Y = append(p.Y, y)
		}
	}
	return p
}

func (s *svmPrimalSim) Frame() sims.Frame {
	best, _, _ := s.p.Best()
	x0, x1 := s.gap.Span()
	charts := []sims.Chart{
		sims.LineChart{Title: "P(w,b) − D* (dual optimum)", LogY: true, X0: x0, X1: x1, XLabel: "steps k",
			Series: []sims.Series{
				{Name: "P(w_k) − D*", Y: s.gap.Column(0), Class: 0},
				{Name: "best so far", Y: s.gap.Column(1), Class: 1},
			}},
	}
	if s.px != nil {
		w, b := s.p.W()
		charts = append([]sims.Chart{sims.CanvasChart{
			Title:  "w·x+b = 0, ±1; optimum dotted",
			View:   s.view,
			Points: []sims.PointSet{{Name: "data", X: s.px, Y: s.py, Classes: s.cls}},
			Paths: []sims.Path{
				s.line(s.wstar, s.bstar, 0, -1, true),
				s.line(w, b, 1, 2, true), s.line(w, b, -1, 2, true),
				s.line(w, b, 0, 2, false),
			},
			Legend: classLegend,
			XLabel: s.data.Features[0], YLabel: s.data.Features[1],
		}}, charts...)
	}
	return sims.Frame{
		Sim:  SVMPrimal.Name,
		Step: s.p.Iter(),
		Metrics: []sims.Metric{
			{Name: "P", Value: s.p.Obj()},
			{Name: "best", Value: best},
			{Name: "D*", Value: s.pstar},
			{Name: "rel_gap", Value: (best - s.pstar) / math.Abs(s.pstar)},
			{Name: "t_k", Value: s.p.StepSize(max(s.p.Iter(), 1))},
		},
		Charts: charts,
		Text: []string{
			fmt.Sprintf("P(w,b) = ½‖w‖² + CΣ(1−yŷ)⁺, C = %g; one step = one subgradient step (ℓ′ = −1 where yŷ ≤ 1)", s.c),
			fmt.Sprintf("D* = %.6g, the dual solved by an interior-point method: P ≥ D* always (weak duality), best → D* (strong duality)", s.pstar),
			"P is not smooth: it need not fall every step (Thm 8.5 does not apply); the best iterate is kept",
		},
	}
}

func (s *svmPrimalSim) Result() map[string]any {
	w, b := s.p.W()
	best, bw, bb := s.p.Best()
	return map[string]any{
		"w":                  append([]float64(nil), w...),
		"b":                  b,
		"objective":          s.p.Obj(),
		"best_objective":     best,
		"best_w":             append([]float64(nil), bw...),
		"best_b":             bb,
		"dual_optimum":       s.pstar,
		"optimal_w":          s.wstar,
		"optimal_b":          s.bstar,
		"relative_gap":       (best - s.pstar) / math.Abs(s.pstar),
		"steps":              s.p.Iter(),
		"optimum_iterations": s.refIter,
	}
}
