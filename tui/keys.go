package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
)

// keyMap holds every key the lab answers: the dashboard's, which `?`
// shows, and the overlays'. Keys are matched through it, never by name;
// each binding's help names all its keys.
type keyMap struct {
	// The focused pane:
	Play, Step, Faster, Slower, Reset, Reseed key.Binding
	Params, Zoom, Close, Command, Export      key.Binding
	// Save writes the whole dashboard as a scene file (lab open).
	Save key.Binding
	// NotesUp and NotesDown scroll the zoomed pane's notes.
	NotesUp, NotesDown key.Binding
	// ExportSeries copies the focused pane's series as CSV to a remote
	// visitor's clipboard (locally Export writes the CSV file too).
	ExportSeries key.Binding

	// The whole dashboard:
	PauseAll, FasterAll, SlowerAll    key.Binding
	Next, Prev, Left, Right, Up, Down key.Binding
	Add, Help, Quit                   key.Binding
	// The tour (lab tour): its scene picker, the next and previous
	// scene, and hiding the scene's caption.
	Tour, NextScene, PrevScene, HideCaption key.Binding

	// In the overlays (catalogue, parameter editor):
	Accept, Cancel, NextField, PrevField key.Binding
	ChoicePrev, ChoiceNext, Erase        key.Binding
	// ForceQuit quits from anywhere, an overlay included.
	ForceQuit key.Binding

	remote bool // the keys of a visitor's session (Options.Remote)
}

func newKeyMap(remote bool) keyMap {
	b := func(keys []string, k, help string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(k, help))
	}
	k := keyMap{
		Play:    b([]string{"space"}, "space", "play/pause"),
		Step:    b([]string{"s", "."}, "s/.", "one step"),
		Faster:  b([]string{"+", "="}, "+/=", "faster"),
		Slower:  b([]string{"-", "_"}, "-/_", "slower"),
		Reset:   b([]string{"r"}, "r", "reset"),
		Reseed:  b([]string{"R"}, "R", "reset, next seed"),
		Params:  b([]string{"p"}, "p", "parameters"),
		Zoom:    b([]string{"enter"}, "enter", "zoom"),
		Close:   b([]string{"x"}, "x", "close pane"),
		Command: b([]string{"c"}, "c", "lab run command"),
		Export:  b([]string{"e"}, "e", "export .txt .ans .csv"),
		Save:    b([]string{"S"}, "S", "save the dashboard"),

		NotesUp:   b([]string{"pgup"}, "pgup", "notes up (zoom)"),
		NotesDown: b([]string{"pgdown"}, "pgdn", "notes down (zoom)"),

		PauseAll:  b([]string{"P"}, "P", "pause/resume all"),
		FasterAll: b([]string{">"}, ">", "all faster"),
		SlowerAll: b([]string{"<"}, "<", "all slower"),
		Next:      b([]string{"tab"}, "tab", "next pane"),
		Prev:      b([]string{"shift+tab"}, "shift+tab", "previous pane"),
		Left:      b([]string{"left", "h"}, "←/h", "pane left"),
		Right:     b([]string{"right", "l"}, "→/l", "pane right"),
		Up:        b([]string{"up", "k"}, "↑/k", "pane above"),
		Down:      b([]string{"down", "j"}, "↓/j", "pane below"),
		Add:       b([]string{"a"}, "a", "add a sim"),
		Help:      b([]string{"?"}, "?", "all keys"),
		Quit:      b([]string{"q", "ctrl+c"}, "q", "quit"),

		Tour:        b([]string{"t"}, "t", "tour"),
		NextScene:   b([]string{"n"}, "n", "next scene"),
		PrevScene:   b([]string{"N"}, "N", "previous scene"),
		HideCaption: b([]string{"esc"}, "esc", "hide the caption"),

		Accept:     b([]string{"enter"}, "enter", "apply"),
		Cancel:     b([]string{"esc"}, "esc", "cancel"),
		NextField:  b([]string{"tab", "down"}, "tab/↓", "next"),
		PrevField:  b([]string{"shift+tab", "up"}, "shift+tab/↑", "previous"),
		ChoicePrev: b([]string{"left"}, "←", "previous choice"),
		ChoiceNext: b([]string{"right"}, "→", "next choice"),
		Erase:      b([]string{"backspace", "delete"}, "backspace", "erase"),
		ForceQuit:  b([]string{"ctrl+c"}, "ctrl+c", "quit"),
		remote:     remote,
	}
	if remote {
		k.Export = b([]string{"e"}, "e", "copy pane")
		k.ExportSeries = b([]string{"E"}, "E", "copy series CSV")
	} else {
		k.ExportSeries = b(nil, "", "")
		k.ExportSeries.SetEnabled(false)
	}
	return k
}

