// Package rffsim turns the engines of algo/rff into sims: random Fourier
// features approximating a kernel matrix as features accumulate (iid
// against orthogonal; trigonometric against positive features for the
// softmax kernel), and the Monte Carlo estimate of Bochner's theorem.
package rffsim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/dataset"
	"github.com/thelab/lab/algo/rff"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/kernelsim"
	"github.com/thelab/lab/sims/param"
)

// RFF approximates an exact kernel matrix by random features, one frequency
// per step, with two estimators side by side.
var RFF = &sims.Spec{
	Name:   "rff",
	Title:  "Random Fourier features: error vs m (log-log), iid vs orthogonal; softmax trig vs positive",
	Source: "seed 004 L37–144 (Bochner, RFF, softmax kernel, ORF, Gram–Schmidt); seed 000 §4.7 (eqs 4.26–4.32); seed 002 D8",
	Data: "a CSV of numeric columns (a \"label\" column is ignored): its rows, standardised, are the points " +
		"(at most 300; d and n then come from the file)",
	Steps:  2048,
	Speed:  30,
	Params: param.List(rffKernel, rffD, rffN, rffGamma, rffMMax),
	New:    newRFF,
	Size:   rffSize,

	Metrics: rffMetrics,
}

// rffSize is the points (the rows of --data, at most maxTablePoints), the
// exact matrix and the two estimators with their samplers, and the
// Frame's picture of the three matrices side by side. The errors recorded
// grow with log m only.
func rffSize(cfg sims.Config) int64 {
	n, d := rffN.Get(cfg.Values), rffD.Get(cfg.Values)
	if t := cfg.Data; t != nil {
		n, d = min(len(t.Rows), maxTablePoints), len(t.Columns)
	}
	// rbf: iid, orthogonal and structured; softmax: trig and positive.
	ests := []rff.Kind{rff.IID, rff.ORF, rff.SORF}
	if rffKernel.Get(cfg.Values) == kernelSoftmax {
		ests = ests[:2]
	}
	nx := (len(ests)+1)*n + len(ests)*max(2, n/6)
	size := rffBase + int64(n)*int64(24+8*d+8) + 8*int64(n)*int64(n) + 8*int64(nx)*int64(n)
	for _, k := range ests {
		size += rff.ApproxFootprint(n, d) + rff.SamplerFootprintOf(d, k)
	}
	return size
}

// rffBase is what rff holds whatever its size: the sim, the Frame's charts
// and texts, and the rounding of its matrices up to whole pages.
const rffBase = 64 << 10

// kernel is the kernel rff approximates.
type kernel string

func (k kernel) String() string { return string(k) }

const (
	kernelRBF     kernel = "rbf"
	kernelSoftmax kernel = "softmax"
)

// rff's parameters.
var (
	rffKernel = param.Choice("kernel", []kernel{kernelRBF, kernelSoftmax}, kernelRBF,
		"rbf: exp(−γ‖x−z‖²), iid vs orthogonal features; softmax: exp(xᵀz), trigonometric vs positive features")
	rffD = param.Int("d", 16,
		"dimension of the points, drawn N(0, I) (rbf) or N(0, I)/(2d^¼) (softmax, the attention scaling)").Range(1, 256)
	rffN = param.Int("n", 60, "number of points: the kernel matrix is n×n").Range(2, 200).BuiltInData()

	rffGamma = param.Float("gamma", 0.03125, kernelsim.GammaHelp+" (rbf only; softmax uses w ~ N(0, I))").
			Range(0, 100).OpenMin().DefaultFunc(defaultGamma, "1/(2d), so that a typical kernel value is e^−1")

	rffMMax = param.Int("m_max", 2048, "stop after this many frequencies (2m features; 2048: 68 s at the pane's speed)").Range(16, 65536)
)

// defaultGamma is 1/(2d) to six digits.
func defaultGamma(v param.Values) float64 { return param.Sig(1/(2*float64(rffD.Get(v))), 6) }

type estimator struct {
	name  string
	a     *rff.Approx
	err   []float64 // relative Frobenius error at the recorded m
	var1  float64   // Σ_ij Var_ij of one frequency (theory), 0 when unknown
	class int
}

type rffSim struct {
	softmax bool
	n, d    int
	mMax    int
	exact   []float64
	kNorm   float64
	est     []*estimator // rbf: iid, orthogonal, sorf; softmax: trig, positive
	ms      []int        // recorded m, about geometric with ratio 2^¼
	nextRec int
	lo, hi  float64 // colour range of the heatmaps
	floor   float64 // rbf: sorfFloor
}

