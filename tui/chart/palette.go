package chart

import (
	"math"
	"sync"

	"github.com/guptarohit/asciigraph"
	"github.com/thelab/lab/sims"
)

// classAnsi is the categorical palette as xterm-256 colours: distinct on
// dark and light backgrounds, and the same hues in line charts (asciigraph
// takes 256-colour indices) and canvases (classColors, the same colours in
// 24-bit). Each falls on a different one of the 16 basic colours when a
// 16-colour terminal reduces it (the xterm-256 → 16 table of
// charmbracelet/x/ansi, which Bubble Tea and colorprofile use), so the
// classes stay apart in truecolor, 256 and 16 colours alike: the pink,
// gold, purple, red and tan of an earlier palette all became bright red
// or bright blue there.
var (
	classAnsi = []asciigraph.AnsiColor{
		33,  // blue (16 colours: bright blue)
		214, // orange (bright red)
		72,  // green (green)
		207, // magenta (bright magenta)
		184, // gold (bright yellow)
		97,  // purple (blue)
		44,  // turquoise (bright cyan)
		124, // red (red)
		143, // khaki (yellow)
		250, // grey (white)
	}
	classColors = func() []rgb {
		out := make([]rgb, len(classAnsi))
		for i, c := range classAnsi {
			out[i] = xterm256(int(c))
		}
		return out
	}()
	// classGlyphs tell classes apart without colour.
	classGlyphs = []rune{'•', '+', 'x', 'o', '*', '#', '%', '@', '=', '~'}
	unlabelled  = newRGB(0x9a, 0x9a, 0x9a)
	axisColor   = newRGB(0x80, 0x80, 0x80)
	titleColor  rgb // the terminal's own foreground, readable on dark and light
	contourInk  = newRGB(0xf0, 0xf0, 0xf0)
)

func classColor(c int) rgb {
	if c < 0 {
		return unlabelled
	}
	return classColors[c%len(classColors)]
}

// classOf is the class a categorical value names: -1 (unlabelled) for
// one that is not finite.
func classOf(z float64) int {
	if !isFinite(z) {
		return -1
	}
	return clampInt(math.Round(z), -1, math.MaxInt32)
}

func classGlyph(c int) rune {
	if c < 0 {
		return '·'
	}
	return classGlyphs[c%len(classGlyphs)]
}

// viridis stops, for sequential scales.
var viridis = []rgb{
	newRGB(0x44, 0x01, 0x54), newRGB(0x41, 0x44, 0x87), newRGB(0x2a, 0x78, 0x8e),
	newRGB(0x22, 0xa8, 0x84), newRGB(0x7a, 0xd1, 0x51), newRGB(0xfd, 0xe7, 0x25),
}

// greys is the ramp of the Grey scale: paper (near black, like a dark
// terminal) to ink (white), neutral so that a 256-colour terminal gets
// its grey ramp.
var greys = []rgb{newRGB(0x12, 0x12, 0x12), newRGB(0xf4, 0xf4, 0xf4)}

// diverging stops: blue, white, red.
var diverging = []rgb{newRGB(0x2c, 0x6f, 0xd6), newRGB(0xf2, 0xf2, 0xf2), newRGB(0xd6, 0x33, 0x2c)}

// darkDiverging is the Diverging ramp of images: blue, the dark of the
// terminal at the middle (a zero weight is blank paper), red.
var darkDiverging = []rgb{newRGB(0x3a, 0x80, 0xf0), newRGB(0x16, 0x16, 0x16), newRGB(0xf0, 0x44, 0x3a)}

// rampID names a continuous ramp: the stops of a colour scale.
type rampID uint8

const (
	rampViridis       rampID = iota // Sequential
	rampDiverging                   // Diverging on a canvas
	rampDarkDiverging               // Diverging in an image
	rampGreys                       // Grey
)

// rampStops are the stops of each ramp, by rampID.
var rampStops = [...][]rgb{rampViridis: viridis, rampDiverging: diverging, rampDarkDiverging: darkDiverging, rampGreys: greys}

// rampOf is the ramp of a continuous scale; dark says the diverging one
// with a dark middle (images).
func rampOf(s sims.ColorScale, dark bool) rampID {
	switch s {
	case sims.Diverging:
		if dark {
			return rampDarkDiverging
		}
		return rampDiverging
	case sims.Grey:
		return rampGreys
	}
	return rampViridis
}

// tone says how a ramp's colour is pulled toward heatShadow: it keeps the
// fraction keep of the colour, then is dimmed by dim. An image's pixel
// is {1, 0}; a field under what a canvas draws over it is dimmed.
type tone struct{ keep, dim float64 }

