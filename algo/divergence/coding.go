package divergence

import (
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
)

// MaxSymbols is the largest alphabet a Coding accepts.
const MaxSymbols = 10

// Coding is the "entropy as compression cost" reading of §1.5 (seed 002
// L356–366): symbols x₁, x₂, ... drawn from p are coded with lengths
// −log p(x) (the optimal code for p) and −log q(x) (the code of a receiver
// who believes q). By the law of large numbers the mean lengths tend to the
// entropy H(p) (eq 1.19) and the cross-entropy H(p, q) (eq 1.25), and their
// difference to KL(p‖q) = H(p, q) − H(p) ≥ 0 (eq 1.32): the extra cost of
// the wrong code. A symbol with q(x) = 0 < p(x) cannot be coded for q at all
// (p is not ≪ q, L445): the q-code's length becomes +Inf.
//
// One Step draws one symbol. Step does not allocate.
type Coding struct {
	p, q   []float64
	cum    []float64 // cumulative p, for inverse-CDF draws
	rng    *rand.Rand
	counts []int
	n      int
	lenP   float64 // Σ −log p(x_t)
	lenQ   float64 // Σ −log q(x_t), +Inf once a symbol with q = 0 is drawn
	last   int
}

// NewCoding validates p and q (probability vectors of the same length, at
// most MaxSymbols) and starts with no symbols drawn.
func NewCoding(p, q []float64, rng *rand.Rand) (*Coding, error) {
	if len(p) > MaxSymbols {
		return nil, algo.BadParam("p", p, "at most 10 probabilities")
	}
	if err := CheckPMF("p", p); err != nil {
		return nil, err
	}
	if err := CheckPMF("q", q); err != nil {
		return nil, err
	}
	if len(q) != len(p) {
		return nil, algo.BadParam("q", q, "as many probabilities as p")
	}
	if rng == nil {
		return nil, algo.BadParam("rng", nil, "a random source")
	}
	c := &Coding{p: append([]float64(nil), p...), q: append([]float64(nil), q...), rng: rng,
		cum: make([]float64, len(p)), counts: make([]int, len(p)), last: -1}
	s := 0.0
	for i, v := range p {
		s += v
		c.cum[i] = s
	}
	return c, nil
}

// Step draws one symbol from p and codes it under both codes.
func (c *Coding) Step() error {
	u := c.rng.Float64() * c.cum[len(c.cum)-1]
	x := len(c.p) - 1
	for i, s := range c.cum {
		if u < s && c.p[i] > 0 {
			x = i
			break
		}
	}
	for c.p[x] == 0 { // rounding at the top end: take the last symbol with p > 0
		x--
	}
	c.counts[x]++
	c.n++
	c.lenP -= math.Log(c.p[x])
	c.lenQ -= math.Log(c.q[x]) // +Inf when q(x) = 0
	c.last = x
	return nil
}

// P and Q are the two distributions (views: do not modify).
func (c *Coding) P() []float64 { return c.p }

// Q is the receiver's distribution (a view).
func (c *Coding) Q() []float64 { return c.q }

// N is the number of symbols drawn.
func (c *Coding) N() int { return c.n }

// Last is the last symbol drawn (−1 before the first).
func (c *Coding) Last() int { return c.last }

// MeanLengths returns the mean code lengths per symbol, in nats, under p's
// code and under q's (0, 0 before the first symbol; the second is +Inf once
// a symbol with q = 0 has been drawn).
func (c *Coding) MeanLengths() (underP, underQ float64) {
	if c.n == 0 {
		return 0, 0
	}
	return c.lenP / float64(c.n), c.lenQ / float64(c.n)
}

// Empirical writes the symbols' frequencies into dst (grown if short).
func (c *Coding) Empirical(dst []float64) []float64 {
	if cap(dst) < len(c.p) {
		dst = make([]float64, len(c.p))
	}
	dst = dst[:len(c.p)]
	for i, k := range c.counts {
		dst[i] = 0
		if c.n > 0 {
			dst[i] = float64(k) / float64(c.n)
		}
	}
	return dst
}

// LengthSD returns the standard deviation of one symbol's code length
// under p's code, √Var_p[−log p(x)], which sets the Monte Carlo error of
// the mean length: s.e. = LengthSD/√N.
func (c *Coding) LengthSD() float64 {
	h := Entropy(c.p)
	v := 0.0
	for _, pi := range c.p {
		if pi > 0 {
			e := -math.Log(pi) - h
			v += pi * e * e
		}
	}
	return math.Sqrt(v)
}
