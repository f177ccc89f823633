package optim

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/algotest"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// lsq is f(θ) = (1/n) Σ (x_iᵀθ − y_i)² in 2-D, written here so that the
// SGD tests do not depend on algo/linear: x_i ~ N(0, diag(½, κ/2)) so that
// ∇²f ≈ diag(1, κ), y_i = x_iᵀθ† + σ ε_i.
type lsq struct {
	x [][2]float64
	y []float64
}

func newLSQ(seed uint64, n int, kappa, sigma float64) *lsq {
	rng := rand.New(rand.NewPCG(seed, 77))
	q := &lsq{}
	for i := 0; i < n; i++ {
		a := rng.NormFloat64() * math.Sqrt(0.5)
		b := rng.NormFloat64() * math.Sqrt(kappa/2)
		q.x = append(q.x, [2]float64{a, b})
		q.y = append(q.y, 0.5*a-0.3*b+sigma*rng.NormFloat64())
	}
	return q
}

func (q *lsq) Len() int { return len(q.y) }

func (q *lsq) Func(th []float64) float64 {
	s := 0.0
	for i, x := range q.x {
		r := x[0]*th[0] + x[1]*th[1] - q.y[i]
		s += r * r
	}
	return s / float64(len(q.y))
}

func (q *lsq) Grad(g, th []float64) {
	all := make([]int, len(q.y))
	for i := range all {
		all[i] = i
	}
	q.GradBatch(g, th, all)
}

func (q *lsq) GradBatch(g, th []float64, batch []int) {
	g[0], g[1] = 0, 0
	for _, i := range batch {
		x := q.x[i]
		r := x[0]*th[0] + x[1]*th[1] - q.y[i]
		g[0] += 2 * r * x[0]
		g[1] += 2 * r * x[1]
	}
	g[0] /= float64(len(batch))
	g[1] /= float64(len(batch))
}

// TermHess is ∇²f_i = 2 x_i x_iᵀ.
func (q *lsq) TermHess(h *mat.SymDense, _ []float64, i int) {
	x := q.x[i]
	h.SetSym(0, 0, 2*x[0]*x[0])
	h.SetSym(0, 1, 2*x[0]*x[1])
	h.SetSym(1, 1, 2*x[1]*x[1])
}

// hess is the constant Hessian (2/n) Σ x xᵀ; solve the minimiser.
func (q *lsq) hess() *mat.SymDense {
	h := mat.NewSymDense(2, nil)
	for _, x := range q.x {
		h.SymRankOne(h, 2/float64(len(q.y)), mat.NewVecDense(2, []float64{x[0], x[1]}))
	}
	return h
}

func (q *lsq) solve() ([]float64, float64) {
	h := q.hess()
	g := make([]float64, 2)
	q.Grad(g, []float64{0, 0}) // ∇f(0) = −(2/n) Xᵀy
	var chol mat.Cholesky
	chol.Factorize(h)
	var x mat.VecDense
	chol.SolveVecTo(&x, mat.NewVecDense(2, g))
	th := []float64{-x.AtVec(0), -x.AtVec(1)}
	return th, q.Func(th)
}

func TestSchedules(t *testing.T) {
	for _, tt := range []struct {
		s    Schedule
		k    int
		want float64
	}{
		{Constant, 99, 0.2}, {InvK, 0, 0.2}, {InvK, 9, 0.2 / (1 + 0.5*9)},
		{InvSqrtK, 9, 0.2 / math.Sqrt(1+0.5*9)}, {InvSqrtK, 0, 0.2},
	} {
		if got := tt.s.StepSize(0.2, 0.5, tt.k); math.Abs(got-tt.want) > 1e-15 {
			t.Errorf("%s at k=%d: %v, want %v", tt.s, tt.k, got, tt.want)
		}
	}
}

// TestScheduleFormula: the text of each schedule is its t_k.
func TestScheduleFormula(t *testing.T) {
	for s, want := range map[Schedule]string{Constant: "t₀", InvK: "t₀/(1+ck)", InvSqrtK: "t₀/√(1+ck)"} {
		if got := s.Formula(); got != want {
			t.Errorf("%s: %q, want %q", s, got, want)
		}
	}
}

