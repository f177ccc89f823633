package linear

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/dataset"
	"gonum.org/v1/gonum/floats"
)

func perceptronOn(t *testing.T, l *dataset.Labelled, order Order, seed uint64) *Perceptron {
	t.Helper()
	x, err := NewDesign(l.X, true)
	if err != nil {
		t.Fatal(err)
	}
	y, err := l.PlusMinus()
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPerceptron(x, y, order, rand.New(rand.NewPCG(seed, 1)))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// runToEnd steps until Step returns an error or max presentations.
func runToEnd(p *Perceptron, max int) error {
	for k := 0; k < max; k++ {
		if err := p.Step(); err != nil {
			return err
		}
	}
	return nil
}

// TestPerceptronORGolden replays the catalogue's trace (seed-001 §D.1):
// mistakes at presentations 1, 2, 3, 5, 9, 10, 13, 15, 17 with the listed
// (w, b) after each, a clean pass ending at t = 21, final w = (2, 2),
// b = −1.
func TestPerceptronORGolden(t *testing.T) {
	golden := []struct {
		t, point int
		w        [2]float64
		b        float64
	}{
		{1, 0, [2]float64{0, 0}, -1},
		{2, 1, [2]float64{1, 0}, 0},
		{3, 2, [2]float64{1, 1}, 1},
		{5, 0, [2]float64{1, 1}, 0},
		{9, 0, [2]float64{1, 1}, -1},
		{10, 1, [2]float64{2, 1}, 0},
		{13, 0, [2]float64{2, 1}, -1},
		{15, 2, [2]float64{2, 2}, 0},
		{17, 0, [2]float64{2, 2}, -1},
	}
	p := perceptronOn(t, dataset.Or(), Cyclic, 0)
	next := 0
	for k := 1; k <= 21; k++ {
		if err := p.Step(); err != nil {
			t.Fatalf("presentation %d: %v", k, err)
		}
		i, mistake := p.Last()
		if next < len(golden) && golden[next].t == k {
			g := golden[next]
			w := p.W()
			if !mistake || i != g.point || w[0] != g.w[0] || w[1] != g.w[1] || p.B() != g.b {
				t.Fatalf("t=%d: point %d mistake %v w %v b %v, want point %d w %v b %v",
					k, i, mistake, w, p.B(), g.point, g.w, g.b)
			}
			next++
		} else if mistake {
			t.Fatalf("t=%d: unexpected mistake on point %d", k, i)
		}
	}
	if err := p.Step(); !errors.Is(err, algo.ErrConverged) {
		t.Fatalf("after the clean pass: %v", err)
	}
	if p.Mistakes() != 9 || p.Presentations() != 21 || !p.Converged() {
		t.Errorf("mistakes %d, presentations %d", p.Mistakes(), p.Presentations())
	}
	if _, _, ok := p.Cycle(); ok {
		t.Error("a converged run reported a cycle")
	}
}

// TestPerceptronSpamGolden (§D.2): 4 mistakes, converged by presentation
// 10, w = (0, 2, 0, −1, 1), b = 0, and the test e-mail scores +2 (spam).
func TestPerceptronSpamGolden(t *testing.T) {
	p := perceptronOn(t, dataset.Spam(), Cyclic, 0)
	if err := runToEnd(p, 1000); !errors.Is(err, algo.ErrConverged) {
		t.Fatal(err)
	}
	want := []float64{0, 2, 0, -1, 1}
	if p.Mistakes() != 4 || p.Presentations() != 10 || !floats.Equal(p.W(), want) || p.B() != 0 {
		t.Errorf("mistakes %d at t %d, w %v b %v", p.Mistakes(), p.Presentations(), p.W(), p.B())
	}
	if s := floats.Dot(p.W(), dataset.SpamQuery) + p.B(); s != 2 {
		t.Errorf("score of x′ = %v, want +2", s)
	}
}

// TestPerceptronXORCycles (§D.3, Theorem 2.11): with the labels − + + −
// the state returns to ((0,0), 0) after 4 presentations, all mistakes,
// and keeps cycling with period 4.
func TestPerceptronXORCycles(t *testing.T) {
	p := perceptronOn(t, dataset.Xor(), Cyclic, 0)
	for k := 1; k <= 4; k++ {
		if err := p.Step(); err != nil {
			t.Fatal(err)
		}
	}
	if !floats.Equal(p.Theta(), []float64{0, 0, 0}) || p.Mistakes() != 4 {
		t.Fatalf("after 4: θ %v, %d mistakes", p.Theta(), p.Mistakes())
	}
	period, at, ok := p.Cycle()
	if !ok || period != 4 || at != 4 || p.CycleMistakes() != 4 {
		t.Fatalf("cycle %d at %d (%v), want period 4 at t = 4", period, at, ok)
	}
	if err := runToEnd(p, 396); err != nil {
		t.Fatal(err)
	}
	if p.Mistakes() != 400 || p.Converged() {
		t.Errorf("400 presentations: %d mistakes, converged %v", p.Mistakes(), p.Converged())
	}
}

// TestScoreGrowsByNormPlusOne: an update on (x, y) raises y(⟨x, w⟩ + b) by
// exactly ‖x‖² + 1 (L201–L210).
func TestScoreGrowsByNormPlusOne(t *testing.T) {
	l, _, _ := dataset.Separable(rand.New(rand.NewPCG(2, 3)), 40, 0.05)
	p := perceptronOn(t, l, Cyclic, 0)
	for k := 0; k < 200; k++ {
		before := append([]float64(nil), p.Theta()...)
		if err := p.Step(); err != nil {
			break
		}
		i, mistake := p.Last()
		if !mistake {
			continue
		}
		row := p.Design().Row(i)
		y := p.Y()[i]
		gain := y*floats.Dot(row, p.Theta()) - y*floats.Dot(row, before)
		if want := floats.Dot(row, row); math.Abs(gain-want) > 1e-12*want {
			t.Fatalf("t=%d: score grew by %v, want ‖x‖²+1 = %v", p.Presentations(), gain, want)
		}
	}
}

// TestNovikoffBound checks Theorem 2.8 on random separable data: with the
// planted unit w* (bias 0) and with the max-margin direction, the mistake
// count stays under C²/γ², and after every mistake the proof's invariants
// ⟨w̃, w̃*⟩ ≥ Mγ and ‖w̃‖² ≤ MC² hold. Both orders, several margins.
func TestNovikoffBound(t *testing.T) {
	for _, gamma := range []float64{0.02, 0.1, 0.3} {
		for seed := uint64(1); seed <= 4; seed++ {
			for _, order := range []Order{Cyclic, Random} {
				l, ws, err := dataset.Separable(rand.New(rand.NewPCG(seed, 9)), 80, gamma)
				if err != nil {
					t.Fatal(err)
				}
				p := perceptronOn(t, l, order, seed)
				planted := []float64{ws[0], ws[1], 0}
				c2, g, bound, ok := Novikoff(p.Design(), p.Y(), planted)
				if !ok || g < gamma {
					t.Fatalf("planted margin %v < %v", g, gamma)
				}
				mm := MaxMargin(p.Design(), p.Y())
				if mm.Sep != Separable || mm.Gamma < g*(1-1e-9) {
					t.Fatalf("max margin %v (%v) below the planted %v", mm.Gamma, mm.Sep, g)
				}
				_, _, tight, _ := Novikoff(p.Design(), p.Y(), mm.W)
				var err2 error
				for k := 0; k < 200000 && err2 == nil; k++ {
					m0 := p.Mistakes()
					err2 = p.Step()
					if m := p.Mistakes(); m > m0 {
						th := p.Theta()
						if floats.Dot(th, planted) < float64(m)*g*(1-1e-12) || floats.Dot(th, th) > float64(m)*c2*(1+1e-12) {
							t.Fatalf("γ=%v seed %d: invariants fail after %d mistakes", gamma, seed, m)
						}
					}
				}
				if !errors.Is(err2, algo.ErrConverged) {
					t.Fatalf("γ=%v seed %d %s: %v", gamma, seed, order, err2)
				}
				if m := float64(p.Mistakes()); m > tight || m > bound {
					t.Errorf("γ=%v seed %d %s: %v mistakes > bound %v (planted %v)", gamma, seed, order, m, tight, bound)
				}
				if p.Errors() != 0 {
					t.Errorf("converged with %d errors", p.Errors())
				}
			}
		}
	}
}

// TestDualCounts: w̃ = Σ α_i y_i x̃_i with α_i the mistakes on x_i (003:L64).
func TestDualCounts(t *testing.T) {
	l, _ := dataset.Moons(rand.New(rand.NewPCG(4, 4)), 60, 0.2)
	p := perceptronOn(t, l, Random, 7)
	runToEnd(p, 3000)
	w := make([]float64, p.Design().P())
	for i, a := range p.Alpha() {
		floats.AddScaled(w, float64(a)*p.Y()[i], p.Design().Row(i))
	}
	if !floats.EqualApprox(w, p.Theta(), 1e-9) {
		t.Errorf("Σ α y x̃ = %v, w̃ = %v", w, p.Theta())
	}
}

// TestMaxMarginGolden (§D.1, §D.2, §D.3): OR has w̃* ∝ (2, 2, −1), γ = 1/3,
// α ∝ (5, 2, 2, 0), bound 27; spam has w̃* ∝ (0, 1, 0, −1, 1 | 0), γ = 1/√3,
// all α equal, bound 15; XOR is not separable.
func TestMaxMarginGolden(t *testing.T) {
	tests := []struct {
		l     *dataset.Labelled
		w     []float64
		gamma float64
		alpha []float64
		bound float64
	}{
		{dataset.Or(), []float64{2, 2, -1}, 1.0 / 3, []float64{5, 2, 2, 0}, 27},
		{dataset.Spam(), []float64{0, 1, 0, -1, 1, 0}, 1 / math.Sqrt(3), []float64{1, 1, 1, 1, 1, 1}, 15},
	}
	for _, tt := range tests {
		x, _ := NewDesign(tt.l.X, true)
		y, _ := tt.l.PlusMinus()
		m := MaxMargin(x, y)
		unit := append([]float64(nil), tt.w...)
		floats.Scale(1/floats.Norm(unit, 2), unit)
		if m.Sep != Separable || math.Abs(m.Gamma-tt.gamma) > 1e-9 || !floats.EqualApprox(m.W, unit, 1e-6) {
			t.Errorf("%s: %v γ = %v w = %v, want γ = %v w = %v", tt.l.Name, m.Sep, m.Gamma, m.W, tt.gamma, unit)
		}
		a := append([]float64(nil), tt.alpha...)
		floats.Scale(1/floats.Sum(a), a)
		if !floats.EqualApprox(m.Alpha, a, 1e-6) {
			t.Errorf("%s: α = %v, want ∝ %v", tt.l.Name, m.Alpha, tt.alpha)
		}
		if _, _, b, _ := Novikoff(x, y, m.W); math.Abs(b-tt.bound) > 1e-6 {
			t.Errorf("%s: bound %v, want %v", tt.l.Name, b, tt.bound)
		}
	}
	x, _ := NewDesign(dataset.Xor().X, true)
	y, _ := dataset.Xor().PlusMinus()
	if m := MaxMargin(x, y); m.Sep != NotSeparable || m.W != nil {
		t.Errorf("XOR: %v %v", m.Sep, m.W)
	}
}

// TestMulticlass: on well separated blobs both schemes converge and label
// every training point right; one-vs-one scores sum to zero (w_{l,k} =
// −w_{k,l}); ties go to the lowest class.
func TestMulticlass(t *testing.T) {
	l, _ := dataset.Blobs(rand.New(rand.NewPCG(8, 8)), 150, 3, 0.4)
	x, _ := NewDesign(l.X, true)
	for _, scheme := range []Scheme{OneVsAll, OneVsOne} {
		mc, err := NewMulticlass(x, l.Int(), 3, scheme, Cyclic, nil)
		if err != nil {
			t.Fatal(err)
		}
		var e error
		for k := 0; k < 100000 && e == nil; k++ {
			e = mc.Step()
		}
		if !errors.Is(e, algo.ErrConverged) || mc.Accuracy() != 1 {
			t.Errorf("%s: %v, accuracy %v", scheme, e, mc.Accuracy())
		}
		want := map[Scheme]int{OneVsAll: 3, OneVsOne: 3}[scheme]
		if len(mc.Binaries()) != want {
			t.Errorf("%s: %d perceptrons", scheme, len(mc.Binaries()))
		}
		total := 0
		for _, b := range mc.Binaries() {
			total += b.Mistakes
		}
		if total != mc.Mistakes() {
			t.Errorf("%s: mistakes %d ≠ Σ %d", scheme, mc.Mistakes(), total)
		}
		if scheme == OneVsOne {
			s := mc.Scores([]float64{0.3, -1.2}, make([]float64, 3))
			if math.Abs(floats.Sum(s)) > 1e-12 {
				t.Errorf("ovo scores %v do not sum to 0", s)
			}
		}
	}
	// Four classes: ovo has C(4,2) = 6 perceptrons. Ties: all scores 0 at
	// the start → class 0.
	l4, _ := dataset.Blobs(rand.New(rand.NewPCG(1, 1)), 40, 4, 0.3)
	x4, _ := NewDesign(l4.X, true)
	mc, _ := NewMulticlass(x4, l4.Int(), 4, OneVsOne, Random, rand.New(rand.NewPCG(1, 2)))
	if len(mc.Binaries()) != 6 || mc.Predict([]float64{1, 1}, make([]float64, 4)) != 0 {
		t.Errorf("ovo with 4 classes: %d perceptrons", len(mc.Binaries()))
	}
}

func TestPerceptronValidation(t *testing.T) {
	x, _ := NewDesign(dataset.Or().X, true)
	y, _ := dataset.Or().PlusMinus()
	if _, err := NewPerceptron(x, y, "zigzag", nil); !algo.IsParamError(err, "order") {
		t.Errorf("bad order: %v", err)
	}
	if _, err := NewPerceptron(x, y, Random, nil); !algo.IsParamError(err, "rng") {
		t.Errorf("random order without rng: %v", err)
	}
	if _, err := NewPerceptron(x, []float64{0, 1, 1, 1}, Cyclic, nil); err == nil {
		t.Error("labels 0/1 accepted")
	}
	nb, _ := NewDesign(dataset.Or().X, false)
	if _, err := NewPerceptron(nb, y, Cyclic, nil); err == nil {
		t.Error("a design without the bias column accepted")
	}
	if _, err := NewMulticlass(x, []int{0, 1, 2, 1}, 3, "all", Cyclic, nil); !algo.IsParamError(err, "multiclass") {
		t.Errorf("bad scheme: %v", err)
	}
	if _, err := NewMulticlass(x, []int{0, 1, 5, 1}, 3, OneVsAll, Cyclic, nil); err == nil {
		t.Error("label 5 of 3 classes accepted")
	}
}

func BenchmarkPerceptronStep(b *testing.B) {
	l, _ := dataset.Moons(rand.New(rand.NewPCG(1, 1)), 1000, 0.3)
	x, _ := NewDesign(l.X, true)
	y, _ := l.PlusMinus()
	p, _ := NewPerceptron(x, y, Random, rand.New(rand.NewPCG(1, 2)))
	b.ReportAllocs()
	for b.Loop() {
		_ = p.Step()
	}
}

// TestMaxMarginBracket: a Separable result's bracket Gamma ≤ γ* ≤ Upper
// has closed to 10⁻¹⁰ relative, as MaxMargin says, and holds the known γ*
// of OR (1/3) and spam (1/√3) to that precision, as it does the margins of
// separable samples (where γ* is not known in closed form).
func TestMaxMarginBracket(t *testing.T) {
	check := func(name string, m Margin, want float64) {
		t.Helper()
		if m.Sep != Separable || !(m.Upper-m.Gamma <= 1e-10*m.Upper) || m.Gamma > m.Upper {
			t.Errorf("%s: %v, bracket [%.17g, %.17g]", name, m.Sep, m.Gamma, m.Upper)
		}
		if want > 0 && (want < m.Gamma*(1-1e-12) || want > m.Upper*(1+1e-12)) {
			t.Errorf("%s: γ* = %.17g outside [%.17g, %.17g]", name, want, m.Gamma, m.Upper)
		}
	}
	for _, c := range []struct {
		l     *dataset.Labelled
		gamma float64
	}{{dataset.Or(), 1.0 / 3}, {dataset.Spam(), 1 / math.Sqrt(3)}} {
		x, _ := NewDesign(c.l.X, true)
		y, _ := c.l.PlusMinus()
		check(c.l.Name, MaxMargin(x, y), c.gamma)
	}
	for seed := uint64(1); seed <= 3; seed++ {
		l, _, err := dataset.Separable(rand.New(rand.NewPCG(seed, 9)), 80, 0.1)
		if err != nil {
			t.Fatal(err)
		}
		x, _ := NewDesign(l.X, true)
		y, _ := l.PlusMinus()
		check(fmt.Sprintf("separable seed %d", seed), MaxMargin(x, y), 0)
	}
}
