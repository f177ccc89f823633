package divergence

import "math"

// StepSequence is Example 1.9 (seed 002 L457–473): p = U(0, 1) against
//
//	q_n(x) = e^{−n} on [0, 1/n],   c_n on (1/n, 1],   n > 1,
//
// a density that agrees with p ever more closely in L1 while its KL from p
// tends to 1, not 0: q_n → p in L1 but not in KL (Remark 1.12).
type StepSequence struct{ N float64 }

// C is c_n = (n − e^{−n})/(n − 1), which makes q_n integrate to one (1.33).
func (s StepSequence) C() float64 { return (s.N - math.Exp(-s.N)) / (s.N - 1) }

// L1 is ∫|p − q_n| = |e^{−n} − 1|/n + (n − 1)|c_n − 1|/n (1.34).
func (s StepSequence) L1() float64 {
	n := s.N
	return math.Abs(math.Exp(-n)-1)/n + (n-1)*math.Abs(s.C()-1)/n
}

// KL is KL(p‖q_n) = 1 − ((n − 1)/n) log c_n (1.35); it tends to 1.
func (s StepSequence) KL() float64 { return 1 - (s.N-1)/s.N*math.Log(s.C()) }

// Q is the density q_n(x) (zero outside [0, 1]).
func (s StepSequence) Q(x float64) float64 {
	switch {
	case x < 0 || x > 1:
		return 0
	case x <= 1/s.N:
		return math.Exp(-s.N)
	}
	return s.C()
}

// LogQ is log q_n(x); on [0, 1/n] it is −n exactly, even where e^{−n}
// underflows.
func (s StepSequence) LogQ(x float64) float64 {
	switch {
	case x < 0 || x > 1:
		return math.Inf(-1)
	case x <= 1/s.N:
		return -s.N
	}
	return math.Log(s.C())
}

// Breaks are the points where q_n jumps, for quadrature.
func (s StepSequence) Breaks() []float64 { return []float64{0, 1 / s.N, 1} }

// UniformPDF and LogUniformPDF are the density of p = U(0, 1).
func UniformPDF(x float64) float64 {
	if x < 0 || x > 1 {
		return 0
	}
	return 1
}

// LogUniformPDF is log of UniformPDF.
func LogUniformPDF(x float64) float64 {
	if x < 0 || x > 1 {
		return math.Inf(-1)
	}
	return 0
}

// BernoulliSequence is Example 1.10 (seed 002 L477–483): p_ε = (1 − ε, ε)
// against q_ε = (1 − ε², ε²). As ε → 0 the KL tends to 0 but χ² tends to 1:
// the pair converges in KL and not in χ² (Remark 1.12).
type BernoulliSequence struct{ Eps float64 }

// P and Q are the two distributions.
func (b BernoulliSequence) P() []float64 { return []float64{1 - b.Eps, b.Eps} }

// Q is q_ε = (1 − ε², ε²).
func (b BernoulliSequence) Q() []float64 { return []float64{1 - b.Eps*b.Eps, b.Eps * b.Eps} }

// Chi2 is χ²(p_ε‖q_ε) = (ε² − ε)²/(1 − ε²) + (1 − ε)² (1.36).
func (b BernoulliSequence) Chi2() float64 {
	e := b.Eps
	return (e*e-e)*(e*e-e)/(1-e*e) + (1-e)*(1-e)
}

// KL is KL(p_ε‖q_ε) = (1 − ε) log(1/(1 + ε)) + ε log(1/ε) (1.37).
func (b BernoulliSequence) KL() float64 {
	e := b.Eps
	return -(1-e)*math.Log1p(e) - e*math.Log(e)
}
