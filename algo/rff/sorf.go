package rff

import (
	"math"
)

// Structured orthogonal random features (SORF; Yu et al., "Orthogonal
// Random Features", NeurIPS 2016, §4; seed 004 L144 names them and stops):
// a block of frequencies is the p rows of
//
//	W = √p·√(2γ)·H D₁ H D₂ H D₃,
//
// p = d rounded up to a power of two (the points are zero-padded, so a row
// is used through its first d coordinates), H the normalised Walsh–Hadamard
// matrix (H = Hᵀ = H⁻¹, entries ±1/√p) and D_i diagonal matrices of
// independent random signs. HD₁HD₂HD₃ is orthogonal, so the p-vector rows
// of a block are exactly orthogonal with the fixed norm √p·√(2γ): √d when
// d is a power of two, not the χ(d) radius of ORF. (For other d the rows
// cut to d coordinates are neither orthogonal nor of equal norms; wᵀx is
// the p-vector row against x padded with zeros, and what follows holds
// with p for d.) That fixed norm makes SORF slightly biased for the
// Gaussian kernel: averaged over directions, its estimate's mean is the
// kernel of the sphere of radius √d, Γ(d/2)(2/r)^{d/2−1}J_{d/2−1}(r) with
// r = √(2γd)‖x − z‖ (SphereKernel), which tends to exp(−γ‖x − z‖²) as d
// grows — the same bias as the √d-normalised ORF the catalogue (R6,
// erratum 13) warns against; Yu et al. bound it by O(1/√d). Cost: Wx for
// a whole block of p features is three fast Walsh–Hadamard transforms of x,
// O(p log p) time, and a block needs only its 3p signs, O(p) space, against
// ORF's O(d³) generation and O(d²) time and space per transform (seed 004
// L140–142). Here the rows are materialised, p×d, because Approx forms
// each wᵀx explicitly.
type sorfWork struct {
	p     int
	signs []float64 // D₁, D₂, D₃: 3p signs
	v     []float64 // one row, length p
}

func newSORFWork(d int) *sorfWork {
	p := 1
	for p < d {
		p *= 2
	}
	return &sorfWork{p: p, signs: make([]float64, 3*p), v: make([]float64, p)}
}

// SORFBlock returns the rows a SORF block holds for dimension d: d rounded
// up to a power of two.
func SORFBlock(d int) int { return newSORFWork(d).p }

// SamplerFootprintOf is the bytes NewSampler allocates in d dimensions for
// a kind: SamplerFootprint, plus for SORF a p×d block and its 4p signs and
// work vector.
func SamplerFootprintOf(d int, kind Kind) int64 {
	if kind != SORF {
		return SamplerFootprint(d)
	}
	p := int64(SORFBlock(d))
	return SamplerFootprint(d) + 8*p*int64(d) + 8*4*p
}

// fwht applies the normalised Walsh–Hadamard transform to v (length a power
// of two) in place, in O(p log p): Sylvester's butterflies, then 1/√p.
func fwht(v []float64) {
	p := len(v)
	for h := 1; h < p; h *= 2 {
		for i := 0; i < p; i += 2 * h {
			for j := i; j < i+h; j++ {
				a, b := v[j], v[j+h]
				v[j], v[j+h] = a+b, a-b
			}
		}
	}
	c := 1 / math.Sqrt(float64(p))
	for i := range v {
		v[i] *= c
	}
}

// newSORFBlock draws D₁, D₂, D₃ and writes the p rows of W: row i is
// e_iᵀHD₁HD₂HD₃ = (D₃HD₂HD₁He_i)ᵀ (H symmetric), three transforms.
func (s *Sampler) newSORFBlock() {
	w := s.sorf
	for i := range w.signs {
		w.signs[i] = 1
		if s.rng.Uint64()&1 == 1 {
			w.signs[i] = -1
		}
	}
	p, d := w.p, s.d
	c := math.Sqrt(float64(p)) * s.scale
	for i := 0; i < p; i++ {
		for j := range w.v {
			w.v[j] = 0
		}
		w.v[i] = 1
		for k := 0; k < 3; k++ {
			fwht(w.v)
			for j, sg := range w.signs[k*p : (k+1)*p] {
				w.v[j] *= sg
			}
		}
		row := s.block[i*d : (i+1)*d]
		for j := range row {
			row[j] = c * w.v[j]
		}
	}
	s.next = 0
}

// SphereKernel is the mean of cos(wᵀδ) over w uniform on the sphere of
// radius ρ in d dimensions, at r = ρ‖δ‖: Γ(d/2)(2/r)^{d/2−1}J_{d/2−1}(r),
// the characteristic function of the uniform distribution on the sphere
// (1 at r = 0). With ρ = √(2γd) it is what SORF and √d-normalised ORF
// estimate in place of exp(−γ‖δ‖²). d is 1 or even (the sizes of a SORF
// block, powers of two): at d = 1 the "sphere" is the two points ±ρ and
// the mean is cos r (J_{−½}(r) = √(2/(πr)) cos r); an odd d > 1, whose
// Bessel order is a half-integer math.Jn does not take, gives NaN.
func SphereKernel(d int, r float64) float64 {
	switch {
	case d == 1:
		return math.Cos(r)
	case d < 1 || d%2 == 1:
		return math.NaN()
	case r < 1e-8:
		return 1
	}
	nu := d/2 - 1
	lg, _ := math.Lgamma(float64(d) / 2)
	return math.Exp(lg+float64(nu)*math.Log(2/r)) * math.Jn(nu, r)
}
