// Package fourier holds the Fourier series of seed 004 (L5–35): a
// periodic signal as a sum of sines and cosines, one harmonic at a time.
//
// On a period [−π, π) (the notes' frequency f = 1/(2π), so that 2πfnx is
// nx) the basis 1, cos x, sin x, …, cos nx, sin nx is orthogonal (L15–21),
//
//	∫_{−π}^{π} cos mx cos nx dx = ∫_{−π}^{π} sin mx sin nx dx = π δ_mn,
//	∫_{−π}^{π} cos mx sin nx dx = 0,  ∫_{−π}^{π} 1 dx = 2π,
//
// so the coefficients of the partial sum (L27, L35)
//
//	s_N(x) = a₀/2 + Σ_{n=1}^{N} (a_n cos nx + b_n sin nx),
//	a_n = (1/π) ∫ s(x) cos nx dx,  b_n = (1/π) ∫ s(x) sin nx dx,
//
// are the orthogonal projection's, and the squared L² error falls with
// every harmonic (Bessel's inequality):
//
//	‖s − s_N‖² = ‖s‖² − π (a₀²/2 + Σ_{n≤N} (a_n² + b_n²)) ≥ 0.
//
// Near a jump of s the partial sums overshoot by a fraction of the jump
// that tends to Si(π)/π − ½ ≈ 0.0895 as N grows (Gibbs' phenomenon): the
// overshoot moves towards the jump but does not shrink.
//
// Errata of the notes avoided: L15 writes the orthogonality relation as a
// sum Σ_{−π}^{π} (it is the integral above), and L27 writes the partial
// sum s_N with the upper limit ∞ (it is N).
package fourier

import (
	"math"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/integrate"
)

// Wave is a signal of period 2π, with values in [−1, 1].
type Wave int

const (
	// Square is sign(x) on (−π, π): jumps of 2 at 0 and ±π (0 there).
	Square Wave = iota
	// Sawtooth is x/π on (−π, π): a jump of 2 at ±π (0 there).
	Sawtooth
	// Triangle is 1 − 2|x|/π: continuous, with kinks at 0 and ±π.
	Triangle
)

func (w Wave) String() string {
	switch w {
	case Square:
		return "square"
	case Sawtooth:
		return "sawtooth"
	case Triangle:
		return "triangle"
	}
	return "unknown"
}

// At is the wave at x, extended periodically; at a jump, the midpoint of
// its two sides (where every partial sum converges).
func (w Wave) At(x float64) float64 {
	x = math.Remainder(x, 2*math.Pi) // in [−π, π]
	switch w {
	case Square:
		switch {
		case x > 0 && x < math.Pi:
			return 1
		case x < 0 && x > -math.Pi:
			return -1
		}
		return 0
	case Sawtooth:
		if math.Abs(x) == math.Pi {
			return 0
		}
		return x / math.Pi
	case Triangle:
		return 1 - 2*math.Abs(x)/math.Pi
	}
	return math.NaN()
}

// Jump is the size of the wave's jump at its discontinuity closest above
// 0 (Square at 0, Sawtooth at π), and where it is; 0 for the continuous
// Triangle.
func (w Wave) Jump() (size, at float64) {
	switch w {
	case Square:
		return 2, 0
	case Sawtooth:
		return 2, math.Pi
	}
	return 0, 0
}

// breaks are the points of [−π, π] where the wave is not smooth: the
// quadrature is exact to rounding on the pieces between them.
func (w Wave) breaks() []float64 {
	if w == Sawtooth {
		return []float64{-math.Pi, math.Pi}
	}
	return []float64{-math.Pi, 0, math.Pi}
}

// MaxHarmonics bounds N.
const MaxHarmonics = 200

// GibbsLimit is the limit of the partial sums' overshoot at a jump as a
// fraction of the jump, Si(π)/π − ½.
const GibbsLimit = 0.08948987223608362

// Series is the partial sum s_N of a wave's Fourier series, drawn on a
// grid of the period, one harmonic added a step.
type Series struct {
	wave       Wave
	maxN       int
	a, b       []float64 // a[n], b[n] for n ≤ N (b[0] = 0)
	x, sum     []float64 // the grid and s_N on it
	norm2      float64   // ‖s‖²
	captured   float64   // π (a₀²/2 + Σ a_n² + b_n²)
	orthErr    float64   // max |⟨φ_i, φ_j⟩ − ‖φ_i‖² δ_ij| over the basis so far
	rule       integrate.Legendre
	integrand  func(float64) float64 // reused closure state below
	fn, gn     int                   // harmonic numbers of the product being integrated
	fcos, gcos bool
}

