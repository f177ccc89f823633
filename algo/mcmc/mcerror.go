package mcmc

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/par"
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
	// repBlock is the number of replicates one goroutine steps at a time:
	// about 5 µs of work (a draw and a Metropolis step are ≈ 80 ns), well
	// above the ≈ 0.6 µs a fork-join costs.
	repBlock = 64
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
// not allocate (except for the recorded checkpoints and the goroutines).
//
// Seeds: the rng given to NewMCError seeds one PCG stream per replicate
// (two draws), which makes that replicate's starting point, independent
// draws and chain, so that the replicates are independent computations:
// Step runs blocks of repBlock replicates on SetWorkers goroutines, each
// block's sums of f and f² in its own slot, reduced in block order — the
// same numbers on one core or many (package algo/par).
type MCError struct {
	tgt     target.Target
	draw    target.Drawer
	stat    Statistic
	truth   float64
	sigma2  float64      // Var_p f when known exactly, else 0 (estimated)
	rngs    []*rand.Rand // per replicate
	xs      []float64    // per replicate, the independent draw (Dim each)
	chains  []*Metropolis
	sumI    []float64 // per replicate: Σ f over the independent draws
	sumM    []float64 // per replicate: Σ f along the chain
	s       int
	n       int          // pooled independent draws
	m1, m2  float64      // pooled Σf and Σf² of the independent draws
	blockM  [][2]float64 // per block of replicates: this step's Σf, Σf²
	loop    par.Loop
	workers int
	stepFn  func(block int) // e.stepBlock, made once
	fs      []float64       // f along chain 1, its first tauWindow states
	ac      Autocorr
	checks  []int
	rmseI   []float64
	rmseM   []float64
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
	d := tgt.Dim()
	e := &MCError{tgt: tgt, draw: dr, stat: stat, xs: make([]float64, replicates*d),
		sumI: make([]float64, replicates), sumM: make([]float64, replicates), fs: make([]float64, 0, tauWindow),
		blockM: make([][2]float64, par.Blocks(replicates, repBlock)), workers: 1}
	e.stepFn = e.stepBlock
	e.ac.reserve(tauWindow)
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
		r := rand.New(rand.NewPCG(rng.Uint64(), rng.Uint64()))
		x0 := make([]float64, d)
		dr.Draw(x0, r)
		m, err := NewMetropolis(tgt, x0, step, r)
		if err != nil {
			return nil, err
		}
		e.chains = append(e.chains, m)
		e.rngs = append(e.rngs, r)
	}
	return e, nil
}

// MCErrorBytes is what an MCError of R replicates in dimension d holds at
// its largest: per replicate its random source, chain and sums (about 200
// bytes, measured, besides 3d floats), the window of f for τ̂ and its
// Autocorr (reserved by NewMCError, so held from the start), and the
// checkpoints: ten a decade of S, 90 up to S = 10¹⁰.
func MCErrorBytes(replicates, d int) int64 {
	return int64(replicates)*(200+3*8*int64(d)) + 8*tauWindow + autocorrBytes(tauWindow) + 90*3*8*2 + 1<<10
}

// SetWorkers sets the number of goroutines of a Step: 1 (the default) the
// caller's only, 0 GOMAXPROCS. The results do not depend on it.
func (e *MCError) SetWorkers(w int) { e.workers = w }

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
	e.loop.Run(e.workers, len(e.blockM), e.stepFn)
	for _, b := range e.blockM {
		e.m1 += b[0]
		e.m2 += b[1]
	}
	e.n += len(e.sumI)
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

// stepBlock adds one sample of each kind to the replicates of block b and
// writes the block's Σf and Σf² of its independent draws to its slot.
func (e *MCError) stepBlock(b int) {
	d := e.tgt.Dim()
	var m1, m2 float64
	for r := b * repBlock; r < min((b+1)*repBlock, len(e.sumI)); r++ {
		x := e.xs[r*d : (r+1)*d]
		e.draw.Draw(x, e.rngs[r])
		v := e.f(x)
		e.sumI[r] += v
		m1 += v
		m2 += v * v
		e.chains[r].Step()
		e.sumM[r] += e.f(e.chains[r].X())
	}
	e.blockM[b] = [2]float64{m1, m2}
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
// states), or 1 before there are enough (TauEstimated).
func (e *MCError) Tau() float64 {
	if !e.TauEstimated() {
		return 1
	}
	return e.ac.IAT(e.fs)
}

// TauEstimated reports whether chain 1 has the minTauStates states Tau
// estimates τ from.
func (e *MCError) TauEstimated() bool { return len(e.fs) >= minTauStates }

// minTauStates is the fewest states of f τ̂ is estimated from.
const minTauStates = 20

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
