package tensor_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/algo/gradcheck"
	"github.com/thelab/lab/algo/tensor"
)

// gradTol is the largest relative error accepted between AD and central
// differences (step 1e-5, floor 1e-3; both errors are near 1e-10).
const gradTol = 1e-6

func param(t testing.TB, rng *rand.Rand, dims ...int) *tensor.Tensor {
	t.Helper()
	p, err := tensor.New(dims...)
	if err != nil {
		t.Fatal(err)
	}
	for i := range p.Data {
		p.Data[i] = rng.NormFloat64()
	}
	return p
}

func input(t testing.TB, rng *rand.Rand, dims ...int) *tensor.Tensor {
	t.Helper()
	x := param(t, rng, dims...)
	y, err := tensor.FromData(x.Data, dims...)
	if err != nil {
		t.Fatal(err)
	}
	return y
}

// awayFromZero moves every entry to |x| ≥ 0.2 (keeps kinks and poles out
// of reach of the difference stencil).
func awayFromZero(p *tensor.Tensor) *tensor.Tensor {
	for i, v := range p.Data {
		p.Data[i] = math.Copysign(0.2+math.Abs(v), v)
	}
	return p
}

func positive(p *tensor.Tensor) *tensor.Tensor {
	for i, v := range p.Data {
		p.Data[i] = 0.3 + math.Abs(v)
	}
	return p
}

// weighted is Σ r ⊙ out for a fixed random r: a scalar whose gradient
// exercises every output entry differently.
func weighted(tp *tensor.Tape, out *tensor.Tensor, seed uint64) *tensor.Tensor {
	rng := rand.New(rand.NewPCG(seed, 99))
	r := make([]float64, out.Size())
	for i := range r {
		r[i] = rng.NormFloat64()
	}
	rt, err := tensor.FromData(r, out.Shape()...)
	if err != nil {
		return tp.Sum(out) // the tape has the error already
	}
	return tp.Sum(tp.Mul(out, rt))
}

func checkModel(t *testing.T, name string, build func(tp *tensor.Tape) *tensor.Tensor, params []*tensor.Tensor, allowKinks bool) *gradcheck.Result {
	t.Helper()
	r, err := gradcheck.Model(build, params, nil)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if r.MaxRel > gradTol {
		t.Errorf("%s: max relative error %.3g at entry %d (AD %.12g, FD %.12g)", name, r.MaxRel, r.Worst, r.AD[r.Worst], r.FD[r.Worst])
	}
	if r.Kinks > 0 && !allowKinks {
		t.Errorf("%s: %d entries straddle a kink", name, r.Kinks)
	}
	return r
}

