// Package digits draws hand-drawn-looking digits 0–9 procedurally, the
// lab's built-in image set (nothing is downloaded): each digit is a few
// pen strokes — lines and elliptic arcs — that a seeded random hand
// wobbles, slants, rotates, scales, shifts and draws with a pen of random
// thickness, rasterised with anti-aliased edges and sprinkled with pixel
// noise, at 8×8 (like scikit-learn's digits) or 16×16.
//
// Images are row-major from the top row, one value in [0, 1] per pixel
// (0 paper, 1 ink).
package digits

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
)

// Sizes are the image sizes drawn (pixels per side).
var Sizes = []int{8, 16}

// MaxN bounds the images of one Generate.
const MaxN = 100000

// Style is how much a hand varies: each field scales one kind of random
// variation, 1 being the default amount and 0 none (Style{} draws the
// clean prototypes).
type Style struct {
	Slant     float64 // shear x += s·y, s ~ U(−0.3, 0.3)
	Rotate    float64 // rotation ~ U(−9°, 9°)
	Scale     float64 // width and height × U(0.8, 1.1) each
	Shift     float64 // offset ~ U(−0.8, 0.8) pixels (at 8×8) each way
	Thickness float64 // pen radius × U(0.8, 1.3)
	Wobble    float64 // smooth displacement of the strokes, ~6% of the height
	Noise     float64 // Gaussian pixel noise of s.d. 0.06
}

// Default is the default hand.
var Default = Style{Slant: 1, Rotate: 1, Scale: 1, Shift: 1, Thickness: 1, Wobble: 1, Noise: 1}

func (s Style) valid() error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"slant", s.Slant}, {"rotate", s.Rotate}, {"scale", s.Scale}, {"shift", s.Shift},
		{"thickness", s.Thickness}, {"wobble", s.Wobble}, {"noise", s.Noise}} {
		if !(f.v >= 0 && f.v <= 3) {
			return algo.BadParam(f.name, f.v, "in [0, 3]")
		}
	}
	return nil
}

// pt is a point of the glyph frame: x right, y up, the glyph inside
// [−0.6, 0.6] × [−1, 1].
type pt struct{ x, y float64 }

// stroke is a polyline of the glyph frame.
type stroke []pt

// arc samples the ellipse arc of centre c, radii rx, ry from angle a0 to
// a1 (degrees, counter-clockwise from +x; a1 < a0 goes clockwise).
func arc(cx, cy, rx, ry, a0, a1 float64) stroke {
	n := max(4, int(math.Abs(a1-a0)/15))
	s := make(stroke, n+1)
	for i := range s {
		a := (a0 + (a1-a0)*float64(i)/float64(n)) * math.Pi / 180
		s[i] = pt{cx + rx*math.Cos(a), cy + ry*math.Sin(a)}
	}
	return s
}

func line(p ...float64) stroke {
	s := make(stroke, len(p)/2)
	for i := range s {
		s[i] = pt{p[2*i], p[2*i+1]}
	}
	return s
}

func join(parts ...stroke) stroke {
	var s stroke
	for _, p := range parts {
		s = append(s, p...)
	}
	return s
}

