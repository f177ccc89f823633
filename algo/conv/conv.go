// Package conv is the 2-D convolution of CNNs worked by hand (seed 001
// §10, [A18]): the output-size formula, "same" padding, the matrix form
// W_circ·vec(X) = vec(W∗X), and a sweep that slides the window over the
// image one output cell per step, then pools one cell per step. The
// networks themselves convolve on the tape (tensor.Conv2D); the tests
// hold the two to each other.
//
// As in the notes (L1049–L1053) the operation is a cross-correlation —
// the kernel is not flipped — with zero padding; images are row-major.
package conv

import (
	"fmt"
	"math"

	"github.com/thelab/lab/algo"
)

// MaxSide bounds an image's or a kernel's side.
const MaxSide = 64

// OutSize is the number of positions of a window of size k moved by
// stride s over n entries padded with p zeros on each side,
// ⌊(n + 2p − k)/s⌋ + 1 (seed 001 L1069–L1071), or 0 when the window does
// not fit.
func OutSize(n, k, s, p int) int {
	if s < 1 || n+2*p < k {
		return 0
	}
	return (n+2*p-k)/s + 1
}

// SamePad is the padding of "same" convolution: the smallest p with
// OutSize(m, a, s, p) ≥ m, p = ⌈(m(s − 1) + a − s)/2⌉ (seed 001 L1075; the
// notes print m(s − a) for m(s − 1), erratum E12, which is negative for
// any kernel wider than the stride). The output then has exactly m
// entries, except for an even kernel at stride 1, which gets m + 1: it
// cannot keep the size with the same padding on both sides. This is the
// notes' "same" (output size = input size), not TensorFlow's ⌈m/s⌉.
func SamePad(m, a, s int) int {
	return max(0, (m*(s-1)+a-s+1)/2)
}

// NotesSamePad is the notes' misprinted formula ⌈(m(s − a) + a − s)/2⌉
// (erratum E12), kept for showing what it gives.
func NotesSamePad(m, a, s int) int {
	v := m*(s-a) + a - s
	return int(math.Ceil(float64(v) / 2))
}

// Geometry is a convolution's shape: an H×W image, a KH×KW kernel,
// stride and zero padding on each side.
type Geometry struct {
	H, W, KH, KW, Stride, Pad int
}

// Check validates the geometry.
func (g Geometry) Check() error {
	for _, v := range []struct {
		name string
		n    int
	}{{"height", g.H}, {"width", g.W}, {"kernel", g.KH}, {"kernel", g.KW}} {
		if v.n < 1 || v.n > MaxSide {
			return algo.BadParam(v.name, v.n, fmt.Sprintf("in 1..%d", MaxSide))
		}
	}
	if g.Stride < 1 || g.Stride > MaxSide {
		return algo.BadParam("stride", g.Stride, fmt.Sprintf("in 1..%d", MaxSide))
	}
	if g.Pad < 0 || g.Pad > MaxSide {
		return algo.BadParam("pad", g.Pad, fmt.Sprintf("in 0..%d", MaxSide))
	}
	if g.OH() < 1 || g.OW() < 1 {
		return algo.BadParam("kernel", fmt.Sprintf("%d×%d", g.KH, g.KW),
			fmt.Sprintf("at most the padded image, %d×%d", g.H+2*g.Pad, g.W+2*g.Pad))
	}
	return nil
}

// OH and OW are the output's size.
func (g Geometry) OH() int { return OutSize(g.H, g.KH, g.Stride, g.Pad) }
func (g Geometry) OW() int { return OutSize(g.W, g.KW, g.Stride, g.Pad) }

// At is the output cell (i, j) of the cross-correlation of x with k:
// Σ_{u,v} k[u, v] · x[i·s + u − p, j·s + v − p], zero outside the image.
func (g Geometry) At(x, k []float64, i, j int) float64 {
	sum := 0.0
	for u := range g.KH {
		r := i*g.Stride + u - g.Pad
		if r < 0 || r >= g.H {
			continue
		}
		for v := range g.KW {
			c := j*g.Stride + v - g.Pad
			if c >= 0 && c < g.W {
				sum += k[u*g.KW+v] * x[r*g.W+c]
			}
		}
	}
	return sum
}

// Circulant returns the matrix of the convolution as a linear map (seed
// 001 L1082–L1096): W_circ [OH·OW × H·W], row-major, with W_circ·vec(X) =
// vec(K∗X) for vec row-major (Definition 7.3). Row i·OW + j holds the
// kernel's weights at the pixels its window covers; a weight over the
// padding meets a zero and drops out. Only KH·KW distinct numbers fill it.
func Circulant(g Geometry, k []float64) ([]float64, error) {
	if err := g.Check(); err != nil {
		return nil, err
	}
	if len(k) != g.KH*g.KW {
		return nil, algo.BadParam("kernel", len(k), fmt.Sprintf("%d weights", g.KH*g.KW))
	}
	oh, ow, n := g.OH(), g.OW(), g.H*g.W
	m := make([]float64, oh*ow*n)
	for i := range oh {
		for j := range ow {
			row := m[(i*ow+j)*n : (i*ow+j+1)*n]
			for u := range g.KH {
				r := i*g.Stride + u - g.Pad
				for v := range g.KW {
					c := j*g.Stride + v - g.Pad
					if r >= 0 && r < g.H && c >= 0 && c < g.W {
						row[r*g.W+c] = k[u*g.KW+v]
					}
				}
			}
		}
	}
	return m, nil
}

