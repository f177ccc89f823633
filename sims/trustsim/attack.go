package trustsim

import (
	"fmt"
	"github.com/thelab/lab/algo/tensor"
	"math"
	"sort"

	"github.com/thelab/lab/algo/adversarial"
	"github.com/thelab/lab/algo/nn"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// attack's parameters.
var (
	atModel = param.Choice("model", []taskKind{taskPlane, taskDigits}, taskPlane,
		"plane: an MLP on two moons, the point walking in its ball; digits: an MLP on the procedural digits")
	atSize   = param.Choice("size", []imageSide{8, 16}, 8, "digits: side of the images")
	atMethod = param.Choice("method", adversarial.Methods, adversarial.SignPGD,
		"fgsm: x ← x + ε sgn ∇f (one step); pgd: x ← x + η∇f (the notes); pgd-sign: x ← x + η sgn ∇f (Madry et al.); each then projected")
	atNorm = param.Choice("norm", adversarial.Norms, adversarial.LInf, "the ball ‖x − x₀‖ ≤ ε: linf (a box) or l2 (a disc)")
	// The radii start at 1e-6, not at 0: the accuracy curve's attacks take
	// steps of 2.5ε/10, which a denormal ε rounds to 0.
	atEps = param.Float("eps", 0.3, "radius ε of the ball (digits: pixels are in [0, 1], so ε ≤ 1)").Range(1e-6, 5).
		DefaultWhen(func(v param.Values) bool { return atModel.Get(v) == taskDigits }, 0.08, "0.3; 0.08 for digits")
	atStep = param.Float("step", 0.03, "η of pgd and pgd-sign").Range(0, 5).OpenMin().
		DefaultWhen(func(v param.Values) bool { return atModel.Get(v) == taskDigits }, 0.004, "0.03; 0.004 for digits")
	atTarget = param.Int("target", -1, "−1: untargeted (raise −log p_y); a class ỹ: targeted (raise log p_ỹ)").Range(-1, 9)
	atIters  = param.Int("iters", 40, "attack steps (fgsm: 1)").Range(1, 1000)
	atPoint  = param.Int("point", 10, "which correctly classified test example to attack: 0 is the least confident").Range(0, 999)
	atTrainE = param.Float("train_eps", 0.3, "ε of the adversarially trained model the accuracy curve compares").Range(1e-6, 5).
			DefaultWhen(func(v param.Values) bool { return atModel.Get(v) == taskDigits }, 0.08, "0.3; 0.08 for digits")
)

// Attack runs FGSM or PGD (seed 001 §17 L1545–L1553, [A32]) on one test
// example of a network the sim trains first: on the plane the point walks
// inside its box or disc across the boundary; on digits the clean digit,
// the perturbation and the adversarial digit are drawn. The accuracy
// against ε compares the clean model with an adversarially trained one.
var Attack = &sims.Spec{
	Name:   "attack",
	Title:  "Adversarial attacks: FGSM and PGD, targeted or not, L∞ or L2, on a 2-D classifier or the digits",
	Source: "seed 001 §17 L1545–L1559 ([A32], [A33]; erratum E26)",
	Steps:  40,
	Speed:  2,
	Params: param.List(atModel, atSize, atMethod, atNorm, atEps, atStep, atTarget, atIters, atPoint, atTrainE),
	New:    newAttack,
	Size:   attackSize,

	Metrics: attackMetrics,
}

// attackSize is the task and the trained network (the adversarially
// trained one is let go after its accuracy curve), the attack on one
// example, the iterates' path, the objective's trace, and what the
// network's last pass keeps: the example's (the objective's pass at the
// first frame lets the decision map's go); on the plane the decision
// map, drawn once and kept; for digits the example's three images.
func attackSize(cfg sims.Config) int64 {
	v := cfg.Values
	kind, side, n := atModel.Get(v), int(atSize.Get(v)), attackPlaneN
	if kind == taskDigits {
		n = attackDigitsN
	}
	a := taskArch(kind, side)
	b := taskBytes(kind, n, side) + adversarial.AttackBytes(a, lossOf(kind), 1, a.In, a.Out) + sims.TraceBytes(2) +
		4*tensor.Appended(atIters.Get(v)+1)
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
	trace      *sims.Trace  // f, p(true class)
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
	s := &attackSim{t: t, target: atTarget.Get(v), iters: atIters.Get(v), trainEps: atTrainE.Get(v)}
	if s.target >= t.classes {
		return nil, fmt.Errorf("parameter target = %d: the %s task has classes 0–%d (−1: untargeted)", s.target, t.kind, t.classes-1)
	}
	s.cfg = adversarial.Config{Method: atMethod.Get(v), Norm: atNorm.Get(v), Eps: atEps.Get(v), Step: atStep.Get(v),
		Lo: t.lo, Hi: t.hi}
	if s.cfg.Method == adversarial.FGSM {
		s.iters = 1
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
	s.trace = sims.NewTrace(0, 2)
	s.probsNow = probs(forward(s.model, s.x0))
	if t.kind == taskPlane {
		s.path = append(s.path, [2]float64{s.x0[0], s.x0[1]})
		s.regions = t.decisionMap(fmt.Sprintf("p(class 1); the %s ball about x₀", s.cfg.Norm), s.model)
	}
	return s, nil
}

// mustMLP is a throwaway linear model of the task's shape, to validate an
// attack's configuration before training.
func mustMLP(t *task) *nn.MLP {
	m, _ := nn.NewMLP(nn.MLPConfig{In: t.train.D, Out: 1, Act: nn.Tanh}, streamRNG(0, initStream))
	return m
}

func (s *attackSim) Step() error {
	if s.atk.Steps() >= s.iters {
		return sims.ErrConverged
	}
	if err := s.atk.Step(); err != nil {
		return err
	}
	x := s.atk.X()
	s.probsNow = probs(forward(s.model, x))
	// The objective and p(true) of the same point: the one moved to.
	s.trace.Add(s.atk.Objective(), s.probsNow[s.label])
	if s.path != nil {
		s.path = append(s.path, [2]float64{x[0], x[1]})
	}
	if s.flippedAt == 0 && s.fooled() {
		s.flippedAt = s.atk.Steps()
	}
	if s.atk.Steps() >= s.iters {
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
		{Name: "objective", Value: s.atk.Objective()},
		{Name: "p_true", Value: s.probsNow[s.label]},
		{Name: "class", Value: float64(argmax(s.probsNow))},
		s.flippedMetric(),
	}
	var charts []sims.Chart
	if s.t.kind == taskPlane {
		charts = append(charts, s.planeChart())
	} else {
		charts = append(charts, s.digitImages())
	}
	charts = append(charts, s.objectiveChart(), s.accuracyChart())
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
	c.Paths = append(c.Paths, ballPath(s.x0[0], s.x0[1], s.cfg.Eps, s.cfg.Norm, 2), p)
	last := s.path[len(s.path)-1]
	c.Markers = append(c.Markers, sims.Marker{X: s.x0[0], Y: s.x0[1], Glyph: '○', Class: 2},
		sims.Marker{X: last[0], Y: last[1], Glyph: '●', Class: 3})
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
	return sims.LineChart{Title: "attacked objective and p(true class)", X0: x0 + 1, X1: x1 + 1, XLabel: "step",
		Series: []sims.Series{{Name: name, Y: s.trace.Column(0), Class: 0}, {Name: "p_y", Y: s.trace.Column(1), Class: 1}}}
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
	return []string{
		fmt.Sprintf("%s, %s, ε = %g: %s; %s", s.cfg.Method, s.cfg.Norm, s.cfg.Eps, kind, state),
		"projection: " + proj,
		fmt.Sprintf("‖x − x₀‖ = %.4g ≤ ε at every iterate", s.atk.Dist(0)),
	}
}

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
	}
	if s.flippedAt == 0 {
		r["flipped_at"], r["undefined"] = nil, map[string]string{"flipped_at": notFooled}
	}
	return r
}
