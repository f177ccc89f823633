package classic

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"unsafe"

	"gonum.org/v1/gonum/floats"

	"github.com/thelab/lab/algo"
)

// Tree is a CART classification tree (Breiman, Friedman, Olshen and Stone
// 1984; ESL §9.2.3) grown with the Gini impurity
//
//	G(node) = 1 − Σ_c p_c²,   p_c the (weighted) share of class c in the node,
//
// by binary splits x_f ≤ t. At a node the split searched is the one that
// most lowers the weighted impurity of the children,
//
//	ΔG = (w_node / w_root) · (G(node) − (w_L/w_node) G(L) − (w_R/w_node) G(R)),
//
// over every feature (or MaxFeatures of them drawn at random, for a
// forest) and every threshold t halfway between consecutive distinct
// values of the feature in the node, scikit-learn's rule: t = a/2 + b/2,
// or a when that rounds to b. Within a feature the smallest such t wins a
// tie; among features the one searched first (lowest index, or first
// drawn) does, where scikit-learn searches in an order drawn from its
// random_state. With MaxFeatures < d, a feature constant in the node is
// passed over and not counted among the MaxFeatures (scikit-learn counts
// it unless every feature drawn so far was constant, and skips the
// features it found constant in an ancestor: the two rules search the
// same features when d = 2, not always when d ≥ 3; the draws are from
// another stream anyway). A node is a leaf when it is pure (G ≤ 2⁻⁵²),
// holds one sample, is at MaxDepth, or no feature varies in it
// (min_samples_split = 2, min_samples_leaf = 1).
//
// The tree grows best first, one split a Step: of the leaves that can be
// split, the one whose best split lowers the impurity most (ΔG largest,
// the earliest made among ties) is split. After s steps the tree is
// scikit-learn's DecisionTreeClassifier(max_leaf_nodes = s + 1) (whose
// heap breaks ties between leaves' ΔG its own way), and grown to the end
// with every feature searched it is the same tree as the depth-first
// build's, the tree with max_leaf_nodes unset. Its probabilities at q are the class shares
// of q's leaf; the prediction is the most probable class, the smallest
// label among ties. (scikit-learn also casts the features to float32 and
// takes values within 1e-7 of each other as equal; on data whose values
// are farther apart than that, as here, its thresholds are these up to
// float32 rounding, which decides no point unless it lies within ~1e-7 of
// a threshold.)
type Tree struct {
	x       [][]float64
	y       []int
	w       []float64 // sample weights (bootstrap counts); nil for 1
	classes int
	d       int
	cfg     TreeConfig
	rng     *rand.Rand

	nodes   []Node
	value   []float64 // classes weighted counts a node
	cand    []split   // a node's best split, while it is a leaf that can split
	samples []int     // node i holds samples[nodes[i].start:nodes[i].end]
	wRoot   float64
	depth   int
	leaves  int

	// Scratch of the split search.
	sorted      []sample
	left, right []float64
	feats       []int
}

// Node is a node of a Tree: a leaf when Left < 0, else the split
// x[Feature] ≤ Threshold sends a point to Left, the rest to Right.
type Node struct {
	Feature     int
	Threshold   float64
	Left, Right int
	Depth       int
	Impurity    float64 // the Gini impurity
	N           int     // training samples in the node (distinct, with weight > 0)
	W           float64 // their total weight
	start, end  int
}

type split struct {
	ok          bool
	feature     int
	threshold   float64
	improvement float64
}

type sample struct {
	v float64
	i int
}

// TreeConfig sets a Tree's growth. Zero values mean scikit-learn's
// defaults: MaxDepth 0 grows until the leaves are pure (max_depth=None),
// MaxFeatures 0 searches every feature (max_features=None).
type TreeConfig struct {
	MaxDepth    int
	MaxFeatures int
}

// MaxDepth bounds TreeConfig.MaxDepth.
const MaxDepth = 64

