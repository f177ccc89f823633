package linearsim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/dataset"
	"github.com/thelab/lab/algo/linear"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
	"gonum.org/v1/gonum/floats"
)

// Perceptron is Algorithm 1 of seed 001 §2 on the notes' data (OR, XOR,
// spam), on separable data with a chosen margin, or on 3+ classes by
// one-vs-all or one-vs-one: the points, the hyperplane and the point being
// presented; the mistakes so far under Theorem 2.8's bound (C/γ)², with γ
// the max-margin γ of the homogeneous form; the cycling of Theorem 2.11 on
// XOR. With update=gd-sgd it is the perceptron as (stochastic) gradient
// descent on its loss (§2 L261–L269, §8 L743–L761): full-batch GD and SGD
// side by side, their two lines, the loss of their directions and their
// errors against gradient evaluations.
var Perceptron = &sims.Spec{
	Name:   "perceptron",
	Title:  "Perceptron (Algorithm 1): mistakes under (C/γ)², XOR cycling, one-vs-all / one-vs-one",
	Source: "seed 001 §2 (Algorithm 1, Thm 2.8, Thm 2.11, L261–L269, L309–L317), §8 L743–L761; seed 003 L60–L65",
	Data: "numeric columns, the label in the column named label (else the last): 0/1 or −1/+1 " +
		"for one perceptron, 0..c−1 for c ≥ 3 classes (one-vs-all or one-vs-one); the canvas needs two features",
	Steps: 1000,
	// Two presentations a second: each point's visit, and each mistake's
	// jump of the line, can be followed.
	Speed: 2,
	Params: param.List(perceptronPreset, perceptronN, perceptronGamma, perceptronClasses, perceptronScheme,
		perceptronUpdate, perceptronEta, perceptronOrder),
	New:  newPerceptron,
	Size: perceptronSize,

	Metrics: perceptronMetrics,
}

// perceptron's parameters.
var (
	perceptronPreset = param.Choice("data",
		[]preset{presetSeparable, presetOr, presetXor, presetSpam, presetBlobs}, presetSeparable,
		"separable: random points with margin ≥ gamma; or, xor, spam: the notes' tables (Ex 1.2, 1.3, 2.10); blobs: c classes").BuiltInData()
	perceptronN     = param.Int("n", 40, "number of points (separable, blobs)").Range(4, 5000).BuiltInData()
	perceptronGamma = param.Float("gamma", 0.1,
		"least margin |⟨x, w*⟩| of the separable points about a random unit w* through 0").Range(0, 0.49).OpenMin().BuiltInData()
	perceptronClasses = param.Int("classes", 3, "number of classes (blobs)").Range(3, 8).BuiltInData()
	perceptronScheme  = param.Choice("multiclass", []linear.Scheme{linear.OneVsAll, linear.OneVsOne}, linear.OneVsOne,
		"with 3+ classes: ova trains c perceptrons k-vs-rest, ovo C(c,2) perceptrons k-vs-l")
	perceptronUpdate = param.Choice("update", []perceptronMode{modeAlgorithm1, modeLoss}, modeAlgorithm1,
		"algorithm1: Algorithm 1, a presentation a step; gd-sgd: SGD and full-batch GD on the perceptron loss, "+
			"a gradient evaluation a step (SGD one step, GD one every n; two classes)")
	perceptronEta   = param.Float("eta", 1, "update=gd-sgd: step η of both runs; η = 1 makes SGD Algorithm 1").Range(0, 100).OpenMin()
	perceptronOrder = param.Choice("order", []linear.Order{linear.Cyclic, linear.Random}, linear.Cyclic,
		"presentation order: cyclic x1..xn (the catalogue's traces), or a random permutation per epoch").
		DefaultWhen(func(v param.Values) bool { return perceptronUpdate.Get(v) == modeLoss }, linear.Random,
			"random for update=gd-sgd (each index uniform, as the notes' I)")
)

// perceptronMode is what the perceptron runs: Algorithm 1, or GD and SGD
// on the perceptron loss.
type perceptronMode string

