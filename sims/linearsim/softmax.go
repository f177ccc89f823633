package linearsim

import (
	"fmt"
	"math"

	"github.com/thelab/lab/algo/dataset"
	"github.com/thelab/lab/algo/linear"
	"github.com/thelab/lab/algo/optim"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/optimize"
)

// softmax's parameters.
var (
	softmaxPreset = param.Choice("data", []preset{presetBlobs, presetRings, presetMoons}, presetBlobs,
		"blobs: c Gaussian clusters; rings: c concentric rings (not linearly separable); moons: two classes").BuiltInData()
	softmaxClasses = param.Int("classes", 3, "number of classes c (blobs, rings)").Range(2, 8).BuiltInData()
	softmaxN       = param.Int("n", 300, "number of points (at most 20000: the reference optimum, L-BFGS over every point, then takes under a second)").Range(4, 20000).BuiltInData()
	softmaxSD      = param.Float("sd", 1.2, "s.d. of each blob; the centres are 3 from the origin").Range(0, 20).OpenMin().BuiltInData()
	softmaxLambda  = param.Float("lambda", 0.01, "ridge weight λ on the weights (not the biases)").Range(0, 100)
	softmaxMethod  = param.Choice("method", []method{methodGD, methodSGD}, methodGD,
		"gd: full gradient steps; sgd: mini-batches")
	softmaxLR = param.Float("lr", 0,
		"step size t (t₀ for sgd); 0 = 1/L for gd, 1/L_max of a single term for sgd").Range(0, 1000)
	softmaxTol = param.Float("tol", 1e-8, "gd stops when ‖∇f‖ ≤ tol").Range(0, 1)
)

// Softmax is multiclass softmax regression (seed 001 §4, eq 4.b): the mean
// cross-entropy plus (λ/2)‖W‖² minimised by gradient descent or SGD, with
// the plane coloured by the most probable class and level lines of that
// class's probability (its confidence), the loss against an L-BFGS optimum
// and the accuracy.
var Softmax = &sims.Spec{
	Name:   "softmax",
	Title:  "Softmax regression: class regions, confidence, cross-entropy",
	Source: "seed 001 §4 (eq 4.b, L445–L455)",
	Data:   "numeric columns; the column named label (else the last) holds classes 0..c−1; regions are drawn when there are two features",
	Steps:  2000,
	Speed:  30,
	Params: param.List(softmaxPreset, softmaxClasses, softmaxN, softmaxSD, softmaxLambda, softmaxMethod, softmaxLR, softmaxTol,
		sgdBatch, sgdSchedule, sgdDecay),
	New:  newSoftmax,
	Size: softmaxSize,

	Metrics: softmaxMetrics,
}

// softmaxSize is what softmax holds: its data (two features for the
// generated sets), the softmax objective's rows and n×c logits, SGD's
// order of the rows, the Trace of loss and accuracy and a measured base
// (the three grids of the regions, the Frame's other charts).
func softmaxSize(c sims.Config) int64 {
	v := c.Values
	classes := softmaxClasses.Get(v)
	if softmaxPreset.Get(v) == presetMoons {
		classes = 2
	}
	n, d := rowsOf(c, softmaxN.Get(v), 2)
	if c.Data != nil {
		classes = dataClasses(c.Data)
	}
	b := dataBytes(n, d, true) + linear.SoftmaxBytes(n, d+1, classes) + traceBytes(2) + 96<<10
	if softmaxMethod.Get(v) == methodSGD {
		b += optim.SGDBytes(n, classes*(d+1))
	}
	return b
}

type softmaxSim struct {
	data   *dataset.Labelled
	sm     *linear.Softmax
	eng    stepper
	method method
	lr, L  float64
	// The reference optimum, found on first need (reference): at n =
	// 100,000 it takes seconds (L-BFGS, then hundreds of full gradient
	// steps to ‖∇f‖ ≤ 10⁻¹⁰), which New should not.
	refDone bool
	fstar   float64
	hasOpt  bool
	sched   string
	two     bool
	scatter
	grad  []float64
	trace *sims.Trace // loss, accuracy
	f, gn float64     // f and ‖∇f‖ at the current iterate
	acc   float64     // training accuracy at the current iterate
}

func softmaxData(cfg sims.Config) (*dataset.Labelled, error) {
	if cfg.Data != nil {
		if err := cfg.Data.AtMost(int(softmaxN.Param().Max), "the reference optimum is found over in under a second"); err != nil {
			return nil, err
		}
		return cfg.Data.Labelled(true)
	}
	v := cfg.Values
	rng := dataRNG(cfg.Seed)
	switch softmaxPreset.Get(v) {
	case presetRings:
		return dataset.Rings(rng, softmaxN.Get(v), softmaxClasses.Get(v), 0.15)
	case presetMoons:
		return dataset.Moons(rng, softmaxN.Get(v), 0.15)
	}
	return dataset.Blobs(rng, softmaxN.Get(v), softmaxClasses.Get(v), softmaxSD.Get(v))
}

