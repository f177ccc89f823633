// Package optimsim turns the engines of algo/optim into sims.
package optimsim

import (
	"fmt"
	"math"
	"strconv"

	"github.com/thelab/lab/algo/optim"
	"github.com/thelab/lab/sims"
)

// GD is the gradient-descent playground (seed 001 §8): a 2-D test function,
// an update rule, its convergence curve against Theorem 8.7 and the iterate
// path over the function's contours.
var GD = &sims.Spec{
	Name:   "gd",
	Title:  "Gradient descent, momentum, Nesterov and Adam on 2-D test functions",
	Source: "seed 001 §8 (Def 8.2, Thm 8.7)",
	Steps:  1000,
	Speed:  30,
	Params: []sims.Param{
		{Name: "fn", Kind: sims.Choice, Choices: optim.ProblemNames, Default: "quadratic",
			Help: "function to minimise; quadratic is ½xᵀAx with eigenvalues 1 and kappa"},
		{Name: "kappa", Kind: sims.Float, Min: 1, Max: 1000, Default: "10",
			Help: "condition number L/m of the quadratic (fn=quadratic only)"},
		{Name: "method", Kind: sims.Choice, Choices: optim.Methods, Default: "gd",
			Help: "update rule: plain gradient descent, heavy-ball momentum, Nesterov, Adam"},
		{Name: "lr", Kind: sims.Float, Min: 0, OpenMin: true, Max: 10, Default: "0.1",
			DefaultFor: defaultLR, DefaultNote: "1/L for the quadratic; 0.001 (rosenbrock), 0.01 (beale, himmelblau); adam 0.05",
			Help: "step size t; on the quadratic GD converges iff t < 2/L"},
		{Name: "beta", Kind: sims.Float, Min: 0, Max: 0.999, Default: "0.9",
			Help: "momentum (momentum, nesterov) or first-moment decay (adam)"},
		{Name: "x0", Kind: sims.Vector, Len: 2, Min: -10, Max: 10, Default: "-2.5,1.5",
			DefaultFor: defaultStart, DefaultNote: "the function's standard start",
			Help: "starting point x,y"},
		{Name: "tol", Kind: sims.Float, Min: 0, Max: 1, Default: "1e-8",
			Help: "stop when ‖∇f‖ ≤ tol"},
	},
	New: newGD,
}

func defaultLR(v sims.Values) string {
	if v.String("method") == string(optim.Adam) {
		return "0.05"
	}
	switch v.String("fn") {
	case "quadratic":
		return strconv.FormatFloat(1/v.Float("kappa"), 'g', 6, 64)
	case "rosenbrock":
		return "0.001"
	}
	return "0.01"
}

func defaultStart(v sims.Values) string {
	p := optim.NewProblem(v.String("fn"), 1)
	return fmt.Sprintf("%g,%g", p.Start[0], p.Start[1])
}

type gdSim struct {
	prob   *optim.Problem
	d      *optim.Descent
	lr     float64
	method optim.Method
	x0     []float64
	r0sq   float64 // ‖x0 − x*‖², x* the nearest minimiser
	gamma  float64 // Theorem 8.7's rate, when its hypotheses hold
	bound  bool
	gap    *sims.Trace // f(x_k) − f*
	path   *sims.Trace // x_k
	heat   *sims.Grid
	view   sims.Rect
}

func newGD(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	prob := optim.NewProblem(v.String("fn"), v.Float("kappa"))
	x0 := v.Vector("x0")
	s := &gdSim{
		prob:   prob,
		lr:     v.Float("lr"),
		method: optim.Method(v.String("method")),
		x0:     x0,
		gap:    sims.NewTrace(0, 1),
		path:   sims.NewTrace(0, 2),
	}
	d, err := optim.NewDescent(prob, x0, optim.DescentConfig{
		Method: s.method, LR: s.lr, Beta: v.Float("beta"), Tol: v.Float("tol"),
	})
	if err != nil {
		return nil, err
	}
	s.d = d
	s.r0sq = math.Inf(1)
	for _, m := range prob.Minima {
		dx, dy := x0[0]-m[0], x0[1]-m[1]
		s.r0sq = math.Min(s.r0sq, dx*dx+dy*dy)
	}
	if s.method == optim.GD && prob.M > 0 {
		s.gamma, s.bound = optim.StronglyConvexRate(prob.M, prob.L, s.lr)
	}
	r := prob.Region
	s.view = sims.Rect{XMin: r[0], XMax: r[1], YMin: r[2], YMax: r[3]}
	// Widen the window to hold a start outside the standard region.
	s.view.XMin, s.view.XMax = math.Min(s.view.XMin, x0[0]-0.2), math.Max(s.view.XMax, x0[0]+0.2)
	s.view.YMin, s.view.YMax = math.Min(s.view.YMin, x0[1]-0.2), math.Max(s.view.YMax, x0[1]+0.2)
	s.heat = sims.SampleGrid(s.view, 160, 80, func(x, y float64) float64 {
		return math.Log10(prob.Func([]float64{x, y}) - prob.FStar + 1e-3)
	})
	s.heat.Levels = 14
	s.record()
	return s, nil
}

