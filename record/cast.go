package record

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Cast writes an asciicast v2 file, the format of asciinema's recordings
// (https://docs.asciinema.org/manual/asciicast/v2/), from whole screens
// handed to it one frame at a time. The file is newline-delimited JSON:
//
//	{"version":2,"width":100,"height":30,"duration":30,"title":"…","env":{"TERM":"xterm-256color"}}
//	[0.000000, "o", "\u001b[?25l\u001b[H\u001b[2J\u001b[1;1H…"]
//	[0.100000, "o", "\u001b[3;1H…\u001b[m"]
//	[30.000000, "o", "\u001b[?25h"]
//
// The first line is the header: the terminal's size (required), then the
// duration, title and environment (optional); it has no timestamp, so
// that the same recording gives the same bytes. Every later line is an
// event [time, "o", data]: at time seconds from the start, data is written
// to the terminal ("o", output). Times have six decimals and never
// decrease.
//
// The first frame hides the cursor, clears the screen and draws every
// row that is not blank; each later frame redraws only the rows that
// changed, each as a cursor position (CUP), the row, a reset of the
// attributes (SGR 0) unless the row ends with one, and, when the row is
// narrower than the screen, an erase to its end (EL) — none after a full
// row, whose last cell EL would erase. A frame that changed nothing
// writes no event. Close shows the cursor again, the last event.
type Cast struct {
	w             *bufio.Writer
	width, height int
	rows          []string // the screen as last drawn: "" is a blank row
	t             float64  // the time of the last event
	started       bool
	closed        bool
	err           error // the first error, returned from then on
	data          []byte
	quote         bytes.Buffer
	enc           *json.Encoder
}

// Header is what a cast's first line says besides its version.
type Header struct {
	Width, Height int
	// Duration is the recording's length in seconds (0: not said).
	Duration float64
	// Title is the recording's title ("": none).
	Title string
}

// NewCast writes the header of a cast to w and returns its writer.
func NewCast(w io.Writer, h Header) (*Cast, error) {
	if h.Width <= 0 || h.Height <= 0 {
		return nil, fmt.Errorf("cast of %d×%d cells: the size must be positive", h.Width, h.Height)
	}
	c := &Cast{w: bufio.NewWriterSize(w, 64<<10), width: h.Width, height: h.Height, rows: make([]string, h.Height)}
	c.enc = json.NewEncoder(&c.quote)
	c.enc.SetEscapeHTML(false)
	head := struct {
		Version  int               `json:"version"`
		Width    int               `json:"width"`
		Height   int               `json:"height"`
		Duration float64           `json:"duration,omitempty"`
		Title    string            `json:"title,omitempty"`
		Env      map[string]string `json:"env"`
	}{2, h.Width, h.Height, h.Duration, h.Title, map[string]string{"TERM": "xterm-256color"}}
	if err := c.enc.Encode(head); err != nil {
		return nil, err
	}
	if _, err := c.w.Write(c.quote.Bytes()); err != nil {
		return nil, err
	}
	return c, nil
}

// Frame records the screen shown from time t (seconds): its rows, at most
// Height, joined by "\n", each at most Width cells wide (ANSI styles
// allowed); missing rows are blank.
func (c *Cast) Frame(t float64, screen string) error {
	if err := c.check(t); err != nil {
		return err
	}
	rows := strings.Split(screen, "\n")
	if len(rows) > c.height {
		return c.fail(fmt.Errorf("a frame of %d rows on a screen of %d", len(rows), c.height))
	}
	d := c.data[:0]
	if !c.started {
		d = append(d, "\x1b[?25l\x1b[H\x1b[2J"...)
	}
	for y := range c.height {
		row := ""
		if y < len(rows) {
			row = rows[y]
		}
		if row == c.rows[y] && c.started {
			continue
		}
		w := ansi.StringWidth(row)
		if w > c.width {
			return c.fail(fmt.Errorf("row %d of the frame at %.3f s is %d cells wide, the screen %d", y+1, t, w, c.width))
		}
		if row != c.rows[y] { // the first frame leaves blank rows as the clear left them
			d = append(d, "\x1b["...)
			d = strconv.AppendInt(d, int64(y+1), 10)
			d = append(d, ";1H"...)
			d = append(d, row...)
			if !strings.HasSuffix(row, "\x1b[m") && !strings.HasSuffix(row, "\x1b[0m") {
				d = append(d, "\x1b[m"...)
			}
			if w < c.width {
				d = append(d, "\x1b[K"...)
			}
		}
		c.rows[y] = row
	}
	c.data = d
	c.started = true
	if len(d) == 0 {
		return nil
	}
	return c.event(t, d)
}

// Close shows the cursor again at time t, the cast's last event, and
// flushes the cast. The writer is done with after it.
func (c *Cast) Close(t float64) error {
	if err := c.check(t); err != nil {
		return err
	}
	if err := c.event(t, []byte("\x1b[?25h")); err != nil {
		return err
	}
	c.closed = true
	if err := c.w.Flush(); err != nil {
		return c.fail(err)
	}
	return nil
}

// check refuses a time that is not a number, negative or earlier than the
// last event's, and any use after an error or Close.
func (c *Cast) check(t float64) error {
	switch {
	case c.err != nil:
		return c.err
	case c.closed:
		return errors.New("the cast is closed")
	case math.IsNaN(t) || math.IsInf(t, 0) || t < 0:
		return c.fail(fmt.Errorf("event time %v: a time from the start, in seconds", t))
	case t < c.t:
		return c.fail(fmt.Errorf("event time %.6f before the last event's, %.6f", t, c.t))
	}
	return nil
}

// event writes the line [t, "o", data].
func (c *Cast) event(t float64, data []byte) error {
	c.quote.Reset()
	// data is text; JSON writes a byte that is not UTF-8 as U+FFFD.
	if err := c.enc.Encode(string(data)); err != nil {
		return c.fail(err)
	}
	q := bytes.TrimSuffix(c.quote.Bytes(), []byte("\n"))
	line := make([]byte, 0, len(q)+32)
	line = append(line, '[')
	line = strconv.AppendFloat(line, t, 'f', 6, 64)
	line = append(line, `, "o", `...)
	line = append(line, q...)
	line = append(line, "]\n"...)
	if _, err := c.w.Write(line); err != nil {
		return c.fail(err)
	}
	c.t = t
	return nil
}

func (c *Cast) fail(err error) error {
	if c.err == nil {
		c.err = err
	}
	return c.err
}
