package visim

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo/vi"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// BBVI is black-box variational inference (seed 002 §3.4, L1416–1430) with
// q = N(m, s²) on a 1-D posterior, following the score-function gradient
// (3.14) or the reparameterisation gradient (§6.3, eq 6.12). Both
// estimators are drawn at every step, so their variances are compared live
// and their single-sample errors histogrammed; the ascent follows the one
// chosen. The models give log p(x, z) with its unknown evidence, as a black
// box sees them: the conjugate Gaussian (whose posterior, the optimum, is
// known) and the Bayesian logistic regression of Ex 3.4 (not conjugate).
var BBVI = &sims.Spec{
	Name:   "bbvi",
	Title:  "Black-box VI: score-function vs reparameterisation gradients, variances compared live",
	Source: "seed 002 §3.4 (eq 3.14, L1416–1430) and §6.3 (eqs 6.8, 6.12, Remark 6.13)",
	Steps:  2000,
	Speed:  10,
	Params: param.List(bbviModel, bbviEstimator, bbviSamples, bbviLR, bbviM0, bbviS0, bbviN),
	New:    newBBVI,
	// The S samples' draws and gradient terms (32 bytes each), the
	// gaussian model's n observations, and a measured base: the
	// posterior's grid and the Frame's curves and Traces.
	Size: func(c sims.Config) int64 {
		return 32*int64(bbviSamples.Get(c.Values)) + 8*int64(bbviN.Get(c.Values)) + 496<<10
	},

	Metrics: bbviMetrics,
}

// bbvi's parameters.
var (
	bbviModel = param.Choice("model", []model{modelGaussian, modelLogistic}, modelGaussian,
		"gaussian: z ~ N(0, 3²), n points x ~ N(z, 1) (exact posterior known); logistic: Ex 3.4, w ~ N(0, 2²), 8 labelled points")
	bbviEstimator = param.Choice("estimator", []vi.Estimator{vi.Score, vi.Reparam}, vi.Reparam,
		"the gradient the ascent follows (both are computed and compared every step)")
	bbviSamples = param.Int("samples", 10, "Monte Carlo samples S per gradient estimate").Range(1, 10000)

	bbviLR = param.Float("lr", 0.01, "step size η of the ascent λ ← λ + η ĝ, λ = (m, log s)").Range(0, 10).OpenMin().
		DefaultFunc(defaultLR, "gaussian: 0.01 (reparam), 0.001 (score); logistic: 0.05")

	bbviM0 = param.Float("m0", -2, "starting mean of q").Range(-10, 10)
	bbviS0 = param.Float("s0", 1, "starting standard deviation of q").Range(0.01, 10)
	bbviN  = param.Int("n", 20, "observations of the gaussian model").Range(1, 10000)
)

// defaultLR is a step that converges: on the gaussian model the score
// function's noise (variance ~10⁴ per sample, from the evidence term)
// needs a step ten times smaller than the reparameterised gradient's, and
// still wanders about the optimum (L1428: "high variance and thus slow
// convergence").
func defaultLR(v param.Values) float64 {
	switch {
	case bbviModel.Get(v) == modelLogistic:
		return 0.05
	case bbviEstimator.Get(v) == vi.Score:
		return 0.001
	}
	return 0.01
}

// window is how many single-sample estimates per estimator the histograms
// pool (the last window/S steps).
const window = 20000

type evidencer interface {
	vi.Density1D
	LogEvidence() float64
}

type bbviSim struct {
	b        *vi.BBVI
	model    evidencer
	evidence float64
	postMean float64 // exact posterior mean (gaussian) or NaN
	postSD   float64
	// m, s, ELBO after each step; var score (∇_m), var reparam (∇_m) of
	// its estimates, taken at λ before its move. Row j is step j + 1's.
	trace *sims.Trace
	// Ring of single-sample errors ĝ_m − ∇_m ELBO, per estimator.
	errs [2][]float64
	at   int
	full bool
	// The posterior density for drawing, normalised by quadrature.
	xlo, xhi float64
	post     []float64
}

