package pushforwardsim

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo/gaussian"
	"github.com/thelab/lab/algo/mcmc"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// identity is what the gaussian sim draws and checks.
type identity string

// The identities of seed 003 L821–838, and the erratum of (a).
const (
	idConditional identity = "conditional"
	idMarginal    identity = "marginal"
	idSum         identity = "sum"
	idDependent   identity = "sum-dependent"
	idLinear      identity = "linear"
)

func (i identity) String() string { return string(i) }

// gaussian's parameters.
var (
	gaIdentity = param.Choice("identity", []identity{idConditional, idMarginal, idSum, idDependent, idLinear}, idConditional,
		"conditional: x₂ | x₁ in a slice against (c); marginal: x₂ against (b); sum: x + y of independent draws against (a); "+
			"sum-dependent: y a function of x, where (a) fails; linear: Ax + b + ε against (d)")
	gaMu    = param.Vector("mu", []float64{0, 0}, "the mean μ of x").Range(-5, 5)
	gaSD1   = param.Float("sd1", 2, "the standard deviation of x₁").Range(0.1, 5)
	gaSD2   = param.Float("sd2", 1, "the standard deviation of x₂").Range(0.1, 5)
	gaRho   = param.Float("rho", 0.7, "the correlation of x₁ and x₂").Range(-0.99, 0.99)
	gaSlice = param.Float("slice", 1, "conditional: the slice's x₁ = μ₁ + slice·sd1").Range(-2.5, 2.5)
	gaWidth = param.Float("width", 0.25,
		"conditional: the slice's half-width, in sd1 (its spread of x₁ widens the histogram by about (k·width·sd1)²/3)").Range(0.02, 1)
)

// The second Gaussian y of identity sum, and the map of identity linear
// (a rotation by 53° scaled by 0.8, shifted, plus a small noise): fixed,
// so that the parameters stay those of x.
var (
	gaY     = gaussian.Mat{{0.5, -0.3}, {-0.3, 0.8}}
	gaYMu   = [2]float64{1, -1}
	gaA     = gaussian.Mat{{0.48, -0.64}, {0.64, 0.48}}
	gaB     = [2]float64{1, 0}
	gaNoise = gaussian.Mat{{0.05, 0}, {0, 0.05}}
)

// Sizes of what gaussian draws.
const (
	gaKeep   = 1500 // the points drawn: the latest
	gaBins   = 36   // the histogram's bins
	gaCurveN = 121  // points of a density curve
	gaEllN   = 73   // points of an ellipse
)

// Gaussian draws a bivariate Gaussian by push-forward, x = Lz + μ, one
// draw a step, and checks an identity of seed 003 against the draws.
var Gaussian = &sims.Spec{
	Name:   "gaussian",
	Title:  "Gaussian identities: draws x = Lz + μ against the marginal, conditional, sum and linear-Gaussian laws",
	Source: "seed 003 L821–838 (identities (a)–(d)); seed 001 §13 L1247–1257 (sampling by push-forward, Cholesky)",
	Steps:  20000,
	Speed:  30,
	// A minute's draws fill the slice's histogram (about 220 of 1800).
	Famous:  1800,
	Params:  param.List(gaIdentity, gaMu, gaSD1, gaSD2, gaRho, gaSlice, gaWidth),
	Metrics: gaussianMetrics,
	// The kept points (and the Frame's copies), the five z-score traces and
	// their copies, the curves and bins within a measured base.
	Size: func(sims.Config) int64 { return 4*8*int64(gaKeep) + sims.TraceBytes(5) + 32<<10 },
	New:  newGaussian,
}

type gaussianSim struct {
	id       identity
	x, y     gaussian.Normal // the drawn laws (y: of sum, and the noise of linear)
	law      gaussian.Normal // the law the identity claims for what is drawn
	rng      *rand.Rand
	px, py   []float64 // the kept points, a ring
	n        int       // draws
	mom      *mcmc.Moments
	z        *sims.Trace // the five moments' errors in standard errors
	view     sims.Rect
	lo, hi   float64 // the histogram's range (of the plotted second coordinate)
	counts   []float64
	inBins   int
	sliceX   float64 // conditional: x₁ at the slice
	sliceH   float64 // its half-width
	inSlice  int
	sliceSum float64 // Σ and Σ² of x₂ in the slice
	sliceSq  float64
	ellipses []sims.Path
	curves   []sims.Curve
	regress  sims.Path // conditional: E[x₂ | x₁] across the view
}

