package otsim

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo/ot"
	"github.com/thelab/lab/algo/ot/oned"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// OneD is optimal transport on the line (seed 002 §5.4, Corollary 1,
// L2179–2220, Figs 5.5–5.7; Ex 5.5, 5.7): the CDFs, the quantile functions
// with the area between them (W_p^p = ∫₀¹ |F_μ⁻ − F_ν⁻|^p dt) swept one
// merged segment per step, and the monotone coupling as lines between
// the two measures. Unequal weights and unequal numbers of atoms are
// merged on the union of the breakpoints of the quantile functions, not
// zipped (the catalogue's E3 warning); the notes' L2210 omits the absolute
// value (erratum), which is kept here.
var OneD = &sims.Spec{
	Name:     "ot-1d",
	Title:    "1-D OT: CDFs, quantile functions and the area between them, the monotone coupling",
	Source:   "seed 002 §5.4 (Corollary 1, L2179–2220, Figs 5.5–5.7; Ex 5.5, 5.7)",
	Data:     dataNote + " (1-D: column x only)",
	DataText: []sims.TextColumn{sideColumn},
	Steps:    1000,
	Speed:    5,
	Params:   param.List(odPreset, odN, odM, odGauss, odP),
	New:      newOneD,
	Size:     oneDSize,

	Metrics: oneDMetrics,
}

// pair1 names a pair of laws on the line for ot-1d.
type pair1 string

func (p pair1) String() string { return string(p) }

const (
	pairEx55      pair1 = "ex5.5"
	pairGaussians pair1 = "gaussians"
	pairSamples   pair1 = "samples"
	pairUneven    pair1 = "uneven"
	pairHist      pair1 = "gauss-hist"
)

// odMaxAtoms bounds the atoms of a side: the merged segments are kept for
// the sweep (48 bytes each).
const odMaxAtoms = ot.MaxAtoms

// odSweep is the number of steps a sweep takes: each moves the quantile
// level t by 1/odSweep, over as many merged segments as that covers.
const odSweep = 100

var (
	odPreset = param.Choice("preset", []pair1{pairEx55, pairGaussians, pairSamples, pairUneven, pairHist}, pairEx55,
		"ex5.5: ½δ0 + ½δ1 against U[0,1] (W₁ = 1/4, W₂ = √(1/12)); gaussians: N(m0,s0²) against N(m1,s1²) "+
			"(Ex 5.7: W₂² = (m0−m1)² + (s0−s1)²); samples: n draws of N(0,1), m of N(3,0.5²); "+
			"uneven: n and m atoms with random weights; gauss-hist: POT's two Gaussian histograms on n bins").BuiltInData()
	odN     = param.Int("n", 200, "atoms of μ (samples, uneven) or bins (gauss-hist)").Range(2, odMaxAtoms).BuiltInData()
	odM     = param.Int("m", 150, "atoms of ν (samples, uneven)").Range(1, odMaxAtoms).BuiltInData()
	odGauss = newGaussPair(0, 1, 3, 0.5, " (preset gaussians)")
	odP     = param.Float("p", 2, "the cost |x − y|^p: W_p^p = ∫₀¹ |F_μ⁻(t) − F_ν⁻(t)|^p dt").Range(1, 8)
)

// oneDSize is the two measures' pieces (the atoms of the preset or
// --data, or the bins of a histogram) with the merged segments and the
// atoms drawn, the quantile functions and CDFs drawn (at most maxDrawn
// points a piece), and the Frame's band over the swept segments and the
// coupling's lines.
func oneDSize(cfg sims.Config) int64 {
	a, b := odPieces(cfg)
	segs := a + b
	return odBase + 80*int64(segs) + 64*int64(min(a, maxDrawn)+min(b, maxDrawn)) +
		72*int64(min(segs, maxDrawn)) + linesBytes(segs)
}

// odBase is what ot-1d holds whatever its size: the sim, the Frame's
// charts and texts.
const odBase = 16 << 10

