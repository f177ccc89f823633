package kernelsim

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/kernel"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// Geometry is the geometry of feature spaces in five short demos: the
// Cholesky change of coordinates, the embedding rebuilt from its Gram
// matrix up to rotation, the polynomial kernel's feature dimension, the
// Gaussian kernel's angles, and a function of an RKHS built one atom at a
// time with its reproducing property.
var Geometry = &sims.Spec{
	Name:   "kernel-geometry",
	Title:  "Kernel geometry: Cholesky coordinates, embedding from K, poly dimension, Gaussian angles, RKHS",
	Source: "seed 000 §4.1–4.6 (eqs 4.3, 4.6–4.10, 4.16, 4.19–4.22, L1427–1575); seed 003 L272–397 (RKHS construction)",
	Steps:  geoSteps,
	Speed:  1,
	// Each demo is twenty steps: the pane shows the end for
	// sims.ReplayPause, then replays from the next seed.
	Replay:  sims.ReplayPause,
	Params:  param.List(geoDemo, geoN, geoSigma),
	New:     newGeometry,
	Size:    geoSize,
	Metrics: geometryMetrics,
}

// geoSteps is the length of every demo.
const geoSteps = 20

// geoDemoKind is a demo of kernel-geometry.
type geoDemoKind string

func (d geoDemoKind) String() string { return string(d) }

const (
	geoCholesky geoDemoKind = "cholesky"
	geoRotation geoDemoKind = "rotation"
	geoPoly     geoDemoKind = "poly"
	geoAngle    geoDemoKind = "angle"
	geoRKHS     geoDemoKind = "rkhs"
)

// kernel-geometry's parameters.
var (
	geoDemo = param.Choice("demo", []geoDemoKind{geoCholesky, geoRotation, geoPoly, geoAngle, geoRKHS}, geoRKHS,
		"cholesky: xᵀMy = ⟨Ux, Uy⟩ for M = UᵀU (eq 4.3); rotation: points rebuilt from K = XXᵀ alone, equal up to "+
			"an orthogonal Q (eqs 4.8–4.10); poly: the feature dimension C(n+d−1, d) of (xᵀy)^d, d = 1…20 (L1536); "+
			"angle: the Gaussian kernel's angle arccos k against ‖x−y‖/σ (L1565–1575); rkhs: f = Σα_i k(x_i,·) "+
			"one atom a step, ‖f‖² = αᵀKα, f(x) = ⟨f, k(x,·)⟩ (seed 003 L315–332)")
	geoN     = param.Int("n", 5, "demo=poly: the dimension n of x in k(x,y) = (xᵀy)^d").Range(1, 6)
	geoSigma = param.Float("sigma", 0.6,
		"demo=rkhs: the width σ of the Gaussian kernel exp(−‖x−y‖²/(2σ²)) (the angle demo's axis is r/σ, free of σ)").
		Range(0.05, 5)
)

// geoSize is what kernel-geometry holds: its charts and, for demo=poly,
// the explicit feature map of degree 20, the largest (its exponents and
// coefficients; the feature vectors of a step are garbage after it).
func geoSize(cfg sims.Config) int64 {
	if geoDemo.Get(cfg.Values) != geoPoly {
		return geoBase
	}
	n := geoN.Get(cfg.Values)
	return geoBase + int64(kernel.PolyDim(n, geoSteps))*(int64(n)+8)
}

// geoBase is what kernel-geometry holds whatever its demo.
const geoBase = 40 << 10

