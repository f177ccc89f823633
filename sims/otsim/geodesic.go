package otsim

import (
	"fmt"
	"math"

	"github.com/thelab/lab/algo/ot/oned"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// Geodesic is displacement interpolation against mixture interpolation on
// the line (seed 002 §5.5, L2354–2377, Figs 5.14–5.15; Ex 5.6): as t runs
// from 0 to 1, the Wasserstein geodesic μ_t = ((1 − t) Id + t T)#μ0, whose
// quantile function is (1 − t)F₀⁻ + tF₁⁻, slides and reshapes one bump into
// the other ("horizontal"), while the mixture (1 − t)μ0 + tμ1 fades one out
// and the other in ("vertical"). Between Gaussians μ_t is Gaussian with
// mean and standard deviation linear in t (Ex 5.6); W₂(μ0, μ_t) = t·W₂(μ0, μ1).
var Geodesic = &sims.Spec{
	Name:     "ot-geodesic",
	Title:    "Displacement against mixture interpolation: the W₂ geodesic slides, the mixture fades",
	Source:   "seed 002 §5.5 (L2354–2377, Figs 5.14–5.15, Ex 5.6)",
	Data:     dataNote + " (1-D: column x only; the source is μ0, the target μ1)",
	DataText: []sims.TextColumn{sideColumn},
	Steps:    100,
	Speed:    5,
	Params:   param.List(geoPair, geoGauss, geoT, geoFrames),
	New:      newGeodesic,
	Size:     geodesicSize,

	Metrics: geodesicMetrics,
}

// geoLaws names the pair of laws of ot-geodesic.
type geoLaws string

func (p geoLaws) String() string { return string(p) }

const (
	geoGaussians geoLaws = "gaussians"
	geoBimodal   geoLaws = "bimodal"
	geoBoxes     geoLaws = "boxes"
)

var (
	geoPair = param.Choice("pair", []geoLaws{geoGaussians, geoBimodal, geoBoxes}, geoGaussians,
		"gaussians: N(m0,s0²) to N(m1,s1²) (Ex 5.6); bimodal: ½N(−2,0.5²) + ½N(2,0.5²) to N(5,1); "+
			"boxes: U[0,1] to U[3,5]").BuiltInData()
	geoGauss  = newGaussPair(0, 1, 6, 0.5, " (pair gaussians)")
	geoT      = param.Float("t", 0, "the time the run starts from; each step moves t by 1/frames up to 1").Range(0, 1)
	geoFrames = param.Int("frames", 100, "steps from t = 0 to t = 1").Range(1, 10000)
)

// geoBins is the number of bins of the drawn densities.
const geoBins = 120

// geodesicSize is the two measures (the pieces of --data or of the
// pair's histograms), μ_t and the mixture on the union of their pieces,
// the density curves and histograms drawn, and the trace of the moments, a
// row a frame, with its five curves.
func geodesicSize(cfg sims.Config) int64 {
	a, b := 2*normalBins, normalBins // bimodal: a mixture of two histograms
	if t := cfg.Data; t != nil {
		a, b, _ = tableAtoms(t)
	}
	return geoBase + 24*3*int64(a+b) + 8*6*geoBins + sims.TraceBytesAfter(3, 5, geoFrames.Get(cfg.Values)+1)
}

// geoBase is what ot-geodesic holds whatever its size: the sim, the
// Frame's charts and texts.
const geoBase = 16 << 10

type geoSim struct {
	a, b           *oned.Measure
	names          [2]string
	t0             float64
	frames         int
	k              int // steps taken
	w2             float64
	lo, hi         float64
	curves         []sims.Curve // the densities of μ0 and μ1
	trace          *sims.Trace  // mean and sd of μ_t, sd of the mixture
	gauss          bool         // Ex 5.6's closed form applies
	m0, s0, m1, s1 float64
	cur            *oned.Measure // μ_t
	mix            *oned.Measure // (1 − t)μ0 + tμ1
}

func newGeodesic(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	s := &geoSim{t0: geoT.Get(v), frames: geoFrames.Get(v), trace: sims.NewTrace(0, 3)}
	if cfg.Data != nil {
		p, err := fromTable(cfg.Data)
		if err != nil {
			return nil, err
		}
		if s.a, s.b, err = discretePair(p, "ot-geodesic"); err != nil {
			return nil, err
		}
		s.names = [2]string{"source", "target"}
	} else {
		switch geoPair.Get(v) {
		case geoGaussians:
			s.m0, s.s0, s.m1, s.s1 = geoGauss.get(v)
			s.a, s.b, s.gauss = normalHist(s.m0, s.s0), normalHist(s.m1, s.s1), true
			s.names = [2]string{fmt.Sprintf("N(%.3g,%.3g²)", s.m0, s.s0), fmt.Sprintf("N(%.3g,%.3g²)", s.m1, s.s1)}
		case geoBimodal:
			s.a, _ = oned.Mixture(normalHist(-2, 0.5), normalHist(2, 0.5), 0.5)
			s.b = normalHist(5, 1)
			s.names = [2]string{"bimodal", "N(5,1)"}
		case geoBoxes:
			s.a, _ = oned.Uniform(0, 1)
			s.b, _ = oned.Uniform(3, 5)
			s.names = [2]string{"U[0,1]", "U[3,5]"}
		}
	}
	s.w2, _ = oned.W(s.a, s.b, 2)
	s.lo, s.hi = span(s.a, s.b)
	pad := 0.04 * (s.hi - s.lo)
	s.lo, s.hi = s.lo-pad, s.hi+pad
	for k, m := range []*oned.Measure{s.a, s.b} {
		s.curves = append(s.curves, densityCurve(m, s.lo, s.hi, fmt.Sprintf("μ%d", k), k))
	}
	if err := s.at(s.t0); err != nil {
		return nil, err
	}
	return s, nil
}

// densityCurve is the density of m over [lo, hi] as a curve (bin masses
// over geoBins bins, atoms spread over their bin).
func densityCurve(m *oned.Measure, lo, hi float64, name string, class int) sims.Curve {
	d := densityBins(m, lo, hi, geoBins)
	x := make([]float64, geoBins)
	for k := range x {
		x[k] = lo + (hi-lo)*(float64(k)+0.5)/geoBins
	}
	return sims.Curve{Name: name, X: x, Y: d, Class: class}
}

// t is the present time.
func (s *geoSim) t() float64 {
	return math.Min(1, s.t0+float64(s.k)/float64(s.frames))
}

// at computes μ_t and the mixture at time t and records their moments.
func (s *geoSim) at(t float64) error {
	var err error
	if s.cur, err = oned.Interpolate(s.a, s.b, t); err != nil {
		return err
	}
	if s.mix, err = oned.Mixture(s.a, s.b, t); err != nil {
		return err
	}
	s.trace.Add(s.cur.Mean(), sd(s.cur), sd(s.mix))
	return nil
}

func (s *geoSim) Step() error {
	if s.t() >= 1 {
		return sims.ErrConverged
	}
	s.k++
	if err := s.at(s.t()); err != nil {
		return err
	}
	if s.t() >= 1 {
		return sims.ErrConverged
	}
	return nil
}

func (s *geoSim) Frame() sims.Frame {
	t := s.t()
	disp := sims.HistChart{Title: "geodesic μ_t", Lo: s.lo, Hi: s.hi,
		Density: densityBins(s.cur, s.lo, s.hi, geoBins), Curves: s.curves, XLabel: "x", Label: "μ_t"}
	mix := sims.HistChart{Title: "mixture", Lo: s.lo, Hi: s.hi,
		Density: densityBins(s.mix, s.lo, s.hi, geoBins), Curves: s.curves, XLabel: "x", Label: "mixture"}
	x0, x1 := s.trace.Span()
	tAt := func(k int) float64 { return math.Min(1, s.t0+float64(k)/float64(s.frames)) }
	series := []sims.Series{
		{Name: "mean μ_t", Y: s.trace.Column(0), Class: classSource},
		{Name: "sd μ_t", Y: s.trace.Column(1), Class: classTarget},
		{Name: "sd mixture", Y: s.trace.Column(2), Class: classBad},
	}
	if s.gauss {
		series = append(series,
			sims.Series{Name: "Ex 5.6 m_t", Y: s.trace.Map(func(k int) float64 {
				m, _ := oned.GaussianGeodesic(s.m0, s.s0, s.m1, s.s1, tAt(k))
				return m
			}), Class: classRef, Bound: true},
			sims.Series{Name: "Ex 5.6 s_t", Y: s.trace.Map(func(k int) float64 {
				_, sd := oned.GaussianGeodesic(s.m0, s.s0, s.m1, s.s1, tAt(k))
				return sd
			}), Class: classRef, Bound: true})
	}
	moments := sims.LineChart{Title: "moments against t", Series: onTop(series...), X0: s.t0 + x0/float64(s.frames),
		X1: math.Min(1, s.t0+x1/float64(s.frames)), XLabel: "t"}
	// the mean's rounding is at the scale of the distribution's spread
	meanScale := sd(s.cur) + math.Abs(s.cur.Mean())
	metrics := []sims.Metric{
		{Name: "t", Value: t},
		{Name: "mean", Value: s.cur.Mean(), Scale: meanScale},
		{Name: "sd", Value: sd(s.cur)},
		{Name: "mix_sd", Value: sd(s.mix)},
		{Name: "W2_0t", Value: t * s.w2},
	}
	text := []string{
		fmt.Sprintf("μ0 = %s, μ1 = %s", s.names[0], s.names[1]),
		"μ_t = ((1−t)Id + tT)#μ0: its quantile is (1−t)F₀⁻ + tF₁⁻ (horizontal)",
		"the mixture (1−t)μ0 + tμ1 keeps both bumps and fades (vertical, Fig 5.14)",
		fmt.Sprintf("W₂(μ0, μ_t) = t·W₂(μ0, μ1) = %.4g: a constant-speed geodesic", t*s.w2),
	}
	if s.gauss {
		m, sdv := oned.GaussianGeodesic(s.m0, s.s0, s.m1, s.s1, t)
		text = append(text, fmt.Sprintf("Ex 5.6: μ_t = N(%.4g, %.4g²): mean and sd linear in t (here %s, %.4g)",
			m, sdv, sims.Residual("%.4g", s.cur.Mean(), meanScale), sd(s.cur)))
	}
	return sims.Frame{Sim: Geodesic.Name, Step: s.k, Metrics: metrics, Charts: []sims.Chart{disp, mix, moments}, Text: text}
}

func (s *geoSim) Result() map[string]any {
	return map[string]any{
		"t":        s.t(),
		"mean":     s.cur.Mean(),
		"sd":       sd(s.cur),
		"mix_sd":   sd(s.mix),
		"w2":       s.w2,
		"w2_0t":    s.t() * s.w2,
		"mean_mu0": s.a.Mean(), "sd_mu0": sd(s.a),
		"mean_mu1": s.b.Mean(), "sd_mu1": sd(s.b),
	}
}
