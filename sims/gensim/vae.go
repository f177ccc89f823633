package gensim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/thelab/lab/algo/autoenc"
	"github.com/thelab/lab/algo/digits"
	"github.com/thelab/lab/algo/tensor"
	"github.com/thelab/lab/algo/tensor/opt"
	"github.com/thelab/lab/algo/toy2d"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// VAE trains a variational autoencoder with a 2-D latent (seed 000
// §3.6.1–3.6.6, seed 002 §6.3, F4) on 2-D data or on the procedural
// digits: recon, KL and −ELBO curves, the latent means coloured by class,
// the decoded-digit manifold and samples from the prior; and the notes'
// discrete toy, where q moves to the posterior and the gap log p − ELBO =
// KL closes.
var VAE = &sims.Spec{
	Name:   "vae",
	Title:  "VAE with a 2-D latent: −ELBO = recon + KL, latent scatter, digit manifold, prior samples; the ELBO gap on the notes' toy",
	Source: "seed 000 §3.6.1–3.6.6 (eqs 3.12–3.26, errata on 3.24 and 3.26); seed 002 §6.3 (eqs 6.6, 6.15)",
	Steps:  2000,
	Speed:  30,
	// A minute in a pane: the latent means have parted by class and the
	// decoded digits can be named (TestVAEDigitsAtFamous).
	Famous: 1800,
	Params: param.List(vaData, vaTarget, vaSize, vaN, vaUnits, vaBatch, vaLR, vaSD),
	New:    newVAE,
	Size:   vaeSize,

	Metrics: vaeMetrics,
}

// vaeSize is the data (digits or 2-D points, with their labels), the VAE
// (autoenc's footprints: its networks, optimiser and tape), what the
// Frame's encoding of the shown points and its last decoding leave held,
// and the Frame: the latent means, the decoded digits or points, the
// curves.
func vaeSize(cfg sims.Config) int64 {
	v := cfg.Values
	n, shown := vaN.Get(v), min(vaN.Get(v), vaeShown)
	c := autoenc.VAEConfig{D: 2, Latent: 2, Units: vaUnits.Get(v), Batch: vaBatch.Get(v), Likelihood: autoenc.Gaussian}
	var frame int64
	switch vaData.Get(v) {
	case vdToy:
		return 32<<10 + sims.TraceBytes(3)
	case vdDigits:
		side := int(vaSize.Get(v))
		c.D, c.Likelihood = side*side, autoenc.Bernoulli
		frame = c.DecodeBytes(vaeTiles) + tensor.Alloc(vaeGrid*vaeGrid*c.D) + tensor.Alloc(2*vaeGrid*vaeGrid) // the samples, the manifold
	default:
		frame = c.DecodeBytes(vaeSamples) + 4*tensor.Alloc(vaeSamples) // the decoded prior, the data's x and y
	}
	frame += c.EncodeBytes(shown) + 3*tensor.Alloc(shown) + sims.TraceBytes(3) // the latent means and classes
	return tensor.Slack(32<<10 + tensor.Alloc(n*c.D) + tensor.Alloc(n) + c.Bytes() + frame + tensor.Alloc(2*vaeSamples))
}

type vaeData string

func (d vaeData) String() string { return string(d) }

const (
	vdDigits vaeData = "digits"
	vdPlane  vaeData = "plane"
	vdToy    vaeData = "toy"
)

var (
	vaData = param.Choice("data", []vaeData{vdDigits, vdPlane, vdToy}, vdDigits,
		"digits: procedural digits, Bernoulli decoder; plane: 2-D target, Gaussian decoder; toy: the notes' discrete ELBO example")
	vaTarget = param.Choice("target", toy2d.Targets, toy2d.Ring, "the 2-D data of data=plane")
	vaSize   = param.Choice("size", []sizeOpt{8, 16}, 16, "digit images size×size")
	vaN      = param.Int("n", 3000, "training points or digits").Range(10, 50000)
	vaUnits  = param.Int("units", 64, "tanh units of the encoder's and decoder's hidden layer").Range(2, autoenc.MaxUnits)
	vaBatch  = param.Int("batch", 64, "minibatch").Range(1, 1024)
	vaLR     = param.Float("lr", 0.003, "Adam's step size").Range(0, 1).OpenMin()
	vaSD     = param.Float("decoder_sd", 0.1, "s of the Gaussian decoder N(D(z), s²I) (plane); s → 0 makes the likelihood unbounded").Range(0.01, 10)
)

