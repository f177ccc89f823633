// Package rffsim turns the engines of algo/rff into sims: random Fourier
// features approximating a kernel matrix as features accumulate (iid
// against orthogonal; trigonometric against positive features for the
// softmax kernel), and the Monte Carlo estimate of Bochner's theorem.
package rffsim

import (
	"fmt"
	"math"
	"math/rand/v2"

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
	nx := 3*n + 2*max(2, n/6)
	return rffBase + int64(n)*int64(24+8*d+8) + 8*int64(n)*int64(n) +
		2*(rff.ApproxFootprint(n, d)+rff.SamplerFootprint(d)) + 8*int64(nx)*int64(n)
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
	est     [2]*estimator
	ms      []int // recorded m, about geometric with ratio 2^¼
	nextRec int
	lo, hi  float64 // colour range of the heatmaps
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
		if s.est[0], err = mk("iid", rff.IID, rff.Gauss, gamma, 0, 1); err != nil {
			return nil, err
		}
		if s.est[1], err = mk("orthogonal", rff.ORF, rff.Gauss, gamma, 1, 2); err != nil {
			return nil, err
		}
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
	a, b := s.est[0], s.est[1]
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
	metrics := []sims.Metric{
		{Name: "m", Value: float64(m)},
		{Name: "err_" + a.name, Value: a.a.RelError()},
		{Name: "err_" + b.name, Value: b.a.RelError()},
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
			s.heat(fmt.Sprintf("%s (%d×%d) | %s | %s estimates, m = %d", kname, s.n, s.n, a.name, b.name, m),
				s.exact, a.a.KHat(), b.a.KHat()),
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
