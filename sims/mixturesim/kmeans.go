package mixturesim

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/mixture"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// KMeans is Lloyd's algorithm (seed 002 §2.1, eqs 2.2–2.4): points coloured
// by their cluster over the Voronoi cells of the current centres, each
// centre's trail, and the objective J per half-step, which never increases
// (Remark 2.1). A step is a half-iteration, assignment (2.3) or update
// (2.4): after an update the cells move and the points left in another
// cluster's cell show what the next assignment will change. The run stops
// when an assignment changes no point.
var KMeans = &sims.Spec{
	Name:   "kmeans",
	Title:  "k-means (Lloyd): assignment and update half-steps, J never increasing",
	Source: "seed 002 §2.1 (eqs 2.2–2.4, Remark 2.1)",
	Data:   dataHelp,
	Steps:  200,
	Speed:  1,
	// A short story (Lloyd converges in a few half-steps: then the next seed's data).
	Replay: sims.ReplayPause,
	Params: param.List(kmK, mixClusters, kmSep, kmN, kmRestarts, mixColumns),
	New:    newKMeans,
	Size:   kmeansSize,

	Metrics: kmeansMetrics,
}

// kmeans' parameters.
var (
	kmK   = param.Int("k", 3, "number of clusters K (at most the number of points)").Range(1, maxK)
	kmSep = param.Float("sep", 4,
		"least distance between the true means, in s.d. of the widest cluster").Range(0, mixture.MaxSep).BuiltInData()
	kmN        = param.Int("n", 400, "number of generated points").Range(20, 100000).BuiltInData()
	kmRestarts = param.Int("restarts", 10,
		"k-means++ starts run to convergence when the pane opens; the pane replays the one of least final J "+
			"(scikit-learn's n_init)").Range(1, maxRestarts)
)

// Cells of the Voronoi background.
const (
	voronoiNX = 96
	voronoiNY = 48
)

type kmSim struct {
	km              *mixture.KMeans
	data            *pointData
	view            sims.Rect
	j               *sims.Trace // J per half-step
	trail           *sims.Trace // the centres after each update: x1, y1, x2, y2, ...
	rises           int         // half-steps at which J rose beyond rounding (must stay 0)
	worst           float64     // the largest such relative rise
	done            bool
	restarts, start int     // the k-means++ starts tried, the one replayed
	bestJ           float64 // its final J, found when the pane opened (restarts > 1)
	// The assignment as of the last assignment step, shared by Frames until
	// the next one (it changes only then); nil when stale.
	assign []int
}

// kmRows is the iterations of a k-means run on n points that a Frame's
// copies of its Traces are charged for (a Trace's own room, sims.TraceCap
// rows, is charged in full): Lloyd's iterations converge within a few
// dozen here (measured).
func kmRows(n int) int64 { return int64(min(50+n/20, sims.TraceCap)) }

// kmeansSize is what kmeans holds: its points, the engine's, the
// assignment its Frames share, the Traces of J and of the centres' trail
// (two columns a centre) with their copies in a Frame, and a measured base
// (the Frame's other charts, the notes).
func kmeansSize(c sims.Config) int64 {
	n, d := pointsOf(c, kmN.Get(c.Values))
	cols := int64(1 + 2*kmK.Get(c.Values))
	return pointsBytes(n, d) + mixture.KMeansBytes(n, d) + algo.HeapBytes(8*int64(n)) +
		8*cols*(sims.TraceCap+kmRows(n)) + 56<<10
}

func newKMeans(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	data, err := loadPoints(cfg, kmN.Get(v), kmSep.Get(v))
	if err != nil {
		return nil, err
	}
	k, restarts := kmK.Get(v), kmRestarts.Get(v)
	best, start := (*mixture.KMeans)(nil), 0
	if restarts > 1 {
		best, start, err = mixture.BestKMeans(data.points, k, restarts, mixture.MaxInitIter, cfg.Workers,
			func(r int) *rand.Rand { return initRNG(cfg.Seed, r) })
		if err != nil {
			return nil, err
		}
	}
	km, err := mixture.NewKMeans(data.points, k, initRNG(cfg.Seed, start))
	if err != nil {
		return nil, err
	}
	km.SetWorkers(cfg.Workers)
	s := &kmSim{km: km, data: data, j: sims.NewTrace(1, 1), trail: sims.NewTrace(0, 2*k), restarts: restarts, start: start}
	if best != nil {
		s.bestJ = best.J()
	}
	s.view = sims.Bounds(data.x, data.y).Pad(0.05)
	s.addTrail()
	return s, nil
}

func (s *kmSim) addTrail() {
	row := make([]float64, 0, 2*mixture.MaxK)
	for _, c := range s.km.Centers() {
		x, y := s.data.at(c)
		row = append(row, x, y)
	}
	s.trail.Add(row...)
}

func (s *kmSim) Step() error {
	prev := s.km.J()
	err := s.km.Step()
	if errors.Is(err, algo.ErrConverged) {
		s.done = true
	}
	if err != nil {
		return err
	}
	j := s.km.J()
	s.j.Add(j)
	if rise := (j - prev) / prev; !math.IsInf(prev, 1) && rise > 1e-12 {
		s.rises++
		s.worst = math.Max(s.worst, rise)
	}
	if last, _ := s.km.Last(); last == mixture.Update {
		s.addTrail()
	} else {
		s.assign = nil // a new assignment: the next Frame copies it
	}
	return nil
}

