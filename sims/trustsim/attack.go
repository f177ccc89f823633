package trustsim

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/adversarial"
	"github.com/thelab/lab/algo/nn"
	"github.com/thelab/lab/algo/tensor"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// attack's parameters.
var (
	atModel = param.Choice("model", []taskKind{taskPlane, taskDigits}, taskPlane,
		"plane: an MLP on two moons, the point walking in its ball; digits: an MLP on the procedural digits")
	atSize   = param.Choice("size", []imageSide{8, 16}, 8, "digits: side of the images")
	atMethod = param.Choice("method", append(append([]adversarial.Method(nil), adversarial.Methods...), adversarial.MinimalMethods...), adversarial.SignPGD,
		"fgsm: x ← x + ε sgn ∇f (one step); pgd: x ← x + η∇f (the notes); pgd-sign: x ← x + η sgn ∇f (Madry et al.); each then projected; "+
			"deepfool: the least ‖δ‖ that changes the label, stepping to the nearest boundary of the linearised logits (Moosavi-Dezfooli et al.); "+
			"cw: Adam on ‖δ‖₂² + c·max(Z_y − max_{i≠y} Z_i, 0) with a binary search on c (Carlini & Wagner, L2); these two have no ball")
	atNorm = param.Choice("norm", adversarial.Norms, adversarial.LInf,
		"the ball ‖x − x₀‖ ≤ ε: linf (a box) or l2 (a disc); deepfool's norm; cw is l2 whatever this says")
	// The radii start at 1e-6, not at 0: the accuracy curve's attacks take
	// steps of 2.5ε/10, which a denormal ε rounds to 0.
	atEps = param.Float("eps", 0.3, "radius ε of the ball (digits: pixels are in [0, 1], so ε ≤ 1); deepfool and cw: drawn for comparison").Range(1e-6, 5).
		DefaultWhen(func(v param.Values) bool { return atModel.Get(v) == taskDigits }, 0.08, "0.3; 0.08 for digits")
	atStep = param.Float("step", 0.03, "η of pgd and pgd-sign; cw: Adam's rate").Range(0, 5).OpenMin().
		DefaultFunc(func(v param.Values) float64 {
			switch {
			case atMethod.Get(v) == adversarial.CW:
				return cwRate
			case atModel.Get(v) == taskDigits:
				return 0.004
			}
			return 0.03
		}, "0.03; 0.004 for digits; 0.01 for cw")
	atTarget = param.Int("target", -1, "−1: untargeted (raise −log p_y); a class ỹ: targeted (raise log p_ỹ)").Range(-1, 9)
	atIters  = param.Int("iters", 40, "attack steps (fgsm: 1; deepfool: at most iters; cw: all its rounds' Adam steps)").Range(1, 1000).
			DefaultWhen(func(v param.Values) bool { return atMethod.Get(v) == adversarial.CW }, cwRounds*40,
			"40; 200 for cw (5 rounds of 40 Adam steps)")
	atPoint  = param.Int("point", 10, "which correctly classified test example to attack: 0 is the least confident").Range(0, 999)
	atTrainE = param.Float("train_eps", 0.3, "ε of the adversarially trained model the accuracy curve compares").Range(1e-6, 5).
			DefaultWhen(func(v param.Values) bool { return atModel.Get(v) == taskDigits }, 0.08, "0.3; 0.08 for digits")
)

