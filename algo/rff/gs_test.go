package rff

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/algotest"
	"gonum.org/v1/gonum/mat"
)

// TestGramSchmidt (R5): row by row, the rows done are orthonormal to 1e-12
// (measured: a few ε), each original row stays in the span of the rows up
// to it, and the result is the Q of gonum's Householder QR of Gᵀ up to the
// sign of each row (to 1e-10), for square and wide G.
func TestGramSchmidt(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, c := range []struct{ m, d int }{{1, 1}, {4, 4}, {16, 16}, {8, 32}, {64, 64}} {
		g := make([][]float64, c.m)
		for i := range g {
			g[i] = make([]float64, c.d)
			for j := range g[i] {
				g[i][j] = rng.NormFloat64()
			}
		}
		s, err := NewGramSchmidt(g)
		if err != nil {
			t.Fatal(err)
		}
		for {
			err := s.Step()
			if errors.Is(err, algo.ErrConverged) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if e := s.OrthError(); e > 1e-12 {
				t.Fatalf("%d×%d after %d rows: max|QQᵀ − I| = %g", c.m, c.d, s.Done(), e)
			}
			if r := s.SpanResidual(); r > 1e-12 {
				t.Fatalf("%d×%d after %d rows: span residual %g", c.m, c.d, s.Done(), r)
			}
		}
		if s.Done() != c.m {
			t.Fatalf("%d rows done of %d", s.Done(), c.m)
		}
		gt := mat.NewDense(c.d, c.m, nil)
		for i := range g {
			for j := range g[i] {
				gt.Set(j, i, g[i][j])
			}
		}
		var qr mat.QR
		qr.Factorize(gt)
		var q mat.Dense
		qr.QTo(&q)
		for i := 0; i < c.m; i++ {
			sg := 0.0
			for j := 0; j < c.d; j++ {
				sg += s.Rows()[i*c.d+j] * q.At(j, i)
			}
			sg = math.Copysign(1, sg)
			for j := 0; j < c.d; j++ {
				if d := math.Abs(s.Rows()[i*c.d+j] - sg*q.At(j, i)); d > 1e-10 {
					t.Fatalf("%d×%d row %d: differs from QR's by %g", c.m, c.d, i, d)
				}
			}
		}
		gram := make([]float64, c.m*c.m)
		s.Gram(gram)
		for i := 0; i < c.m; i++ {
			for j := 0; j < c.m; j++ {
				want := 0.0
				if i == j {
					want = 1
				}
				if math.Abs(gram[i*c.m+j]-want) > 1e-12 {
					t.Fatalf("%d×%d: GGᵀ[%d,%d] = %g at the end", c.m, c.d, i, j, gram[i*c.m+j])
				}
			}
		}
	}
}

func TestGramSchmidtBad(t *testing.T) {
	_, err := NewGramSchmidt(nil)
	algotest.WantParam(t, err, "rows")
	_, err = NewGramSchmidt([][]float64{{1}, {2}})
	algotest.WantParam(t, err, "rows")
	_, err = NewGramSchmidt([][]float64{{1, 2}, {2}})
	algotest.WantParam(t, err, "d")
	s, _ := NewGramSchmidt([][]float64{{1, 2}, {2, 4}})
	if err := s.Step(); err != nil {
		t.Fatal(err)
	}
	if err := s.Step(); err == nil {
		t.Error("a dependent row orthonormalised")
	}
}
