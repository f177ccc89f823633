package target

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
)

// Donut is a ring-shaped density on ℝ²: a Gaussian profile of width σ about
// the circle of radius r,
//
//	p(x) = exp(−(‖x‖ − r)²/(2σ²)) / Z.
//
// It is not from the notes; it is a standard stress test for samplers
// (a curved, thin, non-convex support that a random walk must travel round
// and whose gradient points across, never along, the ring). In polar
// coordinates the radius has density ∝ ρ exp(−(ρ − r)²/(2σ²)) on ρ > 0 and
// the angle is uniform. With u = ρ − r, E = exp(−r²/(2σ²)) and
// I₀ = σ√(2π) Φ(r/σ),
//
//	∫₀^∞ ρ e^{−(ρ−r)²/(2σ²)} dρ = ∫_{−r}^∞ (u + r) e^{−u²/(2σ²)} du = σ²E + r I₀,
//
// so Z = 2π (σ²E + r I₀). Its gradient, away from the origin, is
//
//	∇ log p(x) = −((‖x‖ − r)/σ²) x/‖x‖,
//
// and at the origin (a cusp, where p is not differentiable and carries
// density e^{−r²/(2σ²)} of the peak) it is taken to be 0.
//
// Moments. By symmetry E[x] = 0 and Cov[x] = (E[ρ²]/2) I, with
//
//	E[ρ²] = (I₃ + 3r I₂ + 3r² I₁ + r³ I₀) / (I₁ + r I₀),
//	I₁ = σ²E,   I₂ = σ²(I₀ − rE),   I₃ = σ²E(r² + 2σ²),
//
// the moments I_k = ∫_{−r}^∞ u^k e^{−u²/(2σ²)} du (by parts). Build it with
// NewDonut.
type Donut struct {
	r, sigma float64
	logNorm  float64 // −log Z
	varAxis  float64 // E[ρ²]/2
}

// NewDonut returns the ring of radius r > 0 and width sigma > 0 (finite).
func NewDonut(r, sigma float64) (Donut, error) {
	if !(r > 0) || math.IsInf(r, 0) {
		return Donut{}, algo.BadParam("r", r, "a finite number > 0")
	}
	if !(sigma > 0) || math.IsInf(sigma, 0) {
		return Donut{}, algo.BadParam("sigma", sigma, "a finite number > 0")
	}
	s2 := sigma * sigma
	e := math.Exp(-r * r / (2 * s2))
	i0 := sigma * math.Sqrt(2*math.Pi) * 0.5 * math.Erfc(-r/(sigma*math.Sqrt2))
	i1 := s2 * e
	i2 := s2 * (i0 - r*e)
	i3 := s2 * e * (r*r + 2*s2)
	m0 := i1 + r*i0
	rho2 := (i3 + 3*r*i2 + 3*r*r*i1 + r*r*r*i0) / m0
	return Donut{r: r, sigma: sigma, logNorm: -math.Log(2 * math.Pi * m0), varAxis: rho2 / 2}, nil
}

func (Donut) Name() string { return string(KindDonut) }
func (Donut) Dim() int     { return 2 }

func (d Donut) LogP(x []float64) float64 {
	u := (math.Sqrt(x[0]*x[0]+x[1]*x[1]) - d.r) / d.sigma
	return -0.5*u*u + d.logNorm
}

func (d Donut) Grad(grad, x []float64) {
	rho := math.Sqrt(x[0]*x[0] + x[1]*x[1])
	if rho == 0 {
		grad[0], grad[1] = 0, 0
		return
	}
	f := -(rho - d.r) / (d.sigma * d.sigma * rho)
	grad[0], grad[1] = f*x[0], f*x[1]
}

func (d Donut) Density(x []float64) float64 { return math.Exp(d.LogP(x)) }
func (Donut) Mean() []float64               { return []float64{0, 0} }
func (d Donut) Cov() [][]float64            { return [][]float64{{d.varAxis, 0}, {0, d.varAxis}} }

// Bounds is the square ±(r + 3.5σ).
func (d Donut) Bounds() (lo, hi []float64) {
	h := d.r + 3.5*d.sigma
	return []float64{-h, -h}, []float64{h, h}
}

// Formula is the density written out.
func (d Donut) Formula() string {
	return fmt.Sprintf("p(x) ∝ exp(−(‖x‖ − r)²/(2σ²)), r = %g, σ = %g", d.r, d.sigma)
}

// Draw writes an exact draw into dst: a uniform angle and a radius from
// ρ e^{−(ρ−r)²/(2σ²)} on ρ > 0, by rejection from the envelope
// (r + |u|) e^{−u²/(2σ²)} over u = ρ − r ∈ ℝ, which is the mixture of
// N(0, σ²) (weight r σ√(2π)) and ±σ·Rayleigh (weight 2σ²); a draw u is kept
// with probability (r + u)/(r + |u|) when u > −r. The acceptance rate is
// above one half for any r, σ.
func (d Donut) Draw(dst []float64, rng *rand.Rand) {
	wn := d.r * d.sigma * math.Sqrt(2*math.Pi)
	wr := 2 * d.sigma * d.sigma
	for {
		var u float64
		if rng.Float64()*(wn+wr) < wn {
			u = d.sigma * rng.NormFloat64()
		} else {
			u = d.sigma * math.Sqrt(-2*math.Log(1-rng.Float64()))
			if rng.IntN(2) == 0 {
				u = -u
			}
		}
		if u <= -d.r || rng.Float64()*(d.r+math.Abs(u)) >= d.r+u {
			continue
		}
		th := 2 * math.Pi * rng.Float64()
		rho := d.r + u
		dst[0], dst[1] = rho*math.Cos(th), rho*math.Sin(th)
		return
	}
}

// HasConditional is false: p(x₁ | x₂) ∝ exp(−(√(x₁² + x₂²) − r)²/(2σ²)) is
// not a standard law (it is bimodal while |x₂| < r).
func (Donut) HasConditional(int) bool { return false }

// CondSample panics: the donut has no closed-form conditionals.
func (Donut) CondSample(int, []float64, *rand.Rand) float64 {
	panic("target: donut has no closed-form conditional")
}

// CondLogPDF panics: the donut has no closed-form conditionals.
func (Donut) CondLogPDF(int, []float64, float64) float64 {
	panic("target: donut has no closed-form conditional")
}
