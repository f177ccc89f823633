package rffsim

import (
	"fmt"
	"math"

	"github.com/thelab/lab/algo/fourier"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// Fourier is a wave's Fourier series, one harmonic a step: the partial
// sum closing on the wave, the spectrum of amplitudes, the L² error that
// only falls, and Gibbs' overshoot that does not.
var Fourier = &sims.Spec{
	Name:   "fourier",
	Title:  "Fourier series: partial sums s_N of a square, sawtooth or triangle wave, one harmonic a step",
	Source: "seed 004 L5–35 (Euler, orthogonality of sines and cosines, Fourier series and coefficients)",
	Steps:  fourier.MaxHarmonics,
	Speed:  2,
	// The default's 40 harmonics take 20 s at 2 a second; the pane shows
	// the converged sum, then draws the next wave's.
	Replay:  sims.ReplayPause,
	Params:  param.List(fouWave, fouN),
	Metrics: fourierMetrics,
	Size:    fourierSize,
	New:     newFourier,
}

// fourier's parameters.
var (
	fouWave = param.Choice("wave", []fourier.Wave{fourier.Square, fourier.Sawtooth, fourier.Triangle}, fourier.Square,
		"square sign x; sawtooth x/π; triangle 1 − 2|x|/π (continuous: no Gibbs overshoot), on a period [−π, π)")
	fouN = param.Int("harmonics", 40, "the last harmonic N of the partial sum").Range(1, fourier.MaxHarmonics)
)

// fourierGrid is the points the wave and its partial sum are drawn at:
// twelve a period of the 200th harmonic.
const fourierGrid = 1201

// fourierSize is the coefficients (two a harmonic, in the engine and the
// Frame's bars and errors) and the grid's four curves (wave, sum, x, the
// Frame's copy) beside what any Frame holds.
func fourierSize(cfg sims.Config) int64 {
	return fourierBase + 8*(6*int64(fouN.Get(cfg.Values)+1)+5*fourierGrid)
}

// fourierBase is what fourier holds whatever its size.
const fourierBase = 24 << 10

type fourierSim struct {
	s      *fourier.Series
	wave   []float64 // the wave on the grid
	errs   []float64 // ‖s − s_N‖ for N = 0, 1, …
	view   sims.Rect
	bars   []sims.Bar
	amps   float64 // the largest amplitude, fixed for the bars' scale
	pathsX []float64
}

func newFourier(cfg sims.Config) (sims.Sim, error) {
	w, n := fouWave.Get(cfg.Values), fouN.Get(cfg.Values)
	s, err := fourier.New(w, n, fourierGrid)
	if err != nil {
		return nil, err
	}
	f := &fourierSim{s: s, wave: make([]float64, fourierGrid), errs: make([]float64, 0, n+1),
		bars: make([]sims.Bar, 0, n+1), pathsX: s.Grid()}
	for i, x := range s.Grid() {
		f.wave[i] = w.At(x)
	}
	// Room for the square wave's Gibbs peak, 1.18, and no more.
	f.view = sims.Rect{XMin: -math.Pi, XMax: math.Pi, YMin: -1.35, YMax: 1.35}
	return f, nil
}

func (f *fourierSim) Step() error {
	err := f.s.Step()
	n := f.s.N()
	if n >= 0 && len(f.errs) == n {
		f.errs = append(f.errs, f.s.L2Error())
		a, b := f.s.Coef(n)
		amp := math.Hypot(a, b)
		if n == 0 {
			amp = math.Abs(a) / 2 // the constant term is a₀/2
		}
		f.bars = append(f.bars, sims.Bar{Label: fmt.Sprint(n), Value: amp, Class: 0})
		f.amps = math.Max(f.amps, amp)
	}
	return err
}

func (f *fourierSim) Frame() sims.Frame {
	n := f.s.N()
	w := f.s.Wave()
	paths := []sims.Path{{X: f.pathsX, Y: f.wave, Class: 1, Dotted: true}}
	title := "the wave; no harmonic yet"
	if n >= 0 {
		paths = append(paths, sims.Path{X: f.pathsX, Y: append([]float64(nil), f.s.Sum()...), Class: 0})
		title = fmt.Sprintf("s_%d(x) against the %s wave", n, w)
	}
	metrics := []sims.Metric{
		{Name: "N", Value: float64(max(n, 0))},
		{Name: "L² error", Value: f.s.L2Error(), Scale: f.s.Norm()},
		sims.MetricOr("overshoot", f.s.Overshoot(), overshootWhy(w, n)),
		{Name: "orth_err", Value: f.s.OrthError(), Scale: math.Pi},
	}
	if n >= 0 {
		a, b := f.s.Coef(n)
		metrics = append(metrics, sims.Metric{Name: "a_N", Value: a, Scale: f.amps}, sims.Metric{Name: "b_N", Value: b, Scale: f.amps})
	}
	bars := append([]sims.Bar(nil), f.bars...)
	return sims.Frame{
		Sim:     Fourier.Name,
		Step:    n + 1,
		Metrics: metrics,
		Charts: []sims.Chart{
			sims.CanvasChart{Title: title, View: f.view, Paths: paths,
				Legend: []string{"s_N", w.String()}, XLabel: "x", YLabel: "s"},
			sims.BarChart{Title: "amplitudes √(a_n² + b_n²), n = 0…N", Bars: bars, Max: f.amps},
			sims.LineChart{Title: "‖s − s_N‖ (Bessel: never rises)", LogY: true, X0: 0, X1: float64(max(n, 0)), XLabel: "N",
				Series: []sims.Series{{Name: "L² error", Y: append([]float64(nil), f.errs...), Class: 0}}},
		},
		Text: f.notes(n),
	}
}

// overshootWhy says why a wave has no overshoot to show.
func overshootWhy(w fourier.Wave, n int) string {
	if size, _ := w.Jump(); size == 0 {
		return "the triangle wave has no jump"
	}
	if n < 1 {
		return "no harmonic yet"
	}
	return ""
}

func (f *fourierSim) notes(n int) []string {
	lines := []string{
		"s_N = a₀/2 + Σ aₙ cos nx + bₙ sin nx, aₙ = (1/π)∫ s cos nx, bₙ = (1/π)∫ s sin nx: one step adds harmonic n",
		"∫ sin mx sin nx = ∫ cos mx cos nx = π δ_mn, ∫ cos mx sin nx = 0: each coefficient is a projection",
	}
	if size, _ := f.s.Wave().Jump(); size > 0 {
		lines = append(lines, fmt.Sprintf("Gibbs: near the jump s_N overshoots by %.2f%% of it as N grows — the bump narrows, never shrinks",
			100*fourier.GibbsLimit))
	} else {
		lines = append(lines, "continuous wave: coefficients fall like 1/n², s_N converges uniformly, no overshoot")
	}
	return lines
}

func (f *fourierSim) Result() map[string]any {
	n := f.s.N()
	a := make([]float64, max(n+1, 0))
	b := make([]float64, max(n+1, 0))
	for k := range a {
		a[k], b[k] = f.s.Coef(k)
	}
	r := map[string]any{
		"wave":      f.s.Wave().String(),
		"N":         n,
		"a":         a,
		"b":         b,
		"l2_error":  f.s.L2Error(),
		"overshoot": f.s.Overshoot(),
	}
	if why := overshootWhy(f.s.Wave(), n); why != "" {
		r["undefined"] = map[string]string{"overshoot": why}
	}
	return r
}
