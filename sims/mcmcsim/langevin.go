package mcmcsim

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo/mcmc"
	"github.com/thelab/lab/algo/target"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// Langevin is unadjusted Langevin dynamics (seed 000 §3.2, eq 3.3) run
// beside MALA with the same step δ from the same starts: the chains follow
// y ← y + δ∇log p(y) + √(2δ)w with no accept/reject step, so their
// stationary law is not p (the notes' claim of convergence to p holds only
// as δ → 0; seed-000-catalog erratum 30). A chart tracks the running
// variance of x under both samplers against the exact variance and, on the
// Gaussians, against ULA's closed-form stationary variance s²/(1 − δ/(2s²))
// per principal direction: ULA settles on the latter, MALA on the former.
// With noise=off the update is gradient ascent and the chains collapse onto
// modes.
var Langevin = &sims.Spec{
	Name:   "langevin",
	Title:  "Unadjusted Langevin dynamics: its O(δ) bias next to MALA",
	Source: "seed 000 §3.2 (Langevin dynamics, eq 3.3); MALA for comparison",
	Steps:  20000,
	Speed:  100,
	Params: param.List(ulaTarget, ulaStep, ulaNoise, ulaChains),
	New:    newLangevin,
	Size:   ulaChains.size(ulaTarget, langevinBytes),

	Metrics: langevinMetrics,
}

var (
	ulaTarget = newTargetParams(target.KindNormal)
	ulaStep   = param.Float("step", 0.2,
		"step δ of y ← y + δ∇log p(y) + √(2δ)w; on N(0, s²) ULA is stable iff δ < 2s²").Range(0, 10).OpenMin()
	ulaNoise = param.Bool("noise", true,
		"off drops the √(2δ)w term: gradient ascent, which collapses onto modes instead of sampling")
	ulaChains = newChainParams(ulaTarget, 4, 500)
)

// langevinBytes is what langevin holds besides a chainSim: the MALA
// Ensemble (its moments only) and its samplers, and the running
// variances' Trace (two columns, and their copy in a Frame).
func langevinBytes(_ param.Values, nc, d int) int64 {
	return mcmc.MomentEnsembleBytes(nc, d) + int64(nc)*samplerBytes + traceBytes(2)
}

// varFrom is the number of kept samples before the running variances are
// drawn: 2000 (500 steps of 4 chains) puts their standard error, about
// √(2/ESS) ≈ 0.06, under ULA's O(δ) bias of 0.11 at the defaults; from 200 the
// first estimates ran to 2.5 and the bias drew within one row.
const varFrom = 2000

type langevinSim struct {
	*chainSim
	mala     *mcmc.Ensemble
	delta    float64
	noise    bool
	vars     *sims.Trace // running Var x of the kept samples: ULA, MALA (nil before)
	exactVar float64
	theory   float64 // ULA's stationary Var x (NaN when unknown or unstable)
	malaBins []float64
	malaKept int
}

// ulaVariance is ULA's stationary variance of x on the Gaussian targets
// (mcmc.ULAStationaryVariance along each principal direction), NaN on the
// others or when the chain has none.
func ulaVariance(tg target.Target, delta float64) float64 {
	switch t := tg.(type) {
	case target.Normal:
		if v, ok := mcmc.ULAStationaryVariance(t.Cov()[0][0], delta); ok {
			return v
		}
	case target.Correlated:
		// x = (u + w)/√2 with u, w the coordinates along the eigenvectors
		// (1, 1)/√2 and (1, −1)/√2 of Σ, eigenvalues 1 ± ρ, independent
		// under ULA's Gaussian stationary law: Var x = (v₊ + v₋)/2.
		vp, ok1 := mcmc.ULAStationaryVariance(1+t.Rho(), delta)
		vm, ok2 := mcmc.ULAStationaryVariance(1-t.Rho(), delta)
		if ok1 && ok2 {
			return (vp + vm) / 2
		}
	}
	return math.NaN()
}

// gaussian reports whether tg is one of the Gaussian targets, on which
// ULA's stationary law is known.
func gaussian(tg target.Target) bool {
	switch tg.(type) {
	case target.Normal, target.Correlated:
		return true
	}
	return false
}