func newRFF(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	d, n := rffD.Get(v), rffN.Get(v)
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x726666)) // "rff"
	var x [][]float64
	if t := cfg.Data; t != nil {
		var err error
		if x, d, err = tablePoints(t); err != nil {
			return nil, err
		}
		n = len(x)
	} else {
		x = make([][]float64, n)
		for i := range x {
			x[i] = make([]float64, d)
			for j := range x[i] {
				x[i][j] = rng.NormFloat64()
			}
		}
	}
	s := &rffSim{softmax: rffKernel.Get(v) == kernelSoftmax, n: n, d: d, mMax: rffMMax.Get(v), nextRec: 4}
	if s.softmax {
		scale := 0.5 / math.Pow(float64(d), 0.25)
		for _, r := range x {
			for j := range r {
				r[j] *= scale
			}
		}
	}
	gamma := rffGamma.Get(v)
	if cfg.Data != nil && !rffGamma.IsSet(v) {
		gamma = 1 / (2 * float64(d)) // the default rule, for the file's dimension
	}
	s.exact = make([]float64, n*n)
	half := make([]float64, n)
	for i := range x {
		half[i] = dot(x[i], x[i]) / 2
	}
	for i := range x {
		for j := range x {
			if s.softmax {
				s.exact[i*n+j] = math.Exp(dot(x[i], x[j]))
			} else {
				s.exact[i*n+j] = math.Exp(-gamma * (2*half[i] + 2*half[j] - 2*dot(x[i], x[j])))
			}
		}
	}
	for _, e := range s.exact {
		s.kNorm += e * e
	}
	s.kNorm = math.Sqrt(s.kNorm)
	s.lo, s.hi = math.Inf(1), math.Inf(-1)
	for _, e := range s.exact {
		s.lo, s.hi = math.Min(s.lo, e), math.Max(s.hi, e)
	}
	mk := func(name string, kind rff.Kind, est rff.Estimator, g float64, class int, stream uint64) (*estimator, error) {
		smp, err := rff.NewSampler(d, g, kind, rand.New(rand.NewPCG(cfg.Seed, stream)))
		if err != nil {
			return nil, err
		}
		a, err := rff.NewApprox(x, s.exact, est, smp)
		if err != nil {
			return nil, err
		}
		return &estimator{name: name, a: a, class: class}, nil
	}
	var err error
	if s.softmax {
		s.est = make([]*estimator, 2)
		if s.est[0], err = mk("trig", rff.IID, rff.SoftmaxTrig, 0.5, 0, 1); err != nil {
			return nil, err
		}
		if s.est[1], err = mk("positive", rff.IID, rff.SoftmaxPos, 0.5, 1, 2); err != nil {
			return nil, err
		}
		for i := range x {
			for j := range x {
				sm := s.exact[i*n+j]
				dd := 2*half[i] + 2*half[j] - 2*dot(x[i], x[j]) // ‖x−z‖²
				ss := 2*half[i] + 2*half[j] + 2*dot(x[i], x[j]) // ‖x+z‖²
				g := 1 - math.Exp(-dd)
				s.est[0].var1 += math.Exp(2*half[i]+2*half[j]) * g * g / 2
				s.est[1].var1 += sm * sm * math.Expm1(ss)
			}
		}
	} else {
		s.est = make([]*estimator, 3)
		if s.est[0], err = mk("iid", rff.IID, rff.Gauss, gamma, 0, 1); err != nil {
			return nil, err
		}
		if s.est[1], err = mk("orthogonal", rff.ORF, rff.Gauss, gamma, 1, 2); err != nil {
			return nil, err
		}
		if s.est[2], err = mk("sorf", rff.SORF, rff.Gauss, gamma, 2, 3); err != nil {
			return nil, err
		}
		s.floor = s.sorfFloor()
		for _, e := range s.exact {
			s.est[0].var1 += rff.GaussVariance(e)
		}
	}
	return s, nil
}

// maxTablePoints is the most rows of --data the rff sim takes (its
// matrices are n×n and a step costs O(n²)).
const maxTablePoints = 300

