package cluster

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/algotest"
)

// sklearnLabels are scikit-learn 1.2.1's labels of the oracle sets
// (oracleData: Generate(set, PCG(29, 2), 300), written by TestDumpData
// with CLUSTER_DUMP=/tmp/cl29), one character a point: '.' for noise (−1),
// else the label. They were computed by
//
//	X = np.loadtxt(f"/tmp/cl29/{set}.csv", delimiter=",")[:, :2]
//	DBSCAN(eps=0.3 (varied 0.18, aniso 0.15), min_samples=5).fit(X).labels_
//	AgglomerativeClustering(n_clusters=k, linkage=l).fit(X).labels_,
//	    renamed 0, 1, … in order of first appearance
//	SpectralClustering(n_clusters=k, eigen_solver="arpack",
//	    affinity="nearest_neighbors", random_state=42).fit(X).labels_
//
// with k = 2 for circles and moons, 3 for the others (the gallery's
// n_clusters; 3 for none too) and the gallery's ε. (Spectral's references
// on moons, varied, blobs and none matched too; they are left out to keep
// the O(n³) eigendecompositions of the test few: each takes 0.6 s under
// -race. Circles, two components, and aniso, three clusters, remain.)
var sklearnLabels = []struct{ set, method, labels string }{
	{"circles", "dbscan", "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111"},
	{"circles", "ward", "000000000000111111111111111111111111111111111111111111111111111111111111111111111000000000000000000000000000000000000000000000000000000000000000000000000000101111111111111111111111111111111111111111111111111111111111111111111010000000000000000000000000000000000000000000000000000000000000000000000000"},
	{"circles", "single", "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111"},
	{"circles", "complete", "000000000000000000000000000001111111111111111111111111111111111111111000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001011111111111111111111111111111111111110110000000000000000000000000000000000000000000000000000000000000000000000000000000000"},
	{"circles", "average", "000000000000000000000000000001111111111111111111111111111111111111111111111111111000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001011111111111111111111111111111111111111111111111010000000000000000000000000000000000000000000000000000000000000000000000000"},
	{"circles", "spectral", "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111"},
	{"moons", "dbscan", "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111"},
	{"moons", "ward", "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000010111011111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111"},
	{"moons", "single", "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111"},
	{"moons", "complete", "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000110111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111"},
	{"moons", "average", "000000000000000000000000000001111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"},
	{"varied", "dbscan", ".0001000100100.000000000000000000001000000000000.0010000000100000000000000000.00000010000000000000012..3....2...4......45.3..4...2.......3......3.........4.2...2.3.4......2.2..........4........3....545.55555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555"},
	{"varied", "ward", "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000011111111111111111111211111111111111111111111111111111112111111111111111111111111111111211111111111212222222222222222222222222222222222222222222222222222222222222222222222222222222222222222222222222222"},
	{"varied", "single", "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001020000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"},
	{"varied", "complete", "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000012121221122222122222122212121121221122222211221112211121122211222111211121222222212221112121021221121111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111"},
	{"varied", "average", "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000011011111111111111111011111111111111111111111111111111110111111111101112111111111111111011111111111010000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"},
	{"aniso", "dbscan", "000000000000000000000000000000000000000000000000.0000000000000000000000000000.0000000000000000000000111111111111111111111111111111111111111111111111111111111111111111111111.1.11111111111111111111111.1222222.2222222222222222222.222222.22222222.222222222222222222222222222222222222222222222222222222222"},
	{"aniso", "ward", "000000000000000000000000000000000000000000000000100000000000000000000000000000000000000000000000000022222222222222222222222222222222222222222222222222222222222222222222222222222222222222222222222222221011110111101111011110111100101111111111111111111111111011111011111011111111111111011101011111011111"},
	{"aniso", "single", "000000000000000000000000000000000000000000000000100000000000000000000000000000000000000000000000000022222222222222222222222222222222222222222222222222222222222222222222222222222222222222222222222222220000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"},
	{"aniso", "complete", "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000012111221121222122122121112221121222111221221111112212121122212122111112121221222122222122122111221121000000000000000000100000000000001100000001000000000100000000000000000000010000000000000000000000000"},
	{"aniso", "average", "000000000000000000000000000000000000000000000000100000000000000000000000000000000000000000000000000022222222222222222222222222222222222222222222222222222222222222222222222222222222222222222222222222221011110111111111011110111101101111111111112111111111111011111011111011111111111111011101011111111111"},
	{"aniso", "spectral", "000000000000000000000000000000000000000000000000200000000000000000000000000000000000000000000000000011111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111112222222222222222222222222222222222222222222222222222222222222222222222222222222222222222222222222222"},
	{"blobs", "dbscan", "00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001111111111111111111111111111111111111111111111111111111111111111111111.111111111111111111111111111112.2222.222222222.22222222222222222222222222222222222222222222222222222222222222222222222222222222222"},
	{"blobs", "ward", "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000011111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111112222222222222222222222222222222222222222222222222222222222222222222222222222222222222222222222222222"},
	{"blobs", "single", "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000011111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111112222222222222222222222222222222222222222222222222222222222222222222222222222222222222222222222222222"},
	{"blobs", "complete", "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000011111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111112222222222222222222222222222222222222222222222222222222222222222222222222222222222222222222222222222"},
	{"blobs", "average", "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000011111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111112222222222222222222222222222222222222222222222222222222222222222222222222222222222222222222222222222"},
	{"none", "dbscan", "000000001000000000000000001000000000000000000000000000000000000000.00001000000100000100000100000000001000000001001000000000000010000001000000000000000000001000000000100001000000000000000000010000000000000000100100000000000000010000000001000000100000000100010000000100000001000001000000000000000100000"},
	{"none", "ward", "011022202211221222122021212211100112111122222211111011200122121000212212211122220201201102200020012202022021122112022020022200221110002102211101122111202012001212211211122122202210200002101122112101200011212212221002020002220022211022022011110210011122211221212002210202102102022011012211111001221212"},
	{"none", "single", "000000001000000000000000001000000000000000000000000000000000000000200001000000100000100000100000000001000000001001000000000000010000001000000000000000000001000000000100001000000000000000000010000000000000000100100000000000000010000000001000000100000000100010000000100000001000001000000000000000100000"},
	{"none", "complete", "000010001100120211021210101200002001000011212101000000202012010002101101110012100100100001102220202201011210011001211010222200110000021022101000012000102201020102101100011011202200102002001012001020100000101101100202212021210012100022211200000100000010100110102201100101001001211000202000000000120101"},
	{"none", "average", "000011102100110111011110102100001021220012121202200000101021210001201202222011210110202002201111001102011110022002111010111100120000012011202000211000201102010121202222212022101100101001202221002010100000101202210101111011110021220011122100001200000011200120201101220102002001112000101100000000210101"},
}

