// Package divergencesim turns algo/divergence into sims: the divergence
// calculators and sequences, the KL gradient flow, and the forward and
// reverse KL fits.
package divergencesim

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo/divergence"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// Divergence is seed 002 §1.5–1.6 in four views. coding: symbols from p
// coded for p and for q, the mean code lengths converging to H(p) and
// H(p, q), their gap to KL(p‖q) (eqs 1.19–1.32). sequences: Ex 1.9's q_n,
// which converges to U(0, 1) in L1 but not in KL, and Ex 1.10's pair, which
// converges in KL but not in χ² (Remark 1.12), with the closed forms checked
// by quadrature. gaussians: forward against reverse KL between N(0, 1) and
// N(0, v²) as v sweeps (Ex 1.11, Fig 1.4). ml: maximum likelihood as KL
// minimisation (eqs 1.43–1.46) on data from a two-mode mixture.
var Divergence = &sims.Spec{
	Name:   "divergence",
	Title:  "Entropy, cross-entropy, KL; divergences that disagree; forward vs reverse KL; ML as KL",
	Source: "seed 002 §1.5–1.6 (eqs 1.19–1.46, Ex 1.7–1.11)",
	Steps:  2000,
	Speed:  10,
	Params: param.List(divView, divP, divQ, divMaxN, divD),
	New:    newDivergence,
	Size:   divergenceSize,

	Metrics: divergenceMetrics,
}

// view is what the divergence pane shows.
type view string

func (v view) String() string { return string(v) }

const (
	viewCoding    view = "coding"
	viewSequences view = "sequences"
	viewGaussians view = "gaussians"
	viewML        view = "ml"
)

// divergence's parameters.
var (
	divView = param.Choice("view", []view{viewCoding, viewSequences, viewGaussians, viewML}, viewCoding,
		"coding: code lengths → H(p), H(p,q); sequences: Ex 1.9 and 1.10; gaussians: Ex 1.11's KL(p‖q) vs KL(q‖p); ml: ML = min KL")
	divP = param.Vector("p", []float64{0.1, 0.2, 0.4, 0.3}, "p over four symbols, summing to 1 (view=coding)").Range(0, 1)
	divQ = param.Vector("q", []float64{0.25, 0.25, 0.25, 0.25},
		"q over four symbols, summing to 1; a zero where p > 0 makes KL(p‖q) infinite (view=coding)").Range(0, 1)
	divMaxN = param.Int("max_n", 10000,
		"last index n of the sequences (ε = 1/n), reached in 120 steps evenly spaced in log n (view=sequences)").Range(3, divergence.MaxSeqN)
	divD = param.Float("d", 2, "the data's two modes at ±d, p = ½N(−d,1) + ½N(d,1) (view=ml)").Range(0, 6)
)

// divergenceSize is what each view holds at its largest. coding and ml
// keep a Trace of three columns and their copies in a Frame, beside
// coding's three level lines (sims.Level) and ml's one (a copy each Frame),
// histogram and curves; sequences and gaussians a few fixed curves. The
// rest is a measured base.
func divergenceSize(c sims.Config) int64 {
	col := int64(8 * sims.TraceCap)
	switch divView.Get(c.Values) {
	case viewCoding:
		return 3*col + 3*col + 3*col + 12<<10
	case viewML:
		return 3*col + 3*col + col + 24<<10
	}
	return 40 << 10
}

