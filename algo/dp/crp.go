package dp

import (
	"fmt"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
)

// CRP is the Chinese restaurant process, the predictive of a DP (seed 002
// §4.2, L1689–1703): after n customers, the next joins table j with
// probability n_j/(α + n) and opens a new table with probability α/(α + n).
// This is the base measure (αG + Σ_i δ_{φ_i})/(α + n) of the posterior
// DP(α + n, ·) of L1701 with the repeated atoms grouped into tables. One
// customer per Step.
//
// The number of tables K_n is a sum of independent Bernoullis (customer i+1
// opens a table with probability α/(α + i)), so
//
//	E[K_n] = Σ_{i<n} α/(α + i),   Var[K_n] = Σ_{i<n} α i/(α + i)².
type CRP struct {
	alpha  float64
	rng    *rand.Rand
	n      int
	counts []int // customers per table, in order of opening
	seat   int   // table of the last customer
}

// NewCRP validates α in (0, MaxAlpha] and opens an empty restaurant.
func NewCRP(alpha float64, rng *rand.Rand) (*CRP, error) {
	if !(alpha > 0 && alpha <= MaxAlpha) {
		return nil, algo.BadParam("alpha", alpha, fmt.Sprintf("in (0, %d]", MaxAlpha))
	}
	if rng == nil {
		return nil, algo.BadParam("rng", "nil", "a non-nil *rand.Rand")
	}
	return &CRP{alpha: alpha, rng: rng, seat: -1}, nil
}

// Step seats one customer. It allocates only when a table opens (amortised).
func (c *CRP) Step() error {
	u := c.rng.Float64() * (c.alpha + float64(c.n))
	c.seat = len(c.counts) // a new table unless u falls on a customer
	for j, m := range c.counts {
		if u -= float64(m); u < 0 {
			c.seat = j
			break
		}
	}
	if c.seat == len(c.counts) {
		c.counts = append(c.counts, 0)
	}
	c.counts[c.seat]++
	c.n++
	return nil
}

// N is the number of customers; Tables the number of occupied tables.
func (c *CRP) N() int { return c.n }

// Tables is the number of occupied tables K_n.
func (c *CRP) Tables() int { return len(c.counts) }

// Counts returns the customers per table (a view: do not modify).
func (c *CRP) Counts() []int { return c.counts }

// Last is the table of the last customer (−1 before the first) and whether
// that customer opened it.
func (c *CRP) Last() (table int, opened bool) {
	return c.seat, c.seat >= 0 && c.counts[c.seat] == 1
}

// Alpha is the concentration.
func (c *CRP) Alpha() float64 { return c.alpha }

// TablesMoments returns E[K_n] and Var[K_n] for n customers.
func TablesMoments(alpha float64, n int) (mean, variance float64) {
	for i := 0; i < n; i++ {
		p := alpha / (alpha + float64(i))
		mean += p
		variance += p * (1 - p)
	}
	return mean, variance
}
