package scene

import (
	"fmt"
	"math"
)

// Claims of the scenes of seed 004 (random features).
func init() {
	register(map[string]Claim{
		"bochner-gaussian-laplace": {Steps: 5000, Check: func(r []Result) error {
			return all(
				absBelow004(r[0], "error", 0.02), absBelow004(r[0], "z", 4),
				absBelow004(r[1], "error", 0.02), absBelow004(r[1], "z", 4),
			)
		}},
		"softmax-trig-negatives": {Steps: 1024, Check: func(r []Result) error {
			return all(
				below(r[0], "negatives_trig", 0.5),
				above(r[1], "negatives_trig", 200),
				ratio(r[1], r[0], "err_trig", 3),
			)
		}},
		"orf-halves-error": {Steps: 2048, Check: func(r []Result) error {
			return all(
				ratioWithin(r[0], "err_iid", "err_orthogonal", 1.3),
				ratioWithin(r[1], "err_iid", "err_orthogonal", 1.3),
			)
		}},
	})
}

// absBelow004 checks that |r's metric| is below x.
func absBelow004(r Result, metric string, x float64) error {
	v, err := r.Metric(metric)
	if err == nil && !(math.Abs(v) < x) {
		return fmt.Errorf("%s's |%s| = %g, want below %g", r.Frame.Sim, metric, math.Abs(v), x)
	}
	return err
}
