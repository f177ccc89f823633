// Package pushforwardsim turns algo/pushforward into a sim.
package pushforwardsim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/thelab/lab/algo/pushforward"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// Pushforward draws X from a source, pushes it through a map T and shows the
// histogram of Y = T(X) against the change-of-variables density (seed 002
// §1.3, Thm 1.1, eq 1.5), summed over the branches of T⁻¹ when T is not
// invertible (x², Ex 1.3); inverse-CDF sampling is the uniform source with a
// quantile map. A discrete source (Ex 1.2) gives bars of the push-forward
// pmf (eq 1.6). A χ² goodness-of-fit test of the Y counts against the exact
// law and P(Y < c) (Ex 1.3: 0.682689 for c = 1) are tracked live.
var Pushforward = &sims.Spec{
	Name:   "pushforward",
	Title:  "Push-forward and inverse-CDF sampling: histogram of T(X) vs the change-of-variables density",
	Source: "seed 002 §1.3 (Def 1.1, Ex 1.2, Ex 1.3, Thm 1.1 eq 1.5, eq 1.6)",
	Steps:  200,
	Speed:  10,
	Params: param.List(pfMap, pfSource, pfA, pfB, pfC, pfBatch, pfBins),
	New:    newPushforward,
	// The P(Y < c) Trace with its copy in a Frame, the engine's and the
	// Frame's histograms (source and image, counts and densities: six
	// arrays of bins) and a measured base (the exact curves, the bars).
	Size: func(c sims.Config) int64 { return 2*8*sims.TraceCap + 6*8*int64(pfBins.Get(c.Values)) + 40<<10 },

	Metrics: pushforwardMetrics,
}

// pfMaps is the menu of maps.
var pfMaps = []pushforward.MapKind{pushforward.MapSquare, pushforward.MapAffine, pushforward.MapExp, pushforward.MapTanh,
	pushforward.MapEx12, pushforward.MapExpQuantile, pushforward.MapNormalQuantile, pushforward.MapCauchyQuantile}

// pushforward's parameters.
var (
	pfMap = param.Choice("map", pfMaps, pushforward.MapSquare,
		"T: x² (Ex 1.3), a·x+b, eˣ, tanh x, Ex 1.2's T(1)=a, T(2)=T(3)=b, or a quantile function (inverse-CDF sampling)")
	pfSource = param.Choice("source",
		[]pushforward.SourceKind{pushforward.SourceNormal, pushforward.SourceUniform, pushforward.SourceDiscrete}, pushforward.SourceNormal,
		"X: N(0,1), U(0,1), or Ex 1.2's X on {1,2,3} with P = 0.2, 0.5, 0.3").
		DefaultFunc(defaultSource, "uniform for the quantile maps, discrete for ex1.2, else normal")
	pfA = param.Float("a", 2, "slope of the affine map (≠ 0; map=affine only)").Range(-10, 10)
	pfB = param.Float("b", 1, "intercept of the affine map (map=affine only)").Range(-10, 10)
	pfC = param.Float("c", 1, "threshold of the tracked probability P(Y < c); Ex 1.3: P(X² < 1) = 0.682689").
		Range(-100, 100).
		DefaultWhen(func(v param.Values) bool { return pfMap.Get(v) == pushforward.MapEx12 }, 0.5,
			"0.5 for ex1.2 (P(Y < ½) = P(a)), else 1")
	pfBatch = param.Int("batch", 100, "draws per step").Range(1, 100000)
	pfBins  = param.Int("bins", 60, "histogram bins").Range(10, 200)
)

func defaultSource(v param.Values) pushforward.SourceKind {
	switch pfMap.Get(v) {
	case pushforward.MapExpQuantile, pushforward.MapNormalQuantile, pushforward.MapCauchyQuantile:
		return pushforward.SourceUniform
	case pushforward.MapEx12:
		return pushforward.SourceDiscrete
	}
	return pushforward.SourceNormal
}

const curvePoints = 241

type pfSim struct {
	s       *pushforward.Sampler
	below   *sims.Trace // sampled P(Y < c) per step
	xCurve  sims.Curve
	yCurve  sims.Curve
	c       float64
	capNote bool // the density curve was clipped at its integrable singularity
}