func newDivergence(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x64697665726765)) // "diverge"
	switch divView.Get(v) {
	case viewSequences:
		s, err := divergence.NewSequences(divMaxN.Get(v), seqPoints)
		if err != nil {
			return nil, err
		}
		return &seqSim{s: s}, nil
	case viewGaussians:
		g, err := divergence.NewGaussSweep(0.4, 3, 131)
		if err != nil {
			return nil, err
		}
		return &gaussSim{g: g}, nil
	case viewML:
		m, err := divergence.NewMLasKL(divD.Get(v), rng)
		if err != nil {
			return nil, err
		}
		return newMLSim(m), nil
	}
	c, err := divergence.NewCoding(divP.Get(v), divQ.Get(v), rng)
	if err != nil {
		return nil, err
	}
	p, q := c.P(), c.Q()
	return &codingSim{c: c, lengths: sims.NewTrace(1, 3), levels: [3]sims.Level{
		sims.NewLevel(divergence.Entropy(p)), sims.NewLevel(divergence.CrossEntropy(p, q)), sims.NewLevel(divergence.KL(p, q))}}, nil
}

// ---- coding ----

type codingSim struct {
	c       *divergence.Coding
	lengths *sims.Trace   // mean code length under p, under q, and their gap
	levels  [3]sims.Level // at H(p), H(p,q) and KL(p‖q)
}

func (s *codingSim) Step() error {
	if err := s.c.Step(); err != nil {
		return err
	}
	lp, lq := s.c.MeanLengths()
	s.lengths.Add(lp, sims.FiniteOr(lq, math.NaN()), sims.FiniteOr(lq-lp, math.NaN()))
	return nil
}

func (s *codingSim) Frame() sims.Frame {
	p, q := s.c.P(), s.c.Q()
	h, ce := divergence.Entropy(p), divergence.CrossEntropy(p, q)
	klpq, klqp := divergence.KL(p, q), divergence.KL(q, p)
	lp, lq := s.c.MeanLengths()
	metrics := []sims.Metric{
		{Name: "symbols", Value: float64(s.c.N())},
		{Name: "H(p)", Value: h},
		{Name: "mean len p", Value: lp},
	}
	// The metrics that are infinite for this p and q are left out: which
	// ones is fixed by the parameters, so the order is stable.
	if !math.IsInf(ce, 1) {
		metrics = append(metrics, sims.Metric{Name: "H(p,q)", Value: ce}, sims.Metric{Name: "mean len q", Value: sims.FiniteOr(lq, ce)},
			sims.Metric{Name: "KL(p‖q)", Value: klpq})
	}
	if !math.IsInf(klqp, 1) {
		metrics = append(metrics, sims.Metric{Name: "KL(q‖p)", Value: klqp})
	}
	bars := sims.BarChart{Title: "p(x) and q(x); the frequencies seen are in the result", Max: 1}
	for i := range p {
		bars.Bars = append(bars.Bars,
			sims.Bar{Label: fmt.Sprintf("x=%d p", i+1), Value: p[i], Class: 0},
			sims.Bar{Label: fmt.Sprintf("x=%d q", i+1), Value: q[i], Class: 1})
	}
	x0, x1 := s.lengths.Span()
	lengths := sims.LineChart{Title: "mean code length per symbol (nats) → H(p), H(p,q)", X0: x0, X1: x1, XLabel: "symbols",
		Series: []sims.Series{
			{Name: "code for p", Y: s.lengths.Column(0), Class: 0},
			{Name: "H(p)", Y: s.levels[0].Of(s.lengths), Class: 0, Bound: true},
		}}
	gap := sims.LineChart{Title: "extra cost of coding for q → KL(p‖q) (1.32)", X0: x0, X1: x1, XLabel: "symbols"}
	if !math.IsInf(ce, 1) {
		lengths.Series = append(lengths.Series,
			sims.Series{Name: "code for q", Y: s.lengths.Column(1), Class: 1},
			sims.Series{Name: "H(p,q)", Y: s.levels[1].Of(s.lengths), Class: 1, Bound: true})
		gap.Series = []sims.Series{
			{Name: "len q − len p", Y: s.lengths.Column(2), Class: 2},
			{Name: "KL(p‖q)", Y: s.levels[2].Of(s.lengths), Class: 2, Bound: true},
		}
	}
	lines := []string{
		fmt.Sprintf("H(p) = %.4f ≤ log K = %.4f (1.22); KL(p‖q) = H(p,q) − H(p) (1.32)", h, math.Log(float64(len(p)))),
	}
	if math.IsInf(klpq, 1) {
		lines = append(lines, "q(x) = 0 < p(x): p not ≪ q, KL(p‖q) = ∞: q's code cannot send x")
		if _, lq := s.c.MeanLengths(); math.IsInf(lq, 1) {
			lines = append(lines, "… and such an x has been drawn: the q-code's length is infinite")
		}
	}
	if math.IsInf(klqp, 1) {
		lines = append(lines, "p(x) = 0 < q(x) for some x: KL(q‖p) = ∞")
	} else if !math.IsInf(klpq, 1) {
		lines = append(lines, fmt.Sprintf("KL is not symmetric: KL(p‖q) = %.4f, KL(q‖p) = %.4f", klpq, klqp))
	}
	if n := s.c.N(); n > 1 {
		lines = append(lines, fmt.Sprintf("mean code length under p: %.4f → H(p) = %.4f (s.e. %.4f)", lp, h, s.c.LengthSD()/math.Sqrt(float64(n))))
	}
	return sims.Frame{Sim: Divergence.Name, Step: s.c.N(), Metrics: metrics, Charts: []sims.Chart{lengths, gap, bars}, Text: lines}
}

