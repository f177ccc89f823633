package gan

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/algo/tensor/opt"
	"github.com/thelab/lab/algo/toy2d"
)

func phi(x float64) float64 { return math.Exp(-0.5*x*x) / math.Sqrt(2*math.Pi) }

// trainD trains only the discriminator, real ~ N(0,1) against fake ~
// N(shift, 1), and returns the GAN.
func trainD(t *testing.T, loss Loss, shift float64, steps int) *GAN {
	rng := rand.New(rand.NewPCG(1, 2))
	data := make([]float64, 1000)
	for i := range data {
		data[i] = rng.NormFloat64()
	}
	g, err := New(Config{Dim: 1, Noise: 1, Hidden: []int{16, 16}, Batch: 128, Loss: loss, DSteps: 1,
		OptD: opt.Config{LR: 0.005}, OptG: opt.Config{LR: 0.001}}, data, rng)
	if err != nil {
		t.Fatal(err)
	}
	real, fake := make([]float64, 128), make([]float64, 128)
	for range steps {
		for i := range real {
			real[i], fake[i] = rng.NormFloat64(), shift+rng.NormFloat64()
		}
		if _, err := g.DiscriminatorStep(real, fake); err != nil {
			t.Fatal(err)
		}
	}
	return g
}

// TestOptimalDiscriminator: for the fixed generator N(1, 1) against data
// N(0, 1), every loss's discriminator approaches D* = q/(q + p) = σ(½ − x)
// (Prop 6.1) where the data are: on |x − ½| ≤ 1.75 the mean error under
// the mixture (q + p)/2 is below 0.04 and the largest below 0.1 (a ReLU
// network's piecewise-linear output against a smooth sigmoid, fitted on
// minibatches, least noisy where the data are); and the
// standard value at the trained D, by quadrature, approaches
// C(G) = −log 4 + 2 JS = −1.163451 (Thm 6.1) from below. 300 steps are
// enough (seed 1, 2: mean error 0.007 standard, 0.014 LSQ; largest 0.013
// and 0.052; V within 3e-4 of C(G)); the untrained D is off by up to 0.5.
func TestOptimalDiscriminator(t *testing.T) {
	for _, loss := range []Loss{Standard, LSQ} {
		g := trainD(t, loss, 1, 300)
		xs := make([]float64, 0, 201)
		for i := range 201 {
			xs = append(xs, -1.25+3.5*float64(i)/200)
		}
		d := g.Discriminate(xs, nil)
		var werr, wsum, worst float64
		for i, x := range xs {
			want := 1 / (1 + math.Exp(x-0.5))
			m := (phi(x) + phi(x-1)) / 2
			werr += m * math.Abs(d[i]-want)
			wsum += m
			worst = math.Max(worst, math.Abs(d[i]-want))
		}
		if werr/wsum > 0.04 || worst > 0.1 {
			t.Errorf("%s: E_m|D − D*| = %.4f, max %.4f", loss, werr/wsum, worst)
		}
		if loss != Standard {
			continue
		}
		// V(G, D) = ∫ q log D + p log(1 − D) by the trapezoid rule on [−8, 9].
		const n = 3400
		grid := make([]float64, n+1)
		for i := range grid {
			grid[i] = -8 + 17*float64(i)/n
		}
		dd := g.Discriminate(grid, nil)
		v := 0.0
		for i, x := range grid {
			w := 17.0 / n
			if i == 0 || i == n {
				w /= 2
			}
			dv := math.Min(math.Max(dd[i], 1e-300), 1-1e-16)
			v += w * (phi(x)*math.Log(dv) + phi(x-1)*math.Log1p(-dv))
		}
		if v > -1.163451+1e-6 || v < -1.163451-0.01 {
			t.Errorf("V(G, D) = %.6f, C(G) = −1.163451", v)
		}
	}
}

// TestEquilibriumHalf: with generated points of the data's own law, the
// trained discriminator is ≡ ½ (Thm 6.1's equilibrium) within 0.07 where
// the data are. After 400 steps (seed 1, 2) the largest gap is 0.036; the
// untrained D is 0.009 at x = −2.
func TestEquilibriumHalf(t *testing.T) {
	g := trainD(t, Standard, 0, 400)
	xs := []float64{-2, -1, 0, 1, 2}
	for i, d := range g.Discriminate(xs, nil) {
		if math.Abs(d-0.5) > 0.07 {
			t.Errorf("D(%g) = %.4f, want ½", xs[i], d)
		}
	}
}

