package mcmcsim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"

	"github.com/thelab/lab/algo/mcmc"
	"github.com/thelab/lab/algo/target"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// This file is the machinery that every sampler sim shares: the target
// and chain parameters, the chains from dispersed starts driven by an
// mcmc.Ensemble (burn-in, thinning, per-chain diagnostics), what is kept
// for drawing, the frames (traces, autocorrelations, samples against the
// exact density, the per-chain table) and the Result. A sampler sim adds
// only its engine, its own parameters and the few charts and lines that
// are about its method.

// Sizes of what a chain sim keeps and draws.
const (
	recentLen  = 1000 // states per chain in the trace charts
	pathLen    = 50   // states per chain in the canvas path
	bins1D     = 60   // histogram bins of a 1-D target
	binsX      = 60   // 2-D histogram columns
	binsY      = 30   // 2-D histogram rows
	maxLag     = 50   // lags in the autocorrelation charts
	acfRefresh = 1000 // new samples before a frame recomputes an ACF
	// curvePoints is the points of a 1-D target's exact density curve.
	curvePoints = 241
	// minSummary is the number of kept samples per chain before the
	// convergence diagnostics show: below it Geyer's sum has hardly a lag
	// to scan.
	minSummary = 20
	// summaryWork bounds the diagnostics' share of a running pane: a frame
	// summarises a coordinate only after (chains × stored draws)/summaryWork
	// frames without one. mcmc.Diagnoser costs about 0.45 µs a draw
	// (BenchmarkSummarise), so that is at most ≈ 0.45 µs × 8192 = 3.7 ms a
	// frame on average, ≈ 11% at 30 frames a second, however long the run
	// (one summary of 4 chains at mcmc.HistoryCap takes ≈ 130 ms, once every
	// 33 frames).
	summaryWork = 1 << 13
	// trustRHat is the R̂ above which the chains are not mixed and no ESS is
	// trustworthy (Vehtari et al. 2021).
	trustRHat = 1.01
	hintAfter = 200  // steps before the acceptance hints show
	arrowsLen = 6    // proposals of chain 1 drawn as arrows
	maxChains = 8    // the chains parameter's upper bound (≤ mcmc.MaxChains)
	maxBurnIn = 1e6  // the burnin parameter's upper bound
	maxThin   = 1000 // the thin parameter's upper bound
	// rhatCap is the R-hat reported as a metric when chains are stuck at
	// distinct points (R-hat = +Inf): metrics must be finite.
	rhatCap = 999
)

var coordNames = []string{"x", "y"}

// targetMenu is the target parameter's menu.
var targetMenu = []target.Kind{target.KindNormal, target.KindMixture, target.KindBanana,
	target.KindCorrelated, target.KindDonut, target.KindFunnel, target.KindSquiggle}

// maxRho bounds the correlation of the correlated target: the engine takes
// (−1, 1); closer to ±1 no sampler here mixes in a pane's run.
const maxRho = 0.995

// targetParams declares the target and its correlation, first in every
// sim of this package; def is the sim's default target.
type targetParams struct {
	kind *param.ChoiceDecl[target.Kind]
	rho  *param.FloatDecl
}

func newTargetParams(def target.Kind) targetParams {
	return targetParams{
		kind: param.Choice("target", targetMenu, def,
			"density to sample: 1-D N(0,1); Fig 3.7's ½N((3,3),I)+½N((−3,−3),I); a twisted Gaussian; a ρ-correlated Gaussian; a ring; Neal's funnel; chi-feng's squiggle (x, y + sin 5x) ~ N(0, Σ)"),
		rho: param.Float("rho", target.DefaultRho, "correlation of the Gaussian (target=correlated only)").Range(-maxRho, maxRho),
	}
}

// Params lists target and rho.
func (t targetParams) Params() []param.Param { return param.List(t.kind, t.rho) }

// get returns the chosen target and correlation, for the defaults that
// depend on them.
func (t targetParams) get(v param.Values) (target.Kind, float64) { return t.kind.Get(v), t.rho.Get(v) }

// build builds the chosen target.
func (t targetParams) build(v param.Values) (target.Target, error) { return target.New(t.get(v)) }

// chainParams declares the multi-chain settings every sampler shares,
// after its own parameters; the default start follows the target.
type chainParams struct {
	chains, burnin, thin *param.IntDecl
	x0                   *param.VectorDecl
}

func newChainParams(tp targetParams, chains, burnin int) chainParams {
	return chainParams{
		chains: param.Int("chains", chains,
			"chains run side by side: chain 1 from x0, the others from dispersed starts (exact draws pushed ×2 from the mean)").Range(1, maxChains),
		burnin: param.Int("burnin", burnin,
			"initial transitions of each chain whose states are discarded before the statistics start").Range(0, maxBurnIn),
		thin: param.Int("thin", 1,
			"keep every thin-th state after burn-in (the notes' 'one every 50 samples'); the ACF is of the kept samples").Range(1, maxThin),
		x0: param.Vector("x0", []float64{0, 0}, "starting state x,y of chain 1 (the 1-D target uses x only)").Range(-10, 10).
			DefaultFunc(func(v param.Values) []float64 { return defaultStart(tp.kind.Get(v)) },
				"3,−3 for correlated, 3 for normal, 2.5,0 for donut, else 0,0"),
	}
}

// Params lists chains, burnin, thin and x0.
func (c chainParams) Params() []param.Param { return param.List(c.chains, c.burnin, c.thin, c.x0) }

// defaultStart starts the Gaussians far out, as the catalogue's measured
// chains did, so that the burn-in shows; the donut on its ring; the others
// at the origin (between the mixture's modes, in the funnel's middle).
func defaultStart(k target.Kind) []float64 {
	switch k {
	case target.KindCorrelated:
		return []float64{3, -3}
	case target.KindNormal:
		return []float64{3, 0}
	case target.KindDonut:
		return []float64{target.DonutR, 0}
	}
	return []float64{0, 0}
}

