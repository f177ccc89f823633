// Package shapley computes attributions of cooperative games (seed 001
// §20, L1722–L1798): exact Banzhaf and Shapley values by enumeration of a
// cached utility, the random-order value by permutation Monte Carlo, the
// notes' Algorithm 3 (sampled probabilistic values) and the least-squares
// value, exactly and by sampling (KernelSHAP).
//
// A coalition S ⊆ [n] is a bit mask (player i is bit i); u(∅) = 0 (L1724).
package shapley

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
)

// Game is a utility u on coalitions of Players() ≤ MaxPlayers players.
type Game interface {
	Players() int
	Value(s uint64) float64
}

// MaxPlayers bounds a game's players (a coalition is a uint64).
const MaxPlayers = 64

// MaxExact bounds the players of exact enumeration: a table of 2^n
// utilities (8 MiB at n = 20). Beyond it the Monte Carlo estimators
// (Permutation, Sampled, Kernel) run alone.
const MaxExact = 20

// Table is a game given by its 2^n utilities, Table[S] = u(S).
type Table []float64

// Players is log₂ of the table's length.
func (t Table) Players() int { return bits.TrailingZeros(uint(len(t))) }

// Value is t[S].
func (t Table) Value(s uint64) float64 { return t[s] }

// Func is a game given by a function.
type Func struct {
	N int
	U func(s uint64) float64
}

func (f Func) Players() int           { return f.N }
func (f Func) Value(s uint64) float64 { return f.U(s) }

// Cache tabulates g's 2^n utilities (n ≤ MaxExact), so that enumeration
// evaluates each coalition once.
func Cache(g Game) (Table, error) {
	n := g.Players()
	if err := CheckExact(n); err != nil {
		return nil, err
	}
	t := make(Table, 1<<n)
	for s := range t {
		t[s] = g.Value(uint64(s))
	}
	return t, nil
}

// CheckExact refuses n players beyond MaxExact, naming the limit and the
// Monte Carlo estimators that have none.
func CheckExact(n int) error {
	if n < 1 || n > MaxExact {
		return algo.BadParam("players", n, fmt.Sprintf("in 1..%d for exact enumeration (2^%d coalitions); "+
			"the permutation, Algorithm 3 and KernelSHAP estimators take up to %d", MaxExact, MaxExact, MaxPlayers))
	}
	return nil
}

// Glove is the glove game of Example 20.4 (L1744–L1754): player 1 holds a
// left glove, players 2 and 3 right gloves; a coalition is worth 1 when it
// holds a pair. Banzhaf (¾, ¼, ¼), Shapley (⅔, ⅙, ⅙).
func Glove() Table {
	t := make(Table, 8)
	for s := range t {
		if s&1 != 0 && s&6 != 0 {
			t[s] = 1
		}
	}
	return t
}

// Or is the OR example (L1718–L1720, [A40]) with both inputs on: u(S) = 1
// when S holds an active input. Shapley (½, ½), though flipping one input
// alone changes nothing.
func Or() Table { return Table{0, 1, 1, 1} }

// Voting is a weighted majority game: u(S) = 1 when the weights of S reach
// the quota.
func Voting(weights []float64, quota float64) (Func, error) {
	if len(weights) < 1 || len(weights) > MaxPlayers {
		return Func{}, algo.BadParam("players", len(weights), fmt.Sprintf("in 1..%d", MaxPlayers))
	}
	w := append([]float64(nil), weights...)
	return Func{N: len(w), U: func(s uint64) float64 {
		sum := 0.0
		for ; s != 0; s &= s - 1 {
			sum += w[bits.TrailingZeros64(s)]
		}
		if sum >= quota {
			return 1
		}
		return 0
	}}, nil
}

// Random is a game of n ≤ MaxExact players with u(S) uniform on [0, 1]
// for S ≠ ∅ and u(∅) = 0.
func Random(n int, rng *rand.Rand) (Table, error) {
	if err := CheckExact(n); err != nil {
		return nil, err
	}
	t := make(Table, 1<<n)
	for s := 1; s < len(t); s++ {
		t[s] = rng.Float64()
	}
	return t, nil
}

// Kind names a probabilistic value (Definition 20.3, L1734–L1742):
// φ_i = Σ_{S∌i} p_{|S|} [u(S ∪ {i}) − u(S)].
type Kind string

const (
	Shapley Kind = "shapley" // p_s = s!(n − s − 1)!/n!
	Banzhaf Kind = "banzhaf" // p_s = 1/2^{n−1}
)

func (k Kind) String() string { return string(k) }

// Weights returns p_s for s = 0..n−1, from lgamma ([A41]): to a relative
// 1e-13 for any n ≤ MaxPlayers, the rounding of log n! (≈ 205 at n = 64)
// carried through exp.
func Weights(k Kind, n int) []float64 {
	p := make([]float64, n)
	for s := range p {
		if k == Banzhaf {
			p[s] = math.Ldexp(1, -(n - 1))
			continue
		}
		a, _ := math.Lgamma(float64(s + 1))
		b, _ := math.Lgamma(float64(n - s))
		c, _ := math.Lgamma(float64(n + 1))
		p[s] = math.Exp(a + b - c)
	}
	return p
}

// LeaveOneOut is u([n]) − u([n] ∖ {i}) for each i (L1732).
func LeaveOneOut(g Game) []float64 {
	n := g.Players()
	all := uint64(1)<<n - 1
	if n == 64 {
		all = math.MaxUint64
	}
	out := make([]float64, n)
	for i := range out {
		out[i] = g.Value(all) - g.Value(all&^(1<<i))
	}
	return out
}

// Grand is u([n]).
func Grand(g Game) float64 {
	n := g.Players()
	if n == 64 {
		return g.Value(math.MaxUint64)
	}
	return g.Value(uint64(1)<<n - 1)
}
