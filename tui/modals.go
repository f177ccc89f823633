package tui

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/list"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/tui/chart"
)

// modal is an overlay that takes the keys while it is open. It is a model
// of its own: it never touches the root model, and asks for what it wants
// done (add a pane, rebuild one) by returning a command whose message the
// root handles. Returning a nil modal closes it.
type modal interface {
	Update(msg tea.Msg) (modal, tea.Cmd)
	View(s screen) string
	// Help is the overlay's keys, for the bottom bar while it is open.
	Help() []key.Binding
}

// screen is what an overlay needs to know to draw itself.
type screen struct {
	w, h int
	mono bool
}

// maxBox is the largest box an overlay may draw on s: the whole screen
// but the bottom bar, which shows the overlay's keys.
func (s screen) maxBox() (w, h int) { return max(0, s.w), max(0, s.h-1) }

// send is a command that delivers msg.
func send(msg tea.Msg) tea.Cmd { return func() tea.Msg { return msg } }

// helpOnly is a binding shown in the bottom bar and never matched: keys
// that a bubbles component matches itself, or a description of several.
func helpOnly(keys, desc string) key.Binding {
	return key.NewBinding(key.WithKeys(keys), key.WithHelp(keys, desc))
}

// anyKey is the help of an overlay that any key closes.
var anyKey = helpOnly("any key", "close")

// helpModal lists every key, grouped, in as many columns as fit.
type helpModal struct{ keys keyMap }

func (h helpModal) Update(msg tea.Msg) (modal, tea.Cmd) {
	if _, ok := msg.(tea.KeyPressMsg); ok {
		return nil, nil // any key closes it
	}
	return h, nil
}

func (h helpModal) Help() []key.Binding { return []key.Binding{anyKey} }

func (h helpModal) View(s screen) string {
	st := PaneStyle{Mono: s.mono}
	sections := h.keys.sections()
	keyW := 0
	for _, sec := range sections {
		for _, e := range sec.entries {
			keyW = max(keyW, ansi.StringWidth(e.keys))
		}
	}
	blocks := make([][]string, len(sections))
	colW := 0
	for i, sec := range sections {
		blocks[i] = append(blocks[i], bold(sec.title))
		for _, e := range sec.entries {
			line := keyStyle.Render(fmt.Sprintf("%-*s", keyW, e.keys)) + " " + dim(e.does, st)
			blocks[i] = append(blocks[i], line)
		}
		for _, l := range blocks[i] {
			colW = max(colW, ansi.StringWidth(l))
		}
	}
	bw, _ := s.maxBox()
	cols := 1
	for _, c := range []int{4, 2} {
		if c*colW+(c-1)*3+4 <= bw {
			cols = c
			break
		}
	}
	// Sections fill a row of cols columns at a time, each row as tall as
	// its tallest.
	var rows []string
	for r := 0; r < len(blocks); r += cols {
		group := blocks[r:min(len(blocks), r+cols)]
		height := 0
		for _, b := range group {
			height = max(height, len(b))
		}
		if r > 0 {
			rows = append(rows, "")
		}
		for y := range height {
			var line strings.Builder
			for i, b := range group {
				if i > 0 {
					line.WriteString("   ")
				}
				cell := ""
				if y < len(b) {
					cell = b[y]
				}
				line.WriteString(chart.FitLine(cell, colW))
			}
			rows = append(rows, line.String())
		}
	}
	title := bold("Keys") + dim("  · any key closes this · the mouse: click a pane to focus it", st)
	return overlayStyle.Render(title + "\n" + strings.Join(rows, "\n"))
}

// catalogItem is a sim in the catalogue list.
// catalogItem is a sim of the catalogue, with its family's name.
type catalogItem struct {
	spec   *sims.Spec
	family string
}

func (i catalogItem) Title() string { return i.spec.Name + " — " + i.spec.Title }
func (i catalogItem) Description() string {
	if i.family == "" {
		return i.spec.Source
	}
	return i.family + " · " + i.spec.Source
}

