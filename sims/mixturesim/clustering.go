package mixturesim

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/cluster"
	"github.com/thelab/lab/algo/mixture"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// Clustering is scikit-learn's clustering comparison (its gallery's
// "Comparing different clustering algorithms on toy datasets"): the same
// six standardised 2-D sets clustered by DBSCAN, agglomerative clustering,
// spectral clustering, k-means or EM for a Gaussian mixture, one method a
// pane, step by step. The hero picture is the points coloured by their
// current cluster; beside it a chart per method: DBSCAN's clusters and
// unreached points as it expands one core point a step, the merge heights
// of agglomerative clustering (one merge a step; the jump at the end is
// the dendrogram's cut), the spectral embedding and the Laplacian's
// eigenvalues (k near 0 on separated data) before k-means runs on the
// embedding, k-means' J and EM's log-likelihood. The adjusted Rand index
// against the set's true classes scores each.
var Clustering = &sims.Spec{
	Name:   "clustering",
	Title:  "Clustering comparison: DBSCAN, agglomerative, spectral, k-means, EM on six 2-D sets",
	Source: "scikit-learn's clustering comparison; DBSCAN (Ester et al. 1996), Ward (1963), spectral (Ng, Jordan & Weiss 2002); seed 002 §2.1–2.3 (k-means, EM)",
	Steps:  1000,
	// Ten steps a second: DBSCAN's 400 expansions and agglomerative's 398
	// merges take 40 s; k-means, EM and spectral's k-means end in a
	// second or two, and the pane replays the next seed's run.
	Speed:  10,
	Replay: sims.ReplayPause,
	Params: param.List(clMethod, clData, clN, clK, clEps, clMinPts, clLinkage, clAffinity, clNeighbours, clGamma),
	New:    newClustering,
	Size:   clusteringSize,

	Metrics: clusteringMetrics,
}

// method is a clustering method of the comparison.
type method string

func (m method) String() string { return string(m) }

const (
	methodDBSCAN   method = "dbscan"
	methodAgglo    method = "agglomerative"
	methodSpectral method = "spectral"
	methodKMeans   method = "kmeans"
	methodEM       method = "em"
)

// clRestarts is the k-means++ starts of kmeans and of spectral's k-means
// (scikit-learn's n_init = 10); the pane replays the best.
const clRestarts = 10

// clustering's parameters.
var (
	clMethod = param.Choice("method", []method{methodDBSCAN, methodAgglo, methodSpectral, methodKMeans, methodEM},
		methodDBSCAN, "dbscan (ε-neighbourhoods, noise), agglomerative (merges, linkage), spectral (graph Laplacian "+
			"embedding, then k-means), kmeans (Lloyd, best of 10 k-means++ starts), em (Gaussian mixture, full covariances)")
	clData = param.Choice("data", cluster.Sets, cluster.Moons,
		"scikit-learn's six sets, standardised: circles, moons, varied (blobs of s.d. 1, 2.5, 0.5), aniso (sheared blobs), "+
			"blobs, none (uniform: no structure)")
	clN = param.Int("n", 400, "number of points").Range(20, 1000)
	clK = param.Int("k", 2, "number of clusters of agglomerative, spectral, kmeans and em (DBSCAN finds its own)").
		Range(1, maxK).DefaultFunc(func(v param.Values) int { return max(clData.Get(v).Classes(), 2) + b2i(clData.Get(v) == cluster.None) },
		"the set's true number of classes (3 for none, as the gallery)")
	clEps = param.Float("eps", 0.3, "DBSCAN's ε: the radius of a neighbourhood (the data are standardised)").
		Range(0.01, 3).DefaultFunc(func(v param.Values) float64 {
		switch clData.Get(v) {
		case cluster.Varied:
			return 0.18
		case cluster.Aniso:
			return 0.15
		}
		return 0.3
	}, "0.3; 0.18 for varied, 0.15 for aniso (the gallery's)")
	clMinPts  = param.Int("min_samples", 5, "DBSCAN: the points within ε (itself included) that make a point core").Range(1, 50)
	clLinkage = param.Choice("linkage", cluster.Linkages, cluster.Ward,
		"agglomerative: ward (least rise of the within-cluster sum of squares), single (nearest points), "+
			"complete (farthest points), average (mean distance)")
	clAffinity = param.Choice("affinity", cluster.Affinities, cluster.KNN,
		"spectral: knn (symmetrised graph of the m nearest neighbours, scikit-learn's nearest_neighbors) or rbf (exp(−γ d²))")
	clNeighbours = param.Int("neighbours", 10, "spectral, knn: the neighbours m of each point, itself included").Range(2, 50)
	clGamma      = param.Float("gamma", 20, "spectral, rbf: γ of exp(−γ‖x − y‖²)").Range(0.01, 1000)
)

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// clusteringSize is what clustering holds: the points (as rows and as the
// coordinates drawn), the truth, the labels and colours a Frame shares,
// the method's engine, its Trace (a column per curve) with the copies in a
// Frame, and a measured base (the charts, the notes).
func clusteringSize(c sims.Config) int64 {
	v := c.Values
	n := clN.Get(v)
	k := clK.Get(v)
	b := pointsBytes(n, 2) + 2*algo.HeapBytes(8*int64(n)) + 4*algo.HeapBytes(8*int64(n)) + 8<<10
	trace := func(cols, rows int64) int64 { return 8 * cols * (sims.TraceCap + min(rows, sims.TraceCap)) }
	switch clMethod.Get(v) {
	case methodDBSCAN:
		b += cluster.DBSCANBytes(n, 2) + trace(2, int64(n))
	case methodAgglo:
		b += cluster.AgglomerativeBytes(n) + algo.HeapBytes(8*int64(n)) // the heights, copied into a Frame
	case methodSpectral:
		// The embedding drawn (two coordinates a point).
		b += cluster.SpectralBytes(n, k) + 2*algo.HeapBytes(8*int64(n)) + trace(1, 100)
	case methodKMeans:
		b += mixture.KMeansBytes(n, 2) + trace(1, 100)
	case methodEM:
		b += mixture.EMBytes(n, 2, k) + trace(1, int64(n))
	}
	return b
}