func (s *codingSim) Result() map[string]any {
	p, q := s.c.P(), s.c.Q()
	lp, lq := s.c.MeanLengths()
	inf := func(x float64) any {
		if math.IsInf(x, 1) {
			return nil
		}
		return x
	}
	return map[string]any{
		"symbols": s.c.N(), "entropy": divergence.Entropy(p), "cross_entropy": inf(divergence.CrossEntropy(p, q)),
		"kl_pq": inf(divergence.KL(p, q)), "kl_qp": inf(divergence.KL(q, p)),
		"mean_length_p": lp, "mean_length_q": inf(lq), "frequencies": s.c.Empirical(nil),
	}
}

// ---- sequences ----

// seqPoints is the number of indices n of the sequences view.
const seqPoints = 120

type seqSim struct {
	s *divergence.Sequences
}

func (s *seqSim) Step() error { return s.s.Step() }

func (s *seqSim) Frame() sims.Frame {
	rows := s.s.Rows()
	n := len(rows)
	col := func(f func(divergence.SequenceRow) float64) []float64 {
		out := make([]float64, n)
		for i, r := range rows {
			out[i] = f(r)
		}
		return out
	}
	ones := col(func(divergence.SequenceRow) float64 { return 1 })
	x0, x1 := math.Log10(2), math.Log10(s.s.N(max(n-1, 0)))
	ex19 := sims.LineChart{Title: "Ex 1.9: q_n → U(0,1) in L1 (1.34), not in KL (1.35)", X0: x0, X1: x1, XLabel: "log₁₀ n",
		Series: []sims.Series{
			{Name: "L1", Y: col(func(r divergence.SequenceRow) float64 { return r.L1 }), Class: 0},
			{Name: "KL(p‖q_n)", Y: col(func(r divergence.SequenceRow) float64 { return r.KL }), Class: 1},
			{Name: "1", Y: ones, Class: 3, Bound: true},
		}}
	ex110 := sims.LineChart{Title: "Ex 1.10, ε = 1/n: KL (1.37) → 0, χ² (1.36) → 1", X0: x0, X1: x1, XLabel: "log₁₀ n = −log₁₀ ε",
		Series: []sims.Series{
			{Name: "KL(p_ε‖q_ε)", Y: col(func(r divergence.SequenceRow) float64 { return r.KLEps }), Class: 1},
			{Name: "χ²(p_ε‖q_ε)", Y: col(func(r divergence.SequenceRow) float64 { return r.Chi2 }), Class: 2},
			{Name: "1", Y: ones, Class: 3, Bound: true},
		}}
	// Before the first member of the sequences there is nothing to
	// measure: undefined, not 0.
	const none = "no member of the sequences yet"
	metrics := []sims.Metric{{Name: "n", Undefined: none}, {Name: "L1", Undefined: none}, {Name: "KL", Undefined: none},
		{Name: "ε", Undefined: none}, {Name: "χ²", Undefined: none}, {Name: "KL_ε", Undefined: none}}
	charts := []sims.Chart{ex19, ex110}
	lines := []string{"Remark 1.12: divergences differ in the convergence they demand"}
	if n > 0 {
		r := rows[n-1]
		metrics = []sims.Metric{{Name: "n", Value: r.N}, {Name: "L1", Value: r.L1}, {Name: "KL", Value: r.KL}, {Name: "ε", Value: r.Eps},
			{Name: "χ²", Value: r.Chi2}, {Name: "KL_ε", Value: r.KLEps}}
		const pts = 201
		qn, p := make([]float64, pts), make([]float64, pts)
		seq := divergence.StepSequence{N: r.N}
		right := math.Min(1, 4/r.N) // show [0, 4/n]: the dip is its first quarter
		for i := range pts {
			x := right * float64(i) / (pts - 1)
			qn[i], p[i] = seq.Q(x), 1
		}
		charts = append(charts, sims.LineChart{Title: fmt.Sprintf("densities near 0 at n = %.0f: q_n = e^{−n} on [0, 1/n], then c_n = %.4g", r.N, seq.C()),
			X0: 0, X1: right, XLabel: "x", Series: []sims.Series{
				{Name: "q_n", Y: qn, Class: 0},
				{Name: "p = U(0,1)", Y: p, Class: 1, Bound: true},
			}})
		worst := 0.0
		for _, r := range rows {
			worst = math.Max(worst, math.Max(math.Max(math.Abs(r.L1-r.L1Quad), math.Abs(r.KL-r.KLQuad)),
				math.Max(math.Abs(r.Chi2-r.Chi2Sum), math.Abs(r.KLEps-r.KLEpsSum))))
		}
		lines = append(lines,
			"Ex 1.9: q_n ≠ p only on [0, 1/n]: L1 → 0, but log(p/q_n) = n there: KL → 1",
			"Ex 1.10: χ² weighs (p − q)² by 1/q; the rare symbol's q = ε² keeps χ² → 1",
			fmt.Sprintf("closed forms (1.33)–(1.37) vs integrating the densities: gap %.1e", worst))
	}
	return sims.Frame{Sim: Divergence.Name, Step: n, Metrics: metrics, Charts: charts, Text: lines}
}