// Attack runs FGSM or PGD (seed 001 §17 L1545–L1553, [A32]), or one of
// the minimal-perturbation attacks DeepFool (Moosavi-Dezfooli et al. 2016)
// and Carlini & Wagner's L2 (2017), on one test example of a network the
// sim trains first: on the plane the point walks across the boundary
// (inside its box or disc for FGSM and PGD); on digits the clean digit,
// the perturbation and the adversarial digit are drawn. ‖δ‖ is drawn
// against the least fooling ‖δ‖ found, beside the ε a one-step FGSM
// needs. The accuracy against ε compares the clean model with an
// adversarially trained one.
var Attack = &sims.Spec{
	Name:   "attack",
	Title:  "Adversarial attacks: FGSM, PGD, DeepFool and Carlini–Wagner, targeted or not, on a 2-D classifier or the digits",
	Source: "seed 001 §17 L1545–L1559 ([A32], [A33]; erratum E26); Moosavi-Dezfooli et al. 2016; Carlini & Wagner 2017",
	Steps:  40,
	Speed:  2,
	Params: param.List(atModel, atSize, atMethod, atNorm, atEps, atStep, atTarget, atIters, atPoint, atTrainE),
	New:    newAttack,
	Size:   attackSize,

	Metrics: attackMetrics,
}

// attackSize is the task and the trained network (the adversarially
// trained one is let go after its accuracy curve), the attack on one
// example (with DeepFool's or CW's state), the iterates' path, the trace
// of the objective, p_y, ‖δ‖ and the least fooling ‖δ‖ with the five
// curves a Frame copies, and what the network's last pass keeps: the
// example's (the objective's pass at step 0 lets the decision map's go);
// on the plane the decision map, drawn once and kept; for digits the
// example's three images.
func attackSize(cfg sims.Config) int64 {
	v := cfg.Values
	kind, side, n := atModel.Get(v), int(atSize.Get(v)), attackPlaneN
	if kind == taskDigits {
		n = attackDigitsN
	}
	a := taskArch(kind, side)
	b := taskBytes(kind, n, side) + adversarial.AttackBytes(a, lossOf(kind), 1, a.In, a.Out) +
		sims.TraceBytesAfter(4, 5, atIters.Get(v)+1) +
		4*tensor.Appended(atIters.Get(v)+1+cwRounds) + adversarial.ExtraBytes(atMethod.Get(v), 1, a.In, a.Out)
	b += forwardBytes(a, 1)
	if kind == taskPlane {
		b += mapBytes(testSize(kind, n))
	} else {
		b += 3 * tensor.Alloc(a.In)
	}
	return tensor.Slack(32<<10 + b)
}

// Training lengths of the sims' models: enough for a clean fit of each
// task at a second or so.
const (
	planeTrainSteps  = 1500
	digitsTrainSteps = 800
	advInner         = 5 // attack steps inside one adversarial-training step
	accGridN         = 6 // ε values of the accuracy curve, after 0
	accAttackSteps   = 10
	attackPlaneN     = 400  // two-moons points
	attackDigitsN    = 1500 // digits
	// CW's binary search: rounds (at most; iters/rounds Adam steps each),
	// its first c, Adam's default rate (C&W's 0.01), and DeepFool's
	// overshoot.
	cwRounds  = 5
	cwC0      = 0.1
	cwRate    = 0.01
	overshoot = adversarial.DefaultOvershoot
	// fgsmGrid is the ε values of the line search for the least ε a
	// one-step FGSM needs (then 40 bisections).
	fgsmGrid = 200
)

type attackSim struct {
	t          *task
	model      *nn.MLP
	atk        *adversarial.Attack
	label      int // the example's true class
	target     int // −1 untargeted
	iters      int
	x0         []float64
	path       [][2]float64 // plane: the iterates
	breaks     []int        // plane: where CW's rounds start again from x₀ in path
	trace      *sims.Trace  // f, p(true class), ‖δ‖, the least fooling ‖δ‖ so far
	best       float64      // the least ‖δ‖ of a fooling iterate (+Inf: none yet)
	bestPt     [2]float64   // plane: that iterate
	fgsmEps    float64      // the least ε one FGSM step needs (+Inf: none up to fgsmTop)
	fgsmTop    float64
	fgsmPt     [2]float64 // plane: where that step lands
	grid       []float64
	accClean   []float64
	accRobust  []float64
	trainEps   float64
	flippedAt  int // the first step whose iterate is misclassified (0: not yet)
	cfg        adversarial.Config
	probsNow   []float64
	exampleIdx int
	regions    sims.CanvasChart // plane: the model's decision map
}

