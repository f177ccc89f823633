package mixturesim

import (
	"slices"
	"testing"

	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/simtest"
)

// TestClusteringGallery checks the story of scikit-learn's comparison on
// the default 400 points of seed 1 (250 for spectral's O(n³)): density and graph methods recover the
// rings and the moons (ARI 1), k-means and EM cannot (ARI near 0 on the
// rings, about ½ on the moons), and on the blobs everything agrees
// (measured: the values in the table's comments).
func TestClusteringGallery(t *testing.T) {
	for _, c := range []struct {
		set    map[string]string
		lo, hi float64 // the final ARI's range
	}{
		{map[string]string{"method": "dbscan", "data": "moons"}, 1, 1},
		{map[string]string{"method": "dbscan", "data": "circles"}, 1, 1},
		{map[string]string{"method": "spectral", "data": "circles", "n": "250"}, 1, 1},
		{map[string]string{"method": "spectral", "data": "moons", "n": "250"}, 1, 1},
		{map[string]string{"method": "agglomerative", "data": "circles", "linkage": "single"}, 1, 1},
		{map[string]string{"method": "agglomerative", "data": "aniso"}, 1, 1},   // ward
		{map[string]string{"method": "kmeans", "data": "circles"}, -0.05, 0.05}, // −0.002
		{map[string]string{"method": "kmeans", "data": "moons"}, 0.3, 0.7},      // 0.48
		{map[string]string{"method": "kmeans", "data": "blobs"}, 1, 1},
		{map[string]string{"method": "em", "data": "varied"}, 1, 1},
		{map[string]string{"method": "em", "data": "circles"}, -0.05, 0.05}, // −0.002
	} {
		s := simtest.Build(t, Clustering, c.set, 1, nil)
		simtest.RunToEnd(t, s, 2000)
		f := s.Frame()
		ari := simtest.Metric(t, f, "ARI")
		if ari < c.lo-1e-12 || ari > c.hi+1e-12 {
			t.Errorf("%v: ARI %.4f, want in [%g, %g]", c.set, ari, c.lo, c.hi)
		}
		if _, ok := f.Charts[0].(sims.CanvasChart); !ok || f.Primary != 0 {
			t.Errorf("%v: the hero is not the points", c.set)
		}
	}
}

// TestClusteringDBSCANSteps checks that DBSCAN's pane takes one step per
// core point, that its clusters only grow and the points outside them
// only fall, and that it ends with the gallery's 2 moons and no noise.
func TestClusteringDBSCANSteps(t *testing.T) {
	s := simtest.Build(t, Clustering, map[string]string{"method": "dbscan", "data": "moons"}, 1, nil)
	steps := simtest.RunToEnd(t, s, 2000)
	f := s.Frame()
	cs := s.(*clSim)
	if steps != cs.db.Cores() || simtest.Metric(t, f, "expanded") != float64(steps) {
		t.Errorf("%d steps, %d core points", steps, cs.db.Cores())
	}
	clusters, out := cs.trace.Column(0), cs.trace.Column(1)
	for i := 1; i < len(clusters); i++ {
		if clusters[i] < clusters[i-1] || out[i] > out[i-1] {
			t.Fatalf("step %d: clusters %g → %g, outside %g → %g", i, clusters[i-1], clusters[i], out[i-1], out[i])
		}
	}
	if simtest.Metric(t, f, "clusters") != 2 || simtest.Metric(t, f, "noise") != 0 {
		t.Errorf("moons: %g clusters, %g noise", simtest.Metric(t, f, "clusters"), simtest.Metric(t, f, "noise"))
	}
}

// TestClusteringAgglomerativeHeights checks that a merge a step takes the
// clusters from n down to k, with heights that never fall.
func TestClusteringAgglomerativeHeights(t *testing.T) {
	for _, l := range []string{"ward", "single", "complete", "average"} {
		s := simtest.Build(t, Clustering, map[string]string{"method": "agglomerative", "data": "blobs", "n": "200", "linkage": l}, 2, nil)
		steps := simtest.RunToEnd(t, s, 1000)
		h := s.(*clSim).ag.Heights()
		if steps != 197 || len(h) != 197 || !slices.IsSorted(h) {
			t.Errorf("%s: %d steps, %d heights, sorted %v", l, steps, len(h), slices.IsSorted(h))
		}
		if c := simtest.Metric(t, s.Frame(), "clusters"); c != 3 {
			t.Errorf("%s: %g clusters", l, c)
		}
	}
}

// TestClusteringSpectralEigenvalues checks that on the rings the first
// two eigenvalues drawn are 0 (two components of the k-NN graph) and the
// third is not.
func TestClusteringSpectralEigenvalues(t *testing.T) {
	s := simtest.Build(t, Clustering, map[string]string{"method": "spectral", "data": "circles", "n": "250"}, 1, nil)
	var bars sims.BarChart
	for _, c := range s.Frame().Charts {
		if b, ok := c.(sims.BarChart); ok {
			bars = b
		}
	}
	if len(bars.Bars) < 3 || bars.Bars[0].Value != 0 || bars.Bars[1].Value != 0 || !(bars.Bars[2].Value > 1e-4) {
		t.Errorf("eigenvalues %+v", bars.Bars)
	}
}
