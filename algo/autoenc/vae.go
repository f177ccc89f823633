package autoenc

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/nn"
	"github.com/thelab/lab/algo/tensor"
	"github.com/thelab/lab/algo/tensor/opt"
)

// Likelihood names a VAE's decoder law p(x | z).
type Likelihood string

// The decoders, with D(z) the decoder network's output:
//
//	gaussian   N(D(z), s²I), s fixed: −log p = (d/2) log 2π + d log s + ‖x − D(z)‖²/(2s²)
//	           (seed 000 (3.24)/(3.26) with the sign and scale errata corrected: −1/(2s²), not +)
//	bernoulli  pixels x ∈ [0, 1], D(z) logits: −log p = Σ softplus(D) − x·D
const (
	Gaussian  Likelihood = "gaussian"
	Bernoulli Likelihood = "bernoulli"
)

// VAE is a variational autoencoder (seed 000 §3.6.1–3.6.6, seed 002 §6.3,
// F4): encoder q(z|x) = N(μ(x), diag σ²(x)) with outputs (μ, log σ²) —
// positivity for free (F4's "must get right") — prior N(0, I), decoder
// p(x|z), trained by minibatch steps on
//
//	−ELBO = E_q[−log p(x|z)] + KL(q(z|x) ‖ N(0, I)),
//	KL = ½ Σ_j (μ_j² + σ_j² − log σ_j² − 1)                (eq 3.23 / 6.15)
//
// with one reparameterised draw z = μ + σ ⊙ ε (eq 3.25, L = 1): the
// gradient flows through μ and σ, not through the sampling.
type VAE struct {
	Enc, Dec *nn.MLP
	lik      Likelihood
	s        float64 // the Gaussian decoder's s.d.
	d, r     int
	data     []float64
	tp       *tensor.Tape
	opt      *opt.Optimizer
	xb, eps  *tensor.Tensor
	rng      *rand.Rand
	recon    float64
	kl       float64
	steps    int
}

// VAEConfig configures a VAE.
type VAEConfig struct {
	D, Latent, Units, Batch int
	Likelihood              Likelihood
	DecoderSD               float64 // s of the Gaussian decoder
	Opt                     opt.Config
}

// MaxLatent bounds the latent dimension.
const MaxLatent = 16

// NewVAE draws the networks for data (rows of cfg.D values, kept).
func NewVAE(cfg VAEConfig, data []float64, rng *rand.Rand) (*VAE, error) {
	if cfg.D < 1 || len(data) < 2*cfg.D || len(data)%cfg.D != 0 || !algo.AllFinite(data) {
		return nil, algo.BadParam("data", len(data), fmt.Sprintf("at least 2 finite rows of %d values", cfg.D))
	}
	if cfg.Latent < 1 || cfg.Latent > MaxLatent {
		return nil, algo.BadParam("latent", cfg.Latent, fmt.Sprintf("in 1..%d", MaxLatent))
	}
	if cfg.Units < 1 || cfg.Units > MaxUnits {
		return nil, algo.BadParam("units", cfg.Units, fmt.Sprintf("in 1..%d", MaxUnits))
	}
	if cfg.Batch < 1 || cfg.Batch > nn.MaxBatch {
		return nil, algo.BadParam("batch", cfg.Batch, fmt.Sprintf("in 1..%d", nn.MaxBatch))
	}
	switch cfg.Likelihood {
	case Gaussian:
		if !(cfg.DecoderSD > 0) || math.IsInf(cfg.DecoderSD, 0) {
			return nil, algo.BadParam("decoder_sd", cfg.DecoderSD,
				"> 0: with s → 0 the Gaussian likelihood is unbounded (F4's degeneracy)")
		}
	case Bernoulli:
		for _, v := range data {
			if v < 0 || v > 1 {
				return nil, algo.BadParam("data", v, "pixels in [0, 1] for the Bernoulli decoder")
			}
		}
	default:
		return nil, algo.BadParam("likelihood", cfg.Likelihood, fmt.Sprint([]Likelihood{Gaussian, Bernoulli}))
	}
	v := &VAE{lik: cfg.Likelihood, s: cfg.DecoderSD, d: cfg.D, r: cfg.Latent, data: data, tp: tensor.NewTape(), rng: rng}
	var err error
	if v.Enc, err = nn.NewMLP(cfg.encoder(), rng); err != nil {
		return nil, err
	}
	if v.Dec, err = nn.NewMLP(cfg.decoder(), rng); err != nil {
		return nil, err
	}
	if v.opt, err = opt.New(append(v.Enc.Params(), v.Dec.Params()...), cfg.Opt); err != nil {
		return nil, err
	}
	v.xb, _ = tensor.FromData(make([]float64, cfg.Batch*cfg.D), cfg.Batch, cfg.D)
	v.eps, _ = tensor.FromData(make([]float64, cfg.Batch*cfg.Latent), cfg.Batch, cfg.Latent)
	return v, nil
}

