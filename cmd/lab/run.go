package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"reflect"
	"sort"
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
	cfg := sims.Config{Values: vals, Seed: o.seed}
	if o.data != "" {
		if spec.Data == "" {
			return usageErr("sim %s takes no --data", name)
		}
		if cfg.Data, err = sims.LoadCSV(o.data); err != nil {
			return usageErr("%v", err)
		}
	}
	sim, err := spec.Build(cfg)
	if err != nil {
		return usageErr("%s: %v", name, err)
	}
	steps := o.steps
	if steps == 0 {
		steps = spec.Steps
	}
	out := &emitter{w: stdout, spec: spec, vals: vals, seed: o.seed, o: o}
	if o.frames {
		profile := colorprofile.Detect(os.Stdout, os.Environ())
		out.mono = profile <= colorprofile.Ascii
		out.w = &colorprofile.Writer{Forward: stdout, Profile: profile}
	}
	state, stepErr := sims.Paused, error(nil)
	for k := 0; k < steps; k++ {
		if err := sim.Step(); err != nil {
			state, stepErr = stateOf(err), err
			break
		}
		if o.every > 0 && (k+1)%o.every == 0 && k+1 < steps {
			settle(sim)
			if err := out.emit(sim.Frame(), sims.Running, nil, nil); err != nil {
				return err
			}
		}
	}
	if state == sims.Paused {
		state = sims.Converged
		if stepErr == nil {
			state = sims.Paused // ran out of steps
		}
	}
	settle(sim)
	final := sim.Frame()
	if err := out.emit(final, state, stepErr, sim.Result()); err != nil {
		return err
	}
	if state == sims.Diverged || state == sims.Failed {
		return &exitError{code: 1, err: fmt.Errorf("%s %s at step %d: %v", name, state, final.Step, stepErr)}
	}
	return nil
}

// settle brings a sim's throttled caches up to date before a printed frame
// (see sims.Settler).
func settle(sim sims.Sim) {
	if st, ok := sim.(sims.Settler); ok {
		st.Settle()
	}
}

// stateOf names how a Step error ended the run.
func stateOf(err error) sims.State {
	switch {
	case errors.Is(err, sims.ErrConverged):
		return sims.Converged
	case errors.Is(err, sims.ErrDiverged):
		return sims.Diverged
	}
	return sims.Failed
}

// emitter prints frames in the chosen format.
type emitter struct {
	w    io.Writer
	spec *sims.Spec
	vals sims.Values
	seed uint64
	o    runOptions
	mono bool
}

// emit prints one frame; result is non-nil for the final one.
func (e *emitter) emit(f sims.Frame, state sims.State, stepErr error, result map[string]any) error {
	var b bytes.Buffer
	switch {
	case e.o.json:
		b.WriteString(`{"sim":`)
		writeJSON(&b, e.spec.Name)
		fmt.Fprintf(&b, `,"step":%d,"metrics":{`, f.Step)
		for i, m := range f.Metrics {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSON(&b, m.Name)
			b.WriteByte(':')
			b.WriteString(jsonNumber(m.Value))
		}
		b.WriteByte('}')
		if result != nil {
			b.WriteString(`,"final":true,"state":`)
			writeJSON(&b, state.String())
			b.WriteString(`,"result":`)
			writeJSON(&b, sanitize(reflect.ValueOf(result)))
		}
		b.WriteString("}\n")
	case e.o.frames:
		snap := &sims.Snapshot{Frame: f, Spec: e.spec, Values: e.vals, Seed: e.seed, State: state, Err: stepErr}
		b.WriteString(tui.RenderPane(snap, e.o.width, e.o.height, tui.PaneStyle{Focused: true, Mono: e.mono}))
		b.WriteString("\n\n")
	default:
		if result == nil {
			fmt.Fprintf(&b, "step %d:", f.Step)
			for _, m := range f.Metrics {
				fmt.Fprintf(&b, " %s=%s", m.Name, jsonNumber(m.Value))
			}
			b.WriteByte('\n')
			break
		}
		fmt.Fprintf(&b, "%s: %s after %d steps (seed %d)\n", e.spec.Name, state, f.Step, e.seed)
		fmt.Fprintf(&b, "parameters: %s\n", e.vals.Summary())
		for _, m := range f.Metrics {
			fmt.Fprintf(&b, "  %s = %s\n", m.Name, jsonNumber(m.Value))
		}
		keys := make([]string, 0, len(result))
		for k := range result {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			var v bytes.Buffer
			writeJSON(&v, sanitize(reflect.ValueOf(result[k])))
			fmt.Fprintf(&b, "  %s: %s\n", k, v.String())
		}
	}
	_, err := e.w.Write(b.Bytes())
	return err
}

func writeJSON(b *bytes.Buffer, v any) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		b.WriteString("null")
		return
	}
	b.Truncate(b.Len() - 1) // Encode's newline
}

// jsonNumber prints a float for JSON: non-finite values become null.
func jsonNumber(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "null"
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// sanitize copies a result value, replacing non-finite floats (which JSON
// cannot hold) by null.
func sanitize(v reflect.Value) any {
	switch v.Kind() {
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			return nil
		}
		return sanitize(v.Elem())
	case reflect.Float32, reflect.Float64:
		x := v.Float()
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil
		}
		return x
	case reflect.Slice, reflect.Array:
		out := make([]any, v.Len())
		for i := range out {
			out[i] = sanitize(v.Index(i))
		}
		return out
	case reflect.Map:
		out := map[string]any{}
		for _, k := range v.MapKeys() {
			out[fmt.Sprint(k.Interface())] = sanitize(v.MapIndex(k))
		}
		return out
	case reflect.Invalid:
		return nil
	}
	return v.Interface()
}
