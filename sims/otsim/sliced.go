package otsim

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/ot"
	"github.com/thelab/lab/algo/ot/lp"
	"github.com/thelab/lab/algo/ot/sliced"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// Sliced is the sliced Wasserstein distance between two clouds in the
// plane (Rabin et al. 2011; Bonneel et al. 2015; POT's
// ot.sliced_wasserstein_distance): each step draws a direction θ, projects
// both clouds on it and matches the sorted projections (1-D OT in closed
// form, seed 002 §5.4 Corollary 1), and the running mean of the costs
// W_p^p(θ#μ, θ#ν) estimates SW_p^p = E_θ W_p^p(θ#μ, θ#ν) with a ±2 s.e.
// band closing like 1/√k. In the plane a direction is an angle, so the
// whole function φ ↦ W_p^p(θ_φ#μ, θ_φ#ν) is drawn, and its mean by
// quadrature is the value the estimate converges to; every slice is below
// W_p^p (the LP's, on small clouds), and SW_p^p ≤ c_{2,p} W_p^p.
var Sliced = &sims.Spec{
	Name:  "sliced",
	Title: "Sliced Wasserstein: random directions, sorted 1-D matchings, a Monte Carlo estimate with its band",
	Source: "Rabin, Peyré, Delon & Bernot 2011 §3, Bonneel et al. 2015 §2 (POT's ot.sliced_wasserstein_distance); " +
		"1-D OT by sorting: seed 002 §5.4 (Corollary 1, L2179–2220)",
	Data:     dataNote + " (sliced: points in the plane, columns x,y)",
	DataText: []sims.TextColumn{sideColumn},
	Steps:    1000,
	Speed:    5,
	// By 300 directions (a minute at 5 a second) the band is a few per
	// cent of the estimate and holds the quadrature value.
	Famous:  300,
	Params:  param.List(slProblem, slBatch),
	New:     newSliced,
	Size:    slicedSize,
	Metrics: slicedMetrics,
}

// slMaxAtoms bounds each side: the cost matrix of the LP's reference (and
// of load) is n×m.
const slMaxAtoms = 1000

// slAngles is the number of angles of [0, π) at which the exact curve
// φ ↦ W_p^p(θ_φ#μ, θ_φ#ν) is evaluated: its mean is the quadrature value
// of SW_p^p (the trapezoid rule on a periodic function).
const slAngles = 360

// slRecent is the number of the latest directions drawn on the curve.
const slRecent = 400

// slPairs is the most matched pairs the plane draws (spread evenly over
// the quantile levels).
const slPairs = 24

var (
	slPresets = []preset{preMixtures, preGaussians, preBoxes, preMoonsRing}
	slProblem = problemParams{
		Preset: param.Choice("preset", slPresets, preMixtures, presetHelp(slPresets)).BuiltInData(),
		N:      param.Int("n", 100, "source atoms").Range(1, slMaxAtoms).BuiltInData(),
		M:      param.Int("m", 100, "target atoms").Range(1, slMaxAtoms).BuiltInData(),
		P: param.Float("p", 2, "the exponent of the cost |s − t|^p on each line: the sim estimates SW_p^p = E_θ W_p^p(θ#μ, θ#ν)").
			Range(ot.MinP, ot.MaxP),
	}
	slBatch = param.Int("batch", 1, "directions drawn a step (the plane shows the last)").Range(1, 1000)
)

// slDrawn is the most points of the estimate's curve and band a Frame
// draws: the trace's rows, thinned.
const slDrawn = 256

// slicedSize is the problem (its n×m cost for the LP) and its layout, the
// engine, the curve over the angles, the recent directions (and the
// Frame's copies), the trace of the estimate and its band (allocated
// whole) with the thinned curve and band a Frame draws, and the Frame's
// projections and pairs. The LP is garbage once solved.
func slicedSize(cfg sims.Config) int64 {
	n, m, _ := slProblem.atoms(cfg)
	return int64(slBase) + problemBytes(n, m, 2) + sliced.Footprint(n, m, 2) +
		2*8*(slAngles+1) + 4*8*slRecent + 8*3*sims.TraceCap + 5*8*slDrawn +
		(16+24)*int64(n+m) + 96*slPairs
}

const slBase = 24 << 10

type slSim struct {
	p      *problem
	s      *sliced.Sliced
	l      layout
	cx, cy float64 // the clouds' joint centre, where the direction's line passes
	reach  float64 // the half-length of the direction's line
	trace  *sims.Trace
	curveX []float64 // angles, degrees
	curveY []float64 // W_p^p along them
	quad   float64   // the curve's mean: SW_p^p by quadrature
	lp     float64   // W_p^p by the LP, NaN when not solved
	lpNote string
	cdp    float64 // c_{2,p}
	recX   []float64
	recY   []float64 // the latest directions' angles and costs, a ring
	rec    int
	pairs  []sliced.Pair
}