// paint is the colour at t ∈ [0, 1] of ramp id in tone tn. In 24-bit
// colour it is the ramp's blend; with a 256-colour palette it is one of
// levels256 xterm colours chosen for this ramp and tone (ramp256), so
// that the terminal's own rounding, which merges the dark half of a
// dimmed ramp into two or three cells, never happens.
func paint(id rampID, t float64, tn tone, o Options) rgb {
	if o.Palette256 {
		cells := ramp256(id, tn)
		return cells[int(math.Round(clamp01(t)*float64(len(cells)-1)))]
	}
	return blend(blend(heatShadow, ramp(rampStops[id], t), tn.keep), heatShadow, tn.dim)
}

// levels256 is how many distinct colours a ramp has in a 256-colour
// palette: more than the 12 levels a reader is to tell apart, and few
// enough that each is a colour of its own in the 6×6×6 cube and the 24
// greys (a dark ramp has not many more).
const levels256 = 16

type rampKey struct {
	id        rampID
	keep, dim int // in twentieths
}

var (
	ramps256Mu sync.Mutex
	ramps256   = map[rampKey][]rgb{}
)

// ramp256 is ramp id in tone tn as levels256 xterm-256 colours, computed
// once per ramp and tone (the tone rounded to twentieths). The terminal's
// own rounding takes each 24-bit level to its nearest palette colour
// alone, and a dark ramp's levels then share two or three. Here the
// levels are split where the ramp's lightness turns (a diverging ramp's
// middle), and each run of levels is the sequence of palette colours
// nearest to the 24-bit ones (least squares in CIELAB) whose lightness
// moves the ramp's way, each at least minStep256 from the one before and
// none taken by an earlier run: every level has a colour of its own.
func ramp256(id rampID, tn tone) []rgb {
	k := rampKey{id, int(math.Round(clamp01(tn.keep) * 20)), int(math.Round(clamp01(tn.dim) * 20))}
	ramps256Mu.Lock()
	defer ramps256Mu.Unlock()
	if cells, ok := ramps256[k]; ok {
		return cells
	}
	tn = tone{float64(k.keep) / 20, float64(k.dim) / 20}
	want := make([]rgb, levels256)
	// sign[i] is the way lightness goes from level i−1 to i: 0 where it
	// turns (a diverging ramp's middle) or at level 0.
	sign := make([]float64, levels256)
	for i := range want {
		want[i] = paint(id, float64(i)/(levels256-1), tn, Options{})
		if i > 0 {
			l0, l1 := cielab(want[i-1])[0], cielab(want[i])[0]
			if math.Abs(l1-l0) >= 0.5 {
				sign[i] = math.Copysign(1, l1-l0)
			}
		}
	}
	var taken [n256]bool
	prev := -1
	cells := make([]rgb, 0, levels256)
	for a := 0; a < levels256; {
		dir := sign[max(a, 1)]
		b := a + 1 // the run a..b−1 goes one way
		for b < levels256 && sign[b] == dir && dir != 0 {
			b++
		}
		run := path256(want[a:b], dir, prev, &taken)
		for _, c := range run {
			taken[c] = true
			cells = append(cells, xterm256(16+c))
		}
		prev, a = run[len(run)-1], b
	}
	ramps256[k] = cells
	return cells
}

// path256 is the run of palette colours (indices into xterm 16..255)
// nearest to want by dynamic programming: each colour's lightness moves
// the way dir says from the colour before it (prev's for the first, when
// prev ≥ 0), at least minStep256 away from it, and is not taken. When
// no such run exists (a ramp too dark for the palette) the step is
// relaxed, and at last the direction.
func path256(want []rgb, dir float64, prev int, taken *[n256]bool) []int {
	pal := palette256()
	for step := float64(minStep256); ; step /= 2 {
		relaxed := step < 0.1
		ok := func(p, c int) bool {
			if relaxed {
				return true
			}
			return pal.dist[p][c] >= step && (dir == 0 || (pal.lab[c][0]-pal.lab[p][0])*dir > 0)
		}
		cost := make([][n256]float64, len(want))
		from := make([][n256]int, len(want))
		for i := range want {
			for c := range n256 {
				cost[i][c], from[i][c] = math.Inf(1), -1
				switch {
				case taken[c]:
					continue
				case i == 0:
					if prev >= 0 && !ok(prev, c) {
						continue
					}
					cost[i][c] = 0
				default:
					for p := range n256 {
						if cost[i-1][p] < cost[i][c] && p != c && ok(p, c) {
							cost[i][c], from[i][c] = cost[i-1][p], p
						}
					}
				}
				cost[i][c] += labDist2(cielab(want[i]), pal.lab[c])
			}
		}
		last := 0
		for c := range n256 {
			if cost[len(want)-1][c] < cost[len(want)-1][last] {
				last = c
			}
		}
		if !math.IsInf(cost[len(want)-1][last], 1) {
			run := make([]int, len(want))
			for i := len(want) - 1; i >= 0; i-- {
				run[i], last = last, from[i][last]
			}
			return run
		}
	}
}