func newGaussian(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	mu := gaMu.Get(v)
	s1, s2, rho := gaSD1.Get(v), gaSD2.Get(v), gaRho.Get(v)
	x, err := gaussian.New([2]float64{mu[0], mu[1]}, gaussian.Mat{{s1 * s1, rho * s1 * s2}, {rho * s1 * s2, s2 * s2}})
	if err != nil {
		return nil, err
	}
	s := &gaussianSim{id: gaIdentity.Get(v), x: x, law: x, rng: rand.New(rand.NewPCG(cfg.Seed, 0x676175737331)),
		px: make([]float64, 0, gaKeep), py: make([]float64, 0, gaKeep), mom: mcmc.NewMoments(2),
		z: sims.NewTrace(1, 5), counts: make([]float64, gaBins)}
	switch s.id {
	case idSum, idDependent:
		if s.y, err = gaussian.New(gaYMu, gaY); err != nil {
			return nil, err
		}
		if s.law, err = gaussian.Sum(x, s.y); err != nil {
			return nil, err
		}
	case idLinear:
		if s.y, err = gaussian.New([2]float64{}, gaNoise); err != nil {
			return nil, err
		}
		if s.law, err = x.Linear(gaA, gaB, gaNoise); err != nil {
			return nil, err
		}
	}
	// The view: the claimed law's 3.2σ box (the dependent sum's draws
	// spread wider: its true law's box).
	box := s.law
	if s.id == idDependent {
		box, _ = gaussian.New(box.Mu, s.dependentCov())
	}
	r1, r2 := 3.2*math.Sqrt(box.Cov[0][0]), 3.2*math.Sqrt(box.Cov[1][1])
	s.view = sims.Rect{XMin: box.Mu[0] - r1, XMax: box.Mu[0] + r1, YMin: box.Mu[1] - r2, YMax: box.Mu[1] + r2}
	s.lo, s.hi = s.view.YMin, s.view.YMax
	s.sliceX = mu[0] + gaSlice.Get(v)*s1
	s.sliceH = gaWidth.Get(v) * s1
	s.build()
	return s, nil
}

// dependentCov is the covariance of x + y when y = μ_y + L_y z shares
// x's z: (L_x + L_y)(L_x + L_y)ᵀ, not (a)'s Σ_x + Σ_y.
func (s *gaussianSim) dependentCov() gaussian.Mat {
	l := s.x.L().Add(s.y.L())
	return l.Mul(l.T())
}

// build draws the fixed curves: the claimed law's 1σ and 2σ ellipses (and
// x's and y's for a sum), the histogram's formula density, and for the
// conditional the regression line and the marginal for contrast.
func (s *gaussianSim) build() {
	ell := func(g gaussian.Normal, k float64, class int, dotted bool) sims.Path {
		p := sims.Path{X: make([]float64, gaEllN), Y: make([]float64, gaEllN), Class: class, Dotted: dotted}
		g.Ellipse(k, p.X, p.Y)
		return p
	}
	s.ellipses = []sims.Path{ell(s.law, 1, 1, false), ell(s.law, 2, 1, false)}
	if s.id == idSum || s.id == idDependent {
		s.ellipses = append(s.ellipses, ell(s.x, 2, 2, true), ell(s.y, 2, 3, true))
	}
	curve := func(name string, mean, variance float64, class int) sims.Curve {
		c := sims.Curve{Name: name, X: make([]float64, gaCurveN), Y: make([]float64, gaCurveN), Class: class}
		for i := range c.X {
			t := s.lo + (s.hi-s.lo)*float64(i)/(gaCurveN-1)
			d := t - mean
			c.X[i], c.Y[i] = t, math.Exp(-d*d/(2*variance))/math.Sqrt(2*math.Pi*variance)
		}
		return c
	}
	switch s.id {
	case idConditional:
		m, v := s.law.Conditional(1, s.sliceX)
		s.curves = []sims.Curve{curve("(c) p(x₂ | x₁)", m, v, 1), curve("(b) p(x₂)", s.law.Mu[1], s.law.Cov[1][1], 2)}
		a, _ := s.law.Conditional(1, s.view.XMin)
		b, _ := s.law.Conditional(1, s.view.XMax)
		s.regress = sims.Path{X: []float64{s.view.XMin, s.view.XMax}, Y: []float64{a, b}, Class: 3, Dotted: true}
	case idMarginal:
		s.curves = []sims.Curve{curve("(b) p(x₂)", s.law.Mu[1], s.law.Cov[1][1], 1)}
	case idSum, idDependent:
		s.curves = []sims.Curve{curve("(a) p(s₂)", s.law.Mu[1], s.law.Cov[1][1], 1)}
	case idLinear:
		s.curves = []sims.Curve{curve("(d) p(y₂)", s.law.Mu[1], s.law.Cov[1][1], 1)}
	}
}

