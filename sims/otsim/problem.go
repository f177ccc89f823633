// Package otsim turns the optimal-transport engines of algo/ot (seed 002
// chapter 5) into sims: Monge maps and the Hungarian algorithm
// (assignment), the Kantorovich LP stepped pivot by pivot beside gonum's
// simplex (ot-lp), 1-D OT by quantile functions (ot-1d), the Brenier map
// between Gaussians (ot-gauss), entropic OT in the log and the plain domain
// (sinkhorn), Wasserstein against "vertical" distances (distances),
// displacement against mixture interpolation (ot-geodesic) and W₂
// barycenters, exact in 1-D and by iterated Sinkhorn projections on a grid
// (barycenter).
//
// The regularisation of entropic OT is ε, the weight of the entropy; the
// notes' λ multiplies the cost (K = exp(−λC), L2302), and ε = 1/λ (the
// seed-002 catalogue's erratum for L2302). Every pane that shows ε says so.
package otsim

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/thelab/lab/algo/ot"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// preset names one of algo/ot's built-in problems (ot.Presets).
type preset string

func (p preset) String() string { return string(p) }

// The presets, in menu order: the notes' worked examples, then the
// generators.
const (
	preEx51Exists preset = "ex5.1-exists"
	preEx51None   preset = "ex5.1-none"
	preEx52       preset = "ex5.2"
	preEx54       preset = "ex5.4"
	preThree      preset = "three"
	preGaussHist  preset = "gauss-hist"
	preGaussians  preset = "gaussians"
	preMixtures   preset = "mixtures"
	preBoxes      preset = "boxes"
	preMoonsRing  preset = "moons-ring"
	preGauss1D    preset = "gauss-1d"
)

// presetHelp lists the presets with their one-line docs, for a parameter's
// help. It runs when the program starts, so it builds the text in one
// allocation rather than by repeated concatenation (issue 14.7).
func presetHelp(ps []preset) string {
	const sep = "; "
	doc := func(p preset) string { q, _ := ot.PresetByName(string(p)); return q.Doc }
	n := 0
	for _, p := range ps {
		n += len(sep) + len(p) + len(": ") + len(doc(p))
	}
	var b strings.Builder
	b.Grow(n)
	for k, p := range ps {
		if k > 0 {
			b.WriteString(sep)
		}
		b.WriteString(string(p))
		b.WriteString(": ")
		b.WriteString(doc(p))
	}
	return b.String()
}

// sideColumn is the side column of point data: source or target.
var sideColumn = sims.TextColumn{Name: "side", Values: []string{ot.Source.String(), ot.Target.String()}}

// dataNote is the Spec.Data of the sims that take a discrete problem.
const dataNote = "points: columns x (or x,y), an optional weight (uniform when absent) and side " +
	"(source or target), one row per atom; or histograms on a shared support: columns x,a,b. " +
	"Each side's weights are masses: the two totals must agree (within a relative 1e-6; " +
	"they are not rescaled to force it), and each side is then divided by its total"

// problemParams are the data parameters of a sim of a discrete problem:
// the preset, the atoms n and m of a generated one, and the exponent p of
// the ground cost ‖x − y‖^p. A problemParams is a param.Decl.
type problemParams struct {
	Preset *param.ChoiceDecl[preset]
	N, M   *param.IntDecl
	P      *param.FloatDecl
}

// pHelp is the help of the exponent p, written once for every sim that
// declares it (by concatenation: fmt at start-up costs more, issue 14.7).
var pHelp = "exponent of the ground cost ‖x − y‖^p, " + strconv.Itoa(ot.MinP) + " … " + strconv.Itoa(ot.MaxP) +
	" (W_p is a metric for p ≥ 1; the worked examples ex5.2, ex5.4 and three give their own C)"

// newProblemParams declares the data parameters with these presets and
// defaults; n and m range over 1..maxAtoms (m is nil when sameSize: the
// sim needs N = M).
func newProblemParams(presets []preset, def preset, n, m, maxAtoms int, sameSize bool) problemParams {
	nHelp := "source atoms of a generated preset (bins of gauss-hist)"
	if sameSize {
		nHelp = "atoms on each side of a generated preset (N = M, masses 1/N)"
	}
	pp := problemParams{
		Preset: param.Choice("preset", presets, def, presetHelp(presets)).BuiltInData(),
		N:      param.Int("n", n, nHelp).Range(1, maxAtoms).BuiltInData(),
		P:      param.Float("p", 2, pHelp).Range(ot.MinP, ot.MaxP),
	}
	if !sameSize {
		pp.M = param.Int("m", m, "target atoms of a generated preset (gauss-hist shares the source's bins)").Range(1, maxAtoms).BuiltInData()
	}
	return pp
}

// Params lists the parameters.
func (pp problemParams) Params() []param.Param {
	if pp.M == nil {
		return param.List(pp.Preset, pp.N, pp.P)
	}
	return param.List(pp.Preset, pp.N, pp.M, pp.P)
}