func (s *seqSim) Result() map[string]any {
	rows := s.s.Rows()
	if len(rows) == 0 {
		return map[string]any{"n": nil}
	}
	r := rows[len(rows)-1]
	return map[string]any{"n": r.N, "l1": r.L1, "kl": r.KL, "eps": r.Eps, "chi2": r.Chi2, "kl_eps": r.KLEps}
}

// ---- gaussians ----

type gaussSim struct {
	g *divergence.GaussSweep
}

func (s *gaussSim) Step() error { return s.g.Step() }

func (s *gaussSim) Frame() sims.Frame {
	rows := s.g.Rows()
	n := len(rows)
	fw, rv := make([]float64, n), make([]float64, n)
	worst := 0.0
	for i, r := range rows {
		fw[i], rv[i] = r.Forward, r.Reverse
		worst = math.Max(worst, math.Max(math.Abs(r.Forward-r.ForwardQ), math.Abs(r.Reverse-r.ReverseQ)))
	}
	vmin, vmax := s.g.Range()
	step := (vmax - vmin) / float64(s.g.Points()-1)
	curves := sims.LineChart{Title: "p = N(0,1), q = N(0,v²): KL(p‖q) and KL(q‖p) (Fig 1.4)",
		X0: vmin, X1: vmin + float64(max(n-1, 0))*step, XLabel: "v",
		Series: []sims.Series{{Name: "KL(p‖q)", Y: fw, Class: 0}, {Name: "KL(q‖p)", Y: rv, Class: 1}}}
	const none = "no v swept yet" // before the first: undefined, not 0
	metrics := []sims.Metric{{Name: "v", Undefined: none}, {Name: "KL(p‖q)", Undefined: none}, {Name: "KL(q‖p)", Undefined: none},
		{Name: "quad err", Undefined: none}}
	charts := []sims.Chart{curves}
	two := divergence.EvalGauss(2)
	lines := []string{
		"(1.38): KL(p‖q) = ½(log v² + v⁻² − 1), KL(q‖p) = ½(v² − log v² − 1)",
		fmt.Sprintf("at v = 2: %.6f and %.6f (Ex 1.11); v ↔ 1/v swaps them", two.Forward, two.Reverse),
		"KL(p‖q) punishes a q too narrow to cover p, KL(q‖p) a q too wide",
	}
	if n > 0 {
		r := rows[n-1]
		metrics = []sims.Metric{{Name: "v", Value: r.V}, {Name: "KL(p‖q)", Value: r.Forward}, {Name: "KL(q‖p)", Value: r.Reverse}, {Name: "quad err", Value: worst}}
		const pts = 161
		dp, dq := make([]float64, pts), make([]float64, pts)
		for i := range pts {
			x := -5 + 10*float64(i)/(pts-1)
			dp[i] = math.Exp(divergence.LogNormalPDF(x, 0, 1))
			dq[i] = math.Exp(divergence.LogNormalPDF(x, 0, r.V))
		}
		charts = append(charts, sims.LineChart{Title: fmt.Sprintf("densities at v = %.3g", r.V), X0: -5, X1: 5, XLabel: "x",
			Series: []sims.Series{{Name: "p = N(0,1)", Y: dp, Class: 0}, {Name: "q = N(0,v²)", Y: dq, Class: 1}}})
		lines = append(lines, fmt.Sprintf("(1.38) vs quadrature: largest gap %.1e", worst))
	}
	return sims.Frame{Sim: Divergence.Name, Step: n, Metrics: metrics, Charts: charts, Text: lines}
}

