package kernelsim

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/dataset"
	"github.com/thelab/lab/algo/kernel"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// Perceptron is the dual (kernel) perceptron of seed 003 L60–75 on the
// ellipse data of Fig 2.1 (L220), run beside the primal perceptron on the
// kernel's explicit feature map when it has one: the two make exactly the
// same mistakes.
var Perceptron = &sims.Spec{
	Name:   "kernel-perceptron",
	Title:  "Dual (kernel) perceptron: α counts mistakes; same mistakes as the primal on Φ(x)",
	Source: "seed 003 L60–75 (primal and dual perceptron), L200–223 (polynomial kernel, Fig 2.1 ellipse)",
	Data:   dataNote,
	Steps:  20000,
	Speed:  10,
	Params: param.List(kpercPreset, kpercN, kpercOrder, kpercMaxEpochs, kpercKernel),
	New:    newPerceptron,
	Size:   perceptronSize,

	Metrics: kernelPerceptronMetrics,
}

// perceptronSize is the points with their features φ(x) for the primal
// run beside (at most seven a point), the engine (its Gram matrix plus the
// bias), the trace of the mistakes with its
// curve, and the decision map of 2-D data with the points' feature-space
// coordinates. The histories of the mistakes grow by a word a mistake
// each, without bound on data the kernel does not separate, and are not
// counted.
func perceptronSize(cfg sims.Config) int64 {
	n, d := classShape(cfg, kpercN)
	size := kpercBase + int64(n)*(pointBytes(d)+24+8*7) + kernel.PerceptronFootprint(n) + sims.TraceBytesAfter(1, 1, sims.TraceCap)
	if hasMap(n, d) {
		size += mapBytes(n) + 16*int64(n)
	}
	return size
}

// kpercBase is what kernel-perceptron holds whatever its size: the sim,
// the Frame's charts and texts.
const kpercBase = 24 << 10

type perceptronSim struct {
	data   *dataset.Labelled
	y      []float64
	k      kernel.Kernel
	p      *kernel.Perceptron
	primal *kernel.Primal // nil when the kernel has no explicit map here
	mapDoc string
	agree  int // mistakes on which the primal agreed so far
	differ int // first mistake where they differ, −1 if none
	px, py []float64
	cls    []int
	view   sims.Rect
	fview  sims.Rect // the feature-space view (x₁², x₂²)
	fx, fy []float64
	kg     *mapKernel // the decision map's kernel columns, nil when there is no map
	fg     []float64  // Σ α_i y_i (k(x_i, g) + 1)
	cum    *sims.Trace
	truth  bool // draw the ellipse's hyperplane in feature space
}

// kernel-perceptron's parameters.
var (
	kpercPreset = classPreset(presetEllipse)
	kpercN      = classSize(120, 2000)
	kpercOrder  = param.Choice("order", []kernel.Order{kernel.Cyclic, kernel.Shuffled}, kernel.Cyclic,
		"presentation order: 1..N every epoch, or a fresh shuffle per epoch")
	kpercMaxEpochs = param.Int("max_epochs", 100,
		"stop after this many epochs without a clean one (non-separable data cycles for ever)").Range(1, 100000)
	kpercKernel = NewKernelParams(kernel.KindPoly, 2, 0, 1)
)

func newPerceptron(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	data, k, y, err := classSetup(cfg, kpercPreset.Get(v), kpercN.Get(v), kpercKernel)
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x70657263)) // "perc"
	p, err := kernel.NewPerceptron(kernel.Gram(k, data.X), y, kernel.PerceptronConfig{
		Bias: true, Order: kpercOrder.Get(v), MaxEpochs: kpercMaxEpochs.Get(v),
	}, rng)
	if err != nil {
		return nil, err
	}
	s := &perceptronSim{data: data, y: y, k: k, p: p, cls: data.Int(), cum: sims.NewTrace(0, 1), differ: -1,
		truth: cfg.Data == nil && kpercPreset.Get(v) == presetEllipse}
	if phi, doc := explicitMap(k, data.D()); phi != nil {
		feats := make([][]float64, data.N())
		for i, x := range data.X {
			feats[i] = phi(x)
		}
		s.primal, _ = kernel.NewPrimal(feats, y)
		s.mapDoc = doc
	}
	s.px, s.py = columns(data)
	if s.view, s.kg = decisionMap(k, data, s.px, s.py, true); s.kg != nil {
		s.fg = make([]float64, mapNX*mapNY)
		n := data.N()
		s.fx, s.fy = make([]float64, n), make([]float64, n)
		for i := range s.fx {
			s.fx[i], s.fy[i] = s.px[i]*s.px[i], s.py[i]*s.py[i]
		}
		s.fview = sims.Bounds(s.fx, s.fy).Pad(0.05)
	}
	s.cum.Add(0)
	return s, nil
}

