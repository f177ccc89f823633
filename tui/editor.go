package tui

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
	"github.com/thelab/lab/tui/chart"
)

// paramEditor edits the parameters of one pane. Every field is checked when
// the user applies; a bad value is refused in place with the reason, and the
// running sim is untouched until all values are valid. The new sim is built
// off the update loop: the editor says so and closes when it runs, or shows
// why it could not be built (the old sim runs on meanwhile).
//
// It fits any screen from 80×24 up: one row per parameter, scrolled so that
// the focused one is always in view, and below them the whole help of the
// focused parameter, wrapped. A field's value is selected when the field
// is entered, so typing replaces it; ←/→ step through a choice.
type paramEditor struct {
	p        *pane
	name     string
	vals     sims.Values // the values when the editor opened
	params   []sims.Param
	fields   []field
	focus    int
	offset   int    // the first parameter in view
	err      string // why the sim could not be rebuilt
	building bool   // the new values are being built
	keys     keyMap
	s        screen
}

// field is one parameter's input.
type field struct {
	in    textinput.Model
	orig  string // the text when the editor opened
	err   string // why the value was refused
	fresh bool   // the whole value is selected: typing replaces it
}

func newParamEditor(p *pane, keys keyMap, s screen) *paramEditor {
	vals := p.snap.Values
	e := &paramEditor{p: p, name: p.snap.Spec.Name, vals: vals, params: vals.Params(), keys: keys, s: s}
	for _, prm := range e.params {
		ti := textinput.New()
		ti.Prompt = ""
		ti.SetStyles(steadyCursor(ti.Styles()))
		ti.SetValue(vals.Text(prm.Name))
		ti.CharLimit = sims.MaxText
		e.fields = append(e.fields, field{in: ti, orig: vals.Text(prm.Name), fresh: true})
	}
	if len(e.fields) > 0 {
		e.fields[0].in.Focus()
	}
	return e
}

// Help is the editor's keys for the bottom bar: ←/→ when the focused
// field is a choice, and that typing replaces a selected value.
func (e *paramEditor) Help() []key.Binding {
	k := e.keys
	out := []key.Binding{helpOnly("↑↓/tab", "move")}
	if len(e.fields) > 0 {
		if e.params[e.focus].Kind == param.KindChoice {
			out = append(out, helpOnly("←/→", "choose"))
		}
		if e.fields[e.focus].fresh {
			out = append(out, helpOnly("type", "replaces"))
		}
	}
	return append(out, k.Accept, k.Cancel, k.ForceQuit)
}

func (e *paramEditor) Update(msg tea.Msg) (modal, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		e.s.w, e.s.h = msg.Width, msg.Height
		e.scroll()
	case builtMsg:
		if msg.p != e.p || msg.what != buildParams || errors.Is(msg.err, sims.ErrSuperseded) {
			return e, nil
		}
		e.building = false
		if msg.err == nil {
			return nil, nil
		}
		e.err = msg.err.Error()
		e.scroll()
	case tea.KeyPressMsg:
		return e.key(msg)
	case tea.PasteMsg:
		// A paste is typing many keys at once: it replaces a selected
		// value, as typing does.
		if len(e.fields) == 0 {
			return e, nil
		}
		if f := &e.fields[e.focus]; f.fresh {
			f.in.SetValue("")
			f.fresh = false
		}
		return e, e.edit(msg)
	}
	return e, nil
}

func (e *paramEditor) key(msg tea.KeyPressMsg) (modal, tea.Cmd) {
	switch {
	case key.Matches(msg, e.keys.Cancel):
		return nil, nil
	case key.Matches(msg, e.keys.NextField):
		e.setFocus(e.focus + 1)
		return e, nil
	case key.Matches(msg, e.keys.PrevField):
		e.setFocus(e.focus - 1)
		return e, nil
	case key.Matches(msg, e.keys.Accept):
		return e, e.apply()
	}
	if len(e.fields) == 0 {
		return e, nil
	}
	f, prm := &e.fields[e.focus], e.params[e.focus]
	choice := prm.Kind == param.KindChoice && len(prm.Choices) > 0
	switch {
	case choice && key.Matches(msg, e.keys.ChoicePrev):
		e.cycle(-1)
		return e, nil
	case choice && key.Matches(msg, e.keys.ChoiceNext):
		e.cycle(1)
		return e, nil
	case f.fresh && key.Matches(msg, e.keys.Erase):
		f.in.SetValue("")
		f.fresh, f.err = false, ""
		e.scroll()
		return e, nil
	case f.fresh && msg.Text != "":
		f.in.SetValue("") // typing replaces the selected value
		f.fresh = false
	}
	return e, e.edit(msg)
}