func (s *gaussSim) Result() map[string]any {
	rows := s.g.Rows()
	v, f, r := make([]float64, len(rows)), make([]float64, len(rows)), make([]float64, len(rows))
	for i, row := range rows {
		v[i], f[i], r[i] = row.V, row.Forward, row.Reverse
	}
	return map[string]any{"v": v, "kl_pq": f, "kl_qp": r}
}

// ---- ml ----

type mlSim struct {
	m      *divergence.MLasKL
	trace  *sims.Trace // empirical at θ*, empirical at MLE, exact at MLE
	counts []float64
	lo, hi float64
}

const (
	mlBins = 60
	mlFrom = 20 // the first N drawn: before it the curves are mostly noise
)

func newMLSim(m *divergence.MLasKL) *mlSim {
	r := m.D() + 4
	return &mlSim{m: m, trace: sims.NewTrace(mlFrom, 3), counts: make([]float64, mlBins), lo: -r, hi: r}
}

func (s *mlSim) Step() error {
	if err := s.m.Step(); err != nil {
		return err
	}
	if f := (s.m.Last() - s.lo) / (s.hi - s.lo); f >= 0 && f < 1 {
		s.counts[min(int(f*mlBins), mlBins-1)]++
	}
	if atBest, atMLE, _, ok := s.m.Empirical(); ok && s.m.N() >= mlFrom {
		mu, sd, _ := s.m.MLE()
		s.trace.Add(atBest, atMLE, s.m.ExactKL(mu, sd))
	}
	return nil
}

