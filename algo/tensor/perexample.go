package tensor

import (
	"fmt"

	"github.com/thelab/lab/algo"
	"gonum.org/v1/gonum/floats"
)

// PerExampleSqNorms writes into dst[i] the squared norm ‖∇_θ ℓ_i‖² of
// example i's gradient with respect to params, without forming any
// per-example gradient: after BackwardFrom(losses, ones) on the vector of
// per-example losses ℓ [N], every parameter used as a dense layer sees one
// example per row, and its per-example gradient is rank one —
//
//	W in x·W (MatMul or Linear, x [N, k]):  ∇_W ℓ_i = x_iᵀ δ_i,  ‖·‖² = ‖x_i‖² ‖δ_i‖²
//	b in z + b (Add, z [N, D]; Linear):      ∇_b ℓ_i = δ_i,        ‖·‖² = ‖δ_i‖²
//
// with δ_i row i of the layer output's gradient (Goodfellow 2015). dst has
// one entry per example (N). Clipping then needs one more pass,
// BackwardFrom(losses, c) with c_i = min(1, C/‖∇ℓ_i‖), whose gradients are
// Σ_i c_i ∇ℓ_i: DP-SGD's clipped sum (seed 001 [A39]) in two backward
// passes for the whole batch.
//
// A parameter used by any other operation, or more than once, is refused
// (its per-example gradients are not separable this way); use a batch of
// one per example there (Rewind, record the model on [1, …] inputs,
// Backward, read Grad — which allocates nothing after the first).
//
//go:norace
func (tp *Tape) PerExampleSqNorms(dst []float64, params []*Tensor) error {
	if tp.err != nil {
		return tp.err
	}
	clear(dst)
	N := len(dst)
	for pi, p := range params {
		uses := 0
		for i := range tp.n {
			nd := tp.nodes[i]
			switch {
			case nd.op == opMatMul && nd.in[1] == p:
				a := nd.in[0]
				if a.shape.r != 2 || a.shape.d[0] != N || nd.iarg[4] != 0 {
					return algo.BadParam(fmt.Sprintf("params[%d]", pi), fmt.Sprintf("x·W with x %v", a.shape),
						fmt.Sprintf("a dense layer on [%d, k] inputs", N))
				}
				k, n := a.shape.d[1], nd.out.shape.d[1]
				for r := range N {
					dst[r] += sqNorm(a.Data[r*k:(r+1)*k]) * sqNorm(nd.out.Grad[r*n:(r+1)*n])
				}
				uses++
			case nd.op == opMatMul && nd.in[2] == p: // Linear's bias
				n := p.shape.d[0]
				if nd.out.shape.r != 2 || nd.out.shape.d[0] != N {
					return algo.BadParam(fmt.Sprintf("params[%d]", pi), fmt.Sprintf("a bias of a %v output", nd.out.shape),
						fmt.Sprintf("a bias on [%d, D]", N))
				}
				for r := range N {
					dst[r] += sqNorm(nd.out.Grad[r*n : (r+1)*n])
				}
				uses++
			case nd.op == opAdd && nd.in[1] == p:
				z := nd.in[0]
				if z.shape.r != 2 || z.shape.d[0] != N || p.shape.r != 1 || nd.bcast {
					return algo.BadParam(fmt.Sprintf("params[%d]", pi), fmt.Sprintf("z + b with z %v, b %v", z.shape, p.shape),
						fmt.Sprintf("a bias [D] on [%d, D]", N))
				}
				D := p.shape.d[0]
				for r := range N {
					dst[r] += sqNorm(nd.out.Grad[r*D : (r+1)*D])
				}
				uses++
			default:
				for _, t := range nd.in {
					if t == p {
						return algo.BadParam(fmt.Sprintf("params[%d]", pi), "used by another operation",
							"only dense weights (x·W) and biases (z + b)")
					}
				}
			}
		}
		if uses != 1 {
			return algo.BadParam(fmt.Sprintf("params[%d]", pi), fmt.Sprintf("used %d times", uses), "used exactly once")
		}
		if p.Grad == nil {
			return algo.BadParam(fmt.Sprintf("params[%d]", pi), "no Grad", "a parameter")
		}
	}
	return nil
}

func sqNorm(x []float64) float64 { return floats.Dot(x, x) }