// decode reads a sklearnLabels string.
func decode(s string) []int {
	out := make([]int, len(s))
	for i, c := range s {
		switch {
		case c == '.':
			out[i] = -1
		case c >= '0' && c <= '9':
			out[i] = int(c - '0')
		default:
			out[i] = int(c-'a') + 10
		}
	}
	return out
}

// samePartition counts the points on which two labellings disagree once
// each is renamed 0, 1, … in order of first appearance: 0 exactly when
// they are the same partition (a contingency table with one non-zero
// entry per row and column).
func samePartition(a, b []int) int {
	ca, cb := compact(nil, a), compact(nil, b)
	bad := 0
	for i := range ca {
		if ca[i] != cb[i] {
			bad++
		}
	}
	return bad
}

func clustersOf(s Set) int {
	if s == None {
		return 3
	}
	return s.Classes()
}

// TestAgainstScikitLearn checks every engine against scikit-learn's
// labels on the gallery's six sets: DBSCAN's exactly (cluster names,
// noise and the order of discovery included), agglomerative clustering's
// and spectral clustering's as partitions (their names are arbitrary;
// spectral's k-means starts are not sklearn's, and on these sets the
// best of ten starts finds the same partition).
func TestAgainstScikitLearn(t *testing.T) {
	eps := map[Set]float64{Varied: 0.18, Aniso: 0.15}
	data := map[Set][][]float64{}
	for _, c := range sklearnLabels {
		s := Set(c.set)
		x, ok := data[s]
		if !ok {
			x, _ = oracleData(t, s)
			data[s] = x
		}
		want := decode(c.labels)
		var got []int
		switch c.method {
		case "dbscan":
			e := eps[s]
			if e == 0 {
				e = 0.3
			}
			db, err := NewDBSCAN(x, e, 5)
			if err != nil {
				t.Fatal(err)
			}
			got = db.Run()
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("%s dbscan: point %d has label %d, scikit-learn %d", s, i, got[i], want[i])
					break
				}
			}
			continue
		case "spectral":
			sp, err := NewSpectral(x, KNN, clustersOf(s), 10, 0, 10,
				func(r int) *rand.Rand { return rand.New(rand.NewPCG(1, uint64(r))) })
			if err != nil {
				t.Fatal(err)
			}
			for sp.Step() == nil {
			}
			got = sp.KMeans().Assign(nil)
			if s == Circles { // two rings, two components of the 10-NN graph, two zero eigenvalues
				if ev := sp.Eigenvalues(); sp.Components() != 2 || ev[1] > 1e-9 || ev[2] < 1e-4 {
					t.Errorf("circles: %d components, eigenvalues %.3g", sp.Components(), ev[:3])
				}
			}
		default:
			a, err := NewAgglomerative(x, Linkage(c.method), clustersOf(s))
			if err != nil {
				t.Fatal(err)
			}
			a.Run()
			got = a.Labels(nil)
		}
		if bad := samePartition(want, got); bad > 0 {
			t.Errorf("%s %s: %d of %d points in another cluster than scikit-learn's", s, c.method, bad, len(want))
		}
	}
}

