// Package adversarial holds the attacks and the adversarial training of
// seed 001 §17 (L1545–L1559, catalogue [A32]–[A33]) on the lab's own
// networks (algo/nn): the fast gradient sign method and projected gradient
// ascent, targeted or untargeted, in an L∞ or L2 ball, and the min-max
// training that runs such an attack inside every SGD step; and two
// minimal-perturbation attacks that have no ball but look for the
// smallest δ that changes the label: DeepFool (Moosavi-Dezfooli et al.
// 2016) and Carlini & Wagner's L2 attack (2017).
package adversarial

import (
	"math"
	"strconv"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/nn"
	"github.com/thelab/lab/algo/tensor"
)

// Norm is the ball the perturbation δ = x − x₀ stays in.
type Norm string

const (
	LInf Norm = "linf" // ‖δ‖∞ ≤ ε: each pixel moves at most ε
	L2   Norm = "l2"   // ‖δ‖₂ ≤ ε
)

func (n Norm) String() string { return string(n) }

// Norms lists them.
var Norms = []Norm{LInf, L2}

// Method is the update of one attack step (L1551).
type Method string

const (
	// FGSM steps ε along the gradient's sign (L∞) or its direction (L2):
	// x ← x + ε·sgn ∇ₓf. One step is the classic attack; more are
	// iterated FGSM.
	FGSM Method = "fgsm"
	// PGD is the notes' projected gradient method x ← x + η∇ₓf.
	PGD Method = "pgd"
	// SignPGD is Madry et al.'s L∞ variant x ← x + η·sgn ∇ₓf (for L2,
	// η along the unit gradient): the step size does not depend on the
	// gradient's scale.
	SignPGD Method = "pgd-sign"
	// DeepFool (Moosavi-Dezfooli et al. 2016, Alg. 2) steps to the
	// nearest boundary of the logits linearised at the iterate, with no
	// ball: deepfool.go.
	DeepFool Method = "deepfool"
	// CW is Carlini & Wagner's L2 attack (2017): Adam on
	// ‖δ‖₂² + c·max(margin, −κ) with a binary search on c: cw.go.
	CW Method = "cw"
)

func (m Method) String() string { return string(m) }

// Methods lists the methods that keep δ in a ball (Trainer's and Robust's
// inner attacks), and MinimalMethods those that look for the least δ.
var (
	Methods        = []Method{FGSM, PGD, SignPGD}
	MinimalMethods = []Method{DeepFool, CW}
)

// bounded says whether the method keeps δ in the ball of radius Eps
// (FGSM and PGD); DeepFool and CW minimise ‖δ‖ instead and ignore Eps.
func (m Method) bounded() bool { return m == FGSM || m == PGD || m == SignPGD }

// Config is an attack.
type Config struct {
	Method Method
	Norm   Norm
	Eps    float64 // the ball's radius ε > 0 (FGSM and PGD; DeepFool and CW have no ball)
	Step   float64 // η of PGD and pgd-sign; CW: Adam's rate (FGSM steps ε)
	// Lo < Hi is the valid input range (pixels in [0, 1]): every iterate
	// is clipped into it too (CW: kept in it by x = Lo + (Hi−Lo)(tanh w + 1)/2).
	// Lo ≥ Hi: no range.
	Lo, Hi float64
	// Overshoot is DeepFool's η ∈ [0, 1]: the iterate is x₀ + (1+η)·Σrᵢ
	// (DefaultOvershoot is the paper's 0.02).
	Overshoot float64
	// CW: the confidence κ ∈ [0, MaxKappa] of the margin term, the first
	// constant C0 ∈ (0, MaxC], and Rounds ∈ [1, MaxRounds] rounds of the
	// binary search on c, each Inner ∈ [1, MaxCWInner] Adam steps from x₀.
	Kappa, C0     float64
	Rounds, Inner int
}

// Bounds of the configuration.
const (
	MaxEps           = 100
	DefaultOvershoot = 0.02
	MaxKappa         = 1000
	MaxC             = 1e10
	MaxRounds        = 30
	MaxCWInner       = 100000
)