// FilterValue is the title (whose runes the filter's matches index, for
// highlighting) and the source.
func (i catalogItem) FilterValue() string { return i.Title() + " " + i.spec.Source }

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
		items[i] = catalogItem{sp, cat.FamilyOf(sp.Name)}
	}
	l := list.New(items, list.NewDefaultDelegate(), 0, 0)
	l.Title = "Add a sim  (/ filter · enter add · esc close)"
	if full != "" {
		l.Title = "Add a sim: " + full + "  (esc close)"
	}
	l.Filter = catalogFilter(cat, specs)
	l.Styles = list.DefaultStyles(true)
	l.FilterInput.SetStyles(steadyCursor(l.FilterInput.Styles()))
	l.SetStatusBarItemName("sim", "sims")
	l.DisableQuitKeybindings()
	l.SetShowHelp(false)
	c := &catalogModal{list: l, keys: keys, full: full}
	c.resize(s.w, s.h)
	return c
}

// catalogFilter ranks the catalogue's items as `lab list FILTER` does
// (sims.Catalog.Search: names first), and marks the matched runes of each
// item's title for highlighting.
func catalogFilter(cat *sims.Catalog, specs []*sims.Spec) list.FilterFunc {
	return func(term string, _ []string) []list.Rank {
		lower := strings.ToLower(strings.TrimSpace(term))
		var ranks []list.Rank
		for _, m := range cat.Search(term) {
			i := slices.Index(specs, m.Spec)
			if i < 0 {
				continue
			}
			title := strings.ToLower(catalogItem{spec: m.Spec}.Title())
			var at []int
			if m.Tier == sims.MatchLetters {
				at = sims.Subsequence(title, lower)
			} else if j := strings.Index(title, lower); j >= 0 && lower != "" {
				first := utf8.RuneCountInString(title[:j])
				for k := range utf8.RuneCountInString(lower) {
					at = append(at, first+k)
				}
			}
			ranks = append(ranks, list.Rank{Index: i, MatchedIndexes: at})
		}
		return ranks
	}
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

func (c *catalogModal) Help() []key.Binding {
	if c.list.FilterState() == list.Filtering {
		return []key.Binding{helpOnly("enter", "keep the filter"), helpOnly("esc", "clear it"), c.keys.ForceQuit}
	}
	esc := "close"
	if c.list.FilterState() == list.FilterApplied {
		esc = "clear the filter"
	}
	return []key.Binding{helpOnly("/", "filter"), helpOnly("↑↓", "move"), helpOnly("enter", "add"),
		helpOnly("esc", esc), c.keys.ForceQuit}
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

// commandModal shows the `lab run` command that reproduces a pane; the
// root has also put it on the clipboard.
type commandModal struct {
	name string
	args [][]string // the command's words, grouped as they may not be split
}

func (c commandModal) Update(msg tea.Msg) (modal, tea.Cmd) {
	if _, ok := msg.(tea.KeyPressMsg); ok {
		return nil, nil
	}
	return c, nil
}

func (c commandModal) Help() []key.Binding { return []key.Binding{anyKey} }

func (c commandModal) View(s screen) string {
	st := PaneStyle{Mono: s.mono}
	bw, _ := s.maxBox()
	inner := max(20, min(bw-4, 100))
	lines := []string{bold("The command that reproduces " + c.name + " as it is now"), ""}
	lines = append(lines, wrapCommand(c.args, inner)...)
	lines = append(lines, "")
	lines = append(lines, wrapLines(dim("Copied to your clipboard, if your terminal takes OSC 52 copies; "+
		"shift+drag selects it too. Add --json, --frames or --series FILE.csv for output. Any key closes this.", st), inner)...)
	return overlayStyle.Render(strings.Join(lines, "\n"))
}

// wrapCommand lays out a command's word groups in lines of at most w
// columns, continued with a backslash (so that a selection of the lines
// still pastes into a shell as one command).
func wrapCommand(groups [][]string, w int) []string {
	var lines []string
	line := ""
	for _, g := range groups {
		word := strings.Join(g, " ")
		switch {
		case line == "":
			line = word
		case ansi.StringWidth(line)+1+ansi.StringWidth(word)+2 <= w:
			line += " " + word
		default:
			lines = append(lines, line+" \\")
			line = "    " + word
		}
	}
	return append(lines, line)
}

// applyParamsMsg asks the root to rebuild a pane's sim with new values
// (the parameter editor's enter).
type applyParamsMsg struct {
	p    *pane
	vals sims.Values
}

// overlayBox renders lines in the overlays' bordered box.
func overlayBox(lines []string) string {
	return overlayStyle.Render(strings.Join(lines, "\n"))
}

// selectedStyle marks a value that typing replaces.
var selectedStyle = lipgloss.NewStyle().Reverse(true)