// TestOpGradients checks every operation against central differences:
// loss = Σ r ⊙ op(inputs) with r fixed and random, max relative error
// ≤ 1e-6 over every input entry.
func TestOpGradients(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	p := func(dims ...int) *tensor.Tensor { return param(t, rng, dims...) }
	type tc struct {
		name   string
		params []*tensor.Tensor
		op     func(tp *tensor.Tape, x []*tensor.Tensor) *tensor.Tensor
	}
	ids := []int{0, 3, 3, 1}
	labels := []int{2, 0, 1, 1}
	cases := []tc{
		{"MatMul", []*tensor.Tensor{p(3, 4), p(4, 5)}, func(tp *tensor.Tape, x []*tensor.Tensor) *tensor.Tensor { return tp.MatMul(x[0], x[1]) }},
		{"MatMul shared", []*tensor.Tensor{p(2, 3, 4), p(4, 5)}, func(tp *tensor.Tape, x []*tensor.Tensor) *tensor.Tensor { return tp.MatMul(x[0], x[1]) }},
		{"MatMul batched", []*tensor.Tensor{p(2, 3, 4), p(2, 4, 5)}, func(tp *tensor.Tape, x []*tensor.Tensor) *tensor.Tensor { return tp.MatMul(x[0], x[1]) }},
		{"MatMulT", []*tensor.Tensor{p(2, 3, 4), p(2, 5, 4)}, func(tp *tensor.Tape, x []*tensor.Tensor) *tensor.Tensor { return tp.MatMulT(x[0], x[1]) }},
		{"Linear", []*tensor.Tensor{p(2, 3, 4), p(4, 5), p(5)}, func(tp *tensor.Tape, x []*tensor.Tensor) *tensor.Tensor { return tp.Linear(x[0], x[1], x[2]) }},
		{"Linear without bias", []*tensor.Tensor{p(3, 4), p(4, 2)}, func(tp *tensor.Tape, x []*tensor.Tensor) *tensor.Tensor { return tp.Linear(x[0], x[1], nil) }},
		{"MatMul narrow", []*tensor.Tensor{p(40, 20), p(20, 3)}, func(tp *tensor.Tape, x []*tensor.Tensor) *tensor.Tensor { return tp.MatMul(x[0], x[1]) }},
		{"MatMulT narrow", []*tensor.Tensor{p(40, 20), p(3, 20)}, func(tp *tensor.Tape, x []*tensor.Tensor) *tensor.Tensor { return tp.MatMulT(x[0], x[1]) }},
		{"MatMulT shared", []*tensor.Tensor{p(3, 4), p(5, 4)}, func(tp *tensor.Tape, x []*tensor.Tensor) *tensor.Tensor { return tp.MatMulT(x[0], x[1]) }},
		{"Add", []*tensor.Tensor{p(3, 5), p(3, 5)}, func(tp *tensor.Tape, x []*tensor.Tensor) *tensor.Tensor { return tp.Add(x[0], x[1]) }},
		{"Add bias", []*tensor.Tensor{p(3, 5), p(5)}, func(tp *tensor.Tape, x []*tensor.Tensor) *tensor.Tensor { return tp.Add(x[0], x[1]) }},
		{"Sub column", []*tensor.Tensor{p(2, 3, 5), p(3, 1)}, func(tp *tensor.Tape, x []*tensor.Tensor) *tensor.Tensor { return tp.Sub(x[0], x[1]) }},
		{"Mul general", []*tensor.Tensor{p(2, 3, 4), p(2, 1, 4)}, func(tp *tensor.Tape, x []*tensor.Tensor) *tensor.Tensor { return tp.Mul(x[0], x[1]) }},
		{"Mul scalar", []*tensor.Tensor{p(3, 4), p(1)}, func(tp *tensor.Tape, x []*tensor.Tensor) *tensor.Tensor { return tp.Mul(x[0], x[1]) }},
		{"Div", []*tensor.Tensor{p(3, 4), awayFromZero(p(4))}, func(tp *tensor.Tape, x []*tensor.Tensor) *tensor.Tensor { return tp.Div(x[0], x[1]) }},
		{"Div general", []*tensor.Tensor{p(3, 4), awayFromZero(p(3, 1))}, func(tp *tensor.Tape, x []*tensor.Tensor) *tensor.Tensor { return tp.Div(x[0], x[1]) }},
		{"Scale", []*tensor.Tensor{p(6)}, func(tp *tensor.Tape, x []*tensor.Tensor) *tensor.Tensor { return tp.Scale(x[0], -2.5) }},
		{"AddConst", []*tensor.Tensor{p(6)}, func(tp *tensor.Tape, x []*tensor.Tensor) *tensor.Tensor { return tp.AddConst(x[0], 3) }},
		{"Neg", []*tensor.Tensor{p(6)}, func(tp *tensor.Tape, x []*tensor.Tensor) *tensor.Tensor { return tp.Neg(x[0]) }},
		{"Exp", []*tensor.Tensor{p(6)}, func(tp *tensor.Tape, x []*tensor.Tensor) *tensor.Tensor { return tp.Exp(x[0]) }},
		{"Log", []*tensor.Tensor{positive(p(6))}, func(tp *tensor.Tape, x []*tensor.Tensor) *tensor.Tensor { return tp.Log(x[0]) }},
		{"Tanh", []*tensor.Tensor{p(6)}, func(tp *tensor.Tape, x []*tensor.Tensor) *tensor.Tensor { return tp.Tanh(x[0]) }},
		{"Sigmoid", []*tensor.Tensor{p(6)}, func(tp *tensor.Tape, x []*tensor.Tensor) *tensor.Tensor { return tp.Sigmoid(x[0]) }},
		{"Relu", []*tensor.Tensor{awayFromZero(p(6))}, func(tp *tensor.Tape, x []*tensor.Tensor) *tensor.Tensor { return tp.Relu(x[0]) }},
		{"Square", []*tensor.Tensor{p(6)}, func(tp *tensor.Tape, x []*tensor.Tensor) *tensor.Tensor { return tp.Square(x[0]) }},
		{"Sqrt", []*tensor.Tensor{positive(p(6))}, func(tp *tensor.Tape, x []*tensor.Tensor) *tensor.Tensor { return tp.Sqrt(x[0]) }},
		{"Abs", []*tensor.Tensor{awayFromZero(p(6))}, func(tp *tensor.Tape, x []*tensor.Tensor) *tensor.Tensor { return tp.Abs(x[0]) }},
		{"Softplus", []*tensor.Tensor{p(6)}, func(tp *tensor.Tape, x []*tensor.Tensor) *tensor.Tensor { return tp.Softplus(x[0]) }},
		{"Sum", []*tensor.Tensor{p(2, 3)}, func(tp *tensor.Tape, x []*tensor.Tensor) *tensor.Tensor { return tp.Sum(x[0]) }},
		{"Mean", []*tensor.Tensor{p(2, 3)}, func(tp *tensor.Tape, x []*tensor.Tensor) *tensor.Tensor { return tp.Mean(x[0]) }},
		{"SumAxis 0", []*tensor.Tensor{p(2, 3, 4)}, func(tp *tensor.Tape, x []*tensor.Tensor) *tensor.Tensor { return tp.SumAxis(x[0], 0) }},
		{"SumAxis 1", []*tensor.Tensor{p(2, 3, 4)}, func(tp *tensor.Tape, x []*tensor.Tensor) *tensor.Tensor { return tp.SumAxis(x[0], 1) }},
		{"MeanAxis -1", []*tensor.Tensor{p(2, 3, 4)}, func(tp *tensor.Tape, x []*tensor.Tensor) *tensor.Tensor { return tp.MeanAxis(x[0], -1) }},
		{"Softmax", []*tensor.Tensor{p(3, 5)}, func(tp *tensor.Tape, x []*tensor.Tensor) *tensor.Tensor { return tp.Softmax(x[0]) }},
		{"LogSoftmax", []*tensor.Tensor{p(3, 5)}, func(tp *tensor.Tape, x []*tensor.Tensor) *tensor.Tensor { return tp.LogSoftmax(x[0]) }},
		{"LogSumExp", []*tensor.Tensor{p(3, 5)}, func(tp *tensor.Tape, x []*tensor.Tensor) *tensor.Tensor { return tp.LogSumExp(x[0]) }},
		{"CrossEntropy", []*tensor.Tensor{p(4, 3)}, func(tp *tensor.Tape, x []*tensor.Tensor) *tensor.Tensor { return tp.CrossEntropy(x[0], labels) }},
		{"Pick", []*tensor.Tensor{p(4, 3)}, func(tp *tensor.Tape, x []*tensor.Tensor) *tensor.Tensor { return tp.Pick(x[0], labels) }},
		{"Conv2D pad 1", []*tensor.Tensor{p(2, 2, 5, 5), p(3, 2, 3, 3), p(3)}, func(tp *tensor.Tape, x []*tensor.Tensor) *tensor.Tensor {
			return tp.Conv2D(x[0], x[1], x[2], 1, 1)
		}},
		{"Conv2D stride 2", []*tensor.Tensor{p(1, 2, 6, 5), p(2, 2, 2, 3)}, func(tp *tensor.Tape, x []*tensor.Tensor) *tensor.Tensor {
			return tp.Conv2D(x[0], x[1], nil, 2, 0)
		}},
		{"MaxPool2D", []*tensor.Tensor{p(1, 2, 4, 5)}, func(tp *tensor.Tape, x []*tensor.Tensor) *tensor.Tensor { return tp.MaxPool2D(x[0], 2, 2) }},
		{"AvgPool2D", []*tensor.Tensor{p(2, 1, 4, 4)}, func(tp *tensor.Tape, x []*tensor.Tensor) *tensor.Tensor { return tp.AvgPool2D(x[0], 3, 1) }},
		{"LayerNorm", []*tensor.Tensor{p(3, 4), p(4), p(4)}, func(tp *tensor.Tape, x []*tensor.Tensor) *tensor.Tensor {
			return tp.LayerNorm(x[0], x[1], x[2], 1e-5)
		}},
		{"LayerNorm plain", []*tensor.Tensor{p(2, 3, 4)}, func(tp *tensor.Tape, x []*tensor.Tensor) *tensor.Tensor { return tp.LayerNorm(x[0], nil, nil, 1e-5) }},
		{"Embedding", []*tensor.Tensor{p(5, 3)}, func(tp *tensor.Tape, x []*tensor.Tensor) *tensor.Tensor { return tp.Embedding(x[0], ids) }},
		{"CausalMask+Softmax", []*tensor.Tensor{p(2, 4, 4)}, func(tp *tensor.Tape, x []*tensor.Tensor) *tensor.Tensor { return tp.Softmax(tp.CausalMask(x[0])) }},
		{"Attention", []*tensor.Tensor{p(2, 4, 3), p(2, 4, 3), p(2, 4, 2)}, func(tp *tensor.Tape, x []*tensor.Tensor) *tensor.Tensor {
			out, _ := tp.Attention(x[0], x[1], x[2], false)
			return out
		}},
		{"Attention causal", []*tensor.Tensor{p(4, 3), p(4, 3), p(4, 2)}, func(tp *tensor.Tape, x []*tensor.Tensor) *tensor.Tensor {
			out, _ := tp.Attention(x[0], x[1], x[2], true)
			return out
		}},
		{"ScaledAttention unscaled causal", []*tensor.Tensor{p(2, 4, 3), p(2, 4, 3), p(2, 4, 2)}, func(tp *tensor.Tape, x []*tensor.Tensor) *tensor.Tensor {
			out, _ := tp.ScaledAttention(x[0], x[1], x[2], 1, true)
			return out
		}},
		{"Dropout", []*tensor.Tensor{p(3, 4)}, func(tp *tensor.Tape, x []*tensor.Tensor) *tensor.Tensor {
			return tp.Dropout(x[0], 0.4, rand.New(rand.NewPCG(7, 7)))
		}},
		{"Concat", []*tensor.Tensor{p(2, 3), p(2, 2), p(2, 1)}, func(tp *tensor.Tape, x []*tensor.Tensor) *tensor.Tensor { return tp.Concat(-1, x...) }},
		{"Concat 0", []*tensor.Tensor{p(1, 3), p(2, 3)}, func(tp *tensor.Tape, x []*tensor.Tensor) *tensor.Tensor { return tp.Concat(0, x...) }},
		{"Slice", []*tensor.Tensor{p(2, 5, 3)}, func(tp *tensor.Tape, x []*tensor.Tensor) *tensor.Tensor { return tp.Slice(x[0], 1, 1, 4) }},
		{"Reshape", []*tensor.Tensor{p(2, 6)}, func(tp *tensor.Tape, x []*tensor.Tensor) *tensor.Tensor {
			return tp.Tanh(tp.Reshape(x[0], 3, 4))
		}},
		{"Transpose", []*tensor.Tensor{p(2, 3, 4)}, func(tp *tensor.Tape, x []*tensor.Tensor) *tensor.Tensor { return tp.Transpose(x[0]) }},
	}
	for k, c := range cases {
		checkModel(t, c.name, func(tp *tensor.Tape) *tensor.Tensor {
			return weighted(tp, c.op(tp, c.params), uint64(k))
		}, c.params, false)
	}
}