// n256 is the number of xterm colours a ramp may take: the 6×6×6 cube
// and the 24 greys, 16..255 (the first 16 are the terminal's own).
const n256 = 240

// pal256 is the xterm colours 16..255 in CIELAB, with their distances.
type pal256 struct {
	lab  [n256][3]float64
	dist [n256][n256]float64
}

var palette256 = sync.OnceValue(func() *pal256 {
	p := new(pal256)
	for c := range n256 {
		p.lab[c] = cielab(xterm256(16 + c))
	}
	for a := range n256 {
		for b := range n256 {
			p.dist[a][b] = math.Sqrt(labDist2(p.lab[a], p.lab[b]))
		}
	}
	return p
})

// minStep256 is the least CIELAB distance between two neighbouring levels
// of a 256-colour ramp: plainly two colours side by side.
const minStep256 = 5

func ramp(stops []rgb, t float64) rgb {
	t = clamp01(t)
	pos := t * float64(len(stops)-1)
	i := int(pos)
	if i >= len(stops)-1 {
		return stops[len(stops)-1]
	}
	return blend(stops[i], stops[i+1], pos-float64(i))
}

// clamp01 is t within [0, 1], NaN giving 0 (where min and max would
// keep the NaN, and an index taken from it would be the platform's).
func clamp01(t float64) float64 {
	if !(t > 0) {
		return 0
	}
	return math.Min(1, t)
}

// shades are the monochrome ramp for a continuous field, light to dark.
// None is a class glyph (classGlyphs): points drawn as glyphs over a
// field are never read as part of it (gan's generated '+' over D(x)).
var shades = []rune(" .:-░▒▓█")

// backdrop is the lighter ramp of a field under points, curves or
// markers, up to ▒: on ▓ and █ a point's glyph is a hole in a wall
// (playground's trained p(class 1), all █ around its '+' points).
var backdrop = []rune(" .:-░▒")

// backdropAt is the backdrop's glyph at place t (0 to 1) of the scale.
func backdropAt(t float64) rune {
	return backdrop[int(math.Round(clamp01(t)*float64(len(backdrop)-1)))]
}

// negShades and posShades are the monochrome ramps of a diverging
// field's two signs, by magnitude, 0 blank: the glyph's family says the
// sign, its weight the size (one ramp from the least value to the
// greatest drew the most negative blank, like no value at all). None is a
// class glyph.
var (
	negShades = []rune(" .:-")
	posShades = []rune(" ░▒▓█")
)

// monoShade is the monochrome glyph of place t on the scale s: a shade
// of the one ramp, or, on a diverging scale, of its sign's ramp by the
// distance from the middle (0).
func monoShade(s scale, t float64) rune {
	if !s.diverging() {
		return shadeAt(t)
	}
	m, ramp := 2*(clamp01(t)-0.5), posShades
	if m < 0 {
		m, ramp = -m, negShades
	}
	return ramp[int(math.Round(m*float64(len(ramp)-1)))]
}

// scale maps a grid's values to [0, 1] (or to a band index): its range
// is the grid's Lo and Hi when they are finite and in order, else that of
// its finite values. A NaN maps to the bottom of the scale, ±Inf to its
// ends.
type scale struct {
	g      *sims.Grid
	lo, hi float64
}

func newScale(g *sims.Grid) scale {
	lo, hi := g.Lo, g.Hi
	if !(lo < hi) || !isFinite(lo) || !isFinite(hi) {
		lo, hi = math.Inf(1), math.Inf(-1)
		for _, z := range g.Z {
			if isFinite(z) {
				lo, hi = min(lo, z), max(hi, z)
			}
		}
		if lo > hi { // no finite value
			lo, hi = 0, 1
		}
		if lo == hi {
			hi = lo + 1
		}
	}
	return scale{g: g, lo: lo, hi: hi}
}

// frac is where z lies from lo (0) to hi (1), unclamped: computed in
// halves, so that a range of ±1e308 does not overflow.
func (s scale) frac(z float64) float64 { return (z/2 - s.lo/2) / (s.hi/2 - s.lo/2) }

