package gensim

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo/gan"
	"github.com/thelab/lab/algo/tensor"
	"github.com/thelab/lab/algo/tensor/opt"
	"github.com/thelab/lab/algo/toy2d"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/nnsim"
	"github.com/thelab/lab/sims/param"
)

// GAN trains a generative adversarial network live in 1-D or 2-D (seed
// 001 §13, L1303–L1339, [A24]; seed 002 §6.2.2, F3), GAN Lab's picture:
// the real and generated samples over the discriminator's D(x) heat map,
// the generator's gradient arrows on its samples, the mode-coverage meter
// and both losses against their equilibrium values. Mode collapse and
// oscillation are shown as they happen.
var GAN = &sims.Spec{
	Name:   "gan",
	Title:  "GAN in 1-D or 2-D: real and generated samples over D(x), generator gradients, modes covered, both losses",
	Source: "seed 001 §13 (L1303–L1339, erratum E20); seed 002 §6.2.2 (eq 6.5, Prop 6.1, Thm 6.1)",
	Data:   "the first column (dim=1) or two columns (dim=2) of --data but label are the real points; without --data, target= draws them",
	Steps:  2000,
	Speed:  30,
	Params: param.List(gnTarget, gnDim, gnLoss, gnK, gnUpdate, gnStepping, gnLRD, gnLRG, gnOpt, gnUnits, gnBatch, gnNoise, gnN),
	New:    newGAN,
	Size:   ganSize,

	Metrics: ganMetrics,
}

// ganSize is the real points, the GAN (algo/gan's footprint: its networks,
// optimisers and tapes), and the Frame: the samples of the fixed z and
// the tape that generated them, the discriminator over the plane's grid
// and at the arrows (or along the line), the points, the curves.
func ganSize(cfg sims.Config) int64 {
	v := cfg.Values
	dim, data := gnDim.Get(v), tensor.Alloc(gnDim.Get(v)*gnN.Get(v))
	if cfg.Data != nil {
		data = tensor.Appended(dim * len(cfg.Data.Rows))
	}
	units := gnUnits.Get(v)
	c := gan.Config{Dim: dim, Noise: gnNoise.Get(v), Hidden: []int{units, units}, Batch: gnBatch.Get(v), Loss: gnLoss.Get(v),
		Simultaneous: gnUpdate.Get(v) == guSimultaneous, OptD: opt.Config{Method: gnOpt.Get(v)}, OptG: opt.Config{Method: gnOpt.Get(v)}}
	frame := c.GenerateBytes(ganShown) + tensor.Alloc(ganShown*c.Noise) + 4*tensor.Alloc(ganShown) + sims.TraceBytes(2) +
		tensor.Alloc(sims.TraceCap)
	if dim == 2 {
		grid := ganGridX * ganGridY
		// The latent grid: 2·ganLatentLines lines (a latent batch, its
		// image and the path's two coordinates each), and an arrow head
		// for each arrow.
		lines := int64(2 * ganLatentLines)
		frame += tensor.Alloc(2*grid) + tensor.Alloc(grid) + c.DiscriminateBytes(ganArrows, true) + ganArrows*(160+48) +
			lines*(tensor.Alloc(ganLatentPoints*c.Noise)+c.GenerateBytes(ganLatentPoints)+2*tensor.Alloc(ganLatentPoints)+80)
	} else {
		frame += c.DiscriminateBytes(ganCurve, false) + 4*tensor.Alloc(ganCurve)
	}
	return tensor.Slack(32<<10 + data + c.Bytes() + frame)
}

type ganUpdate string

func (u ganUpdate) String() string { return string(u) }

const (
	guAlternating  ganUpdate = "alternating"
	guSimultaneous ganUpdate = "simultaneous"
)

// ganStepping is what one step of the sim is: a whole round, or one
// network's move.
type ganStepping string

func (g ganStepping) String() string { return string(g) }

const (
	gsRound ganStepping = "round"
	gsPhase ganStepping = "phase"
)

