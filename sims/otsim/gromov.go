package otsim

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/ot/gromov"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// Gromov is entropic Gromov–Wasserstein matching (Mémoli 2011; Peyré,
// Cuturi & Solomon 2016; POT's ot.gromov.entropic_gromov_wasserstein and
// its plot_gromov example): two shapes in spaces that share no
// coordinates — a spiral in the plane and a copy of it rotated, reflected
// and relabelled, or laid into 3-D space — are matched by their distance
// matrices alone. One step is one outer iteration: an entropic OT problem
// whose cost is the gradient 2 L ⊗ T of the GW objective, solved by the
// log-domain Sinkhorn engine. The first shape is coloured along the
// spiral and each point of the copy takes the colour of its match, so
// that the colours fall into order as the coupling finds the isometry.
var Gromov = &sims.Spec{
	Name:  "gromov",
	Title: "Gromov–Wasserstein: match two shapes in different spaces by their distance matrices alone",
	Source: "Mémoli 2011 (§5, the square loss); Peyré, Cuturi & Solomon 2016 (§2, Prop 1 and eq 8; POT's " +
		"entropic_gromov_wasserstein, plot_gromov); entropic OT: seed 002 §5.4 (eqs 5.11–5.12)",
	Steps: gwSteps,
	Speed: 1,
	// The matching appears in three or four outer iterations and the run
	// converges in about ten: the pane shows it, then the next seed's.
	Replay:  sims.ReplayPause,
	Params:  param.List(gwShape, gwN, gwNoise, gwEps, gwTol),
	New:     newGromov,
	Size:    gromovSize,
	Metrics: gromovMetrics,
}

// gwProblem names the second shape of gromov.
type gwProblem string

func (p gwProblem) String() string { return string(p) }

const (
	gwRotate gwProblem = "rotate"
	gwSpace  gwProblem = "3d"
)

// gwMaxPoints bounds each shape: an outer iteration is O(n³) for the
// tensor and a Sinkhorn solve of n² a pass.
const gwMaxPoints = 120

// gwSteps is a headless run's default length: the curves hold a value a
// step.
const gwSteps = 200

// gwArcs is the number of colours along the spiral.
const gwArcs = 8

// gwInnerTol and gwInnerIters bound each inner Sinkhorn solve.
const (
	gwInnerTol   = 1e-9
	gwInnerIters = 1000
)

var (
	gwShape = param.Choice("shape", []gwProblem{gwRotate, gwSpace}, gwRotate,
		"the copy of the spiral: rotate, rotated, reflected and relabelled in the plane; "+
			"3d, laid into space by a rotation of R³ and drawn seen from an angle (its distances are the plane's)")
	gwN     = param.Int("n", 40, "points on each shape").Range(2, gwMaxPoints)
	gwNoise = param.Float("noise", 0.01, "noise added to the copy's points (the spiral has radius about 1)").Range(0, 0.5)
	gwEps   = param.Float("eps", 0.005, "ε of each inner problem, against distances divided by their largest: "+
		"small, a sharp matching and slow inner solves").Range(1e-4, 10)
	gwTol = param.Float("tol", 1e-5, "stop when the coupling moves by at most tol in ℓ1 (0: run on)").Range(0, 1)
)

// gromovSize is the two shapes and their distance matrices, the engine
// with its inner Sinkhorn, the plan's chart, and the curves.
func gromovSize(cfg sims.Config) int64 {
	n := gwN.Get(cfg.Values)
	return gwBase + 2*8*int64(n)*int64(n) + 8*8*int64(n) + gromov.Footprint(n, n) +
		newPlanFrame(n, n).chartBytes(2) + 4*8*int64(n) + 2*8*int64(gwSteps)
}

const gwBase = 24 << 10

type gwSim struct {
	shape      gwProblem
	x          []float64 // the spiral, 2-D
	y          []float64 // the copy, row-major in dim dimensions
	dim        int
	ys, yt     []float64 // the copy's drawn coordinates
	tx         []float64 // the spiral's parameter of each point
	truth      []int     // copy point truth[i] is spiral point i
	arc        []int     // the class of each spiral point
	g          *gromov.GW
	f          planFrame
	obj, reg   []float64 // E(T) and E − εH per outer iteration
	view1, vw2 sims.Rect
	done       bool
}

