package kernelsim

import (
	"fmt"
	"math"

	"github.com/thelab/lab/algo/dataset"
	"github.com/thelab/lab/algo/kernel"
	"github.com/thelab/lab/algo/svm"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// SVM is the soft-margin (or hard-margin) SVM solved in the dual by SMO
// with second-order working-set selection, one pair update per step, any
// kernel (seed 003 L470–802; seed 001 §5–7 [A8]–[A11]; seed 000 §4.8.2).
var SVM = &sims.Spec{
	Name:   "svm",
	Title:  "SVM dual by SMO: decision map, margins, support vectors, duality gap",
	Source: "seed 003 L470–802 (dual, KKT, SMO named); seed 001 §5–7 (eqs 5.a, 6.a–6.c, Ex 7.7); seed 000 §4.8.2",
	Data:   dataNote,
	Steps:  20000,
	Speed:  2,
	Params: param.List(svmPreset, svmN, svmMargin, svmC, svmTol, svmKernel, svmCacheMB),
	New:    newSVM,
	Size:   svmSize,

	Metrics: svmMetrics,
}

// svmSize is the points, the SMO with its kernel-row cache full (it is
// reserved whole when built: how many rows a run computes depends on its
// path), α before the last step, the trace of D(α), the gap and the KKT
// violation with its four curves, and the decision map of 2-D data.
func svmSize(c sims.Config) int64 {
	n, d := classShape(c, svmN)
	size := svmBase + int64(n)*(pointBytes(d)+8) + svm.KernelFootprint(n, d, int64(svmCacheMB.Get(c.Values))<<20) +
		sims.TraceBytesAfter(3, 4, sims.TraceCap)
	if hasMap(n, d) {
		size += mapBytes(n)
	}
	return size
}

// svmBase is what svm holds whatever its size: the sim, the Frame's charts
// and texts.
const svmBase = 64 << 10

// Size of the decision map: a grid of mapNX×mapNY cells, drawn for at
// most mapCost/(mapNX·mapNY) points (beyond, the margins are).
const (
	mapNX   = 64
	mapNY   = 32
	mapCost = 2000 * mapNX * mapNY
)

type svmSim struct {
	data    *dataset.Labelled
	y       []float64
	k       kernel.Kernel
	smo     *svm.SMO
	hard    bool
	tol     float64
	px      []float64 // point coordinates (2-D data only)
	py      []float64
	cls     []int
	view    sims.Rect
	kg      *mapKernel // the decision map's kernel columns, nil when there is no map
	fg      []float64  // Σ α_i y_i k(x_i, g), without b
	trace   *sims.Trace
	prevA   []float64 // α before the last step, for the incremental map
	gap     float64   // the gap at the last multiple of gapEvery steps
	cacheMB int
	// The decision map as the last Frame drew it, and the step it was
	// drawn at: α, hence the map, changes only with a step, so Frames
	// between two steps share it.
	mapChart sims.CanvasChart
	mapIter  int
}

// gapEvery is how often, in pair updates, the gap's curve is updated: the
// primal needs the bias and every margin (O(n)), several times a pair
// update's own cost, while D(α) and the KKT violation come with each step.
const gapEvery = 16

// margin is the SVM's constraint on α.
type margin string

func (m margin) String() string { return string(m) }

const (
	marginSoft margin = "soft"
	marginHard margin = "hard"
)

// svm's parameters.
var (
	svmPreset = classPreset(presetMoons)
	svmN      = classSize(150, 2000)
	svmMargin = param.Choice("margin", []margin{marginSoft, marginHard}, marginSoft,
		"soft: box 0 ≤ α ≤ C (eq 6.b); hard: C = ∞, which has no solution unless the data is separable in feature space")
	svmC = param.Float("C", 1,
		"error penalty C of ½‖w‖² + CΣξ_i (margin=soft); large C approaches the hard margin").Range(0, 1e6).OpenMin()
	svmTol = param.Float("tol", 1e-3,
		"stop when the maximal KKT violation m(α) − M(α) ≤ tol (LIBSVM's eps)").Range(1e-12, 1)
	svmCacheMB = param.Int("cache_mb", 100,
		"megabytes of kernel rows kept, the least recently used evicted first (LIBSVM's cache_size); an evicted row is computed again when needed").Range(1, 4096)
	svmKernel = NewKernelParams(kernel.KindRBF, 3, 1, 2)
)

func newSVM(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	data, k, y, err := classSetup(cfg, svmPreset.Get(v), svmN.Get(v), svmKernel)
	if err != nil {
		return nil, err
	}
	s := &svmSim{data: data, y: y, k: k, hard: svmMargin.Get(v) == marginHard, tol: svmTol.Get(v), cls: data.Int(), trace: sims.NewTrace(1, 3)}
	c := svmC.Get(v)
	if s.hard {
		c = math.Inf(1)
	}
	s.cacheMB = svmCacheMB.Get(v)
	s.smo, err = svm.NewKernel(data.X, k, y, svm.Config{C: c, Tol: svmTol.Get(v), Cache: int64(s.cacheMB) << 20, Shrink: true, Reserve: true})
	if err != nil {
		return nil, sims.Blame(err, v, sims.As("labels", svmN)) // a small preset drew one class
	}
	s.prevA = make([]float64, data.N())
	s.px, s.py = columns(data)
	if s.view, s.kg = decisionMap(k, data, s.px, s.py, false); s.kg != nil {
		s.fg = make([]float64, mapNX*mapNY)
	}
	// The curves start after the first pair update: D(α) = 0 at α = 0 has
	// no place on a log scale.
	return s, nil
}

// gapValue is what the log chart shows as the duality gap: P − D for the
// soft margin; for the hard margin, where P is infinite until every
// constraint holds, |‖w‖² − Σα| (zero at the optimum, where P = D).
func (s *svmSim) gapValue() float64 {
	if s.hard {
		return math.Abs(s.smo.WNormSq() - s.smo.SumAlpha())
	}
	return s.smo.Primal() - s.smo.Dual()
}

// record adds D(α), the gap and the KKT violation to the curves; the gap
// is recomputed every gapEvery steps and held in between.
func (s *svmSim) record() {
	if (s.smo.Iter()-1)%gapEvery == 0 {
		s.gap = s.gapValue()
	}
	s.trace.Add(s.smo.Dual(), math.Max(s.gap, 1e-16), math.Max(s.smo.KKT(), 1e-16))
}

func (s *svmSim) Step() error {
	i, j := s.smo.Pair()
	if err := s.smo.Step(); err != nil {
		return err
	}
	if s.fg != nil && i >= 0 && j >= 0 {
		a := s.smo.Alpha()
		for _, t := range [2]int{i, j} {
			d := (a[t] - s.prevA[t]) * s.y[t]
			if d == 0 {
				continue
			}
			col := s.kg.col(t)
			for c, kv := range col {
				s.fg[c] += d * kv
			}
			s.prevA[t] = a[t]
		}
	}
	s.record()
	return nil
}

func (s *svmSim) accuracy(b float64) float64 {
	ok := 0
	for i := range s.y {
		if s.smo.Margin(i, b) > 0 {
			ok++
		}
	}
	return float64(ok) / float64(len(s.y))
}

func (s *svmSim) Frame() sims.Frame {
	b := s.smo.Bias()
	free, bounded, zero := s.smo.Counts()
	dual := s.smo.Dual()
	primal := s.smo.Primal()
	metrics := []sims.Metric{
		{Name: "dual", Value: dual},
		{Name: "gap", Value: s.gapValue()},
		{Name: "kkt", Value: s.smo.KKT()},
		{Name: "sv", Value: float64(free + bounded)},
		{Name: "accuracy", Value: s.accuracy(b)},
	}
	if s.hard {
		metrics = append(metrics, sims.Metric{Name: "violation", Value: sims.FiniteOr(s.smo.Violation(), 0)})
	}
	x0, x1 := s.trace.Span()
	charts := []sims.Chart{}
	if s.fg != nil {
		if s.mapChart.Heat == nil || s.mapIter != s.smo.Iter() {
			s.mapChart, s.mapIter = s.decisionMap(b), s.smo.Iter()
		}
		charts = append(charts, s.mapChart)
	} else {
		charts = append(charts, s.marginHist(b))
	}
	gapName := "P − D"
	if s.hard {
		gapName = "|‖w‖² − Σα|"
	}
	charts = append(charts,
		sims.LineChart{Title: "D(α), gap (every 16 steps), KKT violation", LogY: true, X0: x0, X1: x1, XLabel: "SMO pair updates",
			Series: []sims.Series{
				{Name: "tol", Y: s.trace.Map(func(int) float64 { return s.tol }), Class: 2, Bound: true},
				{Name: "D(α)", Y: s.trace.Column(0), Class: 0},
				{Name: gapName, Y: s.trace.Column(1), Class: 1},
				{Name: "KKT m−M", Y: s.trace.Column(2), Class: 2},
			}},
		sims.BarChart{Title: "support vectors", Max: float64(len(s.y)), Bars: []sims.Bar{
			{Label: "free 0<α<C", Value: float64(free), Class: 2},
			{Label: "bound α=C", Value: float64(bounded), Class: 7},
			{Label: "α = 0", Value: float64(zero), Class: 9},
		}},
	)
	return sims.Frame{Sim: SVM.Name, Step: s.smo.Iter(), Metrics: metrics, Charts: charts, Text: s.notes(dual, primal)}
}

func (s *svmSim) decisionMap(b float64) sims.CanvasChart {
	z := make([]float64, len(s.fg))
	for i, f := range s.fg {
		z[i] = f + b
	}
	// The field in six bands of width 1 on [−3, 3] (beyond clamps): the
	// margin band |F| < 1 is the palest, and the points, most of which
	// have |F| < 3, stay visible on it; the level lines of the contour grid
	// (four bands on [−2, 2]) fall at F = −1, 0, +1.
	heat := &sims.Grid{NX: mapNX, NY: mapNY, Z: z, Scale: sims.Diverging, Lo: -3, Hi: 3, Levels: 6}
	lines := &sims.Grid{NX: mapNX, NY: mapNY, Z: z, Lo: -2, Hi: 2, Levels: 4}
	var markers []sims.Marker
	for i, a := range s.smo.Alpha() {
		switch {
		case a <= 0:
		case a >= s.smo.C():
			markers = append(markers, sims.Marker{X: s.px[i], Y: s.py[i], Glyph: '×', Class: s.cls[i]})
		default:
			markers = append(markers, sims.Marker{X: s.px[i], Y: s.py[i], Glyph: '○', Class: s.cls[i]})
		}
	}
	return sims.CanvasChart{
		Title: "F(x) with F = −1, 0, +1 lines",
		View:  s.view, Heat: heat, Contours: lines,
		Points:  []sims.PointSet{{Name: "data", X: s.px, Y: s.py, Classes: s.cls}},
		Markers: markers,
		Legend:  classLegend,
		XLabel:  s.data.Features[0], YLabel: s.data.Features[1],
	}
}

// marginHist is the pane for data that is not 2-D: the functional margins
// y_iF(x_i), which the KKT conditions pin at 1 for free support vectors.
func (s *svmSim) marginHist(b float64) sims.HistChart {
	const bins, lo, hi = 40, -2.0, 4.0
	d := make([]float64, bins)
	for i := range s.y {
		m := s.smo.Margin(i, b)
		k := int((m - lo) / (hi - lo) * bins)
		d[max(0, min(bins-1, k))]++
	}
	for i := range d {
		d[i] /= float64(len(s.y)) * (hi - lo) / bins
	}
	return sims.HistChart{Title: "margins y_iF(x_i) (free SVs at 1)", Lo: lo, Hi: hi, Density: d, XLabel: "y F(x)", Label: "training points"}
}

func (s *svmSim) notes(dual, primal float64) []string {
	lines := []string{fmt.Sprintf("%s, %d points, step = one SMO pair update (WSS2); ○ free SV (yF = 1), × bound SV (α = C)",
		s.k, len(s.y)),
		fmt.Sprintf("kernel rows computed as needed: %d so far (LRU cache of %d MB); %d of %d variables in the selection (shrinking)",
			s.smo.RowsComputed(), s.cacheMB, s.smo.Active(), len(s.y))}
	if s.hard {
		sa := s.smo.SumAlpha()
		lines = append(lines, fmt.Sprintf("hard margin: at the optimum ‖w‖² = Σα = %.4g, margin 1/√Σα = %.4g; now ‖w‖² = %.4g",
			sa, 1/math.Sqrt(math.Max(sa, 1e-300)), s.smo.WNormSq()))
	} else {
		lines = append(lines, fmt.Sprintf("weak duality P ≥ D: P = %.5g ≥ D = %.5g; the gap closes at the optimum (strong duality)", primal, dual))
	}
	switch {
	case s.fg != nil:
	case s.data.D() != 2:
		lines = append(lines, fmt.Sprintf("%d features: no decision map (it needs 2), margins shown instead", s.data.D()))
	default:
		lines = append(lines, fmt.Sprintf("%d points: too many for the cached decision map, margins shown instead", s.data.N()))
	}
	return lines
}

func (s *svmSim) Result() map[string]any {
	b := s.smo.Bias()
	free, bounded, _ := s.smo.Counts()
	return map[string]any{
		"alpha":            append([]float64(nil), s.smo.Alpha()...),
		"b":                b,
		"support_vectors":  free + bounded,
		"free_sv":          free,
		"bound_sv":         bounded,
		"dual_objective":   s.smo.Dual(),
		"primal_objective": sims.FiniteOr(s.smo.Primal(), 0),
		"accuracy":         s.accuracy(b),
		"kkt_violation":    s.smo.KKT(),
		"steps":            s.smo.Iter(),
	}
}
