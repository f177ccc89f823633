// Package dpsim turns the engines of algo/dp into a sim: the Dirichlet
// process by its pieces (seed 002 §4.2).
package dpsim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/ancestral"
	"github.com/thelab/lab/algo/dp"
	"github.com/thelab/lab/algo/mixture"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// DP is the Dirichlet process chapter as four modes (seed 002 §4.2, a draft
// section of the notes, L1582–1703):
//
//   - dirichlet (D1): one Dir(α) draw per step by normalised Gammas (eq 4.14,
//     Remark 4.3), on the simplex, with the running means converging to
//     α_k/α₀;
//   - stick (D2): one break of the stick per step (Def 4.3, with the index of
//     eq 4.15 corrected), the weights C_k as stems at their atoms Φ_k ~ N(0, 1)
//     (Fig 4.5), and over many draws the mean of C_k against
//     E[C_k] = (1/(1+α))(α/(1+α))^{k−1};
//   - crp (D3): one customer of the Chinese restaurant process per step, the
//     number of tables against its expectation Σ_{i<n} α/(α + i);
//   - dpmm (D3): a DP mixture of 2-D Gaussians clustering data, one sweep of
//     collapsed Gibbs sampling per step.
var DP = &sims.Spec{
	Name:   "dp",
	Title:  "Dirichlet process: Dirichlet draws, stick-breaking, Chinese restaurant, DP mixture",
	Source: "seed 002 §4.2 (eq 4.14, Def 4.3 with eq 4.15 corrected, DP posterior L1701)",
	Data:   "mode=dpmm only: the first two columns of --data but label are the points to cluster",
	Steps:  2000,
	Speed:  10,
	Params: param.List(dpMode, dpAlpha, dpAlphas, dpN, dpTol, dpClusters, dpSigma, dpTau),
	New:    newDP,
	Size:   dpSize,

	Metrics: dpMetrics,
}

// mode is the piece of the Dirichlet process the pane shows.
type mode string

func (m mode) String() string { return string(m) }

const (
	modeDirichlet mode = "dirichlet"
	modeStick     mode = "stick"
	modeCRP       mode = "crp"
	modeDPMM      mode = "dpmm"
)

var modes = []mode{modeDirichlet, modeStick, modeCRP, modeDPMM}

// dp's parameters.
var (
	dpMode = param.Choice("mode", modes, modeStick,
		"dirichlet: Dir(α) by normalised Gammas; stick: stick-breaking DP(α, N(0,1)); crp: Chinese restaurant; dpmm: DP mixture by collapsed Gibbs")
	dpAlpha = param.Float("alpha", 1,
		"concentration α of the DP (stick, crp, dpmm): larger α, more and smaller pieces / tables / clusters").
		Range(0, dp.MaxAlpha).OpenMin().
		DefaultWhen(func(v param.Values) bool { return dpMode.Get(v) == modeStick }, 2, "2 (stick), 1 (crp, dpmm)")
	dpAlphas = param.Vector("alphas", []float64{2, 5, 3}, "dirichlet: the parameters α_1, α_2, α_3 of Dir(α)").Range(0.01, 100)

	dpN = param.Int("n", 1000, "number of draws (dirichlet, stick), customers (crp) or generated points (dpmm)").
		Range(1, 20000).
		DefaultFunc(func(v param.Values) int {
			switch dpMode.Get(v) {
			case modeDirichlet:
				return 2000
			case modeStick:
				return 200
			case modeDPMM:
				return 300
			}
			return 1000
		}, "draws: 2000 (dirichlet), 200 (stick); customers: 1000 (crp); points: 300 (dpmm)").BuiltInData()

	dpTol = param.Float("tol", 1e-6,
		"stick: truncate a draw once the unbroken stick is shorter than tol").Range(1e-12, 0.5)
	dpClusters = param.Int("clusters", 4,
		"dpmm: clusters of the generated data (Ex 3.1's hierarchical GMM)").
		Range(1, min(mixture.MaxK, sims.MaxClasses)).BuiltInData()
	dpSigma = param.Float("sigma", 0.6,
		"dpmm: within-cluster s.d. σ, known to the model (and used to generate the data)").Range(0, 100).OpenMin()
	dpTau = param.Float("tau", 3,
		"dpmm: s.d. τ of the cluster means about the data's mean (base measure G = N(m0, τ²I))").Range(0, 100).OpenMin()
)