// odPieces is the number of pieces of the two measures newOneD builds.
func odPieces(cfg sims.Config) (a, b int) {
	if t := cfg.Data; t != nil {
		a, b, _ = tableAtoms(t)
		return a, b
	}
	v := cfg.Values
	switch odPreset.Get(v) {
	case pairEx55:
		return 2, 1
	case pairGaussians:
		return normalBins, normalBins
	case pairHist:
		return odN.Get(v), odN.Get(v)
	}
	return odN.Get(v), odM.Get(v)
}

type odSim struct {
	a, b    *oned.Measure
	names   [2]string
	p       float64
	segs    []oned.Segment
	step    int
	k       int     // segments swept whole: those before t
	t       float64 // the level swept to
	swept   float64 // ∫₀^t |F_μ⁻ − F_ν⁻|^p
	total   float64 // W_p^p
	w1, w2  float64
	oracle  []string // the closed forms that hold for this pair
	lo, hi  float64  // the supports' span
	qpaths  []sims.Path
	cdfs    []sims.Path
	support []sims.PointSet
}

func newOneD(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	s := &odSim{p: odP.Get(v), names: [2]string{"the source", "the target"}}
	var err error
	if cfg.Data != nil {
		err = s.fromData(cfg.Data)
	} else {
		err = s.fromPreset(v, rand.New(rand.NewPCG(cfg.Seed, 0x6f_7431_64))) // "ot1d"
	}
	if err != nil {
		return nil, err
	}
	s.segs = oned.Segments(s.a, s.b, make([]oned.Segment, 0, s.a.Pieces()+s.b.Pieces()))
	if s.total, err = oned.Cost(s.a, s.b, s.p); err != nil {
		return nil, sims.Blame(err, v, sims.As("p", odP))
	}
	s.w1, _ = oned.W(s.a, s.b, 1)
	s.w2, _ = oned.W(s.a, s.b, 2)
	s.lo, s.hi = span(s.a, s.b)
	s.qpaths = []sims.Path{quantilePath(s.a, classSource), quantilePath(s.b, classTarget)}
	pad := 0.05 * (s.hi - s.lo)
	s.cdfs = []sims.Path{cdfPath(s.a, s.lo-pad, s.hi+pad, classSource), cdfPath(s.b, s.lo-pad, s.hi+pad, classTarget)}
	s.support = []sims.PointSet{atomsOf(s.a, 1, classSource), atomsOf(s.b, 0, classTarget)}
	return s, nil
}

// atomsOf places the atoms of m on the line y (a continuous part is drawn
// by supportPaths): at most maxDrawn of them, evenly spaced in the list.
func atomsOf(m *oned.Measure, y float64, class int) sims.PointSet {
	x, _ := m.Atoms(make([]float64, 0, m.Pieces()), make([]float64, 0, m.Pieces()))
	if stride := (len(x) + maxDrawn - 1) / maxDrawn; stride > 1 {
		k := 0
		for i := 0; i < len(x); i += stride {
			x[k], k = x[i], k+1
		}
		x = x[:k:k]
	}
	return sims.PointSet{X: x, Y: constant(len(x), y), Class: class}
}

// supportPaths draws the continuous parts of m on the line y.
func supportPaths(m *oned.Measure, y float64, class int) []sims.Path {
	var out []sims.Path
	for i := range min(m.Pieces(), maxDrawn) {
		if _, _, lo, hi := m.Piece(i); hi > lo {
			if k := len(out) - 1; k >= 0 && out[k].X[1] == lo {
				out[k].X[1] = hi
				continue
			}
			out = append(out, sims.Path{X: []float64{lo, hi}, Y: []float64{y, y}, Class: class})
		}
	}
	return out
}

