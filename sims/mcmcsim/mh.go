// Package mcmcsim turns the engines of algo/mcmc into sims.
package mcmcsim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/thelab/lab/algo/mcmc"
	"github.com/thelab/lab/algo/target"
	"github.com/thelab/lab/sims"
)

// MH is the random-walk Metropolis–Hastings playground (seed 002 §3.2):
// one proposal per step on a 1-D or 2-D target, with trace plots, the
// running acceptance rate, the effective sample size, the samples'
// histogram against the exact density, and the autocorrelations. Its
// default is the notes' Fig 3.7 setting (a 2-D two-Gaussian mixture), where
// step 0.5 is accepted often yet never leaves one mode, and step 2 visits
// both: high acceptance is not good mixing.
//
// Memory is bounded however long a run: the statistics after burn-in live
// in an mcmc.History (exact running moments; the run thinned to at most
// mcmc.HistoryCap samples per coordinate; the last mcmc.WindowLen samples
// unthinned), the histogram bins are counted as the states arrive, and the
// trace keeps the last 1000 states. A Step allocates nothing. The ESS in a
// Frame is refreshed at most once per 1000 new samples, one coordinate at a
// time, on at most mcmc.WindowLen points (see mcmc.History.Diagnose); the
// ESS in the Result uses up to mcmc.HistoryCap points, so for a run of up
// to 65 536 samples it is Geyer's estimate on every sample.
var MH = &sims.Spec{
	Name:   "mh",
	Title:  "Random-walk Metropolis–Hastings: traces, acceptance, ESS, samples vs density",
	Source: "seed 002 §3.2 (Metropolis–Hastings, eq 3.2; MCMC practice)",
	Steps:  20000,
	// Slow enough to see single proposals and rejections at first; the
	// speed keys run the thousands that fill the histogram.
	Speed: 100,
	Params: []sims.Param{
		{Name: "target", Kind: sims.Choice, Choices: target.Names, Default: "mixture",
			Help: "density to sample: 1-D N(0,1); Fig 3.7's ½N((3,3),I)+½N((−3,−3),I); a twisted Gaussian; a ρ-correlated Gaussian"},
		{Name: "rho", Kind: sims.Float, Min: -0.995, Max: 0.995, Default: strconv.FormatFloat(target.DefaultRho, 'g', -1, 64),
			Help: "correlation of the Gaussian (target=correlated only)"},
		{Name: "step", Kind: sims.Float, Min: 0, OpenMin: true, Max: 20, Default: "2",
			DefaultFor: defaultStep, DefaultNote: "2.4 (normal), 2 (mixture), 2.5 (banana), 1.68·(1−ρ²)^¼ (correlated)",
			Help: "proposal scale s of the random walk z' ~ N(z, s²I)"},
		{Name: "burnin", Kind: sims.Int, Min: 0, Max: 1e6, Default: "1000",
			Help: "initial proposals whose states are discarded before the statistics start"},
		{Name: "x0", Kind: sims.Vector, Len: 2, Min: -10, Max: 10, Default: "0,0",
			DefaultFor: defaultStart, DefaultNote: "3,−3 for correlated, 3 for normal, else 0,0",
			Help: "starting state x,y (the 1-D target uses x only)"},
	},
	New: newMH,
}

// defaultStep is a proposal scale that mixes reasonably on each target. For
// the correlated Gaussian it is the 2.38/√d scale of Gelman, Roberts & Gilks
// (1996) applied to the geometric mean of the principal standard deviations,
// (det Σ)^{1/(2d)} = (1 − ρ²)^{1/4}; for the normal, the classic 2.4σ
// (acceptance ≈ 0.44); for the mixture, the catalogue's step 2 that hops
// between the modes (seed-002-catalog C4); for the banana, the step that gave
// the largest ESS in a scan of 0.3..3.
func defaultStep(v sims.Values) string {
	switch v.String("target") {
	case "normal":
		return "2.4"
	case "banana":
		return "2.5"
	case "correlated":
		rho := v.Float("rho")
		return strconv.FormatFloat(2.38/math.Sqrt2*math.Pow(1-rho*rho, 0.25), 'g', 2, 64)
	}
	return "2"
}

// defaultStart starts the Gaussians far out, as the catalogue's measured
// chains did, so that the burn-in shows; the mixture starts between its
// modes.
func defaultStart(v sims.Values) string {
	switch v.String("target") {
	case "correlated":
		return "3,-3"
	case "normal":
		return "3,0"
	}
	return "0,0"
}