func newLangevin(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	tgt, err := ulaTarget.build(v)
	if err != nil {
		return nil, err
	}
	delta, noise := ulaStep.Get(v), ulaNoise.Get(v)
	const stream = 0x756c61 // "ula"
	cs, err := newChainSim("langevin", cfg, ulaChains, tgt, stream, func(x0 []float64, rng *rand.Rand) (mcmc.Sampler, error) {
		l, err := mcmc.NewLangevin(tgt, x0, delta, rng)
		if err != nil {
			return nil, err
		}
		l.SetNoise(noise)
		return l, nil
	})
	if err != nil {
		return nil, err
	}
	cs.noArrows = true
	cs.bias = "ULA's stationary law is not p: an O(δ) bias, not a failure to mix (MALA removes it)"
	var chains []mcmc.Sampler
	for c, x0 := range cs.starts {
		m, err := mcmc.NewMALA(tgt, x0, delta, rand.New(rand.NewPCG(cfg.Seed, stream+0x1000+uint64(c))))
		if err != nil {
			return nil, err
		}
		chains = append(chains, m)
	}
	// Only the MALA chains' moments are read: no Histories.
	mala, err := mcmc.NewMomentEnsemble(chains, ulaChains.burnin.Get(v), ulaChains.thin.Get(v))
	if err != nil {
		return nil, err
	}
	mala.SetWorkers(cfg.Workers)
	s := &langevinSim{chainSim: cs, mala: mala, delta: delta, noise: noise,
		exactVar: tgt.Cov()[0][0], theory: ulaVariance(tgt, delta)}
	if !noise {
		s.theory = math.NaN()
	}
	if s.d == 1 {
		s.malaBins = make([]float64, bins1D)
	}
	return s, nil
}

// Step advances the ULA and the MALA chains by one transition each and
// records the running variances once samples are kept. It does not
// allocate.
func (s *langevinSim) Step() error {
	if err := s.step(); err != nil {
		return err
	}
	if err := s.mala.Step(); err != nil {
		return err
	}
	if k := s.mala.Kept(); k != s.malaKept {
		s.malaKept = k
		if s.malaBins != nil {
			for c := range s.c {
				x := s.mala.Chain(c).X()[0]
				if f := (x - s.lo[0]) / (s.hi[0] - s.lo[0]); f >= 0 && f < 1 {
					s.malaBins[min(int(f*bins1D), bins1D-1)]++
				}
			}
		}
	}
	if s.ens.Samples() >= varFrom {
		if s.vars == nil {
			s.vars = sims.NewTrace(s.ens.Transitions(), 2)
		}
		s.vars.Add(s.ens.Moments().CovAt(0, 0), s.mala.Moments().CovAt(0, 0))
	}
	return nil
}

func (s *langevinSim) varULA() float64  { return s.ens.Moments().CovAt(0, 0) }
func (s *langevinSim) varMALA() float64 { return s.mala.Moments().CovAt(0, 0) }

// biasChart is the running variance of x under ULA and MALA against the
// exact variance and ULA's stationary variance.
func (s *langevinSim) biasChart() sims.LineChart {
	ch := sims.LineChart{Title: "variance of x: ULA vs MALA", XLabel: "step"}
	if s.vars == nil {
		return ch
	}
	ch.X0, ch.X1 = s.vars.Span()
	ch.Series = []sims.Series{
		{Name: "ULA", Y: s.vars.Column(0), Class: 0},
		{Name: "MALA", Y: s.vars.Column(1), Class: 1},
		{Name: "exact", Y: s.vars.Map(func(int) float64 { return s.exactVar }), Class: 2, Bound: true},
	}
	if !math.IsNaN(s.theory) {
		ch.Series = append(ch.Series, sims.Series{Name: "ULA theory", Y: s.vars.Map(func(int) float64 { return s.theory }), Class: 3, Bound: true})
	}
	return ch
}

