package mcmcsim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/mcmc"
	"github.com/thelab/lab/algo/target"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// SVGD is Stein variational gradient descent (Liu & Wang 2016; see
// mcmc.SVGD) on the samplers' targets: n particles, started as a narrow
// cloud, move together along φ, drawn as short arrows over the target's
// level lines. The drive term pulls them up the density, the kernel's
// repulsion keeps them apart, so that they spread over the whole target
// (both modes of the mixture, in proportion) instead of collapsing onto a
// mode as gradient ascent (n = 1, or a tiny bandwidth) does. Charts: the
// particles' mean and variance against the target's exact ones, and ‖φ‖
// with the kernelized Stein discrepancy falling on a log scale; the run
// ends when ‖φ‖ ≤ tol.
var SVGD = &sims.Spec{
	Name:   "svgd",
	Title:  "Stein variational gradient descent: particles pushed by the drive, kept apart by the kernel",
	Source: "beyond the notes: Liu & Wang 2016 (Alg. 1), on the targets of seed 002 §3.2",
	Steps:  3000,
	// The mixture's particles split between the modes in about 150 steps
	// and settle there (‖φ‖ ≤ tol) after about 490, 49 s at 10 a second.
	Speed:  10,
	Params: param.List(svgdTarget, svgdN, svgdSchedule, svgdEps, svgdH, svgdInit, svgdInitSD, svgdTol),
	New:    newSVGD,
	Size:   svgdSize,

	Metrics: svgdMetrics,
}

var (
	svgdTarget   = newTargetParams(target.KindMixture)
	svgdN        = param.Int("n", 100, "particles n (n = 1 is gradient ascent on log p)").Range(1, svgdMaxN)
	svgdSchedule = param.Choice("schedule", []mcmc.SVGDSchedule{mcmc.SVGDFixed, mcmc.SVGDAdaGrad}, mcmc.SVGDFixed,
		"fixed: x ← x + ε φ(x); adagrad: the paper's code, ε φ/√G with G an average of φ² (momentum 0.9)")
	svgdEps = param.Float("eps", 0.5, "step size ε").Range(0, 5).OpenMin().
		DefaultFunc(func(v param.Values) float64 {
			return svgdDefaultEps(svgdTarget.kind.Get(v), svgdTarget.rho.Get(v), svgdSchedule.Get(v))
		},
			"adagrad: 0.05; fixed: 0.25 (mixture), 0.5 (normal), ½(1 − |ρ|) (correlated), 0.1 (banana, squiggle), 0.05 (donut), 0.01 (funnel)")
	svgdH      = param.Float("h", 0, "kernel bandwidth h of exp(−‖x − x'‖²/h); 0: the median heuristic med²/log n at every step").Range(0, 100)
	svgdInit   = param.Vector("init", []float64{0, 0}, "centre of the particles' start N(init, sd² I) (the 1-D target uses x only)").Range(-10, 10)
	svgdInitSD = param.Float("init_sd", 0.5, "spread sd of the particles' start").Range(0, 5).OpenMin()
	svgdTol    = param.Float("tol", 1e-3, "stop when ‖φ‖ (root mean square over the particles) ≤ tol").Range(0, 1)
)

// svgdMaxN bounds n for a pane: a step is O(n²) (≈ 4 ms at 400).
const svgdMaxN = 400

// svgdDefaultEps is a fixed step that is stable (ε below about 1/L for the
// curvature L of log p where the particles go) and fast on each target.
func svgdDefaultEps(k target.Kind, rho float64, sch mcmc.SVGDSchedule) float64 {
	if sch == mcmc.SVGDAdaGrad {
		return 0.05
	}
	switch k {
	case target.KindCorrelated:
		return param.Sig(0.5*(1-math.Abs(rho)), 2)
	case target.KindBanana, target.KindSquiggle:
		return 0.1
	case target.KindDonut:
		return 0.05
	case target.KindFunnel:
		return 0.01
	case target.KindNormal:
		return 0.5
	}
	return 0.25
}

// Sizes of what svgd draws.
const (
	svgdBins   = 40 // histogram bins of a 1-D target
	svgdArrows = 12 // the longest arrow spans 1/svgdArrows of the view
)

