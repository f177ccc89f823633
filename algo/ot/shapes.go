package ot

import (
	"fmt"
	"math"
	"strings"

	"github.com/thelab/lab/algo"
)

// Shapes are the names of the built-in grid images for 2-D barycenters
// (the notes' Figs 5.16–5.17 average images): each is the indicator of a
// region of the unit square, normalised.
var Shapes = []string{"disk", "ring", "square", "cross", "blobs", "triangle"}

// inShape reports whether the point (x, y) of the unit square is in the
// named shape.
func inShape(name string, x, y float64) bool {
	dx, dy := x-0.5, y-0.5
	r := math.Hypot(dx, dy)
	switch name {
	case "disk":
		return r <= 0.3
	case "ring":
		return r >= 0.25 && r <= 0.4
	case "square":
		return math.Abs(dx) <= 0.25 && math.Abs(dy) <= 0.25
	case "cross":
		return (math.Abs(dx) <= 0.08 && math.Abs(dy) <= 0.35) || (math.Abs(dy) <= 0.08 && math.Abs(dx) <= 0.35)
	case "blobs":
		return math.Hypot(x-0.28, y-0.7) <= 0.14 || math.Hypot(x-0.72, y-0.3) <= 0.14
	case "triangle":
		return y >= 0.2 && y <= 0.8 && math.Abs(dx) <= 0.35*(0.8-y)/0.6
	}
	return false
}

// Shape returns the named shape on a g×g grid of the unit square (cells
// at ((a + ½)/g, (b + ½)/g), indexed a·g + b): mass 1 spread evenly over
// the cells whose centres lie in it. g must be in 8..128.
func Shape(name string, g int) ([]float64, error) {
	if g < 8 || g > 128 {
		return nil, algo.BadParam("grid", g, "in 8..128")
	}
	known := false
	for _, s := range Shapes {
		known = known || s == name
	}
	if !known {
		return nil, algo.BadParam("shape", name, "one of "+strings.Join(Shapes, ", "))
	}
	p := make([]float64, g*g)
	k := 0
	for a := range g {
		for b := range g {
			if inShape(name, (float64(a)+0.5)/float64(g), (float64(b)+0.5)/float64(g)) {
				p[a*g+b] = 1
				k++
			}
		}
	}
	if k == 0 {
		return nil, fmt.Errorf("shape %s covers no cell of a %d×%d grid", name, g, g)
	}
	return Normalised(p, float64(k)), nil
}
