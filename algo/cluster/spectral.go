package cluster

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/mixture"
)

// Affinity names the similarity graph of spectral clustering.
type Affinity string

// The affinities (scikit-learn's SpectralClustering affinity=…):
//
//	knn  w_ij = ½(a_ij + a_ji), a_ij = 1 when j is among the m nearest
//	     points of i, i itself included (kneighbors_graph, include_self)
//	rbf  w_ij = exp(−γ‖x_i − x_j‖²)
const (
	KNN Affinity = "knn"
	RBF Affinity = "rbf"
)

// Affinities lists them.
var Affinities = []Affinity{KNN, RBF}

// String is the affinity's name.
func (a Affinity) String() string { return string(a) }

// Spectral is spectral clustering as scikit-learn's SpectralClustering
// (assign_labels='kmeans') does it (Shi & Malik 2000; Ng, Jordan & Weiss
// 2002; von Luxburg 2007 §4): the affinity matrix W (its diagonal
// ignored, as scipy's Laplacian ignores it), the degrees d_i = Σ_{j≠i}
// w_ij, the normalised Laplacian L = I − D^{−1/2} W D^{−1/2}, its k
// eigenvectors u_1..u_k of least eigenvalue, and the embedding of point i
// as the row (u_1(i), …, u_k(i))/√d_i (D^{−½}u_c is an eigenvector of the
// random-walk Laplacian I − D⁻¹W of the same eigenvalue: sklearn's
// norm_laplacian, with no row normalisation),
// each column's sign fixed so that its entry of largest magnitude is
// positive. k-means on the rows then names the clusters.
//
// L is positive semi-definite with eigenvalues in [0, 2]; the
// multiplicity of 0 is the number of connected components of the graph,
// so on well-separated data the first k eigenvalues are near 0 and the
// rows of the embedding gather at k points. The constructor does all the
// linear algebra (a dense symmetric eigendecomposition, O(n³)); the steps
// are k-means half-steps on the embedding (mixture.KMeans), from the best
// of restarts k-means++ starts run to the end first (sklearn's n_init).
type Spectral struct {
	n, k   int
	eig    []float64   // every eigenvalue of L, ascending
	embed  [][]float64 // n rows of k coordinates
	km     *mixture.KMeans
	start  int
	comps  int // connected components of the graph
	degMin float64
}

// SpectralBytes is what a Spectral holds for n points and k clusters:
// the eigenvalues, the embedding and its k-means. (Building it takes
// about four n×n matrices more, the affinities, the Laplacian, its
// eigenvectors and gonum's work space, which it lets go.)
func SpectralBytes(n, k int) int64 {
	return algo.HeapBytes(8*int64(n)) + int64(n)*(24+algo.HeapBytes(8*int64(k))) + mixture.KMeansBytes(n, k) + 1<<10
}

// MaxSpectralN bounds the points of spectral clustering: the dense
// eigendecomposition is O(n³).
const MaxSpectralN = 1500

