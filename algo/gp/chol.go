package gp

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// factor is the Cholesky factor C = LLᵀ of a covariance C = A + (noise +
// jitter)I: L lower triangular, row-major with a stride that leaves room
// for more rows, so that one more observation extends it by one row
// (extend) instead of refactorising. It also keeps the column sums of |C|,
// whose maximum is the 1-norm ‖C‖₁ that the condition estimate needs.
type factor struct {
	n, stride int
	l         []float64 // L, n rows of stride; only the lower triangle is read
	ahead     int       // rows n … n+ahead−1 of l hold L's next rows (solveAhead)
	colAbs    []float64 // Σ_i |C_ij| for each column j
	noise     float64
	jitter    float64
	// Scratch of the condition estimate (LAPACK dpocon).
	work  []float64
	iwork []int
}

// tri is L as a BLAS triangular matrix.
func (f *factor) tri() blas64.Triangular {
	return blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: f.n, Stride: max(f.stride, 1), Data: f.l}
}

// sym is the factor as LAPACK's dpotrf leaves it (lower triangle).
func (f *factor) sym() blas64.Symmetric {
	return blas64.Symmetric{Uplo: blas.Lower, N: f.n, Stride: max(f.stride, 1), Data: f.l}
}

// grown is the stride reserve gives a factor of that stride asked for n
// rows: at least doubled, so that rows taken in one by one cost O(1)
// copies each.
func grown(stride, n int) int { return max(n, 2*stride, 16) }

// factorBytes is what a factor of that stride holds: L and, per row, the
// column sums and the condition estimate's scratch.
func factorBytes(stride int) int64 { return 8*int64(stride)*int64(stride) + 5*8*int64(stride) }

// reserve makes room for n rows, keeping the rows there are.
func (f *factor) reserve(n int) {
	if n <= f.stride {
		return
	}
	stride := grown(f.stride, n)
	l := make([]float64, stride*stride)
	for i := 0; i < f.n+f.ahead; i++ {
		copy(l[i*stride:i*stride+i+1], f.l[i*f.stride:i*f.stride+i+1])
	}
	f.l, f.stride = l, stride
	f.colAbs = append(make([]float64, 0, stride), f.colAbs...)
	f.work, f.iwork = make([]float64, 3*stride), make([]int, stride)
}

// norm1 is ‖C‖₁.
func (f *factor) norm1() float64 {
	m := 0.0
	for _, v := range f.colAbs {
		m = math.Max(m, v)
	}
	return m
}

// wellConditioned reports whether the factorised C passes the jitter
// policy's test, cond₁(C) ≤ MaxCond, by LAPACK's estimate (dpocon, as
// gonum's Cholesky.Cond) — unless a bound shows it needless: for a
// positive-semidefinite A, λ_min(C) ≥ noise + jitter (less a rounding
// allowance), and the estimate never exceeds cond₁(C) ≤ n‖C‖₁/λ_min(C).
// With any noise the bound settles it, and a step costs no condition
// estimate; without, the estimate costs a few triangular solves.
func (f *factor) wellConditioned() bool {
	anorm := f.norm1()
	if lo := f.noise + f.jitter - 1e-13*anorm; lo > 0 && float64(f.n)*anorm <= MaxCond*lo {
		return true
	}
	rcond := lapack64.Pocon(f.sym(), anorm, f.work[:3*f.n], f.iwork[:f.n])
	return rcond > 0 && 1/rcond <= MaxCond
}

// factorize sets f to the factor of a + (noise + jitter)I for the n×n
// row-major symmetric a (read, not modified), escalating the jitter by the
// policy of JitterStart, JitterMax and MaxCond; the jitter scale is the
// mean of |a_ii|. It returns an error, leaving f empty, when even the
// largest jitter fails.
func (f *factor) factorize(a []float64, n int, noise float64) error {
	f.n, f.noise, f.jitter, f.ahead = 0, noise, 0, 0
	f.reserve(n)
	f.colAbs = f.colAbs[:n]
	scale := 0.0
	for i := 0; i < n; i++ {
		scale += math.Abs(a[i*n+i]) / float64(n)
	}
	if scale == 0 {
		scale = 1
	}
	for jitter := 0.0; ; {
		clear(f.colAbs)
		for i := 0; i < n; i++ {
			row := f.l[i*f.stride : i*f.stride+i+1]
			copy(row, a[i*n:i*n+i+1])
			row[i] += noise + jitter
			for j, v := range row {
				f.colAbs[j] += math.Abs(v)
				if j < i {
					f.colAbs[i] += math.Abs(v)
				}
			}
		}
		f.n, f.jitter = n, jitter
		if _, ok := lapack64.Potrf(f.sym()); ok && f.wellConditioned() {
			return nil
		}
		switch {
		case jitter == 0 && JitterStart*scale > 0:
			jitter = JitterStart * scale
		case jitter > 0 && jitter < JitterMax*scale*(1-1e-9):
			jitter *= 10
		default: // past the largest jitter, or a scale so small (a denormal variance) that every jitter is 0
			f.n = 0
			f.colAbs = f.colAbs[:0]
			if JitterStart*scale == 0 {
				return fmt.Errorf("the covariance (%d×%d) is not positive definite, and its diagonal (mean %.1g) is too small "+
					"for any jitter: raise the kernel's variance or the noise", n, n, scale)
			}
			return fmt.Errorf("the covariance (%d×%d) is not positive definite even with jitter %.1g·mean(diag K): "+
				"raise noise, or use a kernel that is positive semidefinite", n, n, JitterMax)
		}
	}
}

