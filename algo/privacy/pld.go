package privacy

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/dsp/fourier"

	"github.com/thelab/lab/algo"
)

// PLD is the numerical accountant of the Poisson-subsampled Gaussian
// mechanism (the PRV accountant of Gopi, Lee & Wutschitz 2021, the FFT
// accountant of Koskela, Jälkö & Honkela 2020): the privacy loss random
// variable of one step is discretised on a grid, T steps are composed by
// raising its characteristic function (a real FFT) to the power T, and
//
//	δ(ε) = E[(1 − e^{ε−L})₊],  L the composed loss,
//
// is inverted for ε(δ). Its answer is a bracket that contains the exact
// ε(δ), the error stated by the bracket's width.
//
// Adjacency is remove/add, as Opacus and Google's dp_accounting use: D′ is
// D with one example more or less. A step's outputs are μ₀ = N(0, σ²)
// without the example and μ = (1 − q)N(0, σ²) + qN(1, σ²) with it (the
// example is sampled with probability q and moves the clipped sum by 1),
// so both orders of the pair are neighbours: δ(ε) is the larger of the
// hockey-stick divergences H_{e^ε}(μ^T‖μ₀^T) and H_{e^ε}(μ₀^T‖μ^T), each
// composed on its own (dp_accounting's ADD_OR_REMOVE_ONE relation; Opacus's
// PRV accountant composes the first, (μ‖μ₀), alone). Their losses are
// L = log((1 − q) + q e^{(2X−1)/(2σ²)}) with X ∼ μ, and minus the same
// function of X ∼ μ₀.
//
// The error (the argument of Gopi et al.'s error bound, with the
// truncation handled as below): the loss of one step is rounded to its two
// neighbouring grid points x_k = kh with the probabilities that keep its
// mean (each grid point gets E[(1 − |L − x_k|/h)₊]), so the T rounding
// errors are independent, of mean zero and of range h, and by Hoeffding
// their sum exceeds η = h√(T log(1/τ)/2) with probability at most τ. The
// mass of one step's loss outside the grid (below tailOne in all T
// steps), the mass of the composed sum outside the FFT's window (bounded by
// Chernoff with the RDP of the mechanism, E_μ₀[(μ/μ₀)^α] = e^{(α−1)ρ(α)};
// on the side where the loss has the trivial bound log(1 − q) or
// −log(1 − q), the tighter of that and Chernoff by Mironov, Talwar &
// Zhang's (2019, §3.3) E_μ[(μ₀/μ)^α] ≤ E_μ₀[(μ/μ₀)^α]) and τ add to δ.
// Then, with δ̃ from the discretised composition,
//
//	ε̃(δ + κ) − η ≤ ε(δ) ≤ ε̃(δ − κ′) + η,
//
// κ and κ′ the masses that may be misplaced; τ = δ/1000. The rounding of
// floating point (the FFT's, amplified T times by the power) is not in the
// bound (the negative values the FFT leaves, set to 0, add up to about
// 1e-13 on the grids of the tests).
//
// The grid is fixed by NewPLD for a run of up to maxSteps steps, and the
// PLD keeps the two spectra and its buffers: about pldBytesPer bytes a
// point of its FFT length (Len). A query composes the two directions
// again (two inverse FFTs: a few milliseconds at the lengths of a short
// run) and allocates nothing.
type PLD struct {
	q, sigma, l1q float64
	h             float64
	maxSteps      int
	dirs          [2]pldDir
	fft           *fourier.FFT
	coef          []complex128
	seq           []float64
	rho           []float64 // chernoff's ρ(α) at α = 1 + chernoffLambda[i]
	rhoInt        []float64 // ρ(α) at α = 2 … maxLambda+1 (index α − 2)
}

type pldDir struct {
	o  int64 // grid index of the one-step pmf's first point: x = (o + k)h
	n1 int   // its points
	// its real FFT in polar form, log|ϕ_k| and arg ϕ_k: the power ϕ_k^T is
	// e^{T log|ϕ_k|} e^{iT arg ϕ_k}
	logr, arg []float64
	tail      float64 // one step's mass outside the grid
	// trivial bounds of one step's loss, ±Inf when it has none: L ≥ log(1−q)
	// for (μ‖μ₀), L ≤ −log(1−q) for (μ₀‖μ)
	lo, hi float64
}

