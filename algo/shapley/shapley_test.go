package shapley

import (
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/thelab/lab/algo/algotest"
)

func rng(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 20)) }

func near(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		algotest.Near(t, what, got[i], want[i], tol)
	}
}

func sum(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s
}

// TestGloveExample20_4: Banzhaf (¾, ¼, ¼) with sum 5/4; Shapley (⅔, ⅙,
// ⅙) with sum 1 = u([n]); the exact least-squares value with q_s =
// 1/C(n−2, s−1) is Shapley; enumeration in chunks gives the same.
func TestGloveExample20_4(t *testing.T) {
	sh, bz, err := Exact(Glove())
	if err != nil {
		t.Fatal(err)
	}
	near(t, "Shapley", sh, []float64{2.0 / 3, 1.0 / 6, 1.0 / 6}, 1e-15)
	near(t, "Banzhaf", bz, []float64{0.75, 0.25, 0.25}, 1e-15)
	algotest.Near(t, "Σ Banzhaf", sum(bz), 1.25, 1e-15)
	ls, _ := ExactLeastSquares(Glove())
	near(t, "least squares", ls, sh, 1e-12)
	e, _ := NewEnumeration(Glove())
	for !e.Step(3) {
	}
	near(t, "chunked", e.Shapley(), sh, 1e-15)
	// the OR example: Shapley (½, ½), leave-one-out (0, 0)
	sh, _, _ = Exact(Or())
	near(t, "OR Shapley", sh, []float64{0.5, 0.5}, 1e-15)
	near(t, "OR leave-one-out", LeaveOneOut(Or()), []float64{0, 0}, 0)
}

// TestAxioms: on random games Shapley is efficient, the least-squares
// value equals it (the catalogue's 5-player check generalised), a null
// player gets 0, symmetric players get the same, and the value is linear.
func TestAxioms(t *testing.T) {
	for _, n := range []int{2, 5, 8} {
		u, _ := Random(n, rng(uint64(n)))
		sh, _, _ := Exact(u)
		algotest.Near(t, "efficiency", sum(sh), u[len(u)-1], 1e-12)
		ls, _ := ExactLeastSquares(u)
		near(t, "least squares = Shapley", ls, sh, 1e-10)
		// make player 0 null: u(S ∪ {0}) = u(S)
		null := append(Table(nil), u...)
		for s := range null {
			if s&1 != 0 {
				null[s] = null[s&^1]
			}
		}
		shn, bzn, _ := Exact(null)
		algotest.Near(t, "null Shapley", shn[0], 0, 1e-15)
		algotest.Near(t, "null Banzhaf", bzn[0], 0, 1e-15)
		// linearity: φ(u + 2v) = φ(u) + 2φ(v)
		v, _ := Random(n, rng(uint64(n+100)))
		w := make(Table, len(u))
		for s := range w {
			w[s] = u[s] + 2*v[s]
		}
		shv, _, _ := Exact(v)
		shw, _, _ := Exact(w)
		for i := range shw {
			algotest.Near(t, "linearity", shw[i], sh[i]+2*shv[i], 1e-12)
		}
	}
	// symmetric players in a voting game: equal weights, equal values
	g, _ := Voting([]float64{3, 2, 2, 1}, 5)
	u, _ := Cache(g)
	sh, _, _ := Exact(u)
	algotest.Near(t, "symmetry", sh[1], sh[2], 1e-15)
	algotest.Near(t, "efficiency (voting)", sum(sh), 1, 1e-15)
}