// draw is one sample of what the identity plots.
func (s *gaussianSim) draw() [2]float64 {
	switch s.id {
	case idSum:
		a, b := s.x.Sample(s.rng), s.y.Sample(s.rng)
		return [2]float64{a[0] + b[0], a[1] + b[1]}
	case idDependent:
		z := [2]float64{s.rng.NormFloat64(), s.rng.NormFloat64()}
		a, b := s.x.Push(z), s.y.Push(z) // y has its own law but is a function of x
		return [2]float64{a[0] + b[0], a[1] + b[1]}
	case idLinear:
		a := gaA.Apply(s.x.Sample(s.rng))
		e := s.y.Sample(s.rng)
		return [2]float64{a[0] + gaB[0] + e[0], a[1] + gaB[1] + e[1]}
	}
	return s.x.Sample(s.rng)
}

func (s *gaussianSim) Step() error {
	p := s.draw()
	s.n++
	if len(s.px) < gaKeep {
		s.px, s.py = append(s.px, p[0]), append(s.py, p[1])
	} else {
		s.px[(s.n-1)%gaKeep], s.py[(s.n-1)%gaKeep] = p[0], p[1] // over the oldest
	}
	s.mom.Add(p[:])
	counted := s.id != idConditional || math.Abs(p[0]-s.sliceX) < s.sliceH
	if counted && s.id == idConditional {
		s.inSlice++
		s.sliceSum += p[1]
		s.sliceSq += p[1] * p[1]
	}
	if f := (p[1] - s.lo) / (s.hi - s.lo); counted && f >= 0 && f < 1 {
		s.counts[min(int(f*gaBins), gaBins-1)]++
	}
	if counted {
		s.inBins++
	}
	z := s.zScores()
	s.z.Add(z[:]...)
	return nil
}

// zScores are the sample's mean and covariance entries less the claimed
// law's, in standard errors: Σ_ii/n for a mean, (Σ_ii Σ_jj + Σ_ij²)/n for
// a covariance (a Gaussian sample's).
func (s *gaussianSim) zScores() [5]float64 {
	n := float64(s.mom.N())
	if n < 2 {
		return [5]float64{}
	}
	c := s.law.Cov
	var z [5]float64
	for i := range 2 {
		z[i] = (s.mom.MeanAt(i) - s.law.Mu[i]) / math.Sqrt(c[i][i]/n)
	}
	for k, ij := range [3][2]int{{0, 0}, {0, 1}, {1, 1}} {
		i, j := ij[0], ij[1]
		z[2+k] = (s.mom.CovAt(i, j) - c[i][j]) / math.Sqrt((c[i][i]*c[j][j]+c[i][j]*c[i][j])/n)
	}
	return z
}

func (s *gaussianSim) Frame() sims.Frame {
	name := map[identity]string{idConditional: "x", idMarginal: "x", idSum: "x + y", idDependent: "x + y(x)", idLinear: "Ax + b + ε"}[s.id]
	canvas := sims.CanvasChart{
		Title: fmt.Sprintf("%d draws of %s, the claimed law's 1σ and 2σ ellipses", s.n, name), View: s.view,
		Points: []sims.PointSet{{Name: "draws", X: append([]float64(nil), s.px...), Y: append([]float64(nil), s.py...), Class: 0}},
		Paths:  s.ellipses,
		XLabel: "first", YLabel: "second",
	}
	legend := []string{"draws", "claimed law"}
	if s.id == idSum || s.id == idDependent {
		legend = append(legend, "x's 2σ", "y's 2σ")
	}
	if s.id == idConditional {
		canvas.Bands = []sims.Band{{X: []float64{s.sliceX - s.sliceH, s.sliceX + s.sliceH},
			Lo: []float64{s.view.YMin, s.view.YMin}, Hi: []float64{s.view.YMax, s.view.YMax}, Class: 2}}
		canvas.Paths = append(append([]sims.Path(nil), s.ellipses...), s.regress)
		legend = append(legend, "slice", "E[x₂ | x₁]")
	}
	canvas.Legend = legend
	dens := make([]float64, gaBins)
	if s.inBins > 0 {
		w := (s.hi - s.lo) / gaBins
		for i, c := range s.counts {
			dens[i] = c / (float64(s.inBins) * w)
		}
	}
	histTitle := "second coordinate of the draws against the identity"
	if s.id == idConditional {
		histTitle = fmt.Sprintf("x₂ of the %d draws in the slice x₁ = %.3g ± %.2g", s.inSlice, s.sliceX, s.sliceH)
	}
	x0, x1 := s.z.Span()
	zs := []sims.Series{
		{Name: "mean₁", Y: s.z.Column(0), Class: 0},
		{Name: "mean₂", Y: s.z.Column(1), Class: 1},
		{Name: "Σ₁₁", Y: s.z.Column(2), Class: 2},
		{Name: "Σ₁₂", Y: s.z.Column(3), Class: 3},
		{Name: "Σ₂₂", Y: s.z.Column(4), Class: 4},
		{Name: "+2", Y: s.z.Map(func(int) float64 { return 2 }), Class: 5, Bound: true},
		{Name: "−2", Y: s.z.Map(func(int) float64 { return -2 }), Class: 6, Bound: true},
	}
	z := s.zScores()
	maxZ := 0.0
	for _, v := range z {
		maxZ = math.Max(maxZ, math.Abs(v))
	}
	metrics := []sims.Metric{
		{Name: "draws", Value: float64(s.n)},
		sims.MetricOr("max |z|", ifDrawn(maxZ, s.n), "fewer than two draws"),
	}
	if s.id == idConditional {
		m, v := s.law.Conditional(1, s.sliceX)
		cm, csd := math.NaN(), math.NaN()
		if s.inSlice > 1 {
			k := float64(s.inSlice)
			cm = s.sliceSum / k
			csd = math.Sqrt(math.Max(s.sliceSq/k-cm*cm, 0) * k / (k - 1))
		}
		metrics = append(metrics,
			sims.Metric{Name: "in slice", Value: float64(s.inSlice)},
			sims.MetricOr("slice mean", cm, "fewer than two draws in the slice"),
			sims.Metric{Name: "(c) mean", Value: m},
			sims.MetricOr("slice sd", csd, "fewer than two draws in the slice"),
			sims.Metric{Name: "(c) sd", Value: math.Sqrt(v)},
		)
	}
	l := s.x.L()
	return sims.Frame{
		Sim:     Gaussian.Name,
		Step:    s.n,
		Metrics: metrics,
		Charts: []sims.Chart{
			canvas,
			sims.HistChart{Title: histTitle, Lo: s.lo, Hi: s.hi, Density: dens, Curves: s.curves, XLabel: "second coordinate"},
			sims.LineChart{Title: "sample mean and covariance − the law's, in standard errors", X0: x0, X1: x1, XLabel: "draws", Series: zs},
		},
		Text: s.notes(l),
	}
}

