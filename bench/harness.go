package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/thelab/lab/internal/cputime"
)

// config is what a run is asked for.
type config struct {
	smoke  bool
	reps   int
	python string
	noRef  bool
	only   []string // case-name prefixes; nil for all
}

// job is a reference job: the case and its parameters, sent as JSON.
type job map[string]any

// benchCase is one row of the table: the lab's side and the reference's on
// the same data and the same work.
type benchCase struct {
	name   string
	target string // the target, as the table states it
	// lab does the work once and returns a note and, for per-iteration
	// cases, the number of iterations.
	lab func() (note string, iters int, err error)
	ref job // nil when there is no reference
	// vs, instead of a reference, is the lab's own baseline (the same work
	// on one core): the row then reports the speed-up in wall time,
	// baseline/lab.
	vs func() (note string, iters int, err error)
	// perIter divides both sides' times by their iteration counts.
	perIter bool
	// memory also measures the growth of the resident set during one run
	// of each side (full runs only).
	memory bool
}

// sample is one measurement of one side.
type sample struct {
	cpu, wall time.Duration
	iters     int
	note      string
	peak      int64
}

// side collects a case's samples on one side.
type side struct {
	samples []sample
	err     error
}

func (s *side) median(f func(sample) time.Duration) time.Duration {
	v := make([]time.Duration, 0, len(s.samples))
	for _, x := range s.samples {
		d := f(x)
		if x.iters > 0 {
			d /= time.Duration(x.iters)
		}
		v = append(v, d)
	}
	if len(v) == 0 {
		return 0
	}
	slices.Sort(v)
	return v[len(v)/2]
}

func run(cfg config, out io.Writer) error {
	if cfg.reps <= 0 {
		cfg.reps = 5
		if cfg.smoke {
			cfg.reps = 1
		}
	}
	dir, err := os.MkdirTemp("", "labbench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	all, err := makeCases(cfg.smoke, dir)
	if err != nil {
		return err
	}
	var cases []*benchCase
	for _, c := range all {
		if cfg.only == nil || slices.ContainsFunc(cfg.only, func(p string) bool { return strings.HasPrefix(c.name, p) }) {
			cases = append(cases, c)
		}
	}
	var ref *reference
	if !cfg.noRef {
		if ref, err = startReference(cfg.python); err != nil {
			fmt.Fprintf(out, "no reference: %v\n\n", err)
		} else {
			defer ref.close()
		}
	}
	labs, refs := make([]side, len(cases)), make([]side, len(cases))
	for r := 0; r < cfg.reps; r++ {
		for i, c := range cases {
			// Alternate which side goes first, so that a drift in the
			// machine's load weighs on both.
			first, second := func() { measureLab(c, &labs[i], false) }, func() { measureRef(ref, c, dir, &refs[i], false) }
			if r%2 == 1 {
				first, second = second, first
			}
			first()
			second()
		}
	}
	if !cfg.smoke {
		for i, c := range cases {
			if c.memory {
				measureLab(c, &labs[i], true)
				measureRef(ref, c, dir, &refs[i], true)
			}
		}
	}
	report(out, cases, labs, refs, ref != nil)
	for i := range cases {
		if labs[i].err != nil {
			return fmt.Errorf("%s: %w", cases[i].name, labs[i].err)
		}
	}
	return nil
}

// measureLab runs the lab's side once, after a garbage collection; with
// memory, it records the growth of the resident set instead (one more run).
func measureLab(c *benchCase, s *side, memory bool) {
	if s.err != nil {
		return
	}
	runtime.GC()
	var before int64
	if memory {
		debug.FreeOSMemory()
		if before = resetPeak(); before < 0 {
			return
		}
	}
	cpu0, wall0 := cputime.Process(), time.Now()
	note, iters, err := c.lab()
	x := sample{cpu: cputime.Process() - cpu0, wall: time.Since(wall0), iters: iters, note: note}
	if err != nil {
		s.err = err
		return
	}
	if memory {
		if len(s.samples) > 0 {
			s.samples[0].peak = peakRSS() - before
		}
		return
	}
	if !c.perIter {
		x.iters = 0
	}
	s.samples = append(s.samples, x)
}

func measureRef(ref *reference, c *benchCase, dir string, s *side, memory bool) {
	if c.vs != nil {
		if !memory {
			measureLab(&benchCase{lab: c.vs, perIter: c.perIter}, s, false)
		}
		return
	}
	if ref == nil || c.ref == nil || s.err != nil {
		return
	}
	j := job{"dir": dir}
	for k, v := range c.ref {
		j[k] = v
	}
	x, err := ref.do(j)
	if err != nil {
		s.err = err
		return
	}
	if memory {
		if len(s.samples) > 0 {
			s.samples[0].peak = x.peak
		}
		return
	}
	if !c.perIter {
		x.iters = 0
	}
	s.samples = append(s.samples, x)
}

// resetPeak resets the process's resident-set high-water mark and returns
// the resident set, or −1 when /proc cannot.
func resetPeak() int64 {
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		return -1
	}
	return procStatus("VmRSS")
}

func peakRSS() int64 { return procStatus("VmHWM") }

// procStatus reads a kB field of /proc/self/status, in bytes.
func procStatus(field string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			f := strings.Fields(v)
			if len(f) > 0 {
				kb, _ := strconv.ParseInt(f[0], 10, 64)
				return kb << 10
			}
		}
	}
	return -1
}