func (c Config) validate() error {
	switch {
	case !c.Method.bounded() && c.Method != DeepFool && c.Method != CW:
		return algo.BadParam("method", c.Method, "fgsm, pgd, pgd-sign, deepfool or cw")
	case c.Norm != LInf && c.Norm != L2:
		return algo.BadParam("norm", c.Norm, "linf or l2")
	case c.Method == CW && c.Norm != L2:
		return algo.BadParam("norm", c.Norm, "l2 (cw is an L2 attack)")
	case c.Method.bounded() && !(c.Eps > 0 && c.Eps <= MaxEps):
		return algo.BadParam("eps", c.Eps, "in (0, 100]")
	case c.Method != FGSM && c.Method != DeepFool && !(c.Step > 0 && c.Step <= MaxEps):
		return algo.BadParam("step", c.Step, "in (0, 100]")
	case c.Method == DeepFool && !(c.Overshoot >= 0 && c.Overshoot <= 1):
		return algo.BadParam("overshoot", c.Overshoot, "in [0, 1]")
	case c.Method == CW && !(c.Kappa >= 0 && c.Kappa <= MaxKappa):
		return algo.BadParam("kappa", c.Kappa, "in [0, 1000]")
	case c.Method == CW && !(c.C0 > 0 && c.C0 <= MaxC):
		return algo.BadParam("c0", c.C0, "in (0, 1e10]")
	case c.Method == CW && (c.Rounds < 1 || c.Rounds > MaxRounds):
		return algo.BadParam("rounds", c.Rounds, "in 1..30")
	case c.Method == CW && (c.Inner < 1 || c.Inner > MaxCWInner):
		return algo.BadParam("inner", c.Inner, "in 1..100000")
	case c.Method.bounded() && c.Lo < c.Hi && c.Eps > c.Hi-c.Lo:
		// A ball wider than the whole input range is no constraint.
		return algo.BadParam("eps", c.Eps, "at most the input range's width "+fmtRange(c.Lo, c.Hi))
	}
	return nil
}

func fmtRange(lo, hi float64) string {
	return "[" + strconv.FormatFloat(lo, 'g', -1, 64) + ", " + strconv.FormatFloat(hi, 'g', -1, 64) + "]"
}

// Project maps x onto the ball of radius eps about x0 in the given norm,
// then clips it to [lo, hi] when lo < hi, one row of d values at a time.
// L∞: clip(x_i, x₀_i − ε, x₀_i + ε) (not the notes' min{x_i, ε}, erratum
// E26); L2: x₀ + (x − x₀)·min(1, ε/‖x − x₀‖). Clipping to a range that
// holds x₀ moves each coordinate towards x₀, so the result stays in the
// ball; for L∞ it is the exact projection onto the intersection.
func Project(x, x0 []float64, d int, eps float64, norm Norm, lo, hi float64) {
	for r := 0; r < len(x); r += d {
		row, row0 := x[r:r+d], x0[r:r+d]
		if norm == L2 {
			s := 0.0
			for i, v := range row {
				s += (v - row0[i]) * (v - row0[i])
			}
			if s = math.Sqrt(s); s > eps {
				f := eps / s
				for i, v := range row {
					row[i] = row0[i] + (v-row0[i])*f
				}
			}
		} else {
			for i, v := range row {
				row[i] = math.Min(math.Max(v, row0[i]-eps), row0[i]+eps)
			}
		}
		if lo < hi {
			for i, v := range row {
				row[i] = math.Min(math.Max(v, lo), hi)
			}
		}
	}
}

// Attack perturbs a batch of inputs against a model, all rows at once:
// max_{‖x − x₀‖ ≤ ε} f(x) (L1547) with f = ℓ(x, y) for an untargeted
// attack (L1549: −log p_y) and f = −ℓ(x, ỹ) = log p_ỹ for a targeted one
// (the model's loss from logits: cross-entropy or logistic). Each step
// takes ∇ₓf of every row (the gradient with respect to x, not w) and moves
// and projects the rows independently. A step allocates nothing.
type Attack struct {
	m        nn.Model
	loss     nn.Loss
	cfg      Config
	tp       *tensor.Tape
	b        *nn.Batch
	x0, grad []float64
	labels   []int // the labels the loss is taken against (true or target)
	sign     float64
	n, d     int
	steps    int
	// f is the mean objective at the current rows when fresh; a Step or
	// Reset makes it stale, and Objective evaluates it again.
	f     float64
	fresh bool
	// The minimal-perturbation attacks' state (nil for the others).
	df *deepFool
	cw *carliniWagner
	// best[r] is the least ‖δ‖ of a fooling iterate of row r found so far
	// (+Inf: none), bestX its rows (DeepFool and CW).
	best  []float64
	bestX []float64
}