// sizeOpt is a digit size offered by the menu.
type sizeOpt int

func (s sizeOpt) String() string { return strconv.Itoa(int(s)) }

func newVAE(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x7661_6521)) // "vae!"
	var data []float64
	var labels []int
	d, lik, classes := 2, autoenc.Gaussian, 0
	switch vaData.Get(v) {
	case vdToy:
		return newToySim(), nil
	case vdDigits:
		size := int(vaSize.Get(v))
		pix, l, err := digits.Generate(rng, vaN.Get(v), size, vaeHand)
		if err != nil {
			return nil, err
		}
		for i, p := range pix {
			pix[i] = math.Min(1, math.Max(0, p))
		}
		data, labels, d, lik, classes = pix, l, size*size, autoenc.Bernoulli, 10
	default:
		tg := vaTarget.Get(v)
		xy, modes, err := toy2d.Sample(tg, rng, vaN.Get(v))
		if err != nil {
			return nil, err
		}
		data, labels, classes = xy, modes, max(tg.Modes(), 1)
	}
	m, err := autoenc.NewVAE(autoenc.VAEConfig{D: d, Latent: 2, Units: vaUnits.Get(v), Batch: vaBatch.Get(v),
		Likelihood: lik, DecoderSD: vaSD.Get(v), Opt: opt.Config{LR: vaLR.Get(v)}}, data, rng)
	if err != nil {
		return nil, err
	}
	s := &vaeSim{m: m, data: data, labels: labels, d: d, classes: classes, trace: sims.NewTrace(1, 3)}
	shown := min(len(labels), vaeShown)
	s.shown, s.shownLab = data[:shown*d], labels[:shown]
	s.prior = make([]float64, 2*vaeSamples)
	for i := range s.prior {
		s.prior[i] = rng.NormFloat64()
	}
	if d == 2 {
		x, y := split(data)
		s.view = sims.Bounds(x, y).Pad(0.1)
	}
	return s, nil
}

// vaeHand is the hand of the vae's digits: the default one, centred and
// without pixel noise, as MNIST's digits are centred. With the default
// hand's shifts of up to 1.6 pixels (at 16×16) a 2-D latent spends itself
// on where a digit sits, not on which it is: after 1800 steps a
// nearest-centroid rule on the latent means named 0.16 of the digits
// (chance 0.1) and the decoded samples were one blob; centred, 0.7 and
// distinct digits (TestVAEDigitsAtFamous).
var vaeHand = func() digits.Style {
	h := digits.Default
	h.Shift, h.Noise = 0, 0
	return h
}()

// vaeSamples is the number of prior samples drawn (as points on the
// plane); vaeGrid the side of the manifold grid and vaeTiles the prior
// samples decoded as digits — few, so that each is drawn large enough to
// be read (at 140×45 a tile gets a cell per pixel's column); vaeShown the
// most data points encoded for the latent scatter.
const (
	vaeSamples = 300
	vaeGrid    = 3
	vaeTiles   = 4
	vaeShown   = 500
)

type vaeSim struct {
	m        *autoenc.VAE
	data     []float64
	labels   []int
	d        int
	classes  int
	shown    []float64
	shownLab []int
	prior    []float64 // fixed z ~ N(0, I)
	view     sims.Rect
	trace    *sims.Trace // recon, KL, −ELBO
}

func (s *vaeSim) Step() error {
	err := s.m.Step()
	if err == nil {
		s.trace.Add(s.m.Recon(), s.m.KL(), s.m.NegELBO())
	}
	return err
}