// NewTree starts the tree of the rows x with labels y in 0..classes−1 and
// optional sample weights w (nil: all 1; a weight 0 leaves the sample
// out, as scikit-learn does with a bootstrap's counts): the root, a single
// leaf. rng draws the features searched when cfg.MaxFeatures < d and may
// otherwise be nil.
func NewTree(x [][]float64, y []int, classes int, w []float64, cfg TreeConfig, rng *rand.Rand) (*Tree, error) {
	d, err := checkData(x, y, classes)
	if err != nil {
		return nil, err
	}
	if cfg.MaxDepth < 0 || cfg.MaxDepth > MaxDepth {
		return nil, algo.BadParam("max_depth", cfg.MaxDepth, fmt.Sprintf("in 0..%d (0: unlimited)", MaxDepth))
	}
	if cfg.MaxFeatures < 0 || cfg.MaxFeatures > d {
		return nil, algo.BadParam("max_features", cfg.MaxFeatures, fmt.Sprintf("in 0..%d (0: all)", d))
	}
	if cfg.MaxFeatures == 0 {
		cfg.MaxFeatures = d
	}
	if cfg.MaxFeatures < d && rng == nil {
		return nil, algo.BadParam("rng", "nil", "a generator when max_features < d")
	}
	if w != nil && len(w) != len(x) {
		return nil, algo.BadParam("w", fmt.Sprintf("%d weights", len(w)), fmt.Sprintf("one a row (%d)", len(x)))
	}
	t := &Tree{x: x, y: y, w: w, classes: classes, d: d, cfg: cfg, rng: rng,
		left: make([]float64, classes), right: make([]float64, classes), feats: make([]int, d)}
	for i := range x {
		if w != nil && !(w[i] >= 0 && w[i] < math.Inf(1)) {
			return nil, algo.BadParam("w", fmt.Sprintf("weight %v of row %d", w[i], i), "finite and ≥ 0")
		}
		if w == nil || w[i] > 0 {
			t.samples = append(t.samples, i)
		}
	}
	if len(t.samples) == 0 {
		return nil, algo.BadParam("w", "all 0", "some weight > 0")
	}
	t.sorted = make([]sample, len(t.samples))
	t.addNode(0, len(t.samples), 0)
	t.wRoot = t.nodes[0].W
	t.cand[0] = t.bestSplit(0) // wRoot is known only now
	return t, nil
}

func (t *Tree) weight(i int) float64 {
	if t.w == nil {
		return 1
	}
	return t.w[i]
}

// gini is 1 − Σ c_k²/w², scikit-learn's expression.
func gini(counts []float64, w float64) float64 {
	sq := 0.0
	for _, c := range counts {
		sq += c * c
	}
	return 1 - sq/(w*w)
}

// addNode appends the leaf of samples[start:end] and finds its best split.
func (t *Tree) addNode(start, end, depth int) int {
	id := len(t.nodes)
	for range t.classes {
		t.value = append(t.value, 0)
	}
	v := t.value[id*t.classes:]
	w := 0.0
	for _, i := range t.samples[start:end] {
		v[t.y[i]] += t.weight(i)
		w += t.weight(i)
	}
	t.nodes = append(t.nodes, Node{Feature: -1, Left: -1, Right: -1, Depth: depth, Impurity: gini(v[:t.classes], w),
		N: end - start, W: w, start: start, end: end})
	t.cand = append(t.cand, split{})
	if id > 0 {
		t.cand[id] = t.bestSplit(id)
	}
	t.leaves++
	t.depth = max(t.depth, depth)
	return id
}

// bestSplit searches node id's best split (scikit-learn's BestSplitter).
func (t *Tree) bestSplit(id int) split {
	nd := &t.nodes[id]
	if (t.cfg.MaxDepth > 0 && nd.Depth >= t.cfg.MaxDepth) || nd.N < 2 || nd.Impurity <= 0x1p-52 {
		return split{}
	}
	for f := range t.feats {
		t.feats[f] = f
	}
	best := split{}
	bestProxy := math.Inf(-1)
	parent := t.value[id*t.classes : (id+1)*t.classes]
	searched := 0
	for drawn := 0; drawn < t.d && searched < t.cfg.MaxFeatures; drawn++ {
		f := drawn
		if t.cfg.MaxFeatures < t.d { // Fisher–Yates: draw the next feature
			j := drawn + t.rng.IntN(t.d-drawn)
			t.feats[drawn], t.feats[j] = t.feats[j], t.feats[drawn]
			f = t.feats[drawn]
		}
		s := t.sorted[:nd.N]
		for k, i := range t.samples[nd.start:nd.end] {
			s[k] = sample{t.x[i][f], i}
		}
		slices.SortFunc(s, func(a, b sample) int { return cmp.Compare(a.v, b.v) })
		if s[len(s)-1].v <= s[0].v {
			continue // constant here: not counted as searched
		}
		searched++
		clear(t.left)
		copy(t.right, parent)
		wl, wr := 0.0, nd.W
		for p := 1; p < len(s); p++ {
			i := s[p-1].i
			wi := t.weight(i)
			t.left[t.y[i]] += wi
			t.right[t.y[i]] -= wi
			wl += wi
			wr -= wi
			if s[p].v <= s[p-1].v {
				continue
			}
			proxy := -wr*gini(t.right, wr) - wl*gini(t.left, wl)
			if proxy > bestProxy {
				bestProxy = proxy
				th := s[p-1].v/2 + s[p].v/2
				if th == s[p].v || math.IsInf(th, 0) {
					th = s[p-1].v
				}
				gl, gr := gini(t.left, wl), gini(t.right, wr)
				best = split{ok: true, feature: f, threshold: th,
					improvement: nd.W / t.wRoot * (nd.Impurity - wr/nd.W*gr - wl/nd.W*gl)}
			}
		}
	}
	return best
}