// New prepares an attack on the rows x0 (n·d values, copied) with their
// true labels; targets, when not nil, makes it targeted (one target class
// per row).
func New(m nn.Model, loss nn.Loss, x0 []float64, labels, targets []int, cfg Config) (*Attack, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	d, _ := m.Shape()
	n := len(labels)
	if n == 0 || len(x0) != n*d {
		return nil, algo.BadParam("x0", len(x0), "n·d values for n labels")
	}
	if targets != nil && len(targets) != n {
		return nil, algo.BadParam("targets", len(targets), "one per row")
	}
	b, err := nn.NewBatch(n, d)
	if err != nil {
		return nil, err
	}
	a := &Attack{m: m, loss: loss, cfg: cfg, tp: tensor.NewTape(), b: b, x0: append([]float64(nil), x0...),
		grad: make([]float64, n*d), labels: append([]int(nil), labels...), sign: 1, n: n, d: d}
	if targets != nil {
		copy(a.labels, targets)
		a.sign = -1
	}
	b.RequireGrad()
	b.LoadRows(a.x0, a.labels)
	if cfg.Method == DeepFool || cfg.Method == CW {
		a.best, a.bestX = make([]float64, n), make([]float64, n*d)
		_, k := m.Shape()
		if cfg.Method == DeepFool {
			a.df = newDeepFool(n, d, k)
		} else if a.cw, err = newCW(n, d, k, cfg); err != nil {
			return nil, err
		}
		a.resetMinimal()
	}
	return a, nil
}

// Reset starts again from x0 (the same rows), or from new rows of the same
// size and their labels (targets nil: untargeted) — the inner loop of
// adversarial training reuses one Attack for every batch.
func (a *Attack) Reset(x0 []float64, labels []int) {
	if x0 != nil {
		copy(a.x0, x0)
		copy(a.labels, labels)
	}
	a.b.LoadRows(a.x0, a.labels)
	a.steps, a.fresh = 0, false
	if a.best != nil {
		a.resetMinimal()
	}
}

// resetMinimal forgets DeepFool's or CW's progress and best iterates.
func (a *Attack) resetMinimal() {
	for r := range a.best {
		a.best[r] = math.Inf(1)
	}
	copy(a.bestX, a.x0)
	if a.df != nil {
		a.df.reset()
	} else {
		a.cw.reset(a)
	}
}

// Best is the fooling iterate of row r with the least ‖δ‖ that DeepFool or
// CW has found (untargeted: classified other than its label; targeted: as
// its target), its distance from x₀ in the attack's norm, and whether
// there is one (the shared rows are valid until the next Step or Reset).
// The ball methods keep no best: ok is false.
func (a *Attack) Best(r int) (x []float64, dist float64, ok bool) {
	if a.best == nil || math.IsInf(a.best[r], 1) {
		return nil, math.Inf(1), false
	}
	return a.bestX[r*a.d : (r+1)*a.d], a.best[r], true
}

// Done says whether the attack has nothing left to do: DeepFool has fooled
// every row (or can move none), CW has run its last round. The ball
// methods are never done: their caller counts the steps.
func (a *Attack) Done() bool {
	switch {
	case a.df != nil:
		return a.df.done()
	case a.cw != nil:
		return a.cw.finished()
	}
	return false
}

// ExtraBytes is what a method adds to AttackBytes on rows examples of d
// features against a network of outs outputs: DeepFool's Σrᵢ, the
// chosen gradient and the best rows; CW's variable w with its gradient
// and Adam's two moments, the best rows and the per-row constants.
func ExtraBytes(m Method, rows, d, outs int) int64 {
	switch m {
	case DeepFool:
		return 3*tensor.Alloc(rows*d) + tensor.Alloc(rows*max(outs, 2)) + 4*tensor.Alloc(rows)
	case CW:
		return 6*tensor.Alloc(rows*d) + tensor.Alloc(rows*max(outs, 2)) + 6*tensor.Alloc(rows)
	}
	return 0
}