func newAttack(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	var (
		t   *task
		err error
	)
	steps := planeTrainSteps
	if atModel.Get(v) == taskDigits {
		t, err = newDigitsTask(cfg.Seed, attackDigitsN, int(atSize.Get(v)))
		steps = digitsTrainSteps
	} else {
		t, err = newPlaneTask(cfg.Seed, attackPlaneN)
	}
	if err != nil {
		return nil, err
	}
	s := &attackSim{t: t, target: atTarget.Get(v), iters: atIters.Get(v), trainEps: atTrainE.Get(v), best: math.Inf(1)}
	if s.target >= t.classes {
		return nil, fmt.Errorf("parameter target = %d: the %s task has classes 0–%d (−1: untargeted)", s.target, t.kind, t.classes-1)
	}
	s.cfg = adversarial.Config{Method: atMethod.Get(v), Norm: atNorm.Get(v), Eps: atEps.Get(v), Step: atStep.Get(v),
		Lo: t.lo, Hi: t.hi}
	switch s.cfg.Method {
	case adversarial.FGSM:
		s.iters = 1
	case adversarial.DeepFool:
		s.cfg.Overshoot = overshoot
	case adversarial.CW:
		// An L2 attack: its ball drawn, its distances and the accuracy
		// curve are L2 too.
		s.cfg.Norm, s.cfg.C0 = adversarial.L2, cwC0
		s.cfg.Rounds = min(cwRounds, s.iters)
		s.cfg.Inner = s.iters / s.cfg.Rounds
		s.iters = s.cfg.Rounds * s.cfg.Inner
	}
	// Validate the attack before spending a second on training.
	if _, err := adversarial.New(mustMLP(t), nn.Logistic, make([]float64, t.train.D), []int{0}, nil, s.cfg); err != nil {
		return nil, err
	}
	if s.model, err = t.trainModel(cfg.Seed, steps, 1, adversarial.Config{}); err != nil {
		return nil, err
	}
	robustCfg := adversarial.Config{Method: adversarial.SignPGD, Norm: s.cfg.Norm, Eps: s.trainEps,
		Step: 2.5 * s.trainEps / advInner, Lo: t.lo, Hi: t.hi}
	robust, err := t.trainModel(cfg.Seed, steps, advInner, robustCfg)
	if err != nil {
		return nil, sims.Blame(err, v, sims.As("eps", atTrainE))
	}
	top := 2 * s.cfg.Eps
	if t.hi > t.lo {
		top = math.Min(top, t.hi-t.lo)
	}
	s.grid = epsGrid(top, accGridN)
	if s.accClean, err = t.robustCurve(s.model, s.cfg.Norm, s.grid, accAttackSteps); err != nil {
		return nil, err
	}
	if s.accRobust, err = t.robustCurve(robust, s.cfg.Norm, s.grid, accAttackSteps); err != nil {
		return nil, err
	}
	// The example: the correctly classified test rows (not of the target
	// class) ranked from the least confident; point picks one.
	out := forward(s.model, t.test.X)
	k := t.outputs()
	var cand []int
	conf := make([]float64, t.test.N)
	for i := range t.test.N {
		y := t.test.Labels[i]
		if nn.Predict(out[i*k:(i+1)*k]) == y && y != s.target {
			cand = append(cand, i)
			conf[i] = probs(out[i*k : (i+1)*k])[y]
		}
	}
	sort.SliceStable(cand, func(a, b int) bool { return conf[cand[a]] < conf[cand[b]] })
	if atPoint.Get(v) >= len(cand) {
		return nil, fmt.Errorf("parameter point = %d: only %d test examples are classified right", atPoint.Get(v), len(cand))
	}
	s.exampleIdx = cand[atPoint.Get(v)]
	d := t.test.D
	s.x0 = t.test.X[s.exampleIdx*d : (s.exampleIdx+1)*d]
	s.label = t.test.Labels[s.exampleIdx]
	var targets []int
	if s.target >= 0 {
		targets = []int{s.target}
	}
	loss := nn.CrossEntropy
	if k == 1 {
		loss = nn.Logistic
	}
	if s.atk, err = adversarial.New(s.model, loss, s.x0, []int{s.label}, targets, s.cfg); err != nil {
		return nil, err
	}
	s.trace = sims.NewTrace(0, 4)
	s.probsNow = probs(forward(s.model, s.x0))
	s.fgsmLineSearch(loss, targets)
	if t.kind == taskPlane {
		s.path = append(s.path, [2]float64{s.x0[0], s.x0[1]})
		title := fmt.Sprintf("p(class 1); the %s ball about x₀", s.cfg.Norm)
		if !s.bounded() {
			title = fmt.Sprintf("p(class 1), %s's path; ◆ the least fooling ‖δ‖, △ one FGSM step's", s.cfg.Method)
		}
		s.regions = t.decisionMap(title, s.model)
	}
	// Step 0: the clean example, fooled by nothing yet. (The objective's
	// pass, the network's last, lets the decision map's go.)
	s.trace.Add(s.atk.Objective(), s.probsNow[s.label], 0, math.Inf(1))
	return s, nil
}

