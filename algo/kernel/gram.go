package kernel

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// Gram returns the n×n kernel matrix K_ij = k(x_i, x_j) of the rows of x,
// row-major in one slice (K[i*n+j]), exactly symmetric. The dot products
// come from one symmetric rank-k product XXᵀ (BLAS dsyrk, faster here than
// pairwise dot products), so the cost is n²d/2 multiply-adds plus
// n(n+1)/2 kernel evaluations. A caller builds it once and reuses it: every
// engine of this package and of algo/svm takes a Gram matrix rather than
// recomputing kernel values per step.
func Gram(k Kernel, x [][]float64) []float64 {
	n := len(x)
	if n == 0 {
		return nil
	}
	d := len(x[0])
	a := make([]float64, n*d)
	for i, r := range x {
		copy(a[i*d:], r)
	}
	c := blas64.Symmetric{N: n, Stride: n, Data: make([]float64, n*n), Uplo: blas.Upper}
	blas64.Syrk(blas.NoTrans, 1, blas64.General{Rows: n, Cols: d, Stride: d, Data: a}, 0, c)
	// Overwrite the upper triangle in place (each dot product is read
	// before its slot is written; the diagonal last), then mirror it.
	out := c.Data
	if rbf, ok := k.(RBF); ok { // the common case, without an interface call per entry
		g := rbf.Gamma
		for i := 0; i < n; i++ {
			xx := out[i*n+i]
			row := out[i*n : (i+1)*n]
			for j := i + 1; j < n; j++ {
				row[j] = math.Exp(-g * sqDist(row[j], xx, out[j*n+j]))
			}
		}
	} else {
		for i := 0; i < n; i++ {
			xx := out[i*n+i]
			for j := i + 1; j < n; j++ {
				out[i*n+j] = k.FromDot(out[i*n+j], xx, out[j*n+j])
			}
		}
	}
	for i := 0; i < n; i++ {
		xx := out[i*n+i]
		out[i*n+i] = k.FromDot(xx, xx, xx)
		for j := i + 1; j < n; j++ {
			out[j*n+i] = out[i*n+j]
		}
	}
	return out
}

// Cross returns the m×n matrix k(z_a, x_i) between the rows of z and of x,
// row-major (K[a*n+i]).
func Cross(k Kernel, z, x [][]float64) []float64 {
	m, n := len(z), len(x)
	out := make([]float64, m*n)
	xx := make([]float64, n)
	for i, r := range x {
		xx[i] = dot(r, r)
	}
	for a, za := range z {
		zz := dot(za, za)
		row := out[a*n : (a+1)*n]
		for i, xi := range x {
			row[i] = k.FromDot(dot(za, xi), zz, xx[i])
		}
	}
	return out
}