func newSliced(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	p, err := slProblem.load(cfg, 0x736c_6963) // "slic"
	if err != nil {
		return nil, err
	}
	if p.Dim != 2 {
		return nil, fmt.Errorf("--data: sliced needs points in the plane (columns x,y and side); these have %d coordinate(s)", p.Dim)
	}
	if p.data && (p.N() > slMaxAtoms || p.M() > slMaxAtoms) {
		return nil, fmt.Errorf("--data: %d source and %d target atoms; sliced takes at most %d a side", p.N(), p.M(), slMaxAtoms)
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x7468_6574)) // "thet"
	s, err := sliced.New(p.X, p.Y, 2, p.Mu, p.Nu, sliced.Config{P: p.pow, Batch: slBatch.Get(v)}, rng)
	if err != nil {
		return nil, sims.Blame(err, v, sims.As("p", slProblem.P), sims.As("batch", slBatch))
	}
	sim := &slSim{p: p, s: s, l: newLayout(p), trace: sims.NewTrace(0, 3), lp: math.NaN(),
		cdp: sliced.MomentConstant(2, p.pow)}
	sim.centre()
	sim.curve()
	sim.solveLP()
	sim.record()
	return sim, nil
}

// centre puts the direction's line through the middle of the view, long
// enough to cross it.
func (s *slSim) centre() {
	v := s.l.view
	s.cx, s.cy = (v.XMin+v.XMax)/2, (v.YMin+v.YMax)/2
	s.reach = math.Hypot(v.XMax-v.XMin, v.YMax-v.YMin)
}

// curve evaluates W_p^p along slAngles angles of [0, π) (θ and −θ give
// the same cost) and their mean.
func (s *slSim) curve() {
	s.curveX, s.curveY = make([]float64, slAngles+1), make([]float64, slAngles+1)
	th := make([]float64, 2)
	sum := 0.0
	for k := range slAngles {
		phi := math.Pi * float64(k) / slAngles
		th[0], th[1] = math.Cos(phi), math.Sin(phi)
		c := s.s.Along(th)
		s.curveX[k], s.curveY[k] = 180*float64(k)/slAngles, c
		sum += c
	}
	s.curveX[slAngles], s.curveY[slAngles] = 180, s.curveY[0]
	s.quad = sum / slAngles
}

// solveLP runs the transportation simplex for W_p^p on up to skLPCells
// cells.
func (s *slSim) solveLP() {
	cells := s.p.N() * s.p.M()
	if cells > skLPCells {
		s.lpNote = fmt.Sprintf("no LP: W_p is solved exactly up to %d cells (these clouds have %d)", skLPCells, cells)
		return
	}
	x, err := lp.New(s.p.Mu, s.p.Nu, s.p.C)
	for err == nil {
		err = x.Step()
	}
	if !errors.Is(err, algo.ErrConverged) {
		s.lpNote = "no LP: " + err.Error()
		return
	}
	s.lp = x.Cost()
}

// record adds the estimate and its ±2 s.e. band to the trace, and the
// last direction to the recent ones.
func (s *slSim) record() {
	est, se := s.s.Estimate(), s.s.StdErr()
	s.trace.Add(est, est-2*se, est+2*se)
	if s.s.Directions() == 0 {
		return
	}
	th := s.s.Theta()
	phi := math.Atan2(th[1], th[0])
	if phi < 0 {
		phi += math.Pi
	}
	if phi >= math.Pi {
		phi -= math.Pi
	}
	x, y := 180*phi/math.Pi, s.s.Last()
	if len(s.recX) < slRecent {
		s.recX, s.recY = append(s.recX, x), append(s.recY, y)
	} else {
		s.recX[s.rec], s.recY[s.rec] = x, y
		s.rec = (s.rec + 1) % slRecent
	}
}

func (s *slSim) Step() error {
	if err := s.s.Step(); err != nil {
		return err
	}
	s.record()
	return nil
}

func (s *slSim) Frame() sims.Frame {
	charts := []sims.Chart{s.plane(), s.estimateChart(), s.curveChart()}
	est, se := s.s.Estimate(), s.s.StdErr()
	metrics := []sims.Metric{
		{Name: "directions", Value: float64(s.s.Directions())},
		sims.MetricOr("SW_p^p", est, "no direction drawn yet"),
		sims.MetricOr("s.e.", se, "fewer than two directions"),
		sims.MetricOr("max-sliced", s.s.Max(), "no direction drawn yet"),
		{Name: "quadrature", Value: s.quad},
		sims.MetricOr("W_p^p", s.lp, s.lpWhy()),
	}
	return sims.Frame{Sim: Sliced.Name, Step: s.s.Steps(), Metrics: metrics, Charts: charts, Text: s.notes()}
}

