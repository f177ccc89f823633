package gensim

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo/fdiv"
	"github.com/thelab/lab/algo/tensor"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// FDiv is the variational (Fenchel) estimate of an f-divergence between
// two normal laws by discriminator ascent (seed 001 §13, L1271–L1303,
// L1333–L1335, catalogue [A23]): the sample bound
// (1/n)ΣA(V(x_i)) − (1/m)ΣB(V(y_j)) and the true bound at the current V
// rising to the closed-form D_f, and V(x) against log(q/p).
var FDiv = &sims.Spec{
	Name:   "fdiv",
	Title:  "Variational f-divergence: discriminator ascent on the Fenchel bound up to the closed-form KL, JS, …",
	Source: "seed 001 §13 (L1271–L1303, L1333–L1335; erratum E20's signs)",
	Steps:  300,
	Speed:  10,
	Params: param.List(fdKind, fdMQ, fdSQ, fdMP, fdSP, fdN, fdM, fdLR, fdMom),
	New:    newFDiv,
	Size:   fdivSize,

	Metrics: fdivMetrics,
}

// fdivSize is the estimator's standardised samples of q and p, the
// curves over the grid, and the trace of the estimate and the bound with
// the closed form mapped over it.
func fdivSize(cfg sims.Config) int64 {
	v := cfg.Values
	return 32<<10 + tensor.Alloc(fdN.Get(v)) + tensor.Alloc(fdM.Get(v)) + 8*tensor.Alloc(fdGrid) + sims.TraceBytes(2) +
		tensor.Alloc(sims.TraceCap)
}

// fdGrid is the points of the curves.
const fdGrid = 121

var (
	fdKind = param.Choice("divergence", fdiv.Kinds, fdiv.KL,
		"kl: KL(q‖p), f = t log t − t + 1; reverse: KL(p‖q) (keep p narrower than q: the samples miss the tails it weighs); js: the notes' JS without ½ (log 4 for disjoint laws); "+
			"hellinger: ∫(√q − √p)²")
	fdMQ  = param.Float("mq", 1, "mean of q, the law of the data x_i").Range(-10, 10)
	fdSQ  = param.Float("sq", 1, "standard deviation of q").Range(0.05, 10)
	fdMP  = param.Float("mp", 0, "mean of p, the law of the generated y_j").Range(-10, 10)
	fdSP  = param.Float("sp", 2, "standard deviation of p").Range(0.05, 10)
	fdN   = param.Int("n", 2000, "samples of q").Range(2, 200000)
	fdM   = param.Int("m", 2000, "samples of p").Range(2, 200000)
	fdLR  = param.Float("lr", 0.2, "step size of the ascent on V's coefficients (in standardised u)").Range(0, 10).OpenMin()
	fdMom = param.Float("momentum", 0.8, "heavy-ball momentum of the ascent").Range(0, 0.99)
)

type fdSim struct {
	e      *fdiv.Estimator
	q, p   fdiv.Normal
	d      float64     // the closed form
	trace  *sims.Trace // sample estimate, true bound at V
	grid   []float64   // x of the curves
	logr   []float64   // log(q/p) on grid
	lo, hi float64
	hist   sims.HistChart // the samples of q with both densities: fixed
}

// fdSamples returns the two laws of a configuration and the samples of
// q and p the ascent runs on.
func fdSamples(cfg sims.Config) (q, p fdiv.Normal, qs, ps []float64) {
	v := cfg.Values
	q, p = fdiv.Normal{Mean: fdMQ.Get(v), SD: fdSQ.Get(v)}, fdiv.Normal{Mean: fdMP.Get(v), SD: fdSP.Get(v)}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x6664_6976)) // "fdiv"
	qs, ps = make([]float64, fdN.Get(v)), make([]float64, fdM.Get(v))
	for i := range qs {
		qs[i] = q.Mean + q.SD*rng.NormFloat64()
	}
	for i := range ps {
		ps[i] = p.Mean + p.SD*rng.NormFloat64()
	}
	return q, p, qs, ps
}