const (
	modeAlgorithm1 perceptronMode = "algorithm1"
	modeLoss       perceptronMode = "gd-sgd"
)

func (m perceptronMode) String() string { return string(m) }

// blobsSD is the spread of the blobs preset: separable clusters.
const blobsSD = 0.7

// perceptronSize is what perceptron holds: its data (the notes' tables
// are a few rows of at most five features), the perceptron's arrays and
// the max-margin's dual weights (a value a row), or the c-class scheme's,
// the mistakes Trace and a measured base (the Frame's charts: the plane's
// shading grid).
func perceptronSize(c sims.Config) int64 {
	v := c.Values
	n, d, classes := perceptronN.Get(v), 2, 2
	switch perceptronPreset.Get(v) {
	case presetOr, presetXor, presetSpam:
		n, d = 6, 5
	case presetBlobs:
		classes = perceptronClasses.Get(v)
	}
	n, d = rowsOf(c, n, d)
	if c.Data != nil {
		classes = dataClasses(c.Data)
	}
	b := dataBytes(n, d, true) + traceBytes(1) + 48<<10
	if perceptronUpdate.Get(v) == modeLoss {
		// GD's and SGD's arrays and the loss trace of four columns
		// (measured: about a quarter of traceBytes(4) more held, from 4
		// to 2000 steps, than the mistakes view's base).
		b += 2*linear.PerceptronDescentBytes(n) + traceBytes(1)
	}
	if classes > 2 {
		return b + linear.MulticlassBytes(n, d+1, classes)
	}
	return b + linear.PerceptronBytes(n) + algo.HeapBytes(8*int64(n))
}

type perceptronSim struct {
	data  *dataset.Labelled
	names []string
	two   bool // two features: draw the plane
	scatter

	bin    *linear.Perceptron // binary
	multi  *linear.Multiclass // 3+ classes
	margin linear.Margin      // max-margin (binary)
	c2     float64            // C² = max ‖(x, 1)‖²
	bound  float64            // C²/γ², +Inf when none
	gammaP float64            // the preset's planted margin (separable), else 0

	mistakes *sims.Trace

	// update=gd-sgd: full-batch GD and SGD on the perceptron loss, and per
	// data pass the loss of their directions and their errors.
	gd, sgd *linear.PerceptronDescent
	losses  *sims.Trace
	evals   int // gradient evaluations spent by each run
	rises   int // GD steps at which L rose
}

func perceptronData(cfg sims.Config) (*dataset.Labelled, error) {
	if cfg.Data != nil {
		return cfg.Data.Labelled(true)
	}
	v := cfg.Values
	switch perceptronPreset.Get(v) {
	case presetOr:
		return dataset.Or(), nil
	case presetXor:
		return dataset.Xor(), nil
	case presetSpam:
		return dataset.Spam(), nil
	case presetBlobs:
		return dataset.Blobs(dataRNG(cfg.Seed), perceptronN.Get(v), perceptronClasses.Get(v), blobsSD)
	}
	l, _, err := dataset.Separable(dataRNG(cfg.Seed), perceptronN.Get(v), perceptronGamma.Get(v))
	return l, err
}

func newPerceptron(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	l, x, err := loadDesign(cfg, perceptronData, true)
	if err != nil {
		return nil, err
	}
	order := perceptronOrder.Get(v)
	rng := rand.New(rand.NewPCG(cfg.Seed, orderStream))
	s := &perceptronSim{data: l, names: featureNames(l), two: l.D() == 2, mistakes: sims.NewTrace(0, 1), bound: math.Inf(1)}
	if s.two {
		s.scatter = newScatter(l)
	}
	if l.Classes > 2 && perceptronUpdate.Get(v) == modeLoss {
		return nil, algo.BadParam("update", modeLoss, "algorithm1 with 3+ classes (gd-sgd is for two)")
	}
	if l.Classes > 2 {
		s.multi, err = linear.NewMulticlass(x, l.Int(), l.Classes, perceptronScheme.Get(v), order, rng)
		if err != nil {
			return nil, err
		}
	} else {
		y, err := l.PlusMinus()
		if err != nil {
			return nil, err
		}
		s.bin, err = linear.NewPerceptron(x, y, order, rng)
		if err != nil {
			return nil, err
		}
		s.margin = linear.MaxMargin(x, y)
		if s.margin.Sep == linear.Separable {
			s.c2, _, s.bound, _ = linear.Novikoff(x, y, s.margin.W)
		}
		if cfg.Data == nil && perceptronPreset.Get(v) == presetSeparable {
			s.gammaP = perceptronGamma.Get(v)
		}
		if perceptronUpdate.Get(v) == modeLoss {
			if err := s.newLoss(x, y, perceptronEta.Get(v), order, cfg.Seed); err != nil {
				return nil, err
			}
		}
	}
	s.mistakes.Add(0)
	return s, nil
}