// dpSize is what each mode holds for n draws, customers or points (per
// item and base measured at n = 1,000 and 20,000): dirichlet its draws
// (two coordinates each), the Trace of the running means with their copies
// in a Frame (a row a draw) and the exact means' Levels; crp the tables'
// seatings; dpmm the points (a --data table's rows), their assignments and
// the Gibbs sampler's per-point arrays; stick a few breaks.
func dpSize(c sims.Config) int64 {
	n := int64(dpN.Get(c.Values))
	switch dpMode.Get(c.Values) {
	case modeDirichlet:
		return 16*n + 2*3*8*sims.TraceCap + 3*8*min(n, sims.TraceCap) + 24<<10
	case modeCRP:
		return 18*n + 56<<10
	case modeDPMM:
		if c.Data != nil {
			n = int64(len(c.Data.Rows))
		}
		return 128*n + 128<<10
	}
	return 32 << 10
}

func newDP(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	mode := dpMode.Get(v)
	if cfg.Data != nil && mode != modeDPMM {
		return nil, fmt.Errorf("--data is for mode=dpmm; mode=%s takes no data", mode)
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x64702d73696d)) // "dp-sim"
	n := dpN.Get(v)
	switch mode {
	case modeDirichlet:
		alpha := dpAlphas.Get(v)
		if err := dp.CheckAlpha(dpAlphas.Name(), alpha); err != nil {
			return nil, err
		}
		return newDirichletSim(alpha, n, rng), nil
	case modeStick:
		return newStickSim(dpAlpha.Get(v), dpTol.Get(v), n, rng)
	case modeCRP:
		return newCRPSim(dpAlpha.Get(v), n, rng)
	default:
		return newMixtureSim(cfg, rng)
	}
}

// ---- dirichlet --------------------------------------------------------

type dirichletSim struct {
	alpha      []float64
	mean, sd   []float64 // the exact moments
	rng        *rand.Rand
	n          int
	draw       []float64
	x, y       []float64 // the draws in ternary coordinates (capacity n)
	sum        [3]float64
	running    *sims.Trace   // running means
	levels     [3]sims.Level // at the exact means α_k/α₀
	triangle   sims.Path
	meanMarker sims.Marker
}

// ternary maps a point of the 2-simplex to the plane: the vertices e1, e2,
// e3 go to (0, 0), (1, 0) and (½, √3/2).
func ternary(c []float64) (x, y float64) { return c[1] + c[2]/2, c[2] * math.Sqrt(3) / 2 }

func newDirichletSim(alpha []float64, n int, rng *rand.Rand) *dirichletSim {
	mean, variance := dp.DirichletMoments(alpha)
	sd := make([]float64, len(variance))
	for k, v := range variance {
		sd[k] = math.Sqrt(v)
	}
	s := &dirichletSim{alpha: alpha, mean: mean, sd: sd, rng: rng, n: n, draw: make([]float64, 3),
		x: make([]float64, 0, n), y: make([]float64, 0, n), running: sims.NewTrace(1, 3)}
	for k := range s.levels {
		s.levels[k] = sims.NewLevel(mean[k])
	}
	h := math.Sqrt(3) / 2
	s.triangle = sims.Path{X: []float64{0, 1, 0.5, 0}, Y: []float64{0, 0, h, 0}, Class: -1}
	mx, my := ternary(mean)
	s.meanMarker = sims.Marker{X: mx, Y: my, Glyph: '✚', Class: 1}
	return s
}

func (s *dirichletSim) Step() error {
	if len(s.x) >= s.n {
		return algo.ErrConverged
	}
	dp.Dirichlet(s.rng, s.alpha, s.draw)
	x, y := ternary(s.draw)
	s.x, s.y = append(s.x, x), append(s.y, y)
	for k, c := range s.draw {
		s.sum[k] += c
	}
	m := float64(len(s.x))
	s.running.Add(s.sum[0]/m, s.sum[1]/m, s.sum[2]/m)
	return nil
}

