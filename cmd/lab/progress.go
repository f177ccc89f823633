package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/charmbracelet/x/term"
	"github.com/thelab/lab/tui"
)

// progress shows how far a long headless run has come, on one line of a
// terminal that it rewrites: steps done of the total, steps per second and
// the time left at that rate. It says nothing for the first second (a
// short run shows no line at all) and nothing when its writer is not a
// terminal (a pipe, a file, a test).
type progress struct {
	w     io.Writer // nil: disabled
	name  string
	total int
	taken func() int64
	base  int64 // taken before the run
	start time.Time
	shown bool          // a line is on the terminal
	every time.Duration // how often the line is redrawn
	after time.Duration // how long a run goes before it has a line
}

// newProgress returns the progress of a run of total steps, reading the
// steps taken from taken; it is enabled when w is a terminal.
func newProgress(w io.Writer, name string, total int, taken func() int64) *progress {
	p := &progress{name: name, total: total, taken: taken, base: taken(), start: time.Now(),
		every: 250 * time.Millisecond, after: time.Second}
	if f, ok := w.(*os.File); ok && term.IsTerminal(f.Fd()) {
		p.w = w
	}
	return p
}

// wait waits for done, redrawing the line meanwhile.
func (p *progress) wait(done <-chan struct{}) {
	if p.w == nil {
		<-done
		return
	}
	tick := time.NewTicker(p.every)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return
		case now := <-tick.C:
			if now.Sub(p.start) >= p.after {
				p.show(p.line(p.taken()-p.base, now.Sub(p.start)))
			}
		}
	}
}

func (p *progress) show(line string) {
	fmt.Fprint(p.w, "\r\x1b[K"+line)
	p.shown = true
}

// clear erases the line, if one is shown, before other output.
func (p *progress) clear() {
	if p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.shown = false
	}
}

// line is the progress after done steps in elapsed time.
func (p *progress) line(done int64, elapsed time.Duration) string {
	s := fmt.Sprintf("%s: step %s of %s", p.name, thousands(done), thousands(int64(p.total)))
	if done <= 0 || elapsed <= 0 {
		return s
	}
	rate := float64(done) / elapsed.Seconds()
	left := time.Duration(float64(int64(p.total)-done) / rate * float64(time.Second))
	return s + fmt.Sprintf(" · %s steps/s · about %s left (less if it converges)", tui.Rate(rate), clock(left))
}

// thousands prints n with thin groups: 1,234,567.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// clock prints a duration as 0:07, 12:30 or 2:05:00.
func clock(d time.Duration) string {
	s := int64(d.Round(time.Second) / time.Second)
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}