// geoSim is one demo's state: each demo fills its part.
type geoSim struct {
	demo  geoDemoKind
	rng   *rand.Rand
	steps int
	// cholesky: M = UᵀU, the points and their images.
	cc     *kernel.CholeskyCoords
	mm     [4]float64
	xs, ws [][]float64
	gap    float64 // max |xᵀMy − ⟨Ux,Uy⟩| over pairs
	gapTop float64 // max |xᵀMy|: gap's scale
	// rotation: the points X (xs), X̂ from K alone, Q and the errors.
	xh           [][]float64
	q            [][]float64
	k            []float64
	recon, orth  float64
	kErr, kScale float64
	// poly: the map of degree d and its check on two points.
	n        int
	pm       *kernel.PolyMap
	px, py   []float64
	dims     []float64 // ℓ(d) for d = 1…
	polyGap  float64   // relative |(xᵀy)^d − ⟨φ(x),φ(y)⟩|
	polyRows []sims.TableRow
	// angle: θ, chord and closed form per r/σ.
	theta, chord []float64
	angleGap     float64
	taylor       []float64 // |(4.20) at degree j − k| for the last pair
	// rkhs.
	sigma    float64
	f        *kernel.RKHS
	checks   [][]float64 // the points where the reproducing property is checked
	norms    []float64   // ‖f‖²_H after each atom
	peaks    []float64   // max_x |f(x)|² over the grid after each atom
	reproGap float64
	normGap  float64
	grid     []float64
}

func newGeometry(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	s := &geoSim{demo: geoDemo.Get(v), rng: rand.New(rand.NewPCG(cfg.Seed, 0x67656f6d)), n: geoN.Get(v), sigma: geoSigma.Get(v)} // "geom"
	switch s.demo {
	case geoCholesky:
		a := [4]float64{s.rng.NormFloat64(), s.rng.NormFloat64(), s.rng.NormFloat64(), s.rng.NormFloat64()}
		s.mm = [4]float64{a[0]*a[0] + a[2]*a[2] + 0.3, a[0]*a[1] + a[2]*a[3], 0, a[1]*a[1] + a[3]*a[3] + 0.3}
		s.mm[2] = s.mm[1]
		var err error
		if s.cc, err = kernel.NewCholeskyCoords(s.mm[:], 2); err != nil {
			return nil, err
		}
	case geoRotation:
	case geoPoly:
		s.px, s.py = make([]float64, s.n), make([]float64, s.n)
		for i := range s.px { // ‖x‖, ‖y‖ about 1: (xᵀy)^d stays in range
			s.px[i], s.py[i] = s.rng.NormFloat64()/math.Sqrt(float64(s.n)), s.rng.NormFloat64()/math.Sqrt(float64(s.n))
		}
	case geoAngle:
	case geoRKHS:
		var err error
		if s.f, err = kernel.NewRKHS(kernel.RBF{Gamma: 1 / (2 * s.sigma * s.sigma)}, geoSteps); err != nil {
			return nil, err
		}
		for range 5 {
			s.checks = append(s.checks, []float64{-rkhsSpan + 2*rkhsSpan*s.rng.Float64()})
		}
		s.grid = make([]float64, rkhsGrid)
		for i := range s.grid {
			s.grid[i] = -rkhsSpan + 2*rkhsSpan*float64(i)/float64(rkhsGrid-1)
		}
	}
	if err := s.advance(); err != nil {
		return nil, err
	}
	return s, nil
}

// rkhsSpan is the half-width of the rkhs demo's line; rkhsGrid its points.
const (
	rkhsSpan = 3.0
	rkhsGrid = 121
)

// last is the demo's last step: poly ends at degree 20, the largest
// that kernel.MaxPolyFeatures allows for n = 6 (C(25, 20) = 53130).
func (s *geoSim) last() int {
	if s.demo == geoPoly {
		return geoSteps - 1
	}
	return geoSteps
}

func (s *geoSim) Step() error {
	if s.steps == s.last() {
		return algo.ErrConverged
	}
	s.steps++
	return s.advance()
}

// advance does the demo's work for the current step.
func (s *geoSim) advance() error {
	switch s.demo {
	case geoCholesky:
		return s.cholesky()
	case geoRotation:
		return s.rotation()
	case geoPoly:
		return s.poly()
	case geoAngle:
		s.angle()
	case geoRKHS:
		return s.rkhs()
	}
	return nil
}

