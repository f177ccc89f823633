package chart

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/thelab/lab/sims"
)

// netThumb is a 16×12 thumbnail of a tilted ramp, in [−1, 1].
func netThumb(caption string, tilt float64) sims.Image {
	im := sims.Image{Caption: caption, W: 16, H: 12, Pix: make([]float64, 16*12)}
	for j := range 12 {
		for i := range 16 {
			im.Pix[j*16+i] = math.Tanh(tilt*(float64(i)-7.5)/8 + (1-tilt)*(float64(j)-5.5)/6)
		}
	}
	return im
}

// sampleNetwork is playground's picture: inputs x, y, a hidden layer of
// three units, one output, with weights of both signs and sizes.
func sampleNetwork() sims.NetworkChart {
	return sims.NetworkChart{Title: "neurons and weights", Scale: sims.Diverging, Lo: -1, Hi: 1, Layers: []sims.NetLayer{
		{Name: "inputs", Units: []sims.Image{netThumb("x", 1), netThumb("y", 0)}},
		{Name: "L1", Units: []sims.Image{netThumb("n1", 0.2), netThumb("n2", 0.5), netThumb("n3", 0.8)},
			In: []float64{2, -0.3, 0.1, -1.5, 0.8, -0.05}},
		{Name: "output", Units: []sims.Image{netThumb("", 0.4)}, In: []float64{1.2, -2.4, 0.6}},
	}}
}

// TestWeightStrokes: a weight's sign picks its end of the thumbnails'
// ramp (positive red, as positive values; negative blue) and, in
// monochrome, solid or dashed; its size against the largest picks the
// colour's strength and the thickness by thirds.
func TestWeightStrokes(t *testing.T) {
	const wmax = 3
	dark := darkDiverging[1]
	for _, c := range []struct {
		w         float64
		thickness int
		red       bool // else blue
		mono      string
	}{
		{3, 3, true, "#"}, {-3, 3, false, "##.."}, {2.5, 3, true, "#"}, {-1.5, 2, false, "##.."},
		{0.9, 1, true, "#"}, {-0.2, 1, false, "##.."}, {0, 1, true, "#"},
	} {
		if got := weightThickness(c.w, wmax); got != c.thickness {
			t.Errorf("w = %v: thickness %d, want %d", c.w, got, c.thickness)
		}
		if got := weightPattern(c.w, true); got != c.mono {
			t.Errorf("w = %v: mono pattern %q, want %q", c.w, got, c.mono)
		}
		if got := weightPattern(c.w, false); got != "#" {
			t.Errorf("w = %v: colour pattern %q, want solid", c.w, got)
		}
		r, _, b := weightInk(c.w, wmax, Options{}).parts()
		if (r > b) != c.red {
			t.Errorf("w = %v: ink %06x, want red %v", c.w, uint32(weightInk(c.w, wmax, Options{}))&0xffffff, c.red)
		}
		// Stronger is further from the ramp's dark middle, and never at it.
		weaker := weightInk(c.w/2, wmax, Options{})
		if c.w != 0 && !(rgbDist(weightInk(c.w, wmax, Options{}), dark) > rgbDist(weaker, dark)) {
			t.Errorf("w = %v: not stronger than w/2", c.w)
		}
		if rgbDist(weightInk(c.w, wmax, Options{}), dark) < 40 {
			t.Errorf("w = %v: ink %06x too near the dark middle", c.w, uint32(weightInk(c.w, wmax, Options{}))&0xffffff)
		}
	}
	// The ends are the thumbnails' own: a weight of the largest size has
	// the colour of the top (positive) or bottom of their ramp.
	if weightInk(wmax, wmax, Options{}) != darkDiverging[2] || weightInk(-wmax, wmax, Options{}) != darkDiverging[0] {
		t.Errorf("largest weights %06x, %06x; the ramp's ends %06x, %06x", weightInk(wmax, wmax, Options{}),
			weightInk(-wmax, wmax, Options{}), darkDiverging[2], darkDiverging[0])
	}
}