// NewSpectral validates its inputs (2..MaxSpectralN points, k in
// 1..min(n, mixture.MaxK) and at most mixture.MaxDim, neighbours in 2..n−1
// for knn, gamma > 0 for rbf, restarts ≥ 1), builds the embedding and
// starts k-means on it from the best of restarts starts, start r seeded by
// rng(r).
func NewSpectral(points [][]float64, aff Affinity, k, neighbours int, gamma float64, restarts int,
	rng func(r int) *rand.Rand) (*Spectral, error) {
	if err := checkPoints(points, 2); err != nil {
		return nil, err
	}
	n := len(points)
	if n > MaxSpectralN {
		return nil, algo.BadParam("points", fmt.Sprintf("%d points", n), fmt.Sprintf("at most %d", MaxSpectralN))
	}
	if k < 1 || k > min(n, mixture.MaxK, mixture.MaxDim) {
		return nil, algo.BadParam("k", k, fmt.Sprintf("in 1..%d", min(n, mixture.MaxK, mixture.MaxDim)))
	}
	if restarts < 1 {
		return nil, algo.BadParam("restarts", restarts, "≥ 1")
	}
	if rng == nil {
		return nil, algo.BadParam("rng", "nil", "a non-nil generator")
	}
	w := mat.NewSymDense(n, nil)
	switch aff {
	case KNN:
		if neighbours < 2 || neighbours > n-1 { // m = 1 is the point alone: no edge
			return nil, algo.BadParam("neighbours", neighbours, fmt.Sprintf("in 2..%d (itself included)", n-1))
		}
		d := make([]float64, n)
		idx := make([]int, n)
		for i, p := range points {
			for j, q := range points {
				d[j], idx[j] = algo.SqDist(p, q), j
			}
			// The m nearest, i itself first (distance 0), ties to the
			// lower index (a stable sort by distance).
			slices.SortStableFunc(idx, func(a, b int) int {
				if a == i || b == i {
					return boolCmp(b == i, a == i)
				}
				switch {
				case d[a] < d[b]:
					return -1
				case d[a] > d[b]:
					return 1
				}
				return 0
			})
			for _, j := range idx[:neighbours] {
				if j != i {
					w.SetSym(i, j, w.At(i, j)+0.5)
				}
			}
		}
	case RBF:
		if !(gamma > 0) || math.IsInf(gamma, 0) {
			return nil, algo.BadParam("gamma", gamma, "a finite number > 0")
		}
		for i, p := range points {
			for j := range i {
				w.SetSym(i, j, math.Exp(-gamma*algo.SqDist(p, points[j])))
			}
		}
	default:
		return nil, algo.BadParam("affinity", aff, fmt.Sprint(Affinities))
	}
	s := &Spectral{n: n, k: k, degMin: math.Inf(1)}
	deg := make([]float64, n)
	for i := range n {
		for j := range n {
			deg[i] += w.At(i, j)
		}
		s.degMin = min(s.degMin, deg[i])
	}
	if !(s.degMin > 0) { // only rbf can leave a point alone: exp(−γd²) underflows for γd² > 745
		return nil, algo.BadParam("gamma", gamma, "small enough that every point has a neighbour of affinity exp(−γd²) > 0")
	}
	s.comps = components(w)
	lap := mat.NewSymDense(n, nil)
	for i := range n {
		lap.SetSym(i, i, 1)
		for j := range i {
			lap.SetSym(i, j, -w.At(i, j)/sqrtProd(deg[i], deg[j]))
		}
	}
	// LAPACK's symmetric eigensolver on the Laplacian in place, with a
	// workspace of its own: mat.EigenSym would take it from gonum's pools,
	// which keep it past a collection and make what the sim holds depend
	// on when the collector last ran. The eigenvectors are the columns.
	u := lap.RawSymmetric()
	s.eig = make([]float64, n) // ascending
	work := []float64{0}
	lapack64.Syev(lapack.EVCompute, u, s.eig, work, -1)
	work = make([]float64, int(work[0]))
	if !lapack64.Syev(lapack.EVCompute, u, s.eig, work, len(work)) {
		return nil, fmt.Errorf("cluster: the eigendecomposition of the Laplacian failed")
	}
	s.embed = make([][]float64, n)
	flat := make([]float64, n*k)
	for i := range n {
		s.embed[i] = flat[i*k : (i+1)*k : (i+1)*k]
		for c := range k {
			s.embed[i][c] = u.Data[i*u.Stride+c] / math.Sqrt(deg[i])
		}
	}
	for c := range k { // sklearn's _deterministic_vector_sign_flip
		big := 0
		for i := range n {
			if math.Abs(s.embed[i][c]) > math.Abs(s.embed[big][c]) {
				big = i
			}
		}
		if s.embed[big][c] < 0 {
			for i := range n {
				s.embed[i][c] = -s.embed[i][c]
			}
		}
	}
	if restarts > 1 {
		_, start, err := mixture.BestKMeans(s.embed, k, restarts, mixture.MaxInitIter, 1, rng)
		if err != nil {
			return nil, err
		}
		s.start = start
	}
	km, err := mixture.NewKMeans(s.embed, k, rng(s.start))
	if err != nil {
		return nil, err
	}
	s.km = km
	return s, nil
}

// sqrtProd is √(ab) for a, b > 0: in one rounding while ab is a normal
// number, else as √a·√b, for ab underflows to 0 once a and b fall below
// 1e-162 (an RBF affinity at large γ: exp(−γd²) with γd² > 373), and
// −w_ij/0 would put −Inf in the Laplacian.
func sqrtProd(a, b float64) float64 {
	if p := a * b; p >= 0x1p-1022 {
		return math.Sqrt(p)
	}
	return math.Sqrt(a) * math.Sqrt(b)
}

func boolCmp(a, b bool) int {
	switch {
	case a && !b:
		return 1
	case b && !a:
		return -1
	}
	return 0
}

// components counts the connected components of the graph of the
// positive off-diagonal entries of w.
func components(w *mat.SymDense) int {
	n := w.SymmetricDim()
	seen := make([]bool, n)
	stack := make([]int, 0, n)
	c := 0
	for s := range n {
		if seen[s] {
			continue
		}
		c++
		seen[s] = true
		stack = append(stack[:0], s)
		for len(stack) > 0 {
			i := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for j := range n {
				if !seen[j] && j != i && w.At(i, j) > 0 {
					seen[j] = true
					stack = append(stack, j)
				}
			}
		}
	}
	return c
}

// Step is the next k-means half-step on the embedding; algo.ErrConverged
// when an assignment changes no point.
func (s *Spectral) Step() error { return s.km.Step() }

// Eigenvalues is every eigenvalue of the normalised Laplacian, ascending
// (a view).
func (s *Spectral) Eigenvalues() []float64 { return s.eig }

// Embedding is the rows of the spectral embedding, n of k coordinates (a
// view).
func (s *Spectral) Embedding() [][]float64 { return s.embed }

// KMeans is the k-means on the embedding.
func (s *Spectral) KMeans() *mixture.KMeans { return s.km }

// Start is the k-means++ start replayed, the best of the restarts.
func (s *Spectral) Start() int { return s.start }

// Components is the number of connected components of the affinity graph.
func (s *Spectral) Components() int { return s.comps }
