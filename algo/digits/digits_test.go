package digits_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/algo/digits"
)

func rng(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 3)) }

func dist(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += (a[i] - b[i]) * (a[i] - b[i])
	}
	return math.Sqrt(s)
}

// TestGenerate: pixels in [0, 1], labels balanced and in turn, the same
// seed the same images, another seed others.
func TestGenerate(t *testing.T) {
	for _, size := range digits.Sizes {
		pix, labels, err := digits.Generate(rng(1), 100, size, digits.Default)
		if err != nil {
			t.Fatal(err)
		}
		if len(pix) != 100*size*size || len(labels) != 100 {
			t.Fatalf("%d pixels, %d labels", len(pix), len(labels))
		}
		for i, v := range pix {
			if !(v >= 0 && v <= 1) {
				t.Fatalf("pixel %d = %g", i, v)
			}
		}
		for i, y := range labels {
			if y != i%10 {
				t.Fatalf("label %d = %d", i, y)
			}
		}
		again, _, _ := digits.Generate(rng(1), 100, size, digits.Default)
		other, _, _ := digits.Generate(rng(2), 100, size, digits.Default)
		if !slices.Equal(pix, again) || slices.Equal(pix, other) {
			t.Errorf("size %d: not a function of the seed", size)
		}
	}
}

// prototypes are the clean digits (Style{}: no variation, first glyph).
func prototypes(t *testing.T, size int) [10][]float64 {
	var p [10][]float64
	for d := range 10 {
		p[d] = make([]float64, size*size)
		if err := digits.Draw(p[d], size, d, digits.Style{}, rng(0)); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

// TestPrototypesAreDigits: every clean digit has ink, stays inside the
// image — its border rows and columns blank at 16×16, holding at most a
// quarter of the ink at 8×8 (where, as in scikit-learn's digits, strokes
// fill the box) — and differs from every other digit by at least a few
// pixels' worth.
func TestPrototypesAreDigits(t *testing.T) {
	for _, size := range digits.Sizes {
		p := prototypes(t, size)
		for d, img := range p {
			ink, border := 0.0, 0.0
			for j := range size {
				for i := range size {
					v := img[j*size+i]
					ink += v
					if i == 0 || j == 0 || i == size-1 || j == size-1 {
						border += v
					}
				}
			}
			if ink < float64(size) || (size == 16 && border > 0.5) || border > ink/4 {
				t.Errorf("size %d digit %d: ink %.1f, on the border %.2f", size, d, ink, border)
			}
			for e := range d {
				if r := dist(img, p[e]); r < 0.15*float64(size) {
					t.Errorf("size %d: digits %d and %d differ by only %.2f", size, d, e, r)
				}
			}
		}
	}
}

// TestHandsVaryButKeepTheDigit: random hands move every image away from
// its prototype, yet a nearest-class-mean classifier fitted on one batch
// of hands labels most of another correctly (the classes are learnable),
// while far from all (the classes are not trivial): between 60% and 99%.
func TestHandsVaryButKeepTheDigit(t *testing.T) {
	for _, size := range digits.Sizes {
		d := size * size
		train, ytr, _ := digits.Generate(rng(5), 2000, size, digits.Default)
		test, yte, _ := digits.Generate(rng(6), 1000, size, digits.Default)
		var mean [10][]float64
		for c := range mean {
			mean[c] = make([]float64, d)
		}
		for i, y := range ytr {
			for j := range d {
				mean[y][j] += train[i*d+j] / 200
			}
		}
		right := 0
		for i, y := range yte {
			x := test[i*d : (i+1)*d]
			best := 0
			for c := range mean {
				if dist(x, mean[c]) < dist(x, mean[best]) {
					best = c
				}
			}
			if best == y {
				right++
			}
		}
		acc := float64(right) / float64(len(yte))
		t.Logf("size %d: nearest class mean %.3f", size, acc)
		if acc < 0.6 || acc > 0.99 {
			t.Errorf("size %d: nearest class mean accuracy %.3f", size, acc)
		}
		p := prototypes(t, size)
		for i := range 10 {
			if dist(test[i*d:(i+1)*d], p[yte[i]]) < 0.5 {
				t.Errorf("size %d: image %d is its prototype", size, i)
			}
		}
	}
}

func TestValidation(t *testing.T) {
	_, _, err := digits.Generate(rng(1), 0, 8, digits.Default)
	algotest.WantParam(t, err, "n")
	err = digits.Draw(make([]float64, 64), 8, 10, digits.Default, rng(1))
	algotest.WantParam(t, err, "digit")
	err = digits.Draw(make([]float64, 63), 8, 1, digits.Default, rng(1))
	algotest.WantParam(t, err, "dst")
	bad := digits.Default
	bad.Noise = -1
	err = digits.Draw(make([]float64, 64), 8, 1, bad, rng(1))
	algotest.WantParam(t, err, "noise")
	for d := range 10 {
		if digits.Glyphs(d) < 1 {
			t.Error(fmt.Sprint("no glyph for ", d))
		}
	}
}

// BenchmarkGenerate: 1000 digits of 16×16.
func BenchmarkGenerate(b *testing.B) {
	r := rng(1)
	for b.Loop() {
		if _, _, err := digits.Generate(r, 1000, 16, digits.Default); err != nil {
			b.Fatal(err)
		}
	}
}