// unit maps z to [0, 1], quantised to the grid's levels when it has them.
func (s scale) unit(z float64) float64 {
	t := clamp01(s.frac(z))
	if n := s.g.Levels; n > 0 {
		band := min(math.Floor(t*float64(n)), float64(n-1))
		return band / max(1, float64(n-1))
	}
	return t
}

// band is the level index of z (0..Levels-1), or a fine index when the grid
// has no levels.
func (s scale) band(z float64) int {
	n := s.g.Levels
	if n <= 0 {
		n = 8
	}
	return clampInt(math.Floor(s.frac(z)*float64(n)), 0, n-1)
}

func (s scale) diverging() bool { return s.g.Scale == sims.Diverging }

// color is z's colour on the grid's scale in tone tn; dark picks the
// diverging ramp with a dark middle (images).
func (s scale) color(z float64, tn tone, dark bool, o Options) rgb {
	if s.g.Scale == sims.Categorical {
		return classColor(classOf(z))
	}
	return paint(rampOf(s.g.Scale, dark), s.unit(z), tn, o)
}

// gridOK reports whether g has the NX·NY values it says (without
// overflowing the product).
func gridOK(g *sims.Grid) bool {
	return g.NX > 0 && g.NY > 0 && g.NX <= len(g.Z) && g.NY <= len(g.Z)/g.NX
}

// at samples the grid (nearest cell) at fractional position (u, v) in
// [0, 1]², v = 0 at the bottom.
func gridAt(g *sims.Grid, u, v float64) float64 { return gridValue(g, g.Z, u, v) }

// gridValue samples values laid out like g.Z (nearest cell).
func gridValue(g *sims.Grid, z []float64, u, v float64) float64 {
	i := int(u * float64(g.NX))
	j := int(v * float64(g.NY))
	i = max(0, min(g.NX-1, i))
	j = max(0, min(g.NY-1, j))
	return z[j*g.NX+i]
}

// gridLerp samples the grid bilinearly between cell centres.
func gridLerp(g *sims.Grid, u, v float64) float64 {
	x := u*float64(g.NX) - 0.5
	y := v*float64(g.NY) - 0.5
	i0 := max(0, min(g.NX-1, int(math.Floor(x))))
	j0 := max(0, min(g.NY-1, int(math.Floor(y))))
	i1, j1 := min(g.NX-1, i0+1), min(g.NY-1, j0+1)
	fx := max(0, min(1, x-float64(i0)))
	fy := max(0, min(1, y-float64(j0)))
	z00, z10 := g.Z[j0*g.NX+i0], g.Z[j0*g.NX+i1]
	z01, z11 := g.Z[j1*g.NX+i0], g.Z[j1*g.NX+i1]
	return (z00*(1-fx)+z10*fx)*(1-fy) + (z01*(1-fx)+z11*fx)*fy
}

// xterm256 is the 24-bit value of an xterm-256 colour index in 16..255.
func xterm256(n int) rgb {
	if n >= 232 {
		v := uint8(8 + 10*(n-232))
		return newRGB(v, v, v)
	}
	n -= 16
	level := func(i int) uint8 {
		if i == 0 {
			return 0
		}
		return uint8(55 + 40*i)
	}
	return newRGB(level(n/36), level(n/6%6), level(n%6))
}

// tintLevels is how finely classTint quantises how much of a class colour
// it keeps.
const tintLevels = 32

// tints()[c][k] is classTint(c, k/tintLevels), computed when first drawn
// (not at start-up: a search of the palette per entry).
var tints = sync.OnceValue(func() [][tintLevels + 1]rgb {
	owner := tintOwners()
	out := make([][tintLevels + 1]rgb, len(classColors))
	for c, full := range classColors {
		for k := range tintLevels + 1 {
			out[c][k] = snapTint(blend(heatShadow, full, float64(k)/tintLevels), c, owner)
		}
	}
	return out
})

// classTint is class c's colour dimmed toward the shadow, keeping the
// fraction keep of it (a decision region, a band, a filled cell), as a
// colour of the xterm-256 cube of the class's own hue. Drawn as such, the
// tint is the same colour in 24-bit and in 256 colours, where a plain
// blend falls to the nearest grey for some hues (the third class, green,
// did). No two classes share a tint, at any keep (tintOwners). The
// unlabelled class keeps a plain blend.
func classTint(c int, keep float64) rgb {
	if c < 0 {
		return blend(heatShadow, unlabelled, keep)
	}
	k := int(math.Round(clamp01(keep) * tintLevels))
	t := tints()
	return t[c%len(t)][k]
}

