package otsim

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/ot/gauss"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
	"gonum.org/v1/gonum/mat"
)

// Gauss is optimal transport between two Gaussians in the plane (seed 002
// §5.4, L2189–2197, Brenier's Theorem 5.1): the affine Brenier map
// T(x) = m_ν + A(x − m_μ) with A symmetric positive definite and
// A Σ_μ A = Σ_ν, samples of μ carried along the geodesic
// ((1 − s) Id + s T)#μ one time step per step, the ellipses of μ, ν and
// the law at s, and W₂(μ, μ_s) = s·W₂(μ, ν) growing linearly. W₂² is for
// the cost ‖x − y‖² (L2195); Brenier's ½‖x − y‖² (L2171) has the same map.
var Gauss = &sims.Spec{
	Name:   "ot-gauss",
	Title:  "OT between Gaussians: the Brenier map A, samples moved along the geodesic, W₂² in closed form",
	Source: "seed 002 §5.4 (L2167–2197: Theorem 5.1, the Gaussian map and W₂²)",
	Steps:  60,
	Speed:  2,
	Params: param.List(gsPreset, gsMeanMu, gsCovMu, gsMeanNu, gsCovNu, gsN, gsSteps),
	New:    newGauss,
	Size:   gaussSize,

	Metrics: gaussMetrics,
}

// gaussPreset names a pair of Gaussians of ot-gauss.
type gaussPreset string

func (p gaussPreset) String() string { return string(p) }

const (
	gpDiag    gaussPreset = "diag"
	gpFull    gaussPreset = "full"
	gpShifted gaussPreset = "shifted"
)

// gpDefaults are each preset's means and covariances (xx, xy, yy): the
// catalogue's two E4 examples (W₂² = 5; covariance part 0.929312), and a
// pair far apart with a rotation.
var gpDefaults = map[gaussPreset][4][]float64{
	gpDiag:    {{0, 0}, {4, 0, 1}, {0, 0}, {1, 0, 9}},
	gpFull:    {{0, 0}, {2, 0.5, 1}, {0, 0}, {1, -0.3, 3}},
	gpShifted: {{-3, -1}, {1, 0.8, 1}, {3, 1}, {2, -0.6, 0.5}},
}

func gpDefault(k int) func(param.Values) []float64 {
	return func(v param.Values) []float64 { return gpDefaults[gsPreset.Get(v)][k] }
}

var (
	gsPreset = param.Choice("preset", []gaussPreset{gpDiag, gpFull, gpShifted}, gpShifted,
		"diag: Σ_μ = diag(4,1), Σ_ν = diag(1,9), equal means (W₂² = 5); full: Σ_μ = [[2,.5],[.5,1]], "+
			"Σ_ν = [[1,−.3],[−.3,3]] (covariance part 0.929312); shifted: apart and rotated")
	gsMeanMu = param.Vector("mean_mu", []float64{-3, -1}, "mean of μ").Range(-10, 10).DefaultFunc(gpDefault(0), "the preset's")
	gsCovMu  = param.Vector("cov_mu", []float64{1, 0.8, 1}, "covariance of μ as xx,xy,yy (positive definite)").
			Range(-25, 25).DefaultFunc(gpDefault(1), "the preset's")
	gsMeanNu = param.Vector("mean_nu", []float64{3, 1}, "mean of ν").Range(-10, 10).DefaultFunc(gpDefault(2), "the preset's")
	gsCovNu  = param.Vector("cov_nu", []float64{2, -0.6, 0.5}, "covariance of ν as xx,xy,yy (positive definite)").
			Range(-25, 25).DefaultFunc(gpDefault(3), "the preset's")
	gsN     = param.Int("n", 300, "samples of μ carried along the geodesic").Range(1, 20000)
	gsSteps = param.Int("steps", 60, "time steps from s = 0 to s = 1").Range(1, 10000)
)

// gaussSize is the n samples (the engine's points, images and positions
// at s, and the Frame's two coordinates: 64 bytes a sample, and a few more
// as large arrays fill whole pages) and the trace of W₂(μ, μ_s) with its
// two curves, a row a time step.
func gaussSize(cfg sims.Config) int64 {
	return gsBase + 68*int64(gsN.Get(cfg.Values)) + sims.TraceBytesAfter(1, 2, gsSteps.Get(cfg.Values)+1)
}

