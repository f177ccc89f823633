// Package servetest holds what tests and measurements of `lab serve` need
// on the client side: an SSH client session with a PTY (golang.org/x/crypto/
// ssh) and a small terminal emulator that turns the bytes Bubble Tea sends
// into the screen a person would see.
package servetest

import (
	"strings"
	"sync"

	"github.com/charmbracelet/x/ansi"
)

// Screen is a minimal VT emulator: enough of ECMA-48 and xterm for what
// Bubble Tea's renderer sends (cursor motion, erasing, inserting and
// deleting characters and lines, scrolling regions, repeat, autowrap,
// insert mode, the alternate screen). Colours and attributes are dropped:
// it keeps the text. It counts synchronized-output frames (mode 2026) and
// answers the renderer's query for that mode when Reply is set.
type Screen struct {
	mu     sync.Mutex
	w, h   int
	cells  [][]rune
	x, y   int
	wrap   bool // a character was printed in the last column
	top    int  // scrolling region, inclusive
	bot    int
	auto   bool // autowrap
	insert bool // IRM
	saved  [2]int
	last   rune
	frames int
	count  bool // only count frames: keep no text
	p      *ansi.Parser
	// Reply, when set, receives the terminal's answers to queries.
	Reply func([]byte)
}

// NewScreen is a blank w×h screen.
func NewScreen(w, h int) *Screen {
	s := &Screen{auto: true}
	s.resize(w, h)
	s.p = ansi.NewParser()
	s.p.SetHandler(ansi.Handler{
		Print:     s.print,
		Execute:   s.execute,
		HandleCsi: s.csi,
		HandleEsc: s.esc,
	})
	return s
}

// NewCounter parses output only to count its frames (and answer queries).
func NewCounter() *Screen {
	s := NewScreen(1, 1)
	s.count = true
	return s
}

// Write feeds the screen with terminal output.
func (s *Screen) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range b {
		s.p.Advance(c)
	}
	return len(b), nil
}

// Resize changes the screen's size, keeping what fits.
func (s *Screen) Resize(w, h int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.resize(w, h)
}

func (s *Screen) resize(w, h int) {
	cells := make([][]rune, h)
	for y := range cells {
		cells[y] = make([]rune, w)
		for x := range cells[y] {
			if y < len(s.cells) && x < len(s.cells[y]) {
				cells[y][x] = s.cells[y][x]
			} else {
				cells[y][x] = ' '
			}
		}
	}
	s.cells, s.w, s.h = cells, w, h
	s.top, s.bot = 0, h-1
	s.x, s.y = min(s.x, w-1), min(s.y, h-1)
	s.wrap = false
}

// Lines are the screen's rows, trailing blanks trimmed.
func (s *Screen) Lines() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, s.h)
	for y, row := range s.cells {
		var b strings.Builder
		for _, r := range row {
			if r != 0 { // 0 is the right half of a wide character
				b.WriteRune(r)
			}
		}
		out[y] = strings.TrimRight(b.String(), " ")
	}
	return out
}

// String is the whole screen, one row per line.
func (s *Screen) String() string { return strings.Join(s.Lines(), "\n") }

// Frames is how many synchronized updates (mode 2026) began.
func (s *Screen) Frames() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.frames
}

func (s *Screen) print(r rune) {
	if s.count {
		return
	}
	w := ansi.StringWidth(string(r))
	if w == 0 {
		return // a combining mark: keep the base character
	}
	if s.wrap && s.auto {
		s.x = 0
		s.lineFeed()
	}
	s.wrap = false
	if s.x+w > s.w {
		if !s.auto {
			s.x = s.w - w
		} else {
			s.x = 0
			s.lineFeed()
		}
	}
	row := s.cells[s.y]
	if s.insert {
		copy(row[s.x+w:], row[s.x:])
	}
	row[s.x] = r
	if w == 2 && s.x+1 < s.w {
		row[s.x+1] = 0
	}
	s.last = r
	if s.x+w >= s.w {
		s.x = s.w - 1
		s.wrap = true
	} else {
		s.x += w
	}
}

func (s *Screen) execute(b byte) {
	if s.count {
		return
	}
	switch b {
	case '\r':
		s.x, s.wrap = 0, false
	case '\n', '\v', '\f':
		s.lineFeed()
	case '\b':
		if s.x > 0 {
			s.x--
		}
		s.wrap = false
	case '\t':
		s.x = min(s.w-1, (s.x/8+1)*8)
		s.wrap = false
	}
}

// lineFeed moves down a row, scrolling the region at its bottom.
func (s *Screen) lineFeed() {
	s.wrap = false
	if s.y == s.bot {
		s.scrollUp(1)
	} else if s.y < s.h-1 {
		s.y++
	}
}

func (s *Screen) blankRow() []rune {
	row := make([]rune, s.w)
	for i := range row {
		row[i] = ' '
	}
	return row
}

// scrollUp moves the rows of the scrolling region up n, blanking the
// bottom ones.
func (s *Screen) scrollUp(n int) {
	for range min(n, s.bot-s.top+1) {
		copy(s.cells[s.top:s.bot], s.cells[s.top+1:s.bot+1])
		s.cells[s.bot] = s.blankRow()
	}
}

func (s *Screen) scrollDown(n int) {
	for range min(n, s.bot-s.top+1) {
		copy(s.cells[s.top+1:s.bot+1], s.cells[s.top:s.bot])
		s.cells[s.top] = s.blankRow()
	}
}

func (s *Screen) erase(y, x0, x1 int) {
	for x := max(0, x0); x < min(s.w, x1); x++ {
		s.cells[y][x] = ' '
	}
}