// edit hands a key or a paste to the focused field's text input.
func (e *paramEditor) edit(msg tea.Msg) tea.Cmd {
	f := &e.fields[e.focus]
	value, pos := f.in.Value(), f.in.Position()
	var cmd tea.Cmd
	f.in, cmd = f.in.Update(msg)
	if f.in.Value() != value || f.in.Position() != pos {
		f.fresh = false // a key that edits or moves the cursor ends the selection
	}
	if f.err != "" && f.in.Value() != value {
		f.err = ""
	}
	e.scroll()
	return cmd
}

// cycle steps the focused choice by d through its choices.
func (e *paramEditor) cycle(d int) {
	f, prm := &e.fields[e.focus], e.params[e.focus]
	i := slices.Index(prm.Choices, strings.TrimSpace(f.in.Value()))
	switch {
	case i < 0 && d > 0:
		i = 0
	case i < 0:
		i = len(prm.Choices) - 1
	default:
		i = (i + d + len(prm.Choices)) % len(prm.Choices)
	}
	f.in.SetValue(prm.Choices[i])
	f.fresh, f.err = true, ""
	e.scroll()
}

// setFocus moves to field i (wrapping), with its value selected.
func (e *paramEditor) setFocus(i int) {
	n := len(e.fields)
	if n == 0 {
		return
	}
	e.fields[e.focus].in.Blur()
	e.focus = (i + n) % n
	f := &e.fields[e.focus]
	f.in.Focus()
	f.in.CursorEnd()
	f.fresh = true
	e.scroll()
}

// scroll keeps the focused parameter in view.
func (e *paramEditor) scroll() {
	e.offset = e.viewOffset(e.layout(e.s).rows)
}

// viewOffset is the first parameter shown in rows rows, the focused one in
// view, moving as little as possible from the present offset.
func (e *paramEditor) viewOffset(rows int) int {
	off := e.offset
	if rows <= 0 {
		return e.focus
	}
	off = min(off, e.focus)
	off = max(off, e.focus-rows+1)
	return max(0, min(off, len(e.params)-rows))
}

// apply validates every field and, if all are good, asks for the sim to be
// rebuilt with them; otherwise it goes to the first bad field.
func (e *paramEditor) apply() tea.Cmd {
	set := e.vals.Explicit()
	bad := -1
	for i, prm := range e.params {
		text := strings.TrimSpace(e.fields[i].in.Value())
		if text == e.fields[i].orig && !e.vals.IsSet(prm.Name) {
			continue // untouched defaults stay defaults, so they may follow other parameters
		}
		if _, err := prm.Parse(text); err != nil {
			e.fields[i].err = err.Error()
			if bad < 0 {
				bad = i
			}
			continue
		}
		set[prm.Name] = text
	}
	if bad >= 0 {
		e.setFocus(bad)
		return nil
	}
	next, err := sims.Resolve(e.params, set)
	if err != nil {
		e.err = err.Error()
		e.scroll()
		return nil
	}
	e.err, e.building = "", true
	e.scroll()
	return send(applyParamsMsg{e.p, next})
}

// editorLayout is where things go in the editor's box.
type editorLayout struct {
	inner        int      // width inside the border and padding
	rows         int      // parameter rows in view
	detail       []string // the focused parameter's help, range, default, error
	status       []string // building, or why the build failed
	nameW, valW  int
	rangeW       int
	scrollMarker bool
}

func (e *paramEditor) layout(s screen) editorLayout {
	bw, bh := s.maxBox()
	l := editorLayout{inner: max(20, min(bw-6, 100))}
	st := PaneStyle{Mono: s.mono}
	l.detail = e.detail(e.focus, l.inner, st)
	l.status = e.statusLines(l.inner, st)
	// The detail keeps the height of the longest, so that the box stays
	// put while the focus moves.
	for i := range e.params {
		if n := len(e.detail(i, l.inner, st)); n > len(l.detail) {
			l.detail = append(l.detail, make([]string, n-len(l.detail))...)
		}
	}
	// Inside the border: the title, a blank line, the rows, a rule, the
	// detail and the status.
	room := bh - 2 - 3 - len(l.detail) - len(l.status)
	want := min(len(e.params), 3)
	if room < want { // a long help gives up lines before the rows do
		if cut := min(len(l.detail)-1, want-room); cut > 0 {
			l.detail = append(l.detail[:len(l.detail)-cut-1], "…")
			room += cut
		}
	}
	l.rows = max(1, min(len(e.params), room))
	l.scrollMarker = l.rows < len(e.params)
	for _, p := range e.params {
		l.nameW = max(l.nameW, ansi.StringWidth(p.Name))
	}
	l.nameW = min(l.nameW, 18)
	l.valW = max(8, min(30, l.inner-2-l.nameW-2-2-16))
	l.rangeW = max(0, l.inner-2-l.nameW-2-l.valW-2)
	return l
}

