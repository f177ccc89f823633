package privacy

import (
	"math"
)

// Method is how the privacy spent by the sampled Gaussian mechanism is
// turned into (ε, δ)-DP.
type Method string

const (
	// PRV is the numerical accountant of the privacy loss distribution (PLD,
	// Gopi, Lee & Wutschitz 2021; Koskela, Jälkö & Honkela 2020): exact up
	// to a stated discretisation error. Its value is the upper end of the
	// bracket PLD.Epsilon returns, a guaranteed bound.
	PRV Method = "prv"
	// RDPBalle converts the Rényi DP of Accountant by Balle et al. (2020,
	// Thm 21; Canonne, Kamath & Steinke 2020): what Opacus and Google's
	// dp_accounting use today.
	RDPBalle Method = "rdp-balle"
	// RDPMironov converts it by Mironov (2017, Prop. 3): Abadi et al.'s
	// moments accountant and TF Privacy's compute_dp_sgd_privacy.
	RDPMironov Method = "rdp-mironov"
)

func (m Method) String() string { return string(m) }

// MironovEpsilon is Mironov's (2017, Prop. 3) conversion of (α, ρ)-RDP to
// (ε, δ)-DP at one order: ε = ρ + log(1/δ)/(α − 1).
func MironovEpsilon(alpha, rho, delta float64) float64 {
	return rho + math.Log(1/delta)/(alpha-1)
}

// BalleEpsilon is the conversion of Balle, Barthe, Gaboardi, Hsu & Sato
// (2020, "Hypothesis testing interpretations and Rényi differential
// privacy", Thm 21) at one order α > 1:
//
//	ε = ρ + log((α − 1)/α) − (log δ + log α)/(α − 1),
//
// below Mironov's by log(α/(α − 1)) + log(α)/(α − 1) > 0 at every order.
// It can be negative for a small ρ; (ε, δ)-DP for ε < 0 implies (0, δ)-DP,
// so callers clamp at 0.
func BalleEpsilon(alpha, rho, delta float64) float64 {
	return rho + math.Log1p(-1/alpha) - (math.Log(delta)+math.Log(alpha))/(alpha-1)
}

// EpsilonBy converts the total to (eps, delta)-DP by the RDP conversion
// m (RDPMironov or RDPBalle; PRV, which is not an RDP conversion, gives
// Balle's) and returns the order that attains the minimum. Nothing spent
// gives eps = 0.
func (a *Accountant) EpsilonBy(m Method, delta float64) (eps, order float64) {
	return a.RepeatedBy(m, 1, delta)
}

// RepeatedBy is EpsilonBy for k repetitions of everything composed so far.
func (a *Accountant) RepeatedBy(m Method, k int, delta float64) (eps, order float64) {
	if m == RDPMironov {
		return a.Repeated(k, delta)
	}
	return a.convert(k, delta, BalleEpsilon)
}

// PRVEta is the precision of SGMEpsilonBy's PLD: the Hoeffding term η of
// its bracket at the nominal tail (Opacus's default ε error, 0.01).
const PRVEta = 0.01

// SGMEpsilonBy is eps(δ) after steps steps of the sampled Gaussian
// mechanism by the accountant m: for PRV the upper end of the PLD's
// bracket on a grid sized for these steps at precision PRVEta (+Inf for a
// σ of 0, 0 for no steps).
func SGMEpsilonBy(m Method, q, sigma float64, steps int, delta float64) float64 {
	if m != PRV {
		a := NewAccountant()
		a.ComposeSGM(q, sigma, 1)
		e, _ := a.RepeatedBy(m, steps, delta)
		return e
	}
	switch {
	case steps <= 0 || q == 0:
		return 0
	case sigma == 0:
		return math.Inf(1)
	}
	b, err := PLDEpsilon(q, sigma, steps, delta, PRVEta)
	if err != nil {
		return math.Inf(1)
	}
	return b.Hi
}
