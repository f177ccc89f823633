package diffusionsim

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/diffusion"
	"github.com/thelab/lab/algo/tensor"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// Diffusion samples a 2-D Gaussian mixture from noise with the exact ε* at
// every noise level (no network: seed 000 ch. 3's practical note): DDIM,
// the stochastic μ-family with DDPM at μ = ½, ε-extrapolation with γ, the
// reverse SDE and the probability-flow ODE of the OU process; classifier-
// free guidance toward a mixture class with λ, and the "optical
// illusions" of two views. The particles over the noised density with a
// few trails, the x₁ histogram against the exact marginal at the current
// level, and the mass per mode against the truth.
var Diffusion = &sims.Spec{
	Name:  "diffusion",
	Title: "Diffusion sampling with the exact ε of a mixture: DDIM, DDPM/μ-family, SDE/ODE, γ, guidance, two views",
	Source: "seed 000 §3.4–3.5.1 (eqs 3.6–3.8, L1203–1236), §3.7–3.9 (eqs 3.29–3.30, L1383–1399); " +
		"seed 001 §15 [A30] (L1449–1473, L1516–1524)",
	Data:   dataHelp,
	Steps:  100,
	Speed:  5,
	Params: param.List(append(dp.decls(), dfMethod, dfSteps, dfSchedule, dfSigmaMax, dfSigmaMin, dfMu, dfGamma, dfBeta, dfT, dfClass, dfLambda, dfViews, dfN)...),
	New:    newDiffusion,
	Size:   diffusionSize,

	Metrics: diffusionMetrics,
}

// diffusionSize is the sampler's particles (diffusion.SamplerBytes) with
// the scratch of guidance and of the views, the labels, the trails of a
// few particles (a point a level, at most dfTrailPoints) and the Frame:
// the particles, their classes, the density map and the trails' copies.
func diffusionSize(cfg sims.Config) int64 {
	v := cfg.Values
	n, steps := dfN.Get(v), dfSteps.Get(v)
	b := diffusion.SamplerBytes(n, 2, steps) + tensor.Alloc(n)
	if dfClass.Get(v) >= 0 {
		b += diffusion.GuidedBytes(2 * n)
	}
	if dfViews.Get(v) != viewNone {
		b += diffusion.ViewsBytes(2 * n)
	}
	trail := min(dfTrailPoints, steps+1)
	frame := 3*tensor.Alloc(n) + tensor.Alloc(dfGridX*dfGridY) + 2*dfTrails*(tensor.Appended(trail)+tensor.Alloc(trail))
	return tensor.Slack(32<<10 + b + frame)
}

// dp are the data parameters of diffusion and score-match.
var dp = newDataParams()

// view2 names the second view of the illusions.
type view2 string

func (v view2) String() string { return string(v) }

const (
	viewNone      view2 = "none"
	viewReflect   view2 = "reflect"
	viewRotate90  view2 = "rotate90"
	viewRotate180 view2 = "rotate180"
)

// viewMap is the second view's map (a switch rather than a map built when
// every run starts, issue 14.7).
func viewMap(w view2) diffusion.View {
	switch w {
	case viewReflect:
		return diffusion.ReflectX
	case viewRotate90:
		return diffusion.Rotate90
	case viewRotate180:
		return diffusion.Rotate180
	}
	panic("diffusionsim: no map for view " + string(w))
}