// Bracket is an interval [Lo, Hi] that contains an exact value.
type Bracket struct{ Lo, Hi float64 }

// Width is Hi − Lo: the stated error.
func (b Bracket) Width() float64 { return b.Hi - b.Lo }

const (
	// PLDMaxLen bounds the FFT length of a PLD: a PLD holds at most
	// PLDMaxLen·pldBytesPer bytes, and a query costs two inverse real FFTs
	// of this length. A run whose requested precision needs more gets a
	// coarser grid and a wider bracket.
	PLDMaxLen = 1 << 17
	// pldBytesPer is the bytes a PLD holds per point of its FFT: two
	// half spectra in polar form (16 B a point together), a coefficient
	// and a sequence buffer (8 + 8) and the FFT's work (24).
	pldBytesPer = 56
	// tailOne is the mass of one step's loss left outside its grid, over
	// the whole run (divided by maxSteps per step).
	tailOne = 1e-16
	// windowTail bounds the mass of the composed loss outside the FFT's
	// window, on each side.
	windowTail = 1e-15
	// maxLambda is the largest integer λ of the Chernoff bounds.
	maxLambda = 256
	// nominalTau is the Hoeffding tail at which NewPLD's eta is met.
	nominalTau = 1e-8
)

// chernoffLambda are the fractional λ of the right tail's Chernoff bound
// (long runs, where the best λ is below 1).
var chernoffLambda = [...]float64{0.0625, 0.125, 0.25, 0.5}

// NewPLD discretises one step of the sampled Gaussian mechanism (rate q in
// (0, 1], noise multiplier sigma > 0) for compositions of up to maxSteps
// steps, on a grid fine enough for the Hoeffding term η to be eta at
// maxSteps (at the nominal tail τ = 1e-8) unless that needs an FFT longer
// than PLDMaxLen: then the grid is as fine as PLDMaxLen allows.
func NewPLD(q, sigma float64, maxSteps int, eta float64) (*PLD, error) {
	if !(q > 0 && q <= 1) {
		return nil, algo.BadParam("q", q, "in (0, 1]")
	}
	if !(sigma > 0) || math.IsInf(sigma, 0) {
		return nil, algo.BadParam("sigma", sigma, "finite and > 0")
	}
	if maxSteps < 1 {
		return nil, algo.BadParam("maxSteps", maxSteps, "≥ 1")
	}
	if !(eta > 0) || math.IsInf(eta, 0) {
		return nil, algo.BadParam("eta", eta, "finite and > 0")
	}
	p := &PLD{q: q, sigma: sigma, l1q: math.Log1p(-q), maxSteps: maxSteps}
	p.chernoffTable()
	n, h := p.plan(eta)
	p.h = h
	p.fft = fourier.NewFFT(n)
	p.coef = make([]complex128, n/2+1)
	p.seq = make([]float64, n)
	for d := range p.dirs {
		p.discretise(d)
	}
	return p, nil
}

// PLDLen is the FFT length NewPLD(q, sigma, maxSteps, eta) chooses,
// without building it (for size estimates); 0 for invalid arguments.
func PLDLen(q, sigma float64, maxSteps int, eta float64) int {
	if !(q > 0 && q <= 1) || !(sigma > 0) || math.IsInf(sigma, 0) || maxSteps < 1 || !(eta > 0) {
		return 0
	}
	p := &PLD{q: q, sigma: sigma, l1q: math.Log1p(-q), maxSteps: maxSteps}
	p.chernoffTable()
	n, _ := p.plan(eta)
	return n
}

// Len is the FFT length; H the grid's spacing.
func (p *PLD) Len() int { return len(p.seq) }

// H is the grid's spacing h.
func (p *PLD) H() float64 { return p.h }

// MaxSteps is the longest composition the grid was sized for; longer ones
// are answered with the window's mass outside counted in the bracket.
func (p *PLD) MaxSteps() int { return p.maxSteps }