// Sizes of what the sim keeps and draws.
const (
	recentLen  = 1000 // states in the trace chart
	pathLen    = 50   // states in the canvas path
	bins1D     = 60   // histogram bins of a 1-D target
	binsX      = 60   // 2-D histogram columns
	binsY      = 30   // 2-D histogram rows
	maxLag     = 50   // lags in the autocorrelation chart
	essBudget  = mcmc.WindowLen
	essRefresh = 1000 // new samples before a frame recomputes an ESS
	hintAfter  = 200  // steps before the acceptance hints show
)

type mhSim struct {
	tgt    target.Target
	eng    *mcmc.Metropolis
	d      int
	step   float64
	burnin int

	hist *mcmc.History // states after burn-in
	pre  *mcmc.Moments // states during burn-in, for the means shown then

	recent   []float64 // ring of the last recentLen states (recentLen×d)
	recentN  int       // states in the ring
	recentAt int       // next write position
	accRate  *sims.Trace

	// Histogram of the post-burn-in states over the drawing box.
	lo, hi []float64
	counts []float64 // bins1D, or binsX×binsY from the bottom row
	curve  sims.Curve
	exact  *sims.Grid
	view   sims.Rect
	peak   float64 // largest exact density on the grid
	right  int     // post-burn-in states with x₁ > 0 (mixture mode balance)

	// ESS cache, refreshed one coordinate per frame (see refreshESS).
	tau  []float64   // τ̂ per coordinate; 0 = not yet estimated
	acf  [][]float64 // autocorrelations per coordinate (never mutated once built)
	essN int         // samples when a coordinate was last refreshed
	next int         // the coordinate to refresh next
}

func newMH(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	tgt, err := target.New(v.String("target"), v.Float("rho"))
	if err != nil {
		return nil, err
	}
	d := tgt.Dim()
	x0 := v.Vector("x0")[:d]
	step := v.Float("step")
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x6d682d73696d)) // "mh-sim"
	eng, err := mcmc.NewMetropolis(tgt, x0, step, rng)
	if err != nil {
		return nil, err
	}
	s := &mhSim{
		tgt: tgt, eng: eng, d: d, step: step, burnin: v.Int("burnin"),
		hist:    mcmc.NewHistory(d),
		pre:     mcmc.NewMoments(d),
		recent:  make([]float64, recentLen*d),
		accRate: sims.NewTrace(1, 1),
		tau:     make([]float64, d),
		acf:     make([][]float64, d),
	}
	s.lo, s.hi = tgt.Bounds()
	if d == 1 {
		s.counts = make([]float64, bins1D)
		const n = 241
		s.curve = sims.Curve{Name: "exact density", X: make([]float64, n), Y: make([]float64, n), Class: 1}
		for i := range n {
			x := s.lo[0] + (s.hi[0]-s.lo[0])*float64(i)/(n-1)
			s.curve.X[i], s.curve.Y[i] = x, tgt.Density([]float64{x})
		}
	} else {
		s.counts = make([]float64, binsX*binsY)
		s.view = sims.Rect{XMin: s.lo[0], XMax: s.hi[0], YMin: s.lo[1], YMax: s.hi[1]}
		p := make([]float64, 2)
		s.exact = sims.SampleGrid(s.view, 2*binsX, 2*binsY, func(x, y float64) float64 {
			p[0], p[1] = x, y
			return tgt.Density(p)
		})
		for _, z := range s.exact.Z {
			s.peak = math.Max(s.peak, z)
		}
		s.exact.Levels, s.exact.Lo, s.exact.Hi = 6, 0, s.peak
	}
	s.pushRecent(eng.X())
	return s, nil
}

// Step makes one proposal and records the resulting state: in the trace,
// and after burn-in in the history, the histogram and the moments. It does
// not allocate.
func (s *mhSim) Step() error {
	s.eng.Step()
	x := s.eng.X()
	s.pushRecent(x)
	s.accRate.Add(s.eng.AcceptanceRate())
	if s.eng.Steps() <= s.burnin {
		s.pre.Add(x)
		return nil
	}
	s.hist.Add(x)
	s.bin(x)
	if x[0] > 0 {
		s.right++
	}
	return nil
}

func (s *mhSim) pushRecent(x []float64) {
	copy(s.recent[s.recentAt*s.d:], x)
	s.recentAt = (s.recentAt + 1) % recentLen
	s.recentN = min(s.recentN+1, recentLen)
}

// recentCoord returns coordinate i of the last n recorded states, oldest
// first (a fresh slice).
func (s *mhSim) recentCoord(i, n int) []float64 {
	n = min(n, s.recentN)
	out := make([]float64, n)
	k := (s.recentAt - n + recentLen) % recentLen
	for j := range out {
		out[j] = s.recent[k*s.d+i]
		if k++; k == recentLen {
			k = 0
		}
	}
	return out
}