func newFDiv(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	q, p, qs, ps := fdSamples(cfg)
	e, err := fdiv.NewEstimator(fdKind.Get(v), qs, ps, fdLR.Get(v), fdMom.Get(v))
	if err != nil {
		return nil, err
	}
	s := &fdSim{e: e, q: q, p: p, d: fdiv.Closed(e.Kind(), q, p), trace: sims.NewTrace(0, 2)}
	s.lo = math.Min(q.Mean-3*q.SD, p.Mean-3*p.SD)
	s.hi = math.Max(q.Mean+3*q.SD, p.Mean+3*p.SD)
	s.grid = xs(s.lo, s.hi, fdGrid)
	s.logr = mapped(s.grid, func(x float64) float64 { return q.LogPDF(x) - p.LogPDF(x) })
	s.hist = sims.HistChart{Title: "samples of q, with q and p", Lo: s.lo, Hi: s.hi, Label: "x_i ~ q",
		Density: histogram(qs, s.lo, s.hi, 40), XLabel: "x",
		Curves: []sims.Curve{
			{Name: "q", X: s.grid, Y: mapped(s.grid, func(x float64) float64 { return math.Exp(q.LogPDF(x)) }), Class: classData},
			{Name: "p", X: s.grid, Y: mapped(s.grid, func(x float64) float64 { return math.Exp(p.LogPDF(x)) }), Class: classModel},
		}}
	s.record()
	return s, nil
}

func (s *fdSim) Step() error {
	if err := s.e.Step(); err != nil {
		return err
	}
	s.record()
	return nil
}

// record adds the estimate and the true bound, both at the current V
// (issue 28.1: the estimate was of the V before the last move).
func (s *fdSim) record() {
	s.trace.Add(s.e.Estimate(), fdiv.Bound(s.e.Kind(), s.q, s.p, s.e.V))
}

func (s *fdSim) Frame() sims.Frame {
	k := s.e.Kind()
	est, bound := s.trace.Column(0), s.trace.Column(1)
	curve := traceChart("lower bound per step", s.trace,
		sims.Series{Name: "Ĵ", Y: est, Class: classFit},
		sims.Series{Name: "bound at V", Y: bound, Class: classModel},
		sims.Series{Name: "D_f", Y: s.trace.Map(func(int) float64 { return s.d }), Class: classRef, Bound: true})
	vcur := s.e.V
	vx := sims.LineChart{Title: "V(x) against log(q/p)", X0: s.lo, X1: s.hi, XLabel: "x",
		Series: []sims.Series{
			{Name: "V(x)", Y: mapped(s.grid, vcur.At), Class: classFit},
			{Name: "log q/p", Y: s.logr, Class: classRef, Bound: true},
		}}
	hist := s.hist
	b := bound[len(bound)-1]
	metrics := []sims.Metric{
		// Not finite, they mark the run diverged (the runner's check): a
		// 0 in their place hid it.
		{Name: "estimate", Value: s.e.Estimate()},
		{Name: "bound", Value: b},
		{Name: "D_f", Value: s.d},
		{Name: "gap", Value: s.d - b},
		// the gradient of an objective of size |estimate| (or 1): below
		// rounding of that, it reads ≈ 0
		{Name: "grad", Value: s.e.GradNorm(), Scale: math.Max(1, math.Abs(s.e.Estimate()))},
	}
	text := []string{
		"D_f(q‖p) = max_S E_q[S] − E_p[f*(S)], S = g(V), V = a + bu + cu², V* = log q/p",
		termsLine(k),
		fmt.Sprintf("any V gives a lower bound (Fenchel–Young): %.6f ≤ D_f = %.6f", b, s.d),
	}
	return sims.Frame{Sim: FDiv.Name, Step: s.e.Steps(), Metrics: metrics, Charts: []sims.Chart{curve, vx, hist}, Text: text}
}

// termsLine states the bound's two terms for a divergence.
func termsLine(k fdiv.Kind) string {
	switch k {
	case fdiv.ReverseKL:
		return "reverse: E_q[−e^{−V}] − E_p[V − 1] = KL(p‖q) at the optimum"
	case fdiv.JS:
		return "js: E_q[log σ(V)] + E_p[log(1 − σ(V))] + log 4 (the notes' signs corrected, E20)"
	case fdiv.Hellinger:
		return "hellinger: E_q[1 − e^{−V/2}] − E_p[e^{V/2} − 1]"
	}
	return "kl: E_q[V] − E_p[e^V] + 1 (the notes drop the +1)"
}

func (s *fdSim) Result() map[string]any {
	v := s.e.V
	return map[string]any{
		"divergence": s.e.Kind().String(),
		"estimate":   s.e.Estimate(),
		"bound":      fdiv.Bound(s.e.Kind(), s.q, s.p, v),
		"closed":     s.d,
		"V":          map[string]float64{"a": v.A, "b": v.B, "c": v.C, "centre": v.Centre, "scale": v.Scale},
	}
}