// TestAdjustedRand checks the index against scikit-learn 1.2.1's
// adjusted_rand_score(a, b) on small labellings (values printed by
// repr()).
func TestAdjustedRand(t *testing.T) {
	for _, c := range []struct {
		a, b []int
		want float64
	}{
		{[]int{0, 0, 1, 1}, []int{0, 0, 1, 1}, 1},
		{[]int{0, 0, 1, 1}, []int{1, 1, 0, 0}, 1},
		{[]int{0, 0, 0, 0}, []int{0, 1, 2, 3}, 0},
		{[]int{0, 0, 1, 1}, []int{0, 1, 0, 1}, -0.5},
		{[]int{0, 0, 1, 2}, []int{0, 0, 1, 1}, 0.5714285714285714},
		{[]int{0, 0, 0, 1, 1, 1, 2, 2, 2}, []int{0, 0, 1, 1, 1, 2, 2, 2, -1}, 0.2},
		{[]int{0, 0, 0, 0, 0}, []int{0, 0, 0, 0, 0}, 1},
		{[]int{0, 1, 2, 3}, []int{0, 1, 2, 3}, 1},
		{[]int{1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3}, []int{1, 1, 2, 2, 2, 2, 3, 3, -1, -1, 3, 3}, 0.3183475091130012},
	} {
		got, err := AdjustedRand(c.a, c.b)
		if err != nil {
			t.Fatal(err)
		}
		algotest.Near(t, "ARI", got, c.want, 1e-15)
	}
	if _, err := AdjustedRand([]int{0}, []int{0, 1}); err == nil {
		t.Error("labellings of different lengths accepted")
	}
}

// TestDBSCANSteps checks the kinds against their definitions and that a
// run takes one step per core point, each step expanding a core point
// whose label it has just set.
func TestDBSCANSteps(t *testing.T) {
	for _, s := range []Set{Moons, Varied, None} {
		x, _ := oracleData(t, s)
		eps, minS := 0.2, 6
		db, err := NewDBSCAN(x, eps, minS)
		if err != nil {
			t.Fatal(err)
		}
		for i, k := range db.Kinds() {
			cnt, nearCore := 0, false
			for j := range x {
				if math.Sqrt(algo.SqDist(x[i], x[j])) <= eps {
					cnt++
				}
			}
			nb := db.Neighbours(i, nil)
			for _, j := range nb {
				nearCore = nearCore || db.Kinds()[j] == Core
			}
			want := Outlier
			switch {
			case cnt >= minS:
				want = Core
			case nearCore:
				want = Border
			}
			if k != want || len(nb) != cnt {
				t.Fatalf("%s: point %d is %v with %d neighbours, want %v with %d", s, i, k, len(nb), want, cnt)
			}
		}
		steps := 0
		var last []int
		for db.Step() == nil {
			steps++
			c := db.Current()
			if db.Kinds()[c] != Core || db.Labels()[c] != db.Clusters()-1 {
				t.Fatalf("%s: step %d expanded point %d (%v, label %d)", s, steps, c, db.Kinds()[c], db.Labels()[c])
			}
			last = append(last[:0], db.Labels()...)
		}
		if steps != db.Cores() {
			t.Errorf("%s: %d steps, %d core points", s, steps, db.Cores())
		}
		// The Step that returned ErrConverged labelled nothing.
		for i, l := range db.Labels() {
			if l != last[i] {
				t.Fatalf("%s: the converged Step relabelled point %d from %d to %d", s, i, last[i], l)
			}
		}
		for i, l := range db.Labels() {
			if (l == Noise) != (db.Kinds()[i] == Outlier) {
				t.Errorf("%s: point %d (%v) has label %d", s, i, db.Kinds()[i], l)
			}
		}
	}
}

