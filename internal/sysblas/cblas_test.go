//go:build cblas && cgo

package sysblas

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/gonum"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// TestAgreesWithGonum: the system's level-3 routines, and gonum's Cholesky
// over them, give gonum's results to rounding.
func TestAgreesWithGonum(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	n := 150
	a := make([]float64, n*n)
	for i := range a {
		a[i] = rng.NormFloat64()
	}
	var g gonum.Implementation
	sys := impl{}
	c1, c2 := make([]float64, n*n), make([]float64, n*n)
	g.Dgemm(blas.NoTrans, blas.Trans, n, n, n, 1, a, n, a, n, 0, c1, n)
	sys.Dgemm(blas.NoTrans, blas.Trans, n, n, n, 1, a, n, a, n, 0, c2, n)
	for i := range c1 {
		if math.Abs(c1[i]-c2[i]) > 1e-10*math.Abs(c1[i])+1e-10 {
			t.Fatalf("dgemm differs at %d: %v, %v", i, c1[i], c2[i])
		}
	}
	for i := 0; i < n; i++ {
		c1[i*n+i] += float64(n)
	}
	if !Enabled || blas64.Implementation() == (blas.Float64)(gonum.Implementation{}) {
		t.Fatal("the cblas build does not route gonum to the system BLAS")
	}
	if _, ok := lapack64.Potrf(blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: n, Data: c1}); !ok {
		t.Fatal("Cholesky failed")
	}
}