func (s *perceptronSim) Step() error {
	if s.gd != nil {
		return s.stepLoss()
	}
	var err error
	if s.bin != nil {
		err = s.bin.Step()
		if err == nil {
			s.mistakes.Add(float64(s.bin.Mistakes()))
		}
	} else {
		err = s.multi.Step()
		if err == nil {
			s.mistakes.Add(float64(s.multi.Mistakes()))
		}
	}
	return err
}

func (s *perceptronSim) Frame() sims.Frame {
	if s.gd != nil {
		return s.lossFrame()
	}
	if s.multi != nil {
		return s.multiFrame()
	}
	p := s.bin
	x0, x1 := s.mistakes.Span()
	series := []sims.Series{{Name: "mistakes M", Y: s.mistakes.Column(0), Class: 0}}
	logY := false
	if !math.IsInf(s.bound, 1) {
		series = append(series, sims.Series{Name: fmt.Sprintf("(C/γ)² = %.4g", s.bound),
			Y: s.mistakes.Map(func(int) float64 { return s.bound }), Class: 1, Bound: true})
		// On a log scale: M's few mistakes under a bound of ~100 drew as
		// a flat line at 0. Before the first mistake M has no point.
		logY = true
		m := series[0].Y
		for i, v := range m {
			if v == 0 {
				m[i] = math.NaN()
			}
		}
	}
	var charts []sims.Chart
	if s.two {
		charts = append(charts, s.plane())
	}
	charts = append(charts, sims.LineChart{
		Title: "mistakes vs Thm 2.8", Series: series, X0: x0, X1: x1, XLabel: "presentation t", LogY: logY,
	})
	if !s.two {
		charts = append(charts, sims.BarChart{Title: "|w_j|, |b| (sign in label)",
			Bars: signedBars(append(append([]string(nil), s.names...), "b"), p.Theta())})
	}
	if n := s.data.N(); n <= 12 {
		bars := make([]sims.Bar, n)
		for i, a := range p.Alpha() {
			bars[i] = sims.Bar{Label: fmt.Sprintf("x%d", i+1), Value: float64(a), Class: s.data.Int()[i]}
		}
		charts = append(charts, sims.BarChart{Title: "α_i = mistakes on x_i", Bars: bars})
	}
	errs := p.Errors()
	return sims.Frame{
		Sim:  Perceptron.Name,
		Step: p.Presentations(),
		Metrics: []sims.Metric{
			{Name: "mistakes", Value: float64(p.Mistakes())},
			{Name: "errors", Value: float64(errs)},
			{Name: "epoch", Value: float64(p.Epochs())},
			sims.MetricOr("bound", s.bound, "the data are not linearly separable: no margin γ, no bound"),
		},
		Charts: charts,
		Text:   s.notes(errs),
	}
}

