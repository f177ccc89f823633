package implicit

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/ad"
	"github.com/thelab/lab/algo/algotest"
	"gonum.org/v1/gonum/mat"
)

// TestHeron is catalogue §1.9 (a = 2, x₀ = 1): the iterates exactly (x₅ is
// √2 to one ulp: 1.4142135623730949, the floating-point fixed point), the
// unrolled dual derivative's errors 1.46e-1, 7.6e-3, 1.3e-5, 1.8e-11, 0 and
// the IFT derivative's 6.1e-4, 5.3e-7, 4.0e-13 then rounding (the
// catalogue's 5.6e-17; here 0 at k = 4 and 5.6e-17 at k = 5), each within
// half a unit of its last quoted digit; convergence (an unchanged iterate)
// at step 6.
func TestHeron(t *testing.T) {
	h, err := NewHeron(2, 1)
	if err != nil {
		t.Fatal(err)
	}
	iterates := []float64{1.5, 1.4166666666666665, 1.4142156862745097, 1.4142135623746899, 1.4142135623730949}
	unrolled := []float64{1.46e-1, 7.6e-3, 1.3e-5, 1.8e-11, 0}
	ift := []float64{6.1e-4, 5.3e-7, 4.0e-13, 0, 0}
	for k := range iterates {
		if err := h.Step(); err != nil {
			t.Fatalf("step %d: %v", k+1, err)
		}
		if h.X() != iterates[k] {
			t.Errorf("x_%d = %.17g, want %.17g", k+1, h.X(), iterates[k])
		}
		for _, c := range []struct {
			what      string
			got, want float64
		}{{"unrolled", h.Unrolled(), unrolled[k]}, {"IFT", h.IFT(), ift[k]}} {
			e := math.Abs(c.got - h.Exact())
			if c.want < 1e-16 {
				if e > 1e-16 {
					t.Errorf("k=%d %s error %.3g, want ≤ 1e-16", k+1, c.what, e)
				}
			} else if half := 0.5 * math.Pow(10, math.Floor(math.Log10(c.want))-sigFigs(c.want)+1); math.Abs(e-c.want) > half {
				t.Errorf("k=%d %s error %.3g, want %.2g", k+1, c.what, e, c.want)
			}
		}
	}
	if math.Abs(h.X()-math.Sqrt2) > 2.3e-16 {
		t.Errorf("x_5 = %.17g is not √2 to an ulp", h.X())
	}
	if err := h.Step(); !errors.Is(err, algo.ErrConverged) || h.K() != 6 {
		t.Errorf("step 6: %v (k = %d), want ErrConverged", err, h.K())
	}
	for _, bad := range [][2]float64{{0, 1}, {-1, 1}, {2, 0}, {2, -1}, {math.Inf(1), 1}, {2, math.NaN()}} {
		if _, err := NewHeron(bad[0], bad[1]); !algo.IsParamError(err, "a") && !algo.IsParamError(err, "x0") {
			t.Errorf("NewHeron%v = %v", bad, err)
		}
	}
}

// TestHeronFarStarts: from a start far from √a on either side, down to the
// least x₀ NewHeron takes, the iteration converges to √a and both
// derivatives to 1/(2√a), each to a few ulps; a start below it is refused
// naming x0.
func TestHeronFarStarts(t *testing.T) {
	for _, c := range []struct{ a, x0 float64 }{
		{2, 1e-150}, {2, 1e6}, {1e6, 1e-148}, {1e6, 1e300}, {5e-324, 1}, {1e-300, 1e-150},
	} {
		h, err := NewHeron(c.a, c.x0)
		if err != nil {
			t.Fatalf("NewHeron(%g, %g): %v", c.a, c.x0, err)
		}
		for err == nil && h.K() < 5000 {
			err = h.Step()
		}
		if !errors.Is(err, algo.ErrConverged) {
			t.Fatalf("a=%g x0=%g: %v after %d steps", c.a, c.x0, err, h.K())
		}
		d := h.Exact()
		for _, q := range []struct {
			what      string
			got, want float64
		}{{"x", h.X(), math.Sqrt(c.a)}, {"unrolled", h.Unrolled(), d}, {"IFT", h.IFT(), d}} {
			if math.Abs(q.got-q.want) > 4e-16*q.want {
				t.Errorf("a=%g x0=%g: %s = %.17g, want %.17g", c.a, c.x0, q.what, q.got, q.want)
			}
		}
	}
	for _, c := range []struct{ a, x0 float64 }{{2, 5e-324}, {2, 1e-160}, {1e6, 1e-152}, {1e-300, 1e-300}} {
		if _, err := NewHeron(c.a, c.x0); !algo.IsParamError(err, "x0") {
			t.Errorf("NewHeron(%g, %g) = %v, want a ParamError naming x0", c.a, c.x0, err)
		}
	}
}