// TestGeneratorLearns: a 1-D GAN on the two-mode mixture with the
// nonsaturating loss moves its samples onto the data: after 500 rounds
// both modes hold at least half their share of the generated points (seed 3, 4:
// 0.50 and 0.47; untrained: 0 and 0.19).
func TestGeneratorLearns(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	xy, _, err := toy2d.Sample(toy2d.TwoModes, rng, 2000)
	if err != nil {
		t.Fatal(err)
	}
	data := make([]float64, len(xy)/2)
	for i := range data {
		data[i] = xy[2*i]
	}
	g, err := New(Config{Dim: 1, Noise: 1, Hidden: []int{16, 16}, Batch: 64, Loss: NonSaturating, DSteps: 1,
		OptD: opt.Config{LR: 0.005, Beta1: 0.5}, OptG: opt.Config{LR: 0.005, Beta1: 0.5}}, data, rng)
	if err != nil {
		t.Fatal(err)
	}
	for range 500 {
		if err := g.Step(); err != nil {
			t.Fatal(err)
		}
	}
	z := make([]float64, 4000)
	for i := range z {
		z[i] = rng.NormFloat64()
	}
	s := g.Generate(z)
	pts := make([]float64, 2*len(s))
	for i, x := range s {
		pts[2*i] = x
	}
	if c, share := toy2d.Coverage(toy2d.TwoModes, pts, 0.5); c != 2 {
		t.Errorf("modes covered %d of 2, shares %.3f", c, share)
	}
}

func TestValidation(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	cfg := Config{Dim: 3, Noise: 1, Hidden: []int{8}, Batch: 8, Loss: Standard, DSteps: 1, OptD: opt.Config{LR: 0.01}, OptG: opt.Config{LR: 0.01}}
	_, err := New(cfg, []float64{1, 2, 3, 4, 5, 6}, rng)
	algotest.WantParam(t, err, "dim")
	cfg.Dim, cfg.Loss = 1, "wgan"
	_, err = New(cfg, []float64{1, 2}, rng)
	algotest.WantParam(t, err, "loss")
	cfg.Loss, cfg.DSteps = Standard, 0
	_, err = New(cfg, []float64{1, 2}, rng)
	algotest.WantParam(t, err, "k")
}

// TestStepsOneAtATime: a round stepped as its k discriminator steps and
// its generator step, one call each (GAN Lab's D step and G step), is the
// round Step takes, to the bit: the same draws in the same order.
func TestStepsOneAtATime(t *testing.T) {
	build := func() *GAN {
		rng := rand.New(rand.NewPCG(3, 4))
		data, _, err := toy2d.Sample(toy2d.Ring, rng, 500)
		if err != nil {
			t.Fatal(err)
		}
		g, err := New(Config{Dim: 2, Noise: 2, Hidden: []int{8, 8}, Batch: 32, Loss: NonSaturating, DSteps: 2,
			OptD: opt.Config{LR: 0.01}, OptG: opt.Config{LR: 0.01}}, data, rng)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	whole, parts := build(), build()
	for round := range 5 {
		if err := whole.Step(); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if err := parts.StepD(); err != nil {
				t.Fatal(err)
			}
		}
		if parts.Steps() != round {
			t.Errorf("D steps counted a round: %d", parts.Steps())
		}
		if err := parts.StepG(); err != nil {
			t.Fatal(err)
		}
	}
	if whole.Steps() != parts.Steps() || whole.LossD() != parts.LossD() || whole.LossG() != parts.LossG() {
		t.Errorf("rounds %d/%d, L_D %v/%v, L_G %v/%v", whole.Steps(), parts.Steps(), whole.LossD(), parts.LossD(), whole.LossG(), parts.LossG())
	}
	for i, p := range whole.G.Params() {
		for j, w := range p.Data {
			if q := parts.G.Params()[i].Data[j]; w != q {
				t.Fatalf("generator parameter %d[%d]: %v stepped whole, %v one at a time", i, j, w, q)
			}
		}
	}
}
