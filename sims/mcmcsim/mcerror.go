package mcmcsim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/thelab/lab/algo/mcmc"
	"github.com/thelab/lab/algo/target"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// MCErrorSim is the Monte Carlo error against the number of samples (seed
// 002 §3.2, L1030–1038; catalogue C3): R replicates each estimate E_p[f]
// by an average of S samples, from independent exact draws and from a
// random-walk Metropolis chain started at an exact draw. The log-log chart
// of the RMSE over the replicates against S has slope −½ for both (the
// notes' 1/√S), the chain's line sitting √τ higher; a histogram shows the R
// estimates at the current S against the normal law N(E f, σ_f²/S) of the
// central limit theorem, and a chart the first replicate's running estimate
// inside its ±2 s.e. band.
var MCErrorSim = &sims.Spec{
	Name:   "mcerror",
	Title:  "Monte Carlo error against samples: the 1/√S law, independent draws vs an MH chain",
	Source: "seed 002 §3.2 (Monte Carlo estimation, L1030–1038)",
	Steps:  10000,
	Speed:  300,
	Params: param.List(mcerTarget, mcerF, mcerReplicates, mcerStep),
	New:    newMCError,
	Size:   mcErrorSize,

	Metrics: mcErrorMetrics,
}

var (
	mcerTarget = newTargetParams(target.KindNormal)
	mcerF      = param.Choice("f", []mcmc.Statistic{mcmc.StatMean, mcmc.StatSquare, mcmc.StatTail}, mcmc.StatMean,
		"the statistic f(z) whose mean is estimated: x (the first coordinate), x2 (its square), x>0 (an indicator; exact mean ½)")
	mcerReplicates = param.Int("replicates", 200, "independent replicates R over which the RMSE is taken").Range(10, 2000)
	mcerStep       = param.Float("step", 2, "proposal scale of the replicates' random-walk Metropolis chains").Range(0, 20).OpenMin().
			DefaultFunc(func(v param.Values) float64 { return rwStep(mcerTarget.get(v)) }, "as mh's random-walk step for the target")
)

// Sizes of the mcerror pane.
const (
	estBins = 30 // bins of the histogram of the replicates' estimates
)

// mcErrorSize is the engine's bytes and the sim's: the replicates'
// estimates for the histogram, replicate 1's running band and the Frame
// (its charts are a few points a checkpoint) within a measured base.
func mcErrorSize(cfg sims.Config) int64 {
	r := mcerReplicates.Get(cfg.Values)
	return mcmc.MCErrorBytes(r, mcerTarget.kind.Get(cfg.Values).Dim()) + 8*int64(r) + 96<<10
}

type mcErrorSim struct {
	e       *mcmc.MCError
	tgt     target.Target
	step    float64
	running [3][]float64 // replicate 1 at the checkpoints: estimate, ± 2σ/√S
	ests    []float64
}

func newMCError(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	tgt, err := mcerTarget.build(v)
	if err != nil {
		return nil, err
	}
	step := mcerStep.Get(v)
	e, err := mcmc.NewMCError(tgt, mcerF.Get(v), mcerReplicates.Get(v), step,
		rand.New(rand.NewPCG(cfg.Seed, 0x6d636572))) // "mcer"
	if err != nil {
		return nil, err
	}
	e.SetWorkers(cfg.Workers)
	return &mcErrorSim{e: e, tgt: tgt, step: step}, nil
}

// Step draws one more sample in every replicate and, at a checkpoint,
// records replicate 1's running estimate and band.
func (s *mcErrorSim) Step() error {
	if err := s.e.Step(); err != nil {
		return err
	}
	if checks, _, _ := s.e.Checkpoints(); len(checks) > len(s.running[0]) {
		est, band := s.e.Estimate(0), 2*s.e.SigmaF()/math.Sqrt(float64(s.e.S()))
		s.running[0] = append(s.running[0], est)
		s.running[1] = append(s.running[1], est+band)
		s.running[2] = append(s.running[2], est-band)
	}
	return nil
}

func (s *mcErrorSim) Frame() sims.Frame {
	e := s.e
	checks, iid, chain := e.Checkpoints()
	slopeI, slopeM := e.Slope(0, false), e.Slope(100, true)
	last := func(y []float64) float64 {
		if len(y) == 0 {
			return math.NaN() // no checkpoint yet: undefined, not 0
		}
		return y[len(y)-1]
	}
	metrics := []sims.Metric{
		{Name: "S", Value: float64(e.S())},
		sims.MetricOr("rmse_iid", last(iid), "no checkpoint reached yet"),
		sims.MetricOr("rmse_mh", last(chain), "no checkpoint reached yet"),
		sims.MetricOr("slope_iid", slopeI, "too few checkpoints to fit a slope yet"),
		sims.MetricOr("slope_mh", slopeM, "too few checkpoints past the burn-in to fit a slope yet"),
	}

	// (1) RMSE against S on log-log axes, with the two 1/√S laws.
	sigma, tau := e.SigmaF(), e.Tau()
	loglog := sims.LineChart{Title: fmt.Sprintf("RMSE over %d replicates vs S", e.Replicates()),
		LogY: true, XLabel: "log₁₀ S", X0: 1}
	if n := len(checks); n > 0 {
		loglog.X1 = 1 + float64(n-1)/10
		ref := func(c float64) []float64 {
			y := make([]float64, n)
			for k, sk := range checks {
				y[k] = c / math.Sqrt(float64(sk))
			}
			return y
		}
		loglog.Series = []sims.Series{
			{Name: "independent draws", Y: append([]float64(nil), iid...), Class: 0},
			{Name: "MH chains", Y: append([]float64(nil), chain...), Class: 1},
			{Name: "σ/√S", Y: ref(sigma), Class: 0, Bound: true},
			{Name: "σ√(τ̂/S)", Y: ref(sigma * math.Sqrt(tau)), Class: 1, Bound: true},
		}
	}

	// (2) Replicate 1's running estimate in its ±2 s.e. band, at the
	// checkpoints (log-spaced S, so the band narrows across the chart).
	running := sims.LineChart{Title: "replicate 1: estimate ± 2σ/√S", XLabel: "log₁₀ S", X0: 1}
	if n := len(s.running[0]); n > 0 {
		running.X1 = 1 + float64(n-1)/10
		truth := make([]float64, n)
		for k := range truth {
			truth[k] = e.Truth()
		}
		running.Series = []sims.Series{
			{Name: "estimate", Y: append([]float64(nil), s.running[0]...), Class: 0},
			{Name: "+2 s.e.", Y: append([]float64(nil), s.running[1]...), Class: 2, Bound: true},
			{Name: "−2 s.e.", Y: append([]float64(nil), s.running[2]...), Class: 2, Bound: true},
			{Name: "E f", Y: truth, Class: 1, Bound: true},
		}
	}

	// (3) The replicates' estimates against the CLT's normal law.
	charts := []sims.Chart{loglog, running}
	if e.S() > 0 && sigma > 0 {
		charts = append(charts, s.cltChart(sigma))
	}
	return sims.Frame{Sim: "mcerror", Step: e.S(), Metrics: metrics, Charts: charts, Text: s.notes(slopeI, slopeM)}
}

