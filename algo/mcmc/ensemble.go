package mcmc

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/target"
)

// MaxChains is the largest number of chains an Ensemble runs.
const MaxChains = 16

// Ensemble runs several chains of a sampler side by side and keeps what
// the notes' practical considerations ask for (seed 002 §3.2, L1157–1166;
// the catalogue's C6), for every sampler of the lab alike:
//
//   - burn-in: the first BurnIn transitions of every chain are discarded
//     ("the initial samples should be discarded", L1159);
//   - thinning: after the burn-in only every Thin-th state is kept ("one
//     every 50 samples", L1161);
//   - per chain: the acceptance rate and a History of the kept samples;
//   - across chains: the pooled moments and, per coordinate, the
//     diagnostics of Vehtari et al. (2021) on the whole kept runs
//     (Summarise): rank-normalised split R̂, near 1 only when chains started
//     apart agree ("assessment of this convergence must be assessed
//     empirically", L1159), and the multi-chain bulk- and tail-ESS, which
//     are a handful of draws when they do not (never the sum of the
//     chains' ESS).
//
// One Step is one transition of every chain. Step does not allocate.
type Ensemble struct {
	chains []Sampler
	hist   []*History
	pooled *Moments
	burnin int
	thin   int
	t      int // transitions per chain
	diag   Diagnoser
	runs   [][]float64 // the runs being summarised
}

// NewEnsemble drives the given chains (1..MaxChains, all of the same
// dimension) with burnin ≥ 0 discarded transitions and keeping every
// thin-th (≥ 1) state after them.
func NewEnsemble(chains []Sampler, burnin, thin int) (*Ensemble, error) {
	if len(chains) < 1 || len(chains) > MaxChains {
		return nil, algo.BadParam("chains", len(chains), fmt.Sprintf("an integer in 1..%d", MaxChains))
	}
	if burnin < 0 {
		return nil, algo.BadParam("burnin", burnin, "an integer ≥ 0")
	}
	if thin < 1 {
		return nil, algo.BadParam("thin", thin, "an integer ≥ 1")
	}
	d := len(chains[0].X())
	e := &Ensemble{chains: chains, burnin: burnin, thin: thin, pooled: NewMoments(d), runs: make([][]float64, len(chains))}
	for _, c := range chains {
		if len(c.X()) != d {
			return nil, algo.BadParam("chains", len(chains), "chains of one dimension")
		}
		e.hist = append(e.hist, NewHistory(d))
	}
	return e, nil
}

// Step makes one transition of every chain and keeps their states when
// past the burn-in and on the thinning grid. An error from a chain (a
// divergence) is returned wrapped with the chain's number.
func (e *Ensemble) Step() error {
	for c, s := range e.chains {
		if err := s.Step(); err != nil {
			return fmt.Errorf("chain %d: %w", c+1, err)
		}
	}
	e.t++
	if e.t > e.burnin && (e.t-e.burnin)%e.thin == 0 {
		for c, s := range e.chains {
			x := s.X()
			e.hist[c].Add(x)
			e.pooled.Add(x)
		}
	}
	return nil
}

// Transitions is the number of transitions made by each chain.
func (e *Ensemble) Transitions() int { return e.t }

// BurnIn and Thin are the settings.
func (e *Ensemble) BurnIn() int { return e.burnin }
func (e *Ensemble) Thin() int   { return e.thin }

// Chains is the number of chains; Chain(c) is chain c.
func (e *Ensemble) Chains() int            { return len(e.chains) }
func (e *Ensemble) Chain(c int) Sampler    { return e.chains[c] }
func (e *Ensemble) History(c int) *History { return e.hist[c] }

// Dim is the dimension of the states.
func (e *Ensemble) Dim() int { return e.pooled.Dim() }

// Kept is the number of samples kept per chain; Samples the total.
func (e *Ensemble) Kept() int    { return e.hist[0].N() }
func (e *Ensemble) Samples() int { return e.pooled.N() }

// Moments are the pooled running moments of every kept sample (do not
// modify).
func (e *Ensemble) Moments() *Moments { return e.pooled }

// Acceptance is chain c's acceptance rate over all its transitions, burn-in
// included (0 before the first).
func (e *Ensemble) Acceptance(c int) float64 {
	s := e.chains[c]
	if s.Steps() == 0 {
		return 0
	}
	return float64(s.Accepted()) / float64(s.Steps())
}

// AcceptanceAll is the acceptance rate over every chain's transitions.
func (e *Ensemble) AcceptanceAll() float64 { return pooledAcceptance(e.chains) }

// Summarise computes the convergence diagnostics of coordinate i over the
// chains' kept runs (Summary: rank-normalised split R̂, bulk- and tail-ESS,
// MCSE), into sum. The runs are the whole chains after burn-in, thinned by
// History.Stride() past HistoryCap samples. It needs at least 4 kept
// samples per chain (else an error) and allocates only when the runs have
// grown past every earlier call's.
func (e *Ensemble) Summarise(i int, sum *Summary) error {
	for c := range e.chains {
		e.runs[c] = e.hist[c].Run(i)
	}
	return e.diag.Summarise(sum, e.runs)
}

// DispersedStarts returns starting points for chains: chain 0 at x0 and
// every other chain at an exact draw z of the target pushed away from the
// mean, μ + f(z − μ) with f = 2, or less when that would leave the target's
// Bounds box: starts overdispersed relative to the target, as split R̂
// assumes (BDA3 §11.4).
// rng is used for the draws only.
func DispersedStarts(t target.Target, x0 []float64, chains int, rng *rand.Rand) [][]float64 {
	starts := [][]float64{append([]float64(nil), x0...)}
	dr, ok := t.(target.Drawer)
	mu := t.Mean()
	lo, hi := t.Bounds()
	for c := 1; c < chains; c++ {
		z := make([]float64, t.Dim())
		if ok {
			dr.Draw(z, rng)
		} else {
			for i := range z {
				z[i] = lo[i] + (hi[i]-lo[i])*rng.Float64()
			}
		}
		// The largest factor f ≤ 2 that keeps μ + f(z − μ) in the box.
		f := 2.0
		for i := range z {
			switch dz := z[i] - mu[i]; {
			case dz > 0:
				f = math.Min(f, (hi[i]-mu[i])/dz)
			case dz < 0:
				f = math.Min(f, (lo[i]-mu[i])/dz)
			}
		}
		f = math.Max(f, 0)
		for i := range z {
			z[i] = math.Min(math.Max(mu[i]+f*(z[i]-mu[i]), lo[i]), hi[i])
		}
		starts = append(starts, z)
	}
	return starts
}