// bounded says whether the method keeps δ in the ε-ball (FGSM and PGD).
func (s *attackSim) bounded() bool {
	return s.cfg.Method != adversarial.DeepFool && s.cfg.Method != adversarial.CW
}

// fgsmLineSearch finds the least ε at which one FGSM step in the attack's
// norm fools the model: the step's direction at x₀ (sgn ∇f for L∞, the
// unit ∇f for L2) does not depend on ε, so a scan of fgsmGrid values up
// to the widest ε the pane allows (the range's width, or eps's maximum)
// brackets the first fooling ε, and bisection narrows it.
func (s *attackSim) fgsmLineSearch(loss nn.Loss, targets []int) {
	t, d := s.t, len(s.x0)
	s.fgsmTop, s.fgsmEps = 5, math.Inf(1)
	if t.hi > t.lo {
		s.fgsmTop = t.hi - t.lo
	}
	// The direction: one FGSM step of size 1 with no range, from x₀.
	a, err := adversarial.New(s.model, loss, s.x0, []int{s.label}, targets,
		adversarial.Config{Method: adversarial.FGSM, Norm: s.cfg.Norm, Eps: 1})
	if err != nil || a.Step() != nil {
		return
	}
	dir := make([]float64, d)
	for i, v := range a.X() {
		dir[i] = v - s.x0[i]
	}
	at := func(eps float64, dst []float64) {
		for i := range dst {
			dst[i] = s.x0[i] + eps*dir[i]
			if t.hi > t.lo {
				dst[i] = math.Min(math.Max(dst[i], t.lo), t.hi)
			}
		}
	}
	fools := func(out []float64) bool {
		c := argmax(probs(out))
		if s.target >= 0 {
			return c == s.target
		}
		return c != s.label
	}
	rows := make([]float64, fgsmGrid*d)
	for j := range fgsmGrid {
		at(s.fgsmTop*float64(j+1)/fgsmGrid, rows[j*d:(j+1)*d])
	}
	out, k := forward(s.model, rows), t.outputs()
	first := -1
	for j := range fgsmGrid {
		if fools(out[j*k : (j+1)*k]) {
			first = j
			break
		}
	}
	if first < 0 {
		return
	}
	lo, hi := s.fgsmTop*float64(first)/fgsmGrid, s.fgsmTop*float64(first+1)/fgsmGrid
	x := rows[:d]
	for range 40 {
		mid := (lo + hi) / 2
		at(mid, x)
		if fools(forward(s.model, x)) {
			hi = mid
		} else {
			lo = mid
		}
	}
	s.fgsmEps = hi
	if t.kind == taskPlane {
		at(hi, x)
		s.fgsmPt = [2]float64{x[0], x[1]}
	}
}