func (s *dirichletSim) Frame() sims.Frame {
	d := len(s.x)
	h := math.Sqrt(3) / 2
	markers := []sims.Marker{
		{X: 0, Y: 0, Glyph: '1', Class: -1}, {X: 1, Y: 0, Glyph: '2', Class: -1}, {X: 0.5, Y: h, Glyph: '3', Class: -1},
		s.meanMarker,
	}
	metrics := []sims.Metric{{Name: "draws", Value: float64(d)}}
	text := []string{fmt.Sprintf("V_k ~ Gamma(α_k, 1), C_k = V_k/ΣV (eq 4.14, Remark 4.3): C ~ Dir(%g, %g, %g)", s.alpha[0], s.alpha[1], s.alpha[2])}
	var bars []sims.Bar
	series := make([]sims.Series, 0, 6)
	if d > 0 {
		markers = append(markers, sims.Marker{X: s.x[d-1], Y: s.y[d-1], Glyph: '●', Class: 0})
		worst := 0.0
		for k := range 3 {
			m := s.sum[k] / float64(d)
			worst = max(worst, math.Abs(m-s.mean[k])/(s.sd[k]/math.Sqrt(float64(d))))
			bars = append(bars, sims.Bar{Label: fmt.Sprintf("C_%d", k+1), Value: s.draw[k], Class: k})
			series = append(series, sims.Series{Name: fmt.Sprintf("mean C_%d", k+1), Y: s.running.Column(k), Class: k})
		}
		for k := range 3 {
			series = append(series, sims.Series{Name: fmt.Sprintf("α_%d/α₀", k+1), Y: s.levels[k].Of(s.running), Class: k, Bound: true})
		}
		metrics = append(metrics, sims.Metric{Name: "max_z", Value: worst})
		text = append(text, fmt.Sprintf("E[C_k] = α_k/α₀ = (%.3f, %.3f, %.3f); running means (%.3f, %.3f, %.3f)",
			s.mean[0], s.mean[1], s.mean[2], s.sum[0]/float64(d), s.sum[1]/float64(d), s.sum[2]/float64(d)),
			fmt.Sprintf("largest error %.2f standard errors (|z| < 3 expected); ✚ the mean on the simplex, ● the last draw", worst))
	}
	x0, x1 := s.running.Span()
	return sims.Frame{
		Sim: DP.Name, Step: d, Metrics: metrics,
		Charts: []sims.Chart{
			sims.CanvasChart{
				Title: fmt.Sprintf("%d draws on the simplex (corners: C_k = 1)", d),
				View:  sims.Rect{XMin: -0.05, XMax: 1.05, YMin: -0.05, YMax: h + 0.05},
				Paths: []sims.Path{s.triangle}, Points: []sims.PointSet{{Name: "draws", X: s.x[:d:d], Y: s.y[:d:d], Class: 0}},
				Markers: markers, Legend: []string{"draws", "mean"}, XLabel: "C₂ + C₃/2", YLabel: "C₃·√3/2",
			},
			sims.LineChart{Title: "running means of C_k → α_k/α₀", Series: series, X0: x0, X1: x1, XLabel: "draw"},
			sims.BarChart{Title: "the last draw", Bars: bars, Max: 1},
		},
		Text: text,
	}
}

func (s *dirichletSim) Result() map[string]any {
	d := max(len(s.x), 1)
	return map[string]any{
		"draws":    len(s.x),
		"mean":     []float64{s.sum[0] / float64(d), s.sum[1] / float64(d), s.sum[2] / float64(d)},
		"expected": slices.Clone(s.mean),
	}
}

// ---- stick ------------------------------------------------------------

// stickShown is the number of weights whose means are tracked and drawn.
const stickShown = 12

// stickBars is how many pieces the stick's bar chart shows one by one;
// the rest of those drawn share a bar.
const stickBars = 8

type stickSim struct {
	alpha, tol float64
	n          int
	rng        *rand.Rand
	cur        *dp.Stick
	last       *dp.Stick // the last finished draw, shown while the next starts
	draws      int
	sum        [stickShown]float64
	pieces     int // pieces broken in all draws
	steps      int
}

