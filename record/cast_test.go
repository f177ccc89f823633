package record

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
)

// castFile is a cast as a player reads it: its header and events, the
// screen its events leave and whether the cursor is shown at the end.
type castFile struct {
	header map[string]any
	times  []float64
	data   []string
	screen uv.ScreenBuffer
	cursor bool
}

// eventLine is an event as Cast writes it: six decimals, "o", a string.
var eventLine = regexp.MustCompile(`^\[[0-9]+\.[0-9]{6}, "o", ".*"\]$`)

// readCast checks b against asciicast v2 — a JSON header of version 2
// with a positive width and height and no timestamp, then events
// [time, "o", text], one a line, in UTF-8, at times that never decrease —
// and plays its events on a screen of the header's size.
func readCast(t *testing.T, b []byte) castFile {
	t.Helper()
	if !utf8.Valid(b) {
		t.Fatal("the cast is not UTF-8")
	}
	if !bytes.HasSuffix(b, []byte("\n")) {
		t.Fatal("the cast does not end with a line end")
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	var c castFile
	if err := json.Unmarshal([]byte(lines[0]), &c.header); err != nil {
		t.Fatalf("header %q: %v", lines[0], err)
	}
	w, wok := c.header["width"].(float64)
	h, hok := c.header["height"].(float64)
	if v, _ := c.header["version"].(float64); v != 2 || !wok || !hok || w < 1 || h < 1 || w != float64(int(w)) || h != float64(int(h)) {
		t.Fatalf("header %s: want version 2 and a whole positive width and height", lines[0])
	}
	if _, ok := c.header["timestamp"]; ok {
		t.Errorf("header %s has a timestamp: two recordings would differ", lines[0])
	}
	if env, _ := c.header["env"].(map[string]any); env["TERM"] != "xterm-256color" {
		t.Errorf("header %s: env.TERM want xterm-256color", lines[0])
	}
	c.screen = uv.NewScreenBuffer(int(w), int(h))
	c.screen.Method = ansi.GraphemeWidth
	c.cursor = true
	term := &player{t: t, buf: c.screen, w: int(w), h: int(h), cursor: &c.cursor}
	last := 0.0
	for i, l := range lines[1:] {
		if !eventLine.MatchString(l) {
			t.Fatalf("event %d: %.80q is not [T.dddddd, \"o\", \"…\"]", i+1, l)
		}
		var ev []any
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatalf("event %d: %v", i+1, err)
		}
		tm, tok := ev[0].(float64)
		kind, _ := ev[1].(string)
		text, sok := ev[2].(string)
		if len(ev) != 3 || !tok || kind != "o" || !sok {
			t.Fatalf("event %d: %.80q is not [float, \"o\", string]", i+1, l)
		}
		if tm < last {
			t.Fatalf("event %d at %v, after one at %v", i+1, tm, last)
		}
		last = tm
		c.times = append(c.times, tm)
		c.data = append(c.data, text)
		term.write(fmt.Sprintf("event %d at %v", i+1, tm), text)
	}
	if d, ok := c.header["duration"].(float64); ok && len(c.times) > 0 && d != c.times[len(c.times)-1] {
		t.Errorf("duration %v, last event at %v", d, c.times[len(c.times)-1])
	}
	return c
}

// player is a terminal that knows exactly the sequences Cast writes —
// printing within a row, CUP, ED 2, EL 0, SGR, showing and hiding the
// cursor — and fails the test on anything else, on printing past the
// right edge (which would wrap), and on text before the first CUP.
// EL erases the last column when the cursor waits there after a full
// row, as xterm does: a writer that erased after a full row would lose
// its last cell here too.
type player struct {
	t      *testing.T
	buf    uv.ScreenBuffer
	w, h   int
	x, y   int
	placed bool
	pen    uv.Style
	cursor *bool
	p      *ansi.Parser
}

func (pl *player) write(where, text string) {
	t := pl.t
	t.Helper()
	if pl.p == nil {
		pl.p = ansi.NewParser()
	}
	var state byte
	for len(text) > 0 {
		pl.p.Reset()
		seq, width, n, next := ansi.DecodeSequence(text, state, pl.p)
		state, text = next, text[n:]
		switch {
		case width > 0:
			if !pl.placed {
				t.Fatalf("%s: %q printed before a cursor position", where, seq)
			}
			if pl.x+width > pl.w {
				t.Fatalf("%s: %q printed at column %d of row %d, past the right edge (%d)", where, seq, pl.x+1, pl.y+1, pl.w)
			}
			pl.buf.SetCell(pl.x, pl.y, &uv.Cell{Content: seq, Width: width, Style: pl.pen})
			pl.x += width
		case ansi.HasCsiPrefix(seq):
			pl.csi(where, seq)
		default:
			t.Fatalf("%s: unexpected %q", where, seq)
		}
	}
}

