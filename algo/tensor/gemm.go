package tensor

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// gemm is C = op(A)·op(B) + beta·C (beta 0 or 1) for row-major C (m×n)
// with op(A) m×k and op(B) k×n.
//
// Products whose inner and column sizes are both at least 16 go to gonum's
// blas64.Gemm, cut into tiles of at most 192×64 or 64×192 entries of C so
// that each call stays on gonum's serial path: its parallel path starts
// goroutines and allocates, which a training step must not, and engines
// start no goroutines (docs/ARCHITECTURE.md). Thinner products — a layer
// with 2 inputs or 2 outputs — go to smallGemm: gonum's kernels make one
// assembly call per row and entry, which for a length of 2 costs far more
// than the arithmetic.
func gemm(tA, tB bool, m, n, k int, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	if beta == 0 {
		for i := range m {
			clear(c[i*ldc : i*ldc+n])
		}
	}
	if k == 0 {
		return
	}
	if n < 16 || k < 16 {
		smallGemm(tA, tB, m, n, k, a, lda, b, ldb, c, ldc)
		return
	}
	rows, cols := 192, n
	if n > 64 {
		rows, cols = 64, min(n, 192)
	}
	ta, tb := blas.NoTrans, blas.NoTrans
	if tA {
		ta = blas.Trans
	}
	if tB {
		tb = blas.Trans
	}
	for i := 0; i < m; i += rows {
		mi := min(rows, m-i)
		var A blas64.General
		if tA { // A is k×m: columns i..i+mi
			A = blas64.General{Rows: k, Cols: mi, Stride: lda, Data: a[i:]}
		} else {
			A = blas64.General{Rows: mi, Cols: k, Stride: lda, Data: a[i*lda:]}
		}
		for j := 0; j < n; j += cols {
			nj := min(cols, n-j)
			var B blas64.General
			if tB { // B is n×k: rows j..j+nj
				B = blas64.General{Rows: nj, Cols: k, Stride: ldb, Data: b[j*ldb:]}
			} else {
				B = blas64.General{Rows: k, Cols: nj, Stride: ldb, Data: b[j:]}
			}
			C := blas64.General{Rows: mi, Cols: nj, Stride: ldc, Data: c[i*ldc+j:]}
			blas64.Gemm(ta, tb, 1, A, B, 1, C)
		}
	}
}

// smallGemm is C += op(A)·op(B) by dot products, four columns of C at a
// time, reading A and B through their strides whatever the transposition.
func smallGemm(tA, tB bool, m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) {
	ai, al := lda, 1 // A(i, l) = a[i·ai + l·al]
	if tA {
		ai, al = 1, lda
	}
	bl, bj := ldb, 1 // B(l, j) = b[l·bl + j·bj]
	if tB {
		bl, bj = 1, ldb
	}
	for i := range m {
		row := c[i*ldc : i*ldc+n]
		ao := i * ai
		j := 0
		for ; j+4 <= n; j += 4 {
			var s0, s1, s2, s3 float64
			bo := j * bj
			for l := range k {
				x := a[ao+l*al]
				p := bo + l*bl
				s0 += x * b[p]
				s1 += x * b[p+bj]
				s2 += x * b[p+2*bj]
				s3 += x * b[p+3*bj]
			}
			row[j] += s0
			row[j+1] += s1
			row[j+2] += s2
			row[j+3] += s3
		}
		for ; j < n; j++ {
			s := 0.0
			bo := j * bj
			for l := range k {
				s += a[ao+l*al] * b[bo+l*bl]
			}
			row[j] += s
		}
	}
}