func newStickSim(alpha, tol float64, n int, rng *rand.Rand) (*stickSim, error) {
	st, err := dp.NewStick(alpha, tol, rng)
	if err != nil {
		return nil, err
	}
	return &stickSim{alpha: alpha, tol: tol, n: n, rng: rng, cur: st}, nil
}

// Step breaks one piece; a truncated draw is counted and the next begins.
func (s *stickSim) Step() error {
	if s.draws >= s.n {
		return algo.ErrConverged
	}
	if s.cur.Done() {
		st, err := dp.NewStick(s.alpha, s.tol, s.rng)
		if err != nil {
			return err
		}
		s.cur = st
	}
	if err := s.cur.Step(); err != nil {
		return err
	}
	s.steps++
	s.pieces++
	if s.cur.Done() {
		s.draws++
		for k, c := range s.cur.Weights() {
			if k >= stickShown {
				break
			}
			s.sum[k] += c
		}
		s.last = s.cur
	}
	return nil
}

// drawNote names the draw on screen beside the header's count of the
// draws made: the one breaking its stick is not yet among them.
func drawNote(made int, done bool) string {
	if done {
		return fmt.Sprintf("draw %d", made)
	}
	return fmt.Sprintf("draw %d (breaking; %d made)", made+1, made)
}

func (s *stickSim) Frame() sims.Frame {
	st := s.cur
	w, atoms := st.Weights(), st.Atoms()
	top := 0.0
	for _, c := range w {
		top = max(top, c)
	}
	stems := make([]sims.Path, 0, len(w)+1)
	const curveN = 121
	base := sims.Path{X: make([]float64, curveN), Y: make([]float64, curveN), Class: -1, Dotted: true}
	yMax := max(top, 0.4) * 1.08
	for i := range curveN {
		x := -3.5 + 7*float64(i)/(curveN-1)
		base.X[i], base.Y[i] = x, math.Exp(-x*x/2)/math.Sqrt(2*math.Pi)*yMax/0.4*0.35
	}
	stems = append(stems, base)
	for k, c := range w {
		stems = append(stems, sims.Path{X: []float64{atoms[k], atoms[k]}, Y: []float64{0, c}, Class: k % 10})
	}
	var markers []sims.Marker
	if k := len(w); k > 0 {
		markers = append(markers, sims.Marker{X: atoms[k-1], Y: w[k-1], Glyph: '●', Class: (k - 1) % 10})
	}
	bars := make([]sims.Bar, 0, stickBars+2)
	for k, c := range w {
		if k == stickBars {
			// The pieces past the first stickBars, together: the bars
			// still add up to 1 with the rest.
			bars = append(bars, sims.Bar{Label: fmt.Sprintf("C_%d…C_%d", k+1, len(w)), Value: sum(w[k:]), Class: -1})
			break
		}
		bars = append(bars, sims.Bar{Label: fmt.Sprintf("C_%d", k+1), Value: c, Class: k % 10})
	}
	bars = append(bars, sims.Bar{Label: "rest", Value: st.Remaining(), Class: -1})

	var series []sims.Series
	if s.draws > 0 {
		mean := make([]float64, stickShown)
		want := make([]float64, stickShown)
		for k := range mean {
			mean[k] = s.sum[k] / float64(s.draws)
			want[k] = dp.StickMean(s.alpha, k+1)
		}
		series = []sims.Series{
			{Name: fmt.Sprintf("mean C_k over %d draws", s.draws), Y: mean, Class: 0},
			{Name: "E[C_k]", Y: want, Class: 1, Bound: true},
		}
	}
	metrics := []sims.Metric{
		{Name: "draws", Value: float64(s.draws)},
		{Name: "pieces", Value: float64(len(w))},
		{Name: "rest", Value: st.Remaining()},
	}
	text := []string{
		fmt.Sprintf("V_k ~ Beta(1, %g), C_k = V_k ∏_{j<k}(1 − V_j), Φ_k ~ N(0,1) (Def 4.3; (4.15)'s (1 − V_k) is a typo)", s.alpha),
		fmt.Sprintf("%s: %d pieces, ΣC_k + rest − 1 %s; truncated when the rest < %g", drawNote(s.draws, st.Done()), len(w), sims.IsResidual("%.1e", sum(w)+st.Remaining()-1, 1), s.tol),
		"dotted: the base measure N(0,1) the atoms Φ_k are drawn from (scaled)",
		fmt.Sprintf("E[C_k] = (1/(1+α))(α/(1+α))^{k−1}: %.4f, %.4f, %.4f, …", dp.StickMean(s.alpha, 1), dp.StickMean(s.alpha, 2), dp.StickMean(s.alpha, 3)),
	}
	return sims.Frame{
		Sim: DP.Name, Step: s.steps, Metrics: metrics,
		Charts: []sims.Chart{
			sims.CanvasChart{
				Title: fmt.Sprintf("Θ = Σ C_k δ_Φk: %d stems at their atoms", len(w)),
				View:  sims.Rect{XMin: -3.5, XMax: 3.5, YMin: 0, YMax: yMax},
				Paths: stems, Markers: markers, Legend: []string{"C_k at Φ_k"},
				XLabel: "Φ", YLabel: "C",
			},
			sims.LineChart{Title: "mean weight C_k against k", Series: series, X0: 1, X1: stickShown, XLabel: "k"},
			sims.BarChart{Title: "the stick so far", Bars: bars, Max: 1},
		},
		Text: text,
	}
}

