package seq

import (
	"fmt"
	"math"
	"math/rand/v2"
	"unsafe"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/tensor"
	"github.com/thelab/lab/algo/tensor/opt"
)

// Bounds of a Seq2Seq.
const (
	MaxSeq2SeqLen     = 12
	MaxSeq2SeqSymbols = 26
	MaxSeq2SeqDim     = 64
	// Seq2SeqHeld is the number of held-out sequences Evaluate decodes.
	Seq2SeqHeld = 128
)

// Seq2SeqConfig is an encoder–decoder toy's task and shape.
type Seq2SeqConfig struct {
	Task    Puzzle  // Copy (the alignment is the diagonal) or Reverse (the anti-diagonal)
	Length  int     // L, the sequence length, 2..MaxSeq2SeqLen
	Symbols int     // A, the alphabet, 2..MaxSeq2SeqSymbols
	Dim     int     // d: embeddings and the attention's d_k = d_v, 2..MaxSeq2SeqDim
	Batch   int     // sequences a training step, 1..MaxBatch
	LR      float64 // Adam's rate
}

// Seq2Seq is an encoder–decoder toy with one cross-attention layer (seed
// 002 G6, §7.3–7.4, L3317–3321: "queries from X, keys/values from Y";
// seed 001 [A19], L1175: "V = K = encoder output, Q = decoder"). The
// encoder is embeddings plus learned positions, h_j = E[x_j] + P[j]; the
// decoder reads, at output position t, the previous target token (BOS at
// t = 0) plus its own learned position, z_t = D[y_{t−1}] + R[t]; one
// cross-attention layer
//
//	Q = Z W_Q,  K = H W_K,  V = H W_V,  α = softmax(Q Kᵀ/√d) row by row,  o = α V
//
// (m = n = L, in the notes' row layout: row t of α is decoder position
// t's convex combination of the encoder positions; seed 000 eq 2.10 writes
// the transpose, V softmax(KᵀQ) with a column-wise softmax: the same
// weights) and a linear read-out
// logits_t = o_t W_O + b. It is trained with teacher forcing (the true
// y_{t−1} fed in) by Adam on the mean cross-entropy, −(1/BL) Σ log
// p̂(y_t | y_{<t}, x), and decoded greedily, each prediction fed back
// (seed 001 [A20]). The task's target is a permutation of the input, y_t
// = x_{π(t)}, so the right attention is known: π(t) = t for copy, L−1−t
// for reverse. The scale is 1/√d_k with d_k the attention's dimension:
// one head, so the notes' √d ([A19]'s note that seed 001 scales by √d
// inside heads) and Vaswani's √d_k agree here.
type Seq2Seq struct {
	cfg                Seq2SeqConfig
	enc, encPos        *tensor.Tensor // E [A, d], P [L, d]
	dec, decPos        *tensor.Tensor // D [A+1, d] (row A is BOS), R [L, d]
	wq, wk, wv, wo, bo *tensor.Tensor // [d, d] ×3, [d, A], [A]
	params             []*tensor.Tensor

	tp, eval *tensor.Tape
	opt      *opt.Optimizer
	rng      *rand.Rand
	src, in  []int // a batch's inputs and decoder inputs (teacher forcing)
	tgt      []int
	loss     float64
	steps    int

	heldSrc, heldTgt, heldIn, heldPred []int // the held-out set and its greedy decoding
}

