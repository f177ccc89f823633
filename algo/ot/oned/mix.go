package oned

import (
	"cmp"
	"slices"
)

// mix returns the measure Σ parts: uniform pieces and atoms, which may
// overlap. It sweeps the union of their end points and atom positions: at
// each point the atoms there become a flat piece, and the interval to the
// next point a sloped piece whose density is the sum of the uniform parts
// covering it (a count of them says when it is exactly zero, a gap).
func mix(parts []part) *Measure {
	type event struct {
		x, d float64
		n    int
	}
	var xs []float64
	var events []event
	var atoms []part
	total := 0.0
	for _, p := range parts {
		if p.mass <= 0 {
			continue
		}
		total += p.mass
		if p.lo == p.hi {
			atoms = append(atoms, p)
			xs = append(xs, p.lo)
			continue
		}
		d := p.mass / (p.hi - p.lo)
		events = append(events, event{p.lo, d, 1}, event{p.hi, -d, -1})
		xs = append(xs, p.lo, p.hi)
	}
	slices.Sort(xs)
	xs = slices.Compact(xs)
	slices.SortFunc(events, func(a, b event) int { return cmp.Compare(a.x, b.x) })
	slices.SortFunc(atoms, func(a, b part) int { return cmp.Compare(a.lo, b.lo) })
	m := &Measure{t: []float64{0}}
	cum, dens, active, e, a := 0.0, 0.0, 0, 0, 0
	emit := func(lo, hi, mass float64) {
		cum += mass
		m.t = append(m.t, cum/total)
		m.lo, m.hi = append(m.lo, lo), append(m.hi, hi)
	}
	for q, x := range xs {
		for ; e < len(events) && events[e].x == x; e++ {
			dens += events[e].d
			active += events[e].n
		}
		if active == 0 {
			dens = 0 // no rounding left over in a gap
		}
		mass := 0.0
		for ; a < len(atoms) && atoms[a].lo == x; a++ {
			mass += atoms[a].mass
		}
		if mass > 0 {
			emit(x, x, mass)
		}
		if active > 0 && q+1 < len(xs) {
			emit(x, xs[q+1], dens*(xs[q+1]-x))
		}
	}
	m.t[len(m.t)-1] = 1
	return m
}
