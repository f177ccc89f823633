package sparse

import (
	"fmt"
	"slices"

	"github.com/thelab/lab/algo"
	"gonum.org/v1/gonum/graph/coloring"
	"gonum.org/v1/gonum/graph/simple"
)

// Kind is a colouring model (seed 000 §1.9.1–1.9.5).
type Kind int

const (
	// Distance1: adjacent vertices differ. On a ColumnGraph this groups
	// structurally orthogonal columns (§1.9.1); on a Hessian's graph it
	// is not enough to recover H (cycles couple the unknowns, §1.9.4).
	Distance1 Kind = iota
	// Distance2: vertices at distance 1 or 2 differ: every Hessian entry
	// can be read directly, without using symmetry.
	Distance2
	// Star: distance-1, and every path on 4 vertices uses at least 3
	// colours — no bichromatic P4 (§1.9.3, L721). With symmetry, every
	// Hessian entry is read directly (eq 1.66).
	Star
	// Acyclic: distance-1, and every two colours induce a forest (§1.9.4).
	// The Hessian is recovered by peeling leaves (Peeler).
	Acyclic
)

// Kinds lists the models from weakest to strongest, the order of the
// chain ξ₁ ≤ ξ_acyclic ≤ ξ_star ≤ ξ₂ (eq 1.68).
var Kinds = []Kind{Distance1, Acyclic, Star, Distance2}

