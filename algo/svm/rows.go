package svm

import (
	"github.com/thelab/lab/algo/kernel"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// rows gives the rows K_i· of the kernel matrix that a pair update needs,
// in double precision (a Gram matrix given) or single (the cache; the
// other slice nil). A row stays valid until two more rows have been asked
// for (a cache keeps at least two), so that rows i and j of one step can
// be held together.
type rows interface {
	row(i int) ([]float64, []float32)
	computed() int // rows computed so far
}

// gramRows are the rows of a kernel matrix computed beforehand.
type gramRows struct {
	k []float64
	n int
}

func (g gramRows) row(i int) ([]float64, []float32) { return g.k[i*g.n : (i+1)*g.n], nil }
func (g gramRows) computed() int                    { return g.n }

// DefaultCache is the default size of the kernel-row cache, LIBSVM's
// default (100 MB).
const DefaultCache = 100 << 20

// cachedRows computes rows on demand and keeps the most recently used in a
// bounded cache (LIBSVM's kernel cache, Chang & Lin 2011, §5.1): a row is
// computed only when the working-set selection first asks for it, and
// computed again only if it was evicted. Rows are full length, so that a
// cached row stays valid whatever is shrunk. A row costs one
// matrix-vector product over the data, stored feature by feature so that
// it is d vectorised axpys of length n, and n kernel values.
//
// Like LIBSVM's, the cache holds single-precision values: twice the rows
// in the same memory. The solver then works exactly on the kernel matrix
// rounded to float32 (relative error 6e-8, absolute 7e-46 below float32's
// normal range, 1.2e-38; the diagonal stays exact), to any tolerance.
type cachedRows struct {
	n, d  int
	xt    []float64 // d×n: feature f of point t at f*n+t
	nrm   []float64 // ‖x_t‖²
	kern  kernel.Kernel
	rbf   bool
	gamma float64
	xi    []float64 // scratch: x_i

	max        int         // rows the cache may hold, ≥ 2
	buf        [][]float32 // the slots' rows, allocated as the cache fills
	store      []float32   // every slot's row, when the cache is reserved
	dots       []float64   // scratch: a row's dot products
	slot       []int32     // slot of row i, −1 when not cached
	owner      []int32     // row held by each slot
	prev, next []int32     // the slots in order of use, most recent first
	head, tail int32
	misses     int // rows computed
}

// cacheRows is the number of rows a cache of that many bytes holds for n
// points: at least two, at most all n.
func cacheRows(n int, cache int64) int {
	return int(min(int64(n), max(2, cache/(4*int64(n)))))
}

// newCachedRows makes the cache of the rows of k on x, of about cache
// bytes, all of them allocated at once when reserve is set.
func newCachedRows(x [][]float64, k kernel.Kernel, cache int64, reserve bool) *cachedRows {
	n, d := len(x), len(x[0])
	c := &cachedRows{n: n, d: d, xt: make([]float64, d*n), nrm: make([]float64, n), kern: k,
		xi: make([]float64, d), dots: make([]float64, n), slot: make([]int32, n), head: -1, tail: -1}
	for t, r := range x {
		s := 0.0
		for f, v := range r {
			c.xt[f*n+t] = v
			s += v * v
		}
		c.nrm[t] = s
	}
	if r, ok := k.(kernel.RBF); ok {
		c.rbf, c.gamma = true, r.Gamma
	}
	c.max = cacheRows(n, cache)
	if reserve {
		c.store = make([]float32, c.max*n)
	}
	for i := range c.slot {
		c.slot[i] = -1
	}
	return c
}

func (c *cachedRows) computed() int { return c.misses }

// diag returns K_tt for every t.
func (c *cachedRows) diag() []float64 {
	kd := make([]float64, c.n)
	for t, v := range c.nrm {
		kd[t] = c.kern.FromDot(v, v, v)
	}
	return kd
}

func (c *cachedRows) row(i int) ([]float64, []float32) {
	if s := c.slot[i]; s >= 0 {
		c.touch(s)
		return nil, c.buf[s]
	}
	var s int32
	if len(c.owner) < c.max {
		s = int32(len(c.owner))
		c.owner = append(c.owner, -1)
		c.prev, c.next = append(c.prev, -1), append(c.next, -1)
		if c.store != nil {
			c.buf = append(c.buf, c.store[int(s)*c.n:int(s+1)*c.n:int(s+1)*c.n])
		} else {
			c.buf = append(c.buf, make([]float32, c.n))
		}
	} else {
		s = c.tail // the least recently used
		c.slot[c.owner[s]] = -1
		c.unlink(s)
	}
	c.owner[s], c.slot[i] = int32(i), s
	c.pushFront(s)
	out := c.buf[s]
	c.compute(i, out)
	c.misses++
	return nil, out
}

// compute writes K_i· into out.
func (c *cachedRows) compute(i int, out []float32) {
	n := c.n
	for f := range c.xi {
		c.xi[f] = c.xt[f*n+i]
	}
	// The dot products ⟨x_t, x_i⟩: the feature-major data times x_i.
	blas64.Gemv(blas.Trans, 1, blas64.General{Rows: c.d, Cols: n, Stride: n, Data: c.xt},
		blas64.Vector{N: c.d, Inc: 1, Data: c.xi}, 0, blas64.Vector{N: n, Inc: 1, Data: c.dots})
	ni := c.nrm[i]
	out = out[:len(c.dots)]
	nrm := c.nrm[:len(c.dots)]
	if c.rbf {
		g := c.gamma
		for t, xz := range c.dots {
			out[t] = float32(kernel.RBF{Gamma: g}.FromDot(xz, ni, nrm[t]))
		}
		return
	}
	for t, xz := range c.dots {
		out[t] = float32(c.kern.FromDot(xz, ni, nrm[t]))
	}
}

func (c *cachedRows) touch(s int32) {
	if c.head != s {
		c.unlink(s)
		c.pushFront(s)
	}
}

func (c *cachedRows) unlink(s int32) {
	p, q := c.prev[s], c.next[s]
	if p >= 0 {
		c.next[p] = q
	} else {
		c.head = q
	}
	if q >= 0 {
		c.prev[q] = p
	} else {
		c.tail = p
	}
	c.prev[s], c.next[s] = -1, -1
}

func (c *cachedRows) pushFront(s int32) {
	c.prev[s], c.next[s] = -1, c.head
	if c.head >= 0 {
		c.prev[c.head] = s
	}
	c.head = s
	if c.tail < 0 {
		c.tail = s
	}
}
