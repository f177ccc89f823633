package kernelsim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/thelab/lab/algo/dataset"
	"github.com/thelab/lab/algo/kernel"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// Gram shows a kernel matrix as a heatmap with its spectrum while points are
// added one per step, and checks positive semidefiniteness, for kernels,
// kernels built from kernels, and functions that are not kernels.
var Gram = &sims.Spec{
	Name:   "gram",
	Title:  "Gram matrix: heatmap, eigenvalues, PSD check; kernels built from kernels stay valid",
	Source: "seed 003 L140–200, L260–270, L408–416 (p.d. kernels, closure); seed 000 §4.2–4.5; seed 001 [A12]",
	Data:   "a CSV of numeric feature columns (a \"label\" column, if any, orders the rows); features are standardised",
	Steps:  60,
	Speed:  2,
	Params: param.List(gramKind, gramDegree, gramCoef0, gramGamma, gramN),
	New:    newGram,
	Size:   gramSize,

	Metrics: gramMetrics,
}

// gramSize is the pool of points, the check (kernel.PSDFootprint), the
// Frame's heat map of the matrix once every point is in, and the trace of
// λ_min/λ_max with its two curves, a row a point.
func gramSize(cfg sims.Config) int64 {
	n, d := classShape(cfg, gramN)
	return gramBase + int64(n)*(pointBytes(d)+8) + kernel.PSDFootprint(n) + 8*int64(n)*int64(n) + sims.TraceBytesAfter(1, 2, n)
}

// gramBase is what gram holds whatever its size: the sim, the Frame's
// charts and texts.
const gramBase = 32 << 10

// gramKernel is a kernel of the gram sim: one of kernel.New's, or a
// function built here (a kernel made of kernels, or not a kernel at all).
type gramKernel = param.Option[kernel.Kind]

var (
	gramRBF      = gramKernel{Engine: kernel.KindRBF}
	gramScaled   = gramKernel{Own: "scaled"}
	gramExp      = gramKernel{Own: "exp"}
	gramPolyOf   = gramKernel{Own: "polyof"}
	gramDistance = gramKernel{Own: "distance"}
	gramNegative = gramKernel{Own: "negative"}
	gramSigmoid  = gramKernel{Own: "sigmoid"}
	gramKernels  = []gramKernel{{Engine: kernel.KindLinear}, {Engine: kernel.KindPoly}, gramRBF,
		{Engine: kernel.KindSum}, {Engine: kernel.KindProduct}, gramScaled, gramExp, gramPolyOf, gramDistance, gramNegative, gramSigmoid}
)

// gram's parameters.
var (
	gramKind = param.Choice("kernel", gramKernels, gramRBF,
		"linear, poly, rbf; sum rbf+poly; product rbf·poly; scaled 2·rbf; exp exp(γ⟨x,z⟩); polyof 1+k+k² of rbf; "+
			"NOT kernels: distance ‖x−z‖, negative −rbf, sigmoid tanh(γ⟨x,z⟩−1)")
	gramDegree = param.Int("degree", 2, "degree p of the poly kernel (poly, sum, product)").Range(1, kernel.MaxDegree)
	gramCoef0  = param.Float("coef0", 1, "offset c ≥ 0 of the poly kernel (poly, sum, product)").Range(0, 100)
	gramGamma  = param.Float("gamma", 0.5, GammaHelp).Range(0, 1000).OpenMin()
	gramN      = param.Int("n", 60,
		"points in the end (three blobs, sorted by blob so the matrix shows blocks)").Range(2, 120).BuiltInData()
)

// buildGramKernel builds the kernel the values name.
func buildGramKernel(v param.Values) (kernel.Kernel, error) {
	g := gramGamma.Get(v)
	rbf := kernel.RBF{Gamma: g}
	switch k := gramKind.Get(v); k {
	case gramScaled:
		return kernel.Scaled{C: 2, K: rbf}, nil
	case gramExp:
		return kernel.Exp{K: kernel.Scaled{C: g, K: kernel.Linear{}}}, nil
	case gramPolyOf:
		return kernel.PolyOf{Coeffs: []float64{1, 1, 1}, K: rbf}, nil
	case gramDistance:
		return kernel.Distance{}, nil
	case gramNegative:
		return kernel.Scaled{C: -1, K: rbf}, nil
	case gramSigmoid:
		return kernel.Sigmoid{A: g, C: -1}, nil
	default:
		return kernel.New(kernel.Spec{Name: k.Engine, Degree: gramDegree.Get(v), Coef0: gramCoef0.Get(v), Gamma: g})
	}
}

