package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
	"github.com/thelab/lab/tui"
	"github.com/thelab/lab/tui/chart"
)

// helpWidth is where help text wraps.
const helpWidth = 78

// helpCmd prints the usage (no argument, or `serve`, whose flags it
// lists), the run flags (`run`), the TUI's keys (`keys`) or a sim's help.
func helpCmd(args []string, w io.Writer) error {
	switch {
	case len(args) == 0 || args[0] == "serve":
		fmt.Fprint(w, usage)
	case len(args) > 1:
		return usageErr("help: one topic at a time: a sim, run, keys or serve")
	case args[0] == "run":
		fmt.Fprint(w, "Usage: lab run SIM [flags]\n\n"+simFlagsUsage+"\n"+runFlagsUsage)
	case args[0] == "keys":
		fmt.Fprint(w, tui.KeysText())
	default:
		spec, err := lookupSim(args[0])
		if err != nil {
			return err
		}
		writeSimHelp(w, spec)
	}
	return nil
}

// writeSimHelp prints what a sim is, where the notes have it, its data,
// every parameter with its default, range and help, and examples.
func writeSimHelp(w io.Writer, s *sims.Spec) {
	fmt.Fprintf(w, "%s — %s\n\n", s.Name, s.Title)
	fmt.Fprintln(w, wrapIndent("Source in the notes: "+s.Source, 0, 2))
	if s.Data != "" {
		fmt.Fprintln(w, wrapIndent("Data (--data "+dataFileName(s)+"): "+strings.TrimPrefix(s.Data, "--data: "), 0, 2))
	} else {
		fmt.Fprintln(w, "Data: none (its data are built in, from the seed)")
	}
	fmt.Fprintf(w, "Headless: %d steps unless --steps says otherwise; a run stops early when it converges.\n", s.Steps)
	fmt.Fprintln(w, wrapIndent(fmt.Sprintf("Memory: about %s at the defaults; parameters that would hold more than %s are refused (lab run %s --memory measures a run).",
		sims.Bytes(s.EstimateSize(sims.Config{})), sims.Bytes(sims.MaxBytes), s.Name), 0, 2))
	if len(s.Params) == 0 {
		fmt.Fprintln(w, "\nParameters: none.")
	} else {
		fmt.Fprintln(w, "\nParameters (--set name=value; a default may follow the parameters before it):")
		defaults := s.Defaults()
		for _, p := range s.Params {
			head := fmt.Sprintf("  %s = %s", p.Name, defaults.Text(p.Name))
			fmt.Fprintf(w, "%-30s %s\n", head, p.Range())
			fmt.Fprintln(w, wrapIndent(p.Explained(), 6, 6))
			if p.DefaultNote != "" {
				fmt.Fprintln(w, wrapIndent("default: "+p.DefaultNote, 6, 8))
			}
		}
	}
	fmt.Fprintln(w, "\nMetrics (the key lab run and --json print; the pane's name when it differs):")
	for _, d := range s.Metrics {
		head := "  " + d.Key
		if d.Name != d.Key {
			head += "  (" + d.Name + ")"
		}
		fmt.Fprintln(w, head)
		fmt.Fprintln(w, wrapIndent(d.Meaning, 6, 6))
	}
	fmt.Fprintln(w, "\nExamples:")
	for _, ex := range simExamples(s) {
		fmt.Fprintf(w, "  %-50s %s\n", ex[0], ex[1])
	}
}

// simExamples are command lines for a sim and what each does. The one
// that sets a parameter sets the first it can to another valid value: the
// second choice of a choice, else one more (or less) than a number's
// default.
func simExamples(s *sims.Spec) [][2]string {
	steps := strconv.Itoa(s.Steps)
	out := [][2]string{
		{"lab " + s.Name, "open it in the TUI (p edits its parameters)"},
	}
	if set, ok := exampleSet(s); ok {
		seed := strconv.Itoa(exampleSeed)
		out = append(out, [2]string{"lab " + s.Name + " --set " + set + " --seed " + seed, "the same with " + strings.Replace(set, "=", " = ", 1) + ", seed " + seed})
	}
	out = append(out,
		[2]string{"lab run " + s.Name, "run " + steps + " steps headless and print a summary"},
		[2]string{"lab run " + s.Name + " --json --every 10", "one JSON line every 10 steps, the last with the result"},
		[2]string{"lab run " + s.Name + " --frames --size 120x36", "print the pane as the TUI draws it"},
	)
	if s.Data != "" {
		out = append(out, [2]string{"lab run " + s.Name + " --data " + dataExample(s) + " --json", "run it on your own data"})
	}
	return out
}

// dataFileName is what --data takes, as help shows it: FILE.txt for a
// sim that reads a whole file, FILE.csv for a table; dataExample, a file
// of the user's in an example.
func dataFileName(s *sims.Spec) string {
	if s.DataFile != "" {
		return "FILE.txt"
	}
	return "FILE.csv"
}

func dataExample(s *sims.Spec) string {
	if s.DataFile != "" {
		return "book.txt"
	}
	return "points.csv"
}

// exampleSeed is the seed of the example that sets a parameter.
const exampleSeed = 7

// exampleSet is name=value for an example: a parameter set to a value other
// than its default that resolves.
func exampleSet(s *sims.Spec) (string, bool) {
	defaults := s.Defaults()
	var tries []string
	for _, p := range s.Params {
		def := defaults.Text(p.Name)
		switch p.Kind {
		case param.KindChoice:
			for _, c := range p.Choices {
				if c != def {
					tries = append(tries, p.Name+"="+c)
					break
				}
			}
		case param.KindInt:
			if n, err := strconv.Atoi(def); err == nil {
				tries = append(tries, p.Name+"="+strconv.Itoa(n+1), p.Name+"="+strconv.Itoa(n-1))
			}
		}
	}
	for _, t := range tries {
		name, value, _ := strings.Cut(t, "=")
		if _, err := sims.Resolve(s.Params, map[string]string{name: value}); err == nil {
			return t, true
		}
	}
	return "", false
}

// wrapIndent wraps text at helpWidth, the first line indented by first
// spaces and the others by rest.
func wrapIndent(text string, first, rest int) string {
	lines := chart.WrapWhole(text, helpWidth-rest)
	for i, l := range lines {
		n := rest
		if i == 0 {
			n = first
		}
		lines[i] = strings.Repeat(" ", n) + l
	}
	return strings.Join(lines, "\n")
}
