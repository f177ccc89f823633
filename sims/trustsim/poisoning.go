package trustsim

import (
	"fmt"
	"github.com/thelab/lab/algo/tensor"
	"math"

	"github.com/thelab/lab/algo/poison"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// poisoning's parameters.
var (
	poN     = param.Int("n", 200, "clean examples, half of each class").Range(20, 5000)
	poSep   = param.Float("sep", 1, "class means ±sep·(1.5, 1), unit s.d. (classes a line through 0 separates have no logistic fit: refused)").Range(0.1, 4)
	poAngle = param.Float("angle", 60, "the target w is the clean fit rotated by this angle (degrees)…").Range(-180, 180)
	poScale = param.Float("scale", 1, "…and scaled by this factor").Range(0.1, 5)
	poMax   = param.Float("eps_max", 1, "the largest poisoning fraction ε_d; each step adds one poison copy (ε_d += 1/n)").
		Range(0.01, 5)
)

// Poisoning is Example 18.2 of seed 001 (L1599–L1617, [A36]) played out:
// an attacker adds ε_d·n copies of one crafted point to clean data so that
// a target logistic-regression parameter becomes the defender's retrained
// optimum; below ε_d = ⟨w, g(μ; w)⟩/W(1/e) no poison can do it.
var Poisoning = &sims.Spec{
	Name:   "poisoning",
	Title:  "Data poisoning: the reachability threshold W(1/e) for logistic regression, attacker against retraining",
	Source: "seed 001 §18 L1587–L1617 (Def 18.1, Example 18.2; [A36])",
	Steps:  400,
	Speed:  10,
	Params: param.List(poN, poSep, poAngle, poScale, poMax),
	New:    newPoisoning,
	Size:   poisoningSize,

	Metrics: poisoningMetrics,
}

// poisoningSize is, a point at a time, the points, their labels, the
// problem's signed copies and the Frame's coordinates (measured: 64
// bytes); and the trace of a row a poison copy, with the Frame's copies.
func poisoningSize(cfg sims.Config) int64 {
	v := cfg.Values
	n := poN.Get(v)
	rows := min(sims.TraceCap, max(1, int(math.Round(poMax.Get(v)*float64(n))))+1)
	return 24<<10 + 64*int64(n) + 8*sims.TraceCap*2 + 2*tensor.Alloc(rows)
}

type poisoningSim struct {
	p                    *poison.Problem
	x                    []float64 // the clean points (x, y pairs) and labels, for drawing
	labels               []int
	clean, target, w     []float64
	q                    []float64 // the poison point
	m, mMax              int       // copies added so far, and at the end
	threshold, gradTerm  float64   // Example 18.2's bound and ⟨w, g(μ; w)⟩
	reachable            bool
	trace                *sims.Trace // ε_d, ‖w − w_target‖
	view                 sims.Rect
	epsMax, lastDistance float64
}

func newPoisoning(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	n, sep := poN.Get(v), poSep.Get(v)
	rng := streamRNG(cfg.Seed, dataStream)
	s := &poisoningSim{x: make([]float64, 2*n), labels: make([]int, n), epsMax: poMax.Get(v)}
	z := make([]float64, 2*n)
	for i := range n {
		y := float64(2*(i%2) - 1)
		x0, x1 := y*1.5*sep+rng.NormFloat64(), y*sep+rng.NormFloat64()
		s.x[2*i], s.x[2*i+1], s.labels[i] = x0, x1, i%2
		z[2*i], z[2*i+1] = y*x0, y*x1
	}
	var err error
	if s.p, err = poison.NewProblem(z, n, 2); err != nil {
		return nil, err
	}
	s.clean = []float64{0, 0}
	s.p.Retrain(s.clean, make([]float64, 2), 0)
	if s.p.Separates(s.clean) {
		// No finite clean fit: its target and threshold would be those of
		// wherever the fit stopped (issue 28.3).
		return nil, fmt.Errorf("sep %g, n %d: the two classes are separable by a line through the origin, so logistic regression has no finite fit (w grows without bound) and no target to reach; lower sep or raise n",
			sep, n)
	}
	a, k := poAngle.Get(v)*math.Pi/180, poScale.Get(v)
	c, sn := math.Cos(a), math.Sin(a)
	s.target = []float64{k * (c*s.clean[0] - sn*s.clean[1]), k * (sn*s.clean[0] + c*s.clean[1])}
	g := make([]float64, 2)
	s.p.Grad(g, s.target)
	s.gradTerm = s.target[0]*g[0] + s.target[1]*g[1]
	s.threshold = s.p.Threshold(s.target)
	s.w = append([]float64(nil), s.clean...)
	s.q = make([]float64, 2)
	s.mMax = max(1, int(math.Round(s.epsMax*float64(n))))
	s.trace = sims.NewTrace(0, 2)
	s.lastDistance = s.distance()
	s.trace.Add(0, s.lastDistance)
	xs, ys := make([]float64, n), make([]float64, n)
	for i := range n {
		xs[i], ys[i] = s.x[2*i], s.x[2*i+1]
	}
	s.view = sims.Bounds(xs, ys).Pad(0.08)
	return s, nil
}

func (s *poisoningSim) distance() float64 {
	return math.Hypot(s.w[0]-s.target[0], s.w[1]-s.target[1])
}

func (s *poisoningSim) eps() float64 { return float64(s.m) / float64(s.p.N) }

// Step adds one poison copy: the attacker re-crafts its point for the new
// fraction and the defender retrains from its last fit.
func (s *poisoningSim) Step() error {
	if s.m >= s.mMax {
		return sims.ErrConverged
	}
	s.m++
	s.q, s.reachable = s.p.Attack(s.target, s.eps())
	s.p.Retrain(s.w, s.q, float64(s.m))
	s.lastDistance = s.distance()
	s.trace.Add(s.eps(), s.lastDistance)
	if s.m == s.mMax {
		return sims.ErrConverged
	}
	return nil
}

func (s *poisoningSim) Frame() sims.Frame {
	return sims.Frame{
		Sim: Poisoning.Name, Step: s.m,
		Metrics: []sims.Metric{
			{Name: "eps_d", Value: s.eps()},
			{Name: "threshold", Value: s.threshold},
			{Name: "distance", Value: s.lastDistance},
			{Name: "poison", Value: float64(s.m)},
			{Name: "reachable", Value: b2f(s.reachable)},
		},
		Charts: []sims.Chart{s.planeChart(), s.distanceChart()},
		Text:   s.notes(),
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// boundary is the line wᵀx = 0 across the view.
func boundary(w []float64, v sims.Rect, class int, dotted bool) sims.Path {
	r := 2 * math.Hypot(v.XMax-v.XMin, v.YMax-v.YMin)
	nw := math.Hypot(w[0], w[1])
	if nw == 0 {
		return sims.Path{Class: class}
	}
	dx, dy := -w[1]/nw*r, w[0]/nw*r
	return sims.Path{X: []float64{-dx, dx}, Y: []float64{-dy, dy}, Class: class, Dotted: dotted}
}

// planeChart draws the clean data, the clean boundary and the target's
// (dotted), the retrained boundary and the poison point (drawn at the
// view's edge when it lies beyond).
func (s *poisoningSim) planeChart() sims.CanvasChart {
	n := s.p.N
	ps := sims.PointSet{Name: "clean", X: make([]float64, n), Y: make([]float64, n), Classes: s.labels}
	for i := range n {
		ps.X[i], ps.Y[i] = s.x[2*i], s.x[2*i+1]
	}
	c := sims.CanvasChart{Title: "data, boundaries wᵀx = 0 and the poison ◆", View: s.view,
		Points: []sims.PointSet{ps}, Legend: []string{"y = −1", "y = +1", "clean", "target", "retrained"},
		Paths: []sims.Path{boundary(s.clean, s.view, 2, true), boundary(s.target, s.view, 3, true),
			boundary(s.w, s.view, 4, false)}}
	if s.m > 0 {
		qx := math.Min(math.Max(s.q[0], s.view.XMin), s.view.XMax)
		qy := math.Min(math.Max(s.q[1], s.view.YMin), s.view.YMax)
		c.Markers = append(c.Markers, sims.Marker{X: qx, Y: qy, Glyph: '◆', Class: 1})
	}
	return c
}

// distanceChart draws ‖w − w_target‖ against ε_d with the threshold as a
// dotted vertical line.
func (s *poisoningSim) distanceChart() sims.CanvasChart {
	d0 := s.trace.Column(1)
	hi := 0.0
	for _, d := range d0 {
		hi = math.Max(hi, d)
	}
	view := sims.Rect{XMin: 0, XMax: s.epsMax, YMin: 0, YMax: math.Max(hi, 1e-9) * 1.05}
	c := sims.CanvasChart{Title: "‖w − w_target‖ against ε_d", View: view, XLabel: "ε_d",
		Legend: []string{"distance", "threshold"},
		Paths:  []sims.Path{{X: s.trace.Column(0), Y: d0, Class: 0}}}
	if s.threshold <= s.epsMax {
		c.Paths = append(c.Paths, vline(s.threshold, 0, view.YMax, 1))
	}
	return c
}

func (s *poisoningSim) notes() []string {
	lines := []string{
		fmt.Sprintf("reachable needs ε_d ≥ ⟨w, g(μ; w)⟩₊/W(1/e) = %.4g/%.4g = %.4g",
			math.Max(s.gradTerm, 0), poison.WInvE, s.threshold),
		fmt.Sprintf("%d copies of q = cG, G = g(μ; w); short of it, wᵀq = t* = 1 + W(1/e)", s.m),
	}
	state := "below the threshold: no poison reaches the target; the retrained w stops short"
	if s.reachable {
		// the distance is a difference of two w of the target's size
		scale := math.Hypot(s.target[0], s.target[1])
		state = fmt.Sprintf("reachable: the retrained w is the target (distance %s)", sims.IsResidual("%.2g", s.lastDistance, scale))
	}
	if s.m == 0 {
		state = "no poison yet: the defender's fit is the clean one"
	}
	return append(lines, fmt.Sprintf("ε_d = %.3g: %s", s.eps(), state))
}

func (s *poisoningSim) Result() map[string]any {
	return map[string]any{
		"eps_d": s.eps(), "threshold": s.threshold, "distance": s.lastDistance, "reachable": s.reachable,
		"clean_w": s.clean, "target_w": s.target, "w": append([]float64(nil), s.w...), "poison_point": s.q,
		"poison_copies": s.m,
	}
}
