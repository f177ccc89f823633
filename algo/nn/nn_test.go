package nn_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/algo/gradcheck"
	"github.com/thelab/lab/algo/nn"
	"github.com/thelab/lab/algo/tensor"
	"github.com/thelab/lab/algo/tensor/opt"
)

func rng(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 7)) }

func mustMLP(t testing.TB, cfg nn.MLPConfig, seed uint64) *nn.MLP {
	t.Helper()
	m, err := nn.NewMLP(cfg, rng(seed))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func input(t testing.TB, x []float64, d int) *tensor.Tensor {
	t.Helper()
	in, err := tensor.FromData(x, len(x)/d, d)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// TestXORExample91: the notes' XOR network (seed 001 Ex 9.1, L937–L943), U
// = [[1,1],[1,1]], c = (0, −1), w = (2, −4), b = −1 with ReLU, gives the
// catalogue's outputs ŷ = −1, +1, +1, −1 and hidden vectors (0,0), (1,0),
// (1,0), (2,1) on (0,0), (1,0), (0,1), (1,1). In the row layout W₁ = Uᵀ.
func TestXORExample91(t *testing.T) {
	m := mustMLP(t, nn.MLPConfig{In: 2, Hidden: []int{2}, Out: 1, Act: nn.ReLU}, 1)
	copy(m.Layers[0].W.Data, []float64{1, 1, 1, 1})
	copy(m.Layers[0].B.Data, []float64{0, -1})
	copy(m.Layers[1].W.Data, []float64{2, -4})
	m.Layers[1].B.Data[0] = -1
	tp := tensor.NewTape()
	out := m.Forward(tp, input(t, []float64{0, 0, 1, 0, 0, 1, 1, 1}, 2), nil)
	h, _ := m.Hidden(0)
	wantY := []float64{-1, 1, 1, -1}
	wantH := []float64{0, 0, 1, 0, 1, 0, 2, 1}
	for i, w := range wantY {
		algotest.Near(t, fmt.Sprintf("ŷ_%d", i), out.Data[i], w, 0)
	}
	for i, w := range wantH {
		algotest.Near(t, fmt.Sprintf("h[%d]", i), h.Data[i], w, 0)
	}
}

// TestLinearActivationIsAffine: with σ the identity the layers collapse
// into one affine map x ↦ x A + c, A = W₁W₂W₃, c = (b₁W₂ + b₂)W₃ + b₃
// (seed 001 Remark 9.2) — with a residual connection too, where each
// square layer becomes x(W + I) + b.
func TestLinearActivationIsAffine(t *testing.T) {
	for _, residual := range []bool{false, true} {
		m := mustMLP(t, nn.MLPConfig{In: 3, Hidden: []int{4, 4}, Out: 2, Act: nn.Linear, Residual: residual}, 2)
		r := rng(3)
		for _, p := range m.Params() {
			for i := range p.Data {
				p.Data[i] = r.NormFloat64()
			}
		}
		// Compose the affine maps on the identity's rows and a zero row.
		affine := func(x []float64) []float64 {
			h := x
			for k, d := range m.Layers {
				z := make([]float64, d.Out())
				for j := range z {
					z[j] = d.B.Data[j]
					for i, v := range h {
						z[j] += v * d.W.Data[i*d.Out()+j]
					}
					if residual && k < len(m.Layers)-1 && d.In() == d.Out() {
						z[j] += h[j]
					}
				}
				h = z
			}
			return h
		}
		c := affine([]float64{0, 0, 0})
		A := [3][]float64{affine([]float64{1, 0, 0}), affine([]float64{0, 1, 0}), affine([]float64{0, 0, 1})}
		gotA, gotC, ok := m.Affine()
		if !ok {
			t.Fatal("no affine map for a linear network")
		}
		for j := range 2 {
			algotest.Near(t, fmt.Sprintf("c_%d", j), gotC[j], c[j], 1e-12)
			for i := range 3 {
				algotest.Near(t, fmt.Sprintf("A_%d%d", i, j), gotA[i*2+j], A[i][j]-c[j], 1e-12)
			}
		}
		x := []float64{0.3, -1.2, 2.5, 1, 1, -1}
		tp := tensor.NewTape()
		out := m.Forward(tp, input(t, x, 3), nil)
		for n := range 2 {
			for j := range 2 {
				want := c[j]
				for i := range 3 {
					want += x[n*3+i] * (A[i][j] - c[j])
				}
				algotest.Near(t, fmt.Sprintf("residual=%v out[%d,%d]", residual, n, j), out.Data[n*2+j], want, 1e-12)
			}
		}
	}
}

// classSet draws n points in d dimensions with labels from a fixed rule.
func classSet(t testing.TB, n, d, classes int, seed uint64) *nn.Set {
	t.Helper()
	r := rng(seed)
	x := make([]float64, n*d)
	y := make([]int, n)
	for i := range n {
		s := 0.0
		for j := range d {
			x[i*d+j] = r.NormFloat64()
			s += x[i*d+j] * float64(j+1)
		}
		y[i] = int(math.Abs(s)) % classes
	}
	set, err := nn.NewClassSet(x, d, y, classes)
	if err != nil {
		t.Fatal(err)
	}
	return set
}

func batchOf(t testing.TB, s *nn.Set) *nn.Batch {
	t.Helper()
	b, err := nn.NewBatch(s.N, s.D)
	if err != nil {
		t.Fatal(err)
	}
	idx := make([]int, s.N)
	for i := range idx {
		idx[i] = i
	}
	b.Load(s, idx)
	return b
}

// models returns small networks of every kind for the gradient checks.
func models(t testing.TB) map[string]nn.Model {
	cnn, err := nn.NewCNN(nn.CNNConfig{H: 6, W: 6, Filters: []int{2, 3}, Kernel: 3, Hidden: 4, Out: 3, Act: nn.Tanh}, rng(5))
	if err != nil {
		t.Fatal(err)
	}
	return map[string]nn.Model{
		"mlp-tanh":     mustMLP(t, nn.MLPConfig{In: 36, Hidden: []int{5, 5}, Out: 3, Act: nn.Tanh, Residual: true}, 4),
		"mlp-sigmoid":  mustMLP(t, nn.MLPConfig{In: 36, Hidden: []int{4}, Out: 3, Act: nn.Sigmoid}, 6),
		"mlp-relu":     mustMLP(t, nn.MLPConfig{In: 36, Hidden: []int{6, 6}, Out: 3, Act: nn.ReLU}, 7),
		"cnn-tanh":     cnn,
		"linear-model": mustMLP(t, nn.MLPConfig{In: 36, Out: 3}, 8),
	}
}

// TestGradientsMatchFiniteDifferences: every model's gradient of the mean
// loss plus an L1 and L2 penalty equals central differences (seed 000
// §2.1's oracle, [A15]: relative error below 1e-6 away from kinks; entries
// whose stencil crosses a ReLU kink are flagged and skipped by gradcheck).
func TestGradientsMatchFiniteDifferences(t *testing.T) {
	set := classSet(t, 7, 36, 3, 9)
	for name, m := range models(t) {
		b := batchOf(t, set)
		const l1, l2 = 0.01, 0.1
		build := func(tp *tensor.Tape) *tensor.Tensor {
			loss := nn.CrossEntropy.Mean(tp, m.Forward(tp, b.X, nil), b)
			for _, w := range nn.Weights(m) {
				loss = tp.Add(loss, tp.Scale(tp.Sum(tp.Abs(w)), l1))
				loss = tp.Add(loss, tp.Scale(tp.Sum(tp.Square(w)), l2/2))
			}
			return loss
		}
		r, err := gradcheck.Model(build, m.Params(), nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if r.MaxRel > 1e-6 {
			t.Errorf("%s: max relative error %.3g at %d (AD %g, FD %g)", name, r.MaxRel, r.Worst, r.AD[r.Worst], r.FD[r.Worst])
		}
		if r.Kinks > len(r.AD)/10 {
			t.Errorf("%s: %d of %d entries at kinks", name, r.Kinks, len(r.AD))
		}
	}
}

// TestLossesMatchTheirFormulas: each loss on a two-row batch against its
// closed form, and the two-class logistic loss equals the cross-entropy of
// logits (0, z).
func TestLossesMatchTheirFormulas(t *testing.T) {
	x := []float64{0, 0, 0, 0}
	cls, _ := nn.NewClassSet(x, 2, []int{1, 0}, 2)
	reg, _ := nn.NewRegressionSet(x, 2, []float64{0.5, -2})
	z := []float64{1.5, -0.7}
	tp := tensor.NewTape()
	out := input(t, z, 1)
	b := batchOf(t, cls)
	got := nn.Logistic.Mean(tp, out, b).Item()
	want := (math.Log1p(math.Exp(-1.5)) + math.Log1p(math.Exp(-0.7))) / 2
	algotest.Near(t, "logistic", got, want, 1e-15)
	two := input(t, []float64{0, 1.5, 0, -0.7}, 2)
	algotest.Near(t, "cross-entropy of (0, z)", nn.CrossEntropy.Mean(tp, two, b).Item(), want, 1e-15)
	rb := batchOf(t, reg)
	algotest.Near(t, "squared", nn.Squared.Mean(tp, out, rb).Item(), (1*1+1.3*1.3)/4, 1e-15)
	for _, c := range []struct {
		set  *nn.Set
		outs int
		want nn.Loss
	}{{cls, 1, nn.Logistic}, {cls, 2, nn.CrossEntropy}, {reg, 1, nn.Squared}} {
		if l, err := nn.LossFor(c.set, c.outs); err != nil || l != c.want {
			t.Errorf("LossFor(%d classes, %d outputs) = %v, %v; want %v", c.set.Classes, c.outs, l, err, c.want)
		}
	}
	if _, err := nn.LossFor(cls, 3); err == nil {
		t.Error("3 outputs for 2 classes accepted")
	}
}

// TestInputGradMatchesFiniteDifferences: ∂loss/∂x of every model against
// central differences in x.
func TestInputGradMatchesFiniteDifferences(t *testing.T) {
	set := classSet(t, 3, 36, 3, 11)
	for name, m := range models(t) {
		b := batchOf(t, set)
		tp := tensor.NewTape()
		grad := make([]float64, b.X.Size())
		if _, err := nn.InputGrad(tp, m, nn.CrossEntropy, b, grad); err != nil {
			t.Fatal(err)
		}
		x := append([]float64(nil), b.X.Data...)
		f := func(v []float64) (float64, uint64) {
			copy(b.X.Data, v)
			tp.Rewind()
			tp.TrackKinks(true)
			l := nn.CrossEntropy.Mean(tp, m.Forward(tp, b.X, nil), b).Item()
			h, _ := tp.Kinks()
			return l, h
		}
		r, err := gradcheck.WithKinks(f, grad, x, nil)
		if err != nil {
			t.Fatal(err)
		}
		if r.MaxRel > 1e-6 {
			t.Errorf("%s: input gradient off by %.3g at %d", name, r.MaxRel, r.Worst)
		}
	}
}

// TestPerExample: the per-example norms and the clipped sum, vectorised
// (MLP) or by a batch of one (CNN), equal a loop over single examples;
// with no clipping the sum is N times the batch's mean gradient; every
// clipped gradient has norm ≤ C.
func TestPerExample(t *testing.T) {
	set := classSet(t, 9, 36, 3, 13)
	for name, m := range models(t) {
		b := batchOf(t, set)
		params := m.Params()
		// The oracle: each example alone.
		tp := tensor.NewTape()
		one, _ := nn.NewBatch(1, set.D)
		norms := make([]float64, set.N)
		grads := make([][]float64, set.N)
		for i := range set.N {
			one.Load(set, []int{i})
			tp.Rewind()
			if err := tp.Backward(nn.CrossEntropy.Mean(tp, m.Forward(tp, one.X, nil), one)); err != nil {
				t.Fatal(err)
			}
			for _, p := range params {
				grads[i] = append(grads[i], p.Grad...)
			}
			for _, g := range grads[i] {
				norms[i] += g * g
			}
			norms[i] = math.Sqrt(norms[i])
		}
		pe, err := nn.NewPerExample(m, nn.CrossEntropy, set.N)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]float64, set.N)
		sorted := append([]float64(nil), norms...)
		slices.Sort(sorted)
		C := sorted[set.N/2] // about half the examples clipped
		if err := pe.ClippedSum(b, C, got); err != nil {
			t.Fatal(err)
		}
		wantVec := name != "cnn-tanh"
		if pe.Vectorised() != wantVec {
			t.Errorf("%s: vectorised %v, want %v", name, pe.Vectorised(), wantVec)
		}
		for i := range norms {
			algotest.Near(t, fmt.Sprintf("%s ‖∇ℓ_%d‖", name, i), got[i], norms[i], 1e-12*max(1, norms[i]))
		}
		sum := make([]float64, len(grads[0]))
		clipped := 0
		for i, g := range grads {
			c := min(1, C/norms[i])
			if c < 1 {
				clipped++
			}
			n := 0.0
			for k, v := range g {
				sum[k] += c * v
				n += c * v * c * v
			}
			if math.Sqrt(n) > C*(1+1e-12) {
				t.Errorf("%s: clipped gradient %d has norm %g > C", name, i, math.Sqrt(n))
			}
		}
		if clipped == 0 || clipped == set.N {
			t.Errorf("%s: %d of %d clipped; choose C between the norms", name, clipped, set.N)
		}
		k := 0
		for _, p := range params {
			for _, g := range p.Grad {
				algotest.Near(t, fmt.Sprintf("%s clipped sum[%d]", name, k), g, sum[k], 1e-12)
				k++
			}
		}
		// No clipping: N × the mean gradient.
		if err := pe.ClippedSum(b, math.Inf(1), got); err != nil {
			t.Fatal(err)
		}
		total := make([]float64, 0, len(sum))
		for _, p := range params {
			total = append(total, p.Grad...)
		}
		tp.Rewind()
		if err := tp.Backward(nn.CrossEntropy.Mean(tp, m.Forward(tp, b.X, nil), b)); err != nil {
			t.Fatal(err)
		}
		k = 0
		for _, p := range params {
			for _, g := range p.Grad {
				algotest.Near(t, fmt.Sprintf("%s sum = N·mean [%d]", name, k), total[k], float64(set.N)*g, 1e-12)
				k++
			}
		}
	}
}

// TestTrainerSolvesXORCloud: an MLP trained by the Trainer separates four
// Gaussian clusters in the XOR pattern (training accuracy 1), and a step
// allocates nothing after the first.
func TestTrainerSolvesXORCloud(t *testing.T) {
	r := rng(21)
	const n = 200
	x := make([]float64, 2*n)
	y := make([]int, n)
	for i := range n {
		sx, sy := float64(2*(i%2)-1), float64(2*((i/2)%2)-1)
		x[2*i], x[2*i+1] = sx+0.2*r.NormFloat64(), sy+0.2*r.NormFloat64()
		if sx*sy < 0 {
			y[i] = 1
		}
	}
	set, _ := nn.NewClassSet(x, 2, y, 2)
	m := mustMLP(t, nn.MLPConfig{In: 2, Hidden: []int{8}, Out: 1, Act: nn.Tanh}, 22)
	tr, err := nn.NewTrainer(m, set, nn.TrainConfig{Batch: 16, L2: 1e-4, Opt: opt.Config{Method: opt.Adam, LR: 0.03}}, rng(23))
	if err != nil {
		t.Fatal(err)
	}
	for range 600 {
		if err := tr.Step(); err != nil {
			t.Fatal(err)
		}
	}
	if allocs := testing.AllocsPerRun(50, func() { _ = tr.Step() }); allocs != 0 {
		t.Errorf("a training step allocates %v times", allocs)
	}
	ev, err := nn.NewEvaluator(2, 64)
	if err != nil {
		t.Fatal(err)
	}
	e, err := ev.Run(m, set, nil)
	if err != nil {
		t.Fatal(err)
	}
	if e.Accuracy < 1 || e.Loss > 0.05 {
		t.Errorf("XOR cloud: accuracy %g, loss %g after %d steps (%.1f epochs)", e.Accuracy, e.Loss, tr.Steps(), tr.Epochs())
	}
	if allocs := testing.AllocsPerRun(10, func() { _, _ = ev.Run(m, set, nil) }); allocs != 0 {
		t.Errorf("an evaluation allocates %v times", allocs)
	}
}

// TestTrainerBatchesAreEpochs: within an epoch every example is drawn
// once (batches run on across epochs), and the run is a function of the
// seed.
func TestTrainerBatchesAreEpochs(t *testing.T) {
	set := classSet(t, 10, 3, 2, 31)
	for i := range set.N {
		set.X[3*i] = float64(i) // tag each example
	}
	run := func(seed uint64) []int {
		m := mustMLP(t, nn.MLPConfig{In: 3, Hidden: []int{2}, Out: 1}, 1)
		tr, err := nn.NewTrainer(m, set, nn.TrainConfig{Batch: 4, Opt: opt.Config{Method: opt.SGD, LR: 1e-9}}, rng(seed))
		if err != nil {
			t.Fatal(err)
		}
		var seen []int
		for range 5 { // 20 draws = two epochs
			if err := tr.Step(); err != nil {
				t.Fatal(err)
			}
			for r := range 4 {
				seen = append(seen, int(tr.Batch().X.Data[3*r]))
			}
		}
		return seen
	}
	a, b := run(40), run(40)
	for e := range 2 {
		count := map[int]int{}
		for _, i := range a[10*e : 10*(e+1)] {
			count[i]++
		}
		if len(count) != 10 {
			t.Errorf("epoch %d drew %v", e, a[10*e:10*(e+1)])
		}
	}
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Error("same seed, different batches")
	}
	if fmt.Sprint(a) == fmt.Sprint(run(41)) {
		t.Error("different seeds, same batches")
	}
}