// New prepares the series of w up to maxN harmonics, drawn at grid
// points spanning [−π, π]; the first Step computes a₀.
func New(w Wave, maxN, grid int) (*Series, error) {
	if w < Square || w > Triangle {
		return nil, algo.BadParam("wave", int(w), "square, sawtooth or triangle")
	}
	if maxN < 1 || maxN > MaxHarmonics {
		return nil, algo.BadParam("harmonics", maxN, "in 1..200")
	}
	if grid < 2 {
		return nil, algo.BadParam("grid", grid, "at least 2")
	}
	rule, err := integrate.NewLegendre(20)
	if err != nil {
		return nil, err
	}
	s := &Series{wave: w, maxN: maxN, rule: rule,
		a: make([]float64, 0, maxN+1), b: make([]float64, 0, maxN+1),
		x: make([]float64, grid), sum: make([]float64, grid)}
	for i := range s.x {
		s.x[i] = -math.Pi + 2*math.Pi*float64(i)/float64(grid-1)
	}
	s.integrand = s.product
	s.norm2 = s.integrate(func(x float64) float64 { v := w.At(x); return v * v }, 0)
	return s, nil
}

// basis is φ(x) = cos nx (cos) or sin nx.
func basis(n int, cos bool, x float64) float64 {
	if cos {
		return math.Cos(float64(n) * x)
	}
	return math.Sin(float64(n) * x)
}

// product is the integrand of the inner product being computed: the wave
// (fn < 0) or a basis function, times another basis function.
func (s *Series) product(x float64) float64 {
	f := 0.0
	if s.fn < 0 {
		f = s.wave.At(x)
	} else {
		f = basis(s.fn, s.fcos, x)
	}
	return f * basis(s.gn, s.gcos, x)
}

// integrate is ∫_{−π}^{π} f by 20-point Gauss–Legendre on panels a piece
// between the wave's breaks, at least one panel per period of cos nx for
// the highest harmonic n in f: exact to rounding for these integrands.
func (s *Series) integrate(f func(float64) float64, n int) float64 {
	return s.rule.Pieces(f, s.wave.breaks(), max(4, n))
}

// period is the one piece [−π, π] of a smooth integrand.
var period = []float64{-math.Pi, math.Pi}

// inner is ⟨f, φ⟩ over a period, f the wave (fn < 0) or a basis function.
// A product of two basis functions is smooth, so it takes the period as
// one piece of max(4, n) panels, half the work of the wave's pieces:
// cos 2nx on a panel of 2π/n is two periods, where the 20-point rule's
// error is below 1e-15.
func (s *Series) inner(fn int, fcos bool, gn int, gcos bool) float64 {
	s.fn, s.fcos, s.gn, s.gcos = fn, fcos, gn, gcos
	if fn >= 0 {
		return s.rule.Pieces(s.integrand, period, max(4, fn, gn))
	}
	return s.integrate(s.integrand, max(fn, gn))
}

// Step adds the next harmonic n = N + 1 (a₀ at the first step): its
// coefficients by quadrature, its terms on the grid, and its inner
// products with the basis so far. After maxN harmonics it returns
// algo.ErrConverged.
func (s *Series) Step() error {
	n := len(s.a)
	if n > s.maxN {
		return algo.ErrConverged
	}
	an := s.inner(-1, false, n, true) / math.Pi
	bn := 0.0
	if n > 0 {
		bn = s.inner(-1, false, n, false) / math.Pi
	}
	s.a, s.b = append(s.a, an), append(s.b, bn)
	for i, x := range s.x {
		if n == 0 {
			s.sum[i] = an / 2
		} else {
			s.sum[i] += an*math.Cos(float64(n)*x) + bn*math.Sin(float64(n)*x)
		}
	}
	if n == 0 {
		s.captured = math.Pi * an * an / 2
	} else {
		s.captured += math.Pi * (an*an + bn*bn)
	}
	s.checkOrthogonal(n)
	if n == s.maxN {
		return algo.ErrConverged
	}
	return nil
}

// checkOrthogonal takes the inner products of the new basis functions
// (cos nx and sin nx; the constant at n = 0) with themselves, each other,
// the previous harmonic's and the constant: a bounded number a step (the
// whole Gram matrix would cost O(N³)); the package's test takes them all.
func (s *Series) checkOrthogonal(n int) {
	for _, ncos := range [2]bool{true, false} {
		if n == 0 && !ncos {
			continue
		}
		for _, m := range [3]int{0, max(n-1, 0), n} {
			for _, mcos := range [2]bool{true, false} {
				if m == 0 && !mcos || m == n && !ncos && mcos {
					continue
				}
				got := s.Inner(m, mcos, n, ncos)
				s.orthErr = math.Max(s.orthErr, math.Abs(got-Norm2(m, mcos, n, ncos)))
			}
		}
	}
}