var (
	gnTarget = param.Choice("target", toy2d.Targets, toy2d.Ring, "the real data: twomodes, ring of 8, line, boxes (disjoint), moons, banana").BuiltInData()
	gnDim    = param.Int("dim", 2, "1: the x coordinate only (a 1-D GAN); 2: the plane").Range(1, gan.MaxDim)
	gnLoss   = param.Choice("loss", gan.Losses, gan.NonSaturating,
		"nonsaturating: G minimises −log D(G z); standard: G minimises log(1 − D(G z)) (saturates); "+
			"js: the notes' JS form (E20's signs); kl: eq 13.b, KL(data‖G); lsq: least squares")
	gnK      = param.Int("k", 1, "discriminator steps per generator step (alternating)").Range(1, gan.MaxSteps)
	gnUpdate = param.Choice("update", []ganUpdate{guAlternating, guSimultaneous}, guAlternating,
		"alternating: k D-steps then a G-step on the new D; simultaneous: both from the same point (Remark 6.9: may not converge)")
	gnStepping = param.Choice("stepping", []ganStepping{gsRound, gsPhase}, gsRound,
		"round: a step is k D-steps and a G-step; phase: a step is one D-step or the G-step, in turn "+
			"(GAN Lab's D step and G step: press s to watch each network move; alternating updates only)")
	gnLRD   = param.Float("lr_d", 0.002, "the discriminator's learning rate").Range(0, 1).OpenMin()
	gnLRG   = param.Float("lr_g", 0.002, "the generator's learning rate").Range(0, 1).OpenMin()
	gnOpt   = param.Choice("optimizer", nnsim.UpdateRules, opt.Adam, "update rule of both networks (Adam with β₁ = 0.5, the GAN custom)")
	gnUnits = param.Int("units", 32, "units of each of the two hidden ReLU layers of both networks; at most 128: "+
		"a step costs about k·batch·units², and with k = 20 and batch = 1024 it took 0.8–1.1 s at 256 units, 0.4 s at 128").Range(2, 128)
	gnBatch = param.Int("batch", 256, "real and generated points per step").Range(8, 1024)
	gnNoise = param.Int("noise", 2, "latent dimension of z ~ N(0, I)").Range(1, 8)
	gnN     = param.Int("n", 4000, "real points drawn from the target").Range(10, 50000).BuiltInData()
)

// ganShown is the number of real and generated points drawn (and the
// fixed z of the generated ones).
const ganShown = 400

// The picture's grid of D(x) (2-D), the generated points that carry an
// arrow, and the points of the curves (1-D).
const (
	ganGridX  = 48
	ganGridY  = 24
	ganArrows = 48
	ganCurve  = 97
)

type ganSim struct {
	g      *gan.GAN
	target toy2d.Target // "" for --data
	dim    int
	data   []float64
	shown  []float64 // real points drawn
	z      []float64 // fixed latent points of the drawn samples
	view   sims.Rect
	trace  *sims.Trace // L_D, L_G
	lo, hi float64     // 1-D range
	realH  []float64   // 1-D: the real histogram
	phases bool        // a step is one network's move (stepping = phase)
	phase  int         // the next move of the round: D-step phase+1, or the G-step at k
	moves  int         // steps taken, when a step is a move
}

