package mixturesim

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/ancestral"
	"github.com/thelab/lab/algo/mixture"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// Ancestral is ancestral sampling of generative models (seed 002 Remark 2.2
// and §3.1): one draw per step of a Gaussian mixture (z, then x | z), of the
// hierarchical GMM of Example 3.1 (the globals π and μ_k drawn once, then
// (z_n, x_n) per step), and of the state-space model of Example 3.3 (z_t,
// then x_t, forward in time). The mixtures show the points as they arrive,
// coloured by z, over the true ellipses, and the component frequencies
// converging to π; the state-space model shows the latent and observed
// series and the draws over the transition f and the observation h.
var Ancestral = &sims.Spec{
	Name:   "ancestral",
	Title:  "Ancestral sampling: a GMM, the hierarchical GMM, a state-space model",
	Source: "seed 002 Remark 2.2, Ex 3.1 (hierarchical GMM), Ex 3.3 (state-space model)",
	Steps:  400,
	Speed:  10,
	Params: param.List(ancModel, ancN, ancK, ancSep, ancAlpha, ancTau, ancSigma, ancQ, ancR, ancA),
	New:    newAncestral,
	Size:   ancestralSize,

	Metrics: ancestralMetrics,
}

// model is the generative model ancestral samples.
type model string

func (m model) String() string { return string(m) }

const (
	modelGMM          model = "gmm"
	modelHierarchical model = "hierarchical"
	modelSSM          model = "ssm"
	modelSSMLinear    model = "ssm-linear"
)

var ancestralModels = []model{modelGMM, modelHierarchical, modelSSM, modelSSMLinear}

// ancestral's parameters.
var (
	ancModel = param.Choice("model", ancestralModels, modelHierarchical,
		"gmm: a fixed random mixture; hierarchical: Ex 3.1 (π ~ Dir(α), μ_k ~ N(0, τ²I)); "+
			"ssm: Ex 3.3 with f(z) = z/2 + 25z/(1+z²), h(z) = z²/20; ssm-linear: f(z) = a·z, h(z) = z")
	ancN = param.Int("n", 400, "number of draws (Figs 3.1 and 3.5: N = 400)").Range(1, 20000)
	ancK = param.Int("k", 4, "number of mixture components (gmm, hierarchical)").Range(1, maxK).
		DefaultWhen(func(v param.Values) bool { return ancModel.Get(v) == modelGMM }, 3, "4 (Fig 3.1); 3 for gmm")
	ancSep = param.Float("sep", 4,
		"gmm: least distance between the means, in s.d. of the widest component").Range(0, mixture.MaxSep)
	ancAlpha = param.Float("alpha", 1,
		"hierarchical: Dirichlet concentration of π; small α gives a few dominant components").Range(0, 100).OpenMin()
	ancTau = param.Float("tau", 3,
		"hierarchical: standard deviation of the component means μ_k about 0").Range(0, 100).OpenMin()
	ancSigma = param.Float("sigma", 0.6,
		"hierarchical: within-component standard deviation (Σ = σ²I)").Range(0, 100).OpenMin()
	ancQ = param.Float("q", 3.16, "ssm: process noise s.d., ε_t ~ N(0, q²), also z_1 ~ N(0, q²)").Range(0, 100).OpenMin().
		DefaultWhen(func(v param.Values) bool { return ancModel.Get(v) == modelSSMLinear }, 1, "√10 (ssm); 1 (ssm-linear)")
	ancR = param.Float("r", 1, "ssm: observation noise s.d., η_t ~ N(0, r²)").Range(0, 100).OpenMin()
	ancA = param.Float("a", 0.9, "ssm-linear: transition coefficient, z_t = a·z_{t−1} + ε_t").Range(-0.999, 0.999)
)

// ancestralSize is what ancestral holds: room for its n draws from the
// start (a point and its component, or a state-space model's state and
// observation), which its Frames share, and a measured base (the
// components, the Frame's charts).
func ancestralSize(c sims.Config) int64 {
	per := int64(8 + 8 + 8)
	if m := ancModel.Get(c.Values); m == modelSSM || m == modelSSMLinear {
		per = 8 + 8
	}
	return per*int64(ancN.Get(c.Values)) + 48<<10
}

