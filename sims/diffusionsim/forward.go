// Package diffusionsim holds the sims of diffusion models (seed 000 ch. 3,
// seed 001 §15): forward-noise (the forward SDE dissolving data, Tweedie's
// formula), diffusion (the samplers on a 2-D Gaussian mixture with its
// exact ε) and score-match (a network ε_θ(x, σ) trained by denoising score
// matching, then plugged into the same sampler).
package diffusionsim

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo/diffusion"
	"github.com/thelab/lab/algo/tensor"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
	"gonum.org/v1/gonum/stat"
)

// Forward is the forward noising SDE dx = −½βx dt + √β dw (VP /
// Ornstein–Uhlenbeck, seed 001 [A29]) by Euler–Maruyama on 1-D mixture
// data: the particles' density over time as a heatmap with a few single
// paths, the histogram at time t against the exact p_t, the moments
// against m_t = a_t m₀, v_t = a_t² v₀ + 1 − e^{−βt}, and Tweedie's
// E[X₀ | X_t = x] = (x + b_t² ∇log p_t(x))/a_t (seed 000 §3.1, eq 3.1 with
// X_t/a_t = X₀ + (b_t/a_t)ε) as arrows from x_t to the denoised point.
var Forward = &sims.Spec{
	Name:   "forward-noise",
	Title:  "Forward noising SDE: data dissolving into N(0,1), moments in closed form, Tweedie's arrows",
	Source: "seed 001 §15 [A29] (L1445–L1484: eq 15.b, Euler–Maruyama with √h); seed 000 §3.1 (L1151–1167: Tweedie, eqs 3.1–3.2)",
	Steps:  200,
	Speed:  10,
	Params: param.List(fwData, fwBeta, fwT, fwH, fwN),
	New:    newForward,
	Size:   forwardSize,

	Metrics: forwardMetrics,
}

// forwardSize is the particles, the density map over time (the sim's and
// the Frame's copy), the single paths (a point a step until fwPathPoints,
// and the Frame's copies) and the Frame's curves.
func forwardSize(cfg sims.Config) int64 {
	v := cfg.Values
	steps := int(math.Ceil(fwT.Get(v)/fwH.Get(v) - 1e-9))
	path := min(fwPathPoints, steps+1)
	paths := 2 * fwPaths * (tensor.Appended(path) + tensor.Alloc(path))
	return 32<<10 + tensor.Alloc(fwN.Get(v)) + 2*tensor.Alloc(fwCols*fwBins) + paths + 8*tensor.Alloc(fwCurve)
}

// data1 names a 1-D data mixture of forward-noise.
type data1 string

func (d data1) String() string { return string(d) }

const (
	d1Two   data1 = "two"
	d1Three data1 = "three"
)

// data1Mixture is a preset's mixture: the catalogue's Tweedie example
// (§3.1: π = (0.3, 0.7), μ = (−2, 1.5), s = (0.5, 0.8)) or three narrow
// modes. A switch rather than a map built when every run starts (issue
// 14.7).
func data1Mixture(d data1) []diffusion.Component {
	switch d {
	case d1Two:
		return []diffusion.Component{{Weight: 0.3, Mean: [2]float64{-2}, Cov: [3]float64{0.25}},
			{Weight: 0.7, Mean: [2]float64{1.5}, Cov: [3]float64{0.64}}}
	case d1Three:
		return []diffusion.Component{{Weight: 1, Mean: [2]float64{-3}, Cov: [3]float64{0.04}},
			{Weight: 1, Mean: [2]float64{0}, Cov: [3]float64{0.04}}, {Weight: 1, Mean: [2]float64{3}, Cov: [3]float64{0.04}, Class: 1}}
	}
	panic("diffusionsim: no mixture for data " + string(d))
}

var (
	fwData = param.Choice("data", []data1{d1Two, d1Three}, d1Two,
		"two: 0.3·N(−2, 0.5²) + 0.7·N(1.5, 0.8²) (the notes' Tweedie example); three: N(−3|0|3, 0.2²)")
	fwBeta = param.Float("beta", 1, "rate β of dx = −½βx dt + √β dw").Range(0.1, diffusion.MaxBeta)
	fwT    = param.Float("T", 4, "the horizon: the run stops at t = T").Range(0.1, 50)
	fwH    = param.Float("h", 0.02, "Euler–Maruyama step h (noise √(βh)·ξ); βh ≤ 1").Range(1e-4, 1)
	fwN    = param.Int("n", 5000, "particles").Range(100, 100000)
)