// Step is one attack iteration: the gradient of f at x, the move, the
// projection. The objective at the rows it leaves is Objective's.
//
// DeepFool and CW take their own steps (deepfool.go, cw.go) and return
// algo.ErrConverged from the step that finishes them, and from every
// Step after it (which then does nothing).
func (a *Attack) Step() error {
	switch {
	case a.df != nil:
		return a.stepDeepFool()
	case a.cw != nil:
		return a.stepCW()
	}
	if _, err := nn.InputGrad(a.tp, a.m, a.loss, a.b, a.grad); err != nil {
		return err
	}
	a.fresh = false
	x := a.b.X.Data
	c := a.cfg
	eta := c.Step
	if c.Method == FGSM {
		eta = c.Eps
	}
	// ∇ₓf of a row is sign·n times its entries of ∂(mean loss)/∂x.
	for r := 0; r < len(x); r += a.d {
		g, row := a.grad[r:r+a.d], x[r:r+a.d]
		switch {
		case c.Method == PGD:
			f := eta * a.sign * float64(a.n)
			for i, v := range g {
				row[i] += f * v
			}
		case c.Norm == LInf:
			for i, v := range g {
				row[i] += eta * sgn(a.sign*v) // sgn(0) = 0
			}
		default: // L2 FGSM and pgd-sign: η along the unit gradient
			s := 0.0
			for _, v := range g {
				s += v * v
			}
			if s > 0 {
				f := eta * a.sign / math.Sqrt(s)
				for i, v := range g {
					row[i] += f * v
				}
			}
		}
	}
	Project(x, a.x0, a.d, c.Eps, c.Norm, c.Lo, c.Hi)
	a.steps++
	return nil
}

func sgn(v float64) float64 {
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return 0
}

// X is the current perturbed rows (shared with the batch; valid until the
// next Step or Reset).
func (a *Attack) X() []float64 { return a.b.X.Data }

// X0 is the clean rows.
func (a *Attack) X0() []float64 { return a.x0 }

// Batch is the batch holding the perturbed rows and the labels the loss
// is taken against.
func (a *Attack) Batch() *nn.Batch { return a.b }

// Objective is the mean objective f at the current rows (x₀ before the
// first Step): the attacked loss (DeepFool's too, which minimises ‖δ‖
// and has no objective of its own), and for CW its objective
// ‖δ‖₂² + c·max(margin, −κ) at the round's c.
func (a *Attack) Objective() float64 {
	if !a.fresh && a.cw != nil {
		a.f = a.cwEval(false)
		a.fresh = true
	}
	if !a.fresh {
		// A forward pass at the rows as they are now: the objective of
		// the state every other quantity of the step describes (issue
		// 28.1: the loss of the gradient's pass is the point's before
		// the move, and for FGSM the attack's whole effect). Evaluated
		// when asked, so that adversarial training's inner steps pay
		// nothing for it.
		a.tp.Rewind()
		a.f = a.sign * a.loss.Mean(a.tp, a.m.Forward(a.tp, a.b.X, nil), a.b).Item()
		a.fresh = true
	}
	return a.f
}

// Steps is the number of steps since the last Reset.
func (a *Attack) Steps() int { return a.steps }

// Config is the attack's configuration.
func (a *Attack) Config() Config { return a.cfg }

// Dist is ‖x_r − x₀_r‖ of row r in the attack's norm.
func (a *Attack) Dist(r int) float64 {
	row, row0 := a.b.X.Data[r*a.d:(r+1)*a.d], a.x0[r*a.d:(r+1)*a.d]
	m := 0.0
	for i, v := range row {
		if a.cfg.Norm == L2 {
			m += (v - row0[i]) * (v - row0[i])
		} else {
			m = math.Max(m, math.Abs(v-row0[i]))
		}
	}
	if a.cfg.Norm == L2 {
		return math.Sqrt(m)
	}
	return m
}