func near(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		algotest.Near(t, fmt.Sprintf("%s[%d]", what, i), got[i], want[i], tol)
	}
}

// TestMatMulValues: the BLAS product equals the defining sums, also for
// the tiled path (m = 300 rows cut into tiles of 192).
func TestMatMulValues(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, d := range [][3]int{{3, 4, 5}, {300, 7, 90}, {70, 200, 3}} {
		m, k, n := d[0], d[1], d[2]
		a, b := input(t, rng, m, k), input(t, rng, k, n)
		tp := tensor.NewTape()
		c := tp.MatMul(a, b)
		want := make([]float64, m*n)
		for i := range m {
			for j := range n {
				for l := range k {
					want[i*n+j] += a.Data[i*k+l] * b.Data[l*n+j]
				}
			}
		}
		near(t, fmt.Sprintf("%d×%d·%d×%d", m, k, k, n), c.Data, want, 1e-12)
		if tp.Err() != nil {
			t.Fatal(tp.Err())
		}
	}
}

// TestSoftmaxOracles: rows sum to 1; the cross-entropy of equal logits is
// log C (seed 000 §2.1: uniform prediction gives log n_voc); LogSumExp of
// huge logits does not overflow.
func TestSoftmaxOracles(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	tp := tensor.NewTape()
	x := input(t, rng, 4, 26)
	s := tp.Softmax(x)
	for r := range 4 {
		sum := 0.0
		for _, v := range s.Data[r*26 : (r+1)*26] {
			sum += v
		}
		algotest.Near(t, "row sum", sum, 1, 1e-15)
	}
	zero, _ := tensor.FromData(make([]float64, 3*26), 3, 26)
	ce := tp.CrossEntropy(zero, []int{0, 5, 25})
	algotest.Near(t, "CE of uniform logits", ce.Item(), math.Log(26), 1e-15)
	big, _ := tensor.FromData([]float64{1000, 1000}, 1, 2)
	algotest.Near(t, "LSE(1000, 1000)", tp.LogSumExp(big).Data[0], 1000+math.Ln2, 1e-12)
	if tp.Err() != nil {
		t.Fatal(tp.Err())
	}
}

