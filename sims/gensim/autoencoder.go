package gensim

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo/autoenc"
	"github.com/thelab/lab/algo/tensor"
	"github.com/thelab/lab/algo/tensor/opt"
	"github.com/thelab/lab/algo/toy2d"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// Autoencoder shows autoencoders three ways (seed 000 §3.6, §3.6.7,
// catalogue §3.7, §3.9; seed 002 §6.2.1, F2), by `mode`: the linear
// autoencoder descending to the Eckart–Young floor with its subspace
// converging to PCA's; a network autoencoder beside the linear one on
// curved data, going below the floor no linear map can pass; a denoising
// autoencoder whose map converges to Tweedie's E[X | Y].
var Autoencoder = &sims.Spec{
	Name:   "autoencoder",
	Title:  "Autoencoders: linear AE = PCA at the Eckart–Young floor, a network AE beside it, denoising AE → Tweedie",
	Source: "seed 000 §3.6 (eqs 3.9–3.10, L1238–L1250), §3.6.7 (L1366–L1378); seed 002 §6.2.1 (L2820–2858)",
	Steps:  1500,
	Speed:  30,
	Params: param.List(aeMode, aeD, aeR, aeN, aeTarget, aeSigma, aeUnits, aeBatch, aeLR),
	New:    newAutoencoder,
	Size:   autoencoderSize,

	Metrics: autoencoderMetrics,
}

// autoencoderSize is, for pca, the linear autoencoder and the points
// drawn; otherwise the 2-D data, the network autoencoder (autoenc's
// footprint, with Map's tape on the most rows the sim maps: the shown
// points, or the denoiser's test points) and what the mode draws beside
// it: the linear autoencoder and the reconstructions, or the test points
// and the arrows.
func autoencoderSize(cfg sims.Config) int64 {
	v := cfg.Values
	n := aeN.Get(v)
	c := autoenc.NetConfig{D: 2, Code: 1, Units: aeUnits.Get(v), Batch: aeBatch.Get(v)}
	b := 48<<10 + sims.TraceBytes(2) + tensor.Alloc(sims.TraceCap) // and the floor mapped over the trace's steps
	switch aeMode.Get(v) {
	case amPCA:
		return b + autoenc.LinearBytes(n, aeD.Get(v), aeR.Get(v)) + 2*tensor.Alloc(n)
	case amNonlinear:
		shown := min(n, nonlinShown)
		b += c.Bytes(shown) + autoenc.LinearBytes(n, 2, 1) + 9*tensor.Alloc(shown)
	default:
		c.Code = 2
		b += c.Bytes(daeTest) + 4*tensor.Appended(daeTest) + 4*tensor.Alloc(daeShown) + 8*tensor.Alloc(daeArrows*daeArrows)
	}
	return tensor.Slack(b + tensor.Alloc(2*n))
}

type autoMode string

func (m autoMode) String() string { return string(m) }

const (
	amPCA       autoMode = "pca"
	amNonlinear autoMode = "nonlinear"
	amDenoise   autoMode = "denoise"
)

var (
	aeMode = param.Choice("mode", []autoMode{amPCA, amNonlinear, amDenoise}, amPCA,
		"pca: linear AE against PCA; nonlinear: a network AE beside the linear one (code 1); denoise: D(E(x + σε)) against Tweedie's E[X|Y]")
	aeD = param.Int("d", 2, "pca: dimension of the Gaussian data (the first two coordinates are drawn)").Range(2, 10)
	aeR = param.Int("r", 1, "pca: code size r (rank of DE)").Range(1, 9)
	aeN = param.Int("n", 2000, "data points").Range(10, 50000).
		DefaultWhen(is(aeMode, amPCA), 200, "2000; 200 for pca")
	aeTarget = param.Choice("target", toy2d.Targets, toy2d.Moons, "2-D data of nonlinear and denoise (denoise needs twomodes or ring: Tweedie needs the mixture)").
			DefaultWhen(is(aeMode, amDenoise), toy2d.Ring, "moons; ring for denoise")
	aeSigma = param.Float("sigma", 0.5, "denoise: noise σ of Y = X + σε").Range(0.01, 3)
	aeUnits = param.Int("units", 64, "tanh units of the encoder's and decoder's hidden layer").Range(1, autoenc.MaxUnits)
	aeBatch = param.Int("batch", 128, "minibatch of the network").Range(1, 1024)
	aeLR    = param.Float("lr", 0.01, "step size: Adam's for the networks, gradient descent's for the linear AE").Range(0, 1).OpenMin().
		DefaultWhen(is(aeMode, amPCA), 0.05, "0.01; 0.05 for pca")
)

