package seqsim

import "github.com/thelab/lab/sims"

// The metrics of the sequence sims (sims.MetricDecl).
var (
	mEntropyRate = sims.DeclareAs("entropy rate", "entropy_rate", "the source's entropy rate in nats per character, where it is known: no model does better on average")
	mBatchLoss   = sims.DeclareAs("batch loss", "batch_loss", "cross-entropy of the last training minibatch, before its update, nats per token (undefined before the first step)")
	mHeldOut     = sims.DeclareAs("held-out", "held_out", "cross-entropy on held-out text, nats per token, as of the last evaluation (step 1, then every eval_every steps; the notes say which step; undefined before the first)")
	mExactMatch  = sims.DeclareAs("exact match", "exact_match", "puzzles mode: fraction of held-out puzzles answered exactly, as of the last evaluation (step 1, then every eval_every steps; the notes say which step; undefined before the first)")
	mBestKGram   = sims.DeclareAs("best k-gram", "best_kgram", "held-out nats per token of the best smoothed k-gram model on the same text: the baseline to beat")

	// lmMetrics are a language model's (lmRun.metrics).
	lmMetrics = []sims.MetricDecl{mBatchLoss, mHeldOut, mBestKGram, mEntropyRate}

	ngramMetrics = []sims.MetricDecl{
		sims.DeclareAs("chars counted", "chars_counted", "training characters counted into the k-gram tables"),
		sims.DeclareAs("best k", "best_k", "the context length k with the least held-out loss"),
		sims.DeclareAs("held-out nats/char", "held_out_nats_per_char", "held-out cross-entropy of the best k, nats per character"),
		sims.Declare("perplexity", "exp of the held-out nats per character: the effective number of choices per character"),
		sims.DeclareAs("contexts seen", "contexts_seen", "distinct contexts of length best k in the training text"),
		mEntropyRate,
	}
	bpeMetrics = []sims.MetricDecl{
		sims.Declare("merges", "pair merges learned so far"),
		sims.Declare("tokens", "tokens the text is now split into"),
		sims.Declare("n_voc", "vocabulary size: the 256 bytes and one token per merge"),
		sims.DeclareAs("bytes/token", "bytes_per_token", "mean bytes of text per token: the compression so far"),
	}
	attentionMetrics = []sims.MetricDecl{
		sims.Declare("query", "heads view: the query position whose row is highlighted"),
		sims.DeclareAs("its row entropy", "row_entropy", "heads view: entropy of the highlighted query's attention row (head 1), nats"),
		sims.DeclareAs("mean row entropy", "mean_row_entropy", "heads view: mean entropy of head 1's attention rows, nats"),
		sims.DeclareAs("log T", "log_T", "heads view: log of the sequence length, the entropy of uniform attention"),
		sims.Declare("t", "positions view: the position t whose encoding is compared"),
		sims.Declare("d", "positions view: the encoding's dimension"),
		sims.DeclareAs("max |⟨PE_t,PE_t+k⟩ − ⟨PE_0,PE_k⟩|", "pe_shift_gap", "positions view: largest change of ⟨PE_t, PE_t+k⟩ with t: 0 up to rounding, as it depends on k only"),
		sims.DeclareAs("query x", "query_x", "kernel view: the query point x"),
		sims.DeclareAs("kernel Σw", "kernel_weight_sum", "kernel view: sum of the softmax weights at the query (1)"),
		sims.DeclareAs("kernel min w", "kernel_min_weight", "kernel view: least softmax weight at the query (> 0)"),
		sims.DeclareAs("f̂ kernel", "f_kernel", "kernel view: the Nadaraya–Watson estimate at the query"),
		sims.DeclareAs("f̂ attention", "f_attention", "kernel view: the attention output at the query (equal to the kernel estimate)"),
	}
	rnnMetrics = append(append([]sims.MetricDecl(nil), lmMetrics...),
		sims.DeclareAs("‖∂h_50/∂h_0‖", "jacobian_norm_50", "norm of the Jacobian of h_50 with respect to h_0 along held-out text: how much of the start survives 50 steps; "+
			"as of the last evaluation, with the held-out loss (the initial W's before the first)"))
	mStreamGrowth  = sims.DeclareAs("‖h_N‖/‖h_0‖", "stream_growth", "block view: the residual stream's norm after the last block over the embeddings', mean over the window's positions")
	mActive        = sims.DeclareAs("FFN active", "ffn_active", "block view: fraction of the feed-forward layers' ReLU units that are on (> 0), over the window's positions and the blocks")
	tinygptMetrics = append(append([]sims.MetricDecl(nil), lmMetrics...),
		mExactMatch,
		sims.Declare("params", "trainable parameters of the model"),
		sims.Declare("params_no_emb", "parameters less the embeddings: less the token table n_voc·d, learned positions n_ctx·d and an untied decoder d·n_voc (the blocks and LayerNorms: Kaplan et al.'s count; tying leaves it unchanged)"),
		sims.DeclareAs("MFLOP/step", "mflop_per_step", "millions of floating-point operations per training step"),
		mStreamGrowth, mActive)
	rewardMetrics = []sims.MetricDecl{
		sims.Declare("comparisons", "pairwise preferences the reward model has been fitted to"),
		sims.Declare("loss", "Bradley–Terry negative log-likelihood of the preferences"),
		sims.DeclareAs("max |Δr̂ − Δr*|", "max_reward_gap", "largest error of a fitted reward difference against the true one"),
		sims.DeclareAs("KL(π‖π*)", "kl_policy", "KL from the tuned policy to the optimal one, nats"),
	}
	seq2seqMetrics = []sims.MetricDecl{
		mBatchLoss,
		sims.DeclareAs("sequence accuracy", "sequence_accuracy", "fraction of the held-out sequences decoded greedily right in every position, as of the last evaluation (the notes say which step)"),
		sims.DeclareAs("token accuracy", "token_accuracy", "fraction of the held-out output symbols decoded greedily right, as of the last evaluation"),
		sims.DeclareAs("mass on π", "alignment_mass", "held-out mean cross-attention weight on the right encoder position π(t) (1: the alignment exactly; 1/L: uniform), as of the last evaluation"),
		sims.DeclareAs("example mass", "example_mass", "the same mean weight on π(t) for the example drawn as a map, this step"),
	}
	costMetrics = []sims.MetricDecl{
		sims.Declare("n_ctx", "the context length now, 2^step tokens"),
		sims.DeclareAs("attention FLOP/token", "attention_flops_per_token", "FLOPs per token of the attention's products Q·Kᵀ and weights·V, all layers: 4N·d·n"),
		sims.DeclareAs("dense FLOP/token", "dense_flops_per_token", "FLOPs per token of the projections and feed-forward layers, all layers: 4N(2d + d_ff)d"),
		sims.DeclareAs("logits FLOP/token", "logits_flops_per_token", "FLOPs per token of the logits, 2d·n_voc (left out by the notes)"),
		sims.DeclareAs("attention share", "attention_share", "attention's fraction of the layers' FLOPs: ½ at the crossover"),
		sims.DeclareAs("crossover n_ctx", "crossover_n", "the context at which attention and dense FLOPs are equal, 2d + d_ff"),
		sims.DeclareAs("×cost per doubling", "doubling_ratio", "the layers' cost of a sequence of n tokens over that of n/2: 2 when n ≪ d, 4 when n ≫ d (undefined at n = 1)"),
	}
)
