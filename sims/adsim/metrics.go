package adsim

import "github.com/thelab/lab/sims"

// The metrics of the automatic-differentiation sims (sims.MetricDecl).
var (
	mOps   = sims.Declare("ops", "elementary operations evaluated so far")
	mFDErr = sims.Declare("fd_err", "largest difference from central finite differences (their own error is O(h²))")

	graphMetrics = []sims.MetricDecl{
		sims.Declare("f", "the output's value, once the forward sweep has reached it"),
		sims.Declare("tangent", "forward mode: the output's tangent ∂f/∂x_i for the chosen input"),
		sims.Declare("adjoint", "reverse mode: the chosen input's adjoint ∂f/∂x_i"),
		sims.Declare("naive", "the same derivative by the naive expansion, to compare"),
		sims.Declare("nodes", "nodes of the computational graph"),
		sims.Declare("live", "values stored now by the sweep"),
		sims.Declare("peak", "the most values the sweep has stored at once"),
	}
	gradCheckMetrics = []sims.MetricDecl{
		sims.Declare("checked", "partial derivatives checked so far"),
		sims.Declare("of", "partial derivatives to check in all"),
		sims.Declare("max_rel", "largest relative difference between the gradient and finite differences"),
		sims.Declare("kinks", "entries left out of max_rel: x ± h took another branch at a kink than x, so their finite difference is not a derivative"),
	}
	jacobianMetrics = []sims.MetricDecl{
		sims.Declare("passes", "forward or reverse passes made"),
		sims.Declare("of", "passes needed for the whole Jacobian"),
		mFDErr, mOps,
	}
	hessianMetrics = []sims.MetricDecl{
		sims.Declare("runs_fof", "forward-over-forward: passes made"),
		sims.Declare("runs_ror", "reverse-over-reverse: passes made"),
		sims.Declare("diff", "largest difference between the four strategies' Hessians (≈ 0: they agree)"),
		mFDErr, mOps,
	}
	coloringMetrics = []sims.MetricDecl{
		sims.Declare("colours", "colours used: compressed passes needed"),
		sims.Declare("passes", "compressed passes made"),
		sims.Declare("dense", "passes the dense Jacobian would need"),
		sims.Declare("found", "nonzero entries recovered so far"),
		sims.Declare("of", "nonzero entries of the sparsity pattern"),
		sims.Declare("err", "largest error of the recovered entries"),
	}
	implicitMetrics = []sims.MetricDecl{
		sims.Declare("x", "heron: the iterate; circle: the point's x"),
		sims.Declare("unrolled_err", "heron: error of the derivative by unrolling the iterations"),
		sims.Declare("ift_err", "heron: error of the derivative by the implicit function theorem"),
		sims.Declare("y", "circle: the point's y"),
		sims.Declare("slope", "circle: dy/dx by the implicit function theorem"),
		sims.Declare("fails", "circle: points where ∂F/∂y = 0 and the theorem does not apply"),
		sims.Declare("newton", "lu: Newton iterations of the solve"),
		sims.Declare("lu", "lu: LU factorisations made (one serves every JVP and VJP)"),
		sims.Declare("solves", "lu: triangular solves made"),
		sims.Declare("jvp_vjp", "lu: |⟨u, J v⟩ − ⟨Jᵀu, v⟩|, 0 up to rounding"),
		sims.Declare("fd_err", "lu: difference of the JVP from finite differences"),
		sims.Declare("b1", "lp: the first constraint's right-hand side, swept"),
		sims.Declare("x1", "lp: the optimal x1"),
		sims.Declare("x2", "lp: the optimal x2"),
		sims.Declare("obj", "lp: the optimal objective"),
		sims.Declare("miss", "lp: distance between the re-solved x* and the IFT prediction from the base b1"),
		sims.Declare("ift", "lp: 1 while the IFT applies (the active set is unchanged), else 0"),
	}
)