func newAutoencoder(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x6175_746f)) // "auto"
	mode := aeMode.Get(v)
	if mode == amPCA {
		d, r := aeD.Get(v), aeR.Get(v)
		if r >= d {
			return nil, fmt.Errorf("parameter r = %d: must be below d = %d (r = d reconstructs exactly)", r, d)
		}
		x := correlatedGaussian(rng, aeN.Get(v), d)
		l, err := autoenc.NewLinear(x, r, aeLR.Get(v), rng)
		if err != nil {
			return nil, err
		}
		return newPCASim(l), nil
	}
	tg := aeTarget.Get(v)
	means, s, isMix := tg.Mixture()
	if mode == amDenoise && !isMix {
		return nil, fmt.Errorf("parameter target = %s: denoise needs a Gaussian mixture (twomodes or ring) for Tweedie's E[X|Y]", tg)
	}
	data, _, err := toy2d.Sample(tg, rng, aeN.Get(v))
	if err != nil {
		return nil, err
	}
	sigma, code := 0.0, 1
	if mode == amDenoise {
		sigma, code = aeSigma.Get(v), 2
	}
	net, err := autoenc.NewNet(autoenc.NetConfig{D: 2, Code: code, Units: aeUnits.Get(v), Batch: aeBatch.Get(v),
		Sigma: sigma, Opt: opt.Config{LR: aeLR.Get(v)}}, data, rng)
	if err != nil {
		return nil, err
	}
	if mode == amDenoise {
		return newDAESim(net, data, means, s, sigma, rng), nil
	}
	rows := make([][]float64, len(data)/2)
	for i := range rows {
		rows[i] = data[2*i : 2*i+2]
	}
	lin, err := autoenc.NewLinear(rows, 1, 0.05, rng)
	if err != nil {
		return nil, err
	}
	return newNonlinSim(net, lin, data), nil
}

// correlatedGaussian draws n points of N(0, Q diag(λ) Qᵀ) in d
// dimensions, λ_j = 4/j² and Q a random rotation: distinct eigenvalues.
func correlatedGaussian(rng *rand.Rand, n, d int) [][]float64 {
	// Gram–Schmidt on a Gaussian matrix gives a random orthogonal Q.
	q := make([][]float64, d)
	for j := range q {
		q[j] = make([]float64, d)
		for i := range q[j] {
			q[j][i] = rng.NormFloat64()
		}
		for k := range j {
			dot := 0.0
			for i := range d {
				dot += q[j][i] * q[k][i]
			}
			for i := range d {
				q[j][i] -= dot * q[k][i]
			}
		}
		norm := 0.0
		for _, x := range q[j] {
			norm += x * x
		}
		for i := range q[j] {
			q[j][i] /= math.Sqrt(norm)
		}
	}
	x := make([][]float64, n)
	for i := range x {
		x[i] = make([]float64, d)
		for j := range d {
			z := 2 / float64(j+1) * rng.NormFloat64()
			for k := range d {
				x[i][k] += z * q[j][k]
			}
		}
	}
	return x
}

// ---- pca ----

type pcaSim struct {
	l     *autoenc.Linear
	trace *sims.Trace // loss, largest principal angle
	view  sims.Rect
	px    []float64
	py    []float64
}

func newPCASim(l *autoenc.Linear) *pcaSim {
	n, _ := l.X.Dims()
	s := &pcaSim{l: l, trace: sims.NewTrace(0, 2), px: make([]float64, n), py: make([]float64, n)}
	for i := range n {
		s.px[i], s.py[i] = l.X.At(i, 0), l.X.At(i, 1)
	}
	r := 0.0
	for i := range n {
		r = math.Max(r, math.Max(math.Abs(s.px[i]), math.Abs(s.py[i])))
	}
	s.view = sims.Rect{XMin: -r, XMax: r, YMin: -r, YMax: r}.Pad(0.05)
	s.record()
	return s
}

func (s *pcaSim) record() {
	a := s.l.PrincipalAngles()
	s.trace.Add(s.l.Loss(), sims.NoiseFloor(a[len(a)-1], math.Pi/2)) // an angle's scale: a right angle
}

func (s *pcaSim) Step() error {
	err := s.l.Step()
	if err == nil {
		s.record()
	}
	return err
}

// direction is the line through 0 along (u, w) across the view.
func (s *pcaSim) direction(u, w float64, class int, dotted bool) sims.Path {
	n := math.Hypot(u, w)
	if n == 0 {
		return sims.Path{}
	}
	r := 2 * s.view.XMax
	return sims.Path{X: []float64{-r * u / n, r * u / n}, Y: []float64{-r * w / n, r * w / n}, Class: class, Dotted: dotted}
}