// extend adds a row and column to C, c = (C_{1..n, n+1}) and d = A_{n+1,n+1}
// (the new diagonal before noise and jitter), at the present jitter: the
// new row of L is r = L⁻¹c, by forward substitution, and its diagonal
// √(d + noise + jitter − ‖r‖²), unless solveAhead has computed that row
// already. It costs O(n²) and does not allocate once the room is reserved.
// It reports false, leaving f as it was, when the new pivot is not
// positive or the extended C fails the condition test; the caller then
// refactorises from scratch with more jitter.
func (f *factor) extend(c []float64, d float64) bool {
	n := f.n
	diag := d + f.noise + f.jitter
	if f.ahead == 0 {
		f.reserve(n + 1)
		row := f.l[n*f.stride : n*f.stride+n+1]
		copy(row, c)
		row[n] = diag
		if f.solveAhead(1); f.ahead == 0 {
			return false
		}
	}
	// ‖C‖₁ with the new column.
	newCol := math.Abs(diag)
	for j, v := range c {
		newCol += math.Abs(v)
		f.colAbs[j] += math.Abs(v)
	}
	f.colAbs = append(f.colAbs, newCol)
	f.n++
	f.ahead--
	if !f.wellConditioned() {
		f.n--
		f.ahead++
		f.colAbs = f.colAbs[:n]
		for j, v := range c {
			f.colAbs[j] -= math.Abs(v)
		}
		return false
	}
	return true
}

// solveAhead turns rows n … n+b−1 of the storage, which the caller has
// filled with the lower triangle of those rows of C (noise and jitter on
// the diagonal), into the next b rows of L, without taking them in: extend
// takes them one at a time. The result is the row-by-row forward
// substitution's, operation for operation, but in a cache-friendly order:
// each existing row L_j is read once for all b new rows while it is in the
// first-level cache, rather than once per row (a forward substitution is
// bound by reading L, k²/2 numbers for one row). Rows after a pivot that
// is not positive are not computed; f.ahead is the number that are.
func (f *factor) solveAhead(b int) {
	n, st := f.n, f.stride
	end := n + b
	for j := 0; j < end; j++ {
		lj := f.l[j*st : j*st+j+1]
		if j >= n {
			// Row j has all its off-diagonal entries: its pivot.
			p := lj[j] - blas64.Dot(vec(lj[:j]), vec(lj[:j]))
			if !(p > 0) {
				f.ahead = j - n
				return
			}
			lj[j] = math.Sqrt(p)
		}
		for r := max(j+1, n); r < end; r++ {
			xr := f.l[r*st : r*st+j+1]
			xr[j] = (xr[j] - blas64.Dot(vec(lj[:j]), vec(xr[:j]))) / lj[j]
		}
	}
	f.ahead = b
}

// forward solves L x = b in place for the first len(b) rows of L (x
// overwrites b), row by row: x_i = (b_i − L_{i,<i}·x_{<i})/L_ii. The dot
// products are BLAS ddot's vectorised kernel; gonum's dtrsv runs the same
// loop with one scalar accumulator, four times slower, and this solve is
// nearly all of a Sequential step.
func (f *factor) forward(b []float64) {
	for i := range b {
		row := f.l[i*f.stride : i*f.stride+i+1]
		b[i] = (b[i] - blas64.Dot(vec(row[:i]), vec(b[:i]))) / row[i]
	}
}

// backward solves Lᵀ x = b in place, column by column of Lᵀ (rows of L):
// x_i = b_i/L_ii, then b_{<i} −= x_i·L_{i,<i} (BLAS daxpy).
func (f *factor) backward(b []float64) {
	for i := len(b) - 1; i >= 0; i-- {
		row := f.l[i*f.stride : i*f.stride+i+1]
		b[i] /= row[i]
		blas64.Axpy(-b[i], vec(row[:i]), vec(b[:i]))
	}
}

// vec is v as a BLAS vector.
func vec(v []float64) blas64.Vector { return blas64.Vector{N: len(v), Inc: 1, Data: v} }

// logDet is log|C| = 2 Σ log L_ii.
func (f *factor) logDet() float64 {
	s := 0.0
	for i := 0; i < f.n; i++ {
		s += math.Log(f.l[i*f.stride+i])
	}
	return 2 * s
}

// inverse returns C⁻¹ as an n×n row-major symmetric matrix (both
// triangles), from a copy of L (LAPACK dpotri).
func (f *factor) inverse() ([]float64, error) {
	n := f.n
	inv := make([]float64, n*n)
	for i := 0; i < n; i++ {
		copy(inv[i*n:i*n+i+1], f.l[i*f.stride:i*f.stride+i+1])
	}
	if _, ok := lapack64.Potri(blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: n, Stride: max(n, 1), Data: inv}); !ok {
		return nil, fmt.Errorf("GP: the covariance factor is singular")
	}
	for i := 0; i < n; i++ {
		for j := 0; j < i; j++ {
			inv[j*n+i] = inv[i*n+j]
		}
	}
	return inv, nil
}