// TestAttentionOracles (catalogue §2.6–2.7): each query's weights sum to
// 1; with the causal mask the weights of later keys are exactly 0 and the
// first query's output is exactly v₁; equal keys give uniform weights.
func TestAttentionOracles(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	const T, d = 5, 4
	q, k, v := input(t, rng, T, d), input(t, rng, T, d), input(t, rng, T, 3)
	tp := tensor.NewTape()
	out, w := tp.Attention(q, k, v, true)
	for i := range T {
		sum := 0.0
		for j := range T {
			wij := w.Data[i*T+j]
			sum += wij
			if j > i && wij != 0 {
				t.Errorf("masked weight (%d, %d) = %g", i, j, wij)
			}
		}
		algotest.Near(t, fmt.Sprintf("row %d sum", i), sum, 1, 1e-15)
	}
	near(t, "first query's output", out.Data[:3], v.Data[:3], 0)
	same, _ := tensor.FromData(make([]float64, T*d), T, d)
	_, w = tp.Attention(q, same, v, false)
	for _, x := range w.Data {
		algotest.Near(t, "equal keys", x, 1.0/T, 1e-15)
	}
	// ScaledAttention at 1/√d is Attention; at scale s it is Attention of
	// the queries multiplied by s·√d.
	_, w1 := tp.ScaledAttention(q, k, v, 1/math.Sqrt(d), true)
	_, w2 := tp.Attention(q, k, v, true)
	near(t, "ScaledAttention(1/√d)", w1.Data, w2.Data, 0)
	_, w1 = tp.ScaledAttention(q, k, v, 3, false)
	_, w2 = tp.Attention(tp.Scale(q, 3*math.Sqrt(d)), k, v, false)
	near(t, "ScaledAttention(3)", w1.Data, w2.Data, 1e-12)
	if tp.Err() != nil {
		t.Fatal(tp.Err())
	}
}

// TestAttentionFused: ScaledAttention's weights are one node, whose values
// and gradients are to the bit those of Scale, CausalMask and Softmax in
// turn.
func TestAttentionFused(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 11))
	for _, causal := range []bool{false, true} {
		for _, scale := range []float64{1, 0.37} {
			q, k, v := param(t, rng, 3, 6, 4), param(t, rng, 3, 6, 4), param(t, rng, 3, 6, 2)
			grads := func(attend func(tp *tensor.Tape) *tensor.Tensor) (g [][]float64) {
				tp := tensor.NewTape()
				out := attend(tp)
				if err := tp.Backward(weighted(tp, out, 7)); err != nil {
					t.Fatal(err)
				}
				for _, p := range []*tensor.Tensor{q, k, v} {
					g = append(g, slices.Clone(p.Grad))
				}
				return g
			}
			var fused, chain []float64
			gf := grads(func(tp *tensor.Tape) *tensor.Tensor {
				out, w := tp.ScaledAttention(q, k, v, scale, causal)
				fused = slices.Clone(w.Data)
				return out
			})
			gc := grads(func(tp *tensor.Tape) *tensor.Tensor {
				s := tp.Scale(tp.MatMulT(q, k), scale)
				if causal {
					s = tp.CausalMask(s)
				}
				w := tp.Softmax(s)
				chain = slices.Clone(w.Data)
				return tp.MatMul(w, v)
			})
			if !slices.Equal(fused, chain) {
				t.Errorf("causal %v, scale %g: weights differ", causal, scale)
			}
			for i := range gf {
				if !slices.Equal(gf[i], gc[i]) {
					t.Errorf("causal %v, scale %g: gradients of input %d differ", causal, scale, i)
				}
			}
		}
	}
}

// TestFail: an error a model records on the tape is the step's error, the
// first one wins, and later operations return the placeholder.
func TestFail(t *testing.T) {
	tp := tensor.NewTape()
	x := input(t, rand.New(rand.NewPCG(1, 2)), 2, 2)
	first := errors.New("first")
	tp.Fail("model", first)
	tp.Fail("model", errors.New("second"))
	if y := tp.Tanh(x); tp.Err() == nil || !strings.Contains(tp.Err().Error(), "first") || y.Size() != 0 {
		t.Errorf("after Fail: err %v, output of size %d", tp.Err(), y.Size())
	}
	tp.Rewind()
	if tp.Tanh(x); tp.Err() != nil {
		t.Errorf("after Rewind: %v", tp.Err())
	}
}

// TestLayerNormStats (catalogue §2.9): with γ = 1, β = 0 each row has mean
// 0 and population standard deviation √(σ²/(σ² + ε)) ≈ 1; a constant row
// gives 0, not 0/0.
func TestLayerNormStats(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 11))
	x := input(t, rng, 3, 8)
	copy(x.Data[16:], []float64{2, 2, 2, 2, 2, 2, 2, 2})
	tp := tensor.NewTape()
	y := tp.LayerNorm(x, nil, nil, 1e-12)
	for r := range 2 {
		row := y.Data[r*8 : (r+1)*8]
		mu, v := 0.0, 0.0
		for _, z := range row {
			mu += z / 8
		}
		for _, z := range row {
			v += (z - mu) * (z - mu) / 8
		}
		algotest.Near(t, "mean", mu, 0, 1e-15)
		algotest.Near(t, "std", math.Sqrt(v), 1, 1e-10)
	}
	near(t, "constant row", y.Data[16:], make([]float64, 8), 0)
}