func (s *kmSim) Frame() sims.Frame {
	m := s.km
	k := m.K()
	if s.assign == nil {
		s.assign = m.Assign(nil)
	}
	assign := s.assign
	centres := m.Centers()
	counts := m.Counts(nil)

	metrics := []sims.Metric{}
	if j := m.J(); !math.IsInf(j, 1) {
		metrics = append(metrics, sims.Metric{Name: "J", Value: j}, sims.Metric{Name: "J/n", Value: j / float64(m.N())})
	}
	metrics = append(metrics,
		sims.Metric{Name: "changed", Value: float64(m.Changed())},
		sims.Metric{Name: "iter", Value: float64(m.Iter())})

	drawn := make([][2]float64, k) // the centres where the pane draws them
	for j, c := range centres {
		drawn[j][0], drawn[j][1] = s.data.at(c)
	}
	title := fmt.Sprintf("%d points, K = %d: cells of the centres ✚, trails", m.N(), k)
	var cells *sims.Grid
	if s.data.plane == nil {
		// Voronoi cells of the current centres: the assignment (2.3) they
		// induce. (On a projection they would not be: a point is assigned
		// by its distances in d dimensions.)
		cells = sims.SampleGrid(s.view, voronoiNX, voronoiNY, func(x, y float64) float64 {
			best, bj := math.Inf(1), 0
			for j, c := range drawn {
				if d := (x-c[0])*(x-c[0]) + (y-c[1])*(y-c[1]); d < best {
					best, bj = d, j
				}
			}
			return float64(bj)
		})
		cells.Scale, cells.Lo, cells.Hi, cells.Levels = sims.Categorical, -0.5, float64(k)-0.5, k
	} else {
		title = fmt.Sprintf("%d points in %d-D, K = %d: centres ✚, trails", m.N(), m.Dim(), k)
	}

	paths := make([]sims.Path, k)
	for j := range k {
		paths[j] = sims.Path{X: s.trail.Column(2 * j), Y: s.trail.Column(2*j + 1), Class: j}
	}
	markers := make([]sims.Marker, 0, k+len(s.data.truth))
	for _, c := range s.data.truth {
		markers = append(markers, sims.Marker{X: c.Mean[0], Y: c.Mean[1], Glyph: '×', Class: -1})
	}
	legend := make([]string, k)
	bars := make([]sims.Bar, k)
	for j, c := range drawn {
		markers = append(markers, sims.Marker{X: c[0], Y: c[1], Glyph: '✚', Class: j})
		legend[j] = strconv.Itoa(j+1) + ": " + strconv.Itoa(counts[j])
		bars[j] = sims.Bar{Label: strconv.Itoa(j + 1), Value: float64(counts[j]), Class: j}
	}

	x0, x1 := s.j.Span()
	charts := []sims.Chart{
		sims.CanvasChart{
			Title:   title,
			View:    s.view,
			Heat:    cells,
			Points:  []sims.PointSet{{Name: "data", X: s.data.x, Y: s.data.y, Classes: assign}},
			Paths:   paths,
			Markers: markers,
			Legend:  legend,
			XLabel:  s.data.xLabel, YLabel: s.data.yLabel,
		},
		sims.LineChart{
			Title:  "objective J (2.2)",
			Series: []sims.Series{{Name: "J = Σ ‖x_n − μ_k‖²", Y: s.j.Column(0), Class: 0}},
			LogY:   false,
			X0:     x0, X1: x1,
			XLabel: "half-step",
		},
		sims.BarChart{Title: "cluster sizes Σ_n r_nk", Bars: bars},
	}
	return sims.Frame{Sim: KMeans.Name, Step: m.HalfSteps(), Metrics: metrics, Charts: charts, Text: s.notes()}
}

func (s *kmSim) notes() []string {
	m := s.km
	var phase string
	switch last, ok := m.Last(); {
	case s.done:
		phase = fmt.Sprintf("converged: an assignment changed no point, after %s (finite, Remark 2.1)", sims.Count(m.Iter(), "iteration"))
	case !ok:
		phase = "start: k-means++ centres; next: assign every point to its nearest centre (2.3)"
	case last == mixture.Assign:
		phase = fmt.Sprintf("assign (2.3): %s changed cluster; next: move centres to their means (2.4)", sims.Count(m.Changed(), "point"))
	default:
		phase = fmt.Sprintf("update (2.4): centres moved, J fell by %.4g; points in another cell will switch next", m.Moved())
	}
	mono := fmt.Sprintf("J never increased in %s (each half-step minimises J over r or over μ)", sims.Count(m.HalfSteps(), "half-step"))
	if s.rises > 0 {
		mono = fmt.Sprintf("⚠ J rose %d times (worst %.2g relative): Remark 2.1 is violated", s.rises, s.worst)
	}
	lines := []string{phase, mono}
	if s.restarts > 1 {
		lines = append(lines, fmt.Sprintf("start %d of %d k-means++ starts, the one of least final J = %.6g (n_init = %d)",
			s.start+1, s.restarts, s.bestJ, s.restarts))
	}
	if s.data.truth != nil {
		lines = append(lines, "× marks the true means of the generated data")
	}
	if s.data.note != "" {
		lines = append(lines, s.data.note)
	}
	return lines
}

func (s *kmSim) Result() map[string]any {
	m := s.km
	centres := m.Centers()
	sizes := m.Counts(nil)
	inertia := m.J()
	r := map[string]any{
		"centers":    centres,
		"sizes":      sizes,
		"iterations": m.Iter(),
		"half_steps": m.HalfSteps(),
		"converged":  s.done,
		"start":      s.start + 1,
		"restarts":   s.restarts,
	}
	if !math.IsInf(inertia, 1) {
		r["inertia"] = inertia
	}
	return r
}
