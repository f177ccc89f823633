package sparse

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/ad"
	"github.com/thelab/lab/algo/algotest"
	"gonum.org/v1/gonum/mat"
)

// pattern154 is eq 1.54 (0-based): rows {2,4}, {4,5}, {2,3}, {1,3} in the
// notes' 1-based columns.
func pattern154(t *testing.T) *Pattern {
	p, err := NewPattern(4, 5, [][]int{{1, 3}, {3, 4}, {1, 2}, {0, 2}})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestJacobianCompression is §1.9 with the catalogue's corrections
// (erratum 3): the column-intersection graph of (1.54) is the path
// 1–3–2–4–5, two colours {1,2,5}/{3,4} give the seeds v₁ = [1 1 0 0 1],
// v₂ = [0 0 1 1 0] (eq 1.57), J e₁ = [0,0,0,*], J e₂ = [*,0,*,0]; the row
// graph is r2–r1–r3–r4 with colours {r1,r4}/{r2,r3} (eq 1.58); both
// decompressions give J back exactly from 2 products instead of 5 or 4.
func TestJacobianCompression(t *testing.T) {
	p := pattern154(t)
	if got := fmt.Sprint(p.ColumnGraph().Edges()); got != "[[0 2] [1 2] [1 3] [3 4]]" {
		t.Errorf("column graph %s, want the path 1–3–2–4–5", got)
	}
	col, err := NewColorer(p.ColumnGraph(), Distance1, nil)
	if err != nil {
		t.Fatal(err)
	}
	colors := col.Run()
	if fmt.Sprint(colors) != "[0 0 1 1 0]" || col.NumColors() != 2 {
		t.Errorf("column colours %v", colors)
	}
	S := Seeds(colors)
	if !mat.Equal(S, mat.NewDense(5, 2, []float64{1, 0, 1, 0, 0, 1, 0, 1, 1, 0})) {
		t.Errorf("seeds\n%v", mat.Formatted(S))
	}
	// A Jacobian with the pattern, entries 1..7 row by row.
	J := mat.NewDense(4, 5, nil)
	v := 1.0
	for i, r := range p.Rows {
		for _, j := range r {
			J.Set(i, j, v)
			v++
		}
	}
	for j, rows := range [][]int{{3}, {0, 2}} { // corrected (1.55)
		for i := range 4 {
			if (J.At(i, j) != 0) != (i == rows[0] || len(rows) > 1 && i == rows[1]) {
				t.Errorf("J e%d has the wrong support at row %d", j+1, i+1)
			}
		}
	}
	var B mat.Dense
	B.Mul(J, S)
	got, err := Decompress(p, colors, &B)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(got, J) {
		t.Errorf("decompressed\n%v", mat.Formatted(got))
	}

	rg := p.RowGraph()
	if fmt.Sprint(rg.Edges()) != "[[0 1] [0 2] [2 3]]" {
		t.Errorf("row graph %v, want r2–r1–r3–r4", rg.Edges())
	}
	rc, _ := NewColorer(rg, Distance1, []int{0, 1, 2, 3})
	rcolors := rc.Run()
	if fmt.Sprint(rcolors) != "[0 1 1 0]" {
		t.Errorf("row colours %v, want {r1,r4}/{r2,r3}", rcolors)
	}
	var C mat.Dense
	C.Mul(Seeds(rcolors).T(), J)
	got, err = DecompressRows(p, rcolors, &C)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(got, J) {
		t.Errorf("row-decompressed\n%v", mat.Formatted(got))
	}
	// A clash is refused with the columns named.
	if _, err := Decompress(p, []int{0, 0, 0, 1, 0}, &B); err == nil {
		t.Error("clashing colouring accepted")
	}
}

// h161 is (1.61) with a_i = i: the path 3–1–2–4.
func h161(t *testing.T) (*Graph, *mat.SymDense) {
	H := mat.NewSymDense(4, []float64{1, 2, 3, 0, 2, 4, 0, 5, 3, 0, 6, 0, 0, 5, 0, 7})
	g, err := NewGraph(4, [][2]int{{0, 1}, {0, 2}, {1, 3}})
	if err != nil {
		t.Fatal(err)
	}
	return g, H
}

// TestSymmetricRecovery is §1.9.2–1.9.4 on (1.61), a_i = i: ξ₂ = 3 (the
// notes' "3 JVPs"); the colouring {1,4}/{2,3} gives (1.63) = [[1,5],[7,4],
// [3,6],[7,5]] and tree peeling recovers a₃, then a₂ = 5 − 3, then a₅ in 3
// steps (erratum 5: the "linear system" is this substitution); it is not a
// star colouring (3–1–2–4 is bichromatic), so direct read-out fails. The
// star colouring {1}/{2,3}/{4} of (1.65) gives (1.66) and direct read-out.
func TestSymmetricRecovery(t *testing.T) {
	g, H := h161(t)
	if k, _, err := Exact(g, Distance2); err != nil || k != 3 {
		t.Errorf("ξ₂ = %d (%v), want 3", k, err)
	}
	acyc := []int{0, 1, 1, 0}
	if err := Check(g, Acyclic, acyc); err != nil {
		t.Fatal(err)
	}
	var cf *Conflict
	if err := Check(g, Star, acyc); !errors.As(err, &cf) || len(cf.Vertices) != 4 {
		t.Errorf("star check of {1,4}/{2,3}: %v, want a bichromatic path", err)
	}
	var B mat.Dense
	B.Mul(H, Seeds(acyc))
	if !mat.Equal(&B, mat.NewDense(4, 2, []float64{1, 5, 7, 4, 3, 6, 7, 5})) {
		t.Errorf("H·S =\n%v, want (1.63)", mat.Formatted(&B))
	}
	if _, err := RecoverDirect(g, acyc, &B); err == nil {
		t.Error("direct read-out accepted a non-star colouring")
	}
	p, err := NewPeeler(g, acyc, &B)
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range [][3]float64{{2, 0, 3}, {0, 1, 2}, {1, 3, 5}} {
		if err := p.Step(); err != nil {
			t.Fatal(err)
		}
		i, j := p.Last()
		if i != int(want[0]) || j != int(want[1]) || p.H.At(i, j) != want[2] {
			t.Errorf("peel %d: H[%d,%d] = %g, want H[%g,%g] = %g", k+1, i, j, p.H.At(i, j), want[0], want[1], want[2])
		}
	}
	if !p.Done() || !mat.Equal(p.H, H) {
		t.Errorf("peeled H =\n%v", mat.Formatted(p.H))
	}
	if err := p.Step(); !errors.Is(err, algo.ErrConverged) {
		t.Errorf("step after the end: %v", err)
	}

	star := []int{0, 1, 1, 2}
	if err := Check(g, Star, star); err != nil {
		t.Fatal(err)
	}
	var B3 mat.Dense
	B3.Mul(H, Seeds(star))
	if !mat.Equal(&B3, mat.NewDense(4, 3, []float64{1, 5, 0, 2, 4, 5, 3, 6, 0, 0, 5, 7})) {
		t.Errorf("H·S =\n%v, want (1.66)", mat.Formatted(&B3))
	}
	got, err := RecoverDirect(g, star, &B3)
	if err != nil || !mat.Equal(got, H) {
		t.Errorf("direct read-out: %v\n%v", err, mat.Formatted(got))
	}
}

// TestPeelerStuckOnCycle: on C4 the 2-colouring is distance-1 but not
// acyclic; peeling finds no leaf and says so.
func TestPeelerStuckOnCycle(t *testing.T) {
	g, _ := CycleGraph(4)
	colors := []int{0, 1, 0, 1}
	H := mat.NewSymDense(4, []float64{1, 2, 0, 3, 2, 1, 4, 0, 0, 4, 1, 5, 3, 0, 5, 1})
	var B mat.Dense
	B.Mul(H, Seeds(colors))
	p, err := NewPeeler(g, colors, &B)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Step(); err == nil || errors.Is(err, algo.ErrConverged) {
		t.Errorf("peeling a 2-coloured cycle: %v", err)
	}
	var cf *Conflict
	if err := Check(g, Acyclic, colors); !errors.As(err, &cf) || cf.Vertices[0] != cf.Vertices[len(cf.Vertices)-1] {
		t.Errorf("acyclic check: %v, want a cycle", err)
	}
}

// TestChromaticNumbers is the catalogue's table (§1.17, exact brute
// force): ξ₁, ξ_acyclic, ξ_star, ξ₂ of P7, K_{1,5}, C4 and the 3×3 grid.
func TestChromaticNumbers(t *testing.T) {
	p7, _ := PathGraph(7)
	k15, _ := StarGraph(5)
	c4, _ := CycleGraph(4)
	grid, _ := GridGraph(3, 3)
	for _, tc := range []struct {
		name string
		g    *Graph
		want [4]int // distance-1, acyclic, star, distance-2
	}{
		{"P7", p7, [4]int{2, 2, 3, 3}},
		{"K1,5", k15, [4]int{2, 2, 2, 6}},
		{"C4", c4, [4]int{2, 3, 3, 4}},
		{"grid 3×3", grid, [4]int{2, 3, 4, 5}},
	} {
		for i, kind := range Kinds {
			k, colors, err := Exact(tc.g, kind)
			if err != nil {
				t.Fatal(err)
			}
			if k != tc.want[i] {
				t.Errorf("%s: ξ %v = %d, want %d", tc.name, kind, k, tc.want[i])
			}
			if err := Check(tc.g, kind, colors); err != nil {
				t.Errorf("%s %v: exact colouring invalid: %v", tc.name, kind, err)
			}
		}
	}
}

// TestChainProperty is eq 1.68 on 200 seeded random graphs of 4–7
// vertices: ξ₁ ≤ ξ_acyclic ≤ ξ_star ≤ ξ₂; the backtracking search agrees
// with gonum's exact DSatur for ξ₁ and ξ₂; every greedy colouring is valid
// and uses at least the exact number of colours.
func TestChainProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 68))
	for trial := range 200 {
		n := 4 + trial%4
		g, err := RandomGraph(n, 0.2+0.6*rng.Float64(), rng)
		if err != nil {
			t.Fatal(err)
		}
		var xi [4]int
		for i, kind := range Kinds {
			k, _, err := Exact(g, kind)
			if err != nil {
				t.Fatal(err)
			}
			xi[i] = k
			if kind == Distance1 || kind == Distance2 {
				if s, _, _ := Search(g, kind); s != k {
					t.Errorf("trial %d %v: search %d, DSatur %d", trial, kind, s, k)
				}
			}
			c, _ := NewColorer(g, kind, nil)
			colors := c.Run()
			if err := Check(g, kind, colors); err != nil {
				t.Errorf("trial %d: greedy %v invalid: %v", trial, kind, err)
			}
			if c.NumColors() < k {
				t.Errorf("trial %d: greedy %v used %d < ξ = %d", trial, kind, c.NumColors(), k)
			}
		}
		if !(xi[0] <= xi[1] && xi[1] <= xi[2] && xi[2] <= xi[3]) {
			t.Errorf("trial %d: chain broken: %v on %v", trial, xi, g.Edges())
		}
	}
}