func newSoftmax(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	l, x, err := loadDesign(cfg, softmaxData, true)
	if err != nil {
		return nil, err
	}
	s := &softmaxSim{data: l, method: softmaxMethod.Get(v), two: l.D() == 2, trace: sims.NewTrace(0, 2)}
	if s.sm, err = linear.NewSoftmax(x, l.Int(), l.Classes, softmaxLambda.Get(v)); err != nil {
		return nil, err
	}
	if _, s.L, err = s.sm.Curvature(); err != nil {
		return nil, err
	}
	s.grad = make([]float64, s.sm.Dim())
	theta0 := make([]float64, s.sm.Dim())
	if s.method == methodSGD {
		s.eng, s.lr, s.sched, err = newSGD(s.sm, x, theta0, softmaxLR.Get(v), v, cfg.Seed)
	} else {
		s.eng, s.lr, err = newGD(s.sm, theta0, softmaxLR.Get(v), softmaxTol.Get(v), s.L)
	}
	if err != nil {
		return nil, err
	}
	if s.two {
		s.scatter = newScatter(l)
	}
	s.record()
	return s, nil
}

// reference finds the reference optimum, once. It evaluates the
// objective elsewhere than the iterate, which only refreshes the
// objective's cache: the run's numbers are the same whenever it is found.
func (s *softmaxSim) reference() {
	if !s.refDone {
		s.refDone = true
		s.fstar, s.hasOpt = softmaxOptimum(s.sm, s.L)
	}
}

// softmaxOptimum is the reference optimum: gonum's L-BFGS from Θ = 0, then
// gradient steps of 1/L (monotone) until f is known to within optimumTol:
// f is λ-strongly convex, so f − f* ≤ ‖∇f‖²/(2λ), and the steps stop once
// that bound is below optimumTol·max(1, f) — which the ~10⁻⁹ gradient
// where L-BFGS's line search gives up to rounding usually gives at once —
// or ‖∇f‖ ≤ 10⁻¹⁰. (Polishing to ‖∇f‖ ≤ 10⁻¹⁰ regardless took 5000 passes
// over the data: 28 s at n = 100000, c = 8.) With λ = 0 there may be no
// minimiser (separable data): ok = false.
func softmaxOptimum(sm *linear.Softmax, L float64) (float64, bool) {
	lam := sm.Lambda()
	if lam == 0 {
		return 0, false
	}
	p := optimize.Problem{Func: sm.Func, Grad: sm.Grad}
	res, _ := optimize.Minimize(p, make([]float64, sm.Dim()),
		&optimize.Settings{GradientThreshold: 1e-11, MajorIterations: 5000}, &optimize.LBFGS{})
	if res == nil {
		return 0, false
	}
	known := func(f, g float64) bool { return g <= 1e-10 || g*g/(2*lam) <= optimumTol*math.Max(1, math.Abs(f)) }
	g := make([]float64, sm.Dim())
	sm.Grad(g, res.X)
	if known(res.F, floats.Norm(g, 2)) {
		return res.F, true
	}
	d, err := optim.NewDescent(sm, res.X, optim.DescentConfig{Method: optim.GD, LR: 1 / L, Tol: 1e-10})
	if err != nil {
		return 0, false
	}
	for k := 0; k < 5000 && !known(d.F(), d.GradNorm()) && d.Step() == nil; k++ {
	}
	if d.GradNorm() > 1e-7 {
		return 0, false
	}
	return math.Min(d.F(), res.F), true
}

// optimumTol is how well, relative to f*, the reference optimum is known:
// far below what the pane's f − f* axis shows.
const optimumTol = 1e-14

func (s *softmaxSim) record() {
	// f, ∇f and the accuracy share one evaluation of the logits (cached).
	th := s.eng.X()
	s.f = s.eng.F()
	s.gn = gradNorm(s.eng, s.sm, s.grad)
	s.acc = s.sm.Accuracy(th)
	s.trace.Add(s.f, s.acc)
}

func (s *softmaxSim) Step() error {
	err := s.eng.Step()
	if err == nil {
		s.record()
	}
	return err
}

