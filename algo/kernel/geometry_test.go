package kernel

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/thelab/lab/algo/algotest"
)

// TestCholeskyCoords: ⟨x, y⟩_M = xᵀMy equals ⟨Ux, Uy⟩ (seed 000 eq 4.3)
// to rounding, for random SPD M = AᵀA + I, and UᵀU = M.
func TestCholeskyCoords(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 3, 6} {
		a := randPoints(rng, n, n, 1)
		m := make([]float64, n*n)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				for k := 0; k < n; k++ {
					m[i*n+j] += a[k][i] * a[k][j]
				}
			}
			m[i*n+i]++
		}
		c, err := NewCholeskyCoords(m, n)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				s := 0.0
				for k := 0; k < n; k++ {
					s += c.U(k, i) * c.U(k, j)
				}
				algotest.Near(t, "(UᵀU)_ij", s, m[i*n+j], 1e-12*(1+math.Abs(m[i*n+j])))
				if j < i && c.U(i, j) != 0 {
					t.Fatalf("U not upper triangular: U[%d][%d] = %g", i, j, c.U(i, j))
				}
			}
		}
		w, z := make([]float64, n), make([]float64, n)
		for range 50 {
			x, y := randPoints(rng, 1, n, 2)[0], randPoints(rng, 1, n, 2)[0]
			got, want := dot(c.Map(x, w), c.Map(y, z)), c.Inner(x, y)
			algotest.Near(t, "⟨Ux,Uy⟩", got, want, 1e-12*(1+math.Abs(want)))
		}
	}
}

// TestEmbedProcrustes: the points rebuilt from K = XXᵀ are X rotated: the
// Procrustes Q is orthogonal (QᵀQ = I) and ‖X̂ − XQ‖ is at rounding (seed
// 000 §4.2.3, eqs 4.9–4.10); a known rotation is recovered.
func TestEmbedProcrustes(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct{ n, d int }{{3, 2}, {12, 2}, {20, 3}, {8, 5}} {
		x := randPoints(rng, tc.n, tc.d, 1)
		k := Gram(Linear{}, x)
		xh, err := Embed(k, tc.n, tc.d)
		if err != nil {
			t.Fatal(err)
		}
		q, err := Procrustes(xh, x)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < tc.d; i++ {
			for j := 0; j < tc.d; j++ {
				s := 0.0
				for r := 0; r < tc.d; r++ {
					s += q[r][i] * q[r][j]
				}
				want := 0.0
				if i == j {
					want = 1
				}
				algotest.Near(t, "(QᵀQ)_ij", s, want, 1e-12)
			}
		}
		worst := 0.0
		for i := range x {
			for c := 0; c < tc.d; c++ {
				s := 0.0
				for r := 0; r < tc.d; r++ {
					s += x[i][r] * q[r][c]
				}
				worst = math.Max(worst, math.Abs(xh[i][c]-s))
			}
		}
		if worst > 1e-10 {
			t.Errorf("n=%d d=%d: ‖X̂ − XQ‖∞ = %.3g", tc.n, tc.d, worst)
		}
	}
	// A known rotation R by 0.7 rad is recovered: b_i = Ra_i, so as rows
	// a = bR and Q = R.
	a := randPoints(rng, 6, 2, 1)
	c, s := math.Cos(0.7), math.Sin(0.7)
	b := make([][]float64, len(a))
	for i, p := range a {
		b[i] = []float64{c*p[0] - s*p[1], s*p[0] + c*p[1]}
	}
	q, err := Procrustes(a, b)
	if err != nil {
		t.Fatal(err)
	}
	algotest.Near(t, "Q00", q[0][0], c, 1e-12)
	algotest.Near(t, "Q10", q[1][0], s, 1e-12)
	algotest.Near(t, "Q01", q[0][1], -s, 1e-12)
}

