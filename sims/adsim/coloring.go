package adsim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/ad"
	"github.com/thelab/lab/algo/ad/sparse"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
	"gonum.org/v1/gonum/mat"
)

// sparseProblem is a sparse derivative of the coloring sim.
type sparseProblem string

const (
	probJacobian sparseProblem = "jacobian" // eq 1.54: a 4×5 Jacobian compressed to 2 passes
	probNotes    sparseProblem = "notes"    // eq 1.61: a 4×4 Hessian, a_i = i
	probPath     sparseProblem = "path"     // Σ (x_{i+1} − x_i²)²: tridiagonal
	probStar     sparseProblem = "star"     // Σ sin(x₁ + x_i): arrowhead
	probCycle    sparseProblem = "cycle"    // Σ cos(x_i − x_{i+1}), cyclic
	probGrid     sparseProblem = "grid"     // Σ cos(x_u − x_v) over a grid's edges
	probRandom   sparseProblem = "random"   // Σ cos(x_u − x_v) over G(n, p)'s edges
)

func (p sparseProblem) String() string { return string(p) }

// compressBy is how the jacobian problem groups: columns (JVPs) or rows
// (VJPs).
type compressBy string

const (
	byColumns compressBy = "columns"
	byRows    compressBy = "rows"
)

func (b compressBy) String() string { return string(b) }

// colorMax is the largest graph the sim colours: the exact chromatic
// numbers of every kind are searched up to it (sparse.MaxExact).
const colorMax = sparse.MaxExact

// coloring's parameters.
var (
	colProblem = param.Choice("problem",
		[]sparseProblem{probJacobian, probNotes, probPath, probStar, probCycle, probGrid, probRandom}, probNotes,
		"jacobian: eq 1.54's 4×5 Jacobian (§1.9); notes: eq 1.61's 4×4 Hessian with a_i = i (§1.9.2); "+
			"Hessians by HVPs of path Σ(x_{i+1} − x_i²)², star Σ sin(x₁ + x_i), cycle and grid Σ cos(x_u − x_v), random G(n, p)")
	colKind = param.Choice("kind", sparse.Kinds, sparse.Acyclic,
		"Hessians: distance-1 (adjacent differ: not enough with cycles), acyclic (two colours make a forest: "+
			"recovered by peeling leaves), star (no two-coloured path on 4 vertices: read directly), distance-2")
	colBy = param.Choice("by", []compressBy{byColumns, byRows}, byColumns,
		"jacobian: group columns (one JVP per colour) or rows (one VJP per colour)")
	colN = param.Int("n", 7, "variables (path, star, cycle, random); grid: its side, n×n").Range(2, colorMax).
		DefaultWhen(func(v param.Values) bool { return colProblem.Get(v) == probGrid }, 3, "7; 3 (a 3×3 grid) for grid")
	colP = param.Float("p", 0.3, "random: the probability of each edge").Range(0, 1)
)

// Coloring computes a sparse Jacobian or Hessian with fewer passes than
// variables (seed 000 §1.9): it colours the sparsity graph one vertex per
// step (distance-1, acyclic, star or distance-2), takes one product per
// colour (JVPs, VJPs or HVPs of the AD graph), and recovers the matrix
// from the compressed products one entry per step — direct read-out, or
// peeling the leaves of two-coloured trees for an acyclic colouring.
var Coloring = &sims.Spec{
	Name:   "coloring",
	Title:  "Sparse AD by colouring: colour vertex by vertex, one pass per colour, recover entry by entry",
	Source: "seed 000 §1.9 (eqs 1.54–1.68), §1.9.1–1.9.5",
	Steps:  60,
	Speed:  1,
	// Colour, compress and recover take ten steps on the notes' Hessian:
	// then again (with problem=random, on the next seed's graph).
	Replay: sims.ReplayPause,
	Params: param.List(colProblem, colKind, colBy, colN, colP),
	New:    newColoring,
	Size:   coloringSize,

	Metrics: coloringMetrics,
}

// stage is where the coloring sim is.
type stage int

const (
	stageColour stage = iota
	stageCompress
	stageRecover
	stageDone
)