// mustMLP is a throwaway linear model of the task's shape, to validate an
// attack's configuration before training.
func mustMLP(t *task) *nn.MLP {
	m, _ := nn.NewMLP(nn.MLPConfig{In: t.train.D, Out: 1, Act: nn.Tanh}, streamRNG(0, initStream))
	return m
}

func (s *attackSim) Step() error {
	if s.atk.Steps() >= s.iters || s.atk.Done() {
		return sims.ErrConverged
	}
	round, _ := s.atk.Round()
	err := s.atk.Step()
	done := errors.Is(err, algo.ErrConverged)
	if err != nil && !done {
		return err
	}
	x := s.atk.X()
	s.probsNow = probs(forward(s.model, x))
	if s.path != nil {
		if r, _ := s.atk.Round(); r != round {
			// A CW round starts again from x₀.
			s.breaks = append(s.breaks, len(s.path))
			s.path = append(s.path, [2]float64{s.x0[0], s.x0[1]})
		}
		s.path = append(s.path, [2]float64{x[0], x[1]})
	}
	dist := s.atk.Dist(0)
	if s.fooled() {
		if s.flippedAt == 0 {
			s.flippedAt = s.atk.Steps()
		}
		if dist < s.best {
			s.best = dist
			if s.path != nil {
				s.bestPt = [2]float64{x[0], x[1]}
			}
		}
	}
	// The objective, p(true) and ‖δ‖ of the same point: the one moved to.
	s.trace.Add(s.atk.Objective(), s.probsNow[s.label], dist, s.best)
	if done || s.atk.Steps() >= s.iters {
		return sims.ErrConverged
	}
	return nil
}

// fooled says whether the current iterate is misclassified (untargeted)
// or classified as the target (targeted).
func (s *attackSim) fooled() bool {
	c := argmax(s.probsNow)
	if s.target >= 0 {
		return c == s.target
	}
	return c != s.label
}

func (s *attackSim) Frame() sims.Frame {
	metrics := []sims.Metric{
		{Name: "eps", Value: s.cfg.Eps},
		{Name: "dist", Value: s.atk.Dist(0)},
		sims.MetricOr("best ‖δ‖", s.best, notFooled),
		sims.MetricOr("FGSM ε", s.fgsmEps, noFGSM),
		{Name: "objective", Value: s.atk.Objective()},
		{Name: "p_true", Value: s.probsNow[s.label]},
		{Name: "class", Value: float64(argmax(s.probsNow))},
		s.flippedMetric(),
	}
	if s.cfg.Method == adversarial.CW {
		r, _ := s.atk.Round()
		metrics = append(metrics, sims.Metric{Name: "c", Value: s.atk.C(0)}, sims.Metric{Name: "round", Value: float64(r + 1)})
	} else {
		metrics = append(metrics, sims.Metric{Name: "c", Undefined: notCW}, sims.Metric{Name: "round", Undefined: notCW})
	}
	var charts []sims.Chart
	if s.t.kind == taskPlane {
		charts = append(charts, s.planeChart())
	} else {
		charts = append(charts, s.digitImages())
	}
	charts = append(charts, s.distChart(), s.objectiveChart(), s.accuracyChart())
	return sims.Frame{Sim: Attack.Name, Step: s.atk.Steps(), Metrics: metrics, Charts: charts, Text: s.notes()}
}