// bin counts x into the histogram; states outside the box are not drawn
// (but still count in the normalisation, so the bars show the mass inside).
func (s *mhSim) bin(x []float64) {
	cell := func(i, n int) int {
		f := (x[i] - s.lo[i]) / (s.hi[i] - s.lo[i])
		if !(f >= 0 && f < 1) {
			return -1
		}
		return min(int(f*float64(n)), n-1)
	}
	if s.d == 1 {
		if b := cell(0, bins1D); b >= 0 {
			s.counts[b]++
		}
		return
	}
	bx, by := cell(0, binsX), cell(1, binsY)
	if bx >= 0 && by >= 0 {
		s.counts[by*binsX+bx]++
	}
}

// refreshESS re-estimates τ̂ and the autocorrelations of one coordinate
// (round robin) when at least essRefresh samples have arrived since the
// last refresh, or on every frame while there are fewer than essRefresh;
// a coordinate never estimated yet is estimated at once. Each estimate runs
// at most two FFTs on no more than mcmc.WindowLen points (one when the
// chain mixes fast), well under a millisecond; in between, the ESS shown is
// N/τ̂ with the cached τ̂, and the ACF chart the cached autocorrelations.
func (s *mhSim) refreshESS() {
	n := s.hist.N()
	if n == 0 || n == s.essN || (n >= essRefresh && n-s.essN < essRefresh && s.tau[s.next] > 0) {
		return
	}
	s.essN = n
	for i := range s.d {
		if s.tau[i] == 0 && i != s.next {
			s.estimate(i)
		}
	}
	s.estimate(s.next)
	s.next = (s.next + 1) % s.d
}

func (s *mhSim) estimate(i int) {
	ess, acf := s.hist.Diagnose(i, essBudget, nil, maxLag)
	s.tau[i], s.acf[i] = float64(s.hist.N())/ess, acf
}

// ess returns the per-coordinate ESS N/τ̂ from the cache (0 where none).
func (s *mhSim) ess() []float64 {
	out := make([]float64, s.d)
	for i, t := range s.tau {
		if t > 0 {
			out[i] = float64(s.hist.N()) / t
		}
	}
	return out
}

func minOf(x []float64) float64 {
	m := math.Inf(1)
	for _, v := range x {
		m = math.Min(m, v)
	}
	return m
}

var coordNames = []string{"x", "y"}

func (s *mhSim) Frame() sims.Frame {
	s.refreshESS()
	ess := minOf(s.ess())
	n := s.eng.Steps()
	metrics := []sims.Metric{
		{Name: "acceptance", Value: s.eng.AcceptanceRate()},
		{Name: "ess", Value: ess},
	}
	for i := range s.d {
		name := "mean"
		if s.d > 1 {
			name = "mean_" + coordNames[i]
		}
		metrics = append(metrics, sims.Metric{Name: name, Value: s.runningMean(i)})
	}

	// (1) Trace of each coordinate over the last recentLen steps.
	trace := sims.LineChart{Title: "trace", XLabel: "step", X1: float64(n)}
	trace.X0 = float64(n - min(s.recentN, recentLen) + 1)
	for i := range s.d {
		trace.Series = append(trace.Series, sims.Series{Name: coordNames[i], Y: s.recentCoord(i, recentLen), Class: i})
	}
	if s.burnin >= int(trace.X0) && s.burnin <= n {
		trace.Title = fmt.Sprintf("trace (burn-in ends at step %d)", s.burnin)
	}

	// (2) Samples against the exact density.
	var picture sims.Chart
	if s.d == 1 {
		picture = s.histChart()
	} else {
		picture = s.canvasChart()
	}

	// (3) Running acceptance rate, (4) autocorrelations.
	a0, a1 := s.accRate.Span()
	acc := sims.LineChart{
		Title:  "running acceptance rate",
		Series: []sims.Series{{Name: "acceptance", Y: s.accRate.Column(0)}},
		X0:     a0, X1: a1, XLabel: "step",
	}
	acfChart := sims.LineChart{Title: fmt.Sprintf("autocorrelation (last %d samples)", min(s.hist.N(), mcmc.WindowLen)),
		X0: 0, X1: maxLag, XLabel: "lag"}
	for i := range s.d {
		if s.acf[i] != nil {
			acfChart.Series = append(acfChart.Series, sims.Series{Name: "ρ_" + coordNames[i], Y: s.acf[i], Class: i})
		}
	}
	if len(acfChart.Series) > 0 {
		acfChart.X1 = float64(len(acfChart.Series[0].Y) - 1)
	}

	return sims.Frame{
		Sim:     "mh",
		Step:    n,
		Metrics: metrics,
		Charts:  []sims.Chart{trace, picture, acc, acfChart},
		Text:    s.notes(ess),
	}
}