// detail is parameter i's help, in full, its range or choices, its
// default's rule and why its value was refused.
func (e *paramEditor) detail(i, w int, st PaneStyle) []string {
	if len(e.params) == 0 {
		return []string{"This sim has no parameters."}
	}
	p, f := e.params[i], e.fields[i]
	wrap := func(s string) []string { return wrapLines(s, w) }
	lines := wrap(bold(p.Name) + ": " + p.Explained())
	if p.Kind == param.KindChoice {
		cur := strings.TrimSpace(f.in.Value())
		var cs []string
		for _, c := range p.Choices {
			if c == cur {
				c = selectedStyle.Render(c)
			}
			cs = append(cs, c)
		}
		lines = append(lines, wrap(dim("←/→: ", st)+strings.Join(cs, dim(" · ", st)))...)
	} else {
		lines = append(lines, wrap(dim("range "+p.Range(), st))...)
	}
	if p.DefaultNote != "" {
		lines = append(lines, wrap(dim("default: "+p.DefaultNote, st))...)
	}
	if f.err != "" {
		lines = append(lines, wrap(errorStyle.Render("✗ "+f.err))...)
	}
	return lines
}

func (e *paramEditor) statusLines(w int, st PaneStyle) []string {
	switch {
	case e.building:
		return wrapLines(keyStyle.Render("building…")+dim(" the pane runs its present sim until the new one is ready", st), w)
	case e.err != "":
		return wrapLines(errorStyle.Render("✗ "+e.err), w)
	}
	return nil
}

func (e *paramEditor) View(s screen) string {
	st := PaneStyle{Mono: s.mono}
	l := e.layout(s)
	off := e.viewOffset(l.rows)
	title := bold("Parameters of " + e.name)
	if l.scrollMarker {
		pos := fmt.Sprintf("%d–%d of %d", off+1, off+l.rows, len(e.params))
		if off > 0 {
			pos = "↑ " + pos
		}
		if off+l.rows < len(e.params) {
			pos += " ↓"
		}
		gap := max(1, l.inner-ansi.StringWidth(title)-ansi.StringWidth(pos))
		title += strings.Repeat(" ", gap) + dim(pos, st)
	}
	lines := []string{title, ""}
	for i := off; i < off+l.rows && i < len(e.params); i++ {
		lines = append(lines, e.row(i, l, st))
	}
	lines = append(lines, dim(strings.Repeat("─", l.inner), st))
	lines = append(lines, l.detail...)
	lines = append(lines, l.status...)
	for i := range lines {
		lines[i] = chart.FitLine(lines[i], l.inner)
	}
	return overlayBox(lines)
}

// row is parameter i's line: a marker, its name, its value and its range.
func (e *paramEditor) row(i int, l editorLayout, st PaneStyle) string {
	p, f := e.params[i], &e.fields[i]
	marker := "  "
	switch {
	case i == e.focus:
		marker = keyStyle.Render("▸ ")
	case f.err != "":
		marker = errorStyle.Render("✗ ")
	}
	name := chart.FitLine(ansi.Truncate(p.Name, l.nameW, "…"), l.nameW)
	var value string
	text := f.in.Value()
	switch {
	case i == e.focus && f.fresh:
		value = selectedStyle.Render(ansi.Truncate(text, l.valW-1, "…"))
	case i == e.focus:
		f.in.SetWidth(l.valW - 1)
		value = f.in.View()
	case strings.TrimSpace(text) != f.orig:
		value = bold(ansi.Truncate(text, l.valW, "…"))
	default:
		value = ansi.Truncate(text, l.valW, "…")
	}
	value = chart.FitLine(value, l.valW)
	rng := ""
	if l.rangeW > 0 {
		rng = dim(ansi.Truncate(p.Range(), l.rangeW, "…"), st)
	}
	return marker + name + "  " + value + "  " + rng
}