// cholesky adds a point x and its image Ux, and checks xᵀMy = ⟨Ux, Uy⟩
// against every earlier point.
func (s *geoSim) cholesky() error {
	for len(s.xs) < s.steps+2 {
		r := 0.4 + 0.8*s.rng.Float64()
		a := 2 * math.Pi * s.rng.Float64()
		x := []float64{r * math.Cos(a), r * math.Sin(a)}
		w := s.cc.Map(x, make([]float64, 2))
		for i, y := range s.xs {
			ip := s.cc.Inner(x, y)
			s.gap = math.Max(s.gap, math.Abs(ip-kernel.Eval(kernel.Linear{}, w, s.ws[i])))
			s.gapTop = math.Max(s.gapTop, math.Abs(ip))
		}
		s.xs, s.ws = append(s.xs, x), append(s.ws, w)
	}
	return nil
}

// rotation adds a point of an arm of a spiral, rebuilds the points from
// K = XXᵀ and aligns them with X by Procrustes.
func (s *geoSim) rotation() error {
	for len(s.xs) < s.steps+3 {
		t := float64(len(s.xs))
		r := 0.25 + 0.06*t
		a := 0.45*t + 0.05*s.rng.NormFloat64()
		s.xs = append(s.xs, []float64{r * math.Cos(a), r * math.Sin(a)})
	}
	n := len(s.xs)
	s.k = kernel.Gram(kernel.Linear{}, s.xs)
	var err error
	if s.xh, err = kernel.Embed(s.k, n, 2); err != nil {
		return err
	}
	if s.q, err = kernel.Procrustes(s.xh, s.xs); err != nil {
		return err
	}
	s.recon, s.kErr, s.kScale = 0, 0, 0
	for i, x := range s.xs {
		for c := 0; c < 2; c++ {
			d := s.xh[i][c] - (x[0]*s.q[0][c] + x[1]*s.q[1][c])
			s.recon += d * d
		}
		for j := range s.xs {
			s.kErr = math.Max(s.kErr, math.Abs(s.xh[i][0]*s.xh[j][0]+s.xh[i][1]*s.xh[j][1]-s.k[i*n+j]))
			s.kScale = math.Max(s.kScale, math.Abs(s.k[i*n+j]))
		}
	}
	s.recon = math.Sqrt(s.recon)
	s.orth = 0
	for i := 0; i < 2; i++ {
		for j := 0; j < 2; j++ {
			want := 0.0
			if i == j {
				want = 1
			}
			s.orth = math.Max(s.orth, math.Abs(s.q[0][i]*s.q[0][j]+s.q[1][i]*s.q[1][j]-want))
		}
	}
	return nil
}

// poly builds the explicit map of degree d = step + 1, counts its
// monomials against C(n+d−1, d) and checks (xᵀy)^d = ⟨φ(x), φ(y)⟩.
func (s *geoSim) poly() error {
	d := s.steps + 1
	pm, err := kernel.NewPolyMap(s.n, d)
	if err != nil {
		return err
	}
	s.pm = pm
	fx, fy := pm.Map(s.px, make([]float64, pm.Dim())), pm.Map(s.py, make([]float64, pm.Dim()))
	want := math.Pow(kernel.Eval(kernel.Linear{}, s.px, s.py), float64(d))
	got := kernel.Eval(kernel.Linear{}, fx, fy)
	scale := math.Pow(math.Sqrt(kernel.Eval(kernel.Linear{}, s.px, s.px)*kernel.Eval(kernel.Linear{}, s.py, s.py)), float64(d))
	s.polyGap = math.Abs(got-want) / scale
	formula := kernel.PolyDim(s.n, d)
	s.dims = append(s.dims, formula)
	mark := "✓"
	if float64(pm.Dim()) != formula {
		mark = "✗"
	}
	s.polyRows = append(s.polyRows, sims.TableRow{Label: fmt.Sprint(d), Cells: []sims.Cell{
		sims.Num(float64(pm.Dim()), fmt.Sprint(pm.Dim())),
		sims.Num(formula, mark+" "+fmt.Sprint(formula)),
	}})
	return nil
}

// angleR is r/σ at the current step of the angle demo.
func (s *geoSim) angleR() float64 { return 0.2 * float64(s.steps) }