func newPushforward(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	src, err := pushforward.NewSource(pfSource.Get(v))
	if err != nil {
		return nil, err
	}
	m, err := pushforward.NewMap(pfMap.Get(v), pfA.Get(v), pfB.Get(v))
	if err != nil {
		return nil, err
	}
	s, err := pushforward.NewSampler(src, m, pushforward.Config{Batch: pfBatch.Get(v), Bins: pfBins.Get(v), Threshold: pfC.Get(v)},
		rand.New(rand.NewPCG(cfg.Seed, 0x7075736866776400))) // "pushfwd"
	if err != nil {
		return nil, err
	}
	p := &pfSim{s: s, below: sims.NewTrace(1, 1), c: pfC.Get(v)}
	if !s.Discrete() {
		lo, hi := s.XRange()
		p.xCurve = curve("density of X", lo, hi, src.PDF, math.Inf(1))
		// Clip p_Y where it is infinite (x²'s density at 0, integrable;
		// catalogue A1) at 1.25 × the largest of the bin-averaged exact
		// density and the curve's finite values.
		ylo, yhi := s.YRange()
		w := (yhi - ylo) / float64(pfBins.Get(v))
		top := 0.0
		for _, q := range s.BinMass() {
			top = math.Max(top, q/w)
		}
		for i := 1; i < curvePoints-1; i++ {
			top = math.Max(top, s.Density(ylo+(yhi-ylo)*float64(i)/(curvePoints-1)))
		}
		eps := 1e-12 * (yhi - ylo)
		p.capNote = s.Density(ylo+eps) > 1.25*top || s.Density(yhi-eps) > 1.25*top
		p.yCurve = curve("change-of-variables density (1.5)", ylo, yhi, s.Density, 1.25*top)
	}
	return p, nil
}

// curve samples f on [lo, hi], each value capped at top.
func curve(name string, lo, hi float64, f func(float64) float64, top float64) sims.Curve {
	c := sims.Curve{Name: name, X: make([]float64, curvePoints), Y: make([]float64, curvePoints), Class: 1}
	for i := range curvePoints {
		x := lo + (hi-lo)*float64(i)/(curvePoints-1)
		// The ends are evaluated just inside, where a singular density
		// (x² at 0) takes its limit rather than the 0 of outside the range.
		at := min(max(x, lo+1e-9*(hi-lo)), hi-1e-9*(hi-lo))
		y := f(at)
		if !(y <= top) { // also catches +Inf and NaN at a singular end
			y = top
		}
		c.X[i], c.Y[i] = x, y
	}
	return c
}

func (p *pfSim) Step() error {
	if err := p.s.Step(); err != nil {
		return err
	}
	emp, _ := p.s.Below()
	p.below.Add(emp)
	return nil
}

func (p *pfSim) Frame() sims.Frame {
	s := p.s
	emp, exact := s.Below()
	chi2, df, pv := s.GoodnessOfFit()
	ratio := 0.0
	if df > 0 {
		ratio = chi2 / float64(df)
	}
	metrics := []sims.Metric{
		{Name: "draws", Value: float64(s.N())},
		{Name: "P(Y<c)", Value: emp},
		{Name: "exact", Value: exact},
		{Name: "χ²/df", Value: ratio},
		{Name: "p-value", Value: pv},
	}
	x0, x1 := p.below.Span()
	run := sims.LineChart{
		Title: fmt.Sprintf("P(Y < %g): sampled vs exact", p.c),
		Series: []sims.Series{
			{Name: "sampled", Y: p.below.Column(0), Class: 0},
			{Name: "exact", Y: p.below.Map(func(int) float64 { return exact }), Class: 1, Bound: true},
		},
		X0: x0, X1: x1, XLabel: "step",
	}
	var charts []sims.Chart
	if s.Discrete() {
		charts = append(charts, p.bars()...)
		charts = append(charts, run)
	} else {
		xlo, xhi := s.XRange()
		ylo, yhi := s.YRange()
		charts = append(charts,
			sims.HistChart{Title: "source " + s.Source().Formula(), Lo: xlo, Hi: xhi,
				Density: s.XDensity(nil), Curves: []sims.Curve{p.xCurve}, XLabel: "x"},
			sims.HistChart{Title: "Y = " + s.Map().Formula() + " vs density (1.5)", Lo: ylo, Hi: yhi,
				Density: s.YDensity(nil), Curves: []sims.Curve{p.yCurve}, XLabel: "y"},
			run)
	}
	return sims.Frame{Sim: Pushforward.Name, Step: p.below.Len(), Metrics: metrics, Charts: charts,
		Text: p.notes(emp, exact, chi2, df, pv)}
}

