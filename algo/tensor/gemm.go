package tensor

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// gemm is C = op(A)·op(B) + beta·C (beta 0 or 1) for row-major C (m×n)
// with op(A) m×k and op(B) k×n, by one of three routes:
//
//   - inner and output sizes both ≥ 16: gonum's blas64.Gemm directly;
//   - an output narrower than 16 columns over an inner size ≥ 16: packed
//     (packNT) so that every entry is one contiguous dot product, then
//     gonum's NoTrans×Trans kernel;
//   - an inner size ≤ 4, or both sizes below 16 (a layer with 2 inputs):
//     smallGemm in plain Go, since gonum makes one assembly call per row
//     and inner index, which for a length of 2 costs far more than the
//     arithmetic.
//
// gonum's calls are cut into tiles of at most 192×64 or 64×192 entries of
// C so that each stays on its serial path: its parallel path starts
// goroutines and allocates, which a training step must not, and engines
// start no goroutines (docs/ARCHITECTURE.md). pack is scratch kept by the
// caller (a node), grown to gemmScratch, so repacking allocates nothing.
//
//go:norace
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
	*pack = grow(*pack, gemmScratch(tA, tB, m, n, k))
	switch route(n, k) {
	case routeSmall:
		smallGemm(tA, tB, m, n, k, a, lda, b, ldb, c, ldc, *pack)
		return
	case routeDots: // a narrow output over a long inner size: dot products
		a, lda, b, ldb = packNT(tA, tB, m, n, k, a, lda, b, ldb, *pack)
		tA, tB = false, true
	default:
		if kernelGemm(tA, tB, m, n, k, a, lda, b, ldb, c, ldc, *pack) {
			return
		}
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

// gemmRoute is how gemm computes a product (see gemm).
type gemmRoute uint8

const (
	routeSmall   gemmRoute = iota // smallGemm
	routeDots                     // packNT, then dot products
	routeBlocked                  // kernelGemm, or gonum's Gemm
)

// route is gemm's way for an output n columns wide over an inner size k.
func route(n, k int) gemmRoute {
	switch {
	case k <= 4 || n < 16 && k < 16:
		return routeSmall
	case n < 16:
		return routeDots
	}
	return routeBlocked
}

// gemmScratch is the entries of pack that gemm needs for a product of an
// m×k by a k×n matrix: op(B) made contiguous (smallGemm), the transposed
// operands (packNT) or the panels of kernelGemm; 0 for gonum's Gemm. A
// tape's footprint (MatMulBytes) counts the same scratch.
func gemmScratch(tA, tB bool, m, n, k int) int {
	if m == 0 || n == 0 || k == 0 {
		return 0
	}
	switch route(n, k) {
	case routeSmall:
		if tB {
			return k * n
		}
		return 0
	case routeDots:
		need := 0
		if tA {
			need += m * k
		}
		if !tB {
			need += n * k
		}
		return need
	}
	return kernelScratch(m, n, k)
}

// packNT makes op(A) an m×k and op(B)ᵀ an n×k row-major block (copying
// into the scratch p only what is not already laid out so), so that C += op(A)·op(B)
// becomes m·n contiguous dot products of length k: gonum's NoTrans×Trans
// kernel, one assembly call per entry of C instead of one per row and
// inner index.
//
//go:norace
func packNT(tA, tB bool, m, n, k int, a []float64, lda int, b []float64, ldb int, p []float64) ([]float64, int, []float64, int) {
	if tA { // A is k×m
		at := p[:m*k]
		for l := range k {
			for i, v := range a[l*lda : l*lda+m] {
				at[i*k+l] = v
			}
		}
		a, lda, p = at, k, p[m*k:]
	}
	if !tB { // B is k×n
		bt := p[:n*k]
		for l := range k {
			for j, v := range b[l*ldb : l*ldb+n] {
				bt[j*k+l] = v
			}
		}
		b, ldb = bt, k
	}
	return a, lda, b, ldb
}

// smallGemm is C += op(A)·op(B) in plain Go. op(B) is first made a
// contiguous k×n block (copied into the scratch p when B is transposed), so every
// inner loop runs over contiguous memory. With a short inner size (k ≤ 4)
// each row of C gathers k scaled rows of op(B); otherwise entries of C are
// dot products, four columns at a time.
//
//go:norace
func smallGemm(tA, tB bool, m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int, p []float64) {
	if tB { // op(B)(l, j) = b[j·ldb + l]
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
