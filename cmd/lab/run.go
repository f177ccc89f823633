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
                     failed) and "result"
  --frames           print the rendered pane as text, exactly as the TUI draws it
  --color            with --frames: keep the colours (24-bit ANSI) even when stdout is
                     not a terminal, e.g. into a file or less -R
  --size WxH         pane size for --frames (default 100x30)
  --series FILE.csv  also write every chart series of the final frame to FILE.csv:
                     columns chart,series,x,y,class, one point a row
  --memory           measure what the sim holds in memory: the live heap (after a
                     garbage collection) once it is built and at every printed step,
                     its peak beside the estimate lab serve charges a session for it
                     (in JSON: "memory":{"estimate":E,"peak":P}, in bytes)

  A run that takes more than a second shows its progress (steps/s, ETA) on stderr
  when stderr is a terminal, and nothing otherwise. Exit status: 0 success; 2 bad
  usage: a bad flag, parameter or file (the message names it and what it takes),
  an output it cannot write, or a sim name that matches none; 1 the run failed:
  the engine diverged or failed, or the sim crashed (the message has the stack).
`

type runOptions struct {
	simOptions
	every         int
	json, frames  bool
	color         bool
	width, height int
	series        string
	memory        bool
	help          bool
}

// parseRun reads `lab run` arguments: the sim's name and flags, in any order.
func parseRun(args []string) (string, runOptions, error) {
	var o runOptions
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	simFlags(fs, &o.simOptions)
	fs.IntVar(&o.every, "every", 0, "")
	fs.BoolVar(&o.json, "json", false, "")
	fs.BoolVar(&o.frames, "frames", false, "")
	fs.BoolVar(&o.color, "color", false, "")
	fs.Var(fileFlag{&o.series, "leave --series out to write none"}, "series", "")
	fs.BoolVar(&o.memory, "memory", false, "")
	fs.BoolVar(&o.help, "help", false, "")
	fs.BoolVar(&o.help, "h", false, "")
	size := fs.String("size", "100x30", "")
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return "", o, usageErr("run: %s (lab run --help shows the flags)", flagError(fs, err))
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	switch {
	case o.help && len(positional) <= 1:
		return strings.Join(positional, ""), o, nil
	case len(positional) == 0:
		return "", o, usageErr("run: which sim? (lab list shows them)")
	case len(positional) > 1:
		return "", o, usageErr("run: one sim at a time, got %s", strings.Join(positional, " "))
	case o.every < 0:
		return "", o, usageErr("run: --every must be ≥ 0")
	case o.json && o.frames:
		return "", o, usageErr("run: --json and --frames exclude each other")
	case given["size"] && !o.frames:
		return "", o, usageErr("run: --size is the size of --frames' pane: add --frames, or leave --size out")
	case o.color && !o.frames:
		return "", o, usageErr("run: --color colours --frames' pane: add --frames, or leave --color out")
	}
	w, h, ok := strings.Cut(*size, "x")
	var err1, err2 error
	o.width, err1 = strconv.Atoi(w)
	o.height, err2 = strconv.Atoi(h)
	if !ok || err1 != nil || err2 != nil || o.width < tui.MinPaneWidth || o.height < tui.MinPaneHeight || o.width > 1000 || o.height > 500 {
		return "", o, usageErr("run: --size must be WxH with W in %d..1000 and H in %d..500, got %q",
			tui.MinPaneWidth, tui.MinPaneHeight, *size)
	}
	return positional[0], o, nil
}

// runCmd runs one sim headless. Its progress goes to stderr when that is
// a terminal.
func runCmd(args []string, stdout, stderr io.Writer) error {
	name, o, err := parseRun(args)
	if err != nil {
		return err
	}
	if o.help {
		if name == "" {
			fmt.Fprint(stdout, "Usage: lab run SIM [flags]\n\n"+simFlagsUsage+"\n"+runFlagsUsage)
			return nil
		}
		spec, err := lookupSim(name)
		if err != nil {
			return err
		}
		writeSimHelp(stdout, spec)
		fmt.Fprint(stdout, "\n"+simFlagsUsage+"\n"+runFlagsUsage)
		return nil
	}
	spec, err := lookupSim(name)
	if err != nil {
		return err
	}
	vals, data, err := o.config(spec)
	if err != nil {
		return err
	}
	seed := uint64(1)
	if o.seedSet {
		seed = o.seed
	}
	var series *os.File
	if o.series != "" {
		// Made before the run, so that a bad path fails at once.
		if series, err = os.Create(o.series); err != nil {
			return usageErr("--series: %v", err)
		}
		defer series.Close()
	}
	cfg := sims.Config{Values: vals, Seed: seed, Data: data, Headless: true}
	var mem *memoryMeter
	if o.memory {
		mem = newMemoryMeter(spec.EstimateSize(cfg))
	}
	r, err := sims.NewRunner(spec, cfg, sims.RunnerOptions{Paused: true, Cadence: sims.NewCadence(math.MaxInt64)})
	if err != nil {
		return buildError(name, err)
	}
	defer r.Close()
	mem.measure()
	steps := o.steps
	if !o.stepsOK {
		steps = spec.Steps
	}
	out := &emitter{w: stdout, spec: spec, o: o, mem: mem}
	if o.frames {
		profile := colorprofile.Detect(os.Stdout, os.Environ())
		if o.color {
			profile = colorprofile.TrueColor
		}
		out.mono = profile <= colorprofile.Ascii
		out.pal256 = profile == colorprofile.ANSI256
		out.w = &colorprofile.Writer{Forward: stdout, Profile: profile}
	}
	prog := newProgress(stderr, name, steps, r.Taken)
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
				return usageErr("writing the output: %v", err)
			}
		}
	}
	prog.clear()
	if err := out.emit(snap, r.Result()); err != nil {
		return usageErr("writing the output: %v", err)
	}
	if series != nil {
		if err := sims.WriteSeriesCSV(series, snap.Frame); err != nil {
			return usageErr("--series: %v", err)
		}
		if err := series.Close(); err != nil {
			return usageErr("--series: %v", err)
		}
	}
	if snap.State == sims.Diverged || snap.State == sims.Failed {
		return &exitError{code: 1, err: fmt.Errorf("%s %s at step %d: %v", name, snap.State, snap.Frame.Step, snap.Err)}
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
	mono bool
	// pal256: stdout is a 256-colour terminal (chart.Options.Palette256).
	pal256 bool
	mem    *memoryMeter // nil unless --memory
}

// emit prints one snapshot; result is non-nil for the final one.
func (e *emitter) emit(s *sims.Snapshot, result map[string]any) error {
	var b []byte
	f := s.Frame
	switch {
	case e.o.json:
		b = append(b, `{"sim":`...)
		b = appendJSON(b, e.spec.Name)
		b = fmt.Appendf(b, `,"step":%d,`, f.Step)
		b = e.spec.AppendMetricsJSON(b, f.Metrics)
		if result != nil {
			b = append(b, `,"final":true,"state":`...)
			b = appendJSON(b, finalState(s.State))
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
