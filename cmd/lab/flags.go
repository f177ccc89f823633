package main

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/thelab/lab/sims"
)

// simFlagsUsage describes the flags that set up one sim, the TUI's and
// lab run's alike (simFlags registers them).
const simFlagsUsage = `Flags of a sim (in the TUI they apply to the sim they follow; lab run takes them anywhere):
  --seed S           random seed, a whole number 0..18446744073709551615 (default 1;
                     in the TUI, before the first sim, the first pane's, and the panes
                     without their own count up from it)
  --set name=value   set a parameter (repeatable; lab help SIM lists them)
  --data FILE.csv    CSV with a header row, for sims that take data (lab help SIM
                     says which columns): a regular file of at most 64 MiB, 100000
                     rows and 10000000 cells; a column named label is found by name
  --steps N          lab run: steps to run, at least 1 (default: the sim's own; a run
                     stops early when it converges); TUI: open the pane paused after N steps
`

// simOptions are the settings of one sim from the command line.
type simOptions struct {
	seed    uint64
	seedSet bool // --seed was given
	set     setFlags
	data    string
	steps   int
	stepsOK bool // --steps was given
}

// simFlags registers --seed, --set, --data and --steps on fs, writing to o.
func simFlags(fs *flag.FlagSet, o *simOptions) {
	if o.set == nil {
		o.set = setFlags{}
	}
	fs.Var(seedFlag{o}, "seed", "")
	fs.Var(o.set, "set", "")
	fs.Var(fileFlag{&o.data, "leave --data out for the sim's own data"}, "data", "")
	fs.Var(stepsFlag{o}, "steps", "")
}

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

// fileFlag reads a flag that names a file: an empty name is refused, not
// taken for the flag left out (an empty --data ran on generated data). none
// says how to ask for no file.
type fileFlag struct {
	name *string
	none string
}

func (fileFlag) String() string { return "" }

func (f fileFlag) Set(v string) error {
	if v == "" {
		return fmt.Errorf("the file's name is empty: %s", f.none)
	}
	*f.name = v
	return nil
}

// seedFlag reads --seed with a message that says what a seed is.
type seedFlag struct{ o *simOptions }

func (seedFlag) String() string { return "" }

func (f seedFlag) Set(v string) error {
	n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
	if err != nil {
		return fmt.Errorf("a seed is a whole number from 0 to %d", uint64(math.MaxUint64))
	}
	f.o.seed, f.o.seedSet = n, true
	return nil
}

// stepsFlag reads --steps: at least 1.
type stepsFlag struct{ o *simOptions }

func (stepsFlag) String() string { return "" }

func (f stepsFlag) Set(v string) error {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 1 {
		return fmt.Errorf("steps are a whole number, at least 1 (leave --steps out for the sim's own count)")
	}
	f.o.steps, f.o.stepsOK = n, true
	return nil
}

// config checks the options against the sim's spec and reads its data:
// the Values, the Table (nil without --data) and the seed (def without
// --seed). For a sim that reads a whole file (Spec.DataFile), --data
// becomes that parameter in o.set, so that the TUI's pane and the
// command that reproduces it carry it. Errors are usage errors naming
// the sim.
func (o *simOptions) config(spec *sims.Spec) (sims.Values, *sims.Table, error) {
	if o.data != "" && spec.DataFile != "" {
		// A file the sim reads whole: --data is its parameter.
		if _, ok := o.set[spec.DataFile]; ok {
			return sims.Values{}, nil, usageErr("%s: --data and --set %s both name the file; give one", spec.Name, spec.DataFile)
		}
		if o.set == nil {
			o.set = map[string]string{}
		}
		o.set[spec.DataFile], o.data = o.data, ""
	}
	vals, err := sims.Resolve(spec.Params, o.set)
	if err != nil {
		return sims.Values{}, nil, usageErr("%s: %v", spec.Name, err)
	}
	if o.data == "" {
		return vals, nil, nil
	}
	if spec.Data == "" {
		return sims.Values{}, nil, usageErr("sim %s takes no --data", spec.Name)
	}
	t, err := sims.LoadCSV(nil, o.data, spec.DataText...)
	if errors.Is(err, sims.ErrNoHeader) {
		return sims.Values{}, nil, usageErr("%v (%s: %s)", err, spec.Name, spec.Data)
	}
	if err != nil {
		return sims.Values{}, nil, usageErr("%v", err)
	}
	return vals, t, nil
}

// The flag package's errors, compiled on first use: a run whose flags
// parse never needs them, and compiling at start-up took a fifth of a
// millisecond of every `lab run` (issue 14.7). What the user typed may
// hold any character, a line end too: (?s).
var (
	badValue  = lazyRegexp(`(?s)^invalid (?:boolean )?value "(.*)" for (?:flag )?-+(\S+): (.*)$`)
	noValue   = lazyRegexp(`(?s)^flag needs an argument: -+(.+)$`)
	noSuchArg = lazyRegexp(`(?s)^flag provided but not defined: -+(.+)$`)
)

// lazyRegexp compiles expr the first time the returned function is called.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// flagError rewords the flag package's errors of fs as the user typed the
// flags: `--seed -5: a seed is …`, `unknown flag --bogus`. What the user
// typed is shown by sims.Shown, quoted when it is not plain text: an
// escape code in an unknown flag would otherwise reach the terminal. The
// package's "parse error" says what the flag takes instead.
func flagError(fs *flag.FlagSet, err error) string {
	s := err.Error()
	if m := badValue().FindStringSubmatch(s); m != nil {
		value, uerr := strconv.Unquote(`"` + m[1] + `"`) // the package quoted it with %q
		if uerr != nil {
			value = m[1]
		}
		return fmt.Sprintf("--%s %s: %s", m[2], sims.Shown(value), flagWants(fs.Lookup(m[2]), m[3]))
	}
	if m := noValue().FindStringSubmatch(s); m != nil {
		return fmt.Sprintf("%s needs a value", sims.Shown("--"+m[1]))
	}
	if m := noSuchArg().FindStringSubmatch(s); m != nil {
		return fmt.Sprintf("unknown flag %s", sims.Shown("--"+m[1]))
	}
	return sims.Shown(s)
}

// flagWants replaces the flag package's bare "parse error" and "value out
// of range" with what the flag f takes; a flag's own reason passes as it is.
func flagWants(f *flag.Flag, why string) string {
	if f == nil || (why != "parse error" && why != "value out of range") {
		return why
	}
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return why
	}
	want := ""
	switch g.Get().(type) {
	case bool:
		return "must be true or false (--" + f.Name + " alone is true)"
	case int, int64:
		want = "a whole number"
	case uint, uint64:
		want = "a whole number, 0 or more"
	case float64:
		want = "a number"
	case time.Duration:
		want = "a duration such as 90s, 5m or 1h30m"
	default:
		return why
	}
	if why == "value out of range" {
		return "out of range for " + want
	}
	return "must be " + want
}