type clSim struct {
	method method
	set    cluster.Set
	points [][]float64
	truth  []int
	x, y   []float64
	view   sims.Rect
	k      int
	eps    float64
	aff    cluster.Affinity

	db *cluster.DBSCAN
	ag *cluster.Agglomerative
	sp *cluster.Spectral
	km *mixture.KMeans // kmeans, or spectral's
	em *mixture.EM

	trace  *sims.Trace // per step: dbscan clusters and unreached; kmeans J; em log-likelihood per point
	steps  int
	done   bool
	labels []int // the current labels, shared by Frames until the next step; nil when stale
	start  int   // the k-means start replayed
}

func newClustering(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	s := &clSim{method: clMethod.Get(v), set: clData.Get(v), k: clK.Get(v), eps: clEps.Get(v), aff: clAffinity.Get(v)}
	var err error
	n := clN.Get(v)
	s.points, s.truth, err = cluster.Generate(s.set, rand.New(rand.NewPCG(cfg.Seed, dataStream)), n)
	if err != nil {
		return nil, err
	}
	s.x, s.y = make([]float64, n), make([]float64, n)
	for i, p := range s.points {
		s.x[i], s.y[i] = p[0], p[1]
	}
	s.view = sims.Bounds(s.x, s.y).Pad(0.05)
	rng := func(r int) *rand.Rand { return initRNG(cfg.Seed, r) }
	switch s.method {
	case methodDBSCAN:
		s.db, err = cluster.NewDBSCAN(s.points, s.eps, clMinPts.Get(v))
		s.trace = sims.NewTrace(0, 2)
	case methodAgglo:
		s.ag, err = cluster.NewAgglomerative(s.points, clLinkage.Get(v), s.k)
	case methodSpectral:
		s.sp, err = cluster.NewSpectral(s.points, clAffinity.Get(v), s.k, clNeighbours.Get(v), clGamma.Get(v), clRestarts, rng)
		if err == nil {
			s.km, s.start = s.sp.KMeans(), s.sp.Start()
			s.trace = sims.NewTrace(1, 1)
		}
	case methodKMeans:
		_, s.start, err = mixture.BestKMeans(s.points, s.k, clRestarts, mixture.MaxInitIter, cfg.Workers, rng)
		if err == nil {
			s.km, err = mixture.NewKMeans(s.points, s.k, rng(s.start))
		}
		s.trace = sims.NewTrace(1, 1)
	case methodEM:
		s.em, err = mixture.New(s.points, mixture.Config{K: s.k, Reg: mixture.DefaultReg, Init: mixture.InitKMeans,
			Tol: mixture.DefaultTol}, rng(0))
		s.trace = sims.NewTrace(0, 1)
	}
	if err != nil {
		return nil, sims.Blame(err, v, sims.As("k", clK), sims.As("neighbours", clNeighbours))
	}
	if s.db != nil {
		s.trace.Add(0, float64(n))
	}
	if s.em != nil {
		s.trace.Add(s.em.MeanLogLik())
	}
	return s, nil
}