// fwCols and fwBins are the heatmap's time columns and x bins; fwArrows
// the Tweedie arrows and fwPaths the single paths drawn.
const (
	fwCols   = 120
	fwBins   = 40
	fwArrows = 23
	fwPaths  = 5
	// fwPathPoints is the most points a path keeps, fwCurve the points of
	// the curves.
	fwPathPoints = 4 * fwCols
	fwCurve      = 121
)

type fwSim struct {
	mix      *diffusion.Mixture
	f        *diffusion.Forward
	beta, T  float64
	steps, k int
	m0, v0   float64 // the particles' moments at t = 0
	lo, hi   float64
	heat     []float64 // fwCols × fwBins, column-major by time
	filled   int       // columns written
	paths    [fwPaths]sims.Path
	y, e     []float64 // scratch of Tweedie's arrows
}

func newForward(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	mix, err := diffusion.NewMixture(1, data1Mixture(fwData.Get(v)))
	if err != nil {
		return nil, err
	}
	beta, T, h := fwBeta.Get(v), fwT.Get(v), fwH.Get(v)
	if beta*h > 1 {
		return nil, fmt.Errorf("parameter h = %g: must be at most 1/β = %g (the Euler–Maruyama drift 1 − βh/2 must stay positive)", h, 1/beta)
	}
	steps := int(math.Ceil(T/h - 1e-9))
	if steps > 1_000_000 {
		return nil, fmt.Errorf("parameter h = %g: T/h = %d steps, more than 1 000 000", h, steps)
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x666f_7277)) // "forw"
	x0 := make([]float64, fwN.Get(v))
	mix.Sample(rng, x0, nil)
	f, err := diffusion.NewForward(x0, beta, h, rng)
	if err != nil {
		return nil, err
	}
	s := &fwSim{mix: mix, f: f, beta: beta, T: T, steps: steps, heat: make([]float64, fwCols*fwBins),
		y: make([]float64, fwArrows), e: make([]float64, fwArrows)}
	s.m0, s.v0 = stat.PopMeanVariance(x0, nil)
	s.lo, s.hi = -3.5, 3.5
	for _, c := range mix.Components() {
		sd := math.Sqrt(c.Cov[0])
		s.lo, s.hi = math.Min(s.lo, c.Mean[0]-3.5*sd), math.Max(s.hi, c.Mean[0]+3.5*sd)
	}
	for i := range s.paths {
		s.paths[i] = sims.Path{X: []float64{0}, Y: []float64{x0[i]}, Class: 2 + i%3}
	}
	s.column()
	return s, nil
}

// column writes the histogram of the particles into the heatmap's columns
// up to the one of the current time.
func (s *fwSim) column() {
	upto := min(fwCols, int(s.f.T()/s.T*fwCols)+1)
	if upto <= s.filled {
		return
	}
	var h [fwBins]float64
	w := (s.hi - s.lo) / fwBins
	for _, x := range s.f.X {
		if b := int((x - s.lo) / w); x >= s.lo && b < fwBins {
			h[b]++
		}
	}
	for c := s.filled; c < upto; c++ {
		for b := range fwBins {
			s.heat[b*fwCols+c] = h[b] / (float64(len(s.f.X)) * w)
		}
	}
	s.filled = upto
}

func (s *fwSim) Step() error {
	if s.k >= s.steps {
		return sims.ErrConverged
	}
	s.f.Step()
	s.k++
	s.column()
	if len(s.paths[0].X) < fwPathPoints { // a path keeps at most 480 points: thinned by then
		for i := range s.paths {
			s.paths[i].X = append(s.paths[i].X, s.f.T())
			s.paths[i].Y = append(s.paths[i].Y, s.f.X[i])
		}
	}
	if s.k >= s.steps {
		return sims.ErrConverged
	}
	return nil
}

// density is the exact p_t(x) = p_σ(x/a)/a, σ = b/a.
func (s *fwSim) density(x float64) float64 {
	a, b := diffusion.OU(s.beta, s.f.T())
	if b == 0 {
		b = 1e-9
	}
	return s.mix.Density([]float64{x / a}, b/a) / a
}