// plane draws the points, the shaded half-planes, the line ⟨x, w⟩ + b = 0,
// the normal w (Prop 2.7: w ⟂ H) and the point presented last.
func (s *perceptronSim) plane() sims.CanvasChart {
	th := s.bin.Theta()
	w1, w2, b := th[0], th[1], th[2]
	heat := sims.SampleGrid(s.view, gridX, gridY, func(x, y float64) float64 {
		if w1*x+w2*y+b > 0 {
			return 1
		}
		return 0
	})
	// Levels makes a monochrome screen draw the boundary as a level line
	// rather than shading a half-plane.
	heat.Scale, heat.Lo, heat.Hi, heat.Levels = sims.Categorical, 0, 1, 2
	paths := []sims.Path{lineInView(s.view, w1, w2, b, 4, false)}
	if nw := math.Hypot(w1, w2); nw > 0 {
		// The normal w, drawn from the point of H nearest the view's centre.
		cx, cy := (s.view.XMin+s.view.XMax)/2, (s.view.YMin+s.view.YMax)/2
		d := (w1*cx + w2*cy + b) / (nw * nw)
		px, py := cx-d*w1, cy-d*w2
		l := 0.12 * math.Min(s.view.XMax-s.view.XMin, s.view.YMax-s.view.YMin)
		paths = append(paths, sims.Path{X: []float64{px, px + l*w1/nw}, Y: []float64{py, py + l*w2/nw}, Class: 4})
	}
	var markers []sims.Marker
	if i, mistake := s.bin.Last(); i >= 0 {
		m := sims.Marker{X: s.xs[i], Y: s.ys[i], Glyph: '◉', Class: 2}
		if mistake {
			m.Glyph, m.Class = '✗', 7
		}
		markers = append(markers, m)
	}
	return sims.CanvasChart{
		Title:   "H: ⟨x,w⟩ + b = 0, normal w",
		View:    s.view,
		Heat:    heat,
		Points:  s.points(),
		Paths:   paths,
		Markers: markers,
		Legend:  classLegend(2),
		XLabel:  s.xl, YLabel: s.yl,
	}
}

func (s *perceptronSim) notes(errs int) []string {
	p := s.bin
	var lines []string
	if i, mistake := p.Last(); i >= 0 {
		verdict := "correct: no update"
		if mistake {
			verdict = "mistake (y⟨x̃,w̃⟩ ≤ 0): w ← w + y x, b ← b + y"
		}
		lines = append(lines, fmt.Sprintf("t = %d: x%d (y = %s) %s", p.Presentations(), i+1, pm(p.Y()[i]), verdict))
	} else {
		lines = append(lines, "start: w = 0, b = 0; each step presents one point (≤ 0 counts as a mistake)")
	}
	m := p.Mistakes()
	switch s.margin.Sep {
	case linear.Separable:
		g := fmt.Sprintf("  C² = max‖(x,1)‖² = %.4g, γ = %.4g of the max-margin w*", s.c2, s.margin.Gamma)
		if s.gammaP > 0 {
			g += fmt.Sprintf(" (planted: ≥ %g)", s.gammaP)
		}
		lines = append(lines, fmt.Sprintf("Thm 2.8: M = %s ≤ (C/γ)² = %.4g", sims.Count(m, "mistake"), s.bound), g)
	case linear.NotSeparable:
		lines = append(lines, "not linearly separable: 0 lies in the hull of the y·(x,1), so no (C/γ)² bound")
	default:
		lines = append(lines, "separability undetermined within the budget: no bound drawn")
	}
	if period, at, ok := p.Cycle(); ok {
		lines = append(lines, fmt.Sprintf("Thm 2.11: w̃(t=%d) = w̃(t=%d): cycling, period %d, %d mistakes per cycle",
			at, at-period, period, p.CycleMistakes()))
	}
	switch {
	case p.Converged():
		lines = append(lines, fmt.Sprintf("converged: a full pass without mistakes, w = %s, b = %.4g", fmtVec(p.W()), p.B()))
	case errs > 0:
		lines = append(lines, fmt.Sprintf("%d of %d points misclassified now; w = %s, b = %.4g", errs, s.data.N(), fmtVec(p.W()), p.B()))
	}
	if s.data.Name == "spam" {
		q := p.W()
		score := p.B()
		for j, v := range dataset.SpamQuery {
			score += q[j] * v
		}
		verdict := "spam (+)"
		if score <= 0 {
			verdict = "not spam (−)"
		}
		lines = append(lines, fmt.Sprintf("test e-mail x′ = (1,1,0,0,0): score %.4g → %s", score, verdict))
	}
	return lines
}

