package seqsim

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo/seq"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// Reward is reward learning from pairwise preferences and the
// KL-regularised policy it feeds (seed 001 §12, L1215–1228, [A21]): a
// reward model learns r̂ from comparisons sampled by the Bradley–Terry
// model of true rewards r* (loss −log σ(r̂_w − r̂_l), L1220), while a policy
// climbs E_π[r̂] − β KL(π‖π_SFT) by mirror ascent towards π* ∝
// π_SFT·exp(r̂/β) (derived, not in the notes), and so towards π_SFT·exp(r*/β)
// as r̂ converges.
var Reward = &sims.Spec{
	Name:   "reward",
	Title:  "Reward learning from preferences (Bradley–Terry) and the KL-regularised policy π_SFT·exp(r/β)",
	Source: "seed 001 §12 (L1215–1228, [A21])",
	Steps:  300,
	Speed:  10,
	Params: param.List(rwItems, rwSFT, rwBeta, rwBatch, rwLR, rwEta),
	New:    newReward,
	Size:   func(sims.Config) int64 { return rewardBytes },

	Metrics: rewardMetrics,
}

// rewardBytes is a reward sim whatever its parameters (at most ten
// responses and their K×K wins): the loss and KL trace, full, with the
// Frame's copies of its columns.
var rewardBytes = 32<<10 + sims.TraceBytes(4)

// sftKind names the supervised policy the KL term anchors to.
type sftKind string

func (k sftKind) String() string { return string(k) }

const (
	sftUniform sftKind = "uniform"
	sftSkewed  sftKind = "skewed"
)

var (
	rwItems = param.Int("items", 6, "responses y, with true rewards r* drawn N(0, 1) from the seed").Range(2, sims.MaxClasses)
	rwSFT   = param.Choice("sft", []sftKind{sftUniform, sftSkewed}, sftSkewed,
		"π_SFT: uniform, or skewed (∝ 0.6^i: it favours the first responses, whatever their reward)")
	rwBeta  = param.Float("beta", 0.5, "β, the weight of KL(π‖π_SFT): large keeps π_SFT, small goes to the best response").Range(0.01, 100)
	rwBatch = param.Int("batch", 20, "comparisons sampled a step").Range(1, 10_000)
	rwLR    = param.Float("lr", 2, "the reward model's gradient step on the mean loss").Range(0, 20).OpenMin()
	rwEta   = param.Float("eta", 1, "the policy's mirror-ascent step η: the error shrinks by |1 − ηβ| a step (ηβ < 2)").Range(0, 1000).OpenMin().
		DefaultFunc(func(v param.Values) float64 { return param.Sig(0.5/rwBeta.Get(v), 3) }, "0.5/β (ηβ = ½)")
)

type rewardSim struct {
	m       *seq.RewardModel
	p       *seq.Policy
	beta    float64
	eta     float64
	target  []float64 // π* for r*
	learned []float64 // π* for r̂
	trace   *sims.Trace
	floor   float64
	items   []float64 // 0 … K−1, the stems' x
}

func newReward(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	K := rwItems.Get(v)
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x72_6577_6172_64)) // "reward"
	truth := make([]float64, K)
	mean := 0.0
	for i := range truth {
		truth[i] = rng.NormFloat64()
		mean += truth[i] / float64(K)
	}
	for i := range truth {
		truth[i] -= mean
	}
	m, err := seq.NewRewardModel(truth, rwLR.Get(v), rwBatch.Get(v), rng)
	if err != nil {
		return nil, err
	}
	sft := make([]float64, K)
	z := 0.0
	for i := range sft {
		sft[i] = 1
		if rwSFT.Get(v) == sftSkewed {
			sft[i] = math.Pow(0.6, float64(i))
		}
		z += sft[i]
	}
	for i := range sft {
		sft[i] /= z
	}
	beta := rwBeta.Get(v)
	p, err := seq.NewPolicy(sft, beta, rwEta.Get(v))
	if err != nil {
		return nil, sims.Blame(err, v, sims.As("eta", rwEta))
	}
	s := &rewardSim{m: m, p: p, beta: beta, eta: rwEta.Get(v), target: make([]float64, K), learned: make([]float64, K),
		trace: sims.NewTrace(0, 4), floor: m.ExpectedLoss(truth), items: make([]float64, K)}
	for i := range s.items {
		s.items[i] = float64(i + 1)
	}
	seq.KLTarget(truth, sft, beta, s.target)
	s.record()
	return s, nil
}