// size is the Spec.Size of a sampler sim on these chains: chainBytes, and
// extra, what the sim holds besides (nil: nothing).
func (c chainParams) size(tp targetParams, extra func(v param.Values, nc, d int) int64) func(sims.Config) int64 {
	return func(cfg sims.Config) int64 {
		nc, d := c.chains.Get(cfg.Values), tp.kind.Get(cfg.Values).Dim()
		b := chainBytes(nc, d)
		if extra != nil {
			b += extra(cfg.Values, nc, d)
		}
		return b
	}
}

// samplerBytes bounds what a chain's Sampler holds besides an HMC's path
// (its state, gradient, proposal and random source).
const samplerBytes = 1 << 10

// traceBytes is what a sims.Trace of cols columns holds, with the copy of
// its columns in a Frame.
func traceBytes(cols int) int64 { return 2 * 8 * sims.TraceCap * int64(cols) }

// chainBytes is what a chainSim of nc chains in dimension d holds, from
// its start to its largest alike (the Ensemble reserves its diagnostics,
// 90% of it): the Ensemble, its samplers, the ring of recent states and
// the acceptance Trace with their copies in a Frame's charts, and the
// picture's histogram (and its copy) and exact density. The rest (the
// Frame's other charts, its notes, the sim's fields) is within chainBase,
// measured.
func chainBytes(nc, d int) int64 {
	const chainBase = 128 << 10
	n, dim := int64(nc), int64(d)
	b := mcmc.EnsembleBytes(nc, d) + mcmc.DiagnosticsBytes(nc)
	b += n * (samplerBytes + 2*8*recentLen*dim + traceBytes(1))
	if d == 1 {
		b += 2*8*curvePoints + 2*8*bins1D
	} else {
		b += 8*(2*binsX)*(2*binsY) + 2*8*binsX*binsY
	}
	return b + chainBase
}

// makeChain builds one chain of a sampler at x0 with its own random source.
type makeChain func(x0 []float64, rng *rand.Rand) (mcmc.Sampler, error)

// chainSim is the shared part of every sampler sim.
type chainSim struct {
	name string
	tgt  target.Target
	ens  *mcmc.Ensemble
	d, c int

	starts [][]float64
	pre    *mcmc.Moments // states during burn-in, for the means shown then

	recent   []float64 // per chain, a ring of recentLen states: c×recentLen×d
	recentN  int
	recentAt int
	accRate  *sims.Trace // running acceptance rate of each chain
	accRow   []float64

	// Histogram of the kept samples over the drawing box.
	lo, hi []float64
	counts []float64
	curve  sims.Curve
	exact  *sims.Grid
	view   sims.Rect
	peak   float64
	right  int // kept samples with x₁ > 0 (the mixture's mode balance)
	// The funnel's far mouth, y > τ², holds half of Var x: mouthY = τ²
	// (+Inf for the other targets) and mouth the kept samples there.
	mouthY float64
	mouth  int
	kept   int // Ensemble.Kept() when last binned

	// The last proposals of chain 1: from, to (d values each), accepted.
	arrows   []float64
	arrowOK  []bool
	arrowN   int
	arrowAt  int
	prev0    []float64
	noArrows bool   // samplers whose every move is accepted draw none
	stairs   bool   // draw chain paths as Gibbs' axis-parallel half-moves
	propName string // the legend of chain 1's proposals ("proposal")
	bias     string // why the chains' law is not the target, when it is not (ULA)

	// Diagnostics cache, refreshed a little per frame (see refresh).
	acf   [][][]float64      // autocorrelations per chain and coordinate
	acfN  int                // kept samples at the last refresh of a pair
	next  int                // the (chain, coordinate) pair to refresh next
	sum   []mcmc.Summary     // convergence diagnostics per coordinate
	sumN  []int              // kept samples when sum[i] was computed; 0: none
	sumAt int                // the coordinate to summarise next
	idle  int                // frames since the last summary
	truth []mcmc.Truth       // exact mean and quantiles per coordinate, once needed
	devs  [][]mcmc.Deviation // per coordinate, the summary against the truth
}

