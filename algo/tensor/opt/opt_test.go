package opt_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/algo/tensor"
	"github.com/thelab/lab/algo/tensor/opt"
)

// quadStep sets the gradient of f(θ) = ½ Σ a_j θ_j² and returns it.
func quadGrad(p *tensor.Tensor, a []float64) {
	for j, th := range p.Data {
		p.Grad[j] = a[j] * th
	}
}

// TestUpdateRules runs each rule on f(θ) = ½ Σ a_j θ_j² for 20 steps next
// to its recursion written out by hand (seed 002 Remark 6.3 and the papers
// cited in opt.Method), to 1e-15.
func TestUpdateRules(t *testing.T) {
	a := []float64{1, 10, 0.1}
	const eta, mu, b1, b2, eps, lam = 0.05, 0.8, 0.9, 0.99, 1e-8, 0.1
	for _, method := range []opt.Method{opt.SGD, opt.Momentum, opt.Nesterov, opt.RMSProp, opt.Adam, opt.AdamW} {
		p, _ := tensor.New(3)
		copy(p.Data, []float64{1, -2, 3})
		o, err := opt.New([]*tensor.Tensor{p}, opt.Config{Method: method, LR: eta, Momentum: mu, Beta1: b1, Beta2: b2, WeightDecay: lam})
		if err != nil {
			t.Fatal(err)
		}
		th := []float64{1, -2, 3}
		m, s := make([]float64, 3), make([]float64, 3)
		for k := 1; k <= 20; k++ {
			quadGrad(p, a)
			if err := o.Step(); err != nil {
				t.Fatal(err)
			}
			for j := range th {
				g := a[j] * th[j]
				th[j] *= 1 - eta*lam
				switch method {
				case opt.SGD:
					th[j] -= eta * g
				case opt.Momentum:
					m[j] = mu*m[j] - eta*g
					th[j] += m[j]
				case opt.Nesterov:
					m[j] = mu*m[j] - eta*g
					th[j] += mu*m[j] - eta*g
				case opt.RMSProp:
					s[j] = b2*s[j] + (1-b2)*g*g
					th[j] -= eta * g / (math.Sqrt(s[j]) + eps)
				case opt.Adam, opt.AdamW:
					m[j] = b1*m[j] + (1-b1)*g
					s[j] = b2*s[j] + (1-b2)*g*g
					mh, sh := m[j]/(1-math.Pow(b1, float64(k))), s[j]/(1-math.Pow(b2, float64(k)))
					th[j] -= eta * mh / (math.Sqrt(sh) + eps)
				}
			}
		}
		for j := range th {
			algotest.Near(t, fmt.Sprintf("%s θ_%d", method, j), p.Data[j], th[j], 1e-15)
		}
		if o.Steps() != 20 {
			t.Errorf("%s: %d steps", method, o.Steps())
		}
	}
}

// TestAdamFirstStep: Adam's bias correction makes the first step
// η·g/(|g| + ε) ≈ η·sign(g) whatever the gradient's scale; AdamW with a
// zero gradient shrinks θ by exactly (1 − ηλ).
func TestAdamFirstStep(t *testing.T) {
	p, _ := tensor.New(3)
	copy(p.Data, []float64{1, 1, 1})
	copy(p.Grad, []float64{1e-3, -50, 7})
	o, _ := opt.New([]*tensor.Tensor{p}, opt.Config{Method: opt.Adam, LR: 0.1})
	if err := o.Step(); err != nil {
		t.Fatal(err)
	}
	for j, want := range []float64{0.9, 1.1, 0.9} {
		algotest.Near(t, fmt.Sprintf("θ_%d", j), p.Data[j], want, 1e-6)
	}
	w, _ := tensor.New(2)
	copy(w.Data, []float64{2, -4})
	o, _ = opt.New([]*tensor.Tensor{w}, opt.Config{Method: opt.AdamW, LR: 0.1})
	if err := o.Step(); err != nil {
		t.Fatal(err)
	}
	algotest.Near(t, "decayed θ", w.Data[0], 2*(1-0.1*0.01), 1e-15)
	algotest.Near(t, "decayed θ", w.Data[1], -4*(1-0.1*0.01), 1e-15)
}