type coloringSim struct {
	prob   sparseProblem
	kind   sparse.Kind
	by     compressBy
	g      *ad.Graph
	vars   []string
	pat    *sparse.Pattern // of J, or of H
	graph  *sparse.Graph   // what is coloured
	cols   []int           // lattice places of the drawn vertices
	rows   []int
	colour *sparse.Colorer
	exact  *mat.Dense  // the dense matrix (J, or H by FoR), to check against
	hess   *ad.Hessian // forward on reverse: H by columns, then the HVPs
	B      *mat.Dense  // the compressed products (m×k, or k×n for rows)
	passes int
	peel   *sparse.Peeler
	got    *mat.Dense // Jacobian entries recovered so far
	known  [][]bool   // Jacobian entries recovered so far
	order  [][2]int   // the Jacobian's entries in recovery order
	xi     map[sparse.Kind]int
	stage  stage
	steps  int
	// What the last step did: the vertex it coloured, the product it
	// took, the entry it recovered (−1 when it did not).
	vertex   int
	product  int
	last     [2]int
	stuck    error
	stuckWhy string // the peeler's own account of where it stuck
}

// coloringSize is the sparsity graph with the AD graph behind it and the
// colourings, products and tables of the matrix: about 5 KB a vertex and
// 900 bytes an edge (the pane draws both), the edges being at most those
// of the problem's pattern (a random graph's: every pair).
func coloringSize(cfg sims.Config) int64 {
	v := cfg.Values
	n := colN.Get(v)
	var vertices, edges int
	switch colProblem.Get(v) {
	case probJacobian: // 4 rows, 5 columns: the intersection graph of either
		vertices, edges = 5, 10
	case probNotes:
		vertices, edges = 4, 6
	case probGrid:
		vertices, edges = n*n, 2*n*(n-1)
	case probRandom:
		vertices, edges = n, n*(n-1)/2
	default: // path, star, cycle
		vertices, edges = n, n
	}
	return colBase + 5000*int64(vertices) + 900*int64(edges)
}

// colBase is what coloring holds whatever its size: the sim and the
// Frame's charts and texts.
const colBase = 8 << 10

func newColoring(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	s := &coloringSim{prob: colProblem.Get(v), kind: colKind.Get(v), by: colBy.Get(v), vertex: -1, product: -1, last: [2]int{-1, -1}}
	var err error
	if s.prob == probJacobian {
		err = s.buildJacobian()
	} else {
		err = s.buildHessian(colN.Get(v), colP.Get(v), rand.New(rand.NewPCG(cfg.Seed, 0x636f6c))) // "col"
	}
	if err != nil {
		return nil, err
	}
	kind := s.kind
	if s.prob == probJacobian {
		kind = sparse.Distance1 // on the intersection graph: distance-2 on the bipartite graph
	}
	if s.colour, err = sparse.NewColorer(s.graph, kind, nil); err != nil {
		return nil, err
	}
	s.xi = map[sparse.Kind]int{}
	if s.graph.N() <= sparse.MaxExact {
		for _, k := range sparse.Kinds {
			x, _, err := sparse.Exact(s.graph, k)
			if err != nil {
				return nil, err
			}
			s.xi[k] = x
		}
	}
	return s, nil
}

// jacobianSource is a function whose Jacobian has eq 1.54's pattern: rows
// {2,4}, {4,5}, {2,3}, {1,3}.
const jacobianSource = "x2*x4, sin(x4)*x5, x2 + x3^2, exp(x1)*x3"

var jacobianPoint = []ad.Var{{Name: "x1", Value: 0.5}, {Name: "x2", Value: 1.5}, {Name: "x3", Value: -1}, {Name: "x4", Value: 2}, {Name: "x5", Value: 0.3}}

