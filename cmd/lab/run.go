package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/charmbracelet/colorprofile"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/catalog"
	"github.com/thelab/lab/tui"
)

// runFlagsUsage describes the flags only lab run takes.
const runFlagsUsage = `Run flags (lab run SIM [flags]; lab run SIM --help shows the sim's parameters):
  --every K          print every K steps, not only the final one
  --json             one JSON object per line: {"sim","step","metrics"}, metrics keyed
                     as lab help SIM lists them; a metric without a value is null
                     with its reason in "undefined"; the last line adds "final",
                     "state" (converged, stopped at the step count, diverged,
                     failed; refused when one of several runs cannot start),
                     "reason" when it did not end well, and "result"
  --frames           print the rendered pane as text, exactly as the TUI draws it
  --color            with --frames: keep the colours (24-bit ANSI) even when stdout is
                     not a terminal, e.g. into a file or less -R
  --size WxH         pane size for --frames (default 100x30)
  --series FILE.csv  also write every chart series of the final frame to FILE.csv:
                     columns chart,series,x,y,class, one point a row (one sim only)
  --memory           measure what the sim holds in memory: the live heap (after a
                     garbage collection) once it is built and at every printed step,
                     its peak beside the estimate lab serve charges a session for it
                     (in JSON: "memory":{"estimate":E,"peak":P}, in bytes)

  Several sims (lab run gd --set lr=0.1 gd --set lr=0.5 --json) run one after
  another, each with the flags that follow it and the seeds of a dashboard of
  the same panes (the first 1, or --seed before the first sim, and counting up
  for each sim without its own); the output flags are for all of them, and in
  JSON every line says its "run" (1, 2, ...). A run that cannot start or ends
  badly does not stop the next ones; the exit status is the worst.

  A run that takes more than a second shows its progress (steps/s, ETA) on stderr
  when stderr is a terminal, and nothing otherwise. Exit status: 0 success; 2 bad
  usage: a bad flag, parameter or file (the message names it and what it takes),
  an output it cannot write, or a sim name that matches none; 1 the run failed:
  the engine diverged or failed, or the sim crashed (the message has the stack).
`

// runOptions are lab run's output flags, the same for every sim it runs.
type runOptions struct {
	every         int
	json, frames  bool
	color         bool
	width, height int
	series        string
	memory        bool
	help          bool
}

// givenString is a string flag that records whether it was given.
type givenString struct {
	v     *string
	given *bool
}

func (f givenString) String() string { return "" }

func (f givenString) Set(v string) error {
	*f.v, *f.given = v, true
	return nil
}

// parseRun reads `lab run` arguments: sims, each followed by its flags
// (with one sim, its flags may stand anywhere), and the output flags,
// anywhere. Each run's seed is settled here, as a dashboard of the same
// sims would give it.
func parseRun(args []string) ([]*paneArgs, runOptions, error) {
	var o runOptions
	size, sized := "100x30", false
	lead, runs, err := parseSims("run", args, func(fs *flag.FlagSet) {
		fs.IntVar(&o.every, "every", o.every, "")
		fs.BoolVar(&o.json, "json", o.json, "")
		fs.BoolVar(&o.frames, "frames", o.frames, "")
		fs.BoolVar(&o.color, "color", o.color, "")
		fs.Var(fileFlag{&o.series, "leave --series out to write none"}, "series", "")
		fs.BoolVar(&o.memory, "memory", o.memory, "")
		fs.BoolVar(&o.help, "help", o.help, "")
		fs.BoolVar(&o.help, "h", o.help, "")
		fs.Var(givenString{&size, &sized}, "size", "")
	})
	if err != nil {
		var fe flagErr
		if errors.As(err, &fe) {
			return nil, o, usageErr("run: %s (lab run --help shows the flags)", flagError(fe.fs, fe.err))
		}
		return nil, o, err
	}
	switch {
	case o.help:
		return runs, o, nil
	case len(runs) == 0:
		return nil, o, usageErr("run: which sim? (lab list shows them)")
	case o.every < 0:
		return nil, o, usageErr("run: --every must be ≥ 0")
	case o.json && o.frames:
		return nil, o, usageErr("run: --json and --frames exclude each other")
	case sized && !o.frames:
		return nil, o, usageErr("run: --size is the size of --frames' pane: add --frames, or leave --size out")
	case o.color && !o.frames:
		return nil, o, usageErr("run: --color colours --frames' pane: add --frames, or leave --color out")
	case o.series != "" && len(runs) > 1:
		return nil, o, usageErr("run: --series writes the series of one run: name one sim")
	}
	if err := leadFlags(&lead, runs, "lab run"); err != nil {
		return nil, o, err
	}
	next := uint64(1)
	if lead.seedSet {
		next = lead.seed
	}
	for _, r := range runs {
		if !r.o.seedSet {
			r.o.seed, r.o.seedSet = next, true
			next++
		}
	}
	w, h, ok := strings.Cut(size, "x")
	var err1, err2 error
	o.width, err1 = strconv.Atoi(w)
	o.height, err2 = strconv.Atoi(h)
	if !ok || err1 != nil || err2 != nil || o.width < tui.MinPaneWidth || o.height < tui.MinPaneHeight || o.width > 1000 || o.height > 500 {
		return nil, o, usageErr("run: --size must be WxH with W in %d..1000 and H in %d..500, got %q",
			tui.MinPaneWidth, tui.MinPaneHeight, size)
	}
	return runs, o, nil
}

