package kernelsim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/thelab/lab/algo/dataset"
	"github.com/thelab/lab/algo/kernel"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
	"gonum.org/v1/gonum/mat"
)

// KPCA is kernel PCA on concentric circles (or CSV data): the centred Gram
// matrix's leading eigenvectors found by subspace iteration, one iteration
// per step, the points projected on the first two components and coloured
// by class, and the spectrum; with the linear kernel it is PCA.
var KPCA = &sims.Spec{
	Name:   "kernel-pca",
	Title:  "Kernel PCA: circles unrolled by a Gaussian kernel; = PCA with the linear kernel",
	Source: "seed 000 §4.8.3 (Algorithms 1–3, eqs 4.51–4.62, L1750–1826)",
	Data: "a CSV of numeric feature columns and optionally a class column named \"label\" (used for colour only); " +
		"features are standardised",
	Steps:  2000,
	Speed:  1,
	Params: param.List(kpcaPreset, kpcaN, kpcaTol, kpcaKernel),
	New:    newKPCA,
	Size:   kpcaSize,

	Metrics: kpcaMetrics,
}

// kpcaSize is the points, the engine (kernel.KPCAFootprint) for the two
// components drawn, the Frame's projections on them, and the trace of the
// residual with its curve.
func kpcaSize(cfg sims.Config) int64 {
	n, d := classShape(cfg, kpcaN)
	return kpcaBase + int64(n)*(pointBytes(d)+2*8) + kernel.KPCAFootprint(n, 2) + sims.TraceBytesAfter(1, 1, sims.TraceCap)
}

// kpcaBase is what kernel-pca holds whatever its size: the sim, the
// Frame's charts and texts.
const kpcaBase = 32 << 10

type kpcaSim struct {
	data   *dataset.Labelled
	k      kernel.Kernel
	p      *kernel.KPCA
	cls    []int
	px, py []float64
	view   sims.Rect
	res    *sims.Trace
	pca    []float64 // linear kernel: the covariance eigenvalues, for the note
	legend []string
}

// kpca's parameters.
var (
	kpcaPreset = param.Choice("data", []preset{presetCircles, presetRings, presetMoons, presetBlobs}, presetCircles,
		"preset: two concentric circles (radii 0.3, 1); three rings (radii 1, 2, 3); two moons; three blobs").BuiltInData()
	kpcaN   = param.Int("n", 200, "number of generated points").Range(10, 1500).BuiltInData()
	kpcaTol = param.Float("tol", 1e-10,
		"stop when ‖K_c u − λu‖ ≤ tol·λ₁ for the two leading Ritz pairs").Range(1e-14, 0.1)
	kpcaKernel = NewKernelParams(kernel.KindRBF, 2, 1, 3)
)

func newKPCA(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	data, err := kpcaData(cfg, kpcaPreset.Get(v), kpcaN.Get(v))
	if err != nil {
		return nil, err
	}
	k, err := kpcaKernel.Build(v)
	if err != nil {
		return nil, err
	}
	n := data.N()
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x6b706361)) // "kpca"
	p, err := kernel.NewKPCA(kernel.Gram(k, data.X), n, 2, kpcaTol.Get(v), rng)
	if err != nil {
		return nil, err
	}
	s := &kpcaSim{data: data, k: k, p: p, res: sims.NewTrace(0, 1)}
	if data.Classes > 0 {
		s.cls = data.Int()
		for c := 0; c < data.Classes; c++ {
			s.legend = append(s.legend, fmt.Sprintf("class %d", c))
		}
	}
	if data.D() >= 2 {
		s.px, s.py = make([]float64, n), make([]float64, n)
		for i, r := range data.X {
			s.px[i], s.py[i] = r[0], r[1]
		}
		s.view = sims.Bounds(s.px, s.py).Pad(0.05)
	}
	if _, ok := k.(kernel.Linear); ok {
		s.pca = covEigen(data.X)
	}
	s.res.Add(math.Max(p.Residual(), 1e-16))
	return s, nil
}

func kpcaData(cfg sims.Config, p preset, n int) (*dataset.Labelled, error) {
	if t := cfg.Data; t != nil {
		var l *dataset.Labelled
		var err error
		if t.Column("label") >= 0 {
			l, err = t.Labelled(true)
		} else {
			// Every column is a feature.
			l = &dataset.Labelled{Name: t.Name, Features: t.Columns}
			for _, r := range t.Rows {
				l.X = append(l.X, append([]float64(nil), r...))
			}
		}
		if err != nil {
			return nil, err
		}
		l.X = dataset.Standardize(l.X)
		return l, nil
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x6b706361))
	switch p {
	case presetCircles:
		return dataset.Circles(rng, n, 0.3, 0.03)
	case presetRings:
		return dataset.Rings(rng, n, 3, 0.05)
	case presetMoons:
		return dataset.Moons(rng, n, 0.08)
	case presetBlobs:
		return dataset.Blobs(rng, n, 3, 0.6)
	}
	return nil, fmt.Errorf("unknown data preset %q", p)
}

