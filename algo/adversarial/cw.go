package adversarial

import (
	"math"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/nn"
	"github.com/thelab/lab/algo/tensor"
	"github.com/thelab/lab/algo/tensor/opt"
)

// Carlini & Wagner's L2 attack ("Towards evaluating the robustness of
// neural networks", IEEE S&P 2017, §V-A) minimises, for each row,
//
//	‖δ‖₂² + c·max(g(x₀ + δ), −κ)
//	g = Z_y − max_{i≠y} Z_i      (untargeted, true class y)
//	g = max_{i≠t} Z_i − Z_t      (targeted at t)
//
// over the logits Z (one output z: the logits (0, z)): g < 0 is a changed
// label, and κ ≥ 0 asks for a margin. The box Lo ≤ x ≤ Hi is the change of
// variables x = Lo + (Hi−Lo)·(tanh w + 1)/2 (their §V's third method),
// with w₀ = atanh((2(x₀−Lo)/(Hi−Lo) − 1)·(1 − 10⁻⁶)) (a pixel at an end
// of the range would be at w = ±∞: the factor is their 1.999999); with no
// range, w = x. Adam (Kingma & Ba 2015, algo/tensor/opt) at the rate Step
// takes Inner steps from w₀ in each of Rounds rounds, and between rounds a
// binary search moves c per row: after a round that found a fooling
// iterate c_hi = c, else c_lo = c; the next c is (c_lo + c_hi)/2, or 10c
// while no round has succeeded. The attack's result is the fooling iterate
// of least ‖δ‖₂ over all rounds (Best).
//
// The gradient with respect to w is (2δ + c∇ₓg)·(Hi−Lo)(1 − tanh² w)/2,
// with ∇ₓg one reverse pass seeded by c(e_p − e_q) for g = Z_p − Z_q, and
// 0 where g ≤ −κ (the max is flat). The first step of a round takes its
// gradient at x₀ itself (which the clipped w₀ maps to within 10⁻⁶ of the
// range).
//
// On an affine binary classifier f = wᵀx + b the objective along −w is
// t² + c·max(|f(x₀)| − t‖w‖, −κ): for c > 2(|f(x₀)|+κ)/‖w‖² its minimiser
// is the kink t = (|f(x₀)|+κ)/‖w‖ (at κ = 0 the boundary, ‖r*‖, which
// Adam's iterates straddle), otherwise t = c‖w‖/2 short of the boundary.
type carliniWagner struct {
	w           *tensor.Tensor // the variables, one row per example
	w0          []float64      // their start
	o           *opt.Optimizer
	seed        []float64
	c, cLo, cHi []float64 // the constant and the binary search's bracket of each row
	succ        []bool    // the row has been fooled in this round
	round       int
	inner       int // Adam steps taken in this round
	rounds      int
	steps       int // per round
	box         bool
	mid, half   float64
	k           int
}

func newCW(n, d, k int, cfg Config) (*carliniWagner, error) {
	w, err := tensor.New(n, d)
	if err != nil {
		return nil, err
	}
	o, err := opt.New([]*tensor.Tensor{w}, opt.Config{Method: opt.Adam, LR: cfg.Step})
	if err != nil {
		return nil, err
	}
	cw := &carliniWagner{w: w, w0: make([]float64, n*d), o: o, seed: make([]float64, n*k),
		c: make([]float64, n), cLo: make([]float64, n), cHi: make([]float64, n), succ: make([]bool, n),
		rounds: cfg.Rounds, steps: cfg.Inner, box: cfg.Lo < cfg.Hi, k: k}
	if cw.box {
		cw.half = (cfg.Hi - cfg.Lo) / 2
		cw.mid = cfg.Lo + cw.half
	}
	return cw, nil
}

// tanhClip keeps w₀ finite at the ends of the range.
const tanhClip = 1 - 1e-6

// reset starts the first round from the attack's x₀.
func (cw *carliniWagner) reset(a *Attack) {
	for r := range cw.c {
		cw.c[r], cw.cLo[r], cw.cHi[r], cw.succ[r] = a.cfg.C0, 0, math.Inf(1), false
	}
	for i, v := range a.x0 {
		if cw.box {
			v = math.Atanh(math.Min(math.Max((v-cw.mid)/cw.half, -tanhClip), tanhClip))
		}
		cw.w0[i] = v
	}
	cw.round = 0
	cw.restart(a)
}

// restart puts w at w₀ and the rows at x₀, and forgets Adam's moments.
func (cw *carliniWagner) restart(a *Attack) {
	copy(cw.w.Data, cw.w0)
	cw.o.Reset()
	cw.inner = 0
	copy(a.b.X.Data, a.x0)
}

func (cw *carliniWagner) finished() bool { return cw.round == cw.rounds-1 && cw.inner == cw.steps }

