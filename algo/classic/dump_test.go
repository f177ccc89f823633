package classic

import (
	"fmt"
	"os"
	"testing"
)

// TestDumpData writes oracleData's sets as CSV (x1, x2, label; %.17g)
// into the directory $CLASSIC_DUMP, for recomputing the scikit-learn
// references of classic_test.go; without it, it skips.
func TestDumpData(t *testing.T) {
	dir := os.Getenv("CLASSIC_DUMP")
	if dir == "" {
		t.Skip("set CLASSIC_DUMP to a directory to write the data for scikit-learn")
	}
	for _, name := range []string{"moons", "circles", "blobs3"} {
		x, y, qx, qy := oracleData(name)
		for _, part := range []struct {
			f string
			x [][]float64
			y []int
		}{{"train", x, y}, {"test", qx, qy}} {
			fh, err := os.Create(fmt.Sprintf("%s/%s_%s.csv", dir, name, part.f))
			if err != nil {
				t.Fatal(err)
			}
			for i, r := range part.x {
				fmt.Fprintf(fh, "%.17g,%.17g,%d\n", r[0], r[1], part.y[i])
			}
			if err := fh.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
}