// Pool names the pooling that follows the convolution (seed 001 L1098).
type Pool string

const (
	NoPool  Pool = "none"
	MaxPool Pool = "max"
	AvgPool Pool = "avg"
)

func (p Pool) String() string { return string(p) }

// Sweep computes a convolution the way the notes' figure does: one output
// cell per Step, the window moving along the rows, then — when pooling is
// on — one pooled cell per Step (windows of PoolSize × PoolSize moved by
// PoolSize, no padding), then ErrConverged.
type Sweep struct {
	g         Geometry
	x, k      []float64
	pool      Pool
	psize     int
	out       []float64 // NaN until computed
	pooled    []float64 // NaN until computed
	ph, pw    int
	done      int // cells computed, convolution then pooling
	lastConv  int // the last output cell computed (−1: none yet)
	lastPool  int // the last pooled cell computed (−1: none yet)
	lastValue float64
}

// NewSweep checks the geometry, the image x (H·W values) and the kernel k
// (KH·KW values); pool and size choose the pooling.
func NewSweep(g Geometry, x, k []float64, pool Pool, size int) (*Sweep, error) {
	if err := g.Check(); err != nil {
		return nil, err
	}
	if len(x) != g.H*g.W || !algo.AllFinite(x) {
		return nil, algo.BadParam("image", len(x), fmt.Sprintf("%d finite values", g.H*g.W))
	}
	if len(k) != g.KH*g.KW || !algo.AllFinite(k) {
		return nil, algo.BadParam("kernel", len(k), fmt.Sprintf("%d finite values", g.KH*g.KW))
	}
	s := &Sweep{g: g, x: x, k: k, pool: pool, psize: size, lastConv: -1, lastPool: -1}
	s.out = nans(g.OH() * g.OW())
	switch pool {
	case NoPool:
	case MaxPool, AvgPool:
		if size < 1 || size > min(g.OH(), g.OW()) {
			return nil, algo.BadParam("pool_size", size, fmt.Sprintf("in 1..%d (the output's side)", min(g.OH(), g.OW())))
		}
		s.ph, s.pw = g.OH()/size, g.OW()/size
		s.pooled = nans(s.ph * s.pw)
	default:
		return nil, algo.BadParam("pool", pool, "none, max or avg")
	}
	return s, nil
}

func nans(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = math.NaN()
	}
	return v
}

// Geometry is the convolution's shape.
func (s *Sweep) Geometry() Geometry { return s.g }

// Step computes the next cell.
func (s *Sweep) Step() error {
	n := len(s.out)
	switch {
	case s.done < n:
		i, j := s.done/s.g.OW(), s.done%s.g.OW()
		s.out[s.done] = s.g.At(s.x, s.k, i, j)
		s.lastConv, s.lastValue = s.done, s.out[s.done]
	case s.done < n+len(s.pooled):
		c := s.done - n
		i, j := c/s.pw, c%s.pw
		s.pooled[c] = s.poolAt(i, j)
		s.lastPool, s.lastValue = c, s.pooled[c]
	default:
		return algo.ErrConverged
	}
	s.done++
	if s.done == n+len(s.pooled) {
		return algo.ErrConverged
	}
	return nil
}

func (s *Sweep) poolAt(i, j int) float64 {
	ow := s.g.OW()
	best, sum := math.Inf(-1), 0.0
	for u := range s.psize {
		for v := range s.psize {
			z := s.out[(i*s.psize+u)*ow+j*s.psize+v]
			best, sum = max(best, z), sum+z
		}
	}
	if s.pool == MaxPool {
		return best
	}
	return sum / float64(s.psize*s.psize)
}

// Out is the convolution's output (OH·OW, NaN where not computed yet);
// Pooled the pooled output (PH·PW, nil without pooling).
func (s *Sweep) Out() []float64    { return s.out }
func (s *Sweep) Pooled() []float64 { return s.pooled }

// PoolShape is the pooled output's size (0, 0 without pooling).
func (s *Sweep) PoolShape() (ph, pw int) { return s.ph, s.pw }

// Done is the number of cells computed, convolution and pooling.
func (s *Sweep) Done() int { return s.done }

// Total is the number of cells there are to compute.
func (s *Sweep) Total() int { return len(s.out) + len(s.pooled) }

// Last says which cell the last Step computed: the output cell (i, j), or
// with pooled set the pooled cell, and its value; ok is false before the
// first Step.
func (s *Sweep) Last() (i, j int, pooled bool, value float64, ok bool) {
	switch {
	case s.lastPool >= 0:
		return s.lastPool / s.pw, s.lastPool % s.pw, true, s.lastValue, true
	case s.lastConv >= 0:
		return s.lastConv / s.g.OW(), s.lastConv % s.g.OW(), false, s.lastValue, true
	}
	return 0, 0, false, 0, false
}

// Terms lists the products k[u, v]·x[r, c] that make output cell (i, j),
// with x = 0 over the padding: the sum written out.
func (s *Sweep) Terms(i, j int) (k, x []float64) {
	g := s.g
	for u := range g.KH {
		for v := range g.KW {
			r, c := i*g.Stride+u-g.Pad, j*g.Stride+v-g.Pad
			xv := 0.0
			if r >= 0 && r < g.H && c >= 0 && c < g.W {
				xv = s.x[r*g.W+c]
			}
			k, x = append(k, s.k[u*g.KW+v]), append(x, xv)
		}
	}
	return k, x
}
