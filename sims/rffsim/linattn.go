package rffsim

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/rff"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// LinearAttention is softmax attention against its Performer (FAVOR+)
// estimate with positive random features, one feature a step.
var LinearAttention = &sims.Spec{
	Name:  "linear-attention",
	Title: "Linear attention (Performer FAVOR+): exact softmax attention vs positive random features",
	Source: "seed 004 L81–99 (softmax kernel, the Performer preprint cited at L93); positive features and " +
		"linear attention from Choromanski et al. 2021 (seed-003/004 catalogue R4, not in the seed)",
	Steps:   1024,
	Speed:   30,
	Params:  param.List(laN, laD, laR, laFeatures, laMMax),
	New:     newLinearAttention,
	Size:    laSize,
	Metrics: linattnMetrics,
}

var (
	laN = param.Int("n", 48, "tokens: the attention matrix is n×n").Range(4, 160)
	laD = param.Int("d", 16, "dimension of queries and keys (values have 4)").Range(2, 64)
	laR = param.Float("r", 1, "norm of the scaled queries and keys q/d^¼: attention is sharper, "+
		"and the positive features' variance e^{‖q+k‖²} larger, as r grows").Range(0.1, 2)
	laFeatures = param.Choice("features", []rff.Kind{rff.IID, rff.ORF}, rff.IID,
		"iid: w ~ N(0, I); orf: orthogonal blocks by Gram–Schmidt with χ(d) norms (lower variance)")
	laMMax = param.Int("m_max", 1024, "stop after this many random features (34 s at the pane's speed)").Range(16, 16384)
)

// laDV is the dimension of the values.
const laDV = 4

// laSize is the tokens, the engine, the sampler and the picture of two
// n×n maps side by side.
func laSize(cfg sims.Config) int64 {
	n, d := laN.Get(cfg.Values), laD.Get(cfg.Values)
	nx := 2*n + max(2, n/6)
	return rffBase + 3*int64(n)*int64(24+8*d) + rff.FavorFootprint(n, d, laDV) + rff.SamplerFootprint(d) +
		8*int64(n)*int64(n) + 8*int64(nx)*int64(n)
}

type laSim struct {
	f       *rff.Favor
	n, d    int
	r       float64
	kind    rff.Kind
	mMax    int
	ms      []int
	nextRec int
	attErr  []float64
	kerErr  []float64
	lo, hi  float64
}

// laTokens builds n tokens whose scaled queries and keys have norm about r:
// q′_i = r(a_f cos fθ_i, a_f sin fθ_i)_f, θ_i = 2πi/n, Σa_f² = 1 with
// a_f ∝ 1/f, the keys shifted by three tokens, plus a little noise, so
// that token i attends most to token i − 3 (a band below the diagonal).
func laTokens(n, d int, r float64, rng *rand.Rand) (q, k, v [][]float64) {
	amp := make([]float64, d/2)
	s := 0.0
	for f := range amp {
		amp[f] = 1 / float64(f+1)
		s += amp[f] * amp[f]
	}
	scale := r * math.Pow(float64(d), 0.25) // the engine divides by d^¼
	mk := func(shift float64) [][]float64 {
		out := make([][]float64, n)
		for i := range out {
			out[i] = make([]float64, d)
			th := 2*math.Pi*float64(i)/float64(n) - shift
			for f, a := range amp {
				a /= math.Sqrt(s)
				out[i][2*f] = scale * a * math.Cos(float64(f+1)*th)
				out[i][2*f+1] = scale * a * math.Sin(float64(f+1)*th)
			}
			for j := range out[i] {
				out[i][j] += 0.1 * scale / math.Sqrt(float64(d)) * rng.NormFloat64()
			}
		}
		return out
	}
	q, k = mk(0), mk(-2*math.Pi*3/float64(n))
	v = make([][]float64, n)
	for i := range v {
		v[i] = make([]float64, laDV)
		for j := range v[i] {
			v[i][j] = rng.NormFloat64()
		}
	}
	return q, k, v
}

func newLinearAttention(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	n, d := laN.Get(v), laD.Get(v)
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x6c61)) // "la"
	q, k, vals := laTokens(n, d, laR.Get(v), rng)
	smp, err := rff.NewSampler(d, 0.5, laFeatures.Get(v), rand.New(rand.NewPCG(cfg.Seed, 1)))
	if err != nil {
		return nil, err
	}
	f, err := rff.NewFavor(q, k, vals, smp)
	if err != nil {
		return nil, err
	}
	s := &laSim{f: f, n: n, d: d, r: laR.Get(v), kind: laFeatures.Get(v), mMax: laMMax.Get(v), nextRec: 4}
	s.lo, s.hi = math.Inf(1), math.Inf(-1)
	for _, a := range f.Attention() {
		s.lo, s.hi = math.Min(s.lo, a), math.Max(s.hi, a)
	}
	return s, nil
}