func (s *coloringSim) buildJacobian() error {
	var err error
	if s.g, err = ad.Parse(jacobianSource, jacobianPoint); err != nil {
		return err
	}
	for _, x := range jacobianPoint {
		s.vars = append(s.vars, x.Name)
	}
	rows, err := s.g.JacobianPattern()
	if err != nil {
		return err
	}
	if s.pat, err = sparse.NewPattern(len(rows), len(s.vars), rows); err != nil {
		return err
	}
	jac, err := ad.NewJacobian(s.g, ad.ForwardMode)
	if err != nil {
		return err
	}
	if s.exact, err = jac.Run(); err != nil {
		return err
	}
	m, n := s.exact.Dims()
	s.got = mat.NewDense(m, n, nil)
	s.known = make([][]bool, m)
	for i := range s.known {
		s.known[i] = make([]bool, n)
		for _, j := range s.pat.Rows[i] {
			s.order = append(s.order, [2]int{i, j})
		}
	}
	if s.by == byRows {
		s.graph = s.pat.RowGraph()
	} else {
		s.graph = s.pat.ColumnGraph()
	}
	s.cols, s.rows = make([]int, s.graph.N()), make([]int, s.graph.N())
	for v := range s.rows {
		s.rows[v] = v // drawn in the bipartite layout of Frame
	}
	return nil
}

// notesHessian is eq 1.61 with a_i = i.
var notesHessian = [][]float64{{1, 2, 3, 0}, {2, 4, 0, 5}, {3, 0, 6, 0}, {0, 5, 0, 7}}

// hessianSource writes the problem's function over x1..xn and returns the
// graph's vertices' lattice places.
func hessianSource(prob sparseProblem, n int, p float64, rng *rand.Rand) (src string, nvars int, cols, rows []int, err error) {
	var terms []string
	edgeTerms := func(edges [][2]int) {
		for _, e := range edges {
			terms = append(terms, fmt.Sprintf("cos(x%d - x%d)", e[0]+1, e[1]+1))
		}
	}
	switch prob {
	case probNotes:
		H := notesHessian
		n = len(H)
		for i := range n { // f = ½xᵀHx, whose Hessian is H
			for j := i; j < n; j++ {
				switch {
				case H[i][j] == 0:
				case i == j:
					terms = append(terms, fmt.Sprintf("%g*x%d^2", H[i][i]/2, i+1))
				default:
					terms = append(terms, fmt.Sprintf("%g*x%d*x%d", H[i][j], i+1, j+1))
				}
			}
		}
		cols, rows = []int{1, 2, 0, 3}, []int{0, 0, 0, 0} // the path 3–1–2–4
	case probPath:
		for i := 1; i < n; i++ {
			terms = append(terms, fmt.Sprintf("(x%d - x%d^2)^2", i+1, i))
		}
		cols, rows = make([]int, n), make([]int, n)
		for i := range cols {
			cols[i] = i
		}
	case probStar:
		for i := 2; i <= n; i++ {
			terms = append(terms, fmt.Sprintf("sin(x1 + x%d)", i))
		}
		cols, rows = make([]int, n), make([]int, n)
		for i := 1; i < n; i++ {
			cols[i], rows[i] = 1, i-1
		}
		rows[0] = (n - 2) / 2
	case probCycle:
		g, _ := sparse.CycleGraph(max(n, 3))
		n = g.N()
		edgeTerms(g.Edges())
		cols, rows = make([]int, n), make([]int, n)
		top := (n + 1) / 2
		for i := range n { // round the ring: along the top, back along the bottom
			if i < top {
				cols[i] = i
			} else {
				cols[i], rows[i] = n-1-i, 1
			}
		}
	case probGrid:
		if n*n > colorMax {
			return "", 0, nil, nil, fmt.Errorf("parameter n = %d: a %d×%d grid has %d vertices; at most %d", n, n, n, n*n, colorMax)
		}
		g, _ := sparse.GridGraph(n, n)
		edgeTerms(g.Edges())
		cols, rows = make([]int, n*n), make([]int, n*n)
		for v := range cols {
			cols[v], rows[v] = v%n, v/n
		}
		n *= n
	case probRandom:
		g, err := sparse.RandomGraph(n, p, rng)
		if err != nil {
			return "", 0, nil, nil, err
		}
		edgeTerms(g.Edges())
		side := int(math.Ceil(math.Sqrt(float64(n))))
		cols, rows = make([]int, n), make([]int, n)
		for v := range cols {
			cols[v], rows[v] = v%side, v/side
		}
	}
	for i := 1; i <= n; i++ { // every variable in f, with curvature of its own
		if prob != probNotes {
			terms = append(terms, fmt.Sprintf("0.5*x%d^2", i))
		}
	}
	return strings.Join(terms, " + "), n, cols, rows, nil
}