// newAncestral builds the mixture or the state-space sim.
func newAncestral(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x616e63)) // "anc"
	n := ancN.Get(v)
	switch model := ancModel.Get(v); model {
	case modelGMM, modelHierarchical:
		var g *ancestral.GMM
		var err error
		if model == modelGMM {
			var s *mixture.Sample
			if s, err = mixture.Blobs(rng, 1, ancK.Get(v), ancSep.Get(v)); err != nil {
				return nil, err
			}
			g, err = ancestral.NewGMM(s.Truth, rng)
		} else {
			g, err = ancestral.NewHierGMM(ancestral.HierConfig{K: ancK.Get(v), Alpha: ancAlpha.Get(v),
				Tau: ancTau.Get(v), Sigma: ancSigma.Get(v)}, rng)
		}
		if err != nil {
			return nil, err
		}
		return newMixDraws(g, n, model), nil
	default:
		c := ancestral.SSMConfig{Dynamics: ancestral.Nonlinear, Q: ancQ.Get(v), R: ancR.Get(v)}
		if model == modelSSMLinear {
			c.Dynamics, c.A = ancestral.Linear, ancA.Get(v)
		}
		s, err := ancestral.NewSSM(c, rng)
		if err != nil {
			return nil, err
		}
		return &ssmDraws{ssm: s, n: n, zs: make([]float64, 0, n), xs: make([]float64, 0, n)}, nil
	}
}

// mixDraws is ancestral sampling of a (possibly hierarchical) mixture.
type mixDraws struct {
	g      *ancestral.GMM
	model  model
	n      int
	comps  []mixture.Component
	x, y   []float64 // the draws; a Frame shares the prefix drawn so far
	z      []int
	counts []int
	view   sims.Rect
	paths  []sims.Path
}

func newMixDraws(g *ancestral.GMM, n int, model model) *mixDraws {
	m := &mixDraws{g: g, model: model, n: n, comps: g.Components(),
		x: make([]float64, 0, n), y: make([]float64, 0, n), z: make([]int, 0, n)}
	m.counts = make([]int, len(m.comps))
	// The view holds every component's 2.5σ ellipse.
	r := sims.Rect{XMin: math.Inf(1), XMax: math.Inf(-1), YMin: math.Inf(1), YMax: math.Inf(-1)}
	for j, c := range m.comps {
		for _, rad := range []float64{1, 2} {
			p := sims.Ellipse(c.Mean[0], c.Mean[1], c.Cov[0][0], c.Cov[0][1], c.Cov[1][1], rad, j)
			p.Dotted = rad == 2
			m.paths = append(m.paths, p)
		}
		b := sims.Ellipse(c.Mean[0], c.Mean[1], c.Cov[0][0], c.Cov[0][1], c.Cov[1][1], 2.5, j)
		r = union(r, sims.Bounds(b.X, b.Y))
	}
	m.view = r.Pad(0.03)
	return m
}

func (m *mixDraws) Step() error {
	if len(m.z) >= m.n {
		return algo.ErrConverged
	}
	if err := m.g.Step(); err != nil {
		return err
	}
	z, x := m.g.Last()
	m.x = append(m.x, x[0]) // capacity n: no reallocation, so Frames may share
	m.y = append(m.y, x[1])
	m.z = append(m.z, z)
	m.counts[z]++
	return nil
}

// tv is the total variation distance between the component frequencies and
// π, and its expectation under sampling, ½ Σ_k sqrt(2π_k(1 − π_k)/(π N)).
func (m *mixDraws) tv() (tv, expected float64) {
	n := float64(len(m.z))
	for k, c := range m.comps {
		tv += math.Abs(float64(m.counts[k])/n-c.Weight) / 2
		expected += math.Sqrt(2*c.Weight*(1-c.Weight)/(math.Pi*n)) / 2
	}
	return tv, expected
}

