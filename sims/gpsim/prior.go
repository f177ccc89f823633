package gpsim

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo/gp"
	"github.com/thelab/lab/algo/kernel"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// GPPrior draws sample paths of a zero-mean GP prior from the kernel zoo,
// one new path per step for each of two lengthscales side by side, and
// shows the draws' empirical correlation with f(x₀) converging to the
// kernel's correlation — the oracle of Algorithm 1 made visible.
var GPPrior = &sims.Spec{
	Name:   "gp-prior",
	Title:  "GP prior draws at two lengthscales from a kernel zoo; the draws' correlation converging to the kernel's",
	Source: "seed 002 §4.4–4.5 (eqs 4.25–4.28, Remark 4.15, Fig 4.7, Algorithm 1; catalogue D5); seed 003 L876–932 (θ₁ = 4 vs 0.25; catalogue G2)",
	Steps:  1000,
	// Five draws a second per side: the fan of paths moves at a pace to
	// follow, and by Famous (a minute) the empirical correlation lies on
	// the kernel's curve within its ±2 s.e. band of ±0.1.
	Speed:  5,
	Famous: 300,
	Params: param.List(prKernel, prCombine, prSecond, prEllLeft, prEllRight, prVariance, prAlpha, prPeriod,
		prXMax, prN, prPaths),
	New:  newGPPrior,
	Size: gpPriorSize,

	Metrics: gpPriorMetrics,
}

// gp-prior's parameters.
var (
	prKernel = param.Choice("kernel", gp.Families, gp.FamilySE,
		"the covariance c(r) of r = |x − x′|, k = σ²c: se exp(−r²/(2ℓ²)) (4.25); rq (1 + r²/(2αℓ²))^−α (4.26); "+
			"periodic exp(−2sin²(πr/p)/ℓ²) (4.27, the notes' ℓ², no factor 2); locally-periodic se × periodic (4.28); "+
			"matern12 e^(−r/ℓ), matern32 (1 + √3r/ℓ)e^(−√3r/ℓ), matern52 (1 + √5r/ℓ + 5r²/(3ℓ²))e^(−√5r/ℓ): Matérn ν = 1/2, 3/2, 5/2")
	prCombine = param.Choice("combine", gp.Combines, gp.CombineNone,
		"join kernel with second (Remark 4.15: sums and products of kernels are kernels): sum σ²(c₁ + c₂), variance 2σ²; "+
			"product σ²c₁c₂; both with the same ℓ, α and p (se with periodic, product, is locally-periodic)")
	prSecond  = param.Choice("second", gp.Families, gp.FamilyPeriodic, "the second kernel of a sum or product (read when combine is not none)")
	prEllLeft = param.Float("ell_left", 4,
		"lengthscale ℓ of the left draws (seed 003's θ₁ = 4 and 0.25 in exp(−θ₁r²/2) are ℓ = 1/√θ₁ = 0.5 and 2)").
		Range(1e-3, 1e3)
	prEllRight = param.Float("ell_right", 0.25, "lengthscale ℓ of the right draws").Range(1e-3, 1e3)
	prVariance = param.Float("variance", 1, "signal variance σ² = k(x, x) of one kernel").Range(1e-4, 1e4)
	prAlpha    = param.Float("alpha", 1, "α of rq: the spread of its mixture of SE lengthscales (→ se as α → ∞)").Range(1e-2, 1e6)
	prPeriod   = param.Float("period", 2.5, "period p of the periodic kernels").Range(1e-3, 1e4)
	prXMax     = param.Float("x_max", 10, "the inputs are n evenly spaced points of [0, x_max]; the correlations are with f(0)").
			Range(1e-3, 1e4)
	prN     = param.Int("n", 100, "grid points the paths are drawn at (Algorithm 1's N)").Range(2, 400)
	prPaths = param.Int("paths", 4, "the latest draws shown on each side").Range(1, priorMaxPaths)
)

// priorMaxPaths is the most paths a side shows: each has a colour of its
// own, besides the ±2σ lines'.
const priorMaxPaths = 8

// priorBandClass is the colour of the ±2σ lines; the paths take the others.
const priorBandClass = 1

// pathClass is the colour of the draw numbered d (from 0): fixed while it
// is on show, different from the other paths' and the ±2σ lines'.
func pathClass(d, paths int) int {
	c := d % paths
	if c >= priorBandClass {
		c++
	}
	return c
}

