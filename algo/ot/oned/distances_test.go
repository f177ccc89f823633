package oned

import (
	"math"
	"slices"
	"testing"
)

// law is a Normal or a Box (Shifted ones unwrapped) as the oracle sees it:
// by its parameters, with its CDF, the antiderivative of its CDF and its
// mean in closed form.
type law struct {
	normal bool
	m, s   float64 // N(m, s²)
	a, b   float64 // U[a, b]
}

func lawOf(t *testing.T, d Dist) law {
	switch d := d.(type) {
	case Normal:
		return law{normal: true, m: d.Mean, s: d.SD}
	case Box:
		return law{a: d.A, b: d.B}
	case Shifted:
		l := lawOf(t, d.D)
		l.m, l.a, l.b = l.m+d.By, l.a+d.By, l.b+d.By
		return l
	}
	t.Fatalf("no oracle for %T", d)
	return law{}
}

// psi is ∫_{−∞}^z Φ = zΦ(z) + φ(z).
func psi(z float64) float64 {
	return z*0.5*math.Erfc(-z/math.Sqrt2) + math.Exp(-z*z/2)/math.Sqrt(2*math.Pi)
}

func (l law) cdf(x float64) float64 {
	if l.normal {
		return 0.5 * math.Erfc(-(x-l.m)/(l.s*math.Sqrt2))
	}
	return math.Min(math.Max((x-l.a)/(l.b-l.a), 0), 1)
}

// anti is ∫_{−∞}^x F: s Ψ((x − m)/s), or the integral of the ramp.
func (l law) anti(x float64) float64 {
	if l.normal {
		return l.s * psi((x-l.m)/l.s)
	}
	switch {
	case x <= l.a:
		return 0
	case x >= l.b:
		return x - (l.a+l.b)/2
	}
	return (x - l.a) * (x - l.a) / (2 * (l.b - l.a))
}

func (l law) mean() float64 {
	if l.normal {
		return l.m
	}
	return (l.a + l.b) / 2
}

// bisect returns the root of h on [lo, hi], where h changes sign, to the
// last bit.
func bisect(h func(float64) float64, lo, hi float64) float64 {
	slo := h(lo) < 0
	for {
		mid := lo + (hi-lo)/2
		if mid <= lo || mid >= hi {
			return mid
		}
		if (h(mid) < 0) == slo {
			lo = mid
		} else {
			hi = mid
		}
	}
}

// rampCrossings returns where Φ((x − m)/s) meets the ramp of U[a, b]:
// on [a, b] their difference is convex left of m and concave right of it,
// with its turning points where φ((x − m)/s)/s = 1/(b − a), so between
// those points it is monotone and has at most one root, found by bisection.
func rampCrossings(n, box law) []float64 {
	h := func(x float64) float64 { return n.cdf(x) - box.cdf(x) }
	pts := []float64{box.a, box.b, n.m}
	if z2 := 2 * math.Log((box.b-box.a)/(n.s*math.Sqrt(2*math.Pi))); z2 > 0 {
		pts = append(pts, n.m-n.s*math.Sqrt(z2), n.m+n.s*math.Sqrt(z2))
	}
	pts = slices.DeleteFunc(pts, func(x float64) bool { return x < box.a || x > box.b })
	slices.Sort(pts)
	var roots []float64
	for i := 0; i+1 < len(pts); i++ {
		lo, hi := pts[i], pts[i+1]
		if hl, hh := h(lo), h(hi); hl == 0 {
			roots = append(roots, lo)
		} else if hl*hh < 0 {
			roots = append(roots, bisect(h, lo, hi))
		}
	}
	return roots
}

