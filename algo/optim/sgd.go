package optim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/thelab/lab/algo"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// FiniteSum is an objective f(x) = (1/n) Σ_i f_i(x) whose terms can be
// summed over a subset: the "decomposable optimization" of seed 001 §8
// (L891–L901).
type FiniteSum interface {
	Objective
	// Len is the number n of terms.
	Len() int
	// GradBatch writes (1/|B|) Σ_{i∈B} ∇f_i(x) into grad. With B = {0..n−1}
	// it is ∇f(x). It must not allocate.
	GradBatch(grad, x []float64, batch []int)
}

// TermHessians is a FiniteSum whose terms have Hessians. SGDNoiseFloor
// uses them, when present, to account for the fluctuation of the batch
// Hessian.
type TermHessians interface {
	FiniteSum
	// TermHess writes ∇²f_i(x) into h.
	TermHess(h *mat.SymDense, x []float64, i int)
}

// Schedule names a step-size schedule t_k, k = 0, 1, 2, ... the index of
// the update (seed 001 §9, L978–L982, "sublinear" decay; §8's table, L911,
// asks for t = 1/k for stochastic convex problems).
type Schedule string

// The schedules, with t₀ the initial step and c > 0 the decay rate:
//
//	constant    t_k = t₀
//	1/k         t_k = t₀ / (1 + c k)
//	1/sqrt(k)   t_k = t₀ / √(1 + c k)
const (
	Constant Schedule = "constant"
	InvK     Schedule = "1/k"
	InvSqrtK Schedule = "1/sqrt(k)"
)

// String is the schedule's name.
func (s Schedule) String() string { return string(s) }

// schedules are the schedules an SGD knows.
var schedules = []Schedule{Constant, InvK, InvSqrtK}

// StepSize returns t_k for the schedule.
func (s Schedule) StepSize(t0, c float64, k int) float64 {
	switch s {
	case InvK:
		return t0 / (1 + c*float64(k))
	case InvSqrtK:
		return t0 / math.Sqrt(1+c*float64(k))
	}
	return t0
}

// Formula is t_k as a formula: t₀, t₀/(1+ck) or t₀/√(1+ck).
func (s Schedule) Formula() string {
	switch s {
	case InvK:
		return "t₀/(1+ck)"
	case InvSqrtK:
		return "t₀/√(1+ck)"
	}
	return "t₀"
}

// Sampling says how SGD draws its mini-batches.
type Sampling string

// The samplings: IID draws every batch afresh, B distinct indices uniformly
// at random (the notes' "I is a uniformly random index", L897, for B = 1);
// Epoch cuts a fresh random permutation of 0..n−1 into ⌊n/B⌋ batches per
// epoch ("random reshuffling"), so that every term is used once per epoch,
// the last n mod B indices of each permutation being left out (catalogue
// [A14]: "sample without replacement within an epoch ... document it").
const (
	IID   Sampling = "iid"
	Epoch Sampling = "epoch"
)

// String is the sampling's name.
func (s Sampling) String() string { return string(s) }

// samplings are the samplings an SGD knows.
var samplings = []Sampling{IID, Epoch}

// SGDConfig configures an SGD run.
type SGDConfig struct {
	LR       float64  // initial step t₀ > 0
	Schedule Schedule // "" means Constant
	Decay    float64  // c ≥ 0 of the decaying schedules
	Batch    int      // mini-batch size 1..n
	Sampling Sampling // "" means IID
	// Blowup ends the run (ErrDiverged) when ‖x‖ exceeds it; default 1e8.
	Blowup float64
}

// SGD is mini-batch stochastic gradient descent on a FiniteSum (seed 001
// §8, L897–L901; §9, L974):
//
//	x ← x − t_k (1/|B|) Σ_{i∈B} ∇f_i(x)
//
// with the batches B of the configured Sampling. With |B| = n every step is
// a full gradient step, the same as Descent's gd. Each batch gradient is an
// unbiased estimate of ∇f (L901). One Step is one update; an epoch is ⌊n/B⌋
// updates.
type SGD struct {
	f    FiniteSum
	cfg  SGDConfig
	rng  *rand.Rand
	perm []int
	pos  int
	k    int
	x, g []float64
	t    float64 // the step size of the last update
	fx   float64 // f(x), valid when fk == k
	fk   int
}

// SGDBytes is what NewSGD allocates for n terms in dimension d: the
// order of the terms and the iterate and gradient.
func SGDBytes(n, d int) int64 { return algo.HeapBytes(8*int64(n)) + 16*int64(d) + 256 }

