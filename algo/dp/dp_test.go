package dp

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/thelab/lab/algo"
	"gonum.org/v1/gonum/mat"
)

func newRNG(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0xd9)) }

// TestDirichlet is item D1's oracle (eq 4.14, Remark 4.3): normalised Gammas
// are Dir(α), so over S draws each C_k's mean is α_k/α₀ and its variance
// α_k(α₀ − α_k)/(α₀²(α₀ + 1)). Means are checked to 5 standard errors
// sqrt(Var/S); variances to 5 standard errors of a sample variance,
// sqrt((m₄ − Var²)/S) with m₄ the sample fourth central moment. Every draw
// sums to one to 1e-12.
func TestDirichlet(t *testing.T) {
	const S = 10000
	for _, alpha := range [][]float64{{1, 1, 1}, {2, 5, 3}, {0.1, 0.1, 0.3, 0.5}, {50, 20}, {0.5, 1, 2, 4, 8}} {
		t.Run(fmt.Sprint(alpha), func(t *testing.T) {
			rng := newRNG(uint64(len(alpha)))
			k := len(alpha)
			draws := make([][]float64, S)
			sum := make([]float64, k)
			for s := range draws {
				d := make([]float64, k)
				Dirichlet(rng, alpha, d)
				tot := 0.0
				for j, v := range d {
					if v < 0 || v > 1 {
						t.Fatalf("draw %d: C_%d = %v", s, j+1, v)
					}
					tot += v
					sum[j] += v
				}
				if math.Abs(tot-1) > 1e-12 {
					t.Fatalf("draw %d sums to %.17g", s, tot)
				}
				draws[s] = d
			}
			mean, variance := DirichletMoments(alpha)
			for j := range k {
				m := sum[j] / S
				v, m4 := 0.0, 0.0
				for _, d := range draws {
					e := d[j] - m
					v += e * e
					m4 += e * e * e * e
				}
				v /= S - 1
				m4 /= S
				if se := math.Sqrt(variance[j] / S); math.Abs(m-mean[j]) > 5*se {
					t.Errorf("E[C_%d] = %.5f, want %.5f ± %.2g (5 s.e.)", j+1, m, mean[j], 5*se)
				}
				if se := math.Sqrt((m4 - v*v) / S); math.Abs(v-variance[j]) > 5*se {
					t.Errorf("Var[C_%d] = %.5g, want %.5g ± %.2g (5 s.e.)", j+1, v, variance[j], 5*se)
				}
			}
		})
	}
}

