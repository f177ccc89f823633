package linear

import (
	"fmt"
	"math"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/stable"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// Logistic is the binary logistic-regression objective of seed 001 §4: the
// mean negative log-likelihood of Definition 4.1 with the sigmoid model of
// Definition 4.2, in the ±1-label form of eq 4.a (y′ = 2y − 1, erratum E5),
// plus a ridge term that leaves the bias alone:
//
//	f(θ) = (1/n) Σ_i log(1 + exp(−y_i ⟨x̃_i, θ⟩)) + (λ/2) ‖w‖²,
//	∇f(θ) = −(1/n) Σ_i y_i σ(−y_i ⟨x̃_i, θ⟩) x̃_i + λ(w, 0),
//	∇²f(θ) = (1/n) Σ_i σ(z_i)(1 − σ(z_i)) x̃_i x̃_iᵀ + λ diag(I, 0),
//
// with log(1 + e^{−m}) = softplus(−m) and σ(−m) evaluated stably, from one
// exponential, by stable.SoftplusSigmoid (catalogue [A6], "must get
// right"). The notes average
// nothing (they sum, L433); the mean makes λ and the step size independent
// of n and leaves the minimiser unchanged at λ = 0. It is a FiniteSum with
// f_i = log(1 + exp(−y_i⟨x̃_i, θ⟩)) + (λ/2)‖w‖².
//
// On linearly separable data with λ = 0 there is no minimiser: f → 0 as
// ‖w‖ → ∞ along a separating direction, and gradient descent drives ‖w‖
// up like log k (catalogue [A6], §D item 19).
type Logistic struct {
	x      *Design
	y      []float64 // ±1
	lambda float64
	z      []float64 // X̃θ at last
	c      []float64 // −y_i σ(−y_i z_i) at last
	loss   float64   // mean log-loss at last
	last   []float64
	valid  bool
	wx     []float64 // p×hessBlock: a block of weighted rows, transposed, for Hess
}

// hessBlock is the number of rows Hess gathers for one rank-k update: a
// p×256 block stays in the first-level caches for p up to about 30, and
// the dot products of length 256 run near the machine's peak.
const hessBlock = 256

// LogisticBytes is what NewLogistic allocates for n rows of p columns
// besides the design: its labels, scores and weights (a value a row each)
// and a block of the Hessian's weighted rows.
func LogisticBytes(n, p int) int64 {
	return 3*algo.HeapBytes(8*int64(n)) + algo.HeapBytes(8*int64(p)*int64(min(n, hessBlock))) + 8*int64(p) + 128
}

// NewLogistic validates the labels (each −1 or +1) and λ ≥ 0.
func NewLogistic(x *Design, y []float64, lambda float64) (*Logistic, error) {
	if len(y) != x.N() {
		return nil, fmt.Errorf("%d labels for %d rows", len(y), x.N())
	}
	for i, v := range y {
		if v != 1 && v != -1 {
			return nil, fmt.Errorf("label %d is %v; logistic regression takes labels ±1", i+1, v)
		}
	}
	if !(lambda >= 0) || math.IsInf(lambda, 0) {
		return nil, algo.BadParam("lambda", lambda, "a finite number ≥ 0")
	}
	n := x.N()
	return &Logistic{
		x: x, y: append([]float64(nil), y...), lambda: lambda,
		z: make([]float64, n), c: make([]float64, n), last: make([]float64, x.P()),
		wx: make([]float64, x.P()*min(n, hessBlock)),
	}, nil
}

// Design returns the data; Y the ±1 labels (a view); Lambda the ridge weight.
func (l *Logistic) Design() *Design { return l.x }
func (l *Logistic) Y() []float64    { return l.y }
func (l *Logistic) Lambda() float64 { return l.lambda }

// Len is the number of terms n.
func (l *Logistic) Len() int { return l.x.N() }

// eval computes the scores, the mean log-loss and the gradient
// coefficients at θ in one pass, unless θ is the last point evaluated.
func (l *Logistic) eval(theta []float64) {
	l.x.checkTheta(theta)
	if l.valid && floats.Equal(theta, l.last) {
		return
	}
	blas64.Gemv(blas.NoTrans, 1, l.x.a.RawMatrix(), vec(theta), 0, vec(l.z))
	s := 0.0
	for i, zi := range l.z {
		sp, sg := stable.SoftplusSigmoid(-l.y[i] * zi)
		s += sp
		l.c[i] = -l.y[i] * sg
	}
	l.loss = s / float64(len(l.z))
	copy(l.last, theta)
	l.valid = true
}

func (l *Logistic) penalty(theta []float64) float64 {
	return l.lambda / 2 * l.x.weightSq(theta)
}

// Func is f(θ).
func (l *Logistic) Func(theta []float64) float64 {
	l.eval(theta)
	return l.loss + l.penalty(theta)
}

// LogLoss is the mean log-loss at θ, without the penalty.
func (l *Logistic) LogLoss(theta []float64) float64 {
	l.eval(theta)
	return l.loss
}

// Grad writes ∇f(θ).
func (l *Logistic) Grad(grad, theta []float64) {
	l.eval(theta)
	blas64.Gemv(blas.Trans, 1/float64(len(l.z)), l.x.a.RawMatrix(), vec(l.c), 0, vec(grad))
	l.addPenaltyGrad(grad, theta)
}

func (l *Logistic) addPenaltyGrad(grad, theta []float64) {
	l.x.addWeights(grad, theta, l.lambda)
}

// GradBatch writes (1/|B|) Σ_{i∈B} ∇f_i(θ).
func (l *Logistic) GradBatch(grad, theta []float64, batch []int) {
	clear(grad)
	for _, i := range batch {
		m := l.y[i] * l.x.dot(i, theta)
		floats.AddScaled(grad, -l.y[i]*stable.Sigmoid(-m), l.x.Row(i))
	}
	floats.Scale(1/float64(len(batch)), grad)
	l.addPenaltyGrad(grad, theta)
}

// Hess writes ∇²f(θ) = X̃ᵀWX̃/n + λ diag(I, 0), W = diag(σ(z_i)(1 − σ(z_i))),
// as BLAS-3 rank-k updates (dsyrk) of blocks of rows scaled by √W and
// stored transposed, so that each entry is a dot product over the rows of
// a block: about four times faster than n rank-one updates (dsyr), which
// on a row-major design reduce to short axpys. It does not allocate.
func (l *Logistic) Hess(h *mat.SymDense, theta []float64) {
	l.eval(theta)
	raw := h.RawSymmetric()
	p := l.x.P()
	for i := 0; i < p; i++ {
		clear(raw.Data[i*raw.Stride+i : i*raw.Stride+p])
	}
	n := len(l.z)
	a := l.x.a.RawMatrix()
	bs := len(l.wx) / p
	for i0 := 0; i0 < n; i0 += bs {
		m := min(bs, n-i0)
		for i := 0; i < m; i++ {
			s := math.Abs(l.c[i0+i]) // σ(−y_i z_i), and σ(z)(1 − σ(z)) = σ(−z)(1 − σ(−z))
			sw := math.Sqrt(s * (1 - s))
			row := a.Data[(i0+i)*a.Stride : (i0+i)*a.Stride+p]
			for j, v := range row {
				l.wx[j*bs+i] = sw * v
			}
		}
		blas64.Syrk(blas.NoTrans, 1/float64(n), blas64.General{Rows: p, Cols: m, Stride: bs, Data: l.wx}, 1, raw)
	}
	for j := 0; j < p; j++ {
		if l.x.penalised(j) {
			h.SetSym(j, j, h.At(j, j)+l.lambda)
		}
	}
}

// TermHess writes ∇²f_i = σ(z_i)(1 − σ(z_i)) x̃_i x̃_iᵀ + λ diag(I, 0).
func (l *Logistic) TermHess(h *mat.SymDense, theta []float64, i int) {
	s := stable.Sigmoid(l.x.dot(i, theta))
	termHess(h, l.x, i, s*(1-s), l.lambda)
}

// Curvature returns global bounds m I ⪯ ∇²f ⪯ L I: L = ¼ λ_max(X̃ᵀX̃/n) + λ
// (σ(1 − σ) ≤ ¼; catalogue [A6]) and m = λ when every coordinate is
// penalised (no bias), else 0: the log-loss's curvature vanishes far from
// the data, so only the ridge term is strongly convex, and not in b.
func (l *Logistic) Curvature() (m, L float64, err error) {
	ev, err := l.x.gramEigen()
	if err != nil {
		return 0, 0, err
	}
	L = ev[len(ev)-1]/4 + l.lambda
	if !l.x.Bias() {
		m = l.lambda
	}
	return m, L, nil
}

// Prob returns p(x; θ) = σ(⟨x, w⟩ + b) = Pr[Y = +1 | x] (Definition 4.2)
// for a feature vector x of length D.
func (l *Logistic) Prob(theta, x []float64) float64 {
	return stable.Sigmoid(l.score(theta, x))
}

func (l *Logistic) score(theta, x []float64) float64 {
	s := floats.Dot(theta[:l.x.D()], x)
	if l.x.Bias() {
		s += theta[l.x.D()]
	}
	return s
}

// Accuracy is the fraction of rows with y_i⟨x̃_i, θ⟩ > 0: predicted +1 iff
// p > ½ (L441), a tie counting as a mistake.
func (l *Logistic) Accuracy(theta []float64) float64 {
	l.eval(theta)
	ok := 0
	for i, zi := range l.z {
		// Predict +1 when the score is positive, else −1 (scikit-learn's
		// rule): at θ = 0 the accuracy is the share of −1 labels, not 0.
		if (zi > 0) == (l.y[i] > 0) {
			ok++
		}
	}
	return float64(ok) / float64(len(l.z))
}

// Separates reports whether θ classifies every row correctly with a strict
// margin. When it does the data are linearly separable, and with λ = 0 the
// objective has no minimiser: f(cθ) → 0 as c → ∞.
func (l *Logistic) Separates(theta []float64) bool {
	l.eval(theta)
	for i, zi := range l.z {
		if l.y[i]*zi <= 0 {
			return false
		}
	}
	return true
}