// gpPriorSize is the two engines (gp.PriorFootprint), the two fans of
// paths with the Frame's copies, the grid and the Frame's correlation
// curves and bands (eight vectors a side), beside what any gp-prior holds.
func gpPriorSize(cfg sims.Config) int64 {
	v := cfg.Values
	n, paths := int64(prN.Get(v)), int64(prPaths.Get(v))
	return priorBase + 2*gp.PriorFootprint(int(n)) + 2*2*8*paths*n + 3*8*n + 2*8*8*n
}

// priorBase is what gp-prior holds whatever its size: the sim, the
// Frame's charts and texts.
const priorBase = 32 << 10

// priorSide is one lengthscale's engine and its fan of latest draws.
type priorSide struct {
	ell   float64
	prior *gp.Prior
	fan   [][]float64 // ring of the latest draws, fan[d % len(fan)]
}

type gpPriorSim struct {
	zoo      gp.Zoo
	xs       []float64
	sides    [2]priorSide
	paths    int
	variance float64 // k(x, x) of the kernel built: σ², or 2σ² for a sum
}

func newGPPrior(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	n, paths := prN.Get(v), prPaths.Get(v)
	s := &gpPriorSim{paths: paths}
	s.zoo = gp.Zoo{First: prKernel.Get(v), Second: prSecond.Get(v), Combine: prCombine.Get(v),
		Variance: prVariance.Get(v), Alpha: prAlpha.Get(v), Period: prPeriod.Get(v)}
	in, xs := axis(0, prXMax.Get(v), n)
	s.xs = xs
	for i, ell := range []*param.FloatDecl{prEllLeft, prEllRight} {
		z := s.zoo
		z.Lengthscale = ell.Get(v)
		k, err := z.Kernel()
		if err != nil {
			return nil, sims.Blame(err, v, sims.As("lengthscale", ell), sims.As("second", prSecond))
		}
		// Each side draws from a stream of its own, so that one side's
		// paths do not change with the other's settings.
		rng := rand.New(rand.NewPCG(cfg.Seed, 0x7072696f72+uint64(i))) // "prior"
		p, err := gp.NewPrior(k, in, 0, rng)
		if err != nil {
			return nil, fmt.Errorf("the %s kernel at ℓ = %g: %w", sideName(i), z.Lengthscale, err)
		}
		s.variance = kernel.Eval(k, in[0], in[0])
		fan := make([][]float64, paths)
		for j := range fan {
			fan[j] = make([]float64, n)
		}
		s.sides[i] = priorSide{ell: z.Lengthscale, prior: p, fan: fan}
	}
	return s, nil
}

// sideName is "left" or "right".
func sideName(i int) string { return [2]string{"left", "right"}[i] }

// Step draws one path on each side.
func (s *gpPriorSim) Step() error {
	for i := range s.sides {
		sd := &s.sides[i]
		d := sd.prior.Draws()
		if err := sd.prior.Step(); err != nil {
			return err
		}
		copy(sd.fan[d%len(sd.fan)], sd.prior.Path())
	}
	return nil
}

// priorFit is one side's correlation with f(x₀) against the kernel's.
type priorFit struct {
	corr, rho []float64 // empirical (NaN before a draw) and the kernel's
	dev, se   float64   // max |ρ̂ − ρ| and max (1 − ρ²)/√N over the grid; NaN before a draw
	// Over the inputs with ρ² < 0.99 (the delta method's s.e. vanishes as
	// |ρ| → 1): the largest |ρ̂ − ρ|/s.e., and the share within 2 s.e.
	z, inside float64
}

func (sd *priorSide) fit() priorFit {
	p := sd.prior
	nan := math.NaN()
	f := priorFit{corr: p.Corr(nil), rho: p.KernelCorr(nil), dev: nan, se: nan, z: nan, inside: nan}
	if p.Draws() == 0 {
		return f
	}
	f.dev, f.se, f.z = 0, 0, 0
	in, count := 0, 0
	for i, r := range f.rho {
		d, se := math.Abs(f.corr[i]-r), p.CorrSE(r)
		f.dev = math.Max(f.dev, d)
		f.se = math.Max(f.se, se)
		if r*r < 0.99 {
			f.z = math.Max(f.z, d/se)
			count++
			if d <= 2*se {
				in++
			}
		}
	}
	if count > 0 {
		f.inside = float64(in) / float64(count)
	}
	return f
}

