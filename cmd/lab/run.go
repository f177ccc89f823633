package main

import (
	"flag"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/charmbracelet/colorprofile"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/catalog"
	"github.com/thelab/lab/tui"
)

// setFlags collects repeated --set name=value.
type setFlags map[string]string

func (s setFlags) String() string { return "" }

func (s setFlags) Set(v string) error {
	name, value, ok := strings.Cut(v, "=")
	if !ok || strings.TrimSpace(name) == "" {
		return fmt.Errorf("want name=value, got %q", v)
	}
	s[strings.TrimSpace(name)] = value
	return nil
}

type runOptions struct {
	steps, every  int
	seed          uint64
	set           setFlags
	data          string
	json, frames  bool
	width, height int
}

// parseRun reads `lab run` arguments: the sim's name and flags, in any order.
func parseRun(args []string) (string, runOptions, error) {
	o := runOptions{set: setFlags{}}
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.IntVar(&o.steps, "steps", 0, "")
	fs.Uint64Var(&o.seed, "seed", 1, "")
	fs.Var(o.set, "set", "")
	fs.StringVar(&o.data, "data", "", "")
	fs.IntVar(&o.every, "every", 0, "")
	fs.BoolVar(&o.json, "json", false, "")
	fs.BoolVar(&o.frames, "frames", false, "")
	size := fs.String("size", "100x30", "")
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return "", o, usageErr("run: %v", err)
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
	switch {
	case len(positional) == 0:
		return "", o, usageErr("run: which sim? (lab list shows them)")
	case len(positional) > 1:
		return "", o, usageErr("run: one sim at a time, got %s", strings.Join(positional, " "))
	case o.steps < 0:
		return "", o, usageErr("run: --steps must be ≥ 0")
	case o.every < 0:
		return "", o, usageErr("run: --every must be ≥ 0")
	case o.json && o.frames:
		return "", o, usageErr("run: --json and --frames exclude each other")
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

// runCmd runs one sim headless.
func runCmd(args []string, stdout io.Writer) error {
	name, o, err := parseRun(args)
	if err != nil {
		return err
	}
	spec := catalog.All().Lookup(name)
	if spec == nil {
		return usageErr("unknown sim %q (lab list shows them)", name)
	}
	vals, err := sims.Resolve(spec.Params, o.set)
	if err != nil {
		return usageErr("%s: %v", name, err)
	}
	cfg := sims.Config{Values: vals, Seed: o.seed, Headless: true}
	if o.data != "" {
		if spec.Data == "" {
			return usageErr("sim %s takes no --data", name)
		}
		if cfg.Data, err = sims.LoadCSV(o.data); err != nil {
			return usageErr("%v", err)
		}
	}
	r, err := sims.NewRunner(spec, cfg, sims.RunnerOptions{Paused: true, Publish: math.MaxInt64})
	if err != nil {
		return usageErr("%s: %v", name, err)
	}
	defer r.Close()
	steps := o.steps
	if steps == 0 {
		steps = spec.Steps
	}
	out := &emitter{w: stdout, spec: spec, o: o}
	if o.frames {
		profile := colorprofile.Detect(os.Stdout, os.Environ())
		out.mono = profile <= colorprofile.Ascii
		out.w = &colorprofile.Writer{Forward: stdout, Profile: profile}
	}
	// The runner steps in chunks of --every (it publishes a Frame only at
	// the end of each: Publish never comes due), exactly as a pane's `s`.
	chunk := steps
	if o.every > 0 {
		chunk = o.every
	}
	snap := r.Latest()
	for done := 0; done < steps && !snap.State.Done(); {
		n := min(chunk, steps-done)
		<-r.Step(n)
		done += n
		snap = r.Latest()
		if o.every > 0 && done < steps && !snap.State.Done() {
			running := *snap
			running.State = sims.Running // the run goes on
			if err := out.emit(&running, nil); err != nil {
				return err
			}
		}
	}
	if err := out.emit(snap, r.Result()); err != nil {
		return err
	}
	if snap.State == sims.Diverged || snap.State == sims.Failed {
		return &exitError{code: 1, err: fmt.Errorf("%s %s at step %d: %v", name, snap.State, snap.Frame.Step, snap.Err)}
	}
	return nil
}

// emitter prints frames in the chosen format.
type emitter struct {
	w    io.Writer
	spec *sims.Spec
	o    runOptions
	mono bool
}

// emit prints one snapshot; result is non-nil for the final one.
func (e *emitter) emit(s *sims.Snapshot, result map[string]any) error {
	var b []byte
	f := s.Frame
	switch {
	case e.o.json:
		b = append(b, `{"sim":`...)
		b = appendJSON(b, e.spec.Name)
		b = fmt.Appendf(b, `,"step":%d,"metrics":{`, f.Step)
		for i, m := range f.Metrics {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSON(b, m.Name)
			b = append(b, ':')
			b = append(b, jsonNumber(m.Value)...)
		}
		b = append(b, '}')
		if result != nil {
			b = append(b, `,"final":true,"state":`...)
			b = appendJSON(b, s.State.String())
			b = append(b, `,"result":`...)
			b = appendJSON(b, result)
		}
		b = append(b, "}\n"...)
	case e.o.frames:
		b = append(b, tui.RenderPane(s, e.o.width, e.o.height, tui.PaneStyle{Focused: true, Mono: e.mono})...)
		b = append(b, "\n\n"...)
	default:
		if result == nil {
			b = fmt.Appendf(b, "step %d:", f.Step)
			for _, m := range f.Metrics {
				b = fmt.Appendf(b, " %s=%s", m.Name, jsonNumber(m.Value))
			}
			b = append(b, '\n')
			break
		}
		b = fmt.Appendf(b, "%s: %s after %d steps (seed %d)\n", e.spec.Name, s.State, f.Step, s.Seed)
		b = fmt.Appendf(b, "parameters: %s\n", s.Values.Summary())
		for _, m := range f.Metrics {
			b = fmt.Appendf(b, "  %s = %s\n", m.Name, jsonNumber(m.Value))
		}
		for _, k := range slices.Sorted(maps.Keys(result)) {
			b = fmt.Appendf(b, "  %s: ", k)
			b = appendJSON(b, result[k])
			b = append(b, '\n')
		}
	}
	_, err := e.w.Write(b)
	return err
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

// jsonNumber prints a metric for JSON and text: shortest 'g' form, and
// null when it is not finite.
func jsonNumber(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "null"
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}
