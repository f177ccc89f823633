package mcmc

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/target"
)

// Statistic is the function f whose expectation E_p[f(z)] an MCError run
// estimates; it reads the first coordinate z₁.
type Statistic string

const (
	StatMean        Statistic = "x"     // f(z) = z₁
	StatSquare      Statistic = "x2"    // f(z) = z₁²
	StatTail        Statistic = "x>0"   // f(z) = 1{z₁ > 0}
	statMaxRep                = 5000    // the largest number of replicates
	firstCheck                = 10      // the first checkpoint S
	checksPerDecade           = 10      // checkpoints per factor of ten in S
	tauWindow                 = 1 << 14 // f-values of chain 1 kept for τ̂
)

// String is the statistic's name.
func (s Statistic) String() string { return string(s) }

// MCError measures the error of Monte Carlo estimation against the number
// of samples S (seed 002 §3.2, L1030–1038; catalogue C3). R independent
// replicates each estimate E_p[f(z)] by the running average of S samples,
//
//	f̂_S = (1/S) Σ_{s=1}^S f(z^(s)),
//
// twice: from independent exact draws z^(s) ~ p, and from a random-walk
// Metropolis chain started at an exact draw (so stationary from its first
// state, with no burn-in to discard). The root-mean-square error over the
// replicates, √(mean_r (f̂_S − E_p f)²), is recorded at S = 10, 13, 16, 20,
// ... (ten checkpoints per decade). For independent draws it is σ_f/√S, the
// notes' "decreases at a rate 1/√S" (L1038); for the chain it is about
// σ_f √(τ/S), τ the integrated autocorrelation time of f along the chain:
// the same slope −½ on a log-log chart, shifted up by ½ log τ — a chain of S
// states is worth ESS = S/τ independent draws (L1161).
//
// One Step draws one more sample in every replicate of both kinds. It does
// not allocate (except for the recorded checkpoints).
type MCError struct {
	tgt    target.Target
	draw   target.Drawer
	stat   Statistic
	truth  float64
	sigma2 float64 // Var_p f when known exactly, else 0 (estimated)
	rng    *rand.Rand
	x      []float64
	chains []*Metropolis
	sumI   []float64 // per replicate: Σ f over the independent draws
	sumM   []float64 // per replicate: Σ f along the chain
	s      int
	n      int       // pooled independent draws
	m1, m2 float64   // pooled Σf and Σf² of the independent draws
	fs     []float64 // f along chain 1, its first tauWindow states
	ac     Autocorr
	checks []int
	rmseI  []float64
	rmseM  []float64
}

// NewMCError sets up `replicates` (2..5000) replicates estimating E[stat]
// under tgt, which must draw exactly (target.Drawer); the chains are
// random-walk Metropolis with proposal scale step.
func NewMCError(tgt target.Target, stat Statistic, replicates int, step float64, rng *rand.Rand) (*MCError, error) {
	if tgt == nil {
		return nil, algo.BadParam("target", nil, "a target")
	}
	dr, ok := tgt.(target.Drawer)
	if !ok {
		return nil, algo.BadParam("target", tgt.Name(), "a target that can be sampled exactly")
	}
	if replicates < 2 || replicates > statMaxRep {
		return nil, algo.BadParam("replicates", replicates, fmt.Sprintf("an integer in 2..%d", statMaxRep))
	}
	if err := checkStep("step", step); err != nil {
		return nil, err
	}
	if rng == nil {
		return nil, algo.BadParam("rng", nil, "a random source")
	}
	mu, cov := tgt.Mean()[0], tgt.Cov()[0][0]
	e := &MCError{tgt: tgt, draw: dr, stat: stat, rng: rng, x: make([]float64, tgt.Dim()),
		sumI: make([]float64, replicates), sumM: make([]float64, replicates), fs: make([]float64, 0, tauWindow)}
	switch stat {
	case StatMean:
		e.truth, e.sigma2 = mu, cov
	case StatSquare:
		e.truth = cov + mu*mu // Var_p(z₁²) needs the fourth moment: estimated
	case StatTail:
		if mu != 0 {
			return nil, algo.BadParam("f", stat, "x or x2 (P(x > 0) is known for the centred targets only)")
		}
		// Every preset is symmetric under z₁ → −z₁, so P(z₁ > 0) = ½.
		e.truth, e.sigma2 = 0.5, 0.25
	default:
		return nil, algo.BadParam("f", stat, "one of x, x2, x>0")
	}
	for range replicates {
		x0 := make([]float64, tgt.Dim())
		dr.Draw(x0, rng)
		m, err := NewMetropolis(tgt, x0, step, rng)
		if err != nil {
			return nil, err
		}
		e.chains = append(e.chains, m)
	}
	return e, nil
}

