package otsim

import (
	"github.com/thelab/lab/algo/ot"
	"github.com/thelab/lab/sims"
)

// This file holds the pieces of the sims' size estimates (Spec.Size): what
// a problem, a plan's pictures and a trace hold, read from the
// configuration without building anything.

// atoms is the shape of the problem load builds from cfg: its source and
// target atoms and their dimension (0 for a cost matrix only).
func (pp problemParams) atoms(cfg sims.Config) (n, m, dim int) {
	if cfg.Data != nil {
		return tableAtoms(cfg.Data)
	}
	v := cfg.Values
	pre, _ := ot.PresetByName(string(pp.Preset.Get(v)))
	n, m = pp.N.Get(v), pp.N.Get(v)
	if pp.M != nil {
		m = pp.M.Get(v)
	}
	n, m = pre.Atoms(n, m)
	return n, m, pre.Dim
}

// tableAtoms is the shape of the problem fromTable reads: histograms x,a,b
// put every row on both sides; points are counted by side.
func tableAtoms(t *sims.Table) (n, m, dim int) {
	if t.Column("a") >= 0 {
		return len(t.Rows), len(t.Rows), 1
	}
	dim = 1
	if t.Column("y") >= 0 {
		dim = 2
	}
	if k := t.Column(sideColumn.Name); k >= 0 {
		for _, row := range t.Rows {
			if row[k] == float64(ot.Source) {
				n++
			} else {
				m++
			}
		}
	}
	return n, m, dim
}

// problemBytes is what a loaded problem of n×m atoms in dim dimensions
// holds with its layout (newLayout): the n×m cost, and per atom its
// position, its mass and the layout's two coordinates.
func problemBytes(n, m, dim int) int64 {
	return 8*int64(n)*int64(m) + int64(8*dim+8+16)*int64(n+m)
}

// chartBytes is a plan's chart (planChart) with profiles of that many
// marginals (μ and ν, and Sinkhorn's π1): the heat map of the plan's
// blocks and the margins, and two points a bar of each profile.
func (f planFrame) chartBytes(profiles int) int64 {
	return 8*int64((f.mx+f.gx)*(f.my+f.gy)) + 32*int64(f.n+f.m+(profiles-2)*f.n)
}

// linesBytes is a coupling chart's lines for a plan of that many cells
// (layout.lines: at most maxLines paths of two points).
func linesBytes(cells int) int64 { return 96 * int64(min(cells, maxLines)) }