func (s *odSim) fromPreset(v param.Values, rng *rand.Rand) error {
	var err error
	switch odPreset.Get(v) {
	case pairEx55:
		s.a, _ = oned.Discrete([]float64{0, 1}, nil)
		s.b, _ = oned.Uniform(0, 1)
		s.names = [2]string{"½δ0+½δ1", "U[0,1]"}
		s.oracle = []string{fmt.Sprintf("Ex 5.5: W₁ = 1/8 + 1/8 = 1/4, W₂ = √(1/24 + 1/24) = %.6g", math.Sqrt(1.0/12))}
	case pairGaussians:
		m0, s0, m1, s1 := odGauss.get(v)
		s.a, s.b = normalHist(m0, s0), normalHist(m1, s1)
		s.names = [2]string{fmt.Sprintf("N(%.3g,%.3g²)", m0, s0), fmt.Sprintf("N(%.3g,%.3g²)", m1, s1)}
		s.oracle = []string{fmt.Sprintf("Ex 5.7: W₂² = (m0−m1)² + (s0−s1)² = %.6g (here %d-bin histograms)",
			oned.GaussianW2Sq(m0, s0, m1, s1), normalBins)}
	case pairSamples:
		var p *ot.Problem
		if p, err = ot.Gauss1D(rng, odN.Get(v), odM.Get(v)); err == nil {
			s.a, s.b, err = discretePair(p, "ot-1d")
		}
		s.names = [2]string{fmt.Sprintf("%d draws of N(0,1)", odN.Get(v)), fmt.Sprintf("%d of N(3,0.5²)", odM.Get(v))}
		s.oracle = []string{fmt.Sprintf("the laws N(0,1), N(3,0.5²): W₂² = %.4g (Ex 5.7); samples scatter about it",
			oned.GaussianW2Sq(0, 1, 3, 0.5))}
	case pairUneven:
		s.a, s.b = unevenAtoms(rng, odN.Get(v), 0), unevenAtoms(rng, odM.Get(v), 1)
		s.names = [2]string{fmt.Sprintf("%d weighted atoms", odN.Get(v)), fmt.Sprintf("%d more", odM.Get(v))}
	case pairHist:
		var p *ot.Problem
		if p, err = ot.GaussHistograms(rng, odN.Get(v), odN.Get(v)); err == nil {
			s.a, s.b, err = discretePair(p, "ot-1d")
		}
		s.names = [2]string{"a bump at 0.2", "a wider one at 0.6"}
	}
	return sims.Blame(err, v, sims.As("n", odN), sims.As("m", odM))
}

// unevenAtoms draws k atoms uniformly on [shift, shift + 3] with weights
// uniform on [0.2, 1.2], normalised.
func unevenAtoms(rng *rand.Rand, k int, shift float64) *oned.Measure {
	x, w := make([]float64, k), make([]float64, k)
	total := 0.0
	for i := range x {
		x[i], w[i] = shift+3*rng.Float64(), 0.2+rng.Float64()
		total += w[i]
	}
	m, err := oned.Discrete(x, ot.Normalised(w, total))
	if err != nil {
		panic(err) // finite atoms, positive weights summing to 1
	}
	return m
}

// discretePair is the two sides of a 1-D problem as discrete measures,
// for the sim named sim (ot-1d, ot-geodesic), whom a refusal names.
func discretePair(p *ot.Problem, sim string) (a, b *oned.Measure, err error) {
	if p.Dim != 1 {
		return nil, nil, fmt.Errorf("%s: %s needs points on the line (a column x and no y), these have %d coordinates", p.Name, sim, p.Dim)
	}
	if a, err = oned.Discrete(p.X, p.Mu); err != nil {
		return nil, nil, err
	}
	b, err = oned.Discrete(p.Y, p.Nu)
	return a, b, err
}

func (s *odSim) fromData(t *sims.Table) error {
	p, err := fromTable(t)
	if err != nil {
		return err
	}
	if p.N() > odMaxAtoms || p.M() > odMaxAtoms {
		return fmt.Errorf("--data %s: %d and %d atoms; ot-1d takes at most %d a side", t.Name, p.N(), p.M(), odMaxAtoms)
	}
	s.a, s.b, err = discretePair(p, "ot-1d")
	return err
}

