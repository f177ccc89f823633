// Package record films a scene: its panes run headless on a virtual clock
// at their speeds (clock), the TUI draws each frame (tui.Board), and the
// frames go into an asciicast v2 file (Cast), the format asciinema plays
// and sites embed. A recording is a function of the scene and the
// options: the same scene recorded twice gives the same bytes, on any
// machine, however long its steps take to compute. lab record is its
// command line.
package record

import (
	"errors"
	"fmt"
	"io"

	"github.com/charmbracelet/colorprofile"
	"github.com/thelab/lab/scene"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/tui"
)

// Options say what a recording films and how.
type Options struct {
	// Seconds is the recording's length and FPS its frames a second:
	// frames 0 … Seconds·FPS, frame k at k/FPS seconds.
	Seconds, FPS int
	// Width and Height are the terminal's size in cells.
	Width, Height int
	// Profile is the terminal's colours (tui.BoardOptions.Profile):
	// TrueColor, or Ascii for a monochrome recording.
	Profile colorprofile.Profile
	// Tour and TourAt put the scene's title and caption above the panes,
	// as lab tour NAME shows them (TourAt -1, or a nil Tour: none).
	Tour   []scene.Scene
	TourAt int
	// Title is the cast's title ("": none).
	Title string
	// Progress, when set, is called after each frame with the frames
	// done and their number.
	Progress func(done, frames int)
}

// Limits of a recording's options.
const (
	MaxSeconds = 600
	MaxFPS     = 30
	MaxWidth   = 400
	MaxHeight  = 200
)

// Record films the scene sc (its sims from cat; a pane with a data file
// needs the Table scene.Load reads) and writes the cast to w. It returns
// the last frame's screen, a still of the recording (its SGR styles in
// o.Profile).
//
// Each pane runs as a live pane does (sims.Runner, one worker): at its
// scene's speed, or its sim's own, from its scene's seed (and after its
// Steps, for a saved dashboard's pane, then running); a pane set to max
// runs at MaxRate. It stops when its sim converges, diverges or fails; a
// sim that replays (Spec.Replay) starts its next seed Replay after
// converging, as a live pane does. Frames show each pane as running at
// its speed until it ends: the steps per second on its edge are its
// speed's, not a measure.
func Record(w io.Writer, sc scene.Scene, cat *sims.Catalog, o Options) (last string, err error) {
	switch {
	case o.Seconds < 1 || o.Seconds > MaxSeconds:
		return "", fmt.Errorf("a recording of %d s: from 1 to %d", o.Seconds, MaxSeconds)
	case o.FPS < 1 || o.FPS > MaxFPS:
		return "", fmt.Errorf("%d frames a second: from 1 to %d", o.FPS, MaxFPS)
	case o.Width < tui.MinWidth || o.Height < tui.MinHeight || o.Width > MaxWidth || o.Height > MaxHeight:
		return "", fmt.Errorf("a screen of %d×%d: from %d×%d to %d×%d", o.Width, o.Height,
			tui.MinWidth, tui.MinHeight, MaxWidth, MaxHeight)
	case len(sc.Panes) == 0:
		return "", errors.New("the scene has no pane")
	}
	clk, err := newClock(sc, cat, o.FPS)
	if err != nil {
		return "", err
	}
	defer clk.close()
	board := tui.NewBoard(tui.BoardOptions{Width: o.Width, Height: o.Height, Profile: o.Profile,
		Tour: o.Tour, TourAt: o.TourAt, Focus: sc.Focus})
	cast, err := NewCast(w, Header{Width: o.Width, Height: o.Height, Duration: float64(o.Seconds), Title: o.Title})
	if err != nil {
		return "", err
	}
	frames := o.Seconds * o.FPS
	for k := 0; k <= frames; k++ {
		snaps, err := clk.frame(k)
		if err != nil {
			return "", err
		}
		last = board.Render(snaps)
		if err := cast.Frame(FrameTime(k, o.FPS), last); err != nil {
			return "", err
		}
		if o.Progress != nil {
			o.Progress(k+1, frames+1)
		}
	}
	if err := cast.Close(float64(o.Seconds)); err != nil {
		return "", err
	}
	return last, nil
}

// FrameTime is the time of frame k at fps frames a second, in seconds.
func FrameTime(k, fps int) float64 { return float64(k) / float64(fps) }