// TestStick is item D2's oracle. Each draw's weights and the unbroken rest sum
// to one (to 1e-12); the draw stops exactly when the rest falls below tol;
// and over S draws the mean of C_k is E[C_k] = (1/(1+α))(α/(1+α))^{k−1} for
// k = 1..6 within 5 standard errors (sample s.d./√S). The catalogue's own
// 20 000-draw simulation at α = 2 gave 0.3341, 0.2213, 0.1491, 0.0986, 0.0662
// against 0.3333, 0.2222, 0.1481, 0.0988, 0.0658. Without the erratum of
// (4.15) (the product over (1 − V_k) instead of (1 − V_j)) the means would be
// E[V(1−V)^{k−1}], which differs from these already at k = 2.
//
// S = 10 000 draws of each α (was 20 000): the s.e. of E[C_2] is then
// 0.0024, 0.0018 and 0.00076 at α = 0.5, 2, 10, and the erratum's means
// sit 0.089, 0.056 and 0.0068 away: 37, 30 and 9 s.e. (the test allows 5).
// Pieces drawn from Beta(1, 1.05α) instead of Beta(1, α) still fail at
// α = 2 and 10 (at 20 000 at all three; at 5000 at none).
func TestStick(t *testing.T) {
	const S = 10000
	for _, alpha := range []float64{0.5, 2, 10} {
		t.Run(fmt.Sprint(alpha), func(t *testing.T) {
			rng := newRNG(uint64(alpha * 10))
			const K = 6
			var sum, sum2 [K]float64
			for s := 0; s < S; s++ {
				st, err := NewStick(alpha, 1e-9, rng)
				if err != nil {
					t.Fatal(err)
				}
				for {
					before := st.Remaining()
					err := st.Step()
					if errors.Is(err, algo.ErrConverged) {
						if before >= 1e-9 {
							t.Fatalf("stopped with %v of the stick left", before)
						}
						break
					}
					if err != nil {
						t.Fatal(err)
					}
					if before < 1e-9 {
						t.Fatalf("broke a piece off a rest of %v < tol", before)
					}
				}
				w := st.Weights()
				tot := st.Remaining()
				for _, c := range w {
					tot += c
				}
				if math.Abs(tot-1) > 1e-12 {
					t.Fatalf("weights + rest = %.17g", tot)
				}
				for k := 0; k < K && k < len(w); k++ {
					sum[k] += w[k]
					sum2[k] += w[k] * w[k]
				}
			}
			for k := range K {
				m := sum[k] / S
				sd := math.Sqrt(sum2[k]/S - m*m)
				want := StickMean(alpha, k+1)
				if se := sd / math.Sqrt(S); math.Abs(m-want) > 5*se {
					t.Errorf("E[C_%d] = %.5f, want %.5f ± %.2g (5 s.e.)", k+1, m, want, 5*se)
				}
			}
		})
	}
	if got := StickMean(2, 3); math.Abs(got-0.148148148) > 1e-8 {
		t.Errorf("StickMean(2, 3) = %v, want 4/27", got)
	}
}

// TestCRP is item D3's oracle: over R restaurants of n customers the mean
// number of tables is E[K_n] = Σ_{i<n} α/(α + i), within 5 standard errors
// sqrt(Var[K_n]/R) with the exact Var[K_n] = Σ p_i(1 − p_i); the sample
// variance is within 5 of its own standard errors too. For α = 1, n = 100 the
// catalogue gives E = 5.187 (and a 5000-replicate simulation, 5.192).
func TestCRP(t *testing.T) {
	if m, _ := TablesMoments(1, 100); math.Abs(m-5.187377518) > 1e-8 {
		t.Fatalf("E[K_100] at α = 1 is %v, want 5.18738", m)
	}
	const R = 5000
	for _, c := range []struct {
		alpha float64
		n     int
	}{{1, 100}, {0.3, 50}, {5, 200}, {50, 100}} {
		t.Run(fmt.Sprintf("alpha=%g/n=%d", c.alpha, c.n), func(t *testing.T) {
			rng := newRNG(uint64(c.n))
			ks := make([]float64, R)
			for r := range ks {
				crp, err := NewCRP(c.alpha, rng)
				if err != nil {
					t.Fatal(err)
				}
				for range c.n {
					if err := crp.Step(); err != nil {
						t.Fatal(err)
					}
				}
				total := 0
				for _, m := range crp.Counts() {
					total += m
				}
				if total != c.n || crp.N() != c.n {
					t.Fatalf("%d customers seated, want %d", total, c.n)
				}
				ks[r] = float64(crp.Tables())
			}
			mean, variance := TablesMoments(c.alpha, c.n)
			m, v, m4 := 0.0, 0.0, 0.0
			for _, k := range ks {
				m += k
			}
			m /= R
			for _, k := range ks {
				v += (k - m) * (k - m)
				m4 += math.Pow(k-m, 4)
			}
			v /= R - 1
			m4 /= R
			if se := math.Sqrt(variance / R); math.Abs(m-mean) > 5*se {
				t.Errorf("mean tables %.4f, want %.4f ± %.2g (5 s.e.)", m, mean, 5*se)
			}
			if se := math.Sqrt((m4 - v*v) / R); math.Abs(v-variance) > 5*se {
				t.Errorf("variance of tables %.4f, want %.4f ± %.2g (5 s.e.)", v, variance, 5*se)
			}
		})
	}
}