// Step moves t by 1/odSweep, adding the cost of the segments (or parts
// of a segment) it passes.
func (s *odSim) Step() error {
	if s.t >= 1 {
		return sims.ErrConverged
	}
	s.step++
	next := float64(s.step) / odSweep
	for s.k < len(s.segs) && s.t < next {
		g := s.segs[s.k]
		part := clip(g, s.t, math.Min(next, g.T1))
		s.swept += part.Cost(s.p)
		s.t = part.T1
		if s.t >= g.T1 {
			s.k++
		}
	}
	if s.step == odSweep || s.k == len(s.segs) {
		s.t, s.k = 1, len(s.segs)
		s.swept = s.total // the same sum, added in one pass by oned.Cost
		return sims.ErrConverged
	}
	return nil
}

// clip is the part of a segment over the levels (t0, t1) inside it: both
// quantile functions are linear on a segment.
func clip(g oned.Segment, t0, t1 float64) oned.Segment {
	at := func(a, b, t float64) float64 {
		if g.T1 == g.T0 {
			return a
		}
		return a + (b-a)*(t-g.T0)/(g.T1-g.T0)
	}
	return oned.Segment{T0: t0, T1: t1, A0: at(g.A0, g.A1, t0), A1: at(g.A0, g.A1, t1), B0: at(g.B0, g.B1, t0), B1: at(g.B0, g.B1, t1)}
}

// sweptSegs are the segments swept so far, the last one clipped at t.
func (s *odSim) sweptSegs() []oned.Segment {
	out := s.segs[:s.k:s.k]
	if s.k < len(s.segs) && s.t > s.segs[s.k].T0 {
		out = append(out, clip(s.segs[s.k], s.segs[s.k].T0, s.t))
	}
	return out
}

func (s *odSim) Frame() sims.Frame {
	t := s.t
	q := sims.CanvasChart{Title: "quantiles F⁻(t)", XLabel: "t", YLabel: "x",
		View:   sims.Rect{XMin: 0, XMax: 1, YMin: s.lo, YMax: s.hi}.Pad(0.03),
		Paths:  s.qpaths,
		Bands:  s.band(),
		Legend: []string{"μ", "ν", "swept"},
	}
	q.Markers = []sims.Marker{{X: t, Y: q.View.YMin, Glyph: '▲', Class: classPlan}}
	pad := 0.05 * (s.hi - s.lo)
	cdf := sims.CanvasChart{Title: "CDFs F(x)", XLabel: "x", YLabel: "F",
		View: sims.Rect{XMin: s.lo - pad, XMax: s.hi + pad, YMin: -0.05, YMax: 1.05}, Paths: s.cdfs,
		Legend: []string{"μ", "ν"}}
	match := sims.CanvasChart{Title: "coupling T", XLabel: "x", YLabel: "ν 0, μ 1",
		View:   sims.Rect{XMin: s.lo - pad, XMax: s.hi + pad, YMin: -0.15, YMax: 1.15},
		Points: s.support,
		Paths:  append(append(supportPaths(s.a, 1, classSource), supportPaths(s.b, 0, classTarget)...), s.matching()...),
		Legend: []string{"μ", "ν", "T(x)"}}
	metrics := []sims.Metric{
		{Name: "t", Value: t},
		{Name: "swept", Value: s.swept},
		{Name: "Wp^p", Value: s.total},
		{Name: "W1", Value: s.w1},
		{Name: "W2", Value: s.w2},
	}
	return sims.Frame{Sim: OneD.Name, Step: s.step, Metrics: metrics, Charts: []sims.Chart{q, cdf, match}, Text: s.notes(t)}
}