type gramSim struct {
	c     *kernel.PSDCheck
	cls   []float64   // class of each pool point: the heatmap groups rows by it
	ratio *sims.Trace // λ_min/λ_max as points are added
	steps int
}

func newGram(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	k, err := buildGramKernel(v)
	if err != nil {
		return nil, err
	}
	var pts [][]float64
	var cls []float64
	if t := cfg.Data; t != nil {
		var l *dataset.Labelled
		if t.Column("label") >= 0 {
			if l, err = t.Labelled(true); err != nil {
				return nil, err
			}
		} else {
			l = &dataset.Labelled{}
			for _, r := range t.Rows {
				l.X = append(l.X, append([]float64(nil), r...))
				l.Y = append(l.Y, 0)
			}
		}
		if l.N() > 400 {
			return nil, fmt.Errorf("--data %s: %d rows; the Gram sim shows at most 400", t.Name, l.N())
		}
		pts, cls = dataset.Standardize(l.X), l.Y
	} else {
		l, err := dataset.Blobs(rand.New(rand.NewPCG(cfg.Seed, 0x6772616d)), gramN.Get(v), 3, 1) // "gram"
		if err != nil {
			return nil, err
		}
		for i := range l.X { // blobs on a circle of radius 3: scale to unit size
			l.X[i][0], l.X[i][1] = l.X[i][0]/3, l.X[i][1]/3
		}
		pts, cls = l.X, l.Y // the blobs alternate, so every blob grows from the start
	}
	c, err := kernel.NewPSDCheck(k, pts, min(2, len(pts)))
	if err != nil {
		return nil, err
	}
	s := &gramSim{c: c, cls: cls, ratio: sims.NewTrace(c.N(), 1)}
	s.record()
	return s, nil
}

// order returns the indices of the first n points grouped by class (stable),
// so that the heatmap shows one block per class.
func (s *gramSim) order(n int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return s.cls[idx[a]] < s.cls[idx[b]] })
	return idx
}

func (s *gramSim) record() {
	lo, hi := s.c.MinMax()
	s.ratio.Add(lo / math.Max(math.Abs(hi), 1e-300))
}

func (s *gramSim) Step() error {
	if err := s.c.Step(); err != nil {
		return err
	}
	s.steps++
	s.record()
	return nil
}

