package ad

import (
	"fmt"
	"math"

	"github.com/thelab/lab/algo/stable"
)

// Op is an elementary operation of the scalar graph: the f_k of the chain
// s_k = f_k(s_{k−1}) (seed 000 §1.1, eq 1.2), generalised to a DAG whose
// nodes take one or two arguments (§1.4).
type Op uint8

// The elementary operations. Input and Const are leaves; Add … Pow take two
// arguments (a, b), the rest one (a).
const (
	Input Op = iota
	Const
	Add     // a + b
	Sub     // a − b
	Mul     // a · b
	Div     // a / b
	Pow     // a ^ b
	Neg     // −a
	Exp     // e^a
	Log     // ln a
	Sin     // sin a
	Cos     // cos a
	Tanh    // tanh a
	Sigmoid // 1/(1 + e^{−a})
	Relu    // max(a, 0)
	Abs     // |a|
	Sqrt    // √a
	numOps
)

var opNames = [numOps]string{
	Input: "input", Const: "const", Add: "+", Sub: "-", Mul: "*", Div: "/",
	Pow: "^", Neg: "neg", Exp: "exp", Log: "log", Sin: "sin", Cos: "cos",
	Tanh: "tanh", Sigmoid: "sigmoid", Relu: "relu", Abs: "abs", Sqrt: "sqrt",
}

// String is the operator's symbol (+ - * / ^) or its function name, as the
// expression parser reads it.
func (o Op) String() string {
	if o < numOps {
		return opNames[o]
	}
	return fmt.Sprintf("Op(%d)", int(o))
}

// Arity is the number of arguments: 0 for leaves, 2 for + − × / ^, else 1.
func (o Op) Arity() int {
	switch {
	case o == Input || o == Const:
		return 0
	case o >= Add && o <= Pow:
		return 2
	case o < numOps:
		return 1
	}
	return -1
}

// Kink reports whether the operation is not differentiable at a = 0
// (relu and abs), where the engine uses the derivative 0 and a
// finite-difference check must not be trusted.
func (o Op) Kink() bool { return o == Relu || o == Abs }

// functions maps the parser's function names to their operations.
var functions = map[string]Op{
	"exp": Exp, "log": Log, "ln": Log, "sin": Sin, "cos": Cos, "tanh": Tanh,
	"sigmoid": Sigmoid, "relu": Relu, "abs": Abs, "sqrt": Sqrt,
}

// Local holds an operation's value at its arguments and its local first and
// second derivatives: D1 = (∂f/∂a, ∂f/∂b) and D2 = (∂²f/∂a², ∂²f/∂a∂b,
// ∂²f/∂b²), the J_k and H_k of seed 000 §1.7 (eqs 1.17–1.18). Every mode of
// the package (dual numbers, hyper-duals, the tape, the four Hessian
// strategies) is built from these alone, so each rule is written once.
type Local struct {
	V  float64
	D1 [2]float64
	D2 [3]float64
}

// d2 returns ∂²f/∂s∂t for argument slots s, t ∈ {0, 1}.
func (l *Local) d2(s, t int) float64 { return l.D2[s+t] }

