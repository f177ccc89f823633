package rffsim

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo/rff"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/kernelsim"
	"github.com/thelab/lab/sims/param"
)

// Bochner is the Monte Carlo estimate of one kernel value k(x, y) from
// Bochner's theorem, one sampled frequency per step, inside its ±2σ/√m
// band, with the sampled frequencies against the spectral density.
var Bochner = &sims.Spec{
	Name:   "bochner",
	Title:  "Bochner: Monte Carlo estimate of k(x,y) = E cos(wᵀ(x−y)) with its confidence band",
	Source: "seed 004 L51–68 (Bochner's theorem, MC estimator); seed 000 Theorem 4.2, eq 4.31",
	Steps:  20000,
	Speed:  30,
	Params: param.List(bochKernel, bochGamma, bochD, bochR),
	Size:   bochnerSize,
	New:    newBochner,

	Metrics: bochnerMetrics,
}

// bochner's parameters.
var (
	bochKernel = param.Choice("kernel", []rff.Spectral{rff.GaussSpectral, rff.LaplaceSpectral}, rff.GaussSpectral,
		"rbf: exp(−γ‖δ‖²), w ~ N(0, 2γI); laplace: exp(−γ‖δ‖₁), each w_j ~ Cauchy(0, γ)")
	bochGamma = param.Float("gamma", 0.5, kernelsim.GammaHelp+"; for laplace, k = exp(−γ‖δ‖₁)").Range(0, 100).OpenMin()
	bochD     = param.Int("d", 2, "dimension of x and y").Range(1, 1000)
	bochR     = param.Float("r", 1, "distance ‖x − y‖ (δ = x − y has a random direction drawn from the seed)").Range(0, 20)
)

const bochnerBins = 60

// bochnerSize is δ, its copy in the engine and the frequency drawn (d
// each) beside the histogram and the density curve; the estimates kept
// grow with log m only.
func bochnerSize(cfg sims.Config) int64 { return bochBase + 3*8*int64(bochD.Get(cfg.Values)) }

// bochBase is what bochner holds whatever its size: the sim, the Frame's
// charts and texts.
const bochBase = 32 << 10

type bochnerSim struct {
	b *rff.Bochner
	// The estimate, recorded at m about 2^(k/8) so that the chart's x axis
	// is log₂ m and the ±2σ/√m band is a straight-sided funnel.
	ms      []int
	est     []float64
	nextRec int
	lo, hi  float64 // histogram range of w₁
	counts  []float64
	inside  int // draws within [lo, hi)
	curve   sims.Curve
	kind    rff.Spectral
	r       float64
}

func newBochner(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	d := bochD.Get(v)
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x626f63686e6572)) // "bochner"
	delta := make([]float64, d)
	norm := 0.0
	for norm == 0 {
		norm = 0
		for i := range delta {
			delta[i] = rng.NormFloat64()
			norm += delta[i] * delta[i]
		}
	}
	norm = math.Sqrt(norm)
	for i := range delta {
		delta[i] *= bochR.Get(v) / norm
	}
	kind := bochKernel.Get(v)
	gamma := bochGamma.Get(v)
	b, err := rff.NewBochner(kind, gamma, delta, rng)
	if err != nil {
		return nil, err
	}
	s := &bochnerSim{b: b, nextRec: 1, counts: make([]float64, bochnerBins), kind: kind, r: bochR.Get(v)}
	if kind == rff.GaussSpectral {
		sd := math.Sqrt(2 * gamma)
		s.lo, s.hi = -4*sd, 4*sd
	} else {
		s.lo, s.hi = -10*gamma, 10*gamma
	}
	const pts = 241
	s.curve = sims.Curve{Name: "spectral density", X: make([]float64, pts), Y: make([]float64, pts), Class: 1}
	for i := range pts {
		t := s.lo + (s.hi-s.lo)*float64(i)/(pts-1)
		s.curve.X[i], s.curve.Y[i] = t, b.Density(t)
	}
	return s, nil
}

