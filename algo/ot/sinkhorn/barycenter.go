package sinkhorn

import (
	"fmt"
	"math"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/ot"
)

// MaxCells bounds the grid of a Barycenter (128 × 128).
const MaxCells = 128 * 128

// BarycenterConfig configures a Barycenter.
type BarycenterConfig struct {
	// NX, NY are the grid's size: cell (a, b) sits at (a·H, b·H), and the
	// histograms are indexed a·NY + b. NY = 1 gives a 1-D grid.
	NX, NY int
	H      float64 // the spacing, > 0
	Eps    float64 // ε > 0 for the cost ‖z − z'‖²
	Tol    float64 // ErrConverged when the marginal error is ≤ Tol
}

// Barycenter computes the entropic Wasserstein barycenter of histograms on
// a fixed grid by iterated Sinkhorn (Bregman) projections (Benamou,
// Carlier, Cuturi, Nenna & Peyré 2015, §3.2; the notes' L2386–2388 leave
// the algorithm open, catalogue E8 [D]): with K = exp(−‖z − z'‖²/ε) and one
// plan diag(u_s) K diag(v_s) per input p_s, weights λ_s,
//
//	u_s ← p_s ./ (K v_s),   b ← Π_s (Kᵀ u_s)^{λ_s},   v_s ← b ./ (Kᵀ u_s),
//
// so that every plan has first marginal p_s (after the u-update) and
// second marginal b (after the v-update); b is the barycenter. One Step is
// one such round. Everything is carried in logs (b as Σ λ_s log Kᵀu_s),
// and K is applied as two 1-D log-sum-exps, along y then along x, since
// exp(−‖z − z'‖²/ε) = exp(−(x − x')²/ε) exp(−(y − y')²/ε) (the
// convolutional form of Solomon et al. 2015): O(NX·NY·(NX + NY)) per
// application instead of O((NX·NY)²), with no underflow at any ε. The
// marginal error Σ_s λ_s ‖u_s ⊙ K v_s − p_s‖₁ is read off the K v_s that
// the next u-update needs anyway. A step does not allocate.
type Barycenter struct {
	nx, ny, cells int
	eps, tol      float64
	lambda        []float64
	logP          [][]float64
	alpha, beta   [][]float64 // log u_s, log v_s
	logKv, logKtu [][]float64 // log K v_s, log Kᵀ u_s
	lb, b         []float64   // log b and b
	ex, ey        []float64   // (a − a')²H²/ε and (b − b')²H²/ε
	tmp, line     []float64   // scratch
	iter          int
	err, change   float64
}

// BarycenterFootprint is the bytes NewBarycenter allocates for k inputs
// on an nx×ny grid: five images per input (log p_s, log u_s, log v_s,
// log Kv_s, log Kᵀu_s), three of the barycenter's (log b, b, scratch) and
// the two axes' squared distances, nx² and ny².
func BarycenterFootprint(nx, ny, k int) int64 {
	cells := int64(nx) * int64(ny)
	return 8 * ((5*int64(k)+3)*cells + int64(nx)*int64(nx) + int64(ny)*int64(ny))
}

// NewBarycenter validates the configuration, the inputs (each NX·NY masses
// ≥ 0 summing to 1 within ot.MassTol, then normalised) and the weights
// (≥ 0, summing to 1 within ot.MassTol), and starts from v_s = 1.
func NewBarycenter(inputs [][]float64, lambda []float64, cfg BarycenterConfig) (*Barycenter, error) {
	if cfg.NX < 1 || cfg.NY < 1 || cfg.NX*cfg.NY > MaxCells {
		return nil, algo.BadParam("grid", fmt.Sprintf("%d×%d", cfg.NX, cfg.NY), fmt.Sprintf("at least 1×1 and at most %d cells", MaxCells))
	}
	if !(cfg.H > 0) || math.IsInf(cfg.H, 0) {
		return nil, algo.BadParam("spacing", cfg.H, "a finite number > 0")
	}
	if !(cfg.Eps > 0) || math.IsInf(cfg.Eps, 0) {
		return nil, algo.BadParam("eps", cfg.Eps, "a finite number > 0")
	}
	if !(cfg.Tol >= 0) {
		return nil, algo.BadParam("tol", cfg.Tol, "≥ 0")
	}
	cells := cfg.NX * cfg.NY
	if len(inputs) == 0 || len(lambda) != len(inputs) {
		return nil, algo.BadParam("weights", fmt.Sprintf("%d inputs, %d weights", len(inputs), len(lambda)), "one weight per input, at least one input")
	}
	ls, err := ot.CheckWeights("weights", lambda)
	if err != nil {
		return nil, err
	}
	if ot.Unbalanced(ls, 1) {
		return nil, algo.BadParam("weights", fmt.Sprintf("summing to %g", ls), "weights summing to 1")
	}
	g := &Barycenter{nx: cfg.NX, ny: cfg.NY, cells: cells, eps: cfg.Eps, tol: cfg.Tol, lambda: ot.Normalised(lambda, ls),
		lb: make([]float64, cells), b: make([]float64, cells), tmp: make([]float64, cells), line: make([]float64, max(cfg.NX, cfg.NY))}
	for s, p := range inputs {
		name := fmt.Sprintf("input %d", s+1)
		if len(p) != cells {
			return nil, algo.BadParam(name, fmt.Sprintf("%d masses", len(p)), fmt.Sprintf("one per cell (%d)", cells))
		}
		total, err := ot.CheckWeights(name, p)
		if err != nil {
			return nil, err
		}
		if ot.Unbalanced(total, 1) {
			return nil, algo.BadParam(name, fmt.Sprintf("masses summing to %.10g", total), fmt.Sprintf("masses summing to 1 within a relative %g", ot.MassTol))
		}
		g.logP = append(g.logP, logs(ot.Normalised(p, total)))
		g.alpha = append(g.alpha, make([]float64, cells))
		g.beta = append(g.beta, make([]float64, cells))
		g.logKv = append(g.logKv, make([]float64, cells))
		g.logKtu = append(g.logKtu, make([]float64, cells))
	}
	axis := func(k int) []float64 {
		e := make([]float64, k*k)
		for a := range k {
			for a2 := range k {
				d := float64(a-a2) * cfg.H
				e[a*k+a2] = d * d / cfg.Eps
			}
		}
		return e
	}
	g.ex, g.ey = axis(cfg.NX), axis(cfg.NY)
	for s := range g.logKv {
		g.applyK(g.logKv[s], g.beta[s])
	}
	g.err = math.NaN()
	return g, nil
}

