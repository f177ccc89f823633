package stable

import "math"

// XLogY returns x log y with the convention 0 log y = 0 for every y ≥ 0 (so
// 0 log 0 = 0, as in an entropy or a likelihood with a zero count).
func XLogY(x, y float64) float64 {
	if x == 0 {
		return 0
	}
	return x * math.Log(y)
}
