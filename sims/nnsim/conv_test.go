package nnsim_test

import (
	"math"
	"strings"
	"testing"

	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/nnsim"
	"github.com/thelab/lab/sims/simtest"
)

func floats(rows [][]any) []float64 {
	var out []float64
	for _, r := range rows {
		for _, v := range r {
			out = append(out, v.(float64))
		}
	}
	return out
}

// TestConvExample101: the pane's default computes the notes' Example 10.1
// one cell a step, [[4,3,4],[2,4,3],[2,3,4]], writing out each sum, and
// W_circ's rows times vec(X) give the same cells.
func TestConvExample101(t *testing.T) {
	s := simtest.Build(t, nnsim.Conv, nil, 1, nil)
	if steps := simtest.RunToEnd(t, s, 20); steps != 8 {
		t.Errorf("finished after %d steps, want 9 cells", steps+1)
	}
	out := floats(s.Result()["output"].([][]any))
	for i, want := range []float64{4, 3, 4, 2, 4, 3, 2, 3, 4} {
		algotest.Near(t, "out", out[i], want, 0)
	}
	f := s.Frame()
	if !strings.Contains(simtest.Text(f), "out[2,2] = 1·1 + 0·1 + 1·1 + 0·1 + 1·1 + 0·0 + 1·1 + 0·0 + 1·0 = 4") {
		t.Errorf("notes:\n%s", simtest.Text(f))
	}
	x := f.Charts[0].(sims.ImageChart).Images[0].Pix
	w := f.Charts[3].(sims.ImageChart).Images[0]
	for r := range w.H {
		dot := 0.0
		for c := range w.W {
			dot += w.Pix[r*w.W+c] * x[c]
		}
		algotest.Near(t, "W_circ·vec(X)", dot, out[r], 1e-12)
	}
}

// TestConvSamePadding: "same" padding keeps a digit's 16×16 at strides 1
// and 2 (p = 1 and 9, erratum E12 corrected), and an even kernel at stride
// 1 gets one more and says why.
func TestConvSamePadding(t *testing.T) {
	for _, c := range []struct {
		stride, kernel string
		pad, side      float64
	}{{"1", "blur", 1, 16}, {"2", "sobel-x", 9, 16}, {"1", "w2x2", 1, 17}} {
		s := simtest.Build(t, nnsim.Conv, map[string]string{"image": "digit", "padding": "same", "stride": c.stride,
			"kernel": c.kernel}, 1, nil)
		f := s.Frame()
		algotest.Near(t, "pad", simtest.Metric(t, f, "pad"), c.pad, 0)
		algotest.Near(t, "out_h", simtest.Metric(t, f, "out_h"), c.side, 0)
		if text := simtest.Text(f); !strings.Contains(text, "E12") || (c.side == 17) != strings.Contains(text, "cannot keep") {
			t.Errorf("%+v: notes\n%s", c, text)
		}
	}
}

// TestConvPooling: max pooling after the convolution takes the largest of
// each window of the finished output, one cell a step.
func TestConvPooling(t *testing.T) {
	s := simtest.Build(t, nnsim.Conv, map[string]string{"image": "digit", "kernel": "blur", "pool": "max",
		"pool_size": "2"}, 2, nil)
	simtest.RunToEnd(t, s, 300)
	r := s.Result()
	out, pooled := r["output"].([][]any), r["pooled"].([][]any)
	if len(pooled) != 7 {
		t.Fatalf("%d pooled rows from %d", len(pooled), len(out))
	}
	for i := range pooled {
		for j := range pooled[i] {
			m := math.Inf(-1)
			for u := range 2 {
				for v := range 2 {
					m = math.Max(m, out[2*i+u][2*j+v].(float64))
				}
			}
			algotest.Near(t, "pooled", pooled[i][j].(float64), m, 0)
		}
	}
}
