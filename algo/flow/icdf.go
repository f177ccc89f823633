package flow

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/thelab/lab/algo"
)

// Law names a distribution on the line sampled by its quantile function.
type Law string

// The laws, with CDF F and quantile Q = F⁻¹ ([A28]):
//
//	exponential  F = 1 − e^{−λx},             Q(u) = −log(1 − u)/λ
//	cauchy       F = ½ + atan(x/λ)/π,          Q(u) = λ tan(π(u − ½))   (no mean: the running mean never settles)
//	logistic     F = 1/(1 + e^{−x/λ}),         Q(u) = λ log(u/(1 − u))
const (
	Exponential Law = "exponential"
	Cauchy      Law = "cauchy"
	Logistic    Law = "logistic"
)

// Laws lists them.
var Laws = []Law{Exponential, Cauchy, Logistic}

func (l Law) String() string { return string(l) }

// CDF is F(x) with scale λ.
func (l Law) CDF(x, lambda float64) float64 {
	switch l {
	case Exponential:
		if x <= 0 {
			return 0
		}
		return -math.Expm1(-lambda * x)
	case Cauchy:
		return 0.5 + math.Atan(x/lambda)/math.Pi
	}
	return 1 / (1 + math.Exp(-x/lambda))
}

// Quantile is Q(u) for u in (0, 1).
func (l Law) Quantile(u, lambda float64) float64 {
	switch l {
	case Exponential:
		return -math.Log1p(-u) / lambda
	case Cauchy:
		return lambda * math.Tan(math.Pi*(u-0.5))
	}
	return lambda * math.Log(u/(1-u))
}

// PDF is the density.
func (l Law) PDF(x, lambda float64) float64 {
	switch l {
	case Exponential:
		if x < 0 {
			return 0
		}
		return lambda * math.Exp(-lambda*x)
	case Cauchy:
		return 1 / (math.Pi * lambda * (1 + (x/lambda)*(x/lambda)))
	}
	e := math.Exp(-math.Abs(x) / lambda)
	return e / (lambda * (1 + e) * (1 + e))
}

// InverseCDF draws Q(U), U ~ U(0, 1) open at both ends, batch at a time,
// keeping the samples sorted for the Kolmogorov–Smirnov statistic
// D_n = sup_x |F_n(x) − F(x)| (Theorem 14.4, L1412–L1418). The draws are
// kept only sorted (nothing needs their order; the draws and the uniforms
// in order as well took three times the room), in a store made the size
// of its bound, MaxDraws, from the start: what an InverseCDF holds does
// not grow as it runs (8 MB, what a session is charged for it before it
// is built), and an insertion never copies the store to grow it.
type InverseCDF struct {
	law    Law
	lambda float64
	batch  int
	rng    *rand.Rand
	sorted []float64
	sum    float64
}

// MaxDraws bounds the samples of an InverseCDF.
const MaxDraws = 1_000_000

// NewInverseCDF prepares draws of law with scale lambda, batch per step.
func NewInverseCDF(law Law, lambda float64, batch int, rng *rand.Rand) (*InverseCDF, error) {
	if !slices.Contains(Laws, law) {
		return nil, algo.BadParam("law", law, fmt.Sprint(Laws))
	}
	if !(lambda > 0) || math.IsInf(lambda, 0) {
		return nil, algo.BadParam("lambda", lambda, "> 0")
	}
	if batch < 1 || batch > 10000 {
		return nil, algo.BadParam("batch", batch, "in 1..10000")
	}
	return &InverseCDF{law: law, lambda: lambda, batch: batch, rng: rng, sorted: make([]float64, 0, MaxDraws)}, nil
}

// Step draws a batch; it returns algo.ErrConverged at MaxDraws.
func (c *InverseCDF) Step() error {
	if len(c.sorted)+c.batch > MaxDraws {
		return algo.ErrConverged
	}
	for range c.batch {
		u := c.rng.Float64()
		for u == 0 {
			u = c.rng.Float64()
		}
		x := c.law.Quantile(u, c.lambda)
		i, _ := slices.BinarySearch(c.sorted, x)
		c.sorted = slices.Insert(c.sorted, i, x)
		c.sum += x
	}
	return nil
}

// KS is D_n over the draws so far.
func (c *InverseCDF) KS() float64 {
	n := float64(len(c.sorted))
	d := 0.0
	for i, x := range c.sorted {
		f := c.law.CDF(x, c.lambda)
		d = math.Max(d, math.Max(float64(i+1)/n-f, f-float64(i)/n))
	}
	return d
}

// Mean is the running sample mean.
func (c *InverseCDF) Mean() float64 { return c.sum / float64(len(c.sorted)) }

// N is the number of draws.
func (c *InverseCDF) N() int { return len(c.sorted) }

// Sorted is the draws in increasing order (the caller must not modify
// it).
func (c *InverseCDF) Sorted() []float64 { return c.sorted }

// Law and Lambda are the law sampled.
func (c *InverseCDF) Law() (Law, float64) { return c.law, c.lambda }
