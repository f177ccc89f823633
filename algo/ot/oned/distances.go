package oned

import (
	"fmt"
	"math"
	"slices"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/divergence"
	"github.com/thelab/lab/algo/integrate"
)

// Dist is a law on ℝ with a density, for the distances between two laws
// (E6).
type Dist interface {
	LogPDF(x float64) float64
	CDF(x float64) float64
	Quantile(t float64) float64
	// Breaks returns, sorted, the points where the density jumps or the
	// support ends — for an unbounded support, the ends of an interval
	// holding all but 1e-30 of the mass.
	Breaks() []float64
}

// Normal is N(Mean, SD²).
type Normal struct{ Mean, SD float64 }

func (d Normal) LogPDF(x float64) float64 {
	z := (x - d.Mean) / d.SD
	return -0.5*z*z - math.Log(d.SD) - 0.5*math.Log(2*math.Pi)
}
func (d Normal) CDF(x float64) float64      { return NormalCDF(d.Mean, d.SD, x) }
func (d Normal) Quantile(t float64) float64 { return NormalQuantile(d.Mean, d.SD, t) }
func (d Normal) Breaks() []float64          { return []float64{d.Mean - 12*d.SD, d.Mean + 12*d.SD} }

// Box is the uniform law on [A, B].
type Box struct{ A, B float64 }

func (d Box) LogPDF(x float64) float64 {
	if x < d.A || x > d.B {
		return math.Inf(-1)
	}
	return -math.Log(d.B - d.A)
}
func (d Box) CDF(x float64) float64      { return math.Min(math.Max((x-d.A)/(d.B-d.A), 0), 1) }
func (d Box) Quantile(t float64) float64 { return d.A + t*(d.B-d.A) }
func (d Box) Breaks() []float64          { return []float64{d.A, d.B} }

// Shifted is the law of X + By for X ~ D.
type Shifted struct {
	D  Dist
	By float64
}

func (d Shifted) LogPDF(x float64) float64   { return d.D.LogPDF(x - d.By) }
func (d Shifted) CDF(x float64) float64      { return d.D.CDF(x - d.By) }
func (d Shifted) Quantile(t float64) float64 { return d.D.Quantile(t) + d.By }
func (d Shifted) Breaks() []float64 {
	b := slices.Clone(d.D.Breaks())
	for i := range b {
		b[i] += d.By
	}
	return b
}

// checkDist refuses a nil law and Normal and Box laws with bad parameters.
func checkDist(name string, d Dist) error {
	switch d := d.(type) {
	case nil:
		return algo.BadParam(name, "nil", "a law")
	case Normal:
		if !algo.Finite(d.Mean) || !(d.SD > 0) || math.IsInf(d.SD, 0) {
			return algo.BadParam(name, fmt.Sprintf("N(%g, %g²)", d.Mean, d.SD), "a finite mean and a finite sd > 0")
		}
	case Box:
		if !algo.Finite(d.A) || !algo.Finite(d.B) || !(d.A < d.B) {
			return algo.BadParam(name, fmt.Sprintf("U[%g, %g]", d.A, d.B), "finite ends with a < b")
		}
	case Shifted:
		if !algo.Finite(d.By) {
			return algo.BadParam(name, d.By, "a finite shift")
		}
		return checkDist(name, d.D)
	}
	return nil
}

// Distances are the distances between two laws P and Q of §5.1 and E6:
// the Wasserstein distances, which lift the distance of the line, and the
// "vertical" ones, which compare densities point by point (L2029–2033).
type Distances struct {
	W1, W2 float64 // W₁ = ∫|F_P − F_Q| dx, W₂ = (∫₀¹ (F_P⁻ − F_Q⁻)² dt)^½
	L1     float64 // ∫|p − q| ≤ 2
	KL     float64 // KL(P‖Q), +Inf unless P ≪ Q
	JS     float64 // ½ KL(P‖M) + ½ KL(Q‖M), M = (P + Q)/2: ≤ log 2
}

// quadPanels is the number of 20-point Gauss–Legendre panels per piece
// between breaks: a piece of a Normal spans at most 24 sd, so a panel
// spans at most 0.4 sd, where the integrands are resolved to rounding —
// once |F_P − F_Q| and |p − q| are split where the laws cross
// (integrate.AbsPieces).
const quadPanels = 64

var legendre = func() integrate.Legendre {
	r, err := integrate.NewLegendre(20)
	if err != nil {
		panic(err)
	}
	return r
}()