// problem is a discrete problem ready for an engine: the atoms (sorted
// for the pictures when the cost comes from their positions), the
// normalised masses and the cost matrix.
type problem struct {
	*ot.Problem
	C    []float64
	pow  float64
	data bool // from --data
}

// load builds the problem of the configuration: the user's data, or the
// preset drawn from the seed (stream tag names the sim).
func (pp problemParams) load(cfg sims.Config, tag uint64) (*problem, error) {
	v := cfg.Values
	var p *ot.Problem
	var err error
	if cfg.Data != nil {
		p, err = fromTable(cfg.Data)
	} else {
		pre, _ := ot.PresetByName(string(pp.Preset.Get(v)))
		n := pp.N.Get(v)
		m := n
		if pp.M != nil {
			m = pp.M.Get(v)
		}
		p, err = pre.New(rand.New(rand.NewPCG(cfg.Seed, tag)), n, m)
		if err != nil {
			err = sims.Blame(err, v, sims.As("n", pp.N), sims.As("m", pp.M))
		}
	}
	if err != nil {
		return nil, err
	}
	if p.C == nil {
		sortAtoms(p)
	}
	pow := pp.P.Get(v)
	c, err := p.Cost(pow)
	if err != nil {
		return nil, sims.Blame(err, v, sims.As("p", pp.P))
	}
	if err := ot.CheckCost(c, p.N(), p.M()); err != nil {
		return nil, fmt.Errorf("the ground cost ‖x − y‖^%g of the atoms overflows: %w", pow, err)
	}
	return &problem{Problem: p, C: c, pow: pow, data: cfg.Data != nil}, nil
}

// fromTable reads a discrete problem from --data: x,a,b histograms on a
// shared support, or x[,y][,weight],side points. A refused row is named by
// its line in the file.
func fromTable(t *sims.Table) (*ot.Problem, error) {
	name := "--data " + t.Name
	col := func(names ...string) ([]float64, bool) {
		for _, c := range names {
			if k := t.Column(c); k >= 0 {
				out := make([]float64, len(t.Rows))
				for r, row := range t.Rows {
					out[r] = row[k]
				}
				return out, true
			}
		}
		return nil, false
	}
	x, hasX := col("x")
	if !hasX {
		return nil, fmt.Errorf("%s: no column x; %s", name, dataNote)
	}
	var p *ot.Problem
	var err error
	if a, ok := col("a"); ok {
		b, ok := col("b")
		if !ok {
			return nil, fmt.Errorf("%s: a column a but no column b: histograms on a shared support need x,a,b", name)
		}
		p, err = ot.FromHistograms(name, x, a, b)
	} else {
		s, ok := col(sideColumn.Name)
		if !ok {
			return nil, fmt.Errorf("%s: no column side (source or target) and no columns a,b; %s", name, dataNote)
		}
		y, hasY := col("y")
		coords := make([][]float64, len(x))
		sides := make([]ot.Side, len(x))
		for r := range x {
			if hasY {
				coords[r] = []float64{x[r], y[r]}
			} else {
				coords[r] = []float64{x[r]}
			}
			sides[r] = ot.Side(s[r]) // the index in sideColumn.Values: source 0, target 1
		}
		w, _ := col("weight")
		p, err = ot.FromPoints(name, coords, w, sides)
	}
	var re *ot.RowError
	if errors.As(err, &re) && re.Row >= 1 && re.Row <= len(t.Lines) {
		return nil, fmt.Errorf("%s: line %d: %s", name, t.Lines[re.Row-1], re.Msg)
	}
	return p, err
}

// sortAtoms orders each side so that a plan's heat map shows its
// structure: on the line by position (the monotone staircase of 1-D OT),
// in the plane by the angle about the side's mean, counter-clockwise from
// the west (the components of a mixture fall in blocks, and a transport
// that keeps the clouds' layout is near the diagonal).
func sortAtoms(p *ot.Problem) {
	sortSide(p.X, p.Mu, p.Dim)
	sortSide(p.Y, p.Nu, p.Dim)
}

func sortSide(x, w []float64, dim int) {
	key := slices.Clone(x[:len(w)])
	if dim == 2 {
		mx, my := 0.0, 0.0
		for i := range w {
			mx, my = mx+x[2*i], my+x[2*i+1]
		}
		mx, my = mx/float64(len(w)), my/float64(len(w))
		for i := range w {
			key[i] = math.Atan2(x[2*i+1]-my, x[2*i]-mx)
		}
	} else {
		copy(key, x)
	}
	idx := make([]int, len(w))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(key[a], key[b]) })
	xs, ws := slices.Clone(x), slices.Clone(w)
	for k, i := range idx {
		copy(x[k*dim:(k+1)*dim], xs[i*dim:(i+1)*dim])
		w[k] = ws[i]
	}
}
