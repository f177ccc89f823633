package linearsim

import (
	"fmt"
	"math"
	"strings"

	"github.com/thelab/lab/algo/linear"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// losses' parameters.
var (
	lossesP = param.Float("p", 0.7,
		"the p = Pr[Y = +1 | x] the sweep ends on (0.7 gives the catalogue's values)").Range(0.01, 0.99)
	lossesGrid = param.Int("grid", 49, "number of p values k/(grid+1) swept before resting at p").Range(9, 999)
)

// Losses is the loss zoo and classification calibration of seed 001 §6
// (Definition 6.2, Theorem 6.3, Corollary 6.4, Remark 6.5): the 0-1, hinge,
// perceptron, logistic, squared and exponential losses against yŷ; the
// conditional risk p ℓ(ŷ) + (1 − p) ℓ(−ŷ) at a p = Pr[Y = +1 | x] and its
// minimiser; and that minimiser against p, swept over (0, 1), in the
// region where its sign is the Bayes rule's.
var Losses = &sims.Spec{
	Name:   "losses",
	Title:  "Loss zoo and classification calibration: the minimiser of the conditional risk against p",
	Source: "seed 001 §6 (Def 6.1, Def 6.2, Thm 6.3, Cor 6.4, Remark 6.5; L542–L586)",
	Steps:  200,
	// A sweep of ~50 values of p in 25 seconds.
	Speed:  2,
	Params: param.List(lossesP, lossesGrid),
	New:    newLosses,
	Size:   lossesSize,

	Metrics: lossesMetrics(),
}

// lossesSize is what losses holds: the sweep's Trace (p and the minimiser
// of each loss: room for sims.TraceCap rows) and its copy in a Frame (one
// row a value of the grid), besides a measured base (the curves, the
// calibration grid, the Frame's other charts).
func lossesSize(c sims.Config) int64 {
	cols := int64(1 + len(linear.Losses))
	rows := int64(min(lossesGrid.Get(c.Values)+2, sims.TraceCap))
	return 8*cols*(sims.TraceCap+rows) + 112<<10
}

type lossesSim struct {
	cal   *linear.Calibration
	swept *sims.Trace // p, then the minimiser of each convex loss
	zoo   []sims.Path
	exact []sims.Path // closed-form minimisers against p
	bayes *sims.Grid
}

// The windows of the three canvases.
var (
	zooView  = sims.Rect{XMin: -2, XMax: 2.5, YMin: 0, YMax: 4}
	riskView = sims.Rect{XMin: -2.5, XMax: 2.5, YMin: 0, YMax: 2.5}
	minView  = sims.Rect{XMin: 0, XMax: 1, YMin: -2.5, YMax: 2.5}
)

func newLosses(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	cal, err := linear.NewCalibration(lossesGrid.Get(v), lossesP.Get(v))
	if err != nil {
		return nil, err
	}
	s := &lossesSim{cal: cal, swept: sims.NewTrace(1, 1+len(linear.Losses))}
	for i, l := range linear.Losses {
		s.zoo = append(s.zoo, curve(zooView, func(t float64) float64 { return l.Value(t) }, i))
		if l.Convex() {
			ex := curve(sims.Rect{XMin: 0.002, XMax: 0.998}, func(p float64) float64 {
				y, _ := l.ClosedFormMinimiser(p)
				return y
			}, i)
			ex.Dotted = true
			s.exact = append(s.exact, ex)
		}
	}
	// Where sgn ŷ = sgn(2p − 1): green; elsewhere red (calibration fails there).
	s.bayes = sims.SampleGrid(minView, 64, 32, func(p, y float64) float64 {
		if (2*p-1)*y > 0 {
			return 2
		}
		return 7
	})
	s.bayes.Scale, s.bayes.Lo, s.bayes.Hi, s.bayes.Levels = sims.Categorical, 2, 7, 2
	return s, nil
}

// curve samples y = f(x) at 241 points of [v.XMin, v.XMax].
func curve(v sims.Rect, f func(float64) float64, class int) sims.Path {
	const n = 241
	p := sims.Path{X: make([]float64, n), Y: make([]float64, n), Class: class}
	for i := range p.X {
		p.X[i] = v.XMin + (v.XMax-v.XMin)*float64(i)/(n-1)
		p.Y[i] = f(p.X[i])
	}
	return p
}

func (s *lossesSim) Step() error {
	if err := s.cal.Step(); err != nil {
		return err
	}
	if s.cal.Done() {
		return nil // the final step rests at the chosen p, off the sweep
	}
	row := make([]float64, 0, 1+len(linear.Losses))
	row = append(row, s.cal.P())
	for i := range linear.Losses {
		row = append(row, s.cal.Argmin(i))
	}
	s.swept.Add(row...)
	return nil
}

// minimiserName is the pane's name of the metric ŷ*(p) of loss l.
func minimiserName(l linear.Loss) string { return "ŷ* " + string(l) }

func (s *lossesSim) Frame() sims.Frame {
	p := s.cal.P()
	charts := []sims.Chart{
		sims.CanvasChart{Title: "loss ℓ(t) against t = yŷ", View: zooView, Paths: s.zoo,
			Legend: lossNames(), XLabel: "yŷ", YLabel: "ℓ"},
	}
	var metrics []sims.Metric
	if !math.IsNaN(p) {
		metrics = append(metrics, sims.Metric{Name: "p", Value: p})
		charts = append(charts, s.riskChart(p))
		for i, l := range linear.Losses {
			if l.Convex() {
				metrics = append(metrics, sims.Metric{Name: minimiserName(l), Value: s.cal.Argmin(i)})
			}
		}
	} else {
		metrics = append(metrics, sims.Metric{Name: "p", Undefined: "no p swept yet"})
	}
	charts = append(charts, s.minimiserChart())
	return sims.Frame{Sim: Losses.Name, Step: s.cal.Steps(), Metrics: metrics, Charts: charts, Text: s.notes(p)}
}

func lossNames() []string {
	out := make([]string, len(linear.Losses))
	for i, l := range linear.Losses {
		out[i] = short(l)
	}
	return out
}

// riskChart draws C_p(ŷ) = p ℓ(ŷ) + (1 − p) ℓ(−ŷ) for every loss, with its
// minimiser marked.
func (s *lossesSim) riskChart(p float64) sims.CanvasChart {
	var paths []sims.Path
	var markers []sims.Marker
	for i, l := range linear.Losses {
		paths = append(paths, curve(riskView, func(y float64) float64 { return l.ConditionalRisk(p, y) }, i))
		if l.Convex() {
			y := s.cal.Argmin(i)
			markers = append(markers, sims.Marker{X: y, Y: l.ConditionalRisk(p, y), Glyph: '●', Class: i})
		}
	}
	return sims.CanvasChart{Title: fmt.Sprintf("risk C_p(ŷ), p = %.2f", p), View: riskView,
		Paths: paths, Markers: markers, XLabel: "ŷ", YLabel: "C_p"}
}

// minimiserChart draws the closed-form minimisers against p (dotted) and
// the numerically found ones swept so far (solid), over the region where
// the sign agrees with the Bayes rule (green) or not (red).
func (s *lossesSim) minimiserChart() sims.CanvasChart {
	paths := append([]sims.Path(nil), s.exact...)
	ps := s.swept.Column(0)
	var markers []sims.Marker
	for i, l := range linear.Losses {
		if !l.Convex() {
			continue
		}
		paths = append(paths, sims.Path{X: ps, Y: s.swept.Column(1 + i), Class: i})
		if p := s.cal.P(); !math.IsNaN(p) {
			markers = append(markers, sims.Marker{X: p, Y: s.cal.Argmin(i), Glyph: '●', Class: i})
		}
	}
	return sims.CanvasChart{Title: "ŷ*(p); shaded: the Bayes rule's sign", View: minView, Heat: s.bayes,
		Paths: paths, Markers: markers, XLabel: "p", YLabel: "ŷ*"}
}

func (s *lossesSim) notes(p float64) []string {
	if math.IsNaN(p) {
		return []string{
			"each step takes the next p = Pr[Y=+1|x] and minimises p ℓ(ŷ) + (1−p) ℓ(−ŷ) (Def 6.2)",
			"numerically; dotted: the closed forms. Calibrated: sgn ŷ* = sgn(2p−1), the Bayes rule",
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "p = %.2f, ŷ* =", p)
	for i, l := range linear.Losses {
		if l.Convex() {
			fmt.Fprintf(&b, " %s %.3g,", short(l), s.cal.Argmin(i))
		}
	}
	lines := []string{strings.TrimSuffix(b.String(), ","), "  where C_p(ŷ) = p ℓ(ŷ) + (1−p) ℓ(−ŷ) is the conditional risk (Def 6.2)"}
	var cal, not []string
	for _, l := range linear.Losses {
		if c, ok := l.CalibratedByTheorem(); ok && c {
			cal = append(cal, string(l))
		} else if ok {
			not = append(not, string(l))
		}
	}
	lines = append(lines,
		"Thm 6.3: a convex ℓ is calibrated iff ℓ′(0) exists and is < 0:",
		"  ✓ "+strings.Join(cal, ", "),
		"  ✗ "+strings.Join(not, ", ")+": kink at 0 (Remark 6.5), ŷ* = 0 has no sign")
	agree := true
	for i, l := range linear.Losses {
		if c, ok := l.CalibratedByTheorem(); ok && c != s.cal.SignsAgree(i) {
			agree = false
		}
	}
	if agree {
		lines = append(lines, fmt.Sprintf("the sweep agrees so far (%d values of p)", s.cal.Steps()))
	} else {
		lines = append(lines, "⚠ the sweep disagrees with Theorem 6.3")
	}
	return lines
}

func (s *lossesSim) Result() map[string]any {
	argmin := map[string]float64{}
	calibrated := map[string]bool{}
	sweep := map[string]bool{}
	for i, l := range linear.Losses {
		if c, ok := l.CalibratedByTheorem(); ok {
			calibrated[string(l)] = c
			sweep[string(l)] = s.cal.SignsAgree(i)
			if !math.IsNaN(s.cal.P()) {
				argmin[string(l)] = s.cal.Argmin(i)
			}
		}
	}
	r := map[string]any{"argmin": argmin, "calibrated": calibrated, "sweep_signs_agree": sweep, "steps": s.cal.Steps()}
	if p := s.cal.P(); !math.IsNaN(p) {
		r["p"] = p
	}
	return r
}

// short abbreviates a loss's name for a line of text.
func short(l linear.Loss) string {
	switch l {
	case linear.PerceptronL:
		return "perc"
	case linear.Exponential:
		return "exp"
	case linear.Squared:
		return "sq"
	case linear.LogisticL:
		return "logit"
	}
	return string(l)
}
