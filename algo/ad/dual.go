package ad

import "fmt"

// Dual is a dual number V + D ε with ε² = 0 (seed 000 §1.7.1, eq 1.19):
// (a + bε)(c + dε) = ac + (ad + bc)ε, and f(a + bε) = f(a) + b f′(a) ε
// (eq 1.20, the printed "ε ≥ 2 = 0" meaning εⁿ = 0 for n ≥ 2). Evaluating a
// program on duals seeded with D = v carries the directional derivative
// J·v along with the value: forward mode.
type Dual struct{ V, D float64 }

// HyperDual is V + E1 ε₁ + E2 ε₂ + E12 ε₁ε₂ with ε₁² = ε₂² = 0 and
// ε₁ε₂ ≠ 0: a dual number whose parts are dual numbers, Dual(Dual(V|E2) |
// Dual(E1|E12)). Seeded with E1 = v, E2 = w it carries wᵀ∇²f v in E12: the
// forward-on-forward strategy of §1.7.2 (eqs 1.21–1.23). Keeping the two ε
// distinct is what makes E12 the mixed second derivative (catalogue §1.7,
// "must get right").
type HyperDual struct{ V, E1, E2, E12 float64 }

// ApplyDual evaluates op on dual arguments: the value f(a, b) and the
// tangent ∂f/∂a·a.D + ∂f/∂b·b.D. b is ignored for one-argument operations.
// A Pow's exponent is treated as variable (base > 0) unless b.D = 0.
func ApplyDual(op Op, a, b Dual) (Dual, error) {
	if err := checkOp(op); err != nil {
		return Dual{}, err
	}
	l, why := local(op, a.V, b.V, b.D == 0)
	if why != "" {
		return Dual{}, fmt.Errorf("%v: %s", op, why)
	}
	return Dual{l.V, l.D1[0]*a.D + l.D1[1]*b.D}, nil
}

// ApplyHyperDual evaluates op on hyper-dual arguments. With the chain rule
// to second order, for arguments u = (a, b):
//
//	E1  = Σ_s ∂_s f · u_s.E1          E2 = Σ_s ∂_s f · u_s.E2
//	E12 = Σ_s ∂_s f · u_s.E12 + Σ_{s,t} ∂²_{st} f · u_s.E1 · u_t.E2
//
// (eq 1.22: t₂ = Dual(J₂|H₂ⱼ) t₁). b is ignored for one-argument
// operations; a Pow's exponent is variable unless all its ε parts are 0.
func ApplyHyperDual(op Op, a, b HyperDual) (HyperDual, error) {
	if err := checkOp(op); err != nil {
		return HyperDual{}, err
	}
	l, why := local(op, a.V, b.V, b.E1 == 0 && b.E2 == 0 && b.E12 == 0)
	if why != "" {
		return HyperDual{}, fmt.Errorf("%v: %s", op, why)
	}
	u := [2]HyperDual{a, b}
	var r HyperDual
	r.V = l.V
	for s := range op.Arity() {
		r.E1 += l.D1[s] * u[s].E1
		r.E2 += l.D1[s] * u[s].E2
		r.E12 += l.D1[s] * u[s].E12
		for t := range op.Arity() {
			if d := l.d2(s, t); d != 0 {
				r.E12 += d * u[s].E1 * u[t].E2
			}
		}
	}
	return r, nil
}

func checkOp(op Op) error {
	if op.Arity() < 1 {
		return fmt.Errorf("%v is not an operation on values", op)
	}
	return nil
}