func (s *vaeSim) Frame() sims.Frame {
	curves := traceChart("−ELBO = recon + KL (minibatch)", s.trace,
		sims.Series{Name: "−ELBO", Y: s.trace.Column(2), Class: classFit},
		sims.Series{Name: "recon −log p(x|z)", Y: s.trace.Column(0), Class: classData},
		sims.Series{Name: "KL(q‖N(0,I))", Y: s.trace.Column(1), Class: classModel})
	mu, _ := s.m.Encode(s.shown)
	lx, ly := split(mu)
	// A square about 0 holding the prior's 2σ circle and every code: the
	// codes drift past ±3.5 as the encoder trains, where a fixed view
	// piled them on its edges.
	r := 2.5
	for i := range lx {
		r = math.Max(r, 1.05*math.Max(math.Abs(lx[i]), math.Abs(ly[i])))
	}
	latent := sims.CanvasChart{Title: "latent μ(x); grey: N(0, I) 1σ, 2σ", View: sims.Rect{XMin: -r, XMax: r, YMin: -r, YMax: r},
		Points: []sims.PointSet{{Name: "μ(x)", X: lx, Y: ly, Classes: s.classIndex()}},
		// The prior N(0, I)'s 1σ and 2σ circles, unlabelled grey: the
		// ten classes take every class colour (classRef is digit 9's).
		Paths:  []sims.Path{sims.Ellipse(0, 0, 1, 0, 1, 1, -1), sims.Ellipse(0, 0, 1, 0, 1, 2, -1)},
		Legend: s.classNames(), XLabel: "z₁", YLabel: "z₂"}
	charts := []sims.Chart{latent}
	if s.d == 2 {
		gen := s.m.Decode(s.prior)
		gx, gy := split(gen)
		dx, dy := split(s.shown)
		charts = append(charts, sims.CanvasChart{Title: "data and decoded prior samples D(z)", View: s.view,
			Points: []sims.PointSet{{Name: "data", X: dx, Y: dy, Class: classData}, {Name: "D(z), z ~ N(0,I)", X: gx, Y: gy, Class: classModel}},
			Legend: []string{"data", "D(z), z ~ N(0, I)"}})
	} else {
		charts = append(charts, s.manifold(), s.samples())
	}
	charts = append(charts, curves)
	return sims.Frame{Sim: VAE.Name, Step: s.m.Steps(),
		Metrics: []sims.Metric{{Name: "neg_elbo", Value: sims.FiniteOr(s.m.NegELBO(), 0)},
			{Name: "recon", Value: sims.FiniteOr(s.m.Recon(), 0)}, {Name: "KL", Value: sims.FiniteOr(s.m.KL(), 0)}},
		Charts: charts,
		Text: []string{
			"z = μ(x) + σ(x)⊙ε (eq 3.25); KL = ½Σ(μ² + σ² − log σ² − 1) (eq 3.23)",
			s.reconText(),
		}}
}

func (s *vaeSim) reconText() string {
	if s.d == 2 {
		return "−log p(x|z) = log 2π + 2 log s + ‖x − D(z)‖²/(2s²): the −1/(2s²) that (3.24), (3.26) miss"
	}
	return "Bernoulli decoder: −log p(x|z) = Σ softplus(D(z)) − x·D(z) over the pixels"
}

// classIndex maps the shown labels to palette classes.
func (s *vaeSim) classIndex() []int {
	out := make([]int, len(s.shownLab))
	for i, l := range s.shownLab {
		out[i] = l % sims.MaxClasses
	}
	return out
}

// classNames names the latent scatter's classes: the digits, or the
// modes of the 2-D target.
func (s *vaeSim) classNames() []string {
	names := make([]string, min(s.classes, sims.MaxClasses))
	for i := range names {
		if s.d == 2 {
			names[i] = fmt.Sprintf("mode %d", i+1)
		} else {
			names[i] = strconv.Itoa(i)
		}
	}
	return names
}

// manifold decodes a vaeGrid × vaeGrid grid of z over [−2, 2]².
func (s *vaeSim) manifold() sims.ImageChart {
	side := int(math.Sqrt(float64(s.d)))
	z := make([]float64, 0, 2*vaeGrid*vaeGrid)
	for j := range vaeGrid {
		for i := range vaeGrid {
			z = append(z, -2+4*float64(i)/(vaeGrid-1), 2-4*float64(j)/(vaeGrid-1))
		}
	}
	out := s.m.Decode(z)
	c := sims.ImageChart{Title: "decoded manifold, z over [−2, 2]²", Scale: sims.Grey, Lo: 0, Hi: 1, Columns: vaeGrid}
	for k := range vaeGrid * vaeGrid {
		c.Images = append(c.Images, sims.Image{W: side, H: side, Pix: out[k*s.d : (k+1)*s.d]})
	}
	return c
}