func (s *slSim) lpWhy() string {
	if s.lpNote != "" {
		return s.lpNote
	}
	return "not solved"
}

// plane draws the clouds, the last direction as a line through the
// centre, the projections' feet on it and the monotone coupling of the
// projections as segments between the matched points.
func (s *slSim) plane() sims.CanvasChart {
	c := sims.CanvasChart{Title: "clouds, direction θ, its sorted matching", View: s.l.view, XLabel: "x", YLabel: "y",
		Legend: []string{"μ", "ν", "matched", "θ"}}
	c.Points = s.l.points()
	if s.s.Directions() == 0 {
		return c
	}
	th := s.s.Theta()
	c.Paths = append(c.Paths, sims.Path{X: []float64{s.cx - s.reach*th[0], s.cx + s.reach*th[0]},
		Y: []float64{s.cy - s.reach*th[1], s.cy + s.reach*th[1]}, Class: classMark})
	foot := func(x, y []float64, class int, name string) sims.PointSet {
		ps := sims.PointSet{Name: name, X: make([]float64, len(x)), Y: make([]float64, len(y)), Class: class}
		for i := range x {
			t := (x[i]-s.cx)*th[0] + (y[i]-s.cy)*th[1]
			ps.X[i], ps.Y[i] = s.cx+t*th[0], s.cy+t*th[1]
		}
		return ps
	}
	c.Points = append(c.Points, foot(s.l.xs, s.l.ys, classSource, "θ#μ"), foot(s.l.xt, s.l.yt, classTarget, "θ#ν"))
	s.pairs = s.s.Coupling(s.pairs[:0])
	step := max(1, len(s.pairs)/slPairs)
	for k := step / 2; k < len(s.pairs); k += step {
		q := s.pairs[k]
		c.Paths = append(c.Paths, sims.Path{X: []float64{s.l.xs[q.I], s.l.xt[q.J]}, Y: []float64{s.l.ys[q.I], s.l.yt[q.J]},
			Class: classPlan, Dotted: true})
	}
	return c
}

// estimateChart is the running estimate with its ±2 s.e. band against the
// quadrature value and W_p^p by the LP.
func (s *slSim) estimateChart() sims.CanvasChart {
	est, lo, hi, xs := s.thinned()
	x1 := xs[len(xs)-1]
	k := len(est)
	top := s.quad
	if !math.IsNaN(s.lp) {
		top = math.Max(top, s.lp)
	}
	// the view: from 0 to above the references and the band after the
	// first few directions (the band of two directions is wide)
	for j := range est {
		if xs[j]*float64(s.s.Batch()) >= 5 && !math.IsNaN(hi[j]) {
			top = math.Max(top, hi[j])
		}
	}
	top *= 1.1
	var band sims.Band
	for j := range est {
		if !math.IsNaN(lo[j]) {
			band.X = append(band.X, xs[j])
			band.Lo, band.Hi = append(band.Lo, math.Max(lo[j], 0)), append(band.Hi, math.Min(hi[j], top))
		}
	}
	xmax := math.Max(x1, 10)
	c := sims.CanvasChart{Title: "SW_p^p ± 2 s.e. and W_p^p", XLabel: "directions", YLabel: "cost",
		View:   sims.Rect{XMin: 0, XMax: xmax, YMin: 0, YMax: top},
		Legend: []string{"SW_p^p ± 2 s.e.", "W_p^p (LP)", "quadrature"}}
	if len(band.X) > 1 {
		c.Bands = []sims.Band{band}
	}
	c.Paths = []sims.Path{{X: []float64{0, xmax}, Y: []float64{s.quad, s.quad}, Class: classPlan, Dotted: true}}
	if !math.IsNaN(s.lp) {
		c.Paths = append(c.Paths, sims.Path{X: []float64{0, xmax}, Y: []float64{s.lp, s.lp}, Class: classTarget, Dotted: true})
	} else {
		c.Legend = []string{"SW_p^p ± 2 s.e.", "", "quadrature"}
	}
	if k > 1 {
		c.Paths = append(c.Paths, sims.Path{X: xs[1:], Y: est[1:], Class: classSource})
	}
	if b := s.s.Batch(); b > 1 {
		c.XLabel = fmt.Sprintf("steps of %d directions", b)
	}
	return c
}