func (s *fwSim) Frame() sims.Frame {
	t := s.f.T()
	a, b := diffusion.OU(s.beta, t)
	heat := &sims.Grid{NX: fwCols, NY: fwBins, Z: append([]float64(nil), s.heat...), Scale: sims.Sequential}
	paths := make([]sims.Path, 0, fwPaths+1)
	for _, p := range s.paths {
		paths = append(paths, sims.Path{X: append([]float64(nil), p.X...), Y: append([]float64(nil), p.Y...), Class: p.Class})
	}
	// the exact mean m_t, dotted, across the whole horizon
	mean := sims.Path{Class: 1, Dotted: true}
	for i := 0; i <= 60; i++ {
		ti := s.T * float64(i) / 60
		m, _ := diffusion.Moments(s.beta, ti, s.m0, s.v0)
		mean.X, mean.Y = append(mean.X, ti), append(mean.Y, m)
	}
	paths = append(paths, mean)
	over := sims.CanvasChart{Title: fmt.Sprintf("density of x_t over time t ∈ [0, %g]", s.T),
		View: sims.Rect{XMin: 0, XMax: s.T, YMin: s.lo, YMax: s.hi}, Heat: heat, Paths: paths,
		Markers: []sims.Marker{{X: t, Y: s.hi, Glyph: '▼', Class: 0}},
		Legend:  []string{"", "exact mean m_t", "single paths"}, XLabel: "t", YLabel: "x"}

	const bins, pts = 40, fwCurve
	w := (s.hi - s.lo) / bins
	dens := make([]float64, bins)
	for _, x := range s.f.X {
		if k := int((x - s.lo) / w); x >= s.lo && k < bins {
			dens[k] += 1 / (float64(len(s.f.X)) * w)
		}
	}
	exact := sims.Curve{Name: "exact p_t", X: make([]float64, pts), Y: make([]float64, pts), Class: 1}
	normal := sims.Curve{Name: "N(0,1)", X: make([]float64, pts), Y: make([]float64, pts), Class: 3}
	for i := range pts {
		x := s.lo + (s.hi-s.lo)*float64(i)/(pts-1)
		exact.X[i], exact.Y[i] = x, s.density(x)
		normal.X[i], normal.Y[i] = x, math.Exp(-0.5*x*x)/math.Sqrt(2*math.Pi)
	}
	hist := sims.HistChart{Title: fmt.Sprintf("x_t at t = %.2f against the exact p_t", t), Lo: s.lo, Hi: s.hi,
		Density: dens, Curves: []sims.Curve{exact, normal}, XLabel: "x", Label: "particles"}

	// Tweedie: x_t ↦ E[X₀ | X_t = x_t] = E[X | Y = x_t/a] with σ = b/a.
	sigma := math.Max(b/a, 1e-6)
	for i := range s.y {
		s.y[i] = (s.lo + (s.hi-s.lo)*(float64(i)+0.5)/fwArrows) / a
	}
	s.mix.PosteriorMean(s.e, s.y, sigma)
	arrows := make([]sims.Path, fwArrows)
	for i := range arrows {
		// class 0: a solid line (a dashed one, near vertical, broke into
		// crumbs in monochrome)
		arrows[i] = sims.Path{X: []float64{s.y[i] * a, s.e[i]}, Y: []float64{1, 0}, Class: 0}
	}
	var marks []sims.Marker
	for _, c := range s.mix.Components() {
		marks = append(marks, sims.Marker{X: c.Mean[0], Y: 0, Glyph: '▲', Class: 1})
	}
	tw := sims.CanvasChart{Title: fmt.Sprintf("Tweedie: x_t (top) ↦ E[X₀|x_t] (bottom), σ = b/a = %.3g", sigma),
		View: sims.Rect{XMin: s.lo, XMax: s.hi, YMin: -0.1, YMax: 1.1}, Paths: arrows, Markers: marks,
		Legend: []string{"x_t → E[X₀|x_t]", "data modes"}, XLabel: "x"}

	m, vr := stat.PopMeanVariance(s.f.X, nil)
	em, ev := diffusion.Moments(s.beta, t, s.m0, s.v0)
	se := math.Sqrt(ev / float64(len(s.f.X)))
	metrics := []sims.Metric{
		{Name: "t", Value: t},
		{Name: "mean", Value: m}, {Name: "m_t", Value: em},
		{Name: "var", Value: vr}, {Name: "v_t", Value: ev},
		{Name: "sigma", Value: sigma},
	}
	text := []string{
		fmt.Sprintf("x ← x − ½βx·h + √(βh)·ξ: X_t = aX₀ + bε, a = e^{−βt/2} = %.4f, b² = %.4f", a, b*b),
		fmt.Sprintf("mean %.4f vs m_t %.4f (SE %.4f); var %.4f vs v_t = a²v₀ + b² %.4f", m, em, se, vr, ev),
		"Tweedie E[X₀|x_t] = (x_t + b²∇log p_t)/a: small σ → nearest mode, large → mean",
	}
	return sims.Frame{Sim: Forward.Name, Step: s.k, Metrics: metrics, Charts: []sims.Chart{over, hist, tw}, Text: text}
}

func (s *fwSim) Result() map[string]any {
	m, vr := stat.PopMeanVariance(s.f.X, nil)
	em, ev := diffusion.Moments(s.beta, s.f.T(), s.m0, s.v0)
	return map[string]any{"t": s.f.T(), "mean": m, "var": vr, "m_t": em, "v_t": ev}
}