func (s *langevinSim) Frame() sims.Frame {
	s.refresh()
	metrics := append(s.metrics(),
		// A variance needs two kept samples: during burn-in it is "—".
		sims.Metric{Name: "var_x_ula", Value: s.varULA(), Untrusted: s.ens.Samples() < 2},
		sims.Metric{Name: "var_x_mala", Value: s.varMALA(), Untrusted: s.mala.Samples() < 2},
		sims.Metric{Name: "var_x_exact", Value: s.exactVar})
	head, tail := s.charts()
	if s.d == 1 {
		head[pictureChart] = s.histWithMALA()
	}
	head[2] = s.biasChart()
	return sims.Frame{
		Sim:     "langevin",
		Step:    s.ens.Transitions(),
		Metrics: metrics,
		Charts:  append(head, tail...),
		Primary: pictureChart,
		Text:    s.notes(),
	}
}

// histWithMALA is the ULA histogram with the exact density, ULA's
// stationary density (on the Gaussian) and MALA's histogram as curves.
func (s *langevinSim) histWithMALA() sims.HistChart {
	var curves []sims.Curve
	if !math.IsNaN(s.theory) {
		mu := s.tgt.Mean()[0]
		c := sims.Curve{Name: "ULA stationary N(μ, v)", X: s.curve.X, Y: make([]float64, len(s.curve.X)), Class: 3}
		for i, x := range c.X {
			c.Y[i] = math.Exp(-(x-mu)*(x-mu)/(2*s.theory)) / math.Sqrt(2*math.Pi*s.theory)
		}
		curves = append(curves, c)
	}
	if n := float64(s.mala.Samples()); n > 0 {
		w := (s.hi[0] - s.lo[0]) / bins1D
		c := sims.Curve{Name: "MALA samples", X: make([]float64, bins1D), Y: make([]float64, bins1D), Class: 2}
		for b, k := range s.malaBins {
			c.X[b], c.Y[b] = s.lo[0]+(float64(b)+0.5)*w, k/(n*w)
		}
		curves = append(curves, c)
	}
	return s.histChart("ULA samples vs exact density", curves...)
}

func (s *langevinSim) notes() []string {
	noise := "√(2δ)w"
	if !s.noise {
		noise = "no noise (gradient ascent: the chains collapse onto modes)"
	}
	lines := []string{
		fmt.Sprintf("δ = %g: y ← y + δ∇log p(y) + %s, never rejected (seed 000 eq 3.3);", s.delta, noise),
		"MALA runs beside it: the same move as a proposal, accepted or rejected by eq 3.2.",
	}
	lines = append(lines, s.verdict()...)
	if b := s.burnNote(); b != "" {
		lines = append(lines, b)
	}
	if s.ens.Samples() > 1 {
		l := fmt.Sprintf("Var x: ULA %.4f, MALA %.4f, exact %.4g", s.varULA(), s.varMALA(), s.exactVar)
		if !math.IsNaN(s.theory) {
			l += fmt.Sprintf("; ULA's stationary variance %.4f", s.theory)
		}
		lines = append(lines, l+".")
	}
	switch {
	case !s.noise:
	case !math.IsNaN(s.theory):
		lines = append(lines, "on N(μ, s²) ULA is AR(1) with a = 1 − δ/s²: Var = 2δ/(1 − a²) = s²/(1 − δ/(2s²)), an O(δ) bias.")
	case gaussian(s.tgt):
		lines = append(lines, "δ ≥ 2s² along some direction: ULA has no stationary law there and diverges.")
	default:
		lines = append(lines, "ULA's stationary law differs from p by O(δ); MALA's accept/reject step removes the bias.")
	}
	lines = append(lines, s.targetNote()...)
	return append(lines, s.table()...)
}

// Result reports ULA's statistics (the shared ones), and the variances of x
// under ULA, MALA, the exact target and ULA's theory (null when unknown).
func (s *langevinSim) Result() map[string]any {
	res := s.result()
	res["var_x_ula"] = s.varULA()
	res["var_x_mala"] = s.varMALA()
	res["var_x_exact"] = s.exactVar
	res["var_x_ula_theory"] = jsonNum(s.theory)
	res["mala_acceptance"] = s.mala.AcceptanceAll()
	return res
}