func (s *gdSim) record() {
	x := s.d.X()
	s.gap.Add(s.d.F() - s.prob.FStar)
	s.path.Add(x[0], x[1])
}

func (s *gdSim) Step() error {
	err := s.d.Step()
	if err == nil {
		s.record()
	}
	return err
}

// boundAt is Theorem 8.7's right-hand side γ^k (L/2)‖x0 − x*‖².
func (s *gdSim) boundAt(k int) float64 {
	return math.Pow(s.gamma, float64(k)) * s.prob.L / 2 * s.r0sq
}

func (s *gdSim) Frame() sims.Frame {
	x := s.d.X()
	x0, x1 := s.gap.Span()
	series := []sims.Series{{Name: "f−f*", Y: s.gap.Column(0), Class: 0}}
	if s.bound {
		series = append(series, sims.Series{Name: "Thm 8.7 bound", Y: s.gap.Map(s.boundAt), Class: 1, Bound: true})
	}
	px, py := s.path.Column(0), s.path.Column(1)
	// Orange path and iterate, pink minima: both stand out on the dimmed
	// viridis field.
	markers := []sims.Marker{{X: s.x0[0], Y: s.x0[1], Glyph: '○', Class: 1}}
	for _, m := range s.prob.Minima {
		markers = append(markers, sims.Marker{X: m[0], Y: m[1], Glyph: '★', Class: 3})
	}
	markers = append(markers, sims.Marker{X: x[0], Y: x[1], Glyph: '●', Class: 1})
	return sims.Frame{
		Sim:  "gd",
		Step: s.d.Iter(),
		Metrics: []sims.Metric{
			{Name: "f", Value: s.d.F()},
			{Name: "grad_norm", Value: s.d.GradNorm()},
			{Name: "gap", Value: s.d.F() - s.prob.FStar},
		},
		Charts: []sims.Chart{
			sims.LineChart{Title: "f(x_k) − f*", Series: series, LogY: true, X0: x0, X1: x1, XLabel: "step k"},
			sims.CanvasChart{
				Title: s.prob.Name + " contours and iterate path",
				View:  s.view, Heat: s.heat,
				Paths:   []sims.Path{{X: px, Y: py, Class: 1}},
				Markers: markers,
				XLabel:  "x", YLabel: "y",
			},
		},
		Text: s.notes(),
	}
}

// notes explains which theory applies to the current settings.
func (s *gdSim) notes() []string {
	p := s.prob
	if p.M == 0 {
		return []string{fmt.Sprintf("%s is not convex (or not L-smooth): no global rate applies; watch ‖∇f‖.", p.Name)}
	}
	line := fmt.Sprintf("m = %g, L = %g, t = %.3g = %.3g/L.", p.M, p.L, s.lr, s.lr*p.L)
	switch {
	case s.method != optim.GD:
		return []string{line, "Theorem 8.7 is stated for plain GD (method=gd)."}
	case s.bound:
		return []string{line, fmt.Sprintf("Thm 8.7: f−f* ≤ γ^k (L/2)‖x0−x*‖², γ = 1 − 2tmL/(m+L) = %.4f.", s.gamma)}
	case s.lr >= 2/p.L:
		return []string{line, "t ≥ 2/L: GD diverges on this quadratic."}
	default:
		return []string{line, fmt.Sprintf("Thm 8.7 needs t ≤ 2/(m+L) = %.3g: no bound drawn.", 2/(p.M+p.L))}
	}
}

func (s *gdSim) Result() map[string]any {
	return map[string]any{
		"x":         append([]float64(nil), s.d.X()...),
		"f":         s.d.F(),
		"grad_norm": s.d.GradNorm(),
		"steps":     s.d.Iter(),
	}
}