// partitions lists every set partition of n items as block labels in
// restricted-growth form (item 0 in block 0, each next item in an existing
// block or the next new one).
func partitions(n int) [][]int {
	var out [][]int
	cur := make([]int, n)
	var rec func(i, blocks int)
	rec = func(i, blocks int) {
		if i == n {
			out = append(out, append([]int(nil), cur...))
			return
		}
		for b := 0; b <= blocks; b++ {
			cur[i] = b
			nb := blocks
			if b == blocks {
				nb++
			}
			rec(i+1, nb)
		}
	}
	cur[0] = 0
	rec(1, 1)
	return out
}

// canonical renames a labelling into restricted-growth form.
func canonical(z []int) string {
	names := map[int]int{}
	var b strings.Builder
	for _, l := range z {
		if _, ok := names[l]; !ok {
			names[l] = len(names)
		}
		fmt.Fprintf(&b, "%d", names[l])
	}
	return b.String()
}

// exactPosterior computes p(partition | x) for every partition by brute
// force, independently of the engine: the CRP prior α^K ∏(n_c − 1)!/∏(α + i)
// times, per cluster and coordinate, the density of the cluster's points
// under their marginal N(m0·1, σ²I + τ²11ᵀ) (the mean integrated out),
// evaluated from gonum's Cholesky factorisation of that covariance.
func exactPosterior(pts [][]float64, cfg MixtureConfig) map[string]float64 {
	n := len(pts)
	logs := map[string]float64{}
	for _, z := range partitions(n) {
		k := 0
		for _, b := range z {
			k = max(k, b+1)
		}
		lp := 0.0
		for i := 0; i < n; i++ {
			lp -= math.Log(cfg.Alpha + float64(i))
		}
		for c := 0; c < k; c++ {
			var members []int
			for i, b := range z {
				if b == c {
					members = append(members, i)
				}
			}
			m := len(members)
			lg, _ := math.Lgamma(float64(m))
			lp += math.Log(cfg.Alpha) + lg
			cov := mat.NewSymDense(m, nil)
			for a := range m {
				for b := range m {
					v := cfg.Tau * cfg.Tau
					if a == b {
						v += cfg.Sigma * cfg.Sigma
					}
					cov.SetSym(a, b, v)
				}
			}
			for d := range 2 {
				mu := make([]float64, m)
				x := make([]float64, m)
				for a, i := range members {
					mu[a] = cfg.M0[d]
					x[a] = pts[i][d]
				}
				lp += logNormal(x, mu, cov)
			}
		}
		logs[canonical(z)] = lp
	}
	top := math.Inf(-1)
	for _, l := range logs {
		top = max(top, l)
	}
	total := 0.0
	for key, l := range logs {
		logs[key] = math.Exp(l - top)
		total += logs[key]
	}
	for key := range logs {
		logs[key] /= total
	}
	return logs
}

// logNormal is log N(x; mu, cov) by a Cholesky factorisation.
func logNormal(x, mu []float64, cov *mat.SymDense) float64 {
	var ch mat.Cholesky
	if !ch.Factorize(cov) {
		panic("covariance not positive definite")
	}
	d := mat.NewVecDense(len(x), nil)
	for i := range x {
		d.SetVec(i, x[i]-mu[i])
	}
	var sol mat.VecDense
	if err := ch.SolveVecTo(&sol, d); err != nil {
		panic(err)
	}
	return -float64(len(x))/2*math.Log(2*math.Pi) - ch.LogDet()/2 - mat.Dot(d, &sol)/2
}