var (
	dfMethod = param.Choice("method", diffusion.Methods, diffusion.DDIM,
		"ddim: x ← x − (σ_t − σ_{t−1})ε (3.6); ddpm: μ = ½; family: any μ (3.7); sde/ode: the reverse OU SDE or "+
			"probability-flow ODE ([A30])")
	dfSteps    = param.Int("steps", 100, "noise levels visited, one a step").Range(1, diffusion.MaxSteps)
	dfSchedule = param.Choice("schedule", []diffusion.Schedule{diffusion.Geometric, diffusion.Linear}, diffusion.Geometric,
		"σ levels: geometric from sigma_max to sigma_min then 0, or linear to 0 (ddim, ddpm, family)")
	dfSigmaMax = param.Float("sigma_max", 20, "σ_T: the top noise level (ddim, ddpm, family)").Range(0.1, diffusion.MaxSigma)
	dfSigmaMin = param.Float("sigma_min", 0.01, "last positive level of the geometric schedule").Range(1e-4, 10)
	dfMu       = param.Float("mu", 0.5, "μ of method=family: σ_{t−1} = σ_t^μ σ_t'^{1−μ}; 0 is DDIM, ½ DDPM").Range(0, diffusion.MaxMu)
	dfGamma    = param.Float("gamma", 1, "ε-extrapolation γ (3.8): ε̄ = γε_t + (1−γ)ε_{t+1}; 1 is none").Range(1, diffusion.MaxGamma)
	dfBeta     = param.Float("beta", 1, "β of the OU process (sde, ode)").Range(0.1, diffusion.MaxBeta)
	dfT        = param.Float("T", 8, "horizon T of the OU process (sde, ode): start at t = T").Range(0.1, 50)
	dfClass    = param.Int("class", -1, "guide toward this mixture class τ (−1: unconditional)").Range(-1, diffusion.MaxComponents-1)
	dfLambda   = param.Float("lambda", 3, "guidance λ (3.29): ε̄ = λε(x,σ,τ) + (1−λ)ε(x,σ); with class ≥ 0").Range(0, 10)
	dfViews    = param.Choice("views", []view2{viewNone, viewReflect, viewRotate90, viewRotate180}, viewNone,
		"optical illusions (3.30): average ε over the identity and this view, each brought back by its inverse")
	dfN = param.Int("n", 2000, "particles").Range(1, diffusion.MaxParticle)
)

// dfTrails is the number of particles whose paths are drawn.
const dfTrails = 12

// dfTrailPoints is the most points a trail keeps; dfGrid the density
// map's resolution.
const (
	dfTrailPoints = 1000
	dfGridX       = 48
	dfGridY       = 24
)

type dfSim struct {
	mix    *diffusion.Mixture
	about  string
	s      *diffusion.Sampler
	method diffusion.Method
	beta   float64
	trails [dfTrails]sims.Path
	view   sims.Rect
	labels []int
	guide  string
	// target is the mass per mode of the law sampled: π, or under
	// guidance toward τ the class's π_k/Σ_{class τ} π_j (exact at λ = 1;
	// λ > 1 sharpens that law); law names it.
	target []float64
	law    string
}

func newDiffusion(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	mix, about, err := dp.build(cfg)
	if err != nil {
		return nil, err
	}
	mix.Workers = cfg.Workers
	eps, guide, err := guidance(mix, v)
	if err != nil {
		return nil, err
	}
	sc := diffusion.SamplerConfig{Method: dfMethod.Get(v), Steps: dfSteps.Get(v), Schedule: dfSchedule.Get(v),
		SigmaMax: dfSigmaMax.Get(v), SigmaMin: dfSigmaMin.Get(v), Mu: dfMu.Get(v), Gamma: dfGamma.Get(v),
		Beta: dfBeta.Get(v), T: dfT.Get(v)}
	s, err := startSampler(sc, mix, eps, dfN.Get(v), cfg.Seed)
	if err != nil {
		return nil, sims.Blame(err, v, sims.As("sigma_min", dfSigmaMin), sims.As("T", dfT))
	}
	d := &dfSim{mix: mix, about: about, s: s, method: sc.Method, beta: sc.Beta, labels: make([]int, dfN.Get(v)), guide: guide}
	d.view = dataView(mix)
	d.target, d.law = make([]float64, mix.K()), "π"
	cls, tot := dfClass.Get(v), 0.0
	for k, c := range mix.Components() {
		if cls < 0 || c.Class == cls {
			d.target[k] = c.Weight
			tot += c.Weight
		}
	}
	for k := range d.target {
		d.target[k] /= tot
	}
	if cls >= 0 {
		d.law = "π|τ"
	}
	for i := range d.trails {
		d.trails[i].Class = sims.MaxClasses - 1
	}
	d.trail()
	return d, nil
}