// cltChart is the histogram of the R independent-draw estimates at the
// current S over ±4 standard errors, with the density of N(E f, σ²/S).
func (s *mcErrorSim) cltChart(sigma float64) sims.HistChart {
	e := s.e
	se := sigma / math.Sqrt(float64(e.S()))
	lo, hi := e.Truth()-4*se, e.Truth()+4*se
	s.ests = e.Estimates(s.ests[:0])
	dens := make([]float64, estBins)
	w := (hi - lo) / estBins
	for _, v := range s.ests {
		if f := (v - lo) / (hi - lo); f >= 0 && f < 1 {
			dens[min(int(f*estBins), estBins-1)]++
		}
	}
	for b := range dens {
		dens[b] /= float64(len(s.ests)) * w
	}
	const n = 121
	c := sims.Curve{Name: "N(E f, σ²/S)", X: make([]float64, n), Y: make([]float64, n), Class: 1}
	for i := range n {
		x := lo + (hi-lo)*float64(i)/(n-1)
		z := (x - e.Truth()) / se
		c.X[i], c.Y[i] = x, math.Exp(-z*z/2)/(se*math.Sqrt(2*math.Pi))
	}
	return sims.HistChart{Title: fmt.Sprintf("the %d estimates at S = %d vs the CLT", e.Replicates(), e.S()),
		Lo: lo, Hi: hi, Density: dens, Curves: []sims.Curve{c}, XLabel: "estimate of E f", Label: "replicate estimates"}
}

func fmtSlope(b float64) string {
	if math.IsNaN(b) {
		return "—"
	}
	return strings.Replace(fmt.Sprintf("%.3f", b), "-", "−", 1)
}

// tauText says τ̂, or that the chain is too short for it yet (Tau is then a
// stand-in 1, which the notes must not quote as an estimate).
func tauText(e *mcmc.MCError) string {
	if !e.TauEstimated() {
		return "τ̂ not estimated yet (too few states)"
	}
	return fmt.Sprintf("τ̂ = %.3g", e.Tau())
}

// higherText says how much higher the chains' RMSE is, once τ̂ is known.
func higherText(e *mcmc.MCError) string {
	if !e.TauEstimated() {
		return "S correlated states are worth ESS = S/τ independent draws."
	}
	return fmt.Sprintf("√τ̂ = %.2g× higher: S correlated states are worth ESS = S/τ independent draws.", math.Sqrt(e.Tau()))
}

func (s *mcErrorSim) notes(slopeI, slopeM float64) []string {
	e := s.e
	fname := map[string]string{"x": "x", "x2": "x²", "x>0": "1{x > 0}"}[string(e.Statistic())]
	lines := []string{
		fmt.Sprintf("f(z) = %s, E_p f = %.4g: each of R = %d replicates averages S samples, (1/S)Σ f(z⁽ˢ⁾).", fname, e.Truth(), e.Replicates()),
		fmt.Sprintf("independent draws: RMSE = σ_f/√S, σ_f = %.4g — log-log slope −½; fitted %s.", e.SigmaF(), fmtSlope(slopeI)),
		fmt.Sprintf("MH chains (proposal scale step = %g, acceptance %.2f): RMSE ≈ σ_f√(τ/S), %s: slope −½ once S ≫ τ (fitted from S = 100: %s),", s.step, e.Acceptance(), tauText(e), fmtSlope(slopeM)),
		higherText(e),
		"target: " + target.Formula(s.tgt),
	}
	return lines
}

// Result reports S, E f, σ_f, τ̂, the fitted slopes (null with fewer than
// three checkpoints) and every checkpoint's RMSEs.
func (s *mcErrorSim) Result() map[string]any {
	e := s.e
	checks, iid, chain := e.Checkpoints()
	return map[string]any{
		"S":           e.S(),
		"truth":       e.Truth(),
		"sigma_f":     e.SigmaF(),
		"tau":         e.Tau(),
		"slope_iid":   jsonNum(e.Slope(0, false)),
		"slope_mh":    jsonNum(e.Slope(100, true)),
		"checkpoints": append([]int(nil), checks...),
		"rmse_iid":    append([]float64(nil), iid...),
		"rmse_mh":     append([]float64(nil), chain...),
		"acceptance":  e.Acceptance(),
	}
}
