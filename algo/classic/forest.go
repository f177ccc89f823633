package classic

import (
	"fmt"
	"math"
	"math/rand/v2"
	"unsafe"

	"gonum.org/v1/gonum/floats"

	"github.com/thelab/lab/algo"
)

// Forest is Breiman's random forest (Breiman 2001; ESL §15.2) of
// classification trees: each tree is a CART Tree grown to the end (or to
// MaxDepth) on a bootstrap sample — n draws with replacement, a point drawn
// m times weighing m, as scikit-learn does — searching MaxFeatures
// features drawn at random at each split (⌊√d⌋ by default, at least one).
// The forest's probabilities are the average of its trees',
//
//	p_c(q) = (1/T) Σ_t p_c^(t)(q),
//
// and its prediction the most probable class (scikit-learn's soft vote).
// The out-of-bag estimate averages, for each training point, the
// probabilities of the trees whose bootstrap missed it (about e⁻¹ ≈ 37%
// of them), and scores their argmax against its label. One Step grows one
// tree.
type Forest struct {
	x       [][]float64
	y       []int
	classes int
	cfg     ForestConfig
	rng     *rand.Rand
	trees   []*Tree
	oob     []float64 // n×classes sums of out-of-bag probabilities
	oobN    []int
	p, s    []float64 // scratch: a tree's probabilities, their sum
}

// ForestConfig sets a Forest: Trees to grow (1..MaxTrees), MaxFeatures
// searched at a split (0: ⌊√d⌋, at least 1), MaxDepth of a tree (0:
// unlimited).
type ForestConfig struct {
	Trees       int
	MaxFeatures int
	MaxDepth    int
}

// MaxTrees bounds ForestConfig.Trees.
const MaxTrees = 1000

// NewForest starts an empty forest of the rows x with labels y.
func NewForest(x [][]float64, y []int, classes int, cfg ForestConfig, rng *rand.Rand) (*Forest, error) {
	d, err := checkData(x, y, classes)
	if err != nil {
		return nil, err
	}
	if cfg.Trees < 1 || cfg.Trees > MaxTrees {
		return nil, algo.BadParam("trees", cfg.Trees, fmt.Sprintf("in 1..%d", MaxTrees))
	}
	if cfg.MaxFeatures < 0 || cfg.MaxFeatures > d {
		return nil, algo.BadParam("max_features", cfg.MaxFeatures, fmt.Sprintf("in 0..%d (0: ⌊√d⌋)", d))
	}
	if cfg.MaxDepth < 0 || cfg.MaxDepth > MaxDepth {
		return nil, algo.BadParam("max_depth", cfg.MaxDepth, fmt.Sprintf("in 0..%d (0: unlimited)", MaxDepth))
	}
	if rng == nil {
		return nil, algo.BadParam("rng", "nil", "a generator")
	}
	if cfg.MaxFeatures == 0 {
		cfg.MaxFeatures = max(1, int(math.Sqrt(float64(d))))
	}
	n := len(x)
	return &Forest{x: x, y: y, classes: classes, cfg: cfg, rng: rng, trees: make([]*Tree, 0, cfg.Trees),
		oob: make([]float64, n*classes), oobN: make([]int, n), p: make([]float64, classes), s: make([]float64, classes)}, nil
}

// Step grows one tree on a fresh bootstrap sample and adds its votes to
// the out-of-bag sums; after the last tree it returns algo.ErrConverged.
func (f *Forest) Step() error {
	if len(f.trees) >= f.cfg.Trees {
		return algo.ErrConverged
	}
	n := len(f.x)
	counts := make([]float64, n) // the tree keeps its weights
	for range n {
		counts[f.rng.IntN(n)]++
	}
	t, err := NewTree(f.x, f.y, f.classes, counts, TreeConfig{MaxDepth: f.cfg.MaxDepth, MaxFeatures: f.cfg.MaxFeatures}, f.rng)
	if err != nil {
		return err
	}
	t.Grow()
	f.trees = append(f.trees, t)
	for i, c := range counts {
		if c > 0 {
			continue
		}
		t.Proba(f.x[i], f.p)
		for k, v := range f.p {
			f.oob[i*f.classes+k] += v
		}
		f.oobN[i]++
	}
	return nil
}

// Trees returns the trees grown so far (shared: do not modify them).
func (f *Forest) Trees() []*Tree { return f.trees }

// Len is the number of trees grown so far.
func (f *Forest) Len() int { return len(f.trees) }

// sum writes Σ_t p^(t)(q), the trees' probabilities at q summed in the
// order the trees were grown, into s.
func (f *Forest) sum(q, s []float64) {
	clear(s)
	for _, t := range f.trees {
		t.Proba(q, f.p)
		for k, v := range f.p {
			s[k] += v
		}
	}
}

// Proba writes the average of the trees' probabilities at q into p (all
// zero before the first tree).
func (f *Forest) Proba(q, p []float64) {
	f.sum(q, p)
	if n := len(f.trees); n > 0 {
		for k := range p {
			p[k] /= float64(n)
		}
	}
}

// Predict returns the most probable class by the averaged probabilities,
// the smallest label among ties (0 before the first tree). It takes the
// argmax of the sum, not of the average: dividing by T could round two
// different sums to one average and so make a tie.
func (f *Forest) Predict(q []float64) int {
	f.sum(q, f.s)
	return floats.MaxIdx(f.s)
}

// OOB returns the out-of-bag accuracy and the number of training points
// some tree left out (the points it is measured on); ok is false before
// any point has been left out.
func (f *Forest) OOB() (acc float64, n int, ok bool) {
	right := 0
	for i, m := range f.oobN {
		if m == 0 {
			continue
		}
		n++
		if floats.MaxIdx(f.oob[i*f.classes:(i+1)*f.classes]) == f.y[i] {
			right++
		}
	}
	if n == 0 {
		return 0, 0, false
	}
	return float64(right) / float64(n), n, true
}

// ForestBytes is the memory of a forest of trees grown on n points with
// nodes nodes in all: the grown trees (TreeBytes) and the out-of-bag sums,
// and the tree growing (GrowingTreeBytes of n samples at most) with its
// bootstrap's weights.
func ForestBytes(n, classes, trees, nodes int) int64 {
	return TreeBytes(nodes, classes) + int64(trees)*(int64(unsafe.Sizeof(Tree{}))+8) +
		int64(n)*(8*int64(classes)+8) + GrowingTreeBytes(n, classes) + 8*int64(n) + 256
}