// densityCrossings returns points splitting the line into pieces on each
// of which p − q keeps its sign: the roots of the quadratic log p − log q
// for two Normals, the points where a Normal's density equals a Box's
// height, and the ends of the boxes.
func densityCrossings(p, q law) []float64 {
	var pts []float64
	switch {
	case p.normal && q.normal:
		// −s_q²(x − m_p)² + s_p²(x − m_q)² + 2 s_p² s_q² log(s_q/s_p) = 0
		a := p.s*p.s - q.s*q.s
		b := 2 * (q.s*q.s*p.m - p.s*p.s*q.m)
		c := p.s*p.s*q.m*q.m - q.s*q.s*p.m*p.m + 2*p.s*p.s*q.s*q.s*math.Log(q.s/p.s)
		if a == 0 {
			pts = append(pts, -c/b)
			break
		}
		r := math.Sqrt(b*b - 4*a*c)
		qq := -(b + math.Copysign(r, b)) / 2
		pts = append(pts, qq/a, c/qq)
	case p.normal || q.normal:
		n, box := p, q
		if !n.normal {
			n, box = q, p
		}
		if z2 := 2 * math.Log((box.b-box.a)/(n.s*math.Sqrt(2*math.Pi))); z2 > 0 {
			pts = append(pts, n.m-n.s*math.Sqrt(z2), n.m+n.s*math.Sqrt(z2))
		}
		pts = append(pts, box.a, box.b)
	default:
		pts = append(pts, p.a, p.b, q.a, q.b)
	}
	slices.Sort(pts)
	return pts
}

// oracleL1 is Σ |ΔF_P − ΔF_Q| over the pieces between the density
// crossings, on each of which ∫|p − q| = |∫(p − q)|.
func oracleL1(p, q law) float64 {
	pts := densityCrossings(p, q)
	l1, prev := 0.0, 0.0 // F_P − F_Q at the last point (0 at −∞)
	for _, x := range pts {
		d := p.cdf(x) - q.cdf(x)
		l1 += math.Abs(d - prev)
		prev = d
	}
	return l1 + math.Abs(prev) // F_P − F_Q is 0 at +∞
}

// oracleW1 is Σ |ΔA| over the pieces between the crossings of F_P and
// F_Q, A = ∫(F_P − F_Q) in closed form, A(−∞) = 0, A(+∞) = mean_Q −
// mean_P; for two boxes it is ∫₀¹ |F_P⁻ − F_Q⁻|, the integral of |α + βt|.
func oracleW1(p, q law) float64 {
	var pts []float64
	switch {
	case p.normal && q.normal:
		if p.s != q.s {
			pts = append(pts, (p.m*q.s-q.m*p.s)/(q.s-p.s))
		}
	case p.normal:
		pts = rampCrossings(p, q)
	case q.normal:
		pts = rampCrossings(q, p)
	default:
		al, be := p.a-q.a, (p.b-p.a)-(q.b-q.a)
		if al*(al+be) >= 0 {
			return math.Abs(al + be/2)
		}
		t0 := -al / be
		return (math.Abs(al)*t0 + math.Abs(al+be)*(1-t0)) / 2
	}
	w1, prev := 0.0, 0.0
	for _, x := range pts {
		a := p.anti(x) - q.anti(x)
		w1 += math.Abs(a - prev)
		prev = a
	}
	return w1 + math.Abs(q.mean()-p.mean()-prev)
}

