package mixturesim

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/digits"
	"github.com/thelab/lab/algo/mixture"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// EMBernoulli is EM for a mixture of Bernoulli distributions on binarised
// procedural digits (seed 002 Exercise 2.3, L768–770, which points to
// Bishop §9.3.3 for it; catalogue item B7): the K component means drawn as
// images, each turning from the blurred digit it started at into a digit
// prototype, the log posterior per image (never falling) and the
// log-likelihood, and the purity of the responsibilities against the true
// digits. A step is one EM iteration (an M-step, then the E-step at the
// new parameters).
var EMBernoulli = &sims.Spec{
	Name:   "em-bernoulli",
	Title:  "EM for a Bernoulli mixture on binary digits: the means become prototypes",
	Source: "seed 002 §2.4 Ex 2.3 (L768–770), updates from Bishop PRML §9.3.3 [D]; catalogue B7",
	Steps:  500,
	// Two iterations a second: the means sharpen over 50–130 iterations
	// (measured), then the next seed's digits.
	Speed:  2,
	Replay: sims.ReplayPause,
	Params: param.List(bmK, bmN, bmSize, bmHand, bmA, bmTol),
	New:    newEMBernoulli,
	Size:   bernoulliSize,

	Metrics: bernoulliMetrics,
}

// pixels is a side of the digit images.
type pixels int

func (p pixels) String() string { return strconv.Itoa(int(p)) }

// em-bernoulli's parameters.
var (
	bmK    = param.Int("k", 10, "number of components K").Range(1, maxK)
	bmN    = param.Int("n", 1000, "number of digit images (0–9 in turn)").Range(20, 5000)
	bmSize = param.Choice("size", []pixels{8, 16}, 16, "pixels on a side of the images")
	bmHand = param.Float("hand", 0.5,
		"how much the hand varies (slant, rotation, scale, shift, wobble; 1 is the default hand of the other digit sims): "+
			"a Bernoulli mixture has one template per component, and shifted strokes blur it").Range(0, 1.5)
	bmA = param.Float("a", 2, "the Beta(a, a) prior of each pixel's probability (MAP M-step): a = 2 adds one inked and one "+
		"blank pseudo-pixel (Laplace), keeping μ off 0 and 1").Range(1, 10).OpenMin()
	bmTol = param.Float("tol", 1e-7, "stop when an iteration raises the log posterior per image by less").Range(0, 1)
)

// bmInk bounds the fraction of inked pixels of a binarised digit of
// size×size, whose indices the engine stores (measured on 2000 digits:
// 0.26–0.28 at 16×16 and 0.35–0.39 at 8×8, the steadier hands inking more).
func bmInk(size int) float64 {
	if size <= 8 {
		return 0.42
	}
	return 0.3
}

// bmSamples is the number of binarised inputs the pane shows.
const bmSamples = 10

// bernoulliSize is what em-bernoulli holds: the engine (its inked pixel
// indices, at most bmInk of all), the labels, the sample inputs, the Trace
// of two columns with its copy, and a measured base (the images of a
// Frame, the notes).
func bernoulliSize(c sims.Config) int64 {
	v := c.Values
	n, k, size := bmN.Get(v), bmK.Get(v), int(bmSize.Get(v))
	d := size * size
	on := int64(bmInk(size) * float64(n*d))
	return mixture.BernoulliBytes(n, d, k, on) + algo.HeapBytes(8*int64(n)) + algo.HeapBytes(8*int64(bmSamples*d)) +
		8*2*(sims.TraceCap+min(500, sims.TraceCap)) + 8*int64(k*d) + 48<<10
}

type bmSim struct {
	em      *mixture.BernoulliEM
	labels  []int
	size    int
	samples []float64 // bmSamples binarised inputs, one of each digit
	trace   *sims.Trace
	falls   int     // iterations at which the log posterior fell beyond rounding (must stay 0)
	worst   float64 // the largest such relative fall
	done    bool
	purity0 float64 // at the start
}

func newEMBernoulli(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	n, size, h := bmN.Get(v), int(bmSize.Get(v)), bmHand.Get(v)
	st := digits.Style{Slant: h, Rotate: h, Scale: h, Shift: h, Thickness: 1, Wobble: h, Noise: 1}
	pix, labels, err := digits.Generate(rand.New(rand.NewPCG(cfg.Seed, dataStream)), n, size, st)
	if err != nil {
		return nil, err
	}
	for i, p := range pix {
		pix[i] = 0
		if p > 0.5 {
			pix[i] = 1
		}
	}
	d := size * size
	em, err := mixture.NewBernoulliEM(pix, n, d, bmK.Get(v), bmA.Get(v), bmTol.Get(v), initRNG(cfg.Seed, 0))
	if err != nil {
		return nil, sims.Blame(err, v, sims.As("x", bmN))
	}
	s := &bmSim{em: em, labels: labels, size: size, samples: make([]float64, 0, bmSamples*d), trace: sims.NewTrace(0, 2)}
	s.samples = append(s.samples, pix[:min(bmSamples, n)*d]...)
	s.purity0, _ = em.Purity(labels, 10, nil)
	s.add()
	return s, nil
}