func (s *perceptronSim) multiFrame() sims.Frame {
	mc := s.multi
	x0, x1 := s.mistakes.Span()
	bins := mc.Binaries()
	bars := make([]sims.Bar, len(bins))
	for i, b := range bins {
		label := fmt.Sprintf("%d vs rest", b.Pos)
		if b.Neg >= 0 {
			label = fmt.Sprintf("%d vs %d", b.Pos, b.Neg)
		}
		bars[i] = sims.Bar{Label: label, Value: float64(b.Mistakes), Class: b.Pos}
	}
	var charts []sims.Chart
	if s.two {
		scratch := make([]float64, mc.Classes())
		pt := make([]float64, 2)
		heat := sims.SampleGrid(s.view, gridX, gridY, func(x, y float64) float64 {
			pt[0], pt[1] = x, y
			return float64(mc.Predict(pt, scratch))
		})
		heat.Scale, heat.Lo, heat.Hi, heat.Levels = sims.Categorical, 0, float64(mc.Classes()-1), mc.Classes()
		var markers []sims.Marker
		if i, mistake := mc.Last(); i >= 0 {
			m := sims.Marker{X: s.xs[i], Y: s.ys[i], Glyph: '◉', Class: 9}
			if mistake {
				m.Glyph, m.Class = '✗', 7
			}
			markers = append(markers, m)
		}
		charts = append(charts, sims.CanvasChart{
			Title:   fmt.Sprintf("%s regions, %d classes", strings.ToUpper(string(mc.Scheme())), mc.Classes()),
			View:    s.view,
			Heat:    heat,
			Points:  s.points(),
			Markers: markers,
			Legend:  classLegend(mc.Classes()),
			XLabel:  s.xl, YLabel: s.yl,
		})
	}
	charts = append(charts,
		sims.BarChart{Title: "mistakes per perceptron", Bars: bars},
		sims.LineChart{Title: "total mistakes", Series: []sims.Series{{Name: "mistakes", Y: s.mistakes.Column(0)}},
			X0: x0, X1: x1, XLabel: "presentation t"},
	)
	acc := mc.Accuracy()
	scheme := "one-vs-all: ŷ = argmax_k ⟨x̃, w_k⟩ (c imbalanced perceptrons)"
	if mc.Scheme() == linear.OneVsOne {
		scheme = "one-vs-one: ŷ = argmax_k Σ_l ⟨x̃, w_kl⟩, w_lk = −w_kl (C(c,2) balanced perceptrons)"
	}
	lines := []string{scheme, fmt.Sprintf("training accuracy %.3f after %d presentations (%d epochs); ties go to the lowest class",
		acc, mc.Presentations(), mc.Epochs())}
	if mc.Converged() {
		lines = append(lines, "converged: every binary perceptron made a full pass without mistakes")
	} else if mc.Scheme() == linear.OneVsAll {
		lines = append(lines, "a class need not be separable from the rest: one-vs-all may never converge")
	}
	return sims.Frame{
		Sim:  Perceptron.Name,
		Step: mc.Presentations(),
		Metrics: []sims.Metric{
			{Name: "mistakes", Value: float64(mc.Mistakes())},
			{Name: "accuracy", Value: acc},
			{Name: "epoch", Value: float64(mc.Epochs())},
		},
		Charts: charts,
		Text:   lines,
	}
}

