package optimsim

import (
	"fmt"
	"math"

	"github.com/thelab/lab/algo/optim"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// duality's parameters.
var (
	dualA   = param.Float("a", 0, "the objective's minimiser: f(w) = (w − a)²").Range(-3, 3)
	dualC   = param.Float("c", 1, "the constraint w ≥ c, i.e. g(w) = c − w ≤ 0: active when c > a").Range(-3, 3)
	dualEta = param.Float("eta", 0.2,
		"dual step η: α − α* shrinks by 1 − η/2 a step; η > 2 overshoots, η > 4 never settles").Range(0, 5).OpenMin()
	dualAlpha0 = param.Float("alpha0", 0, "the starting multiplier α₀ ≥ 0").Range(0, 10)
	dualTol    = param.Float("tol", 1e-10, "stop when a step moves α by at most tol").Range(0, 1)
)

// Duality is projected dual ascent on the toy of seed 003's duality
// interlude, min (w − a)² subject to w ≥ c (the notes': a = 0, c = 1):
// the dual function θ_D(α) climbing to the primal optimum p* (weak
// duality below it, strong duality at α*), and the Lagrangian L(·, α)
// whose minimiser w(α) walks to the constrained optimum.
var Duality = &sims.Spec{
	Name:   "duality",
	Title:  "Lagrangian duality: dual ascent on θ_D(α) up to p*, min (w − a)² s.t. w ≥ c, and KKT",
	Source: "seed 003 L488–681 (generalised Lagrangian L580, θ_P L600, θ_D L614, weak duality L625, strong duality L644, KKT L665)",
	Steps:  2000,
	// 220 steps to the tolerance at the default η: 44 s, the gap visible
	// closing in the first ten.
	Speed:   5,
	Replay:  sims.ReplayPause,
	Params:  param.List(dualA, dualC, dualEta, dualAlpha0, dualTol),
	Metrics: dualityMetrics,
	// The gap's Trace and its Frame copy; the fixed curves of the two
	// charts within a measured base.
	Size: func(sims.Config) int64 { return sims.TraceBytes(1) + 24<<10 },
	New:  newDuality,
}

// dualityCurve is the number of points of the drawn curves.
const dualityCurve = 161

type dualitySim struct {
	d               *optim.DualAscent
	wStar, pStar    float64
	alphaStar       float64
	gaps            *sims.Trace
	c               float64 // the bound w ≥ c
	dualView, wView sims.Rect
	alphaX, dualY   []float64 // θ_D on its view
	wX, fY          []float64 // f on its view
}

func newDuality(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	a, c := dualA.Get(v), dualC.Get(v)
	d, err := optim.NewDualAscent(a, c, dualEta.Get(v), dualAlpha0.Get(v), dualTol.Get(v))
	if err != nil {
		return nil, err
	}
	s := &dualitySim{d: d, c: c, gaps: sims.NewTrace(0, 1)}
	s.wStar, s.pStar, s.alphaStar = d.Optimum()
	s.record()
	// θ_D on α ∈ [0, αmax]: past α* and α₀, and past the cycle 0 ↔ η(c−a)
	// a large η falls into.
	amax := math.Max(1, math.Max(1.6*s.alphaStar, 1.2*dualAlpha0.Get(v)))
	if eta := dualEta.Get(v); eta > 4 {
		amax = math.Max(amax, 1.1*eta*math.Max(c-a, 0))
	}
	s.alphaX, s.dualY = make([]float64, dualityCurve), make([]float64, dualityCurve)
	lo, hi := math.Min(0, s.pStar), math.Max(0, s.pStar)
	for i := range s.alphaX {
		al := amax * float64(i) / (dualityCurve - 1)
		s.alphaX[i], s.dualY[i] = al, d.Dual(al)
		lo = math.Min(lo, s.dualY[i])
	}
	pad := 0.08 * math.Max(hi-lo, 0.5)
	s.dualView = sims.Rect{XMin: 0, XMax: amax, YMin: lo - pad, YMax: hi + pad}
	// f and L(·, α) on w around a, c and every w(α) the α axis reaches,
	// up to a few times p*: the curves leave the view where they climb
	// away from what the lesson is about.
	w0 := math.Min(a, c) - 1
	w1 := math.Max(math.Max(a, c), d.W(amax)) + 0.5
	s.wX, s.fY = make([]float64, dualityCurve), make([]float64, dualityCurve)
	for i := range s.wX {
		w := w0 + (w1-w0)*float64(i)/(dualityCurve-1)
		s.wX[i], s.fY[i] = w, d.F(w)
	}
	s.wView = sims.Rect{XMin: w0, XMax: w1, YMin: lo - pad, YMax: 2.5 * math.Max(s.pStar, 1)}
	return s, nil
}

// record adds the duality gap to its trace, floored at the rounding
// noise of p*.
func (s *dualitySim) record() {
	s.gaps.Add(sims.NoiseFloor(s.pStar-s.d.Dual(s.d.Alpha()), math.Max(s.pStar, 1)))
}

func (s *dualitySim) Step() error {
	err := s.d.Step()
	s.record()
	return err
}

func (s *dualitySim) Frame() sims.Frame {
	d := s.d
	al := d.Alpha()
	w := d.W(al)
	g := d.G(w)
	theta := d.Dual(al)
	lagr := make([]float64, len(s.wX))
	for i, x := range s.wX {
		lagr[i] = d.L(x, al)
	}
	flat := func(x0, x1, y float64) sims.Path {
		return sims.Path{X: []float64{x0, x1}, Y: []float64{y, y}, Class: 2, Dotted: true}
	}
	dual := sims.CanvasChart{
		Title: fmt.Sprintf("dual θ_D(α) = α(c−a) − α²/4 ≤ p* = %.4g", s.pStar), View: s.dualView,
		Paths: []sims.Path{{X: s.alphaX, Y: s.dualY, Class: 0}, flat(0, s.dualView.XMax, s.pStar)},
		Markers: []sims.Marker{
			{X: s.alphaStar, Y: s.pStar, Glyph: '★', Class: 2},
			{X: al, Y: theta, Glyph: '●', Class: 1},
		},
		Legend: []string{"θ_D(α)", "α_k", "p* (primal optimum)"},
		XLabel: "α", YLabel: "θ_D",
	}
	bound := sims.Path{X: []float64{s.c, s.c}, Y: []float64{s.wView.YMin, s.wView.YMax}, Class: 3, Dotted: true}
	primal := sims.CanvasChart{
		Title: fmt.Sprintf("f(w) = (w−a)² and L(w, α) = f + α(c−w) at α = %.3g", al), View: s.wView,
		Paths: []sims.Path{{X: s.wX, Y: s.fY, Class: 0}, {X: s.wX, Y: lagr, Class: 1}, bound},
		Markers: []sims.Marker{
			{X: s.wStar, Y: s.pStar, Glyph: '★', Class: 2},
			{X: w, Y: theta, Glyph: '●', Class: 1},
		},
		Legend: []string{"f", "L(·, α), its minimum w(α)", "w*", "w = c"},
		XLabel: "w", YLabel: "value",
	}
	x0, x1 := s.gaps.Span()
	gapChart := sims.LineChart{Title: "duality gap p* − θ_D(α_k) ≥ 0 (weak duality)", LogY: true, X0: x0, X1: x1, XLabel: "step",
		Series: []sims.Series{{Name: "gap", Y: s.gaps.Column(0), Class: 0}}}
	metrics := []sims.Metric{
		{Name: "α", Value: al},
		{Name: "w", Value: w},
		{Name: "θ_D", Value: theta},
		{Name: "p*", Value: s.pStar},
		{Name: "gap", Value: s.pStar - theta, Scale: math.Max(s.pStar, 1)},
		{Name: "g", Value: g, Scale: math.Max(math.Abs(d.G(d.W(0))), 1)},
		{Name: "α·g", Value: al * g, Scale: math.Max(s.alphaStar, 1)},
	}
	return sims.Frame{
		Sim:     Duality.Name,
		Step:    d.Steps(),
		Metrics: metrics,
		Charts:  []sims.Chart{dual, primal, gapChart},
		Text:    s.notes(al, g),
	}
}

func (s *dualitySim) notes(al, g float64) []string {
	active := fmt.Sprintf("the constraint is active at the optimum: α* = %.4g > 0 and g(w*) = 0", s.alphaStar)
	if s.alphaStar == 0 {
		active = "the constraint is inactive: α* = 0 and g(w*) < 0 — the unconstrained minimum is admissible"
	}
	kkt := "KKT at α_k: w = w(α) ✓"
	kkt += mark(g <= 1e-9, ", g(w) ≤ 0") + mark(al >= 0, ", α ≥ 0") + mark(math.Abs(al*g) <= 1e-9*math.Max(s.alphaStar, 1), ", α·g = 0")
	return []string{
		"L(w,α) = (w−a)² + α(c−w), w(α) = a + α/2 minimises it; one step α ← max(0, α + η g(w(α))), θ_D′(α) = g(w(α))",
		active + "; strong duality: max θ_D = p* (convex f, affine g)",
		kkt,
	}
}

// mark is a KKT condition with ✓ or ✗.
func mark(ok bool, what string) string {
	if ok {
		return what + " ✓"
	}
	return what + " ✗"
}

func (s *dualitySim) Result() map[string]any {
	al := s.d.Alpha()
	return map[string]any{
		"alpha":      al,
		"w":          s.d.W(al),
		"dual":       s.d.Dual(al),
		"p_star":     s.pStar,
		"w_star":     s.wStar,
		"alpha_star": s.alphaStar,
		"gap":        s.pStar - s.d.Dual(al),
	}
}