// TestWardHeights checks Ward's merge heights against their closed form,
// √(2 ΔSS) with ΔSS = n_a n_b/(n_a + n_b) ‖μ_a − μ_b‖² the rise of the
// within-cluster sum of squares, recomputed from the clusters' points,
// and that the heights of every linkage never decrease.
func TestWardHeights(t *testing.T) {
	x, _ := oracleData(t, Aniso)
	for _, l := range Linkages {
		a, err := NewAgglomerative(x, l, 1)
		if err != nil {
			t.Fatal(err)
		}
		prev := 0.0
		for step := 0; a.Step() == nil; step++ {
			h := a.Heights()[step]
			if h < prev*(1-1e-12) {
				t.Fatalf("%s: merge %d at %g below the last, %g", l, step, h, prev)
			}
			prev = h
		}
		if a.Clusters() != 1 || len(a.Heights()) != len(x)-1 {
			t.Errorf("%s: %d clusters after %d merges", l, a.Clusters(), len(a.Heights()))
		}
	}
	// Ward closed form: step a fresh run and compare each merge with ΔSS
	// of the two clusters it joined.
	a, _ := NewAgglomerative(x, Ward, 1)
	before := make([]int, len(x))
	for step := 0; step < 200; step++ {
		copy(before, a.Owner())
		if err := a.Step(); err != nil {
			t.Fatal(err)
		}
		keep := a.LastMerge()
		var na, nb float64
		var ma, mb [2]float64
		for i, o := range a.Owner() {
			if o != keep {
				continue
			}
			if before[i] == keep {
				na++
				ma[0], ma[1] = ma[0]+x[i][0], ma[1]+x[i][1]
			} else {
				nb++
				mb[0], mb[1] = mb[0]+x[i][0], mb[1]+x[i][1]
			}
		}
		d2 := sq(ma[0]/na-mb[0]/nb) + sq(ma[1]/na-mb[1]/nb)
		want := math.Sqrt(2 * na * nb / (na + nb) * d2)
		algotest.Near(t, "ward height", a.Heights()[step], want, 1e-9*max(1, want))
	}
}

func sq(v float64) float64 { return v * v }