// gsBase is what ot-gauss holds whatever its size: the sim, the ellipses
// and the Frame's charts and texts.
const gsBase = 32 << 10

type gsSim struct {
	m      *gauss.Map
	t      *gauss.Transport
	dist   *sims.Trace // W₂(μ, μ_s)
	view   sims.Rect
	arrows []sims.Path // x → T(x) for a few samples, fixed
	asa    float64     // ‖A Σ_μ A − Σ_ν‖_max
	asaOf  float64     // ‖Σ_ν‖_max, the scale of asa
	eig    [2]float64  // eigenvalues of A
	steps  int
	done   bool
}

func newGauss(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	mu, err := gaussian(gsMeanMu.Get(v), gsCovMu.Get(v))
	if err != nil {
		return nil, sims.Blame(err, v, sims.As("cov", gsCovMu))
	}
	nu, err := gaussian(gsMeanNu.Get(v), gsCovNu.Get(v))
	if err != nil {
		return nil, sims.Blame(err, v, sims.As("cov", gsCovNu))
	}
	m, err := gauss.NewMap(mu, nu)
	if err != nil {
		return nil, sims.Blame(err, v, sims.As("mu", gsCovMu), sims.As("nu", gsCovNu))
	}
	t, err := gauss.NewTransport(m, rand.New(rand.NewPCG(cfg.Seed, 0x6761_7573)), gsN.Get(v), gsSteps.Get(v)) // "gaus"
	if err != nil {
		return nil, sims.Blame(err, v, sims.As("n", gsN), sims.As("steps", gsSteps))
	}
	s := &gsSim{m: m, t: t, dist: sims.NewTrace(0, 1), steps: gsSteps.Get(v)}
	s.dist.Add(0)
	var asa mat.Dense
	asa.Mul(m.A, mu.Cov)
	asa.Mul(&asa, m.A)
	asa.Sub(&asa, nu.Cov)
	s.asa, s.asaOf = mat.Norm(&asa, math.Inf(1)), mat.Norm(nu.Cov, math.Inf(1))
	var es mat.EigenSym
	if es.Factorize(m.A, false) {
		ev := es.Values(nil)
		s.eig = [2]float64{ev[0], ev[1]}
	}
	s.view = s.bounds()
	x, tx := t.Samples(), t.Images()
	for i := range min(len(x)/2, 12) {
		s.arrows = append(s.arrows, sims.Path{X: []float64{x[2*i], tx[2*i]}, Y: []float64{x[2*i+1], tx[2*i+1]}, Class: classMark, Dotted: true})
	}
	return s, nil
}

// gaussian is N(mean, [[c0, c1], [c1, c2]]), checked positive definite by
// gauss.NewMap (a *algo.ParamError naming "mu" or "nu").
func gaussian(mean, c []float64) (gauss.Gaussian, error) {
	if c[0]*c[2]-c[1]*c[1] <= 0 || c[0] <= 0 {
		return gauss.Gaussian{}, algo.BadParam("cov", fmt.Sprintf("[[%g, %g], [%g, %g]]", c[0], c[1], c[1], c[2]),
			"positive definite: xx > 0 and xx·yy > xy²")
	}
	return gauss.New2(mean[0], mean[1], c[0], c[1], c[2]), nil
}

// bounds is a view holding both 2.5σ ellipses and every sample and image.
func (s *gsSim) bounds() sims.Rect {
	var xs, ys []float64
	for _, g := range []gauss.Gaussian{s.m.From, s.m.To} {
		e := ellipse(g, 2.5, 0)
		xs, ys = append(xs, e.X...), append(ys, e.Y...)
	}
	for _, pts := range [][]float64{s.t.Samples(), s.t.Images()} {
		px, py := split(pts)
		xs, ys = append(xs, px...), append(ys, py...)
	}
	return sims.Bounds(xs, ys).Pad(0.03)
}

// ellipse is the r-σ ellipse of a 2-D Gaussian.
func ellipse(g gauss.Gaussian, r float64, class int) sims.Path {
	return sims.Ellipse(g.Mean[0], g.Mean[1], g.Cov.At(0, 0), g.Cov.At(0, 1), g.Cov.At(1, 1), r, class)
}

