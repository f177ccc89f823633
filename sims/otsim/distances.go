package otsim

import (
	"errors"
	"fmt"
	"math"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/ot/oned"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// Distances pulls two laws on the line apart, one shift per step (seed 002
// §5.1, §5.5, L2029–2033, L2313–2352, Fig 5.13): the Wasserstein distances
// W₁ and W₂ grow with the shift d for ever, while the "vertical" ones,
// which compare densities point by point, give up — L1 saturates at 2 and
// JS at log 2 once the supports part, and KL is d²/2 between unit
// Gaussians (finite but no metric) and +∞ as soon as two boxes stop being
// nested.
var Distances = &sims.Spec{
	Name:   "distances",
	Title:  "Wasserstein against vertical distances: W₁, W₂ grow, L1 → 2, JS → log 2, KL = d²/2 or ∞",
	Source: "seed 002 §5.1, §5.5 (L2029–2033, L2313–2352, Def 5.3, Fig 5.13)",
	Steps:  400,
	Speed:  5,
	Params: param.List(dsPair, dsSpread, dsDelta, dsMax),
	New:    newDistances,
	Size:   distancesSize,

	Metrics: distancesMetrics,
}

// lawPair names the two laws that distances pulls apart.
type lawPair string

func (p lawPair) String() string { return string(p) }

const (
	lawGaussians lawPair = "gaussians"
	lawBoxes     lawPair = "boxes"
)

var (
	dsPair = param.Choice("pair", []lawPair{lawGaussians, lawBoxes}, lawGaussians,
		"gaussians: P = N(0,1), Q = N(d, spread²); boxes: P = U[0,1], Q = U[d, d + spread]")
	dsSpread = param.Float("spread", 1, "the s.d. of Q (gaussians) or its width (boxes); 1 makes Q a shift of P").Range(0.1, 10)
	dsDelta  = param.Float("delta", 0.05, "the shift added at each step").Range(0.001, 1)
	dsMax    = param.Float("max", 8, "the last shift d").Range(0.01, 50)
)

// dsGrid is the number of points of the drawn densities.
const dsGrid = 400

// distancesSize is the trace of the five distances, a row a shift up to
// max, with its nine curves (the distances and the four closed forms),
// and the two densities drawn with their overlap.
func distancesSize(cfg sims.Config) int64 {
	v := cfg.Values
	shifts := int(math.Min(math.Ceil(dsMax.Get(v)/dsDelta.Get(v)), sims.TraceCap)) + 1
	return dsBase + sims.TraceBytesAfter(5, 9, shifts) + 5*8*(dsGrid+1)
}

// dsBase is what distances holds whatever its size: the sim, the Frame's
// charts and texts.
const dsBase = 16 << 10

type dsSim struct {
	sep        *oned.Separation
	pair       lawPair
	spread     float64
	delta      float64
	trace      *sims.Trace // W1, W2, L1, JS, KL (+Inf kept)
	lo, hi     float64     // the x range of the picture
	done       bool
	infiniteAt float64 // the first shift at which KL was +Inf, NaN before
}

func newDistances(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	pair, spread, mx := dsPair.Get(v), dsSpread.Get(v), dsMax.Get(v)
	var p, q oned.Dist = oned.Normal{Mean: 0, SD: 1}, oned.Normal{Mean: 0, SD: spread}
	lo, hi := -4.0, mx+4*spread
	if pair == lawBoxes {
		p, q = oned.Box{A: 0, B: 1}, oned.Box{A: 0, B: spread}
		lo, hi = -0.5, mx+spread+0.5
	}
	sep, err := oned.NewSeparation(p, q, dsDelta.Get(v), mx)
	if err != nil {
		return nil, sims.Blame(err, v, sims.As("delta", dsDelta), sims.As("max", dsMax))
	}
	s := &dsSim{sep: sep, pair: pair, spread: spread, delta: dsDelta.Get(v), trace: sims.NewTrace(0, 5), lo: lo, hi: hi,
		infiniteAt: math.NaN()}
	s.record()
	return s, nil
}

func (s *dsSim) record() {
	r := s.sep.Values()
	s.trace.Add(r.W1, r.W2, r.L1, r.JS, r.KL)
	if math.IsInf(r.KL, 1) && math.IsNaN(s.infiniteAt) {
		s.infiniteAt = s.sep.Shift()
	}
}

func (s *dsSim) Step() error {
	err := s.sep.Step()
	if err == nil || errors.Is(err, algo.ErrConverged) {
		s.record()
	}
	s.done = errors.Is(err, algo.ErrConverged)
	return err
}

func (s *dsSim) Frame() sims.Frame {
	r := s.sep.Values()
	d := s.sep.Shift()
	x0, x1 := 0.0, d
	w2line := s.trace.Map(func(k int) float64 { return math.Hypot(float64(k)*s.delta, s.sdGap()) })
	wass := sims.LineChart{Title: "W₁, W₂ against d", X0: x0, X1: x1, XLabel: "shift d",
		Series: onTop(
			sims.Series{Name: "W₁", Y: s.trace.Column(0), Class: classSource},
			sims.Series{Name: "W₂", Y: s.trace.Column(1), Class: classTarget},
			sims.Series{Name: s.w2Name(), Y: w2line, Class: classRef, Bound: true},
		)}
	vert := sims.LineChart{Title: "L1 → 2, JS → log 2", X0: x0, X1: x1, XLabel: "shift d",
		Series: onTop(
			sims.Series{Name: "L1", Y: s.trace.Column(2), Class: classPlan},
			sims.Series{Name: "JS", Y: s.trace.Column(3), Class: classMark},
			sims.Series{Name: "2", Y: s.trace.Map(func(int) float64 { return 2 }), Class: classRef, Bound: true},
			sims.Series{Name: "log 2", Y: s.trace.Map(func(int) float64 { return math.Ln2 }), Class: classRef, Bound: true},
		)}
	kl := sims.LineChart{Title: "KL(P‖Q)", X0: x0, X1: x1, XLabel: "shift d",
		Series: []sims.Series{{Name: "KL", Y: s.trace.Column(4), Class: classBad}}}
	if s.pair == lawGaussians && s.spread == 1 {
		kl.Series = onTop(append(kl.Series, sims.Series{Name: "d²/2", Y: s.trace.Map(func(k int) float64 {
			x := float64(k) * s.delta
			return x * x / 2
		}), Class: classRef, Bound: true})...)
	}
	charts := []sims.Chart{s.densities(), wass, vert}
	if math.IsNaN(s.infiniteAt) {
		charts = append(charts, kl) // an infinite KL has no curve: the notes say so
	}
	metrics := []sims.Metric{
		{Name: "d", Value: d},
		{Name: "W1", Value: r.W1},
		{Name: "W2", Value: r.W2},
		{Name: "L1", Value: r.L1},
		{Name: "JS", Value: r.JS},
	}
	if !math.IsInf(r.KL, 1) {
		metrics = append(metrics, sims.Metric{Name: "KL", Value: r.KL})
	}
	return sims.Frame{Sim: Distances.Name, Step: s.trace.Len() - 1, Metrics: metrics,
		Charts: charts, Text: s.notes(r, d)}
}

// sdGap is the part of W₂ that no shift removes: |s.d.(P) − s.d.(Q)|.
func (s *dsSim) sdGap() float64 {
	if s.pair == lawBoxes {
		return math.Abs(1-s.spread) / math.Sqrt(12)
	}
	return math.Abs(1 - s.spread)
}

func (s *dsSim) w2Name() string {
	if s.sdGap() == 0 {
		return "d"
	}
	return "√(d² + Δsd²)"
}

// densities draws p and q at the present shift, with their overlap
// min(p, q) shaded: L1 = 2 − 2∫min(p, q).
func (s *dsSim) densities() sims.CanvasChart {
	p, q := s.sep.Laws()
	xs := make([]float64, dsGrid+1)
	py, qy, lo, hi := make([]float64, dsGrid+1), make([]float64, dsGrid+1), make([]float64, dsGrid+1), make([]float64, dsGrid+1)
	top := 0.0
	for k := range xs {
		x := s.lo + (s.hi-s.lo)*float64(k)/dsGrid
		xs[k], py[k], qy[k] = x, math.Exp(p.LogPDF(x)), math.Exp(q.LogPDF(x))
		hi[k] = math.Min(py[k], qy[k])
		top = math.Max(top, math.Max(py[k], qy[k]))
	}
	return sims.CanvasChart{Title: fmt.Sprintf("P, Q at d = %.3g", s.sep.Shift()), XLabel: "x", YLabel: "density",
		View:   sims.Rect{XMin: s.lo, XMax: s.hi, YMin: 0, YMax: 1.08 * top},
		Bands:  []sims.Band{{X: xs, Lo: lo, Hi: hi, Class: classPlan}},
		Paths:  []sims.Path{{X: xs, Y: py, Class: classSource}, {X: xs, Y: qy, Class: classTarget}},
		Legend: []string{"P", "Q", "min(p,q)"}}
}

func (s *dsSim) notes(r oned.Distances, d float64) []string {
	lines := []string{fmt.Sprintf("W₁ = %.4g, W₂ = %.4g: they lift the distance of the line, so they grow with d", r.W1, r.W2)}
	if s.pair == lawGaussians {
		lines = append(lines, fmt.Sprintf("L1 = %.4g ≤ 2; JS = %.4g ≤ log 2 = %.4g: vertical distances saturate", r.L1, r.JS, math.Ln2))
		if s.spread == 1 {
			lines = append(lines, fmt.Sprintf("unit Gaussians: L1 = 2(2Φ(d/2) − 1) = %.4g, KL = d²/2 = %.4g (no metric)",
				2*(2*oned.NormalCDF(0, 1, d/2)-1), d*d/2))
		}
	} else {
		lines = append(lines, fmt.Sprintf("L1 = %.4g, JS = %.4g: both stop at 2 and log 2 once the boxes are disjoint", r.L1, r.JS))
	}
	if math.IsInf(r.KL, 1) {
		lines = append(lines, fmt.Sprintf("KL = ∞ from d = %.3g: P has mass where Q has none; W still measures the gap", s.infiniteAt))
	}
	return lines
}

func (s *dsSim) Result() map[string]any {
	r := s.sep.Values()
	out := map[string]any{"d": s.sep.Shift(), "w1": r.W1, "w2": r.W2, "l1": r.L1, "js": r.JS, "kl_infinite": math.IsInf(r.KL, 1)}
	if !math.IsInf(r.KL, 1) {
		out["kl"] = r.KL
	}
	return out
}