func (s *pcaSim) Frame() sims.Frame {
	l := s.l
	_, r := l.D.Dims()
	var paths []sims.Path
	for k := range r {
		paths = append(paths, s.direction(l.U.At(0, k), l.U.At(1, k), classRef, true),
			s.direction(l.D.At(0, k), l.D.At(1, k), classFit, false))
	}
	// Reconstructions DEx of a few points, joined to the points.
	p := l.Projector()
	n, d := l.X.Dims()
	for i := range min(n, 24) {
		var rx, ry float64
		for j := range d {
			rx += p.At(0, j) * l.X.At(i, j)
			ry += p.At(1, j) * l.X.At(i, j)
		}
		paths = append(paths, sims.Path{X: []float64{s.px[i], rx}, Y: []float64{s.py[i], ry}, Class: classMark, Dotted: true})
	}
	pic := sims.CanvasChart{Title: "data (x₁, x₂), span D against PCA's", View: s.view, Paths: paths,
		Points: []sims.PointSet{{Name: "data", X: s.px, Y: s.py, Class: classData}},
		Legend: []string{"data", "", "span D", "", "x → DEx", "", "", "", "", "PCA"}}
	floor := l.Floor()
	loss := traceChart("J(D, E) and the Eckart–Young floor", s.trace,
		sims.Series{Name: "J", Y: s.trace.Column(0), Class: classFit},
		sims.Series{Name: "Σ_{j>r} λ_j", Y: s.trace.Map(func(int) float64 { return floor }), Class: classRef, Bound: true})
	ang := traceChart("largest principal angle (rad)", s.trace, sims.Series{Name: "angle", Y: s.trace.Column(1), Class: classModel})
	ang.LogY = true
	a := l.PrincipalAngles()
	return sims.Frame{Sim: Autoencoder.Name, Step: l.Steps(),
		Metrics: []sims.Metric{{Name: "J", Value: l.Loss()}, {Name: "floor", Value: floor},
			{Name: "gap", Value: l.Loss() - floor}, {Name: "angle", Value: a[len(a)-1], Scale: math.Pi / 2}, {Name: "grad", Value: l.GradNorm(), Scale: math.Max(1, l.Loss())}}, // ≈ 0 at rounding of J
		Charts: []sims.Chart{pic, loss, ang},
		Text: []string{
			fmt.Sprintf("covariance λ = %s; floor Σ_{j>%d} λ_j = %.6g", fmtList(l.Eigenvalues()), r, floor),
			"optimum DE = U_r U_rᵀ, a projector (the notes' U_r Σ_r U_rᵀ: erratum)",
		}}
}

// fmtList prints a few numbers.
func fmtList(x []float64) string {
	out := ""
	for i, v := range x {
		if i > 0 {
			out += ", "
		}
		if i == 5 {
			return out + "…"
		}
		out += fmt.Sprintf("%.4g", v)
	}
	return out
}

func (s *pcaSim) Result() map[string]any {
	return map[string]any{"loss": s.l.Loss(), "floor": s.l.Floor(), "angles": s.l.PrincipalAngles(), "eigenvalues": s.l.Eigenvalues()}
}

// ---- nonlinear ----

// nonlinShown is the most data points drawn with their reconstructions.
const nonlinShown = 300

type nonlinSim struct {
	net   *autoenc.Net
	lin   *autoenc.Linear
	data  []float64
	shown []float64
	view  sims.Rect
	trace *sims.Trace // net loss, linear loss
}

func newNonlinSim(net *autoenc.Net, lin *autoenc.Linear, data []float64) *nonlinSim {
	x, y := split(data)
	s := &nonlinSim{net: net, lin: lin, data: data, shown: data[:min(len(data), 2*nonlinShown)],
		view: sims.Bounds(x, y).Pad(0.1), trace: sims.NewTrace(1, 2)}
	return s
}

func (s *nonlinSim) Step() error {
	if err := s.net.Step(); err != nil {
		return err
	}
	if err := s.lin.Step(); err != nil {
		return err
	}
	s.trace.Add(s.net.Loss(), s.lin.Loss())
	return nil
}

