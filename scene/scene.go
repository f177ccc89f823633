// Package scene holds scenes: named dashboards declared once, in a small
// text format a person reads and writes, that open the lab on an idea of
// the notes — one to four panes side by side, each a sim with its
// parameters, seed and speed, and a two-line caption saying what to watch
// and where in the notes it is. The lab ships scenes built in
// (Builtins: the tour, each with a claim its test checks, claims.go); a
// saved dashboard is a scene too (steps, a data file and its checksum
// added), and a teacher's own are files in the same format.
//
// The format, one field a line (a '#' starts a comment line):
//
//	name    mh-vs-hmc
//	title   MH against HMC on a banana
//	notes   002
//	chapter §3 Markov chain Monte Carlo
//	caption MH's random walk crawls along the banana; HMC's trajectories cross it.
//	caption Compare the ESS in the two headers (seed 002 §3.3).
//	focus   2
//	pane    mh --seed=1 --speed=100 target=banana
//	pane    hmc --seed=1 --speed=30 target=banana
//
// A pane line names its sim, then words: the pane's own settings as the
// command line's flags, --seed=S, --speed=R (steps a second: one of the
// speed keys' notches, 1 2 5 10 30 100 300 1000 10000, or max),
// --steps=N (open paused after N steps), --data=FILE.csv and
// --sha256=HEX (its checksum, when saved); and the sim's parameters as
// name=value (lab help SIM), a sim's own data, steps or seed
// parameter included. A value with a space or a quote is written in
// double quotes, Go-escaped.
package scene

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/thelab/lab/sims"
)

// Scene is a named dashboard: its panes, which is focused, and what it
// says about them.
type Scene struct {
	Name  string
	Title string
	// Notes is the seed file of the notes the scene illustrates ("000" to
	// "004") and Chapter its section there ("§3 MCMC"); the tour groups
	// by them.
	Notes, Chapter string
	// Caption is what to watch, one or two lines.
	Caption []string
	// Focus is the index of the focused pane.
	Focus int
	Panes []Pane
}

// Pane is one pane of a scene.
type Pane struct {
	Sim string
	// Set are the parameters given, in order.
	Set []Setting
	// Seed is the pane's seed when SeedSet; otherwise the dashboard's
	// rule gives it one (the session's seed counting up).
	Seed    uint64
	SeedSet bool
	// Speed is the steps a second the pane starts at when SpeedSet
	// (sims.MaxSpeed, 0, is as fast as it goes); otherwise the sim's own.
	Speed    float64
	SpeedSet bool
	// Steps, when positive, opens the pane paused after that many steps
	// (a saved dashboard's).
	Steps int
	// Data is the CSV file the pane runs on ("" for the sim's own data)
	// and DataSum its SHA-256 in hex when the scene was saved.
	Data, DataSum string
	// Table is the data file as Load read it (nil for the sim's own
	// data, or a scene not read by Load); not part of the format.
	Table *sims.Table
}

// Setting is a parameter's value as typed.
type Setting struct{ Name, Value string }

// SetMap is the pane's parameters as --set gives them.
func (p Pane) SetMap() map[string]string {
	m := make(map[string]string, len(p.Set))
	for _, s := range p.Set {
		m[s.Name] = s.Value
	}
	return m
}

// SettingsOf are the parameters set by hand in vals, in the sim's
// order, as a scene's pane line keeps them (canonical text).
func SettingsOf(vals sims.Values) []Setting {
	set := vals.Explicit()
	var out []Setting
	for _, prm := range vals.Params() {
		if v, ok := set[prm.Name]; ok {
			out = append(out, Setting{Name: prm.Name, Value: v})
		}
	}
	return out
}

// MaxPanes is the most panes a scene has.
const MaxPanes = 4

// MaxBytes is the largest scene file read.
const MaxBytes = 64 << 10