// Norm2 is ∫_{−π}^{π} φ_m φ_n in closed form, φ_k = cos kx (cos) or sin
// kx: π δ_mn, 2π for the constant, 0 between a cosine and a sine.
func Norm2(m int, mcos bool, n int, ncos bool) float64 {
	switch {
	case m != n || mcos != ncos:
		return 0
	case m == 0:
		return 2 * math.Pi
	}
	return math.Pi
}

// Inner is ∫_{−π}^{π} φ_m φ_n by the Gauss–Legendre rule of the coefficients
// (on the whole period as one piece: the product is smooth).
func (s *Series) Inner(m int, mcos bool, n int, ncos bool) float64 {
	return s.inner(m, mcos, n, ncos)
}

// N is the number of harmonics so far (−1 before the first step).
func (s *Series) N() int { return len(s.a) - 1 }

// MaxN is the last harmonic.
func (s *Series) MaxN() int { return s.maxN }

// Wave is the signal.
func (s *Series) Wave() Wave { return s.wave }

// Coef is (a_n, b_n), n ≤ N.
func (s *Series) Coef(n int) (a, b float64) { return s.a[n], s.b[n] }

// Grid is the points of [−π, π] the partial sum is drawn at (shared: do
// not modify).
func (s *Series) Grid() []float64 { return s.x }

// Sum is s_N on the grid (the engine's: copy it to keep it).
func (s *Series) Sum() []float64 { return s.sum }

// At is s_N(x).
func (s *Series) At(x float64) float64 {
	if len(s.a) == 0 {
		return 0
	}
	v := s.a[0] / 2
	for n := 1; n < len(s.a); n++ {
		v += s.a[n]*math.Cos(float64(n)*x) + s.b[n]*math.Sin(float64(n)*x)
	}
	return v
}

// L2Error is ‖s − s_N‖ over a period, by Bessel's identity ‖s‖² − π(a₀²/2
// + Σ a_n² + b_n²) (floored at 0 against rounding); ‖s‖ before the first
// step.
func (s *Series) L2Error() float64 { return math.Sqrt(math.Max(s.norm2-s.captured, 0)) }

// Norm is ‖s‖ over a period.
func (s *Series) Norm() float64 { return math.Sqrt(s.norm2) }

// OrthError is the largest |⟨φ_i, φ_j⟩ − ‖φ_i‖² δ_ij| over the pairs of
// basis functions checked so far (checkOrthogonal), by Inner.
func (s *Series) OrthError() float64 { return s.orthErr }

// Overshoot is how far s_N rises above the wave on the upper side of its
// jump, as a fraction of the jump: the largest s_N − s within 2π/(N+1)
// of the jump, found on a fine grid and refined by golden section. NaN
// for a wave without a jump or before the first harmonic.
func (s *Series) Overshoot() float64 {
	size, at := s.wave.Jump()
	n := s.N()
	if size == 0 || n < 1 {
		return math.NaN()
	}
	// The upper side of the jump: Square's is to the right of 0 and
	// Sawtooth's to the left of π (s approaches 1 from below).
	dir := 1.0
	if s.wave == Sawtooth {
		dir = -1
	}
	width := 2 * math.Pi / float64(n+1)
	const probes = 64
	best, bx := math.Inf(-1), 0.0
	for i := 1; i <= probes; i++ {
		x := at + dir*width*float64(i)/probes
		if v := s.over(x); v > best {
			best, bx = v, x
		}
	}
	h := width / probes
	lo, hi := bx-h, bx+h
	const g = 0.6180339887498949
	c, d := hi-g*(hi-lo), lo+g*(hi-lo)
	fc, fd := s.over(c), s.over(d)
	for range 60 {
		if fc > fd {
			hi, d, fd = d, c, fc
			c = hi - g*(hi-lo)
			fc = s.over(c)
		} else {
			lo, c, fc = c, d, fd
			d = lo + g*(hi-lo)
			fd = s.over(d)
		}
	}
	best = math.Max(best, math.Max(fc, fd))
	return best / size
}

// over is s_N(x) − s(x).
func (s *Series) over(x float64) float64 { return s.At(x) - s.wave.At(x) }