// TestConvValues: Conv2D equals the defining sum, and the output size is
// ⌊(H + 2p − k)/s⌋ + 1 ("same" padding p = (k−1)/2 keeps H at stride 1).
func TestConvValues(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 13))
	for _, c := range []struct{ H, W, K, s, p, OH, OW int }{
		{5, 5, 3, 1, 1, 5, 5}, {7, 6, 5, 1, 2, 7, 6}, {6, 5, 2, 2, 0, 3, 2}, {8, 8, 3, 2, 1, 4, 4},
	} {
		x, w, b := input(t, rng, 2, 3, c.H, c.W), input(t, rng, 4, 3, c.K, c.K), input(t, rng, 4)
		tp := tensor.NewTape()
		y := tp.Conv2D(x, w, b, c.s, c.p)
		if tp.Err() != nil {
			t.Fatal(tp.Err())
		}
		if fmt.Sprint(y.Shape()) != fmt.Sprint([]int{2, 4, c.OH, c.OW}) {
			t.Fatalf("shape %v, want [2 4 %d %d]", y.Shape(), c.OH, c.OW)
		}
		for n := range 2 {
			for f := range 4 {
				for i := range c.OH {
					for j := range c.OW {
						s := b.Data[f]
						for ch := range 3 {
							for u := range c.K {
								for v := range c.K {
									ih, iw := i*c.s+u-c.p, j*c.s+v-c.p
									if ih >= 0 && ih < c.H && iw >= 0 && iw < c.W {
										s += w.Data[((f*3+ch)*c.K+u)*c.K+v] * x.Data[((n*3+ch)*c.H+ih)*c.W+iw]
									}
								}
							}
						}
						algotest.Near(t, "conv", y.Data[((n*4+f)*c.OH+i)*c.OW+j], s, 1e-12)
					}
				}
			}
		}
	}
}

// TestPoolValues on a 4×4 grid 0..15.
func TestPoolValues(t *testing.T) {
	g := make([]float64, 16)
	for i := range g {
		g[i] = float64(i)
	}
	x, _ := tensor.FromData(g, 1, 1, 4, 4)
	tp := tensor.NewTape()
	near(t, "max 2/2", tp.MaxPool2D(x, 2, 2).Data, []float64{5, 7, 13, 15}, 0)
	near(t, "avg 2/2", tp.AvgPool2D(x, 2, 2).Data, []float64{2.5, 4.5, 10.5, 12.5}, 0)
	near(t, "max 3/1", tp.MaxPool2D(x, 3, 1).Data, []float64{10, 11, 14, 15}, 0)
}

// TestShapes: broadcast, concat/slice round trip, reshape sharing, the
// embedding's rows.
func TestShapes(t *testing.T) {
	tp := tensor.NewTape()
	a, _ := tensor.FromData([]float64{1, 2, 3, 4, 5, 6}, 2, 3)
	col, _ := tensor.FromData([]float64{10, 20}, 2, 1)
	near(t, "[2,3]+[2,1]", tp.Add(a, col).Data, []float64{11, 12, 13, 24, 25, 26}, 0)
	row, _ := tensor.FromData([]float64{1, 0, -1}, 3)
	near(t, "[2,3]·[3]", tp.Mul(a, row).Data, []float64{1, 0, -3, 4, 0, -6}, 0)
	s1, s2 := tp.Slice(a, 1, 0, 1), tp.Slice(a, 1, 1, 3)
	near(t, "concat(slices)", tp.Concat(1, s1, s2).Data, a.Data, 0)
	near(t, "transpose", tp.Transpose(a).Data, []float64{1, 4, 2, 5, 3, 6}, 0)
	tab, _ := tensor.FromData([]float64{0, 1, 10, 11, 20, 21}, 3, 2)
	near(t, "embedding", tp.Embedding(tab, []int{2, 0, 2}).Data, []float64{20, 21, 0, 1, 20, 21}, 0)
	r := tp.Reshape(a, 3, 2)
	if &r.Data[0] != &a.Data[0] || fmt.Sprint(r.Shape()) != "[3 2]" {
		t.Error("Reshape copied or kept the shape")
	}
	if tp.Err() != nil {
		t.Fatal(tp.Err())
	}
}

// TestStickyErrors: misuse never panics; the first error sticks and
// Backward reports it, naming the operation.
func TestStickyErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 15))
	a, b := param(t, rng, 2, 3), param(t, rng, 4, 5)
	neg, _ := tensor.FromData([]float64{1, -1}, 2)
	for _, c := range []struct {
		want string
		run  func(tp *tensor.Tape) *tensor.Tensor
	}{
		{"MatMul", func(tp *tensor.Tape) *tensor.Tensor { return tp.MatMul(a, b) }},
		{"does not broadcast", func(tp *tensor.Tape) *tensor.Tensor { return tp.Add(a, b) }},
		{"label 3 of row 1", func(tp *tensor.Tape) *tensor.Tensor { return tp.CrossEntropy(a, []int{0, 3}) }},
		{"log of -1", func(tp *tensor.Tape) *tensor.Tensor { return tp.Log(neg) }},
		{"division by zero", func(tp *tensor.Tape) *tensor.Tensor { return tp.Div(a, tp.Scale(a, 0)) }},
		{"outside 0..1", func(tp *tensor.Tape) *tensor.Tensor { return tp.Embedding(a, []int{2}) }},
		{"Conv2D", func(tp *tensor.Tape) *tensor.Tensor { return tp.Conv2D(a, b, nil, 1, 0) }},
		{"does not fit", func(tp *tensor.Tape) *tensor.Tensor {
			x, _ := tensor.New(1, 1, 2, 2)
			w, _ := tensor.New(1, 1, 3, 3)
			return tp.Conv2D(x, w, nil, 1, 0)
		}},
		{"Slice", func(tp *tensor.Tape) *tensor.Tensor { return tp.Slice(a, 1, 2, 5) }},
		{"Reshape", func(tp *tensor.Tape) *tensor.Tensor { return tp.Reshape(a, 4, 2) }},
		{"p = 1", func(tp *tensor.Tape) *tensor.Tensor { return tp.Dropout(a, 1, rng) }},
		{"input 1 is nil", func(tp *tensor.Tape) *tensor.Tensor { return tp.Exp(nil) }},
	} {
		tp := tensor.NewTape()
		out := c.run(tp)
		loss := tp.Sum(tp.Tanh(out)) // keeps going on the placeholder
		err := tp.Backward(loss)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v", c.want, err)
		}
	}
	// The placeholder of a failed operation is refused after Rewind too.
	tp := tensor.NewTape()
	bad := tp.Exp(nil)
	tp.Rewind()
	if err := tp.Backward(tp.Sum(tp.Exp(bad))); err == nil || !strings.Contains(err.Error(), "placeholder") {
		t.Errorf("placeholder: %v", err)
	}
	// A tensor from before Rewind is refused.
	tp = tensor.NewTape()
	old := tp.Tanh(a)
	tp.Rewind()
	if err := tp.Backward(tp.Sum(old)); err == nil || !strings.Contains(err.Error(), "before the last Rewind") {
		t.Errorf("stale tensor: %v", err)
	}
	_, err := tensor.New(0, 3)
	algotest.WantParam(t, err, "axis 0")
	_, err = tensor.FromData([]float64{1, 2}, 3)
	algotest.WantParam(t, err, "data")
}

