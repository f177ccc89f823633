package shapleysim

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo/digits"
	"github.com/thelab/lab/algo/nn"
	"github.com/thelab/lab/algo/shapley"
	"github.com/thelab/lab/algo/tensor"
	"github.com/thelab/lab/algo/tensor/opt"
)

// The digit game: the 8×8 digit's 16 superpixels of 2×2 pixels are the
// players; a coalition keeps its superpixels and blanks the others to the
// baseline 0 (feature removal by a baseline); u(S) = p_c(x_S) − p_c(0),
// the model's probability of the digit's class c above the blank image's,
// so that u(∅) = 0.
const (
	digitSide  = 8
	digitCells = 4 // superpixels a side
	digitTrain = 1500
	digitSteps = 600
)

// digitGame trains the lab's digits MLP (64–32–10, tanh, Adam) on
// procedural digits and tabulates the utility of the 2^16 coalitions of
// the first generated digit of class c in one batched pass per 4096.
func digitGame(c int, rng *rand.Rand) (u shapley.Table, img []float64, prob float64, err error) {
	pix, labels, err := digits.Generate(rng, digitTrain, digitSide, digits.Default)
	if err != nil {
		return nil, nil, 0, err
	}
	set, err := nn.NewClassSet(pix, digitSide*digitSide, labels, 10)
	if err != nil {
		return nil, nil, 0, err
	}
	m, err := nn.NewMLP(nn.MLPConfig{In: digitSide * digitSide, Hidden: []int{32}, Out: 10, Act: nn.Activation("tanh")}, rng)
	if err != nil {
		return nil, nil, 0, err
	}
	tr, err := nn.NewTrainer(m, set, nn.TrainConfig{Batch: 32, Opt: opt.Config{Method: opt.Adam, LR: 0.01}}, rng)
	if err != nil {
		return nil, nil, 0, err
	}
	for range digitSteps {
		if err := tr.Step(); err != nil {
			return nil, nil, 0, err
		}
	}
	idx := -1
	for i, l := range labels {
		if l == c {
			idx = i
			break
		}
	}
	if idx < 0 {
		return nil, nil, 0, fmt.Errorf("no digit %d among the generated ones", c)
	}
	img = append([]float64(nil), set.Row(idx)...)
	const n = digitCells * digitCells
	u = make(shapley.Table, 1<<n)
	const chunk = 4096
	b, err := nn.NewBatch(chunk, digitSide*digitSide)
	if err != nil {
		return nil, nil, 0, err
	}
	x := make([]float64, chunk*digitSide*digitSide)
	tp := tensor.NewTape()
	for lo := 0; lo < len(u); lo += chunk {
		for r := range chunk {
			masked(x[r*digitSide*digitSide:(r+1)*digitSide*digitSide], img, uint64(lo+r))
		}
		b.LoadRows(x, nil)
		tp.Rewind()
		out := m.Forward(tp, b.X, nil)
		if err := tp.Err(); err != nil {
			return nil, nil, 0, err
		}
		for r := range chunk {
			u[lo+r] = softmaxAt(out.Data[r*10:(r+1)*10], c)
		}
	}
	base := u[0]
	for s := range u {
		u[s] -= base
	}
	return u, img, u[len(u)-1] + base, nil
}

// masked writes the digit with only the superpixels of s kept.
func masked(dst, img []float64, s uint64) {
	for y := range digitSide {
		for x := range digitSide {
			cell := (y/2)*digitCells + x/2
			if s&(1<<cell) != 0 {
				dst[y*digitSide+x] = img[y*digitSide+x]
			} else {
				dst[y*digitSide+x] = 0
			}
		}
	}
}

func softmaxAt(z []float64, c int) float64 {
	mx := z[0]
	for _, v := range z {
		mx = math.Max(mx, v)
	}
	sum := 0.0
	for _, v := range z {
		sum += math.Exp(v - mx)
	}
	return math.Exp(z[c]-mx) / sum
}

// cellImage spreads 16 superpixel values over the 8×8 grid.
func cellImage(phi []float64) []float64 {
	out := make([]float64, digitSide*digitSide)
	for y := range digitSide {
		for x := range digitSide {
			out[y*digitSide+x] = phi[(y/2)*digitCells+x/2]
		}
	}
	return out
}