// distancePairs are laws whose distribution functions or densities cross
// away from the breaks: Gaussians of different spreads (one crossing of
// the CDFs, two of the densities), a Gaussian against boxes (up to three
// crossings of the CDFs, two of the densities), and boxes of different
// widths (the CDFs crossing inside a piece); and two near-tangencies, where
// two crossings fall between the same two nodes of a panel: a box of
// height 1/(√(2π)(1 + 9.3e-7)), just below the peak of N(0, 1), whose
// density crosses it 0.0027 apart, and U[c − 1.5, c + 1.5] placed so that
// F_P − F_Q dips 1.3e-7 past zero near x = −0.6 (without the search for
// such dips, both lose 3e-9).
var distancePairs = []struct {
	name string
	p, q Dist
}{
	{"N(0,1) N(0.3,2²)", Normal{0, 1}, Normal{0.3, 2}},
	{"N(0,1) N(0,3²)", Normal{0, 1}, Normal{0, 3}},
	{"N(0,1) N(1,1)", Normal{0, 1}, Normal{1, 1}},
	{"N(0,1) N(2,0.1²)", Normal{0, 1}, Normal{2, 0.1}},
	{"N(0,1) N(5,0.1²)", Normal{0, 1}, Shifted{Normal{0, 0.1}, 5}},
	{"N(0,1) N(2,10²)", Normal{0, 1}, Shifted{Normal{0, 10}, 2}},
	{"N(1,0.5²) N(-2,1.5²)", Normal{1, 0.5}, Normal{-2, 1.5}},
	{"N(0,1) N(0.7,1.05²)", Normal{0, 1}, Normal{0.7, 1.05}},
	{"N(0,1) U[-1,1]", Normal{0, 1}, Box{-1, 1}},
	{"N(0,1) U[-1.5,1.5]", Normal{0, 1}, Box{-1.5, 1.5}},
	{"U[-1.3,1.7] N(0,1)", Shifted{Box{-1.5, 1.5}, 0.2}, Normal{0, 1}},
	{"N(0,0.5²) U[-1,3]", Normal{0, 0.5}, Box{-1, 3}},
	{"U[0,1] U[0.2,0.7]", Box{0, 1}, Box{0.2, 0.7}},
	{"U[0,1] U[0.3,0.8]", Box{0, 1}, Shifted{Box{0, 0.5}, 0.3}},
	{"U[0,2] U[0.5,1.2]", Box{0, 2}, Box{0.5, 1.2}},
	{"N(0,1) box at its peak", Normal{0, 1}, Shifted{Box{-1.2533153, 1.2533153}, 0.0137}},
	{"N(0,1) box touching F", Normal{0, 1}, Shifted{Box{-1.5, 1.5}, 0.0772403354632}},
}

// distanceTol is the relative accuracy of W₁ and L1 that the doc comment
// of Between claims (the errors seen are below 1e-14).
const distanceTol = 1e-13

// TestDistancesCross: W₁ and L1 of Between agree with the closed forms
// split at the crossings (oracleW1, oracleL1) to distanceTol, relative.
func TestDistancesCross(t *testing.T) {
	for _, c := range distancePairs {
		r, err := Between(c.p, c.q)
		if err != nil {
			t.Fatal(err)
		}
		p, q := lawOf(t, c.p), lawOf(t, c.q)
		for _, v := range []struct {
			what      string
			got, want float64
		}{{"W1", r.W1, oracleW1(p, q)}, {"L1", r.L1, oracleL1(p, q)}} {
			if e := math.Abs(v.got-v.want) / v.want; !(e <= distanceTol) {
				t.Errorf("%s %s = %.17g, want %.17g (relative error %.2g)", c.name, v.what, v.got, v.want, e)
			} else {
				t.Logf("%s %s relative error %.2g", c.name, v.what, e)
			}
		}
	}
}

// TestOracles checks the oracles on cases known otherwise: W₁ = |d| and
// L1 = 2(2Φ(|d|/2) − 1) for unit Gaussians d apart, W₁ = 2(φ(0) − ¼)
// for N(0, 1) against U[−1, 1] (one crossing, at 0), and L1 =
// 2 P(|X| > 1) there (the box's density is above φ on it).
func TestOracles(t *testing.T) {
	n := law{normal: true, s: 1}
	for _, d := range []float64{-3, 0.5, 2} {
		m := law{normal: true, m: d, s: 1}
		if w := oracleW1(n, m); math.Abs(w-math.Abs(d)) > 1e-15 {
			t.Errorf("W1 = %g for d = %g", w, d)
		}
		if l := oracleL1(n, m); math.Abs(l-2*(2*NormalCDF(0, 1, math.Abs(d)/2)-1)) > 1e-15 {
			t.Errorf("L1 = %g for d = %g", l, d)
		}
	}
	box := law{a: -1, b: 1}
	if w := oracleW1(n, box); math.Abs(w-2*(1/math.Sqrt(2*math.Pi)-0.25)) > 1e-15 {
		t.Errorf("W1(N, U[-1,1]) = %.17g", w)
	}
	if l := oracleL1(n, box); math.Abs(l-4*NormalCDF(0, 1, -1)) > 1e-15 {
		t.Errorf("L1(N, U[-1,1]) = %.17g", l)
	}
}