// TestSchedules: the closed forms at chosen t.
func TestSchedules(t *testing.T) {
	for _, c := range []struct {
		s    opt.Schedule
		t    int
		want float64
	}{
		{opt.Schedule{}, 1000, 1},
		{opt.Schedule{Kind: opt.StepDecay, Every: 10, Gamma: 0.5}, 9, 1},
		{opt.Schedule{Kind: opt.StepDecay, Every: 10, Gamma: 0.5}, 25, 0.25},
		{opt.Schedule{Kind: opt.Cosine, Total: 100, MinFrac: 0.1}, 0, 1},
		{opt.Schedule{Kind: opt.Cosine, Total: 100, MinFrac: 0.1}, 50, 0.55},
		{opt.Schedule{Kind: opt.Cosine, Total: 100, MinFrac: 0.1}, 100, 0.1},
		{opt.Schedule{Kind: opt.Cosine, Total: 100, MinFrac: 0.1}, 500, 0.1},
		{opt.Schedule{Kind: opt.Cosine, Total: 110, Warmup: 10}, 0, 0.1},
		{opt.Schedule{Kind: opt.Cosine, Total: 110, Warmup: 10}, 9, 1},
		{opt.Schedule{Kind: opt.Cosine, Total: 110, Warmup: 10}, 60, 0.5},
		{opt.Schedule{Warmup: 4}, 1, 0.5},
	} {
		algotest.Near(t, fmt.Sprintf("%+v at %d", c.s, c.t), c.s.Rate(1, c.t), c.want, 1e-15)
	}
}

// TestClipping: with ClipNorm the SGD step has norm η·ClipNorm; GradNorm
// reports the norm before clipping.
func TestClipping(t *testing.T) {
	p, _ := tensor.New(2)
	copy(p.Grad, []float64{30, 40})
	o, _ := opt.New([]*tensor.Tensor{p}, opt.Config{Method: opt.SGD, LR: 0.1, ClipNorm: 5})
	if err := o.Step(); err != nil {
		t.Fatal(err)
	}
	algotest.Near(t, "GradNorm", o.GradNorm(), 50, 1e-12)
	algotest.Near(t, "θ_0", p.Data[0], -0.3, 1e-15)
	algotest.Near(t, "θ_1", p.Data[1], -0.4, 1e-15)
}

// TestBadConfig: every refused value names its parameter; a non-finite
// gradient ends with ErrDiverged.
func TestBadConfig(t *testing.T) {
	p, _ := tensor.New(2)
	in, _ := tensor.FromData([]float64{1, 2}, 2)
	for _, c := range []struct {
		cfg    opt.Config
		params []*tensor.Tensor
		name   string
	}{
		{opt.Config{LR: 0}, []*tensor.Tensor{p}, "lr"},
		{opt.Config{LR: 1, Method: "lbfgs"}, []*tensor.Tensor{p}, "optimizer"},
		{opt.Config{LR: 1, Momentum: 1}, []*tensor.Tensor{p}, "momentum"},
		{opt.Config{LR: 1, Beta2: -0.1}, []*tensor.Tensor{p}, "beta2"},
		{opt.Config{LR: 1, WeightDecay: -1}, []*tensor.Tensor{p}, "weight_decay"},
		{opt.Config{LR: 1, Schedule: opt.Schedule{Kind: opt.Cosine, Total: 5, Warmup: 5}}, []*tensor.Tensor{p}, "total"},
		{opt.Config{LR: 1, Schedule: opt.Schedule{Kind: opt.StepDecay, Every: 3, Gamma: 2}}, []*tensor.Tensor{p}, "gamma"},
		{opt.Config{LR: 1, Schedule: opt.Schedule{Kind: "linear"}}, []*tensor.Tensor{p}, "schedule"},
		{opt.Config{LR: 1}, []*tensor.Tensor{in}, "params"},
		{opt.Config{LR: 1}, nil, "params"},
	} {
		_, err := opt.New(c.params, c.cfg)
		algotest.WantParam(t, err, c.name)
	}
	o, _ := opt.New([]*tensor.Tensor{p}, opt.Config{LR: 1})
	p.Grad[0] = math.NaN()
	if err := o.Step(); !errors.Is(err, algo.ErrDiverged) {
		t.Errorf("NaN gradient: %v", err)
	}
}

