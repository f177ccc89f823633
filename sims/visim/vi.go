// Package visim turns algo/vi into sims: coordinate-ascent VI and
// black-box VI.
package visim

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo/target"
	"github.com/thelab/lab/algo/vi"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// VI is mean-field coordinate ascent (CAVI, seed 002 §3.4, eq 3.13) on
// three models. gaussian: the `correlated` target, where the factors'
// variances shrink to σ²(1 − ρ²) and KL(q‖p) falls with every coordinate
// update but stays at −½ log(1 − ρ²) (Ex 3.6). mixture: the assignments of
// data from the `mixture` target under its fixed parameters, where CAVI's
// factors are EM's responsibilities and one sweep closes the ELBO's gap to
// log p(x) (Ex 3.7). bgmm: a Bayesian Gaussian mixture with the mean-field
// family of Ex 3.5, alternating local and global updates with the ELBO never
// decreasing.
var VI = &sims.Spec{
	Name:   "vi",
	Title:  "Mean-field CAVI: a correlated Gaussian, a fixed mixture (= EM's E-step), a Bayesian GMM",
	Source: "seed 002 §3.4 (eqs 3.6–3.13, Ex 3.5, 3.6, 3.7)",
	Steps:  400,
	Speed:  5,
	Params: param.List(viModel, viRho, viM0, viD, viN, viK, viClusters, viSep, viAlpha0, viPriorSD),
	New:    newVI,
	Size:   viSize,

	Metrics: viMetrics,
}

// model is the model a VI sim approximates.
type model string

func (m model) String() string { return string(m) }

const (
	modelGaussian model = "gaussian"
	modelMixture  model = "mixture"
	modelBGMM     model = "bgmm"
	modelLogistic model = "logistic"
)

// maxK is the most mixture components vi offers: what the engines accept
// and the palette tells apart.
const maxK = min(vi.MaxComponents, sims.MaxClasses)

// vi's parameters.
var (
	viModel = param.Choice("model", []model{modelGaussian, modelMixture, modelBGMM}, modelGaussian,
		"gaussian: the correlated target (Ex 3.6); mixture: z_n under fixed parameters (Ex 3.7); bgmm: Bayesian GMM (Ex 3.5)")
	viRho = param.Float("rho", 0.9, "correlation of the target (model=gaussian)").Range(-0.995, 0.995)
	viM0  = param.Vector("m0", []float64{3, -3}, "starting means of the two factors (model=gaussian)").Range(-10, 10)
	viD   = param.Float("d", 3,
		"the mixture's means at ±(d, d) with unit covariances; 3 is the `mixture` target (model=mixture)").Range(0, 6)
	viN        = param.Int("n", 200, "number of data points (model=mixture, bgmm)").Range(10, 5000)
	viK        = param.Int("k", 6, "components of the Bayesian GMM (model=bgmm)").Range(1, maxK)
	viClusters = param.Int("clusters", 3,
		"true clusters of the generated data, unit variance on a ring (model=bgmm)").Range(1, maxK)
	viSep    = param.Float("sep", 5, "radius of the ring of true cluster means (model=bgmm)").Range(0, 20)
	viAlpha0 = param.Float("alpha0", 0.05,
		"Dirichlet prior concentration α₀ on the weights; small values empty the surplus components (model=bgmm)").Range(0, 100).OpenMin()
	viPriorSD = param.Float("prior_sd", 10,
		"prior standard deviation σ₀ of the component means, μ_k ~ N(0, σ₀² I) (model=bgmm)").Range(0, 100).OpenMin()
)

// viSize is what each model holds (per point and component measured at n
// = 200 and 5,000, K = 6 and 10): gaussian fixed grids; mixture its n
// points with their per-point factors; bgmm its n points with their K
// responsibilities, and the components' factors and ellipses.
func viSize(c sims.Config) int64 {
	n, k := int64(viN.Get(c.Values)), int64(viK.Get(c.Values))
	switch viModel.Get(c.Values) {
	case modelMixture:
		return 96*n + 44<<10
	case modelBGMM:
		return n*(48+8*k) + k*(1<<10+128) + 44<<10
	}
	return 112 << 10
}

func newVI(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	switch viModel.Get(v) {
	case modelMixture:
		return newMixtureSim(v, cfg.Seed)
	case modelBGMM:
		return newBGMMSim(v, cfg.Seed)
	}
	return newGaussSim(v)
}

// ---- gaussian (Ex 3.6) ----

type gaussSim struct {
	tg   target.Correlated
	mf   *vi.MeanField
	kl   *sims.Trace // KL − KL*
	path *sims.Trace // m after each update
	heat *sims.Grid
	view sims.Rect
	best float64 // KL* = −½ log(1 − ρ²)
}