// record adds the step's losses and distances to the trace.
func (s *rewardSim) record() {
	r := s.m.Rewards()
	seq.KLTarget(r, s.p.SFT(), s.beta, s.learned)
	toLearned := seq.KL(s.p.Probs(), s.learned)
	if s.m.Comparisons() == 0 {
		toLearned = nan // 0 exactly, at π = π_SFT = π*(0): no point on a log scale
	}
	s.trace.Add(s.m.Loss(r), s.m.ExpectedLoss(r), seq.KL(s.p.Probs(), s.target), toLearned)
}

// Step samples comparisons, moves the rewards and then the policy.
func (s *rewardSim) Step() error {
	if err := s.m.Step(); err != nil {
		return err
	}
	s.p.Step(s.m.Rewards())
	s.record()
	return nil
}

// rewardGap is the largest error of a learned difference r̂_i − r̂_j.
func (s *rewardSim) rewardGap() float64 {
	r, t := s.m.Rewards(), s.m.Truth()
	g := 0.0
	for i := range r {
		for j := range i {
			g = max(g, math.Abs((r[i]-r[j])-(t[i]-t[j])))
		}
	}
	return g
}

func (s *rewardSim) Frame() sims.Frame {
	K := len(s.items)
	steps := s.trace.Len() - 1
	kl := seq.KL(s.p.Probs(), s.target)
	f := sims.Frame{Sim: Reward.Name, Step: steps, Metrics: []sims.Metric{
		{Name: "comparisons", Value: float64(s.m.Comparisons())},
		{Name: "loss", Value: s.m.Loss(s.m.Rewards())},
		{Name: "max |Δr̂ − Δr*|", Value: s.rewardGap()},
		{Name: "KL(π‖π*)", Value: kl},
	}}
	top := 0.5
	for _, x := range s.m.Truth() {
		top = max(top, math.Abs(x)+0.3)
	}
	rew := sims.CanvasChart{Title: "rewards, centred: true r* and learned r̂", View: sims.Rect{XMin: 0.4, XMax: float64(K) + 0.6, YMin: -top, YMax: top},
		Paths:  []sims.Path{{X: []float64{0.4, float64(K) + 0.6}, Y: []float64{0, 0}, Class: 3, Dotted: true}},
		Legend: []string{"r*", "r̂"}, XLabel: "response"}
	for i, r := range [][]float64{s.m.Truth(), s.m.Rewards()} {
		p, m := stems(s.items, r, 0.12*float64(2*i-1), i)
		rew.Paths, rew.Markers = append(rew.Paths, p...), append(rew.Markers, m...)
	}
	pol := sims.CanvasChart{Title: "policies: π_SFT, π, π* ∝ π_SFT·exp(r*/β)", View: sims.Rect{XMin: 0.4, XMax: float64(K) + 0.6, YMin: 0, YMax: 1},
		Legend: []string{"π_SFT", "π", "π*"}, XLabel: "response"}
	for i, p := range [][]float64{s.p.SFT(), s.p.Probs(), s.target} {
		ps, ms := stems(s.items, p, 0.2*float64(i-1), i)
		pol.Paths, pol.Markers = append(pol.Paths, ps...), append(pol.Markers, ms...)
	}
	x0, x1 := s.trace.Span()
	exp := s.trace.Column(1)
	loss := sims.LineChart{Title: "reward-model loss", X0: x0, X1: x1, XLabel: "step",
		Series: []sims.Series{
			{Name: "on the comparisons", Y: s.trace.Column(0), Class: 0},
			{Name: "expected", Y: exp, Class: 1},
			{Name: "at r* (the floor)", Y: constant(len(exp), s.floor), Class: 2, Bound: true},
		}}
	dist := sims.LineChart{Title: "KL(π ‖ π*)", LogY: true, X0: x0, X1: x1, XLabel: "step",
		Series: []sims.Series{
			{Name: "π* of r*", Y: s.trace.Column(2), Class: 2},
			{Name: "π* of r̂", Y: s.trace.Column(3), Class: 1},
		}}
	f.Charts = []sims.Chart{rew, pol, loss, dist}
	f.Text = []string{
		"loss −log σ(r̂_w − r̂_l) (both r_θ), log 2 at r̂ = 0; r̂ up to a constant",
		fmt.Sprintf("π* ∝ π_SFT·exp(r/β), derived: β→∞ keeps π_SFT, β→0 the best; ηβ = %.3g", s.beta*s.eta),
	}
	return f
}

func (s *rewardSim) Result() map[string]any {
	return map[string]any{"comparisons": s.m.Comparisons(), "rewards": s.m.Rewards(), "truth": s.m.Truth(),
		"policy": s.p.Probs(), "target": s.target, "kl": seq.KL(s.p.Probs(), s.target), "reward_gap": s.rewardGap()}
}