// runCmd runs sims headless, one after another. Their progress goes to
// stderr when that is a terminal.
func runCmd(args []string, stdout, stderr io.Writer) error {
	runs, o, err := parseRun(args)
	if err != nil {
		return err
	}
	if o.help {
		return runHelp(runs, stdout)
	}
	specs := make([]*sims.Spec, len(runs))
	for i, r := range runs {
		if specs[i], err = lookupSim(r.name); err != nil {
			return err
		}
	}
	if len(runs) == 1 {
		return runOne(specs[0], runs[0].o, o, 0, stdout, stderr)
	}
	// Several runs: each one's trouble is told as it happens, and the
	// next runs go on, unless the output itself cannot be written.
	code, bad := 0, []string{}
	for i, r := range runs {
		err := runOne(specs[i], r.o, o, i+1, stdout, stderr)
		var ee *exitError
		switch {
		case err == nil:
			continue
		case errors.As(err, &ee) && ee.output:
			return err
		case errors.As(err, &ee):
			code = max(code, ee.code)
		default:
			code = max(code, 1)
		}
		fmt.Fprintf(stderr, "lab: run %d: %s\n", i+1, printable(err.Error()))
		bad = append(bad, strconv.Itoa(i+1))
	}
	if code == 0 {
		return nil
	}
	what := "run"
	if len(bad) > 1 {
		what = "runs"
	}
	return &exitError{code: code, err: fmt.Errorf("%s %s of %d did not end well (above)", what, strings.Join(bad, ", "), len(runs))}
}

// runHelp answers `lab run [SIM...] --help`: the sims' help and lab run's
// flags, or the usage of lab run.
func runHelp(runs []*paneArgs, stdout io.Writer) error {
	if len(runs) == 0 {
		fmt.Fprint(stdout, "Usage: lab run SIM [flags] [SIM [flags]]...\n\n"+simFlagsUsage+"\n"+runFlagsUsage)
		return nil
	}
	if err := tuiHelp(runs, stdout); err != nil {
		return err
	}
	fmt.Fprint(stdout, "\n"+simFlagsUsage+"\n"+runFlagsUsage)
	return nil
}

// outputErr is the usage error of an output that could not be written:
// no later run could write one either.
func outputErr(what string, err error) error {
	return &exitError{code: 2, output: true, err: fmt.Errorf("%s: %v", what, err)}
}