// TestWeightLineDrawn renders a one-weight network, whose line runs level
// from the input's thumbnail to the output's, and reads the line's cells:
// its colour is the weight's ink, its braille dots per cell are its
// thickness (two columns of them), and in monochrome a negative weight's
// line is dashed.
func TestWeightLineDrawn(t *testing.T) {
	for _, c := range []struct {
		w    float64
		mono bool
	}{{1, false}, {-1, false}, {0.2, false}, {-0.5, false}, {1, true}, {-1, true}} {
		t.Run(fmt.Sprintf("w=%v mono=%v", c.w, c.mono), func(t *testing.T) {
			// A chain of three units, the second weight 1 so that the
			// largest |w| is 1 whatever w is.
			net := sims.NetworkChart{Title: "t", Scale: sims.Diverging, Lo: -1, Hi: 1, Layers: []sims.NetLayer{
				{Units: []sims.Image{netThumb("a", 1)}},
				{Units: []sims.Image{netThumb("c", 1)}, In: []float64{c.w}},
				{Units: []sims.Image{netThumb("e", 1)}, In: []float64{1}},
			}}
			o := Options{Mono: c.mono}
			lines := RenderLines(net, 60, 14, o)
			l, ok := chooseNetwork(net, 60, 14)
			if !ok || !l.lines {
				t.Fatalf("no lines drawn at 60×14: %+v", l)
			}
			// The line from a to c runs level on their middle row; take
			// the middle third of the gap.
			y := l.unitY(1, 0) + (l.tileH-1)/2
			x0 := l.x[0] + l.labelW[0] + l.tileW
			gap := l.x[1] - x0
			cells := parseCells(t, lines[y])
			want := 2 * weightThickness(c.w, 1)
			var dots []int
			for x := x0 + gap/3; x < x0+2*gap/3; x++ {
				r := cells[x].r
				if r < 0x2800 || r > 0x28ff {
					dots = append(dots, 0)
					continue
				}
				dots = append(dots, bitsOn(r-0x2800))
				if !c.mono {
					ink := weightInk(c.w, 1, o)
					r8, g8, b8 := ink.parts()
					if cells[x].fg != (color.RGBA{r8, g8, b8, 0xff}) {
						t.Errorf("cell %d: ink %v, want %v", x, cells[x].fg, ink)
					}
				}
			}
			full, short := 0, 0
			for _, d := range dots {
				switch {
				case d == want:
					full++
				case d < want:
					short++
				}
			}
			dashed := c.mono && c.w < 0
			// Solid: every cell full; dashed: some drawn, some short.
			drawn := slices.ContainsFunc(dots, func(d int) bool { return d > 0 })
			if ok := drawn && (dashed && short > 0 || !dashed && full == len(dots)); !ok {
				t.Errorf("dots per cell %v (want %d, dashed %v)\n%s", dots, want, dashed, ansi.Strip(strings.Join(lines, "\n")))
			}
		})
	}
}

func bitsOn(b rune) int {
	n := 0
	for ; b > 0; b >>= 1 {
		n += int(b & 1)
	}
	return n
}

// netChain is a network of layers×units, every unit a thumbnail, the
// weights of five sizes and both signs.
func netChain(layers, units int) sims.NetworkChart {
	c := sims.NetworkChart{Title: "chain", Scale: sims.Diverging, Lo: -1, Hi: 1}
	for k := range layers {
		ly := sims.NetLayer{Name: fmt.Sprint("L", k)}
		for u := range units {
			ly.Units = append(ly.Units, netThumb(fmt.Sprint("n", u+1), 0.5))
		}
		if k > 0 {
			for i := range units * units {
				ly.In = append(ly.In, float64(i%5)-2.2)
			}
		}
		c.Layers = append(c.Layers, ly)
	}
	return c
}

// TestNetworkYields: with room the diagram has every label, every layer's
// name, every line and the legend; smaller, the names go, then the labels, then gaps
// narrower than netFullGap keep their strongest lines and the title says
// how many, then the lines go and the title says so; never is a line of
// it wider than the chart, and what does not fit at all is said.
func TestNetworkYields(t *testing.T) {
	for _, c := range []struct {
		net           sims.NetworkChart
		w, h          int
		labels, names bool
		note          string // in the title
		legend        bool
	}{
		{sampleNetwork(), 90, 20, true, true, "", true},
		{sampleNetwork(), 46, 12, true, true, "", true},
		{sampleNetwork(), 30, 9, true, false, "", true},
		{sampleNetwork(), 24, 9, false, false, "", true},
		{netChain(5, 3), 40, 9, false, false, "(12 of 36 weights)", true},
		{netChain(5, 3), 30, 6, false, false, "(weights hidden)", false},
		{netChain(2, 9), 40, 12, false, false, "network too large to draw here", false},
	} {
		for _, mono := range []bool{false, true} {
			lines := RenderLines(c.net, c.w, c.h, Options{Mono: mono})
			out := ansi.Strip(strings.Join(lines, "\n"))
			for _, l := range lines {
				if ansi.StringWidth(l) != c.w {
					t.Fatalf("%d×%d: a line %d wide", c.w, c.h, ansi.StringWidth(l))
				}
			}
			var labels, names []string
			for _, ly := range c.net.Layers {
				names = append(names, ly.Name)
				for _, im := range ly.Units {
					if im.Caption != "" {
						labels = append(labels, im.Caption+" ") // the label column ends in a space
					}
				}
			}
			for _, label := range labels {
				if strings.Contains(out, label) != c.labels {
					t.Errorf("%d×%d mono=%v: label %q shown %v, want %v\n%s", c.w, c.h, mono, label, !c.labels, c.labels, out)
				}
			}
			for _, name := range names {
				if strings.Contains(out, name) != c.names {
					t.Errorf("%d×%d mono=%v: name %q shown %v, want %v\n%s", c.w, c.h, mono, name, !c.names, c.names, out)
				}
			}
			if !strings.Contains(out, c.note) || (c.note == "" && strings.Contains(out, "(")) {
				t.Errorf("%d×%d: want the note %q\n%s", c.w, c.h, c.note, out)
			}
			if strings.Contains(out, "w>0") != c.legend {
				t.Errorf("%d×%d: legend %v, want %v\n%s", c.w, c.h, !c.legend, c.legend, out)
			}
		}
	}
}