func (s *clSim) Step() error {
	var err error
	switch {
	case s.db != nil:
		err = s.db.Step()
		if err == nil {
			s.trace.Add(float64(s.db.Clusters()), float64(s.db.Unlabelled()))
		}
	case s.ag != nil:
		err = s.ag.Step()
	case s.km != nil:
		err = s.km.Step()
		if err == nil {
			s.trace.Add(atRounding(s.km.J()))
		}
	case s.em != nil:
		err = s.em.Step()
		if err == nil {
			if last, _ := s.em.Last(); last == mixture.EStep {
				s.trace.Add(s.em.MeanLogLik())
			}
		}
	}
	if errors.Is(err, algo.ErrConverged) {
		s.done = true
	}
	if err != nil {
		return err
	}
	s.steps++
	s.labels = nil
	return nil
}

// current is each point's label now: DBSCAN's (−1 noise or not yet
// reached), the agglomerative clusters numbered by first point, the
// k-means or EM assignment (−1 before the first).
func (s *clSim) current() []int {
	if s.labels != nil {
		return s.labels
	}
	switch {
	case s.db != nil:
		s.labels = slices.Clone(s.db.Labels())
	case s.ag != nil:
		s.labels = s.ag.Labels(nil)
	case s.km != nil:
		s.labels = s.km.Assign(nil)
	case s.em != nil:
		s.labels = s.em.Assign(nil)
	}
	return s.labels
}

// colours maps labels to palette classes: DBSCAN's clusters by their
// number (mod the palette), k-means' and EM's as they are; of the
// agglomerative clusters the MaxClasses largest of two points or more,
// in order of their first points (so a cluster keeps its colour while
// it stays among them), the rest grey.
func (s *clSim) colours(labels []int) []int {
	out := make([]int, len(labels))
	if s.ag == nil {
		for i, l := range labels {
			out[i] = -1
			if l >= 0 {
				out[i] = l % sims.MaxClasses
			}
		}
		return out
	}
	size := make([]int, s.ag.Clusters())
	for _, l := range labels {
		size[l]++
	}
	order := make([]int, len(size))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return size[b] - size[a] })
	class := make([]int, len(size))
	for i := range class {
		class[i] = -1
	}
	top := order[:min(len(order), sims.MaxClasses)]
	slices.Sort(top)
	c := 0
	for _, l := range top {
		if size[l] >= 2 || s.ag.Clusters() <= sims.MaxClasses {
			class[l] = c
			c++
		}
	}
	for i, l := range labels {
		out[i] = class[l]
	}
	return out
}

// clusterSizes is the number of points of each label ≥ 0, by label.
func clusterSizes(labels []int) []int {
	var out []int
	for _, l := range labels {
		if l >= 0 {
			for len(out) <= l {
				out = append(out, 0)
			}
			out[l]++
		}
	}
	return out
}

// clusterCount is the number of distinct labels ≥ 0.
func clusterCount(labels []int) int {
	seen := map[int]bool{}
	for _, l := range labels {
		if l >= 0 {
			seen[l] = true
		}
	}
	return len(seen)
}