func (s *coloringSim) buildHessian(n int, p float64, rng *rand.Rand) error {
	src, n, cols, rows, err := hessianSource(s.prob, n, p, rng)
	if err != nil {
		return err
	}
	s.cols, s.rows = cols, rows
	vars := make([]ad.Var, n)
	for i := range vars {
		vars[i] = ad.Var{Name: fmt.Sprintf("x%d", i+1), Value: math.Round(20*rng.Float64()-10) / 10}
		s.vars = append(s.vars, vars[i].Name)
	}
	if s.g, err = ad.Parse(src, vars); err != nil {
		return err
	}
	pattern, err := s.g.HessianPattern(0)
	if err != nil {
		return err
	}
	if s.pat, err = sparse.NewPattern(n, n, pattern); err != nil {
		return err
	}
	if s.graph, err = s.pat.AdjacencyGraph(); err != nil {
		return err
	}
	if s.hess, err = ad.NewHessian(s.g, ad.FoR, 0); err != nil {
		return err
	}
	H, err := s.hess.Run()
	if err != nil {
		return err
	}
	s.exact = mat.NewDense(n, n, append([]float64(nil), H...))
	return nil
}

func (s *coloringSim) numColors() int {
	k := 0
	for _, c := range s.colour.Colors() {
		k = max(k, c+1)
	}
	return k
}

func (s *coloringSim) Step() error {
	s.vertex, s.product, s.last = -1, -1, [2]int{-1, -1}
	switch s.stage {
	case stageColour:
		if err := s.colour.Step(); err != nil {
			return err
		}
		s.vertex = s.colour.Last()
		if s.colour.Done() {
			s.stage = stageCompress
			if s.by == byRows && s.prob == probJacobian {
				s.B = mat.NewDense(s.numColors(), s.pat.N, nil)
			} else {
				s.B = mat.NewDense(s.graph.N(), s.numColors(), nil)
				if s.prob == probJacobian {
					s.B = mat.NewDense(s.pat.M, s.numColors(), nil)
				}
			}
		}
	case stageCompress:
		if err := s.compress(); err != nil {
			return err
		}
		s.product = s.passes
		s.passes++
		if s.passes == s.numColors() {
			s.stage = stageRecover
			if s.prob != probJacobian {
				var err error
				if s.peel, err = sparse.NewPeeler(s.graph, s.colour.Colors(), s.B); err != nil {
					return err
				}
			}
		}
	case stageRecover:
		if err := s.recover(); err != nil {
			s.stuck = err
			return err
		}
	default:
		return algo.ErrConverged
	}
	s.steps++
	return nil
}

// compress takes the product for colour s.passes: J·(Σ e_j over the
// colour's columns), (Σ e_i over the rows)ᵀ·J, or H·(Σ e_j).
func (s *coloringSim) compress() error {
	c := s.passes
	colors := s.colour.Colors()
	seed := make([]float64, len(colors))
	for v, cv := range colors {
		if cv == c {
			seed[v] = 1
		}
	}
	switch {
	case s.prob != probJacobian:
		hv := make([]float64, len(seed))
		if err := s.hess.HVP(hv, seed); err != nil {
			return err
		}
		s.B.SetCol(c, hv)
	case s.by == byRows:
		uJ := make([]float64, s.pat.N)
		if err := s.g.VJP(uJ, seed); err != nil {
			return err
		}
		s.B.SetRow(c, uJ)
	default:
		jv := make([]float64, s.pat.M)
		if err := s.g.JVP(jv, seed); err != nil {
			return err
		}
		s.B.SetCol(c, jv)
	}
	return nil
}