func (s *Screen) clamp() {
	s.x = max(0, min(s.x, s.w-1))
	s.y = max(0, min(s.y, s.h-1))
	s.wrap = false
}

func (s *Screen) csi(cmd ansi.Cmd, params ansi.Params) {
	if s.count && cmd.Prefix() != '?' {
		return
	}
	n := func(i, def int) int {
		v, _, _ := params.Param(i, def)
		if v == 0 && def == 1 {
			v = 1
		}
		return v
	}
	switch cmd.Prefix() {
	case '?':
		s.privateMode(cmd, params)
		return
	case 0:
	default:
		return
	}
	if cmd.Intermediate() != 0 {
		return
	}
	switch cmd.Final() {
	case 'A':
		s.y -= n(0, 1)
		if s.y < s.top && s.y+n(0, 1) >= s.top {
			s.y = s.top
		}
	case 'B':
		s.y += n(0, 1)
		if s.y > s.bot && s.y-n(0, 1) <= s.bot {
			s.y = s.bot
		}
	case 'C':
		s.x += n(0, 1)
	case 'D':
		s.x -= n(0, 1)
	case 'E':
		s.x, s.y = 0, s.y+n(0, 1)
	case 'F':
		s.x, s.y = 0, s.y-n(0, 1)
	case 'G', '`':
		s.x = n(0, 1) - 1
	case 'd':
		s.y = n(0, 1) - 1
	case 'H', 'f':
		s.y, s.x = n(0, 1)-1, n(1, 1)-1
	case 'I':
		for range n(0, 1) {
			s.x = (s.x/8 + 1) * 8
		}
	case 'Z':
		for range n(0, 1) {
			s.x = max(0, (s.x-1)/8*8)
		}
	case 'J':
		switch n(0, 0) {
		case 0:
			s.erase(s.y, s.x, s.w)
			for y := s.y + 1; y < s.h; y++ {
				s.erase(y, 0, s.w)
			}
		case 1:
			for y := 0; y < s.y; y++ {
				s.erase(y, 0, s.w)
			}
			s.erase(s.y, 0, s.x+1)
		case 2, 3:
			for y := range s.h {
				s.erase(y, 0, s.w)
			}
		}
		return
	case 'K':
		switch n(0, 0) {
		case 0:
			s.erase(s.y, s.x, s.w)
		case 1:
			s.erase(s.y, 0, s.x+1)
		case 2:
			s.erase(s.y, 0, s.w)
		}
		s.wrap = false
		return
	case 'X':
		s.erase(s.y, s.x, s.x+n(0, 1))
		s.wrap = false
		return
	case '@':
		row := s.cells[s.y]
		k := min(n(0, 1), s.w-s.x)
		copy(row[s.x+k:], row[s.x:])
		s.erase(s.y, s.x, s.x+k)
		s.wrap = false
		return
	case 'P':
		row := s.cells[s.y]
		k := min(n(0, 1), s.w-s.x)
		copy(row[s.x:], row[s.x+k:])
		s.erase(s.y, s.w-k, s.w)
		s.wrap = false
		return
	case 'L', 'M':
		if s.y < s.top || s.y > s.bot {
			return
		}
		top := s.top
		s.top = s.y
		if cmd.Final() == 'L' {
			s.scrollDown(n(0, 1))
		} else {
			s.scrollUp(n(0, 1))
		}
		s.top = top
		s.x = 0
	case 'S':
		s.scrollUp(n(0, 1))
		return
	case 'T':
		s.scrollDown(n(0, 1))
		return
	case 'b':
		if s.last != 0 {
			for range n(0, 1) {
				s.print(s.last)
			}
		}
		return
	case 'r':
		top, bot := n(0, 1)-1, n(1, s.h)-1
		if bot <= 0 || bot >= s.h {
			bot = s.h - 1
		}
		if top < bot {
			s.top, s.bot = top, bot
		}
		s.x, s.y = 0, 0
	case 'h', 'l':
		if v, _, _ := params.Param(0, 0); v == 4 {
			s.insert = cmd.Final() == 'h'
		}
		return
	case 's':
		s.saved = [2]int{s.x, s.y}
		return
	case 'u':
		s.x, s.y = s.saved[0], s.saved[1]
	default:
		return
	}
	s.clamp()
}

func (s *Screen) privateMode(cmd ansi.Cmd, params ansi.Params) {
	mode, _, _ := params.Param(0, 0)
	switch {
	case cmd.Intermediate() == '$' && cmd.Final() == 'p': // DECRQM
		if mode == 2026 && s.Reply != nil {
			s.Reply([]byte("\x1b[?2026;2$y")) // supported, now reset
		}
	case cmd.Final() == 'h' || cmd.Final() == 'l':
		on := cmd.Final() == 'h'
		switch mode {
		case 7:
			s.auto = on
		case 2026:
			if on {
				s.frames++
			}
		case 47, 1047, 1049:
			for y := range s.h {
				s.erase(y, 0, s.w)
			}
			if mode == 1049 && on {
				s.saved = [2]int{s.x, s.y}
			}
		}
	}
}

func (s *Screen) esc(cmd ansi.Cmd) {
	switch cmd.Final() {
	case '7':
		s.saved = [2]int{s.x, s.y}
	case '8':
		s.x, s.y = s.saved[0], s.saved[1]
		s.clamp()
	case 'D':
		s.lineFeed()
	case 'E':
		s.x = 0
		s.lineFeed()
	case 'M':
		s.wrap = false
		if s.y == s.top {
			s.scrollDown(1)
		} else if s.y > 0 {
			s.y--
		}
	case 'c':
		s.resize(s.w, s.h)
		for y := range s.h {
			s.erase(y, 0, s.w)
		}
		s.x, s.y = 0, 0
	}
}