// band shades the area between the quantile functions over the swept
// segments, each split where the two cross (at most maxDrawn segments
// drawn; beyond, every ⌈K/maxDrawn⌉-th).
func (s *odSim) band() []sims.Band {
	var b sims.Band
	b.Class = classPlan
	segs := s.sweptSegs()
	stride := max(1, (len(segs)+maxDrawn-1)/maxDrawn)
	add := func(t, a, c float64) {
		b.X, b.Lo, b.Hi = append(b.X, t), append(b.Lo, math.Min(a, c)), append(b.Hi, math.Max(a, c))
	}
	for i := 0; i < len(segs); i += stride {
		g := segs[i]
		if last := min(i+stride, len(segs)) - 1; last > i {
			g.T1, g.A1, g.B1 = segs[last].T1, segs[last].A1, segs[last].B1
		}
		add(g.T0, g.A0, g.B0)
		if d0, d1 := g.A0-g.B0, g.A1-g.B1; d0*d1 < 0 {
			c := g.T0 + (g.T1-g.T0)*d0/(d0-d1)
			x := g.A0 + (g.A1-g.A0)*(c-g.T0)/(g.T1-g.T0)
			add(c, x, x)
		}
		add(g.T1, g.A1, g.B1)
	}
	if len(b.X) < 2 {
		return nil
	}
	return []sims.Band{b}
}

// matchLevels is the number of quantile levels at which a continuous part
// of the coupling is drawn.
const matchLevels = 24

// matching draws the coupling over the swept segments: a line from
// F_μ⁻(t) to F_ν⁻(t) at the middle of each segment between two atoms, and
// at the levels (k + ½)/matchLevels inside segments with a continuous
// side; at most maxLines, evenly spaced.
func (s *odSim) matching() []sims.Path {
	var ts []float64
	for _, g := range s.sweptSegs() {
		if g.A0 == g.A1 && g.B0 == g.B1 {
			ts = append(ts, (g.T0+g.T1)/2)
			continue
		}
		for l := math.Ceil(g.T0*matchLevels - 0.5); (l+0.5)/matchLevels < g.T1; l++ {
			ts = append(ts, (l+0.5)/matchLevels)
		}
	}
	stride := max(1, (len(ts)+maxLines-1)/maxLines)
	out := make([]sims.Path, 0, len(ts)/stride+1)
	for i := 0; i < len(ts); i += stride {
		t := ts[i]
		out = append(out, sims.Path{X: []float64{s.a.Quantile(t), s.b.Quantile(t)}, Y: []float64{1, 0}, Class: classPlan})
	}
	return out
}

func (s *odSim) notes(t float64) []string {
	lines := []string{fmt.Sprintf("μ = %s, ν = %s, cost |x − y|^p, p = %.3g", s.names[0], s.names[1], s.p),
		fmt.Sprintf("swept to t = %.2f: ∫₀ᵗ|F_μ⁻ − F_ν⁻|^p = %.4g of W_p^p = %.6g", t, s.swept, s.total)}
	lines = append(lines, fmt.Sprintf("W₁ = %.6g, W₂ = %.6g: sort both, match in order (T = F_ν⁻∘F_μ)", s.w1, s.w2))
	lines = append(lines, s.oracle...)
	lines = append(lines, fmt.Sprintf("%d + %d pieces → %d segments on the union of breakpoints (E3)",
		s.a.Pieces(), s.b.Pieces(), len(s.segs)))
	return lines
}

func (s *odSim) Result() map[string]any {
	return map[string]any{
		"p":        s.p,
		"wp_p":     s.total,
		"wp":       math.Pow(s.total, 1/s.p),
		"w1":       s.w1,
		"w2":       s.w2,
		"segments": len(s.segs),
		"swept":    s.swept,
		"mean_mu":  s.a.Mean(),
		"mean_nu":  s.b.Mean(),
		"sd_mu":    sd(s.a),
		"sd_nu":    sd(s.b),
	}
}
