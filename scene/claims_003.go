package scene

import (
	"fmt"
	"math"
	"strings"

	"github.com/thelab/lab/sims"
)

// Claims of the scenes of seed 003 (kernels, SVMs, Gaussian processes).
func init() {
	register(map[string]Claim{
		"kernel-perceptron-ellipse": {Steps: 600, Check: func(r []Result) error {
			return all(
				c3Ran(r[0]), // still cycling: neither converged nor stopped
				above(r[0], "mistakes", 200),
				below(r[0], "accuracy", 0.7),
				converged(r[1]),
				below(r[1], "mistakes", 18.5), above(r[1], "mistakes", 17.5),
				above(r[1], "accuracy", 0.999),
				c3Text(r[0], "✓ primal perceptron"),
				c3Text(r[1], "✓ primal perceptron"),
			)
		}},
		"gram-cauchy-schwarz": {Steps: 58, Check: func(r []Result) error {
			return all(
				above(r[0], "psd", 0.5), below(r[0], "cs_excess", 1e-12),
				above(r[0], "lambda_min", -1e-10),
				below(r[1], "cs_excess", 1e-12), below(r[1], "lambda_min", -1),
				above(r[2], "cs_excess", 0.5), below(r[2], "lambda_min", -1),
				below(r[1], "psd", 0.5), below(r[2], "psd", 0.5),
			)
		}},
		"gram-infinite-dimension": {Steps: 58, Check: func(r []Result) error {
			const title, ratio = "λ_min/λ_max as points arrive", "λ_min/λ_max"
			return all(
				c3DropsAt(r[0], title, ratio, 1e-12, 4),
				c3DropsAt(r[1], title, ratio, 1e-12, 7),
				c3DropsAt(r[2], title, ratio, 1e-12, 0),
				above(r[2], "n", 59), above(r[2], "lambda_min", 1e-7),
			)
		}},
		"kernel-pca-circles": {Steps: 100, Check: func(r []Result) error {
			const title = "projection on components 1, 2"
			return all(
				converged(r[0]), converged(r[1]), converged(r[2]),
				above(r[0], "explained", 1-1e-9),
				c3SplitBelow(r[0], title, -0.2),
				c3SplitAbove(r[1], title, 0.2),
				c3SplitBelow(r[2], title, -0.1),
			)
		}},
		"svm-strong-duality": {Steps: 400, Check: func(r []Result) error {
			return all(
				c3AtLeast(r[0], "best", r[0], "D*"),
				below(r[0], "rel_gap", 5e-5),
				converged(r[1]),
				above(r[1], "gap", 0),
				c3GapBelow(r[1], 2e-4),
			)
		}},
		"svm-hard-margin-kernel": {Steps: 1000, Check: func(r []Result) error {
			return all(
				diverged(r[0]),
				above(r[0], "dual", 1000),
				below(r[0], "accuracy", 0.9),
				converged(r[1]),
				above(r[1], "accuracy", 0.999),
				below(r[1], "gap", 0.1),
			)
		}},
		"svm-soft-margin-c": {Steps: 1000, Check: func(r []Result) error {
			return all(
				converged(r[0]), converged(r[1]),
				above(r[0], "sv", 80),
				below(r[1], "sv", 15),
				above(r[1], "accuracy", 0.999),
				ratio(r[0], r[1], "sv", 5),
			)
		}},
		"svm-sgd-vs-subgradient": {Steps: 3000, Check: func(r []Result) error {
			return all(
				below(r[0], "rel_gap", 0.05),
				above(r[0], "rel_gap", 1e-3),
				below(r[1], "rel_gap", 1e-6),
			)
		}},
		"gp-blr-band": {Steps: 30, Check: func(r []Result) error {
			return all(
				below(r[0], "gp_diff", 1e-10),
				c3BandBelow(r[0], "BLR: posterior lines", 0.1),
				c3BandBelow(r[0], "GP, k = (1+xx')/α: same", 0.1),
				above(r[1], "max_sd", 0.9),
			)
		}},
		"gp-order-independent": {Steps: 20, Check: func(r []Result) error {
			const title = "posterior σ over the x range"
			return all(
				c3Close(r[0], "log_ml", r[1], "log_ml", 1e-9),
				c3Close(r[0], "mean_sd", r[1], "mean_sd", 1e-9),
				c3Close(r[0], "max_sd", r[1], "max_sd", 1e-9),
				c3NonIncreasing(r[0], title, "mean σ"), c3NonIncreasing(r[1], title, "mean σ"),
				c3NonIncreasing(r[0], title, "max σ"), c3NonIncreasing(r[1], title, "max σ"),
				c3Differ(r[0], r[1], title, "mean σ", 10, 0.05),
			)
		}},
		"gp-fit-local-optima": {Steps: 300, Check: func(r []Result) error {
			return all(
				converged(r[0]), converged(r[1]),
				above(r[0], "lengthscale", 0.2), below(r[0], "lengthscale", 0.28),
				above(r[0], "noise", 0.09), below(r[0], "noise", 0.13),
				above(r[0], "log_ml", -21), below(r[0], "log_ml", -19.5),
				below(r[1], "lengthscale", 1e-3),
				above(r[1], "log_ml", -46), below(r[1], "log_ml", -42),
			)
		}},
	})
}

