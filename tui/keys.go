package tui

import "charm.land/bubbles/v2/key"

// keyMap holds every key the lab answers: the dashboard's, which `?`
// shows, and the overlays'. Keys are matched through it, never by name.
type keyMap struct {
	Play, Step, Faster, Slower, Reset, Reseed key.Binding
	Next, Prev, Left, Right, Up, Down, Zoom   key.Binding
	Params, Add, Close, Help, Quit            key.Binding

	// In the overlays (catalogue, parameter editor):
	Accept, Cancel, NextField, PrevField key.Binding
	// ForceQuit quits from anywhere, an overlay included.
	ForceQuit key.Binding
}

func newKeyMap() keyMap {
	b := func(keys []string, k, help string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(k, help))
	}
	return keyMap{
		Play:   b([]string{"space"}, "space", "play/pause"),
		Step:   b([]string{"s", "."}, "s", "one step"),
		Faster: b([]string{"+", "="}, "+", "faster"),
		Slower: b([]string{"-", "_"}, "-", "slower"),
		Reset:  b([]string{"r"}, "r", "reset"),
		Reseed: b([]string{"R"}, "R", "reseed"),
		Next:   b([]string{"tab"}, "tab", "next pane"),
		Prev:   b([]string{"shift+tab"}, "shift+tab", "previous pane"),
		Left:   b([]string{"left", "h"}, "←/h", "pane left"),
		Right:  b([]string{"right", "l"}, "→/l", "pane right"),
		Up:     b([]string{"up", "k"}, "↑/k", "pane above"),
		Down:   b([]string{"down", "j"}, "↓/j", "pane below"),
		Zoom:   b([]string{"enter"}, "enter", "zoom pane"),
		Params: b([]string{"p"}, "p", "parameters"),
		Add:    b([]string{"a"}, "a", "add a sim"),
		Close:  b([]string{"x"}, "x", "close pane"),
		Help:   b([]string{"?"}, "?", "all keys"),
		Quit:   b([]string{"q", "ctrl+c"}, "q", "quit"),

		Accept:    b([]string{"enter"}, "enter", "apply"),
		Cancel:    b([]string{"esc"}, "esc", "cancel"),
		NextField: b([]string{"tab", "down"}, "tab/↑↓", "move"),
		PrevField: b([]string{"shift+tab", "up"}, "shift+tab", "previous field"),
		ForceQuit: b([]string{"ctrl+c"}, "ctrl+c", "quit"),
	}
}

// ShortHelp is the bottom bar.
func (k keyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Play, k.Step, k.Faster, k.Slower, k.Zoom, k.Params, k.Add, k.Close, k.Help, k.Quit}
}

// FullHelp is the `?` screen, in columns.
func (k keyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Play, k.Step, k.Faster, k.Slower, k.Reset, k.Reseed},
		{k.Next, k.Prev, k.Left, k.Right, k.Up, k.Down},
		{k.Zoom, k.Params, k.Add, k.Close, k.Help, k.Quit},
	}
}

// hint is a binding's help as "key what", for an overlay's title line.
func hint(k key.Binding) string { return k.Help().Key + " " + k.Help().Desc }
