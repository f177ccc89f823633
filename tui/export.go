package tui

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/thelab/lab/sims"
)

// exportedMsg reports an export: what to flash, or why it failed.
type exportedMsg struct {
	note string
	err  error
}

// maxClipboard bounds what a remote export puts on a visitor's clipboard:
// terminals cap OSC 52 copies, and it all goes down the visitor's link.
const maxClipboard = 256 << 10

// holdExport is the name of an export's hold on the session's budget: the
// text (at most maxClipboard) and its base64 copy in the OSC 52 sequence,
// or the pane's drawing and series for the local files.
const holdExport = "an export"

// exportBytes is what an export holds while it is made: the text, its
// base64 in the clipboard sequence and the buffers that build them.
const exportBytes = 3 * maxClipboard

// export saves the pane as drawn at its size on screen: locally, as files
// in ExportDir (plain text, ANSI colour, series CSV); in a remote session,
// to the visitor's clipboard (the plain text, or the series CSV, cut at
// maxClipboard with a note saying so), never to this machine's disk; with
// neither, nowhere. The work happens in the command, off the update loop,
// one export at a time (a repeat while one is under way is dropped), and
// is charged to the session's budget like a step: it waits while the
// session rests, holds its bytes, and its time is charged.
func (m *Model) export(p *pane, series bool) tea.Cmd {
	if m.exporting {
		m.setFlash("an export is under way: wait for it")
		return nil
	}
	snap := p.snap
	w, h := m.paneSize(m.index(p))
	budget := m.budget
	var work func() tea.Msg
	switch dir := m.opts.ExportDir; {
	case m.opts.Remote:
		what := "the pane as text"
		if series {
			what = "its series as CSV"
		}
		m.setFlash("copying " + what + " to your clipboard (OSC 52: your terminal must allow it)")
		work = func() tea.Msg {
			text, note := plainPane(snap, w, h), "copied "+what+" to your clipboard"
			if series {
				var err error
				if text, note, err = seriesClip(snap.Frame); err != nil {
					return exportedMsg{err: err}
				}
			}
			if len(text) > maxClipboard {
				return exportedMsg{err: fmt.Errorf("%s is %d KiB, more than the %d KiB a clipboard copy may take", what, len(text)>>10, maxClipboard>>10)}
			}
			return tea.BatchMsg{tea.SetClipboard(text), func() tea.Msg { return exportedMsg{note: note} }}
		}
	case dir == "":
		m.report(errors.New("export is off in this session"))
		return nil
	default:
		work = func() tea.Msg {
			paths, err := writeExport(dir, snap, w, h)
			if err != nil {
				return exportedMsg{err: fmt.Errorf("export: %w", err)}
			}
			where, _ := filepath.Abs(filepath.Dir(paths[0]))
			return exportedMsg{note: fmt.Sprintf("wrote %s, .ans and .csv in %s", filepath.Base(paths[0]), where)}
		}
	}
	m.exporting = true
	return func() tea.Msg {
		if rest := budget.Rest(); rest > 0 {
			time.Sleep(rest)
		}
		if err := budget.Hold(holdExport, exportBytes); err != nil {
			return exportedMsg{err: err}
		}
		defer budget.Hold(holdExport, 0)
		defer budget.StartMeter().Charge()
		return work()
	}
}

// seriesClip is a Frame's series as CSV for a clipboard: whole, or its
// first rows up to maxClipboard bytes, with the note that says which.
// Writing stops at the bound, so a Frame of a million points costs no
// more than one that fills the clipboard.
func seriesClip(f sims.Frame) (text, note string, err error) {
	cw := &cappedWriter{max: maxClipboard}
	if err := sims.WriteSeriesCSV(cw, f); err != nil && !cw.cut {
		return "", "", err
	}
	if !cw.cut {
		return cw.b.String(), "copied its series as CSV to your clipboard", nil
	}
	text = cw.b.String()
	text = text[:strings.LastIndexByte(text, '\n')+1] // whole rows only
	rows := strings.Count(text, "\n") - 1             // the header is not a row
	return text, fmt.Sprintf("copied the first %d rows of its series as CSV to your clipboard (%d KiB, the most a copy may take); the rest was cut", rows, maxClipboard>>10), nil
}

// cappedWriter keeps the first max bytes written to it and then fails,
// which stops the writer feeding it.
type cappedWriter struct {
	b   bytes.Buffer
	max int
	cut bool
}

var errCapped = errors.New("export: capped")

func (w *cappedWriter) Write(p []byte) (int, error) {
	if room := w.max - w.b.Len(); len(p) > room {
		w.b.Write(p[:room])
		w.cut = true
		return room, errCapped
	}
	return w.b.Write(p)
}