// glyphs holds, per digit, the ways people write it: each a set of
// strokes.
var glyphs = [10][][]stroke{
	0: {
		{arc(0, 0, 0.55, 0.92, 95, 460)},
		{arc(0.02, 0, 0.5, 0.9, 80, 445)},
	},
	1: {
		{line(0.05, 0.95, 0.05, -0.95)},
		{line(-0.3, 0.6, 0.08, 0.95, 0.08, -0.95)},
		{line(-0.3, 0.6, 0.05, 0.95, 0.05, -0.95), line(-0.3, -0.95, 0.38, -0.95)},
	},
	2: {
		{join(arc(0, 0.42, 0.52, 0.5, 160, -30), line(-0.58, -0.95, 0.6, -0.95))},
		{join(arc(0, 0.45, 0.5, 0.48, 150, -20), line(-0.55, -0.9, -0.35, -0.85, 0.6, -0.95))},
	},
	3: {
		{join(arc(0, 0.5, 0.48, 0.44, 150, -90), arc(0, -0.46, 0.55, 0.5, 90, -150))},
		{join(line(-0.5, 0.95, 0.5, 0.95, -0.05, 0.1), arc(0, -0.42, 0.55, 0.52, 90, -150))},
	},
	4: {
		{line(0.22, 0.95, -0.6, -0.35, 0.62, -0.35), line(0.3, 0.3, 0.3, -0.95)},
		{line(-0.45, 0.95, -0.55, -0.3, 0.6, -0.3), line(0.35, 0.95, 0.35, -0.95)},
	},
	5: {
		{join(line(0.55, 0.95, -0.42, 0.95, -0.5, 0.12), arc(0, -0.4, 0.55, 0.55, 115, -150))},
		{line(-0.42, 0.95, -0.5, 0.12), join(line(-0.5, 0.12), arc(0, -0.4, 0.55, 0.55, 115, -150)), line(-0.42, 0.95, 0.55, 0.95)},
	},
	6: {
		{join(arc(0.45, -0.4, 1.0, 1.3, 90, 180), arc(0, -0.4, 0.55, 0.52, 180, 530))},
		{join(line(0.35, 0.95, -0.4, 0.0), arc(0, -0.42, 0.55, 0.5, 150, 520))},
	},
	7: {
		{line(-0.6, 0.95, 0.6, 0.95, -0.15, -0.95)},
		{line(-0.6, 0.95, 0.6, 0.95, -0.1, -0.95), line(-0.3, 0.02, 0.38, 0.02)},
		{line(-0.6, 0.75, -0.55, 0.95, 0.6, 0.95, 0.0, -0.95)},
	},
	8: {
		{arc(0, 0.5, 0.44, 0.42, 270, 630), arc(0, -0.45, 0.55, 0.5, 90, 450)},
		{join(arc(0, 0.5, 0.44, 0.42, 0, 270), arc(0, -0.45, 0.55, 0.5, 90, -270), arc(0, 0.5, 0.44, 0.42, 270, 360))},
	},
	9: {
		{arc(0, 0.45, 0.5, 0.45, 0, 370), line(0.5, 0.45, 0.4, -0.95)},
		{join(arc(0, 0.45, 0.5, 0.45, -10, 360), arc(-0.6, 0.45, 1.1, 1.4, 0, -85))},
	},
}

// Glyphs is the number of ways digit d is written.
func Glyphs(d int) int { return len(glyphs[d]) }

// hand is one draw of the random variations.
type hand struct {
	a, b, c, d, ox, oy float64 // the affine map of the glyph frame
	radius             float64 // pen radius in pixels
	wob                [2][3]float64
	wobAmp             float64
}

func newHand(size int, st Style, rng *rand.Rand) hand {
	u := func(lo, hi float64) float64 { return lo + (hi-lo)*rng.Float64() }
	slant := st.Slant * u(-0.3, 0.3)
	rot := st.Rotate * u(-9, 9) * math.Pi / 180
	sx := 1 + st.Scale*(u(0.8, 1.1)-1)
	sy := 1 + st.Scale*(u(0.8, 1.1)-1)
	// Glyph frame → pixel frame: half the image spans 0.74 of the glyph's
	// height, y flipped (rows go down).
	k := 0.37 * float64(size)
	cos, sin := math.Cos(rot), math.Sin(rot)
	h := hand{
		// [a b; c d] = k · R(rot) · [[sx, slant·sy], [0, sy]], then y flipped.
		a: k * cos * sx, b: k * (cos*slant*sy - sin*sy),
		c: -k * sin * sx, d: -k * (sin*slant*sy + cos*sy),
		ox: float64(size)/2 + st.Shift*u(-0.8, 0.8)*float64(size)/8,
		oy: float64(size)/2 + st.Shift*u(-0.8, 0.8)*float64(size)/8,
	}
	h.radius = float64(size) / 16 * (0.75 + st.Thickness*(u(0.8, 1.3)-1)) * 1.1
	h.wobAmp = st.Wobble * 0.06
	for i := range h.wob {
		h.wob[i] = [3]float64{u(0.8, 2.5), u(0, 2*math.Pi), u(-1, 1)}
	}
	return h
}

