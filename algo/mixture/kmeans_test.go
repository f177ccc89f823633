package mixture

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/thelab/lab/algo"
)

// bruteJ recomputes the objective (2.2) from the state alone.
func bruteJ(m *KMeans) float64 {
	j := 0.0
	r := m.Assign(nil)
	for i := 0; i < m.N(); i++ {
		j += sqDist(m, i, m.Center(r[i]))
	}
	return j
}

// sqDist is the squared distance of point i of m to c.
func sqDist(m *KMeans, i int, c []float64) float64 {
	s := 0.0
	for t, v := range c {
		s += sq(m.Coord(t)[i] - v)
	}
	return s
}

// TestKMeansMonotone is item B1's oracle (Remark 2.1, seed 002 L601–605):
// over many data sets, k and seeds, J never increases from one half-step to
// the next, and the run stops in finitely many steps. J is recomputed from
// the assignment and the centres at every half-step and must match the
// engine's running value to 1e-9 relative; the monotonicity slack is 1e-12
// relative (rounding in a sum of n terms). The bound on the number of steps
// is loose (Lloyd's algorithm needs a few tens of iterations on such data);
// what is checked is that the stopping rule fires: a second Step after
// ErrConverged still returns it and moves nothing, and Changed says the last
// assignment moved no point; the final assignment is a
// fixed point of (2.3) and every non-empty centre the mean of its points (2.4).
func TestKMeansMonotone(t *testing.T) {
	cases := []struct{ n, clusters int }{{20, 2}, {50, 1}, {200, 3}, {400, 5}, {1000, 4}, {3000, 8}}
	for _, c := range cases {
		for _, k := range []int{1, 2, 3, 5, 8, 10} {
			for seed := uint64(1); seed <= 3; seed++ {
				t.Run(fmt.Sprintf("n=%d/clusters=%d/k=%d/seed=%d", c.n, c.clusters, k, seed), func(t *testing.T) {
					checkKMeansRun(t, blobs(t, seed, c.n, c.clusters).Points, k, seed+50)
				})
			}
		}
	}
}

// checkKMeansRun runs k-means on points from the rng seed to convergence,
// checking at every half-step J against bruteJ and its monotonicity, and
// at the end the stopping rule and the fixed point (see TestKMeansMonotone).
func checkKMeansRun(t *testing.T, points [][]float64, k int, seed uint64) {
	t.Helper()
	m, err := NewKMeans(points, k, newRNG(seed))
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsInf(m.J(), 1) || m.Next() != Assign {
		t.Fatalf("start: J = %v, next %v", m.J(), m.Next())
	}
	prev := math.Inf(1)
	var stop error
	for m.HalfSteps() < 2000 {
		if stop = m.Step(); stop != nil {
			break
		}
		j := bruteJ(m)
		if math.Abs(j-m.J()) > 1e-9*j+1e-300 {
			t.Fatalf("half-step %d: J = %.15g, recomputed %.15g", m.HalfSteps(), m.J(), j)
		}
		if j > prev*(1+1e-12) {
			t.Fatalf("half-step %d (%v): J rose from %.15g to %.15g", m.HalfSteps(), 1-m.Next(), prev, j)
		}
		prev = j
	}
	if !errors.Is(stop, algo.ErrConverged) {
		t.Fatalf("no convergence in %d half-steps: %v", m.HalfSteps(), stop)
	}
	if m.Next() != Assign {
		t.Fatalf("converged before an %v", m.Next())
	}
	if m.Changed() != 0 {
		t.Fatalf("converged (no point changed cluster), but Changed() = %d", m.Changed())
	}
	half, j, centres := m.HalfSteps(), m.J(), m.Centers()
	if err := m.Step(); !errors.Is(err, algo.ErrConverged) || m.HalfSteps() != half || m.J() != j {
		t.Fatalf("second Step after convergence: %v", err)
	}
	checkFixedPoint(t, m, centres)
}

// checkFixedPoint checks that the assignment is nearest-centre and every
// non-empty centre the mean of its points, to 1e-9 of the data's spread.
func checkFixedPoint(t *testing.T, m *KMeans, centres [][]float64) {
	t.Helper()
	r := m.Assign(nil)
	d := m.Dim()
	sums := make([][]float64, len(centres))
	for j := range sums {
		sums[j] = make([]float64, d)
	}
	var cnt [MaxK]int
	for i := 0; i < m.N(); i++ {
		di := sqDist(m, i, centres[r[i]])
		for j, c := range centres {
			if dj := sqDist(m, i, c); dj < di || (dj == di && j < r[i]) {
				t.Fatalf("point %d is in cluster %d but centre %d is nearer", i, r[i], j)
			}
		}
		for a := range d {
			sums[r[i]][a] += m.Coord(a)[i]
		}
		cnt[r[i]]++
	}
	cols := make([][]float64, d)
	for a := range cols {
		cols[a] = m.Coord(a)
	}
	tol := 1e-9 * math.Sqrt(float64(d)*meanVariance(cols)+1)
	for j, c := range centres {
		if cnt[j] == 0 {
			continue
		}
		for a := range d {
			if mean := sums[j][a] / float64(cnt[j]); math.Abs(mean-c[a]) > tol {
				t.Fatalf("centre %d = %v, coordinate %d of the mean of its %d points %v", j, c, a, cnt[j], mean)
			}
		}
	}
}

