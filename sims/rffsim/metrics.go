package rffsim

import "github.com/thelab/lab/sims"

// The metrics of the random-feature sims (sims.MetricDecl).
var (
	rffMetrics = []sims.MetricDecl{
		sims.Declare("m", "random features drawn"),
		sims.Declare("err_iid", "gaussian: relative Frobenius error of the Gram matrix estimated with i.i.d. features"),
		sims.Declare("err_orthogonal", "gaussian: the same with orthogonal random features"),
		sims.Declare("err_sorf", "gaussian: the same with structured orthogonal features √d·HD₁HD₂HD₃ (Walsh–Hadamard; fixed norms √d, slightly biased)"),
		sims.Declare("theory_iid", "gaussian: the i.i.d. estimate's predicted error ∝ m^−½"),
		sims.Declare("err_trig", "softmax: relative error of the softmax kernel estimated with trigonometric features"),
		sims.Declare("err_positive", "softmax: the same with positive random features"),
		sims.Declare("theory_trig", "softmax: the trigonometric estimate's predicted error ∝ m^−½"),
		sims.Declare("negatives_trig", "softmax: entries the trigonometric estimate makes negative (the positive features never do)"),
	}
	linattnMetrics = []sims.MetricDecl{
		sims.Declare("m", "positive random features drawn"),
		sims.Declare("attn_err", "‖D̂⁻¹Û − A‖_F/‖A‖_F: the FAVOR+ attention matrix against exact softmax attention (undefined before the first feature)"),
		sims.Declare("out_err", "relative Frobenius error of the attention output D̂⁻¹φ(Q)(φ(K)ᵀV) against softmax(QKᵀ/√d)V"),
		sims.Declare("kernel_err", "relative Frobenius error of the unbiased estimate Û/m of the matrix exp(q′ᵀk′)"),
		sims.Declare("theory_err", "the exact RMS of kernel_err for iid features, ∝ m^−½"),
		sims.Declare("cost_ratio", "multiply-adds of linear attention, n·m·2(d+d_v), over exact attention's n²(d+d_v)"),
	}
	modelsMetrics = []sims.MetricDecl{
		sims.Declare("m", "random frequencies (2m features)"),
		sims.Declare("gap", "gp: RMS over the test points of the RFF GP's mean minus the exact-kernel GP's, ∝ m^−½"),
		sims.Declare("sd_gap", "gp: RMS of the difference of their posterior standard deviations"),
		sims.Declare("agree", "svm, perceptron: the fraction of the grid where the random-feature model and its exact-kernel twin give the same sign"),
		sims.Declare("errors_exact", "svm: training points misclassified by the kernel SVM; perceptron: mistakes of the kernel perceptron"),
		sims.Declare("errors_rff", "the same for the model on random features"),
	}
	gsMetrics = []sims.MetricDecl{
		sims.Declare("rows_done", "rows of G orthonormalised so far"),
		sims.Declare("orth_err", "max |QQᵀ − I| over the rows done: 0 to rounding"),
		sims.Declare("span_res", "the largest part of an original row outside the span of the orthonormal rows up to it, relative: 0 to rounding"),
		sims.DeclareAs("‖GGᵀ−I‖", "dist_I", "‖GGᵀ − I‖_F of the rows as they are (rows not done scaled by 1/√d): 0 when all are done"),
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