// at maps a glyph point (with its smooth wobble) to pixel coordinates.
func (h *hand) at(p pt) (float64, float64) {
	x, y := p.x, p.y
	if h.wobAmp > 0 {
		x += h.wobAmp * h.wob[0][2] * math.Sin(h.wob[0][0]*(p.y+p.x)+h.wob[0][1])
		y += h.wobAmp * h.wob[1][2] * math.Sin(h.wob[1][0]*(p.x-p.y)+h.wob[1][1])
	}
	return h.a*x + h.b*y + h.ox, h.c*x + h.d*y + h.oy
}

// Draw renders digit d into dst (size·size pixels) with a random hand
// drawn from rng.
func Draw(dst []float64, size, d int, st Style, rng *rand.Rand) error {
	if size < 4 || size > 64 {
		return algo.BadParam("size", size, "in 4..64")
	}
	if len(dst) != size*size {
		return algo.BadParam("dst", len(dst), fmt.Sprintf("%d pixels", size*size))
	}
	if d < 0 || d > 9 {
		return algo.BadParam("digit", d, "in 0..9")
	}
	if err := st.valid(); err != nil {
		return err
	}
	clear(dst)
	g := glyphs[d][0]
	if st != (Style{}) {
		g = glyphs[d][rng.IntN(len(glyphs[d]))]
	}
	h := newHand(size, st, rng)
	for _, s := range g {
		x0, y0 := h.at(s[0])
		for _, p := range s[1:] {
			x1, y1 := h.at(p)
			segment(dst, size, x0, y0, x1, y1, h.radius)
			x0, y0 = x1, y1
		}
	}
	if st.Noise > 0 {
		sd := 0.06 * st.Noise
		for i, v := range dst {
			dst[i] = min(1, max(0, v+sd*rng.NormFloat64()))
		}
	}
	return nil
}

// segment inks the pixels near the segment (x0, y0)–(x1, y1) with a pen of
// radius r: full within r, fading linearly to 0 over one pixel beyond it
// (the pixel's distance measured from its centre). Ink only darkens.
func segment(dst []float64, size int, x0, y0, x1, y1, r float64) {
	reach := r + 0.5
	i0 := max(0, int(math.Floor(min(x0, x1)-reach)))
	i1 := min(size-1, int(math.Ceil(max(x0, x1)+reach)))
	j0 := max(0, int(math.Floor(min(y0, y1)-reach)))
	j1 := min(size-1, int(math.Ceil(max(y0, y1)+reach)))
	dx, dy := x1-x0, y1-y0
	l2 := dx*dx + dy*dy
	for j := j0; j <= j1; j++ {
		for i := i0; i <= i1; i++ {
			px, py := float64(i)+0.5, float64(j)+0.5
			t := 0.0
			if l2 > 0 {
				t = min(1, max(0, ((px-x0)*dx+(py-y0)*dy)/l2))
			}
			ex, ey := px-x0-t*dx, py-y0-t*dy
			v := min(1, max(0, reach-math.Sqrt(ex*ex+ey*ey)+0.5))
			if v > dst[j*size+i] {
				dst[j*size+i] = v
			}
		}
	}
}

// Generate draws n digits of size×size pixels, labels 0, 1, …, 9, 0, …
// in turn (balanced), each by its own random hand: n·size² pixels and n
// labels.
func Generate(rng *rand.Rand, n, size int, st Style) (pix []float64, labels []int, err error) {
	if n < 1 || n > MaxN {
		return nil, nil, algo.BadParam("n", n, fmt.Sprintf("in 1..%d", MaxN))
	}
	pix = make([]float64, n*size*size)
	labels = make([]int, n)
	for i := range n {
		labels[i] = i % 10
		if err := Draw(pix[i*size*size:(i+1)*size*size], size, labels[i], st, rng); err != nil {
			return nil, nil, err
		}
	}
	return pix, labels, nil
}