func (s *mlSim) Frame() sims.Frame {
	_, sdBest, best := s.m.Best()
	n := s.m.N()
	atBest, atMLE, se, ok := s.m.Empirical()
	mu, sd, _ := s.m.MLE()
	exact := best
	if ok {
		exact = s.m.ExactKL(mu, sd)
	}
	metrics := []sims.Metric{
		{Name: "N", Value: float64(n)},
		{Name: "min KL", Value: best},
		{Name: "emp. KL(θ*)", Value: atBest},
		{Name: "emp. KL(θ̂)", Value: atMLE},
		{Name: "KL(p‖q_θ̂)", Value: exact},
	}
	x0, x1 := s.trace.Span()
	conv := sims.LineChart{Title: "−(1/N) Σ log q(xᵢ) − H(p) → KL(p‖q) (1.44–1.46)", X0: x0, X1: x1, XLabel: "N",
		Series: []sims.Series{
			{Name: "emp. θ*", Y: s.trace.Column(0), Class: 0},
			{Name: "emp. MLE θ̂", Y: s.trace.Column(1), Class: 2},
			{Name: "KL(p‖q_θ̂)", Y: s.trace.Column(2), Class: 3},
			{Name: "min KL", Y: s.trace.Map(func(int) float64 { return best }), Class: 1, Bound: true},
		}}
	w := (s.hi - s.lo) / mlBins
	dens := make([]float64, mlBins)
	for i, c := range s.counts {
		if n > 0 {
			dens[i] = c / (float64(n) * w)
		}
	}
	p := s.m.Target()
	const pts = 161
	cp := sims.Curve{Name: "p", X: make([]float64, pts), Y: make([]float64, pts), Class: 1}
	cb := sims.Curve{Name: "q_θ* = N(0, 1+d²)", X: make([]float64, pts), Y: make([]float64, pts), Class: 3}
	x := []float64{0}
	for i := range pts {
		t := s.lo + (s.hi-s.lo)*float64(i)/(pts-1)
		x[0] = t
		cp.X[i], cp.Y[i] = t, p.Density(x)
		cb.X[i], cb.Y[i] = t, math.Exp(divergence.LogNormalPDF(t, 0, sdBest))
	}
	hist := sims.HistChart{Title: fmt.Sprintf("data from p = ½N(±%g, 1); the best Gaussian", s.m.D()), Lo: s.lo, Hi: s.hi,
		Density: dens, Curves: []sims.Curve{cp, cb}, XLabel: "x", Label: "data"}
	lines := []string{
		"ML is KL minimisation: argmax Σ log q_θ(xᵢ) ≈ argmin KL(p‖q_θ) (1.43–1.46)",
		fmt.Sprintf("θ* = p's moments, N(0, %.3g²): min KL = %.4f (H(p) = %.4f)", sdBest, best, s.m.Entropy()),
	}
	if ok {
		lines = append(lines, fmt.Sprintf("MLE N(%.3f, %.3f²); emp. KL at θ* = %.4f ± %.4f", mu, sd, atBest, se),
			"always emp. KL(θ̂) ≤ emp. KL(θ*) and KL(p‖q_θ̂) ≥ min KL")
	}
	return sims.Frame{Sim: Divergence.Name, Step: n, Metrics: metrics, Charts: []sims.Chart{conv, hist}, Text: lines}
}

func (s *mlSim) Result() map[string]any {
	_, sdBest, best := s.m.Best()
	atBest, atMLE, se, ok := s.m.Empirical()
	res := map[string]any{"n": s.m.N(), "best_sigma": sdBest, "min_kl": best, "entropy": s.m.Entropy()}
	if ok {
		mu, sd, _ := s.m.MLE()
		res["mle"] = []float64{mu, sd}
		res["empirical_kl_best"], res["empirical_kl_mle"], res["se"] = atBest, atMLE, se
		res["kl_mle"] = s.m.ExactKL(mu, sd)
	}
	return res
}
