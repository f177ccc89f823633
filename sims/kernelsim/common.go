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
	"strconv"

	"github.com/thelab/lab/algo/dataset"
	"github.com/thelab/lab/algo/kernel"
	"github.com/thelab/lab/sims"
)

// GammaHelp states the lab's Gaussian-kernel convention next to the notes'.
const GammaHelp = "rbf width γ in k(x,z) = exp(−γ‖x−z‖²); the notes' exp(−‖x−z‖²/σ) " +
	"(seed 001 L695, erratum E7) is γ = 1/σ, and exp(−‖x−z‖²/(2σ²)) (seeds 000, 003) is γ = 1/(2σ²)"

// KernelParams returns the shared kernel parameters (kernel, degree, coef0,
// gamma) with the given defaults. Every kernel sim offers them, so `lab
// list` states the convention once per sim.
func KernelParams(name string, degree int, coef0, gamma float64) []sims.Param {
	return []sims.Param{
		{Name: "kernel", Kind: sims.Choice, Choices: kernel.Names, Default: name,
			Help: "linear ⟨x,z⟩; poly (⟨x,z⟩+coef0)^degree; rbf exp(−γ‖x−z‖²); sum = rbf + poly; product = rbf·poly"},
		{Name: "degree", Kind: sims.Int, Min: 1, Max: kernel.MaxDegree, Default: strconv.Itoa(degree),
			Help: "degree p of the poly kernel (poly, sum, product)"},
		{Name: "coef0", Kind: sims.Float, Min: 0, Max: 100, Default: fmtG(coef0),
			Help: "offset c ≥ 0 of the poly kernel (poly, sum, product); c < 0 would not be a kernel"},
		{Name: "gamma", Kind: sims.Float, Min: 0, OpenMin: true, Max: 1000, Default: fmtG(gamma),
			Help: GammaHelp},
	}
}

// KernelFrom builds the kernel named by the values of KernelParams.
func KernelFrom(v sims.Values) (kernel.Kernel, error) {
	return kernel.New(kernel.Spec{
		Name: v.String("kernel"), Degree: v.Int("degree"), Coef0: v.Float("coef0"), Gamma: v.Float("gamma"),
	})
}

func fmtG(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// Classification presets of the kernel sims.
var classPresets = []string{"moons", "circles", "ellipse", "overlap", "separable"}

// classHelp describes classPresets.
const classHelp = "two-class preset: two moons; concentric circles; seed 003 Fig 2.1's ellipse; " +
	"two overlapping Gaussians; linearly separable with margin (ignored with --data)"

// classData returns the labelled two-class data: the CSV of cfg.Data
// (features standardised, labels 0/1 or ±1) or the named preset with n
// points, drawn from the seed.
func classData(cfg sims.Config, preset string, n int) (*dataset.Labelled, error) {
	if t := cfg.Data; t != nil {
		l, err := t.Labelled(true)
		if err != nil {
			return nil, err
		}
		if l.Classes != 2 {
			return nil, fmt.Errorf("--data %s: needs two classes (labels 0/1 or −1/+1), found %d", t.Name, l.Classes)
		}
		l.X = dataset.Standardize(l.X)
		return l, nil
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x6b65726e656c)) // "kernel"
	switch preset {
	case "moons":
		return dataset.Moons(rng, n, 0.15)
	case "circles":
		return dataset.Circles(rng, n, 0.4, 0.08)
	case "ellipse":
		return dataset.Ellipse(rng, n, 0.1)
	case "overlap":
		return dataset.GaussianClasses(rng, n, 2, 2.5)
	case "separable":
		l, _, err := dataset.Separable(rng, n, 0.1)
		return l, err
	}
	return nil, fmt.Errorf("unknown data preset %q", preset)
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

// classSetup reads what the kernel classifiers share: the two-class data
// of the data and n parameters (classData), the kernel and the ±1 labels.
func classSetup(cfg sims.Config) (*dataset.Labelled, kernel.Kernel, []float64, error) {
	v := cfg.Values
	data, err := classData(cfg, v.String("data"), v.Int("n"))
	if err != nil {
		return nil, nil, nil, err
	}
	k, err := KernelFrom(v)
	if err != nil {
		return nil, nil, nil, err
	}
	y, err := data.PlusMinus()
	if err != nil {
		return nil, nil, nil, err
	}
	return data, k, y, nil
}

// mapKernel is what a kernel classifier keeps to draw its decision map
// when the data is 2-D: k(x_i, grid_g) for the G centres of the map's grid,
// plus 1 (the input x₀ = 1 of a bias) when bias is set, computed for point
// i the first time its coefficient changes (col), so that only the support
// vectors', or the mistakes', columns are ever computed.
type mapKernel struct {
	k    kernel.Kernel
	x    [][]float64
	grid [][]float64
	bias bool
	cols [][]float64 // column i once computed, else nil
}

// decisionMap returns the view and the map's kernel columns for 2-D data
// (px, py from columns) with n·mapNX·mapNY ≤ mapCost, or a nil mapKernel.
func decisionMap(k kernel.Kernel, data *dataset.Labelled, px, py []float64, bias bool) (sims.Rect, *mapKernel) {
	if px == nil || data.N()*mapNX*mapNY > mapCost {
		return sims.Rect{}, nil
	}
	view := sims.Bounds(px, py).Pad(0.08)
	grid := gridPoints(view, mapNX, mapNY)
	return view, &mapKernel{k: k, x: data.X, grid: grid, bias: bias, cols: make([][]float64, data.N())}
}

// col returns k(x_i, grid_g) (+1 with a bias) for every g.
func (m *mapKernel) col(i int) []float64 {
	if m.cols[i] == nil {
		c := make([]float64, len(m.grid))
		for a, z := range m.grid {
			c[a] = kernel.Eval(m.k, m.x[i], z)
			if m.bias {
				c[a]++
			}
		}
		m.cols[i] = c
	}
	return m.cols[i]
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

// gramSize estimates the peak bytes of a sim that holds n×n matrices (the
// Gram matrix and its working copies): base bytes and perPair for each
// pair of points, n being the --data rows when given. The constants are
// measured allocations during New at n up to the parameter's maximum,
// rounded up.
func gramSize(base, perPair int64) func(sims.Config) int64 {
	return func(c sims.Config) int64 {
		n := int64(c.Values.Int("n"))
		if c.Data != nil {
			n = int64(len(c.Data.Rows))
		}
		return base + perPair*n*n
	}
}
