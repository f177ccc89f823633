package kernelsim

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/thelab/lab/algo/kernel"
	"github.com/thelab/lab/algo/svm"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/simtest"
)

func TestCatalog(t *testing.T) {
	if _, err := sims.NewCatalog(SVM, SVMPrimal, Perceptron, Ridge, KPCA, Gram); err != nil {
		t.Fatal(err)
	}
}

// TestSVMConvergesAndMapIsF: the default SVM converges to its KKT
// tolerance with a closed duality gap, and the incrementally maintained
// decision map equals F(x) = Σα_i y_i k(x_i, x) + b computed from scratch.
func TestSVMConvergesAndMapIsF(t *testing.T) {
	for _, set := range []map[string]string{nil, {"kernel": "poly", "data": "circles", "C": "10"}, {"data": "ellipse", "kernel": "sum"}} {
		s := simtest.Build(t, SVM, set, 3, nil)
		if err := simtest.RunErr(s, 100000); !errors.Is(err, sims.ErrConverged) {
			t.Fatalf("%v: %v", set, err)
		}
		f := s.Frame()
		if kkt := simtest.Metric(t, f, "kkt"); kkt > 1e-3 {
			t.Errorf("%v: KKT violation %g", set, kkt)
		}
		res := s.Result()
		for _, key := range []string{"alpha", "b", "support_vectors", "dual_objective", "primal_objective", "accuracy"} {
			if _, ok := res[key]; !ok {
				t.Errorf("result lacks %s", key)
			}
		}
		p, d := res["primal_objective"].(float64), res["dual_objective"].(float64)
		if p < d-1e-9 || (p-d)/p > 1e-2 {
			t.Errorf("%v: P = %v, D = %v", set, p, d)
		}
		sim := s.(*svmSim)
		c := f.Charts[0].(sims.CanvasChart)
		grid := gridPoints(sim.view, mapNX, mapNY)
		cross := kernel.Cross(sim.k, grid, sim.data.X)
		b := sim.smo.Bias()
		n := sim.data.N()
		for g := range grid {
			want := sim.smo.Decision(cross[g*n:(g+1)*n], b)
			if got := c.Heat.Z[g]; math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
				t.Fatalf("%v: map cell %d = %v, F = %v", set, g, got, want)
			}
		}
	}
}

// TestSVMHardMargin: on separable data the hard-margin run ends with
// ‖w‖² = Σα; on overlapping data it reports that no hyperplane separates.
func TestSVMHardMargin(t *testing.T) {
	s := simtest.Build(t, SVM, map[string]string{"data": "separable", "margin": "hard", "kernel": "linear", "tol": "1e-8"}, 3, nil)
	if err := simtest.RunErr(s, 200000); !errors.Is(err, sims.ErrConverged) {
		t.Fatal(err)
	}
	sim := s.(*svmSim)
	if ww, sa := sim.smo.WNormSq(), sim.smo.SumAlpha(); math.Abs(ww-sa) > 1e-6*sa {
		t.Errorf("‖w‖² = %v, Σα = %v", ww, sa)
	}
	if !strings.Contains(simtest.Text(s.Frame()), "‖w‖² = Σα") {
		t.Errorf("notes: %q", simtest.Text(s.Frame()))
	}
	s = simtest.Build(t, SVM, map[string]string{"data": "overlap", "margin": "hard", "kernel": "linear"}, 3, nil)
	if err := simtest.RunErr(s, 1000000); !errors.Is(err, sims.ErrDiverged) {
		t.Errorf("hard margin on overlapping classes: %v", err)
	}
}

// TestSVMCSV: CSV data with more than two features gets the margins
// histogram; labels that are not two classes are refused.
func TestSVMCSV(t *testing.T) {
	tab := &sims.Table{Name: "t.csv", Columns: []string{"a", "b", "c", "label"}}
	for i := range 40 {
		x := float64(i%7) - 3
		tab.Rows = append(tab.Rows, []float64{x, float64(i % 3), float64(i % 5), float64(i % 2)})
	}
	s := simtest.Build(t, SVM, nil, 3, tab)
	simtest.RunErr(s, 5000)
	if _, ok := s.Frame().Charts[0].(sims.HistChart); !ok {
		t.Errorf("3-feature data: first chart %T", s.Frame().Charts[0])
	}
	tab.Rows[0][3] = 2
	v, _ := sims.Resolve(SVM.Params, nil)
	if _, err := SVM.Build(sims.Config{Values: v, Data: tab}); err == nil || !strings.Contains(err.Error(), "two classes") {
		t.Errorf("three classes: %v", err)
	}
	if _, err := sims.Resolve(SVM.Params, map[string]string{"C": "0"}); err == nil || !strings.Contains(err.Error(), "C") {
		t.Errorf("C = 0: %v", err)
	}
}

