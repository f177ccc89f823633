package rffsim

import "github.com/thelab/lab/sims"

// The metrics of the random-feature sims (sims.MetricDecl).
var (
	rffMetrics = []sims.MetricDecl{
		sims.Declare("m", "random features drawn"),
		sims.Declare("err_iid", "gaussian: relative Frobenius error of the Gram matrix estimated with i.i.d. features"),
		sims.Declare("err_orthogonal", "gaussian: the same with orthogonal random features"),
		sims.Declare("theory_iid", "gaussian: the i.i.d. estimate's predicted error ∝ m^−½"),
		sims.Declare("err_trig", "softmax: relative error of the softmax kernel estimated with trigonometric features"),
		sims.Declare("err_positive", "softmax: the same with positive random features"),
		sims.Declare("theory_trig", "softmax: the trigonometric estimate's predicted error ∝ m^−½"),
		sims.Declare("negatives_trig", "softmax: entries the trigonometric estimate makes negative (the positive features never do)"),
	}
	bochnerMetrics = []sims.MetricDecl{
		sims.Declare("m", "frequencies drawn from the kernel's spectral density"),
		sims.Declare("estimate", "the Monte Carlo estimate k_m(x − z) of the kernel"),
		sims.Declare("exact", "the kernel k(x − z), exact"),
		sims.Declare("error", "estimate minus exact"),
		sims.Declare("z", "the error in standard errors, σ/√m: N(0, 1) by the central limit theorem"),
	}
	fourierMetrics = []sims.MetricDecl{
		sims.Declare("N", "the last harmonic of the partial sum s_N"),
		sims.DeclareAs("L² error", "l2_error", "‖s − s_N‖ over a period, by Bessel's identity ‖s‖² − π(a₀²/2 + Σ aₙ² + bₙ²): never rises with N"),
		sims.Declare("overshoot", "the largest s_N − s beside the jump, as a fraction of the jump: tends to Si(π)/π − ½ ≈ 8.95% (Gibbs), undefined without a jump"),
		sims.Declare("orth_err", "the largest |∫φ_mφ_n − π δ_mn| over the new harmonic's pairs with itself, its neighbour and the constant, by the coefficients' quadrature"),
		sims.Declare("a_N", "the cosine coefficient of the last harmonic, (1/π)∫ s cos Nx"),
		sims.Declare("b_N", "the sine coefficient of the last harmonic, (1/π)∫ s sin Nx"),
	}
)