func (s *stickSim) Result() map[string]any {
	mean := make([]float64, stickShown)
	want := make([]float64, stickShown)
	for k := range mean {
		if s.draws > 0 {
			mean[k] = s.sum[k] / float64(s.draws)
		}
		want[k] = dp.StickMean(s.alpha, k+1)
	}
	r := map[string]any{"draws": s.draws, "mean_weights": mean, "expected_weights": want}
	if s.last != nil {
		r["weights"] = slices.Clone(s.last.Weights())
		r["atoms"] = slices.Clone(s.last.Atoms())
		r["rest"] = s.last.Remaining()
	}
	return r
}

func sum(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s
}

// ---- crp --------------------------------------------------------------

type crpSim struct {
	crp    *dp.CRP
	n      int
	tables *sims.Trace // K_n after each customer
	// E[K_m] and Var[K_m] for m = 0..n, by the running sums of the
	// Bernoulli probabilities p_i = α/(α + i).
	mean, variance []float64
}

func newCRPSim(alpha float64, n int, rng *rand.Rand) (*crpSim, error) {
	c, err := dp.NewCRP(alpha, rng)
	if err != nil {
		return nil, err
	}
	s := &crpSim{crp: c, n: n, tables: sims.NewTrace(1, 1), mean: make([]float64, n+1), variance: make([]float64, n+1)}
	for i := 0; i < n; i++ {
		p := alpha / (alpha + float64(i))
		s.mean[i+1], s.variance[i+1] = s.mean[i]+p, s.variance[i]+p*(1-p)
	}
	return s, nil
}

func (s *crpSim) Step() error {
	if s.crp.N() >= s.n {
		return algo.ErrConverged
	}
	if err := s.crp.Step(); err != nil {
		return err
	}
	s.tables.Add(float64(s.crp.Tables()))
	return nil
}

