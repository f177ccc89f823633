package seqsim

import "github.com/thelab/lab/sims"

// stemHeads tell the stems of up to four series apart without colour.
var stemHeads = []rune{'●', '▲', '■', '◆'}

// stems draws the values y at x + off as vertical segments from 0, each
// with a head at its tip (stemHeads, by class): signed weights or rewards
// on a canvas, which a bar chart (non-negative bars) cannot show.
func stems(x, y []float64, off float64, class int) ([]sims.Path, []sims.Marker) {
	paths, marks := make([]sims.Path, len(x)), make([]sims.Marker, len(x))
	for j, xj := range x {
		paths[j] = sims.Path{X: []float64{xj + off, xj + off}, Y: []float64{0, y[j]}, Class: class}
		marks[j] = sims.Marker{X: xj + off, Y: y[j], Glyph: stemHeads[class%len(stemHeads)], Class: class}
	}
	return paths, marks
}
