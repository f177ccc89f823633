package main

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestSmoke runs every case of the bench at small sizes, once, on the lab's
// side, so that the bench cannot rot under CI: each case must produce its
// row without error. The reference is exercised where a Python with NumPy
// is installed, on its one case that needs nothing else (the Cholesky);
// the full run (go run ./bench) is by hand.
func TestSmoke(t *testing.T) {
	var out bytes.Buffer
	if err := run(config{smoke: true, noRef: true}, &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	table := out.String()
	rows := strings.Count(table, "\n") - 2
	cases, err := makeCases(true, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if rows != len(cases) || strings.Contains(table, "error") {
		t.Fatalf("%d rows for %d cases:\n%s", rows, len(cases), table)
	}
	if _, err := exec.LookPath("python3"); err != nil {
		if _, err := os.Stat("/usr/bin/python3"); err != nil {
			t.Log("no python3: the reference is not exercised")
			return
		}
	}
	out.Reset()
	if err := run(config{smoke: true, only: []string{"Cholesky"}}, &out); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "no reference") {
		t.Logf("reference not run: %s", out.String())
		return
	}
	if strings.Contains(out.String(), "error") || !strings.Contains(out.String(), "numpy.linalg.cholesky") {
		t.Errorf("the reference's Cholesky:\n%s", out.String())
	}
}