func (s *bochnerSim) Step() error {
	if err := s.b.Step(); err != nil {
		return err
	}
	w := s.b.W()[0]
	if f := (w - s.lo) / (s.hi - s.lo); f >= 0 && f < 1 {
		s.counts[min(int(f*bochnerBins), bochnerBins-1)]++
		s.inside++
	}
	if m := s.b.M(); m >= s.nextRec {
		s.ms = append(s.ms, m)
		s.est = append(s.est, s.b.Estimate())
		s.nextRec = max(m+1, int(math.Round(math.Pow(2, float64(len(s.ms))/8))))
	}
	return nil
}

func (s *bochnerSim) Frame() sims.Frame {
	m := s.b.M()
	k := s.b.Exact()
	sd1 := math.Sqrt(s.b.Var1())
	band := func(sign float64) []float64 {
		out := make([]float64, len(s.ms))
		for i, mm := range s.ms {
			out[i] = k + sign*2*sd1/math.Sqrt(float64(mm))
		}
		return out
	}
	exact := make([]float64, len(s.ms))
	for i := range exact {
		exact[i] = k
	}
	var x0, x1 float64
	if len(s.ms) > 1 {
		x0, x1 = math.Log2(float64(s.ms[0])), math.Log2(float64(s.ms[len(s.ms)-1]))
	}
	dens := make([]float64, bochnerBins)
	if m > 0 {
		width := (s.hi - s.lo) / bochnerBins
		for i, c := range s.counts {
			dens[i] = c / (float64(m) * width) // all draws count: the bars show the mass inside the range
		}
	}
	metrics := []sims.Metric{
		{Name: "m", Value: float64(m)},
		{Name: "estimate", Value: s.b.Estimate()},
		{Name: "exact", Value: k},
		{Name: "error", Value: s.b.Estimate() - k},
	}
	z := 0.0
	if m > 0 && sd1 > 0 {
		z = (s.b.Estimate() - k) / (sd1 / math.Sqrt(float64(m)))
	}
	metrics = append(metrics, sims.Metric{Name: "z", Value: z})
	kernelName := "exp(−γ‖δ‖²)"
	law := "N(0, 2γ)"
	if s.kind == rff.LaplaceSpectral {
		kernelName, law = "exp(−γ‖δ‖₁)", "Cauchy(0, γ)"
	}
	ci := 0.0
	if m > 1 {
		ci = 2 * s.b.SampleSD() / math.Sqrt(float64(m))
	}
	return sims.Frame{
		Sim:     Bochner.Name,
		Step:    m,
		Metrics: metrics,
		Charts: []sims.Chart{
			sims.LineChart{Title: "k_m = (1/m)Σcos(w_iᵀδ)", X0: x0, X1: x1, XLabel: "log₂ m",
				Series: []sims.Series{
					{Name: "k + 2σ/√m", Y: band(1), Class: 1, Bound: true},
					{Name: "k − 2σ/√m", Y: band(-1), Class: 1, Bound: true},
					{Name: "exact k", Y: exact, Class: 2, Bound: true},
					{Name: "k_m", Y: append([]float64(nil), s.est...), Class: 0},
				}},
			sims.HistChart{Title: "sampled w₁ vs spectral density " + law, Lo: s.lo, Hi: s.hi, Density: dens,
				Curves: []sims.Curve{s.curve}, XLabel: "w₁"},
		},
		Text: []string{
			fmt.Sprintf("k(x,y) = %s = %.6f at ‖δ‖ = %g; w ~ its spectral density (Bochner); one step draws one w", kernelName, k, s.r),
			fmt.Sprintf("unbiased; Var cos(wᵀδ) = (1 + k(2δ))/2 − k² = %.4g; band ±2σ/√m; empirical 95%% CI ±%.3g", sd1*sd1, ci),
			fmt.Sprintf("bounded terms, so Hoeffding: P(|k_m−k| ≥ ε) ≤ 2e^{−mε²/2} — at m = %d, ε = %.3g holds w.p. ≥ 95%%",
				max(m, 1), math.Sqrt(2*math.Log(2/0.05)/float64(max(m, 1)))),
		},
	}
}

func (s *bochnerSim) Result() map[string]any {
	m := s.b.M()
	return map[string]any{
		"m":         m,
		"estimate":  s.b.Estimate(),
		"exact":     s.b.Exact(),
		"var1":      s.b.Var1(),
		"sample_sd": s.b.SampleSD(),
	}
}