func TestSplit(t *testing.T) {
	set := classSet(t, 50, 2, 3, 51)
	train, test, err := set.Split(0.7, rng(52))
	if err != nil {
		t.Fatal(err)
	}
	if train.N != 35 || test.N != 15 || train.Classes != 3 {
		t.Fatalf("split %d + %d", train.N, test.N)
	}
	seen := map[[2]float64]bool{}
	for _, s := range []*nn.Set{train, test} {
		for i := range s.N {
			k := [2]float64{s.Row(i)[0], s.Row(i)[1]}
			if seen[k] {
				t.Fatal("an example on both sides")
			}
			seen[k] = true
		}
	}
	if len(seen) != 50 {
		t.Errorf("%d distinct examples after the split", len(seen))
	}
}

func TestValidation(t *testing.T) {
	r := rng(1)
	_, err := nn.NewMLP(nn.MLPConfig{In: 2, Hidden: []int{0}, Out: 1}, r)
	algotest.WantParam(t, err, "units")
	_, err = nn.NewMLP(nn.MLPConfig{In: 2, Out: 1, Act: "swish"}, r)
	algotest.WantParam(t, err, "activation")
	_, err = nn.NewMLP(nn.MLPConfig{In: 2, Out: 1, Dropout: 1}, r)
	algotest.WantParam(t, err, "dropout")
	_, err = nn.NewCNN(nn.CNNConfig{H: 8, W: 8, Filters: []int{4}, Kernel: 4, Out: 10}, r)
	algotest.WantParam(t, err, "kernel")
	_, err = nn.NewCNN(nn.CNNConfig{H: 8, W: 8, Filters: []int{4, 4, 4, 4}, Kernel: 3, Out: 10}, r)
	algotest.WantParam(t, err, "blocks")
	_, err = nn.NewClassSet([]float64{0, 1}, 1, []int{0, 3}, 3)
	algotest.WantParam(t, err, "labels")
	set := classSet(t, 10, 2, 2, 3)
	m := mustMLP(t, nn.MLPConfig{In: 2, Out: 1}, 2)
	_, err = nn.NewTrainer(m, set, nn.TrainConfig{Batch: 11, Opt: opt.Config{LR: 0.1}}, r)
	algotest.WantParam(t, err, "batch")
	_, err = nn.NewTrainer(m, set, nn.TrainConfig{Batch: 5, L2: -1, Opt: opt.Config{LR: 0.1}}, r)
	algotest.WantParam(t, err, "l2")
	_, err = nn.NewTrainer(mustMLP(t, nn.MLPConfig{In: 3, Out: 1}, 2), set, nn.TrainConfig{Batch: 5, Opt: opt.Config{LR: 0.1}}, r)
	algotest.WantParam(t, err, "features")
	_, _, err = set.Split(1, r)
	algotest.WantParam(t, err, "train_frac")
}