// thinned returns the trace's estimate, band and their x (directions, or
// steps of a batch), every stride-th row so that at most slDrawn are
// drawn, and always the last.
func (s *slSim) thinned() (est, lo, hi, xs []float64) {
	e, l, h := s.trace.Column(0), s.trace.Column(1), s.trace.Column(2)
	x0, x1 := s.trace.Span()
	k := len(e)
	stride := max(1, (k+slDrawn-1)/slDrawn)
	at := func(j int) float64 {
		if k == 1 {
			return x0
		}
		return x0 + (x1-x0)*float64(j)/float64(k-1)
	}
	for j := 0; j < k; j += stride {
		est, lo, hi, xs = append(est, e[j]), append(lo, l[j]), append(hi, h[j]), append(xs, at(j))
	}
	if (k-1)%stride != 0 {
		est, lo, hi, xs = append(est, e[k-1]), append(lo, l[k-1]), append(hi, h[k-1]), append(xs, at(k-1))
	}
	return est, lo, hi, xs
}

// curveChart is φ ↦ W_p^p(θ_φ#μ, θ_φ#ν) over [0°, 180°), the latest
// directions drawn on it, the current one marked, and its mean.
func (s *slSim) curveChart() sims.CanvasChart {
	top := 1.1 * maxOf(s.curveY)
	c := sims.CanvasChart{Title: "W_p^p(θ) by angle, directions drawn", XLabel: "angle of θ, degrees", YLabel: "W_p^p(θ)",
		View:   sims.Rect{XMin: 0, XMax: 180, YMin: 0, YMax: top},
		Legend: []string{"drawn", "", "W_p^p(θ)", "last"},
		Paths: []sims.Path{
			{X: s.curveX, Y: s.curveY, Class: classPlan},
		}}
	if len(s.recX) > 0 {
		c.Points = []sims.PointSet{{Name: "drawn", X: append([]float64(nil), s.recX...), Y: append([]float64(nil), s.recY...), Class: classSource}}
		last := (s.rec + len(s.recX) - 1) % len(s.recX)
		c.Markers = []sims.Marker{{X: s.recX[last], Y: s.recY[last], Glyph: '▲', Class: classMark}}
	}
	return c
}

func (s *slSim) notes() []string {
	k := s.s.Directions()
	pw := s.p.pow
	lines := []string{
		fmt.Sprintf("each θ: project, sort, match in order: W_p^p(θ#μ, θ#ν) in O(n log n), no LP (p = %g)", pw),
	}
	if k >= 2 {
		lines = append(lines, fmt.Sprintf("SW_p^p ≈ %.4g ± %.2g after %d directions; the mean over %d angles is %.4g",
			s.s.Estimate(), 2*s.s.StdErr(), k, slAngles, s.quad))
	} else {
		lines = append(lines, fmt.Sprintf("SW_p^p = E_θ W_p^p(θ#μ, θ#ν); the mean over %d angles is %.4g", slAngles, s.quad))
	}
	lines = append(lines, "the band closes like 1/√k: four times the directions halve it")
	if !math.IsNaN(s.lp) {
		lines = append(lines, fmt.Sprintf("every slice ≤ W_p^p = %.4g (LP), and SW_p^p ≤ %.3g·W_p^p = %.4g: slicing loses a factor of about √d",
			s.lp, s.cdp, s.cdp*s.lp))
	} else {
		lines = append(lines, s.lpNote)
	}
	if k > 0 {
		b := s.s.Best()
		phi := math.Atan2(b[1], b[0])
		if phi < 0 {
			phi += math.Pi
		}
		lines = append(lines, fmt.Sprintf("max-sliced so far: %.4g at %.0f°; the curve's maximum is %.4g", s.s.Max(), 180*phi/math.Pi, maxOf(s.curveY)))
	}
	return lines
}

func (s *slSim) Result() map[string]any {
	r := map[string]any{
		"directions": s.s.Directions(),
		"p":          s.p.pow,
		"quadrature": s.quad,
		"c_2p":       s.cdp,
	}
	undefined := map[string]string{}
	put := func(key string, x float64, why string) {
		r[key] = x
		if math.IsNaN(x) {
			undefined[key] = why
		}
	}
	put("sw_pp", s.s.Estimate(), "no direction drawn yet")
	put("se", s.s.StdErr(), "fewer than two directions")
	put("max_sliced", s.s.Max(), "no direction drawn yet")
	put("w_pp", s.lp, s.lpWhy())
	if len(undefined) > 0 {
		r["undefined"] = undefined
	}
	return r
}