// ifDrawn is x once two draws are in, NaN before.
func ifDrawn(x float64, n int) float64 {
	if n < 2 {
		return math.NaN()
	}
	return x
}

func (s *gaussianSim) notes(l gaussian.Mat) []string {
	lines := []string{fmt.Sprintf("x = Lz + μ, z ~ N(0, I), L = [[%.3g, 0], [%.3g, %.3g]] (Cholesky, LLᵀ = Σ): one draw a step",
		l[0][0], l[1][0], l[1][1])}
	switch s.id {
	case idConditional:
		m, v := s.law.Conditional(1, s.sliceX)
		lines = append(lines, fmt.Sprintf("(c) x₂ | x₁ ~ N(μ₂ + Σ₂₁Σ₁₁⁻¹(x₁−μ₁), Σ₂₂ − Σ₂₁Σ₁₁⁻¹Σ₁₂) = N(%.3g, %.3g²) in the slice, narrower than x₂'s N(%.3g, %.3g²); the mean (dotted) is linear in x₁",
			m, math.Sqrt(v), s.law.Mu[1], math.Sqrt(s.law.Cov[1][1])))
	case idMarginal:
		lines = append(lines, "(b) a marginal of a Gaussian is its block: x₂ ~ N(μ₂, Σ₂₂), whatever the correlation")
	case idSum:
		lines = append(lines, "(a) x + y ~ N(μx + μy, Σx + Σy) for INDEPENDENT x, y (the notes omit the condition)")
	case idDependent:
		c := s.dependentCov()
		lines = append(lines, "y = μy + L_y z shares x's z: each is Gaussian with its law, but the sum is not (a)'s",
			fmt.Sprintf("its covariance is (Lx + Ly)(Lx + Ly)ᵀ, Σ₁₁ = %.3g, not Σx + Σy's %.3g: the z-scores leave ±2", c[0][0], s.law.Cov[0][0]))
	case idLinear:
		lines = append(lines, "(d) y | x ~ N(Ax + b, Σy) ⇒ y ~ N(Aμ + b, Σy + AΣAᵀ); A a rotation by 53° scaled by 0.8, Σy = 0.05 I")
	}
	return lines
}

func (s *gaussianSim) Result() map[string]any {
	z := s.zScores()
	r := map[string]any{
		"identity": s.id.String(),
		"draws":    s.n,
		"mean":     s.mom.Mean(),
		"cov":      s.mom.Cov(),
		"law_mean": s.law.Mu,
		"law_cov":  s.law.Cov,
		"z":        z[:],
	}
	if s.id == idConditional && s.inSlice > 1 {
		r["in_slice"] = s.inSlice
		r["slice_mean"] = s.sliceSum / float64(s.inSlice)
	}
	return r
}