// TestSpectralEmbedding checks the eigenpairs of the normalised Laplacian
// (L u = λ u, eigenvalues in [0, 2], as many near 0 as the graph has
// components) and that the embedding's rows are D^{−1/2} u, with the
// affinities rebuilt here from their definitions: for knn, j is among the
// m nearest of i (i included) when fewer than m − 1 other points are
// nearer (no ties on these data), and w_ij = ½(a_ij + a_ji).
func TestSpectralEmbedding(t *testing.T) {
	const gamma, m = 20.0, 8
	for _, c := range []struct {
		set Set
		aff Affinity
		k   int
	}{{Moons, RBF, 2}, {Aniso, KNN, 3}} {
		x, _, err := Generate(c.set, rand.New(rand.NewPCG(29, 3)), 120)
		if err != nil {
			t.Fatal(err)
		}
		sp, err := NewSpectral(x, c.aff, c.k, m, gamma, 1, func(r int) *rand.Rand { return rand.New(rand.NewPCG(3, uint64(r))) })
		if err != nil {
			t.Fatal(err)
		}
		ev := sp.Eigenvalues()
		zeros := 0
		for i, v := range ev {
			if v < -1e-9 || v > 2+1e-9 || (i > 0 && v < ev[i-1]) {
				t.Fatalf("%s: eigenvalue %d = %g", c.set, i, v)
			}
			if v < 1e-9 {
				zeros++
			}
		}
		if zeros != sp.Components() {
			t.Errorf("%s: %d zero eigenvalues, %d components", c.set, zeros, sp.Components())
		}
		n := len(x)
		d2 := mat.NewDense(n, n, nil)
		for i := range n {
			for j := range n {
				d2.Set(i, j, algo.SqDist(x[i], x[j]))
			}
		}
		near := mat.NewDense(n, n, nil) // a_ij
		for i := range n {
			row := d2.RawRowView(i)
			for j := range n {
				closer := 0
				for l, v := range row {
					if l != i && v < row[j] {
						closer++
					}
				}
				near.Set(i, j, b2f(closer < m-1))
			}
		}
		w := mat.NewDense(n, n, nil)
		deg := make([]float64, n)
		for i := range n {
			for j := range n {
				if i == j {
					continue
				}
				v := math.Exp(-gamma * d2.At(i, j))
				if c.aff == KNN {
					v = (near.At(i, j) + near.At(j, i)) / 2
				}
				w.Set(i, j, v)
			}
		}
		for i := range n {
			deg[i] = mat.Sum(w.RowView(i))
		}
		// L (√d ∘ e_c) = λ_c (√d ∘ e_c) for each embedding column e_c,
		// √d ∘ e_c of unit norm.
		for col := range c.k {
			u := make([]float64, n)
			norm := 0.0
			for i := range n {
				u[i] = sp.Embedding()[i][col] * math.Sqrt(deg[i])
				norm += u[i] * u[i]
			}
			algotest.Near(t, string(c.aff)+" ‖u‖²", norm, 1, 1e-12)
			for i := range n {
				lu := u[i]
				for j := range n {
					lu -= w.At(i, j) / math.Sqrt(deg[i]*deg[j]) * u[j]
				}
				algotest.Near(t, string(c.aff)+" (L u)_i", lu, ev[col]*u[i], 1e-10)
			}
		}
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func TestValidation(t *testing.T) {
	x, _ := oracleData(t, Moons)
	rng := func(r int) *rand.Rand { return rand.New(rand.NewPCG(1, uint64(r))) }
	_, err := NewDBSCAN(x, 0, 5)
	algotest.WantParam(t, err, "eps")
	_, err = NewDBSCAN(x, 0.3, 0)
	algotest.WantParam(t, err, "minSamples")
	_, err = NewDBSCAN([][]float64{{0, math.NaN()}}, 0.3, 1)
	algotest.WantParam(t, err, "points")
	_, err = NewAgglomerative(x, "centroid", 2)
	algotest.WantParam(t, err, "linkage")
	_, err = NewAgglomerative(x, Ward, 0)
	algotest.WantParam(t, err, "k")
	_, err = NewAgglomerative(x[:1], Ward, 1)
	algotest.WantParam(t, err, "points")
	_, err = NewSpectral(x, "cosine", 2, 10, 1, 1, rng)
	algotest.WantParam(t, err, "affinity")
	_, err = NewSpectral(x, KNN, 2, 0, 1, 1, rng)
	algotest.WantParam(t, err, "neighbours")
	_, err = NewSpectral(x, KNN, 2, 1, 1, 1, rng) // itself alone: no edge
	algotest.WantParam(t, err, "neighbours")
	_, err = NewSpectral([][]float64{{0, 0}, {0, 0.1}, {5, 5}}, RBF, 2, 1, 1e3, 1, rng) // a point alone
	algotest.WantParam(t, err, "gamma")
	_, err = NewSpectral(x, RBF, 2, 10, -1, 1, rng)
	algotest.WantParam(t, err, "gamma")
	_, err = NewSpectral(x, RBF, 0, 10, 1, 1, rng)
	algotest.WantParam(t, err, "k")
	_, err = NewSpectral(x, RBF, 2, 10, 1, 0, rng)
	algotest.WantParam(t, err, "restarts")
	_, _, err = Generate("spiral", rand.New(rand.NewPCG(1, 1)), 10)
	algotest.WantParam(t, err, "set")
	_, _, err = Generate(Moons, rand.New(rand.NewPCG(1, 1)), 1)
	algotest.WantParam(t, err, "n")
}

// TestGenerateStandardised checks that every set is standardised and its
// classes are balanced as the gallery's.
func TestGenerateStandardised(t *testing.T) {
	for _, s := range Sets {
		x, y := oracleData(t, s)
		for c := range 2 {
			m, v := 0.0, 0.0
			for _, p := range x {
				m += p[c]
			}
			m /= float64(len(x))
			for _, p := range x {
				v += sq(p[c] - m)
			}
			algotest.Near(t, string(s)+" mean", m, 0, 1e-12)
			algotest.Near(t, string(s)+" variance", v/float64(len(x)), 1, 1e-12)
		}
		cnt := make([]int, s.Classes())
		for _, l := range y {
			cnt[l]++
		}
		for _, c := range cnt {
			if c < len(x)/s.Classes()-1 {
				t.Errorf("%s: classes %v", s, cnt)
			}
		}
	}
}

// TestSpectralTinyDegrees: two far pairs whose RBF affinity is 1e-170
// (γ d² = 391, within the sim's γ ≤ 1000 on standardised data): the
// degrees are 1e-170, their product underflows, and the Laplacian must
// still be the two blocks [[1, −1], [−1, 1]], eigenvalues 0, 0, 2, 2.
func TestSpectralTinyDegrees(t *testing.T) {
	x := [][]float64{{0, 0}, {0, 1}, {100, 0}, {100, 1}}
	sp, err := NewSpectral(x, RBF, 2, 1, 391, 1, func(r int) *rand.Rand { return rand.New(rand.NewPCG(5, uint64(r))) })
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []float64{0, 0, 2, 2} {
		algotest.Near(t, "eigenvalue", sp.Eigenvalues()[i], want, 1e-12)
	}
	if sp.Components() != 2 {
		t.Errorf("%d components, want 2", sp.Components())
	}
}

// TestLinkageHeights checks every merge of single, complete and average
// linkage, down to one cluster, against the definitions recomputed from
// the clusters' points before the merge (the least, greatest and mean
// distance over the pairs across two clusters), and that no other pair
// of clusters was closer then (beyond rounding).
func TestLinkageHeights(t *testing.T) {
	x, _, err := Generate(Varied, rand.New(rand.NewPCG(11, 4)), 40)
	if err != nil {
		t.Fatal(err)
	}
	n := len(x)
	// lo, hi, sum, cnt over the point pairs across slots a and b, at [a*n+b].
	lo, hi, sum, cnt := make([]float64, n*n), make([]float64, n*n), make([]float64, n*n), make([]float64, n*n)
	for _, l := range []Linkage{Single, Complete, Average} {
		a, err := NewAgglomerative(x, l, 1)
		if err != nil {
			t.Fatal(err)
		}
		before := make([]int, n)
		for step := 0; ; step++ {
			copy(before, a.Owner())
			for i := range lo {
				lo[i], hi[i], sum[i], cnt[i] = math.Inf(1), 0, 0, 0
			}
			for i := range n {
				for j := range n {
					c, d := before[i]*n+before[j], math.Sqrt(algo.SqDist(x[i], x[j]))
					lo[c], hi[c], sum[c], cnt[c] = min(lo[c], d), max(hi[c], d), sum[c]+d, cnt[c]+1
				}
			}
			link := func(c int) float64 {
				switch l {
				case Single:
					return lo[c]
				case Complete:
					return hi[c]
				}
				return sum[c] / cnt[c]
			}
			if a.Step() != nil {
				break
			}
			keep, other := a.LastMerge(), -1
			for i, o := range a.Owner() {
				if o == keep && before[i] != keep {
					other = before[i]
				}
			}
			h := a.Heights()[step]
			algotest.Near(t, string(l)+" height", h, link(keep*n+other), 1e-12)
			for s := range n { // slot s holds a cluster when point s is in it
				for r := s + 1; r < n; r++ {
					if before[s] == s && before[r] == r && link(s*n+r) < h-1e-12 {
						t.Fatalf("%s merge %d at %g, but clusters %d and %d were at %g", l, step, h, s, r, link(s*n+r))
					}
				}
			}
		}
	}
}

// TestStepsDoNotAllocate: DBSCAN's and agglomerative clustering's steps
// allocate nothing.
func TestStepsDoNotAllocate(t *testing.T) {
	x, _ := oracleData(t, Moons)
	db, _ := NewDBSCAN(x, 0.3, 5)
	ag, _ := NewAgglomerative(x, Average, 1)
	for name, step := range map[string]func() error{"dbscan": db.Step, "agglomerative": ag.Step} {
		if a := testing.AllocsPerRun(20, func() { _ = step() }); a != 0 {
			t.Errorf("%s: %v allocations a step", name, a)
		}
	}
}