// svgdSize is the engine, the traces (mean and variance per coordinate,
// ‖φ‖ and KSD²), the exact density's grid or curve, the particles and
// arrows a Frame copies, and what the rest takes (measured).
func svgdSize(cfg sims.Config) int64 {
	n, d := int64(svgdN.Get(cfg.Values)), int64(svgdTarget.kind.Get(cfg.Values).Dim())
	b := mcmc.SVGDBytes(int(n), int(d)) + sims.TraceBytes(int(2*d+2))
	if d == 1 {
		b += 2*8*curvePoints + 8*svgdBins
	} else {
		b += 8 * (2 * binsX) * (2 * binsY)
		b += 8*n*2 + n*(2*48+64) // points and arrows (a Path each) in a Frame
	}
	return b + 24<<10
}

type svgdSim struct {
	eng   *mcmc.SVGD
	tgt   target.Target
	d, n  int
	tol   float64
	fixed float64 // the fixed bandwidth, 0 for the median heuristic
	sch   mcmc.SVGDSchedule
	eps   float64

	mu, vr []float64 // the exact mean and variances
	mom    *mcmc.Moments
	trace  *sims.Trace // per coordinate mean − μ and var/σ², then ‖φ‖ and KSD²
	row    []float64

	view   sims.Rect
	exact  *sims.Grid
	curve  sims.Curve
	lo, hi []float64
	done   bool
}

func newSVGD(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	tgt, err := svgdTarget.build(v)
	if err != nil {
		return nil, err
	}
	d, n := tgt.Dim(), svgdN.Get(v)
	c, sd := svgdInit.Get(v)[:d], svgdInitSD.Get(v)
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x73766764)) // "svgd"
	x0 := make([][]float64, n)
	for i := range x0 {
		x0[i] = make([]float64, d)
		for k := range x0[i] {
			x0[i][k] = c[k] + sd*rng.NormFloat64()
		}
	}
	sch := svgdSchedule.Get(v)
	eng, err := mcmc.NewSVGD(tgt, x0, mcmc.SVGDConfig{Eps: svgdEps.Get(v), Schedule: sch, Bandwidth: svgdH.Get(v)})
	if err != nil {
		return nil, sims.Blame(err, v, sims.As("x0", svgdInit), sims.As("bandwidth", svgdH))
	}
	s := &svgdSim{
		eng: eng, tgt: tgt, d: d, n: n, tol: svgdTol.Get(v), fixed: svgdH.Get(v), sch: sch, eps: svgdEps.Get(v),
		mu: tgt.Mean(), mom: mcmc.NewMoments(d),
		trace: sims.NewTrace(0, 2*d+2), row: make([]float64, 2*d+2),
	}
	cov := tgt.Cov()
	for i := range d {
		s.vr = append(s.vr, cov[i][i])
	}
	s.lo, s.hi = tgt.Bounds()
	if d == 1 {
		s.curve = sims.Curve{Name: "exact density", X: make([]float64, curvePoints), Y: make([]float64, curvePoints), Class: 1}
		for i := range curvePoints {
			x := s.lo[0] + (s.hi[0]-s.lo[0])*float64(i)/(curvePoints-1)
			s.curve.X[i], s.curve.Y[i] = x, tgt.Density([]float64{x})
		}
	} else {
		s.view = sims.Rect{XMin: s.lo[0], XMax: s.hi[0], YMin: s.lo[1], YMax: s.hi[1]}
		p := make([]float64, 2)
		s.exact = sims.SampleGrid(s.view, 2*binsX, 2*binsY, func(x, y float64) float64 {
			p[0], p[1] = x, y
			return tgt.Density(p)
		})
		peak := 0.0
		for _, z := range s.exact.Z {
			peak = math.Max(peak, z)
		}
		s.exact.Levels, s.exact.Lo, s.exact.Hi = 6, 0, peak
	}
	s.record()
	return s, nil
}

// record adds the particles' moments, the exact ones, ‖φ‖ and KSD² to the
// trace.
func (s *svgdSim) record() {
	s.mom.Reset()
	for i := range s.n {
		s.mom.Add(s.eng.Particle(i))
	}
	for i := range s.d {
		s.row[2*i], s.row[2*i+1] = s.mom.MeanAt(i)-s.mu[i], s.popVar(i)/s.vr[i]
	}
	s.row[2*s.d] = s.eng.PhiNorm()
	s.row[2*s.d+1] = s.eng.KSD2()
	s.trace.Add(s.row...)
}