// NewSeq2Seq draws the parameters (projections by Xavier's rule,
// embeddings and positions N(0, 1/d), biases 0) and the held-out set from
// rng, which then draws the training batches.
func NewSeq2Seq(cfg Seq2SeqConfig, rng *rand.Rand) (*Seq2Seq, error) {
	switch {
	case cfg.Task != Copy && cfg.Task != Reverse:
		return nil, algo.BadParam("task", cfg.Task, fmt.Sprintf("%s or %s", Copy, Reverse))
	case cfg.Length < 2 || cfg.Length > MaxSeq2SeqLen:
		return nil, algo.BadParam("length", cfg.Length, fmt.Sprintf("in 2..%d", MaxSeq2SeqLen))
	case cfg.Symbols < 2 || cfg.Symbols > MaxSeq2SeqSymbols:
		return nil, algo.BadParam("symbols", cfg.Symbols, fmt.Sprintf("in 2..%d", MaxSeq2SeqSymbols))
	case cfg.Dim < 2 || cfg.Dim > MaxSeq2SeqDim:
		return nil, algo.BadParam("dim", cfg.Dim, fmt.Sprintf("in 2..%d", MaxSeq2SeqDim))
	case cfg.Batch < 1 || cfg.Batch > MaxBatch:
		return nil, algo.BadParam("batch", cfg.Batch, fmt.Sprintf("in 1..%d", MaxBatch))
	case rng == nil:
		return nil, algo.BadParam("rng", nil, "a random source")
	}
	L, A, d := cfg.Length, cfg.Symbols, cfg.Dim
	m := &Seq2Seq{cfg: cfg, rng: rng}
	bld := &builder{rng: rng}
	normal := func(rows int) *tensor.Tensor {
		t := bld.param(tensor.Zeros, rows, d)
		if t != nil {
			sd := 1 / math.Sqrt(float64(d))
			for i := range t.Data {
				t.Data[i] = sd * rng.NormFloat64()
			}
		}
		return t
	}
	m.enc, m.encPos, m.dec, m.decPos = normal(A), normal(L), normal(A+1), normal(L)
	m.wq, m.wk, m.wv = bld.param(tensor.Xavier, d, d), bld.param(tensor.Xavier, d, d), bld.param(tensor.Xavier, d, d)
	m.wo, m.bo = bld.param(tensor.Xavier, d, A), bld.param(tensor.Zeros, A)
	if bld.err != nil {
		return nil, bld.err
	}
	m.params = bld.params
	var err error
	if m.opt, err = opt.New(m.params, opt.Config{Method: opt.Adam, LR: cfg.LR}); err != nil {
		return nil, err
	}
	m.tp, m.eval = tensor.NewTape(), tensor.NewForwardTape()
	B := cfg.Batch
	m.src, m.in, m.tgt = make([]int, B*L), make([]int, B*L), make([]int, B*L)
	N := Seq2SeqHeld
	m.heldSrc, m.heldTgt, m.heldIn, m.heldPred = make([]int, N*L), make([]int, N*L), make([]int, N*L), make([]int, N*L)
	for b := range N {
		m.draw(m.heldSrc[b*L:(b+1)*L], m.heldTgt[b*L:(b+1)*L], nil)
	}
	return m, nil
}

// Config is the model's task and shape.
func (m *Seq2Seq) Config() Seq2SeqConfig { return m.cfg }

// Params lists the parameter tensors: E, P, D, R, W_Q, W_K, W_V, W_O, b.
func (m *Seq2Seq) Params() []*tensor.Tensor { return m.params }

// NumParams counts the parameters.
func (m *Seq2Seq) NumParams() int { return countParams(m.params) }

// Aligned is π(t), the encoder position whose symbol is output t.
func (m *Seq2Seq) Aligned(t int) int { return AlignedTo(m.cfg.Task, m.cfg.Length, t) }

// AlignedTo is π(t) of task on sequences of L symbols: t for copy, L−1−t
// for reverse.
func AlignedTo(task Puzzle, L, t int) int {
	if task == Reverse {
		return L - 1 - t
	}
	return t
}

// Target writes the task's output for src into dst: dst[t] = src[π(t)].
func (m *Seq2Seq) Target(src, dst []int) {
	for t := range dst {
		dst[t] = src[m.Aligned(t)]
	}
}

// draw writes a random sequence into src and its target into tgt, and the
// teacher-forced decoder inputs (BOS, y₀, …, y_{L−2}) into in unless nil.
func (m *Seq2Seq) draw(src, tgt, in []int) {
	for t := range src {
		src[t] = m.rng.IntN(m.cfg.Symbols)
	}
	m.Target(src, tgt)
	if in != nil {
		teacher(in, tgt, m.cfg.Symbols)
	}
}

