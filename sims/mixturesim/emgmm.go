// Package mixturesim turns the engines of algo/mixture into sims.
package mixturesim

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo/mixture"
	"github.com/thelab/lab/sims"
)

// EMGMM is EM for a Gaussian mixture in the plane (seed 002 §2.3, Example
// 2.1): the points coloured by their most responsible component, each
// component's 1σ and 2σ ellipses and mean, and the log-likelihood per
// iteration, which EM never lets fall (eq 2.37). A step is a half-iteration,
// E or M, so that each phase can be watched.
var EMGMM = &sims.Spec{
	Name:   "em-gmm",
	Title:  "EM for a 2-D Gaussian mixture, one E- or M-step at a time",
	Source: "seed 002 §2.3 (EM for GMMs, eqs 2.12–2.15, monotonicity 2.37)",
	Data: "the first two columns of --data are the points (x, y); without --data, " +
		"n points are drawn from a random mixture of `clusters` Gaussians whose means are sep apart",
	Steps: 200,
	// Two half-steps a second: each E- and M-step stays on screen long
	// enough to see what it changed (colours, then ellipses).
	Speed: 2,
	Params: []sims.Param{
		{Name: "k", Kind: sims.Int, Min: 1, Max: mixture.MaxK, Default: "3",
			Help: "number of mixture components K (at most the number of points)"},
		{Name: "clusters", Kind: sims.Int, Min: 1, Max: mixture.MaxK, Default: "3",
			Help: "true number of clusters in the generated data (not used with --data)"},
		{Name: "sep", Kind: sims.Float, Min: 0, Max: mixture.MaxSep, Default: "4",
			Help: "least distance between the true means, in s.d. of the widest cluster: 8 well apart, 4 touching (not used with --data)"},
		{Name: "n", Kind: sims.Int, Min: 50, Max: 20000, Default: "400",
			Help: "number of generated points, 400 as in Example 2.1 (not used with --data)"},
		{Name: "reg", Kind: sims.Float, Min: 0, Max: 1, Default: "1e-6",
			Help: "covariance floor: Σ_k ⪰ reg·s²·I, s² the data's variance (Remark 2.10); 0 lets a component collapse, else at least 1e-9"},
		{Name: "tol", Kind: sims.Float, Min: 0, Max: 1, Default: "1e-8",
			Help: "stop when an iteration raises the mean log-likelihood by less than tol nats"},
	},
	New: newEMGMM,
}

// The PCG streams of the data and of the initialisation: both follow the
// seed, and changing k leaves the generated data as it was.
const (
	dataStream = 0x6d6978747572655f // "mixture_"
	initStream = 0x656d5f696e6974   // "em_init"
)

// monoSlack is the relative fall of the log-likelihood tolerated as rounding
// before the pane reports a breach of (2.37); the engine's tests use the same.
const monoSlack = 1e-9

type emSim struct {
	em     *mixture.EM
	truth  []mixture.Component // the generating mixture; nil with --data
	xLabel string
	yLabel string
	view   sims.Rect
	ll     *sims.Trace // mean log-likelihood per iteration, for the chart
	// The worst fall of the log-likelihood between iterations, relative,
	// and where it happened (0 when none beyond monoSlack).
	worstFall float64
	worstIter int
}

func newEMGMM(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	s := &emSim{xLabel: "x", yLabel: "y", ll: sims.NewTrace(0, 1)}
	var points [][]float64
	if t := cfg.Data; t != nil {
		if len(t.Columns) < 2 {
			return nil, fmt.Errorf("--data %s: needs at least two numeric columns, found %d", t.Name, len(t.Columns))
		}
		points = make([][]float64, len(t.Rows))
		for i, r := range t.Rows {
			if len(r) < 2 {
				return nil, fmt.Errorf("--data %s: row %d has %d values, want at least 2", t.Name, i+1, len(r))
			}
			points[i] = r[:2:2] // a view: the engine copies the points
		}
		s.xLabel, s.yLabel = t.Columns[0], t.Columns[1]
	} else {
		sample, err := mixture.Blobs(rand.New(rand.NewPCG(cfg.Seed, dataStream)), v.Int("n"), v.Int("clusters"), v.Float("sep"))
		if err != nil {
			return nil, err
		}
		points, s.truth = sample.Points, sample.Truth
	}
	em, err := mixture.New(points, mixture.Config{K: v.Int("k"), Reg: v.Float("reg"), Tol: v.Float("tol")},
		rand.New(rand.NewPCG(cfg.Seed, initStream)))
	if err != nil {
		return nil, err
	}
	s.em = em
	s.view = sims.Bounds(em.X(), em.Y()).Pad(0.05)
	s.ll.Add(em.MeanLogLik())
	return s, nil
}

func (s *emSim) Step() error {
	if err := s.em.Step(); err != nil {
		return err
	}
	if last, _ := s.em.Last(); last == mixture.MStep {
		tr := s.em.Trace()
		t := len(tr) - 1
		s.ll.Add(tr[t])
		if fall := (tr[t-1] - tr[t]) / math.Abs(tr[t-1]); fall > monoSlack && fall > s.worstFall {
			s.worstFall, s.worstIter = fall, t
		}
	}
	return nil
}

