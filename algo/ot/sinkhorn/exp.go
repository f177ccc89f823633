package sinkhorn

import "math"

// Constants of expShift. x = (k/64) ln 2 + r with k the nearest integer to
// 64x/ln 2, found by adding 1.5·2⁵² (the sum's last bits hold k); ln 2/64
// is split into a high part whose product with any such k is exact and the
// rest (Cody & Waite), so r is exact to within an ulp.
const (
	expShifter = 0x1.8p52
	inv64Ln2   = 64 / math.Ln2
	ln2Hi64    = 0.010830417275428772
	ln2Lo64    = 7.420820373486988e-09
	// expMin is the argument below which expShift gives 0: e^−708 is just
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

// expShift writes e^(x_k − shift) into dst (when dst is not nil; it has
// the length of x) and returns their sum. Every x_k − shift must be ≤ 0 (or
// −Inf); below −708 the exponential is 0. The log-sum-exps of the
// log-domain iterations take one exponential per entry of the cost
// matrix, and these are within a relative 5e-16 of math.Exp (TestExpShift)
// at about a third of its cost, the loop body free of calls and of
// branches on the common path: with x = (k/64) ln 2 + r, |r| ≤ ln 2/128,
// e^x = 2^⌊k/64⌋ · 2^((k mod 64)/64) · e^r, the middle factor from a table
// and e^r from its Taylor polynomial of degree 5 (the remainder
// r⁶/6! < 4·10⁻¹⁷). Like algo/tensor's loops it is marked for the race
// detector and the pointer checks of -race to leave alone (the sims'
// Sinkhorn tests spent half their CPU in its instrumentation): it reads
// and writes only its arguments, on the caller's goroutine.
//
//go:norace
//go:nocheckptr
func expShift(dst, x []float64, shift float64) float64 {
	if dst != nil {
		dst = dst[:len(x)]
	}
	sum := 0.0
	for k, v := range x {
		v -= shift
		e := 0.0
		if v >= expMin {
			kf := v*inv64Ln2 + expShifter
			ki := int64(int32(uint32(math.Float64bits(kf))))
			kf -= expShifter
			r := v - kf*ln2Hi64 - kf*ln2Lo64
			p := 1 + r*(1+r*(0.5+r*(1.0/6+r*(1.0/24+r*(1.0/120)))))
			e = p * math.Float64frombits(math.Float64bits(exp2Frac[ki&63])+uint64(ki>>6)<<52)
		}
		if dst != nil {
			dst[k] = e
		}
		sum += e
	}
	return sum
}

// offsets writes dst_k = a_k − s·c_k (dst, a and c of one length) and
// returns their maximum (−Inf when all are): the arguments of a
// log-sum-exp and its shift.
//
//go:norace
func offsets(dst, a, c []float64, s float64) float64 {
	dst, a = dst[:len(c)], a[:len(c)]
	mx := math.Inf(-1)
	for k, v := range c {
		t := a[k] - s*v
		dst[k] = t
		if t > mx {
			mx = t
		}
	}
	return mx
}