// c3Ran checks that the pane ran all its steps: it neither converged nor
// stopped with an error.
func c3Ran(r Result) error {
	if r.Err != nil {
		return fmt.Errorf("%s stopped after %d steps (%v)", r.Frame.Sim, r.Steps, r.Err)
	}
	return nil
}

// c3Text checks that one of the pane's text lines contains s.
func c3Text(r Result, s string) error {
	for _, t := range r.Frame.Text {
		if strings.Contains(t, s) {
			return nil
		}
	}
	return fmt.Errorf("%s's text has no %q", r.Frame.Sim, s)
}

// c3Canvas is the pane's canvas chart of that title.
func c3Canvas(r Result, title string) (sims.CanvasChart, error) {
	for _, c := range r.Frame.Charts {
		if cc, ok := c.(sims.CanvasChart); ok && cc.Title == title {
			return cc, nil
		}
	}
	return sims.CanvasChart{}, fmt.Errorf("%s has no chart %q", r.Frame.Sim, title)
}

// c3Split is how well a threshold on the x coordinate of the first point
// set of the chart splits classes 0 and 1: the gap between them over the
// points' range, positive when a threshold separates them, negative (the
// overlap) when none does.
func c3Split(r Result, title string) (float64, error) {
	cc, err := c3Canvas(r, title)
	if err != nil {
		return 0, err
	}
	if len(cc.Points) == 0 || len(cc.Points[0].Classes) != len(cc.Points[0].X) {
		return 0, fmt.Errorf("%s's chart %q has no classed points", r.Frame.Sim, title)
	}
	ps := cc.Points[0]
	lo := [2]float64{math.Inf(1), math.Inf(1)}
	hi := [2]float64{math.Inf(-1), math.Inf(-1)}
	for i, x := range ps.X {
		k := ps.Classes[i]
		if k != 0 && k != 1 {
			return 0, fmt.Errorf("%s's chart %q: class %d", r.Frame.Sim, title, k)
		}
		lo[k], hi[k] = math.Min(lo[k], x), math.Max(hi[k], x)
	}
	span := math.Max(hi[0], hi[1]) - math.Min(lo[0], lo[1])
	return math.Max(lo[1]-hi[0], lo[0]-hi[1]) / span, nil
}

// c3SplitAbove and c3SplitBelow check c3Split against x.
func c3SplitAbove(r Result, title string, x float64) error {
	v, err := c3Split(r, title)
	if err == nil && !(v > x) {
		err = fmt.Errorf("%s's classes on the first axis of %q: gap %g, want above %g", r.Frame.Sim, title, v, x)
	}
	return err
}

func c3SplitBelow(r Result, title string, x float64) error {
	v, err := c3Split(r, title)
	if err == nil && !(v < x) {
		err = fmt.Errorf("%s's classes on the first axis of %q: gap %g, want below %g", r.Frame.Sim, title, v, x)
	}
	return err
}

// c3BandSD is the largest half-width over 2 of the first band of the chart:
// the largest posterior σ of a mean ± 2σ band.
func c3BandSD(r Result, title string) (float64, error) {
	cc, err := c3Canvas(r, title)
	if err != nil {
		return 0, err
	}
	if len(cc.Bands) == 0 || len(cc.Bands[0].Hi) == 0 {
		return 0, fmt.Errorf("%s's chart %q has no band", r.Frame.Sim, title)
	}
	b, sd := cc.Bands[0], 0.0
	for i := range b.Hi {
		sd = math.Max(sd, (b.Hi[i]-b.Lo[i])/4)
	}
	return sd, nil
}