func (s *perceptronSim) Result() map[string]any {
	if s.gd != nil {
		r := map[string]any{
			"evaluations": s.evals, "gd_w": s.gd.Theta(), "sgd_w": s.sgd.Theta(),
			"gd_loss": s.gd.Loss(), "sgd_loss": s.sgd.Loss(), "gd_steps": s.gd.Steps(), "sgd_steps": s.sgd.Steps(),
			"gd_errors": s.gd.Errors(), "sgd_errors": s.sgd.Errors(), "sgd_mistakes": s.sgd.Mistakes(),
			"gd_converged": s.gd.Converged(), "sgd_converged": s.sgd.Converged(), "gd_loss_rises": s.rises,
		}
		if !math.IsInf(s.bound, 1) {
			r["bound"] = s.bound
		}
		return r
	}
	if s.multi != nil {
		mc := s.multi
		var ws [][]float64
		var bs []float64
		var pairs [][2]int
		d := s.data.D()
		for _, b := range mc.Binaries() {
			ws = append(ws, append([]float64(nil), b.W[:d]...))
			bs = append(bs, b.W[d])
			pairs = append(pairs, [2]int{b.Pos, b.Neg})
		}
		return map[string]any{
			"scheme": string(mc.Scheme()), "w": ws, "b": bs, "pairs": pairs,
			"mistakes": mc.Mistakes(), "accuracy": mc.Accuracy(), "presentations": mc.Presentations(),
			"converged": mc.Converged(),
		}
	}
	p := s.bin
	r := map[string]any{
		"w": p.W(), "b": p.B(), "mistakes": p.Mistakes(), "presentations": p.Presentations(),
		"converged": p.Converged(), "errors": p.Errors(), "separability": s.margin.Sep.String(),
	}
	if !math.IsInf(s.bound, 1) {
		r["bound"] = s.bound
		r["gamma"] = s.margin.Gamma
	}
	if period, _, ok := p.Cycle(); ok {
		r["cycle_period"] = period
	}
	return r
}

// pm prints a ±1 label.
func pm(y float64) string {
	if y > 0 {
		return "+1"
	}
	return "−1"
}

// newLoss starts the gd-sgd view: full-batch GD and SGD on the perceptron
// loss with step eta from w̃ = 0, SGD in the order (and from the random
// stream) Algorithm 1 would use, so that at η = 1 it makes Algorithm 1's
// updates.
func (s *perceptronSim) newLoss(x *linear.Design, y []float64, eta float64, order linear.Order, seed uint64) error {
	var err error
	if s.gd, err = linear.NewPerceptronGD(x, y, eta); err != nil {
		return err
	}
	if s.sgd, err = linear.NewPerceptronSGD(x, y, eta, order, rand.New(rand.NewPCG(seed, orderStream))); err != nil {
		return err
	}
	s.losses = sims.NewTrace(0, 4)
	s.recordLoss()
	return nil
}

// dirLoss is L(w̃)/‖w̃‖, the loss of the direction of w̃ (the loss is
// positively homogeneous): undefined at w̃ = 0.
func dirLoss(p *linear.PerceptronDescent) float64 {
	n := floats.Norm(p.Theta(), 2)
	if n == 0 {
		return math.NaN()
	}
	return p.Loss() / n
}

func (s *perceptronSim) recordLoss() {
	n := float64(s.data.N())
	s.losses.Add(dirLoss(s.gd), dirLoss(s.sgd), float64(s.gd.Errors())/n, float64(s.sgd.Errors())/n)
}

// stepLoss spends one gradient evaluation: one SGD step, and at the end
// of each data pass (n evaluations, its cost) one full-batch GD step, each
// run stopping once it has converged.
func (s *perceptronSim) stepLoss() error {
	if s.gd.Converged() && s.sgd.Converged() {
		return algo.ErrConverged
	}
	if !s.sgd.Converged() {
		if err := s.sgd.Step(); err != nil {
			return err
		}
	}
	s.evals++
	if s.evals%s.data.N() == 0 && !s.gd.Converged() {
		before := s.gd.Loss()
		if err := s.gd.Step(); err != nil {
			return err
		}
		if s.gd.Loss() > before {
			s.rises++
		}
	}
	s.recordLoss()
	return nil
}

// The classes of the gd-sgd view's lines (the points are 0 and 1).
const (
	lossGDClass  = 4
	lossSGDClass = 2
)