// ShortHelp is the bottom bar of the dashboard.
func (k keyMap) ShortHelp() []key.Binding {
	// What a newcomer needs first, so that 80 columns show it (issue
	// 26.9): run, change, look closer, add, and where the rest is.
	return []key.Binding{k.Play, k.Params, k.Zoom, k.Add, k.Help, k.Tour, k.Step, k.Faster, k.Slower, k.Close,
		k.PauseAll, k.Command, k.Export, k.Quit}
}

// helpEntry is one line of the `?` screen: keys and what they do.
type helpEntry struct{ keys, does string }

// helpSection is a titled group of the `?` screen.
type helpSection struct {
	title   string
	entries []helpEntry
}

// sections are the `?` screen and `lab help keys`: every key, grouped.
func (k keyMap) sections() []helpSection {
	e := func(b key.Binding, does string) helpEntry {
		if does == "" {
			does = b.Help().Desc
		}
		return helpEntry{b.Help().Key, does}
	}
	export := e(k.Export, "export .txt .ans .csv")
	if k.remote {
		export = helpEntry{k.Export.Help().Key + " " + k.ExportSeries.Help().Key, "copy pane / series CSV"}
	}
	pane := []helpEntry{
		e(k.Play, ""), e(k.Step, "pause, one step"),
		{k.Faster.Help().Key + " " + k.Slower.Help().Key, "faster / slower"},
		e(k.Reset, ""), e(k.Reseed, "reset with the next seed"), e(k.Params, "edit parameters"),
		e(k.Zoom, "zoom; pgup/pgdn: notes"), e(k.Close, ""), e(k.Command, "the lab run command"), export,
	}
	return []helpSection{
		{"The focused pane", pane},
		{"The dashboard", []helpEntry{
			e(k.PauseAll, "pause all, or resume all"),
			{k.FasterAll.Help().Key + " " + k.SlowerAll.Help().Key, "all faster / slower"},
			{k.Next.Help().Key, "next pane (shift: back)"},
			{"←↓↑→ hjkl", "focus the pane that way"},
			e(k.Add, "add a sim (catalogue)"), e(k.Help, "this screen"),
			{k.Tour.Help().Key + " " + k.NextScene.Help().Key + " " + k.PrevScene.Help().Key, "tour: pick / next / back"},
			e(k.HideCaption, "hide the caption"), e(k.Save, "save all (lab open)"),
			{"q/ctrl+c", "quit"},
		}},
		{"The catalogue (a)", []helpEntry{
			{"/", "filter: names first"}, {"↑↓ j k", "move"}, e(k.Accept, "add the sim"),
			e(k.Cancel, "clear the filter, close"),
		}},
		{"The parameter editor (p)", []helpEntry{
			{"tab/↓", "next field"}, {"shift+tab/↑", "previous field"}, {"typing", "replaces the value"},
			{"←/→", "a choice: previous/next"}, e(k.Accept, "apply (the sim restarts)"),
			e(k.Cancel, "close, change nothing"), e(k.ForceQuit, "quit, from anywhere"),
		}},
	}
}

// KeysText is every key of the lab as plain text: `lab help keys`.
func KeysText() string {
	var b strings.Builder
	for i, s := range newKeyMap(false).sections() {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(s.title + ":\n")
		for _, e := range s.entries {
			fmt.Fprintf(&b, "  %-20s %s\n", e.keys, e.does)
		}
	}
	return b.String()
}
