package nnsim_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/nnsim"
	"github.com/thelab/lab/sims/simtest"
)

// accuracyAfter runs s, settling it every `every` steps, and returns the
// first step at which the held-out accuracy reached want (0 if never
// within max steps) and the last accuracy.
func accuracyAfter(t *testing.T, s sims.Sim, want float64, every, max int) (int, float64) {
	t.Helper()
	acc := 0.0
	for step := every; step <= max; step += every {
		simtest.Run(t, s, every)
		s.(sims.Settler).Settle()
		if acc = simtest.Metric(t, s.Frame(), "test_acc"); acc >= want {
			return step, acc
		}
	}
	return 0, acc
}

// TestDigitsReach95: the default MLP on 16×16 procedural digits (seed 1)
// classifies at least 95% of the 1000 held-out digits within 300 steps
// (about 5 epochs), and a CNN on 8×8 digits within 600.
func TestDigitsReach95(t *testing.T) {
	for _, c := range []struct {
		set   map[string]string
		steps int
	}{
		{nil, 300},
		{map[string]string{"model": "cnn", "size": "8", "n": "2000", "batch": "32"}, 600},
	} {
		s := simtest.Build(t, nnsim.Digits, c.set, 1, nil)
		at, acc := accuracyAfter(t, s, 0.95, 50, c.steps)
		if at == 0 {
			t.Errorf("%v: held-out accuracy %.3f after %d steps", c.set, acc, c.steps)
		}
		t.Logf("%v: 95%% at step %d", c.set, at)
	}
}

// TestDigitsPictures: the confusion matrix counts every test digit once
// with its true digit as the row, the gallery shows exactly the errors,
// and the filters are the first layer's weights.
func TestDigitsPictures(t *testing.T) {
	s := simtest.Build(t, nnsim.Digits, map[string]string{"n": "600", "size": "8", "layers": "0"}, 2, nil)
	simtest.Run(t, s, 40)
	s.(sims.Settler).Settle()
	f := s.Frame()
	conf := f.Charts[1].(sims.ImageChart).Images[0]
	total, diag := 0.0, 0.0
	for i, v := range conf.Pix {
		total += v
		if i/10 == i%10 {
			diag += v
		}
	}
	errors := simtest.Metric(t, f, "errors")
	if total != 120 || total-diag != errors {
		t.Errorf("confusion holds %g digits, %g off the diagonal; %g errors", total, total-diag, errors)
	}
	gallery := f.Charts[2].(sims.ImageChart).Images
	if want := min(int(errors), 24); len(gallery) != want {
		t.Errorf("%d misclassified shown, want %d", len(gallery), want)
	}
	for _, im := range gallery {
		var y, p int
		if _, err := fmt.Sscanf(im.Caption, "%d→%d", &y, &p); err != nil || y == p || conf.Pix[y*10+p] < 1 {
			t.Errorf("gallery caption %q", im.Caption)
		}
	}
	// Softmax regression: one 8×8 template per class.
	filters := f.Charts[3].(sims.ImageChart)
	if len(filters.Images) != 10 || filters.Images[0].W != 8 || !strings.Contains(filters.Title, "templates") {
		t.Errorf("filters %q: %d images", filters.Title, len(filters.Images))
	}
}

// TestDigitsData: a pixel CSV (0–255 values) trains; a wrong number of
// pixel columns, a label outside 0–9 and a pixel outside the range are
// refused with the line.
func TestDigitsData(t *testing.T) {
	cols := []string{"label"}
	for i := range 16 {
		cols = append(cols, fmt.Sprintf("p%d", i))
	}
	table := func() *sims.Table {
		tab := &sims.Table{Name: "mine.csv", Columns: cols}
		for i := range 40 {
			row := []float64{float64(i % 2)}
			for j := range 16 {
				v := 0.0
				if (j%4 < 2) == (i%2 == 0) {
					v = 255
				}
				row = append(row, v)
			}
			tab.Rows = append(tab.Rows, row)
			tab.Lines = append(tab.Lines, i+2)
		}
		return tab
	}
	s := simtest.Build(t, nnsim.Digits, nil, 1, table())
	simtest.Run(t, s, 30)
	s.(sims.Settler).Settle()
	if acc := simtest.Metric(t, s.Frame(), "test_acc"); acc < 1 {
		t.Errorf("two trivially separable patterns: accuracy %g", acc)
	}
	if !strings.Contains(simtest.Text(s.Frame()), "4×4 from mine.csv") {
		t.Errorf("notes:\n%s", simtest.Text(s.Frame()))
	}
	bad := table()
	bad.Rows[6][0] = 12
	bad.Lines[6] = 9
	if _, err := simtest.BuildErr(nnsim.Digits, nil, 1, bad); err == nil || !strings.Contains(err.Error(), "line 9: label 12") {
		t.Errorf("label 12: %v", err)
	}
	bad = table()
	bad.Rows[3][5] = 300
	if _, err := simtest.BuildErr(nnsim.Digits, nil, 1, bad); err == nil || !strings.Contains(err.Error(), "line 5, column 6 (p4)") {
		t.Errorf("pixel 300: %v", err)
	}
	bad = table()
	bad.Columns = bad.Columns[:15]
	for i := range bad.Rows {
		bad.Rows[i] = bad.Rows[i][:15]
	}
	if _, err := simtest.BuildErr(nnsim.Digits, nil, 1, bad); err == nil || !strings.Contains(err.Error(), "14 pixel columns") {
		t.Errorf("14 pixels: %v", err)
	}
}

// TestDigitsLiveBudget: a network too large to watch is refused in a pane
// with the headless command, and built for a headless run.
func TestDigitsLiveBudget(t *testing.T) {
	set := map[string]string{"hidden": "1024", "layers": "3", "batch": "512", "n": "200"}
	_, err := simtest.BuildErr(nnsim.Digits, set, 1, nil)
	if err == nil || !strings.Contains(err.Error(), "lab run digits --set batch=512 --set hidden=1024 --set layers=3 --set n=200") {
		t.Fatalf("a 3×1024 MLP at batch 512 in a pane: %v", err)
	}
	v, err := sims.Resolve(nnsim.Digits.Params, set)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := nnsim.Digits.Build(sims.Config{Values: v, Seed: 1, Headless: true}); err != nil {
		t.Errorf("headless: %v", err)
	}
}