// nextRound is the binary search's move of each row's c, then a restart.
func (cw *carliniWagner) nextRound(a *Attack) {
	for r, c := range cw.c {
		if cw.succ[r] {
			cw.cHi[r] = math.Min(cw.cHi[r], c)
		} else {
			cw.cLo[r] = math.Max(cw.cLo[r], c)
		}
		if math.IsInf(cw.cHi[r], 1) {
			cw.c[r] = math.Min(10*c, MaxC)
		} else {
			cw.c[r] = (cw.cLo[r] + cw.cHi[r]) / 2
		}
		cw.succ[r] = false
	}
	cw.round++
	cw.restart(a)
}

// margin is g = Z_p − Z_q of row r's logits z (see carliniWagner).
func (a *Attack) margin(r int, z []float64) (g float64, p, q int) {
	l, j := a.labels[r], -1
	for c := range classes(len(z)) {
		if c != l && (j < 0 || logit(z, c) > logit(z, j)) {
			j = c
		}
	}
	if a.sign < 0 {
		return logit(z, j) - logit(z, l), j, l
	}
	return logit(z, l) - logit(z, j), l, j
}

// stepCW is one Adam step of the current round (the first step of a
// round first moves c and restarts from x₀), then the objective, the
// success and the best iterate at the moved rows.
func (a *Attack) stepCW() error {
	cw := a.cw
	if cw.finished() {
		return algo.ErrConverged
	}
	if cw.inner == cw.steps {
		cw.nextRound(a)
	}
	a.fresh = false
	if err := a.cwGradient(); err != nil {
		return err
	}
	if err := cw.o.Step(); err != nil {
		return err
	}
	x := a.b.X.Data
	for i, v := range cw.w.Data {
		if cw.box {
			v = cw.mid + cw.half*math.Tanh(v)
		}
		x[i] = v
	}
	cw.inner++
	a.steps++
	a.f, a.fresh = a.cwEval(true), true
	if cw.finished() {
		return algo.ErrConverged
	}
	return nil
}

// cwGradient writes into cw.w.Grad the gradient of each row's objective
// ‖δ‖₂² + c·max(g, −κ) with respect to its variables w at the current
// rows x: (2δ + c∇ₓg)·dx/dw, dx/dw = (Hi−Lo)(1 − tanh² w)/2 in a range
// and 1 without; ∇ₓg is one reverse pass seeded by c(e_p − e_q), left out
// where g ≤ −κ.
func (a *Attack) cwGradient() error {
	cw, tp, k, kappa := a.cw, a.tp, a.cw.k, a.cfg.Kappa
	tp.Rewind()
	out := a.m.Forward(tp, a.b.X, nil)
	if err := tp.Err(); err != nil {
		return err
	}
	clear(cw.seed)
	for r := range a.n {
		g, p, q := a.margin(r, out.Data[r*k:(r+1)*k])
		if g > -kappa {
			seedAdd(cw.seed[r*k:(r+1)*k], p, cw.c[r])
			seedAdd(cw.seed[r*k:(r+1)*k], q, -cw.c[r])
		}
	}
	if err := tp.BackwardFrom(out, cw.seed); err != nil {
		return err
	}
	x, gx, w, gw := a.b.X.Data, a.b.X.Grad, cw.w.Data, cw.w.Grad
	for i, v := range x {
		g := 2*(v-a.x0[i]) + gx[i]
		if cw.box {
			t := math.Tanh(w[i])
			g *= cw.half * (1 - t*t)
		}
		gw[i] = g
	}
	return nil
}

// cwEval is the mean CW objective at the current rows under each row's c
// (a forward pass); with track, a row fooled with margin g ≤ −κ marks the
// round a success and becomes the row's best when its ‖δ‖₂ is the least
// yet.
func (a *Attack) cwEval(track bool) float64 {
	cw, tp, k := a.cw, a.tp, a.cw.k
	tp.Rewind()
	out := a.m.Forward(tp, a.b.X, nil)
	sum := 0.0
	for r := range a.n {
		z := out.Data[r*k : (r+1)*k]
		g, _, _ := a.margin(r, z)
		row, row0 := a.b.X.Data[r*a.d:(r+1)*a.d], a.x0[r*a.d:(r+1)*a.d]
		d2 := 0.0
		for i, v := range row {
			d2 += (v - row0[i]) * (v - row0[i])
		}
		sum += d2 + cw.c[r]*math.Max(g, -a.cfg.Kappa)
		if track && g <= -a.cfg.Kappa && a.fooled(r, nn.Predict(z)) {
			cw.succ[r] = true
			if d := math.Sqrt(d2); d < a.best[r] {
				a.best[r] = d
				copy(a.bestX[r*a.d:(r+1)*a.d], row)
			}
		}
	}
	return sum / float64(a.n)
}

// C is the constant c of CW's current round for row r (0 for the other
// methods).
func (a *Attack) C(r int) float64 {
	if a.cw == nil {
		return 0
	}
	return a.cw.c[r]
}

// Round is CW's current round, from 0, and the Adam steps taken in it
// (0, 0 for the other methods).
func (a *Attack) Round() (round, inner int) {
	if a.cw == nil {
		return 0, 0
	}
	return a.cw.round, a.cw.inner
}