func (s *softmaxSim) Frame() sims.Frame {
	s.reference()
	th := s.eng.X()
	x0, x1 := s.trace.Span()
	loss := sims.LineChart{Title: "cross-entropy f", Series: []sims.Series{{Name: "f", Y: s.trace.Column(0)}},
		X0: x0, X1: x1, XLabel: "step"}
	if s.hasOpt {
		fstar := s.fstar
		gap := s.trace.Column(0)
		for i := range gap {
			gap[i] -= fstar
		}
		loss = sims.LineChart{Title: "f − f*", Series: []sims.Series{{Name: "f − f*", Y: gap}},
			LogY: true, X0: x0, X1: x1, XLabel: "step"}
	}
	var charts []sims.Chart
	if s.two {
		charts = append(charts, s.regions(th))
	}
	charts = append(charts, loss,
		sims.LineChart{Title: "training accuracy", Fraction: true, Series: []sims.Series{{Name: "accuracy", Y: s.trace.Column(1), Class: 2}},
			X0: x0, X1: x1, XLabel: "step"})
	return sims.Frame{
		Sim:  Softmax.Name,
		Step: s.eng.Iter(),
		Metrics: []sims.Metric{
			{Name: "loss", Value: s.f},
			{Name: "accuracy", Value: s.acc},
			{Name: "grad_norm", Value: s.gn},
		},
		Charts: charts,
		Text:   s.notes(),
	}
}

// regions colours the plane by argmax_k p_k(x), bright where the confidence
// max_k p_k(x) is near 1 and dim where it falls to 1/K, and draws level
// lines of the confidence at 0.2, 0.4, 0.6, 0.8 (which monochrome shows
// instead of the colours).
func (s *softmaxSim) regions(th []float64) sims.CanvasChart {
	c := s.sm.Classes()
	const nx, ny = 80, 40
	z := make([]float64, c)
	cls := &sims.Grid{NX: nx, NY: ny, Z: make([]float64, nx*ny), Scale: sims.Categorical,
		Lo: 0, Hi: float64(c - 1), Levels: c, Shade: make([]float64, nx*ny)}
	conf := &sims.Grid{NX: nx, NY: ny, Z: make([]float64, nx*ny), Lo: 0, Hi: 1, Levels: 5}
	v := s.view
	dx, dy := (v.XMax-v.XMin)/nx, (v.YMax-v.YMin)/ny
	p := 3 // θ_k = (w_k1, w_k2, b_k)
	for j := 0; j < ny; j++ {
		y := v.YMin + (float64(j)+0.5)*dy
		for i := 0; i < nx; i++ {
			x := v.XMin + (float64(i)+0.5)*dx
			// The most probable class is the largest logit, and its
			// probability is 1/Σ_l exp(z_l − z_max): one exp per class.
			best := 0
			for k := range z {
				z[k] = th[k*p]*x + th[k*p+1]*y + th[k*p+2]
				if z[k] > z[best] {
					best = k
				}
			}
			sum := 0.0
			for _, zk := range z {
				sum += math.Exp(zk - z[best])
			}
			cls.Z[j*nx+i] = float64(best)
			conf.Z[j*nx+i] = 1 / sum
			cls.Shade[j*nx+i] = (1/sum - 1/float64(c)) / (1 - 1/float64(c))
		}
	}
	return sims.CanvasChart{
		Title:    "regions, bright where sure; lines: max p",
		View:     v,
		Heat:     cls,
		Contours: conf,
		Points:   s.points(),
		Legend:   classLegend(c),
		XLabel:   s.xl, YLabel: s.yl,
	}
}

func (s *softmaxSim) notes() []string {
	var lines []string
	if s.method == methodSGD {
		lines = append(lines, s.sched)
	} else {
		lines = append(lines, fmt.Sprintf("GD, t = %.3g = %.3g/L, L = ½λ_max(X̃ᵀX̃/n) + λ = %.4g", s.lr, s.lr*s.L, s.L))
	}
	if s.hasOpt {
		lines = append(lines, fmt.Sprintf("f* = %.6g (gonum L-BFGS, then GD until ‖∇f‖²/2λ ≤ 1e-14·f)", s.fstar))
	} else {
		lines = append(lines, "λ = 0: the weights may grow without bound on separable data; no f* drawn")
	}
	lines = append(lines,
		"Pr[Y=k|x] = exp⟨x̃,θ_k⟩ / Σ_l exp⟨x̃,θ_l⟩ (eq 4.b); regions: argmax_k; brightness and level lines: the confidence max_k p_k at 0.2, 0.4, 0.6, 0.8")
	return lines
}

func (s *softmaxSim) Result() map[string]any {
	s.reference()
	th := s.eng.X()
	c, d := s.sm.Classes(), s.data.D()
	p := d + 1
	w := make([][]float64, c)
	b := make([]float64, c)
	for k := 0; k < c; k++ {
		w[k] = append([]float64(nil), th[k*p:k*p+d]...)
		b[k] = th[k*p+d]
	}
	r := map[string]any{"W": w, "b": b, "loss": s.eng.F(), "cross_entropy": s.sm.CrossEntropy(th),
		"accuracy": s.sm.Accuracy(th), "steps": s.eng.Iter()}
	if s.hasOpt && !math.IsNaN(s.fstar) {
		r["f_star"] = s.fstar
	}
	return r
}