// TestSGDFullBatchIsGD: with B = n and a constant step, SGD takes the same
// steps as Descent's gd.
func TestSGDFullBatchIsGD(t *testing.T) {
	q := newLSQ(1, 50, 5, 1)
	x0 := []float64{2, -1}
	s, err := NewSGD(q, x0, SGDConfig{LR: 0.05, Batch: 50}, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	d, _ := NewDescent(q, x0, DescentConfig{Method: GD, LR: 0.05})
	for k := 0; k < 100; k++ {
		s.Step()
		d.Step()
		if !floats.EqualApprox(s.X(), d.X(), 1e-12) {
			t.Fatalf("k=%d: SGD %v, GD %v", k, s.X(), d.X())
		}
	}
	if s.Epoch() != 100 || s.Iter() != 100 {
		t.Errorf("epochs %d, iterations %d", s.Epoch(), s.Iter())
	}
}

// TestSGDEpochIsAPermutation: within an epoch every index is used once
// (sampling without replacement).
func TestSGDEpochIsAPermutation(t *testing.T) {
	q := newLSQ(2, 30, 2, 1)
	s, _ := NewSGD(q, []float64{0, 0}, SGDConfig{LR: 0.01, Batch: 7, Sampling: Epoch}, rand.New(rand.NewPCG(3, 3)))
	for e := 0; e < 5; e++ {
		var seen []int
		for k := 0; k < 4; k++ { // ⌊30/7⌋ batches per epoch
			s.Step()
			seen = append(seen, s.perm[s.pos-7:s.pos]...)
		}
		slices.Sort(seen)
		if len(slices.Compact(seen)) != 28 {
			t.Fatalf("epoch %d repeats an index", e)
		}
	}
}

// TestNoiseFloor: constant-step SGD with IID batches on noisy least
// squares settles where SGDNoiseFloor predicts (exact for this quadratic
// finite sum): the time-average of f − f* after burn-in lies within 4
// batch-means standard errors of the prediction. A batch of 8 lowers the
// floor about eightfold.
// Epoch sampling (random reshuffling) settles lower than predicted: the
// batch noises of an epoch cancel.
//
// The gap is read as ½ eᵀHe, e = x − x*, which for this quadratic is
// f − f* exactly (checked against s.F() − f* at the end of each run):
// an O(1) read instead of s.F()'s pass over the 200 points at every one
// of the 808000 steps, which was nine tenths of the test's time. The runs
// keep their length: at B = 1 the standard error is about 1% of the
// gap, and reshuffling's gap is 12% below iid's, some nine standard
// errors apart, a margin that shorter runs would spend.
func TestNoiseFloor(t *testing.T) {
	q := newLSQ(4, 200, 10, 1)
	xstar, fstar := q.solve()
	h := q.hess()
	h00, h01, h11 := h.At(0, 0), h.At(0, 1), h.At(1, 1)
	gap := func(x []float64) float64 {
		e0, e1 := x[0]-xstar[0], x[1]-xstar[1]
		return 0.5 * (h00*e0*e0 + 2*h01*e0*e1 + h11*e1*e1)
	}
	run := func(batch int, sampling Sampling) (mean, se float64) {
		s, _ := NewSGD(q, xstar, SGDConfig{LR: 0.01, Batch: batch, Sampling: sampling}, rand.New(rand.NewPCG(5, uint64(batch))))
		const burn, steps, blocks = 2000, 200000, 50
		sums := make([]float64, blocks)
		for k := 0; k < burn+steps; k++ {
			s.Step()
			if k >= burn {
				sums[(k-burn)*blocks/steps] += gap(s.X())
			}
		}
		algotest.Near(t, "½eᵀHe", gap(s.X()), s.F()-fstar, 1e-9*(s.F()-fstar)+1e-12)
		for i := range sums {
			sums[i] /= steps / blocks
		}
		mean = floats.Sum(sums) / blocks
		sd := 0.0
		for _, v := range sums {
			sd += (v - mean) * (v - mean)
		}
		return mean, math.Sqrt(sd/(blocks-1)) / math.Sqrt(blocks)
	}
	for _, batch := range []int{1, 8} {
		pred, err := SGDNoiseFloor(q, h, xstar, 0.01, batch)
		if err != nil {
			t.Fatal(err)
		}
		mean, se := run(batch, IID)
		if math.Abs(mean-pred) > 4*se {
			t.Errorf("B=%d: mean gap %v ± %v, predicted %v", batch, mean, se, pred)
		}
		t.Logf("B=%d iid: mean gap %.5g ± %.2g, predicted %.5g", batch, mean, se, pred)
		em, ese := run(batch, Epoch)
		if em > mean {
			t.Errorf("B=%d: reshuffling %v above iid %v", batch, em, mean)
		}
		t.Logf("B=%d epoch: mean gap %.5g ± %.2g", batch, em, ese)
	}
	if f, _ := SGDNoiseFloor(q, h, xstar, 0.01, 200); f != 0 {
		t.Errorf("full batch floor %v, want 0", f)
	}
	if _, err := SGDNoiseFloor(q, h, xstar, 0.3, 1); err == nil {
		t.Error("t ≥ 2/L accepted")
	}
}

// TestDecayingScheduleBeatsTheFloor: with t_k = t₀/(1 + ck) on the strongly
// convex problem the mean squared distance to x* (over 40 seeds) keeps
// falling, and ends below the constant-step run's floor (catalogue [A14]).
// 10 000 steps show it: the constant step is at its floor by then
// (0.020 ± 0.003 over the seeds; 0.023 ± 0.005 at 40 000) while 1/k is at
// 0.0005 (1.78, 0.0097 at 100 and 1000 steps), twenty times below half the
// floor; a schedule that does not decay fails both checks (its distance
// rises from 1000 to 10 000 steps). Running on to 40 000 quadrupled the
// cost for a margin already six standard errors wide.
func TestDecayingScheduleBeatsTheFloor(t *testing.T) {
	q := newLSQ(6, 200, 10, 1)
	xstar, _ := q.solve()
	h := q.hess()
	var eig mat.EigenSym
	eig.Factorize(h, false)
	m := eig.Values(nil)[0]
	t0 := 0.01
	checkpoints := []int{100, 1000, 10000}
	msd := map[Schedule][]float64{}
	for _, sched := range []Schedule{Constant, InvK} {
		msd[sched] = make([]float64, len(checkpoints))
		for seed := uint64(0); seed < 40; seed++ {
			s, _ := NewSGD(q, []float64{-2.5, 1.5}, SGDConfig{LR: t0, Schedule: sched, Decay: m * t0 / 2, Batch: 1},
				rand.New(rand.NewPCG(seed, 8)))
			c := 0
			for k := 1; k <= checkpoints[len(checkpoints)-1]; k++ {
				s.Step()
				if k == checkpoints[c] {
					d := floats.Distance(s.X(), xstar, 2)
					msd[sched][c] += d * d / 40
					c++
				}
			}
		}
	}
	for c := 1; c < len(checkpoints); c++ {
		if msd[InvK][c] >= msd[InvK][c-1] {
			t.Errorf("1/k: E‖x − x*‖² rose from %v to %v", msd[InvK][c-1], msd[InvK][c])
		}
	}
	last := len(checkpoints) - 1
	if msd[InvK][last] >= msd[Constant][last]/2 {
		t.Errorf("after %d steps: 1/k %v, constant %v", checkpoints[last], msd[InvK][last], msd[Constant][last])
	}
}

func TestSGDValidation(t *testing.T) {
	q := newLSQ(1, 10, 2, 1)
	rng := rand.New(rand.NewPCG(1, 1))
	for _, tt := range []struct {
		cfg  SGDConfig
		name string
	}{
		{SGDConfig{LR: 0, Batch: 1}, "lr"},
		{SGDConfig{LR: 0.1, Batch: 0}, "batch"},
		{SGDConfig{LR: 0.1, Batch: 11}, "batch"},
		{SGDConfig{LR: 0.1, Batch: 1, Schedule: "cosine"}, "schedule"},
		{SGDConfig{LR: 0.1, Batch: 1, Decay: -1}, "decay"},
		{SGDConfig{LR: 0.1, Batch: 1, Sampling: "stratified"}, "sampling"},
	} {
		if _, err := NewSGD(q, []float64{0, 0}, tt.cfg, rng); !algo.IsParamError(err, tt.name) {
			t.Errorf("%+v: %v, want a ParamError naming %s", tt.cfg, err, tt.name)
		}
	}
	if _, err := NewSGD(q, []float64{0, 0}, SGDConfig{LR: 0.1, Batch: 1}, nil); !algo.IsParamError(err, "rng") {
		t.Errorf("nil rng: %v", err)
	}
}

func BenchmarkSGDStep(b *testing.B) {
	q := newLSQ(1, 1000, 10, 1)
	s, _ := NewSGD(q, []float64{0, 0}, SGDConfig{LR: 0.001, Batch: 8}, rand.New(rand.NewPCG(1, 1)))
	b.ReportAllocs()
	for b.Loop() {
		_ = s.Step()
	}
}
