package lda

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
	"gonum.org/v1/gonum/mathext"
	"gonum.org/v1/gonum/stat/distuv"
)

// MaxK is the largest number of topics.
const MaxK = 10

// Config configures CAVI for LDA.
type Config struct {
	K     int     // number of topics, 2..MaxK
	Alpha float64 // symmetric Dirichlet prior of θ_d, > 0
	Eta   float64 // symmetric Dirichlet prior of β_k, > 0
	// LocalIters caps the φ/γ iterations per document per sweep (≥ 1);
	// LocalTol ends them early once the mean |Δγ_dk| is below it (≥ 0).
	LocalIters int
	LocalTol   float64
	// Tol ends the run (ErrConverged) once a sweep raises the ELBO per word
	// by less than Tol nats (≥ 0).
	Tol float64
}

// DefaultConfig has the lab's default priors and tolerances for k topics.
func DefaultConfig(k int) Config {
	return Config{K: k, Alpha: 0.25, Eta: 0.1, LocalIters: 50, LocalTol: 1e-3, Tol: 1e-7}
}

// LDA fits latent Dirichlet allocation by the coordinate ascent of seed 002
// §3.5 (L1459–1499), with the mean-field family q(β_k) = Dir(λ_k),
// q(θ_d) = Dir(γ_d), q(z_dn) = Cat(φ_dn). One Step is one sweep:
//
//   - local, for every document: alternately the word-level update (3.17),
//     φ_dnk ∝ exp(E[log θ_dk] + E[log β_{k,w_dn}]), and the document-level
//     update γ_dk = α + Σ_n φ_dnk (L1489), until γ_d settles (mean |Δγ| <
//     LocalTol) or LocalIters rounds; γ_d starts from the last sweep's value;
//   - global: λ_kv = η + Σ_d Σ_n φ_dnk 1{w_dn = v} (L1495).
//
// The notes leave the expectations to "properties of the Dirichlet" (L1485):
// they are E[log θ_dk] = ψ(γ_dk) − ψ(Σ_j γ_dj) and E[log β_kv] = ψ(λ_kv) −
// ψ(Σ_v' λ_kv') (Blei, Ng & Jordan 2003), ψ = mathext.Digamma. Every update
// maximises the ELBO over its block with the others fixed, so the ELBO never
// decreases; ELBO() computes it exactly (its formula is not in the notes
// either: see ELBO).
//
// All the words of one type in one document share their φ, so the engine
// works on (document, word type, count) triples and never stores φ: within
// a document φ_dwk = e^{E log θ_dk} e^{E log β_kw} / Σ_j (same), and the global
// update and the ELBO recompute it from the last e^{E log θ_d} of each
// document and the e^{E log β} of the sweep (Hoffman, Blei & Bach 2010). A
// sweep allocates nothing.
//
// λ starts random (λ_kv = η + (N/KV)·g_kv, g ~ Exp(1), N the number of words):
// a symmetric start is a fixed point where every topic stays the same
// (catalogue item C12). γ_dk starts at α + N_d/K.
type LDA struct {
	cfg    Config
	c      *Corpus
	k, v   int
	lambda []float64 // K×V
	// E[log β] and its exponential for the sweep being run ("cur") and for
	// the φ of the last local step ("old"); equal until a global update.
	elogB, expB       []float64
	elogBOld, expBOld []float64
	gamma             []float64 // D×K
	expT              []float64 // D×K: e^{E log θ_d} that defined φ_d
	sstats            []float64 // K×V: Σ φ counts of the local step
	norm              []float64 // scratch, per word type of a document
	gNew              []float64 // scratch, K
	sweeps            int
	elbo              float64
	trace             []float64 // ELBO per word after each sweep (and at the start)
	meanChange        float64   // mean |Δγ| of the last local step's final rounds
	localRounds       float64   // mean local rounds per document, last sweep
}

// Bytes is what New allocates for k topics on d documents over v words,
// with the corpus it reads (Tokenize's: pairs distinct (document, word)
// pairs, and the vocabulary): six k×v arrays (λ, E[log β] and exp, their
// previous values, the sufficient statistics), two d×k (γ and exp E[log
// θ]) and a document's words.
func Bytes(k, d, v, pairs int) int64 {
	kv, dk := int64(k)*int64(v), int64(d)*int64(k)
	corpus := 8*int64(d+1) + 12*int64(pairs) + 32*int64(v)
	return 6*algo.HeapBytes(8*kv) + 2*algo.HeapBytes(8*dk) + 8*int64(min(pairs, v)) + corpus + 4<<10
}

