package diffusionsim

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/dataset"
	"github.com/thelab/lab/algo/diffusion"
	"github.com/thelab/lab/algo/mixture"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// data2 names the 2-D data mixture of diffusion and score-match.
type data2 string

func (d data2) String() string { return string(d) }

const (
	d2Ring  data2 = "ring"
	d2Moons data2 = "moons"
)

// dataParams are the data parameters the 2-D sims share.
type dataParams struct {
	data *param.ChoiceDecl[data2]
	std  *param.FloatDecl
	k    *param.IntDecl
}

func newDataParams() dataParams {
	return dataParams{
		data: param.Choice("data", []data2{d2Ring, d2Moons}, d2Ring,
			"ring: 8 equal Gaussians on the circle of radius 4, each its own class; moons: a mixture fitted by EM to "+
				"two moons (classes: the moons)").BuiltInData(),
		std: param.Float("std", 0.3, "standard deviation of each ring component").Range(0.02, 2).BuiltInData(),
		k:   param.Int("k", 10, "components fitted to moons or to --data").Range(1, mixture.MaxK),
	}
}

func (p dataParams) decls() []param.Decl { return []param.Decl{p.data, p.std, p.k} }

// dataHelp is what --data means for both sims.
const dataHelp = "the first two columns of --data but label are points (x, y): a Gaussian mixture of k components is fitted " +
	"to them by EM and its exact score drives the sampler; a component on repeated points, or on points along a line (zero variance), is an error"

// build returns the data mixture: the ring, or a mixture fitted by EM to
// moons or to --data.
func (p dataParams) build(cfg sims.Config) (*diffusion.Mixture, string, error) {
	v := cfg.Values
	if cfg.Data != nil {
		x, y, err := cfg.Data.XY()
		if err != nil {
			return nil, "", err
		}
		pts := make([][]float64, len(x))
		for i := range x {
			pts[i] = []float64{x[i], y[i]}
		}
		m, err := fit(pts, nil, p.k.Get(v))
		if err != nil {
			var pe *algo.ParamError
			switch {
			case errors.As(err, &pe) && pe.Name == "k":
				return nil, "", sims.Blame(err, v, sims.As("k", p.k))
			case pe != nil && pe.Name == "data": // the file, not the parameter data (ring or moons)
				return nil, "", fmt.Errorf("--data %s: %v; it must be %s", cfg.Data.Name, pe.Value, pe.Allowed)
			}
			return nil, "", fmt.Errorf("--data %s: %w", cfg.Data.Name, err)
		}
		return m, fmt.Sprintf("%d-component fit to --data %s", m.K(), cfg.Data.Name), nil
	}
	if p.data.Get(v) == d2Moons {
		l, err := dataset.Moons(rand.New(rand.NewPCG(1, 0x6d6f_6f6e)), 2000, 0.08) // the same moons for every seed
		if err != nil {
			return nil, "", err
		}
		labels := make([]int, len(l.Y))
		for i, y := range l.Y {
			labels[i] = int(y)
		}
		m, err := fit(l.X, labels, p.k.Get(v))
		if err != nil {
			return nil, "", sims.Blame(err, v, sims.As("k", p.k))
		}
		return m, fmt.Sprintf("%d-component fit to two moons", m.K()), nil
	}
	m, err := diffusion.Ring(8, 4, p.std.Get(v))
	if err != nil {
		return nil, "", sims.Blame(err, v, sims.As("variance", p.std))
	}
	return m, "8 Gaussians on a ring", nil
}

// fit is a k-component full-covariance mixture fitted by EM (200
// iterations or to convergence). With labels, each component's class is
// the label most of its points carry; else each component is its own
// class. A component whose smaller variance sits at EM's floor has
// collapsed onto repeated points: zero variance, no density, an error.
func fit(pts [][]float64, labels []int, k int) (*diffusion.Mixture, error) {
	em, err := mixture.New(pts, mixture.Config{K: k, Reg: mixture.DefaultReg, Tol: 1e-9}, rand.New(rand.NewPCG(2, 0x6669_74)))
	if err != nil {
		return nil, err
	}
	for range 200 {
		if err := em.Step(); errors.Is(err, algo.ErrConverged) {
			break
		} else if err != nil {
			return nil, err
		}
		if err := em.Step(); errors.Is(err, algo.ErrConverged) {
			break
		} else if err != nil {
			return nil, err
		}
	}
	assign := em.Assign(nil)
	votes := make([][2]int, k)
	for i, c := range assign {
		if labels != nil && c >= 0 && labels[i] < 2 {
			votes[c][labels[i]]++
		}
	}
	comps := make([]diffusion.Component, k)
	floor := 10 * em.Eps()
	for j, c := range em.Components() {
		xx, xy, yy := c.Cov[0][0], c.Cov[0][1], c.Cov[1][1]
		r := math.Sqrt((xx-yy)*(xx-yy)/4 + xy*xy)
		switch lo, hi := (xx+yy)/2-r, (xx+yy)/2+r; {
		case hi <= floor:
			return nil, fmt.Errorf("component %d at (%.4g, %.4g) has zero variance: its points coincide, and "+
				"the exact score is singular as σ → 0; remove the repeated points or lower k", j+1, c.Mean[0], c.Mean[1])
		case lo <= floor:
			// Distinct points on a line: the variance across it is zero.
			return nil, fmt.Errorf("component %d at (%.4g, %.4g) has zero variance across a line: its points lie on one, and "+
				"the exact score is singular as σ → 0; use points that spread in both x and y, or lower k", j+1, c.Mean[0], c.Mean[1])
		}
		class := j % sims.MaxClasses
		if labels != nil {
			class = 0
			if votes[j][1] > votes[j][0] {
				class = 1
			}
		}
		comps[j] = diffusion.Component{Weight: c.Weight, Mean: [2]float64{c.Mean[0], c.Mean[1]}, Cov: [3]float64{xx, xy, yy}, Class: class}
	}
	return diffusion.NewMixture(2, comps)
}