// sigFigs is the number of significant figures of a quoted value (1.46e-1:
// 3, 7.6e-3: 2).
func sigFigs(v float64) float64 {
	for d := 1; d < 15; d++ {
		s := math.Pow(10, float64(d-1)-math.Floor(math.Log10(v)))
		if math.Abs(math.Round(v*s)-v*s) < 1e-6 {
			return float64(d)
		}
	}
	return 15
}

// TestCircle is Example 1.1: dy/dx = −x/y on either branch, d/dx √(1−x²)
// at 0.6 = −0.75, and the IFT fails at y = 0.
func TestCircle(t *testing.T) {
	for _, tc := range []struct{ x, y, want float64 }{
		{0.6, 0.8, -0.75}, {0.6, -0.8, 0.75}, {-0.8, 0.6, 0.8 / 0.6},
	} {
		got, err := CircleSlope(tc.x, tc.y, 1e-12)
		if err != nil {
			t.Fatal(err)
		}
		algotest.Near(t, fmt.Sprintf("slope at (%g, %g)", tc.x, tc.y), got, tc.want, 1e-15)
	}
	d := -0.6 / math.Sqrt(1-0.36) // d/dx √(1 − x²) at 0.6
	algotest.Near(t, "y⁺ slope", d, -0.75, 1e-15)
	if _, err := CircleSlope(1, 0, 1e-12); !errors.Is(err, ErrIFTFails) {
		t.Errorf("at (1, 0): %v, want ErrIFTFails", err)
	}
	if _, err := CircleSlope(0.5, 0.5, 1e-12); !algo.IsParamError(err, "(x, y)") {
		t.Errorf("off the circle: %v", err)
	}
}

// system is F(w, λ) = w + ½ tanh(Mw) − Cλ = 0 in R³ with two parameters:
// a nonlinear implicit map λ ↦ w*(λ).
const system = "w1 + 0.5*tanh(2*w1 - w2) - l1 - 0.3*l2, " +
	"w2 + 0.5*tanh(w1 + w2 + w3) - 0.5*l1 + l2, " +
	"w3 + 0.5*tanh(w2 - 3*w3) - 2*l2"

// solve finds w*(λ) with Newton, returning the graph at the solution.
func solve(t *testing.T, l1, l2 float64) *ad.Graph {
	t.Helper()
	g, err := ad.Parse(system, []ad.Var{{Name: "w1"}, {Name: "w2"}, {Name: "w3"}, {Name: "l1", Value: l1}, {Name: "l2", Value: l2}})
	if err != nil {
		t.Fatal(err)
	}
	nt, err := NewNewton(g)
	if err != nil {
		t.Fatal(err)
	}
	if err := nt.Solve(50); err != nil {
		t.Fatal(err)
	}
	return g
}

