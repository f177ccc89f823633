package vi

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/integrate"
	"github.com/thelab/lab/algo/stable"
)

// The 1-D models BBVI runs on. Each gives the unnormalised log joint
// log p(x, z) = log p(z | x) + log p(x) as a function of the latent z, as
// black-box VI sees a model (seed 002 L1416–1424): the evidence log p(x) is
// an unknown constant to the algorithm, and it matters, since the
// score-function estimator multiplies it by the score (whose mean is zero,
// so it adds variance and no information).

// Conjugate is the Gaussian model with unknown mean, z ~ N(M0, Tau0²) and
// x_i | z ~ N(z, Sigma²) for i = 1..n: its posterior is Gaussian, so BBVI's
// optimum is the exact posterior and the ELBO's maximum is log p(x).
type Conjugate struct {
	M0, Tau0, Sigma float64
	n               int
	sum, sumSq      float64 // Σ x_i, Σ x_i²
}

// NewConjugate draws n observations from N(zTrue, sigma²) with rng and
// returns the model with prior N(m0, tau0²).
func NewConjugate(m0, tau0, sigma, zTrue float64, n int, rng *rand.Rand) (*Conjugate, error) {
	switch {
	case !algo.Finite(m0):
		return nil, algo.BadParam("prior_mean", m0, "a finite number")
	case !(tau0 > 0) || math.IsInf(tau0, 0):
		return nil, algo.BadParam("prior_sd", tau0, "a finite number > 0")
	case !(sigma > 0) || math.IsInf(sigma, 0):
		return nil, algo.BadParam("noise_sd", sigma, "a finite number > 0")
	case !algo.Finite(zTrue):
		return nil, algo.BadParam("z_true", zTrue, "a finite number")
	case n < 1 || n > 1e6:
		return nil, algo.BadParam("n", n, "in 1..1000000")
	case rng == nil:
		return nil, algo.BadParam("rng", nil, "a random source")
	}
	c := &Conjugate{M0: m0, Tau0: tau0, Sigma: sigma, n: n}
	for range n {
		x := zTrue + sigma*rng.NormFloat64()
		c.sum += x
		c.sumSq += x * x
	}
	return c, nil
}

func (*Conjugate) Dim() int { return 1 }

// LogP is log N(z; M0, Tau0²) + Σ_i log N(x_i; z, Sigma²).
func (c *Conjugate) LogP(z []float64) float64 {
	u := (z[0] - c.M0) / c.Tau0
	n := float64(c.n)
	ss := c.sumSq - 2*z[0]*c.sum + n*z[0]*z[0] // Σ (x_i − z)²
	return -0.5*u*u - math.Log(c.Tau0) - (n+1)/2*math.Log(2*math.Pi) - n*math.Log(c.Sigma) - ss/(2*c.Sigma*c.Sigma)
}

// Grad is ∂_z log p(x, z) = −(z − M0)/Tau0² + (Σx_i − n z)/Sigma².
func (c *Conjugate) Grad(g, z []float64) {
	g[0] = -(z[0]-c.M0)/(c.Tau0*c.Tau0) + (c.sum-float64(c.n)*z[0])/(c.Sigma*c.Sigma)
}

// Posterior returns the exact posterior N(mean, sd²): precision
// 1/Tau0² + n/Sigma², mean (M0/Tau0² + Σx_i/Sigma²)/precision.
func (c *Conjugate) Posterior() (mean, sd float64) {
	prec := 1/(c.Tau0*c.Tau0) + float64(c.n)/(c.Sigma*c.Sigma)
	return (c.M0/(c.Tau0*c.Tau0) + c.sum/(c.Sigma*c.Sigma)) / prec, 1 / math.Sqrt(prec)
}

// LogEvidence is log p(x) = log p(x, z) − log p(z | x) at any z.
func (c *Conjugate) LogEvidence() float64 {
	m, s := c.Posterior()
	return c.LogP([]float64{m}) + math.Log(s) + 0.5*math.Log(2*math.Pi)
}

// N is the number of observations.
func (c *Conjugate) N() int { return c.n }

// String describes the model.
func (c *Conjugate) String() string {
	return fmt.Sprintf("z ~ N(%g, %g²), %d points x_i ~ N(z, %g²)", c.M0, c.Tau0, c.n, c.Sigma)
}

// Logistic is the 1-D Bayesian logistic regression of Ex 3.4 (seed 002
// L1188–1219): w ~ N(0, Tau²), p(y_n = 1 | w, x_n) = σ(w x_n), with
//
//	log p(y, w | x) = log N(w; 0, Tau²) + Σ_n (y_n w x_n − log(1 + e^{w x_n}))   (L1207),
//	∂_w = −w/Tau² + Σ_n x_n (y_n − σ(w x_n))                                    (3.4),
//
// evaluated with a stable softplus. Its posterior is not Gaussian, so BBVI
// can only approach it; the evidence is computed by quadrature for
// reference.
type Logistic struct {
	X, Y []float64
	Tau  float64
}

// Ex34Data are the inputs and labels the catalogue uses for Ex 3.4
// (seed-002-catalog C7: the notes give the model, not data).
var (
	Ex34X = []float64{-2, -1, -0.5, 0.5, 1, 2, 3, -3}
	Ex34Y = []float64{0, 0, 1, 0, 1, 1, 1, 0}
)

// NewLogistic validates the data (equal lengths, labels 0 or 1, finite
// inputs) and the prior's standard deviation tau > 0.
func NewLogistic(x, y []float64, tau float64) (*Logistic, error) {
	if len(x) == 0 || len(x) != len(y) || !algo.AllFinite(x) {
		return nil, algo.BadParam("data", fmt.Sprintf("%d inputs, %d labels", len(x), len(y)), "as many finite inputs as labels, at least one")
	}
	for _, v := range y {
		if v != 0 && v != 1 {
			return nil, algo.BadParam("data", y, "labels 0 or 1")
		}
	}
	if !(tau > 0) || math.IsInf(tau, 0) {
		return nil, algo.BadParam("prior_sd", tau, "a finite number > 0")
	}
	return &Logistic{X: append([]float64(nil), x...), Y: append([]float64(nil), y...), Tau: tau}, nil
}

func (*Logistic) Dim() int { return 1 }

// LogP is log p(y, w | x) (L1207, with the prior's normaliser).
func (l *Logistic) LogP(w []float64) float64 {
	u := w[0] / l.Tau
	v := -0.5*u*u - math.Log(l.Tau) - 0.5*math.Log(2*math.Pi)
	for i, x := range l.X {
		a := w[0] * x
		v += l.Y[i]*a - stable.Softplus(a)
	}
	return v
}

// Grad is (3.4).
func (l *Logistic) Grad(g, w []float64) {
	d := -w[0] / (l.Tau * l.Tau)
	for i, x := range l.X {
		d += x * (l.Y[i] - stable.Sigmoid(w[0]*x))
	}
	g[0] = d
}

// LogEvidence is log ∫ p(y, w | x) dw by quadrature over ±12 Tau.
func (l *Logistic) LogEvidence() float64 {
	w := []float64{0}
	hi := l.LogP(w) // the integrand is at most e^{hi + something}: shift by the value at 0
	v := integrate.Integrate(func(t float64) float64 { w[0] = t; return math.Exp(l.LogP(w) - hi) }, -12*l.Tau, 12*l.Tau, 48)
	return hi + math.Log(v)
}