// report prints the table.
func report(out io.Writer, cases []*benchCase, labs, refs []side, haveRef bool) {
	fmt.Fprintf(out, "| case | lab CPU | reference CPU | lab/reference | target | lab wall/ref wall | notes |\n|---|---|---|---|---|---|---|\n")
	for i, c := range cases {
		lab, ref := &labs[i], &refs[i]
		cpu := func(x sample) time.Duration { return x.cpu }
		wall := func(x sample) time.Duration { return x.wall }
		lc, rc := lab.median(cpu), ref.median(cpu)
		row := []string{c.name, dur(lc), "", "", c.target, "", ""}
		notes := []string{}
		if len(lab.samples) > 0 && lab.samples[0].note != "" {
			notes = append(notes, "lab: "+lab.samples[0].note)
		}
		switch {
		case lab.err != nil:
			row[1] = "error: " + lab.err.Error()
		case ref.err != nil:
			row[2] = "error: " + ref.err.Error()
		case c.vs != nil && len(ref.samples) > 0:
			row[2] = dur(rc) + " (one core)"
			row[3] = fmt.Sprintf("speed-up %.2f×", float64(ref.median(wall))/float64(lab.median(wall)))
			row[5] = fmt.Sprintf("%.2f", float64(lab.median(wall))/float64(ref.median(wall)))
		case len(ref.samples) > 0:
			row[2] = dur(rc)
			row[3] = fmt.Sprintf("%.2f", float64(lc)/float64(rc))
			row[5] = fmt.Sprintf("%.2f", float64(lab.median(wall))/float64(ref.median(wall)))
			if n := ref.samples[0].note; n != "" {
				notes = append(notes, "ref: "+n)
			}
		case c.ref != nil && !haveRef:
			row[2] = "(no Python)"
		}
		if c.perIter && len(lab.samples) > 0 {
			notes = append(notes, fmt.Sprintf("per iteration (lab %d", lab.samples[0].iters))
			if len(ref.samples) > 0 {
				notes[len(notes)-1] += fmt.Sprintf(", reference %d", ref.samples[0].iters)
			}
			notes[len(notes)-1] += ")"
		}
		if c.memory && len(lab.samples) > 0 && lab.samples[0].peak > 0 {
			m := "peak RSS growth: lab " + mib(lab.samples[0].peak)
			if len(ref.samples) > 0 && ref.samples[0].peak > 0 {
				m += ", reference " + mib(ref.samples[0].peak)
			}
			notes = append(notes, m)
		}
		row[6] = strings.Join(notes, "; ")
		fmt.Fprintf(out, "| %s |\n", strings.Join(row, " | "))
	}
}

func dur(d time.Duration) string {
	switch {
	case d == 0:
		return ""
	case d < time.Millisecond:
		return fmt.Sprintf("%.1f µs", float64(d)/1e3)
	case d < time.Second:
		return fmt.Sprintf("%.2f ms", float64(d)/1e6)
	}
	return fmt.Sprintf("%.2f s", d.Seconds())
}

func mib(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

// reference is the long-lived Python process of bench/reference.py.
type reference struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Scanner
}

// startReference starts reference.py under the first Python that imports
// NumPy, with one BLAS/OpenMP thread.
func startReference(python string) (*reference, error) {
	script, err := scriptPath()
	if err != nil {
		return nil, err
	}
	candidates := []string{"/usr/bin/python3", "python3"}
	if python != "" {
		candidates = []string{python}
	}
	var last error
	for _, py := range candidates {
		if err := exec.Command(py, "-c", "import numpy").Run(); err != nil {
			last = fmt.Errorf("%s: %v", py, err)
			continue
		}
		cmd := exec.Command(py, script)
		cmd.Env = append(os.Environ(), "OMP_NUM_THREADS=1", "OPENBLAS_NUM_THREADS=1", "MKL_NUM_THREADS=1")
		cmd.Stderr = os.Stderr
		in, err := cmd.StdinPipe()
		if err != nil {
			return nil, err
		}
		outp, err := cmd.StdoutPipe()
		if err != nil {
			return nil, err
		}
		if err := cmd.Start(); err != nil {
			last = err
			continue
		}
		sc := bufio.NewScanner(outp)
		sc.Buffer(make([]byte, 1<<16), 1<<20)
		return &reference{cmd: cmd, in: in, out: sc}, nil
	}
	return nil, fmt.Errorf("no Python with NumPy (%v)", last)
}

// scriptPath finds reference.py beside this package's source.
func scriptPath() (string, error) {
	for _, p := range []string{"bench/reference.py", "reference.py"} {
		if _, err := os.Stat(p); err == nil {
			return filepath.Abs(p)
		}
	}
	return "", fmt.Errorf("bench/reference.py not found (run from the repository's root)")
}

func (r *reference) do(j job) (sample, error) {
	b, err := json.Marshal(j)
	if err != nil {
		return sample{}, err
	}
	if _, err := r.in.Write(append(b, '\n')); err != nil {
		return sample{}, fmt.Errorf("reference: %w", err)
	}
	if !r.out.Scan() {
		return sample{}, fmt.Errorf("reference: no answer (%v)", r.out.Err())
	}
	var a struct {
		CPU, Wall float64
		Peak      int64
		Iters     int
		Note      string
		Error     string
	}
	if err := json.Unmarshal(r.out.Bytes(), &a); err != nil {
		return sample{}, fmt.Errorf("reference: %w", err)
	}
	if a.Error != "" {
		return sample{}, fmt.Errorf("reference: %s", a.Error)
	}
	sec := func(s float64) time.Duration { return time.Duration(s * 1e9) }
	return sample{cpu: sec(a.CPU), wall: sec(a.Wall), peak: a.Peak, iters: a.Iters, note: a.Note}, nil
}

func (r *reference) close() {
	r.in.Close()
	r.cmd.Wait()
}