// local evaluates op at (a, b). constExp says, for Pow, that the exponent b
// does not depend on any input, so a negative base with an integer exponent
// is allowed and ∂/∂b is never needed. It returns a non-empty reason when
// the operation is undefined there or its value or first derivative is not
// finite; a non-finite second derivative (x^1.5 at 0) is kept and reported
// only by the second-order strategies that need it.
func local(op Op, a, b float64, constExp bool) (l Local, reason string) {
	switch op {
	case Add:
		l = Local{V: a + b, D1: [2]float64{1, 1}}
	case Sub:
		l = Local{V: a - b, D1: [2]float64{1, -1}}
	case Mul:
		l = Local{V: a * b, D1: [2]float64{b, a}, D2: [3]float64{0, 1, 0}}
	case Div:
		if b == 0 {
			return l, "division by zero"
		}
		l = Local{V: a / b, D1: [2]float64{1 / b, -a / (b * b)},
			D2: [3]float64{0, -1 / (b * b), 2 * a / (b * b * b)}}
	case Pow:
		return pow(a, b, constExp)
	case Neg:
		l = Local{V: -a, D1: [2]float64{-1}}
	case Exp:
		e := math.Exp(a)
		l = Local{V: e, D1: [2]float64{e}, D2: [3]float64{e}}
	case Log:
		if !(a > 0) {
			return l, fmt.Sprintf("log of a non-positive number (%g)", a)
		}
		l = Local{V: math.Log(a), D1: [2]float64{1 / a}, D2: [3]float64{-1 / (a * a)}}
	case Sin:
		s, c := math.Sincos(a)
		l = Local{V: s, D1: [2]float64{c}, D2: [3]float64{-s}}
	case Cos:
		s, c := math.Sincos(a)
		l = Local{V: c, D1: [2]float64{-s}, D2: [3]float64{-c}}
	case Tanh:
		t := math.Tanh(a)
		d := 1 - t*t
		l = Local{V: t, D1: [2]float64{d}, D2: [3]float64{-2 * t * d}}
	case Sigmoid:
		s := stable.Sigmoid(a)
		d := s * (1 - s)
		l = Local{V: s, D1: [2]float64{d}, D2: [3]float64{d * (1 - 2*s)}}
	case Relu:
		if a > 0 {
			l = Local{V: a, D1: [2]float64{1}}
		}
	case Abs:
		switch {
		case a > 0:
			l = Local{V: a, D1: [2]float64{1}}
		case a < 0:
			l = Local{V: -a, D1: [2]float64{-1}}
		}
	case Sqrt:
		if a < 0 {
			return l, fmt.Sprintf("square root of a negative number (%g)", a)
		}
		if a == 0 {
			return l, "square root at 0 (its derivative is infinite)"
		}
		r := math.Sqrt(a)
		l = Local{V: r, D1: [2]float64{0.5 / r}, D2: [3]float64{-0.25 / (a * r)}}
	default:
		return l, fmt.Sprintf("%v is not an operation on values", op)
	}
	if !finite(l.V) {
		return l, fmt.Sprintf("%v overflows (value %g)", op, l.V)
	}
	if !finite(l.D1[0]) || !finite(l.D1[1]) {
		return l, fmt.Sprintf("%v has an infinite derivative here", op)
	}
	return l, ""
}

// pow is a^b. With a constant exponent: a^b = exp(b ln a) needs a > 0 unless
// b is an integer; 0^b needs b ≥ 0 (b < 0 divides by zero) and an infinite
// first derivative (0 < b < 1) is refused by local. With a variable exponent
// a > 0 is required: ∂(a^b)/∂b = a^b ln a.
func pow(a, b float64, constExp bool) (l Local, reason string) {
	if !constExp && !(a > 0) {
		return l, fmt.Sprintf("a power with a variable exponent needs a base > 0 (base %g)", a)
	}
	if a < 0 && b != math.Trunc(b) {
		return l, fmt.Sprintf("negative base %g to the non-integer power %g", a, b)
	}
	if a == 0 && b < 0 {
		return l, "division by zero (0 to a negative power)"
	}
	switch b {
	case 0:
		l = Local{V: 1}
	case 1:
		l = Local{V: a, D1: [2]float64{1}}
	case 2:
		l = Local{V: a * a, D1: [2]float64{2 * a}, D2: [3]float64{2}}
	default:
		p2 := math.Pow(a, b-2)
		l = Local{V: p2 * a * a, D1: [2]float64{b * p2 * a}, D2: [3]float64{b * (b - 1) * p2}}
		if a == 0 { // 0^(b−2) may be +Inf; the products above are then NaN
			l.V = 0
			l.D1[0] = 0
			switch {
			case b < 1:
				l.D1[0] = math.Inf(1)
			case b < 2:
				l.D2[0] = math.Inf(1)
			case b == 2:
				l.D2[0] = 2
			default:
				l.D2[0] = 0
			}
		}
	}
	if !constExp { // a > 0 here
		ln := math.Log(a)
		l.D1[1] = l.V * ln
		l.D2[1] = math.Pow(a, b-1) * (1 + b*ln)
		l.D2[2] = l.V * ln * ln
	}
	if !finite(l.V) {
		return l, fmt.Sprintf("^ overflows (value %g)", l.V)
	}
	if !finite(l.D1[0]) || !finite(l.D1[1]) {
		return l, "^ has an infinite derivative here"
	}
	return l, ""
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
