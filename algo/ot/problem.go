package ot

import (
	"fmt"
	"math"

	"github.com/thelab/lab/algo"
)

// Problem is a discrete transport problem (eq 5.1): source atoms x_i with
// masses μ_i and target atoms y_j with masses ν_j in Dim dimensions, or,
// for the notes' worked examples that give only a cost matrix, C itself.
type Problem struct {
	Name string
	// Dim is 1 or 2 when the atoms have positions, 0 when only C is given.
	Dim int
	// X and Y are the positions, n·Dim and m·Dim values row-major (nil
	// when Dim is 0). When C is given too they only place the atoms (for
	// a picture).
	X, Y []float64
	// Mu and Nu are the masses, each summing to 1.
	Mu, Nu []float64
	// C is a given n×m cost (row-major) or nil, in which case the cost is
	// the ground cost ‖x − y‖^p of the positions.
	C []float64
}

// N is the number of source atoms; M the number of target atoms.
func (p *Problem) N() int { return len(p.Mu) }
func (p *Problem) M() int { return len(p.Nu) }

// Cost returns the n×m cost matrix: a copy of C when the problem gives one,
// otherwise C_ij = ‖x_i − y_j‖^p (Euclidean; Def 5.3, L2321, with d the
// Euclidean distance of Remark 5.8). p must be in [MinP, MaxP].
func (p *Problem) Cost(pow float64) ([]float64, error) {
	if p.C != nil {
		return append([]float64(nil), p.C...), nil
	}
	if !(pow >= MinP && pow <= MaxP) {
		return nil, algo.BadParam("p", pow, fmt.Sprintf("in [%g, %g]", float64(MinP), float64(MaxP)))
	}
	return GroundCost(p.X, p.Y, p.Dim, pow), nil
}

// MinP and MaxP bound the exponent of the ground cost ‖x − y‖^p. W_p is a
// metric for p ≥ 1 (Remark 5.7, L2325).
const (
	MinP = 1
	MaxP = 4
)

// GroundCost returns C_ij = ‖x_i − y_j‖^p for points of dimension dim
// stored row-major in x (n points) and y (m points). p = 1 and p = 2 are
// computed without a power.
func GroundCost(x, y []float64, dim int, p float64) []float64 {
	n, m := len(x)/dim, len(y)/dim
	c := make([]float64, n*m)
	for i := range n {
		xi := x[i*dim : (i+1)*dim]
		row := c[i*m : (i+1)*m]
		for j := range m {
			yj := y[j*dim : (j+1)*dim]
			d2 := 0.0
			for k, v := range xi {
				e := v - yj[k]
				d2 += e * e
			}
			switch p {
			case 2:
				row[j] = d2
			case 1:
				row[j] = math.Sqrt(d2)
			default:
				row[j] = math.Pow(d2, p/2)
			}
		}
	}
	return c
}

// validate checks the masses (Marginals, which normalises them), the
// positions' shapes and finiteness, and a given cost.
func (p *Problem) validate() error {
	mu, nu, err := Marginals(p.Mu, p.Nu)
	if err != nil {
		return err
	}
	p.Mu, p.Nu = mu, nu
	if p.C != nil {
		if err := CheckCost(p.C, len(mu), len(nu)); err != nil {
			return err
		}
		if p.Dim == 0 {
			return nil
		}
	}
	if p.Dim != 1 && p.Dim != 2 {
		return algo.BadParam("dim", p.Dim, "1 or 2")
	}
	if len(p.X) != p.Dim*len(mu) || len(p.Y) != p.Dim*len(nu) {
		return algo.BadParam("points", fmt.Sprintf("%d and %d coordinates", len(p.X), len(p.Y)),
			fmt.Sprintf("%d·%d and %d·%d coordinates", len(mu), p.Dim, len(nu), p.Dim))
	}
	if !algo.AllFinite(p.X) || !algo.AllFinite(p.Y) {
		return algo.BadParam("points", "a non-finite coordinate", "finite coordinates")
	}
	return nil
}