func (s *clSim) Frame() sims.Frame {
	labels := s.current()
	ari, _ := cluster.AdjustedRand(s.truth, labels)
	clusters := clusterCount(labels)
	if s.db != nil {
		clusters = s.db.Clusters()
	}
	metrics := []sims.Metric{{Name: "clusters", Value: float64(clusters)}}
	title := ""
	var markers []sims.Marker
	var paths []sims.Path
	var charts []sims.Chart
	switch {
	case s.db != nil:
		noise := s.db.Unlabelled()
		metrics = append(metrics, sims.Metric{Name: "noise", Value: float64(noise)},
			sims.Metric{Name: "expanded", Value: float64(s.db.Expanded())})
		title = fmt.Sprintf("DBSCAN ε = %.3g: %s, %d %s", s.eps, sims.Count(clusters, "cluster"), noise,
			map[bool]string{true: "noise", false: "unreached"}[s.done])
		if c := s.db.Current(); c >= 0 && !s.done {
			markers = append(markers, sims.Marker{X: s.x[c], Y: s.y[c], Glyph: '◆', Class: s.db.Labels()[c] % sims.MaxClasses})
			paths = append(paths, circle(s.x[c], s.y[c], s.eps, s.db.Labels()[c]%sims.MaxClasses))
		}
		x0, x1 := s.trace.Span()
		charts = append(charts,
			sims.LineChart{Title: "points not in a cluster (unreached, then noise)", X0: x0, X1: x1, XLabel: "core points expanded",
				Series: []sims.Series{{Name: "unreached", Y: s.trace.Column(1), Class: 0}}},
			sims.LineChart{Title: "clusters found", X0: x0, X1: x1, XLabel: "core points expanded",
				Series: []sims.Series{{Name: "clusters", Y: s.trace.Column(0), Class: 1}}})
	case s.ag != nil:
		h := s.ag.Heights()
		if len(h) > 0 {
			metrics = append(metrics, sims.Metric{Name: "height", Value: h[len(h)-1]})
		} else {
			metrics = append(metrics, sims.MetricOr("height", math.NaN(), "no merge yet"))
		}
		title = fmt.Sprintf("agglomerative, %s linkage: %s", s.ag.Link(), sims.Count(s.ag.Clusters(), "cluster"))
		if m := s.ag.LastMerge(); m >= 0 {
			markers = append(markers, sims.Marker{X: s.x[m], Y: s.y[m], Glyph: '◆', Class: -1})
		}
		charts = append(charts, sims.LineChart{Title: "merge heights (the dendrogram's levels)", X0: 1, X1: float64(max(len(h), 1)),
			XLabel: "merge", Series: []sims.Series{{Name: string(s.ag.Link()) + " distance", Y: slices.Clone(h), Class: 0}}})
	case s.sp != nil:
		metrics = append(metrics, s.jMetric())
		title = fmt.Sprintf("spectral (%s graph): k-means on the embedding, k = %d", s.aff, s.k)
		charts = append(charts, s.embeddingChart(labels), s.eigenChart(), s.jChart())
	case s.km != nil:
		metrics = append(metrics, s.jMetric())
		title = fmt.Sprintf("k-means, k = %d: centres ✚", s.k)
		for j, c := range s.km.Centers() {
			markers = append(markers, sims.Marker{X: c[0], Y: c[1], Glyph: '✚', Class: j})
		}
		charts = append(charts, s.jChart())
	case s.em != nil:
		metrics = append(metrics, sims.Metric{Name: "loglik", Value: s.em.MeanLogLik()})
		title = fmt.Sprintf("EM, %d full-covariance Gaussians: 2σ ellipses", s.k)
		for j, g := range s.em.Components() {
			paths = append(paths, sims.Ellipse(g.Mean[0], g.Mean[1], g.Cov[0][0], g.Cov[0][1], g.Cov[1][1], 2, j))
			markers = append(markers, sims.Marker{X: g.Mean[0], Y: g.Mean[1], Glyph: '✚', Class: j})
		}
		x0, x1 := s.trace.Span()
		charts = append(charts, sims.LineChart{Title: "log-likelihood per point (never falls)", X0: x0, X1: x1, XLabel: "iteration",
			Series: []sims.Series{{Name: "log p(x|θ)/n", Y: s.trace.Column(0), Class: 0}}})
	}
	metrics = append(metrics, sims.Metric{Name: "ARI", Value: ari})
	hero := sims.CanvasChart{
		Title:   title,
		View:    s.view,
		Points:  []sims.PointSet{{Name: "data", X: s.x, Y: s.y, Classes: s.colours(labels)}},
		Paths:   paths,
		Markers: markers,
		XLabel:  "x", YLabel: "y",
	}
	charts = append([]sims.Chart{hero}, charts...)
	return sims.Frame{Sim: Clustering.Name, Step: s.steps, Metrics: metrics, Charts: charts, Text: s.notes(ari, clusters)}
}

// atRounding is v, or 0 when |v| < 1e-12: an eigenvalue 0 of L (one per
// connected component) comes out as ±1e-16, and k-means' J on an
// embedding whose rows coincide within clusters as 1e-28.
func atRounding(v float64) float64 {
	if math.Abs(v) < 1e-12 {
		return 0
	}
	return v
}

// circle is the ε-circle round (x, y).
func circle(x, y, r float64, class int) sims.Path {
	const m = 48
	p := sims.Path{X: make([]float64, m+1), Y: make([]float64, m+1), Class: class, Dotted: true}
	for i := range m + 1 {
		a := 2 * math.Pi * float64(i) / m
		p.X[i], p.Y[i] = x+r*math.Cos(a), y+r*math.Sin(a)
	}
	return p
}

func (s *clSim) jMetric() sims.Metric {
	if j := s.km.J(); !math.IsInf(j, 1) {
		return sims.Metric{Name: "J", Value: atRounding(j)}
	}
	return sims.MetricOr("J", math.NaN(), "no assignment yet")
}