func newBBVI(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x62627669)) // "bbvi"
	s := &bbviSim{trace: sims.NewTrace(0, 5), postMean: math.NaN()}
	switch bbviModel.Get(v) {
	case modelLogistic:
		l, err := vi.NewLogistic(vi.Ex34X, vi.Ex34Y, 2)
		if err != nil {
			return nil, err
		}
		s.model = l
		s.xlo, s.xhi = -2, 4
	default:
		c, err := vi.NewConjugate(0, 3, 1, 1.5, bbviN.Get(v), rand.New(rand.NewPCG(cfg.Seed, 0x64617461)))
		if err != nil {
			return nil, err
		}
		s.model = c
		s.postMean, s.postSD = c.Posterior()
		r := math.Max(5*s.postSD, 1)
		s.xlo, s.xhi = math.Min(s.postMean-r, bbviM0.Get(v)-2*bbviS0.Get(v)), math.Max(s.postMean+r, bbviM0.Get(v)+2*bbviS0.Get(v))
	}
	s.evidence = s.model.LogEvidence()
	b, err := vi.NewBBVI(s.model, vi.BBVIConfig{Estimator: bbviEstimator.Get(v), Samples: bbviSamples.Get(v),
		LR: bbviLR.Get(v), M0: bbviM0.Get(v), S0: bbviS0.Get(v)}, rng)
	if err != nil {
		return nil, err
	}
	s.b = b
	w := max(window/bbviSamples.Get(v), 1) * bbviSamples.Get(v)
	s.errs = [2][]float64{make([]float64, w), make([]float64, w)}
	const pts = 161
	s.post = make([]float64, pts)
	x := []float64{0}
	for i := range pts {
		x[0] = s.xlo + (s.xhi-s.xlo)*float64(i)/(pts-1)
		s.post[i] = math.Exp(s.model.LogP(x) - s.evidence)
	}
	return s, nil
}

func (s *bbviSim) Step() error {
	if err := s.b.Step(); err != nil {
		return err
	}
	score, rep := s.b.LastSamples()
	g := s.b.StatsGrad()
	S := len(score) / 2
	for i := range S {
		s.errs[0][s.at] = score[2*i] - g[0]
		s.errs[1][s.at] = rep[2*i] - g[0]
		if s.at++; s.at == len(s.errs[0]) {
			s.at, s.full = 0, true
		}
	}
	m, sd := s.b.Lambda()
	st, rt := s.b.Stats()
	s.trace.Add(m, sd, s.b.ELBO(), st.Var[0], rt.Var[0])
	return nil
}

// pooled returns the filled part of a ring.
func (s *bbviSim) pooled(e int) []float64 {
	if s.full {
		return s.errs[e]
	}
	return s.errs[e][:s.at]
}

