package classic

import (
	"errors"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/algotest"
)

// The references below are scikit-learn 1.2.1's (numpy 1.24.2, Debian's
// python3-sklearn), computed once on oracleData's sets written to CSV with
// %.17g: each string is the predicted labels of the 100 test points in
// order. Estimators: KNeighborsClassifier(n_neighbors=k,
// algorithm="brute"); DecisionTreeClassifier(max_depth=…) and
// DecisionTreeClassifier(max_leaf_nodes=L), each fitted with random_state
// 0..9 — a setting is used only where all ten agree (no tie between
// features' best splits), but for moons' full tree, whose two variants
// are both listed; RandomForestClassifier(n_estimators=100,
// oob_score=True, random_state=0..19); GaussianNB().

// predictions returns c's labels of x as a string of digits.
func predictions(c Classifier, x [][]float64) string {
	var b strings.Builder
	for _, r := range x {
		b.WriteString(strconv.Itoa(c.Predict(r)))
	}
	return b.String()
}

func classesOf(name string) int {
	if name == "blobs3" {
		return 3
	}
	return 2
}

// TestKNNMatchesSklearn: no two training points are at the same distance
// from a test point (the smallest gap between sorted distances is 1.3e-7,
// circles), so the neighbours are unambiguous; k = 4 has class ties
// (2–2), resolved to the smaller label.
func TestKNNMatchesSklearn(t *testing.T) {
	want := map[string]map[int]string{
		"moons": {
			1:  "0101010101110101010101010101110101000001010100001101010101010101110001000101010101010101000101000101",
			4:  "0101010101010101010101010101010101000001010100001101010101010101100001000101010101010101000101000101",
			15: "0101010101010101010101010100010101000001010100000101010101010101100001000101010101010101000101010101",
		},
		"circles": {
			1:  "1101011101000100010101010101110100010101011111110101010001010101100101111001010001010101010101011101",
			4:  "0101010101000101010001000101110100010101011101010101110011010101010001011101000100010100010101011101",
			15: "0101010101000101010001010101010000011101010100110101110010010101010101010001010100010100000101011101",
		},
		"blobs3": {
			1:  "0120120120120020120120120120120120122120120120120120120120120120120120120120120120120120120020020120",
			4:  "0120120120120020120120120120120120120120120120120120120120120120120120120120120120120120120120020120",
			15: "0120120120120020120120120120120120122120120120120120120120120120120120120120120120120120120120020120",
		},
	}
	trainAcc := map[string]map[int]float64{ // score(X, y) on the training set
		"moons":   {1: 1, 4: 0.9533333333333334, 15: 0.94},
		"circles": {1: 1, 4: 0.86, 15: 0.8466666666666667},
		"blobs3":  {1: 1, 4: 0.98, 15: 0.9933333333333333},
	}
	for name, ks := range want {
		x, y, qx, _ := oracleData(name)
		m, err := NewKNN(x, y, classesOf(name), 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []int{1, 4, 15} {
			if err := m.SetK(k); err != nil {
				t.Fatal(err)
			}
			if got := predictions(m, qx); got != ks[k] {
				t.Errorf("%s k=%d:\n got %s\nwant %s", name, k, got, ks[k])
			}
			algotest.Near(t, name+" train accuracy", Accuracy(m, x, y), trainAcc[name][k], 1e-15)
		}
	}
}

// TestKNNProbaAndTies: probabilities are vote shares; a 2–2 vote goes to
// the smaller label, and equidistant neighbours to the smaller index.
func TestKNNProbaAndTies(t *testing.T) {
	x := [][]float64{{-1, 0}, {1, 0}, {0, 2}, {0, -2}, {5, 5}}
	y := []int{1, 0, 1, 0, 1}
	m, err := NewKNN(x, y, 2, 4)
	if err != nil {
		t.Fatal(err)
	}
	p := make([]float64, 2)
	m.Proba([]float64{0, 0}, p)
	if p[0] != 0.5 || p[1] != 0.5 || m.Predict([]float64{0, 0}) != 0 {
		t.Errorf("2–2 tie: p = %v, predict %d; want ½, ½ and class 0", p, m.Predict([]float64{0, 0}))
	}
	// At k = 1 the origin is equidistant from rows 0 (class 1) and 1
	// (class 0): the smaller index, row 0, is the neighbour.
	_ = m.SetK(1)
	if got := m.Predict([]float64{0, 0}); got != 1 {
		t.Errorf("equidistant: got class %d, want row 0's class 1", got)
	}
	for k := 1; k < 5; k++ {
		if err := m.Step(); err != nil || m.K() != k+1 {
			t.Fatalf("Step to k=%d: %v", k+1, err)
		}
	}
	if err := m.Step(); !errors.Is(err, algo.ErrConverged) {
		t.Errorf("Step past k = n: %v", err)
	}
}

// TestTreeMatchesSklearn compares the grown tree (to a depth, or to the
// end) and the best-first tree after L − 1 splits with scikit-learn's.
func TestTreeMatchesSklearn(t *testing.T) {
	cases := []struct {
		name           string
		maxDepth       int
		leaves         int // 0: grow to the end
		want           []string
		nLeaves, depth int // of the tree grown to the end
	}{
		{"moons", 3, 0, []string{"0101010101010101010101010100010101010001010100000101011101010101100001000101010101010101000001000101"}, 6, 3},
		{"moons", 0, 0, []string{
			"0101010101010101010101010101010001010001010100000001011100010101110000000101010101010101000001000100",
			"0101010101010101010101010101010001010001010100000001011100010101110000000101010101010101000101000100"}, 16, 8},
		{"moons", 0, 2, []string{"0101010100000101110101010100010111010001010100000101011001010001100001000101010101010101000001010101"}, 0, 0},
		{"moons", 0, 3, []string{"0101010101010101110101010100010111010001010100000101011101010101100001000101010101010101000001010101"}, 0, 0},
		{"moons", 0, 5, []string{"0101010101010101010101010100010101010001010100000101011101010101100001000101010101010101000001000101"}, 0, 0},
		{"moons", 0, 8, []string{"0101010101010101010101010100010001010001010100000001011101010101100000000101010101010101000001000101"}, 0, 0},
		{"circles", 3, 0, []string{"0100001111000100010100011001010100011100010101010101110010010100010101000101010100010100001101001101"}, 6, 3},
		{"circles", 0, 2, []string{"0100000010000100000100000000010000010000000000000101100000010100000101010001000000010100000001000001"}, 0, 0},
		{"circles", 0, 3, []string{"0100000010000100010100010001010000010100010000000101110000010100000101010001000000010100000101001001"}, 0, 0},
		{"circles", 0, 5, []string{"0101011111010100010101011101010100011101010101110101110011010101010101010101010101010100001101011101"}, 0, 0},
		{"blobs3", 0, 0, []string{"0120120120120000120220120120120120122120120120120120120120120120120120120220120120120120120020020120"}, 8, 5},
		{"blobs3", 3, 0, []string{"0120120120120020120220120120120120122120120120120120120120120120120120120220120120120120120020020120"}, 6, 3},
		{"blobs3", 0, 2, []string{"0100100100100000100000100100100100100100100100100100100100100100100100100000100100100100100000000110"}, 0, 0},
		{"blobs3", 0, 3, []string{"0120120120120020120220120120120120122120120120120120120120120120120120120220120120120120120020020110"}, 0, 0},
		{"blobs3", 0, 5, []string{"0120120120120020120220120120120120122120120120120120120120120120120120120220120120120120120020020110"}, 0, 0},
		{"blobs3", 0, 8, []string{"0120120120120000120220120120120120122120120120120120120120120120120120120220120120120120120020020120"}, 0, 0},
	}
	for _, c := range cases {
		x, y, qx, _ := oracleData(c.name)
		tr, err := NewTree(x, y, classesOf(c.name), nil, TreeConfig{MaxDepth: c.maxDepth}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if c.leaves == 0 {
			tr.Grow()
			if tr.Leaves() != c.nLeaves || tr.Depth() != c.depth {
				t.Errorf("%s max_depth=%d: %d leaves, depth %d; want %d, %d", c.name, c.maxDepth, tr.Leaves(), tr.Depth(), c.nLeaves, c.depth)
			}
		} else {
			for range c.leaves - 1 {
				if err := tr.Step(); err != nil {
					t.Fatal(err)
				}
			}
			if tr.Leaves() != c.leaves || tr.Splits() != c.leaves-1 {
				t.Errorf("%s: %d leaves after %d splits", c.name, tr.Leaves(), tr.Splits())
			}
		}
		got := predictions(tr, qx)
		ok := false
		for _, w := range c.want {
			ok = ok || got == w
		}
		if !ok {
			t.Errorf("%s max_depth=%d leaves=%d:\n got %s\nwant %s", c.name, c.maxDepth, c.leaves, got, strings.Join(c.want, "\n  or "))
		}
	}
}

// TestTreeProperties: grown to the end without a depth bound, every leaf
// is pure (no two training points coincide), so the training accuracy is
// 1, and the impurity decreases of the splits add up to the root's
// impurity minus the leaves' weighted impurities, 0.
func TestTreeProperties(t *testing.T) {
	x, y, _, _ := oracleData("moons")
	tr, err := NewTree(x, y, 2, nil, TreeConfig{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	total := 0.0
	for {
		g := tr.NextGain()
		if tr.Step() != nil {
			break
		}
		total += g
	}
	if a := Accuracy(tr, x, y); a != 1 {
		t.Errorf("full tree's training accuracy %v, want 1", a)
	}
	root := tr.Nodes()[0]
	leaves := 0.0
	for _, nd := range tr.Nodes() {
		if nd.Left < 0 {
			leaves += nd.W / root.W * nd.Impurity
		}
	}
	algotest.Near(t, "leaves' impurity", leaves, 0, 1e-15)
	algotest.Near(t, "Σ ΔG", total, root.Impurity-leaves, 1e-12)
}

// TestForestAgainstSklearn: scikit-learn's forest draws its bootstraps
// and features from another stream, so the oracle is statistical: our
// mean test and out-of-bag accuracies over 6 seeds of 100 trees are
// within 4 standard errors of scikit-learn's means over its random_state
// 0..19, the standard error of the difference being sd·√(1/6 + 1/20),
// sd the spread across seeds of one forest's accuracy. The sds are ours
// over 40 seeds (the same law as scikit-learn's, whose spreads were
// 0.003–0.015 too). And the forest's probability is exactly the average
// of its trees'.
func TestForestAgainstSklearn(t *testing.T) {
	ref := map[string]struct{ test, oob, sdTest, sdOOB float64 }{ // sklearn's means, our sds
		"moons":   {0.8955, 0.9060, 0.0055, 0.0078},
		"circles": {0.8020, 0.7960, 0.0148, 0.0085},
		"blobs3":  {0.9390, 0.9660, 0.0036, 0.0069},
	}
	const seeds = 6
	se := math.Sqrt(1.0/seeds + 1.0/20)
	for name, r := range ref {
		x, y, qx, qy := oracleData(name)
		var acc, oob float64
		for s := range seeds {
			f, err := NewForest(x, y, classesOf(name), ForestConfig{Trees: 100}, rand.New(rand.NewPCG(uint64(s), 3)))
			if err != nil {
				t.Fatal(err)
			}
			for f.Step() == nil {
			}
			acc += Accuracy(f, qx, qy) / seeds
			o, n, ok := f.OOB()
			if !ok || n != len(x) {
				t.Fatalf("%s: OOB over %d points", name, n)
			}
			oob += o / seeds
		}
		t.Logf("%s: test %.4f (sklearn %.4f), OOB %.4f (sklearn %.4f)", name, acc, r.test, oob, r.oob)
		algotest.Near(t, name+" test accuracy", acc, r.test, 4*r.sdTest*se)
		algotest.Near(t, name+" OOB accuracy", oob, r.oob, 4*r.sdOOB*se)
	}
	x, y, qx, _ := oracleData("blobs3")
	f, _ := NewForest(x, y, 3, ForestConfig{Trees: 7}, rand.New(rand.NewPCG(1, 2)))
	for f.Step() == nil {
	}
	p, pt, sum := make([]float64, 3), make([]float64, 3), make([]float64, 3)
	for _, q := range qx[:20] {
		clear(sum)
		for _, tr := range f.Trees() {
			tr.Proba(q, pt)
			for k := range sum {
				sum[k] += pt[k] / 7
			}
		}
		f.Proba(q, p)
		for k := range p {
			algotest.Near(t, "forest p = mean of trees' p", p[k], sum[k], 1e-15)
		}
		if f.Predict(q) != floats.MaxIdx(p) {
			t.Errorf("Predict %d, argmax p = %d", f.Predict(q), floats.MaxIdx(p))
		}
	}
}

// TestGaussianNBMatchesSklearn: predict_proba to 1e-12 at six test points
// each, the sums Σ p₀ and Σ p² over the 100 test points, ε, the labels,
// and the fit on the first 30 points (taken one at a time).
func TestGaussianNBMatchesSklearn(t *testing.T) {
	cases := map[string]struct {
		pred        string
		eps         float64
		sum0, sumSq float64
		at          map[int][]float64
		first30     [3][]float64
	}{
		"moons": {"0101010101110011010101010100010101010001010100000001011101010001100101100101010101010101000001010101",
			8.444898655914827e-10, 54.232205586573471, 85.557602248071419,
			map[int][]float64{0: {0.98037127756729081, 0.019628722432709297}, 1: {0.0029536548600784026, 0.99704634513992174},
				2: {0.94748327176298996, 0.05251672823700991}, 3: {0.0036847481480524404, 0.99631525185194791},
				50: {0.99490210247944455, 0.0050978975205552956}, 99: {0.090105933407720995, 0.90989406659227923}},
			[3][]float64{{0.95118816749985369, 0.048811832500146368}, {0.00017724278675617665, 0.99982275721324398},
				{0.83898286793214594, 0.16101713206785398}}},
		"circles": {"0101010101010101010101010101010000010101011101110101110101010101010101010101010001010100010101011101",
			3.9215760500549465e-10, 44.150929760823054, 59.751795159967514,
			map[int][]float64{0: {0.5017588939613925, 0.49824110603860761}, 1: {0.026436840583398843, 0.97356315941660154},
				2: {0.61016137007758231, 0.38983862992241763}, 3: {0.055278827687107471, 0.94472117231289265},
				50: {0.68929180267443013, 0.31070819732556976}, 99: {0.31709008943692146, 0.68290991056307859}},
			[3][]float64{{0.61328103854281013, 0.3867189614571897}, {0.018569645636732499, 0.98143035436326753},
				{0.5109138197474179, 0.4890861802525821}}},
		"blobs3": {"0120120120120020120220120120120120122120120120120120120120120120120120120120120120120120120120020110",
			5.5693455813675543e-09, 35.606380481827735, 96.109899799671524,
			map[int][]float64{0: {0.99948259996578681, 0.00051739975383071973, 2.8038222888424407e-10},
				1:  {0.00072394717920514027, 0.99922357941765672, 5.2473403138395398e-05},
				2:  {0.00069165635695696412, 1.7366532511242301e-06, 0.99930660698979168},
				3:  {0.9999983155151021, 1.6022253185751604e-06, 8.2259579369411839e-08},
				50: {0.0042654954331420468, 3.3657662188674803e-07, 0.99573416799023595},
				99: {0.97780033918024944, 5.1261149990859515e-08, 0.022199609558600404}},
			[3][]float64{{0.99605449168839488, 0.0039228072122056024, 2.2701099399319896e-05},
				{1.3013211254847115e-10, 0.99999976217816877, 2.3769169930069966e-07},
				{7.3496556196855615e-06, 3.819670770994396e-06, 0.99998883067360933}}},
	}
	for name, c := range cases {
		x, y, qx, _ := oracleData(name)
		k := classesOf(name)
		m, err := NewGaussianNB(2, k, DefaultSmoothing)
		if err != nil {
			t.Fatal(err)
		}
		p := make([]float64, k)
		for i := range x {
			if err := m.Add(x[i], y[i]); err != nil {
				t.Fatal(err)
			}
			if i == 29 {
				for j := range 3 {
					m.Proba(qx[j], p)
					for l := range p {
						algotest.Near(t, name+" first 30", p[l], c.first30[j][l], 1e-12)
					}
				}
			}
		}
		algotest.Near(t, name+" ε", m.Epsilon(), c.eps, 1e-22)
		if got := predictions(m, qx); got != c.pred {
			t.Errorf("%s:\n got %s\nwant %s", name, got, c.pred)
		}
		var s0, sq float64
		for j, q := range qx {
			m.Proba(q, p)
			s0 += p[0]
			for _, v := range p {
				sq += v * v
			}
			if w, ok := c.at[j]; ok {
				for l := range p {
					algotest.Near(t, name+" p", p[l], w[l], 1e-12)
				}
			}
		}
		algotest.Near(t, name+" Σ p₀", s0, c.sum0, 1e-11)
		algotest.Near(t, name+" Σ p²", sq, c.sumSq, 1e-11)
	}
}

// TestGaussianNBClosedForm: with two points a class the fit is the
// closed form: μ the midpoint, σ² = (a − b)²/4 + ε.
func TestGaussianNBClosedForm(t *testing.T) {
	m, _ := NewGaussianNB(1, 2, 0.5)
	for _, r := range []struct {
		x float64
		y int
	}{{0, 0}, {2, 0}, {10, 1}, {14, 1}} {
		if err := m.Add([]float64{r.x}, r.y); err != nil {
			t.Fatal(err)
		}
	}
	// All four points: mean 6.5, variance (6.5² + 4.5² + 3.5² + 7.5²)/4 = 32.75.
	eps := 0.5 * 32.75
	algotest.Near(t, "ε", m.Epsilon(), eps, 1e-12)
	pr, mu, v := m.Params(1, 0)
	algotest.Near(t, "π₁", pr, 0.5, 0)
	algotest.Near(t, "μ₁", mu, 12, 1e-15)
	algotest.Near(t, "σ²₁", v, 4+eps, 1e-12)
	q := 7.0
	l0 := -0.5*math.Log(2*math.Pi*(1+eps)) - (q-1)*(q-1)/(2*(1+eps))
	l1 := -0.5*math.Log(2*math.Pi*(4+eps)) - (q-12)*(q-12)/(2*(4+eps))
	p := make([]float64, 2)
	m.Proba([]float64{q}, p)
	algotest.Near(t, "p₁", p[1], 1/(1+math.Exp(l0-l1)), 1e-15)
}

func TestValidation(t *testing.T) {
	x, y := [][]float64{{0, 0}, {1, 1}}, []int{0, 1}
	_, err := NewKNN(x, y, 2, 3)
	algotest.WantParam(t, err, "k")
	_, err = NewKNN(x, []int{0, 2}, 2, 1)
	algotest.WantParam(t, err, "y")
	_, err = NewKNN([][]float64{{0, 0}, {1}}, y, 2, 1)
	algotest.WantParam(t, err, "x")
	_, err = NewKNN([][]float64{{0, math.NaN()}, {1, 1}}, y, 2, 1)
	algotest.WantParam(t, err, "x")
	_, err = NewKNN(x, y, 1, 1)
	algotest.WantParam(t, err, "classes")
	_, err = NewTree(x, y, 2, nil, TreeConfig{MaxDepth: -1}, nil)
	algotest.WantParam(t, err, "max_depth")
	_, err = NewTree(x, y, 2, nil, TreeConfig{MaxFeatures: 3}, nil)
	algotest.WantParam(t, err, "max_features")
	_, err = NewTree(x, y, 2, nil, TreeConfig{MaxFeatures: 1}, nil)
	algotest.WantParam(t, err, "rng")
	_, err = NewTree(x, y, 2, []float64{0, 0}, TreeConfig{}, nil)
	algotest.WantParam(t, err, "w")
	_, err = NewForest(x, y, 2, ForestConfig{Trees: 0}, rand.New(rand.NewPCG(1, 1)))
	algotest.WantParam(t, err, "trees")
	_, err = NewForest(x, y, 2, ForestConfig{Trees: 1}, nil)
	algotest.WantParam(t, err, "rng")
	_, err = NewGaussianNB(2, 2, -1)
	algotest.WantParam(t, err, "smoothing")
	m, _ := NewGaussianNB(2, 2, DefaultSmoothing)
	algotest.WantParam(t, m.Add([]float64{0}, 0), "x")
	algotest.WantParam(t, m.Add([]float64{0, 0}, 2), "y")
	if m.Ready() {
		t.Error("an empty naive Bayes is ready")
	}
}

// TestTreeWeightsAreCounts: a tree grown with integer weights (a
// bootstrap's counts) is the tree of the data with each row repeated
// that many times — the same splits in the same order, thresholds,
// impurities and weights — which is what the forest relies on.
func TestTreeWeightsAreCounts(t *testing.T) {
	x, y, qx, _ := oracleData("blobs3")
	rng := rand.New(rand.NewPCG(4, 4))
	w := make([]float64, len(x))
	var rx [][]float64
	var ry []int
	for range x {
		w[rng.IntN(len(x))]++
	}
	for i, c := range w {
		for range int(c) {
			rx, ry = append(rx, x[i]), append(ry, y[i])
		}
	}
	a, err := NewTree(x, y, 3, w, TreeConfig{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewTree(rx, ry, 3, nil, TreeConfig{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for {
		ea, eb := a.Step(), b.Step()
		if (ea == nil) != (eb == nil) {
			t.Fatalf("one tree stopped after %d splits, the other did not", a.Splits())
		}
		if ea != nil {
			break
		}
	}
	na, nb := a.Nodes(), b.Nodes()
	if len(na) != len(nb) || len(na) < 3 {
		t.Fatalf("%d nodes weighted, %d repeated", len(na), len(nb))
	}
	for i := range na {
		u, v := na[i], nb[i]
		if u.Feature != v.Feature || u.Threshold != v.Threshold || u.Left != v.Left || u.Impurity != v.Impurity || u.W != float64(v.N) {
			t.Fatalf("node %d: weighted %+v, repeated %+v", i, u, v)
		}
	}
	pa, pb := make([]float64, 3), make([]float64, 3)
	for _, q := range qx {
		a.Proba(q, pa)
		b.Proba(q, pb)
		for k := range pa {
			if pa[k] != pb[k] {
				t.Fatalf("p(%v) = %v weighted, %v repeated", q, pa, pb)
			}
		}
	}
}

// TestForestOOB recomputes the out-of-bag accuracy from its definition:
// with MaxFeatures = d the generator draws only the bootstraps, so a
// second generator of the same seed replays them, and each point's vote
// is the argmax of the summed probabilities of the trees that missed it.
func TestForestOOB(t *testing.T) {
	x, y, _, _ := oracleData("moons")
	const trees = 5 // a point is in all five bootstraps with probability (1 − 1/e)⁵ ≈ 0.1
	f, err := NewForest(x, y, 2, ForestConfig{Trees: trees, MaxFeatures: 2}, rand.New(rand.NewPCG(8, 1)))
	if err != nil {
		t.Fatal(err)
	}
	for f.Step() == nil {
	}
	replay := rand.New(rand.NewPCG(8, 1))
	n := len(x)
	sum := make([][]float64, n)
	for i := range sum {
		sum[i] = make([]float64, 2)
	}
	p := make([]float64, 2)
	for _, tr := range f.Trees() {
		in := make([]bool, n)
		for range n {
			in[replay.IntN(n)] = true
		}
		for i := range n {
			if !in[i] {
				tr.Proba(x[i], p)
				sum[i][0], sum[i][1] = sum[i][0]+p[0], sum[i][1]+p[1]
			}
		}
	}
	right, seen := 0, 0
	for i, s := range sum {
		if s[0]+s[1] == 0 {
			continue
		}
		seen++
		if floats.MaxIdx(s) == y[i] {
			right++
		}
	}
	acc, m, ok := f.OOB()
	if !ok || m != seen || acc != float64(right)/float64(seen) {
		t.Errorf("OOB %v over %d points (ok %v); recomputed %v over %d", acc, m, ok, float64(right)/float64(seen), seen)
	}
	if seen == n {
		t.Errorf("every point left out by some of %d trees: the test does not check the points never left out", trees)
	}
}

// TestNoAllocation: a prediction allocates nothing (the sims call them
// for every cell of a grid a step).
func TestNoAllocation(t *testing.T) {
	x, y, qx, _ := oracleData("moons")
	knn, _ := NewKNN(x, y, 2, 7)
	knn40, _ := NewKNN(x, y, 2, 40) // by selection
	tree, _ := NewTree(x, y, 2, nil, TreeConfig{}, nil)
	tree.Grow()
	forest, _ := NewForest(x, y, 2, ForestConfig{Trees: 3}, rand.New(rand.NewPCG(1, 1)))
	for forest.Step() == nil {
	}
	nb, _ := NewGaussianNB(2, 2, DefaultSmoothing)
	for i := range x {
		_ = nb.Add(x[i], y[i])
	}
	p := make([]float64, 2)
	for name, c := range map[string]Classifier{"knn": knn, "knn k=40": knn40, "tree": tree, "forest": forest, "naive Bayes": nb} {
		if a := testing.AllocsPerRun(10, func() { c.Proba(qx[3], p); _ = c.Predict(qx[4]) }); a != 0 {
			t.Errorf("%s: %v allocations a prediction", name, a)
		}
	}
}

// TestKNNNeighboursBruteForce: on points of a coarse integer grid, where
// many distances tie, the vote shares at every k (by insertion for small
// k, by selection above insertMax) are those of the k first points in a
// stable sort of all the points by distance: the ties to the k-th go to
// the smaller indices.
func TestKNNNeighboursBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	const n, classes = 90, 3
	x, y := make([][]float64, n), make([]int, n)
	for i := range x {
		x[i] = []float64{float64(rng.IntN(7)), float64(rng.IntN(7))}
		y[i] = rng.IntN(classes)
	}
	m, err := NewKNN(x, y, classes, 1)
	if err != nil {
		t.Fatal(err)
	}
	order := make([]int, n)
	p := make([]float64, classes)
	for _, q := range [][]float64{{3, 3}, {0.5, 2}, {-1, 6}, {3.5, 3.5}} {
		for i := range order {
			order[i] = i
		}
		d := func(i int) float64 { return sq(x[i][0]-q[0]) + sq(x[i][1]-q[1]) }
		sort.SliceStable(order, func(a, b int) bool { return d(order[a]) < d(order[b]) })
		for k := 1; k <= n; k++ {
			if err := m.SetK(k); err != nil {
				t.Fatal(err)
			}
			want := make([]float64, classes)
			for _, i := range order[:k] {
				want[y[i]]++
			}
			m.Proba(q, p)
			for c := range p {
				if p[c] != want[c]/float64(k) {
					t.Fatalf("q = %v, k = %d: p = %v, want %v/%d", q, k, p, want, k)
				}
			}
			if got := m.Predict(q); got != floats.MaxIdx(want) {
				t.Fatalf("q = %v, k = %d: predicted %d, want %d", q, k, got, floats.MaxIdx(want))
			}
		}
	}
}

func sq(v float64) float64 { return v * v }