func (s *bmSim) add() {
	n := float64(s.em.N())
	s.trace.Add(s.em.Objective()/n, s.em.LogLik()/n)
}

func (s *bmSim) Step() error {
	prev := s.em.Objective()
	err := s.em.Step()
	if errors.Is(err, algo.ErrConverged) {
		s.done = true
	}
	if err != nil {
		return err
	}
	if fall := (prev - s.em.Objective()) / math.Abs(prev); fall > 1e-12 {
		s.falls++
		s.worst = math.Max(s.worst, fall)
	}
	s.add()
	return nil
}

func (s *bmSim) Frame() sims.Frame {
	e := s.em
	k, d := e.K(), e.D()
	purity, major := e.Purity(s.labels, 10, nil)
	counts := make([]int, k)
	for _, j := range e.Hard(nil) {
		counts[j]++
	}
	images := make([]sims.Image, k)
	bars := make([]sims.Bar, k)
	for j := range k {
		name := "·"
		if major[j] >= 0 {
			name = strconv.Itoa(major[j])
		}
		images[j] = sims.Image{Caption: fmt.Sprintf("%s %.2f", name, e.Weight(j)), W: s.size, H: s.size,
			Pix: append([]float64(nil), e.Mean(j)...)}
		bars[j] = sims.Bar{Label: strconv.Itoa(j+1) + "→" + name, Value: float64(counts[j]), Class: j}
	}
	inputs := make([]sims.Image, len(s.samples)/d)
	for i := range inputs {
		inputs[i] = sims.Image{Caption: strconv.Itoa(s.labels[i]), W: s.size, H: s.size,
			Pix: append([]float64(nil), s.samples[i*d:(i+1)*d]...)}
	}
	x0, x1 := s.trace.Span()
	n := float64(e.N())
	charts := []sims.Chart{
		sims.ImageChart{Title: "component means μ_k: majority digit and π_k", Images: images, Scale: sims.Grey, Lo: 0, Hi: 1},
		sims.LineChart{Title: "per image: log posterior (never falls), log-likelihood", X0: x0, X1: x1, XLabel: "iteration",
			Series: []sims.Series{{Name: "log posterior", Y: s.trace.Column(0), Class: 0},
				{Name: "log-likelihood", Y: s.trace.Column(1), Class: 1}}},
		sims.BarChart{Title: "images per component (argmax γ), → majority digit", Bars: bars},
		sims.ImageChart{Title: "binarised inputs (pixels above ½)", Images: inputs, Scale: sims.Grey, Lo: 0, Hi: 1},
	}
	metrics := []sims.Metric{
		{Name: "loglik", Value: e.LogLik() / n},
		{Name: "objective", Value: e.Objective() / n},
		{Name: "purity", Value: purity},
		{Name: "iter", Value: float64(e.Iter())},
	}
	return sims.Frame{Sim: EMBernoulli.Name, Step: e.Iter(), Metrics: metrics, Charts: charts, Text: s.notes(purity)}
}

func (s *bmSim) notes(purity float64) []string {
	e := s.em
	var phase string
	switch {
	case s.done:
		phase = fmt.Sprintf("converged after %s: each mean is a digit's prototype", sims.Count(e.Iter(), "iteration"))
	case e.Iter() == 0:
		phase = "start: each mean a random image, blurred; next: M-step, E-step"
	default:
		phase = fmt.Sprintf("iteration %d: M-step (weighted pixel means), E-step (in logs)", e.Iter())
	}
	mono := fmt.Sprintf("the log posterior never fell in %s (EM's monotonicity)", sims.Count(e.Iter(), "iteration"))
	if s.falls > 0 {
		mono = fmt.Sprintf("⚠ the log posterior fell %d times (worst %.2g relative)", s.falls, s.worst)
	}
	return []string{phase, mono,
		fmt.Sprintf("purity %.2f (%.2f at start): images in a component of their digit", purity, s.purity0),
		"a Beta prior keeps μ in (0, 1): EM raises the log posterior, not the likelihood",
	}
}

func (s *bmSim) Result() map[string]any {
	e := s.em
	purity, major := e.Purity(s.labels, 10, nil)
	weights := make([]float64, e.K())
	for j := range weights {
		weights[j] = e.Weight(j)
	}
	return map[string]any{
		"iterations":     e.Iter(),
		"converged":      s.done,
		"loglik":         e.LogLik(),
		"objective":      e.Objective(),
		"purity":         purity,
		"majority_digit": major,
		"weights":        weights,
		"falls":          s.falls,
	}
}