// planeChart draws the clean model's regions, the ball about x₀ and the
// iterate path.
func (s *attackSim) planeChart() sims.CanvasChart {
	c := s.regions // the model does not change: its map is drawn once
	c.Paths, c.Markers = nil, nil
	p := sims.Path{Class: 3}
	for _, q := range s.path {
		p.X, p.Y = append(p.X, q[0]), append(p.Y, q[1])
	}
	ball := ballPath(s.x0[0], s.x0[1], s.cfg.Eps, s.cfg.Norm, 2)
	if !s.bounded() {
		// No ball constrains DeepFool or CW: FGSM's ε-ball is the
		// comparison, dotted, and the least fooling ‖δ‖ is a circle (a
		// box for L∞ DeepFool) that touches the boundary.
		ball.Dotted = true
		if !math.IsInf(s.best, 1) {
			c.Paths = append(c.Paths, ballPath(s.x0[0], s.x0[1], s.best, s.cfg.Norm, 4))
		}
	}
	c.Paths = append(c.Paths, ball)
	// The path, one polyline per CW round (each starts again from x₀).
	from := 0
	for _, b := range append(s.breaks, len(s.path)) {
		p := sims.Path{Class: 3}
		for _, q := range s.path[from:b] {
			p.X, p.Y = append(p.X, q[0]), append(p.Y, q[1])
		}
		c.Paths = append(c.Paths, p)
		from = b
	}
	last := s.path[len(s.path)-1]
	c.Markers = append(c.Markers, sims.Marker{X: s.x0[0], Y: s.x0[1], Glyph: '○', Class: 2})
	if !math.IsInf(s.fgsmEps, 1) && !s.bounded() {
		c.Markers = append(c.Markers, sims.Marker{X: s.fgsmPt[0], Y: s.fgsmPt[1], Glyph: '△', Class: 2})
	}
	if !math.IsInf(s.best, 1) && !s.bounded() {
		c.Markers = append(c.Markers, sims.Marker{X: s.bestPt[0], Y: s.bestPt[1], Glyph: '◆', Class: 4})
	}
	c.Markers = append(c.Markers, sims.Marker{X: last[0], Y: last[1], Glyph: '●', Class: 3})
	return c
}

// digitImages draws the clean digit, the perturbation (diverging) and the
// adversarial digit.
func (s *attackSim) digitImages() sims.ImageChart {
	w := s.t.side
	x := s.atk.X()
	delta := make([]float64, len(x))
	for i := range x {
		delta[i] = x[i] - s.x0[i]
	}
	p0 := probs(forward(s.model, s.x0))
	c := argmax(s.probsNow)
	// Grey for the digits; the perturbation is scaled into [0, 1] about ½.
	m := math.Max(maxAbs(delta), 1e-12)
	shown := make([]float64, len(delta))
	for i, d := range delta {
		shown[i] = 0.5 + 0.5*d/m
	}
	return sims.ImageChart{Title: "clean · perturbation (grey = 0) · adversarial", Scale: sims.Grey, Lo: 0, Hi: 1,
		Images: []sims.Image{
			{Caption: fmt.Sprintf("%d (%.0f%%)", s.label, 100*p0[s.label]), W: w, H: w, Pix: append([]float64(nil), s.x0...)},
			{Caption: fmt.Sprintf("δ, ±%.2g", m), W: w, H: w, Pix: shown},
			{Caption: fmt.Sprintf("→ %d (%.0f%%)", c, 100*s.probsNow[c]), W: w, H: w, Pix: append([]float64(nil), x...)},
		}}
}

func (s *attackSim) objectiveChart() sims.LineChart {
	x0, x1 := s.trace.Span()
	name := "f = −log p_y"
	if s.target >= 0 {
		name = "f = log p_ỹ"
	}
	title := "attacked objective and p(true class)"
	if s.cfg.Method == adversarial.CW {
		name, title = "‖δ‖² + c·max(g, 0)", "CW's objective (restarts each round) and p(true class)"
	}
	return sims.LineChart{Title: title, X0: x0, X1: x1, XLabel: "step",
		Series: []sims.Series{{Name: name, Y: s.trace.Column(0), Class: 0}, {Name: "p_y", Y: s.trace.Column(1), Class: 1}}}
}

