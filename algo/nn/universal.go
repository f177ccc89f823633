package nn

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
)

// Interpolant builds the constructive network of the universal
// approximation theorem in one dimension (seed 001 Theorem 9.4,
// L1015–L1025; catalogue [A17]): one hidden layer of k ReLUs whose output
// is the piecewise-linear interpolant of f at the k + 1 equally spaced
// knots t_j = a + j(b − a)/k,
//
//	g(x) = f(t_0) + Σ_{j<k} c_j ReLU(x − t_j),  c_0 = s_0,  c_j = s_j − s_{j−1},
//
// s_j the slope of f on [t_j, t_{j+1}]: W₁ = 1, b₁ = −t_j, W₂ = c, b₂ =
// f(t_0). On [a, b] its error is at most h² max|f″|/8, h = (b − a)/k
// (the linear-interpolation bound): O(1/k²).
func Interpolant(f func(float64) float64, a, b float64, k int) (*MLP, error) {
	if k < 1 || k > MaxWidth {
		return nil, algo.BadParam("width", k, fmt.Sprintf("in 1..%d", MaxWidth))
	}
	if !(a < b) || math.IsInf(a, 0) || math.IsInf(b, 0) {
		return nil, algo.BadParam("interval", fmt.Sprintf("[%g, %g]", a, b), "finite with a < b")
	}
	m, err := NewMLP(MLPConfig{In: 1, Hidden: []int{k}, Out: 1, Act: ReLU}, rand.New(rand.NewPCG(0, 0)))
	if err != nil {
		return nil, err
	}
	h := (b - a) / float64(k)
	hid, out := m.Layers[0], m.Layers[1]
	prev := 0.0
	for j := range k {
		t := a + float64(j)*h
		s := (f(t+h) - f(t)) / h
		hid.W.Data[j], hid.B.Data[j] = 1, -t
		out.W.Data[j] = s - prev
		prev = s
	}
	out.B.Data[0] = f(a)
	if !algo.AllFinite(out.W.Data) || !algo.Finite(out.B.Data[0]) {
		return nil, algo.BadParam("f", "the target", "finite at the knots")
	}
	return m, nil
}
