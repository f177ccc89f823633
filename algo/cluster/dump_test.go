package cluster

import (
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
)

// oracleN is the size of the sets the scikit-learn references were
// computed on.
const oracleN = 300

// oracleData is set s drawn at oracleN points from the fixed seed of the
// scikit-learn references.
func oracleData(t testing.TB, s Set) ([][]float64, []int) {
	t.Helper()
	x, y, err := Generate(s, rand.New(rand.NewPCG(29, 2)), oracleN)
	if err != nil {
		t.Fatal(err)
	}
	return x, y
}

// TestDumpData writes the oracle sets as CSV (x1, x2, label; %.17g) into
// the directory $CLUSTER_DUMP, for recomputing the scikit-learn references
// of cluster_test.go; without it, it skips.
func TestDumpData(t *testing.T) {
	dir := os.Getenv("CLUSTER_DUMP")
	if dir == "" {
		t.Skip("set CLUSTER_DUMP to a directory to write the data for scikit-learn")
	}
	for _, s := range Sets {
		x, y := oracleData(t, s)
		fh, err := os.Create(fmt.Sprintf("%s/%s.csv", dir, s))
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range x {
			fmt.Fprintf(fh, "%.17g,%.17g,%d\n", r[0], r[1], y[i])
		}
		if err := fh.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