func (s *nonlinSim) Frame() sims.Frame {
	rec := s.net.Map(s.shown, nil)
	rx, ry := split(rec)
	dx, dy := split(s.shown)
	// The linear AE's reconstructions: DE(x − x̄) + x̄.
	p := s.lin.Projector()
	var mx, my float64
	n := len(s.data) / 2
	for i := range n {
		mx += s.data[2*i]
		my += s.data[2*i+1]
	}
	mx, my = mx/float64(n), my/float64(n)
	lx, ly := make([]float64, len(dx)), make([]float64, len(dx))
	for i := range dx {
		u, w := dx[i]-mx, dy[i]-my
		lx[i], ly[i] = mx+p.At(0, 0)*u+p.At(0, 1)*w, my+p.At(1, 0)*u+p.At(1, 1)*w
	}
	pic := sims.CanvasChart{Title: "data and reconstructions through a 1-D code", View: s.view,
		Points: []sims.PointSet{{Name: "data", X: dx, Y: dy, Class: classData}, {Name: "linear", X: lx, Y: ly, Class: classRef},
			{Name: "network", X: rx, Y: ry, Class: classFit}},
		Legend: []string{"data", "", "network D(E(x))", "", "", "", "", "", "", "linear DEx"}}
	floor := s.lin.Floor()
	// The network's is its step's minibatch's, before the update; the
	// linear AE's is of all the data at its current (D, E).
	loss := traceChart("reconstruction error", s.trace,
		sims.Series{Name: "network (batch)", Y: s.trace.Column(0), Class: classFit},
		sims.Series{Name: "linear", Y: s.trace.Column(1), Class: classModel},
		sims.Series{Name: "Eckart–Young", Y: s.trace.Map(func(int) float64 { return floor }), Class: classRef, Bound: true})
	loss.LogY = true
	return sims.Frame{Sim: Autoencoder.Name, Step: s.net.Steps(),
		Metrics: []sims.Metric{batchMetric("network", s.net), {Name: "linear", Value: s.lin.Loss()},
			{Name: "floor", Value: floor}},
		Charts: []sims.Chart{pic, loss},
		Text: []string{
			"a linear 1-D code projects on a line: never below Σ_{j>1} λ_j",
			"the network bends its code along the data (nonlinear PCA)",
		}}
}

// batchMetric is the metric name of a network autoencoder's last
// minibatch loss (taken before its update), undefined before the first
// step.
func batchMetric(name string, net *autoenc.Net) sims.Metric {
	if net.Steps() == 0 {
		return sims.Metric{Name: name, Undefined: "no minibatch trained yet"}
	}
	return sims.Metric{Name: name, Value: sims.FiniteOr(net.Loss(), 0)}
}

func (s *nonlinSim) Result() map[string]any {
	return map[string]any{"network": s.net.Loss(), "linear": s.lin.Loss(), "floor": s.lin.Floor()}
}

// ---- denoise ----

// daeArrows is the side of the grid of arrows y → D(E(y)); daeTest the
// noisy test points the distance to Tweedie is measured on; daeShown the
// data points drawn.
const (
	daeArrows = 7
	daeTest   = 2000
	daeShown  = 200
)

type daeSim struct {
	net      *autoenc.Net
	means    []float64
	s, sigma float64
	view     sims.Rect
	grid     []float64 // arrow tails
	tweedie  []float64 // E[X|Y] at the tails
	test     []float64 // fixed noisy test points and their clean sources
	clean    []float64
	bayes    float64 // E‖X − E[X|Y]‖² on the test points
	trace    *sims.Trace
	shown    []float64
	// dist is the distance to Tweedie's map as of step distAt: measured
	// every daeEvery steps while running (traced, the trace's), and at the
	// current step when the pane settles (Settle).
	dist   float64
	distAt int
	traced float64
}

// daeEvery is the steps between two measures of the distance to
// Tweedie's map (a pass of daeTest points) while the pane runs.
const daeEvery = 10

func newDAESim(net *autoenc.Net, data, means []float64, s, sigma float64, rng *rand.Rand) *daeSim {
	x, y := split(data)
	view := sims.Bounds(x, y).Pad(0.1)
	view = sims.Rect{XMin: view.XMin - sigma, XMax: view.XMax + sigma, YMin: view.YMin - sigma, YMax: view.YMax + sigma}
	d := &daeSim{net: net, means: means, s: s, sigma: sigma, view: view, trace: sims.NewTrace(1, 2), shown: data[:2*min(len(data)/2, daeShown)]}
	for i := range daeArrows {
		for j := range daeArrows {
			gx := view.XMin + (view.XMax-view.XMin)*(float64(i)+0.5)/daeArrows
			gy := view.YMin + (view.YMax-view.YMin)*(float64(j)+0.5)/daeArrows
			m := toy2d.PosteriorMean(means, s, sigma, [2]float64{gx, gy})
			d.grid, d.tweedie = append(d.grid, gx, gy), append(d.tweedie, m[0], m[1])
		}
	}
	// The Bayes error on daeTest fresh noisy points, the floor of the loss.
	for range daeTest {
		k := rng.IntN(len(means) / 2)
		cx, cy := means[2*k]+s*rng.NormFloat64(), means[2*k+1]+s*rng.NormFloat64()
		yx, yy := cx+sigma*rng.NormFloat64(), cy+sigma*rng.NormFloat64()
		d.clean, d.test = append(d.clean, cx, cy), append(d.test, yx, yy)
		m := toy2d.PosteriorMean(means, s, sigma, [2]float64{yx, yy})
		d.bayes += sq(cx-m[0]) + sq(cy-m[1])
	}
	d.bayes /= daeTest
	d.dist = d.distance()
	d.traced = d.dist
	return d
}