// angle places two points of R² at distance rσ and measures the angle of
// their features from the kernel.
func (s *geoSim) angle() {
	const sigma = 1.3 // any σ: the curve depends on r/σ only
	r := s.angleR()
	a := 2 * math.Pi * s.rng.Float64()
	x := []float64{s.rng.NormFloat64(), s.rng.NormFloat64()}
	y := []float64{x[0] + r*sigma*math.Cos(a), x[1] + r*sigma*math.Sin(a)}
	k := kernel.RBF{Gamma: 1 / (2 * sigma * sigma)}
	kxy := kernel.Eval(k, x, y)
	th, ch := kernel.GaussAngle(kxy, kernel.Eval(k, x, x), kernel.Eval(k, y, y))
	cf := math.Acos(math.Exp(-r * r / 2))
	s.theta, s.chord = append(s.theta, th), append(s.chord, ch)
	s.angleGap = math.Max(s.angleGap, math.Abs(th-cf))
	s.taylor = s.taylor[:0]
	for j := 0; j <= 12; j++ {
		s.taylor = append(s.taylor, sims.NoiseFloor(math.Abs(kernel.GaussTaylor(x, y, sigma, j)-kxy), 1))
	}
}

// rkhs adds one atom α k(c, ·) and checks ‖f‖² and the reproducing
// property.
func (s *geoSim) rkhs() error {
	if s.steps > 0 {
		c := []float64{-rkhsSpan + 2*rkhsSpan*s.rng.Float64()}
		if err := s.f.Add(c, s.rng.NormFloat64()); err != nil {
			return err
		}
	}
	n2 := s.f.Norm2()
	s.norms = append(s.norms, n2)
	s.normGap = math.Abs(n2 - s.f.Norm2Gram())
	peak := 0.0
	for _, x := range s.grid {
		v := s.f.Eval([]float64{x})
		peak = math.Max(peak, v*v)
	}
	s.peaks = append(s.peaks, peak)
	s.reproGap = 0
	for _, x := range s.checks {
		r, err := s.f.Reproduce(x)
		if err != nil {
			return err
		}
		s.reproGap = math.Max(s.reproGap, math.Abs(r-s.f.Eval(x)))
	}
	return nil
}

func (s *geoSim) Frame() sims.Frame {
	f := sims.Frame{Sim: Geometry.Name, Step: s.steps}
	switch s.demo {
	case geoCholesky:
		s.choleskyFrame(&f)
	case geoRotation:
		s.rotationFrame(&f)
	case geoPoly:
		s.polyFrame(&f)
	case geoAngle:
		s.angleFrame(&f)
	case geoRKHS:
		s.rkhsFrame(&f)
	}
	return f
}

// scatter is the coordinates of points as x, y slices.
func scatter(p [][]float64) (x, y []float64) {
	x, y = make([]float64, len(p)), make([]float64, len(p))
	for i, v := range p {
		x[i], y[i] = v[0], v[1]
	}
	return x, y
}

// square is the view around the points, square and padded.
func square(p [][]float64) sims.Rect {
	m := 0.0
	for _, v := range p {
		m = math.Max(m, math.Max(math.Abs(v[0]), math.Abs(v[1])))
	}
	m *= 1.15
	return sims.Rect{XMin: -m, XMax: m, YMin: -m, YMax: m}
}