// TestPolyMap: the monomials counted equal C(n+d−1, d) (the catalogue's
// (2,2) → 3, (3,2) → 6, (3,3) → 10, (5,4) → 70; and kernel-geometry's largest,
// (6,20) → 53130), and (xᵀy)^d = ⟨φ(x), φ(y)⟩
// to rounding; n = d = 2 gives (x₁², √2x₁x₂, x₂²) (eq 4.2).
func TestPolyMap(t *testing.T) {
	for _, c := range []struct{ n, d, want int }{{2, 2, 3}, {3, 2, 6}, {3, 3, 10}, {5, 4, 70}, {1, 7, 1}, {4, 0, 1}, {5, 20, 10626}, {6, 20, 53130}} {
		if got := PolyDim(c.n, c.d); got != float64(c.want) {
			t.Errorf("PolyDim(%d,%d) = %g, want %d", c.n, c.d, got, c.want)
		}
		p, err := NewPolyMap(c.n, c.d)
		if err != nil {
			t.Fatal(err)
		}
		if p.Dim() != c.want {
			t.Errorf("n=%d d=%d: %d monomials, want %d", c.n, c.d, p.Dim(), c.want)
		}
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for _, c := range []struct{ n, d int }{{2, 2}, {3, 5}, {5, 8}, {4, 12}} {
		p, _ := NewPolyMap(c.n, c.d)
		fx, fy := make([]float64, p.Dim()), make([]float64, p.Dim())
		for range 20 {
			x, y := randPoints(rng, 1, c.n, 0.6)[0], randPoints(rng, 1, c.n, 0.6)[0]
			want := powi(dot(x, y), c.d)
			got := dot(p.Map(x, fx), p.Map(y, fy))
			scale := powi(math.Sqrt(dot(x, x)*dot(y, y)), c.d) // |⟨φ,φ⟩| terms are bounded by ‖φ(x)‖‖φ(y)‖
			algotest.Near(t, "⟨φ(x),φ(y)⟩", got, want, 1e-13*scale)
		}
	}
	p, _ := NewPolyMap(2, 2)
	got := p.Map([]float64{3, 5}, make([]float64, 3))
	want := []float64{9, math.Sqrt2 * 15, 25}
	for i := range want {
		algotest.Near(t, "φ(3,5)", got[i], want[i], 1e-12)
	}
}

// TestGaussAngle: θ = arccos k against the catalogue's values (r/σ = 0.01 →
// 0.0100, 0.1 → 0.0999, 0.5 → 0.4897, 1 → 0.9191, 3 → 1.5597) and the
// chords (0.0100, 0.0999, 0.4848, 0.8871, 1.4063), computed from points in
// R³ at distance rσ; the truncated Taylor series (4.20) against the
// catalogue's errors at d = 0…6.
func TestGaussAngle(t *testing.T) {
	sigma := 0.7
	k := RBF{Gamma: 1 / (2 * sigma * sigma)}
	dir := []float64{2.0 / 3, 1.0 / 3, -2.0 / 3}
	x := []float64{0.3, -1, 0.5}
	for _, c := range []struct{ r, theta, chord float64 }{
		{0.01, 0.0100, 0.0100}, {0.1, 0.0999, 0.0999}, {0.5, 0.4897, 0.4848}, {1, 0.9191, 0.8871}, {3, 1.5597, 1.4063}} {
		y := make([]float64, 3)
		for i := range y {
			y[i] = x[i] + c.r*sigma*dir[i]
		}
		th, ch := GaussAngle(Eval(k, x, y), Eval(k, x, x), Eval(k, y, y))
		algotest.Near(t, "θ", th, c.theta, 5e-5)
		algotest.Near(t, "chord", ch, c.chord, 5e-5)
		algotest.Near(t, "θ closed form", th, math.Acos(math.Exp(-c.r*c.r/2)), 1e-7)
	}
	xs, ys := []float64{0.5, 0.2}, []float64{-0.3, 0.4}
	exact := Eval(RBF{Gamma: 0.5}, xs, ys)
	for d, want := range []float64{5.2e-2, 1.8e-3, 4.3e-5, 7.5e-7, 1.1e-8, 1.2e-10, 1.2e-12} {
		got := math.Abs(GaussTaylor(xs, ys, 1, d) - exact)
		if math.Abs(got-want) > 0.06*want {
			t.Errorf("Taylor error at d = %d: %.3g, want %.2g", d, got, want)
		}
	}
}

// TestRKHS: ‖f‖²_H kept by Add equals αᵀKα; the reproducing property f(x)
// = ⟨f, k(x,·)⟩_H holds to rounding with the inner product taken in the
// embedded coordinates; |f(x)| ≤ √k(x,x)·‖f‖_H; and for the linear kernel
// f = Σα_i⟨x_i,·⟩ = ⟨w,·⟩ has ‖f‖_H = ‖w‖ (seed 003 L387–397).
func TestRKHS(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, k := range []Kernel{RBF{Gamma: 0.5}, Poly{Degree: 3, Coef0: 1}, Laplace{Gamma: 1}} {
		r, err := NewRKHS(k, 15)
		if err != nil {
			t.Fatal(err)
		}
		for range 15 {
			if err := r.Add(randPoints(rng, 1, 2, 1.5)[0], rng.NormFloat64()); err != nil {
				t.Fatal(err)
			}
			n2 := r.Norm2()
			algotest.Near(t, k.String()+" ‖f‖²", n2, r.Norm2Gram(), 1e-12*(1+n2))
			if n2 < 0 {
				t.Fatalf("‖f‖² = %g < 0", n2)
			}
			for range 3 {
				x := randPoints(rng, 1, 2, 1.5)[0]
				f := r.Eval(x)
				got, err := r.Reproduce(x)
				if err != nil {
					t.Fatal(err)
				}
				algotest.Near(t, k.String()+" ⟨f,k(x,·)⟩", got, f, 1e-10*(1+math.Sqrt(n2*Eval(k, x, x))))
				if f*f > Eval(k, x, x)*n2*(1+1e-12)+1e-14 {
					t.Fatalf("|f(x)|² = %g > k(x,x)‖f‖² = %g", f*f, Eval(k, x, x)*n2)
				}
			}
		}
		if err := r.Add([]float64{0, 0}, 1); err == nil {
			t.Error("a 16th atom in room for 15 was accepted")
		}
	}
	r, _ := NewRKHS(Linear{}, 4)
	w := []float64{0, 0, 0}
	for range 4 {
		x, a := randPoints(rng, 1, 3, 1)[0], rng.NormFloat64()
		for i := range w {
			w[i] += a * x[i]
		}
		_ = r.Add(x, a)
	}
	algotest.Near(t, "‖f_w‖²_H", r.Norm2(), dot(w, w), 1e-12)
}

func TestGeometryValidation(t *testing.T) {
	_, err := NewCholeskyCoords([]float64{1, 2, 2, 1}, 2)
	algotest.WantParam(t, err, "m")
	_, err = NewCholeskyCoords([]float64{1, 2, 3, 1}, 2)
	algotest.WantParam(t, err, "m")
	_, err = NewCholeskyCoords([]float64{1}, 2)
	algotest.WantParam(t, err, "m")
	_, err = Embed([]float64{1}, 1, 2)
	algotest.WantParam(t, err, "d")
	_, err = Procrustes([][]float64{{1}}, nil)
	algotest.WantParam(t, err, "b")
	_, err = NewPolyMap(0, 2)
	algotest.WantParam(t, err, "n")
	_, err = NewPolyMap(8, 20)
	algotest.WantParam(t, err, "d")
	_, err = NewRKHS(nil, 3)
	algotest.WantParam(t, err, "k")
	_, err = NewRKHS(Linear{}, 0)
	algotest.WantParam(t, err, "max")
	_, err = NewBumps(0, -1, 1, 0.3)
	algotest.WantParam(t, err, "m")
	_, err = NewBumps(3, 1, 1, 0.3)
	algotest.WantParam(t, err, "hi")
	_, err = NewBumps(3, -1, 1, 0)
	algotest.WantParam(t, err, "s")
	_, err = NewBumps(3, -1, 1, 1e-300) // γ = 1/(2s²) overflows: φ(c) would be NaN
	algotest.WantParam(t, err, "s")
	_, err = NewWeightBLR(3, 0, 1)
	algotest.WantParam(t, err, "alpha")
	_, err = NewWeightBLR(3, 1, math.Inf(1))
	algotest.WantParam(t, err, "noise")
}

// TestWeightBLR: the weight-space posterior's predictive mean and variance
// (L1752 then φ_*ᵀμ, φ_*ᵀΣφ_*) equal eqs 4.20–4.21 with K = ΦΣ_wΦᵀ + σ²I,
// computed here densely as the function-space GP; and the induced kernel
// matrix ΦΦᵀ/α on N > M points has rank M (Remark 4.11): its eigenvalues
// beyond the M-th are below 1e-10·λ_max.
func TestWeightBLR(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	const m, n, alpha, noise = 6, 25, 2.0, 0.05
	bm, err := NewBumps(m, -1, 1, 0.3)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := NewWeightBLR(m, alpha, noise)
	phis := make([][]float64, n)
	y := make([]float64, n)
	for i := range phis {
		x := 2*rng.Float64() - 1
		phis[i] = bm.Map(x, make([]float64, m))
		y[i] = math.Sin(3*x) + 0.2*rng.NormFloat64()
		b.Observe(phis[i], y[i])
	}
	kern := b.Kernel()
	g := Gram(kern, phis)
	c := append([]float64(nil), g...)
	for i := 0; i < n; i++ {
		c[i*n+i] += noise
	}
	cc, err := NewCholeskyCoords(c, n) // C = UᵀU; C⁻¹v by two triangular solves
	if err != nil {
		t.Fatal(err)
	}
	solve := func(v []float64) []float64 { // U ᵀ z = v, U x = z
		z := append([]float64(nil), v...)
		for i := 0; i < n; i++ {
			for j := 0; j < i; j++ {
				z[i] -= cc.U(j, i) * z[j]
			}
			z[i] /= cc.U(i, i)
		}
		for i := n - 1; i >= 0; i-- {
			for j := i + 1; j < n; j++ {
				z[i] -= cc.U(i, j) * z[j]
			}
			z[i] /= cc.U(i, i)
		}
		return z
	}
	a := solve(y)
	for _, xs := range []float64{-1.2, -0.5, 0, 0.33, 0.9} {
		ps := bm.Map(xs, make([]float64, m))
		ks := make([]float64, n)
		for i := range ks {
			ks[i] = Eval(kern, phis[i], ps)
		}
		wantM := dot(ks, a)
		wantV := Eval(kern, ps, ps) - dot(ks, solve(ks))
		gotM, gotV, err := b.Predict(ps)
		if err != nil {
			t.Fatal(err)
		}
		algotest.Near(t, "mean", gotM, wantM, 1e-10)
		algotest.Near(t, "variance", gotV, wantV, 1e-10)
	}
	pc, err := NewPSDCheck(kern, phis, n)
	if err != nil {
		t.Fatal(err)
	}
	ev := pc.Eigenvalues()
	lo, hi := ev[n-m-1], ev[n-m]
	if lo > 1e-10*ev[n-1] || hi < 1e-6*ev[n-1] {
		t.Errorf("spectrum of ΦΦᵀ/α: λ_(M+1) = %.3g, λ_M = %.3g, λ_max = %.3g: want rank %d", lo, hi, ev[n-1], m)
	}
}

// TestWeightBLRPredictDoesNotAllocate: a chart of predictions, once the
// posterior is factorised, allocates nothing (it built a vector header a
// call before).
func TestWeightBLRPredictDoesNotAllocate(t *testing.T) {
	bm, _ := NewBumps(5, -1, 1, 0.4)
	b, _ := NewWeightBLR(5, 1, 0.1)
	phi := make([]float64, 5)
	for _, x := range []float64{-0.7, 0.1, 0.8} {
		b.Observe(bm.Map(x, phi), x*x)
	}
	if _, _, err := b.Predict(bm.Map(0.3, phi)); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(20, func() { _, _, _ = b.Predict(phi) }); n != 0 {
		t.Errorf("%v allocations a prediction", n)
	}
}