// explicitMap returns a feature map φ with ⟨φ(x), φ(z)⟩ = k(x, z) + 1 (the
// bias input included) for the kernels that have a small one: linear
// (φ = (1, x)), poly of degree 1 (φ = (1, √c, x)) and, in 2-D, poly of
// degree 2 (φ = (1, x₁², x₂², √2x₁x₂, √(2c)x₁, √(2c)x₂, c); with c = 0 it is
// seed 003's Φ(x) = (x₁², x₂², √2x₁x₂) of L207 plus the bias).
func explicitMap(k kernel.Kernel, d int) (func([]float64) []float64, string) {
	switch k := k.(type) {
	case kernel.Linear:
		return func(x []float64) []float64 { return append([]float64{1}, x...) }, "Φ(x) = (1, x)"
	case kernel.Poly:
		c := k.Coef0
		switch {
		case k.Degree == 1:
			return func(x []float64) []float64 { return append([]float64{1, math.Sqrt(c)}, x...) }, "Φ(x) = (1, √c, x)"
		case k.Degree == 2 && d == 2 && c == 0:
			return kernel.QuadFeatures, "Φ(x) = (1, x₁², x₂², √2x₁x₂)"
		case k.Degree == 2 && d == 2:
			s := math.Sqrt(2 * c)
			return func(x []float64) []float64 {
				return []float64{1, x[0] * x[0], x[1] * x[1], math.Sqrt2 * x[0] * x[1], s * x[0], s * x[1], c}
			}, "Φ(x) = (1, x₁², x₂², √2x₁x₂, √(2c)x, c)"
		}
	}
	return nil, ""
}

func (s *perceptronSim) Step() error {
	before := s.p.Mistakes()
	err := s.p.Step()
	if err != nil {
		if errors.Is(err, kernel.ErrMaxEpochs) {
			// Cycling for ever is how the perceptron fails on data its
			// feature space cannot separate (the theorem assumes it can).
			return algo.Diverged("%d epochs without a clean one: %s + 1 does not separate this data", s.p.Epoch(), s.k)
		}
		return err
	}
	k := s.p.Last()
	if s.primal != nil && s.differ < 0 {
		// Each step adds at most one mistake to either history, so
		// comparing the last ones keeps the whole histories compared.
		s.primal.Present(k)
		dh, ph := s.p.History(), s.primal.History()
		if len(dh) != len(ph) || (len(dh) > 0 && dh[len(dh)-1] != ph[len(ph)-1]) {
			s.differ = min(len(dh), len(ph)) - 1
		} else {
			s.agree = len(dh)
		}
	}
	if s.p.Mistakes() > before && s.fg != nil {
		col := s.kg.col(k)
		for c, kv := range col {
			s.fg[c] += s.y[k] * kv
		}
	}
	s.cum.Add(float64(s.p.Mistakes()))
	return nil
}

func (s *perceptronSim) accuracy() float64 {
	ok := 0
	for i, f := range s.p.Scores() {
		if s.y[i]*f > 0 {
			ok++
		}
	}
	return float64(ok) / float64(len(s.y))
}

func (s *perceptronSim) Frame() sims.Frame {
	sv := 0
	for _, a := range s.p.Alpha() {
		if a > 0 {
			sv++
		}
	}
	x0, x1 := s.cum.Span()
	charts := []sims.Chart{}
	if s.fg != nil {
		charts = append(charts, s.regionMap(), s.featureSpace())
	}
	charts = append(charts, sims.LineChart{
		Title: "mistakes so far", X0: x0, X1: x1, XLabel: "examples presented",
		Series: []sims.Series{{Name: "mistakes = Σα", Y: s.cum.Column(0)}},
	})
	return sims.Frame{
		Sim:  Perceptron.Name,
		Step: s.p.Steps(),
		Metrics: []sims.Metric{
			{Name: "mistakes", Value: float64(s.p.Mistakes())},
			{Name: "epoch", Value: float64(s.p.Epoch())},
			{Name: "epoch_mistakes", Value: float64(s.p.EpochMistakes())},
			{Name: "alpha>0", Value: float64(sv)},
			{Name: "accuracy", Value: s.accuracy()},
		},
		Charts: charts,
		Text:   s.notes(),
	}
}

