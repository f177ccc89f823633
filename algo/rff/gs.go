package rff

import (
	"fmt"
	"math"

	"github.com/thelab/lab/algo"
)

// GramSchmidt orthonormalises the rows of an m×d matrix G, m ≤ d, one row
// per Step (seed 004 L123–132: "Gram-Schmidt orthogonalize G. After this
// rows of G are exactly orthogonal and of unit L2-norm"; "whenever we move
// to the next row, subtract the projection from previous rows"):
//
//	u_k = g_k − Σ_{j<k} (g_k·e_j) e_j,  e_k = u_k/‖u_k‖,
//
// in its modified form (each projection subtracted from the running u_k)
// and run twice (Kahan–Parlett: twice is enough), so that the rows are
// orthonormal to rounding, not to 1e-11 as one classical pass leaves them
// (catalogue R5's advice). The span of the first k rows is kept. It is the
// first half of an ORF block (Sampler's newBlock does the same for a
// square G); the second, each row times an independent χ(d) radius, makes
// each row exactly N(0, I_d) again.
type GramSchmidt struct {
	m, d int
	g    []float64 // the original rows
	q    []float64 // rows < k orthonormal, rows ≥ k as given
	res  []float64 // SpanResidual's scratch row
	k    int
}

// NewGramSchmidt copies the rows of g (m ≤ d rows of equal length d,
// finite).
func NewGramSchmidt(g [][]float64) (*GramSchmidt, error) {
	m := len(g)
	if m == 0 {
		return nil, algo.BadParam("rows", 0, "at least one row")
	}
	d := len(g[0])
	if m > d {
		return nil, algo.BadParam("rows", m, fmt.Sprintf("at most d = %d (seed 004 L126: m ≤ d per block)", d))
	}
	s := &GramSchmidt{m: m, d: d, g: make([]float64, m*d), q: make([]float64, m*d), res: make([]float64, d)}
	for i, r := range g {
		if len(r) != d {
			return nil, algo.BadParam("d", len(r), fmt.Sprintf("%d, as row 0 (row %d)", d, i))
		}
		for j, v := range r {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, algo.BadParam("rows", v, "finite")
			}
			s.g[i*d+j] = v
		}
	}
	copy(s.q, s.g)
	return s, nil
}

// Step orthonormalises the next row. It returns algo.ErrConverged once all
// rows are done, and an error when the row lies in the span of the
// previous ones (‖u_k‖ below 1e-10 of ‖g_k‖): the seed's "linearly
// independent" (L130) fails. It does not allocate.
func (s *GramSchmidt) Step() error {
	if s.k >= s.m {
		return algo.ErrConverged
	}
	d := s.d
	row := s.q[s.k*d : (s.k+1)*d]
	n0 := math.Sqrt(dot(row, row))
	for range 2 {
		for p := 0; p < s.k; p++ {
			prev := s.q[p*d : (p+1)*d]
			proj := dot(row, prev)
			for i := range row {
				row[i] -= proj * prev[i]
			}
		}
	}
	n := math.Sqrt(dot(row, row))
	if !(n > 1e-10*n0) {
		return fmt.Errorf("row %d lies in the span of the rows before it", s.k+1)
	}
	for i := range row {
		row[i] /= n
	}
	s.k++
	return nil
}

// Done is the number of orthonormalised rows.
func (s *GramSchmidt) Done() int { return s.k }

// M and D are the matrix's shape.
func (s *GramSchmidt) M() int { return s.m }
func (s *GramSchmidt) D() int { return s.d }

// Rows returns the current rows (a view, m×d): the first Done orthonormal.
func (s *GramSchmidt) Rows() []float64 { return s.q }

// Gram writes RRᵀ into dst (m×m), R the current rows with the rows not yet
// done divided by √d (a Gaussian row has norm about √d, so the diagonal is
// about 1 throughout and becomes exactly 1 row by row).
func (s *GramSchmidt) Gram(dst []float64) {
	d := s.d
	sc := func(i int) float64 {
		if i < s.k {
			return 1
		}
		return 1 / math.Sqrt(float64(d))
	}
	for i := 0; i < s.m; i++ {
		for j := 0; j < s.m; j++ {
			dst[i*s.m+j] = sc(i) * sc(j) * dot(s.q[i*d:(i+1)*d], s.q[j*d:(j+1)*d])
		}
	}
}

// OrthError is max |QQᵀ − I| over the rows done (0 before the first).
func (s *GramSchmidt) OrthError() float64 {
	worst := 0.0
	d := s.d
	for i := 0; i < s.k; i++ {
		for j := 0; j <= i; j++ {
			g := dot(s.q[i*d:(i+1)*d], s.q[j*d:(j+1)*d])
			if i == j {
				g--
			}
			worst = math.Max(worst, math.Abs(g))
		}
	}
	return worst
}

// SpanResidual is the largest ‖g_i − Σ_{j≤i}(g_i·e_j)e_j‖/‖g_i‖ over the
// rows done: 0 (to rounding) when each original row lies in the span of
// the orthonormal rows up to it, which Gram–Schmidt keeps (seed 004 L130).
// It does not allocate (a Frame's metric).
func (s *GramSchmidt) SpanResidual() float64 {
	worst := 0.0
	d := s.d
	r := s.res
	for i := 0; i < s.k; i++ {
		gi := s.g[i*d : (i+1)*d]
		copy(r, gi)
		for j := 0; j <= i; j++ {
			e := s.q[j*d : (j+1)*d]
			c := dot(gi, e)
			for t := range r {
				r[t] -= c * e[t]
			}
		}
		worst = math.Max(worst, math.Sqrt(dot(r, r)/dot(gi, gi)))
	}
	return worst
}