func (s *gramSim) Frame() sims.Frame {
	n := s.c.N()
	idx := s.order(n)
	z := make([]float64, n*n)
	zlo, zhi := 0.0, math.Inf(-1)
	for j := 0; j < n; j++ { // grid row j (from the bottom) is row n−1−j of the ordered matrix
		for i := 0; i < n; i++ {
			v := s.c.At(idx[n-1-j], idx[i])
			z[j*n+i] = v
			zlo, zhi = math.Min(zlo, v), math.Max(zhi, v)
		}
	}
	lo, hi := s.c.MinMax()
	ev := s.c.Eigenvalues()
	var bars []sims.Bar
	show := min(len(ev), 6)
	for r := 0; r < show; r++ {
		bars = append(bars, eigBar(fmt.Sprintf("λ%d", r+1), ev[len(ev)-1-r], hi, n))
	}
	if len(ev) > show {
		bars = append(bars, eigBar("λmin", ev[0], hi, n))
	}
	x0, x1 := s.ratio.Span()
	psd := 0.0
	if s.c.PSD() {
		psd = 1
	}
	return sims.Frame{
		Sim:  Gram.Name,
		Step: s.steps,
		Metrics: []sims.Metric{
			{Name: "n", Value: float64(n)},
			{Name: "lambda_min", Value: lo, Scale: eigScale(n, hi)},
			{Name: "lambda_max", Value: hi},
			{Name: "psd", Value: psd},
			{Name: "cs_excess", Value: sims.FiniteOr(s.c.CauchySchwarz(), 0)},
		},
		Charts: []sims.Chart{
			sims.CanvasChart{
				Title:  fmt.Sprintf("K_ij, %d×%d, by blob", n, n),
				View:   sims.Rect{XMin: 0, XMax: float64(n), YMin: 0, YMax: float64(n)},
				Heat:   &sims.Grid{NX: n, NY: n, Z: z, Scale: sims.Sequential, Lo: zlo, Hi: zhi},
				XLabel: "j", YLabel: "i",
				// K_ij from 1, points in blob order: column j over [j−1, j].
				XIndex: &sims.Index{First: 1, Last: n, At: -0.5, Step: 1},
				YIndex: &sims.Index{First: 1, Last: n, At: float64(n) + 0.5, Step: -1},
			},
			sims.LineChart{Title: "λ_min/λ_max as points arrive", X0: x0, X1: x1, XLabel: "points n",
				Series: []sims.Series{
					{Name: "λ_min/λ_max", Y: s.ratio.Column(0), Class: 0},
					{Name: "0", Y: s.ratio.Map(func(int) float64 { return 0 }), Class: 9, Bound: true},
				}},
			sims.BarChart{Title: "eigenvalues |λ| (< 0: not a kernel)", Bars: bars},
		},
		Text: s.notes(lo, hi),
	}
}

// eigScale is the scale of rounding of the eigenvalues of an n×n Gram
// matrix whose largest is hi: each is computed to about n·ε·|λ_max|.
func eigScale(n int, hi float64) float64 { return float64(n) * math.Abs(hi) }

// eigBar draws |λ| (a bar cannot point left), in its own class and marked
// "< 0" when λ < 0 beyond the PSD tolerance, and 0 when it is rounding
// (λmin 5.9e-15 was drawn of a −5.9e-15).
func eigBar(label string, l, hi float64, n int) sims.Bar {
	class := 2
	if l < -kernel.PSDTol*math.Abs(hi) {
		class = 7
		label += " < 0"
	}
	if sims.AtRounding(l, eigScale(n, hi)) {
		l = 0
	}
	return sims.Bar{Label: label, Value: math.Abs(l), Class: class}
}

func (s *gramSim) notes(lo, hi float64) []string {
	k := s.c.Kernel()
	lines := []string{fmt.Sprintf("k = %s; one step adds a point and recomputes the spectrum", k)}
	if s.c.PSD() {
		lines = append(lines, fmt.Sprintf("✓ positive semidefinite: λ_min %s ≥ −%g·λ_max (every Gram matrix of a kernel is)",
			sims.IsResidual("%.3g", lo, eigScale(s.c.N(), hi)), kernel.PSDTol))
	} else {
		lines = append(lines, fmt.Sprintf("✗ NOT positive semidefinite: λ_min = %.3g < 0, so k is not a kernel (no feature map gives it)", lo))
	}
	lines = append(lines, "sums, products, c·k (c ≥ 0), exp(k) and positive polynomials of kernels are kernels; c < 0 is not (seed 003 omits c ≥ 0)")
	if cs := s.c.CauchySchwarz(); cs > 1e-12 {
		lines = append(lines, fmt.Sprintf("✗ Cauchy–Schwarz K_ij² ≤ K_ii K_jj fails by %.3g", cs))
	}
	return lines
}

func (s *gramSim) Result() map[string]any {
	lo, hi := s.c.MinMax()
	n := s.c.N()
	k := make([][]float64, n)
	for i := range k {
		k[i] = make([]float64, n)
		for j := range k[i] {
			k[i][j] = s.c.At(i, j)
		}
	}
	return map[string]any{
		"n":           n,
		"eigenvalues": append([]float64(nil), s.c.Eigenvalues()...),
		"lambda_min":  lo,
		"lambda_max":  hi,
		"psd":         s.c.PSD(),
		"gram":        k,
	}
}