func (s *crpSim) Frame() sims.Frame {
	c := s.crp
	a := c.Alpha()
	n := c.N()
	expect := s.tables.Map(func(m int) float64 { return s.mean[m] })
	upper := s.tables.Map(func(m int) float64 { return s.mean[m] + 2*math.Sqrt(s.variance[m]) })
	lower := s.tables.Map(func(m int) float64 { return max(s.mean[m]-2*math.Sqrt(s.variance[m]), 0) })
	x0, x1 := s.tables.Span()
	counts := c.Counts()
	order := make([]int, len(counts))
	for j := range order {
		order[j] = j
	}
	slices.SortStableFunc(order, func(i, j int) int { return counts[j] - counts[i] })
	bars := make([]sims.Bar, 0, 10)
	for _, j := range order {
		if len(bars) == 10 {
			break
		}
		bars = append(bars, sims.Bar{Label: "table " + strconv.Itoa(j+1), Value: float64(counts[j]), Class: j % 10})
	}
	e, v := s.mean[n], s.variance[n]
	metrics := []sims.Metric{
		{Name: "customers", Value: float64(n)},
		{Name: "tables", Value: float64(c.Tables())},
		{Name: "expected", Value: e},
	}
	text := []string{
		fmt.Sprintf("customer n+1 joins table j w.p. n_j/(α+n), opens one w.p. α/(α+n), α = %g (the DP predictive)", a),
	}
	if n > 0 {
		tab, opened := c.Last()
		what := "joined"
		if opened {
			what = "opened"
		}
		text = append(text, fmt.Sprintf("customer %d %s table %d; K_n = %d against E[K_n] = Σ_{i<n} α/(α+i) = %.2f ± %.2f (2 sd)",
			n, what, tab+1, c.Tables(), e, 2*math.Sqrt(v)),
			fmt.Sprintf("E[K_n] grows like α log(1 + n/α) = %.2f", a*math.Log1p(float64(n)/a)))
	}
	return sims.Frame{
		Sim: DP.Name, Step: n, Metrics: metrics,
		Charts: []sims.Chart{
			sims.LineChart{
				Title: "tables K_n against E[K_n] ± 2 sd",
				Series: []sims.Series{
					{Name: "K_n", Y: s.tables.Column(0), Class: 0},
					{Name: "E[K_n]", Y: expect, Class: 1, Bound: true},
					{Name: "E+2sd", Y: upper, Class: 2, Bound: true},
					{Name: "E−2sd", Y: lower, Class: 2, Bound: true},
				},
				X0: x0, X1: x1, XLabel: "customers n",
			},
			sims.BarChart{Title: fmt.Sprintf("the largest tables of %d", c.Tables()), Bars: bars},
		},
		Text: text,
	}
}

func (s *crpSim) Result() map[string]any {
	e, v := dp.TablesMoments(s.crp.Alpha(), s.crp.N())
	return map[string]any{
		"customers": s.crp.N(), "tables": s.crp.Tables(), "expected_tables": e, "sd_tables": math.Sqrt(v),
		"table_sizes": slices.Clone(s.crp.Counts()),
	}
}

// ---- dpmm -------------------------------------------------------------

type mixtureSim struct {
	m      *dp.Mixture
	x, y   []float64
	truth  [][2]float64 // the generating means; nil with --data
	view   sims.Rect
	k      *sims.Trace // clusters per sweep
	lj     *sims.Trace // log joint per point, per sweep
	prior  float64     // E[K_N] under the CRP prior
	xl, yl string
}

func newMixtureSim(cfg sims.Config, rng *rand.Rand) (*mixtureSim, error) {
	v := cfg.Values
	s := &mixtureSim{xl: "x", yl: "y", k: sims.NewTrace(0, 1), lj: sims.NewTrace(0, 1)}
	var pts [][]float64
	if t := cfg.Data; t != nil {
		x, y, err := t.XY()
		if err != nil {
			return nil, err
		}
		f := t.Features() // XY's columns: the first two but label
		s.xl, s.yl = t.Columns[f[0]], t.Columns[f[1]]
		for i := range x {
			pts = append(pts, []float64{x[i], y[i]})
		}
	} else {
		// Example 3.1's hierarchical GMM, with a generous Dirichlet so that
		// no cluster is empty by chance.
		g, err := ancestral.NewHierGMM(ancestral.HierConfig{K: dpClusters.Get(v), Alpha: 5, Tau: 3, Sigma: dpSigma.Get(v)}, rng)
		if err != nil {
			return nil, err
		}
		for range dpN.Get(v) {
			_ = g.Step()
			_, x := g.Last()
			pts = append(pts, []float64{x[0], x[1]})
		}
		for _, c := range g.Components() {
			s.truth = append(s.truth, c.Mean)
		}
	}
	var m0 [2]float64
	for _, p := range pts {
		m0[0] += p[0] / float64(len(pts))
		m0[1] += p[1] / float64(len(pts))
	}
	m, err := dp.NewMixture(pts, dp.MixtureConfig{Alpha: dpAlpha.Get(v), Sigma: dpSigma.Get(v), Tau: dpTau.Get(v), M0: m0}, rng)
	if err != nil {
		return nil, err
	}
	s.m = m
	s.x, s.y = make([]float64, len(pts)), make([]float64, len(pts))
	for i, p := range pts {
		s.x[i], s.y[i] = p[0], p[1]
	}
	s.view = sims.Bounds(s.x, s.y).Pad(0.05)
	s.prior, _ = dp.TablesMoments(dpAlpha.Get(v), len(pts))
	s.record()
	return s, nil
}

