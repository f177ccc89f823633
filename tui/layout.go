package tui

import "math"

// rect is a pane's place on the screen, in cells.
type rect struct{ x, y, w, h int }

func (r rect) contains(x, y int) bool {
	return x >= r.x && x < r.x+r.w && y >= r.y && y < r.y+r.h
}

func (r rect) centre() (float64, float64) {
	return float64(r.x) + float64(r.w)/2, float64(r.y) + float64(r.h)/2
}

// gridLayout tiles n panes over a w×h area in rows of equal height. It picks
// the number of columns whose panes come closest to a 3:1 shape in cells
// (about 3:2 on screen: room for two charts side by side); a short last row
// is stretched to the full width.
func gridLayout(n, w, h int) []rect {
	if n == 0 {
		return nil
	}
	cols, best := 1, math.Inf(1)
	for c := 1; c <= n; c++ {
		rows := (n + c - 1) / c
		pw, ph := float64(w)/float64(c), float64(h)/float64(rows)
		if score := math.Abs(math.Log(pw / ph / 3)); score < best-1e-9 {
			cols, best = c, score
		}
	}
	rows := (n + cols - 1) / cols
	out := make([]rect, 0, n)
	for r := 0; r < rows; r++ {
		y0, y1 := r*h/rows, (r+1)*h/rows
		inRow := min(cols, n-r*cols)
		for c := 0; c < inRow; c++ {
			x0, x1 := c*w/inRow, (c+1)*w/inRow
			out = append(out, rect{x: x0, y: y0, w: x1 - x0, h: y1 - y0})
		}
	}
	return out
}

// neighbour returns the index of the nearest pane in direction (dx, dy)
// from pane i, or i when there is none. A pane counts as lying that way
// when it overlaps pane i across the direction (rows for left and right,
// columns for up and down); the nearest along the direction wins, then the
// best aligned.
func neighbour(rects []rect, i, dx, dy int) int {
	a := rects[i]
	ax, ay := a.centre()
	best, bestAlong, bestAcross := i, math.Inf(1), math.Inf(1)
	for j, r := range rects {
		if j == i {
			continue
		}
		overlap := r.y < a.y+a.h && a.y < r.y+r.h // rows in common
		if dy != 0 {
			overlap = r.x < a.x+a.w && a.x < r.x+r.w // columns in common
		}
		x, y := r.centre()
		along := (x-ax)*float64(dx) + (y-ay)*float64(dy)
		across := math.Abs((x-ax)*float64(dy)) + math.Abs((y-ay)*float64(dx))
		if !overlap || along <= 0 {
			continue
		}
		if along < bestAlong || (along == bestAlong && across < bestAcross) {
			best, bestAlong, bestAcross = j, along, across
		}
	}
	return best
}
