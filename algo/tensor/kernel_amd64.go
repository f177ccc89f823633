//go:build !purego

package tensor

import "golang.org/x/sys/cpu"

// haveKernel says the CPU runs kernel4x8 (AVX2 and FMA); without it gemm
// keeps to gonum's kernels.
var haveKernel = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// kernel4x8 is C[0:4, 0:8] += Σ_l a[4l:4l+4]ᵀ b[8l:8l+8] for packed
// panels a (4 rows of op(A), interleaved by inner index) and b (8 columns
// of op(B), likewise), C's rows ldc apart (kernel_amd64.s).
//
//go:noescape
func kernel4x8(k int, a, b, c *float64, ldc int)

// The blocking of kernelGemm: a register tile of mr×nr entries of C, an
// inner block of kc (a 4×kc panel of A, 8 KB, and a kc×8 panel of B,
// 16 KB, stay in the L1 cache), and mc rows of A packed at a time (128 KB,
// in L2).
const (
	mr, nr = 4, 8
	kc, mc = 256, 64
)

// kernelGemm is C += op(A)·op(B) for row-major C (m×n), op(A) m×k and
// op(B) k×n, k > 0, in the loop order of Goto and van de Geijn (2008):
// for each inner block, op(B) is packed into panels of nr columns, then
// for each block of mc rows op(A) into panels of mr rows, and every
// mr×nr tile of C is one call of the assembly kernel. Tiles cut by the
// edge of C are computed into a scratch tile (the packed panels are
// zero-padded) and added. p is the caller's scratch of kernelScratch
// entries. It reports false, doing nothing, when the CPU has no kernel.
//
//go:norace
func kernelGemm(tA, tB bool, m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int, p []float64) bool {
	if !haveKernel {
		return false
	}
	np, mp, kb := kernelPanels(m, n, k)
	bp, ap, tile := p[:kb*np], p[kb*np:kb*np+kb*mp], p[kb*np+kb*mp:]
	for pc := 0; pc < k; pc += kc {
		kk := min(kc, k-pc)
		packB(tB, kk, n, b, ldb, pc, bp)
		for ic := 0; ic < m; ic += mc {
			mm := min(mc, m-ic)
			packA(tA, mm, kk, a, lda, ic, pc, ap)
			for jr := 0; jr < n; jr += nr {
				bpan := bp[jr*kk:]
				for ir := 0; ir < mm; ir += mr {
					apan := ap[ir*kk:]
					ci := (ic+ir)*ldc + jr
					if ir+mr <= mm && jr+nr <= n {
						kernel4x8(kk, &apan[0], &bpan[0], &c[ci], ldc)
						continue
					}
					clear(tile)
					kernel4x8(kk, &apan[0], &bpan[0], &tile[0], nr)
					for r := range min(mr, mm-ir) {
						row := c[ci+r*ldc : ci+r*ldc+min(nr, n-jr)]
						for q := range row {
							row[q] += tile[r*nr+q]
						}
					}
				}
			}
		}
	}
	return true
}

// kernelPanels are the columns of op(B) and the rows of op(A) that
// kernelGemm packs, each rounded up to whole panels, and its inner block.
func kernelPanels(m, n, k int) (np, mp, kb int) {
	return (n + nr - 1) / nr * nr, (min(m, mc) + mr - 1) / mr * mr, min(k, kc)
}

// kernelScratch is the entries of kernelGemm's scratch: a block of
// op(B)'s panels, one of op(A)'s and a tile of C; 0 without the kernel.
func kernelScratch(m, n, k int) int {
	if !haveKernel {
		return 0
	}
	np, mp, kb := kernelPanels(m, n, k)
	return kb*np + kb*mp + mr*nr
}

// packB copies rows pc..pc+kk of op(B) (k×n; B(l, j) = b[l·ldb + j], or
// b[j·ldb + l] when transposed) into panels of nr columns, panel j0/nr at
// j0·kk holding B(pc+l, j0+q) at l·nr + q, zero beyond column n.
//
//go:norace
func packB(tB bool, kk, n int, b []float64, ldb, pc int, bp []float64) {
	for j0 := 0; j0 < n; j0 += nr {
		pan := bp[j0*kk : (j0+nr)*kk]
		w := min(nr, n-j0)
		if w < nr {
			clear(pan)
		}
		if !tB {
			for l := range kk {
				copy(pan[l*nr:l*nr+w], b[(pc+l)*ldb+j0:])
			}
			continue
		}
		for q := range w {
			col := b[(j0+q)*ldb+pc : (j0+q)*ldb+pc+kk]
			for l, v := range col {
				pan[l*nr+q] = v
			}
		}
	}
}

// packA copies rows ic..ic+mm and inner indices pc..pc+kk of op(A) (m×k;
// A(i, l) = a[i·lda + l], or a[l·lda + i] when transposed) into panels of
// mr rows, panel i0/mr at i0·kk holding A(ic+i0+r, pc+l) at l·mr + r, zero
// beyond row mm.
//
//go:norace
func packA(tA bool, mm, kk int, a []float64, lda, ic, pc int, ap []float64) {
	for i0 := 0; i0 < mm; i0 += mr {
		pan := ap[i0*kk : (i0+mr)*kk]
		h := min(mr, mm-i0)
		if h < mr {
			clear(pan)
		}
		if tA {
			for l := range kk {
				copy(pan[l*mr:l*mr+h], a[(pc+l)*lda+ic+i0:])
			}
			continue
		}
		for r := range h {
			row := a[(ic+i0+r)*lda+pc : (ic+i0+r)*lda+pc+kk]
			for l, v := range row {
				pan[l*mr+r] = v
			}
		}
	}
}