func (p *PLD) chernoffTable() {
	p.rho = make([]float64, len(chernoffLambda))
	for i, l := range chernoffLambda {
		p.rho[i] = SubsampledGaussianRDP(p.q, p.sigma, 1+l)
	}
	p.rhoInt = make([]float64, maxLambda)
	for a := 2; a <= maxLambda+1; a++ {
		p.rhoInt[a-2] = SubsampledGaussianRDP(p.q, p.sigma, float64(a))
	}
}

// logMGF bounds log E e^{λL} of one step's discretised loss (sub-
// probability, rounded by the hat weights: Hoeffding's lemma adds
// λ²h²/8) for λ = lam > 0 (right) and λ = −lam (left, lam ≥ 1 integer).
func (p *PLD) logMGFRight(i int, h float64) (lam, k float64) {
	if i < len(chernoffLambda) {
		lam = chernoffLambda[i]
		return lam, lam*p.rho[i] + lam*lam*h*h/8
	}
	lam = float64(i - len(chernoffLambda) + 1)
	return lam, lam*p.rhoInt[int(lam)-1] + lam*lam*h*h/8
}

func (p *PLD) logMGFLeft(lam int, h float64) float64 {
	l := float64(lam)
	k := l * l * h * h / 8
	if lam >= 2 {
		k += (l - 1) * p.rhoInt[lam-2]
	}
	return k
}

const nRight = len(chernoffLambda) + maxLambda

// edges are the ends [a, b] of the window that holds all but windowTail
// of the composed loss on each side after s steps (at grid h).
func (p *PLD) edges(d pldDir, s int, h float64) (a, b float64) {
	fs := float64(s)
	lt := math.Log(windowTail)
	b = math.Inf(1)
	for i := range nRight {
		lam, k := p.logMGFRight(i, h)
		b = math.Min(b, (fs*k-lt)/lam)
	}
	a = math.Inf(-1)
	for lam := 1; lam <= maxLambda; lam++ {
		a = math.Max(a, -(fs*p.logMGFLeft(lam, h)-lt)/float64(lam))
	}
	lo, hi := d.support(s, h)
	return math.Max(a, lo), math.Min(b, hi)
}

// support is where the discretised loss composed s times lies for sure:
// s times one step's trivial bounds rounded out to the grid.
func (d pldDir) support(s int, h float64) (lo, hi float64) {
	fs := float64(s)
	return fs * math.Floor(d.lo/h) * h, fs * math.Ceil(d.hi/h) * h
}

// outside bounds the composed loss's mass below a and at or above b.
func (p *PLD) outside(d pldDir, s int, a, b float64) float64 {
	fs := float64(s)
	right, left := math.Inf(-1), math.Inf(-1)
	lo, hi := d.support(s, p.h)
	if b <= hi {
		right = math.Inf(1)
		for i := range nRight {
			lam, k := p.logMGFRight(i, p.h)
			right = math.Min(right, fs*k-lam*b)
		}
	}
	if a > lo {
		left = math.Inf(1)
		for lam := 1; lam <= maxLambda; lam++ {
			left = math.Min(left, fs*p.logMGFLeft(lam, p.h)+float64(lam)*a)
		}
	}
	return math.Exp(right) + math.Exp(left)
}

// oneStep is the range [lo, hi] of one step's loss in direction d outside
// which its mass is below tailOne/maxSteps.
func (p *PLD) oneStep(d int) (lo, hi float64) {
	tau := tailOne / float64(p.maxSteps) / 2
	z := normalUpper(tau) // Φ̄(z) = τ
	s := p.sigma
	if d == 0 { // X ∼ μ: L = g(X) increasing in X
		lo = p.g(1 - s*z)
		if p.q < 1 {
			lo = p.l1q
		}
		return lo, p.g(1 + s*z)
	}
	// X ∼ μ₀: L = −g(X)
	hi = -p.g(-s * z)
	if p.q < 1 {
		hi = -p.l1q
	}
	return -p.g(s * z), hi
}