// teacher writes the decoder inputs of teacher forcing: BOS (= A), then
// the targets shifted right by one.
func teacher(in, tgt []int, bos int) {
	in[0] = bos
	copy(in[1:], tgt[:len(tgt)-1])
}

// Forward records the model on tp for B sequences of L symbols src and
// decoder inputs in (row-major, [b·L + t]) and returns the logits [B, L,
// A] and the cross-attention weights [B, L, L] (row t: decoder position
// t, column j: encoder position j).
func (m *Seq2Seq) Forward(tp *tensor.Tape, src, in []int, B int) (logits, weights *tensor.Tensor) {
	L, d := m.cfg.Length, m.cfg.Dim
	if B < 1 || len(src) != B*L || len(in) != B*L {
		bad := tp.Fail("Seq2Seq", algo.BadParam("src", fmt.Sprintf("%d and %d tokens as %d×%d", len(src), len(in), B, L), "B·L tokens each"))
		return bad, bad
	}
	h := tp.Add(tp.Reshape(tp.Embedding(m.enc, src), B, L, d), m.encPos)
	z := tp.Add(tp.Reshape(tp.Embedding(m.dec, in), B, L, d), m.decPos)
	o, w := tp.Attention(tp.MatMul(z, m.wq), tp.MatMul(h, m.wk), tp.MatMul(h, m.wv), false)
	return tp.Linear(o, m.wo, m.bo), w
}

// Step draws a batch and takes one Adam step on its teacher-forced
// cross-entropy. It returns the tape's error or the optimiser's
// (algo.ErrDiverged when a parameter is no longer finite).
func (m *Seq2Seq) Step() error {
	L := m.cfg.Length
	for b := range m.cfg.Batch {
		m.draw(m.src[b*L:(b+1)*L], m.tgt[b*L:(b+1)*L], m.in[b*L:(b+1)*L])
	}
	m.tp.Rewind()
	logits, _ := m.Forward(m.tp, m.src, m.in, m.cfg.Batch)
	loss := m.tp.CrossEntropy(logits, m.tgt)
	if err := m.tp.Backward(loss); err != nil {
		return err
	}
	m.loss = loss.Item()
	m.steps++
	return m.opt.Step()
}

// Loss is the last batch's mean cross-entropy, nats per output token,
// before its update.
func (m *Seq2Seq) Loss() float64 { return m.loss }

// Steps is the number of training steps taken.
func (m *Seq2Seq) Steps() int { return m.steps }

// Decode decodes B sequences src greedily, L passes on the forward tape,
// each feeding back the predictions so far (no decoder self-attention, so
// position t depends on y_{t−1} alone and is final after pass t). It
// writes the predictions into pred and the decoder inputs used into in,
// and returns the last pass's cross-attention weights [B, L, L] (a tape
// tensor, valid until the next Decode or Evaluate).
func (m *Seq2Seq) Decode(src, in, pred []int, B int) (*tensor.Tensor, error) {
	L, A := m.cfg.Length, m.cfg.Symbols
	if len(src) != B*L || len(in) != B*L || len(pred) != B*L {
		return nil, algo.BadParam("src", len(src), fmt.Sprintf("B·L = %d tokens", B*L))
	}
	for b := range B {
		for t := range L {
			in[b*L+t] = A
		}
	}
	var w *tensor.Tensor
	for t := range L {
		m.eval.Rewind()
		var logits *tensor.Tensor
		logits, w = m.Forward(m.eval, src, in, B)
		if err := m.eval.Err(); err != nil {
			return nil, err
		}
		for b := range B {
			row := logits.Data[(b*L+t)*A : (b*L+t+1)*A]
			best := 0
			for c, v := range row {
				if v > row[best] {
					best = c
				}
			}
			pred[b*L+t] = best
			if t+1 < L {
				in[b*L+t+1] = best
			}
		}
	}
	return w, nil
}