func newGAN(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x6761_6e21)) // "gan!"
	dim := gnDim.Get(v)
	s := &ganSim{dim: dim, trace: sims.NewTrace(1, 2)}
	if t := cfg.Data; t != nil {
		cols := t.Features() // a label column is not a coordinate, wherever it stands
		if len(cols) < dim {
			return nil, fmt.Errorf("--data %s: dim = %d needs %d numeric columns besides label, found %d", t.Name, dim, dim, len(cols))
		}
		if len(t.Rows) < 2 {
			return nil, fmt.Errorf("--data %s: needs at least 2 rows", t.Name)
		}
		for _, r := range t.Rows {
			for _, c := range cols[:dim] {
				s.data = append(s.data, r[c])
			}
		}
	} else {
		s.target = gnTarget.Get(v)
		xy, _, err := toy2d.Sample(s.target, rng, gnN.Get(v))
		if err != nil {
			return nil, err
		}
		if dim == 1 {
			xy, _ = split(xy)
		}
		s.data = xy
	}
	m := opt.Config{Method: gnOpt.Get(v), Beta1: 0.5}
	od, og := m, m
	od.LR, og.LR = gnLRD.Get(v), gnLRG.Get(v)
	units := gnUnits.Get(v)
	g, err := gan.New(gan.Config{Dim: dim, Noise: gnNoise.Get(v), Hidden: []int{units, units}, Batch: gnBatch.Get(v),
		Loss: gnLoss.Get(v), DSteps: gnK.Get(v), Simultaneous: gnUpdate.Get(v) == guSimultaneous, OptD: od, OptG: og}, s.data, rng)
	if err != nil {
		return nil, err
	}
	s.g = g
	if s.phases = gnStepping.Get(v) == gsPhase; s.phases && g.Config().Simultaneous {
		return nil, fmt.Errorf("parameter stepping = phase steps D and G in turn: it needs update = alternating, not simultaneous")
	}
	s.z = make([]float64, ganShown*gnNoise.Get(v))
	for i := range s.z {
		s.z[i] = rng.NormFloat64()
	}
	s.shown = s.data[:min(len(s.data), ganShown*dim)]
	if dim == 2 {
		x, y := split(s.data)
		s.view = sims.Bounds(x, y).Pad(0.25)
	} else {
		s.lo, s.hi = math.Inf(1), math.Inf(-1)
		for _, x := range s.data {
			s.lo, s.hi = math.Min(s.lo, x), math.Max(s.hi, x)
		}
		w := s.hi - s.lo
		s.lo, s.hi = s.lo-0.25*w, s.hi+0.25*w
		s.realH = histogram(s.data, s.lo, s.hi, 48)
	}
	return s, nil
}

func (s *ganSim) Step() error {
	var err error
	switch {
	case !s.phases:
		err = s.g.Step()
	case s.phase < s.g.Config().DSteps:
		s.moves++
		s.phase++
		return s.g.StepD()
	default:
		s.moves++
		s.phase = 0
		err = s.g.StepG()
	}
	if err == nil {
		s.trace.Add(s.g.LossD(), s.g.LossG())
	}
	return err
}

// steps is the sim's step count: rounds, or moves when a step is one.
func (s *ganSim) steps() int {
	if s.phases {
		return s.moves
	}
	return s.g.Steps()
}