// TestCNNShapes: the blocks halve the image (LeNet's pattern) and the
// FLOP count follows the layer sizes.
func TestCNNShapes(t *testing.T) {
	c, err := nn.NewCNN(nn.CNNConfig{H: 16, W: 16, Filters: []int{8, 16}, Kernel: 3, Hidden: 32, Out: 10}, rng(1))
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(c.Sizes()); got != "[[8 8 8] [16 4 4]]" {
		t.Errorf("sizes %s", got)
	}
	want := 8*16*16*(2*9+2) + 16*8*8*(2*8*9+2) + (2*256*32 + 2*32) + (2*32*10 + 2*10)
	algotest.Near(t, "FLOPs", c.FLOPs(), float64(want), 0)
	if in, out := c.Shape(); in != 256 || out != 10 {
		t.Errorf("shape %d→%d", in, out)
	}
	if n := nn.CountParams(c); n != 8*9+8+16*8*9+16+256*32+32+32*10+10 {
		t.Errorf("%d parameters", n)
	}
}

// TestCNNFeatureMaps: each block's maps are σ(conv) before its pooling,
// [N, F, H, W] at that block's input size; the first block's equal the
// "same" convolution of the image written out by hand (bias, k×k sum,
// ReLU), for every filter and pixel.
func TestCNNFeatureMaps(t *testing.T) {
	c, err := nn.NewCNN(nn.CNNConfig{H: 8, W: 8, Filters: []int{3, 5}, Kernel: 3, Out: 10, Act: nn.ReLU}, rng(3))
	if err != nil {
		t.Fatal(err)
	}
	r := rng(4)
	x := make([]float64, 2*64)
	for i := range x {
		x[i] = r.Float64()
	}
	b, err := nn.NewBatch(2, 64)
	if err != nil {
		t.Fatal(err)
	}
	b.LoadRows(x, nil)
	tp := tensor.NewForwardTape()
	c.Forward(tp, b.X, nil)
	for i, want := range [][]int{{2, 3, 8, 8}, {2, 5, 4, 4}} {
		if got := c.FeatureMaps(i).Shape(); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("block %d: maps %v, want %v", i, got, want)
		}
	}
	m, K, B := c.FeatureMaps(0).Data, c.Convs[0].W.Data, c.Convs[0].B.Data
	for n := range 2 {
		for f := range 3 {
			for i := range 8 {
				for j := range 8 {
					z := B[f]
					for u := range 3 {
						for v := range 3 {
							if p, q := i+u-1, j+v-1; p >= 0 && p < 8 && q >= 0 && q < 8 {
								z += K[f*9+u*3+v] * x[n*64+p*8+q]
							}
						}
					}
					algotest.Near(t, fmt.Sprintf("map %d,%d,%d,%d", n, f, i, j), m[((n*3+f)*8+i)*8+j], math.Max(z, 0), 1e-14)
				}
			}
		}
	}
}

