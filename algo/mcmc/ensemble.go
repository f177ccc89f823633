package mcmc

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/par"
	"github.com/thelab/lab/algo/target"
)

// MaxChains is the largest number of chains an Ensemble runs.
const MaxChains = 16

// parEvals is the number of density or gradient evaluations (Σ over the
// chains of Costly.Evals) from which one Step of an Ensemble runs its
// chains on several goroutines: about 3 µs of work at ≈ 50 ns an
// evaluation, where a fork-join costs ≈ 0.6 µs. Below it, and for one
// chain, the chains step on the caller's goroutine.
const parEvals = 64

// Costly is a Sampler that says how many evaluations of the log-density
// or its gradient one transition makes (HMC: its leapfrog steps); an
// Ensemble decides from it whether its chains are worth running in
// parallel. A Sampler that is not Costly counts one.
type Costly interface {
	Evals() int
}

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
// One Step is one transition of every chain. Step does not allocate
// (except for the goroutines of a parallel step).
//
// The chains are independent computations, each with its own random
// source: with SetWorkers ≠ 1 and enough work per step (parEvals), a Step
// runs them on several goroutines, a run of consecutive chains each
// (package algo/par), and every number is the same as on one goroutine.
type Ensemble struct {
	chains []Sampler
	errs   []error // per chain, the error of its last transition
	loop   par.Loop
	// blocks is the number of runs of consecutive chains a Step shares
	// out: SetWorkers' count (at most one a chain), or 1 when the chains'
	// work per step is below parEvals. Consecutive chains, not one chain a
	// block, so that chains whose states were allocated side by side do
	// not write to one cache line from two cores.
	blocks int
	evals  int             // Σ of the chains' Evals
	stepFn func(block int) // e.stepBlock, made once
	hist   []*History      // nil for NewMomentEnsemble's
	pooled *Moments        // of every chain's kept states; one chain's History's own
	kept   int             // states kept per chain
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
	return newEnsemble(chains, burnin, thin, true)
}

// NewMomentEnsemble is NewEnsemble keeping the pooled moments of the kept
// states only, no History (a chain's is 0.5 MiB a coordinate): for chains
// whose means and covariance are all that is read (History, Summarise and
// ReserveDiagnostics are not for it).
func NewMomentEnsemble(chains []Sampler, burnin, thin int) (*Ensemble, error) {
	return newEnsemble(chains, burnin, thin, false)
}

func newEnsemble(chains []Sampler, burnin, thin int, histories bool) (*Ensemble, error) {
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
	e := &Ensemble{chains: chains, burnin: burnin, thin: thin, runs: make([][]float64, len(chains)),
		errs: make([]error, len(chains)), blocks: 1}
	e.stepFn = e.stepBlock
	for _, c := range chains {
		if len(c.X()) != d {
			return nil, algo.BadParam("chains", len(chains), "chains of one dimension")
		}
		if histories {
			e.hist = append(e.hist, NewHistory(d))
		}
		if k, ok := c.(Costly); ok {
			e.evals += k.Evals()
		} else {
			e.evals++
		}
	}
	if histories && len(chains) == 1 {
		e.pooled = e.hist[0].Moments() // the same sums, accumulated once
	} else {
		e.pooled = NewMoments(d)
	}
	return e, nil
}

// SetWorkers sets the number of goroutines a Step may run the chains on:
// 1 (the default) the caller's only, 0 GOMAXPROCS. It takes effect only
// when the chains' work per step pays for the goroutines (parEvals). The
// results do not depend on it.
func (e *Ensemble) SetWorkers(w int) {
	e.blocks = 1
	if e.evals >= parEvals {
		e.blocks = min(par.Workers(w), len(e.chains))
	}
}

// Step makes one transition of every chain and keeps their states when
// past the burn-in and on the thinning grid. An error from a chain (a
// divergence) is returned wrapped with the chain's number, that of the
// first chain to fail when several do; every chain has made its
// transition all the same.
func (e *Ensemble) Step() error {
	e.loop.Run(e.blocks, e.blocks, e.stepFn)
	for c, err := range e.errs {
		if err != nil {
			return fmt.Errorf("chain %d: %w", c+1, err)
		}
	}
	e.t++
	if e.t > e.burnin && (e.t-e.burnin)%e.thin == 0 {
		e.kept++
		for c, s := range e.chains {
			x := s.X()
			if e.hist != nil {
				e.hist[c].Add(x)
			}
			if e.hist == nil || len(e.chains) > 1 {
				e.pooled.Add(x)
			}
		}
	}
	return nil
}

// stepBlock makes one transition of each chain of block b, the b-th of
// e.blocks runs of consecutive chains.
func (e *Ensemble) stepBlock(b int) {
	n := len(e.chains)
	for c := b * n / e.blocks; c < (b+1)*n/e.blocks; c++ {
		e.errs[c] = e.chains[c].Step()
	}
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
func (e *Ensemble) Kept() int    { return e.kept }
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

// ReserveDiagnostics makes, now, all the room that Summarise and the
// Histories' ACF will use on the longest runs the Histories keep
// (HistoryCap draws a chain, WindowLen in the window): an ensemble that is
// diagnosed holds from its start what it holds at its largest, so that
// what it is charged before a run (DiagnosticsBytes) is what it holds,
// and neither allocates afterwards.
func (e *Ensemble) ReserveDiagnostics() {
	e.diag.Reserve(len(e.chains), HistoryCap)
	for _, h := range e.hist {
		h.reserveACF()
	}
}

// EnsembleBytes is what NewEnsemble allocates for m chains of dimension d
// (their Samplers aside): a History a chain and the pooled moments.
func EnsembleBytes(m, d int) int64 {
	return int64(m)*historyBytes(d) + MomentEnsembleBytes(m, d)
}

// MomentEnsembleBytes is what NewMomentEnsemble allocates for m chains of
// dimension d (their Samplers aside): the pooled moments.
func MomentEnsembleBytes(m, d int) int64 {
	return 64*int64(m) + momentsBytes(d) + 512
}

// DiagnosticsBytes is what ReserveDiagnostics adds to an Ensemble of m
// chains: the Diagnoser of m runs of HistoryCap draws and an ACF's
// Autocorr of the window a chain.
func DiagnosticsBytes(m int) int64 {
	return diagnoserBytes(m, HistoryCap) + int64(m)*autocorrBytes(WindowLen)
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
