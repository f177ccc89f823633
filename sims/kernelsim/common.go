// Package kernelsim turns the engines of algo/kernel and algo/svm into
// sims: the SVM in its dual (SMO) and primal (subgradient) forms, the
// kernel perceptron, kernel ridge regression, kernel PCA and the Gram-matrix
// checker. It also holds what every kernel sim shares: the kernel
// parameters (exported for the other kernel families) and the labelled
// data presets.
package kernelsim

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/thelab/lab/algo/dataset"
	"github.com/thelab/lab/algo/kernel"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// GammaHelp states the lab's Gaussian-kernel convention next to the notes'.
const GammaHelp = "rbf width γ in k(x,z) = exp(−γ‖x−z‖²); the notes' exp(−‖x−z‖²/σ) " +
	"(seed 001 L695, erratum E7) is γ = 1/σ, and exp(−‖x−z‖²/(2σ²)) (seeds 000, 003) is γ = 1/(2σ²)"

// KernelParams are the kernel parameters every kernel sim offers (kernel,
// degree, coef0, gamma), declared with the sim's own defaults, so that `lab
// list` states the convention once per sim. A KernelParams is a param.Decl:
// list it in the Spec's Params, and Build the kernel from the values.
type KernelParams struct {
	Kind   *param.ChoiceDecl[kernel.Kind]
	Degree *param.IntDecl
	Coef0  *param.FloatDecl
	Gamma  *param.FloatDecl
}

// NewKernelParams declares the kernel parameters with these defaults.
func NewKernelParams(kind kernel.Kind, degree int, coef0, gamma float64) KernelParams {
	return KernelParams{
		Kind: param.Choice("kernel", []kernel.Kind{kernel.KindLinear, kernel.KindPoly, kernel.KindRBF, kernel.KindSum, kernel.KindProduct}, kind,
			"linear ⟨x,z⟩; poly (⟨x,z⟩+coef0)^degree; rbf exp(−γ‖x−z‖²); sum = rbf + poly; product = rbf·poly"),
		Degree: param.Int("degree", degree, "degree p of the poly kernel (poly, sum, product)").Range(1, kernel.MaxDegree),
		Coef0: param.Float("coef0", coef0,
			"offset c ≥ 0 of the poly kernel (poly, sum, product); c < 0 would not be a kernel").Range(0, 100),
		Gamma: param.Float("gamma", gamma, GammaHelp).Range(0, 1000).OpenMin(),
	}
}

// Params lists the four parameters.
func (k KernelParams) Params() []param.Param { return param.List(k.Kind, k.Degree, k.Coef0, k.Gamma) }

// Build builds the kernel the values name.
func (k KernelParams) Build(v param.Values) (kernel.Kernel, error) {
	return kernel.New(kernel.Spec{Name: k.Kind.Get(v), Degree: k.Degree.Get(v), Coef0: k.Coef0.Get(v), Gamma: k.Gamma.Get(v)})
}

// preset names a generated data set of the kernel sims.
type preset string

func (p preset) String() string { return string(p) }

const (
	presetMoons     preset = "moons"
	presetCircles   preset = "circles"
	presetEllipse   preset = "ellipse"
	presetOverlap   preset = "overlap"
	presetSeparable preset = "separable"
	presetRings     preset = "rings"
	presetBlobs     preset = "blobs"
)

// classPreset declares the data parameter of a kernel classifier: one of
// the two-class presets, def by default.
func classPreset(def preset) *param.ChoiceDecl[preset] {
	return param.Choice("data", []preset{presetMoons, presetCircles, presetEllipse, presetOverlap, presetSeparable}, def,
		"two-class preset: two moons; concentric circles; seed 003 Fig 2.1's ellipse; "+
			"two overlapping Gaussians; linearly separable with margin").BuiltInData()
}

// classSize declares the number of points of a kernel classifier's preset.
func classSize(def, hi int) *param.IntDecl {
	return param.Int("n", def, "number of generated points").Range(10, hi).BuiltInData()
}

// classData returns the labelled two-class data: the CSV of cfg.Data
// (features standardised, labels 0/1 or ±1) or the preset with n points,
// drawn from the seed.
func classData(cfg sims.Config, p preset, n int) (*dataset.Labelled, error) {
	if t := cfg.Data; t != nil {
		l, err := t.Labelled(true)
		if err != nil {
			return nil, err
		}
		if l.Classes != 2 {
			return nil, fmt.Errorf("--data %s: needs two classes (labels 0/1 or −1/+1), found %d", t.Name, l.Classes)
		}
		if !slices.Contains(l.Y, 0) || !slices.Contains(l.Y, 1) {
			// Named here: the engine would blame n, which --data leaves unused.
			return nil, fmt.Errorf("--data %s: all %d rows have the same label: a two-class classifier needs rows of both classes", t.Name, l.N())
		}
		l.X = dataset.Standardize(l.X)
		return l, nil
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x6b65726e656c)) // "kernel"
	switch p {
	case presetMoons:
		return dataset.Moons(rng, n, 0.15)
	case presetCircles:
		return dataset.Circles(rng, n, 0.4, 0.08)
	case presetEllipse:
		return dataset.Ellipse(rng, n, 0.1)
	case presetOverlap:
		return dataset.GaussianClasses(rng, n, 2, 2.5)
	case presetSeparable:
		l, _, err := dataset.Separable(rng, n, 0.1)
		return l, err
	}
	return nil, fmt.Errorf("unknown data preset %q", p)
}

