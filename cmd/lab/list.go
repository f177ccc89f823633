package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/catalog"
)

// listCmd prints the catalogue: every sim with its source, its data and its
// parameters with defaults and ranges.
func listCmd(args []string, w io.Writer) error {
	if len(args) > 0 {
		return usageErr("list takes no arguments")
	}
	for i, s := range catalog.All().Specs() {
		if i > 0 {
			fmt.Fprintln(w)
		}
		writeSpec(w, s)
	}
	return nil
}

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