func (pl *player) csi(where, seq string) {
	t := pl.t
	t.Helper()
	cmd := ansi.Cmd(pl.p.Command())
	param := func(i, def int) int {
		v, _, _ := pl.p.Params().Param(i, def)
		return v
	}
	switch {
	case cmd.Prefix() == '?' && param(0, 0) == 25 && (cmd.Final() == 'h' || cmd.Final() == 'l'):
		*pl.cursor = cmd.Final() == 'h'
	case cmd.Prefix() != 0 || cmd.Intermediate() != 0:
		t.Fatalf("%s: unexpected %q", where, seq)
	case cmd.Final() == 'H':
		pl.y, pl.x = param(0, 1)-1, param(1, 1)-1
		if pl.y < 0 || pl.y >= pl.h || pl.x < 0 || pl.x >= pl.w {
			t.Fatalf("%s: %q moves off the %d×%d screen", where, seq, pl.w, pl.h)
		}
		pl.placed = true
	case cmd.Final() == 'J' && param(0, 0) == 2:
		pl.buf.Clear()
	case cmd.Final() == 'K' && param(0, 0) == 0:
		for x := min(pl.x, pl.w-1); x < pl.w; x++ {
			pl.buf.SetCell(x, pl.y, nil)
		}
	case cmd.Final() == 'm':
		uv.ReadStyle(pl.p.Params(), &pl.pen)
	default:
		t.Fatalf("%s: unexpected %q", where, seq)
	}
}

// screenOf is a w×h screen showing text (rows joined by "\n") from its
// top left corner.
func screenOf(text string, w, h int) uv.ScreenBuffer {
	buf := uv.NewScreenBuffer(w, h)
	buf.Method = ansi.GraphemeWidth
	uv.NewStyledString(text).Draw(buf, buf.Bounds())
	return buf
}

// TestCastEvents: the writer draws what changed, and only that.
func TestCastEvents(t *testing.T) {
	const w, h = 12, 3
	red := "\x1b[31mred\x1b[m"
	full := "abcdefghijkl" // a full row: no EL after it
	frames := []struct {
		t      float64
		screen string
		want   string // the event's text; "" for no event
	}{
		{0, "one\n" + red, "\x1b[?25l\x1b[H\x1b[2J\x1b[1;1Hone\x1b[m\x1b[K\x1b[2;1H" + red + "\x1b[K"},
		{0.5, "one\n" + red, ""},
		{1, "one\n" + red + "\n" + full, "\x1b[3;1H" + full + "\x1b[m"},
		{1, "two\n" + red + "\n" + full, "\x1b[1;1Htwo\x1b[m\x1b[K"},
		{2.25, "two", "\x1b[2;1H\x1b[m\x1b[K\x1b[3;1H\x1b[m\x1b[K"},
	}
	var b bytes.Buffer
	c, err := NewCast(&b, Header{Width: w, Height: h, Duration: 3, Title: "a <test> & \"quotes\""})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, f := range frames {
		if err := c.Frame(f.t, f.screen); err != nil {
			t.Fatal(err)
		}
		if f.want != "" {
			want = append(want, f.want)
		}
	}
	if err := c.Close(3); err != nil {
		t.Fatal(err)
	}
	want = append(want, "\x1b[?25h")
	cast := readCast(t, b.Bytes())
	if fmt.Sprint(cast.data) != fmt.Sprint(want) {
		t.Errorf("events\n%q\nwant\n%q", cast.data, want)
	}
	if fmt.Sprint(cast.times) != "[0 1 1 2.25 3]" {
		t.Errorf("times %v", cast.times)
	}
	if cast.header["title"] != "a <test> & \"quotes\"" || cast.header["duration"] != 3.0 {
		t.Errorf("header %v", cast.header)
	}
	if !strings.Contains(b.String(), `"title":"a <test> & \"quotes\""`) {
		t.Errorf("the title is escaped beyond JSON's needs: %s", strings.SplitN(b.String(), "\n", 2)[0])
	}
	if got, want := cast.screen.Render(), screenOf("two", w, h).Render(); got != want {
		t.Errorf("screen %q, want %q", got, want)
	}
	if !cast.cursor {
		t.Error("the cursor is hidden at the end")
	}

	// What the writer refuses.
	for _, tt := range []struct {
		name string
		do   func(c *Cast) error
		want string
	}{
		{"a time that goes back", func(c *Cast) error { c.Frame(1, ""); return c.Frame(0.5, "") }, "before the last event"},
		{"a negative time", func(c *Cast) error { return c.Frame(-1, "") }, "a time from the start"},
		{"a row too wide", func(c *Cast) error { return c.Frame(0, full+"m") }, "13 cells wide"},
		{"too many rows", func(c *Cast) error { return c.Frame(0, "a\nb\nc\nd") }, "4 rows on a screen of 3"},
		{"a frame after Close", func(c *Cast) error { c.Close(0); return c.Frame(1, "") }, "closed"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := NewCast(new(bytes.Buffer), Header{Width: w, Height: h})
			if err != nil {
				t.Fatal(err)
			}
			if err := tt.do(c); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one with %q", err, tt.want)
			}
		})
	}
}