// startSampler draws n points of the mixture and noises them to the top
// of the schedule.
func startSampler(sc diffusion.SamplerConfig, mix *diffusion.Mixture, eps diffusion.Denoiser, n int, seed uint64) (*diffusion.Sampler, error) {
	rng := rand.New(rand.NewPCG(seed, 0x6469_6666)) // "diff"
	x0 := make([]float64, 2*n)
	mix.Sample(rng, x0, nil)
	return diffusion.NewSampler(sc, eps, 2, x0, rng)
}

// guidance is the denoiser the parameters ask for: the mixture's ε*,
// guided toward a class, averaged over two views.
func guidance(mix *diffusion.Mixture, v param.Values) (diffusion.Denoiser, string, error) {
	var eps diffusion.Denoiser = mix
	guide := "unconditional"
	if c := dfClass.Get(v); c >= 0 {
		cond, ok := mix.Class(c)
		if !ok {
			return nil, "", fmt.Errorf("parameter class = %d: the mixture's classes are 0..%d", c, mix.Classes()-1)
		}
		eps = &diffusion.Guided{Cond: cond, Uncond: mix, Lambda: dfLambda.Get(v)}
		guide = fmt.Sprintf("guided to class %d, λ = %g", c, dfLambda.Get(v))
	}
	if w := dfViews.Get(v); w != viewNone {
		eps = &diffusion.Views{Base: []diffusion.Denoiser{eps, eps}, Maps: []diffusion.View{diffusion.Identity, viewMap(w)}}
		guide += ", two views (identity, " + w.String() + ")"
	}
	return eps, guide, nil
}

// dataView is a square holding every component's mean ± 3 std.
func dataView(mix *diffusion.Mixture) sims.Rect {
	r := sims.Rect{XMin: math.Inf(1), XMax: math.Inf(-1), YMin: math.Inf(1), YMax: math.Inf(-1)}
	for _, c := range mix.Components() {
		sx, sy := 3*math.Sqrt(c.Cov[0]), 3*math.Sqrt(c.Cov[2])
		r.XMin, r.XMax = math.Min(r.XMin, c.Mean[0]-sx), math.Max(r.XMax, c.Mean[0]+sx)
		r.YMin, r.YMax = math.Min(r.YMin, c.Mean[1]-sy), math.Max(r.YMax, c.Mean[1]+sy)
	}
	half := math.Max(r.XMax-r.XMin, r.YMax-r.YMin) / 2
	cx, cy := (r.XMin+r.XMax)/2, (r.YMin+r.YMax)/2
	return sims.Rect{XMin: cx - half, XMax: cx + half, YMin: cy - half, YMax: cy + half}.Pad(0.05)
}

func (d *dfSim) trail() {
	for i := range d.trails {
		if i >= len(d.s.X)/2 {
			break
		}
		d.trails[i].X = append(d.trails[i].X, d.s.X[2*i])
		d.trails[i].Y = append(d.trails[i].Y, d.s.X[2*i+1])
	}
}

func (d *dfSim) Step() error {
	err := d.s.Step()
	if err == nil || errors.Is(err, algo.ErrConverged) {
		if len(d.trails[0].X) < dfTrailPoints {
			d.trail()
		}
	}
	return err
}

// ab is the current level as Y = aX + bε: (1, σ) for the σ samplers.
func (d *dfSim) ab() (a, b float64) {
	if d.method == diffusion.SDE || d.method == diffusion.ODE {
		return diffusion.OU(d.beta, d.s.Level())
	}
	return 1, d.s.Level()
}

