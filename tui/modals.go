package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/list"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/thelab/lab/sims"
)

// helpModal lists every key.
type helpModal struct{}

func (helpModal) update(m *Model, msg tea.Msg) (modal, tea.Cmd) {
	if _, ok := msg.(tea.KeyPressMsg); ok {
		return nil, nil // any key closes it
	}
	return helpModal{}, nil
}

func (helpModal) view(m *Model) string {
	h := m.help
	h.SetWidth(max(20, m.w-8))
	body := bold("Keys") + "\n\n" + h.FullHelpView(m.keys.FullHelp()) +
		"\n\n" + dim("Mouse: click a pane to focus it. Any key closes this.", PaneStyle{Mono: m.mono})
	return overlayStyle.Render(body)
}

// catalogItem is a sim in the catalogue list.
type catalogItem struct{ spec *sims.Spec }

func (i catalogItem) Title() string       { return i.spec.Name + " — " + i.spec.Title }
func (i catalogItem) Description() string { return i.spec.Source }
func (i catalogItem) FilterValue() string {
	return i.spec.Name + " " + i.spec.Title + " " + i.spec.Source
}

// catalogModal is the filterable list of every sim; enter adds a pane.
type catalogModal struct{ list list.Model }

func newCatalogModal(m *Model) *catalogModal {
	specs := m.opts.Catalog.Specs()
	items := make([]list.Item, len(specs))
	for i, s := range specs {
		items[i] = catalogItem{s}
	}
	d := list.NewDefaultDelegate()
	l := list.New(items, d, 0, 0)
	l.Title = "Add a sim  (/ filter · enter add · esc close)"
	l.Styles = list.DefaultStyles(true)
	l.SetStatusBarItemName("sim", "sims")
	l.DisableQuitKeybindings()
	l.SetShowHelp(false)
	c := &catalogModal{list: l}
	c.resize(m)
	return c
}

func (c *catalogModal) resize(m *Model) {
	c.list.SetSize(max(30, min(100, m.w-8)), max(6, m.h-6))
}

func (c *catalogModal) update(m *Model, msg tea.Msg) (modal, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		c.resize(m)
	case tea.KeyPressMsg:
		if c.list.FilterState() != list.Filtering {
			switch msg.String() {
			case "esc":
				if c.list.FilterState() == list.Unfiltered {
					return nil, nil
				}
			case "enter":
				if it, ok := c.list.SelectedItem().(catalogItem); ok {
					if err := m.addPane(it.spec.Name); err != nil {
						m.report(err)
					} else {
						m.setFlash("added " + it.spec.Name)
					}
				}
				return nil, nil
			}
		}
	}
	var cmd tea.Cmd
	c.list, cmd = c.list.Update(msg)
	return c, cmd
}

func (c *catalogModal) view(m *Model) string { return overlayStyle.Render(c.list.View()) }

// paramEditor edits the parameters of one pane. Every field is checked when
// the user applies; a bad value is refused in place with the reason, and the
// running sim is untouched until all values are valid.
type paramEditor struct {
	pane   *pane
	params []sims.Param
	orig   []string // the text of each field when the editor opened
	inputs []textinput.Model
	errs   []string
	focus  int
	err    string // why the sim could not be rebuilt
}

func newParamEditor(m *Model, p *pane) modal {
	vals := p.snap.Values
	e := &paramEditor{pane: p, params: vals.Params()}
	for _, prm := range e.params {
		ti := textinput.New()
		ti.Prompt = ""
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

func (e *paramEditor) update(m *Model, msg tea.Msg) (modal, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return e, nil
	}
	switch k.String() {
	case "esc":
		return nil, nil
	case "tab", "down":
		e.move(1)
		return e, nil
	case "shift+tab", "up":
		e.move(-1)
		return e, nil
	case "enter":
		if e.apply(m) {
			return nil, nil
		}
		return e, nil
	}
	if len(e.inputs) == 0 {
		return e, nil
	}
	var cmd tea.Cmd
	e.inputs[e.focus], cmd = e.inputs[e.focus].Update(msg)
	e.errs[e.focus] = ""
	return e, cmd
}

func (e *paramEditor) move(d int) {
	if len(e.inputs) == 0 {
		return
	}
	e.inputs[e.focus].Blur()
	e.focus = (e.focus + d + len(e.inputs)) % len(e.inputs)
	e.inputs[e.focus].Focus()
}

// apply validates every field and restarts the sim with them; it reports
// whether the editor may close.
func (e *paramEditor) apply(m *Model) bool {
	vals := e.pane.snap.Values
	set := vals.Explicit()
	bad := false
	for i, prm := range e.params {
		text := strings.TrimSpace(e.inputs[i].Value())
		if text == e.orig[i] && !vals.IsSet(prm.Name) {
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
		return false
	}
	next, err := sims.Resolve(e.params, set)
	if err == nil {
		err = e.pane.r.SetValues(next)
	}
	if err != nil {
		e.err = err.Error()
		return false
	}
	e.pane.snap = e.pane.r.Latest()
	m.setFlash("restarted " + e.pane.snap.Spec.Name + " with new parameters")
	return true
}

func (e *paramEditor) view(m *Model) string {
	st := PaneStyle{Mono: m.mono}
	nameW := 0
	for _, p := range e.params {
		nameW = max(nameW, len(p.Name))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s  %s\n\n", bold("Parameters of "+e.pane.snap.Spec.Name),
		dim("tab/↑↓ move · enter apply · esc cancel", st))
	if len(e.params) == 0 {
		b.WriteString("This sim has no parameters.\n")
	}
	width := max(40, min(m.w-8, 110))
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
	if e.err != "" {
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