// recover finds one more entry: the next leaf peeled from the Hessian's
// products, or the next Jacobian entry read back from its colour's
// product (decompression: J_ij = B_{i,c(j)}, or B_{c(i),j} for rows).
func (s *coloringSim) recover() error {
	if s.prob != probJacobian {
		if s.peel.Done() {
			s.stage = stageDone
			return algo.ErrConverged
		}
		if err := s.peel.Step(); err != nil {
			s.stuckWhy = err.Error()
			return fmt.Errorf("%d unknowns coupled in a 2-colour cycle", s.peel.Left())
		}
		s.last[0], s.last[1] = s.peel.Last()
		if s.peel.Done() {
			s.stage = stageDone
		}
		return nil
	}
	k := 0
	for _, row := range s.known {
		for _, b := range row {
			if b {
				k++
			}
		}
	}
	if k == len(s.order) {
		s.stage = stageDone
		return algo.ErrConverged
	}
	i, j := s.order[k][0], s.order[k][1]
	colors := s.colour.Colors()
	if s.by == byRows {
		s.got.Set(i, j, s.B.At(colors[i], j))
	} else {
		s.got.Set(i, j, s.B.At(i, colors[j]))
	}
	s.known[i][j] = true
	s.last = [2]int{i, j}
	if k+1 == len(s.order) {
		s.stage = stageDone
	}
	return nil
}

// entry is the recovered (i, j) entry and whether it is known yet.
func (s *coloringSim) entry(i, j int) (float64, bool) {
	if s.prob == probJacobian {
		return s.got.At(i, j), s.known[i][j]
	}
	if s.peel == nil {
		return 0, false
	}
	return s.peel.H.At(i, j), s.peel.Known(i, j)
}

// recoveryErr is the largest |recovered − exact| over the known entries.
func (s *coloringSim) recoveryErr() float64 {
	e := 0.0
	for i, r := range s.pat.Rows {
		for _, j := range r {
			if x, ok := s.entry(i, j); ok {
				e = math.Max(e, math.Abs(x-s.exact.At(i, j)))
			}
		}
	}
	return e
}

func (s *coloringSim) recovered() int {
	k := 0
	for i, r := range s.pat.Rows {
		for _, j := range r {
			if _, ok := s.entry(i, j); ok {
				k++
			}
		}
	}
	return k
}

func (s *coloringSim) Frame() sims.Frame {
	charts := []sims.Chart{s.graphChart(), s.matrixChart()}
	if len(s.xi) > 0 {
		charts = append(charts, s.xiChart())
	}
	if s.B != nil {
		charts = append(charts, s.productChart())
	}
	passes := s.pat.N
	if s.prob == probJacobian && s.by == byRows {
		passes = s.pat.M
	}
	return sims.Frame{
		Sim:  Coloring.Name,
		Step: s.steps,
		Metrics: []sims.Metric{
			{Name: "colours", Value: float64(s.colour.NumColors())},
			{Name: "passes", Value: float64(s.passes)},
			{Name: "dense", Value: float64(passes)},
			{Name: "found", Value: float64(s.recovered())},
			{Name: "of", Value: float64(s.pat.NNZ())},
			{Name: "err", Value: s.recoveryErr()},
		},
		Charts: charts,
		Text:   s.notes(),
	}
}

// vertexName is how vertex v of the coloured graph is written.
func (s *coloringSim) vertexName(v int) string {
	if s.prob == probJacobian && s.by == byRows {
		return fmt.Sprintf("f%d", v+1)
	}
	return s.vars[v]
}