// popVar is the particles' variance of coordinate i (over n: the empirical
// law's, 0 for one particle).
func (s *svgdSim) popVar(i int) float64 {
	return s.mom.CovAt(i, i) * float64(s.n-1) / float64(s.n)
}

func (s *svgdSim) Step() error {
	if s.done {
		return fmt.Errorf("%w: ‖φ‖ = %.3g ≤ tol = %g", algo.ErrConverged, s.eng.PhiNorm(), s.tol)
	}
	if err := s.eng.Step(); err != nil {
		return err
	}
	s.record()
	if s.eng.PhiNorm() <= s.tol {
		s.done = true
		return fmt.Errorf("%w: ‖φ‖ = %.3g ≤ tol = %g after %d steps", algo.ErrConverged, s.eng.PhiNorm(), s.tol, s.eng.Steps())
	}
	return nil
}

func (s *svgdSim) Frame() sims.Frame {
	var metrics []sims.Metric
	if s.d == 1 {
		metrics = append(metrics, sims.Metric{Name: "mean", Value: s.mom.MeanAt(0)}, sims.Metric{Name: "var", Value: s.popVar(0)})
	} else {
		metrics = append(metrics,
			sims.Metric{Name: "mean_x", Value: s.mom.MeanAt(0)}, sims.Metric{Name: "mean_y", Value: s.mom.MeanAt(1)},
			sims.Metric{Name: "var_x", Value: s.popVar(0)}, sims.Metric{Name: "var_y", Value: s.popVar(1)})
	}
	metrics = append(metrics,
		sims.Metric{Name: "‖φ‖", Value: s.eng.PhiNorm()},
		sims.Metric{Name: "KSD²", Value: s.eng.KSD2()},
		sims.Metric{Name: "h", Value: s.eng.Bandwidth()})
	return sims.Frame{
		Sim:     "svgd",
		Step:    s.eng.Steps(),
		Metrics: metrics,
		Charts:  []sims.Chart{s.picture(), s.momentChart(), s.phiChart()},
		Text:    s.notes(),
	}
}

// picture is the particles with φ as arrows over the target's level lines
// (2-D), or their histogram against the density (1-D).
func (s *svgdSim) picture() sims.Chart {
	x := s.eng.Particles()
	if s.d == 1 {
		w := (s.hi[0] - s.lo[0]) / svgdBins
		dens := make([]float64, svgdBins)
		for _, v := range x {
			if f := (v - s.lo[0]) / (s.hi[0] - s.lo[0]); f >= 0 && f < 1 {
				dens[min(int(f*svgdBins), svgdBins-1)] += 1 / (float64(s.n) * w)
			}
		}
		return sims.HistChart{Title: "particles vs exact density", Lo: s.lo[0], Hi: s.hi[0], Density: dens,
			Curves: []sims.Curve{s.curve}, XLabel: "x", Label: "particles"}
	}
	px, py := make([]float64, s.n), make([]float64, s.n)
	phi := s.eng.Phi()
	longest := 0.0
	for i := range s.n {
		longest = math.Max(longest, math.Hypot(phi[2*i], phi[2*i+1]))
	}
	scale := 0.0
	if longest > 0 {
		scale = (s.view.XMax - s.view.XMin) / svgdArrows / longest
	}
	paths := make([]sims.Path, 0, s.n)
	for i := range s.n {
		px[i], py[i] = x[2*i], x[2*i+1]
		if scale > 0 {
			paths = append(paths, sims.Path{X: []float64{px[i], px[i] + scale*phi[2*i]},
				Y: []float64{py[i], py[i] + scale*phi[2*i+1]}, Class: 1})
		}
	}
	return sims.CanvasChart{
		Title:    "particles and φ (arrows) over p",
		View:     s.view,
		Contours: s.exact,
		Paths:    paths,
		Points:   []sims.PointSet{{Name: "particles", X: px, Y: py, Class: 0}},
		Legend:   []string{"particle", "φ"},
		XLabel:   "x", YLabel: "y",
	}
}