func (s *bbviSim) Frame() sims.Frame {
	m, sd := s.b.Lambda()
	st, rt := s.b.Stats()
	ratio := 0.0
	if rt.Var[0] > 0 {
		ratio = st.Var[0] / rt.Var[0]
	}
	metrics := []sims.Metric{
		{Name: "m", Value: m},
		{Name: "s", Value: sd},
		{Name: "ELBO", Value: s.b.ELBO()},
		{Name: "var score", Value: st.Var[0]},
		{Name: "var reparam", Value: rt.Var[0]},
		{Name: "ratio", Value: ratio},
	}
	if s.b.Iter() == 0 {
		// The estimators' statistics are those of a step's draws.
		for i := 3; i < 6; i++ {
			metrics[i] = sims.Metric{Name: metrics[i].Name, Undefined: noEstimate}
		}
	}
	// A step's variances are of its estimates at λ before its move: row j,
	// step j + 1's, is drawn at j, the step whose λ they were taken at
	// (so the curve ends at the step before the frame's); its m, s and
	// ELBO are of λ after the move, drawn at j + 1.
	x0, x1 := s.trace.Span()
	variances := sims.LineChart{Title: "one-sample ∇_m variance at λ before each move", LogY: true, X0: x0, X1: x1,
		XLabel: "step (λ before its move)",
		Series: []sims.Series{
			{Name: "score function (3.14)", Y: s.trace.Column(3), Class: 0},
			{Name: "reparameterisation (6.12)", Y: s.trace.Column(4), Class: 1},
		}}
	// Both histograms on the score function's range, so widths compare.
	sc, rp := s.pooled(0), s.pooled(1)
	spread := 0.0
	for _, e := range sc {
		spread += e * e
	}
	if len(sc) > 0 {
		spread = 4 * math.Sqrt(spread/float64(len(sc)))
	}
	if !(spread > 0) {
		spread = 1
	}
	hist := func(title string, errs []float64) sims.HistChart {
		const bins = 60
		dens := make([]float64, bins)
		w := 2 * spread / bins
		for _, e := range errs {
			if f := (e + spread) / (2 * spread); f >= 0 && f < 1 {
				dens[min(int(f*bins), bins-1)] += 1 / (float64(len(errs)) * w)
			}
		}
		return sims.HistChart{Title: title, Lo: -spread, Hi: spread, Density: dens, XLabel: "ĝ_m − ∇_m ELBO, at λ before each move",
			Label: "gradient estimates"}
	}
	steps := len(sc) / s.b.Config().Samples
	hs := hist(fmt.Sprintf("score-function errors, last %d steps", steps), sc)
	hr := hist("reparameterisation errors, same range", rp)
	elbo := sims.LineChart{Title: "ELBO (exact, by quadrature) → log p(x)", X0: x0 + 1, X1: x1 + 1, XLabel: "step",
		Series: []sims.Series{
			{Name: "ELBO", Y: s.trace.Column(2), Class: 2},
			{Name: "log p(x)", Y: s.trace.Map(func(int) float64 { return s.evidence }), Class: 3, Bound: true},
		}}
	const pts = 161
	q := make([]float64, pts)
	for i := range pts {
		x := s.xlo + (s.xhi-s.xlo)*float64(i)/(pts-1)
		q[i] = math.Exp(-0.5*((x-m)/sd)*((x-m)/sd)) / (sd * math.Sqrt(2*math.Pi))
	}
	dens := sims.LineChart{Title: "posterior p(z|x) and q = N(m, s²)", X0: s.xlo, X1: s.xhi, XLabel: "z",
		Series: []sims.Series{{Name: "p(z|x)", Y: s.post, Class: 3}, {Name: "q", Y: q, Class: 2}}}
	lines := []string{
		"score (3.14): ĝ = (log p(x,z) − log q(z)) ∇_λ log q(z)",
		"reparam (6.12): z = m + sε, ĝ = ∇_λ[log p(x, z) − log q(z)]",
		fmt.Sprintf("both unbiased; var(score) = %.3g × var(reparam) at λ before the last move, S = %d each", ratio, s.b.Config().Samples),
		fmt.Sprintf("ascent: %s, η = %g; log p(x) − ELBO = KL(q‖p) = %.2g (3.9)", s.b.Config().Estimator, s.b.Config().LR, s.evidence-s.b.ELBO()),
	}
	if s.b.Iter() == 0 {
		lines[2] = fmt.Sprintf("both unbiased; their variances are measured from the first step, S = %d each", s.b.Config().Samples)
	}
	if !math.IsNaN(s.postMean) {
		lines = append(lines, fmt.Sprintf("exact posterior N(%.3f, %.3f²); q = N(%.3f, %.3f²)", s.postMean, s.postSD, m, sd))
	}
	return sims.Frame{Sim: BBVI.Name, Step: s.b.Iter(), Metrics: metrics,
		Charts: []sims.Chart{variances, hs, hr, elbo, dens}, Text: lines}
}

func (s *bbviSim) Result() map[string]any {
	m, sd := s.b.Lambda()
	st, rt := s.b.Stats()
	res := map[string]any{"m": m, "s": sd, "elbo": s.b.ELBO(), "log_evidence": s.evidence, "steps": s.b.Iter(),
		"var_score": st.Var[:], "var_reparam": rt.Var[:]}
	if !math.IsNaN(s.postMean) {
		res["posterior"] = []float64{s.postMean, s.postSD}
	}
	if s.b.Iter() == 0 {
		res["var_score"], res["var_reparam"] = nil, nil
		res["undefined"] = map[string]string{"var_score": noEstimate, "var_reparam": noEstimate}
	}
	return res
}

// noEstimate is why the estimators' statistics have no value before the
// first step.
const noEstimate = "no gradient estimated yet: a step draws the estimates"