func (s *perceptronSim) regionMap() sims.CanvasChart {
	// Only the sign is drawn, as ±½ on a diverging scale of [−3, 3] in six
	// bands: pale blue and pale red, on which points of both classes stay
	// visible, with one level line (in monochrome) at F = 0.
	z := make([]float64, len(s.fg))
	for i, f := range s.fg {
		z[i] = 0.5
		if f <= 0 {
			z[i] = -0.5
		}
	}
	heat := &sims.Grid{NX: mapNX, NY: mapNY, Z: z, Scale: sims.Diverging, Lo: -3, Hi: 3, Levels: 6}
	var markers []sims.Marker
	for i, a := range s.p.Alpha() {
		if a > 0 {
			markers = append(markers, sims.Marker{X: s.px[i], Y: s.py[i], Glyph: '○', Class: s.cls[i]})
		}
	}
	if k := s.p.Last(); k >= 0 {
		markers = append(markers, sims.Marker{X: s.px[k], Y: s.py[k], Glyph: '◆', Class: 4})
	}
	return sims.CanvasChart{
		Title: "sign of F(x), ○ α > 0, ◆ the example just seen",
		View:  s.view, Heat: heat,
		Points:  []sims.PointSet{{Name: "data", X: s.px, Y: s.py, Classes: s.cls}},
		Markers: markers, Legend: classLegend,
		XLabel: s.data.Features[0], YLabel: s.data.Features[1],
	}
}

// featureSpace plots the points at (x₁², x₂²), where seed 003 Fig 2.1's
// ellipse becomes the line z₁/2.25 + z₂ = 1.
func (s *perceptronSim) featureSpace() sims.CanvasChart {
	c := sims.CanvasChart{
		Title:  "feature space (x₁², x₂²)",
		View:   s.fview,
		Points: []sims.PointSet{{Name: "data", X: s.fx, Y: s.fy, Classes: s.cls}},
		Legend: classLegend,
		XLabel: "z₁=x₁²", YLabel: "z₂=x₂²",
	}
	if s.truth {
		c.Paths = []sims.Path{{X: []float64{0, dataset.EllipseA2}, Y: []float64{1, 0}, Class: -1, Dotted: true}}
	}
	return c
}

func (s *perceptronSim) notes() []string {
	lines := []string{fmt.Sprintf("%s + 1 (bias x₀ = 1): one step presents one example; a mistake (yF ≤ 0) adds 1 to its α", s.k)}
	switch {
	case s.primal == nil:
		lines = append(lines, "no small explicit feature map for this kernel: the primal check needs linear or poly (degree ≤ 2 in 2-D)")
	case s.differ >= 0:
		lines = append(lines, fmt.Sprintf("✗ the primal perceptron on %s differs at mistake %d", s.mapDoc, s.differ+1))
	default:
		lines = append(lines, fmt.Sprintf("✓ primal perceptron on %s: the same %s", s.mapDoc, sims.Count(s.agree, "mistake")))
	}
	if pe := s.p.PerEpoch(); len(pe) > 0 {
		lines = append(lines, fmt.Sprintf("mistakes in the last epoch: %d (a clean epoch ends the run)", pe[len(pe)-1]))
	}
	if s.truth {
		lines = append(lines, "dotted: the true ellipse x₁²/2.25 + x₂² = 1, a line in feature space (Fig 2.1)")
	}
	return lines
}

func (s *perceptronSim) Result() map[string]any {
	alpha := append([]int(nil), s.p.Alpha()...)
	return map[string]any{
		"alpha":           alpha,
		"mistakes":        s.p.Mistakes(),
		"epochs":          s.p.Epoch(),
		"mistake_indices": append([]int(nil), s.p.History()...),
		"primal_agrees":   s.primal != nil && s.differ < 0,
		"accuracy":        s.accuracy(),
	}
}