// runOne runs one sim headless with its options so and the output flags
// o; run is its number among several (its JSON lines say it), or 0. A
// run that cannot start is refused: with --json among several runs it
// still prints its final line, state "refused", so that a script reading
// the lines knows each run's outcome.
func runOne(spec *sims.Spec, so simOptions, o runOptions, run int, stdout, stderr io.Writer) error {
	out := &emitter{w: stdout, spec: spec, o: o, run: run}
	refuse := func(err error) error {
		if run > 0 && o.json {
			if werr := out.refused(err); werr != nil {
				return outputErr("writing the output", werr)
			}
		}
		return err
	}
	vals, data, err := so.config(spec)
	if err != nil {
		return refuse(err)
	}
	var series *os.File
	if o.series != "" {
		// Made before the run, so that a bad path fails at once.
		if series, err = os.Create(o.series); err != nil {
			return outputErr("--series", err)
		}
		defer series.Close()
	}
	cfg := sims.Config{Values: vals, Seed: so.seed, Data: data, Headless: true}
	if o.memory {
		out.mem = newMemoryMeter(spec.EstimateSize(cfg))
	}
	r, err := sims.NewRunner(spec, cfg, sims.RunnerOptions{Paused: true, Cadence: sims.NewCadence(math.MaxInt64)})
	if err != nil {
		return refuse(buildError(spec.Name, err))
	}
	defer r.Close()
	mem := out.mem
	mem.measure()
	steps := so.steps
	if !so.stepsOK {
		steps = spec.Steps
	}
	if o.frames {
		profile := colorprofile.Detect(os.Stdout, os.Environ())
		if o.color {
			profile = colorprofile.TrueColor
		}
		out.mono = profile <= colorprofile.Ascii
		out.pal256 = profile == colorprofile.ANSI256
		out.w = &colorprofile.Writer{Forward: stdout, Profile: profile}
	}
	prog := newProgress(stderr, spec.Name, steps, r.Taken)
	defer prog.clear()
	// The runner steps in chunks of --every (it publishes a Frame only at
	// the end of each: Publish never comes due), exactly as a pane's `s`.
	chunk := steps
	if o.every > 0 {
		chunk = o.every
	}
	snap := r.Latest()
	for done := 0; done < steps && !snap.State.Done(); {
		n := min(chunk, steps-done)
		prog.wait(r.Step(n))
		done += n
		snap = r.Latest()
		mem.measure()
		if o.every > 0 && done < steps && !snap.State.Done() {
			running := *snap
			running.State = sims.Running // the run goes on
			prog.clear()
			if err := out.emit(&running, nil); err != nil {
				return outputErr("writing the output", err)
			}
		}
	}
	prog.clear()
	if err := out.emit(snap, r.Result()); err != nil {
		return outputErr("writing the output", err)
	}
	if series != nil {
		if err := sims.WriteSeriesCSV(series, snap.Frame); err != nil {
			return outputErr("--series", err)
		}
		if err := series.Close(); err != nil {
			return outputErr("--series", err)
		}
	}
	if snap.State == sims.Diverged || snap.State == sims.Failed {
		return &exitError{code: 1, err: fmt.Errorf("%s %s at step %d: %v", spec.Name, snap.State, snap.Frame.Step, snap.Err)}
	}
	return nil
}

// buildError is the error of a sim that could not be built: a crash (a
// panic, sims.ErrPanic) is a failure, status 1, like an engine's; any
// other reason is the parameters' or the data's, a usage error.
func buildError(name string, err error) error {
	if errors.Is(err, sims.ErrPanic) {
		return &exitError{code: 1, err: fmt.Errorf("%s crashed: %v", name, err)}
	}
	return usageErr("%s: %v", name, err)
}

// lookupSim finds a sim of the catalogue by name.
func lookupSim(name string) (*sims.Spec, error) {
	spec := catalog.All().Lookup(name)
	if spec == nil {
		return nil, usageErr("unknown sim %q (lab list shows them)", name)
	}
	return spec, nil
}

// finalState is how a headless run ended: converged, diverged or failed,
// or "stopped" when it reached its step count (the runner then rests
// paused, but nothing will resume it).
func finalState(s sims.State) string {
	if s == sims.Paused || s == sims.Running {
		return "stopped"
	}
	return s.String()
}

// emitter prints frames in the chosen format.
type emitter struct {
	w    io.Writer
	spec *sims.Spec
	o    runOptions
	run  int // the run's number among several, or 0
	mono bool
	// pal256: stdout is a 256-colour terminal (chart.Options.Palette256).
	pal256 bool
	mem    *memoryMeter // nil unless --memory
}

// head starts a JSON line: the sim and, among several runs, the run.
func (e *emitter) head(b []byte) []byte {
	b = append(b, `{"sim":`...)
	b = appendJSON(b, e.spec.Name)
	if e.run > 0 {
		b = fmt.Appendf(b, `,"run":%d`, e.run)
	}
	return b
}