// Frame draws the particles over the density of the current level with
// trails, the x₁ histogram against the exact marginal, the mass per mode
// against the law sampled.
func (d *dfSim) Frame() sims.Frame {
	mix, s, labels, view, method := d.mix, d.s, d.labels, d.view, d.method
	a, b := d.ab()
	sigma := b / a
	heat := sims.SampleGrid(view, dfGridX, dfGridY, func(x, y float64) float64 {
		return mix.Density([]float64{x / a, y / a}, math.Max(sigma, 1e-9)) / (a * a)
	})
	heat.Scale = sims.Sequential
	n := len(s.X) / 2
	px, py := make([]float64, n), make([]float64, n)
	for i := range n {
		px[i], py[i] = s.X[2*i], s.X[2*i+1]
	}
	mix.Nearest(s.X, labels) // at the end: which mode each particle landed in
	comps := mix.Components()
	classes := make([]int, n)
	for i, k := range labels {
		classes[i] = comps[k].Class % (sims.MaxClasses - 1)
	}
	paths := make([]sims.Path, len(d.trails))
	for i, t := range d.trails {
		paths[i] = sims.Path{X: append([]float64(nil), t.X...), Y: append([]float64(nil), t.Y...), Class: t.Class}
	}
	level := fmt.Sprintf("σ = %.3g", s.Level())
	if method == diffusion.SDE || method == diffusion.ODE {
		level = fmt.Sprintf("t = %.3g (σ = b/a = %.3g)", s.Level(), sigma)
	}
	pic := sims.CanvasChart{Title: fmt.Sprintf("%s %d/%d: %s", method, s.Index(), len(s.Levels())-1, level),
		View: view, Heat: heat, Points: []sims.PointSet{{Name: "particles", X: px, Y: py, Classes: classes}}, Paths: paths}

	// x₁ against the exact marginal Σ π_k N(aμ_k1, a²Σ_k,11 + b²)
	const bins, pts = 40, 121
	lo, hi := view.XMin, view.XMax
	w := (hi - lo) / bins
	dens := make([]float64, bins)
	for _, x := range px {
		if k := int((x - lo) / w); x >= lo && k < bins {
			dens[k] += 1 / (float64(n) * w)
		}
	}
	exact := sims.Curve{Name: "exact", X: make([]float64, pts), Y: make([]float64, pts), Class: 1}
	for i := range pts {
		x := lo + (hi-lo)*float64(i)/(pts-1)
		f := 0.0
		for _, c := range comps {
			v := a*a*c.Cov[0] + b*b
			f += c.Weight * math.Exp(-0.5*(x-a*c.Mean[0])*(x-a*c.Mean[0])/v) / math.Sqrt(2*math.Pi*v)
		}
		exact.X[i], exact.Y[i] = x, f
	}
	hist := sims.HistChart{Title: "x₁ against the exact marginal", Lo: lo, Hi: hi,
		Density: dens, Curves: []sims.Curve{exact}, XLabel: "x₁", Label: "particles"}

	st := mix.Assess(s.X, labels)
	bars := make([]sims.Bar, len(comps))
	maxErr := 0.0
	for k, c := range comps {
		bars[k] = sims.Bar{Label: fmt.Sprintf("%d %s %.2f", k+1, d.law, d.target[k]), Value: st.Mass[k], Class: c.Class % (sims.MaxClasses - 1)}
		maxErr = math.Max(maxErr, math.Abs(st.Mass[k]-d.target[k]))
	}
	mass := sims.BarChart{Title: "mass per mode vs " + d.law, Bars: bars}

	_, vx := mix.Moments()
	metrics := []sims.Metric{
		{Name: "sigma", Value: sigma},
		{Name: "var", Value: st.Variance}, {Name: "var_exact", Value: a*a*vx + b*b},
		{Name: "spread", Value: st.Spread}, {Name: "spread_data", Value: mix.Spread()},
		{Name: "mass_err", Value: maxErr},
	}
	text := []string{
		fmt.Sprintf("%s; %s; exact ε* = −σ∇log p_σ", d.about, d.guide),
		fmt.Sprintf("var %.4f (exact %.4f); spread in modes %.4f (data %.4f)", st.Variance, a*a*vx+b*b, st.Spread, mix.Spread()),
		"too few steps miss the spread (steps=5); μ → 1 jitters; γ > 1 extrapolates",
	}
	return sims.Frame{Sim: Diffusion.Name, Step: s.Index(), Metrics: metrics, Charts: []sims.Chart{pic, hist, mass}, Text: text}
}

func (d *dfSim) Result() map[string]any {
	st := d.mix.Assess(d.s.X, d.labels)
	_, vx := d.mix.Moments()
	return map[string]any{"level": d.s.Level(), "variance": st.Variance, "variance_data": vx,
		"spread": st.Spread, "spread_data": d.mix.Spread(), "mass": st.Mass}
}