func newGromov(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	n := gwN.Get(v)
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x6777)) // "gw"
	s := &gwSim{shape: gwShape.Get(v), f: newPlanFrame(n, n)}
	s.spiral(rng, n)
	s.y, s.dim = s.copyShape(rng, gwNoise.Get(v))
	c1, c2 := gromov.Distances(s.x, 2), gromov.Distances(s.y, s.dim)
	scale(c1)
	scale(c2)
	u := uniformMass(n)
	g, err := gromov.New(c1, c2, u, u, gromov.Config{Eps: gwEps.Get(v), Tol: gwTol.Get(v), InnerTol: gwInnerTol, InnerIters: gwInnerIters})
	if err != nil {
		return nil, err
	}
	s.g = g
	s.view1 = sims.Bounds(split(s.x)).Pad(0.08)
	s.vw2 = sims.Bounds(s.ys, s.yt).Pad(0.08)
	s.record()
	return s, nil
}

// scale divides a distance matrix by its largest entry (POT's example
// does), so that ε reads the same whatever the shapes' size; a matrix of
// zeros (one point) is left.
func scale(c []float64) {
	mx := slices.Max(c)
	if mx == 0 {
		return
	}
	for k := range c {
		c[k] /= mx
	}
}

// spiral draws n points along r = 0.25 + 0.75 t, angle 3πt, t jittered
// about n even steps of [0, 1] (no two points nearly coincide), in order
// of t (the plan's rows then follow the spiral), each coloured by the
// eighth of the spiral it lies in.
func (s *gwSim) spiral(rng *rand.Rand, n int) {
	t := make([]float64, n)
	for i := range t {
		t[i] = (float64(i) + 0.5 + 0.6*(rng.Float64()-0.5)) / float64(n)
	}
	s.tx, s.x, s.arc = t, make([]float64, 2*n), make([]int, n)
	for i, ti := range t {
		r, a := 0.25+0.75*ti, 3*math.Pi*ti
		s.x[2*i], s.x[2*i+1] = r*math.Cos(a), r*math.Sin(a)
		s.arc[i] = min(int(ti*gwArcs), gwArcs-1)
	}
}

// copyShape makes the second shape: the spiral's points relabelled by a
// random permutation, with noise, then reflected and rotated in the plane
// (rotate) or rotated into space (3d). It returns the copy's coordinates
// and their dimension, and sets the coordinates drawn (3d: x and y, the
// tilted plane seen from above, foreshortened).
func (s *gwSim) copyShape(rng *rand.Rand, noise float64) ([]float64, int) {
	n := len(s.tx)
	s.truth = rng.Perm(n)
	th := 2 * math.Pi * rng.Float64()
	c, sn := math.Cos(th), math.Sin(th)
	s.ys, s.yt = make([]float64, n), make([]float64, n)
	if s.shape == gwRotate {
		y := make([]float64, 2*n)
		for i, j := range s.truth {
			u, w := s.x[2*i]+noise*rng.NormFloat64(), -(s.x[2*i+1] + noise*rng.NormFloat64())
			y[2*j], y[2*j+1] = c*u-sn*w+2, sn*u+c*w
			s.ys[j], s.yt[j] = y[2*j], y[2*j+1]
		}
		return y, 2
	}
	// R = Rx(φ) Rz(θ): the plane z = 0 tilted by φ about the x axis
	phi := 0.3*math.Pi + 0.2*math.Pi*rng.Float64()
	cp, sp := math.Cos(phi), math.Sin(phi)
	y := make([]float64, 3*n)
	for i, j := range s.truth {
		u, w, z := s.x[2*i]+noise*rng.NormFloat64(), s.x[2*i+1]+noise*rng.NormFloat64(), noise*rng.NormFloat64()
		a, b := c*u-sn*w, sn*u+c*w
		y[3*j], y[3*j+1], y[3*j+2] = a, cp*b-sp*z, sp*b+cp*z
		s.ys[j], s.yt[j] = y[3*j], y[3*j+1]
	}
	return y, 3
}

func (s *gwSim) record() {
	s.obj = append(s.obj, s.g.Objective())
	s.reg = append(s.reg, s.g.Regularised())
}

func (s *gwSim) Step() error {
	err := s.g.Step()
	if err == nil || errors.Is(err, algo.ErrConverged) {
		s.record()
		s.done = err != nil
	}
	return err
}

// matches returns, for each copy point, the spiral point that sends it the
// most mass, and the share of spiral points whose heaviest target is their
// true copy.
func (s *gwSim) matches() (best []int, right float64) {
	n := len(s.tx)
	t := s.g.Plan()
	best = make([]int, n)
	for j := range n {
		k := 0
		for i := range n {
			if t[i*n+j] > t[k*n+j] {
				k = i
			}
		}
		best[j] = k
	}
	ok := 0
	for i := range n {
		row := t[i*n : (i+1)*n]
		k := 0
		for j, v := range row {
			if v > row[k] {
				k = j
			}
		}
		if k == s.truth[i] {
			ok++
		}
	}
	return best, float64(ok) / float64(n)
}

