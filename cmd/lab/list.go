package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/catalog"
)

// listCmd prints the catalogue, one sim a line (name and title) under its
// family's heading, or with --long every sim's source, data and parameters
// with defaults and ranges.
// A filter lists the sims that match it, best first, as the TUI's
// catalogue does (sims.Catalog.Search). None matching is a usage error,
// status 2, as an unknown sim's name is to lab run: status 1 is a run
// that failed.
func listCmd(args []string, w io.Writer) error {
	fs := flag.NewFlagSet("list", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	long := fs.Bool("long", false, "")
	fs.BoolVar(long, "l", false, "")
	var terms []string
	for {
		if err := fs.Parse(args); err != nil {
			return usageErr("list: %s (usage: lab list [--long] [FILTER])", flagError(fs, err))
		}
		if fs.NArg() == 0 {
			break
		}
		terms = append(terms, fs.Arg(0))
		args = fs.Args()[1:]
	}
	term := strings.Join(terms, " ")
	cat := catalog.All()
	found := cat.Search(term)
	if len(found) == 0 {
		return usageErr("no sim matches %q (lab list shows them all)", term)
	}
	if *long {
		for i, m := range found {
			if i > 0 {
				fmt.Fprintln(w)
			}
			writeSpec(w, m.Spec)
		}
		return nil
	}
	nameW := 0
	for _, m := range found {
		nameW = max(nameW, len(m.Spec.Name))
	}
	if term != "" {
		for _, m := range found {
			fmt.Fprintf(w, "%-*s  %s\n", nameW, m.Spec.Name, m.Spec.Title)
		}
		return nil
	}
	for i, f := range cat.Families() {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s%s:\n", strings.ToUpper(f.Name[:1]), f.Name[1:])
		for _, s := range f.Specs {
			fmt.Fprintf(w, "  %-*s  %s\n", nameW, s.Name, s.Title)
		}
	}
	fmt.Fprintf(w, "\n%d sims. lab list WORDS finds sims by name, title or family; lab help SIM shows one's parameters\n"+
		"and examples; lab list --long shows them all.\n", len(found))
	return nil
}

// writeSpec prints a sim's catalogue entry with its parameters' defaults,
// ranges and help, in a table.
func writeSpec(w io.Writer, s *sims.Spec) {
	fmt.Fprintf(w, "%s — %s\n", s.Name, s.Title)
	fmt.Fprintf(w, "  source: %s\n", s.Source)
	if s.Data != "" {
		fmt.Fprintf(w, "  --data: %s\n", s.Data)
	}
	fmt.Fprintf(w, "  headless default: %d steps\n", s.Steps)
	if len(s.Params) == 0 {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  parameter\tdefault\trange\thelp")
	defaults := s.Defaults()
	for _, p := range s.Params {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", p.Name, defaults.Text(p.Name), p.Range(), strings.TrimSpace(p.Help))
		if p.DefaultNote != "" {
			fmt.Fprintf(tw, "  \t\t\tdefault: %s\n", p.DefaultNote)
		}
	}
	tw.Flush()
}