// covEigen returns the eigenvalues of the data's covariance (1/N)X̃ᵀX̃,
// descending: what PCA finds and kernel PCA with the linear kernel must
// reproduce as λ̃/N.
func covEigen(x [][]float64) []float64 {
	n, d := len(x), len(x[0])
	mean := make([]float64, d)
	for _, r := range x {
		for j, v := range r {
			mean[j] += v / float64(n)
		}
	}
	c := mat.NewSymDense(d, nil)
	for _, r := range x {
		for a := 0; a < d; a++ {
			for b := a; b < d; b++ {
				c.SetSym(a, b, c.At(a, b)+(r[a]-mean[a])*(r[b]-mean[b])/float64(n))
			}
		}
	}
	var e mat.EigenSym
	if !e.Factorize(c, false) {
		return nil
	}
	v := e.Values(nil)
	for i, j := 0, len(v)-1; i < j; i, j = i+1, j-1 {
		v[i], v[j] = v[j], v[i]
	}
	return v
}

func (s *kpcaSim) Step() error {
	if err := s.p.Step(); err != nil {
		return err
	}
	s.res.Add(math.Max(s.p.Residual(), 1e-16))
	return nil
}

func (s *kpcaSim) Frame() sims.Frame {
	n := float64(s.data.N())
	ritz := s.p.Ritz()
	exact := s.p.Exact()
	y1, y2 := s.p.Project(0), s.p.Project(1)
	proj := sims.CanvasChart{
		Title:  "projection on components 1, 2",
		View:   sims.Bounds(y1, y2).Pad(0.08),
		Points: []sims.PointSet{{Name: "projected", X: y1, Y: y2, Classes: s.cls, Class: 0}},
		Legend: s.legend,
		XLabel: "y₁", YLabel: "y₂",
	}
	var charts []sims.Chart
	if s.px != nil {
		charts = append(charts, sims.CanvasChart{
			Title:  "input space",
			View:   s.view,
			Points: []sims.PointSet{{Name: "data", X: s.px, Y: s.py, Classes: s.cls}},
			Legend: s.legend,
			XLabel: s.data.Features[0], YLabel: s.data.Features[1],
		})
	}
	x0, x1 := s.res.Span()
	bars := []sims.Bar{}
	total := 0.0
	for _, l := range exact {
		total += math.Max(l, 0)
	}
	for c := 0; c < min(8, len(exact)); c++ {
		bars = append(bars, sims.Bar{Label: fmt.Sprintf("λ%d/N", c+1), Value: math.Max(exact[c], 0) / n, Class: min(c, 2)})
	}
	charts = append(charts, proj,
		sims.LineChart{Title: "Ritz residual ‖K_c u−θu‖/λ₁", LogY: true, X0: x0, X1: x1, XLabel: "subspace iterations",
			Series: []sims.Series{{Name: "residual", Y: s.res.Column(0)}}},
		sims.BarChart{Title: "spectrum of K_c/N (component variances)", Bars: bars},
	)
	explained := 0.0
	if total > 0 {
		explained = (math.Max(exact[0], 0) + math.Max(exact[1], 0)) / total
	}
	return sims.Frame{
		Sim:  KPCA.Name,
		Step: s.p.Iter(),
		Metrics: []sims.Metric{
			{Name: "lambda1", Value: ritz[0] / n},
			{Name: "lambda2", Value: ritz[1] / n},
			{Name: "residual", Value: s.p.Residual()},
			{Name: "explained", Value: explained},
		},
		Charts: charts,
		Text:   s.notes(ritz),
	}
}

func (s *kpcaSim) notes(ritz []float64) []string {
	n := float64(s.data.N())
	lines := []string{
		fmt.Sprintf("%s on %d points: K_c = centred Gram matrix (4.60); y_k(x_j) = √λ_k u_kj (4.62); one step = one subspace iteration", s.k, s.data.N()),
		fmt.Sprintf("Ritz λ/N = %.6g, %.6g; exact %.6g, %.6g", ritz[0]/n, ritz[1]/n, s.p.Exact()[0]/n, s.p.Exact()[1]/n),
	}
	if s.pca != nil {
		parts := make([]string, 0, 2)
		for _, v := range s.pca[:min(2, len(s.pca))] {
			parts = append(parts, fmt.Sprintf("%.6g", v))
		}
		lines = append(lines, "linear kernel = PCA: covariance eigenvalues "+strings.Join(parts, ", ")+" (equal to λ/N)")
	} else {
		lines = append(lines, "the notes' claim that kPCA makes data linearly separable holds only for a suitable kernel width")
	}
	return lines
}

func (s *kpcaSim) Result() map[string]any {
	n := float64(s.data.N())
	vars := make([]float64, len(s.p.Exact()))
	for i, l := range s.p.Exact() {
		vars[i] = l / n
	}
	return map[string]any{
		"eigenvalues": vars,
		"ritz":        []float64{s.p.Ritz()[0] / n, s.p.Ritz()[1] / n},
		"projection":  [][]float64{s.p.Project(0), s.p.Project(1)},
		"residual":    s.p.Residual(),
		"iterations":  s.p.Iter(),
	}
}