// tablePoints returns the CSV's numeric columns (but a "label" column) as
// points, standardised.
func tablePoints(t *sims.Table) ([][]float64, int, error) {
	if len(t.Rows) > maxTablePoints {
		return nil, 0, fmt.Errorf("--data %s: %d rows; the rff sim takes at most %d points", t.Name, len(t.Rows), maxTablePoints)
	}
	if len(t.Rows) < 2 {
		return nil, 0, fmt.Errorf("--data %s: needs at least 2 rows", t.Name)
	}
	skip := t.Column("label")
	var x [][]float64
	for _, r := range t.Rows {
		p := make([]float64, 0, len(r))
		for j, v := range r {
			if j != skip {
				p = append(p, v)
			}
		}
		x = append(x, p)
	}
	if len(x[0]) == 0 {
		return nil, 0, fmt.Errorf("--data %s: no feature column", t.Name)
	}
	return dataset.Standardize(x), len(x[0]), nil
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i, v := range a {
		s += v * b[i]
	}
	return s
}

// record keeps the errors at m = 4, then at each m ≥ 2^¼ times the last
// recorded one, so the chart's x axis is (close to) log₂ m.
func (s *rffSim) record(m int) {
	if m < s.nextRec {
		return
	}
	s.ms = append(s.ms, m)
	for _, e := range s.est {
		e.err = append(e.err, e.a.RelError())
	}
	s.nextRec = max(m+1, int(math.Round(float64(s.ms[0])*math.Pow(2, float64(len(s.ms))/4))))
}

func (s *rffSim) Step() error {
	m := s.est[0].a.M()
	if m >= s.mMax {
		return algo.ErrConverged
	}
	for _, e := range s.est {
		if err := e.a.Step(); err != nil {
			return err
		}
	}
	s.record(m + 1)
	return nil
}

func (s *rffSim) theory(e *estimator, m int) float64 {
	return math.Sqrt(e.var1/float64(m)) / s.kNorm
}

// heat draws matrices side by side in one picture (row 1 at the top), with
// a dark gap between them, all on the exact matrix's colour range.
func (s *rffSim) heat(title string, ks ...[]float64) sims.CanvasChart {
	n := s.n
	gap := max(2, n/6)
	nx := len(ks)*n + (len(ks)-1)*gap
	z := make([]float64, nx*n)
	for j := 0; j < n; j++ {
		row := z[j*nx : (j+1)*nx]
		for c := range row {
			row[c] = s.lo - (s.hi - s.lo) // below the range: the darkest colour
		}
		for b, k := range ks {
			copy(row[b*(n+gap):], k[(n-1-j)*n:(n-j)*n])
		}
	}
	return sims.CanvasChart{
		Title: title,
		View:  sims.Rect{XMin: 0, XMax: float64(nx), YMin: 0, YMax: float64(n)},
		Heat:  &sims.Grid{NX: nx, NY: n, Z: z, Scale: sims.Sequential, Lo: s.lo, Hi: s.hi},
		// indices, each block's own: the range reads i 1…n, j 1…n, and the
		// map gets its colour bar
		XLabel: "j in each block", YLabel: "i",
		XIndex: &sims.Index{First: 1, Last: n, At: 0.5, Step: 1},
		YIndex: &sims.Index{First: 1, Last: n, At: float64(n) + 0.5, Step: -1},
	}
}

func (s *rffSim) Frame() sims.Frame {
	m := s.est[0].a.M()
	a := s.est[0]
	// The theory lines first, so that the measured curves draw over them.
	series := []sims.Series{}
	for _, e := range s.est {
		if e.var1 > 0 {
			th := make([]float64, len(s.ms))
			for i, mm := range s.ms {
				th[i] = s.theory(e, mm)
			}
			series = append(series, sims.Series{Name: e.name + " theory ∝ m^−½", Y: th, Class: e.class, Bound: true})
		}
	}
	if !s.softmax && len(s.ms) > 0 {
		fl := make([]float64, len(s.ms))
		for i := range fl {
			fl[i] = s.floor
		}
		series = append(series, sims.Series{Name: "sorf bias floor", Y: fl, Class: 2, Bound: true})
	}
	for _, e := range s.est {
		series = append(series, sims.Series{Name: e.name, Y: append([]float64(nil), e.err...), Class: e.class})
	}
	errChart := sims.LineChart{Title: "‖K_m−K‖_F/‖K‖_F", LogY: true, Series: series, XLabel: "log₂ m"}
	if len(s.ms) > 1 {
		errChart.X0, errChart.X1 = math.Log2(float64(s.ms[0])), math.Log2(float64(s.ms[len(s.ms)-1]))
	}
	kname := "K"
	if s.softmax {
		kname = "SM"
	}
	metrics := []sims.Metric{{Name: "m", Value: float64(m)}}
	names := []string{kname}
	mats := [][]float64{s.exact}
	for _, e := range s.est {
		metrics = append(metrics, sims.Metric{Name: "err_" + e.name, Value: e.a.RelError()})
		names = append(names, e.name)
		mats = append(mats, e.a.KHat())
	}
	if m > 0 {
		metrics = append(metrics, sims.Metric{Name: "theory_" + a.name, Value: s.theory(a, m)})
	}
	if s.softmax {
		metrics = append(metrics, sims.Metric{Name: "negatives_trig", Value: float64(a.a.Negatives())})
	}
	return sims.Frame{
		Sim:     RFF.Name,
		Step:    m,
		Metrics: metrics,
		Primary: 1, // the kernel and its estimates side by side
		Charts: []sims.Chart{
			errChart,
			s.heat(fmt.Sprintf("%s (%d×%d) | %s estimates, m = %d", names[0], s.n, s.n, strings.Join(names[1:], " | "), m),
				mats...),
		},
		Text: s.notes(),
	}
}