func (s *gwSim) Frame() sims.Frame {
	n := len(s.tx)
	best, right := s.matches()
	cls := make([]int, n)
	for j, i := range best {
		cls[j] = s.arc[i]
	}
	legend := make([]string, gwArcs)
	for k := range legend {
		legend[k] = fmt.Sprintf("arc %d", k+1)
	}
	xs, ys := split(s.x)
	what := "copy, rotated and reflected"
	if s.shape == gwSpace {
		what = "copy in R³, seen at an angle"
	}
	copyC := sims.CanvasChart{Title: what + ": match colours", View: s.vw2, XLabel: "y₁", YLabel: "y₂",
		Points: []sims.PointSet{{Name: "copy", X: s.ys, Y: s.yt, Classes: cls, Glyph: true}}, Legend: legend}
	shapeC := sims.CanvasChart{Title: "spiral: colour by arc", View: s.view1, XLabel: "x₁", YLabel: "x₂",
		Points: []sims.PointSet{{Name: "spiral", X: xs, Y: ys, Classes: s.arc, Glyph: true}}, Legend: legend}
	// the plan with its columns in the order of their true partners: a
	// recovered isometry is the diagonal
	plan := s.g.Plan()
	ordered := make([]float64, n*n)
	for i := range n {
		for k, j := range s.truth {
			ordered[i*n+k] = plan[i*n+j]
		}
	}
	heat := s.f.heat(ordered)
	heat.Lo, heat.Hi = 0, maxOf(heat.Z)
	planC := planChart("plan T by true partner", s.f, heat, s.g.P(), s.g.Q(), nil)
	planC.Legend = []string{"p", "q"}
	obj := sims.LineChart{Title: "GW loss E(T)", LogY: true, XLabel: "outer iteration",
		X0: 0, X1: float64(len(s.obj) - 1),
		Series: []sims.Series{{Name: "E(T)", Y: s.noiseFloored(), Class: classSource}}}
	iters, innerErr, short := s.g.Inner()
	metrics := []sims.Metric{
		{Name: "iter", Value: float64(s.g.Iter())},
		{Name: "GW", Value: s.g.Objective()},
		{Name: "matched", Value: right},
		{Name: "E−εH", Value: s.g.Regularised()},
		sims.MetricOr("change", s.g.Change(), "no outer iteration yet"),
		{Name: "inner", Value: float64(iters)},
	}
	if s.g.Iter() == 0 {
		metrics[5] = sims.Metric{Name: "inner", Undefined: "no inner solve yet"}
	}
	var lines []string
	if s.done {
		lines = append(lines, fmt.Sprintf("converged after %d outer iterations: T moved by %.2g", s.g.Iter(), s.g.Change()))
	}
	lines = append(lines,
		fmt.Sprintf("%.0f%% of the spiral's points send most mass to their true copy; E(T) = %.3g", 100*right, s.g.Objective()),
		"E(T) = Σ (C1_ik − C2_jl)² T_ij T_kl compares distances within each shape: no shared coordinates",
		fmt.Sprintf("each step: Sinkhorn on the cost 2 L⊗T (Prop 1: O(n³)), ε = %.3g", s.g.Eps()),
		"E − εH never rises when the inner solves converge (E is concave on the couplings)")
	if short {
		lines = append(lines, fmt.Sprintf("the last inner Sinkhorn stopped at its cap of %d iterations (as POT's), marginal error %.2g", iters, innerErr))
	}
	return sims.Frame{Sim: Gromov.Name, Step: s.g.Iter(), Metrics: metrics, Charts: []sims.Chart{copyC, shapeC, planC, obj},
		Text: lines}
}

// noiseFloored is the objective's curve floored at rounding level.
func (s *gwSim) noiseFloored() []float64 {
	out := slices.Clone(s.obj)
	for k, v := range out {
		out[k] = sims.NoiseFloor(v, s.obj[0])
	}
	return out
}

func (s *gwSim) Result() map[string]any {
	_, right := s.matches()
	iters, innerErr, short := s.g.Inner()
	r := map[string]any{
		"iterations":          s.g.Iter(),
		"gw":                  s.g.Objective(),
		"regularised":         s.g.Regularised(),
		"objective":           slices.Clone(s.obj),
		"matched":             right,
		"converged":           s.done,
		"inner_iterations":    iters,
		"inner_error":         innerErr,
		"inner_stopped_short": short,
		"change":              s.g.Change(),
	}
	if s.g.Iter() == 0 {
		r["undefined"] = map[string]string{"change": "no outer iteration yet", "inner_error": "no inner solve yet"}
	}
	return r
}