func (s *geoSim) choleskyFrame(f *sims.Frame) {
	n := len(s.xs)
	x, y := scatter(s.xs)
	wx, wy := scatter(s.ws)
	// The M-unit ellipse {x: xᵀMx = 1} has the shape of the covariance M⁻¹.
	det := s.mm[0]*s.mm[3] - s.mm[1]*s.mm[1]
	ell := sims.Ellipse(0, 0, s.mm[3]/det, -s.mm[1]/det, s.mm[0]/det, 1, 1)
	ell.Dotted = true
	circle := sims.Ellipse(0, 0, 1, 0, 1, 1, 1)
	circle.Dotted = true
	last, prev := s.xs[n-1], s.xs[n-2]
	lw, pw := s.ws[n-1], s.ws[n-2]
	ip := s.cc.Inner(last, prev)
	dp := kernel.Eval(kernel.Linear{}, lw, pw)
	all := append([][]float64{}, s.xs...)
	for i := range ell.X {
		all = append(all, []float64{ell.X[i], ell.Y[i]})
	}
	view := square(all)
	wview := square(append(append([][]float64{}, s.ws...), []float64{1, 1}))
	f.Metrics = []sims.Metric{
		{Name: "points", Value: float64(n)},
		{Name: "inner_M", Value: ip},
		{Name: "inner_gap", Value: s.gap, Scale: s.gapTop},
	}
	f.Charts = []sims.Chart{
		sims.CanvasChart{Title: "x: ⟨x,y⟩_M = xᵀMy, xᵀMx = 1 dotted", View: view,
			Points:  []sims.PointSet{{Name: "x", X: x, Y: y, Class: 0}},
			Paths:   []sims.Path{ell},
			Markers: []sims.Marker{{X: last[0], Y: last[1], Glyph: '●', Class: 2}, {X: prev[0], Y: prev[1], Glyph: '○', Class: 2}},
			Legend:  []string{"points x", "xᵀMx = 1", "x, y: the last two"},
			XLabel:  "x₁", YLabel: "x₂"},
		sims.CanvasChart{Title: "w = Ux: the plain dot product, ‖w‖ = 1 dotted", View: wview,
			Points:  []sims.PointSet{{Name: "w", X: wx, Y: wy, Class: 0}},
			Paths:   []sims.Path{circle},
			Markers: []sims.Marker{{X: lw[0], Y: lw[1], Glyph: '●', Class: 2}, {X: pw[0], Y: pw[1], Glyph: '○', Class: 2}},
			Legend:  []string{"images w = Ux", "‖w‖ = 1", "Ux, Uy"},
			XLabel:  "w₁", YLabel: "w₂"},
		sims.TableChart{Title: "M = UᵀU and the last pair", Columns: []string{"1", "2"}, Rows: []sims.TableRow{
			{Label: "M row 1", Cells: []sims.Cell{sims.Num(s.mm[0], fmt.Sprintf("%.3f", s.mm[0])), sims.Num(s.mm[1], fmt.Sprintf("%.3f", s.mm[1]))}},
			{Label: "M row 2", Cells: []sims.Cell{sims.Num(s.mm[2], fmt.Sprintf("%.3f", s.mm[2])), sims.Num(s.mm[3], fmt.Sprintf("%.3f", s.mm[3]))}},
			{Label: "U row 1", Cells: []sims.Cell{sims.Num(s.cc.U(0, 0), fmt.Sprintf("%.3f", s.cc.U(0, 0))), sims.Num(s.cc.U(0, 1), fmt.Sprintf("%.3f", s.cc.U(0, 1)))}},
			{Label: "U row 2", Cells: []sims.Cell{{Text: "0"}, sims.Num(s.cc.U(1, 1), fmt.Sprintf("%.3f", s.cc.U(1, 1)))}},
			{Label: "xᵀMy", Cells: []sims.Cell{sims.Num(ip, fmt.Sprintf("%.6f", ip))}},
			{Label: "⟨Ux,Uy⟩", Cells: []sims.Cell{sims.Num(dp, fmt.Sprintf("%.6f", dp))}},
		}},
	}
	f.Text = []string{
		fmt.Sprintf("M = UᵀU (Cholesky, U upper: the notes' L); w = Ux turns xᵀMy into w·z: gap over all pairs %s", sims.IsResidual("%.1e", s.gap, s.gapTop)),
		"the M-unit ellipse maps onto the unit circle: every Euclidean space is Rⁿ in other coordinates (§4.1.1)",
	}
}