func (s *laSim) Step() error {
	if s.f.M() >= s.mMax {
		return algo.ErrConverged
	}
	if err := s.f.Step(); err != nil {
		return err
	}
	// Record at m = 4, then at each m ≥ 2^¼ times the last: x is log₂ m.
	if m := s.f.M(); m >= s.nextRec {
		s.ms = append(s.ms, m)
		s.attErr = append(s.attErr, s.f.AttentionError())
		s.kerErr = append(s.kerErr, s.f.KernelError())
		s.nextRec = max(m+1, int(math.Round(4*math.Pow(2, float64(len(s.ms))/4))))
	}
	return nil
}

func (s *laSim) Frame() sims.Frame {
	m := s.f.M()
	th := make([]float64, len(s.ms))
	for i, mm := range s.ms {
		th[i] = s.f.TheoryKernelError(mm)
	}
	thName := "theory ∝ m^−½"
	if s.kind == rff.ORF {
		thName = "iid theory ∝ m^−½"
	}
	errChart := sims.LineChart{
		Title: "relative error vs m", LogY: true, XLabel: "log₂ m",
		Series: []sims.Series{
			{Name: thName, Y: th, Class: 0, Bound: true},
			{Name: "exp(q′ᵀk′) matrix", Y: append([]float64(nil), s.kerErr...), Class: 0},
			{Name: "attention D̂⁻¹Û", Y: append([]float64(nil), s.attErr...), Class: 1},
		},
	}
	if len(s.ms) > 1 {
		errChart.X0, errChart.X1 = math.Log2(float64(s.ms[0])), math.Log2(float64(s.ms[len(s.ms)-1]))
	}
	approx := make([]float64, s.n*s.n)
	s.f.ApproxAttention(approx)
	lin, ex := s.f.Cost(max(m, 1))
	metrics := []sims.Metric{
		{Name: "m", Value: float64(m)},
		sims.MetricOr("attn_err", s.f.AttentionError(), "no random feature yet"),
		sims.MetricOr("out_err", s.f.OutputError(), "no random feature yet"),
		sims.MetricOr("kernel_err", s.f.KernelError(), "no random feature yet"),
	}
	if m > 0 {
		metrics = append(metrics, sims.Metric{Name: "theory_err", Value: s.f.TheoryKernelError(m)})
	} else {
		metrics = append(metrics, sims.Metric{Name: "theory_err", Undefined: "no random feature yet"})
	}
	metrics = append(metrics, sims.Metric{Name: "cost_ratio", Value: lin / ex})
	return sims.Frame{
		Sim:     LinearAttention.Name,
		Step:    m,
		Metrics: metrics,
		Primary: 0,
		Charts: []sims.Chart{
			laHeat(fmt.Sprintf("softmax(QKᵀ/√d) | FAVOR+ D̂⁻¹φ(Q)φ(K)ᵀ, m = %d", m), s.n, s.lo, s.hi, s.f.Attention(), approx),
			errChart,
		},
		Text: s.notes(m, lin, ex),
	}
}

// laHeat draws n×n maps side by side (row 1 at the top) on the exact map's
// colour range, with a dark gap between them.
func laHeat(title string, n int, lo, hi float64, ks ...[]float64) sims.CanvasChart {
	gap := max(2, n/6)
	nx := len(ks)*n + (len(ks)-1)*gap
	z := make([]float64, nx*n)
	for j := 0; j < n; j++ {
		row := z[j*nx : (j+1)*nx]
		for c := range row {
			row[c] = lo - (hi - lo)
		}
		for b, k := range ks {
			copy(row[b*(n+gap):], k[(n-1-j)*n:(n-j)*n])
		}
	}
	return sims.CanvasChart{
		Title:  title,
		View:   sims.Rect{XMin: 0, XMax: float64(nx), YMin: 0, YMax: float64(n)},
		Heat:   &sims.Grid{NX: nx, NY: n, Z: z, Scale: sims.Sequential, Lo: lo, Hi: hi},
		XLabel: "key j in each map", YLabel: "query i",
		XIndex: &sims.Index{First: 1, Last: n, At: 0.5, Step: 1},
		YIndex: &sims.Index{First: 1, Last: n, At: float64(n) + 0.5, Step: -1},
	}
}

func (s *laSim) notes(m int, lin, ex float64) []string {
	feat := "w ~ N(0, I)"
	if s.kind == rff.ORF {
		feat = "orthogonal w"
	}
	return []string{
		fmt.Sprintf("φ(x) = e^{wᵀx−‖x‖²/2}/√m, %s: positive, unbiased for e^{q′ᵀk′}, q′ = q/d^¼", feat),
		fmt.Sprintf("cost O(nmd) %.2g vs O(n²d) %.2g: linear wins while m < n/2", lin, ex),
		"linear route: φ(K)ᵀV, φ(K)ᵀ1 first, never the n×n map (drawn here for you)",
		"dotted: the exact RMS error of the e^{q′ᵀk′} estimate, ∝ m^−½ (iid)",
	}
}

func (s *laSim) Result() map[string]any {
	out := map[string]any{
		"m": s.f.M(), "m_grid": append([]int(nil), s.ms...),
		"attention_error": append([]float64(nil), s.attErr...),
		"kernel_error":    append([]float64(nil), s.kerErr...),
	}
	if s.f.M() > 0 {
		out["final_attention_error"] = s.f.AttentionError()
		out["final_output_error"] = s.f.OutputError()
	}
	return out
}