// plan chooses the grid and the FFT length.
func (p *PLD) plan(eta float64) (n int, h float64) {
	h = eta / math.Sqrt(float64(p.maxSteps)*math.Log(1/nominalTau)/2)
	for range 8 {
		need := 0
		for d := range p.dirs {
			lo, hi := p.oneStep(d)
			dir := pldDir{lo: math.Inf(-1), hi: math.Inf(1)}
			if p.q < 1 {
				if d == 0 {
					dir.lo = p.l1q
				} else {
					dir.hi = -p.l1q
				}
			}
			a, b := p.edges(dir, p.maxSteps, h)
			need = max(need, int(math.Ceil((hi-lo)/h))+2, int(math.Ceil((b-a)/h))+2)
		}
		if need <= PLDMaxLen {
			return smooth(need), h
		}
		h *= 1.05 * float64(need) / PLDMaxLen
	}
	return PLDMaxLen, h
}

// smooth is the smallest m ≥ n whose prime factors are 2, 3 and 5.
func smooth(n int) int {
	for m := max(n, 2); ; m++ {
		k := m
		for _, f := range []int{2, 3, 5} {
			for k%f == 0 {
				k /= f
			}
		}
		if k == 1 {
			return m
		}
	}
}

// g is the loss log((1 − q) + q e^{(2x−1)/(2σ²)}) at output x of μ.
func (p *PLD) g(x float64) float64 {
	u := (2*x - 1) / (2 * p.sigma * p.sigma)
	if p.q == 1 {
		return u
	}
	// log((1−q) + q e^u) = logAdd(log(1−q), log q + u)
	return logAdd(p.l1q, math.Log(p.q)+u)
}

// ginv is the x at which g(x) = u, for u > log(1 − q).
func (p *PLD) ginv(u float64) float64 {
	s2 := p.sigma * p.sigma
	if p.q == 1 {
		return s2*u + 0.5
	}
	var l float64 // log((e^u − (1−q))/q)
	if u >= 0 {
		l = u + math.Log1p(-(1-p.q)*math.Exp(-u)) - math.Log(p.q)
	} else {
		l = p.l1q + math.Log(math.Expm1(u-p.l1q)) - math.Log(p.q)
	}
	return s2*l + 0.5
}

// cdf is P(L ≤ t) and P(L > t) for one step's loss in direction d (0:
// (μ‖μ₀), 1: (μ₀‖μ)), each computed without cancellation.
func (p *PLD) cdf(d int, t float64) (f, s float64) {
	sg := p.sigma
	if d == 0 {
		if p.q < 1 && t <= p.l1q {
			return 0, 1
		}
		x := p.ginv(t)
		f = (1-p.q)*normalLower(x/sg) + p.q*normalLower((x-1)/sg)
		s = (1-p.q)*normalUpper1(x/sg) + p.q*normalUpper1((x-1)/sg)
		return f, s
	}
	if p.q < 1 && -t <= p.l1q {
		return 1, 0
	}
	x := p.ginv(-t)
	return normalUpper1(x / sg), normalLower(x / sg)
}

// discretise builds one step's pmf in direction d by the hat weights
// w_k = E[(1 − |L − x_k|/h)₊] on L's range (oneStep), as differences of
// the integrated distribution function (Simpson's rule on each cell), and
// keeps its FFT.
func (p *PLD) discretise(d int) {
	h := p.h
	lo, hi := p.oneStep(d)
	dir := &p.dirs[d]
	dir.lo, dir.hi = math.Inf(-1), math.Inf(1)
	if p.q < 1 {
		if d == 0 {
			dir.lo = p.l1q
		} else {
			dir.hi = -p.l1q
		}
	}
	dir.o = int64(math.Floor(lo / h))
	n1 := int(int64(math.Ceil(hi/h))-dir.o) + 1
	n1 = min(n1, len(p.seq))
	dir.n1 = n1
	w := p.seq
	clear(w)
	x := func(k int) float64 { return float64(dir.o+int64(k)) * h }
	// I_k = ∫_{x_k}^{x_{k+1}} F (left half) or J_k = ∫ S (right half); the
	// weight of x_k is (I_k − I_{k−1})/h = (J_{k−1} − J_k)/h.
	f0, s0 := p.cdf(d, x(0))
	prevF, prevS := f0, s0
	var prevI, prevJ float64
	for k := 0; k < n1-1; k++ {
		fm, sm := p.cdf(d, x(k)+h/2)
		f1, s1 := p.cdf(d, x(k+1))
		ik := h / 6 * (prevF + 4*fm + f1)
		jk := h / 6 * (prevS + 4*sm + s1)
		switch {
		case k == 0:
			if prevF < 0.5 {
				w[0] = ik/h - f0
			} else {
				w[0] = s0 - jk/h
			}
		case prevF < 0.5:
			w[k] = (ik - prevI) / h
		default:
			w[k] = (prevJ - jk) / h
		}
		prevI, prevJ, prevF, prevS = ik, jk, f1, s1
	}
	if n1 > 1 {
		if prevF < 0.5 {
			w[n1-1] = prevF - prevI/h
		} else {
			w[n1-1] = prevJ/h - prevS
		}
	} else {
		w[0] = 1 - f0 - s0
	}
	for k := range n1 {
		w[k] = max(w[k], 0)
	}
	dir.tail = f0 + prevS
	if n1 == 1 {
		dir.tail = f0 + s0
	}
	p.fft.Coefficients(p.coef, w)
	dir.logr, dir.arg = make([]float64, len(p.coef)), make([]float64, len(p.coef))
	for k, z := range p.coef {
		dir.logr[k] = math.Log(math.Hypot(real(z), imag(z)))
		dir.arg[k] = math.Atan2(imag(z), real(z))
	}
}