// TestSparseHessianFromAD: the tridiagonal Hessian of
// f(x) = Σ_{i<8} (x_{i+1} − x_i²)² through the whole pipeline — the
// pattern from the graph, an acyclic colouring with 2 colours (2 HVPs
// instead of 8) and tree peeling; a star colouring with 3 and direct
// read-out — equals the dense forward-on-reverse Hessian to 1e-12.
func TestSparseHessianFromAD(t *testing.T) {
	const n = 8
	src := ""
	var vars []ad.Var
	for i := range n {
		vars = append(vars, ad.Var{Name: fmt.Sprintf("x%d", i), Value: 0.3*float64(i) - 1})
		if i+1 < n {
			if src != "" {
				src += " + "
			}
			src += fmt.Sprintf("(x%d - x%d^2)^2", i+1, i)
		}
	}
	g, err := ad.Parse(src, vars)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := g.HessianPattern(0)
	if err != nil {
		t.Fatal(err)
	}
	pat, err := NewPattern(n, n, rows)
	if err != nil {
		t.Fatal(err)
	}
	gr, err := pat.AdjacencyGraph()
	if err != nil {
		t.Fatal(err)
	}
	h, err := ad.NewHessian(g, ad.FoR, 0)
	if err != nil {
		t.Fatal(err)
	}
	dense, err := h.Run()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		kind   Kind
		colors int
	}{{Acyclic, 2}, {Star, 3}} {
		c, _ := NewColorer(gr, tc.kind, nil)
		colors := c.Run()
		if c.NumColors() != tc.colors {
			t.Errorf("%v: %d colours, want %d", tc.kind, c.NumColors(), tc.colors)
		}
		S := Seeds(colors)
		B := mat.NewDense(n, c.NumColors(), nil)
		hv := make([]float64, n)
		for k := range c.NumColors() {
			if err := h.HVP(hv, mat.Col(nil, k, S)); err != nil {
				t.Fatal(err)
			}
			B.SetCol(k, hv)
		}
		var H *mat.SymDense
		if tc.kind == Star {
			H, err = RecoverDirect(gr, colors, B)
		} else {
			var p *Peeler
			if p, err = NewPeeler(gr, colors, B); err == nil {
				H, err = p.Run()
			}
		}
		if err != nil {
			t.Fatal(err)
		}
		for i := range n {
			for j := range n {
				algotest.Near(t, fmt.Sprintf("%v H[%d,%d]", tc.kind, i, j), H.At(i, j), dense[i*n+j], 1e-12)
			}
		}
	}
}

// TestBadInput: constructors refuse bad graphs, patterns and orders.
func TestBadInput(t *testing.T) {
	_, err := NewGraph(3, [][2]int{{0, 0}})
	algotest.WantParam(t, err, "edge")
	_, err = NewGraph(0, nil)
	algotest.WantParam(t, err, "vertices")
	_, err = NewPattern(2, 2, [][]int{{0}, {5}})
	algotest.WantParam(t, err, "row 1")
	p, _ := NewPattern(2, 2, [][]int{{0, 1}, {1}})
	_, err = p.AdjacencyGraph()
	algotest.WantParam(t, err, "pattern")
	g, _ := PathGraph(3)
	_, err = NewColorer(g, Star, []int{0, 0, 1})
	algotest.WantParam(t, err, "order")
	big, _ := PathGraph(MaxExact + 1)
	_, _, err = Exact(big, Star)
	algotest.WantParam(t, err, "vertices")
}