// New validates the configuration and starts CAVI on the corpus.
func New(c *Corpus, cfg Config, rng *rand.Rand) (*LDA, error) {
	if cfg.K < 2 || cfg.K > MaxK {
		return nil, algo.BadParam("k", cfg.K, fmt.Sprintf("in 2..%d", MaxK))
	}
	if !(cfg.Alpha > 0) || math.IsInf(cfg.Alpha, 0) {
		return nil, algo.BadParam("alpha", cfg.Alpha, "finite and > 0")
	}
	if !(cfg.Eta > 0) || math.IsInf(cfg.Eta, 0) {
		return nil, algo.BadParam("eta", cfg.Eta, "finite and > 0")
	}
	if cfg.LocalIters < 1 || cfg.LocalIters > 10000 {
		return nil, algo.BadParam("iters", cfg.LocalIters, "in 1..10000")
	}
	if !(cfg.LocalTol >= 0) || math.IsInf(cfg.LocalTol, 0) {
		return nil, algo.BadParam("local_tol", cfg.LocalTol, "finite and ≥ 0")
	}
	if !(cfg.Tol >= 0) || math.IsInf(cfg.Tol, 0) {
		return nil, algo.BadParam("tol", cfg.Tol, "finite and ≥ 0")
	}
	if c == nil || c.D() < 1 || c.V() < 2 {
		return nil, algo.BadParam("corpus", "empty", "at least 1 document over 2 words")
	}
	if rng == nil {
		return nil, algo.BadParam("rng", "nil", "a non-nil *rand.Rand")
	}
	k, v, d := cfg.K, c.V(), c.D()
	maxTypes := 0
	for i := 0; i < d; i++ {
		maxTypes = max(maxTypes, c.Start[i+1]-c.Start[i])
	}
	e := &LDA{cfg: cfg, c: c, k: k, v: v,
		lambda: make([]float64, k*v), elogB: make([]float64, k*v), expB: make([]float64, k*v),
		elogBOld: make([]float64, k*v), expBOld: make([]float64, k*v),
		gamma: make([]float64, d*k), expT: make([]float64, d*k), sstats: make([]float64, k*v),
		norm: make([]float64, maxTypes), gNew: make([]float64, k), trace: make([]float64, 0, 256)}
	scale := float64(c.Tokens()) / float64(k*v)
	exp1 := distuv.Exponential{Rate: 1, Src: rng}
	for i := range e.lambda {
		e.lambda[i] = cfg.Eta + scale*exp1.Rand()
	}
	e.expectations()
	copy(e.elogBOld, e.elogB)
	copy(e.expBOld, e.expB)
	for i := 0; i < d; i++ {
		g := e.gamma[i*k : i*k+k]
		for j := range g {
			g[j] = cfg.Alpha + c.DocLen(i)/float64(k)
		}
		e.thetaExp(g, e.expT[i*k:i*k+k])
	}
	e.elbo = e.ELBO()
	e.trace = append(e.trace, e.elbo/float64(c.Tokens()))
	return e, nil
}

// expectations sets E[log β_kv] = ψ(λ_kv) − ψ(Σ_v λ_kv) and its exponential.
func (e *LDA) expectations() {
	for j := 0; j < e.k; j++ {
		row := e.lambda[j*e.v : (j+1)*e.v]
		s := 0.0
		for _, l := range row {
			s += l
		}
		ps := mathext.Digamma(s)
		for w, l := range row {
			x := mathext.Digamma(l) - ps
			e.elogB[j*e.v+w] = x
			e.expB[j*e.v+w] = math.Exp(x)
		}
	}
}

// thetaExp writes e^{E[log θ_k]} = exp(ψ(γ_k) − ψ(Σγ)) into dst.
func (e *LDA) thetaExp(g, dst []float64) {
	s := 0.0
	for _, x := range g {
		s += x
	}
	ps := mathext.Digamma(s)
	for j, x := range g {
		dst[j] = math.Exp(mathext.Digamma(x) - ps)
	}
}