// dataNote is the --data description of the classification sims.
const dataNote = "a CSV of numeric feature columns and a label column (named \"label\", else the last) " +
	"with 0/1 or −1/+1 labels; features are standardised to mean 0, s.d. 1; the decision map needs exactly 2 features"

// columns returns the first two feature columns of the data as x, y
// slices, or nils when the data is not 2-D.
func columns(l *dataset.Labelled) (x, y []float64) {
	if l.D() != 2 {
		return nil, nil
	}
	x, y = make([]float64, l.N()), make([]float64, l.N())
	for i, r := range l.X {
		x[i], y[i] = r[0], r[1]
	}
	return x, y
}

// classSetup builds what the kernel classifiers share: the two-class data
// of the preset and n (classData), the kernel and the ±1 labels.
func classSetup(cfg sims.Config, p preset, n int, kp KernelParams) (*dataset.Labelled, kernel.Kernel, []float64, error) {
	data, err := classData(cfg, p, n)
	if err != nil {
		return nil, nil, nil, err
	}
	k, err := kp.Build(cfg.Values)
	if err != nil {
		return nil, nil, nil, err
	}
	y, err := data.PlusMinus()
	if err != nil {
		return nil, nil, nil, err
	}
	return data, k, y, nil
}

// mapKernel is what a kernel classifier needs to draw its decision map
// when the data is 2-D: k(x_i, grid_g) for the G centres of the map's grid,
// plus 1 (the input x₀ = 1 of a bias) when bias is set, computed when
// point i's coefficient changes. The columns are not kept: every point's
// would be n·G values (32 MB at n = 2000, held as long as the sim and
// charged to its session), where a step needs at most two columns, each
// G kernel evaluations, about what a step computes anyway.
type mapKernel struct {
	k    kernel.Kernel
	x    [][]float64
	grid [][]float64
	bias bool
	buf  []float64 // the column last computed
}

// decisionMap returns the view and the map's kernel columns for 2-D data
// (px, py from columns) with n·mapNX·mapNY ≤ mapCost, or a nil mapKernel.
func decisionMap(k kernel.Kernel, data *dataset.Labelled, px, py []float64, bias bool) (sims.Rect, *mapKernel) {
	if px == nil || data.N()*mapNX*mapNY > mapCost {
		return sims.Rect{}, nil
	}
	view := sims.Bounds(px, py).Pad(0.08)
	grid := gridPoints(view, mapNX, mapNY)
	return view, &mapKernel{k: k, x: data.X, grid: grid, bias: bias, buf: make([]float64, len(grid))}
}

// col returns k(x_i, grid_g) (+1 with a bias) for every g, in a buffer
// that the next call overwrites.
func (m *mapKernel) col(i int) []float64 {
	for a, z := range m.grid {
		m.buf[a] = kernel.Eval(m.k, m.x[i], z)
		if m.bias {
			m.buf[a]++
		}
	}
	return m.buf
}

// gridPoints returns the centres of an nx×ny tiling of view, in the layout
// of sims.Grid (bottom row first).
func gridPoints(view sims.Rect, nx, ny int) [][]float64 {
	pts := make([][]float64, 0, nx*ny)
	dx := (view.XMax - view.XMin) / float64(nx)
	dy := (view.YMax - view.YMin) / float64(ny)
	for j := 0; j < ny; j++ {
		for i := 0; i < nx; i++ {
			pts = append(pts, []float64{view.XMin + (float64(i)+0.5)*dx, view.YMin + (float64(j)+0.5)*dy})
		}
	}
	return pts
}

// classLegend names the two classes by their ±1 labels.
var classLegend = []string{"y = −1", "y = +1"}

// classShape is the number of points and of features of the data a
// kernel sim loads: the rows of --data and its columns but the label, else
// the preset's size points in the plane.
func classShape(cfg sims.Config, size *param.IntDecl) (n, d int) {
	if t := cfg.Data; t != nil {
		return len(t.Rows), max(1, len(t.Columns)-1)
	}
	return size.Get(cfg.Values), 2
}

// pointBytes is what a kernel sim holds for each point of d features: the
// point (a row of its own, in a slice of rows grown by appending), its
// labels (the data's, the ±1 and the classes) and its two coordinates for
// the pictures.
func pointBytes(d int) int64 { return int64(40 + 8*d + 24 + 16) }

// mapBytes is a decision map (decisionMap) with n points: the grid's
// centres (a row each), the field, the column being computed and the
// Frame's picture of the field, and a marker on each point at most.
func mapBytes(n int) int64 { return mapNX*mapNY*(40+3*8) + 32*int64(n) }

// hasMap reports whether a sim of n points of d features draws a decision
// map (decisionMap).
func hasMap(n, d int) bool { return d == 2 && n*mapNX*mapNY <= mapCost }