// Step makes one split: the leaf whose best split lowers the impurity
// most. It returns algo.ErrConverged when no leaf can be split.
func (t *Tree) Step() error {
	id := -1
	for i := range t.cand {
		if t.cand[i].ok && (id < 0 || t.cand[i].improvement > t.cand[id].improvement) {
			id = i
		}
	}
	if id < 0 {
		t.release()
		return algo.ErrConverged
	}
	c := t.cand[id]
	t.cand[id] = split{}
	nd := t.nodes[id]
	// Partition the node's samples: x_f ≤ threshold first.
	lo, hi := nd.start, nd.end-1
	for lo <= hi {
		if t.x[t.samples[lo]][c.feature] <= c.threshold {
			lo++
		} else {
			t.samples[lo], t.samples[hi] = t.samples[hi], t.samples[lo]
			hi--
		}
	}
	t.leaves--
	l := t.addNode(nd.start, lo, nd.Depth+1)
	r := t.addNode(lo, nd.end, nd.Depth+1)
	n := &t.nodes[id]
	n.Feature, n.Threshold, n.Left, n.Right = c.feature, c.threshold, l, r
	return nil
}

// release drops what only growth needs once the tree is grown: the
// pending splits, the samples' order, the weights and the scratch, and
// the room that appending left in the nodes.
func (t *Tree) release() {
	if t.cand == nil {
		return
	}
	t.cand, t.samples, t.sorted, t.w, t.left, t.right, t.feats = nil, nil, nil, nil, nil, nil, nil
	t.nodes, t.value = slices.Clip(slices.Clone(t.nodes)), slices.Clip(slices.Clone(t.value))
}

// Grow splits until no leaf can be split.
func (t *Tree) Grow() {
	for t.Step() == nil {
	}
}

// Done says whether no leaf can be split.
func (t *Tree) Done() bool {
	for i := range t.cand {
		if t.cand[i].ok {
			return false
		}
	}
	return true
}

// Leaves is the number of leaves.
func (t *Tree) Leaves() int { return t.leaves }

// Splits is the number of splits made (each adds two nodes to the root).
func (t *Tree) Splits() int { return (len(t.nodes) - 1) / 2 }

// Depth is the greatest depth of a node, the root's being 0.
func (t *Tree) Depth() int { return t.depth }

// Nodes returns the tree's nodes, the root first (shared: do not modify).
func (t *Tree) Nodes() []Node { return t.nodes }

// NextGain is the impurity decrease ΔG of the split the next Step makes,
// 0 when none is left.
func (t *Tree) NextGain() float64 {
	g := 0.0
	for i := range t.cand {
		if t.cand[i].ok {
			g = max(g, t.cand[i].improvement)
		}
	}
	return g
}

// leaf returns the leaf that q falls in.
func (t *Tree) leaf(q []float64) int {
	i := 0
	for t.nodes[i].Left >= 0 {
		if q[t.nodes[i].Feature] <= t.nodes[i].Threshold {
			i = t.nodes[i].Left
		} else {
			i = t.nodes[i].Right
		}
	}
	return i
}

// Proba writes the class shares (by weight) of q's leaf into p.
func (t *Tree) Proba(q, p []float64) {
	i := t.leaf(q)
	w := t.nodes[i].W
	for c, v := range t.value[i*t.classes : (i+1)*t.classes] {
		p[c] = v / w
	}
}

// Predict returns the most probable class of q's leaf, the smallest label
// among ties.
func (t *Tree) Predict(q []float64) int {
	i := t.leaf(q)
	return floats.MaxIdx(t.value[i*t.classes : (i+1)*t.classes])
}

// TreeBytes is the memory of a grown tree of the given nodes and classes
// (a tree of n distinct samples has at most 2n − 1 nodes): the nodes and
// their class weights.
func TreeBytes(nodes, classes int) int64 {
	return int64(nodes)*(int64(unsafe.Sizeof(Node{}))+8*int64(classes)) + int64(unsafe.Sizeof(Tree{})) + 64
}

// GrowingTreeBytes bounds the memory of a tree of n samples while it
// grows: TreeBytes of 2n − 1 nodes with the room appending leaves (a
// quarter), their pending splits, and the samples' order and scratch.
func GrowingTreeBytes(n, classes int) int64 {
	return TreeBytes(2*n-1, classes)*5/4 + int64(2*n-1)*int64(unsafe.Sizeof(split{}))*5/4 + 8*int64(n) + 16*int64(n) + 256
}