// distChart draws ‖δ‖ at each step against the least fooling ‖δ‖ found so
// far (a gap until one fools), and the ε of the ball (FGSM and PGD) or of
// one FGSM step that fools (DeepFool, CW) as a reference.
func (s *attackSim) distChart() sims.LineChart {
	x0, x1 := s.trace.Span()
	best := s.trace.Column(3)
	for i, v := range best {
		if math.IsInf(v, 1) {
			best[i] = math.NaN()
		}
	}
	ref, refName := s.cfg.Eps, "ε"
	if !s.bounded() {
		ref, refName = s.fgsmEps, "FGSM's ε"
	}
	series := []sims.Series{{Name: "‖δ‖", Y: s.trace.Column(2), Class: 3}, {Name: "least fooling", Y: best, Class: 4}}
	if !math.IsInf(ref, 1) {
		series = append(series, sims.Series{Name: refName, Y: s.trace.Map(func(int) float64 { return ref }), Class: 2, Bound: true})
	}
	return sims.LineChart{Title: fmt.Sprintf("‖x − x₀‖%s and the least that fools", normSub(s.cfg.Norm)), X0: x0, X1: x1,
		XLabel: "step", Series: series}
}

// normSub is the norm's subscript.
func normSub(n adversarial.Norm) string {
	if n == adversarial.L2 {
		return "₂"
	}
	return "∞"
}

func (s *attackSim) accuracyChart() sims.LineChart {
	return sims.LineChart{Title: fmt.Sprintf("test accuracy against ε (%d-step PGD)", accAttackSteps),
		X0: 0, X1: s.grid[len(s.grid)-1], XLabel: "ε", Fraction: true,
		Series: []sims.Series{{Name: "clean-trained", Y: s.accClean, Class: 0},
			{Name: fmt.Sprintf("adv-trained ε=%g", s.trainEps), Y: s.accRobust, Class: 1}}}
}