func newGaussSim(v param.Values) (sims.Sim, error) {
	tg, err := target.NewCorrelated(viRho.Get(v))
	if err != nil {
		return nil, err
	}
	m0 := viM0.Get(v)
	mf, err := vi.NewMeanField(tg.Mean(), tg.Cov(), m0, 1, 1e-10)
	if err != nil {
		return nil, err
	}
	rho := tg.Rho()
	s := &gaussSim{tg: tg, mf: mf, kl: sims.NewTrace(0, 1), path: sims.NewTrace(0, 2), best: -0.5 * math.Log(1-rho*rho)}
	s.record()
	r := math.Max(3.5, math.Max(math.Abs(m0[0]), math.Abs(m0[1]))+1)
	s.view = sims.Rect{XMin: -r, XMax: r, YMin: -r, YMax: r}
	x := make([]float64, 2)
	s.heat = sims.SampleGrid(s.view, 80, 40, func(a, b float64) float64 { x[0], x[1] = a, b; return tg.Density(x) })
	s.heat.Lo, s.heat.Levels = 0, 6
	return s, nil
}

func (s *gaussSim) record() {
	s.kl.Add(s.mf.KL() - s.best)
	s.path.Add(s.mf.M()[0], s.mf.M()[1])
}

func (s *gaussSim) Step() error {
	if err := s.mf.Step(); err != nil {
		return err
	}
	s.record()
	return nil
}

func (s *gaussSim) Frame() sims.Frame {
	m, sv := s.mf.M(), s.mf.S()
	rho := s.tg.Rho()
	shrink := 1 - rho*rho
	metrics := []sims.Metric{
		{Name: "KL(q‖p)", Value: s.mf.KL()},
		{Name: "s₁", Value: sv[0]},
		{Name: "s₂", Value: sv[1]},
		{Name: "σ²(1−ρ²)", Value: shrink},
		{Name: "m₁", Value: m[0]},
		{Name: "m₂", Value: m[1]},
	}
	truth := []sims.Path{sims.Ellipse(0, 0, 1, rho, 1, 1, 1), sims.Ellipse(0, 0, 1, rho, 1, 2, 1)}
	truth[1].Dotted = true
	q := []sims.Path{sims.Ellipse(m[0], m[1], sv[0], 0, sv[1], 1, 0), sims.Ellipse(m[0], m[1], sv[0], 0, sv[1], 2, 0)}
	q[1].Dotted = true
	paths := append(append(truth, q...), sims.Path{X: s.path.Column(0), Y: s.path.Column(1), Class: 0})
	canvas := sims.CanvasChart{Title: fmt.Sprintf("p = correlated (ρ = %g) vs mean-field q", rho), View: s.view, Heat: s.heat,
		Paths: paths, Markers: []sims.Marker{{X: m[0], Y: m[1], Glyph: '●', Class: 0}},
		Legend: []string{"q = N(m₁,s₁)N(m₂,s₂): 1σ, 2σ, m path", "p: 1σ, 2σ"}, XLabel: "z₁", YLabel: "z₂"}
	x0, x1 := s.kl.Span()
	kl := sims.LineChart{Title: "KL(q‖p) − KL* per coordinate update", LogY: true, X0: x0, X1: x1, XLabel: "update",
		Series: []sims.Series{{Name: "KL − KL*", Y: s.kl.Column(0), Class: 0}}}
	lines := []string{
		"CAVI (3.13): m_j ← μ_j − Λ_jk(m_k − μ_k)/Λ_jj, s_j ← 1/Λ_jj, Λ = Σ⁻¹",
		fmt.Sprintf("Ex 3.6: s_j = σ_jj(1 − ρ²) = %.4g < σ_jj = 1: variances underestimated", shrink),
		fmt.Sprintf("KL* = −½ log(1 − ρ²) = %.4f > 0; the mean's error shrinks ρ² = %.3g a sweep", s.best, rho*rho),
	}
	return sims.Frame{Sim: VI.Name, Step: s.mf.Updates(), Metrics: metrics, Charts: []sims.Chart{canvas, kl}, Text: lines}
}

func (s *gaussSim) Result() map[string]any {
	return map[string]any{
		"m": append([]float64(nil), s.mf.M()...), "s": append([]float64(nil), s.mf.S()...),
		"optimum_s": s.mf.Optimum(), "kl": s.mf.KL(), "kl_optimum": s.best, "updates": s.mf.Updates(),
	}
}

// ---- mixture (Ex 3.7) ----

// mixtureBatch is the number of factor updates per step of the mixture
// model, so that a sweep over 200 points takes 20 steps.
const mixtureBatch = 10

type mixtureSim struct {
	c     *vi.MixtureCAVI
	comps []vi.Component
	x, y  []float64
	elbo  *sims.Trace
	view  sims.Rect
	steps int
}