// f is the statistic at z.
func (e *MCError) f(z []float64) float64 {
	switch e.stat {
	case StatSquare:
		return z[0] * z[0]
	case StatTail:
		if z[0] > 0 {
			return 1
		}
		return 0
	}
	return z[0]
}

// checkpoint returns the k-th checkpoint S_k = round(10^{1 + k/10}).
func checkpoint(k int) int {
	return int(math.Round(firstCheck * math.Pow(10, float64(k)/checksPerDecade)))
}

// Step adds one sample to every replicate, and records the RMSEs when S
// reaches the next checkpoint.
func (e *MCError) Step() error {
	e.s++
	for r := range e.sumI {
		e.draw.Draw(e.x, e.rng)
		v := e.f(e.x)
		e.sumI[r] += v
		e.m1 += v
		e.m2 += v * v
		e.n++
		e.chains[r].Step()
		e.sumM[r] += e.f(e.chains[r].X())
	}
	if len(e.fs) < tauWindow {
		e.fs = append(e.fs, e.f(e.chains[0].X()))
	}
	if checkpoint(len(e.checks)) == e.s { // the checkpoints increase by ≥ 2
		e.checks = append(e.checks, e.s)
		e.rmseI = append(e.rmseI, e.rmse(e.sumI))
		e.rmseM = append(e.rmseM, e.rmse(e.sumM))
	}
	return nil
}

func (e *MCError) rmse(sums []float64) float64 {
	ss := 0.0
	for _, s := range sums {
		d := s/float64(e.s) - e.truth
		ss += d * d
	}
	return math.Sqrt(ss / float64(len(sums)))
}

// S is the number of samples per replicate so far.
func (e *MCError) S() int { return e.s }

// Statistic is f.
func (e *MCError) Statistic() Statistic { return e.stat }

// Truth is E_p[f].
func (e *MCError) Truth() float64 { return e.truth }

// SigmaF is the standard deviation of f under p: exact for x and x>0, the
// pooled sample estimate over every independent draw for x².
func (e *MCError) SigmaF() float64 {
	if e.sigma2 > 0 || e.stat != StatSquare {
		return math.Sqrt(e.sigma2)
	}
	if e.n < 2 {
		return 0
	}
	m := e.m1 / float64(e.n)
	return math.Sqrt(math.Max(e.m2/float64(e.n)-m*m, 0) * float64(e.n) / float64(e.n-1))
}

// Tau is τ̂ of f along chain 1 (Geyer's estimator on its first 16384
// states), or 1 before there are enough.
func (e *MCError) Tau() float64 {
	if len(e.fs) < 20 {
		return 1
	}
	return e.ac.IAT(e.fs)
}

// Estimate is replicate r's current independent-draw estimate f̂_S.
func (e *MCError) Estimate(r int) float64 {
	if e.s == 0 {
		return 0
	}
	return e.sumI[r] / float64(e.s)
}

// Estimates appends every replicate's independent-draw estimate to dst.
func (e *MCError) Estimates(dst []float64) []float64 {
	for r := range e.sumI {
		dst = append(dst, e.Estimate(r))
	}
	return dst
}

// Replicates is R.
func (e *MCError) Replicates() int { return len(e.sumI) }

// Acceptance is the chains' pooled acceptance rate.
func (e *MCError) Acceptance() float64 { return pooledAcceptance(e.chains) }

// Checkpoints returns the checkpoints reached, S_k = round(10^{1+k/10}),
// and the RMSE there of the independent and of the chain estimates. The
// slices are views: do not modify.
func (e *MCError) Checkpoints() (s []int, iid, chain []float64) { return e.checks, e.rmseI, e.rmseM }

// Slope fits log RMSE = a + b log S by least squares over the checkpoints
// with S ≥ from, for the independent (chain = false) or the chain
// estimates, and returns b (NaN with fewer than three points). The notes'
// rate 1/√S is b = −½.
func (e *MCError) Slope(from int, chain bool) float64 {
	ys := e.rmseI
	if chain {
		ys = e.rmseM
	}
	var n, sx, sy, sxx, sxy float64
	for k, s := range e.checks {
		if s < from || !(ys[k] > 0) {
			continue
		}
		x, y := math.Log(float64(s)), math.Log(ys[k])
		n++
		sx += x
		sy += y
		sxx += x * x
		sxy += x * y
	}
	if n < 3 {
		return math.NaN()
	}
	return (n*sxy - sx*sy) / (n*sxx - sx*sx)
}
