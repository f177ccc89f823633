package servetest

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

func TestScreenSequences(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []string // the first rows
	}{
		{"print and wrap", "abcdef", []string{"abcd", "ef"}},
		{"CR LF", "ab\r\ncd", []string{"ab", "cd"}},
		{"CUP and CUF", "\x1b[2;2Hx\x1b[1Cy", []string{"", " x y"}},
		{"EL", "abcd\x1b[1;3H\x1b[K", []string{"ab"}},
		{"ECH", "abcd\x1b[1;2H\x1b[2X", []string{"a  d"}},
		{"ICH", "abcd\x1b[1;2H\x1b[1@", []string{"a bc"}},
		{"DCH", "abcd\x1b[1;2H\x1b[2P", []string{"ad"}},
		{"REP", "a\x1b[3b", []string{"aaaa"}},
		{"IRM", "abc\x1b[1;1H\x1b[4hx\x1b[4l", []string{"xabc"}},
		{"ED", "ab\r\ncd\x1b[1;2H\x1b[J", []string{"a", ""}},
		{"IL", "1\r\n2\r\n3\x1b[2;1H\x1b[L", []string{"1", "", "2"}},
		{"DL", "1\r\n2\r\n3\x1b[1;1H\x1b[M", []string{"2", "3", ""}},
		{"SU in a region", "1\r\n2\r\n3\r\n4\x1b[2;3r\x1b[S\x1b[r", []string{"1", "3", "", "4"}},
		{"RI at the top", "1\r\n2\x1b[1;1H\x1bM", []string{"", "1", "2"}},
		{"wide", "日本", []string{"日本"}},
		{"no autowrap", "\x1b[?7labcdef", []string{"abcf"}},
		{"alt screen clears", "abc\x1b[?1049h", []string{""}},
	} {
		s := NewScreen(4, 4)
		s.Write([]byte(tc.in))
		lines := s.Lines()
		for i, w := range tc.want {
			if lines[i] != w {
				t.Errorf("%s: row %d is %q, want %q (screen %q)", tc.name, i, lines[i], w, lines)
			}
		}
	}
}

func TestScreenFramesAndReplies(t *testing.T) {
	var replies []string
	s := NewCounter()
	s.Reply = func(b []byte) { replies = append(replies, string(b)) }
	s.Write([]byte("\x1b[?2026$p\x1b[?2026hframe\x1b[?2026l\x1b[?20"))
	s.Write([]byte("26hsplit\x1b[?2026l"))
	if s.Frames() != 2 {
		t.Errorf("%d frames, want 2", s.Frames())
	}
	if len(replies) != 1 || replies[0] != "\x1b[?2026;2$y" {
		t.Errorf("replies %q", replies)
	}
}

// churn is a model whose lines move, grow and shrink at every update, so
// that the renderer uses its whole bag of tricks (scrolling, inserting and
// deleting lines and characters, repeats, erasing).
type churn struct{ n int }

type next struct{}

func (c churn) Init() tea.Cmd { return func() tea.Msg { return next{} } }

func (c churn) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if _, ok := msg.(next); !ok {
		return c, nil
	}
	c.n++
	if c.n > 40 {
		return c, tea.Quit
	}
	return c, tea.Tick(time.Millisecond, func(time.Time) tea.Msg { return next{} })
}

func (c churn) text() string {
	line := func(i int) string { // distinct lines with runs of blanks and repeats
		return fmt.Sprintf("line %d%s\x1b[3%dm%s\x1b[m|%s", i, strings.Repeat(" ", (i*7)%23), i%7, strings.Repeat("=", (i*5)%17), strings.Repeat("x", i%4))
	}
	var rows []string
	for y := range 20 {
		rows = append(rows, line(y+c.n/2)) // scrolls every other frame
	}
	if c.n%3 == 0 { // a line inserted in the middle
		rows = append(rows[:6], append([]string{"inserted " + strings.Repeat("#", c.n)}, rows[6:19]...)...)
	}
	rows[12] = strings.Repeat("ab", c.n%5) + rows[12] // characters inserted and deleted
	return strings.Join(rows, "\n")
}

func (c churn) View() tea.View {
	v := tea.NewView(c.text())
	v.AltScreen = true
	return v
}

// TestScreenMatchesBubbleTea feeds the screen what Bubble Tea's renderer
// writes for a churning model and compares it with the model's last view.
func TestScreenMatchesBubbleTea(t *testing.T) {
	var out bytes.Buffer
	p := tea.NewProgram(churn{}, tea.WithInput(nil), tea.WithOutput(&out), tea.WithWindowSize(60, 20),
		tea.WithoutSignalHandler(), tea.WithEnvironment([]string{"TERM=xterm-256color"}))
	m, err := p.Run()
	if err != nil {
		t.Fatal(err)
	}
	// The program leaves the alternate screen at the end: replay up to it.
	raw := out.String()
	if i := strings.LastIndex(raw, "\x1b[?1049l"); i >= 0 {
		raw = raw[:i]
	}
	// The renderer counts on the terminal (here, the SSH server's emulated
	// PTY) turning \n into \r\n.
	raw = strings.ReplaceAll(raw, "\n", "\r\n")
	s := NewScreen(60, 20)
	s.Write([]byte(raw))
	want := strings.Split(ansi.Strip(m.(churn).text()), "\n")
	got := s.Lines()
	for y := range want {
		if got[y] != strings.TrimRight(want[y], " ") {
			t.Errorf("row %d: %q, want %q", y, got[y], want[y])
		}
	}
}

func TestAwaitFindsTextSplitAcrossReads(t *testing.T) {
	s := &Session{}
	s.wake([]byte("paused before")) // before the Await: not seen
	ch := s.Await("paused")
	s.wake([]byte("\x1b[1;5Hpau"))
	select {
	case <-ch:
		t.Fatal("woke on half the text")
	default:
	}
	other := s.Await("zzz") // keeps the tail
	s.wake([]byte("sed\x1b[0m"))
	select {
	case <-ch:
	default:
		t.Fatal("text split across two reads was not found")
	}
	// Text that arrived before an Await does not wake it, even when it is
	// still in the tail.
	again := s.Await("paused")
	s.wake([]byte("x"))
	select {
	case <-again:
		t.Fatal("woke on text from before the Await")
	default:
	}
	s.wake([]byte("...paused"))
	select {
	case <-again:
	default:
		t.Fatal("new text was not found")
	}
	_ = other
}