// TestFeatures: the playground's feature columns.
func TestFeatures(t *testing.T) {
	f := nn.FeatX | nn.FeatY2 | nn.FeatXY | nn.FeatSin
	if f.Dim() != 5 || f.String() != "x, y², xy, sin x, sin y" {
		t.Fatalf("%d columns: %s", f.Dim(), f)
	}
	got := f.Apply([]float64{2, 3})
	want := []float64{2, 9, 6, math.Sin(2), math.Sin(3)}
	for i := range want {
		algotest.Near(t, fmt.Sprintf("feature %d", i), got[i], want[i], 0)
	}
}

// TestStepsAllocateNothing: after its first step, a training step of
// every model (the CNN's reshapes included) allocates nothing.
func TestStepsAllocateNothing(t *testing.T) {
	set := classSet(t, 40, 36, 3, 61)
	for name, m := range models(t) {
		tr, err := nn.NewTrainer(m, set, nn.TrainConfig{Batch: 8, L1: 1e-4, L2: 1e-4, Opt: opt.Config{LR: 0.01}}, rng(62))
		if err != nil {
			t.Fatal(err)
		}
		if err := tr.Step(); err != nil {
			t.Fatal(err)
		}
		if allocs := testing.AllocsPerRun(20, func() { _ = tr.Step() }); allocs != 0 {
			t.Errorf("%s: a step allocates %v times", name, allocs)
		}
	}
}

