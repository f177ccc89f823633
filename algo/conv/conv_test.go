package conv_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/algo/conv"
	"github.com/thelab/lab/algo/tensor"
)

func run(t *testing.T, s *conv.Sweep) {
	t.Helper()
	for {
		err := s.Step()
		if errors.Is(err, algo.ErrConverged) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestExample101: the notes' Example 10.1 (seed 001 L1051), exactly.
func TestExample101(t *testing.T) {
	x := []float64{
		1, 1, 1, 0, 0,
		0, 1, 1, 1, 0,
		0, 0, 1, 1, 1,
		0, 0, 1, 1, 0,
		0, 1, 1, 0, 0,
	}
	k := []float64{1, 0, 1, 0, 1, 0, 1, 0, 1}
	s, err := conv.NewSweep(conv.Geometry{H: 5, W: 5, KH: 3, KW: 3, Stride: 1}, x, k, conv.NoPool, 0)
	if err != nil {
		t.Fatal(err)
	}
	run(t, s)
	want := []float64{4, 3, 4, 2, 4, 3, 2, 3, 4}
	for i, w := range want {
		algotest.Near(t, fmt.Sprintf("out[%d]", i), s.Out()[i], w, 0)
	}
	if s.Done() != 9 || s.Total() != 9 {
		t.Errorf("%d of %d cells", s.Done(), s.Total())
	}
	kk, xx := s.Terms(0, 0)
	sum := 0.0
	for i := range kk {
		sum += kk[i] * xx[i]
	}
	algotest.Near(t, "terms of cell (0,0)", sum, 4, 0)
}

// TestSweepMatchesTape: the sweep (then its pooling) equals the tape's
// Conv2D (then MaxPool2D / AvgPool2D) for random images, kernels,
// strides and paddings.
func TestSweepMatchesTape(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	tp := tensor.NewTape()
	for trial := range 60 {
		g := conv.Geometry{H: 3 + r.IntN(8), W: 3 + r.IntN(8), KH: 1 + r.IntN(3), KW: 1 + r.IntN(3),
			Stride: 1 + r.IntN(3), Pad: r.IntN(3)}
		if g.Check() != nil {
			continue
		}
		x, k := make([]float64, g.H*g.W), make([]float64, g.KH*g.KW)
		for i := range x {
			x[i] = r.NormFloat64()
		}
		for i := range k {
			k[i] = r.NormFloat64()
		}
		pool := []conv.Pool{conv.NoPool, conv.MaxPool, conv.AvgPool}[trial%3]
		size := 0
		if pool != conv.NoPool {
			size = 1 + r.IntN(min(g.OH(), g.OW()))
		}
		s, err := conv.NewSweep(g, x, k, pool, size)
		if err != nil {
			t.Fatal(err)
		}
		run(t, s)
		xt, _ := tensor.FromData(x, 1, 1, g.H, g.W)
		kt, _ := tensor.FromData(k, 1, 1, g.KH, g.KW)
		tp.Rewind()
		out := tp.Conv2D(xt, kt, nil, g.Stride, g.Pad)
		want := out.Data
		got := s.Out()
		if pool != conv.NoPool {
			if pool == conv.MaxPool {
				want = tp.MaxPool2D(out, size, size).Data
			} else {
				want = tp.AvgPool2D(out, size, size).Data
			}
			got = s.Pooled()
		}
		if err := tp.Err(); err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("%+v %s %d: %d cells, tape %d", g, pool, size, len(got), len(want))
		}
		for i := range want {
			algotest.Near(t, fmt.Sprintf("%+v %s cell %d", g, pool, i), got[i], want[i], 1e-12)
		}
	}
}

// TestCirculant: W_circ·vec(X) = vec(K∗X) (seed 001 L1082–L1096) for
// random geometries, and the notes' 2×2 kernel on a 3×3 input gives a
// 4×9 matrix with four distinct weights per row, in the notes' pattern.
func TestCirculant(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 40 {
		g := conv.Geometry{H: 2 + r.IntN(6), W: 2 + r.IntN(6), KH: 1 + r.IntN(3), KW: 1 + r.IntN(3),
			Stride: 1 + r.IntN(2), Pad: r.IntN(2)}
		if g.Check() != nil {
			continue
		}
		x, k := make([]float64, g.H*g.W), make([]float64, g.KH*g.KW)
		for i := range x {
			x[i] = r.NormFloat64()
		}
		for i := range k {
			k[i] = r.NormFloat64()
		}
		m, err := conv.Circulant(g, k)
		if err != nil {
			t.Fatal(err)
		}
		n := g.H * g.W
		for i := range g.OH() {
			for j := range g.OW() {
				row := m[(i*g.OW()+j)*n : (i*g.OW()+j+1)*n]
				dot := 0.0
				for c, w := range row {
					dot += w * x[c]
				}
				algotest.Near(t, fmt.Sprintf("%+v (%d,%d)", g, i, j), dot, g.At(x, k, i, j), 1e-12)
			}
		}
	}
	m, _ := conv.Circulant(conv.Geometry{H: 3, W: 3, KH: 2, KW: 2, Stride: 1}, []float64{1, 2, 3, 4})
	want := [4][9]float64{
		{1, 2, 0, 3, 4, 0, 0, 0, 0},
		{0, 1, 2, 0, 3, 4, 0, 0, 0},
		{0, 0, 0, 1, 2, 0, 3, 4, 0},
		{0, 0, 0, 0, 1, 2, 0, 3, 4},
	}
	for i := range want {
		for j := range want[i] {
			algotest.Near(t, fmt.Sprintf("W_circ[%d,%d]", i, j), m[i*9+j], want[i][j], 0)
		}
	}
}

// TestOutSizeCounts: the formula against a count of the window's
// positions.
func TestOutSizeCounts(t *testing.T) {
	for n := 1; n <= 12; n++ {
		for k := 1; k <= 6; k++ {
			for s := 1; s <= 4; s++ {
				for p := 0; p <= 3; p++ {
					count := 0
					for start := -p; start+k <= n+p; start += s {
						count++
					}
					if got := conv.OutSize(n, k, s, p); got != count {
						t.Fatalf("OutSize(%d, %d, %d, %d) = %d, count %d", n, k, s, p, got, count)
					}
				}
			}
		}
	}
}

// TestLeNetSizes: 32² → 6@28² → 6@14² → 16@10² → 16@5² (seed 001
// L1102–L1110; 5×5 kernels, 2×2 pooling with stride 2).
func TestLeNetSizes(t *testing.T) {
	sizes := []int{32}
	for _, layer := range []struct{ k, s int }{{5, 1}, {2, 2}, {5, 1}, {2, 2}} {
		sizes = append(sizes, conv.OutSize(sizes[len(sizes)-1], layer.k, layer.s, 0))
	}
	if fmt.Sprint(sizes) != "[32 28 14 10 5]" {
		t.Errorf("LeNet sizes %v", sizes)
	}
}

// TestSamePad: the corrected formula (erratum E12) is the smallest
// padding that keeps the size, gives it exactly except for an even kernel
// at stride 1 (m + 1), and reproduces the catalogue's values; the notes'
// misprint is negative there.
func TestSamePad(t *testing.T) {
	algotest.Near(t, "p(224, 5, 1)", float64(conv.SamePad(224, 5, 1)), 2, 0)
	algotest.Near(t, "p(224, 3, 2)", float64(conv.SamePad(224, 3, 2)), 113, 0)
	if p := conv.NotesSamePad(224, 3, 2); p >= 0 {
		t.Errorf("the misprinted formula gives %d", p)
	}
	for m := 1; m <= 20; m++ {
		for a := 1; a <= 7; a++ {
			for s := 1; s <= 4; s++ {
				p := conv.SamePad(m, a, s)
				smallest := 0
				for conv.OutSize(m, a, s, smallest) < m {
					smallest++
				}
				if p != smallest {
					t.Fatalf("SamePad(%d, %d, %d) = %d, smallest %d", m, a, s, p, smallest)
				}
				exact := s > 1 || a%2 == 1
				if out := conv.OutSize(m, a, s, p); (out == m) != exact || out > m+1 {
					t.Fatalf("m %d, a %d, s %d, p %d: output %d", m, a, s, p, out)
				}
			}
		}
	}
}

func TestValidation(t *testing.T) {
	g := conv.Geometry{H: 5, W: 5, KH: 7, KW: 3, Stride: 1}
	_, err := conv.NewSweep(g, make([]float64, 25), make([]float64, 21), conv.NoPool, 0)
	algotest.WantParam(t, err, "kernel")
	g.KH = 3
	_, err = conv.NewSweep(g, make([]float64, 25), make([]float64, 9), conv.MaxPool, 4)
	algotest.WantParam(t, err, "pool_size")
	g.Stride = 0
	_, err = conv.Circulant(g, make([]float64, 9))
	algotest.WantParam(t, err, "stride")
	x := make([]float64, 25)
	x[3] = math.NaN()
	_, err = conv.NewSweep(conv.Geometry{H: 5, W: 5, KH: 3, KW: 3, Stride: 1}, x, make([]float64, 9), conv.NoPool, 0)
	algotest.WantParam(t, err, "image")
}