func (s *attackSim) notes() []string {
	kind := "untargeted: max −log p_y"
	if s.target >= 0 {
		kind = fmt.Sprintf("targeted at %d: max log p_ỹ", s.target)
	}
	proj := "clip(x_i, x₀_i − ε, x₀_i + ε), not the notes' min{x_i, ε} (E26)"
	if s.cfg.Norm == adversarial.L2 {
		proj = "x₀ + (x − x₀)·min(1, ε/‖x − x₀‖)"
	}
	if s.t.hi > s.t.lo {
		proj += ", then into [0, 1]"
	}
	state := "not fooled yet"
	if s.flippedAt > 0 {
		state = fmt.Sprintf("fooled at step %d", s.flippedAt)
	}
	fgsm := fmt.Sprintf("one FGSM step fools from ε = %.3g", s.fgsmEps)
	if math.IsInf(s.fgsmEps, 1) {
		fgsm = fmt.Sprintf("no single FGSM step up to ε = %g fools", s.fgsmTop)
	}
	best := "none fools yet"
	switch {
	case math.IsInf(s.best, 1):
	case s.bounded():
		best = fmt.Sprintf("the least fooling ‖δ‖%s so far is %.3g", normSub(s.cfg.Norm), s.best)
	case s.best < s.cfg.Eps:
		best = fmt.Sprintf("the least fooling ‖δ‖%s so far is %.3g, %.2g times below the ε = %g the ball methods get",
			normSub(s.cfg.Norm), s.best, s.cfg.Eps/s.best, s.cfg.Eps)
	default:
		best = fmt.Sprintf("the least fooling ‖δ‖%s so far is %.3g, above the ε = %g the ball methods get",
			normSub(s.cfg.Norm), s.best, s.cfg.Eps)
	}
	switch s.cfg.Method {
	case adversarial.DeepFool:
		kind = "untargeted: the nearest boundary f_k = f_y"
		if s.target >= 0 {
			kind = fmt.Sprintf("targeted at %d: the boundary f_ỹ = f_ĉ", s.target)
		}
		dual := "r = |f′|/‖w′‖₂² · w′"
		if s.cfg.Norm == adversarial.LInf {
			dual = "r = |f′|/‖w′‖₁ · sgn w′ (the dual norm)"
		}
		clip := ""
		if s.t.hi > s.t.lo {
			clip = ", clipped into [0, 1]"
		}
		return []string{
			fmt.Sprintf("deepfool, %s: min ‖δ‖ subject to a changed label; %s; %s", s.cfg.Norm, kind, state),
			fmt.Sprintf("%s; %s (dotted)", best, fgsm),
			fmt.Sprintf("each step goes to the nearest boundary of the logits linearised at x_i, f′ = f_k − f_ĉ, w′ = ∇f′: %s; x = x₀ + %g·Σr%s", dual, 1+overshoot, clip),
		}
	case adversarial.CW:
		r, in := s.atk.Round()
		g := "g = Z_y − max_{i≠y} Z_i"
		if s.target >= 0 {
			g = fmt.Sprintf("g = max_{i≠%d} Z_i − Z_%d", s.target, s.target)
		}
		box := "Adam on x itself (the plane has no range)"
		if s.t.hi > s.t.lo {
			box = "Adam on w, x = ½(tanh w + 1) keeps the pixels in [0, 1]"
		}
		return []string{
			fmt.Sprintf("cw (L2): min ‖δ‖₂² + c·max(%s, 0); %s", g, state),
			fmt.Sprintf("%s; %s (dotted)", best, fgsm),
			fmt.Sprintf("round %d of %d at c = %.3g, Adam step %d of %d: %s; between rounds c goes to the middle of its bracket (the last c that failed, the least that fooled), ×10 while none has fooled",
				r+1, s.cfg.Rounds, s.atk.C(0), in, s.cfg.Inner, box),
		}
	}
	return []string{
		fmt.Sprintf("%s, %s, ε = %g: %s; %s", s.cfg.Method, s.cfg.Norm, s.cfg.Eps, kind, state),
		"projection: " + proj,
		fmt.Sprintf("‖x − x₀‖ = %.4g ≤ ε at every iterate; %s; %s", s.atk.Dist(0), best, fgsm),
	}
}

// noFGSM is why FGSM ε is undefined; notCW why c and round are.
const (
	noFGSM = "no single FGSM step fools this example at any ε the pane allows"
	notCW  = "only cw has a constant c and rounds"
)

// notFooled is why flipped_at is undefined.
const notFooled = "the point has not been fooled yet"

// flippedMetric is the first step that fooled the model, undefined while
// none has (a 0 there read as a step).
func (s *attackSim) flippedMetric() sims.Metric {
	if s.flippedAt == 0 {
		return sims.Metric{Name: "flipped_at", Undefined: notFooled}
	}
	return sims.Metric{Name: "flipped_at", Value: float64(s.flippedAt)}
}

func (s *attackSim) Result() map[string]any {
	r := map[string]any{
		"steps": s.atk.Steps(), "dist": s.atk.Dist(0), "objective": s.atk.Objective(), "probs": s.probsNow,
		"label": s.label, "class": argmax(s.probsNow), "flipped_at": s.flippedAt, "eps_grid": s.grid,
		"accuracy_clean_trained": s.accClean, "accuracy_adv_trained": s.accRobust,
		"best_dist": s.best, "fgsm_eps": s.fgsmEps,
	}
	undef := map[string]string{}
	if s.flippedAt == 0 {
		r["flipped_at"], undef["flipped_at"] = nil, notFooled
	}
	if math.IsInf(s.best, 1) {
		undef["best_dist"] = notFooled
	}
	if math.IsInf(s.fgsmEps, 1) {
		undef["fgsm_eps"] = noFGSM
	}
	if s.cfg.Method == adversarial.CW {
		r["c"] = s.atk.C(0)
	}
	if len(undef) > 0 {
		r["undefined"] = undef
	}
	return r
}
