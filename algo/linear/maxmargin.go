package linear

import (
	"math"

	"gonum.org/v1/gonum/floats"
)

// Separability is what MaxMargin found out about the data.
type Separability int

const (
	// Unknown: the iteration budget ran out before either certificate.
	Unknown Separability = iota
	// Separable: a unit w̃ with y_i⟨x̃_i, w̃⟩ ≥ γ > 0 for all i was found.
	Separable
	// NotSeparable: 0 lies (to rounding) in the convex hull of the
	// y_i x̃_i, so no w̃ has all y_i⟨x̃_i, w̃⟩ > 0 (Gordan's alternative).
	NotSeparable
)

func (s Separability) String() string {
	switch s {
	case Separable:
		return "separable"
	case NotSeparable:
		return "not separable"
	}
	return "unknown"
}

// Margin is the homogeneous max-margin direction of a data set.
type Margin struct {
	W     []float64 // unit w̃* = (w, b)/‖(w, b)‖; nil unless Separable
	Gamma float64   // min_i y_i⟨x̃_i, W⟩, the largest such margin to the tolerance
	// Upper is an upper bound on the best margin γ*: Gamma ≤ γ* ≤ Upper.
	Upper float64
	Sep   Separability
	Alpha []float64 // the convex weights of the hull point (dual, up to scale)
}

// MaxMargin finds the unit direction w̃* that maximises the margin
// γ = min_i y_i⟨x̃_i, w̃⟩ in the homogeneous form of Theorem 2.8 (seed 001
// L221–L225, the bias inside w̃ and so counted in its norm): the tightest γ
// for the theorem's mistake bound C²/γ² (catalogue [A1], "γ depends on the
// chosen w*"). The notes give no solver; this is the minimum-norm point of
// the convex hull of z_i = y_i x̃_i, whose norm is γ* (the hard-margin SVM of
// the homogeneous form, [A8], in its dual), found by pairwise Frank–Wolfe
// steps with exact line search (Lacoste-Julien & Jaggi, NeurIPS 2015):
//
//	u = Σ α_i z_i (α in the simplex);  s = argmin_i ⟨z_i, u⟩, a = argmax_{α_i>0} ⟨z_i, u⟩;
//	u ← u + τ (z_s − z_a),  τ = clip(−⟨u, z_s − z_a⟩ / ‖z_s − z_a‖², 0, α_a).
//
// Every iterate brackets γ*: min_i ⟨z_i, u⟩/‖u‖ ≤ γ* ≤ ‖u‖. It stops when
// the bracket closes to 10⁻¹⁰ relative (Separable), when ‖u‖ ≤ 10⁻⁹·max‖z_i‖
// (NotSeparable), or after a budget of about 5·10⁷ multiply-adds (Unknown,
// with the best positive margin found, if any). On the notes' OR data it
// gives w̃* ∝ (2, 2, −1), γ* = 1/3 and α ∝ (5, 2, 2, 0) (catalogue §D.1).
func MaxMargin(x *Design, y []float64) Margin {
	n, p := x.N(), x.P()
	z := make([][]float64, n)
	zmax := 0.0
	for i := range z {
		z[i] = make([]float64, p)
		floats.AddScaled(z[i], y[i], x.Row(i))
		zmax = math.Max(zmax, floats.Norm(z[i], 2))
	}
	alpha := make([]float64, n)
	u := make([]float64, p)
	dots := make([]float64, n)
	// Start at the z_i of least norm.
	start := 0
	for i := range z {
		if floats.Norm(z[i], 2) < floats.Norm(z[start], 2) {
			start = i
		}
	}
	alpha[start] = 1
	copy(u, z[start])

	budget := max(200, 50_000_000/max(1, n*p))
	res := Margin{Sep: Unknown, Gamma: math.Inf(-1), Upper: math.Inf(1)}
	var best []float64
	dir := make([]float64, p)
	for it := 0; it < budget; it++ {
		nu := floats.Norm(u, 2)
		res.Upper = math.Min(res.Upper, nu)
		if nu <= 1e-9*zmax {
			res.Sep = NotSeparable
			res.Gamma = 0
			res.Upper = 0
			break
		}
		s, a := 0, -1
		for i := range z {
			dots[i] = floats.Dot(z[i], u)
			if dots[i] < dots[s] {
				s = i
			}
			if alpha[i] > 0 && (a < 0 || dots[i] > dots[a]) {
				a = i
			}
		}
		if g := dots[s] / nu; g > res.Gamma {
			res.Gamma = g
			best = append(best[:0], u...)
			floats.Scale(1/nu, best)
		}
		if res.Gamma > 0 && res.Upper-res.Gamma <= 1e-10*res.Upper {
			res.Sep = Separable
			break
		}
		floats.SubTo(dir, z[s], z[a])
		dd := floats.Dot(dir, dir)
		if dd == 0 {
			// s = a: u is the best hull point up to rounding.
			if res.Gamma > 0 {
				res.Sep = Separable
			}
			break
		}
		tau := math.Max(0, math.Min(alpha[a], -floats.Dot(u, dir)/dd))
		if tau == 0 {
			if res.Gamma > 0 {
				res.Sep = Separable
			}
			break
		}
		floats.AddScaled(u, tau, dir)
		alpha[s] += tau
		alpha[a] -= tau
		if alpha[a] < 1e-300 {
			alpha[a] = 0
		}
	}
	res.Alpha = alpha
	if res.Gamma > 0 {
		res.W = best
		if res.Sep == Unknown {
			// A separating direction was found though the bracket did not
			// close: the data are separable, γ is a lower bound on γ*.
			res.Sep = Separable
		}
	} else if res.Sep != NotSeparable {
		res.Gamma = 0
	}
	return res
}