// TestDropoutMaskMean: inverted dropout keeps the expectation (seed 001
// [A16]): over N independent masks of one input the mean of mask⊙h/q − h
// (q = 1 − p; h varies by example after the first layer, whose dropout
// feeds the second) is within 4 standard errors √(p/q · mean h²)/√N of 0,
// about a fraction q of the units survive, and without a random source
// (evaluation) nothing is dropped.
func TestDropoutMaskMean(t *testing.T) {
	const p, N = 0.4, 4000
	m := mustMLP(t, nn.MLPConfig{In: 3, Hidden: []int{6, 5}, Out: 1, Act: nn.Tanh, Dropout: p}, 1)
	row := []float64{0.3, -1.2, 0.8}
	x := make([]float64, 0, 3*N)
	for range N {
		x = append(x, row...)
	}
	in := input(t, x, 3)
	tp := tensor.NewTape()
	m.Forward(tp, in, rng(2))
	kept, units := 0, 0
	for k, w := range []int{6, 5} {
		act, _ := m.Hidden(k)
		d := m.Dropped(k)
		for j := range w {
			diff, h2 := 0.0, 0.0
			for i := range N {
				h, v := act.Data[i*w+j], d.Data[i*w+j]
				diff += v - h
				h2 += h * h
				if v != 0 {
					kept++
				}
				units++
			}
			se := math.Sqrt(p/(1-p)*h2/N) / math.Sqrt(N)
			if math.Abs(diff/N) > 4*se+1e-15 {
				t.Errorf("layer %d unit %d: mean of mask⊙h/q − h = %g (se %g)", k, j, diff/N, se)
			}
		}
	}
	q := float64(kept) / float64(units)
	if se := math.Sqrt(p * (1 - p) / float64(units)); math.Abs(q-(1-p)) > 4*se {
		t.Errorf("kept %g of the units, want %g", q, 1-p)
	}
	tp.Rewind()
	m.Forward(tp, in, nil)
	for k := range 2 {
		if act, _ := m.Hidden(k); m.Dropped(k) != act {
			t.Errorf("evaluation dropped units of layer %d", k)
		}
	}
}

