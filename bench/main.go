// Command bench measures the lab's engines and sims against the library a
// user would otherwise call, side by side in one run: it generates every
// data set once (seeded, written as CSV for the reference), then for each
// case runs the lab's side in this process and the reference in one
// long-lived Python process (bench/reference.py: scikit-learn, NumPy),
// alternating the two, several times, and prints the medians of their CPU
// times and the ratios lab/reference as a Markdown table (issue 14).
//
//	go run ./bench              the full run (minutes)
//	go run ./bench -smoke       small sizes, one repetition (what CI runs)
//	go run ./bench -python /usr/bin/python3 -reps 7 -cases svm,gp
//
// Both sides are timed in CPU time (this process's, garbage collector
// included; the Python process's, BLAS threads included), which a loaded
// machine inflates far less than wall time, and the reference runs with one
// BLAS/OpenMP thread, as the lab's engines do unless told otherwise. The
// Python is the first of -python, /usr/bin/python3 and python3 that imports
// NumPy; without one the reference columns are left empty.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	_ "github.com/thelab/lab/internal/sysblas" // with -tags cblas: gonum's level-3 BLAS from the system
)

func main() {
	var cfg config
	flag.BoolVar(&cfg.smoke, "smoke", false, "small sizes and one repetition (seconds)")
	flag.IntVar(&cfg.reps, "reps", 0, "repetitions of each case (default 5, 1 with -smoke)")
	flag.StringVar(&cfg.python, "python", "", "the Python with scikit-learn (default: /usr/bin/python3, then python3)")
	cases := flag.String("cases", "", "comma-separated case prefixes to run (default: all)")
	flag.BoolVar(&cfg.noRef, "no-reference", false, "run the lab's side only")
	flag.Parse()
	if *cases != "" {
		cfg.only = strings.Split(*cases, ",")
	}
	if err := run(cfg, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}
