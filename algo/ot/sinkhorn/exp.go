package sinkhorn

import "math"

// Constants of expNeg. x = (k/64) ln 2 + r with k the nearest integer to
// 64x/ln 2, found by adding 1.5·2⁵² (the sum's last bits hold k); ln 2/64
// is split into a high part whose product with any such k is exact and the
// rest (Cody & Waite), so r is exact to within an ulp.
const (
	expShifter = 0x1.8p52
	inv64Ln2   = 64 / math.Ln2
	ln2Hi64    = 0.010830417275428772
	ln2Lo64    = 7.420820373486988e-09
	// expMin is the argument below which expNeg returns 0: e^−708 is just
	// above the smallest normal float64, 2⁻¹⁰²², so the exponent never
	// leaves the normal range.
	expMin = -708
)

// exp2Frac holds 2^(j/64), j = 0 … 63.
var exp2Frac = func() (t [64]float64) {
	for j := range t {
		t[j] = math.Exp2(float64(j) / 64)
	}
	return t
}()

// expNeg returns e^x for x ≤ 0 (and +0 for x < −708 or x = −Inf), within
// a relative 5e-16 of math.Exp (TestExpNeg). The log-sum-exps of the
// log-domain iterations take one exponential per entry of the cost matrix,
// and this one is about twice as fast as math.Exp: with x = (k/64) ln 2 + r,
// |r| ≤ ln 2/128, e^x = 2^⌊k/64⌋ · 2^((k mod 64)/64) · e^r, the middle factor
// from a table and e^r from its Taylor polynomial of degree 5 (the
// remainder r⁶/6! < 4·10⁻¹⁷), with no branch on the common path.
func expNeg(x float64) float64 {
	if !(x >= expMin) {
		return 0
	}
	kf := x*inv64Ln2 + expShifter
	k := int64(int32(uint32(math.Float64bits(kf))))
	kf -= expShifter
	r := x - kf*ln2Hi64 - kf*ln2Lo64
	p := 1 + r*(1+r*(0.5+r*(1.0/6+r*(1.0/24+r*(1.0/120)))))
	return p * math.Float64frombits(math.Float64bits(exp2Frac[k&63])+uint64(k>>6)<<52)
}