// TestKMeansRecovery: on well-separated clusters k-means (best J of three
// starts, as for EM) puts every point in its true cluster, up to a relabelling.
func TestKMeansRecovery(t *testing.T) {
	for _, c := range []struct {
		n, k int
		seed uint64
	}{{400, 3, 1}, {1000, 5, 2}, {3000, 8, 3}} {
		t.Run(fmt.Sprintf("n=%d/k=%d", c.n, c.k), func(t *testing.T) {
			s := blobs(t, c.seed, c.n, c.k)
			var best *KMeans
			for r := range uint64(3) {
				m, err := NewKMeans(s.Points, c.k, newRNG(10*c.seed+r))
				if err != nil {
					t.Fatal(err)
				}
				for m.Step() == nil {
				}
				if best == nil || m.J() < best.J() {
					best = m
				}
			}
			r := best.Assign(nil)
			label := make(map[int]int) // k-means cluster → true cluster
			for i, z := range s.Labels {
				if l, ok := label[r[i]]; ok && l != z {
					t.Fatalf("cluster %d holds points of true clusters %d and %d", r[i], l, z)
				}
				label[r[i]] = z
			}
			if len(label) != c.k {
				t.Fatalf("%d clusters used, want %d", len(label), c.k)
			}
		})
	}
}

// TestKMeansEmpty: with more centres than distinct points some cluster is
// empty; its centre stays put, and nothing becomes NaN.
func TestKMeansEmpty(t *testing.T) {
	pts := [][]float64{{0, 0}, {0, 0}, {0, 0}, {5, 5}, {5, 5}}
	m, err := NewKMeans(pts, 3, newRNG(1))
	if err != nil {
		t.Fatal(err)
	}
	before := m.Centers()
	for m.HalfSteps() < 20 && m.Step() == nil {
	}
	empty := 0
	for j, n := range m.Counts(nil) {
		c := m.Center(j)
		if math.IsNaN(c[0]) || math.IsNaN(c[1]) {
			t.Fatalf("centre %d is %v", j, c)
		}
		if n == 0 {
			empty++
			if !slices.Equal(c, before[j]) {
				t.Errorf("empty centre %d moved from %v to %v", j, before[j], c)
			}
		}
	}
	if empty != 1 || m.J() != 0 {
		t.Errorf("%d empty clusters, J = %v; want 1 and 0", empty, m.J())
	}
}

// TestKMeansDeterministic: a run is a function of its data and seed.
func TestKMeansDeterministic(t *testing.T) {
	s := blobs(t, 4, 500, 4)
	var runs [2][][]float64
	for r := range runs {
		m, err := NewKMeans(s.Points, 4, newRNG(9))
		if err != nil {
			t.Fatal(err)
		}
		for m.Step() == nil {
		}
		runs[r] = m.Centers()
	}
	if fmt.Sprint(runs[0]) != fmt.Sprint(runs[1]) {
		t.Fatal("two runs from the same seed differ")
	}
}

func TestKMeansBadParams(t *testing.T) {
	good := blobs(t, 1, 20, 2).Points
	cases := []struct {
		name   string
		points [][]float64
		k      int
		rng    *rand.Rand
		param  string
	}{
		{"k=0", good, 0, newRNG(1), "k"},
		{"k>10", good, 11, newRNG(1), "k"},
		{"k>n", good[:3], 4, newRNG(1), "k"},
		{"no points", nil, 1, newRNG(1), "data"},
		{"ragged", [][]float64{{1, 2, 3}, {1, 2}}, 1, newRNG(1), "data"},
		{"d > MaxDim", [][]float64{make([]float64, MaxDim+1)}, 1, newRNG(1), "data"},
		{"NaN", [][]float64{{1, math.NaN()}}, 1, newRNG(1), "data"},
		{"nil rng", good, 2, nil, "rng"},
	}
	for _, c := range cases {
		if _, err := NewKMeans(c.points, c.k, c.rng); !algo.IsParamError(err, c.param) {
			t.Errorf("%s: got %v, want an error naming %s", c.name, err, c.param)
		}
	}
}

