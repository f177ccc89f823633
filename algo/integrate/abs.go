package integrate

import (
	"cmp"
	"math"
	"slices"

	"gonum.org/v1/gonum/integrate/quad"
)

// glOrder is the order of AbsPieces' rule; glX, glW its nodes on
// [−1, 1], ascending, and weights.
const glOrder = 20

var glX, glW = func() (x, w [glOrder]float64) {
	quad.Legendre{}.FixedLocations(x[:], w[:], -1, 1)
	idx := [glOrder]int{}
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx[:], func(i, j int) int { return cmp.Compare(x[i], x[j]) })
	xs, ws := x, w
	for k, i := range idx {
		x[k], w[k] = xs[i], ws[i]
	}
	return x, w
}()

// AbsPieces returns ∫|h| over [breaks[0], breaks[len−1]] by the 20-point
// Gauss–Legendre rule on `panels` equal panels inside each piece between
// breaks (as Legendre.Pieces), with every panel in which h has roots split
// at them (splitPanel) and the rule applied afresh on each side: |h| has a
// kink at each root of h, where a rule exact only for a smooth integrand
// keeps five or six digits (the L1 distance ∫|p − q| and W₁ = ∫|F − G|
// between laws that cross), and on each side of it the rule is again
// exponentially accurate. A panel
// costs its 20 nodes and one end when h keeps its sign there, and a few
// dozen evaluations more at a crossing; the loop does not allocate.
func AbsPieces(h func(float64) float64, breaks []float64, panels int) float64 {
	var xs, hs [glOrder + 2]float64 // the samples of a panel: its ends and nodes
	total := 0.0
	for i := 0; i+1 < len(breaks); i++ {
		a, b := breaks[i], breaks[i+1]
		width := (b - a) / float64(panels)
		lo, hlo := a, h(a)
		for k := 1; k <= panels; k++ {
			hi := a + float64(k)*width
			if k == panels {
				hi = b
			}
			c, half := (lo+hi)/2, (hi-lo)/2
			xs[0], hs[0] = lo, hlo
			s := 0.0
			for j, x := range glX {
				xs[j+1] = c + half*x
				hs[j+1] = h(xs[j+1])
				s += glW[j] * math.Abs(hs[j+1])
			}
			hhi := h(hi)
			xs[glOrder+1], hs[glOrder+1] = hi, hhi
			total += splitPanel(h, &xs, &hs, s*half)
			lo, hlo = hi, hhi
		}
	}
	return total
}

// splitPanel returns ∫|h| over the panel [xs[0], xs[last]] sampled at xs:
// plain, the rule's value on the panel, when h has no root there;
// otherwise the sum of the rule over the pieces between the roots. A root
// shows as a change of sign between two samples (exact zeros skipped), or,
// for two roots between the same samples, as a sample nearer zero than
// both its neighbours, of their sign: there dip looks for a point of the
// other sign, and the roots either side of it are taken.
func splitPanel(h func(float64) float64, xs, hs *[glOrder + 2]float64, plain float64) float64 {
	var cuts [2 * (glOrder + 2)]float64
	n, last := 0, -1
	for j, v := range hs {
		if v == 0 {
			continue
		}
		if last >= 0 && (v > 0) != (hs[last] > 0) {
			cuts[n] = brent(h, xs[last], xs[j], hs[last], v)
			n++
		}
		last = j
		if j == 0 || j == len(hs)-1 {
			continue
		}
		l, r := hs[j-1], hs[j+1]
		if v > 0 && l > v && r > v || v < 0 && l < v && r < v {
			if x, hx, ok := dip(h, xs[j-1], xs[j+1], v > 0); ok {
				cuts[n], cuts[n+1] = brent(h, xs[j-1], x, l, hx), brent(h, x, xs[j+1], hx, r)
				n += 2
			}
		}
	}
	if n == 0 {
		return plain
	}
	c := cuts[:n]
	for i := 1; i < n; i++ { // insertion sort: the dips' roots among the others
		for k := i; k > 0 && c[k] < c[k-1]; k-- {
			c[k], c[k-1] = c[k-1], c[k]
		}
	}
	total, from := 0.0, xs[0]
	for _, x := range c {
		total += absRule(h, from, x)
		from = x
	}
	return total + absRule(h, from, xs[len(xs)-1])
}

