package vi

import (
	"errors"
	"testing"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/target"
)

// stepFresh times step, rebuilding the engine (untimed) whenever it
// converges, so that every timed Step does its work.
func stepFresh(b *testing.B, build func() interface{ Step() error }) {
	e := build()
	b.ReportAllocs()
	for b.Loop() {
		if err := e.Step(); errors.Is(err, algo.ErrConverged) {
			b.StopTimer()
			e = build()
			b.StartTimer()
		}
	}
}

func BenchmarkMeanFieldStep(b *testing.B) {
	tg, _ := target.NewCorrelated(0.9)
	stepFresh(b, func() interface{ Step() error } {
		mf, _ := NewMeanField(tg.Mean(), tg.Cov(), []float64{3, -3}, 1, 0)
		return mf
	})
}

// BenchmarkMixtureCAVIStep is one factor update (one point, K = 2).
func BenchmarkMixtureCAVIStep(b *testing.B) {
	pts, _, _ := Sample(fig37(), 400, rng(1))
	stepFresh(b, func() interface{ Step() error } {
		c, _ := NewMixtureCAVI(pts, fig37(), 0, rng(2))
		return c
	})
}

// BenchmarkBayesGMMHalfStep is one local or global half-step on 1000 2-D
// points with K = 5.
func BenchmarkBayesGMMHalfStep(b *testing.B) {
	var comps []Component
	for _, m := range [][]float64{{5, 0}, {-5, 0}, {0, 5}} {
		comps = append(comps, Component{Weight: 1.0 / 3, Mean: m, Cov: [][]float64{{1, 0}, {0, 1}}})
	}
	pts, _, _ := Sample(comps, 1000, rng(3))
	stepFresh(b, func() interface{ Step() error } {
		g, _ := NewBayesGMM(pts, BGMMConfig{K: 5, Alpha0: 0.1, PriorSD: 10, Tol: 0}, rng(4))
		return g
	})
}

// BenchmarkBBVIStep is one step with S = 10 samples for each estimator and
// the exact ELBO and gradient by a 512-node rule, on the conjugate model.
func BenchmarkBBVIStep(b *testing.B) {
	c, _ := NewConjugate(0, 3, 1, 1.5, 20, rng(1))
	bb, _ := NewBBVI(c, BBVIConfig{Estimator: Reparam, Samples: 10, LR: 1e-9, M0: 0, S0: 1}, rng(2))
	b.ReportAllocs()
	for b.Loop() {
		_ = bb.Step()
	}
}