// TestSVMPrimalApproachesDual: the best primal objective approaches the
// dual optimum and never goes below it.
func TestSVMPrimalApproachesDual(t *testing.T) {
	for _, method := range []string{"subgradient", "sgd"} {
		s := simtest.Build(t, SVMPrimal, map[string]string{"method": method}, 3, nil)
		for range 5000 {
			if err := s.Step(); err != nil {
				t.Fatal(err)
			}
			if f := s.Frame(); simtest.Metric(t, f, "P") < simtest.Metric(t, f, "D*")*(1-1e-9) {
				t.Fatalf("%s: P below the dual optimum", method)
			}
		}
		if g := simtest.Metric(t, s.Frame(), "rel_gap"); g < 0 || g > 0.02 {
			t.Errorf("%s: relative gap %v after 5000 steps", method, g)
		}
	}
}

// TestPerceptronSim: on the ellipse data the quadratic kernel converges and
// the pane's primal check agrees; the linear kernel cycles and the run says
// it cannot separate.
func TestPerceptronSim(t *testing.T) {
	s := simtest.Build(t, Perceptron, nil, 3, nil)
	if err := simtest.RunErr(s, 100000); !errors.Is(err, sims.ErrConverged) {
		t.Fatal(err)
	}
	res := s.Result()
	if res["primal_agrees"] != true || !strings.Contains(simtest.Text(s.Frame()), "✓") {
		t.Errorf("primal check: %v, %q", res["primal_agrees"], simtest.Text(s.Frame()))
	}
	sum := 0
	for _, a := range res["alpha"].([]int) {
		sum += a
	}
	if sum != res["mistakes"] || simtest.Metric(t, s.Frame(), "accuracy") != 1 {
		t.Errorf("Σα = %d, mistakes %v, accuracy %v", sum, res["mistakes"], simtest.Metric(t, s.Frame(), "accuracy"))
	}
	s = simtest.Build(t, Perceptron, map[string]string{"kernel": "linear", "max_epochs": "20"}, 3, nil)
	if err := simtest.RunErr(s, 100000); !errors.Is(err, sims.ErrDiverged) || !strings.Contains(err.Error(), "does not separate") {
		t.Errorf("linear kernel on the ellipse: %v", err)
	}
	if s.Result()["primal_agrees"] != true {
		t.Error("linear kernel: the primal check failed")
	}
	// rbf has no small explicit map: the pane says so.
	s = simtest.Build(t, Perceptron, map[string]string{"kernel": "rbf", "data": "moons"}, 3, nil)
	simtest.RunErr(s, 10)
	if !strings.Contains(simtest.Text(s.Frame()), "no small explicit feature map") {
		t.Errorf("rbf notes: %q", simtest.Text(s.Frame()))
	}
}

// TestRidgeSim: CG reaches the Cholesky solution within ~n steps while GD
// crawls, both under their drawn bounds.
func TestRidgeSim(t *testing.T) {
	s := simtest.Build(t, Ridge, nil, 3, nil)
	simtest.RunErr(s, 200)
	f := s.Frame()
	if e := simtest.Metric(t, f, "cg_error"); e > 1e-8 {
		t.Errorf("cg error %g after 200 steps", e)
	}
	if e := simtest.Metric(t, f, "gd_error"); e < 1e-3 {
		t.Errorf("gd error %g: expected a crawl at κ = %g", e, simtest.Metric(t, f, "kappa"))
	}
	for _, name := range []string{"CG", "GD"} {
		got, _ := f.Series(name)
		bound, _ := f.Series(name + " bound")
		for i := range got.Y {
			if got.Y[i] > bound.Y[i]*(1+1e-6)+1e-15 {
				t.Fatalf("%s at %d: %g above its bound %g", name, i, got.Y[i], bound.Y[i])
			}
		}
	}
}

// TestKPCASim: the iteration converges to the exact spectrum, and with the
// linear kernel the component variances are PCA's.
func TestKPCASim(t *testing.T) {
	for _, k := range []string{"rbf", "linear"} {
		s := simtest.Build(t, KPCA, map[string]string{"kernel": k, "data": "blobs"}, 3, nil)
		if err := simtest.RunErr(s, 5000); !errors.Is(err, sims.ErrConverged) {
			t.Fatalf("%s: %v", k, err)
		}
		res := s.Result()
		ev, ritz := res["eigenvalues"].([]float64), res["ritz"].([]float64)
		for c := 0; c < 2; c++ {
			if math.Abs(ev[c]-ritz[c]) > 1e-8*ev[0] {
				t.Errorf("%s: Ritz %v vs exact %v", k, ritz[c], ev[c])
			}
		}
		if k == "linear" {
			pca := covEigen(s.(*kpcaSim).data.X)
			for c := 0; c < 2; c++ {
				if math.Abs(pca[c]-ev[c]) > 1e-10*pca[0] {
					t.Errorf("PCA variance %v, kernel PCA %v", pca[c], ev[c])
				}
			}
			if !strings.Contains(simtest.Text(s.Frame()), "= PCA") {
				t.Errorf("notes: %q", simtest.Text(s.Frame()))
			}
		}
	}
}