// Seq2SeqEval is the held-out set's greedy decoding.
type Seq2SeqEval struct {
	SeqAcc float64 // fraction of sequences decoded right in every position
	TokAcc float64 // fraction of positions decoded right
	Mass   float64 // mean cross-attention weight on the right encoder position (AlignmentMass)
}

// Evaluate decodes the Seq2SeqHeld held-out sequences greedily.
func (m *Seq2Seq) Evaluate() (Seq2SeqEval, error) {
	L := m.cfg.Length
	w, err := m.Decode(m.heldSrc, m.heldIn, m.heldPred, Seq2SeqHeld)
	if err != nil {
		return Seq2SeqEval{}, err
	}
	var e Seq2SeqEval
	for b := range Seq2SeqHeld {
		right := 0
		for t := range L {
			if m.heldPred[b*L+t] == m.heldTgt[b*L+t] {
				right++
			}
		}
		e.TokAcc += float64(right)
		if right == L {
			e.SeqAcc++
		}
	}
	e.SeqAcc /= Seq2SeqHeld
	e.TokAcc /= float64(Seq2SeqHeld * L)
	e.Mass = AlignmentMass(w.Data, L, m.Aligned)
	return e, nil
}

// AlignmentMass is the mean, over the rows of attention weights w (rows
// of n, row r at decoder position r mod n, so [B, n, n] stacks B maps),
// of the weight on the aligned encoder position π(t): 1 exactly when
// every row is the permutation's one-hot row, 1/n for uniform attention.
func AlignmentMass(w []float64, n int, pi func(t int) int) float64 {
	rows := len(w) / n
	if rows == 0 {
		return math.NaN()
	}
	s := 0.0
	for r := range rows {
		s += w[r*n+pi(r%n)]
	}
	return s / float64(rows)
}

// Record follows Forward on B sequences operation by operation (see
// tensor.Footprint): the two embeddings and their positions, the three
// projections, the attention's scores, weights and weighted sum, the
// read-out and, when backward, the cross-entropy of training.
func (c Seq2SeqConfig) Record(f *tensor.Footprint, B int, backward bool) {
	L, d, A, rows := c.Length, c.Dim, c.Symbols, B*c.Length
	for range 2 {
		f.Indexed(rows*d, rows, true) // Embedding
		f.Op(1, false)                // Reshape
		f.Op(rows*d, true)            // + positions
	}
	for range 3 {
		f.Product(tensor.Product{M: rows, K: d, N: d, GradA: true, GradB: true, Backward: backward})
	}
	f.Product(tensor.Product{Batch: B, M: L, K: d, N: L, TB: true, GradA: true, GradB: true, Backward: backward})
	f.Op(B*L*L, true) // the weights
	f.Product(tensor.Product{Batch: B, M: L, K: L, N: d, GradA: true, GradB: true, Backward: backward})
	f.Product(tensor.Product{M: rows, K: d, N: A, GradA: true, GradB: true, Backward: backward})
	if backward {
		f.CrossEntropy(rows, A, true)
	}
}

// Bytes is what NewSeq2Seq's model of configuration c holds once it has
// trained and evaluated: the parameters with their gradients and Adam's
// moments, the training tape, the evaluation tape, the batch and the
// held-out set.
func (c Seq2SeqConfig) Bytes() int64 {
	L, d, A := c.Length, c.Dim, c.Symbols
	b := int64(0)
	for _, n := range []int{A * d, L * d, (A + 1) * d, L * d, d * d, d * d, d * d, d * A, A} {
		b += int64(unsafe.Sizeof(tensor.Tensor{})) + 4*tensor.Alloc(n)
	}
	var tr tensor.Footprint
	c.Record(&tr, c.Batch, true)
	ev := tensor.Footprint{Forward: true}
	c.Record(&ev, Seq2SeqHeld, false)
	return b + tr.Bytes() + ev.Bytes() + 3*tensor.Alloc(c.Batch*L) + 4*tensor.Alloc(Seq2SeqHeld*L)
}