func (s *rffSim) notes() []string {
	if s.softmax {
		return []string{
			fmt.Sprintf("SM(x,z) = exp(xᵀz), %d points in %d-D; trig: φ = e^{‖x‖²/2}(cos, sin)(wᵀx)/√m; positive: e^{wᵀx−‖x‖²/2}/√m", s.n, s.d),
			"both unbiased; trig is exact at x = z but can go negative (a negative attention weight); positive is exact at x = −z",
			"dotted: the exact RMS error √(ΣVar_ij/m)/‖SM‖_F of each estimator, slope −½",
		}
	}
	return []string{
		fmt.Sprintf("K = exp(−γ‖x−z‖²), %d points in %d-D; φ(x) = (cos, sin)(Wx)/√m, w ~ N(0, 2γI) (Bochner)", s.n, s.d),
		fmt.Sprintf("orthogonal: blocks of %d Gram–Schmidt rows with χ(%d) norms, unbiased with lower variance", s.d, s.d),
		fmt.Sprintf("sorf: rows of √p·HD₁HD₂HD₃ (Walsh–Hadamard H, random signs D, p = %d): Wx in O(p log p) a block, O(p) memory, "+
			"against ORF's O(d³) Gram–Schmidt; norms fixed at √p, not χ(d), so biased: its mean is the sphere's kernel, → K as d grows; dotted: that bias", rff.SORFBlock(s.d)),
		"dotted: iid theory √(Σ(1−K_ij²)²/(2m))/‖K‖_F, a line of slope −½ on this log-log chart",
	}
}

func (s *rffSim) Result() map[string]any {
	out := map[string]any{"m": s.est[0].a.M(), "m_grid": append([]int(nil), s.ms...)}
	for _, e := range s.est {
		out["error_"+e.name] = append([]float64(nil), e.err...)
		out["final_error_"+e.name] = e.a.RelError()
	}
	return out
}

// GramSchmidt orthonormalises a Gaussian matrix one row a step, the first
// half of an orthogonal-random-features block.
var GramSchmidt = &sims.Spec{
	Name:   "gram-schmidt",
	Title:  "Gram–Schmidt row by row: GGᵀ of a Gaussian G becoming the identity (the ORF construction)",
	Source: "seed 004 L113–132 (ORF: Gram–Schmidt the rows of G, then χ(d) norms); seed-003/004 catalogue R5",
	Steps:  64,
	Speed:  1,
	// d rows a second, then the finished identity for sims.ReplayPause and
	// the next seed's G.
	Replay:  sims.ReplayPause,
	Params:  param.List(gsD, gsRows),
	New:     newGramSchmidt,
	Size:    gsSize,
	Metrics: gsMetrics,
}

var (
	gsD    = param.Int("d", 16, "dimension: the length of each row of G (iid N(0, 1) entries)").Range(1, 64)
	gsRows = param.Int("rows", 16, "rows of G, at most d (seed 004 L126: m ≤ d per block)").Range(1, 64).
		DefaultFunc(func(v param.Values) int { return gsD.Get(v) }, "d: a square block")
)

// gsSize is G twice, the Gram matrix and its picture, and the trace.
func gsSize(cfg sims.Config) int64 {
	d, m := int64(gsD.Get(cfg.Values)), int64(gsRows.Get(cfg.Values))
	return rffBase + 2*8*m*d + m*(24+8*d) + 3*8*m*m + 8*(m+1)
}

type gsSim struct {
	gs      *rff.GramSchmidt
	offDiag []float64 // ‖GGᵀ − I‖_F per step
	gram    []float64
}