// TestGramSim: kernels and kernels built from kernels stay positive
// semidefinite as points are added; ‖x − z‖, −k and tanh do not.
func TestGramSim(t *testing.T) {
	polyRounds := false
	for _, gk := range gramKernels {
		k := gk.String()
		s := simtest.Build(t, Gram, map[string]string{"kernel": k, "n": "40"}, 3, nil)
		valid := k != "distance" && k != "negative" && k != "sigmoid"
		for {
			err := s.Step()
			if valid && simtest.Metric(t, s.Frame(), "psd") != 1 {
				t.Fatalf("%s: not PSD at n = %v", k, simtest.Metric(t, s.Frame(), "n"))
			}
			if err != nil {
				break
			}
		}
		if !valid && simtest.Metric(t, s.Frame(), "psd") != 0 {
			t.Errorf("%s passed the PSD check", k)
		}
		if !valid != strings.Contains(simtest.Text(s.Frame()), "NOT positive semidefinite") {
			t.Errorf("%s: notes %q", k, simtest.Text(s.Frame()))
		}
		// A valid kernel's least eigenvalue may be 0 up to rounding (poly's
		// once the points outnumber its 6 features): it is then drawn and
		// said as 0 (≈ 0), never as the rounding's digits or their
		// absolute value; one above rounding (rbf's 6e-11) keeps them.
		if !valid {
			continue
		}
		f := s.Frame()
		lmin := simtest.Metric(t, f, "lambda_min")
		rounding := sims.AtRounding(lmin, simtest.Metric(t, f, "n")*math.Abs(simtest.Metric(t, f, "lambda_max")))
		for _, c := range f.Charts {
			if bc, ok := c.(sims.BarChart); ok {
				for _, b := range bc.Bars {
					if b.Label == "λmin" && (b.Value == 0) != (rounding || lmin == 0) {
						t.Errorf("%s: λmin drawn %g of λ_min = %g (rounding %v)", k, b.Value, lmin, rounding)
					}
				}
			}
		}
		if said := strings.Contains(simtest.Text(f), "λ_min ≈ 0"); said != rounding {
			t.Errorf("%s: λ_min = %g (rounding %v), notes %q", k, lmin, rounding, simtest.Text(f))
		}
		polyRounds = polyRounds || k == "poly" && rounding
	}
	if !polyRounds {
		t.Error("poly's λ_min is not at rounding at n = 40: the case above is not checked")
	}
}

func TestFramesImmutable(t *testing.T) {
	for _, spec := range []*sims.Spec{SVM, Perceptron, Ridge, KPCA, Gram, SVMPrimal} {
		s := simtest.Build(t, spec, nil, 3, nil)
		s.Step()
		f := s.Frame()
		snap := snapshot(f)
		simtest.RunErr(s, 30)
		if snapshot(f) != snap {
			t.Errorf("%s: a published frame changed", spec.Name)
		}
	}
}

// snapshot sums every number a frame's charts hold.
func snapshot(f sims.Frame) float64 {
	s := 0.0
	add := func(v []float64) {
		for _, x := range v {
			if !math.IsNaN(x) && !math.IsInf(x, 0) {
				s += x
			}
		}
	}
	for _, c := range f.Charts {
		switch c := c.(type) {
		case sims.LineChart:
			for _, se := range c.Series {
				add(se.Y)
			}
		case sims.CanvasChart:
			if c.Heat != nil {
				add(c.Heat.Z)
			}
			for _, p := range c.Paths {
				add(p.X)
				add(p.Y)
			}
			for _, p := range c.Points {
				add(p.X)
				add(p.Y)
			}
		case sims.HistChart:
			add(c.Density)
		case sims.BarChart:
			for _, b := range c.Bars {
				s += b.Value
			}
		}
	}
	return s
}