// refused prints the final JSON line of a run that could not start.
func (e *emitter) refused(why error) error {
	b := e.head(nil)
	b = append(b, `,"final":true,"state":"refused","reason":`...)
	b = appendJSON(b, why.Error())
	b = append(b, "}\n"...)
	_, err := e.w.Write(b)
	return err
}

// emit prints one snapshot; result is non-nil for the final one.
func (e *emitter) emit(s *sims.Snapshot, result map[string]any) error {
	var b []byte
	f := s.Frame
	switch {
	case e.o.json:
		b = e.head(b)
		b = fmt.Appendf(b, `,"step":%d,`, f.Step)
		b = e.spec.AppendMetricsJSON(b, f.Metrics)
		if result != nil {
			b = append(b, `,"final":true,"state":`...)
			b = appendJSON(b, finalState(s.State))
			if s.State == sims.Diverged || s.State == sims.Failed {
				b = append(b, `,"reason":`...)
				b = appendJSON(b, fmt.Sprint(s.Err))
			}
			b = append(b, `,"result":`...)
			b = appendJSON(b, result)
			if e.mem != nil {
				b = fmt.Appendf(b, `,"memory":{"estimate":%d,"peak":%d}`, e.mem.estimate, e.mem.peak)
			}
		}
		b = append(b, "}\n"...)
	case e.o.frames:
		b = append(b, tui.RenderPane(s, e.o.width, e.o.height, tui.PaneStyle{Focused: true, Mono: e.mono, Palette256: e.pal256})...)
		b = append(b, "\n\n"...)
	default:
		if result == nil {
			b = fmt.Appendf(b, "step %d:", f.Step)
			for _, m := range f.Metrics {
				b = fmt.Appendf(b, " %s=%s", e.spec.MetricKey(m.Name), sims.FormatMetric(m))
			}
			b = append(b, '\n')
			break
		}
		b = fmt.Appendf(b, "%s: %s after %d steps (seed %d)\n", e.spec.Name, finalState(s.State), f.Step, s.Seed)
		if s.Data != nil {
			b = fmt.Appendf(b, "data: %s\n", s.Data.Summary())
		}
		b = fmt.Appendf(b, "parameters: %s\n", s.Values.Summary(s.Data != nil))
		for _, m := range f.Metrics {
			b = fmt.Appendf(b, "  %s = %s", e.spec.MetricKey(m.Name), sims.FormatMetric(m))
			if why := m.Why(); why != "" {
				b = fmt.Appendf(b, " (%s)", why)
			}
			b = append(b, '\n')
		}
		for _, k := range slices.Sorted(maps.Keys(result)) {
			b = fmt.Appendf(b, "  %s: ", k)
			b = appendJSON(b, result[k])
			b = append(b, '\n')
		}
		if e.mem != nil {
			b = fmt.Appendf(b, "memory: %s at its peak (live heap after building and at each printed step), estimated %s\n",
				sims.Bytes(e.mem.peak), sims.Bytes(e.mem.estimate))
		}
	}
	_, err := e.w.Write(b)
	return err
}

// memoryMeter measures what a run holds: the live heap, after a garbage
// collection, less what the process held before the sim was built (the
// lab's own packages), at the checkpoints of --memory. Live bytes are
// what Spec.Size estimates and lab serve charges: garbage is the
// collector's to reclaim under the server's soft memory limit.
type memoryMeter struct {
	estimate, base, peak int64
}

func newMemoryMeter(estimate int64) *memoryMeter {
	return &memoryMeter{estimate: estimate, base: liveHeap()}
}

// measure takes a checkpoint; a nil meter does nothing.
func (m *memoryMeter) measure() {
	if m != nil {
		m.peak = max(m.peak, liveHeap()-m.base)
	}
}

// liveHeap is the bytes of live heap objects, after a full collection.
func liveHeap() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// appendJSON writes a value of a result (or a name) in the results' one
// JSON encoding; a value it cannot encode is written null.
func appendJSON(b []byte, v any) []byte {
	out, err := sims.AppendResultJSON(b, v)
	if err != nil {
		return append(b, "null"...)
	}
	return out
}