// bars shows the source's pmf and the push-forward pmf, exact against
// sampled.
func (p *pfSim) bars() []sims.Chart {
	s := p.s
	n := float64(max(1, s.N()))
	var out []sims.Chart
	if xv, xp, xc := s.SourceAtoms(); xv != nil {
		src := sims.BarChart{Title: "source X: P(X = x), exact and sampled", Max: 1}
		for i, x := range xv {
			src.Bars = append(src.Bars,
				sims.Bar{Label: fmt.Sprintf("x=%g exact", x), Value: xp[i], Class: 1},
				sims.Bar{Label: fmt.Sprintf("x=%g sampled", x), Value: float64(xc[i]) / n, Class: 0})
		}
		out = append(out, src)
	}
	img := sims.BarChart{Title: "Y = T(X), " + s.Map().Formula() + ": P(Y = y), exact and sampled", Max: 1}
	for i, y := range s.Values() {
		l := pushforward.Label(s.Map(), y)
		img.Bars = append(img.Bars,
			sims.Bar{Label: "y=" + l + " exact", Value: s.PMF()[i], Class: 1},
			sims.Bar{Label: "y=" + l + " sampled", Value: float64(s.Counts()[i]) / n, Class: 0})
	}
	return append(out, img)
}

func (p *pfSim) notes(emp, exact, chi2 float64, df int, pv float64) []string {
	s := p.s
	var lines []string
	switch m := s.Map().Name(); {
	case m == "ex1.2":
		lines = append(lines, "Ex 1.2: P(a) = P(1) = 0.2, P(b) = P(2) + P(3) = 0.8 (eq 1.6); a↦0, b↦1")
	case s.Discrete():
		lines = append(lines, "(T#P)({y}) = P(T⁻¹(y)) (eq 1.6): each value collects its preimages' mass")
	case m == "square":
		lines = append(lines, "x² is not invertible: (1.5) sums over both branches x = ±√y (Ex 1.3)")
	case strings.HasSuffix(m, "-quantile"):
		lines = append(lines, "inverse-CDF sampling: Y = F⁻¹(U), U ~ U(0,1), has CDF F (1.5: p_Y = f)")
	default:
		lines = append(lines, "p_Y(y) = p_X(T⁻¹(y)) |dT⁻¹/dy| (Thm 1.1, eq 1.5)")
	}
	if s.N() > 0 {
		lines = append(lines, fmt.Sprintf("P(Y < %g) = %.6f exact, %.6f sampled (s.e. %.4f)", p.c, exact, emp,
			math.Sqrt(exact*(1-exact)/float64(s.N()))))
	}
	if df > 0 {
		verdict := "consistent with the exact law"
		if pv < 0.001 {
			verdict = "⚠ the counts reject it"
		}
		lines = append(lines, fmt.Sprintf("χ² fit: X² = %.1f on %d df, p = %.3g (%s)", chi2, df, pv, verdict))
	}
	if p.capNote {
		lines = append(lines, "the density is infinite at 0 (integrable): its curve is clipped there")
	}
	return lines
}

func (p *pfSim) Result() map[string]any {
	s := p.s
	emp, exact := s.Below()
	chi2, df, pv := s.GoodnessOfFit()
	res := map[string]any{
		"draws": s.N(), "p_below": emp, "p_below_exact": exact, "c": p.c,
		"chi2": chi2, "df": df, "p_value": pv,
	}
	if s.Discrete() {
		labels := make([]string, len(s.Values()))
		freq := make([]float64, len(s.Values()))
		for i, y := range s.Values() {
			labels[i] = pushforward.Label(s.Map(), y)
			freq[i] = float64(s.Counts()[i]) / float64(max(1, s.N()))
		}
		res["values"], res["pmf"], res["frequencies"] = labels, append([]float64(nil), s.PMF()...), freq
	}
	return res
}
