package optimsim

import (
	"fmt"
	"math"

	"github.com/thelab/lab/algo/optim"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// majorise's parameters.
var (
	majFn = param.Choice("fn", []optim.Scalar{optim.ScalarQuadratic, optim.ScalarLogCosh, optim.ScalarWavy}, optim.ScalarWavy,
		"quadratic ½c x² (m = L = c); logcosh log cosh x (convex, L = 1, m = 0); wavy ½x² + a sin²x (non-convex for a > ½, L = 1 + 2a)")
	majC  = param.Float("c", 2, "curvature c of the quadratic").Range(0.1, 10)
	majA  = param.Float("a", 4, "amplitude a of wavy: a = 4 has local minima at ±2.7607").Range(0, 10)
	majX0 = param.Float("x0", 3, "starting point").Range(-8, 8)
	majLR = param.Float("lr", 0.1,
		"step size t: t ≤ 1/L makes g a majoriser; 1/L < t < 2/L still converges on the quadratic; t > 2/L diverges there").
		Range(0, 20).OpenMin().
		DefaultFunc(func(v param.Values) float64 { return param.Sig(1/scalarProblem(v).L, 6) }, "1/L of the chosen function")
	majTol = param.Float("tol", 1e-10, "stop when |f′(x)| ≤ tol").Range(0, 1)
)

// Majorise shows gradient descent as majorisation–minimisation (seed 001
// §8, L773–L785; Definitions 8.3, 8.4, 8.6; the descent lemma ★, L827):
// each step minimises the quadratic model g of f at the iterate, which lies
// above f when t ≤ 1/L. The pane draws f, the tangent line (a lower bound
// exactly when f is convex), the model and its minimiser, and checks the
// descent lemma step by step.
var Majorise = &sims.Spec{
	Name:   "majorise",
	Title:  "GD as majorisation: f, its tangent and the quadratic model at x_k",
	Source: "seed 001 §8 L773–L827 (model, Defs 8.3, 8.4, 8.6, descent lemma, Thms 8.5, 8.7, 8.8)",
	Steps:  200,
	Speed:  1,
	// A short story (GD reaches the minimum in eighteen steps: then again).
	Replay: sims.ReplayPause,
	Params: param.List(majFn, majC, majA, majX0, majLR, majTol),
	New:    newMajorise,
	// The two Traces (f − f* and the best |f′|), and in a Frame their
	// copies with three bounds beside them, all of at most sims.TraceCap
	// rows; the curves on fixed grids within a measured base.
	Size: func(sims.Config) int64 { return 8*sims.TraceCap*(2+5) + 4<<10 },

	Metrics: majoriseMetrics,
}

// scalarProblem is the 1-D problem the parameters name.
func scalarProblem(v param.Values) *optim.Problem {
	fn := majFn.Get(v)
	c := majA.Get(v)
	if fn == optim.ScalarQuadratic {
		c = majC.Get(v)
	}
	return optim.NewScalarProblem(fn, c)
}

// majoriseCurve is the number of points of the drawn curves.
const majoriseCurve = 241

type majoriseSim struct {
	p     *optim.Problem
	fn    optim.Scalar
	m     *optim.Majorise
	t, x0 float64
	view  sims.Rect
	xs    []float64 // curve abscissae
	fs    []float64 // f on xs (fixed)
	gap   *sims.Trace
	grads *sims.Trace
	best  float64
	r0sq  float64
	gap0  float64
	b85   bool
	b87   bool
	b88   bool
}

func newMajorise(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	p := scalarProblem(v)
	x0, t := majX0.Get(v), majLR.Get(v)
	lo, hi := math.Min(p.Region[0], x0-0.5), math.Max(p.Region[1], x0+0.5)
	m, err := optim.NewMajorise(p, x0, t, lo, hi, majTol.Get(v))
	if err != nil {
		return nil, err
	}
	s := &majoriseSim{p: p, fn: majFn.Get(v), m: m, t: t, x0: x0,
		xs: make([]float64, majoriseCurve), fs: make([]float64, majoriseCurve),
		gap: sims.NewTrace(0, 1), grads: sims.NewTrace(0, 1), best: math.Inf(1)}
	ymin, ymax := math.Inf(1), math.Inf(-1)
	for i := range s.xs {
		s.xs[i] = lo + (hi-lo)*float64(i)/(majoriseCurve-1)
		s.fs[i] = m.F(s.xs[i])
		ymin, ymax = math.Min(ymin, s.fs[i]), math.Max(ymax, s.fs[i])
	}
	span := ymax - ymin
	s.view = sims.Rect{XMin: lo, XMax: hi, YMin: ymin - 0.25*span, YMax: ymax + 0.1*span}
	s.r0sq = (x0 - p.Minima[0][0]) * (x0 - p.Minima[0][0])
	s.gap0 = m.FX() - p.FStar
	if p.Convex {
		_, s.b85 = optim.ConvexBound(p.L, t, s.r0sq, 1)
		if p.M > 0 {
			_, s.b87 = optim.StronglyConvexBound(p.M, p.L, t, s.r0sq, 0)
		}
	} else {
		_, s.b88 = optim.NonConvexBound(p.L, t, s.gap0, 0)
	}
	s.record()
	return s, nil
}

func (s *majoriseSim) record() {
	s.gap.Add(s.m.FX() - s.p.FStar)
	s.best = math.Min(s.best, math.Abs(s.m.Model().D))
	s.grads.Add(s.best)
}

func (s *majoriseSim) Step() error {
	if err := s.m.Step(); err != nil {
		return err
	}
	s.record()
	return nil
}

// segments returns the parts of the curve y(x) on xs where bad holds, as
// paths of the class.
func segments(xs []float64, y func(float64) float64, bad func(i int, y float64) bool, class int) []sims.Path {
	var out []sims.Path
	var cur *sims.Path
	for i, x := range xs {
		yi := y(x)
		if !bad(i, yi) {
			cur = nil
			continue
		}
		if cur == nil {
			out = append(out, sims.Path{Class: class})
			cur = &out[len(out)-1]
		}
		cur.X, cur.Y = append(cur.X, x), append(cur.Y, yi)
	}
	return out
}

func (s *majoriseSim) Frame() sims.Frame {
	q := s.m.Model()
	n := len(s.xs)
	gy, ty := make([]float64, n), make([]float64, n)
	for i, x := range s.xs {
		gy[i], ty[i] = q.At(x), q.Tangent(x)
	}
	// Tolerance for "below": rounding of f and the model near x.
	tol := 1e-9 * math.Max(1, math.Abs(q.F))
	paths := []sims.Path{
		{X: s.xs, Y: s.fs, Class: 0},
		{X: s.xs, Y: ty, Class: 2, Dotted: true},
		{X: s.xs, Y: gy, Class: 1},
	}
	paths = append(paths, segments(s.xs, q.At, func(i int, y float64) bool { return y < s.fs[i]-tol }, 3)...)
	paths = append(paths, segments(s.xs, q.Tangent, func(i int, y float64) bool { return y > s.fs[i]+tol }, 3)...)
	xp := q.Argmin()
	markers := []sims.Marker{
		{X: s.p.Minima[0][0], Y: s.p.FStar, Glyph: '★', Class: 4},
		{X: xp, Y: q.Min(), Glyph: '◆', Class: 1},
		{X: q.X, Y: q.F, Glyph: '●', Class: 1},
	}
	x0, x1 := s.gap.Span()
	series := []sims.Series{{Name: "f−f*", Y: s.gap.Column(0), Class: 0}}
	if s.b87 {
		series = append(series, sims.Series{Name: "Thm 8.7 bound", Y: s.gap.Map(func(k int) float64 {
			b, _ := optim.StronglyConvexBound(s.p.M, s.p.L, s.t, s.r0sq, k)
			return b
		}), Class: 1, Bound: true})
	}
	if s.b85 {
		series = append(series, sims.Series{Name: "Thm 8.5 bound", Y: s.gap.Map(func(k int) float64 {
			b, _ := optim.ConvexBound(s.p.L, s.t, s.r0sq, max(k, 1))
			return b
		}), Class: 3, Bound: true})
	}
	charts := []sims.Chart{
		sims.CanvasChart{Title: "f, tangent, model g at x_k", View: s.view, Paths: paths, Markers: markers,
			Legend: []string{"f", "model g", "tangent", "g<f, tan>f"}, XLabel: "x", YLabel: "f"},
		sims.LineChart{Title: "f(x_k) − f*", Series: series, LogY: true, X0: x0, X1: x1, XLabel: "step k"},
	}
	if !s.p.Convex {
		gs := []sims.Series{{Name: "min |f′|", Y: s.grads.Column(0), Class: 0}}
		if s.b88 {
			gs = append(gs, sims.Series{Name: "Thm 8.8 bound", Y: s.grads.Map(func(k int) float64 {
				b, _ := optim.NonConvexBound(s.p.L, s.t, s.gap0, k)
				return b
			}), Class: 1, Bound: true})
		}
		charts = append(charts, sims.LineChart{Title: "min_{i≤k} |f′(x_i)|", Series: gs, LogY: true, X0: x0, X1: x1, XLabel: "step k"})
	}
	_, gapMin, _ := s.m.Majorises()
	return sims.Frame{
		Sim:  Majorise.Name,
		Step: s.m.Iter(),
		Metrics: []sims.Metric{
			{Name: "x", Value: s.m.X()},
			{Name: "f", Value: s.m.FX()},
			{Name: "grad", Value: q.D},
			sims.MetricOr("model_gap", gapMin, "g − f is not finite on the grid: the model or f overflows there"),
			{Name: "lemma_fails", Value: float64(s.m.LemmaFailures())},
		},
		Charts: charts,
		Text:   s.notes(),
	}
}

// describe is the function with its curvature facts.
func (s *majoriseSim) describe() string {
	p := s.p
	switch {
	case s.fn == optim.ScalarQuadratic:
		return fmt.Sprintf("f = ½·%.3g·x²: m = L = %.3g", p.L, p.L)
	case s.fn == optim.ScalarLogCosh:
		return "f = log cosh x: f″ = sech²x ∈ (0, 1], convex, L = 1, m = 0"
	case p.Convex:
		return fmt.Sprintf("f = ½x² + %.3g sin²x: f″ ∈ [%.3g, %.3g], convex", (p.L-1)/2, p.M, p.L)
	}
	return fmt.Sprintf("f = ½x² + %.3g sin²x: f″ ∈ [%.3g, %.3g], not convex, L = %.3g (E8)", (p.L-1)/2, 2-p.L, p.L, p.L)
}

func (s *majoriseSim) notes() []string {
	q := s.m.Model()
	L := s.p.L
	lines := []string{
		fmt.Sprintf("%s; t = %.3g = %.3g/L", s.describe(), s.t, s.t*L),
		fmt.Sprintf("g(y) = f(x) + f′(x)(y−x) + (y−x)²/2t; ◆ x⁺ = argmin g = x − t f′(x) = %.4g", q.Argmin()),
	}
	if ok, gap, at := s.m.Majorises(); ok {
		lines = append(lines, "g ≥ f on the window: a majoriser (t ≤ 1/L guarantees it, Def 8.4)")
	} else {
		lines = append(lines, fmt.Sprintf("g < f at y = %.3g (by %.3g): t > 1/L, g is no majoriser", at, -gap))
	}
	fnext := s.m.F(q.Argmin())
	mark, rel := "✓", "≥"
	if fnext > q.Min()+1e-12*math.Max(1, math.Abs(q.Min())) {
		mark, rel = "✗", "<"
	}
	lines = append(lines, fmt.Sprintf("lemma ★: f(x⁺) = %.5g ≤ f − (t/2)f′² = %.5g %s (drop %.3g %s %.3g)",
		fnext, q.Min(), mark, q.F-fnext, rel, q.F-q.Min()))
	if ok, ex, at := s.m.TangentBelow(); ok {
		lines = append(lines, "tangent ≤ f on the window: Def 8.3's inequality (convex)")
	} else {
		lines = append(lines, fmt.Sprintf("tangent > f near y = %.3g (by %.3g): not convex, no lower bound", at, ex))
	}
	switch {
	case s.fn == optim.ScalarQuadratic && s.t > 2/L:
		lines = append(lines, fmt.Sprintf("t > 2/L: x⁺ = (1 − tc)x, |1 − tc| = %.3g > 1: GD diverges", math.Abs(1-s.t*L)))
	case s.b87:
		g, _ := optim.StronglyConvexRate(s.p.M, L, s.t)
		lines = append(lines, fmt.Sprintf("Thm 8.7: f−f* ≤ γ^k(L/2)(x0−x*)², γ = 1−2tmL/(m+L) = %.3g (E9)", g))
	case s.b85:
		lines = append(lines, "Thm 8.5: f(x_k) − f* ≤ (x0 − x*)²/(2tk)")
	case s.b88:
		lines = append(lines, "Thm 8.8: min|f′| ≤ √(2(f(x0)−f*)/(t(k+1))); may stop at a local min")
	default:
		lines = append(lines, "t is outside every theorem's range: no bound drawn")
	}
	return lines
}

func (s *majoriseSim) Result() map[string]any {
	fx, b := s.m.Lemma()
	r := map[string]any{
		"x":              s.m.X(),
		"f":              s.m.FX(),
		"grad":           s.m.Model().D,
		"steps":          s.m.Iter(),
		"lemma_fails":    s.m.LemmaFailures(),
		"last_f_next":    fx,
		"last_lemma_rhs": b,
	}
	if math.IsNaN(fx) { // Lemma's NaN before the first step
		// null with its reason, not a 0 that reads as a value
		r["last_f_next"], r["last_lemma_rhs"] = nil, nil
		r["undefined"] = map[string]string{"last_f_next": "no step taken yet", "last_lemma_rhs": "no step taken yet"}
	}
	return r
}