// distance is the mean squared distance between the denoiser's output and
// Tweedie's E[X|Y] on the test points: a pass of daeTest points through
// the network.
func (d *daeSim) distance() float64 {
	out := d.net.Map(d.test, nil)
	dist := 0.0
	for i := 0; i < len(out); i += 2 {
		m := toy2d.PosteriorMean(d.means, d.s, d.sigma, [2]float64{d.test[i], d.test[i+1]})
		dist += sq(out[i]-m[0]) + sq(out[i+1]-m[1])
	}
	return dist / float64(len(out)/2)
}

func sq(x float64) float64 { return x * x }

func (d *daeSim) Step() error {
	if err := d.net.Step(); err != nil {
		return err
	}
	// Every daeEvery steps (and the first) the distance to Tweedie on the
	// test points; the trace keeps these, however often the pane settles.
	if k := d.net.Steps(); k%daeEvery == 1 {
		d.traced = d.distance()
		d.dist, d.distAt = d.traced, k
	}
	d.trace.Add(d.net.Loss(), d.traced)
	return nil
}

// Settle measures the distance to Tweedie's map at the current step when
// the pane is not running.
func (d *daeSim) Settle() {
	if k := d.net.Steps(); d.distAt != k {
		d.dist, d.distAt = d.distance(), k
	}
}

func (d *daeSim) Frame() sims.Frame {
	out := d.net.Map(d.grid, nil)
	var paths []sims.Path
	for i := 0; i < len(d.grid); i += 2 {
		paths = append(paths, sims.Path{X: []float64{d.grid[i], out[i]}, Y: []float64{d.grid[i+1], out[i+1]}, Class: classFit})
	}
	heads := sims.PointSet{Name: "E[X|y]", Class: classRef}
	heads.X, heads.Y = split(d.tweedie)
	dx, dy := split(d.shown)
	pic := sims.CanvasChart{Title: fmt.Sprintf("y → D(E(y)) against Tweedie's E[X|y], σ = %.3g", d.sigma), View: d.view, Paths: paths,
		Points: []sims.PointSet{{Name: "data", X: dx, Y: dy, Class: classData}, heads},
		Legend: []string{"data", "", "y → D(E(y))", "", "", "", "", "", "", "E[X|y]"}}
	loss := traceChart("E‖D(E(X+σε)) − X‖², Bayes floor", d.trace,
		sims.Series{Name: "loss (batch)", Y: d.trace.Column(0), Class: classFit},
		sims.Series{Name: "‖D∘E − E[X|·]‖²", Y: d.trace.Column(1), Class: classModel},
		sims.Series{Name: "E‖X − E[X|Y]‖²", Y: d.trace.Map(func(int) float64 { return d.bayes }), Class: classRef, Bound: true})
	loss.LogY = true
	text := []string{
		"best denoiser: E[X|Y=y] = y + σ²∇log f_Y(y) (Tweedie, eq 3.1)",
		"loss = Bayes floor + E‖D(E(Y)) − E[X|Y]‖², the second → 0",
	}
	if d.distAt != d.net.Steps() {
		text = append(text, fmt.Sprintf("to_tweedie as of step %d (measured every %d steps while running)", d.distAt, daeEvery))
	}
	return sims.Frame{Sim: Autoencoder.Name, Step: d.net.Steps(),
		Metrics: []sims.Metric{batchMetric("loss", d.net), {Name: "bayes", Value: d.bayes},
			{Name: "to_tweedie", Value: d.dist}},
		Charts: []sims.Chart{pic, loss}, Text: text}
}

func (d *daeSim) Result() map[string]any {
	return map[string]any{"loss": d.net.Loss(), "bayes": d.bayes, "to_tweedie": d.dist}
}
