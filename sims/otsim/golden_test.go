package otsim

import (
	"testing"

	"github.com/thelab/lab/tui/tuitest"
)

// TestGoldenFrames pins each sim's pane, as `lab run SIM --frames` draws
// it in monochrome at 100×30, after a few steps from seed 1: the
// defaults, and the settings whose pictures differ (Hungarian, the plain
// stall, the 2-D barycenter, boxes pulled apart). Run with -update to
// rewrite testdata/TestGoldenFrames after an intended change.
func TestGoldenFrames(t *testing.T) {
	tuitest.Run(t, tuitest.Frames, []tuitest.Case{
		{Name: "assignment", Spec: Assignment, Steps: 12},
		{Name: "assignment-hungarian", Spec: Assignment, Set: map[string]string{"preset": "gaussians", "n": "12"}, Steps: 40},
		{Name: "ot-lp", Spec: LP, Steps: 25},
		{Name: "ot-1d", Spec: OneD, Steps: 1},
		{Name: "ot-gauss", Spec: Gauss, Steps: 30},
		{Name: "sinkhorn", Spec: Sinkhorn, Steps: 12},
		{Name: "sinkhorn-plain-stall", Spec: Sinkhorn, Set: map[string]string{"preset": "three", "eps": "0.001", "domain": "plain"}, Steps: 100},
		{Name: "distances", Spec: Distances, Steps: 60},
		{Name: "distances-boxes", Spec: Distances, Set: map[string]string{"pair": "boxes"}, Steps: 60},
		{Name: "ot-geodesic", Spec: Geodesic, Steps: 40},
		{Name: "barycenter", Spec: Barycenter, Steps: 30},
		{Name: "barycenter-shapes", Spec: Barycenter, Set: map[string]string{"input": "shapes"}, Steps: 30},
	})
}