func (k Kind) String() string {
	switch k {
	case Distance1:
		return "distance-1"
	case Distance2:
		return "distance-2"
	case Star:
		return "star"
	case Acyclic:
		return "acyclic"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

func (k Kind) valid() bool { return k >= Distance1 && k <= Acyclic }

// Conflict is why a colour is not allowed at a vertex: Vertices is the
// witness, in order — an edge (v, w) with one colour, a path v–w–x at
// distance 2, a bichromatic path on 4 vertices, or a two-coloured cycle
// (first vertex repeated at the end).
type Conflict struct {
	Kind     Kind
	Vertices []int
}

func (c *Conflict) Error() string {
	what := map[Kind]string{
		Distance1: "adjacent vertices share a colour",
		Distance2: "vertices at distance 2 share a colour",
		Star:      "a path on 4 vertices uses only 2 colours",
		Acyclic:   "two colours contain a cycle",
	}[c.Kind]
	return fmt.Sprintf("not a %v colouring: %s: %v", c.Kind, what, c.Vertices)
}

// conflict returns a witness if v (uncoloured in colors, −1 marking
// uncoloured vertices) cannot take colour c under kind, considering only
// coloured vertices; nil if it can.
func conflict(g *Graph, kind Kind, colors []int, v, c int) *Conflict {
	col := func(u int) int {
		if u == v {
			return c
		}
		return colors[u]
	}
	for _, w := range g.adj[v] {
		if col(w) == c {
			return &Conflict{Distance1, []int{v, w}}
		}
	}
	switch kind {
	case Distance2:
		for _, w := range g.adj[v] {
			for _, x := range g.adj[w] {
				if x != v && col(x) == c {
					return &Conflict{Distance2, []int{v, w, x}}
				}
			}
		}
	case Star:
		// v at an end: v–a–b–d with c(b) = c and c(d) = c(a).
		for _, a := range g.adj[v] {
			ca := col(a)
			if ca < 0 {
				continue
			}
			for _, b := range g.adj[a] {
				if b == v || col(b) != c {
					continue
				}
				for _, d := range g.adj[b] {
					if d != a && d != v && col(d) == ca {
						return &Conflict{Star, []int{v, a, b, d}}
					}
				}
			}
		}
		// v second: a–v–b–d with c(a) = c(b) and c(d) = c.
		for _, b := range g.adj[v] {
			cb := col(b)
			if cb < 0 {
				continue
			}
			for _, d := range g.adj[b] {
				if d == v || col(d) != c {
					continue
				}
				for _, a := range g.adj[v] {
					if a != b && a != d && col(a) == cb {
						return &Conflict{Star, []int{a, v, b, d}}
					}
				}
			}
		}
	case Acyclic:
		return cycleThrough(g, colors, v, c)
	}
	return nil
}

// cycleThrough looks for a cycle through v in the subgraph of colours c
// and c′, for each other colour c′: two neighbours of v coloured c′ joined
// by a path of c/c′ vertices that avoids v.
func cycleThrough(g *Graph, colors []int, v, c int) *Conflict {
	var parent map[int]int
	for c2 := range maxColor(colors) + 1 {
		if c2 == c {
			continue
		}
		parent = map[int]int{}
		for _, w := range g.adj[v] {
			if colors[w] != c2 {
				continue
			}
			if _, seen := parent[w]; seen { // reached from an earlier neighbour
				cyc := []int{v}
				for u := w; u != -1; u = parent[u] {
					cyc = append(cyc, u)
				}
				return &Conflict{Acyclic, append(cyc, v)}
			}
			parent[w] = -1
			queue := []int{w}
			for len(queue) > 0 {
				u := queue[0]
				queue = queue[1:]
				for _, x := range g.adj[u] {
					if _, seen := parent[x]; seen || x == v || (colors[x] != c && colors[x] != c2) {
						continue
					}
					parent[x] = u
					queue = append(queue, x)
				}
			}
		}
	}
	return nil
}

func maxColor(colors []int) int {
	m := -1
	for _, c := range colors {
		m = max(m, c)
	}
	return m
}

// Check reports whether colors (one colour ≥ 0 per vertex) is a valid
// colouring of kind, with a *Conflict naming a witness if not.
func Check(g *Graph, kind Kind, colors []int) error {
	if !kind.valid() {
		return algo.BadParam("kind", kind, "distance-1, distance-2, star or acyclic")
	}
	if len(colors) != g.N() {
		return algo.BadParam("colors", len(colors), fmt.Sprintf("one per vertex (%d)", g.N()))
	}
	for v, c := range colors {
		if c < 0 {
			return algo.BadParam("colors", c, "every vertex coloured (≥ 0)")
		}
		if cf := conflict(g, kind, colors, v, c); cf != nil {
			return cf
		}
	}
	return nil
}

// Colorer colours a graph greedily, one vertex per Step: the next vertex
// of the order takes the smallest colour that creates no conflict of its
// kind with the vertices coloured so far. Every Step keeps the partial
// colouring valid, so the result is valid; its number of colours is an
// upper bound on the chromatic number of the kind.
type Colorer struct {
	g      *Graph
	kind   Kind
	order  []int
	colors []int
	k      int
	used   int
}

// LargestFirst orders vertices by decreasing degree, ties by index: the
// Welsh–Powell order.
func LargestFirst(g *Graph) []int {
	order := make([]int, g.N())
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return len(g.adj[b]) - len(g.adj[a]) })
	return order
}

// NewColorer starts a greedy colouring in the given order (a permutation
// of the vertices; nil means LargestFirst).
func NewColorer(g *Graph, kind Kind, order []int) (*Colorer, error) {
	if !kind.valid() {
		return nil, algo.BadParam("kind", kind, "distance-1, distance-2, star or acyclic")
	}
	if order == nil {
		order = LargestFirst(g)
	}
	if len(order) != g.N() {
		return nil, algo.BadParam("order", len(order), fmt.Sprintf("a permutation of the %d vertices", g.N()))
	}
	seen := make([]bool, g.N())
	for _, v := range order {
		if v < 0 || v >= g.N() || seen[v] {
			return nil, algo.BadParam("order", v, fmt.Sprintf("a permutation of 0..%d", g.N()-1))
		}
		seen[v] = true
	}
	c := &Colorer{g: g, kind: kind, order: slices.Clone(order), colors: make([]int, g.N())}
	for i := range c.colors {
		c.colors[i] = -1
	}
	return c, nil
}

