// Package shapleysim runs the attributions of seed 001 §20: exact
// Banzhaf and Shapley values by enumeration beside the estimators that
// approach them — permutation Monte Carlo, the notes' Algorithm 3 and
// KernelSHAP — on the glove game, voting games, the OR example, random
// games and the lab's own digits model.
package shapleysim

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo/shapley"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// Shapley is the attribution lab of [A41]–[A44] (seed 001 L1722–L1798).
var Shapley = &sims.Spec{
	Name:   "shapley",
	Title:  "Shapley and Banzhaf: exact enumeration, permutation MC, Algorithm 3, KernelSHAP, efficiency meter",
	Source: "seed 001 §20 (Def 20.3, Example 20.4, Def 20.5, Algorithm 3, L1722–L1798)",
	Steps:  400,
	Speed:  10,
	Params: param.List(shGame, shN, shDigit, shExact),
	New:    newShapley,
	Size:   shapleySize,

	Metrics: shapleyMetrics,
}

type game string

func (g game) String() string { return string(g) }

const (
	gameGlove  game = "glove"
	gameVoting game = "voting"
	gameOr     game = "or"
	gameRandom game = "random"
	gameDigit  game = "digit"
)

var (
	shGame = param.Choice("game", []game{gameGlove, gameVoting, gameOr, gameRandom, gameDigit}, gameGlove,
		"glove: Example 20.4 (Shapley ⅔, ⅙, ⅙; Banzhaf ¾, ¼, ¼); voting: n players with weights n, n−1, …, 1 and a "+
			"majority quota; or: the OR example with both inputs on (Shapley ½, ½, leave-one-out 0); random: u(S) uniform; "+
			"digit: the digits MLP's probability of the class on 16 superpixels kept or blanked")
	shN     = param.Int("n", 6, "players of voting and random").Range(2, shapley.MaxPlayers)
	shDigit = param.Int("digit", 3, "the class of the digit to explain (game digit)").Range(0, 9)
	shExact = param.Bool("exact", true, fmt.Sprintf("enumerate the 2^n coalitions (n ≤ %d) for the exact values; "+
		"off: the Monte Carlo estimators alone", shapley.MaxExact))
)

// methods are the estimators' names, in the table's and charts' order.
var methods = []string{"permutation", "Algorithm 3", "KernelSHAP"}

type shSim struct {
	g       shapley.Game
	name    string
	n       int
	grand   float64
	enum    *shapley.Enumeration // nil without exact
	chunk   int
	exact   []float64 // Shapley, when enumerated (the reference)
	banzhaf []float64
	loo     []float64
	perm    *shapley.Permutation
	alg3    *shapley.Sampled
	kernel  *shapley.Kernel
	kphi    []float64
	step    int
	errs    *sims.Trace
	img     []float64 // the digit game's image
	prob    float64
	digit   int
}

// shapleySize is what shapley holds: the table of the 2^n utilities (the
// random and digit games are tables; exact enumeration caches the others),
// KernelSHAP's n×n least-squares system and the estimators' per-player
// arrays, and a measured base (the error Trace, the digit's image and
// model, the Frame's charts).
func shapleySize(c sims.Config) int64 {
	v := c.Values
	n := shN.Get(v)
	table := shExact.Get(v)
	switch shGame.Get(v) {
	case gameGlove:
		n = 3
	case gameOr:
		n = 2
	case gameRandom:
		table = true
	case gameDigit:
		n, table = 16, true
	}
	b := 16*int64(n)*int64(n) + 128<<10
	if table && n <= shapley.MaxExact { // past it the sim refuses the table, saying why
		b += 8 << n
	}
	if shGame.Get(v) == gameDigit {
		b += 32 << 10
	}
	return b
}