// momentChart is the particles' mean minus the exact mean (→ 0) and
// variance over the exact variance (→ 1) of every coordinate.
func (s *svgdSim) momentChart() sims.LineChart {
	t0, t1 := s.trace.Span()
	ch := sims.LineChart{Title: "particles vs exact: mean − μ → 0, var/σ² → 1", X0: t0, X1: t1, XLabel: "step"}
	for i := range s.d {
		suffix := ""
		if s.d > 1 {
			suffix = " " + coordNames[i]
		}
		ch.Series = append(ch.Series,
			sims.Series{Name: "mean − μ" + suffix, Y: s.trace.Column(2 * i), Class: 2 * i},
			sims.Series{Name: "var/σ²" + suffix, Y: s.trace.Column(2*i + 1), Class: 2*i + 1})
	}
	return ch
}

// phiChart is ‖φ‖ and KSD² on a log scale.
func (s *svgdSim) phiChart() sims.LineChart {
	t0, t1 := s.trace.Span()
	return sims.LineChart{
		Title: "‖φ‖ and KSD² falling",
		Series: []sims.Series{
			{Name: "‖φ‖", Y: s.trace.Column(2 * s.d), Class: 0},
			{Name: "KSD²", Y: s.trace.Column(2*s.d + 1), Class: 1},
		},
		LogY: true, X0: t0, X1: t1, XLabel: "step",
	}
}

func (s *svgdSim) notes() []string {
	var lines []string
	if _, ok := s.tgt.(*target.Mixture); ok {
		right := 0
		for i := range s.n {
			if s.eng.Particle(i)[0] > 0 {
				right++
			}
		}
		lines = append(lines, fmt.Sprintf("particles in the mode x > 0: %d of %d (exact share 50%%).", right, s.n))
	}
	lines = append(lines, s.momentNote())
	hNote := fmt.Sprintf("h = med²/log n = %.3g (median heuristic)", s.eng.Bandwidth())
	if s.fixed > 0 {
		hNote = fmt.Sprintf("fixed h = %g", s.fixed)
	}
	lines = append(lines,
		"φ(x) = mean over j of k(x_j, x) ∇log p(x_j) (drive) + ∇k(x_j, x) (repulsion).",
		"kernel k = exp(−‖x − x'‖²/h), "+hNote+".")
	switch {
	case s.n == 1:
		lines = append(lines, "one particle: k = 1 and ∇k = 0, so φ = ∇log p: gradient ascent to a mode.")
	case s.fixed > 0 && s.fixed < 0.05:
		lines = append(lines, "h this small: the kernel sees no neighbours, no repulsion: the particles climb to modes.")
	default:
		lines = append(lines, "the repulsion sums to 0: it spreads the particles without moving their mean.")
	}
	lines = append(lines, "target: "+target.Formula(s.tgt))
	step := "ε φ"
	if s.sch == mcmc.SVGDAdaGrad {
		step = "ε φ/√G (adagrad)"
	}
	if s.d > 1 {
		lines = append(lines, fmt.Sprintf("step x ← x + %s, ε = %g; arrows: φ, the longest 1/%d of the view wide.", step, s.eps, svgdArrows))
	} else {
		lines = append(lines, fmt.Sprintf("step x ← x + %s, ε = %g.", step, s.eps))
	}
	return lines
}

// momentNote is the particles' mean and variance against the exact ones.
func (s *svgdSim) momentNote() string {
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', 3, 64) }
	mean := joinCoords(s.d, func(i int) string { return f(s.mom.MeanAt(i)) })
	vr := joinCoords(s.d, func(i int) string { return f(s.popVar(i)) })
	em := joinCoords(s.d, func(i int) string { return f(s.mu[i]) })
	ev := joinCoords(s.d, func(i int) string { return f(s.vr[i]) })
	return fmt.Sprintf("particles: mean (%s), var (%s); exact (%s), (%s).", mean, vr, em, ev)
}

// Result reports the particles' mean and covariance (over n), the exact
// ones, ‖φ‖, KSD², the bandwidth, the steps and whether the run converged.
func (s *svgdSim) Result() map[string]any {
	cov := s.mom.Cov()
	for i := range cov {
		for j := range cov[i] {
			cov[i][j] *= float64(s.n-1) / float64(s.n)
		}
	}
	return map[string]any{
		"steps":      s.eng.Steps(),
		"n":          s.n,
		"mean":       s.mom.Mean(),
		"cov":        cov,
		"exact_mean": s.mu,
		"exact_cov":  s.tgt.Cov(),
		"phi_norm":   s.eng.PhiNorm(),
		"ksd2":       s.eng.KSD2(),
		"h":          s.eng.Bandwidth(),
		"converged":  s.done,
	}
}
