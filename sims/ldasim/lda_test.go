package ldasim

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/simtest"
)

// TestPlanted runs the default (the shipped planted corpus) to convergence:
// the ELBO curve never falls, the planted topics are matched within twice
// their complete-data error (the engine's oracle, seen from the pane), the
// heat map has K rows and the top words of each topic, and the Result
// encodes.
func TestPlanted(t *testing.T) {
	if _, err := sims.NewCatalog(LDA); err != nil {
		t.Fatal(err)
	}
	s, err := simtest.BuildErr(LDA, nil, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	simtest.RunToEnd(t, s, 1000)
	f := s.Frame()
	elbo, _ := f.Series("L(q)/N")
	for i := 1; i < len(elbo.Y); i++ {
		if elbo.Y[i] < elbo.Y[i-1]-1e-9*math.Abs(elbo.Y[i-1]) {
			t.Fatalf("ELBO fell at sweep %d", i)
		}
	}
	r := s.Result()
	if _, err := json.Marshal(r); err != nil {
		t.Fatal(err)
	}
	errs, bench := r["topic_l1_error"].([]float64), r["complete_data_l1_error"].([]float64)
	for k := range errs {
		if errs[k] > 2*bench[k] {
			t.Errorf("planted topic %d: L1 error %.3f > 2 × %.3f", k, errs[k], bench[k])
		}
	}
	if e, ok := f.Metric("topic_err"); !ok || e > 0.15 {
		t.Errorf("topic_err %v", e)
	}
	cc := f.Charts[0].(sims.CanvasChart)
	if cc.Heat.NY != 4 || cc.Heat.NX < 8 || cc.Heat.NX > 32 {
		t.Errorf("heat map %d×%d", cc.Heat.NX, cc.Heat.NY)
	}
	if text := strings.Join(f.Text, "\n"); !strings.Contains(text, "never fell") || !strings.Contains(text, "planted") {
		t.Errorf("notes %q", text)
	}
}

// TestFile fits a user's text file (one document per line) and refuses a
// missing or empty one with an error naming the corpus parameter.
func TestFile(t *testing.T) {
	dir := t.TempDir()
	var lines []string
	for i := range 40 {
		if i%2 == 0 {
			lines = append(lines, "The cat chased the mouse; the cat slept. Kitten whiskers purr.")
		} else {
			lines = append(lines, "Stocks fell as the market feared inflation and the bank raised rates.")
		}
	}
	path := filepath.Join(dir, "docs.txt")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := simtest.BuildErr(LDA, map[string]string{"corpus": path, "k": "2"}, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	simtest.RunToEnd(t, s, 1000)
	r := s.Result()
	if r["documents"].(int) != 40 {
		t.Fatalf("%v documents", r["documents"])
	}
	if _, ok := r["topic_l1_error"]; ok {
		t.Error("a file has no planted truth")
	}
	// Two clean topics: each one's top words are from one kind of line.
	for _, top := range r["top_words"].([][]string) {
		cats := strings.Contains(strings.Join(top[:3], " "), "cat")
		money := strings.Contains(strings.Join(top[:3], " "), "market") || strings.Contains(strings.Join(top[:3], " "), "stocks")
		if cats == money {
			t.Errorf("topic top words %v mix the two kinds of line", top[:3])
		}
	}
	for _, bad := range []string{filepath.Join(dir, "missing.txt"), writeEmpty(t, dir)} {
		if _, err := simtest.BuildErr(LDA, map[string]string{"corpus": bad}, 1, nil); err == nil || !strings.Contains(err.Error(), "corpus") {
			t.Errorf("%s: got %v, want an error naming corpus", bad, err)
		}
	}
}

func writeEmpty(t *testing.T, dir string) string {
	p := filepath.Join(dir, "empty.txt")
	if err := os.WriteFile(p, []byte("\n\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestFewTopics: with fewer topics than were planted the pane says so
// instead of matching.
func TestFewTopics(t *testing.T) {
	s, err := simtest.BuildErr(LDA, map[string]string{"k": "3"}, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Step(); err != nil {
		t.Fatal(err)
	}
	f := s.Frame()
	if _, ok := f.Metric("topic_err"); ok {
		t.Error("topic_err with k < planted topics")
	}
	if !strings.Contains(strings.Join(f.Text, "\n"), "k ≥ 4") {
		t.Errorf("notes %q", f.Text)
	}
}