// Between returns the Distances between p and q by quadrature on the union
// of their breaks (E6, §5.1).
//
// W₁ = ∫|F_P − F_Q| dx and L1 = ∫|p − q| dx have integrands with a kink
// wherever the laws cross — F_P = F_Q, or p = q, away from the breaks —
// where the rule, exact only for an integrand smooth on each panel, keeps
// five or six digits. So integrate.AbsPieces splits the panels at the crossings,
// found to the last bit by Brent's method, and W₁ = Σ_k |∫ (F_P − F_Q)|
// over the pieces (x_k, x_{k+1}) between them, on each of which F_P − F_Q
// keeps its sign and is smooth; L1 likewise with p − q. Two Gaussians of
// different spreads cross once in their CDFs (where (x − m_P)/s_P =
// (x − m_Q)/s_Q) and twice in their densities (the roots of the quadratic
// log p − log q); a Gaussian and a box up to three times in their CDFs
// and twice in their densities; the CDFs of two boxes at most once between
// breaks. W₁ and L1 are then within a relative 1e-13 of their closed forms
// (distances_test.go), two crossings between the same two nodes included.
//
// W₂² is computed as ∫ (x − T(x))² p(x) dx with T = F_Q⁻ ∘ F_P the
// monotone map (Corollary 1, L2183), whose integrand is smooth where the
// t-form has end-point singularities; where F_P rounds to 0 or 1 (mass
// below 1e-16) T is infinite and the point is left out.
func Between(p, q Dist) (Distances, error) {
	if err := checkDist("P", p); err != nil {
		return Distances{}, err
	}
	if err := checkDist("Q", q); err != nil {
		return Distances{}, err
	}
	br := slices.Concat(p.Breaks(), q.Breaks())
	slices.Sort(br)
	br = slices.Compact(br)
	logm := func(x float64) float64 {
		a, b := p.LogPDF(x), q.LogPDF(x)
		mx := math.Max(a, b)
		if math.IsInf(mx, -1) {
			return mx
		}
		return mx + math.Log1p(math.Exp(math.Min(a, b)-mx)) - math.Ln2
	}
	var r Distances
	r.L1 = integrate.AbsPieces(func(x float64) float64 { return math.Exp(p.LogPDF(x)) - math.Exp(q.LogPDF(x)) }, br, quadPanels)
	r.KL = divergence.KLQuad(p.LogPDF, q.LogPDF, br, quadPanels)
	r.JS = 0.5*divergence.KLQuad(p.LogPDF, logm, br, quadPanels) + 0.5*divergence.KLQuad(q.LogPDF, logm, br, quadPanels)
	r.W1 = integrate.AbsPieces(func(x float64) float64 { return p.CDF(x) - q.CDF(x) }, br, quadPanels)
	w2 := legendre.Pieces(func(x float64) float64 {
		lp := p.LogPDF(x)
		if math.IsInf(lp, -1) {
			return 0
		}
		d := x - q.Quantile(p.CDF(x))
		if v := d * d * math.Exp(lp); algo.Finite(v) {
			return v
		}
		return 0
	}, p.Breaks(), quadPanels)
	r.W2 = math.Sqrt(w2)
	return r, nil
}

// Separation pulls Q away from P, one shift per Step: at step k the
// distances are those between P and Q shifted by k·Delta (Fig 5.13, E6).
// For N(0, 1) against N(d, 1), W₁ = W₂ = d grow linearly for ever while
// L1 = 2(2Φ(d/2) − 1) saturates at 2, JS at log 2 and KL = d²/2 grows
// without being a metric; for boxes pulled apart KL is +Inf from the first
// shift and JS reaches log 2 once the supports are disjoint, while W still
// measures how far apart they are.
type Separation struct {
	p, q   Dist
	delta  float64
	max    float64
	k      int
	shift  float64
	values Distances
}

// NewSeparation starts at shift 0; each Step adds delta > 0, and the run
// ends (ErrConverged) once the shift reaches max ≥ delta.
func NewSeparation(p, q Dist, delta, max float64) (*Separation, error) {
	if !(delta > 0) || math.IsInf(delta, 0) {
		return nil, algo.BadParam("delta", delta, "a finite number > 0")
	}
	if !(max >= delta) || math.IsInf(max, 0) {
		return nil, algo.BadParam("max", max, fmt.Sprintf("finite and ≥ delta = %g", delta))
	}
	v, err := Between(p, q)
	if err != nil {
		return nil, err
	}
	return &Separation{p: p, q: q, delta: delta, max: max, values: v}, nil
}

// Step moves Q by delta and computes the distances.
func (s *Separation) Step() error {
	if s.shift >= s.max {
		return algo.ErrConverged
	}
	s.k++
	s.shift = math.Min(float64(s.k)*s.delta, s.max)
	v, err := Between(s.p, Shifted{s.q, s.shift})
	if err != nil {
		return err
	}
	s.values = v
	if s.shift >= s.max {
		return algo.ErrConverged
	}
	return nil
}

// Shift is the present shift d; Values the distances there.
func (s *Separation) Shift() float64    { return s.shift }
func (s *Separation) Values() Distances { return s.values }
func (s *Separation) Laws() (p, q Dist) { return s.p, Shifted{s.q, s.shift} }