// terms records the batch means of −log p(x|z) and of the KL for inputs
// x and noise eps on tp.
func (v *VAE) terms(tp *tensor.Tape, x, eps *tensor.Tensor) (recon, kl *tensor.Tensor) {
	b := float64(x.Dim(0))
	enc := v.Enc.Forward(tp, x, nil)
	mu, lv := tp.Slice(enc, 1, 0, v.r), tp.Slice(enc, 1, v.r, 2*v.r)
	z := tp.Add(mu, tp.Mul(tp.Exp(tp.Scale(lv, 0.5)), eps))
	out := v.Dec.Forward(tp, z, nil)
	switch v.lik {
	case Bernoulli:
		recon = tp.Scale(tp.Sum(tp.Sub(tp.Softplus(out), tp.Mul(out, x))), 1/b)
	default:
		c := float64(v.d) * (0.5*math.Log(2*math.Pi) + math.Log(v.s))
		recon = tp.AddConst(tp.Scale(tp.Sum(tp.Square(tp.Sub(out, x))), 1/(2*v.s*v.s*b)), c)
	}
	kl = tp.Scale(tp.Sum(tp.AddConst(tp.Sub(tp.Add(tp.Square(mu), tp.Exp(lv)), lv), -1)), 0.5/b)
	return recon, kl
}

// Step is one minibatch step on −ELBO.
func (v *VAE) Step() error {
	nn.SampleRows(v.xb.Data, v.data, v.d, v.rng)
	for i := range v.eps.Data {
		v.eps.Data[i] = v.rng.NormFloat64()
	}
	tp := v.tp
	tp.Rewind()
	recon, kl := v.terms(tp, v.xb, v.eps)
	loss := tp.Add(recon, kl)
	if err := tp.Backward(loss); err != nil {
		return err
	}
	v.recon, v.kl = recon.Item(), kl.Item()
	v.steps++
	if !algo.Finite(v.recon + v.kl) {
		return algo.Diverged("−ELBO is not finite at step %d: lower lr (or raise decoder_sd)", v.steps)
	}
	return v.opt.Step()
}

// Recon, KL and NegELBO are the last minibatch's terms.
func (v *VAE) Recon() float64   { return v.recon }
func (v *VAE) KL() float64      { return v.kl }
func (v *VAE) NegELBO() float64 { return v.recon + v.kl }

// Steps is the number of steps taken.
func (v *VAE) Steps() int { return v.steps }

// Latent is the latent dimension.
func (v *VAE) Latent() int { return v.r }

// Encode returns μ(x) and log σ²(x) for rows x.
func (v *VAE) Encode(x []float64) (mu, logvar []float64) {
	n := len(x) / v.d
	xt, err := tensor.FromData(slices.Clone(x), n, v.d)
	if err != nil {
		return nil, nil
	}
	enc := v.Enc.Forward(tensor.NewForwardTape(), xt, nil)
	mu, logvar = make([]float64, n*v.r), make([]float64, n*v.r)
	for i := range n {
		copy(mu[i*v.r:(i+1)*v.r], enc.Data[i*2*v.r:i*2*v.r+v.r])
		copy(logvar[i*v.r:(i+1)*v.r], enc.Data[i*2*v.r+v.r:(i+1)*2*v.r])
	}
	return mu, logvar
}

// Decode returns the decoder's mean E[x | z] for latent rows z: D(z) for
// the Gaussian decoder, σ(D(z)) (pixel probabilities) for Bernoulli.
func (v *VAE) Decode(z []float64) []float64 {
	n := len(z) / v.r
	zt, err := tensor.FromData(slices.Clone(z), n, v.r)
	if err != nil {
		return nil
	}
	out := slices.Clone(v.Dec.Forward(tensor.NewForwardTape(), zt, nil).Data)
	if v.lik == Bernoulli {
		for i, a := range out {
			out[i] = 1 / (1 + math.Exp(-a))
		}
	}
	return out
}

// GaussianKL is KL(N(μ, diag σ²) ‖ N(0, I)) = ½ Σ (μ² + σ² − log σ² − 1)
// (seed 000 eq 3.23, seed 002 eq 6.15; eq 1.38 with μ₁ = 0, σ₁ = 1
// summed over the dimensions).
func GaussianKL(mu, sd []float64) float64 {
	s := 0.0
	for i := range mu {
		s += mu[i]*mu[i] + sd[i]*sd[i] - math.Log(sd[i]*sd[i]) - 1
	}
	return s / 2
}

// DiscreteELBO is the notes' discrete toy (catalogue §3.8): latent z with
// prior p(z), likelihood p(x|z) of one observed x, and a variational q(z).
// It returns log p(x), the ELBO E_q[log p(x, z) − log q(z)] and KL(q ‖
// p(z|x)), with log p(x) − ELBO = KL (eq 3.22).
func DiscreteELBO(prior, lik, q []float64) (logp, elbo, kl float64) {
	px := 0.0
	for k := range prior {
		px += prior[k] * lik[k]
	}
	logp = math.Log(px)
	for k := range q {
		if q[k] == 0 {
			continue
		}
		post := prior[k] * lik[k] / px
		elbo += q[k] * (math.Log(prior[k]*lik[k]) - math.Log(q[k]))
		kl += q[k] * math.Log(q[k]/post)
	}
	return logp, elbo, kl
}