func (s *emSim) Frame() sims.Frame {
	e := s.em
	k := e.K()
	comps := e.Components()
	paths := make([]sims.Path, 0, 2*k)
	markers := make([]sims.Marker, 0, k+len(s.truth))
	legend := make([]string, k)
	bars := make([]sims.Bar, k)
	for j, c := range comps {
		mx, my := c.Mean[0], c.Mean[1]
		sxx, sxy, syy := c.Cov[0][0], c.Cov[0][1], c.Cov[1][1]
		paths = append(paths, sims.Ellipse(mx, my, sxx, sxy, syy, 1, j))
		two := sims.Ellipse(mx, my, sxx, sxy, syy, 2, j)
		two.Dotted = true
		paths = append(paths, two)
		legend[j] = fmt.Sprintf("%d: π=%.2f", j+1, c.Weight)
		bars[j] = sims.Bar{Label: fmt.Sprint(j + 1), Value: c.Weight, Class: j}
	}
	for _, c := range s.truth {
		markers = append(markers, sims.Marker{X: c.Mean[0], Y: c.Mean[1], Glyph: '×', Class: -1})
	}
	for j, c := range comps {
		markers = append(markers, sims.Marker{X: c.Mean[0], Y: c.Mean[1], Glyph: '✚', Class: j})
	}

	ll := e.MeanLogLik()
	metrics := []sims.Metric{{Name: "loglik", Value: ll}}
	if tr := e.Trace(); len(tr) > 1 {
		metrics = append(metrics, sims.Metric{Name: "delta", Value: tr[len(tr)-1] - tr[len(tr)-2]})
	}
	elbo, hasQ := e.ELBO()
	if hasQ {
		metrics = append(metrics, sims.Metric{Name: "elbo", Value: elbo / float64(e.N())})
	}
	metrics = append(metrics, sims.Metric{Name: "iter", Value: float64(e.Iter())})

	x0, x1 := s.ll.Span()
	return sims.Frame{
		Sim:     EMGMM.Name,
		Step:    e.HalfSteps(),
		Metrics: metrics,
		Charts: []sims.Chart{
			sims.CanvasChart{
				Title: fmt.Sprintf("%d points, K = %d (1σ, 2σ ellipses)", e.N(), k),
				View:  s.view,
				Points: []sims.PointSet{{
					Name: "data", X: e.X(), Y: e.Y(), Classes: e.Assign(nil),
				}},
				Paths:   paths,
				Markers: markers,
				Legend:  legend,
				XLabel:  s.xLabel, YLabel: s.yLabel,
			},
			sims.LineChart{
				Title:  "mean log-likelihood",
				Series: []sims.Series{{Name: "loglik", Y: s.ll.Column(0), Class: 0}},
				X0:     x0, X1: x1,
				XLabel: "iteration", YLabel: "nats/point",
			},
			sims.BarChart{Title: "weights π_k = N_k/N", Bars: bars},
		},
		Text: s.notes(ll, elbo, hasQ),
	}
}

// notes says which half-step was last, how the monotonicity check stands and,
// once there is a q, the bound and its gap.
func (s *emSim) notes(ll, elbo float64, hasQ bool) []string {
	e := s.em
	var phase string
	switch last, ok := e.Last(); {
	case !ok:
		phase = "start: k-means++ means, equal weights, round covariances; next: E-step"
	case last == mixture.EStep:
		phase = "E-step: responsibilities γ(z_nk) updated (eq 2.12); next: M-step"
	default:
		phase = "M-step: π, μ, Σ updated (eqs 2.13–2.15); next: E-step"
	}
	var mono string
	switch {
	case s.worstFall > 0:
		mono = fmt.Sprintf("⚠ the log-likelihood fell by %.2g (relative) at iteration %d: (2.37) is violated",
			s.worstFall, s.worstIter)
	case e.Iter() == 0:
		mono = "monotonicity (2.37): the log-likelihood must never fall; watch the curve"
	default:
		mono = fmt.Sprintf("monotonicity (2.37) holds: the log-likelihood never fell in %d iterations", e.Iter())
	}
	lines := []string{phase, mono}
	if hasQ {
		n := float64(e.N())
		lines = append(lines, fmt.Sprintf("per point: log p = %.6g = L(q,θ) %.6g + KL(q‖p) %.2g (eq 2.31)",
			ll, elbo/n, ll-elbo/n))
	}
	if s.truth != nil {
		lines = append(lines, "× marks the true means of the generated data")
	}
	return lines
}

func (s *emSim) Result() map[string]any {
	e := s.em
	k := e.K()
	weights := make([]float64, k)
	means := make([][]float64, k)
	covs := make([][][]float64, k)
	for j, c := range e.Components() {
		weights[j] = c.Weight
		means[j] = []float64{c.Mean[0], c.Mean[1]}
		covs[j] = [][]float64{{c.Cov[0][0], c.Cov[0][1]}, {c.Cov[1][0], c.Cov[1][1]}}
	}
	return map[string]any{
		"weights":      weights,
		"means":        means,
		"covariances":  covs,
		"loglik_trace": append([]float64(nil), e.Trace()...),
		"loglik":       e.MeanLogLik(),
		"iterations":   e.Iter(),
		"half_steps":   e.HalfSteps(),
	}
}