// TestMixtureStationary checks the collapsed Gibbs sampler against the exact
// posterior over the 15 partitions of 4 points (two pairs, the pairs 2σ
// apart, so that several partitions have real mass): after 200 burn-in
// sweeps, the frequency of every partition over 100 000 sweeps must be
// within 5 standard errors of its posterior probability. The standard error
// comes from batch means (400 batches of 250 sweeps), which accounts for the
// chain's autocorrelation. 100 000 sweeps (was 200 000) put it at ≈ 0.011
// on the largest partitions: a sampler whose new-table weight is 1.1α, whose
// predictive variance is σ² + 1.2/prec or whose cluster precision counts
// 1.1c/σ² still misses five or six partitions by more than 5 s.e. (at 50 000
// three). It also checks LogJoint against the brute-force
// joint: the log-ratio of two partitions' joints must match.
func TestMixtureStationary(t *testing.T) {
	pts := [][]float64{{0, 0}, {0.3, 0.1}, {1.2, 0.9}, {1.5, 1.0}}
	for _, cfg := range []MixtureConfig{
		{Alpha: 1, Sigma: 0.5, Tau: 2, M0: [2]float64{0.5, 0.5}},
		{Alpha: 0.3, Sigma: 0.8, Tau: 1, M0: [2]float64{-1, 2}},
	} {
		t.Run(fmt.Sprintf("alpha=%g/sigma=%g", cfg.Alpha, cfg.Sigma), func(t *testing.T) {
			exact := exactPosterior(pts, cfg)
			m, err := NewMixture(pts, cfg, newRNG(3))
			if err != nil {
				t.Fatal(err)
			}
			for range 200 {
				if err := m.Step(); err != nil {
					t.Fatal(err)
				}
			}
			const batches, size = 400, 250
			keys := make([]string, 0, len(exact))
			for k := range exact {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			idx := map[string]int{}
			for i, k := range keys {
				idx[k] = i
			}
			batchFreq := make([][]float64, batches)
			var z []int
			joint := map[string]float64{}
			for b := range batches {
				f := make([]float64, len(keys))
				for range size {
					if err := m.Step(); err != nil {
						t.Fatal(err)
					}
					z = m.Labels(z)
					key := canonical(z)
					f[idx[key]]++
					if _, ok := joint[key]; !ok {
						joint[key] = m.LogJoint()
					}
				}
				for i := range f {
					f[i] /= size
				}
				batchFreq[b] = f
			}
			for i, key := range keys {
				mean, v := 0.0, 0.0
				for _, f := range batchFreq {
					mean += f[i]
				}
				mean /= batches
				for _, f := range batchFreq {
					v += (f[i] - mean) * (f[i] - mean)
				}
				se := math.Sqrt(v / (batches - 1) / batches)
				se = max(se, 1/float64(batches*size)) // a partition never or always seen
				if math.Abs(mean-exact[key]) > 5*se {
					t.Errorf("partition %s: frequency %.4f, posterior %.4f ± %.2g (5 s.e.)", key, mean, exact[key], 5*se)
				}
			}
			// LogJoint differences equal the exact log-posterior ratios.
			var ref string
			for key := range joint {
				if ref == "" || key < ref {
					ref = key
				}
			}
			for key, lj := range joint {
				want := math.Log(exact[key] / exact[ref])
				if got := lj - joint[ref]; math.Abs(got-want) > 1e-9 {
					t.Errorf("log p(x, z=%s) − log p(x, z=%s) = %.12g, want %.12g", key, ref, got, want)
				}
			}
		})
	}
}

// TestMixtureClusters: on four well-separated clusters the sampler settles on
// four clusters that are the true ones, from the start with all points in
// one cluster.
func TestMixtureClusters(t *testing.T) {
	rng := newRNG(8)
	centres := [][2]float64{{-5, -5}, {5, -5}, {-5, 5}, {5, 5}}
	var pts [][]float64
	var truth []int
	for i := range 200 {
		c := i % 4
		pts = append(pts, []float64{centres[c][0] + 0.5*rng.NormFloat64(), centres[c][1] + 0.5*rng.NormFloat64()})
		truth = append(truth, c)
	}
	m, err := NewMixture(pts, MixtureConfig{Alpha: 1, Sigma: 0.5, Tau: 5}, newRNG(9))
	if err != nil {
		t.Fatal(err)
	}
	if m.K() != 1 {
		t.Fatalf("start with %d clusters, want 1", m.K())
	}
	for range 50 {
		if err := m.Step(); err != nil {
			t.Fatal(err)
		}
	}
	if m.K() != 4 {
		t.Fatalf("%d clusters after 50 sweeps, want 4", m.K())
	}
	z := m.Labels(nil)
	seen := map[int]int{}
	for i, l := range z {
		if c, ok := seen[l]; ok && c != truth[i] {
			t.Fatalf("cluster %d mixes true clusters %d and %d", l, c, truth[i])
		}
		seen[l] = truth[i]
	}
	total := 0
	for _, c := range m.Clusters() {
		total += c.N
	}
	if total != 200 {
		t.Fatalf("cluster sizes sum to %d", total)
	}
}

func TestBadParams(t *testing.T) {
	rng := newRNG(1)
	pts := [][]float64{{0, 0}, {1, 1}}
	good := MixtureConfig{Alpha: 1, Sigma: 1, Tau: 1}
	cases := []struct {
		name  string
		err   error
		param string
	}{
		{"stick alpha 0", func() error { _, err := NewStick(0, 1e-6, rng); return err }(), "alpha"},
		{"stick alpha big", func() error { _, err := NewStick(2000, 1e-6, rng); return err }(), "alpha"},
		{"stick tol", func() error { _, err := NewStick(1, 0, rng); return err }(), "tol"},
		{"crp alpha", func() error { _, err := NewCRP(-1, rng); return err }(), "alpha"},
		{"crp rng", func() error { _, err := NewCRP(1, nil); return err }(), "rng"},
		{"dirichlet one", CheckAlpha("alpha", []float64{1}), "alpha"},
		{"dirichlet zero", CheckAlpha("alpha", []float64{1, 0}), "alpha"},
		{"mixture alpha", func() error { c := good; c.Alpha = 0; _, err := NewMixture(pts, c, rng); return err }(), "alpha"},
		{"mixture sigma", func() error { c := good; c.Sigma = -1; _, err := NewMixture(pts, c, rng); return err }(), "sigma"},
		{"mixture tau", func() error { c := good; c.Tau = math.Inf(1); _, err := NewMixture(pts, c, rng); return err }(), "tau"},
		{"mixture m0", func() error { c := good; c.M0[0] = math.NaN(); _, err := NewMixture(pts, c, rng); return err }(), "m0"},
		{"mixture no data", func() error { _, err := NewMixture(nil, good, rng); return err }(), "data"},
		{"mixture 3-D", func() error { _, err := NewMixture([][]float64{{1, 2, 3}}, good, rng); return err }(), "data"},
	}
	for _, c := range cases {
		if !algo.IsParamError(c.err, c.param) {
			t.Errorf("%s: got %v, want an error naming %s", c.name, c.err, c.param)
		}
	}
	if err := CheckAlpha("alpha", []float64{0.5, 2}); err != nil {
		t.Errorf("good alpha refused: %v", err)
	}
}

func TestMixtureSweepAllocs(t *testing.T) {
	rng := newRNG(2)
	var pts [][]float64
	for range 300 {
		pts = append(pts, []float64{rng.NormFloat64() * 3, rng.NormFloat64() * 3})
	}
	m, err := NewMixture(pts, MixtureConfig{Alpha: 1, Sigma: 0.7, Tau: 3}, rng)
	if err != nil {
		t.Fatal(err)
	}
	if a := testing.AllocsPerRun(20, func() { _ = m.Step() }); a != 0 {
		t.Errorf("a sweep allocates %v times", a)
	}
}
