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
// start no goroutines (docs/ARCHITECTURE.md). pack is scratch kept by the
// caller (a node) so that repacking allocates nothing. Thinner products — a layer
// with 2 inputs or 2 outputs — go to smallGemm: gonum's kernels make one
// assembly call per row and entry, which for a length of 2 costs far more
// than the arithmetic.
func gemm(tA, tB bool, m, n, k int, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int, pack *[]float64) {
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
		smallGemm(tA, tB, m, n, k, a, lda, b, ldb, c, ldc, pack)
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

// smallGemm is C += op(A)·op(B) in plain Go. op(B) is first made a
// contiguous k×n block (copied into pack when B is transposed), so every
// inner loop runs over contiguous memory. With a short inner size (k ≤ 4)
// each row of C gathers k scaled rows of op(B); otherwise entries of C are
// dot products, four columns at a time.
func smallGemm(tA, tB bool, m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int, pack *[]float64) {
	if tB { // op(B)(l, j) = b[j·ldb + l]
		*pack = grow(*pack, k*n)
		p := *pack
		for j := range n {
			for l, v := range b[j*ldb : j*ldb+k] {
				p[l*n+j] = v
			}
		}
		b, ldb = p, n
	}
	ai, al := lda, 1 // A(i, l) = a[i·ai + l·al]
	if tA {
		ai, al = 1, lda
	}
	for i := range m {
		row := c[i*ldc : i*ldc+n : i*ldc+n]
		ao := i * ai
		if k <= 4 {
			for l := range k {
				x := a[ao+l*al]
				br := b[l*ldb : l*ldb+n]
				br = br[:len(row)]
				for j, v := range br {
					row[j] += x * v
				}
			}
			continue
		}
		j := 0
		for ; j+4 <= n; j += 4 {
			var s0, s1, s2, s3 float64
			for l := range k {
				x := a[ao+l*al]
				q := b[l*ldb+j : l*ldb+j+4 : l*ldb+j+4]
				s0 += x * q[0]
				s1 += x * q[1]
				s2 += x * q[2]
				s3 += x * q[3]
			}
			row[j] += s0
			row[j+1] += s1
			row[j+2] += s2
			row[j+3] += s3
		}
		for ; j+2 <= n; j += 2 {
			var s0, s1 float64
			for l := range k {
				x := a[ao+l*al]
				q := b[l*ldb+j : l*ldb+j+2 : l*ldb+j+2]
				s0 += x * q[0]
				s1 += x * q[1]
			}
			row[j] += s0
			row[j+1] += s1
		}
		if j < n {
			s0 := 0.0
			for l := range k {
				s0 += a[ao+l*al] * b[l*ldb+j]
			}
			row[j] += s0
		}
	}
}