func (s *geoSim) rotationFrame(f *sims.Frame) {
	n := len(s.xs)
	x, y := scatter(s.xs)
	hx, hy := scatter(s.xh)
	back := make([][]float64, n) // X̂Qᵀ: X̂ turned back onto X
	for i, p := range s.xh {
		back[i] = []float64{p[0]*s.q[0][0] + p[1]*s.q[0][1], p[0]*s.q[1][0] + p[1]*s.q[1][1]}
	}
	var marks []sims.Marker
	for _, p := range back {
		marks = append(marks, sims.Marker{X: p[0], Y: p[1], Glyph: '×', Class: 2})
	}
	det := s.q[0][0]*s.q[1][1] - s.q[0][1]*s.q[1][0]
	what := fmt.Sprintf("a rotation by %.0f°", math.Atan2(s.q[0][1], s.q[0][0])*180/math.Pi)
	if det < 0 {
		what = "a reflection (det Q = −1)"
	}
	z := make([]float64, n*n)
	for j := 0; j < n; j++ {
		for i := 0; i < n; i++ {
			z[j*n+i] = s.k[(n-1-j)*n+i]
		}
	}
	f.Metrics = []sims.Metric{
		{Name: "points", Value: float64(n)},
		{Name: "recon_err", Value: s.recon, Scale: math.Sqrt(s.kScale * float64(n))},
		{Name: "orth_err", Value: s.orth, Scale: 1},
		{Name: "gram_err", Value: s.kErr, Scale: s.kScale},
	}
	f.Charts = []sims.Chart{
		sims.CanvasChart{Title: "X, and X̂ rebuilt from K = XXᵀ alone", View: square(append(append([][]float64{}, s.xs...), s.xh...)),
			Points: []sims.PointSet{{Name: "X", X: x, Y: y, Class: 0}, {Name: "X̂", X: hx, Y: hy, Class: 1}},
			Paths:  []sims.Path{{X: x, Y: y, Class: 0}, {X: hx, Y: hy, Class: 1}}, Markers: marks,
			Legend: []string{"X", "X̂ = V√Λ", "X̂Qᵀ: back on X"},
			XLabel: "coordinate 1", YLabel: "coordinate 2"},
		sims.CanvasChart{Title: fmt.Sprintf("K = XXᵀ, %d×%d: all X̂ is built from", n, n),
			View:   sims.Rect{XMin: 0, XMax: float64(n), YMin: 0, YMax: float64(n)},
			Heat:   &sims.Grid{NX: n, NY: n, Z: z, Scale: sims.Diverging},
			XLabel: "j", YLabel: "i",
			XIndex: &sims.Index{First: 1, Last: n, At: -0.5, Step: 1},
			YIndex: &sims.Index{First: 1, Last: n, At: float64(n) + 0.5, Step: -1}},
	}
	f.Text = []string{
		fmt.Sprintf("K = VΛVᵀ, X̂ = V₂√Λ₂ has X̂X̂ᵀ = K; Procrustes finds Q, QᵀQ = I, with X̂ = XQ: %s", what),
		fmt.Sprintf("‖X̂ − XQ‖ %s: K fixes the points up to an orthogonal map, eqs 4.9–4.10", sims.IsResidual("%.1e", s.recon, math.Sqrt(s.kScale*float64(n)))),
		"one step adds a point; the notes' Cholesky needs K invertible, which K of 3+ points in R² is not",
	}
}

func (s *geoSim) polyFrame(f *sims.Frame) {
	d := s.steps + 1
	cost := make([]float64, len(s.dims))
	for i := range cost {
		cost[i] = float64(s.n) + math.Ceil(math.Log2(float64(i+1))) // n products, then the power by squaring
	}
	rows := s.polyRows
	if len(rows) > 8 {
		rows = rows[len(rows)-8:]
	}
	f.Metrics = []sims.Metric{
		{Name: "d", Value: float64(d)},
		{Name: "dim", Value: float64(s.pm.Dim())},
		{Name: "dim_formula", Value: s.dims[len(s.dims)-1]},
		{Name: "kernel_gap", Value: s.polyGap, Scale: 1},
	}
	f.Charts = []sims.Chart{
		sims.LineChart{Title: fmt.Sprintf("dimension ℓ vs kernel cost, n = %d", s.n), LogY: true,
			X0: 1, X1: float64(d), XLabel: "degree d",
			Series: []sims.Series{
				{Name: "ℓ = C(n+d−1,d)", Y: append([]float64(nil), s.dims...), Class: 0},
				{Name: "k: n + log₂d mults", Y: cost, Class: 1},
			}},
		sims.TableChart{Title: "monomials counted vs the formula", Corner: "d",
			Columns: []string{"counted", "C(n+d−1,d)"}, Rows: rows},
	}
	f.Text = []string{
		fmt.Sprintf("φ(x) lists the %d monomials x^a, |a| = %d, times √(d!/∏a_i!); ⟨φ(x),φ(y)⟩ = (xᵀy)^d, gap %s",
			s.pm.Dim(), d, sims.IsResidual("%.1e", s.polyGap, 1)),
		"n = d = 2: φ(x) = (x₁², √2x₁x₂, x₂²), eq 4.2; the kernel trick pays n, never ℓ",
	}
}

