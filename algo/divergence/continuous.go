package divergence

import (
	"math"

	"github.com/thelab/lab/algo/integrate"
)

// The divergences of 1-D densities by quadrature, over a partition of the
// range (split it at every jump or kink of either density; see
// integrate.Legendre.Pieces). They integrate over the given range only: it
// must hold essentially all of both densities' mass. The densities are given
// as log-densities so that p log(p/q) stays finite where both underflow.
// panels is the number of 20-point panels per piece.

var rule = mustRule()

func mustRule() integrate.Legendre {
	r, err := integrate.NewLegendre(20)
	if err != nil {
		panic(err)
	}
	return r
}

// KLQuad returns ∫ p (log p − log q) (Def 1.5): +Inf when q vanishes where
// p does not.
func KLQuad(logp, logq func(float64) float64, breaks []float64, panels int) float64 {
	inf := false
	v := rule.Pieces(func(x float64) float64 {
		lp := logp(x)
		if math.IsInf(lp, -1) {
			return 0
		}
		lq := logq(x)
		if math.IsInf(lq, -1) {
			inf = true
			return 0
		}
		return math.Exp(lp) * (lp - lq)
	}, breaks, panels)
	if inf {
		return math.Inf(1)
	}
	return v
}

// EntropyQuad returns the differential entropy −∫ p log p (eq 1.29).
func EntropyQuad(logp func(float64) float64, breaks []float64, panels int) float64 {
	return -rule.Pieces(func(x float64) float64 {
		lp := logp(x)
		if math.IsInf(lp, -1) {
			return 0
		}
		return math.Exp(lp) * lp
	}, breaks, panels)
}

// CrossEntropyQuad returns −∫ p log q (eq 1.30).
func CrossEntropyQuad(logp, logq func(float64) float64, breaks []float64, panels int) float64 {
	return EntropyQuad(logp, breaks, panels) + KLQuad(logp, logq, breaks, panels)
}

// L1Quad returns ∫ |p − q| (§1.6, L451), split where p and q cross
// (integrate.AbsPieces: at the kink of |p − q| there the plain rule keeps
// only five or six digits).
func L1Quad(p, q func(float64) float64, breaks []float64, panels int) float64 {
	return integrate.AbsPieces(func(x float64) float64 { return p(x) - q(x) }, breaks, panels)
}

// Chi2Quad returns ∫ (p − q)²/q (§1.6, L453); +Inf when q vanishes where
// p does not.
func Chi2Quad(p, q func(float64) float64, breaks []float64, panels int) float64 {
	inf := false
	v := rule.Pieces(func(x float64) float64 {
		px, qx := p(x), q(x)
		if px == qx {
			return 0
		}
		if qx == 0 {
			inf = true
			return 0
		}
		return (px - qx) * (px - qx) / qx
	}, breaks, panels)
	if inf {
		return math.Inf(1)
	}
	return v
}

// LogNormalPDF returns log N(x; m, s²).
func LogNormalPDF(x, m, s float64) float64 {
	z := (x - m) / s
	return -0.5*z*z - math.Log(s) - 0.5*math.Log(2*math.Pi)
}