func (m *mixDraws) Frame() sims.Frame {
	n := len(m.z)
	markers := make([]sims.Marker, 0, len(m.comps)+1)
	legend := make([]string, len(m.comps))
	bars := make([]sims.Bar, len(m.comps))
	for k, c := range m.comps {
		markers = append(markers, sims.Marker{X: c.Mean[0], Y: c.Mean[1], Glyph: '✚', Class: k})
		legend[k] = fmt.Sprintf("%d: π=%.2f", k+1, c.Weight)
		if len(m.comps) > 5 {
			legend[k] = fmt.Sprintf("%d:%.2f", k+1, c.Weight)
		}
		f := 0.0
		if n > 0 {
			f = float64(m.counts[k]) / float64(n)
		}
		bars[k] = sims.Bar{Label: fmt.Sprintf("%d (π %.3f)", k+1, c.Weight), Value: f, Class: k}
	}
	metrics := []sims.Metric{{Name: "n", Value: float64(n)}}
	var text []string
	if n > 0 {
		z, x := m.g.Last()
		markers = append(markers, sims.Marker{X: x[0], Y: x[1], Glyph: '●', Class: z})
		tv, expected := m.tv()
		metrics = append(metrics, sims.Metric{Name: "z", Value: float64(z + 1)}, sims.Metric{Name: "tv", Value: tv})
		text = append(text, fmt.Sprintf("draw %d: z = %d ~ Cat(π), then x = (%.2f, %.2f) ~ N(μ_z, Σ_z) (●)", n, z+1, x[0], x[1]),
			fmt.Sprintf("frequencies vs π: total variation %.3f; sampling alone gives ≈ %.3f (shrinks like 1/√N)", tv, expected))
	} else {
		text = append(text, "no draw yet: each step draws z ~ Cat(π), then x ~ N(μ_z, Σ_z)")
	}
	if m.model == modelHierarchical {
		text = append(text, "Ex 3.1: globals π ~ Dir(α), μ_k ~ N(0, τ²I) were drawn once (R, a new seed, redraws them); z_n, x_n per step")
	} else {
		text = append(text, "Remark 2.2's prior p(z) = ∏ z_k is a typo: z ~ Cat(π), p(z) = ∏ π_k^{z_k} (eq 2.8)")
	}
	title := fmt.Sprintf("%d of %d draws, coloured by z", n, m.n)
	return sims.Frame{
		Sim:     Ancestral.Name,
		Step:    n,
		Metrics: metrics,
		Charts: []sims.Chart{
			sims.CanvasChart{
				Title:   title,
				View:    m.view,
				Points:  []sims.PointSet{{Name: "draws", X: m.x[:n:n], Y: m.y[:n:n], Classes: m.z[:n:n]}},
				Paths:   m.paths,
				Markers: markers,
				Legend:  legend,
			},
			sims.BarChart{Title: "frequency of z = k (label: π_k)", Bars: bars, Max: 1},
		},
		Text: text,
	}
}

func (m *mixDraws) Result() map[string]any {
	k := len(m.comps)
	weights := make([]float64, k)
	freq := make([]float64, k)
	means := make([][]float64, k)
	for j, c := range m.comps {
		weights[j] = c.Weight
		means[j] = []float64{c.Mean[0], c.Mean[1]}
		if len(m.z) > 0 {
			freq[j] = float64(m.counts[j]) / float64(len(m.z))
		}
	}
	r := map[string]any{"model": m.model, "draws": len(m.z), "weights": weights, "means": means, "frequencies": freq}
	if len(m.z) > 0 {
		r["total_variation"], _ = m.tv()
	}
	return r
}

// ssmDraws is ancestral sampling of a state-space model.
type ssmDraws struct {
	ssm    *ancestral.SSM
	n      int
	zs, xs []float64 // capacity n: Frames share prefixes
}

func (s *ssmDraws) Step() error {
	if len(s.zs) >= s.n {
		return algo.ErrConverged
	}
	if err := s.ssm.Step(); err != nil {
		return err
	}
	z, x := s.ssm.Last()
	s.zs = append(s.zs, z)
	s.xs = append(s.xs, x)
	return nil
}

// union is the smallest Rect holding a and b.
func union(a, b sims.Rect) sims.Rect {
	return sims.Rect{XMin: min(a.XMin, b.XMin), XMax: max(a.XMax, b.XMax), YMin: min(a.YMin, b.YMin), YMax: max(a.YMax, b.YMax)}
}

// curve samples f on [lo, hi].
func curve(f func(float64) float64, lo, hi float64, class int) sims.Path {
	const n = 200
	p := sims.Path{X: make([]float64, n), Y: make([]float64, n), Class: class}
	for i := range n {
		p.X[i] = lo + (hi-lo)*float64(i)/(n-1)
		p.Y[i] = f(p.X[i])
	}
	return p
}