func (s *mixtureSim) record() {
	s.k.Add(float64(s.m.K()))
	s.lj.Add(s.m.LogJoint() / float64(s.m.N()))
}

func (s *mixtureSim) Step() error {
	if err := s.m.Step(); err != nil {
		return err
	}
	s.record()
	return nil
}

func (s *mixtureSim) Frame() sims.Frame {
	m := s.m
	labels := m.Labels(nil)
	for i, l := range labels {
		labels[i] = l % 10
	}
	clusters := m.Clusters()
	markers := make([]sims.Marker, 0, len(clusters)+len(s.truth))
	for _, t := range s.truth {
		markers = append(markers, sims.Marker{X: t[0], Y: t[1], Glyph: '×', Class: -1})
	}
	bars := make([]sims.Bar, 0, 10)
	for i, c := range clusters {
		markers = append(markers, sims.Marker{X: c.Mean[0], Y: c.Mean[1], Glyph: '✚', Class: c.Label % 10})
		if len(bars) < 10 {
			bars = append(bars, sims.Bar{Label: "#" + strconv.Itoa(i+1), Value: float64(c.N), Class: c.Label % 10})
		}
	}
	x0, x1 := s.k.Span()
	cfg := m.Config()
	text := []string{
		fmt.Sprintf("collapsed Gibbs: z_i ∝ n_c·N(x_i; m_c, σ²+s_c²) or α·N(x_i; m0, σ²+τ²) (Neal's Alg. 3; the notes give no sampler); σ = %g, τ = %g", cfg.Sigma, cfg.Tau),
		fmt.Sprintf("sweep %d: %d clusters; the CRP prior alone expects %.1f for N = %d: the data decide", m.Sweeps(), m.K(), s.prior, m.N()),
	}
	if s.truth != nil {
		text = append(text, fmt.Sprintf("data: Ex 3.1's hierarchical GMM with %d clusters (× true means, ✚ posterior means)", len(s.truth)))
	}
	return sims.Frame{
		Sim: DP.Name, Step: m.Sweeps(),
		Metrics: []sims.Metric{
			{Name: "sweep", Value: float64(m.Sweeps())},
			{Name: "clusters", Value: float64(m.K())},
			{Name: "logjoint", Value: m.LogJoint() / float64(m.N())},
		},
		Charts: []sims.Chart{
			sims.CanvasChart{
				Title: fmt.Sprintf("%d points in %d clusters", m.N(), m.K()),
				View:  s.view, Points: []sims.PointSet{{Name: "data", X: s.x, Y: s.y, Classes: labels}},
				Markers: markers, XLabel: s.xl, YLabel: s.yl,
			},
			sims.LineChart{
				Title: "clusters per sweep",
				Series: []sims.Series{
					{Name: "K", Y: s.k.Column(0), Class: 0},
					{Name: "CRP prior E[K_N]", Y: s.k.Map(func(int) float64 { return s.prior }), Class: 1, Bound: true},
				},
				X0: x0, X1: x1, XLabel: "sweep",
			},
			sims.LineChart{
				Title:  "log p(x, z) per point",
				Series: []sims.Series{{Name: "log joint", Y: s.lj.Column(0), Class: 0}},
				X0:     x0, X1: x1, XLabel: "sweep", YLabel: "nats",
			},
			sims.BarChart{Title: "cluster sizes, largest first", Bars: bars},
		},
		Text: text,
	}
}

func (s *mixtureSim) Result() map[string]any {
	cs := s.m.Clusters()
	sizes := make([]int, len(cs))
	means := make([][]float64, len(cs))
	for i, c := range cs {
		sizes[i] = c.N
		means[i] = []float64{c.Mean[0], c.Mean[1]}
	}
	return map[string]any{"sweeps": s.m.Sweeps(), "clusters": len(cs), "sizes": sizes, "means": means,
		"log_joint": s.m.LogJoint(), "labels": s.m.Labels(nil)}
}