// compose leaves in p.seq the T = steps fold composition of direction d
// over the window [base·h, (base + Len)·h), sorted, and returns base and
// the mass that may lie outside (window and one-step truncation).
func (p *PLD) compose(d, steps int) (base int64, out, trunc float64) {
	dir := &p.dirs[d]
	n := len(p.seq)
	fs := float64(steps)
	ln := math.Log(float64(n))
	for k, lr := range dir.logr {
		e := fs*lr - ln
		if e < -745 { // e^e underflows (and log 0 = −Inf lands here)
			p.coef[k] = 0
			continue
		}
		m := math.Exp(e)
		sn, cs := math.Sincos(fs * dir.arg[k])
		p.coef[k] = complex(m*cs, m*sn)
	}
	p.fft.Sequence(p.seq, p.coef)
	a, b := p.edges(*dir, steps, p.h)
	// the window starts at a (rounded down to the grid) unless it then
	// ends before b; composed index m holds the value (m + T·o)h
	start := int64(math.Floor(a / p.h))
	if end := int64(math.Ceil(b/p.h)) + 1; end-start > int64(n) {
		start = end - int64(n) // longer than planned: keep the right end
	}
	mA := start - int64(steps)*dir.o
	r := int(((mA % int64(n)) + int64(n)) % int64(n))
	slices.Reverse(p.seq[:r])
	slices.Reverse(p.seq[r:])
	slices.Reverse(p.seq)
	for i, v := range p.seq {
		if v < 0 {
			p.seq[i] = 0
		}
	}
	out = p.outside(*dir, steps, float64(start)*p.h, float64(start+int64(n))*p.h)
	return start, out, fs * dir.tail
}

// scanner inverts δ̃(ε) = Σ_{x_i > ε} v_i (1 − e^{ε − x_i}) of the sorted
// window from its top: at cursor i, a = Σ_{j>i} v_j, e = Σ_{j>i} v_j
// e^{x_i − x_j} and δ̃(x_i) = a − e.
type scanner struct {
	v    []float64
	base int64
	h    float64
	i    int
	a, e float64
}

func (sc *scanner) reset() { sc.i, sc.a, sc.e = len(sc.v)-1, 0, 0 }

// eps is ε̃(d), the ε at which δ̃ falls to d, +Inf when d ≤ 0. When even
// the window's bottom x₀ has δ̃ < d, ε̃ lies below it: eps is then x₀ if
// upper, else −Inf (the bound each side can use).
func (sc *scanner) eps(d float64, upper bool) float64 {
	if d <= 0 {
		return math.Inf(1)
	}
	if sc.a-sc.e >= d { // the cursor has gone past: start again
		sc.reset()
	}
	eh := math.Exp(-sc.h)
	for sc.a-sc.e < d {
		if sc.i == 0 {
			if upper {
				return float64(sc.base) * sc.h
			}
			return math.Inf(-1)
		}
		vi := sc.v[sc.i]
		sc.i--
		sc.a += vi
		sc.e = (sc.e + vi) * eh
	}
	x := float64(sc.base+int64(sc.i)) * sc.h
	return x + math.Log((sc.a-d)/sc.e)
}