func newShapley(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x73_6861_706c)) // "shapl"
	s := &shSim{name: string(shGame.Get(v))}
	var err error
	switch shGame.Get(v) {
	case gameGlove:
		s.g = shapley.Glove()
	case gameOr:
		s.g = shapley.Or()
	case gameVoting:
		n := shN.Get(v)
		w := make([]float64, n)
		total := 0.0
		for i := range w {
			w[i] = float64(n - i)
			total += w[i]
		}
		s.g, _ = shapley.Voting(w, math.Floor(total/2)+1)
		s.name = fmt.Sprintf("voting, weights %d…1, quota %g", n, math.Floor(total/2)+1)
	case gameRandom:
		if s.g, err = shapley.Random(shN.Get(v), rng); err != nil {
			return nil, fmt.Errorf("parameter n = %d: the random game is a table of 2^n utilities, at most %d players; "+
				"game=voting takes up to %d with exact=off", shN.Get(v), shapley.MaxExact, shapley.MaxPlayers)
		}
	case gameDigit:
		s.digit = shDigit.Get(v)
		var u shapley.Table
		if u, s.img, s.prob, err = digitGame(s.digit, rand.New(rand.NewPCG(cfg.Seed, 0x64_6967))); err != nil {
			return nil, err
		}
		s.g = u
		s.name = fmt.Sprintf("digit %d, 16 superpixels", s.digit)
	}
	s.n = s.g.Players()
	s.grand = shapley.Grand(s.g)
	s.loo = shapley.LeaveOneOut(s.g)
	if shExact.Get(v) {
		if err := shapley.CheckExact(s.n); err != nil {
			return nil, fmt.Errorf("parameter n = %d: exact enumeration takes at most %d players (2^%d coalitions); "+
				"set exact=off to run permutation Monte Carlo, Algorithm 3 and KernelSHAP alone", s.n, shapley.MaxExact, shapley.MaxExact)
		}
		u, ok := s.g.(shapley.Table)
		if !ok {
			u, _ = shapley.Cache(s.g)
			s.g = u // every estimator reads the cache
		}
		s.enum, _ = shapley.NewEnumeration(u)
		s.chunk = max(1, len(u)/64) // the bars fill over 64 steps
		s.exact, s.banzhaf, _ = shapley.Exact(u)
	}
	s.perm = shapley.NewPermutation(s.g, rand.New(rand.NewPCG(cfg.Seed, 1)))
	s.alg3 = shapley.NewSampled(s.g, shapley.Shapley, rand.New(rand.NewPCG(cfg.Seed, 2)))
	s.kernel = shapley.NewKernel(s.g, rand.New(rand.NewPCG(cfg.Seed, 3)))
	s.errs = sims.NewTrace(1, len(methods))
	return s, nil
}

// Step enumerates the next 1/64 of the coalitions, walks one permutation,
// runs one round of Algorithm 3 and samples n coalitions for KernelSHAP.
func (s *shSim) Step() error {
	s.step++
	if s.enum != nil && !s.enum.Done() {
		s.enum.Step(s.chunk)
	}
	s.perm.Step()
	s.alg3.Step()
	for range s.n {
		s.kernel.Step()
	}
	if phi, ok := s.kernel.Value(); ok {
		s.kphi = phi
	}
	if s.exact != nil {
		s.errs.Add(dist(s.perm.Est.Mean(), s.exact), dist(s.alg3.Est.Mean(), s.exact), dist(s.kphi, s.exact))
	}
	return nil
}

// dist is ‖a − b‖₂ (NaN when a is not there yet).
func dist(a, b []float64) float64 {
	if a == nil {
		return math.NaN()
	}
	d := 0.0
	for i := range a {
		d += (a[i] - b[i]) * (a[i] - b[i])
	}
	return math.Sqrt(d)
}

func sum(x []float64) float64 {
	t := 0.0
	for _, v := range x {
		t += v
	}
	return t
}

func (s *shSim) Frame() sims.Frame {
	charts := []sims.Chart{s.table(), s.meter()}
	if s.exact != nil && s.errs.Len() > 1 {
		x0, x1 := s.errs.Span()
		var series []sims.Series
		for k, m := range methods {
			series = append(series, sims.Series{Name: m, Y: s.errs.Column(k), Class: k + 1})
		}
		charts = append(charts, sims.LineChart{Title: "‖φ̂ − φ_Shapley‖₂", X0: x0, X1: x1, XLabel: "step", Series: series})
	}
	if s.img != nil {
		charts = append(charts, s.images())
	}
	metrics := []sims.Metric{{Name: "players", Value: float64(s.n)}, {Name: "u([n])", Value: s.grand}}
	if s.enum != nil {
		metrics = append(metrics, sims.Metric{Name: "coalitions", Value: float64(s.enum.Coalitions())})
	}
	metrics = append(metrics,
		sims.Metric{Name: "perms", Value: float64(s.perm.Est.Samples())},
		sims.Metric{Name: "evals", Value: float64(s.perm.Evals() + s.alg3.Evals() + s.kernel.Evals())})
	return sims.Frame{Sim: Shapley.Name, Step: s.step, Metrics: metrics, Charts: charts, Text: s.notes()}
}

// table lists each player's values: the enumeration so far, Banzhaf,
// leave-one-out and the three estimators with the MC ±2 s.e.
func (s *shSim) table() sims.Chart {
	cols := []string{"Shapley", "Banzhaf", "LOO", "perm ±2se", "Alg 3 ±2se", "Kernel"}
	t := sims.TableChart{Title: "φ_i by each method (exact columns fill as coalitions are enumerated)", Corner: "player", Columns: cols}
	for i := range s.n {
		var row []sims.Cell
		if s.enum != nil {
			tone := sims.ToneInk
			if !s.enum.Done() {
				tone = sims.ToneDim
			}
			row = append(row, f4Cell(s.enum.Shapley()[i]).Styled(tone, 0), f4Cell(s.enum.Banzhaf()[i]).Styled(tone, 0))
		} else {
			row = append(row, sims.Cell{Text: "—"}, sims.Cell{Text: "—"})
		}
		row = append(row, f4Cell(s.loo[i]),
			pmCell(s.perm.Est.Mean()[i], 2*s.perm.Est.StdErr(i)).Styled(sims.ToneInk, 1),
			pmCell(s.alg3.Est.Mean()[i], 2*s.alg3.Est.StdErr(i)).Styled(sims.ToneInk, 2))
		if s.kphi != nil {
			row = append(row, f4Cell(s.kphi[i]).Styled(sims.ToneInk, 3))
		} else {
			row = append(row, sims.Cell{Text: "—"})
		}
		t.Rows = append(t.Rows, sims.TableRow{Label: fmt.Sprint(i + 1), Cells: row})
	}
	return t
}