// TestPlainRuleAtCrossings measures what Between's doc comment (and
// integrate.AbsPieces's) says of the plain rule: at a kink of |F_P − F_Q|
// or |p − q| where the laws cross, the 20-point rule on Between's panels,
// not split there, keeps five or six digits — on every pair of
// distancePairs it errs by at most 1e-5 relative, and on the worst by
// more than 1e-6 (6.1e-6 is seen: the L1 of N(0, 1) and N(0.3, 2²)) —
// where AbsPieces's split holds 1e-13 (TestDistancesCross).
func TestPlainRuleAtCrossings(t *testing.T) {
	worst, at := 0.0, ""
	for _, c := range distancePairs {
		br := slices.Concat(c.p.Breaks(), c.q.Breaks())
		slices.Sort(br)
		br = slices.Compact(br)
		p, q := lawOf(t, c.p), lawOf(t, c.q)
		for _, v := range []struct {
			what string
			h    func(float64) float64
			want float64
		}{
			{"W1", func(x float64) float64 { return c.p.CDF(x) - c.q.CDF(x) }, oracleW1(p, q)},
			{"L1", func(x float64) float64 { return math.Exp(c.p.LogPDF(x)) - math.Exp(c.q.LogPDF(x)) }, oracleL1(p, q)},
		} {
			plain := legendre.Pieces(func(x float64) float64 { return math.Abs(v.h(x)) }, br, quadPanels)
			e := math.Abs(plain-v.want) / v.want
			if e > 1e-5 {
				t.Errorf("%s %s: the plain rule errs by %.2g, fewer than five digits", c.name, v.what, e)
			}
			if e > worst {
				worst, at = e, c.name+" "+v.what
			}
		}
	}
	if worst <= 1e-6 {
		t.Errorf("the plain rule's worst error %.2g (%s): more than six digits, not five or six", worst, at)
	}
	t.Logf("the plain rule's worst error %.2g (%s)", worst, at)
}

// TestNormalBreaksMass: a Normal's Breaks, μ ± 12σ, hold all but 1e-30 of
// the mass (2Φ(−12) = 3.6e-33), as Dist.Breaks asks.
func TestNormalBreaksMass(t *testing.T) {
	d := Normal{Mean: -0.7, SD: 2.5}
	br := d.Breaks()
	// The upper tail from erfc directly: 1 − CDF rounds to 0 there.
	if out := d.CDF(br[0]) + 0.5*math.Erfc((br[1]-d.Mean)/(d.SD*math.Sqrt2)); !(out > 0 && out <= 1e-30) {
		t.Errorf("mass outside %v: %.2g, want ≤ 1e-30", br, out)
	}
}

// TestNormalQuantileLowerTail measures NormalQuantile's doc comment: its
// quantile is that of a t′ within 2⁻⁵⁵ of t (with the rounding of Φ and
// of the quantile itself, 2ε·t·(1 + q²): 1.7 of it is seen), Φ by erfc,
// accurate in the tail — from t = 10^−16.5 to ½ — and for t ≤ 2⁻⁵⁵ it is
// −Inf, since 1 − 2t rounds to 1 in math.Erfcinv.
func TestNormalQuantileLowerTail(t *testing.T) {
	const eps = 0x1p-52
	for e := -16.5; e <= -0.31; e += 0.05 {
		p := math.Pow(10, e)
		q := NormalQuantile(0, 1, p)
		if d := math.Abs(NormalCDF(0, 1, q) - p); d > 0x1p-55+2*eps*p*(1+q*q) {
			t.Errorf("t = %.3g: Φ(NormalQuantile(t)) − t = %.2g", p, d)
		}
	}
	if q := NormalQuantile(2, 3, 0x1p-55); !math.IsInf(q, -1) {
		t.Errorf("NormalQuantile(2⁻⁵⁵) = %v, want −Inf", q)
	}
	if q := NormalQuantile(2, 3, math.Nextafter(0x1p-55, 1)); math.IsInf(q, 0) {
		t.Errorf("NormalQuantile just above 2⁻⁵⁵ = %v, want finite", q)
	}
}