// delta is δ̃(eps).
func (sc *scanner) delta(eps float64) float64 {
	s := 0.0
	for i := len(sc.v) - 1; i >= 0; i-- {
		x := float64(sc.base+int64(i)) * sc.h
		if x <= eps {
			break
		}
		s += sc.v[i] * -math.Expm1(eps-x)
	}
	return s
}

// Epsilon is the bracket of ε(δ) after steps steps, for each δ of deltas
// (in (0, 1), increasing for speed), written to out. A bracket's Hi is +Inf
// when δ is too small for the discretisation's misplaced mass. Steps ≤ 0
// spend nothing: [0, 0].
func (p *PLD) Epsilon(steps int, deltas []float64, out []Bracket) {
	if steps <= 0 {
		clear(out)
		return
	}
	for i := range out {
		out[i] = Bracket{}
	}
	for d := range p.dirs {
		base, win, trunc := p.compose(d, steps)
		sc := scanner{v: p.seq, base: base, h: p.h}
		sc.reset()
		for i, delta := range deltas {
			tau := delta / 1000
			eta := p.h * math.Sqrt(float64(steps)*math.Log(1/tau)/2)
			hi := max(sc.eps(delta-win-trunc-tau, true)+eta, 0)
			out[i].Hi = math.Max(out[i].Hi, hi)
		}
		sc.reset()
		for i, delta := range deltas {
			tau := delta / 1000
			eta := p.h * math.Sqrt(float64(steps)*math.Log(1/tau)/2)
			lo := sc.eps(delta+win+tau, false) - eta
			if math.IsInf(lo, -1) || lo < 0 {
				lo = 0
			}
			out[i].Lo = math.Max(out[i].Lo, lo)
		}
	}
}

// Delta is the bracket of δ(eps) after steps steps, with the Hoeffding
// tail tau (traded against η: the ε shift it allows).
func (p *PLD) Delta(steps int, eps, tau float64) Bracket {
	if steps <= 0 {
		return Bracket{}
	}
	eta := p.h * math.Sqrt(float64(steps)*math.Log(1/tau)/2)
	var b Bracket
	for d := range p.dirs {
		base, win, trunc := p.compose(d, steps)
		sc := scanner{v: p.seq, base: base, h: p.h}
		b.Hi = math.Max(b.Hi, sc.delta(eps-eta)+win+trunc+tau)
		b.Lo = math.Max(b.Lo, sc.delta(eps+eta)-win-tau)
	}
	b.Hi = math.Min(b.Hi, 1)
	return b
}

// String describes the grid.
func (p *PLD) String() string {
	return fmt.Sprintf("PLD(q=%g, σ=%g): grid h=%.3g, FFT length %d, for %d steps", p.q, p.sigma, p.h, len(p.seq), p.maxSteps)
}

// normalUpper is the z with Φ̄(z) = tau (tau tiny), by bisection on the
// tail's logarithm.
func normalUpper(tau float64) float64 {
	lo, hi := 0.0, 40.0
	lt := math.Log(tau)
	for range 100 {
		mid := (lo + hi) / 2
		if math.Log(0.5)+logErfc(mid/math.Sqrt2) > lt {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}

// normalLower is Φ(z); normalUpper1 is Φ̄(z) = 1 − Φ(z).
func normalLower(z float64) float64  { return 0.5 * math.Erfc(-z/math.Sqrt2) }
func normalUpper1(z float64) float64 { return 0.5 * math.Erfc(z/math.Sqrt2) }

// PLDEpsilon is the bracket of ε(δ) after steps steps of the sampled
// Gaussian mechanism, on a grid sized for them at precision eta.
func PLDEpsilon(q, sigma float64, steps int, delta, eta float64) (Bracket, error) {
	p, err := NewPLD(q, sigma, steps, eta)
	if err != nil {
		return Bracket{}, err
	}
	var b [1]Bracket
	p.Epsilon(steps, []float64{delta}, b[:])
	return b[0], nil
}