func (s *gpPriorSim) Frame() sims.Frame {
	draws := s.sides[0].prior.Draws()
	fits := [2]priorFit{s.sides[0].fit(), s.sides[1].fit()}
	const noDraws = "no draws yet"
	metrics := []sims.Metric{{Name: "draws", Value: float64(draws)}}
	for i, f := range fits {
		metrics = append(metrics,
			sims.MetricOr("dev "+sideName(i), f.dev, noDraws),
			sims.MetricOr("s.e. "+sideName(i), f.se, noDraws))
	}
	for i := range s.sides {
		metrics = append(metrics, sims.Metric{Name: "jitter " + sideName(i), Value: s.sides[i].prior.Jitter()})
	}
	charts := []sims.Chart{s.corrChart(fits), s.pathChart(0), s.pathChart(1)}
	return sims.Frame{Sim: GPPrior.Name, Step: draws, Metrics: metrics, Charts: charts, Text: s.notes(fits)}
}

// pathChart draws side i's latest paths, oldest first, between the ±2σ lines.
func (s *gpPriorSim) pathChart(i int) sims.CanvasChart {
	sd := &s.sides[i]
	draws := sd.prior.Draws()
	shown := min(draws, len(sd.fan))
	paths := make([]sims.Path, 0, shown)
	for d := draws - shown; d < draws; d++ {
		paths = append(paths, sims.Path{X: s.xs, Y: append([]float64(nil), sd.fan[d%len(sd.fan)]...), Class: pathClass(d, s.paths)})
	}
	// The ±2σ lines first, under the draws.
	sigma := math.Sqrt(s.variance)
	ends := []float64{s.xs[0], s.xs[len(s.xs)-1]}
	paths = append([]sims.Path{
		{X: ends, Y: []float64{2 * sigma, 2 * sigma}, Class: priorBandClass, Dotted: true},
		{X: ends, Y: []float64{-2 * sigma, -2 * sigma}, Class: priorBandClass, Dotted: true},
	}, paths...)
	legend := make([]string, priorBandClass+1)
	legend[priorBandClass] = "±2√k(x,x)"
	return sims.CanvasChart{
		Title:  fmt.Sprintf("%s: ℓ = %.3g, the %d latest draws", sideName(i), sd.ell, shown),
		View:   sims.Rect{XMin: ends[0], XMax: ends[1], YMin: -3.2 * sigma, YMax: 3.2 * sigma},
		Paths:  paths,
		Legend: legend,
		XLabel: "x", YLabel: "f(x)",
	}
}

// Colours of the correlation chart's two sides.
var priorSideClass = [2]int{0, 2}

// corrChart draws each side's kernel correlation ρ(x) = k(0,x)/√(k(0,0)k(x,x))
// dotted in its ±2 s.e. band, and the draws' empirical correlation solid.
func (s *gpPriorSim) corrChart(fits [2]priorFit) sims.CanvasChart {
	var bands []sims.Band
	var paths []sims.Path
	legend := make([]string, 3)
	for i, f := range fits {
		c := priorSideClass[i]
		legend[c] = fmt.Sprintf("%s ℓ = %.3g", sideName(i), s.sides[i].ell)
		if !math.IsNaN(f.se) {
			lo, hi := make([]float64, len(f.rho)), make([]float64, len(f.rho))
			for j, r := range f.rho {
				se := s.sides[i].prior.CorrSE(r)
				lo[j], hi[j] = r-2*se, r+2*se
			}
			bands = append(bands, sims.Band{X: s.xs, Lo: lo, Hi: hi, Class: c})
		}
		paths = append(paths, sims.Path{X: s.xs, Y: f.rho, Class: c, Dotted: true})
	}
	for i, f := range fits {
		if !math.IsNaN(f.dev) {
			paths = append(paths, sims.Path{X: s.xs, Y: f.corr, Class: priorSideClass[i]})
		}
	}
	return sims.CanvasChart{
		Title:  "correlation of f(x) with f(0): kernel (dotted) ± 2 s.e., draws (solid)",
		View:   sims.Rect{XMin: s.xs[0], XMax: s.xs[len(s.xs)-1], YMin: -0.5, YMax: 1.1},
		Bands:  bands,
		Paths:  paths,
		Legend: legend,
		XLabel: "x", YLabel: "corr",
	}
}