// TestNewton: from w = 0 the residual falls quadratically to rounding in a
// handful of steps; moving λ and stepping again re-solves; a system without
// a parameter, or with ∂₁F singular, is refused.
func TestNewton(t *testing.T) {
	g, err := ad.Parse(system, []ad.Var{{Name: "w1"}, {Name: "w2"}, {Name: "w3"}, {Name: "l1", Value: 0.4}, {Name: "l2", Value: -0.7}})
	if err != nil {
		t.Fatal(err)
	}
	nt, err := NewNewton(g)
	if err != nil {
		t.Fatal(err)
	}
	var res []float64
	for {
		err := nt.Step()
		res = append(res, nt.Residual())
		if errors.Is(err, algo.ErrConverged) {
			break
		}
		if err != nil || nt.Iter() > 10 {
			t.Fatalf("step %d: %v (residuals %v)", nt.Iter(), err, res)
		}
	}
	if nt.Residual() > 1e-15 || len(res) > 7 {
		t.Errorf("residuals %v", res)
	}
	for k := 1; k+1 < len(res) && res[k] > 1e-12; k++ { // quadratic: r_{k+1} ≲ C r_k²
		if res[k+1] > 10*res[k]*res[k] {
			t.Errorf("step %d: residual %.3g after %.3g is not quadratic", k+1, res[k+1], res[k])
		}
	}
	w := append([]float64(nil), nt.W()...)
	if err := nt.SetParams([]float64{0.5, -0.7}); err != nil {
		t.Fatal(err)
	}
	if err := nt.Solve(20); err != nil || nt.W()[0] == w[0] {
		t.Errorf("re-solve: %v, w %v → %v", err, w, nt.W())
	}
	noParam, _ := ad.Parse("w1 - 1", []ad.Var{{Name: "w1"}})
	if _, err := NewNewton(noParam); !algo.IsParamError(err, "outputs") {
		t.Errorf("no λ: %v", err)
	}
	flat, _ := ad.Parse("w1*w1 - l1", []ad.Var{{Name: "w1"}, {Name: "l1", Value: 1}})
	nf, err := NewNewton(flat)
	if err != nil {
		t.Fatal(err)
	}
	if err := nf.Step(); !errors.Is(err, ErrIFTFails) {
		t.Errorf("∂₁F = 2w = 0 at w = 0: %v", err)
	}
}

// TestImplicitJVPVJP is §1.8.1: with ∂₁F factorised once, JVPs along every
// parameter direction match central differences of the Newton solver
// (1e-8), the VJPs satisfy ⟨r, J t⟩ = ⟨Jᵀr, t⟩ (1e-14), and 2 + 3 products
// cost 5 solves and one factorisation.
func TestImplicitJVPVJP(t *testing.T) {
	l := []float64{0.4, -0.7}
	g := solve(t, l[0], l[1])
	dF1, dF2, err := Partials(g, 3)
	if err != nil {
		t.Fatal(err)
	}
	im, err := NewImplicit(dF1, dF2)
	if err != nil {
		t.Fatal(err)
	}
	J := mat.NewDense(3, 2, nil)
	for k := range 2 {
		e := make([]float64, 2)
		e[k] = 1
		col := make([]float64, 3)
		if err := im.JVP(col, e); err != nil {
			t.Fatal(err)
		}
		J.SetCol(k, col)
		const h = 1e-6
		lp, lm := append([]float64(nil), l...), append([]float64(nil), l...)
		lp[k] += h
		lm[k] -= h
		gp, gm := solve(t, lp[0], lp[1]), solve(t, lm[0], lm[1])
		for i := range 3 {
			fdv := (gp.Node(i).Value - gm.Node(i).Value) / (2 * h)
			algotest.Near(t, fmt.Sprintf("∂w%d/∂λ%d", i+1, k+1), col[i], fdv, 1e-8)
		}
	}
	for _, r := range [][]float64{{1, 0, 0}, {0.3, -2, 1}, {0, 0, 1}} {
		rJ := make([]float64, 2)
		if err := im.VJP(rJ, r); err != nil {
			t.Fatal(err)
		}
		for k := range 2 {
			algotest.Near(t, fmt.Sprintf("(rᵀJ)_%d", k), rJ[k], mat.Dot(mat.NewVecDense(3, r), J.ColView(k)), 1e-14)
		}
	}
	if im.Solves() != 5 {
		t.Errorf("%d solves, want 5", im.Solves())
	}
	_, err = NewImplicit(mat.NewDense(2, 2, []float64{1, 2, 2, 4}), mat.NewDense(2, 1, []float64{1, 1}))
	if !errors.Is(err, ErrIFTFails) {
		t.Errorf("singular ∂₁F: %v", err)
	}
	if _, err := NewImplicit(mat.NewDense(2, 3, nil), mat.NewDense(2, 1, nil)); !algo.IsParamError(err, "∂₁F") {
		t.Errorf("non-square ∂₁F: %v", err)
	}
}

