package nnsim

import (
	"math"
	"testing"

	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/simtest"
)

// TestUniversalReportsCurrentNet checks issue 28.1 on universal: at every
// step, from step 0, sup_trained (frame and result) and the loss curve's
// last point, at that step, are those of the network as it is, evaluated
// here by hand, g(x) = b₂ + Σ_j w₂ⱼ ReLU(w₁ⱼx + b₁ⱼ). They were the
// untrained network's sup error until step 10 (refreshed every 10 steps)
// and the loss of θ before the step's update, drawn at the step.
func TestUniversalReportsCurrentNet(t *testing.T) {
	s := simtest.Build(t, Universal, nil, 1, nil).(*universalSim)
	f := targets1D[s.target].f
	g := func(x float64) float64 {
		l1, l2 := s.net.Layers[0], s.net.Layers[1]
		y := l2.B.Data[0]
		for j := range s.k {
			y += l2.W.Data[j] * math.Max(0, l1.W.Data[j]*x+l1.B.Data[j])
		}
		return y
	}
	for k := range 25 {
		if k > 0 {
			simtest.Run(t, s, 1)
		}
		sup := 0.0
		for _, x := range s.gridX {
			sup = math.Max(sup, math.Abs(g(x)-f(x)))
		}
		loss := 0.0
		for i := range unPoints {
			x := -1 + 2*float64(i)/(unPoints-1)
			loss += 0.5 * (g(x) - f(x)) * (g(x) - f(x))
		}
		loss /= unPoints
		fr := s.Frame()
		if got := simtest.Metric(t, fr, "sup_trained"); math.Abs(got-sup) > 1e-12 {
			t.Fatalf("step %d: sup_trained %g, the current net's %g", k, got, sup)
		}
		if got := s.Result()["sup_trained"].(float64); math.Abs(got-sup) > 1e-12 {
			t.Fatalf("step %d: result's sup_trained %g, the current net's %g", k, got, sup)
		}
		c := fr.Charts[2].(sims.LineChart)
		y := c.Series[0].Y
		if len(y) == 0 || c.X1 != float64(k) || math.Abs(y[len(y)-1]-loss) > 1e-12*loss {
			t.Fatalf("step %d: the loss curve ends at step %g with %v, the current net's loss is %g", k, c.X1, y[max(len(y)-1, 0):], loss)
		}
	}
}
