// Package stein holds the pairwise sums of Stein variational gradient
// descent (Liu & Wang 2016) with the RBF kernel k(x, x') = exp(−‖x −
// x'‖²/h): over n particles x_i with scores s_i = ∇log p(x_i),
//
//	drive_i = Σ_j k(x_j, x_i) s_j,   rep_i = Σ_j ∇_{x_j} k(x_j, x_i) = Σ_j (2/h) k (x_i − x_j),
//
// and the kernelized Stein discrepancy's off-diagonal pairs,
//
//	u(x, x') = k [sᵀs' + (2/h)(s − s')ᵀ(x − x') + 2d/h − (4/h²)‖x − x'‖²].
//
// The loops are O(n²d) and the whole of an SVGD step's cost; they touch
// only the caller's buffers, on the caller's goroutine, and are marked
// //go:norace (the rule of algo/par's TestUnwatchedKernelsAreSerial:
// this package starts no goroutine and runs no par Loop).
package stein

import "math"

// PairDistances writes ‖x_i − x_j‖² for the pairs i < j, in the order (0,
// 1), (0, 2), …, (1, 2), …, into r2 (n(n−1)/2 values); x holds the n
// particles of dimension d, row after row.
//
//go:norace
func PairDistances(r2, x []float64, n, d int) {
	p := 0
	for i := range n {
		xi := x[i*d : (i+1)*d]
		for j := i + 1; j < n; j++ {
			xj := x[j*d : (j+1)*d]
			s := 0.0
			for k, v := range xi {
				r := v - xj[k]
				s += r * r
			}
			r2[p] = s
			p++
		}
	}
}

// AddPairs adds the pairs i ≠ j of the kernel-weighted scores to drive
// and of the kernel's gradients to rep (each n×d, holding the diagonal
// terms already), with bandwidth h and the squared distances r2 of
// PairDistances, and returns the sum of u over the pairs i ≠ j.
//
//go:norace
func AddPairs(drive, rep, x, grad, r2 []float64, n, d int, h float64) float64 {
	c := 2 / h
	ksd := 0.0
	p := 0
	for i := range n {
		xi, si := x[i*d:(i+1)*d], grad[i*d:(i+1)*d]
		di, ri := drive[i*d:(i+1)*d], rep[i*d:(i+1)*d]
		for j := i + 1; j < n; j++ {
			d2 := r2[p]
			p++
			k := math.Exp(-d2 / h)
			xj, sj := x[j*d:(j+1)*d], grad[j*d:(j+1)*d]
			dj, rj := drive[j*d:(j+1)*d], rep[j*d:(j+1)*d]
			ss, sd := 0.0, 0.0
			for m := range xi {
				diff := xi[m] - xj[m]
				di[m] += k * sj[m]
				dj[m] += k * si[m]
				ri[m] += c * k * diff
				rj[m] -= c * k * diff
				ss += si[m] * sj[m]
				sd += (si[m] - sj[m]) * diff
			}
			ksd += 2 * k * (ss + c*sd + c*float64(d) - c*c*d2)
		}
	}
	return ksd
}
