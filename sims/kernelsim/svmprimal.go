package kernelsim

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo/dataset"
	"github.com/thelab/lab/algo/kernel"
	"github.com/thelab/lab/algo/svm"
	"github.com/thelab/lab/sims"
)

// SVMPrimal is the linear soft-margin SVM trained on its primal hinge
// objective by subgradient descent or SGD with the notes' step rules, its
// objective drawn against the dual optimum that SMO finds.
var SVMPrimal = &sims.Spec{
	Name:   "svm-primal",
	Title:  "Linear SVM by primal subgradient / SGD, against the dual optimum",
	Source: "seed 001 §6 (eq 6.a, hinge L542–548, GD L626–636) and §8 (L765–771, step table L905–911); seed 003 L797–811",
	Data:   dataNote,
	Steps:  5000,
	Speed:  50,
	Params: []sims.Param{
		{Name: "data", Kind: sims.Choice, Choices: classPresets, Default: "overlap", Help: classHelp},
		{Name: "n", Kind: sims.Int, Min: 10, Max: 5000, Default: "150",
			Help: "number of generated points (not used with --data)"},
		{Name: "C", Kind: sims.Float, Min: 0, OpenMin: true, Max: 1e4, Default: "1",
			Help: "error penalty C of ½‖w‖² + CΣ(1 − y(⟨w,x⟩+b))⁺ (eq 6.a)"},
		{Name: "method", Kind: sims.Choice, Choices: svm.Methods, Default: "subgradient",
			Help: "subgradient: the full sum over the points (L771); sgd: one random point, scaled by N (L895–903)"},
		{Name: "step", Kind: sims.Choice, Choices: svm.Rules, Default: "1/k",
			Help: "step size t_k: t0/k (the notes' stochastic-convex row, L911), t0/√k, or a constant t0 (L771)"},
		{Name: "t0", Kind: sims.Float, Min: 0, OpenMin: true, Max: 100, Default: "1",
			Help: "step scale t0; with 1/k, t0 = 1 is the 1/(μk) rule for the μ = 1 strongly convex ½‖w‖²"},
	},
	New:  newSVMPrimal,
	Size: gramSize(1<<20, 9),
}

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
	gap    *sims.Trace // P − P*, best − P*
}

func newSVMPrimal(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	data, err := classData(cfg, v.String("data"), v.Int("n"))
	if err != nil {
		return nil, err
	}
	y, err := data.PlusMinus()
	if err != nil {
		return nil, err
	}
	c := v.Float("C")
	// The reference optimum: the dual solved by SMO to 1e-9, whose value
	// equals the primal optimum (strong duality).
	opt, err := svm.New(kernel.Gram(kernel.Linear{}, data.X), y, svm.Config{C: c, Tol: 1e-9})
	if err != nil {
		return nil, err
	}
	for range 10_000_000 {
		if err := opt.Step(); err != nil {
			break
		}
	}
	s := &svmPrimalSim{data: data, c: c, pstar: opt.Primal(), bstar: opt.Bias(), cls: data.Int(), gap: sims.NewTrace(0, 2)}
	s.wstar = make([]float64, data.D())
	for i, a := range opt.Alpha() {
		for j, xv := range data.X[i] {
			s.wstar[j] += a * y[i] * xv
		}
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x736764)) // "sgd"
	s.p, err = svm.NewPrimal(data.X, y, svm.PrimalConfig{
		C: c, Method: svm.Method(v.String("method")), Rule: svm.Rule(v.String("step")), T0: v.Float("t0"),
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
		sims.LineChart{Title: "P(w,b) − D* (SMO dual)", LogY: true, X0: x0, X1: x1, XLabel: "steps k",
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
			fmt.Sprintf("P(w,b) = ½‖w‖² + CΣ(1−yŷ)⁺, C = %g; one step = one subgradient step (ℓ′ = −1 where yŷ ≤ 1, L634)", s.c),
			fmt.Sprintf("D* = %.6g from SMO on the dual: P ≥ D* always (weak duality), best → D* (strong duality)", s.pstar),
			"P is not smooth: it need not fall every step (Thm 8.5 does not apply); the best iterate is kept",
		},
	}
}

func (s *svmPrimalSim) Result() map[string]any {
	w, b := s.p.W()
	best, bw, bb := s.p.Best()
	return map[string]any{
		"w":              append([]float64(nil), w...),
		"b":              b,
		"objective":      s.p.Obj(),
		"best_objective": best,
		"best_w":         append([]float64(nil), bw...),
		"best_b":         bb,
		"dual_optimum":   s.pstar,
		"optimal_w":      s.wstar,
		"optimal_b":      s.bstar,
		"relative_gap":   (best - s.pstar) / math.Abs(s.pstar),
		"steps":          s.p.Iter(),
	}
}