func (s *perceptronSim) lossFrame() sims.Frame {
	x0, x1 := s.losses.Span()
	var charts []sims.Chart
	if s.two {
		legend := append(classLegend(2), "", "", "")
		legend[lossGDClass], legend[lossSGDClass] = "GD", "SGD"
		var paths []sims.Path
		for _, r := range []struct {
			p     *linear.PerceptronDescent
			class int
		}{{s.gd, lossGDClass}, {s.sgd, lossSGDClass}} {
			th := r.p.Theta()
			paths = append(paths, lineInView(s.view, th[0], th[1], th[2], r.class, r.class == lossSGDClass))
		}
		var markers []sims.Marker
		if i := s.sgd.Last(); i >= 0 {
			markers = append(markers, sims.Marker{X: s.xs[i], Y: s.ys[i], Glyph: '◉', Class: lossSGDClass})
		}
		charts = append(charts, sims.CanvasChart{
			Title: "GD and SGD lines ⟨x,w⟩ + b = 0", View: s.view, Points: s.points(),
			Paths: paths, Markers: markers, Legend: legend, XLabel: s.xl, YLabel: s.yl,
		})
	}
	charts = append(charts,
		sims.LineChart{Title: "loss of the direction L(w̃)/‖w̃‖", Series: []sims.Series{
			{Name: "GD", Y: s.losses.Column(0), Class: lossGDClass},
			{Name: "SGD", Y: s.losses.Column(1), Class: lossSGDClass},
		}, X0: x0, X1: x1, XLabel: "gradient evaluations (GD: n a step)"},
		sims.LineChart{Title: "training errors (fraction, ≤ 0 counts)", Series: []sims.Series{
			{Name: "GD", Y: s.losses.Column(2), Class: lossGDClass},
			{Name: "SGD", Y: s.losses.Column(3), Class: lossSGDClass},
		}, X0: x0, X1: x1, XLabel: "gradient evaluations", Fraction: true},
	)
	return sims.Frame{
		Sim:  Perceptron.Name,
		Step: s.evals,
		Metrics: []sims.Metric{
			{Name: "epoch", Value: float64(s.evals / s.data.N())},
			{Name: "mistakes", Value: float64(s.sgd.Mistakes())},
			sims.MetricOr("bound", s.bound, "the data are not linearly separable: no margin γ, no bound"),
			{Name: "loss GD", Value: s.gd.Loss()},
			{Name: "loss SGD", Value: s.sgd.Loss()},
			{Name: "errors GD", Value: float64(s.gd.Errors())},
			{Name: "errors SGD", Value: float64(s.sgd.Errors())},
		},
		Charts: charts,
		Text:   s.lossNotes(),
	}
}

// lossNotes say what the two runs do and which theorem holds. The mistake
// test is y⟨x̃, w̃⟩ ≤ 0 (L185, ℓ′(t) = −1 for t ≤ 0 at L636), not the
// "< 0" of the notes' prose at L189 (catalogue [A1]): with < 0 no step
// would leave w̃ = 0.
func (s *perceptronSim) lossNotes() []string {
	var lines []string
	state := func(name string, p *linear.PerceptronDescent) string {
		if p.Converged() {
			return fmt.Sprintf("%s converged after %s", name, sims.Count(p.Steps(), "step"))
		}
		return fmt.Sprintf("%s: %s after %s", name, sims.Count(p.Errors(), "error"), sims.Count(p.Steps(), "step"))
	}
	lines = append(lines, state("GD", s.gd)+"; "+state("SGD", s.sgd))
	switch s.margin.Sep {
	case linear.Separable:
		lines = append(lines, fmt.Sprintf("Thm 2.8: SGD's mistakes M = %d ≤ (C/γ)² = %.4g at any η; GD's: Σm_k ≤ (C/γ)²·max m_k",
			s.sgd.Mistakes(), s.bound))
	case linear.NotSeparable:
		lines = append(lines, "not linearly separable: L > 0 at every w̃ ≠ 0; neither run converges")
	}
	lines = append(lines,
		"GD: w̃ ← w̃ + η(1/n)Σ y_i x̃_i 𝕀[y_i⟨x̃_i,w̃⟩ ≤ 0], one step per n evaluations; SGD: w̃ ← w̃ + η y_I x̃_I 𝕀[…]",
		"L(0) = 0: w̃ = 0 minimises L (a feasibility problem); the ≤ 0 convention's subgradient −y x̃ moves off it",
		fmt.Sprintf("L is homogeneous: η only scales w̃ (same lines). A subgradient step need not lower L: GD's rose at %d of %d",
			s.rises, s.gd.Steps()))
	return lines
}