func (s *geoSim) angleFrame(f *sims.Frame) {
	r := s.angleR()
	th := s.theta[len(s.theta)-1]
	m := len(s.theta)
	ident, right := make([]float64, m), make([]float64, m)
	for i := range ident {
		ident[i] = 0.2 * float64(i)
		if ident[i] > 2 { // past the picture's interest: θ stops at π/2
			ident[i] = math.NaN()
		}
		right[i] = math.Pi / 2
	}
	arc := sims.Path{Class: 2, Dotted: true}
	for i := 0; i <= 40; i++ {
		a := math.Pi / 2 * float64(i) / 40
		arc.X, arc.Y = append(arc.X, math.Cos(a)), append(arc.Y, math.Sin(a))
	}
	f.Metrics = []sims.Metric{
		{Name: "r/σ", Value: r},
		{Name: "theta", Value: th},
		{Name: "theta_deg", Value: th * 180 / math.Pi},
		{Name: "angle_gap", Value: s.angleGap, Scale: 1},
	}
	f.Charts = []sims.Chart{
		sims.LineChart{Title: "angle θ = arccos k(x,y) in H vs ‖x−y‖/σ", X0: 0, X1: r, XLabel: "r = ‖x−y‖/σ",
			Series: []sims.Series{
				{Name: "θ (rad)", Y: append([]float64(nil), s.theta...), Class: 0},
				{Name: "chord ‖φx−φy‖", Y: append([]float64(nil), s.chord...), Class: 1},
				{Name: "r (4.22)", Y: ident, Class: 2, Bound: true},
				{Name: "π/2 = 90°", Y: right, Class: 3, Bound: true},
			}},
		sims.CanvasChart{Title: fmt.Sprintf("φ(x), φ(y) on H's unit sphere: %.1f°", th*180/math.Pi),
			View: sims.Rect{XMin: -0.15, XMax: 1.15, YMin: -0.15, YMax: 1.15},
			Paths: []sims.Path{arc,
				{X: []float64{0, 1}, Y: []float64{0, 0}, Class: 0},
				{X: []float64{0, math.Cos(th)}, Y: []float64{0, math.Sin(th)}, Class: 1}},
			Legend: []string{"φ(x)", "φ(y)", "unit sphere"}},
		sims.LineChart{Title: "(4.20) cut at degree j: |error|", LogY: true, X0: 0, X1: float64(len(s.taylor) - 1), XLabel: "degree j",
			Series: []sims.Series{{Name: "|k_j − k|", Y: append([]float64(nil), s.taylor...), Class: 0}}},
	}
	f.Text = []string{
		fmt.Sprintf("k(x,x) = 1: every φ(x) is a unit vector of H, and cos θ = k(x,y); r/σ = %.1f: θ = %.1f°", r, th*180/math.Pi),
		fmt.Sprintf("|θ − arccos exp(−r²/2)| %s; θ ≈ r for close points (4.22), → 90° far apart: one-hot", sims.IsResidual("%.1e", s.angleGap, 1)),
		"(4.22) calls θ the chord ‖φ(x)−φ(y)‖ = √(2−2k): equal only to first order in r",
	}
}

