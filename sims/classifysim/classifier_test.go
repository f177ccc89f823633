package classifysim

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/simtest"
)

// TestSharedIsLinear checks the pane's answer to Exercise 1.1: with
// fit=shared the quadratic coefficient A of the log-odds is exactly zero
// (‖A‖ metric 0) and the notes give the affine form; with fit=separate on
// classes of different covariances A is not zero. Both approach the Bayes
// accuracy when the model is right.
func TestSharedIsLinear(t *testing.T) {
	s := simtest.Build(t, Classifier, nil, 1, nil)
	simtest.Run(t, s, 800)
	f := s.Frame()
	if a, _ := f.Metric("‖A‖"); a != 0 {
		t.Errorf("shared fit: ‖A‖ = %g", a)
	}
	acc, _ := f.Metric("accuracy")
	bayes, _ := f.Metric("bayes")
	if math.Abs(acc-bayes) > 0.02 {
		t.Errorf("shared fit on equal covariances: accuracy %g, Bayes %g", acc, bayes)
	}
	if txt := strings.Join(f.Text, "\n"); !strings.Contains(txt, "A = 0") || !strings.Contains(txt, "straight") {
		t.Errorf("notes %q", f.Text)
	}
	q := simtest.Build(t, Classifier, map[string]string{"fit": "separate", "truth": "different"}, 1, nil)
	simtest.Run(t, q, 800)
	g := q.Frame()
	if a, _ := g.Metric("‖A‖"); a < 0.5 {
		t.Errorf("separate fit on different covariances: ‖A‖ = %g, want the true ≈ 1.1", a)
	}
	acc, _ = g.Metric("accuracy")
	bayes, _ = g.Metric("bayes")
	if math.Abs(acc-bayes) > 0.02 {
		t.Errorf("separate fit: accuracy %g, Bayes %g", acc, bayes)
	}
	if len(g.Charts) != 3 {
		t.Errorf("%d charts", len(g.Charts))
	}
	if _, err := json.Marshal(q.Result()); err != nil {
		t.Error(err)
	}
}

func TestData(t *testing.T) {
	tab, err := sims.ReadCSV(strings.NewReader("x,y,label\n0,0,0\n1,0.5,0\n0.2,1,0\n0.5,0.4,0\n3,3,1\n4,3.5,1\n3.3,4,1\n3.6,2.9,1\n"))
	if err != nil {
		t.Fatal(err)
	}
	tab.Name = "test.csv"
	s := simtest.Build(t, Classifier, map[string]string{"fit": "separate"}, 1, tab)
	var stepErr error
	for i := 0; stepErr == nil && i < 20; i++ {
		stepErr = s.Step()
	}
	if !strings.Contains(stepErr.Error(), "converged") {
		t.Errorf("after the data: %v", stepErr)
	}
	f := s.Frame()
	if acc, _ := f.Metric("accuracy"); acc != 1 {
		t.Errorf("accuracy %g on separable data", acc)
	}
	if _, ok := f.Metric("bayes"); ok {
		t.Error("a Bayes accuracy without a true model")
	}
	bad, _ := sims.ReadCSV(strings.NewReader("x,y,label\n0,0,0\n1,1,0\n"))
	bad.Name = "bad.csv"
	v, _ := sims.Resolve(Classifier.Params, nil)
	if _, err := Classifier.Build(sims.Config{Values: v, Seed: 1, Data: bad}); err == nil {
		t.Error("one class accepted")
	}
}

func TestBadParams(t *testing.T) {
	for _, set := range []map[string]string{{"pi": "1"}, {"sep": "-1"}, {"fit": "tied"}, {"truth": "same"}} {
		if _, err := sims.Resolve(Classifier.Params, set); err == nil {
			t.Errorf("%v accepted", set)
		}
	}
}

func TestDeterministicImmutableNoAlloc(t *testing.T) {
	res := func() string {
		s := simtest.Build(t, Classifier, map[string]string{"fit": "separate"}, 5, nil)
		simtest.Run(t, s, 100)
		b, _ := json.Marshal(s.Result())
		return string(b)
	}
	if a, b := res(), res(); a != b {
		t.Error("same seed, different results")
	}
	s := simtest.Build(t, Classifier, nil, 1, nil)
	simtest.Run(t, s, 50)
	f := s.Frame()
	before, _ := json.Marshal(f)
	simtest.Run(t, s, 50)
	_ = s.Frame()
	if after, _ := json.Marshal(f); string(before) != string(after) {
		t.Error("a frame changed after it was returned")
	}
	if a := testing.AllocsPerRun(100, func() { _ = s.Step() }); a != 0 {
		t.Errorf("Step allocates %v times", a)
	}
}