// plainPane is a pane drawn as plain text, as under NO_COLOR.
func plainPane(s *sims.Snapshot, w, h int) string {
	return ansi.Strip(RenderPane(s, w, h, PaneStyle{Focused: true, Mono: true})) + "\n"
}

// paneSize is the size pane i has on screen.
func (m *Model) paneSize(i int) (w, h int) {
	if m.zoom || i < 0 {
		return m.w, m.h - 1 - m.captionRows()
	}
	r := m.rects()[i]
	return r.w, r.h
}

// writeExport writes a snapshot as lab-SIM-seedS-stepN.txt (plain), .ans
// (ANSI colour: `cat` it in a colour terminal, `less -R`) and .csv (every
// chart series, sims.WriteSeriesCSV) in dir, never over an existing file:
// the first free name among NAME, NAME-2, NAME-3, … for all three.
func writeExport(dir string, s *sims.Snapshot, w, h int) ([]string, error) {
	var csv bytes.Buffer
	if err := sims.WriteSeriesCSV(&csv, s.Frame); err != nil {
		return nil, err
	}
	contents := []fileContent{
		{".txt", []byte(plainPane(s, w, h))},
		{".ans", []byte(RenderPane(s, w, h, PaneStyle{Focused: true}) + "\x1b[m\n")},
		{".csv", csv.Bytes()},
	}
	return writeFree(dir, fmt.Sprintf("lab-%s-seed%d-step%d", s.Spec.Name, s.Seed, s.Frame.Step), contents)
}

// fileContent is a file writeFree writes: its extension and its bytes.
type fileContent struct {
	ext  string
	data []byte
}

// writeFree writes the contents as files base+ext in dir, never over an
// existing file: the first free name among base, base-2, base-3, … for
// all of them.
func writeFree(dir, base string, contents []fileContent) ([]string, error) {
	for n := 1; n < 1000; n++ {
		name := base
		if n > 1 {
			name += "-" + strconv.Itoa(n)
		}
		var made []string
		taken := false
		for _, c := range contents {
			path := filepath.Join(dir, name+c.ext)
			f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
			if errors.Is(err, fs.ErrExist) {
				taken = true
				break
			}
			if err == nil {
				made = append(made, path)
				_, err = f.Write(c.data)
				if cerr := f.Close(); err == nil {
					err = cerr
				}
			}
			if err != nil {
				removeAll(made)
				return nil, err
			}
		}
		if !taken {
			return made, nil
		}
		removeAll(made)
	}
	return nil, fmt.Errorf("%s: 999 files of this name already", filepath.Join(dir, base))
}

func removeAll(paths []string) {
	for _, p := range paths {
		os.Remove(p)
	}
}

// runArgs is the `lab run` command that reproduces a pane as it is now:
// its sim, seed, every parameter set by hand (a default follows the others
// as it does in the pane), its data file and its step count. Each group of words
// stays on one line when the command is wrapped.
func runArgs(s *sims.Snapshot, data *sims.Table) [][]string {
	args := [][]string{{"lab", "run", s.Spec.Name}, {"--seed", strconv.FormatUint(s.Seed, 10)}}
	set := s.Values.Explicit()
	for _, p := range s.Values.Params() {
		if v, ok := set[p.Name]; ok {
			args = append(args, []string{"--set", shellQuote(p.Name + "=" + v)})
		}
	}
	if data != nil {
		args = append(args, []string{"--data", shellQuote(data.Name)})
	}
	// A run that ended did so on the step after its last counted one:
	// lab run stops there too.
	if steps := s.Frame.Step; s.State.Done() {
		args = append(args, []string{"--steps", strconv.Itoa(steps + 1)})
	} else if steps > 0 {
		args = append(args, []string{"--steps", strconv.Itoa(steps)})
	}
	return args
}

// RunCommand is the `lab run` command that reproduces a pane's snapshot
// (data is the table it runs on, or nil), as one line for a shell.
func RunCommand(s *sims.Snapshot, data *sims.Table) string { return joinArgs(runArgs(s, data)) }

func joinArgs(groups [][]string) string {
	words := make([]string, 0, 2*len(groups))
	for _, g := range groups {
		words = append(words, g...)
	}
	return strings.Join(words, " ")
}

// shellSafe reports whether a word needs no quoting in a POSIX shell: it
// is not empty and made of letters, digits and _@%+=:,./- only.
func shellSafe(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		switch {
		case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9', strings.ContainsRune("_@%+=:,./-", r):
		default:
			return false
		}
	}
	return true
}

// shellQuote quotes a word for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if shellSafe(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