// mlp is the benchmark network 2→16→16→2 with ReLU: its weights and a
// build function for a batch.
type mlp struct {
	params []*tensor.Tensor
}

func newMLP(t testing.TB, rng *rand.Rand, sizes ...int) *mlp {
	m := &mlp{}
	for i := 0; i+1 < len(sizes); i++ {
		w, _ := tensor.New(sizes[i], sizes[i+1])
		if err := w.Fill(tensor.He, rng); err != nil {
			t.Fatal(err)
		}
		b, _ := tensor.New(sizes[i+1])
		m.params = append(m.params, w, b)
	}
	return m
}

func (m *mlp) loss(tp *tensor.Tape, x *tensor.Tensor, labels []int) *tensor.Tensor {
	h := x
	for i := 0; i < len(m.params); i += 2 {
		h = tp.Add(tp.MatMul(h, m.params[i]), m.params[i+1])
		if i+2 < len(m.params) {
			h = tp.Relu(h)
		}
	}
	return tp.CrossEntropy(h, labels)
}

func blobs(t testing.TB, rng *rand.Rand, n int) (*tensor.Tensor, []int) {
	x := input(t, rng, n, 2)
	labels := make([]int, n)
	for i := range labels {
		labels[i] = i % 2
		x.Data[2*i] += 2 * float64(labels[i])
	}
	return x, labels
}

// TestBackwardTwice: Backward resets every gradient first, so calling it
// twice gives the same gradients (never their sum).
func TestBackwardTwice(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 17))
	m := newMLP(t, rng, 2, 8, 2)
	x, y := blobs(t, rng, 10)
	tp := tensor.NewTape()
	loss := m.loss(tp, x, y)
	if err := tp.Backward(loss); err != nil {
		t.Fatal(err)
	}
	first := append([]float64(nil), m.params[0].Grad...)
	if err := tp.Backward(loss); err != nil {
		t.Fatal(err)
	}
	near(t, "second Backward", m.params[0].Grad, first, 0)
}

// TestWholeModels checks complete models against finite differences: an
// MLP (ReLU: entries straddling a kink are flagged, the rest ≤ 1e-6), a
// CNN (conv, ReLU, max-pool, dense, cross-entropy) and a transformer block
// (embedding, positions, two-head causal attention composed from Slice and
// Concat, residuals, LayerNorm, a GELU-free FFN, cross-entropy).
func TestWholeModels(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 19))
	m := newMLP(t, rng, 2, 6, 5, 3)
	x := input(t, rng, 7, 2)
	labels := []int{0, 1, 2, 1, 0, 2, 2}
	checkModel(t, "MLP", func(tp *tensor.Tape) *tensor.Tensor { return m.loss(tp, x, labels) }, m.params, true)

	img := input(t, rng, 2, 1, 6, 6)
	cw, cb := param(t, rng, 3, 1, 3, 3), param(t, rng, 3)
	dw, db := param(t, rng, 27, 2), param(t, rng, 2)
	cnn := func(tp *tensor.Tape) *tensor.Tensor {
		h := tp.MaxPool2D(tp.Relu(tp.Conv2D(img, cw, cb, 1, 1)), 2, 2) // [2, 3, 3, 3]
		return tp.CrossEntropy(tp.Add(tp.MatMul(tp.Reshape(h, 2, 27), dw), db), []int{1, 0})
	}
	checkModel(t, "CNN", cnn, []*tensor.Tensor{cw, cb, dw, db}, true)

	const V, T, D, H = 7, 5, 4, 2
	emb, pos := param(t, rng, V, D), param(t, rng, T, D)
	wq, wk, wv, wo := param(t, rng, D, D), param(t, rng, D, D), param(t, rng, D, D), param(t, rng, D, D)
	g1, b1 := param(t, rng, D), param(t, rng, D)
	f1, f2, dec := param(t, rng, D, 8), param(t, rng, 8, D), param(t, rng, D, V)
	tokens, next := []int{1, 4, 4, 2, 6}, []int{4, 4, 2, 6, 0}
	block := func(tp *tensor.Tape) *tensor.Tensor {
		h := tp.Add(tp.Embedding(emb, tokens), pos)
		q, k, v := tp.MatMul(h, wq), tp.MatMul(h, wk), tp.MatMul(h, wv)
		var heads [H]*tensor.Tensor
		for i := range H {
			s, e := i*D/H, (i+1)*D/H
			heads[i], _ = tp.Attention(tp.Slice(q, -1, s, e), tp.Slice(k, -1, s, e), tp.Slice(v, -1, s, e), true)
		}
		h = tp.LayerNorm(tp.Add(h, tp.MatMul(tp.Concat(-1, heads[:]...), wo)), g1, b1, 1e-5)
		h = tp.Add(h, tp.MatMul(tp.Tanh(tp.MatMul(h, f1)), f2))
		return tp.CrossEntropy(tp.MatMul(h, dec), next)
	}
	checkModel(t, "transformer block", block, []*tensor.Tensor{emb, pos, wq, wk, wv, wo, g1, b1, f1, f2, dec}, false)
}