// NewSGD validates cfg and starts at x0 (which is copied). Randomness comes
// only from rng.
func NewSGD(f FiniteSum, x0 []float64, cfg SGDConfig, rng *rand.Rand) (*SGD, error) {
	n := f.Len()
	if n < 1 {
		return nil, algo.BadParam("n", n, "≥ 1")
	}
	if !(cfg.LR > 0) || math.IsInf(cfg.LR, 0) {
		return nil, algo.BadParam("lr", cfg.LR, "a finite number > 0")
	}
	if cfg.Schedule == "" {
		cfg.Schedule = Constant
	}
	if !slices.Contains(schedules, cfg.Schedule) {
		return nil, algo.BadParam("schedule", cfg.Schedule, fmt.Sprintf("one of %v", schedules))
	}
	if !(cfg.Decay >= 0) || math.IsInf(cfg.Decay, 0) {
		return nil, algo.BadParam("decay", cfg.Decay, "a finite number ≥ 0")
	}
	if cfg.Batch < 1 || cfg.Batch > n {
		return nil, algo.BadParam("batch", cfg.Batch, fmt.Sprintf("in 1..%d (the number of terms)", n))
	}
	if cfg.Sampling == "" {
		cfg.Sampling = IID
	}
	if !slices.Contains(samplings, cfg.Sampling) {
		return nil, algo.BadParam("sampling", cfg.Sampling, fmt.Sprintf("one of %v", samplings))
	}
	if err := checkStart(x0); err != nil {
		return nil, err
	}
	if rng == nil {
		return nil, algo.BadParam("rng", nil, "a random source")
	}
	if cfg.Blowup == 0 {
		cfg.Blowup = 1e8
	}
	s := &SGD{
		f: f, cfg: cfg, rng: rng,
		perm: make([]int, n),
		x:    append([]float64(nil), x0...),
		g:    make([]float64, len(x0)),
		fk:   -1,
	}
	for i := range s.perm {
		s.perm[i] = i
	}
	s.shuffle()
	return s, nil
}

// shuffle draws a fresh permutation (Fisher–Yates, without allocating).
func (s *SGD) shuffle() {
	for i := len(s.perm) - 1; i > 0; i-- {
		j := s.rng.IntN(i + 1)
		s.perm[i], s.perm[j] = s.perm[j], s.perm[i]
	}
	s.pos = 0
}

// Step takes one mini-batch update. It returns an ErrDiverged error when the
// iterate stops being finite or leaves the ball of radius Blowup; SGD has no
// stopping rule of its own (its gradient estimates never vanish).
func (s *SGD) Step() error {
	b := s.cfg.Batch
	var batch []int
	if s.cfg.Sampling == Epoch {
		if s.pos+b > len(s.perm) {
			s.shuffle()
		}
		batch = s.perm[s.pos : s.pos+b]
		s.pos += b
	} else {
		// A uniform b-subset: the first b steps of a Fisher–Yates shuffle.
		n := len(s.perm)
		for j := 0; j < b; j++ {
			r := j + s.rng.IntN(n-j)
			s.perm[j], s.perm[r] = s.perm[r], s.perm[j]
		}
		batch = s.perm[:b]
	}
	s.t = s.cfg.Schedule.StepSize(s.cfg.LR, s.cfg.Decay, s.k)
	s.f.GradBatch(s.g, s.x, batch)
	floats.AddScaled(s.x, -s.t, s.g)
	s.k++
	if !algo.AllFinite(s.x) {
		return algo.Diverged("x is not finite at step %d", s.k)
	}
	return checkBlowup(s.x, s.cfg.Blowup, s.k)
}

// Iter is the number of updates taken.
func (s *SGD) Iter() int { return s.k }

// Epoch is the number of completed epochs of ⌊n/B⌋ updates.
func (s *SGD) Epoch() int { return s.k / (len(s.perm) / s.cfg.Batch) }

// X returns the current iterate (a view: do not modify).
func (s *SGD) X() []float64 { return s.x }

// F returns the full objective f at the current iterate, evaluated once per
// step on demand (it costs a pass over the data).
func (s *SGD) F() float64 {
	if s.fk != s.k {
		s.fx, s.fk = s.f.Func(s.x), s.k
	}
	return s.fx
}

// LR returns the step size of the last update (t₀ before the first).
func (s *SGD) LR() float64 {
	if s.k == 0 {
		return s.cfg.LR
	}
	return s.t
}