func newGramSchmidt(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	d, m := gsD.Get(v), gsRows.Get(v)
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x6773)) // "gs"
	g := make([][]float64, m)
	for i := range g {
		g[i] = make([]float64, d)
		for j := range g[i] {
			g[i][j] = rng.NormFloat64()
		}
	}
	e, err := rff.NewGramSchmidt(g)
	if err != nil {
		return nil, sims.Blame(err, v)
	}
	s := &gsSim{gs: e, gram: make([]float64, m*m)}
	s.offDiag = append(s.offDiag, s.distance())
	return s, nil
}

// distance is ‖GGᵀ − I‖_F of the rows as they are.
func (s *gsSim) distance() float64 {
	s.gs.Gram(s.gram)
	m := s.gs.M()
	sum := 0.0
	for i := 0; i < m; i++ {
		for j := 0; j < m; j++ {
			e := s.gram[i*m+j]
			if i == j {
				e--
			}
			sum += e * e
		}
	}
	return math.Sqrt(sum)
}

func (s *gsSim) Step() error {
	if err := s.gs.Step(); err != nil {
		return err
	}
	s.offDiag = append(s.offDiag, s.distance())
	return nil
}

func (s *gsSim) Frame() sims.Frame {
	m, k := s.gs.M(), s.gs.Done()
	gram := make([]float64, m*m)
	s.gs.Gram(gram)
	z := make([]float64, m*m) // bottom row first: row i of the matrix at the top
	for j := 0; j < m; j++ {
		copy(z[j*m:(j+1)*m], gram[(m-1-j)*m:(m-j)*m])
	}
	heat := sims.CanvasChart{
		Title:  fmt.Sprintf("GGᵀ, %d of %d rows orthonormal (rows not yet done scaled by 1/√d)", k, m),
		View:   sims.Rect{XMin: 0, XMax: float64(m), YMin: 0, YMax: float64(m)},
		Heat:   &sims.Grid{NX: m, NY: m, Z: z, Scale: sims.Diverging, Lo: -1, Hi: 1},
		XLabel: "row j", YLabel: "row i",
		XIndex: &sims.Index{First: 1, Last: m, At: 0.5, Step: 1},
		YIndex: &sims.Index{First: 1, Last: m, At: float64(m) - 0.5, Step: -1},
	}
	line := sims.LineChart{
		Title: "‖GGᵀ − I‖_F as rows are done", XLabel: "rows done", X0: 0, X1: float64(len(s.offDiag) - 1),
		Series: []sims.Series{{Name: "‖GGᵀ − I‖_F", Y: append([]float64(nil), s.offDiag...), Class: 0}},
	}
	text := []string{
		"u_k = g_k − Σ_{j<k}(g_k·e_j)e_j, e_k = u_k/‖u_k‖: each row loses its projections on the rows done",
		"modified Gram–Schmidt, twice: orthonormal to rounding; an ORF block then scales each row by a χ(d) draw",
	}
	if k == m {
		text = append([]string{"done: GGᵀ = I; the rows span what G's rows spanned"}, text...)
	}
	return sims.Frame{
		Sim: GramSchmidt.Name, Step: k,
		Metrics: []sims.Metric{
			{Name: "rows_done", Value: float64(k)},
			{Name: "orth_err", Value: s.gs.OrthError(), Scale: 1},
			{Name: "span_res", Value: s.gs.SpanResidual(), Scale: 1},
			{Name: "‖GGᵀ−I‖", Value: s.offDiag[len(s.offDiag)-1], Scale: s.offDiag[0]},
		},
		Charts: []sims.Chart{heat, line},
		Text:   text,
	}
}

func (s *gsSim) Result() map[string]any {
	return map[string]any{
		"rows_done": s.gs.Done(), "orth_err": s.gs.OrthError(), "span_residual": s.gs.SpanResidual(),
		"distance_to_identity": append([]float64(nil), s.offDiag...),
	}
}

// sorfFloor is ‖Λ − K‖_F/‖K‖_F with Λ_ij the sphere kernel at
// √(2γp)‖x_i − x_j‖: the error SORF's fixed norms leave at any m (for the
// Gaussian kernel, d a power of two).
func (s *rffSim) sorfFloor() float64 {
	sum := 0.0
	for _, k := range s.exact {
		// k = exp(−γr²): √(2γp)·r = √(−2p·ln k)
		r := math.Sqrt(math.Max(0, -2*float64(rff.SORFBlock(s.d))*math.Log(k)))
		e := rff.SphereKernel(rff.SORFBlock(s.d), r) - k
		sum += e * e
	}
	return math.Sqrt(sum) / s.kNorm
}
