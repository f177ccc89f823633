package tui

import (
	"errors"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/list"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/thelab/lab/sims"
)

// modal is an overlay that takes the keys while it is open. It is a model
// of its own: it never touches the root model, and asks for what it wants
// done (add a pane, rebuild one) by returning a command whose message the
// root handles. Returning a nil modal closes it.
type modal interface {
	Update(msg tea.Msg) (modal, tea.Cmd)
	View(s screen) string
}

// screen is what an overlay needs to know to draw itself.
type screen struct {
	w, h int
	mono bool
}

// send is a command that delivers msg.
func send(msg tea.Msg) tea.Cmd { return func() tea.Msg { return msg } }

// helpModal lists every key.
type helpModal struct {
	keys keyMap
	help help.Model
}

func (h helpModal) Update(msg tea.Msg) (modal, tea.Cmd) {
	if _, ok := msg.(tea.KeyPressMsg); ok {
		return nil, nil // any key closes it
	}
	return h, nil
}

func (h helpModal) View(s screen) string {
	h.help.SetWidth(max(20, s.w-8))
	body := bold("Keys") + "\n\n" + h.help.FullHelpView(h.keys.FullHelp()) +
		"\n\n" + dim("Mouse: click a pane to focus it. Any key closes this.", PaneStyle{Mono: s.mono})
	return overlayStyle.Render(body)
}

// catalogItem is a sim in the catalogue list.
type catalogItem struct{ spec *sims.Spec }

func (i catalogItem) Title() string       { return i.spec.Name + " — " + i.spec.Title }
func (i catalogItem) Description() string { return i.spec.Source }
func (i catalogItem) FilterValue() string {
	return i.spec.Name + " " + i.spec.Title + " " + i.spec.Source
}

// addSimMsg asks the root for a new pane (the catalogue's enter).
type addSimMsg struct{ name string }

// catalogModal is the filterable list of every sim; enter adds a pane.
// When the session has all the panes it may have, its title says so and
// enter adds nothing.
type catalogModal struct {
	list list.Model
	keys keyMap
	full string // why no pane can be added, or ""
}

func newCatalogModal(cat *sims.Catalog, keys keyMap, full string, s screen) *catalogModal {
	specs := cat.Specs()
	items := make([]list.Item, len(specs))
	for i, sp := range specs {
		items[i] = catalogItem{sp}
	}
	l := list.New(items, list.NewDefaultDelegate(), 0, 0)
	l.Title = "Add a sim  (/ filter · enter add · esc close)"
	if full != "" {
		l.Title = "Add a sim: " + full + "  (esc close)"
	}
	l.Styles = list.DefaultStyles(true)
	l.FilterInput.SetStyles(steadyCursor(l.FilterInput.Styles()))
	l.SetStatusBarItemName("sim", "sims")
	l.DisableQuitKeybindings()
	l.SetShowHelp(false)
	c := &catalogModal{list: l, keys: keys, full: full}
	c.resize(s.w, s.h)
	return c
}

// steadyCursor stops a text input's cursor blinking: a blink is a redraw
// twice a second for nothing, on every visitor's connection.
func steadyCursor(st textinput.Styles) textinput.Styles {
	st.Cursor.Blink = false
	return st
}

func (c *catalogModal) resize(w, h int) {
	c.list.SetSize(max(30, min(100, w-8)), max(6, h-6))
}

func (c *catalogModal) Update(msg tea.Msg) (modal, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		c.resize(msg.Width, msg.Height)
	case tea.KeyPressMsg:
		if c.list.FilterState() != list.Filtering {
			switch {
			case key.Matches(msg, c.keys.Cancel):
				if c.list.FilterState() == list.Unfiltered {
					return nil, nil
				}
			case key.Matches(msg, c.keys.Accept):
				if c.full != "" {
					return c, nil // the title says why
				}
				if it, ok := c.list.SelectedItem().(catalogItem); ok {
					return nil, send(addSimMsg{it.spec.Name})
				}
				return nil, nil
			}
		}
	}
	var cmd tea.Cmd
	c.list, cmd = c.list.Update(msg)
	return c, cmd
}

func (c *catalogModal) View(screen) string { return overlayStyle.Render(c.list.View()) }

// applyParamsMsg asks the root to rebuild a pane's sim with new values
// (the parameter editor's enter).
type applyParamsMsg struct {
	p    *pane
	vals sims.Values
}

// paramEditor edits the parameters of one pane. Every field is checked when
// the user applies; a bad value is refused in place with the reason, and the
// running sim is untouched until all values are valid. The new sim is built
// off the update loop: the editor says so and closes when it runs, or shows
// why it could not be built (the old sim runs on meanwhile).
type paramEditor struct {
	p        *pane
	name     string
	vals     sims.Values // the values when the editor opened
	params   []sims.Param
	orig     []string // the text of each field when the editor opened
	inputs   []textinput.Model
	errs     []string
	focus    int
	err      string // why the sim could not be rebuilt
	building bool   // the new values are being built
	keys     keyMap
}