// formula is family f's c(r) as the notes write it.
func formula(f gp.Family) string {
	switch f {
	case gp.FamilySE:
		return "exp(−r²/(2ℓ²)) (4.25)"
	case gp.FamilyRQ:
		return "(1 + r²/(2αℓ²))^−α (4.26)"
	case gp.FamilyPeriodic:
		return "exp(−2sin²(πr/p)/ℓ²) (4.27)"
	case gp.FamilyLocallyPeriodic:
		return "exp(−r²/(2ℓ²))·exp(−2sin²(πr/p)/ℓ²) (4.28)"
	case gp.FamilyMatern12:
		return "e^(−r/ℓ) (Matérn ν = 1/2)"
	case gp.FamilyMatern32:
		return "(1 + √3r/ℓ)e^(−√3r/ℓ) (Matérn ν = 3/2)"
	case gp.FamilyMatern52:
		return "(1 + √5r/ℓ + 5r²/(3ℓ²))e^(−√5r/ℓ) (Matérn ν = 5/2)"
	}
	return string(f)
}

// kernelText is the kernel as a formula with its parameters.
func (s *gpPriorSim) kernelText() string {
	z := s.zoo
	k := "k = σ²·" + formula(z.First)
	switch z.Combine {
	case gp.CombineSum:
		k = "k = σ²·[" + formula(z.First) + " + " + formula(z.Second) + "]"
	case gp.CombineProduct:
		k = "k = σ²·" + formula(z.First) + " · " + formula(z.Second)
	}
	k += fmt.Sprintf(", σ² = %g", z.Variance)
	uses := func(f gp.Family) bool { return z.First == f || (z.Combine != gp.CombineNone && z.Second == f) }
	if uses(gp.FamilyRQ) {
		k += fmt.Sprintf(", α = %g", z.Alpha)
	}
	if uses(gp.FamilyPeriodic) || uses(gp.FamilyLocallyPeriodic) {
		k += fmt.Sprintf(", p = %g", z.Period)
	}
	return k
}

func (s *gpPriorSim) notes(fits [2]priorFit) []string {
	n := len(s.xs)
	draws := s.sides[0].prior.Draws()
	lines := []string{
		fmt.Sprintf("%s; ℓ = %.3g left, %.3g right, at %d points of [0, %g]", s.kernelText(), s.sides[0].ell, s.sides[1].ell, n, s.xs[n-1]),
		"one step draws one path a side by Algorithm 1: f = Lz, z ~ N(0, I), K + jitter·I = LLᵀ (Cholesky; a smooth kernel's K is numerically singular)",
	}
	if draws == 0 {
		lines = append(lines, "the draws' correlation of f(x) with f(0) will tend to the kernel's k(0,x)/√(k(0,0)k(x,x)), within about 2 s.e. = 2(1 − ρ²)/√draws")
	} else {
		lines = append(lines, fmt.Sprintf("after %d draws the empirical correlation lies within the kernel's ±2 s.e. band at %s (left) and %s (right) of the grid; "+
			"largest gap %.2g = %.1f s.e. (left), %.2g = %.1f s.e. (right); s.e. = (1 − ρ²)/√draws",
			draws, percent(fits[0].inside), percent(fits[1].inside), fits[0].dev, fits[0].z, fits[1].dev, fits[1].z))
	}
	lines = append(lines,
		"a longer ℓ keeps f(x) correlated with f(0) further away: smoother, slower paths",
		"seed 003's figure: --set ell_left=0.5 ell_right=2 x_max=2 (θ₁ = 4, 0.25 in exp(−θ₁r²/2) on an interval of length 2)")
	return lines
}

// percent prints a share as a whole percentage, "—" when there is none.
func percent(x float64) string {
	if math.IsNaN(x) {
		return "—"
	}
	return fmt.Sprintf("%.0f%%", 100*x)
}

func (s *gpPriorSim) Result() map[string]any {
	res := map[string]any{"x": s.xs, "draws": s.sides[0].prior.Draws()}
	undefined := map[string]string{}
	for i := range s.sides {
		f := s.sides[i].fit()
		name := sideName(i)
		res["ell_"+name] = s.sides[i].ell
		res["kernel_corr_"+name] = f.rho
		res["corr_"+name] = f.corr
		res["dev_"+name] = f.dev
		res["se_"+name] = f.se
		res["jitter_"+name] = s.sides[i].prior.Jitter()
		if math.IsNaN(f.dev) {
			undefined["dev_"+name], undefined["se_"+name], undefined["corr_"+name] = "no draws yet", "no draws yet", "no draws yet"
		}
	}
	if len(undefined) > 0 {
		res["undefined"] = undefined
	}
	return res
}
