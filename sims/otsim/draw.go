package otsim

import (
	"cmp"
	"math"
	"slices"

	"github.com/thelab/lab/sims"
)

// Colour classes shared by the OT panes.
const (
	classSource = 0 // μ
	classTarget = 1 // ν
	classPlan   = 2 // mass moved, the plan's lines
	classMark   = 3 // what the last step did: the entering cell, the cycle
	classBad    = 7 // infeasible, stalled
	classRef    = 9 // a reference: the LP optimum, a closed form
)

// maxHeatCells is the most heat cells a plan's picture has along an axis:
// a larger plan is summed over blocks of cells, so that a sparse plan
// keeps its mass on screen instead of falling between sampled cells.
const maxHeatCells = 48

// planFrame lays an n×m plan out in world coordinates: column j of the
// plan over x ∈ [j, j+1], row i over y ∈ [n−i−1, n−i] (row 0 at the top),
// the source masses as a profile in a margin left of the plan and the
// target masses in a margin below it. The heat map sums the plan over
// blocks of bx columns and by rows.
type planFrame struct {
	n, m   int
	bx, by int // plan columns and rows per heat cell
	gx, gy int // heat cells over the plan
	mx, my int // heat cells of the left and the bottom margin
}

func newPlanFrame(n, m int) planFrame {
	f := planFrame{n: n, m: m, bx: max(1, ceilDiv(m, maxHeatCells)), by: max(1, ceilDiv(n, maxHeatCells))}
	f.gx, f.gy = ceilDiv(m, f.bx), ceilDiv(n, f.by)
	f.mx, f.my = max(1, (f.gx+2)/4), max(1, (f.gy+2)/4)
	return f
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// view is the world rectangle: the plan and its margins (the blocks may
// run past the last column or row).
func (f planFrame) view() sims.Rect {
	return sims.Rect{XMin: -float64(f.mx * f.bx), XMax: float64(f.gx * f.bx),
		YMin: float64(f.n - f.gy*f.by - f.my*f.by), YMax: float64(f.n)}
}

// heat sums the plan over the blocks; the margins are 0.
func (f planFrame) heat(plan []float64) *sims.Grid {
	nx, ny := f.mx+f.gx, f.my+f.gy
	z := make([]float64, nx*ny)
	for i := range f.n {
		gj := f.my + f.gy - 1 - i/f.by // heat row from the bottom
		row := plan[i*f.m : (i+1)*f.m]
		for j, v := range row {
			z[gj*nx+f.mx+j/f.bx] += v
		}
	}
	return &sims.Grid{NX: nx, NY: ny, Z: z, Scale: sims.Sequential}
}

// cell is the world centre of plan cell (i, j).
func (f planFrame) cell(i, j int) (x, y float64) {
	return float64(j) + 0.5, float64(f.n-i) - 0.5
}

// rows is a profile of n values w (the source masses, or the row sums of
// a plan) in the left margin: a bar of length w_i/scale of the margin's
// width growing leftwards from the plan beside row i.
func (f planFrame) rows(w []float64, scale float64, class int, dotted bool) sims.Path {
	width := 0.9 * float64(f.mx*f.bx)
	p := sims.Path{X: make([]float64, 0, 2*len(w)), Y: make([]float64, 0, 2*len(w)), Class: class, Dotted: dotted}
	for i, v := range w {
		x := -width * v / scale
		top := float64(f.n - i)
		p.X, p.Y = append(p.X, x, x), append(p.Y, top, top-1)
	}
	return p
}

// cols is the profile of m values below the plan, growing downwards.
func (f planFrame) cols(w []float64, scale float64, class int, dotted bool) sims.Path {
	height := 0.9 * float64(f.my*f.by)
	base := float64(f.n - f.gy*f.by)
	p := sims.Path{X: make([]float64, 0, 2*len(w)), Y: make([]float64, 0, 2*len(w)), Class: class, Dotted: dotted}
	for j, v := range w {
		y := base - height*v/scale
		p.X, p.Y = append(p.X, float64(j), float64(j+1)), append(p.Y, y, y)
	}
	return p
}

// maxOf is the largest value of the slices (at least a tiny positive
// number, for a scale).
func maxOf(ws ...[]float64) float64 {
	mx := 1e-300
	for _, w := range ws {
		for _, v := range w {
			mx = math.Max(mx, v)
		}
	}
	return mx
}

// planChart draws a plan (its heat grid, from heat) with its marginals: μ (solid) beside the rows
// and ν below the columns, and, when rowSums is not nil, the plan's own
// row sums dotted over μ (Sinkhorn's row marginal, which converges to μ).
func planChart(title string, f planFrame, heat *sims.Grid, mu, nu, rowSums []float64) sims.CanvasChart {
	scale := maxOf(mu, nu, rowSums)
	paths := []sims.Path{f.rows(mu, scale, classSource, false), f.cols(nu, scale, classTarget, false)}
	legend := []string{"μ", "ν"}
	if rowSums != nil {
		paths = append(paths, f.rows(rowSums, scale, classPlan, true))
		legend = append(legend, "π1")
	}
	return sims.CanvasChart{Title: title, View: f.view(), Heat: heat, Paths: paths, Legend: legend,
		XLabel: "target j", YLabel: "source i",
		XIndex: &sims.Index{First: 0, Last: f.m - 1, At: 0.5, Step: 1},
		YIndex: &sims.Index{First: 0, Last: f.n - 1, At: float64(f.n) - 0.5, Step: -1}}
}

// layout places the atoms of a problem for a picture of its couplings:
// the points themselves in 2-D; in 1-D the sources on the line y = 1 and
// the targets on y = 0 at their positions (Fig 5.7); with a cost matrix
// only, the atoms evenly on those lines.
type layout struct {
	xs, ys []float64 // sources
	xt, yt []float64 // targets
	view   sims.Rect
	xl, yl string
}

func newLayout(p *problem) layout {
	n, m := p.N(), p.M()
	var l layout
	switch p.Dim {
	case 2:
		l.xs, l.ys = split(p.X)
		l.xt, l.yt = split(p.Y)
		v := sims.Bounds(append(slices.Clone(l.xs), l.xt...), append(slices.Clone(l.ys), l.yt...))
		l.view, l.xl, l.yl = v.Pad(0.05), "x", "y"
		return l
	case 1:
		l.xs, l.xt = slices.Clone(p.X), slices.Clone(p.Y)
		l.xl = "x"
	default:
		l.xs, l.xt = spread(n), spread(m)
		l.xl = "atom"
	}
	l.ys, l.yt = constant(n, 1), constant(m, 0)
	lo, hi := slices.Min(l.xs), slices.Max(l.xs)
	lo, hi = math.Min(lo, slices.Min(l.xt)), math.Max(hi, slices.Max(l.xt))
	pad := 0.05 * (hi - lo)
	if pad == 0 {
		pad = 0.5
	}
	l.view = sims.Rect{XMin: lo - pad, XMax: hi + pad, YMin: -0.15, YMax: 1.15}
	l.yl = "ν 0, μ 1"
	return l
}

func split(xy []float64) (x, y []float64) {
	x, y = make([]float64, len(xy)/2), make([]float64, len(xy)/2)
	for i := range x {
		x[i], y[i] = xy[2*i], xy[2*i+1]
	}
	return x, y
}

// spread is k points evenly in [0, 1] (one at ½).
func spread(k int) []float64 {
	x := make([]float64, k)
	for i := range x {
		if k == 1 {
			x[i] = 0.5
		} else {
			x[i] = float64(i) / float64(k-1)
		}
	}
	return x
}

func constant(k int, c float64) []float64 {
	x := make([]float64, k)
	for i := range x {
		x[i] = c
	}
	return x
}

// maxLines is the most coupling lines a picture draws: the heaviest.
const maxLines = 400

// lines returns a segment from source i to target j for the heaviest
// entries of the plan: solid for mass above a third of the largest,
// dotted down to a tenth, none below (a blurred entropic plan would
// otherwise fill the picture).
func (l layout) lines(plan []float64, m int) []sims.Path {
	mx := maxOf(plan)
	var keep []int
	for k, v := range plan {
		if v >= mx/10 {
			keep = append(keep, k)
		}
	}
	if len(keep) > maxLines {
		slices.SortFunc(keep, func(a, b int) int { return cmp.Compare(plan[b], plan[a]) })
		keep = keep[:maxLines]
	}
	out := make([]sims.Path, 0, len(keep))
	for _, k := range keep {
		i, j := k/m, k%m
		out = append(out, sims.Path{X: []float64{l.xs[i], l.xt[j]}, Y: []float64{l.ys[i], l.yt[j]},
			Class: classPlan, Dotted: plan[k] < mx/3})
	}
	return out
}

// points are the atoms of both sides.
func (l layout) points() []sims.PointSet {
	return []sims.PointSet{
		{Name: "μ", X: l.xs, Y: l.ys, Class: classSource},
		{Name: "ν", X: l.xt, Y: l.yt, Class: classTarget},
	}
}

// couplingChart draws the atoms and the plan's heaviest pairs as lines.
func couplingChart(title string, l layout, plan []float64, m int) sims.CanvasChart {
	return sims.CanvasChart{Title: title, View: l.view, Paths: l.lines(plan, m), Points: l.points(),
		Legend: []string{"μ", "ν", "P_ij"}, XLabel: l.xl, YLabel: l.yl}
}

// onTop orders a line chart's series with the references and bounds
// first, so that the measured curves are drawn over them where they meet
// (a converged cost on its LP line, W₂ on s·W₂).
func onTop(series ...sims.Series) []sims.Series {
	out := make([]sims.Series, 0, len(series))
	for _, pass := range []bool{true, false} {
		for _, s := range series {
			if s.Bound == pass {
				out = append(out, s)
			}
		}
	}
	return out
}
