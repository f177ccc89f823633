package lp

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/algo/ot"
)

// problem is n × n points of the gaussians preset with the squared
// Euclidean cost.
func problem(b *testing.B, n int) (mu, nu, c []float64) {
	p, err := ot.TwoGaussians(rand.New(rand.NewPCG(1, 2)), n, n)
	if err != nil {
		b.Fatal(err)
	}
	c, _ = p.Cost(2)
	return p.Mu, p.Nu, c
}

// BenchmarkSolve100 is the target: the exact LP on 100 × 100
// points under 1 s — the transportation simplex from the north-west
// corner to the optimum (pivots reported per solve).
func BenchmarkSolve100(b *testing.B) { benchSolve(b, 100) }

// BenchmarkSolve30 and BenchmarkGonum30 compare the transportation simplex
// with gonum's lp.Simplex (Reference), the general LP solver a Go user
// would otherwise call, on 30 × 30 points. (On 100 × 100 gonum took 102 s
// of CPU once: it refactorises the dense basis at every pivot.)
func BenchmarkSolve30(b *testing.B) { benchSolve(b, 30) }

func BenchmarkGonum30(b *testing.B) {
	mu, nu, c := problem(b, 30)
	defer algotest.ThreadCPU(b)()
	for b.Loop() {
		if _, _, err := Reference(mu, nu, c); err != nil {
			b.Fatal(err)
		}
	}
}

func benchSolve(b *testing.B, n int) {
	mu, nu, c := problem(b, n)
	pivots := 0
	defer algotest.ThreadCPU(b)()
	for b.Loop() {
		s, err := New(mu, nu, c)
		if err != nil {
			b.Fatal(err)
		}
		for {
			if err := s.Step(); errors.Is(err, algo.ErrConverged) {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
		pivots = s.Pivots()
	}
	b.ReportMetric(float64(pivots), "pivots")
}

// BenchmarkPivot100 is one pivot on that problem (pricing 10⁴ cells and
// the tree), from the north-west corner.
func BenchmarkPivot100(b *testing.B) {
	mu, nu, c := problem(b, 100)
	s, _ := New(mu, nu, c)
	b.ReportAllocs()
	defer algotest.ThreadCPU(b)()
	for b.Loop() {
		if err := s.Step(); errors.Is(err, algo.ErrConverged) {
			s, _ = New(mu, nu, c)
		}
	}
}