func (s *ssmDraws) Frame() sims.Frame {
	t := len(s.zs)
	zs, xs := s.zs[:t:t], s.xs[:t:t]
	cfg := s.ssm.Config()
	// The z range: the draws, and at least ±3 stationary s.d. (linear) or
	// the two wells at ±7 and beyond (nonlinear).
	lo, hi := -3*cfg.Q, 3*cfg.Q
	if cfg.Dynamics == ancestral.Linear {
		sd := cfg.Q / math.Sqrt(1-cfg.A*cfg.A)
		lo, hi = -3*sd, 3*sd
	} else {
		lo, hi = min(lo, -12), max(hi, 12)
	}
	for _, z := range zs {
		lo, hi = min(lo, z), max(hi, z)
	}
	fCurve := curve(s.ssm.F, lo, hi, 1)
	hCurve := curve(s.ssm.H, lo, hi, 1)
	fView := union(sims.Bounds(fCurve.X, fCurve.Y), sims.Bounds(zs, zs)).Pad(0.03)
	hView := union(sims.Bounds(hCurve.X, hCurve.Y), sims.Bounds(zs, xs)).Pad(0.03)
	var prevZ, nextZ []float64
	if t > 1 {
		prevZ, nextZ = zs[:t-1], zs[1:]
	}
	metrics := []sims.Metric{{Name: "t", Value: float64(t)}}
	text := []string{"z_1 ~ N(0, q²); z_t = f(z_{t−1}) + ε_t; x_t = h(z_t) + η_t (Ex 3.3): draw z_t, then x_t"}
	if t > 0 {
		metrics = append(metrics, sims.Metric{Name: "z", Value: zs[t-1]}, sims.Metric{Name: "x", Value: xs[t-1]})
	}
	if cfg.Dynamics == ancestral.Linear {
		v, want := 0.0, cfg.Q*cfg.Q/(1-cfg.A*cfg.A)
		for _, z := range zs {
			v += z * z
		}
		if t > 0 {
			v /= float64(t)
		}
		text = append(text, fmt.Sprintf("linear-Gaussian: the posterior p(z|x) is tractable (Kalman); stationary Var z = q²/(1−a²) = %.3g, sample %.3g", want, v))
	} else {
		text = append(text, "f(z) = z/2 + 25z/(1+z²), h(z) = z²/20 (the catalogue's classic choice: the notes give no f, h);",
			"  h(z) = h(−z), so x_t cannot tell the two wells of f apart: the posterior is bimodal, not Gaussian")
	}
	return sims.Frame{
		Sim:     Ancestral.Name,
		Step:    t,
		Metrics: metrics,
		Charts: []sims.Chart{
			sims.LineChart{
				Title: "latent z_t and observed x_t",
				Series: []sims.Series{
					{Name: "z_t (latent)", Y: zs, Class: 0},
					{Name: "x_t (observed)", Y: xs, Class: 2},
				},
				X0: 1, X1: float64(max(t, 1)),
				XLabel: "t",
			},
			sims.CanvasChart{
				Title:  "transition: z_t against z_{t−1}, over f",
				View:   fView,
				Paths:  []sims.Path{fCurve},
				Points: []sims.PointSet{{Name: "(z_{t−1}, z_t)", X: prevZ, Y: nextZ, Class: 0}},
				Legend: []string{"draws", "f"},
				XLabel: "z_{t−1}", YLabel: "z_t",
			},
			sims.CanvasChart{
				Title:  "observation: x_t against z_t, over h",
				View:   hView,
				Paths:  []sims.Path{hCurve},
				Points: []sims.PointSet{{Name: "(z_t, x_t)", X: zs, Y: xs, Class: 0}},
				Legend: []string{"draws", "h"},
				XLabel: "z_t", YLabel: "x_t",
			},
		},
		Text: text,
	}
}

func (s *ssmDraws) Result() map[string]any {
	return map[string]any{
		"model": s.ssm.Config().Dynamics.String(), "t": len(s.zs),
		"z": append([]float64(nil), s.zs...), "x": append([]float64(nil), s.xs...),
	}
}
