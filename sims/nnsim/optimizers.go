package nnsim

import (
	"fmt"
	"math"
	"strings"

	"github.com/thelab/lab/algo/optim"
	"github.com/thelab/lab/algo/tensor/opt"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// surface is the optimisers' race track.
type surface string

func (s surface) String() string { return string(s) }

const (
	surfRosenbrock surface = "rosenbrock"
	surfQuadratic  surface = "quadratic"
	surfSaddle     surface = "saddle"
)

// raceMethods are the racers, in legend order.
var raceMethods = []opt.Method{opt.SGD, opt.Momentum, opt.Nesterov, opt.RMSProp, opt.Adam}

// raceRates are the default rates per surface and method: each about the
// largest that is stable from the standard start, so that the race is
// between the methods and not their tuning.
var raceRates = map[surface][5]float64{
	surfRosenbrock: {0.001, 0.0002, 0.0002, 0.002, 0.02},
	surfQuadratic:  {0.05, 0.01, 0.01, 0.05, 0.05},
	surfSaddle:     {0.05, 0.01, 0.01, 0.01, 0.01},
}

func raceRate(i int) func(param.Values) float64 {
	return func(v param.Values) float64 { return raceRates[optSurface.Get(v)][i] }
}

// optimizers' parameters.
var (
	optSurface = param.Choice("surface", []surface{surfRosenbrock, surfQuadratic, surfSaddle}, surfRosenbrock,
		"rosenbrock: 100(y − x²)² + (1 − x)², a curved valley; quadratic: ½xᵀAx with condition number kappa; "+
			"saddle: ½x² + ¼y⁴ − ½y², a saddle between two minima")
	optKappa = param.Float("kappa", 20, "condition number of the quadratic").Range(1, 1000)
	optX0    = param.Vector("x0", []float64{-1.2, 1}, "common start x,y").Range(-5, 5).
			DefaultFunc(func(v param.Values) []float64 {
			switch optSurface.Get(v) {
			case surfQuadratic:
				return []float64{-2.5, 1.5}
			case surfSaddle:
				return []float64{1.8, 1e-5}
			}
			return []float64{-1.2, 1}
		}, "(−1.2, 1) rosenbrock, (−2.5, 1.5) quadratic, (1.8, 0.00001) saddle")
	optMu  = param.Float("momentum", 0.9, "μ of momentum and nesterov").Range(0, 0.999)
	optLRs = [5]*param.FloatDecl{raceLR(0), raceLR(1), raceLR(2), raceLR(3), raceLR(4)}
)

// raceLR declares racer i's rate, lr_sgd, lr_momentum, …
func raceLR(i int) *param.FloatDecl {
	m := raceMethods[i]
	return param.Float("lr_"+m.String(), raceRates[surfRosenbrock][i], "learning rate of "+m.String()).
		Range(0, 10).OpenMin().DefaultFunc(raceRate(i), "the surface's: about the largest stable from the start")
}

// Optimizers races SGD, momentum, Nesterov, RMSProp and Adam — the update
// rules that train the networks (algo/tensor/opt) — from one start on a
// 2-D surface: the trajectories over the contours and f − f* against the
// step (seed 002 §6.1, Remark 6.3).
var Optimizers = &sims.Spec{
	Name:   "optimizers",
	Title:  "Optimisers racing: SGD, momentum, Nesterov, RMSProp, Adam on a 2-D surface",
	Source: "seed 002 §6.1 (Remark 6.3, L2784; F1's optimiser race)",
	Steps:  3000,
	Speed:  30,
	Params: param.List(optSurface, optKappa, optX0, optMu, optLRs[0], optLRs[1], optLRs[2], optLRs[3], optLRs[4]),
	New:    newOptimizers,
	Size:   func(sims.Config) int64 { return optimizersBytes },

	Metrics: optimizersMetrics(),
}

// optimizersBytes is the size of an optimizers sim whatever its
// parameters: the traces of the racers' paths and gaps, full, with the
// Frame's copies of them, and the surface's grid.
var optimizersBytes = 32<<10 + sims.TraceBytes(3*len(raceMethods)) + 8*raceGridX*raceGridY

type optimizersSim struct {
	surf   surface
	f      opt.Objective
	fstar  float64
	minima [][]float64
	view   sims.Rect
	race   *opt.Race
	lr     [5]float64
	mu     float64
	x0     []float64
	path   *sims.Trace // x, y of each racer
	gap    *sims.Trace // f − f* of each racer
	field  *sims.Grid
}

func newOptimizers(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	s := &optimizersSim{surf: optSurface.Get(v), mu: optMu.Get(v), x0: optX0.Get(v)}
	switch s.surf {
	case surfQuadratic:
		p := optim.NewProblem(optim.FnQuadratic, optKappa.Get(v))
		s.f, s.minima, s.view = p.Objective, p.Minima, sims.Rect{XMin: -3, XMax: 3, YMin: -2, YMax: 2}
	case surfSaddle:
		s.f, s.fstar = optim.Saddle{}, -0.25
		s.minima, s.view = [][]float64{{0, 1}, {0, -1}}, sims.Rect{XMin: -2, XMax: 2, YMin: -1.6, YMax: 1.6}
	default:
		p := optim.NewProblem(optim.FnRosenbrock, 0)
		s.f, s.minima, s.view = p.Objective, p.Minima, sims.Rect{XMin: -2, XMax: 2, YMin: -1, YMax: 3}
	}
	cfgs := make([]opt.Config, len(raceMethods))
	for i, m := range raceMethods {
		s.lr[i] = optLRs[i].Get(v)
		cfgs[i] = opt.Config{Method: m, LR: s.lr[i], Momentum: s.mu}
	}
	var err error
	if s.race, err = opt.NewRace(s.f, s.x0, cfgs); err != nil {
		return nil, sims.Blame(err, v, sims.As("momentum", optMu))
	}
	s.path = sims.NewTrace(0, 2*len(raceMethods))
	s.gap = sims.NewTrace(0, len(raceMethods))
	s.record()
	// The contours: log of f − f* (Rosenbrock's valley spans decades).
	s.field = sims.SampleGrid(s.view, raceGridX, raceGridY, func(x, y float64) float64 {
		return math.Log10(s.f.Func([]float64{x, y}) - s.fstar + 1e-3)
	})
	s.field.Levels = 8
	return s, nil
}

// raceTol ends the race: every racer still running within it of f*.
const raceTol = 1e-12

// The surface's grid: fine enough for half-block cells on a wide pane.
const (
	raceGridX = 96
	raceGridY = 48
)

// record adds the racers' positions and gaps to the traces, the gaps
// floored at 10⁻¹⁶ for the log scale (f = f* to rounding).
func (s *optimizersSim) record() (done bool) {
	var row [2 * 5]float64
	var gaps [5]float64
	done = true
	for i := range raceMethods {
		x := s.race.X(i)
		row[2*i], row[2*i+1] = x[0], x[1]
		gaps[i] = math.Max(s.race.F(i)-s.fstar, 1e-16)
		done = done && (gaps[i] <= raceTol || s.race.Stopped(i) != nil)
	}
	s.path.Add(row[:]...)
	s.gap.Add(gaps[:]...)
	return done
}

func (s *optimizersSim) Step() error {
	if err := s.race.Step(); err != nil {
		return err
	}
	if s.record() {
		return fmt.Errorf("every racer within %g of f*: %w", raceTol, sims.ErrConverged)
	}
	return nil
}

func (s *optimizersSim) Frame() sims.Frame {
	c := sims.CanvasChart{Title: fmt.Sprintf("%s: paths over log(f − f*)", s.surf),
		View: s.view, Heat: s.field, Contours: s.field}
	metrics := make([]sims.Metric, 0, len(raceMethods)+1)
	x0, x1 := s.gap.Span()
	curves := sims.LineChart{Title: "f − f*", LogY: true, X0: x0, X1: x1, XLabel: "step"}
	for i, m := range raceMethods {
		c.Legend = append(c.Legend, raceShort[i])
		c.Paths = append(c.Paths, sims.Path{X: s.path.Column(2 * i), Y: s.path.Column(2*i + 1), Class: i})
		x := s.race.X(i)
		glyph := '●'
		if s.race.Stopped(i) != nil {
			glyph = '✗'
		}
		c.Markers = append(c.Markers, sims.Marker{X: x[0], Y: x[1], Glyph: glyph, Class: i})
		curves.Series = append(curves.Series, sims.Series{Name: raceShort[i], Y: s.gap.Column(i), Class: i})
		metrics = append(metrics, sims.Metric{Name: m.String(), Value: s.race.F(i) - s.fstar})
	}
	for _, m := range s.minima {
		c.Markers = append(c.Markers, sims.Marker{X: m[0], Y: m[1], Glyph: '★', Class: 4})
	}
	c.Markers = append(c.Markers, sims.Marker{X: s.x0[0], Y: s.x0[1], Glyph: '○', Class: -1})
	return sims.Frame{Sim: Optimizers.Name, Step: s.race.Steps(), Metrics: metrics,
		Charts: []sims.Chart{c, curves}, Text: s.notes()}
}

// raceShort names the racers in the legends and the notes, short enough
// that an 80-column pane names all five.
var raceShort = []string{"sgd", "mom", "nest", "rms", "adam"}

func (s *optimizersSim) notes() []string {
	rates := make([]string, len(raceMethods))
	for i := range raceMethods {
		rates[i] = fmt.Sprintf("%s %g", raceShort[i], s.lr[i])
	}
	lines := []string{
		"η: " + strings.Join(rates, " ") + fmt.Sprintf("; μ %g", s.mu),
		"momentum v ← μv − ηg, θ ← θ + v; nesterov θ ← θ + μv − ηg (look-ahead)",
		"rmsprop θ ← θ − ηg/√s: steps ≈ η·sign(g); adam: bias-corrected m/√s",
	}
	for i, m := range raceMethods {
		if err := s.race.Stopped(i); err != nil {
			lines = append(lines, fmt.Sprintf("%s stopped (✗): %v", m, err))
		}
	}
	return lines
}

func (s *optimizersSim) Result() map[string]any {
	r := map[string]any{"steps": s.race.Steps(), "surface": s.surf.String()}
	for i, m := range raceMethods {
		r[m.String()] = map[string]any{"x": append([]float64(nil), s.race.X(i)...), "gap": s.race.F(i) - s.fstar,
			"lr": s.lr[i], "diverged": s.race.Diverged(i)}
	}
	return r
}
