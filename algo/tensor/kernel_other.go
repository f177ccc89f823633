//go:build !amd64 || purego

package tensor

// haveKernel is false: this build has no assembly kernel (another
// architecture, or the purego tag), and gemm keeps to gonum's kernels.
var haveKernel = false

// kernelGemm does nothing and reports false: see kernel_amd64.go.
func kernelGemm(tA, tB bool, m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int, p []float64) bool {
	return false
}

// kernelScratch is 0: kernelGemm packs nothing.
func kernelScratch(m, n, k int) int { return 0 }