var nameRE = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// Parse reads a scene. where names the source in errors ("tour.scene").
// It checks the format only; Check checks the scene against a catalogue.
func Parse(r io.Reader, where string) (Scene, error) {
	var s Scene
	focus := 0
	sc := bufio.NewScanner(io.LimitReader(r, MaxBytes+1))
	sc.Buffer(make([]byte, 0, 4096), MaxBytes+1)
	read, line := 0, 0
	fail := func(format string, a ...any) (Scene, error) {
		return Scene{}, fmt.Errorf("%s:%d: %s", where, line, fmt.Sprintf(format, a...))
	}
	for sc.Scan() {
		line++
		read += len(sc.Bytes()) + 1
		if read > MaxBytes {
			return fail("longer than %d bytes", MaxBytes)
		}
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		key, rest, _ := strings.Cut(text, " ")
		rest = strings.TrimSpace(rest)
		once := func(field *string) error {
			if *field != "" {
				return fmt.Errorf("%s given twice", key)
			}
			if rest == "" {
				return fmt.Errorf("%s is empty", key)
			}
			*field = rest
			return nil
		}
		var err error
		switch key {
		case "name":
			err = once(&s.Name)
			if err == nil && !nameRE.MatchString(s.Name) {
				err = fmt.Errorf("name %q: lower-case letters and digits in words joined by -", s.Name)
			}
		case "title":
			err = once(&s.Title)
		case "notes":
			err = once(&s.Notes)
		case "chapter":
			err = once(&s.Chapter)
		case "caption":
			if rest == "" {
				err = errors.New("caption is empty")
			}
			s.Caption = append(s.Caption, rest)
		case "focus":
			if focus != 0 {
				err = errors.New("focus given twice")
			} else if focus, err = strconv.Atoi(rest); err != nil || focus < 1 {
				err = fmt.Errorf("focus %q: the number of a pane, from 1", rest)
			}
		case "pane":
			var p Pane
			p, err = parsePane(rest)
			s.Panes = append(s.Panes, p)
		default:
			err = fmt.Errorf("unknown field %q (name, title, notes, chapter, caption, focus, pane)", key)
		}
		if err != nil {
			return fail("%v", err)
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return fail("a line longer than %d bytes", MaxBytes)
		}
		return Scene{}, fmt.Errorf("%s: %v", where, err)
	}
	switch {
	case s.Name == "":
		return fail("no name")
	case len(s.Panes) == 0:
		return fail("no pane")
	case len(s.Panes) > MaxPanes:
		return fail("%d panes: at most %d", len(s.Panes), MaxPanes)
	case len(s.Caption) > 2:
		return fail("%d caption lines: at most 2", len(s.Caption))
	case focus > len(s.Panes):
		return fail("focus %d: the scene has %d panes", focus, len(s.Panes))
	}
	if focus > 0 {
		s.Focus = focus - 1
	}
	return s, nil
}

// parsePane reads a pane line after "pane".
func parsePane(text string) (Pane, error) {
	words, err := splitWords(text)
	if err != nil {
		return Pane{}, err
	}
	if len(words) == 0 {
		return Pane{}, errors.New("pane names no sim")
	}
	p := Pane{Sim: words[0]}
	seen := map[string]bool{}
	for _, w := range words[1:] {
		k, v, ok := strings.Cut(w, "=")
		if !ok || k == "" || k == "--" {
			return Pane{}, fmt.Errorf("%q: want name=value or --setting=value", w)
		}
		if seen[k] {
			return Pane{}, fmt.Errorf("%s given twice", k)
		}
		seen[k] = true
		switch k {
		case "--seed":
			if p.Seed, err = strconv.ParseUint(v, 10, 64); err != nil {
				return Pane{}, fmt.Errorf("seed %q: a whole number 0..18446744073709551615", v)
			}
			p.SeedSet = true
		case "--speed":
			if p.Speed, err = parseSpeed(v); err != nil {
				return Pane{}, err
			}
			p.SpeedSet = true
		case "--steps":
			if p.Steps, err = strconv.Atoi(v); err != nil || p.Steps < 0 {
				return Pane{}, fmt.Errorf("steps %q: a whole number, at least 0", v)
			}
		case "--data":
			p.Data = v
		case "--sha256":
			if len(v) != 64 || strings.Trim(v, "0123456789abcdef") != "" {
				return Pane{}, fmt.Errorf("sha256 %q: 64 hex digits", v)
			}
			p.DataSum = v
		default:
			if strings.HasPrefix(k, "-") {
				return Pane{}, fmt.Errorf("unknown setting %s (--seed, --speed, --steps, --data, --sha256)", k)
			}
			p.Set = append(p.Set, Setting{k, v})
		}
	}
	return p, nil
}