// newChainSim builds the chains of a sampler on tgt with the sim's chain
// settings cp: chain 1 at x0 and the others from dispersed starts, each chain
// with its own PCG stream (chain 1's is `stream`, so a single chain
// reproduces the runs of the one-chain mh sim), and the Ensemble.
func newChainSim(name string, cfg sims.Config, cp chainParams, tgt target.Target, stream uint64, mk makeChain) (*chainSim, error) {
	v := cfg.Values
	d := tgt.Dim()
	x0 := cp.x0.Get(v)[:d]
	nc := cp.chains.Get(v)
	starts := mcmc.DispersedStarts(tgt, x0, nc, rand.New(rand.NewPCG(cfg.Seed, stream^0x7374617274)))
	var chains []mcmc.Sampler
	for c, x := range starts {
		ch, err := mk(x, rand.New(rand.NewPCG(cfg.Seed, stream+uint64(c))))
		if err != nil {
			return nil, err
		}
		chains = append(chains, ch)
	}
	ens, err := mcmc.NewEnsemble(chains, cp.burnin.Get(v), cp.thin.Get(v))
	if err != nil {
		return nil, err
	}
	ens.SetWorkers(cfg.Workers)
	ens.ReserveDiagnostics()
	s := &chainSim{
		name: name, tgt: tgt, ens: ens, d: d, c: nc, starts: starts,
		pre:      mcmc.NewMoments(d),
		recent:   make([]float64, nc*recentLen*d),
		accRate:  sims.NewTrace(1, nc),
		accRow:   make([]float64, nc),
		arrows:   make([]float64, arrowsLen*2*d),
		arrowOK:  make([]bool, arrowsLen),
		prev0:    append([]float64(nil), x0...),
		acf:      make([][][]float64, nc),
		sum:      make([]mcmc.Summary, d),
		sumN:     make([]int, d),
		devs:     make([][]mcmc.Deviation, d),
		propName: "proposal",
	}
	for c := range nc {
		s.acf[c] = make([][]float64, d)
	}
	s.lo, s.hi = tgt.Bounds()
	s.mouthY = math.Inf(1)
	if _, ok := tgt.(target.Funnel); ok {
		s.mouthY = tgt.Cov()[1][1]
	}
	if d == 1 {
		s.counts = make([]float64, bins1D)
		s.curve = sims.Curve{Name: "exact density", X: make([]float64, curvePoints), Y: make([]float64, curvePoints), Class: 1}
		for i := range curvePoints {
			x := s.lo[0] + (s.hi[0]-s.lo[0])*float64(i)/(curvePoints-1)
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
	for c := range nc {
		s.pushRecent(c, starts[c])
	}
	s.advanceRecent()
	return s, nil
}

// step makes one transition of every chain and records it: the traces, the
// running acceptance rates, chain 1's proposal, and the kept samples in the
// histogram. It does not allocate.
func (s *chainSim) step() error {
	if err := s.ens.Step(); err != nil {
		return err
	}
	for c := range s.c {
		ch := s.ens.Chain(c)
		s.pushRecent(c, ch.X())
		s.accRow[c] = s.ens.Acceptance(c)
	}
	s.advanceRecent()
	s.accRate.Add(s.accRow...)
	if !s.noArrows {
		z, ok := s.ens.Chain(0).Proposal()
		k := s.arrowAt * 2 * s.d
		copy(s.arrows[k:], s.prev0)
		copy(s.arrows[k+s.d:], z)
		s.arrowOK[s.arrowAt] = ok
		s.arrowAt = (s.arrowAt + 1) % arrowsLen
		s.arrowN = min(s.arrowN+1, arrowsLen)
	}
	copy(s.prev0, s.ens.Chain(0).X())
	if s.ens.Transitions() <= s.ens.BurnIn() {
		for c := range s.c {
			s.pre.Add(s.ens.Chain(c).X())
		}
		return nil
	}
	if k := s.ens.Kept(); k != s.kept {
		s.kept = k
		for c := range s.c {
			x := s.ens.Chain(c).X()
			s.bin(x)
			if x[0] > 0 {
				s.right++
			}
			if s.d > 1 && x[1] > s.mouthY {
				s.mouth++
			}
		}
	}
	return nil
}

func (s *chainSim) pushRecent(c int, x []float64) {
	copy(s.recent[(c*recentLen+s.recentAt)*s.d:], x)
}

func (s *chainSim) advanceRecent() {
	s.recentAt = (s.recentAt + 1) % recentLen
	s.recentN = min(s.recentN+1, recentLen)
}

// recentCoord returns coordinate i of chain c's last n states, oldest
// first (a fresh slice).
func (s *chainSim) recentCoord(c, i, n int) []float64 {
	n = min(n, s.recentN)
	out := make([]float64, n)
	k := (s.recentAt - n + recentLen) % recentLen
	for j := range out {
		out[j] = s.recent[(c*recentLen+k)*s.d+i]
		if k++; k == recentLen {
			k = 0
		}
	}
	return out
}

// bin counts x into the histogram; states outside the box are not drawn
// (but still count in the normalisation, so the bars show the mass inside).
func (s *chainSim) bin(x []float64) {
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

// refresh brings the cached diagnostics up to date, a little per frame:
// the autocorrelation charts and the convergence diagnostics.
func (s *chainSim) refresh() {
	s.refreshACF()
	s.refreshSummaries()
}

// refreshACF re-estimates the autocorrelations of one (chain, coordinate)
// pair, round robin, when at least acfRefresh samples per chain have
// arrived since the last refresh, or on every frame while there are fewer
// than acfRefresh; pairs never estimated are estimated at once (at most 16
// at the first frame after the burn-in). Each is one FFT of at most
// mcmc.WindowLen points, well under a millisecond.
func (s *chainSim) refreshACF() {
	n := s.ens.Kept()
	pairs := s.c * s.d
	c0, i0 := s.next/s.d, s.next%s.d
	if n == 0 || n == s.acfN || (n >= acfRefresh && n-s.acfN < acfRefresh && s.acf[c0][i0] != nil) {
		return
	}
	s.acfN = n
	for p := range pairs {
		if c, i := p/s.d, p%s.d; s.acf[c][i] == nil && p != s.next {
			s.acf[c][i] = s.ens.History(c).ACF(nil, i, maxLag)
		}
	}
	s.acf[c0][i0] = s.ens.History(c0).ACF(nil, i0, maxLag)
	s.next = (s.next + 1) % pairs
}

// refreshSummaries recomputes the convergence diagnostics (mcmc.Summary:
// R̂, bulk- and tail-ESS, MCSE) of the coordinates on the whole kept runs.
// A coordinate with none yet is summarised at once; otherwise one
// coordinate, round robin, once the chains have grown and (chains × stored
// draws)/summaryWork frames have passed without a summary — a bound on the
// diagnostics' share of a running pane whatever the speed (see
// summaryWork). A frame of a sim that is not running settles first.
func (s *chainSim) refreshSummaries() {
	n := s.ens.Kept()
	s.idle++
	if n < minSummary {
		return
	}
	gap := s.c * len(s.ens.History(0).Run(0)) / summaryWork
	for k := range s.d {
		i := (s.sumAt + k) % s.d
		switch {
		case s.sumN[i] == 0:
			s.summarise(i, n)
		case n > s.sumN[i] && s.idle > gap:
			s.summarise(i, n)
			s.sumAt = (i + 1) % s.d
			return
		}
	}
}

// Settle summarises every coordinate whose diagnostics are behind the
// chains (sims.Settler): the runner calls it before a frame of a paused,
// stepped or finished sim, so those (and `lab run`'s) are current.
func (s *chainSim) Settle() {
	if n := s.ens.Kept(); n >= 4 {
		for i := range s.d {
			if s.sumN[i] != n {
				s.summarise(i, n)
			}
		}
	}
}

func (s *chainSim) summarise(i, n int) {
	if err := s.ens.Summarise(i, &s.sum[i]); err != nil {
		panic(err) // Kept() ≥ minSummary: equal, finite runs
	}
	s.checkTruth(i)
	s.sumN[i], s.idle = n, 0
}

// summarised reports whether every coordinate has its diagnostics, and
// there are enough samples to show them (minSummary).
func (s *chainSim) summarised() bool {
	if s.ens.Kept() < minSummary {
		return false
	}
	for _, n := range s.sumN {
		if n == 0 {
			return false
		}
	}
	return true
}

// essAt is the cached bulk-ESS of coordinate i (0 where none yet).
func (s *chainSim) essAt(i int) float64 { return s.sum[i].ESSBulk }

// minESS is the smallest bulk-ESS over the coordinates (0 before one).
func (s *chainSim) minESS() float64 {
	if !s.summarised() {
		return 0
	}
	m := math.Inf(1)
	for i := range s.d {
		m = math.Min(m, s.essAt(i))
	}
	return m
}

// maxRHat is the largest R̂, capped at rhatCap (0 while there is none
// yet).
func (s *chainSim) maxRHat() float64 {
	if !s.summarised() {
		return 0
	}
	m := 0.0
	for i := range s.d {
		m = math.Max(m, s.sum[i].RHat)
	}
	return math.Min(m, rhatCap)
}

// trusted reports whether the ESS means something: every R̂ < 1.01.
func (s *chainSim) trusted() bool { return s.summarised() && s.maxRHat() < trustRHat }

// fmtESS prints an ESS, or "—" while the chains disagree (R̂ ≥ 1.01) or
// before there is one.
func (s *chainSim) fmtESS(e float64) string {
	if !s.trusted() {
		return "—"
	}
	return strconv.FormatFloat(e, 'f', 0, 64)
}

// runningMean is the pooled mean of the kept samples, or of the burn-in
// states while there are none yet (and chain 1's start before the first
// step).
func (s *chainSim) runningMean(i int) float64 {
	switch {
	case s.ens.Samples() > 0:
		return s.ens.Moments().MeanAt(i)
	case s.pre.N() > 0:
		return s.pre.MeanAt(i)
	}
	return s.starts[0][i]
}

// metrics are acceptance, ess (the smallest bulk-ESS; 0 and untrusted
// before there is one, untrusted while an R̂ ≥ 1.01), the means and, with several chains, the largest R-hat: the
// metrics of every sampler, in that order.
func (s *chainSim) metrics() []sims.Metric {
	m := []sims.Metric{
		{Name: "acceptance", Value: s.ens.AcceptanceAll()},
		{Name: "ess", Value: s.minESS(), Untrusted: !s.trusted()},
	}
	for i := range s.d {
		name := "mean"
		if s.d > 1 {
			name = "mean_" + coordNames[i]
		}
		m = append(m, sims.Metric{Name: name, Value: s.runningMean(i)})
	}
	if s.c > 1 {
		m = append(m, sims.Metric{Name: "rhat", Value: s.maxRHat(), Untrusted: !s.summarised()})
	}
	return m
}

// chainLabel names chain c in legends (the chart titles say "per chain").
func chainLabel(c int) string { return strconv.Itoa(c + 1) }

// traceChart is coordinate i of every chain (i < 0: every coordinate of
// the single chain) over the last recentLen transitions.
func (s *chainSim) traceChart(i int) sims.LineChart {
	n := s.ens.Transitions()
	tr := sims.LineChart{Title: "trace", XLabel: "step", X1: float64(n)}
	tr.X0 = float64(n - s.recentN + 1)
	if i < 0 {
		for j := range s.d {
			tr.Series = append(tr.Series, sims.Series{Name: coordNames[j], Y: s.recentCoord(0, j, recentLen), Class: j})
		}
	} else {
		tr.Title = "trace of " + coordNames[i] + ", per chain"
		for c := range s.c {
			tr.Series = append(tr.Series, sims.Series{Name: chainLabel(c), Y: s.recentCoord(c, i, recentLen), Class: c})
		}
	}
	if b := s.ens.BurnIn(); b >= int(tr.X0) && b <= n {
		tr.Title += fmt.Sprintf(" (burn-in ends at step %d)", b)
	}
	return tr
}

// accChart is the running acceptance rate of every chain.
func (s *chainSim) accChart() sims.LineChart {
	a0, a1 := s.accRate.Span()
	ch := sims.LineChart{Title: "running acceptance rate", X0: a0, X1: a1, XLabel: "step", Fraction: true}
	for c := range s.c {
		name := "acceptance"
		if s.c > 1 {
			name = chainLabel(c)
		}
		ch.Series = append(ch.Series, sims.Series{Name: name, Y: s.accRate.Column(c), Class: c})
	}
	if s.c > 1 {
		ch.Title = "acceptance rate, per chain"
	}
	return ch
}

// acfChart is the autocorrelation of coordinate i of every chain (i < 0:
// every coordinate of the single chain), over the recent kept samples.
func (s *chainSim) acfChart(i int) sims.LineChart {
	title := fmt.Sprintf("autocorrelation (last %d samples)", min(s.ens.Kept(), mcmc.WindowLen))
	switch {
	case s.ens.Kept() == 0:
		title = "autocorrelation (after burn-in)"
	case s.ens.Thin() > 1:
		title = fmt.Sprintf("autocorrelation, thinned ×%d (last %d)", s.ens.Thin(), min(s.ens.Kept(), mcmc.WindowLen))
	}
	ch := sims.LineChart{Title: title, X0: 0, X1: maxLag, XLabel: "lag", Fraction: true} // ρ ≤ 1
	if i < 0 {
		for j := range s.d {
			if a := s.acf[0][j]; a != nil {
				ch.Series = append(ch.Series, sims.Series{Name: "ρ_" + coordNames[j], Y: a, Class: j})
			}
		}
	} else {
		ch.Title = fmt.Sprintf("ACF of %s, per chain", coordNames[i])
		if s.ens.Thin() > 1 {
			ch.Title += fmt.Sprintf(" (thinned ×%d)", s.ens.Thin())
		}
		for c := range s.c {
			if a := s.acf[c][i]; a != nil {
				ch.Series = append(ch.Series, sims.Series{Name: chainLabel(c), Y: a, Class: c})
			}
		}
	}
	if len(ch.Series) > 0 {
		ch.X1 = float64(len(ch.Series[0].Y) - 1)
	}
	return ch
}

// histChart is the kept samples of a 1-D target against its density.
func (s *chainSim) histChart(title string, curves ...sims.Curve) sims.HistChart {
	n := float64(s.ens.Samples())
	w := (s.hi[0] - s.lo[0]) / bins1D
	dens := make([]float64, bins1D)
	if n > 0 {
		for b, c := range s.counts {
			dens[b] = c / (n * w)
		}
	}
	return sims.HistChart{
		Title: title,
		Lo:    s.lo[0], Hi: s.hi[0],
		Density: dens,
		Curves:  append([]sims.Curve{s.curve}, curves...),
		XLabel:  "x",
	}
}

// canvasChart is the kept samples of a 2-D target (shade) against its
// density (level lines), the last pathLen states of every chain, their
// current states, chain 1's last proposals (solid when accepted, dotted
// when rejected), and extra paths (the HMC trajectory) of class
// proposalClass().
func (s *chainSim) canvasChart(extra ...sims.Path) sims.CanvasChart {
	n := float64(s.ens.Samples())
	cell := (s.view.XMax - s.view.XMin) / binsX * (s.view.YMax - s.view.YMin) / binsY
	heat := &sims.Grid{NX: binsX, NY: binsY, Z: make([]float64, len(s.counts)), Scale: sims.Sequential, Lo: 0, Hi: s.peak}
	if n > 0 {
		for b, c := range s.counts {
			heat.Z[b] = c / (n * cell)
		}
	}
	var paths []sims.Path
	var markers []sims.Marker
	for c := range s.c {
		px, py := s.recentCoord(c, 0, pathLen), s.recentCoord(c, 1, pathLen)
		if s.stairs {
			px, py = staircase(px, py)
		}
		paths = append(paths, sims.Path{X: px, Y: py, Class: c})
	}
	pc := s.proposalClass()
	if !s.noArrows && s.ens.Transitions() > 0 {
		for j := range s.arrowN {
			k := ((s.arrowAt - s.arrowN + j + arrowsLen) % arrowsLen) * 2 * s.d
			a := s.arrows[k : k+2*s.d]
			paths = append(paths, sims.Path{X: []float64{a[0], a[2]}, Y: []float64{a[1], a[3]}, Class: pc,
				Dotted: !s.arrowOK[(s.arrowAt-s.arrowN+j+arrowsLen)%arrowsLen]})
		}
	}
	paths = append(paths, extra...)
	for c := range s.c {
		x := s.ens.Chain(c).X()
		markers = append(markers, sims.Marker{X: x[0], Y: x[1], Glyph: '●', Class: c})
	}
	if z, ok := s.ens.Chain(0).Proposal(); !s.noArrows && !ok && s.ens.Transitions() > 0 {
		markers = append(markers, sims.Marker{X: z[0], Y: z[1], Glyph: '×', Class: pc})
	}
	legend := []string{"chain"}
	if s.c > 1 {
		legend = legend[:0]
		for c := range s.c {
			legend = append(legend, strconv.Itoa(c+1))
		}
	}
	if !s.noArrows || len(extra) > 0 {
		legend = append(legend, s.propName)
	}
	return sims.CanvasChart{
		Title:    "samples (shade), p (lines)",
		View:     s.view,
		Heat:     heat,
		Contours: s.exact,
		Paths:    paths,
		Markers:  markers,
		Legend:   legend,
		XLabel:   "x", YLabel: "y",
	}
}

// proposalClass is the colour of chain 1's proposals: the first class
// after the chains'.
func (s *chainSim) proposalClass() int { return s.c }

// staircase inserts the half-moves of a two-coordinate systematic scan:
// from (x_t, y_t) the sweep moves to (x_{t+1}, y_t), then (x_{t+1}, y_{t+1}).
func staircase(x, y []float64) (sx, sy []float64) {
	if len(x) == 0 {
		return x, y
	}
	sx, sy = make([]float64, 0, 2*len(x)), make([]float64, 0, 2*len(y))
	sx, sy = append(sx, x[0]), append(sy, y[0])
	for t := 1; t < len(x); t++ {
		sx, sy = append(sx, x[t], x[t]), append(sy, y[t-1], y[t])
	}
	return sx, sy
}

// picture is the samples against the exact density: a histogram in 1-D, a
// canvas in 2-D.
func (s *chainSim) picture(extra ...sims.Path) sims.Chart {
	if s.d == 1 {
		return s.histChart("samples after burn-in vs exact density")
	}
	return s.canvasChart(extra...)
}

// charts are the charts every sampler shows, in order: the trace, the
// samples against the exact density, the running acceptance rates and the
// autocorrelations; with several chains the trace and the autocorrelations
// are per chain, and a 2-D target's second coordinate gets its own trace
// and autocorrelation charts after the others (tail, after the sampler's
// own charts).
func (s *chainSim) charts(extra ...sims.Path) (head, tail []sims.Chart) {
	if s.c == 1 {
		return []sims.Chart{s.traceChart(-1), s.picture(extra...), s.accChart(), s.acfChart(-1)}, nil
	}
	head = []sims.Chart{s.traceChart(0), s.picture(extra...), s.accChart(), s.acfChart(0)}
	for i := 1; i < s.d; i++ {
		tail = append(tail, s.traceChart(i), s.acfChart(i))
	}
	return head, tail
}

// pictureChart is the index in a sampler's charts (head) of its picture
// of the samples over the target, the sim's primary chart.
const pictureChart = 1

// frame is the Frame of a sampler that shows what every sampler shows (the
// metrics and charts above) and its own notes, written after the refresh.
func (s *chainSim) frame(notes func() []string) sims.Frame {
	s.refresh()
	head, tail := s.charts()
	return sims.Frame{
		Sim:     s.name,
		Step:    s.ens.Transitions(),
		Metrics: s.metrics(),
		Charts:  append(head, tail...),
		Primary: pictureChart,
		Text:    notes(),
	}
}

// fmtR prints an R-hat: "—" before there is one, "∞" for chains stuck at
// distinct points, ">999" beyond rhatCap.
func fmtR(r float64) string {
	switch {
	case r == 0:
		return "—"
	case math.IsInf(r, 1):
		return "∞"
	case r > rhatCap:
		return ">999"
	}
	f := strconv.FormatFloat(r, 'f', 3, 64)
	if v, _ := strconv.ParseFloat(f, 64); (v < trustRHat) != (r < trustRHat) {
		return strconv.FormatFloat(r, 'f', 4, 64) // not "1.010 < 1.01"
	}
	return f
}

// fmtStart prints a starting point compactly.
func fmtStart(x []float64) string {
	parts := make([]string, len(x))
	for i, v := range x {
		parts[i] = strconv.FormatFloat(v, 'f', 1, 64)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// perCoord prints "x v₀, y v₁" (or "v₀" for a 1-D target) with f(i).
func (s *chainSim) perCoord(f func(i int) string) string {
	if s.d == 1 {
		return f(0)
	}
	return joinCoords(s.d, func(i int) string { return coordNames[i] + " " + f(i) })
}

// joinCoords prints f(0), ..., f(d−1) separated by commas.
func joinCoords(d int, f func(i int) string) string {
	parts := make([]string, d)
	for i := range parts {
		parts[i] = f(i)
	}
	return strings.Join(parts, ", ")
}

// verdict is the headline of the diagnostics, for the first lines of a
// sampler's notes (a small pane shows those): whether the chains agree
// (R̂), the bulk- and tail-ESS when they do, and a warning when the
// samples contradict the exact target (see exactWarning).
func (s *chainSim) verdict() []string {
	if !s.summarised() {
		return nil
	}
	r := s.maxRHat()
	what := "R̂"
	if s.c == 1 {
		what = "split R̂" // of the chain's two halves
	}
	if r >= trustRHat {
		who := "chains disagree (not mixed, or stuck in modes)"
		if s.c == 1 {
			who = "not stationary yet"
		}
		return []string{fmt.Sprintf("%s %s ≥ %g: %s · ESS —", what, fmtR(r), trustRHat, who)}
	}
	ess := func(i int) string { return strconv.FormatFloat(s.sum[i].ESSBulk, 'f', 0, 64) }
	tail := func(i int) string { return strconv.FormatFloat(s.sum[i].ESSTail, 'f', 0, 64) }
	return append([]string{fmt.Sprintf("%s %s < %g · ESS bulk %s · tail %s",
		what, fmtR(r), trustRHat, s.perCoord(ess), s.perCoord(tail))}, s.exactWarning()...)
}

// checkTruth compares coordinate i's chains with the exact target
// (mcmc.Truth.Check: the mean and the coverage of the exact quantiles, in
// standard errors) into s.devs[i], after a summary.
func (s *chainSim) checkTruth(i int) {
	if s.truth == nil {
		s.truth = truthOf(s.tgt)
	}
	runs := make([][]float64, s.c)
	for c := range runs {
		runs[c] = s.ens.History(c).Run(i)
	}
	s.devs[i] = s.truth[i].Check(&s.sum[i], runs)
}

// truths memoises truthOf by target: the exact quantiles come from
// quadrature of the marginal CDF (milliseconds for the donut and the
// funnel), a function of the target alone, which every sim built on the
// same target would otherwise compute again. The key is the target's Go
// syntax (%#v: its type and parameters; targets are plain values).
var truths sync.Map // string → []mcmc.Truth

// truthOf returns every coordinate's exact mean and quantiles under tgt
// (mcmc.TruthOf), shared between sims: callers must not modify it.
func truthOf(tgt target.Target) []mcmc.Truth {
	key := fmt.Sprintf("%#v", tgt)
	if tr, ok := truths.Load(key); ok {
		return tr.([]mcmc.Truth)
	}
	tr := make([]mcmc.Truth, tgt.Dim())
	for j := range tr {
		tr[j] = mcmc.TruthOf(tgt, j)
	}
	got, _ := truths.LoadOrStore(key, tr)
	return got.([]mcmc.Truth)
}

// truthChecks returns the worst deviation from the truth beyond
// mcmc.ExactZ standard errors, its coordinate (−1: none) and how many
// are. Nothing counts until the chains agree (R̂ < 1.01): before, the
// standard errors mean nothing.
func (s *chainSim) truthChecks() (worst mcmc.Deviation, coord, flagged int) {
	coord = -1
	if !s.trusted() {
		return worst, coord, 0
	}
	for i, devs := range s.devs {
		for _, dv := range devs {
			if dv.Flagged() {
				flagged++
				if coord < 0 || math.Abs(dv.Z) > math.Abs(worst.Z) {
					worst, coord = dv, i
				}
			}
		}
	}
	return worst, coord, flagged
}

// exactWarning is two lines on the worst deviation from the truth beyond
// mcmc.ExactZ standard errors, or none.
func (s *chainSim) exactWarning() []string {
	dv, i, n := s.truthChecks()
	if n == 0 {
		return nil
	}
	z := strconv.FormatFloat(math.Abs(dv.Z), 'f', 0, 64)
	if math.IsInf(dv.Z, 0) {
		z = "∞"
	}
	more := ""
	if n > 1 {
		more = fmt.Sprintf(" (+%d more)", n-1)
	}
	why := s.bias
	if why == "" {
		why = s.unexplored(i, dv)
	}
	what := fmt.Sprintf("mean of %s %s, exact %.3g", coordNames[i], fmtPM(dv.Estimate, dv.SE), dv.Exact)
	if !math.IsNaN(dv.P) {
		side, frac := "below", dv.Estimate
		if dv.P > 0.5 {
			side, frac = "above", 1-dv.Estimate
		}
		what = fmt.Sprintf("%.2g%% of %s %s %.3g, exact %g%%", 100*frac, coordNames[i], side, dv.Q, 100*math.Min(dv.P, 1-dv.P))
	}
	return []string{fmt.Sprintf("off target by %s s.e.: %s%s", z, what, more), why + "."}
}

// exactAllClear says the estimates agree with the truth, when they do ("").
func (s *chainSim) exactAllClear() string {
	if _, _, n := s.truthChecks(); n > 0 || !s.trusted() {
		return ""
	}
	what := "means"
	if !math.IsNaN(s.truth[0].Quantiles[0]) {
		what = "means and tails (1, 5, 95, 99%)"
	}
	return fmt.Sprintf("exact check: %s within %g s.e. of the target's.", what, float64(mcmc.ExactZ))
}

// fmtPM prints x ± se with se to two significant digits and x to as many
// decimals.
func fmtPM(x, se float64) string {
	dec := 2
	if se > 0 && !math.IsInf(se, 0) {
		dec = max(0, 1-int(math.Floor(math.Log10(se))))
	}
	return strconv.FormatFloat(x, 'f', dec, 64) + " ± " + strconv.FormatFloat(se, 'f', dec, 64)
}

// unexplored names what the chains missed, from the deviation of
// coordinate i.
func (s *chainSim) unexplored(i int, dv mcmc.Deviation) string {
	if math.IsNaN(dv.P) { // the mean
		return "every chain misses the same part of the target: R̂ cannot see it"
	}
	lower := dv.P < 0.5
	side := "upper"
	if lower {
		side = "lower"
	}
	// Too few draws beyond the exact quantile: the tail is short.
	short := lower == (dv.Estimate < dv.Exact)
	_, funnel := s.tgt.(target.Funnel)
	switch {
	case funnel && i == 1 && short && lower:
		return "the chains visit the funnel's neck (y ≪ 0) too seldom: R̂ cannot see it"
	case funnel && i == 1 && short:
		return "the chains visit the funnel's mouth (y ≫ 0) too seldom: R̂ cannot see it"
	case funnel && i == 0 && short:
		return "the chains spread x too little in the funnel's mouth: R̂ cannot see it"
	case short:
		return fmt.Sprintf("the chains visit %s's %s tail too seldom: R̂ cannot see it", coordNames[i], side)
	}
	return fmt.Sprintf("the chains linger in %s's %s tail: R̂ cannot see it", coordNames[i], side)
}

// mcseNote is the pooled means (of every kept sample) with their Monte
// Carlo standard errors (from the diagnosed runs: conservative once they
// are thinned) and the variances, against the exact ones (two lines).
func (s *chainSim) mcseNote() []string {
	if !s.summarised() {
		return nil
	}
	mu, cov := s.tgt.Mean(), s.tgt.Cov()
	m := s.ens.Moments()
	mean := func(i int) string { return fmtPM(m.MeanAt(i), s.sum[i].MCSEMean) }
	exact := func(i int) string { return strconv.FormatFloat(mu[i], 'g', 3, 64) }
	vr := func(i int) string { return strconv.FormatFloat(m.CovAt(i, i), 'g', 3, 64) }
	exactVar := func(i int) string { return strconv.FormatFloat(cov[i][i], 'g', 3, 64) }
	lines := []string{
		fmt.Sprintf("mean %s (± MCSE; exact %s)", s.perCoord(mean), joinCoords(s.d, exact)),
		fmt.Sprintf("variance %s (exact %s)", s.perCoord(vr), joinCoords(s.d, exactVar)),
	}
	return lines
}

// table is the per-chain diagnostics: start, acceptance, ESS and R-hat per
// coordinate (each chain's own, from its two halves), then the pooled line
// with the multi-chain bulk-ESS ("—" while the chains disagree) and R̂,
// the means with their MCSEs and the exact check. With one chain it is the
// last two only (the verdict has the rest).
func (s *chainSim) table() []string {
	if !s.summarised() {
		return nil
	}
	var lines []string
	if s.c > 1 {
		head := fmt.Sprintf("%-8s%-14s%7s", "chain", "start", "acc")
		for i := range s.d {
			head += fmt.Sprintf("%8s", "ESS "+coordNames[i])
		}
		for i := range s.d {
			head += fmt.Sprintf("%9s", "R̂ "+coordNames[i]) // R̂ is two runes wide one cell
		}
		lines = append(lines, head)
		for c := range s.c {
			l := fmt.Sprintf("%-8d%-14s%7.3f", c+1, fmtStart(s.starts[c]), s.ens.Acceptance(c))
			for i := range s.d {
				l += fmt.Sprintf("%8.0f", s.sum[i].ChainESS[c])
			}
			for i := range s.d {
				l += fmt.Sprintf("%8s", fmtR(s.sum[i].ChainRHat[c]))
			}
			lines = append(lines, l)
		}
		l := fmt.Sprintf("%-22s%7.3f", "all", s.ens.AcceptanceAll())
		for i := range s.d {
			l += fmt.Sprintf("%8s", s.fmtESS(s.essAt(i)))
		}
		for i := range s.d {
			l += fmt.Sprintf("%8s", fmtR(s.sum[i].RHat))
		}
		lines = append(lines, l)
	}
	lines = append(lines, s.mcseNote()...)
	if k := s.ens.History(0).Stride(); k > 1 {
		lines = append(lines, fmt.Sprintf("diagnostics on every %d%s kept draw (bounded memory): the ESS counts those draws only.", k, ordinal(k)))
	}
	if ok := s.exactAllClear(); ok != "" {
		lines = append(lines, ok)
	}
	var stuck []string
	for c := range s.c {
		if s.ens.Transitions() >= hintAfter && s.ens.Acceptance(c) < 0.01 {
			stuck = append(stuck, strconv.Itoa(c+1))
		}
	}
	switch len(stuck) {
	case 0:
	case 1:
		lines = append(lines, fmt.Sprintf("chain %s accepts almost nothing: it sits where the step is too large for the local curvature.", stuck[0]))
	default:
		lines = append(lines, fmt.Sprintf("chains %s accept almost nothing: they sit where the step is too large for the local curvature.",
			strings.Join(stuck, ", ")))
	}
	return lines
}

// ordinal is the English suffix of k (k ≥ 2 a power of two here).
func ordinal(k int) string {
	switch {
	case k%100 >= 11 && k%100 <= 13:
		return "th"
	case k%10 == 2:
		return "nd"
	case k%10 == 3:
		return "rd"
	case k%10 == 1:
		return "st"
	}
	return "th"
}

// arrowNote explains chain 1's proposal arrows on a 2-D canvas ("" when
// there are none).
func (s *chainSim) arrowNote() string {
	if s.d < 2 || s.noArrows {
		return ""
	}
	return fmt.Sprintf("arrows: chain 1's last %d proposals, solid if accepted, dotted if rejected (× the last rejected).", arrowsLen)
}

// burnNote is the burn-in line while it lasts, else "".
func (s *chainSim) burnNote() string {
	if n := s.ens.Transitions(); n <= s.ens.BurnIn() {
		return fmt.Sprintf("burning in: %d of %d transitions discarded so far; statistics start after.", n, s.ens.BurnIn())
	}
	return ""
}

// targetNote is the target's exact density, and for the correlated
// Gaussian, the mixture and the funnel how the samples compare with it.
func (s *chainSim) targetNote() []string {
	lines := []string{"target: " + target.Formula(s.tgt)}
	h := s.ens.Samples()
	if h == 0 {
		return lines
	}
	switch tg := s.tgt.(type) {
	case *target.Mixture:
		lines = append(lines, fmt.Sprintf("samples in the mode x > 0: %.1f%% (exact 50%%)", 100*float64(s.right)/float64(h)))
	case target.Correlated:
		m := s.ens.Moments()
		r := m.CovAt(0, 1) / math.Sqrt(m.CovAt(0, 0)*m.CovAt(1, 1))
		if !math.IsNaN(r) {
			lines = append(lines, fmt.Sprintf("sample correlation %.3f (exact ρ = %g)", r, tg.Rho()))
		}
	case target.Funnel:
		// Var x = E[e^y] = e^{τ²/2}, and E[e^y; y > c] = e^{τ²/2} Φ((τ² − c)/τ):
		// half of it comes from y > τ², a mass 1 − Φ(τ), so a sample
		// variance of x is as good as the chains' visits there.
		lines = append(lines, fmt.Sprintf("samples in the far mouth y > %g: %.2g%% (exact %.2g%%), where half of Var x lies",
			s.mouthY, 100*float64(s.mouth)/float64(h), 50*math.Erfc(math.Sqrt(s.mouthY/2))))
	}
	return lines
}

// result is what every sampler reports: the pooled statistics of the kept
// samples — mean and covariance (unbiased) of every kept sample — and per
// coordinate the diagnostics of mcmc.Summary on the whole kept runs
// (thinned past mcmc.HistoryCap per chain: "diagnosed_draws" per chain,
// "stride"): "rhat" (rank-normalised split R̂; null when infinite), "ess"
// (bulk), "ess_tail", "mcse_mean", "quantiles" (at mcmc.QuantileProbs,
// each with its MCSE and ESS), and "exact", each estimate against the
// target's exact value with its deviation in MCSEs; the acceptance rate over all transitions, the
// counts, and per chain the start, acceptance, ESS and R̂ (of its two
// halves). The diagnostics are null before four samples per chain are
// kept, mean and cov before one.
func (s *chainSim) result() map[string]any {
	res := map[string]any{
		"acceptance": s.ens.AcceptanceAll(),
		"steps":      s.ens.Transitions(),
		"samples":    s.ens.Samples(),
		"chains":     s.c,
		"mean":       nil,
		"cov":        nil,
		"ess":        nil,
		"rhat":       nil,
	}
	if s.ens.Samples() == 0 {
		return res
	}
	res["mean"] = s.ens.Moments().Mean()
	res["cov"] = s.ens.Moments().Cov()
	per := make([]map[string]any, s.c)
	for c := range s.c {
		per[c] = map[string]any{"start": s.starts[c], "acceptance": s.ens.Acceptance(c)}
	}
	res["per_chain"] = per
	if s.ens.Kept() < 4 {
		return res
	}
	col := func(f func(*mcmc.Summary) float64, sums []mcmc.Summary) []float64 {
		out := make([]float64, len(sums))
		for i := range sums {
			out[i] = f(&sums[i])
		}
		return out
	}
	s.Settle() // a frame after this reuses them
	sums := s.sum
	var exact []map[string]any
	for i := range sums {
		for _, dv := range s.devs[i] {
			e := map[string]any{"coord": coordNames[i], "stat": "mean", "estimate": dv.Estimate,
				"se": dv.SE, "exact": dv.Exact, "z": jsonNum(dv.Z), "flagged": dv.Flagged()}
			if !math.IsNaN(dv.P) {
				e["stat"], e["quantile"] = "coverage", dv.Q
			}
			exact = append(exact, e)
		}
	}
	rhat := make([]any, s.d)
	for i := range sums {
		rhat[i] = jsonNum(sums[i].RHat)
	}
	res["rhat"] = rhat
	res["ess"] = col(func(m *mcmc.Summary) float64 { return m.ESSBulk }, sums)
	res["ess_tail"] = col(func(m *mcmc.Summary) float64 { return m.ESSTail }, sums)
	res["mcse_mean"] = col(func(m *mcmc.Summary) float64 { return m.MCSEMean }, sums)
	var qs []map[string]any
	for k, p := range mcmc.QuantileProbs {
		qs = append(qs, map[string]any{"p": p,
			"value": col(func(m *mcmc.Summary) float64 { return m.Quantiles[k].Value }, sums),
			"mcse":  col(func(m *mcmc.Summary) float64 { return m.Quantiles[k].MCSE }, sums),
			"ess":   col(func(m *mcmc.Summary) float64 { return m.Quantiles[k].ESS }, sums)})
	}
	res["quantiles"] = qs
	res["exact"] = exact
	res["diagnosed_draws"] = sums[0].Draws
	res["stride"] = s.ens.History(0).Stride()
	for c := range s.c {
		e, r := make([]float64, s.d), make([]any, s.d)
		for i := range sums {
			e[i], r[i] = sums[i].ChainESS[c], jsonNum(sums[i].ChainRHat[c])
		}
		per[c]["ess"], per[c]["rhat"] = e, r
	}
	return res
}

// jsonNum is x, or nil when it is not finite (JSON has no Inf).
func jsonNum(x float64) any {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return x
}