// net is the benchmark's 2→16→16→2 ReLU MLP with He initialisation.
type net struct{ params []*tensor.Tensor }

func newNet(tb testing.TB, rng *rand.Rand, sizes ...int) *net {
	n := &net{}
	for i := 0; i+1 < len(sizes); i++ {
		w, _ := tensor.New(sizes[i], sizes[i+1])
		if err := w.Fill(tensor.He, rng); err != nil {
			tb.Fatal(err)
		}
		b, _ := tensor.New(sizes[i+1])
		n.params = append(n.params, w, b)
	}
	return n
}

func (n *net) logits(tp *tensor.Tape, x *tensor.Tensor) *tensor.Tensor {
	h := x
	for i := 0; i < len(n.params); i += 2 {
		h = tp.Linear(h, n.params[i], n.params[i+1])
		if i+2 < len(n.params) {
			h = tp.Relu(h)
		}
	}
	return h
}

// xor is 256 points of the XOR problem: class (x > 0) ≠ (y > 0).
func xor(rng *rand.Rand) (*tensor.Tensor, []int) {
	data := make([]float64, 512)
	labels := make([]int, 256)
	for i := range labels {
		x, y := 2*rng.Float64()-1, 2*rng.Float64()-1
		data[2*i], data[2*i+1] = x, y
		if (x > 0) != (y > 0) {
			labels[i] = 1
		}
	}
	t, _ := tensor.FromData(data, 256, 2)
	return t, labels
}

// trainer is one full training step: rewind, forward, backward, update.
type trainer struct {
	tp  *tensor.Tape
	n   *net
	o   *opt.Optimizer
	x   *tensor.Tensor
	y   []int
	err error
}

func (tr *trainer) step() float64 {
	tr.tp.Rewind()
	loss := tr.tp.CrossEntropy(tr.n.logits(tr.tp, tr.x), tr.y)
	if err := tr.tp.Backward(loss); err != nil {
		tr.err = err
	}
	if err := tr.o.Step(); err != nil {
		tr.err = err
	}
	return loss.Item()
}

func newTrainer(tb testing.TB, method opt.Method) *trainer {
	rng := rand.New(rand.NewPCG(1, 2))
	n := newNet(tb, rng, 2, 16, 16, 2)
	o, err := opt.New(n.params, opt.Config{Method: method, LR: 0.02, Schedule: opt.Schedule{Kind: opt.Cosine, Total: 2000, MinFrac: 0.1, Warmup: 20}})
	if err != nil {
		tb.Fatal(err)
	}
	x, y := xor(rng)
	return &trainer{tp: tensor.NewTape(), n: n, o: o, x: x, y: y}
}

// TestTrainsXOR: Adam on the 2→16→16→2 network learns XOR (training
// accuracy ≥ 97% within 600 steps on this seed), and after the first step
// a whole training step allocates nothing.
func TestTrainsXOR(t *testing.T) {
	tr := newTrainer(t, opt.Adam)
	for range 600 {
		tr.step()
	}
	if tr.err != nil {
		t.Fatal(tr.err)
	}
	tr.tp.Rewind()
	z := tr.n.logits(tr.tp, tr.x)
	right := 0
	for i, y := range tr.y {
		if (z.Data[2*i+1] > z.Data[2*i]) == (y == 1) {
			right++
		}
	}
	if acc := float64(right) / 256; acc < 0.97 {
		t.Errorf("XOR accuracy %.3f after 600 steps", acc)
	}
	if a := testing.AllocsPerRun(20, func() { tr.step() }); a != 0 {
		t.Errorf("%v allocations per training step", a)
	}
}

// BenchmarkTrainingStep is one step of the 2→16→16→2 ReLU MLP on 256
// points — rewind, forward, softmax cross-entropy, backward, update —
// with SGD and with Adam (README: under 100 µs, 0 allocations).
func BenchmarkTrainingStep(b *testing.B) {
	for _, m := range []opt.Method{opt.SGD, opt.Adam} {
		b.Run(string(m), func(b *testing.B) {
			tr := newTrainer(b, m)
			tr.step()
			b.ReportAllocs()
			for b.Loop() {
				tr.step()
			}
			if tr.err != nil {
				b.Fatal(tr.err)
			}
		})
	}
}