func (s *gsSim) Step() error {
	err := s.t.Step()
	if err == nil || errors.Is(err, algo.ErrConverged) {
		s.dist.Add(s.w2(s.t.S()))
	}
	s.done = errors.Is(err, algo.ErrConverged)
	return err
}

// w2 is W₂(μ, μ_s), computed afresh from the law at s (Map.At): the
// geodesic property makes it s·W₂(μ, ν).
func (s *gsSim) w2(t float64) float64 {
	d, err := gauss.W2Sq(s.m.From, s.m.At(t))
	if err != nil {
		return math.NaN()
	}
	return math.Sqrt(d)
}

func (s *gsSim) Frame() sims.Frame {
	at := s.t.Law()
	px, py := split(s.t.Points())
	pic := sims.CanvasChart{Title: fmt.Sprintf("samples at s = %.2f", s.t.S()), View: s.view,
		Paths: append([]sims.Path{ellipse(s.m.From, 1, classSource), ellipse(s.m.From, 2, classSource),
			ellipse(s.m.To, 1, classTarget), ellipse(s.m.To, 2, classTarget),
			ellipse(at, 1, classPlan), ellipse(at, 2, classPlan)}, s.arrows...),
		Points:  []sims.PointSet{{Name: "samples", X: px, Y: py, Class: classPlan}},
		Markers: []sims.Marker{{X: at.Mean[0], Y: at.Mean[1], Glyph: '✚', Class: classPlan}},
		Legend:  []string{"μ", "ν", "μ_s", "x→T(x)"}}
	w := math.Sqrt(s.m.W2Sq)
	x0, x1 := s.dist.Span()
	line := sims.LineChart{Title: "W₂(μ, μ_s)", X0: x0, X1: x1, XLabel: "step",
		Series: onTop(
			sims.Series{Name: "W₂(μ, μ_s)", Y: s.dist.Column(0), Class: classPlan},
			sims.Series{Name: "s·W₂(μ,ν)", Y: s.dist.Map(func(k int) float64 { return w * float64(k) / float64(s.steps) }), Class: classRef, Bound: true},
		)}
	metrics := []sims.Metric{
		{Name: "s", Value: s.t.S()},
		{Name: "W2sq", Value: s.m.W2Sq},
		{Name: "W2_mu_s", Value: s.w2(s.t.S())},
		{Name: "cov_part", Value: s.m.CovPart},
		{Name: "ASA_err", Value: s.asa, Scale: s.asaOf},
	}
	a := s.m.A
	text := []string{
		fmt.Sprintf("T(x) = m_ν + A(x − m_μ), A = [[%.4g, %.4g], [%.4g, %.4g]]", a.At(0, 0), a.At(0, 1), a.At(1, 0), a.At(1, 1)),
		fmt.Sprintf("A symmetric, eigenvalues %.4g, %.4g > 0: T = ∇ of a convex map (Thm 5.1)", s.eig[0], s.eig[1]),
		fmt.Sprintf("‖A Σ_μ A − Σ_ν‖_max %s: T pushes μ onto ν", sims.IsResidual("%.1e", s.asa, s.asaOf)),
		fmt.Sprintf("W₂² = ‖m_μ − m_ν‖² + tr(Σ_μ + Σ_ν − 2(Σ_μ^½Σ_νΣ_μ^½)^½) = %.4g + %.6g", s.m.MeanPart, s.m.CovPart),
		"μ_s = N((1−s)m_μ + s m_ν, BΣ_μB), B = (1−s)I + sA: W₂(μ, μ_s) = s·W₂(μ, ν)",
	}
	return sims.Frame{Sim: Gauss.Name, Step: s.dist.Len() - 1, Metrics: metrics, Charts: []sims.Chart{pic, line}, Text: text}
}

func (s *gsSim) Result() map[string]any {
	a := s.m.A
	return map[string]any{
		"A":         [][]float64{{a.At(0, 0), a.At(0, 1)}, {a.At(1, 0), a.At(1, 1)}},
		"w2_sq":     s.m.W2Sq,
		"mean_part": s.m.MeanPart,
		"cov_part":  s.m.CovPart,
		"asa_err":   s.asa,
		"eig_A":     []float64{s.eig[0], s.eig[1]},
		"s":         s.t.S(),
	}
}