func newParamEditor(p *pane, keys keyMap) *paramEditor {
	vals := p.snap.Values
	e := &paramEditor{p: p, name: p.snap.Spec.Name, vals: vals, params: vals.Params(), keys: keys}
	for _, prm := range e.params {
		ti := textinput.New()
		ti.Prompt = ""
		ti.SetStyles(steadyCursor(ti.Styles()))
		ti.SetValue(vals.Text(prm.Name))
		ti.SetWidth(18)
		ti.CharLimit = 64
		e.inputs = append(e.inputs, ti)
		e.orig = append(e.orig, vals.Text(prm.Name))
		e.errs = append(e.errs, "")
	}
	if len(e.inputs) > 0 {
		e.inputs[0].Focus()
	}
	return e
}

func (e *paramEditor) Update(msg tea.Msg) (modal, tea.Cmd) {
	switch msg := msg.(type) {
	case builtMsg:
		if msg.p != e.p || msg.what != buildParams || errors.Is(msg.err, sims.ErrSuperseded) {
			return e, nil
		}
		e.building = false
		if msg.err == nil {
			return nil, nil
		}
		e.err = msg.err.Error()
		return e, nil
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, e.keys.Cancel):
			return nil, nil
		case key.Matches(msg, e.keys.NextField):
			e.move(1)
			return e, nil
		case key.Matches(msg, e.keys.PrevField):
			e.move(-1)
			return e, nil
		case key.Matches(msg, e.keys.Accept):
			return e, e.apply()
		}
		if len(e.inputs) == 0 {
			return e, nil
		}
		var cmd tea.Cmd
		e.inputs[e.focus], cmd = e.inputs[e.focus].Update(msg)
		e.errs[e.focus] = ""
		return e, cmd
	}
	return e, nil
}

func (e *paramEditor) move(d int) {
	if len(e.inputs) == 0 {
		return
	}
	e.inputs[e.focus].Blur()
	e.focus = (e.focus + d + len(e.inputs)) % len(e.inputs)
	e.inputs[e.focus].Focus()
}

// apply validates every field and, if all are good, asks for the sim to be
// rebuilt with them.
func (e *paramEditor) apply() tea.Cmd {
	set := e.vals.Explicit()
	bad := false
	for i, prm := range e.params {
		text := strings.TrimSpace(e.inputs[i].Value())
		if text == e.orig[i] && !e.vals.IsSet(prm.Name) {
			continue // untouched defaults stay defaults, so they may follow other parameters
		}
		if _, err := prm.Parse(text); err != nil {
			e.errs[i] = err.Error()
			bad = true
			continue
		}
		set[prm.Name] = text
	}
	if bad {
		return nil
	}
	next, err := sims.Resolve(e.params, set)
	if err != nil {
		e.err = err.Error()
		return nil
	}
	e.err, e.building = "", true
	return send(applyParamsMsg{e.p, next})
}

func (e *paramEditor) View(s screen) string {
	st := PaneStyle{Mono: s.mono}
	nameW := 0
	for _, p := range e.params {
		nameW = max(nameW, len(p.Name))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s  %s\n\n", bold("Parameters of "+e.name),
		dim(hint(e.keys.NextField)+" · "+hint(e.keys.Accept)+" · "+hint(e.keys.Cancel), st))
	if len(e.params) == 0 {
		b.WriteString("This sim has no parameters.\n")
	}
	width := max(40, min(s.w-8, 110))
	for i, p := range e.params {
		marker := "  "
		if i == e.focus {
			marker = keyStyle.Render("▸ ")
		}
		fmt.Fprintf(&b, "%s%-*s  %s  %s\n", marker, nameW, p.Name, e.inputs[i].View(), dim(p.Range(), st))
		help := p.Help
		if p.DefaultNote != "" {
			help += " (default: " + p.DefaultNote + ")"
		}
		b.WriteString(strings.Repeat(" ", nameW+4) + dim(truncate(help, width-nameW-4), st) + "\n")
		if e.errs[i] != "" {
			b.WriteString(strings.Repeat(" ", nameW+4) + errorStyle.Render("✗ "+e.errs[i]) + "\n")
		}
	}
	switch {
	case e.building:
		b.WriteString("\n" + keyStyle.Render("building…") + dim(" the pane runs its present sim until the new one is ready", st) + "\n")
	case e.err != "":
		b.WriteString("\n" + errorStyle.Render("✗ "+e.err) + "\n")
	}
	return overlayStyle.Render(strings.TrimRight(b.String(), "\n"))
}

func truncate(s string, n int) string {
	if lipgloss.Width(s) <= n || n < 2 {
		return s
	}
	r := []rune(s)
	return string(r[:max(0, n-1)]) + "…"
}