// fixedMixture is the `mixture` target's parameters, ½N((d, d), I) +
// ½N((−d, −d), I), as fixed mixture components.
func fixedMixture(d float64) []vi.Component {
	id := [][]float64{{1, 0}, {0, 1}}
	return []vi.Component{
		{Weight: 0.5, Mean: []float64{d, d}, Cov: id},
		{Weight: 0.5, Mean: []float64{-d, -d}, Cov: id},
	}
}

func newMixtureSim(v param.Values, seed uint64) (sims.Sim, error) {
	comps := fixedMixture(viD.Get(v))
	pts, _, err := vi.Sample(comps, viN.Get(v), rand.New(rand.NewPCG(seed, 0x6d69785f64617461))) // "mix_data"
	if err != nil {
		return nil, err
	}
	c, err := vi.NewMixtureCAVI(pts, comps, 1e-12, rand.New(rand.NewPCG(seed, 0x63617669)))
	if err != nil {
		return nil, err
	}
	s := &mixtureSim{c: c, comps: comps, x: make([]float64, len(pts)), y: make([]float64, len(pts)), elbo: sims.NewTrace(0, 1)}
	for i, p := range pts {
		s.x[i], s.y[i] = p[0], p[1]
	}
	s.view = sims.Bounds(s.x, s.y).Pad(0.08)
	s.elbo.Add(c.ELBO())
	return s, nil
}

func (s *mixtureSim) Step() error {
	for range mixtureBatch {
		if err := s.c.Step(); err != nil {
			return err
		}
	}
	s.steps++
	s.elbo.Add(s.c.ELBO())
	return nil
}

func (s *mixtureSim) Frame() sims.Frame {
	c := s.c
	gap := c.LogEvidence() - c.ELBO()
	metrics := []sims.Metric{
		{Name: "ELBO", Value: c.ELBO()},
		{Name: "log p(x)", Value: c.LogEvidence()},
		{Name: "gap", Value: gap},
		{Name: "updates", Value: float64(c.Updates())},
	}
	var paths []sims.Path
	for k, comp := range s.comps {
		cv := comp.Cov
		paths = append(paths, sims.Ellipse(comp.Mean[0], comp.Mean[1], cv[0][0], cv[0][1], cv[1][1], 1, k),
			sims.Ellipse(comp.Mean[0], comp.Mean[1], cv[0][0], cv[0][1], cv[1][1], 2, k))
		paths[len(paths)-1].Dotted = true
	}
	nx := c.Point(c.Next())
	canvas := sims.CanvasChart{Title: "points by argmax_k φ_nk; the fixed components", View: s.view,
		Points: []sims.PointSet{{Name: "data", X: s.x, Y: s.y, Classes: c.Assign(nil)}},
		Paths:  paths, Markers: []sims.Marker{{X: nx[0], Y: nx[1], Glyph: '◆', Class: 2}},
		Legend: []string{"component 1", "component 2", "◆ next factor"}, XLabel: "x", YLabel: "y"}
	x0, x1 := s.elbo.Span()
	lc := sims.LineChart{Title: "ELBO per step (10 factor updates) → log p(x)", X0: x0, X1: x1, XLabel: "step",
		Series: []sims.Series{
			{Name: "ELBO", Y: s.elbo.Column(0), Class: 0},
			{Name: "log p(x)", Y: s.elbo.Map(func(int) float64 { return c.LogEvidence() }), Class: 1, Bound: true},
		}}
	lines := []string{
		"Ex 3.7: φ_nk ∝ π_k N(x_n | μ_k, Σ_k): EM's responsibilities (2.12)",
		"fixed parameters: mean field is exact, one sweep closes the gap (3.9)",
		fmt.Sprintf("log p(x) − ELBO = KL(q‖p(z|x)) = %.4g; each update raises the ELBO", gap),
	}
	return sims.Frame{Sim: VI.Name, Step: s.steps, Metrics: metrics, Charts: []sims.Chart{canvas, lc}, Text: lines}
}

func (s *mixtureSim) Result() map[string]any {
	return map[string]any{"elbo": s.c.ELBO(), "log_evidence": s.c.LogEvidence(), "updates": s.c.Updates(),
		"phi": append([]float64(nil), s.c.Phi()...)}
}

// ---- bgmm (Ex 3.5) ----

type bgmmSim struct {
	g    *vi.BayesGMM
	x, y []float64
	elbo *sims.Trace
	view sims.Rect
}