// TestEpsLimit is item B4's oracle (Exercise 2.2, seed 002 L764–766): EM
// with components N(x | μ_k, εI), ε fixed and equal weights, started from
// the same rng state as k-means (so from the same k-means++ centres), makes
// the same assignments (argmax_k γ_nk) at every E-step as k-means at every
// assignment, and its means follow the k-means centres, as ε → 0.
//
// With ε = 1e-6·s² a point's responsibility for a non-nearest centre is
// below e^{−745} (zero in floating point) unless its two squared distances
// differ by less than 1.5e-3·s², so the γ-weighted means (2.13) are the
// k-means means (2.4) up to the few points that sit that close to a
// boundary. The check is exact about them: from the same centres,
// μ_EM − μ_KM = Σ_n (γ_nk − r_nk)(x_n − μ_KM,k) / N_k, so the distance may not
// exceed Σ_n |γ_nk − r_nk|·‖x_n − μ_KM,k‖ / N_k (+1e-9 of the data's scale
// for rounding). The clusters touch (sep = 4) and k goes past their number,
// so that boundaries cross dense regions and k-means takes up to 13
// iterations; the assignments must agree at every one of them.
//
// The responsibilities harden monotonically as ε falls: at the first E-step,
// from the same centres, the mean of max_k γ_nk must not decrease along
// ε = 1, 0.1, ..., 1e-6 (each point's max γ is increasing in 1/ε).
func TestEpsLimit(t *testing.T) {
	for seed := uint64(1); seed <= 6; seed++ {
		s, err := Blobs(newRNG(seed), 400, 3, 4)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []int{2, 3, 5} {
			em, err := New(s.Points, Config{K: k, Cov: CovSphericalFixed, Eps: MinEps}, newRNG(seed))
			if err != nil {
				t.Fatal(err)
			}
			km, err := NewKMeans(s.Points, k, newRNG(seed))
			if err != nil {
				t.Fatal(err)
			}
			scale := math.Sqrt(em.Scale())
			var ra, rb []int
			for it := 0; ; it++ {
				errK := km.Step() // assign
				if errors.Is(errK, algo.ErrConverged) {
					break
				}
				if err := em.Step(); err != nil { // E
					t.Fatalf("seed %d k %d: EM E-step %d: %v", seed, k, it, err)
				}
				ra, rb = em.Assign(ra), km.Assign(rb)
				for i := range ra {
					if ra[i] != rb[i] {
						t.Fatalf("seed %d k %d iteration %d: point %d: EM argmax γ = %d, k-means %d", seed, k, it, i, ra[i], rb[i])
					}
				}
				q, _ := em.Resp()
				if err := km.Step(); err != nil { // update
					t.Fatal(err)
				}
				if err := em.Step(); err != nil { // M
					t.Fatalf("seed %d k %d: EM M-step %d: %v", seed, k, it, err)
				}
				counts := em.Counts(nil)
				for j := 0; j < k; j++ {
					c, mu := km.Center(j), em.Component(j).Mean
					bound := 0.0
					for i := range rb {
						r := 0.0
						if rb[i] == j {
							r = 1
						}
						bound += math.Abs(q[i*k+j]-r) * math.Hypot(em.Coord(0)[i]-c[0], em.Coord(1)[i]-c[1])
					}
					bound = bound/counts[j] + 1e-9*scale
					if d := math.Hypot(c[0]-mu[0], c[1]-mu[1]); d > bound {
						t.Fatalf("seed %d k %d iteration %d: EM mean %d = %v, k-means centre %v: %g apart, bound %g", seed, k, it, j, mu, c, d, bound)
					}
					if w := em.Component(j).Weight; w != 1/float64(k) {
						t.Fatalf("weight %d moved to %v in spherical-fixed mode", j, w)
					}
				}
			}
		}
		// Hardening along ε at the first E-step.
		prev := 0.0
		for _, eps := range []float64{1, 0.1, 0.01, 1e-3, 1e-4, 1e-5, 1e-6} {
			em, err := New(s.Points, Config{K: 3, Cov: CovSphericalFixed, Eps: eps}, newRNG(seed))
			if err != nil {
				t.Fatal(err)
			}
			if err := em.Step(); err != nil {
				t.Fatal(err)
			}
			q, _ := em.Resp()
			h := 0.0
			for i := 0; i < em.N(); i++ {
				h += max(q[3*i], q[3*i+1], q[3*i+2])
			}
			h /= float64(em.N())
			if h < prev*(1-1e-12) {
				t.Fatalf("seed %d: mean max γ fell from %v to %v as ε fell to %g", seed, prev, h, eps)
			}
			prev = h
		}
		if prev < 0.999 {
			t.Errorf("seed %d: mean max γ = %v at ε = 1e-6·s², want ≈ 1", seed, prev)
		}
	}
}

func BenchmarkKMeansIteration(b *testing.B) {
	// 100 000 points in 8 clusters, k = 8: one assignment and one update,
	// on one worker and on two (the CPU time then counts both threads).
	s, err := Blobs(newRNG(1), 100000, 8, 4)
	if err != nil {
		b.Fatal(err)
	}
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			defer cpuTime(b, workers)()
			newRun := func(seed uint64) *KMeans {
				m, err := NewKMeans(s.Points, 8, newRNG(seed))
				if err != nil {
					b.Fatal(err)
				}
				m.SetWorkers(workers)
				return m
			}
			m := newRun(0)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if err := m.Step(); err != nil {
					b.StopTimer()
					m = newRun(uint64(i))
					b.StartTimer()
				}
				_ = m.Step()
			}
		})
	}
}
