package kernel

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/thelab/lab/algo"
	"gonum.org/v1/gonum/mat"
)

// PSDTol is the relative tolerance of the positive-semidefiniteness check:
// a Gram matrix passes when λ_min ≥ −PSDTol·max(|λ_max|, 1e-300), rounding
// in the eigendecomposition being of order n·ε·λ_max (seed-003 catalogue,
// K4 oracle).
const PSDTol = 1e-10

// PSDCheck grows a Gram matrix one point at a time and checks it against
// the definition of a positive-definite kernel: every Gram matrix is
// symmetric with non-negative eigenvalues, i.e. aᵀKa ≥ 0 for every a ∈ R^N
// (seed 003 L148–169; the seed writes x ∈ X where a ∈ R^N is meant,
// erratum 3 of the seed-003 catalogue; seed 000 Theorem 4.1, L1521, says
// "positive definite" where semi-definite is meant). One Step adds the next
// point of the pool (an O(nd) new row) and recomputes the spectrum (O(n³)).
// It also tracks the kernel Cauchy–Schwarz inequality K_ij² ≤ K_ii K_jj
// (seed 003 L270), which every positive-semidefinite matrix satisfies.
type PSDCheck struct {
	k    Kernel
	pool [][]float64
	n    int
	gram []float64 // n×n, row-major with stride cap
	cap  int
	eig  []float64 // ascending
	// worst Cauchy–Schwarz excess max(K_ij² − K_ii K_jj), relative to
	// max K_ii K_jj
	cs    float64
	scale float64
}

// PSDFootprint is the bytes a PSDCheck of a pool of m points holds at its
// largest: the m×m Gram matrix, made whole at the start, and the
// eigensolver's pooled workspace (eigenWork), which the pool may hold
// twice over as the matrix grows through its arrays' sizes; each Step's
// copy of the matrix for the eigensolver is garbage once the spectrum is
// known.
func PSDFootprint(m int) int64 { return 8*int64(m)*int64(m) + 8*int64(m) + 2*eigenWork(m) }

// NewPSDCheck starts with the first `start` points of pool (at least 1) and
// will add the rest one per Step.
func NewPSDCheck(k Kernel, pool [][]float64, start int) (*PSDCheck, error) {
	if len(pool) == 0 {
		return nil, algo.BadParam("points", 0, "at least one point")
	}
	if start < 1 || start > len(pool) {
		return nil, algo.BadParam("start", start, fmt.Sprintf("in 1..%d", len(pool)))
	}
	m := len(pool)
	c := &PSDCheck{k: k, pool: pool, cap: m, gram: make([]float64, m*m), cs: math.Inf(-1)}
	for range start {
		c.add()
	}
	c.spectrum()
	return c, nil
}

// add appends the next pool point's row and column.
func (c *PSDCheck) add() {
	i := c.n
	x := c.pool[i]
	xx := dot(x, x)
	for j := 0; j <= i; j++ {
		z := c.pool[j]
		v := c.k.FromDot(dot(x, z), xx, dot(z, z))
		c.gram[i*c.cap+j] = v
		c.gram[j*c.cap+i] = v
	}
	c.n++
	kii := c.gram[i*c.cap+i]
	for j := 0; j <= i; j++ {
		kij, kjj := c.gram[i*c.cap+j], c.gram[j*c.cap+j]
		c.scale = math.Max(c.scale, math.Abs(kii*kjj))
		c.cs = math.Max(c.cs, kij*kij-kii*kjj)
	}
}

func (c *PSDCheck) spectrum() {
	n := c.n
	sym := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			sym.SetSym(i, j, c.gram[i*c.cap+j])
		}
	}
	var ed mat.EigenSym
	if !ed.Factorize(sym, false) {
		c.eig = nil
		return
	}
	c.eig = ed.Values(nil)
}

// Step adds the next point and recomputes the spectrum. It returns
// ErrConverged when the pool is exhausted.
func (c *PSDCheck) Step() error {
	if c.n == len(c.pool) {
		return algo.ErrConverged
	}
	c.add()
	c.spectrum()
	if c.eig == nil {
		return fmt.Errorf("eigendecomposition of the %d×%d Gram matrix failed", c.n, c.n)
	}
	return nil
}

// N is the number of points in the Gram matrix.
func (c *PSDCheck) N() int { return c.n }

// Kernel returns the kernel under test.
func (c *PSDCheck) Kernel() Kernel { return c.k }

// At returns K_ij for i, j < N.
func (c *PSDCheck) At(i, j int) float64 { return c.gram[i*c.cap+j] }

// Eigenvalues returns the spectrum of the current Gram matrix, ascending
// (a view).
func (c *PSDCheck) Eigenvalues() []float64 { return c.eig }

// MinMax returns the smallest and largest eigenvalues.
func (c *PSDCheck) MinMax() (lo, hi float64) {
	if len(c.eig) == 0 {
		return 0, 0
	}
	return c.eig[0], c.eig[len(c.eig)-1]
}

// PSD reports whether λ_min ≥ −PSDTol·max|λ|.
func (c *PSDCheck) PSD() bool {
	lo, hi := c.MinMax()
	return lo >= -PSDTol*math.Max(math.Max(math.Abs(hi), math.Abs(lo)), 1e-300)
}

// CauchySchwarz returns the largest K_ij² − K_ii K_jj over the pairs so far,
// relative to the largest |K_ii K_jj|: ≤ 0 (up to rounding) for a kernel.
func (c *PSDCheck) CauchySchwarz() float64 {
	if c.scale == 0 {
		return c.cs
	}
	return c.cs / c.scale
}

// eigenWork is the workspace gonum's symmetric eigensolver (mat.EigenSym,
// LAPACK's Dsyev) takes from its pool for an n×n matrix: (32+2)·n words, in
// the pool's arrays of a power of two. The pool keeps it after the solve,
// until the second garbage collection after.
func eigenWork(n int) int64 { return 8 << bits.Len(uint(34*n-1)) }