// f4Cell is a table cell that shows f4(x) and holds x.
func f4Cell(x float64) sims.Cell { return sims.Num(x, f4(x)) }

// pmCell is a table cell that shows the estimate x ± e and holds x.
func pmCell(x, e float64) sims.Cell { return sims.Num(x, pm(x, e)) }

func f4(x float64) string {
	if math.IsNaN(x) {
		return "—"
	}
	return fmt.Sprintf("%.4f", x)
}

func pm(x, e float64) string {
	if math.IsNaN(e) {
		return f4(x)
	}
	return fmt.Sprintf("%.3f±%.3f", x, e)
}

// meter is the efficiency meter: Σ_i φ_i of each method against u([n]).
func (s *shSim) meter() sims.Chart {
	bars := []sims.Bar{{Label: "u([n])", Value: s.grand, Class: 0}}
	if s.enum != nil {
		bars = append(bars, sims.Bar{Label: "Σ Shapley", Value: sum(s.enum.Shapley()), Class: 0},
			sims.Bar{Label: "Σ Banzhaf", Value: sum(s.enum.Banzhaf()), Class: 4})
	}
	bars = append(bars, sims.Bar{Label: "Σ LOO", Value: sum(s.loo), Class: 5},
		sims.Bar{Label: "Σ perm", Value: sum(s.perm.Est.Mean()), Class: 1},
		sims.Bar{Label: "Σ Alg 3", Value: sum(s.alg3.Est.Mean()), Class: 2})
	if s.kphi != nil {
		bars = append(bars, sims.Bar{Label: "Σ Kernel", Value: sum(s.kphi), Class: 3})
	}
	return sims.BarChart{Title: "efficiency meter: Σ φ_i against u([n])", Bars: bars}
}

func (s *shSim) images() sims.Chart {
	imgs := []sims.Image{{Caption: fmt.Sprintf("digit %d", s.digit), W: digitSide, H: digitSide, Pix: s.img}}
	lo, hi := 0.0, 0.0
	add := func(caption string, phi []float64) {
		if phi == nil {
			return
		}
		for _, v := range phi {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
		imgs = append(imgs, sims.Image{Caption: caption, W: digitSide, H: digitSide, Pix: cellImage(phi)})
	}
	if s.enum != nil {
		add("Shapley", s.enum.Shapley())
	}
	add("permutation", s.perm.Est.Mean())
	add("KernelSHAP", s.kphi)
	m := math.Max(-lo, hi)
	// the digit in [0, 1] shares the diverging scale of the attributions
	return sims.ImageChart{Title: "the digit and its superpixel attributions", Images: imgs, Scale: sims.Diverging, Lo: -math.Max(m, 1e-9), Hi: math.Max(m, 1e-9)}
}

func (s *shSim) notes() []string {
	lines := []string{"game: " + s.name, fmt.Sprintf("efficiency: Shapley's Σφ_i = u([n]) = %.4g; Banzhaf's need not", s.grand)}
	if s.exact == nil {
		lines = append(lines, fmt.Sprintf("exact=off: no reference; %d utility evaluations so far", s.perm.Evals()+s.alg3.Evals()+s.kernel.Evals()))
	} else if s.enum.Done() {
		lines = append(lines, "enumeration done: the exact values; the ±2 s.e. bands should cover them")
	}
	if s.img != nil {
		lines = append(lines, fmt.Sprintf("u(S) = p(%d | kept superpixels) − p(blank); p = %.3f on the digit", s.digit, s.prob))
	}
	return lines
}

func (s *shSim) Result() map[string]any {
	r := map[string]any{"players": s.n, "grand": s.grand, "leave_one_out": s.loo,
		"permutation": append([]float64(nil), s.perm.Est.Mean()...), "algorithm3": append([]float64(nil), s.alg3.Est.Mean()...),
		"kernelshap": s.kphi, "evals": s.perm.Evals() + s.alg3.Evals() + s.kernel.Evals()}
	if s.exact != nil {
		r["shapley"], r["banzhaf"] = s.exact, s.banzhaf
	}
	return r
}