func (s *geoSim) rkhsFrame(f *sims.Frame) {
	n2 := s.f.Norm2()
	norm := math.Sqrt(math.Max(n2, 0))
	fy := make([]float64, len(s.grid))
	for i, x := range s.grid {
		fy[i] = s.f.Eval([]float64{x})
	}
	var paths []sims.Path
	var marks []sims.Marker
	for i := 0; i < s.f.Atoms(); i++ { // the centres on the axis, the newest atom drawn
		c, a := s.f.Atom(i)
		marks = append(marks, sims.Marker{X: c[0], Y: 0, Glyph: '•', Class: 2})
		if i == s.f.Atoms()-1 {
			p := sims.Path{X: s.grid, Y: make([]float64, len(s.grid)), Class: 2, Dotted: true}
			for j, x := range s.grid {
				p.Y[j] = a * kernel.Eval(kernel.RBF{Gamma: 1 / (2 * s.sigma * s.sigma)}, c, []float64{x})
			}
			paths = append(paths, p)
		}
	}
	paths = append(paths,
		sims.Path{X: []float64{s.grid[0], s.grid[len(s.grid)-1]}, Y: []float64{norm, norm}, Class: 1, Dotted: true},
		sims.Path{X: []float64{s.grid[0], s.grid[len(s.grid)-1]}, Y: []float64{-norm, -norm}, Class: 1, Dotted: true},
		sims.Path{X: s.grid, Y: fy, Class: 0})
	for _, x := range s.checks {
		marks = append(marks, sims.Marker{X: x[0], Y: s.f.Eval(x), Glyph: '◆', Class: 3})
	}
	top := math.Max(norm, 0.5) * 1.15
	for _, p := range paths {
		for _, v := range p.Y {
			top = math.Max(top, 1.05*math.Abs(v))
		}
	}
	f.Metrics = []sims.Metric{
		{Name: "atoms", Value: float64(s.f.Atoms())},
		{Name: "norm2", Value: n2},
		{Name: "norm2_gap", Value: s.normGap, Scale: math.Max(n2, 1)},
		{Name: "repro_gap", Value: s.reproGap, Scale: math.Max(norm, 1)},
		sims.MetricOr("peak_ratio", math.Sqrt(s.peaks[len(s.peaks)-1])/norm, "f = 0 has ‖f‖ = 0"),
	}
	f.Charts = []sims.Chart{
		sims.CanvasChart{Title: "f = Σ α_i k(x_i,·) inside ±√k(x,x)·‖f‖_H", View: sims.Rect{XMin: -rkhsSpan, XMax: rkhsSpan, YMin: -top, YMax: top},
			Paths: paths, Markers: marks,
			Legend: []string{"f", "±‖f‖_H (k(x,x) = 1)", "centres x_i, newest atom", "checks f(x) = ⟨f,k(x,·)⟩"},
			XLabel: "x", YLabel: "f(x)"},
		sims.LineChart{Title: "‖f‖²_H = αᵀKα, and max |f(x)|² under it", X0: 0, X1: float64(s.f.Atoms()), XLabel: "atoms",
			Series: []sims.Series{
				{Name: "‖f‖²_H", Y: append([]float64(nil), s.norms...), Class: 1},
				{Name: "max |f|²", Y: append([]float64(nil), s.peaks...), Class: 0},
			}},
	}
	f.Text = []string{
		fmt.Sprintf("a step adds α k(x_i,·); ‖f‖²_H = αᵀKα = %.3g, by update and by K: gap %s", n2, sims.IsResidual("%.1e", s.normGap, math.Max(n2, 1))),
		fmt.Sprintf("f(x) = ⟨f,k(x,·)⟩_H at ◆, taken in coordinates of K = X̂X̂ᵀ: gap %s", sims.IsResidual("%.1e", s.reproGap, math.Max(norm, 1))),
		"|f(x)| ≤ √k(x,x)·‖f‖_H (Cauchy–Schwarz): f never leaves the band",
	}
}

func (s *geoSim) Result() map[string]any {
	res := map[string]any{"demo": string(s.demo), "step": s.steps}
	switch s.demo {
	case geoCholesky:
		res["inner_gap"] = s.gap
		res["m"] = s.mm[:]
	case geoRotation:
		res["recon_err"], res["orth_err"], res["gram_err"], res["q"] = s.recon, s.orth, s.kErr, s.q
	case geoPoly:
		res["dims"], res["kernel_gap"] = s.dims, s.polyGap
	case geoAngle:
		res["theta"], res["chord"], res["angle_gap"] = s.theta, s.chord, s.angleGap
	case geoRKHS:
		res["norm2"], res["repro_gap"], res["norm2_gap"] = s.norms, s.reproGap, s.normGap
	}
	return res
}