// TestSVMPrimalDataRows: svm-primal's reference optimum no longer builds
// an n×n Gram matrix, so a --data table of more rows than n's maximum
// (5001, which that matrix refused) builds; its interior point's work
// grows as n·d², so a table of more rows than primalMaxRows allows for
// its number of features is refused before anything is built, naming
// the limit (1954 rows of 50 features: 1953 are allowed).
func TestSVMPrimalDataRows(t *testing.T) {
	table := func(rows, features int) *sims.Table {
		tab := &sims.Table{Name: "big.csv"}
		for j := range features {
			tab.Columns = append(tab.Columns, fmt.Sprintf("x%d", j))
		}
		tab.Columns = append(tab.Columns, "label")
		for i := range rows {
			row := make([]float64, features+1)
			for j := range features {
				row[j] = math.Sin(float64(i*(j+1))) + float64(i%2)
			}
			row[features] = float64(i % 2)
			tab.Rows = append(tab.Rows, row)
		}
		return tab
	}
	rows := int(primalN.Param().Max) + 1
	s := simtest.Build(t, SVMPrimal, nil, 1, table(rows, 1))
	if it := s.Result()["optimum_iterations"].(int); it >= 50 {
		t.Errorf("%d rows of 1 feature: %d interior-point iterations", rows, it)
	}
	max := primalMaxRows(50)
	if max != 1953 {
		t.Errorf("primalMaxRows(50) = %d, want 8e6/64² = 1953", max)
	}
	_, err := simtest.BuildErr(SVMPrimal, nil, 1, table(max+1, 50))
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%d rows, more than the %d", max+1, max)) {
		t.Errorf("%d rows of 50 features: %v", max+1, err)
	}
}

// TestSVMPrimalLargeC: at n = 5000 and C = 10⁴, where SMO on the dual
// had not finished after a minute (at n = 150 it took 3.8 s to reach its
// cap of 10⁷ pair steps short of its tolerance), the interior point
// finds the reference optimum in a few dozen iterations (38 on the
// overlapping Gaussians and the moons, 31 on the separable set when
// written), whatever the data: the test counts the iterations, not the
// time.
func TestSVMPrimalLargeC(t *testing.T) {
	for _, data := range []string{"overlap", "separable", "moons"} {
		s := simtest.Build(t, SVMPrimal, map[string]string{"n": "5000", "C": "10000", "data": data}, 1, nil)
		res := s.Result()
		if it := res["optimum_iterations"].(int); it >= 50 {
			t.Errorf("%s: %d interior-point iterations", data, it)
		}
		if d := res["dual_optimum"].(float64); !(d > 0) || simtest.Metric(t, s.Frame(), "P") < d {
			t.Errorf("%s: D* = %v, P(w_0) = %v", data, d, simtest.Metric(t, s.Frame(), "P"))
		}
		t.Logf("%s: D* = %.10g in %d iterations", data, res["dual_optimum"], res["optimum_iterations"])
	}
}

// TestSVMPrimalOptimumMatchesSMO: at the defaults (C = 1, n = 150), the
// reference optimum is the one SMO found before: D* equals SMO's primal
// and dual objectives at a KKT tolerance of 1e-10 to 1e-9 relative, and
// w* and b* its hyperplane to 1e-6.
func TestSVMPrimalOptimumMatchesSMO(t *testing.T) {
	const seed = 3
	s := simtest.Build(t, SVMPrimal, nil, seed, nil)
	res := s.Result()
	v, err := sims.Resolve(SVMPrimal.Params, nil)
	if err != nil {
		t.Fatal(err)
	}
	data, err := classData(sims.Config{Values: v, Seed: seed}, primalPreset.Get(v), primalN.Get(v))
	if err != nil {
		t.Fatal(err)
	}
	y, _ := data.PlusMinus()
	smo, err := svm.New(kernel.Gram(kernel.Linear{}, data.X), y, svm.Config{C: primalC.Get(v), Tol: 1e-10})
	if err != nil {
		t.Fatal(err)
	}
	for smo.Step() == nil {
	}
	if smo.KKT() > 1e-10 {
		t.Fatalf("SMO stopped at a KKT violation of %v", smo.KKT())
	}
	dstar := res["dual_optimum"].(float64)
	for name, want := range map[string]float64{"primal": smo.Primal(), "dual": smo.Dual()} {
		if math.Abs(dstar-want) > 1e-9*want {
			t.Errorf("D* = %.12g, SMO's %s objective %.12g", dstar, name, want)
		}
	}
	w := make([]float64, data.D())
	for i, a := range smo.Alpha() {
		for j, xv := range data.X[i] {
			w[j] += a * y[i] * xv
		}
	}
	wstar, bstar := res["optimal_w"].([]float64), res["optimal_b"].(float64)
	for j := range w {
		if math.Abs(wstar[j]-w[j]) > 1e-6 {
			t.Errorf("w* = %v, SMO's w = %v", wstar, w)
		}
	}
	if math.Abs(bstar-smo.Bias()) > 1e-6 {
		t.Errorf("b* = %v, SMO's b = %v", bstar, smo.Bias())
	}
	t.Logf("D* = %.12g (%d interior-point iterations); SMO: P = %.12g, D = %.12g after %d steps",
		dstar, res["optimum_iterations"], smo.Primal(), smo.Dual(), smo.Iter())
}