// runningMean is the mean of the post-burn-in states, or of the burn-in
// states while there are none yet (and the start before the first step).
func (s *mhSim) runningMean(i int) float64 {
	switch {
	case s.hist.N() > 0:
		return s.hist.Moments().MeanAt(i)
	case s.pre.N() > 0:
		return s.pre.MeanAt(i)
	}
	return s.eng.X()[i]
}

func (s *mhSim) histChart() sims.HistChart {
	n := float64(s.hist.N())
	w := (s.hi[0] - s.lo[0]) / bins1D
	dens := make([]float64, bins1D)
	if n > 0 {
		for b, c := range s.counts {
			dens[b] = c / (n * w)
		}
	}
	return sims.HistChart{
		Title: "samples after burn-in vs exact density",
		Lo:    s.lo[0], Hi: s.hi[0],
		Density: dens,
		Curves:  []sims.Curve{s.curve},
		XLabel:  "x",
	}
}

func (s *mhSim) canvasChart() sims.CanvasChart {
	n := float64(s.hist.N())
	cell := (s.view.XMax - s.view.XMin) / binsX * (s.view.YMax - s.view.YMin) / binsY
	heat := &sims.Grid{NX: binsX, NY: binsY, Z: make([]float64, len(s.counts)), Scale: sims.Sequential, Lo: 0, Hi: s.peak}
	if n > 0 {
		for b, c := range s.counts {
			heat.Z[b] = c / (n * cell)
		}
	}
	x := s.eng.X()
	markers := []sims.Marker{{X: x[0], Y: x[1], Glyph: '●', Class: 0}}
	if z, ok := s.eng.Proposal(); !ok && s.eng.Steps() > 0 {
		markers = append(markers, sims.Marker{X: z[0], Y: z[1], Glyph: '×', Class: 1})
	}
	return sims.CanvasChart{
		Title:    "samples (shade) vs exact density (lines)",
		View:     s.view,
		Heat:     heat,
		Contours: s.exact,
		Paths:    []sims.Path{{X: s.recentCoord(0, pathLen), Y: s.recentCoord(1, pathLen), Class: 0}},
		Markers:  markers,
		Legend:   []string{"chain", "rejected proposal"},
		XLabel:   "x", YLabel: "y",
	}
}

// notes gives the counts and a hint that ties the acceptance rate to mixing.
func (s *mhSim) notes(ess float64) []string {
	n, acc := s.eng.Steps(), s.eng.AcceptanceRate()
	lines := []string{fmt.Sprintf("step %g · accepted %d of %d (%.1f%%) · burn-in %d · ESS %.0f",
		s.step, s.eng.Accepted(), n, 100*acc, s.burnin, ess)}
	switch {
	case n <= s.burnin:
		lines = append(lines, fmt.Sprintf("burning in: %d of %d proposals discarded so far; statistics start after.", n, s.burnin))
	case n < hintAfter:
	case acc > 0.8:
		lines = append(lines, "small steps: high acceptance but slow mixing — try a larger step.")
	case acc < 0.1:
		lines = append(lines, "large steps: most proposals rejected, the chain sits still — try a smaller step.")
	default:
		lines = append(lines, "symmetric proposal N(z, s²I): α = min(1, p(z')/p(z)) (eq 3.2, Remark 3.4).")
	}
	if h := s.hist.N(); h > 0 {
		switch tg := s.tgt.(type) {
		case *target.Mixture:
			lines = append(lines, fmt.Sprintf("samples in the mode x > 0: %.1f%% (exact 50%%)", 100*float64(s.right)/float64(h)))
		case target.Correlated:
			m := s.hist.Moments()
			r := m.CovAt(0, 1) / math.Sqrt(m.CovAt(0, 0)*m.CovAt(1, 1))
			if !math.IsNaN(r) {
				lines = append(lines, fmt.Sprintf("sample correlation %.3f (exact ρ = %g)", r, tg.Rho()))
			}
		}
	}
	return lines
}

// Result reports the post-burn-in statistics: mean, covariance (unbiased),
// per-coordinate ESS (estimated on up to mcmc.HistoryCap kept samples: on
// every sample of a default headless run), the overall acceptance rate and
// the counts. mean, cov and ess are null when no step passed the burn-in.
func (s *mhSim) Result() map[string]any {
	res := map[string]any{
		"acceptance": s.eng.AcceptanceRate(),
		"steps":      s.eng.Steps(),
		"samples":    s.hist.N(),
		"mean":       nil,
		"cov":        nil,
		"ess":        nil,
	}
	if s.hist.N() > 0 {
		ess := make([]float64, s.d)
		for i := range ess {
			ess[i] = s.hist.ESS(i, 0)
		}
		res["mean"] = s.hist.Moments().Mean()
		res["cov"] = s.hist.Moments().Cov()
		res["ess"] = ess
	}
	return res
}