func (s *clSim) jChart() sims.Chart {
	x0, x1 := s.trace.Span()
	what := "the points"
	if s.sp != nil {
		what = "the embedding"
	}
	return sims.LineChart{Title: "k-means objective J on " + what, X0: x0, X1: x1, XLabel: "half-step",
		Series: []sims.Series{{Name: "J", Y: s.trace.Column(0), Class: 0}}}
}

// embeddingChart draws the rows of the spectral embedding (its first two
// coordinates) coloured by the current labels.
func (s *clSim) embeddingChart(labels []int) sims.Chart {
	e := s.sp.Embedding()
	x, y := make([]float64, len(e)), make([]float64, len(e))
	for i, r := range e {
		x[i] = r[0]
		if len(r) > 1 {
			x[i], y[i] = r[1], r[0]
			if len(r) > 2 {
				x[i], y[i] = r[1], r[2]
			}
		}
	}
	xl, yl := "u₂/√d", "u₁/√d"
	if s.k > 2 {
		yl = "u₃/√d"
	}
	return sims.CanvasChart{Title: "spectral embedding: each point's row", View: sims.Bounds(x, y).Pad(0.08),
		Points: []sims.PointSet{{Name: "rows", X: x, Y: y, Classes: s.colours(labels)}}, XLabel: xl, YLabel: yl}
}

// eigenChart shows the least eigenvalues of the normalised Laplacian.
func (s *clSim) eigenChart() sims.Chart {
	ev := s.sp.Eigenvalues()
	m := min(len(ev), max(8, s.k+3))
	bars := make([]sims.Bar, m)
	for i := range m {
		c := 1
		if i < s.k {
			c = 0
		}
		bars[i] = sims.Bar{Label: "λ" + strconv.Itoa(i+1), Value: atRounding(ev[i]), Class: c}
	}
	return sims.BarChart{Title: fmt.Sprintf("least eigenvalues of L, first %d used", s.k), Bars: bars}
}

func (s *clSim) notes(ari float64, clusters int) []string {
	var lines []string
	switch {
	case s.db != nil:
		if s.done {
			lines = append(lines, fmt.Sprintf("done: %s of %d core points, %d noise points (grey)",
				sims.Count(clusters, "cluster"), s.db.Cores(), s.db.Unlabelled()))
		} else {
			lines = append(lines, "each step expands a core point (◆): the points in its ε-circle join its cluster")
		}
		lines = append(lines, "core: ≥ min_samples points within ε; border: within ε of a core point; else noise")
	case s.ag != nil:
		if s.done {
			lines = append(lines, fmt.Sprintf("done: %s after %s; the last heights jump where the dendrogram is cut",
				sims.Count(s.ag.Clusters(), "cluster"), sims.Count(s.ag.Merges(), "merge")))
		} else {
			lines = append(lines, "each step merges the two closest clusters (◆); grey: the small ones")
		}
	case s.sp != nil:
		lines = append(lines, fmt.Sprintf("the graph has %s: as many eigenvalues of L are 0",
			sims.Count(s.sp.Components(), "connected component")))
		lines = append(lines, fmt.Sprintf("k-means on the embedding's rows, start %d of %d (least J)", s.start+1, clRestarts))
	case s.km != nil:
		lines = append(lines, fmt.Sprintf("k-means, start %d of %d (least J): straight borders between the clusters", s.start+1, clRestarts))
	case s.em != nil:
		lines = append(lines, "EM from the k-means fit: elliptical clusters, still no rings or moons")
	}
	lines = append(lines, fmt.Sprintf("ARI %.3f against %s' true classes (1: the same partition, 0: chance)", ari, s.set))
	return lines
}

func (s *clSim) Result() map[string]any {
	labels := s.current()
	ari, _ := cluster.AdjustedRand(s.truth, labels)
	r := map[string]any{
		"method":   string(s.method),
		"data":     string(s.set),
		"sizes":    clusterSizes(labels),
		"clusters": clusterCount(labels),
		"ari":      ari,
		"steps":    s.steps,
		"done":     s.done,
	}
	if s.db != nil {
		r["noise"] = s.db.Unlabelled()
		r["core_points"] = s.db.Cores()
	}
	if s.ag != nil {
		r["heights"] = slices.Clone(s.ag.Heights())
	}
	if s.sp != nil {
		ev := s.sp.Eigenvalues()
		r["eigenvalues"] = slices.Clone(ev[:min(len(ev), 10)])
	}
	return r
}