// tintOwners gives each xterm-256 colour n (index n − 16) to the one
// class whose tints may use it: a coloured one to the coloured class
// nearest in chromaticity (hue and saturation as a point in the plane),
// a grey to the grey class nearest in lightness. Dimmed, blue, green and
// turquoise all came nearest to 005f5f, so that a region of one class at
// low confidence read as another's at high; drawn only from its own
// colours, a class's region never does.
func tintOwners() []int {
	owner := make([]int, 256-16)
	for n := 16; n < 256; n++ {
		cand := xterm256(n)
		best, bestD := -1, math.Inf(1)
		for c, full := range classColors {
			if isGrey(full) != isGrey(cand) {
				continue
			}
			d := chromaDist(cand, full)
			if isGrey(cand) {
				d = rgbDist(cand, full)
			}
			if d < bestD {
				best, bestD = c, d
			}
		}
		owner[n-16] = best
	}
	return owner
}

// chromaDist is the distance between a and b as points of hue (angle) and
// saturation (radius, 0 to 1).
func chromaDist(a, b rgb) float64 {
	polar := func(c rgb) (x, y float64) {
		r, g, b := c.parts()
		hi, lo := max(r, g, b), min(r, g, b)
		s := 0.0
		if hi > 0 {
			s = float64(hi-lo) / float64(hi)
		}
		h := hue(c) * math.Pi / 180
		return s * math.Cos(h), s * math.Sin(h)
	}
	ax, ay := polar(a)
	bx, by := polar(b)
	return math.Hypot(ax-bx, ay-by)
}

// snapTint returns the xterm-256 colour nearest to c among those class
// owns (owner, from tintOwners) that are within 35° of its hue (or grey,
// for a grey class); c when there is none.
func snapTint(c rgb, class int, owner []int) rgb {
	ref := classColors[class]
	h0 := hue(ref)
	best, bestD := c, math.Inf(1)
	for n := 16; n < 256; n++ {
		if owner[n-16] != class {
			continue
		}
		cand := xterm256(n)
		dh := math.Abs(hue(cand) - h0)
		if dh > 180 {
			dh = 360 - dh
		}
		if !isGrey(ref) && dh > 35 {
			continue
		}
		if d := rgbDist(c, cand); d < bestD {
			best, bestD = cand, d
		}
	}
	return best
}

// isGrey reports whether c has too little colour for a hue to show.
func isGrey(c rgb) bool {
	r, g, b := c.parts()
	return int(max(r, g, b))-int(min(r, g, b)) < 40
}

// hue is c's hue in degrees, 0..360.
func hue(c rgb) float64 {
	r8, g8, b8 := c.parts()
	r, g, b := float64(r8), float64(g8), float64(b8)
	hi, lo := max(r, g, b), min(r, g, b)
	if hi == lo {
		return 0
	}
	var h float64
	switch hi {
	case r:
		h = math.Mod((g-b)/(hi-lo), 6)
	case g:
		h = (b-r)/(hi-lo) + 2
	default:
		h = (r-g)/(hi-lo) + 4
	}
	h *= 60
	if h < 0 {
		h += 360
	}
	return h
}

func rgbDist(a, b rgb) float64 {
	ar, ag, ab := a.parts()
	br, bg, bb := b.parts()
	dr, dg, db := float64(ar)-float64(br), float64(ag)-float64(bg), float64(ab)-float64(bb)
	return math.Sqrt(dr*dr + dg*dg + db*db)
}

// labDist2 is the squared distance of two CIELAB colours.
func labDist2(a, b [3]float64) float64 {
	return (a[0]-b[0])*(a[0]-b[0]) + (a[1]-b[1])*(a[1]-b[1]) + (a[2]-b[2])*(a[2]-b[2])
}

// cielab is c (sRGB, D65 white) in CIELAB: L*, a*, b*.
func cielab(c rgb) [3]float64 {
	lin := func(u uint8) float64 {
		v := float64(u) / 255
		if v <= 0.04045 {
			return v / 12.92
		}
		return math.Pow((v+0.055)/1.055, 2.4)
	}
	r8, g8, b8 := c.parts()
	r, g, bl := lin(r8), lin(g8), lin(b8)
	x := (0.4124*r + 0.3576*g + 0.1805*bl) / 0.95047
	y := 0.2126*r + 0.7152*g + 0.0722*bl
	z := (0.0193*r + 0.1192*g + 0.9505*bl) / 1.08883
	f := func(t float64) float64 {
		if t > 216.0/24389 {
			return math.Cbrt(t)
		}
		return (24389.0/27*t + 16) / 116
	}
	fx, fy, fz := f(x), f(y), f(z)
	return [3]float64{116*fy - 16, 500 * (fx - fy), 200 * (fy - fz)}
}