func newBGMMSim(v param.Values, seed uint64) (sims.Sim, error) {
	k, r := viClusters.Get(v), viSep.Get(v)
	var comps []vi.Component
	for j := range k {
		a := 2*math.Pi*float64(j)/float64(k) + 0.3
		comps = append(comps, vi.Component{Weight: 1 / float64(k), Mean: []float64{r * math.Cos(a), r * math.Sin(a)},
			Cov: [][]float64{{1, 0}, {0, 1}}})
	}
	pts, _, err := vi.Sample(comps, viN.Get(v), rand.New(rand.NewPCG(seed, 0x62676d6d5f64)))
	if err != nil {
		return nil, err
	}
	g, err := vi.NewBayesGMM(pts, vi.BGMMConfig{K: viK.Get(v), Alpha0: viAlpha0.Get(v), PriorSD: viPriorSD.Get(v), Tol: 1e-9},
		rand.New(rand.NewPCG(seed, 0x62676d6d)))
	if err != nil {
		return nil, err
	}
	s := &bgmmSim{g: g, x: make([]float64, len(pts)), y: make([]float64, len(pts)), elbo: sims.NewTrace(bgmmFrom, 1)}
	for i, p := range pts {
		s.x[i], s.y[i] = p[0], p[1]
	}
	s.view = sims.Bounds(s.x, s.y).Pad(0.08)
	return s, nil
}

// bgmmFrom is the first half-step whose ELBO is drawn: the start's (φ
// uniform, means at random points) is so low that it would flatten the
// rest of the curve.
const bgmmFrom = 2

func (s *bgmmSim) Step() error {
	if err := s.g.Step(); err != nil {
		return err
	}
	if s.g.HalfSteps() >= bgmmFrom {
		s.elbo.Add(s.g.ELBO())
	}
	return nil
}

// inUse is the share E[π_k] above which a component counts as used.
const inUse = 0.01

func (s *bgmmSim) Frame() sims.Frame {
	g := s.g
	used := 0
	var paths []sims.Path
	var markers []sims.Marker
	bars := sims.BarChart{Title: "E_q[π_k] = α_k / Σα (Dirichlet factor)", Max: 1}
	legend := make([]string, g.K())
	for k := range g.K() {
		w := g.Weight(k)
		bars.Bars = append(bars.Bars, sims.Bar{Label: fmt.Sprintf("k=%d", k+1), Value: w, Class: k})
		legend[k] = fmt.Sprintf("%d", k+1)
		if w <= inUse {
			continue
		}
		used++
		m := g.Mean(k)
		// The component's own 1σ circle (unit covariance), and the 2σ circle of q(μ_k).
		paths = append(paths, sims.Ellipse(m[0], m[1], 1, 0, 1, 1, k))
		markers = append(markers, sims.Marker{X: m[0], Y: m[1], Glyph: '✚', Class: k})
	}
	metrics := []sims.Metric{
		{Name: "ELBO", Value: g.ELBO()},
		{Name: "iter", Value: float64(g.Iter())},
		{Name: "in use", Value: float64(used)},
	}
	canvas := sims.CanvasChart{Title: "points by argmax φ_nk; ✚ m_k and the unit 1σ circle", View: s.view,
		Points: []sims.PointSet{{Name: "data", X: s.x, Y: s.y, Classes: g.Assign(nil)}},
		Paths:  paths, Markers: markers, Legend: legend, XLabel: "x", YLabel: "y"}
	x0, x1 := s.elbo.Span()
	lc := sims.LineChart{Title: "ELBO per half-step, from the first full iteration (never decreases)", X0: x0, X1: x1, XLabel: "half-step",
		Series: []sims.Series{{Name: "ELBO", Y: s.elbo.Column(0), Class: 0}}}
	var phase string
	switch last, ok := g.Last(); {
	case !ok:
		phase = "start: m_k at random points, φ uniform; next: local step"
	default:
		phase = "last: " + last.String()
	}
	lines := []string{
		phase,
		"local: φ_nk ∝ exp(E log π_k + m_kᵀx_n − ½(‖m_k‖² + 2s_k²))",
		"global: α_k = α₀ + N_k, s_k² = 1/(σ₀⁻² + N_k), m_k = s_k² Σ_n φ_nk x_n",
		fmt.Sprintf("q = Dir(α) Π N(m_k, s_k²I) Π Cat(φ_n) (Ex 3.5); %d of %d hold > 1%%", used, g.K()),
	}
	return sims.Frame{Sim: VI.Name, Step: g.HalfSteps(), Metrics: metrics, Charts: []sims.Chart{canvas, lc, bars}, Text: lines}
}

func (s *bgmmSim) Result() map[string]any {
	g := s.g
	means := make([][]float64, g.K())
	weights := make([]float64, g.K())
	for k := range means {
		means[k] = append([]float64(nil), g.Mean(k)...)
		weights[k] = g.Weight(k)
	}
	return map[string]any{"elbo": g.ELBO(), "elbo_trace": append([]float64(nil), g.Trace()...), "means": means,
		"weights": weights, "iterations": g.Iter()}
}