// Step colours the next vertex; algo.ErrConverged when all are coloured.
func (c *Colorer) Step() error {
	if c.Done() {
		return algo.ErrConverged
	}
	v := c.order[c.k]
	col := 0
	for conflict(c.g, c.kind, c.colors, v, col) != nil {
		col++
	}
	c.colors[v] = col
	c.used = max(c.used, col+1)
	c.k++
	return nil
}

// Run colours every remaining vertex and returns the colours.
func (c *Colorer) Run() []int {
	for !c.Done() {
		_ = c.Step()
	}
	return c.colors
}

// Done reports whether every vertex is coloured.
func (c *Colorer) Done() bool { return c.k >= len(c.order) }

// Last is the vertex coloured by the last Step, −1 before the first.
func (c *Colorer) Last() int {
	if c.k == 0 {
		return -1
	}
	return c.order[c.k-1]
}

// Colors is the colouring so far, −1 for uncoloured vertices (must not be
// modified).
func (c *Colorer) Colors() []int { return c.colors }

// NumColors is the number of colours used so far.
func (c *Colorer) NumColors() int { return c.used }

// MaxExact is the largest graph Exact searches.
const MaxExact = 16

// Exact returns the chromatic number of kind (ξ₁, ξ₂, ξ_star, ξ_acyclic)
// and a colouring attaining it. ξ₁ and ξ₂ come from gonum's exact DSatur
// (graph/coloring.DsaturExact) on G and G²; star and acyclic by
// backtracking search over colourings in largest-first order, trying k = 1,
// 2, … colours. Graphs over MaxExact vertices are refused.
func Exact(g *Graph, kind Kind) (int, []int, error) {
	if !kind.valid() {
		return 0, nil, algo.BadParam("kind", kind, "distance-1, distance-2, star or acyclic")
	}
	if g.N() > MaxExact {
		return 0, nil, algo.BadParam("vertices", g.N(), fmt.Sprintf("at most %d for an exact colouring", MaxExact))
	}
	switch kind {
	case Distance1:
		return dsaturExact(g)
	case Distance2:
		return dsaturExact(g.Square())
	}
	return Search(g, kind)
}

func dsaturExact(g *Graph) (int, []int, error) {
	u := simple.NewUndirectedGraph()
	for v := range g.adj {
		u.AddNode(simple.Node(v))
	}
	for _, e := range g.Edges() {
		u.SetEdge(simple.Edge{F: simple.Node(e[0]), T: simple.Node(e[1])})
	}
	k, m, err := coloring.DsaturExact(nil, u)
	if err != nil {
		return 0, nil, err
	}
	colors := make([]int, g.N())
	for id, c := range m {
		colors[id] = c
	}
	return k, colors, nil
}

// Search finds the chromatic number of kind by backtracking (any kind;
// Exact uses it for star and acyclic). Graphs over MaxExact vertices are
// refused.
func Search(g *Graph, kind Kind) (int, []int, error) {
	if !kind.valid() {
		return 0, nil, algo.BadParam("kind", kind, "distance-1, distance-2, star or acyclic")
	}
	if g.N() > MaxExact {
		return 0, nil, algo.BadParam("vertices", g.N(), fmt.Sprintf("at most %d for an exact colouring", MaxExact))
	}
	order := LargestFirst(g)
	colors := make([]int, g.N())
	for k := 1; ; k++ {
		for i := range colors {
			colors[i] = -1
		}
		if backtrack(g, kind, order, colors, 0, k, 0) {
			return k, colors, nil
		}
	}
}

// backtrack colours order[i:] with colours < k; used is the number of
// colours used so far (a new colour is only ever the next unused one,
// which breaks the symmetry between colour names).
func backtrack(g *Graph, kind Kind, order, colors []int, i, k, used int) bool {
	if i == len(order) {
		return true
	}
	v := order[i]
	for c := 0; c < k && c <= used; c++ {
		if conflict(g, kind, colors, v, c) != nil {
			continue
		}
		colors[v] = c
		if backtrack(g, kind, order, colors, i+1, k, max(used, c+1)) {
			return true
		}
	}
	colors[v] = -1
	return false
}