// parseSpeed reads a speed: one of sims.Speeds' notches, or max.
func parseSpeed(v string) (float64, error) {
	if v == "max" {
		return sims.MaxSpeed, nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f == sims.MaxSpeed || !slices.Contains(sims.Speeds, f) {
		return 0, fmt.Errorf("speed %q: one of 1 2 5 10 30 100 300 1000 10000 (steps a second), or max", v)
	}
	return f, nil
}

// splitWords splits a line at spaces, a double-quoted part (Go syntax)
// keeping its spaces: key="a b" is one word, key=a b.
func splitWords(text string) ([]string, error) {
	var words []string
	for text = strings.TrimLeft(text, " \t"); text != ""; text = strings.TrimLeft(text, " \t") {
		var w strings.Builder
		for text != "" && text[0] != ' ' && text[0] != '\t' {
			if text[0] != '"' {
				i := strings.IndexAny(text, " \t\"")
				if i < 0 {
					i = len(text)
				}
				w.WriteString(text[:i])
				text = text[i:]
				continue
			}
			q, err := strconv.QuotedPrefix(text)
			if err != nil {
				return nil, fmt.Errorf("unterminated or bad quote in %q", text)
			}
			u, _ := strconv.Unquote(q)
			w.WriteString(u)
			text = text[len(q):]
		}
		words = append(words, w.String())
	}
	return words, nil
}

// word writes s as one word of a pane line: quoted when it has a space, a
// quote or something not printable.
func word(s string) string {
	if s != "" && !strings.ContainsFunc(s, func(r rune) bool { return r <= ' ' || r == '"' || r == 0x7f || !strconv.IsPrint(r) }) {
		return s
	}
	return strconv.Quote(s)
}

// Format writes the scene in its file format; Parse reads it back to the
// same Scene.
func (s Scene) Format() string {
	var b strings.Builder
	field := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&b, "%-8s%s\n", k, v)
		}
	}
	field("name", s.Name)
	field("title", s.Title)
	field("notes", s.Notes)
	field("chapter", s.Chapter)
	for _, c := range s.Caption {
		field("caption", c)
	}
	if s.Focus > 0 {
		field("focus", strconv.Itoa(s.Focus+1))
	}
	for _, p := range s.Panes {
		field("pane", p.words())
	}
	return b.String()
}

// words is a pane's line after "pane".
func (p Pane) words() string {
	w := []string{p.Sim}
	if p.SeedSet {
		w = append(w, "--seed="+strconv.FormatUint(p.Seed, 10))
	}
	if p.SpeedSet {
		sp := "max"
		if p.Speed != sims.MaxSpeed {
			sp = strconv.FormatFloat(p.Speed, 'g', -1, 64)
		}
		w = append(w, "--speed="+sp)
	}
	if p.Steps > 0 {
		w = append(w, "--steps="+strconv.Itoa(p.Steps))
	}
	if p.Data != "" {
		w = append(w, "--data="+word(p.Data))
	}
	if p.DataSum != "" {
		w = append(w, "--sha256="+p.DataSum)
	}
	for _, st := range p.Set {
		w = append(w, st.Name+"="+word(st.Value))
	}
	return strings.Join(w, " ")
}

// Check checks a scene against a catalogue: every sim exists and takes
// the parameters given (their values resolve as --set's do), and a
// built-in scene (builtin) has its title, notes, chapter and caption.
func (s Scene) Check(cat *sims.Catalog, builtin bool) error {
	if builtin {
		switch {
		case s.Title == "", s.Chapter == "", len(s.Caption) == 0:
			return fmt.Errorf("scene %s: a built-in scene needs a title, a chapter and a caption", s.Name)
		case !slices.Contains([]string{"000", "001", "002", "003", "004"}, s.Notes):
			return fmt.Errorf("scene %s: notes %q: one of 000 … 004", s.Name, s.Notes)
		}
	}
	for i, p := range s.Panes {
		spec := cat.Lookup(p.Sim)
		if spec == nil {
			return fmt.Errorf("scene %s, pane %d: unknown sim %q (lab list shows them)", s.Name, i+1, p.Sim)
		}
		if p.Data != "" && spec.Data == "" {
			return fmt.Errorf("scene %s, pane %d: sim %s takes no --data", s.Name, i+1, p.Sim)
		}
		if _, err := sims.Resolve(spec.Params, p.SetMap()); err != nil {
			return fmt.Errorf("scene %s, pane %d (%s): %v", s.Name, i+1, p.Sim, err)
		}
	}
	return nil
}