// graphChart draws the coloured graph: the Hessian's adjacency graph, or
// for a Jacobian the bipartite graph of rows and columns (§1.9.1: two
// vertices of the coloured side at distance 2 differ).
func (s *coloringSim) graphChart() sims.GraphChart {
	colors := s.colour.Colors()
	vertex := func(v, col, row int) sims.GraphNode {
		n := sims.GraphNode{Col: col, Row: row, Label: s.vertexName(v), Tone: sims.ToneDim}
		if c := colors[v]; c >= 0 {
			n.Tone, n.Class, n.Detail = sims.ToneFill, c%sims.MaxClasses, fmt.Sprintf("c%d", c+1)
		}
		if v == s.vertex {
			n.Tone = sims.ToneFocus
		}
		return n
	}
	if s.prob != probJacobian {
		gc := sims.GraphChart{Title: fmt.Sprintf("%v colouring", s.kind)}
		for v := range s.graph.N() {
			gc.Nodes = append(gc.Nodes, vertex(v, s.cols[v], s.rows[v]))
		}
		for _, e := range s.graph.Edges() {
			gc.Edges = append(gc.Edges, sims.GraphEdge{From: e[0], To: e[1]})
		}
		return gc
	}
	// Bipartite: the coloured side in column 0, the other in column 1.
	gc := sims.GraphChart{Title: "bipartite, distance-2"}
	side := s.graph.N()
	for v := range side {
		gc.Nodes = append(gc.Nodes, vertex(v, 0, v))
	}
	other := s.pat.M
	if s.by == byRows {
		other = s.pat.N
	}
	for u := range other {
		name := fmt.Sprintf("f%d", u+1)
		if s.by == byRows {
			name = s.vars[u]
		}
		gc.Nodes = append(gc.Nodes, sims.GraphNode{Col: 1, Row: u, Label: name})
	}
	for i, r := range s.pat.Rows {
		for _, j := range r {
			if s.by == byRows {
				gc.Edges = append(gc.Edges, sims.GraphEdge{From: i, To: side + j})
			} else {
				gc.Edges = append(gc.Edges, sims.GraphEdge{From: j, To: side + i})
			}
		}
	}
	return gc
}