func (s *ganSim) Frame() sims.Frame {
	cfg := s.g.Config()
	fake := s.g.Generate(s.z)
	eq := cfg.Loss.Equilibrium()
	// Each loss is that of its network's last minibatch, taken with the
	// gradient before the update; alternating, L_D is of the D before its
	// last inner step and L_G of G against the D after the round's
	// D-steps: two states by construction (ganMetrics), which the title
	// says.
	title := "losses (L_G after D-steps)"
	if cfg.Simultaneous {
		title = "losses (both before update)"
	}
	losses := traceChart(title, s.trace,
		sims.Series{Name: "L_D", Y: s.trace.Column(0), Class: classData},
		sims.Series{Name: "L_G", Y: s.trace.Column(1), Class: classModel},
		sims.Series{Name: "L_D at D ≡ ½", Y: s.trace.Map(func(int) float64 { return eq }), Class: classRef, Bound: true})
	if s.phases {
		losses.XLabel = "round" // a row a round, and a step a move
	}
	ld, lg := sims.Metric{Name: "L_D", Undefined: "no D-step taken yet"}, sims.Metric{Name: "L_G", Undefined: "no G-step taken yet"}
	if s.steps() > 0 {
		ld = sims.Metric{Name: "L_D", Value: s.g.LossD()} // not finite: diverged (the runner's check), not 0
	}
	if s.g.Steps() > 0 {
		lg = sims.Metric{Name: "L_G", Value: s.g.LossG()}
	}
	metrics := []sims.Metric{ld, lg}
	text := []string{
		fmt.Sprintf("%s loss, %s", cfg.Loss, s.updateText()),
		"best D* = p_data/(p_data + p_g) (Prop 6.1), ≡ ½ when p_g = p_data",
	}
	var charts []sims.Chart
	if s.dim == 2 {
		charts = append(charts, s.plane(fake))
	} else {
		charts = append(charts, s.line(fake))
	}
	charts = append(charts, losses)
	if m := s.target.Modes(); m > 0 {
		xy := fake
		if s.dim == 1 {
			xy = make([]float64, 2*len(fake))
			for i, x := range fake {
				xy[2*i] = x
			}
		}
		covered, share := toy2d.Coverage(s.target, xy, 0.5)
		metrics = append(metrics, sims.Metric{Name: "modes", Value: float64(covered)})
		// A bar is the mode's share of the generated points times the
		// number of modes: 1, a full bar, is its fair share.
		bars := sims.BarChart{Title: fmt.Sprintf("mode share ×%d, %d covered", m, covered), Max: 1}
		for k, sh := range share {
			bars.Bars = append(bars.Bars, sims.Bar{Label: fmt.Sprintf("mode %d", k+1), Value: sh * float64(m), Class: classModel})
		}
		charts = append(charts, bars)
	}
	return sims.Frame{Sim: GAN.Name, Step: s.steps(), Metrics: metrics, Charts: charts, Text: text}
}

func (s *ganSim) updateText() string {
	cfg := s.g.Config()
	switch {
	case cfg.Simultaneous:
		return "simultaneous updates"
	case s.phases && s.phase < cfg.DSteps:
		return fmt.Sprintf("k = %d D-steps per G-step; round %d, next: D-step %d of %d", cfg.DSteps, s.g.Steps()+1, s.phase+1, cfg.DSteps)
	case s.phases:
		return fmt.Sprintf("k = %d D-steps per G-step; round %d, next: the G-step", cfg.DSteps, s.g.Steps()+1)
	}
	return fmt.Sprintf("k = %d D-steps per G-step", cfg.DSteps)
}

// plane is the 2-D picture, GAN Lab's: D(x) as a heat map, the image
// under G of a grid of the latent plane (the generator's map), real
// points as dots and generated ones as glyphs (apart without colour),
// and the generator's gradient −∇_x L_G on some of its samples as arrows.
func (s *ganSim) plane(fake []float64) sims.CanvasChart {
	const nx, ny = ganGridX, ganGridY
	grid := make([]float64, 0, 2*nx*ny)
	for j := range ny {
		for i := range nx {
			grid = append(grid, s.view.XMin+(s.view.XMax-s.view.XMin)*(float64(i)+0.5)/nx,
				s.view.YMin+(s.view.YMax-s.view.YMin)*(float64(j)+0.5)/ny)
		}
	}
	heat := &sims.Grid{NX: nx, NY: ny, Z: s.g.Discriminate(grid, nil), Scale: sims.Diverging, Lo: 0, Hi: 1}
	arrowsAt := fake[:min(len(fake), 2*ganArrows)]
	grad := make([]float64, len(arrowsAt))
	s.g.Discriminate(arrowsAt, grad)
	top := 0.0
	for i := 0; i < len(grad); i += 2 {
		top = math.Max(top, math.Hypot(grad[i], grad[i+1]))
	}
	scale := 0.0
	if top > 0 {
		scale = 0.08 * (s.view.XMax - s.view.XMin) / top
	}
	paths := s.latentGrid()
	var heads []sims.Marker
	for i := 0; i < len(grad); i += 2 {
		x, y := arrowsAt[i], arrowsAt[i+1]
		dx, dy := scale*grad[i], scale*grad[i+1]
		paths = append(paths, sims.Path{X: []float64{x, x + dx}, Y: []float64{y, y + dy}, Class: classMark})
		if dx != 0 || dy != 0 {
			heads = append(heads, sims.Marker{X: x + dx, Y: y + dy, Glyph: arrowHead(dx, dy), Class: classMark})
		}
	}
	rx, ry := split(s.shown)
	fx, fy := split(fake)
	legend := []string{"real", "generated", "", "", "−∇L_G"}
	if len(paths) > len(heads) {
		legend[classFit] = "G(latent grid)"
	}
	return sims.CanvasChart{Title: "discriminator D(x), ½ = can't tell", View: s.view, Heat: heat, Paths: paths,
		Points: []sims.PointSet{{Name: "real", X: rx, Y: ry, Class: classData},
			{Name: "generated", X: fx, Y: fy, Class: classModel, Glyph: true}},
		Markers: heads, Legend: legend}
}