// TestKinkFlagged: a ReLU input at exactly 0 puts its stencil on both
// branches; the check flags that entry instead of reporting an error.
func TestKinkFlagged(t *testing.T) {
	w, _ := tensor.New(2)
	copy(w.Data, []float64{0, 0.7})
	r := checkModel(t, "relu at 0", func(tp *tensor.Tape) *tensor.Tensor { return tp.Sum(tp.Relu(w)) }, []*tensor.Tensor{w}, true)
	if !r.Kink[0] || r.Kink[1] || r.Kinks != 1 {
		t.Errorf("kinks %v, want only entry 0", r.Kink)
	}
	if _, margin := func() (uint64, float64) {
		tp := tensor.NewTape()
		tp.TrackKinks(true)
		tp.Relu(w)
		return tp.Kinks()
	}(); margin != 0 {
		t.Errorf("margin %g, want 0", margin)
	}
}

// TestInputGradient: with RequireGrad an input receives ∂loss/∂x (the
// saliency map, the attack direction), equal to finite differences.
func TestInputGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 21))
	m := newMLP(t, rng, 4, 6, 3)
	x := param(t, rng, 5, 4) // a tensor with Grad: RequireGrad's result
	labels := []int{0, 2, 1, 1, 0}
	checkModel(t, "∂loss/∂x", func(tp *tensor.Tape) *tensor.Tensor { return m.loss(tp, x, labels) }, []*tensor.Tensor{x}, true)
	in, _ := tensor.FromData(x.Data, 5, 4)
	in.RequireGrad()
	tp := tensor.NewTape()
	if err := tp.Backward(m.loss(tp, in, labels)); err != nil {
		t.Fatal(err)
	}
	tp2 := tensor.NewTape()
	if err := tp2.Backward(m.loss(tp2, x, labels)); err != nil {
		t.Fatal(err)
	}
	near(t, "RequireGrad input", in.Grad, x.Grad, 0)
}

// TestDropoutStatistics: the fraction dropped is p within 4 standard
// errors, survivors are scaled by 1/(1 − p), the same seed gives the same
// mask, and rng = nil is the identity.
func TestDropoutStatistics(t *testing.T) {
	const n, p = 20000, 0.3
	ones := make([]float64, n)
	for i := range ones {
		ones[i] = 1
	}
	x, _ := tensor.FromData(ones, n)
	tp := tensor.NewTape()
	y := tp.Dropout(x, p, rand.New(rand.NewPCG(1, 1)))
	dropped := 0
	for _, v := range y.Data {
		switch v {
		case 0:
			dropped++
		case 1 / (1 - p):
		default:
			t.Fatalf("survivor scaled to %g", v)
		}
	}
	algotest.Near(t, "dropped fraction", float64(dropped)/n, p, 4*math.Sqrt(p*(1-p)/n))
	z := tp.Dropout(x, p, rand.New(rand.NewPCG(1, 1)))
	near(t, "same seed", z.Data, y.Data, 0)
	if tp.Dropout(x, p, nil) != x {
		t.Error("Dropout without rng is not the identity")
	}
}

// mlpStep is forward and backward of the 2→16→16→2 ReLU MLP on 256
// points, on one tape rewound every call.
func mlpStep(tb testing.TB, rng *rand.Rand) func() {
	m := newMLP(tb, rng, 2, 16, 16, 2)
	x, y := blobs(tb, rng, 256)
	tp := tensor.NewTape()
	return func() {
		tp.Rewind()
		if err := tp.Backward(m.loss(tp, x, y)); err != nil {
			tb.Fatal(err)
		}
	}
}

// TestTrainingStepAllocations: after the first step, rewinding and
// recording the same model (forward and backward) allocates nothing.
func TestTrainingStepAllocations(t *testing.T) {
	step := mlpStep(t, rand.New(rand.NewPCG(22, 23)))
	step()
	if a := testing.AllocsPerRun(20, step); a != 0 {
		t.Errorf("%v allocations per step", a)
	}
}

// TestPerExampleGradients: per-example gradients by a batch of one run
// repeatedly on the same tape (the path DP-SGD uses: no allocation after
// the first example) average to the batch gradient of the mean loss.
func TestPerExampleGradients(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 25))
	m := newMLP(t, rng, 2, 8, 2)
	const n = 16
	x, y := blobs(t, rng, n)
	tp := tensor.NewTape()
	if err := tp.Backward(m.loss(tp, x, y)); err != nil {
		t.Fatal(err)
	}
	batch := append([]float64(nil), m.params[0].Grad...)
	sum := make([]float64, len(batch))
	xi, _ := tensor.FromData(make([]float64, 2), 1, 2)
	yi := []int{0}
	one := func(i int) {
		copy(xi.Data, x.Data[2*i:2*i+2])
		yi[0] = y[i]
		tp.Rewind()
		if err := tp.Backward(m.loss(tp, xi, yi)); err != nil {
			t.Fatal(err)
		}
	}
	for i := range n {
		one(i)
		for j, g := range m.params[0].Grad {
			sum[j] += g / n
		}
	}
	near(t, "mean of per-example gradients", sum, batch, 1e-14)
	if a := testing.AllocsPerRun(10, func() { one(3) }); a != 0 {
		t.Errorf("%v allocations per example", a)
	}
}