// matrixChart is the matrix being recovered: ? for an entry still unknown,
// tinted by the colour of the product that carries it.
func (s *coloringSim) matrixChart() sims.TableChart {
	colors := s.colour.Colors()
	title := "H: ? unknown"
	if s.prob == probJacobian {
		title = "J: ? unknown"
	}
	t := sims.TableChart{Title: title, Corner: "", Matrix: true}
	for j := range s.pat.N {
		t.Columns = append(t.Columns, s.vars[j])
	}
	for i := range s.pat.M {
		row := sims.TableRow{Label: fmt.Sprintf("f%d", i+1)}
		if s.prob != probJacobian {
			row.Label = s.vars[i]
		}
		for j := range s.pat.N {
			if !s.pat.Has(i, j) {
				row.Cells = append(row.Cells, sims.Cell{Text: "", Tone: sims.ToneDim})
				continue
			}
			var carrier int
			if s.prob == probJacobian && s.by == byRows {
				carrier = colors[i]
			} else {
				carrier = colors[j]
			}
			cell := sims.Cell{Text: "?", Tone: sims.ToneDim}
			if carrier >= 0 {
				cell.Tone, cell.Class = sims.ToneFill, carrier%sims.MaxClasses
			}
			if x, ok := s.entry(i, j); ok {
				cell = numCell(x).Styled(cell.Tone, cell.Class)
				if [2]int{i, j} == s.last || s.prob != probJacobian && [2]int{j, i} == s.last {
					cell.Tone, cell.Class = sims.ToneFocus, classNow
				}
			}
			row.Cells = append(row.Cells, cell)
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// productChart is the compressed products B, one column (row) per colour:
// the seed matrix S has a column of ones on each colour's vertices.
func (s *coloringSim) productChart() sims.TableChart {
	r, c := s.B.Dims()
	rowsAreColours := s.prob == probJacobian && s.by == byRows
	title := "B = H·S"
	switch {
	case rowsAreColours:
		title = "B = SᵀJ"
	case s.prob == probJacobian:
		title = "B = J·S"
	}
	t := sims.TableChart{Title: title, Corner: "", Matrix: true}
	if rowsAreColours {
		for j := range c {
			t.Columns = append(t.Columns, s.vars[j])
		}
	} else {
		for k := range c {
			t.Columns = append(t.Columns, fmt.Sprintf("c%d", k+1))
		}
	}
	for i := range r {
		row := sims.TableRow{Label: fmt.Sprintf("f%d", i+1)}
		switch {
		case rowsAreColours:
			row.Label = fmt.Sprintf("c%d", i+1)
		case s.prob != probJacobian:
			row.Label = s.vars[i]
		}
		for j := range c {
			k := j
			if rowsAreColours {
				k = i
			}
			if k >= s.passes {
				row.Cells = append(row.Cells, sims.Cell{Text: "·", Tone: sims.ToneDim})
				continue
			}
			cell := numCell(s.B.At(i, j)).Styled(sims.ToneFill, k%sims.MaxClasses)
			if k == s.product {
				cell.Tone = sims.ToneFocus
			}
			row.Cells = append(row.Cells, cell)
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// xiChart is the chain ξ₁ ≤ ξ_acyclic ≤ ξ_star ≤ ξ₂ (eq 1.68) of the
// coloured graph, by exact search.
func (s *coloringSim) xiChart() sims.BarChart {
	b := sims.BarChart{Title: "ξ₁ ≤ ξ_acyc ≤ ξ_star ≤ ξ₂", Max: float64(s.graph.N())}
	labels := map[sparse.Kind]string{sparse.Distance1: "ξ₁", sparse.Acyclic: "ξ_acyc", sparse.Star: "ξ_star", sparse.Distance2: "ξ₂"}
	for _, k := range sparse.Kinds {
		class := classDone
		if k == s.kind && s.prob != probJacobian {
			class = classNow
		}
		b.Bars = append(b.Bars, sims.Bar{Label: labels[k], Value: float64(s.xi[k]), Class: class})
	}
	return b
}

func (s *coloringSim) notes() []string {
	var lines []string
	k := s.numColors()
	dense := s.pat.N
	what := "HVPs"
	switch {
	case s.prob == probJacobian && s.by == byRows:
		dense, what = s.pat.M, "VJPs"
	case s.prob == probJacobian:
		what = "JVPs"
	}
	switch {
	case s.stage == stageColour || s.vertex >= 0:
		if v := s.colour.Last(); v >= 0 {
			lines = append(lines, fmt.Sprintf("%s takes the least colour with no conflict: c%d", s.vertexName(v), s.colour.Colors()[v]+1))
		} else {
			lines = append(lines, "colour greedily, largest degree first, one vertex per step")
		}
	case s.stage == stageCompress || s.product >= 0:
		lines = append(lines, fmt.Sprintf("%d colours: %d %s instead of %d", k, k, what, dense))
	default:
		switch {
		case s.stuck != nil:
			lines = append(lines, "✗ peeling stuck: "+s.stuck.Error())
		case s.prob == probJacobian:
			lines = append(lines, "decompression: J_ij is entry i of its column's colour product")
		default:
			lines = append(lines, "peel a leaf of a two-colour tree, subtract it at its neighbour")
		}
	}
	switch {
	case s.prob == probJacobian:
		lines = append(lines, "columns that share no row may share a JVP: 5 → 2")
	case s.kind == sparse.Distance1:
		lines = append(lines, "distance-1 ignores cycles: a 2-coloured cycle couples its unknowns")
	case s.kind == sparse.Acyclic:
		lines = append(lines, "acyclic: two colours make a forest, so a leaf can always be peeled")
	case s.kind == sparse.Star:
		lines = append(lines, "star: no 2-coloured P4, every entry is a leaf: direct read-out")
	default:
		lines = append(lines, "distance-2: each row's colours differ, every entry read directly")
	}
	if s.stage == stageDone && s.stuck == nil {
		lines = append(lines, fmt.Sprintf("✓ all %d entries from %d products, max error %s", s.pat.NNZ(), k, sci(s.recoveryErr(), 1)))
	}
	return lines
}

func (s *coloringSim) Result() map[string]any {
	res := map[string]any{"colours": s.colour.NumColors(), "colors": append([]int(nil), s.colour.Colors()...),
		"passes": s.passes, "recovered": s.recovered(), "entries": s.pat.NNZ(), "err": s.recoveryErr()}
	xi := map[string]int{}
	for k, x := range s.xi {
		xi[k.String()] = x
	}
	res["xi"] = xi
	if s.stuck != nil {
		res["stuck"] = s.stuckWhy
	}
	return res
}
