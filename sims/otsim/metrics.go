package otsim

import "github.com/thelab/lab/sims"

// The metrics of the optimal-transport sims (sims.MetricDecl).
var (
	mIter = sims.Declare("iter", "iterations made")
	mCost = sims.Declare("cost", "transport cost ⟨C, π⟩ of the current plan")

	assignmentMetrics = []sims.MetricDecl{
		sims.Declare("candidate", "enumerate: maps T evaluated so far, one a step"),
		sims.Declare("feasible", "enumerate: maps seen so far whose push-forward T#μ is ν"),
		sims.Declare("cost", "the current map's cost (enumerate: when it is feasible; hungarian: of the current matching)"),
		sims.Declare("best", "enumerate: least cost of a feasible map so far"),
		sims.Declare("optimal", "enumerate: feasible maps reaching the best cost"),
		sims.Declare("matched", "hungarian: atoms matched so far"),
		sims.Declare("scans", "hungarian: columns of the alternating tree scanned"),
		sims.Declare("dual", "hungarian: the dual lower bound, which rises to the optimal cost"),
	}
	sinkhornMetrics = []sims.MetricDecl{
		mIter,
		sims.Declare("err", "marginal error ‖π1 − μ‖₁ + ‖πᵀ1 − ν‖₁ of the current plan"),
		mCost,
		sims.Declare("lp", "the unregularised optimal cost, by linear programming (when small enough to solve)"),
		sims.Declare("entropy", "entropy H(π) of the current plan"),
	}
	oneDMetrics = []sims.MetricDecl{
		sims.Declare("t", "the quantile level reached by the sweep"),
		sims.Declare("swept", "mass transported so far"),
		sims.DeclareAs("Wp^p", "wp_p", "the p-th power of the Wasserstein distance accumulated so far"),
		sims.Declare("W1", "the Wasserstein-1 distance, exact"),
		sims.Declare("W2", "the Wasserstein-2 distance, exact"),
	}
	lpMetrics = []sims.MetricDecl{
		mCost,
		sims.Declare("pivots", "simplex pivots made"),
		sims.Declare("nonzeros", "entries of the plan above zero (a vertex has at most N + M − 1)"),
		sims.Declare("gonum", "the optimal cost by gonum's simplex, to check against"),
		sims.Declare("sorted", "1-D: the optimal cost of the sorted (monotone) matching"),
	}
	gaussMetrics = []sims.MetricDecl{
		sims.Declare("s", "the time s ∈ [0, 1] along the displacement interpolation"),
		sims.Declare("W2sq", "W2² between the two Gaussians, closed form"),
		sims.Declare("W2_mu_s", "W2 from the source to the interpolant at s (s·W2)"),
		sims.Declare("cov_part", "the covariances' share of W2² (the Bures term)"),
		sims.Declare("ASA_err", "error of the map's matrix A in A Σ A = Σ′"),
	}
	distancesMetrics = []sims.MetricDecl{
		sims.Declare("d", "the shift between the two measures"),
		sims.Declare("W1", "Wasserstein-1 distance"),
		sims.Declare("W2", "Wasserstein-2 distance"),
		sims.Declare("L1", "L1 distance between the densities"),
		sims.Declare("JS", "Jensen–Shannon divergence, nats"),
		sims.Declare("KL", "KL divergence, nats (shown when finite)"),
	}
	barycenterMetrics = []sims.MetricDecl{
		mIter,
		sims.Declare("err", "the marginal error Σλ‖u⊙Kv − p‖₁ (undefined before the first iteration)"),
		sims.Declare("mass", "the barycenter's total mass"),
		sims.Declare("mean", "line: the barycenter's mean"),
		sims.Declare("exact_mean", "line: the exact barycenter's mean (quantile averaging)"),
		sims.Declare("W1_exact", "line: W1 from the barycenter to the exact one (undefined without mass)"),
		sims.Declare("cx", "images: x of the barycenter's centroid"),
		sims.Declare("cy", "images: y of the barycenter's centroid"),
	}
	geodesicMetrics = []sims.MetricDecl{
		sims.Declare("t", "the time along the geodesic from μ0 (t = 0) to μ1 (t = 1)"),
		sims.Declare("mean", "the mean of the displacement interpolant μ_t"),
		sims.Declare("sd", "the standard deviation of μ_t"),
		sims.Declare("mix_sd", "the standard deviation of the mixture (1 − t)μ0 + tμ1, for contrast"),
		sims.Declare("W2_0t", "W2(μ0, μt) = t·W2(μ0, μ1)"),
	}
	slicedMetrics = []sims.MetricDecl{
		sims.Declare("directions", "random directions θ drawn so far"),
		sims.DeclareAs("SW_p^p", "sw_pp", "Monte Carlo estimate of SW_p^p, the mean of W_p^p(θ#μ, θ#ν) over the directions drawn"),
		sims.DeclareAs("s.e.", "se", "the estimate's standard error: the costs' sample sd over √directions"),
		sims.DeclareAs("max-sliced", "max_sliced", "the largest W_p^p(θ#μ, θ#ν) over the directions drawn"),
		sims.DeclareAs("quadrature", "sw_quadrature", "SW_p^p as the mean of W_p^p(θ#μ, θ#ν) over 360 evenly spaced angles"),
		sims.DeclareAs("W_p^p", "w_pp", "W_p^p(μ, ν) by the transportation simplex (up to 10000 cells)"),
	}
	unbalancedMetrics = []sims.MetricDecl{
		mIter,
		sims.Declare("moved", "the plan's total mass Σ P_ij: what is transported"),
		mCost,
		sims.Declare("objective", "⟨C,P⟩ + ε KL(P|a⊗b) + τ KL(P1|a) + τ KL(Pᵀ1|b) of the current plan"),
		sims.Declare("dual", "the dual of the current potentials: a lower bound on the optimum that never falls"),
		sims.DeclareAs("to outlier", "to_outlier", "outlier preset: the mass the plan delivers to ν's outlier bins (x ≥ 0.8)"),
	}
	partialMetrics = []sims.MetricDecl{
		sims.Declare("m", "the mass s the plan moves, a notch of the grid from 0 to 1"),
		sims.Declare("cost", "PW(s): the least cost ⟨C, T⟩ of a plan of mass s with T1 ≤ a, Tᵀ1 ≤ b"),
		sims.DeclareAs("left μ", "left_mu", "the source mass that stays where it is, ‖a‖₁ − s"),
		sims.DeclareAs("left ν", "left_nu", "the target mass that receives nothing, ‖b‖₁ − s"),
		sims.Declare("price", "ΔPW/Δs over the last notch: the cost of the last mass moved (undefined at s = 0)"),
		sims.Declare("pivots", "simplex pivots made over all the solves so far"),
	}
	gromovMetrics = []sims.MetricDecl{
		sims.Declare("iter", "outer iterations made: entropic OT problems solved on the linearised cost"),
		sims.Declare("GW", "the GW objective E(T) = Σ (C1_ik − C2_jl)² T_ij T_kl of the current coupling"),
		sims.Declare("matched", "the share of the spiral's points whose heaviest entry of T is their true copy"),
		sims.DeclareAs("E−εH", "regularised", "E(T) − ε H(T), which never rises from one outer iteration to the next when the inner solves converge"),
		sims.Declare("change", "‖T_k − T_(k−1)‖₁ of the last outer iteration (undefined before the first)"),
		sims.Declare("inner", "Sinkhorn iterations of the last inner solve (undefined before the first)"),
	}
)