// c3Close checks that a's metric ma and b's mb agree to within rel of |b's|.
func c3Close(a Result, ma string, b Result, mb string, rel float64) error {
	va, vb, err := metrics2(a, ma, b, mb)
	if err != nil {
		return err
	}
	if !(math.Abs(va-vb) <= rel*math.Abs(vb)) {
		return fmt.Errorf("%s's %s = %g and %s's %s = %g differ by more than %g relative", a.Frame.Sim, ma, va, b.Frame.Sim, mb, vb, rel)
	}
	return nil
}

// c3AtLeast checks that a's metric ma is at least b's mb.
func c3AtLeast(a Result, ma string, b Result, mb string) error {
	va, vb, err := metrics2(a, ma, b, mb)
	if err != nil {
		return err
	}
	if !(va >= vb) {
		return fmt.Errorf("%s's %s = %g, want at least %s's %s = %g", a.Frame.Sim, ma, va, b.Frame.Sim, mb, vb)
	}
	return nil
}

// c3GapBelow checks svm's duality gap against rel times its dual objective.
func c3GapBelow(r Result, rel float64) error {
	g, d, err := metrics2(r, "gap", r, "dual")
	if err != nil {
		return err
	}
	if !(g < rel*math.Abs(d)) {
		return fmt.Errorf("%s's gap = %g, want below %g × dual %g", r.Frame.Sim, g, rel, d)
	}
	return nil
}

// c3BandBelow checks c3BandSD against x.
func c3BandBelow(r Result, title string, x float64) error {
	v, err := c3BandSD(r, title)
	if err == nil && !(v < x) {
		err = fmt.Errorf("%s's band in %q: largest σ %g, want below %g", r.Frame.Sim, title, v, x)
	}
	return err
}

// c3Series is the named series of the pane's line chart of that title,
// with the x of its first point and the x step between points.
func c3Series(r Result, title, name string) (y []float64, x0, dx float64, err error) {
	for _, c := range r.Frame.Charts {
		lc, ok := c.(sims.LineChart)
		if !ok || lc.Title != title {
			continue
		}
		long := 0
		for _, s := range lc.Series {
			long = max(long, len(s.Y))
		}
		for _, s := range lc.Series {
			if s.Name == name {
				if long > 1 {
					dx = (lc.X1 - lc.X0) / float64(long-1)
				}
				return s.Y, lc.X0, dx, nil
			}
		}
	}
	return nil, 0, 0, fmt.Errorf("%s has no series %q in a chart %q", r.Frame.Sim, name, title)
}

// c3DropsAt checks that the series first falls to |y| ≤ eps at x = at
// (at = 0: never).
func c3DropsAt(r Result, title, name string, eps, at float64) error {
	y, x0, dx, err := c3Series(r, title, name)
	if err != nil {
		return err
	}
	got := 0.0
	for i, v := range y {
		if math.Abs(v) <= eps {
			got = x0 + float64(i)*dx
			break
		}
	}
	if got != at {
		return fmt.Errorf("%s's %s first falls to %g at x = %g, want %g (0: never)", r.Frame.Sim, name, eps, got, at)
	}
	return nil
}

// c3NonIncreasing checks that the series never rises (beyond rounding).
func c3NonIncreasing(r Result, title, name string) error {
	y, _, _, err := c3Series(r, title, name)
	if err != nil {
		return err
	}
	for i := 1; i < len(y); i++ {
		if y[i] > y[i-1]*(1+1e-12) {
			return fmt.Errorf("%s's %s rises at point %d: %g after %g", r.Frame.Sim, name, i, y[i], y[i-1])
		}
	}
	return nil
}

// c3Differ checks that two panes' series differ by more than d at index i.
func c3Differ(a, b Result, title, name string, i int, d float64) error {
	ya, _, _, err := c3Series(a, title, name)
	if err != nil {
		return err
	}
	yb, _, _, err := c3Series(b, title, name)
	if err != nil {
		return err
	}
	if i >= len(ya) || i >= len(yb) {
		return fmt.Errorf("%s's %s has no point %d", a.Frame.Sim, name, i)
	}
	if !(math.Abs(ya[i]-yb[i]) > d) {
		return fmt.Errorf("%s's %s at point %d: %g and %g, want them more than %g apart", a.Frame.Sim, name, i, ya[i], yb[i], d)
	}
	return nil
}