// TestInitScales: the initialisers' empirical standard deviations match
// √(2/(n_in + n_out)) (Xavier) and √(2/n_in) (He) within 3%, from a seed.
func TestInitScales(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 27))
	for _, c := range []struct {
		init tensor.Init
		dims []int
		std  float64
	}{
		{tensor.Xavier, []int{200, 100}, math.Sqrt(2.0 / 300)},
		{tensor.XavierNormal, []int{200, 100}, math.Sqrt(2.0 / 300)},
		{tensor.He, []int{8, 4, 5, 5}, math.Sqrt(2.0 / 100)},
		{tensor.HeUniform, []int{300, 70}, math.Sqrt(2.0 / 300)},
	} {
		w, _ := tensor.New(c.dims...)
		if err := w.Fill(c.init, rng); err != nil {
			t.Fatal(err)
		}
		s := 0.0
		for _, v := range w.Data {
			s += v * v
		}
		algotest.Near(t, string(c.init)+" std", math.Sqrt(s/float64(w.Size())), c.std, 0.03*c.std)
	}
	w, _ := tensor.New(2)
	algotest.WantParam(t, w.Fill("glorot", rng), "init")
}

// TestPerExampleSqNorms: the vectorised per-example gradient norms of an
// MLP equal those of a batch of one per example (1e-12 relative), and the
// reseeded backward pass gives the clipped sum Σ c_i ∇ℓ_i (1e-13).
func TestPerExampleSqNorms(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 29))
	m := newMLP(t, rng, 3, 8, 4)
	const n, C = 12, 0.5
	x, y := labelled(t, rng, n, 3, 4)
	perExample := func(tp *tensor.Tape, x *tensor.Tensor, y []int) *tensor.Tensor {
		h := tp.Relu(tp.Add(tp.MatMul(x, m.params[0]), m.params[1]))
		z := tp.Linear(h, m.params[2], m.params[3])
		return tp.Neg(tp.Pick(tp.LogSoftmax(z), y))
	}
	// Reference: a batch of one per example.
	byOne := newClipByOne(m, x, y, perExample)
	tp := tensor.NewTape()
	if err := byOne.run(tp, C); err != nil {
		t.Fatal(err)
	}
	want, clipped := byOne.sq, byOne.sum
	tp.Rewind()
	losses := perExample(tp, x, y)
	ones := make([]float64, n)
	for i := range ones {
		ones[i] = 1
	}
	if err := tp.BackwardFrom(losses, ones); err != nil {
		t.Fatal(err)
	}
	got := make([]float64, n)
	if err := tp.PerExampleSqNorms(got, m.params); err != nil {
		t.Fatal(err)
	}
	for i := range got {
		algotest.Near(t, fmt.Sprintf("‖∇ℓ_%d‖²", i), got[i], want[i], 1e-12*want[i])
	}
	c := make([]float64, n)
	for i := range c {
		c[i] = min(1, C/math.Sqrt(got[i]))
	}
	if err := tp.BackwardFrom(losses, c); err != nil {
		t.Fatal(err)
	}
	for k, p := range m.params {
		near(t, fmt.Sprintf("clipped sum, param %d", k), p.Grad, clipped[k], 1e-13)
	}
	// A parameter used by a non-dense operation is refused.
	tp.Rewind()
	loss := tp.Sum(tp.Tanh(m.params[0]))
	if err := tp.Backward(loss); err != nil {
		t.Fatal(err)
	}
	algotest.WantParam(t, tp.PerExampleSqNorms(make([]float64, 3), m.params[:1]), "params[0]")
}

// labelled is n random inputs of dimension d with labels cycling through
// the classes.
func labelled(tb testing.TB, rng *rand.Rand, n, d, classes int) (*tensor.Tensor, []int) {
	x := input(tb, rng, n, d)
	y := make([]int, n)
	for i := range y {
		y[i] = i % classes
	}
	return x, y
}

// clipByOne is DP-SGD's clipping by a batch of one per example: each
// example's squared gradient norm (sq) and the clipped sum
// Σ min(1, C/‖∇ℓ_i‖) ∇ℓ_i (sum, one slice per parameter).
type clipByOne struct {
	m     *mlp
	x, xi *tensor.Tensor
	y     []int
	loss  func(tp *tensor.Tape, x *tensor.Tensor, y []int) *tensor.Tensor
	sq    []float64
	sum   [][]float64
}

func newClipByOne(m *mlp, x *tensor.Tensor, y []int, loss func(tp *tensor.Tape, x *tensor.Tensor, y []int) *tensor.Tensor) *clipByOne {
	d := x.Dim(1)
	xi, _ := tensor.FromData(make([]float64, d), 1, d)
	c := &clipByOne{m: m, x: x, xi: xi, y: y, loss: loss, sq: make([]float64, len(y)), sum: make([][]float64, len(m.params))}
	for k, p := range m.params {
		c.sum[k] = make([]float64, p.Size())
	}
	return c
}

func (c *clipByOne) run(tp *tensor.Tape, C float64) error {
	d := c.xi.Size()
	for k := range c.sum {
		clear(c.sum[k])
	}
	for i := range c.y {
		copy(c.xi.Data, c.x.Data[d*i:d*(i+1)])
		tp.Rewind()
		if err := tp.Backward(tp.Sum(c.loss(tp, c.xi, c.y[i:i+1]))); err != nil {
			return err
		}
		sq := 0.0
		for _, p := range c.m.params {
			for _, g := range p.Grad {
				sq += g * g
			}
		}
		c.sq[i] = sq
		f := min(1, C/math.Sqrt(sq))
		for k, p := range c.m.params {
			for j, g := range p.Grad {
				c.sum[k][j] += f * g
			}
		}
	}
	return nil
}