// ganLatentLines and ganLatentPoints shape the latent grid: lines
// z₁ = c and z₂ = c for c in −2…2, each drawn through that many points
// from −2.5 to 2.5 (the other coordinates 0).
const (
	ganLatentLines  = 5
	ganLatentPoints = 25
)

// latentGrid is the generator's map of the latent plane: the images
// under G of the grid lines of (z₁, z₂), dotted, as GAN Lab draws the
// manifold it folds onto the data; with one latent coordinate, the image
// of the line z ∈ [−2.5, 2.5].
func (s *ganSim) latentGrid() []sims.Path {
	nz := s.g.Config().Noise
	var paths []sims.Path
	line := func(axis int, c float64) {
		z := make([]float64, ganLatentPoints*nz)
		for k := range ganLatentPoints {
			t := -2.5 + 5*float64(k)/(ganLatentPoints-1)
			z[k*nz+axis] = t
			if nz > 1 {
				z[k*nz+1-axis] = c
			}
		}
		x, y := split(s.g.Generate(z))
		paths = append(paths, sims.Path{X: x, Y: y, Class: classFit, Dotted: true})
	}
	if nz == 1 {
		line(0, 0)
		return paths
	}
	for axis := range 2 {
		for k := range ganLatentLines {
			line(axis, -2+4*float64(k)/(ganLatentLines-1))
		}
	}
	return paths
}

// arrowHead is the arrow glyph nearest the direction (dx, dy), y up.
func arrowHead(dx, dy float64) rune {
	heads := [8]rune{'→', '↗', '↑', '↖', '←', '↙', '↓', '↘'}
	k := int(math.Round(math.Atan2(dy, dx)/(math.Pi/4))+8) % 8
	return heads[k]
}

// line is the 1-D picture: the generated histogram against the real one,
// with D(x) and the line ½.
func (s *ganSim) line(fake []float64) sims.HistChart {
	g := xs(s.lo, s.hi, ganCurve)
	w := (s.hi - s.lo) / 48
	realCurve := mapped(g, func(x float64) float64 {
		k := int((x - s.lo) / w)
		return s.realH[min(max(k, 0), 47)]
	})
	return sims.HistChart{Title: "generated against real, and D(x)", Lo: s.lo, Hi: s.hi, Label: "generated",
		Density: histogram(fake, s.lo, s.hi, 48), XLabel: "x",
		Curves: []sims.Curve{
			{Name: "real", X: g, Y: realCurve, Class: classData},
			{Name: "D(x)", X: g, Y: s.g.Discriminate(g, nil), Class: classFit},
			{Name: "½", X: []float64{s.lo, s.hi}, Y: []float64{0.5, 0.5}, Class: classRef},
		}}
}

func (s *ganSim) Result() map[string]any {
	r := map[string]any{"loss_d": s.g.LossD(), "loss_g": s.g.LossG(), "steps": s.g.Steps()}
	if s.target.Modes() > 0 && s.dim == 2 {
		c, share := toy2d.Coverage(s.target, s.g.Generate(s.z), 0.5)
		r["modes_covered"], r["mode_share"] = c, share
	}
	return r
}
