package main

import (
	"fmt"
	"math"
	"testing"

	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/internal/sysblas"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/gonum"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// rightLooking is the blocked right-looking Cholesky A = LLᵀ (lower,
// row-major, in place) that issue 14.6 asks to measure against gonum's
// dpotrf (LAPACK's left-looking order): factor a diagonal block, solve the
// panel below it (dtrsm), then subtract the panel's outer product from the
// trailing matrix, one block row at a time with dgemm (only the lower
// blocks and the diagonal ones, whose upper part is overwritten
// harmlessly).
func rightLooking(n int, a []float64, nb int) bool {
	var impl gonum.Implementation
	bi := blas64.Implementation()
	for j := 0; j < n; j += nb {
		jb := min(nb, n-j)
		if !impl.Dpotf2(blas.Lower, jb, a[j*n+j:], n) {
			return false
		}
		rest := n - j - jb
		if rest == 0 {
			break
		}
		bi.Dtrsm(blas.Right, blas.Lower, blas.Trans, blas.NonUnit, rest, jb, 1, a[j*n+j:], n, a[(j+jb)*n+j:], n)
		for i := j + jb; i < n; i += nb {
			ib := min(nb, n-i)
			// A[i:i+ib, j+jb:i+ib] −= L[i:i+ib, j:j+jb] · L[j+jb:i+ib, j:j+jb]ᵀ
			bi.Dgemm(blas.NoTrans, blas.Trans, ib, i+ib-(j+jb), jb, -1, a[i*n+j:], n, a[(j+jb)*n+j:], n, 1, a[i*n+j+jb:], n)
		}
	}
	return true
}

// TestRightLooking: the right-looking factor is dpotrf's, to rounding.
func TestRightLooking(t *testing.T) {
	n := 300
	a := spd(n)
	l1, l2 := append([]float64(nil), a...), append([]float64(nil), a...)
	if _, ok := lapack64.Potrf(blas64.Symmetric{Uplo: blas.Lower, N: n, Stride: n, Data: l1}); !ok {
		t.Fatal("dpotrf failed")
	}
	if !rightLooking(n, l2, 64) {
		t.Fatal("right-looking failed")
	}
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			if d := math.Abs(l1[i*n+j] - l2[i*n+j]); d > 1e-10*math.Abs(l1[i*n+j])+1e-12 {
				t.Fatalf("L[%d][%d]: %v, %v", i, j, l1[i*n+j], l2[i*n+j])
			}
		}
	}
}

// BenchmarkCholesky: gonum's dpotrf against the right-looking variant, on
// gonum's BLAS or (built with -tags cblas) the system's; CPU time counts
// every thread (gonum's dgemm runs goroutines, OpenBLAS threads unless
// OPENBLAS_NUM_THREADS=1). The README's table of issue 14.6 is this.
func BenchmarkCholesky(b *testing.B) {
	for _, n := range []int{1000, 2000, 3000} {
		a := spd(n)
		w := make([]float64, n*n)
		for _, v := range []struct {
			name string
			f    func() bool
		}{
			{"dpotrf", func() bool {
				_, ok := lapack64.Potrf(blas64.Symmetric{Uplo: blas.Lower, N: n, Stride: n, Data: w})
				return ok
			}},
			{"right64", func() bool { return rightLooking(n, w, 64) }},
			{"right128", func() bool { return rightLooking(n, w, 128) }},
		} {
			b.Run(fmt.Sprintf("n=%d/%s/cblas=%v", n, v.name, sysblas.Enabled), func(b *testing.B) {
				defer algotest.ProcessCPUTime(b)()
				for b.Loop() {
					copy(w, a)
					if !v.f() {
						b.Fatal("not positive definite")
					}
				}
			})
		}
	}
}