// Step runs one sweep (local, then global) and returns algo.ErrConverged,
// without sweeping, once the last sweep raised the ELBO per word by less than
// Tol, or not at all.
func (e *LDA) Step() error {
	if t := len(e.trace) - 1; t >= 1 && (e.trace[t]-e.trace[t-1] < e.cfg.Tol || e.trace[t] <= e.trace[t-1]) {
		return algo.ErrConverged
	}
	e.local()
	e.global()
	e.elbo = e.ELBO()
	e.sweeps++
	e.trace = append(e.trace, e.elbo/float64(e.c.Tokens()))
	if math.IsNaN(e.elbo) || math.IsInf(e.elbo, 0) {
		return algo.Diverged("ELBO = %v after sweep %d", e.elbo, e.sweeps)
	}
	return nil
}

// local runs the word- and document-level updates of every document against
// the current λ, and accumulates the expected counts Σ φ_dwk·n_dw.
func (e *LDA) local() {
	k, c := e.k, e.c
	clear(e.sstats)
	copy(e.elogBOld, e.elogB) // the φ about to be set use this λ
	copy(e.expBOld, e.expB)
	rounds, change := 0, 0.0
	for d := 0; d < c.D(); d++ {
		words, counts := c.Words[c.Start[d]:c.Start[d+1]], c.Counts[c.Start[d]:c.Start[d+1]]
		norm := e.norm[:len(words)]
		g, eT := e.gamma[d*k:d*k+k], e.expT[d*k:d*k+k]
		var mean float64
		for it := 0; it < e.cfg.LocalIters; it++ {
			e.thetaExp(g, eT) // φ ∝ e^{E log θ} e^{E log β} (3.17)
			for j := range e.gNew {
				e.gNew[j] = 0
			}
			for i, w := range words {
				s := 0.0
				for j := 0; j < k; j++ {
					s += eT[j] * e.expB[j*e.v+int(w)]
				}
				norm[i] = s
				r := counts[i] / s
				for j := 0; j < k; j++ {
					e.gNew[j] += r * e.expB[j*e.v+int(w)]
				}
			}
			mean = 0
			for j := range g {
				ng := e.cfg.Alpha + eT[j]*e.gNew[j] // γ = α + Σ_n φ (L1489)
				mean += math.Abs(ng - g[j])
				g[j] = ng
			}
			mean /= float64(k)
			rounds++
			if mean < e.cfg.LocalTol {
				break
			}
		}
		change += mean
		for i, w := range words {
			r := counts[i] / norm[i]
			for j := 0; j < k; j++ {
				e.sstats[j*e.v+int(w)] += r * eT[j] * e.expB[j*e.v+int(w)]
			}
		}
	}
	e.meanChange = change / float64(c.D())
	e.localRounds = float64(rounds) / float64(c.D())
}

// global sets λ_kv = η + Σ_d φ_dvk n_dv (L1495) and the new E[log β].
func (e *LDA) global() {
	for i, s := range e.sstats {
		e.lambda[i] = e.cfg.Eta + s
	}
	e.expectations()
}