// applyK writes log(K exp(w)) into dst: a log-sum-exp along y into tmp
// (transposed), then along x back into dst.
func (g *Barycenter) applyK(dst, w []float64) {
	g.lseLines(g.tmp, w, g.nx, g.ny, g.ey)
	g.lseLines(dst, g.tmp, g.ny, g.nx, g.ex)
}

// lseLines treats src as `lines` lines of `length` values and writes
// dst[k·lines + l] = LSE_{k'}(src[l·length + k'] − e[k·length + k']).
func (g *Barycenter) lseLines(dst, src []float64, lines, length int, e []float64) {
	for l := range lines {
		s := src[l*length : (l+1)*length : (l+1)*length]
		for k := range length {
			ek := e[k*length : (k+1)*length : (k+1)*length]
			t := g.line[:length]
			mx := offsets(t, s, ek, 1)
			if math.IsInf(mx, -1) {
				dst[k*lines+l] = mx
				continue
			}
			dst[k*lines+l] = mx + math.Log(expShift(nil, t, mx))
		}
	}
}

// Step performs one round of projections. It returns algo.ErrConverged
// once the marginal error is at most Tol.
func (g *Barycenter) Step() error {
	if g.iter > 0 && g.err <= g.tol {
		return algo.ErrConverged
	}
	g.iter++
	clear(g.lb)
	for s, lp := range g.logP {
		a := g.alpha[s]
		for z, v := range lp {
			a[z] = v - g.logKv[s][z]
		}
		g.applyK(g.logKtu[s], a)
		for z, v := range g.logKtu[s] {
			g.lb[z] += g.lambda[s] * v
		}
	}
	g.err = 0
	for s, lp := range g.logP {
		bs := g.beta[s]
		for z, v := range g.logKtu[s] {
			bs[z] = g.lb[z] - v
		}
		g.applyK(g.logKv[s], bs)
		e := 0.0
		for z, v := range lp {
			e += math.Abs(math.Exp(g.alpha[s][z]+g.logKv[s][z]) - math.Exp(v))
		}
		g.err += g.lambda[s] * e
	}
	g.change = 0
	for z, v := range g.lb {
		nb := math.Exp(v)
		g.change += math.Abs(nb - g.b[z])
		g.b[z] = nb
	}
	if !algo.Finite(g.err) {
		return algo.Diverged("marginal error %g at iteration %d", g.err, g.iter)
	}
	if g.err <= g.tol {
		return algo.ErrConverged
	}
	return nil
}

// B is the barycenter after the last Step (NX·NY masses, read-only; its
// total tends to 1 as the marginals converge).
func (g *Barycenter) B() []float64 { return g.b }

// Iter, MarginalError (Σ_s λ_s ‖u_s ⊙ K v_s − p_s‖₁, NaN before the first
// Step) and Change (‖b − b_prev‖₁).
func (g *Barycenter) Iter() int              { return g.iter }
func (g *Barycenter) MarginalError() float64 { return g.err }
func (g *Barycenter) Change() float64        { return g.change }
func (g *Barycenter) Grid() (nx, ny int)     { return g.nx, g.ny }