// samples decodes the first prior draws.
func (s *vaeSim) samples() sims.ImageChart {
	side := int(math.Sqrt(float64(s.d)))
	const n = vaeTiles
	out := s.m.Decode(s.prior[:2*n])
	c := sims.ImageChart{Title: "samples D(z), z ~ N(0, I)", Scale: sims.Grey, Lo: 0, Hi: 1}
	for k := range n {
		c.Images = append(c.Images, sims.Image{W: side, H: side, Pix: out[k*s.d : (k+1)*s.d]})
	}
	return c
}

func (s *vaeSim) Result() map[string]any {
	return map[string]any{"neg_elbo": s.m.NegELBO(), "recon": s.m.Recon(), "kl": s.m.KL(), "steps": s.m.Steps()}
}

// ---- the discrete toy ----

// toySteps is the number of steps over which q moves from the notes' q to
// the posterior.
const toySteps = 40

// The notes' toy (catalogue §3.8): p(z), p(x|z) and the starting q.
var (
	toyPrior = []float64{0.2, 0.5, 0.3}
	toyLik   = []float64{0.9, 0.1, 0.4}
	toyQ0    = []float64{0.3, 0.3, 0.4}
)

type toySim struct {
	step  int
	post  []float64
	trace *sims.Trace // log p, ELBO, KL
}

func newToySim() *toySim {
	t := &toySim{trace: sims.NewTrace(0, 3)}
	px := 0.0
	for k := range toyPrior {
		px += toyPrior[k] * toyLik[k]
	}
	for k := range toyPrior {
		t.post = append(t.post, toyPrior[k]*toyLik[k]/px)
	}
	t.record()
	return t
}

// q is the variational law at the current step: the notes' q moved a
// fraction step/toySteps of the way to the posterior.
func (t *toySim) q() []float64 {
	a := float64(t.step) / toySteps
	q := make([]float64, len(toyQ0))
	for k := range q {
		q[k] = (1-a)*toyQ0[k] + a*t.post[k]
	}
	return q
}

func (t *toySim) record() {
	lp, elbo, kl := autoenc.DiscreteELBO(toyPrior, toyLik, t.q())
	t.trace.Add(lp, elbo, kl)
}

func (t *toySim) Step() error {
	if t.step == toySteps {
		return sims.ErrConverged
	}
	t.step++
	t.record()
	if t.step == toySteps {
		return sims.ErrConverged
	}
	return nil
}

func (t *toySim) Frame() sims.Frame {
	q := t.q()
	lp, elbo, kl := autoenc.DiscreteELBO(toyPrior, toyLik, q)
	bars := sims.BarChart{Title: "log p(x) = ELBO + KL(q ‖ p(z|x)) (eq 3.22), as −values",
		Bars: []sims.Bar{{Label: "−log p(x)", Value: -lp, Class: classRef}, {Label: "−ELBO", Value: -elbo, Class: classFit},
			{Label: "KL gap", Value: kl, Class: classModel}}}
	lines := traceChart("log p(x), ELBO and the gap as q → p(z|x)", t.trace,
		sims.Series{Name: "log p(x)", Y: t.trace.Column(0), Class: classRef, Bound: true},
		sims.Series{Name: "ELBO", Y: t.trace.Column(1), Class: classFit},
		sims.Series{Name: "KL", Y: t.trace.Column(2), Class: classModel})
	qs := sims.BarChart{Title: "q(z) against the posterior p(z|x)", Max: 1}
	for k := range q {
		qs.Bars = append(qs.Bars, sims.Bar{Label: fmt.Sprintf("q(z=%d)", k+1), Value: q[k], Class: classFit},
			sims.Bar{Label: fmt.Sprintf("p(z=%d|x)", k+1), Value: t.post[k], Class: classRef})
	}
	return sims.Frame{Sim: VAE.Name, Step: t.step,
		Metrics: []sims.Metric{{Name: "log_p", Value: lp}, {Name: "ELBO", Value: elbo}, {Name: "KL", Value: kl}},
		Charts:  []sims.Chart{bars, lines, qs},
		Text: []string{
			"p(z) = (0.2, 0.5, 0.3), p(x|z) = (0.9, 0.1, 0.4); q starts at (0.3, 0.3, 0.4)",
			"ELBO is a lower bound on log p(x) (not p(x)); equality iff q = p(z|x)",
		}}
}

func (t *toySim) Result() map[string]any {
	lp, elbo, kl := autoenc.DiscreteELBO(toyPrior, toyLik, t.q())
	return map[string]any{"log_p": lp, "elbo": elbo, "kl": kl, "q": t.q()}
}
