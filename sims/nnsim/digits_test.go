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
	filters := f.Charts[4].(sims.ImageChart)
	if len(filters.Images) != 10 || filters.Images[0].W != 8 || !strings.Contains(filters.Title, "templates") {
		t.Errorf("filters %q: %d images", filters.Title, len(filters.Images))
	}
}

// TestDigitsLayerByLayer: the first test digit through the network, as
// CNN Explainer draws it — the input, then a row per conv block of its
// first maps (at most 8), each at the input's size, a coarser map's
// pixels as whole blocks; an mlp's hidden units in a square beside the
// input, the cells past the last unit blank; ReLU maps never negative.
func TestDigitsLayerByLayer(t *testing.T) {
	layers := func(set map[string]string) sims.ImageChart {
		s := simtest.Build(t, nnsim.Digits, set, 1, nil)
		simtest.Run(t, s, 5)
		for _, c := range s.Frame().Charts {
			if c, ok := c.(sims.ImageChart); ok && strings.HasPrefix(c.Title, "test digit ") {
				return c
			}
		}
		t.Fatalf("%v: no layer-by-layer chart", set)
		return sims.ImageChart{}
	}
	c := layers(map[string]string{"model": "cnn", "size": "8", "n": "600", "filters": "4", "blocks": "2"})
	if len(c.Images) != 1+4+8 {
		t.Fatalf("cnn: %d images, want the input, 4 maps and 8 of 8", len(c.Images))
	}
	for i, im := range c.Images {
		wantRow, caption := i == 1 || i == 5, map[int]string{0: "input", 1: "conv 1", 5: "conv 2"}[i]
		if im.W != 8 || im.H != 8 || im.NewRow != wantRow || im.Caption != caption {
			t.Errorf("image %d: %d×%d, new row %v, caption %q", i, im.W, im.H, im.NewRow, im.Caption)
		}
		for k, v := range im.Pix {
			if i > 0 && v < 0 {
				t.Errorf("image %d: ReLU map value %g at %d", i, v, k)
			}
			// Block 2's maps are 4×4: each pixel is a 2×2 block of the picture.
			if i >= 5 && v != im.Pix[(k/8)&^1*8+(k%8)&^1] {
				t.Errorf("image %d: pixel %d is not its 2×2 block's", i, k)
			}
		}
	}
	c = layers(map[string]string{"size": "8", "n": "600", "layers": "2", "hidden": "10"})
	if len(c.Images) != 3 || c.Images[1].NewRow || c.Images[2].Caption != "h2: 10 units" {
		t.Fatalf("mlp: %d images, %+v", len(c.Images), c.Images)
	}
	blank := 0
	for _, v := range c.Images[1].Pix {
		if v != v {
			blank++
		}
	}
	// 10 units in a 4×3 square leave its last row's last 2 cells blank:
	// drawn 8×8, rows 6–7 (⌊3i/8⌋ = 2) by columns 4–7 (⌊4j/8⌋ ≥ 2).
	if blank != 8 {
		t.Errorf("mlp: %d blank pixels of 64, want the 2×4 of its 2 empty cells", blank)
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
// with the headless command, and built for a headless run. A 3×512 MLP on
// the 16×16 digits (662,026 weights; the batch of 512 is cut to the 160
// training digits) costs 6.4e8 FLOPs a step, three times the 2e8 a pane
// allows: over it as surely as the 3×1024 MLP (2.4 million weights, 2.3e9
// FLOPs) this test built before, whose weights, drawn and allocated
// twice, cost 1.5 s under -race. (3×256 would cost 1.9e8: allowed.)
func TestDigitsLiveBudget(t *testing.T) {
	set := map[string]string{"hidden": "512", "layers": "3", "batch": "512", "n": "200"}
	_, err := simtest.BuildErr(nnsim.Digits, set, 1, nil)
	if err == nil || !strings.Contains(err.Error(), "lab run digits --set batch=512 --set hidden=512 --set layers=3 --set n=200") {
		t.Fatalf("a 3×512 MLP at batch 512 in a pane: %v", err)
	}
	v, err := sims.Resolve(nnsim.Digits.Params, set)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := nnsim.Digits.Build(sims.Config{Values: v, Seed: 1, Headless: true}); err != nil {
		t.Errorf("headless: %v", err)
	}
}