// SGDNoiseFloor predicts the level at which constant-step SGD with IID
// batches stalls: the stationary mean E[f(x) − f*] of x_{k+1} = x_k −
// t g_B(x_k) about the minimiser x* (standard; not in the notes, which only
// say SGD is "very inaccurate", L901). With e = x − x*, H = ∇²f(x*) (hess)
// and ξ_B the batch gradient at x*, to second order
//
//	e_{k+1} = (I − tH_B) e_k − t ξ_B,
//	P = E[(I − tH_B) P (I − tH_B)] + t² S_B,   E[f − f*] ≈ ½ tr(H P),
//	S_B = c S₁,  S₁ = (1/n) Σ_i ∇f_i(x*) ∇f_i(x*)ᵀ,  c = (n − B) / (B (n − 1)),
//	E[(I − tH_B) P (I − tH_B)] = (I − tH) P (I − tH) + t² c (1/n) Σ_i (H_i − H) P (H_i − H),
//
// where c is the finite-population factor of a batch of B distinct indices
// (B = n gives 0) and the last sum, the fluctuation of the batch Hessian,
// is included when f provides TermHessians. For a quadratic finite sum
// (least squares) with TermHessians this is exact; otherwise the error is
// of higher order in t. For small t the floor is ≈ (t/4) tr(S_B):
// proportional to the step, inversely proportional to the batch. With
// Epoch sampling the batch noises of an epoch sum to zero and the floor is
// lower (the tests measure about half at B = 8, n = 200). It is an error
// when the linear recursion for P is unstable (t about 2/λ_max(H) or
// beyond).
func SGDNoiseFloor(f FiniteSum, hess mat.Symmetric, xstar []float64, t float64, batch int) (float64, error) {
	n, d := f.Len(), len(xstar)
	if batch < 1 || batch > n {
		return 0, algo.BadParam("batch", batch, fmt.Sprintf("in 1..%d", n))
	}
	if hess.SymmetricDim() != d {
		return 0, fmt.Errorf("SGDNoiseFloor: Hessian is %d×%d for a %d-vector", hess.SymmetricDim(), hess.SymmetricDim(), d)
	}
	var eig mat.EigenSym
	if !eig.Factorize(hess, false) {
		return 0, fmt.Errorf("SGDNoiseFloor: no eigen-decomposition of the Hessian")
	}
	vals := eig.Values(nil)
	if top := vals[len(vals)-1]; !(t > 0) || t*top >= 2 {
		return 0, fmt.Errorf("SGDNoiseFloor: step %g ≥ 2/λ_max(H) = %g has no stationary state", t, 2/top)
	}
	if batch == n || n == 1 {
		return 0, nil
	}
	g := make([]float64, d)
	idx := make([]int, 1)
	s1 := mat.NewSymDense(d, nil)
	for i := 0; i < n; i++ {
		idx[0] = i
		f.GradBatch(g, xstar, idx)
		s1.SymRankOne(s1, 1/float64(n), mat.NewVecDense(d, g))
	}
	fpc := float64(n-batch) / (float64(batch) * float64(n-1))
	// Solve (I − A⊗A) vec P = t² vec S_B, A = I − tH, by an LU solve of the
	// d²×d² system (d is small where this is used).
	a := mat.NewDense(d, d, nil)
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			v := -t * hess.At(i, j)
			if i == j {
				v++
			}
			a.Set(i, j, v)
		}
	}
	var kron mat.Dense
	kron.Kronecker(a, a)
	if th, ok := f.(TermHessians); ok {
		// + t² c (1/n) Σ (H_i − H) ⊗ (H_i − H)
		hi := mat.NewSymDense(d, nil)
		di := mat.NewDense(d, d, nil)
		var ki mat.Dense
		for i := 0; i < n; i++ {
			th.TermHess(hi, xstar, i)
			di.Sub(hi, hess)
			ki.Kronecker(di, di)
			ki.Scale(t*t*fpc/float64(n), &ki)
			kron.Add(&kron, &ki)
		}
	}
	m := mat.NewDense(d*d, d*d, nil)
	for i := 0; i < d*d; i++ {
		for j := 0; j < d*d; j++ {
			v := -kron.At(i, j)
			if i == j {
				v++
			}
			m.Set(i, j, v)
		}
	}
	rhs := mat.NewVecDense(d*d, nil)
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			rhs.SetVec(i*d+j, t*t*fpc*s1.At(i, j))
		}
	}
	var vp mat.VecDense
	if err := vp.SolveVec(m, rhs); err != nil {
		return 0, fmt.Errorf("SGDNoiseFloor: %v", err)
	}
	for i := 0; i < d; i++ {
		if !(vp.AtVec(i*d+i) >= 0) {
			return 0, fmt.Errorf("SGDNoiseFloor: step %g has no stationary state", t)
		}
	}
	tr := 0.0
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			tr += hess.At(i, j) * vp.AtVec(j*d+i)
		}
	}
	return tr / 2, nil
}
