package tensor

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// naiveGemm is C = op(A)·op(B) + beta·C by the definition, the oracle of
// TestGemmRoutes.
func naiveGemm(tA, tB bool, m, n, k int, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	for i := range m {
		for j := range n {
			s := 0.0
			for l := range k {
				ai, bi := i*lda+l, l*ldb+j
				if tA {
					ai = l*lda + i
				}
				if tB {
					bi = j*ldb + l
				}
				s += a[ai] * b[bi]
			}
			c[i*ldc+j] = beta*c[i*ldc+j] + s
		}
	}
}

// TestGemmRoutes checks every route of gemm — the assembly kernel where
// the CPU has one, and gonum's with it switched off — against the
// definition, on shapes that exercise each route and the kernel's edges:
// sizes not multiples of the 4×8 tile, inner sizes past the block kc,
// rows past the block mc, transposes, leading dimensions wider than the
// matrix and beta 0 or 1. Sums of k products of numbers in [−1, 1] agree
// to a few ulps of k.
func TestGemmRoutes(t *testing.T) {
	shapes := [][3]int{{16, 16, 16}, {64, 64, 64}, {17, 23, 19}, {5, 16, 300}, {130, 33, 600}, {3, 40, 16}, {256, 16, 2}, {256, 2, 16}, {1, 1, 1}, {70, 9, 513}}
	rng := rand.New(rand.NewPCG(7, 8))
	fill := func(n int) []float64 {
		x := make([]float64, n)
		for i := range x {
			x[i] = 2*rng.Float64() - 1
		}
		return x
	}
	routes := []bool{false}
	if haveKernel {
		routes = append(routes, true)
	}
	defer func(h bool) { haveKernel = h }(haveKernel)
	for _, kernel := range routes {
		haveKernel = kernel
		for _, s := range shapes {
			m, n, k := s[0], s[1], s[2]
			for _, tA := range []bool{false, true} {
				for _, tB := range []bool{false, true} {
					for _, beta := range []float64{0, 1} {
						name := fmt.Sprintf("kernel=%v/%dx%dx%d/tA=%v/tB=%v/beta=%v", kernel, m, n, k, tA, tB, beta)
						ra, ca := m, k
						if tA {
							ra, ca = k, m
						}
						rb, cb := k, n
						if tB {
							rb, cb = n, k
						}
						lda, ldb, ldc := ca+3, cb+1, n+2
						a, b := fill((ra-1)*lda+ca), fill((rb-1)*ldb+cb)
						c := fill((m-1)*ldc + n)
						want := append([]float64(nil), c...)
						naiveGemm(tA, tB, m, n, k, a, lda, b, ldb, beta, want, ldc)
						var pack []float64
						gemm(tA, tB, m, n, k, a, lda, b, ldb, beta, c, ldc, &pack)
						tol := 8 * float64(k) * 0x1p-52
						for i := range m {
							for j := range n {
								if d := math.Abs(c[i*ldc+j] - want[i*ldc+j]); d > tol {
									t.Fatalf("%s: C[%d,%d] = %v, want %v (|Δ| %.3g > %.3g)", name, i, j, c[i*ldc+j], want[i*ldc+j], d, tol)
								}
							}
						}
						for i := range m - 1 { // the gaps between rows are not written
							for j := n; j < ldc; j++ {
								if c[i*ldc+j] != want[i*ldc+j] {
									t.Fatalf("%s: wrote C's padding at row %d column %d", name, i, j)
								}
							}
						}
					}
				}
			}
		}
	}
}

// TestGemmKernelAllocatesNothing: once its scratch has grown, a product
// through the kernel allocates nothing.
func TestGemmKernelAllocatesNothing(t *testing.T) {
	if !haveKernel {
		t.Skip("no assembly kernel on this CPU or build")
	}
	a, b, c := make([]float64, 64*64), make([]float64, 64*64), make([]float64, 64*64)
	var pack []float64
	run := func() { gemm(true, false, 64, 64, 64, a, 64, b, 64, 0, c, 64, &pack) }
	run()
	if n := testing.AllocsPerRun(10, run); n != 0 {
		t.Errorf("%v allocations a product, want 0", n)
	}
}