// TestInterpolant: the constructive ReLU network of Theorem 9.4 ([A17])
// passes through f at the knots, its sup error on [a, b] stays under the
// interpolation bound h² max|f″|/8, and doubling the width divides the
// error by about 4 (O(1/k²)) once the knots resolve f (k ≥ 16).
func TestInterpolant(t *testing.T) {
	f := func(x float64) float64 { return math.Sin(3 * x) } // max|f″| = 9
	const a, b = -1.0, 1.0
	sup := func(m *nn.MLP) float64 {
		const n = 2001
		x := make([]float64, n)
		for i := range x {
			x[i] = a + (b-a)*float64(i)/(n-1)
		}
		tp := tensor.NewTape()
		out := m.Forward(tp, input(t, x, 1), nil)
		worst := 0.0
		for i, v := range out.Data {
			worst = math.Max(worst, math.Abs(v-f(x[i])))
		}
		return worst
	}
	prev := 0.0
	for _, k := range []int{4, 8, 16, 32, 64} {
		m, err := nn.Interpolant(f, a, b, k)
		if err != nil {
			t.Fatal(err)
		}
		h := (b - a) / float64(k)
		knots := make([]float64, k+1)
		for j := range knots {
			knots[j] = a + float64(j)*h
		}
		out := m.Forward(tensor.NewTape(), input(t, knots, 1), nil)
		for j, v := range out.Data {
			algotest.Near(t, fmt.Sprintf("k=%d g(t_%d)", k, j), v, f(knots[j]), 1e-12)
		}
		e := sup(m)
		if bound := h * h * 9 / 8; e > bound {
			t.Errorf("k = %d: sup error %g over the bound %g", k, e, bound)
		}
		if k >= 16 && (prev/e < 3.5 || prev/e > 4.5) {
			t.Errorf("k = %d: error ratio %g, want ≈ 4", k, prev/e)
		}
		prev = e
	}
	if _, err := nn.Interpolant(f, 1, 1, 4); err == nil {
		t.Error("an empty interval was accepted")
	}
}