// TestMonteCarloConverges: the permutation estimator (60 000 permutations,
// as the catalogue's check), Algorithm 3 for Shapley and Banzhaf, and
// KernelSHAP reach the exact values on the glove game and a random
// 6-player game within 4 standard errors (KernelSHAP, whose error the
// estimator does not report, within 0.03 after 20 000 samples); every
// permutation's contributions add up to u([n]).
func TestMonteCarloConverges(t *testing.T) {
	r6, _ := Random(6, rng(6))
	for _, u := range []Table{Glove(), r6} {
		sh, bz, _ := Exact(u)
		p := NewPermutation(u, rng(1))
		for range 60000 {
			p.Step()
		}
		for i := range sh {
			algotest.Near(t, "permutation", p.Est.Mean()[i], sh[i], 4*p.Est.StdErr(i)+1e-12)
		}
		algotest.Near(t, "efficiency per sample", sum(p.Est.Mean()), u[len(u)-1], 1e-9)
		for _, kind := range []Kind{Shapley, Banzhaf} {
			want := sh
			if kind == Banzhaf {
				want = bz
			}
			a := NewSampled(u, kind, rng(2))
			for range 30000 {
				a.Step()
			}
			for i := range want {
				algotest.Near(t, "Algorithm 3 "+string(kind), a.Est.Mean()[i], want[i], 4*a.Est.StdErr(i)+1e-12)
			}
			if a.Evals() != 30000*2*u.Players() {
				t.Errorf("evals %d", a.Evals())
			}
		}
		k := NewKernel(u, rng(3))
		for range 20000 {
			k.Step()
		}
		phi, ok := k.Value()
		if !ok {
			t.Fatal("KernelSHAP singular after 20 000 samples")
		}
		near(t, "KernelSHAP", phi, sh, 0.03)
		algotest.Near(t, "KernelSHAP efficiency", sum(phi), u[len(u)-1], 1e-9)
	}
}

// TestTooManyPlayers: exact enumeration refuses 21 players and names the
// estimators that take more; those run on a 40-player voting game.
func TestTooManyPlayers(t *testing.T) {
	err := CheckExact(21)
	algotest.WantParam(t, err, "players")
	if !strings.Contains(err.Error(), "20") || !strings.Contains(err.Error(), "permutation") {
		t.Errorf("message %q", err)
	}
	w := make([]float64, 40)
	for i := range w {
		w[i] = 1
	}
	g, _ := Voting(w, 21)
	if _, err := Cache(g); err == nil {
		t.Fatal("cached 2^40 coalitions")
	}
	p := NewPermutation(g, rng(4))
	for range 2000 {
		p.Step()
	}
	// 40 symmetric players of a unanimity-free majority: 1/40 each
	for i := range 40 {
		algotest.Near(t, "symmetric voting", p.Est.Mean()[i], 1.0/40, 4*p.Est.StdErr(i)+1e-12)
	}
	if math.Abs(sum(p.Est.Mean())-1) > 1e-9 {
		t.Error("efficiency")
	}
}

// BenchmarkExact16: exact Shapley and Banzhaf of 16 players, 65 536
// coalitions of a cached utility; target < 50 ms.
func BenchmarkExact16(b *testing.B) {
	u, _ := Random(16, rng(16))
	b.ReportAllocs()
	for range b.N {
		if _, _, err := Exact(u); err != nil {
			b.Fatal(err)
		}
	}
}

// TestWeightsAccuracy: Weights is within a relative 1e-13 of the exact
// s!(n − s − 1)!/n! (big.Rat) for every s and n ≤ MaxPlayers, as its doc
// comment says (7.2e-14 is seen at n = 64, 2e-15 up to n = 8); the Banzhaf
// weights 2^{1−n} are exact.
func TestWeightsAccuracy(t *testing.T) {
	worst := 0.0
	for n := 1; n <= MaxPlayers; n++ {
		w, b := Weights(Shapley, n), Weights(Banzhaf, n)
		den := new(big.Int).MulRange(1, int64(n))
		for s := range n {
			num := new(big.Int).Mul(new(big.Int).MulRange(1, int64(s)), new(big.Int).MulRange(1, int64(n-s-1)))
			want, _ := new(big.Rat).SetFrac(num, den).Float64()
			e := math.Abs(w[s]-want) / want
			if e > 1e-13 {
				t.Errorf("n = %d: p_%d = %.17g, want %.17g (relative %.2g)", n, s, w[s], want, e)
			}
			worst = math.Max(worst, e)
			if b[s] != math.Ldexp(1, 1-n) {
				t.Errorf("n = %d: Banzhaf p_%d = %v", n, s, b[s])
			}
		}
	}
	t.Logf("largest relative error %.2g", worst)
}