// ELBO returns L(q) = E_q[log p(w, z, θ, β)] − E_q[log q(z, θ, β)] at the
// current q, in nats (Blei, Ng & Jordan 2003, eq 15, with the Dirichlet q(β)
// of Hoffman et al. 2010):
//
//	Σ_d Σ_w n_dw Σ_k φ_dwk (E log θ_dk + E log β_kw − log φ_dwk)
//	+ Σ_d [log Γ(Kα) − K log Γ(α) + Σ_k (α − γ_dk) E log θ_dk − log Γ(Σ_k γ_dk) + Σ_k log Γ(γ_dk)]
//	+ Σ_k [log Γ(Vη) − V log Γ(η) + Σ_v (η − λ_kv) E log β_kv − log Γ(Σ_v λ_kv) + Σ_v log Γ(λ_kv)].
//
// φ is the one the last local step set (from the e^{E log θ_d} and the λ it
// used), and the expectations are at the current γ and λ.
func (e *LDA) ELBO() float64 {
	k, c := e.k, e.c
	a, eta := e.cfg.Alpha, e.cfg.Eta
	lgA, _ := math.Lgamma(a)
	lgKA, _ := math.Lgamma(float64(k) * a)
	lgEta, _ := math.Lgamma(eta)
	lgVEta, _ := math.Lgamma(float64(e.v) * eta)
	var elogT [MaxK]float64
	total := 0.0
	for d := 0; d < c.D(); d++ {
		g, eT := e.gamma[d*k:d*k+k], e.expT[d*k:d*k+k]
		s := 0.0
		for _, x := range g {
			s += x
		}
		ps := mathext.Digamma(s)
		lgS, _ := math.Lgamma(s)
		total += lgKA - float64(k)*lgA - lgS
		for j, x := range g {
			elogT[j] = mathext.Digamma(x) - ps
			lg, _ := math.Lgamma(x)
			total += (a-x)*elogT[j] + lg
		}
		for i := c.Start[d]; i < c.Start[d+1]; i++ {
			w := int(c.Words[i])
			norm := 0.0
			for j := 0; j < k; j++ {
				norm += eT[j] * e.expBOld[j*e.v+w]
			}
			ln := math.Log(norm)
			sum := 0.0
			for j := 0; j < k; j++ {
				phi := eT[j] * e.expBOld[j*e.v+w] / norm
				if phi == 0 {
					continue
				}
				// log φ = log e^{E log θ} + E_old log β − log norm
				logPhi := math.Log(eT[j]) + e.elogBOld[j*e.v+w] - ln
				sum += phi * (elogT[j] + e.elogB[j*e.v+w] - logPhi)
			}
			total += c.Counts[i] * sum
		}
	}
	for j := 0; j < k; j++ {
		row := e.lambda[j*e.v : (j+1)*e.v]
		s := 0.0
		for _, l := range row {
			s += l
		}
		lgS, _ := math.Lgamma(s)
		total += lgVEta - float64(e.v)*lgEta - lgS
		for w, l := range row {
			lg, _ := math.Lgamma(l)
			total += (eta-l)*e.elogB[j*e.v+w] + lg
		}
	}
	return total
}

// Sweeps is the number of sweeps taken.
func (e *LDA) Sweeps() int { return e.sweeps }

// K is the number of topics; Corpus the corpus.
func (e *LDA) K() int { return e.k }

// Corpus is the corpus being fitted.
func (e *LDA) Corpus() *Corpus { return e.c }

// Trace returns the ELBO per word after 0, 1, 2, ... sweeps (a view).
func (e *LDA) Trace() []float64 { return e.trace[:len(e.trace):len(e.trace)] }

// ELBOPerWord is the current ELBO divided by the number of words.
func (e *LDA) ELBOPerWord() float64 { return e.elbo / float64(e.c.Tokens()) }

// MeanChange is the mean |Δγ_dk| of the last local round of each document,
// averaged over the documents, in the last sweep; LocalRounds the mean number
// of local rounds per document.
func (e *LDA) MeanChange() float64 { return e.meanChange }

// LocalRounds is the mean number of φ/γ rounds per document in the last sweep.
func (e *LDA) LocalRounds() float64 { return e.localRounds }

// Topics writes E_q[β_k] = λ_k / Σ_v λ_kv, K rows of V, into dst (grown if short).
func (e *LDA) Topics(dst [][]float64) [][]float64 {
	if len(dst) < e.k {
		dst = make([][]float64, e.k)
	}
	for j := 0; j < e.k; j++ {
		if len(dst[j]) < e.v {
			dst[j] = make([]float64, e.v)
		}
		row := e.lambda[j*e.v : (j+1)*e.v]
		s := 0.0
		for _, l := range row {
			s += l
		}
		for w, l := range row {
			dst[j][w] = l / s
		}
	}
	return dst[:e.k]
}

// Gamma returns γ_d (a view: do not modify).
func (e *LDA) Gamma(d int) []float64 { return e.gamma[d*e.k : (d+1)*e.k] }

// Lambda returns λ_k (a view: do not modify).
func (e *LDA) Lambda(k int) []float64 { return e.lambda[k*e.v : (k+1)*e.v] }

// Shares returns each topic's share of the corpus, Σ_d (γ_dk − α) / N: the
// expected fraction of the words it generated.
func (e *LDA) Shares() []float64 {
	out := make([]float64, e.k)
	for d := 0; d < e.c.D(); d++ {
		for j, g := range e.Gamma(d) {
			out[j] += g - e.cfg.Alpha
		}
	}
	n := float64(e.c.Tokens())
	for j := range out {
		out[j] /= n
	}
	return out
}