// dip looks on (a, b) for a point where h is ≤ 0 (pos) or ≥ 0 (!pos), by a
// golden-section search for the least |h| down to a width of a few ulp,
// stopping at the first such point.
func dip(h func(float64) float64, a, b float64, pos bool) (x, hx float64, ok bool) {
	const g = 0.6180339887498949 // (√5 − 1)/2
	f := func(x float64) (float64, float64) {
		v := h(x)
		if pos {
			return v, v
		}
		return -v, v
	}
	c, d := b-g*(b-a), a+g*(b-a)
	fc, hc := f(c)
	fd, hd := f(d)
	for range 200 {
		switch {
		case fc <= 0:
			return c, hc, true
		case fd <= 0:
			return d, hd, true
		case !(b-a > 0x1p-50*math.Max(math.Abs(a), math.Abs(b))):
			return 0, 0, false
		case fc < fd:
			b, d, fd, hd = d, c, fc, hc
			c = b - g*(b-a)
			fc, hc = f(c)
		default:
			a, c, fc, hc = c, d, fd, hd
			d = a + g*(b-a)
			fd, hd = f(d)
		}
	}
	return 0, 0, false
}

// absRule is ∫_a^b |h| by the 20-point rule.
func absRule(h func(float64) float64, a, b float64) float64 {
	if !(b > a) {
		return 0
	}
	c, half := (a+b)/2, (b-a)/2
	s := 0.0
	for j, x := range glX {
		s += glW[j] * math.Abs(h(c+half*x))
	}
	return s * half
}

// brent returns a root of h in [a, b], where h(a) = fa and h(b) = fb have
// opposite signs, to within 2⁻⁵¹|x| (1e-300 near 0): Brent's method
// (Brent 1973, ch. 4, procedure zero), which keeps a bracket and takes an
// inverse quadratic or secant step inside it, falling back to bisection,
// so it converges superlinearly and never slower than bisection.
func brent(h func(float64) float64, a, b, fa, fb float64) float64 {
	const eps, t = 0x1p-52, 1e-300
	c, fc := a, fa
	d := b - a
	e := d
	for range 200 {
		if (fb > 0) == (fc > 0) {
			c, fc = a, fa
			d = b - a
			e = d
		}
		if math.Abs(fc) < math.Abs(fb) {
			a, b, c = b, c, b
			fa, fb, fc = fb, fc, fb
		}
		tol := 2*eps*math.Abs(b) + t
		m := 0.5 * (c - b)
		if math.Abs(m) <= tol || fb == 0 {
			return b
		}
		if math.Abs(e) < tol || math.Abs(fa) <= math.Abs(fb) {
			d, e = m, m
		} else {
			s := fb / fa
			var p, q float64
			if a == c {
				p, q = 2*m*s, 1-s
			} else {
				t, r := fa/fc, fb/fc
				p = s * (2*m*t*(t-r) - (b-a)*(r-1))
				q = (t - 1) * (r - 1) * (s - 1)
			}
			if p > 0 {
				q = -q
			} else {
				p = -p
			}
			s, e = e, d
			if 2*p < 3*m*q-math.Abs(tol*q) && p < math.Abs(0.5*s*q) {
				d = p / q
			} else {
				d, e = m, m
			}
		}
		a, fa = b, fb
		switch {
		case math.Abs(d) > tol:
			b += d
		case m > 0:
			b += tol
		default:
			b -= tol
		}
		fb = h(b)
	}
	return b
}