// lpA, lpB, lpC are catalogue §1.12's program: min −x1 − 2x2 s.t.
// x1 + x2 + s1 = 4, x1 + 3x2 + s2 = 6.
var (
	lpA = mat.NewDense(2, 4, []float64{1, 1, 1, 0, 1, 3, 0, 1})
	lpC = []float64{-1, -2, 0, 0}
)

// TestLPSensitivity is catalogue §1.12: x* = (3, 1, 0, 0), objective −5,
// y* = (−0.5, −0.5); the IFT gives dx/db = [[1.5, −0.5], [−0.5, 0.5]] on
// (x1, x2), 0 on the slacks, dy/db = 0; re-solving at b = (4.01, 6) and
// (4, 6.01) gives (3.015, 0.995) and (2.995, 1.005); d(cᵀx*)/db = y*.
func TestLPSensitivity(t *testing.T) {
	s, err := SolveLP(lpC, lpA, []float64{4, 6})
	if err != nil {
		t.Fatal(err)
	}
	for j, want := range []float64{3, 1, 0, 0} {
		algotest.Near(t, fmt.Sprintf("x*_%d", j+1), s.X[j], want, 1e-12)
	}
	algotest.Near(t, "objective", s.Obj, -5, 1e-12)
	algotest.Near(t, "y1", s.Y[0], -0.5, 1e-12)
	algotest.Near(t, "y2", s.Y[1], -0.5, 1e-12)
	want := mat.NewDense(4, 2, []float64{1.5, -0.5, -0.5, 0.5, 0, 0, 0, 0})
	if !mat.EqualApprox(s.DxDb, want, 1e-12) {
		t.Errorf("dx/db =\n%v", mat.Formatted(s.DxDb))
	}
	if mat.Norm(s.DyDb, math.Inf(1)) > 1e-12 {
		t.Errorf("dy/db =\n%v, want 0", mat.Formatted(s.DyDb))
	}
	for k, tc := range []struct {
		b    []float64
		x1x2 [2]float64
	}{{[]float64{4.01, 6}, [2]float64{3.015, 0.995}}, {[]float64{4, 6.01}, [2]float64{2.995, 1.005}}} {
		r, err := SolveLP(lpC, lpA, tc.b)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 2 {
			algotest.Near(t, fmt.Sprintf("re-solved x%d", i+1), r.X[i], tc.x1x2[i], 1e-12)
			algotest.Near(t, fmt.Sprintf("IFT prediction x%d", i+1), s.X[i]+0.01*s.DxDb.At(i, k), r.X[i], 1e-12)
		}
		algotest.Near(t, fmt.Sprintf("Δobjective/Δb%d = y%d", k+1, k+1), (r.Obj-s.Obj)/0.01, s.Y[k], 1e-9)
	}
}

// TestLPIFTFails: a degenerate vertex and a non-unique optimum are refused
// with ErrIFTFails, the solution still reported; bad shapes with a
// ParamError.
func TestLPIFTFails(t *testing.T) {
	if s, err := SolveLP(lpC, lpA, []float64{4, 4}); !errors.Is(err, ErrIFTFails) || s == nil || s.Obj != -4 || s.DxDb != nil {
		t.Errorf("degenerate vertex: %v, solution %+v (want x* with objective −4, no sensitivities)", err, s)
	}
	if _, err := SolveLP([]float64{-1, -1, 0, 0}, lpA, []float64{4, 6}); !errors.Is(err, ErrIFTFails) {
		t.Errorf("several optima: %v", err)
	}
	if _, err := SolveLP(lpC[:3], lpA, []float64{4, 6}); !algo.IsParamError(err, "c") {
		t.Errorf("short c: %v", err)
	}
	if _, err := SolveLP(lpC, lpA, []float64{4}); !algo.IsParamError(err, "b") {
		t.Errorf("short b: %v", err)
	}
}
