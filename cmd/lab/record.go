package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/charmbracelet/colorprofile"
	"github.com/thelab/lab/internal/ansisvg"
	"github.com/thelab/lab/record"
	"github.com/thelab/lab/scene"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/catalog"
	"github.com/thelab/lab/tui"
)

var recordUsage = fmt.Sprintf(`Usage: lab record SCENE|FILE [flags]

  renders a scene headless into an asciicast v2 file, the format asciinema
  plays (asciinema play NAME.cast) and sites embed: a built-in scene by its
  name (lab tour lists them), or a scene file (a dashboard saved with S, a
  teacher's own). Its panes run at their speeds on a virtual clock: frame k,
  at k/FPS seconds, shows each pane after floor(speed × k/FPS) steps however
  long they take to compute, and the same scene recorded twice gives the
  same bytes. A pane set to max runs at %d steps/s; a sim stops where it
  converges, diverges or fails (one that replays in a pane replays here); a
  saved pane starts from its step and runs on. The screen is the TUI's: the
  scene's caption above the panes, the key line below.

  --seconds N     length of the recording (default 30; 1..%d)
  --size WxH      terminal size (default 100x30; %dx%d..%dx%d)
  --fps N         frames a second (default 10; 1..%d)
  --mono          without colours, as NO_COLOR draws (default: 24-bit colour)
  --out FILE      the cast (default NAME.cast in this folder: the scene's name,
                  or the file's without .scene); an existing file is kept
                  unless --overwrite
  --svg FILE      also draw the last frame as an SVG picture
  --overwrite     replace --out and --svg if they exist

  lab record sinkhorn-underflow --seconds 20 --out sinkhorn.cast
  asciinema play sinkhorn.cast
`, record.MaxRate, record.MaxSeconds, tui.MinWidth, tui.MinHeight, record.MaxWidth, record.MaxHeight, record.MaxFPS)

// recordOptions are lab record's flags.
type recordOptions struct {
	seconds, fps  int
	size          string
	mono          bool
	out, svg      string
	overwrite     bool
	help          bool
	width, height int
}

// parseRecord reads lab record's arguments: one scene, flags anywhere.
func parseRecord(args []string) (string, recordOptions, error) {
	o := recordOptions{seconds: 30, fps: 10, size: "100x30"}
	var names []string
	for {
		fs := flag.NewFlagSet("record", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.IntVar(&o.seconds, "seconds", o.seconds, "")
		fs.IntVar(&o.fps, "fps", o.fps, "")
		fs.StringVar(&o.size, "size", o.size, "")
		fs.BoolVar(&o.mono, "mono", o.mono, "")
		fs.Var(fileFlag{&o.out, "leave --out out for NAME.cast"}, "out", "")
		fs.Var(fileFlag{&o.svg, "leave --svg out to draw none"}, "svg", "")
		fs.BoolVar(&o.overwrite, "overwrite", o.overwrite, "")
		fs.BoolVar(&o.help, "help", o.help, "")
		fs.BoolVar(&o.help, "h", o.help, "")
		if err := fs.Parse(args); err != nil {
			return "", o, usageErr("record: %s (lab record --help shows the flags)", flagError(fs, err))
		}
		if fs.NArg() == 0 {
			break
		}
		names = append(names, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if o.help {
		return "", o, nil
	}
	w, h, ok := strings.Cut(o.size, "x")
	var err1, err2 error
	o.width, err1 = strconv.Atoi(w)
	o.height, err2 = strconv.Atoi(h)
	switch {
	case len(names) == 0:
		return "", o, usageErr("record: which scene? (lab record SCENE|FILE; lab tour lists the scenes)")
	case len(names) > 1:
		return "", o, usageErr("record: one scene at a time, got %s", sims.Shown(strings.Join(names, " ")))
	case o.seconds < 1 || o.seconds > record.MaxSeconds:
		return "", o, usageErr("record: --seconds %d: from 1 to %d", o.seconds, record.MaxSeconds)
	case o.fps < 1 || o.fps > record.MaxFPS:
		return "", o, usageErr("record: --fps %d: from 1 to %d", o.fps, record.MaxFPS)
	case !ok || err1 != nil || err2 != nil || o.width < tui.MinWidth || o.height < tui.MinHeight ||
		o.width > record.MaxWidth || o.height > record.MaxHeight:
		return "", o, usageErr("record: --size must be WxH from %dx%d to %dx%d, got %s",
			tui.MinWidth, tui.MinHeight, record.MaxWidth, record.MaxHeight, sims.Shown(o.size))
	}
	return names[0], o, nil
}

// recordCmd records a scene into a cast (and its last frame into an
// SVG). The files are claimed before the recording starts, so that a name
// taken is said at once, and removed if it fails.
func recordCmd(args []string, stdout, stderr io.Writer) error {
	name, o, err := parseRecord(args)
	if err != nil {
		return err
	}
	if o.help {
		fmt.Fprint(stdout, recordUsage)
		return nil
	}
	cat := catalog.All()
	ro := record.Options{Seconds: o.seconds, FPS: o.fps, Width: o.width, Height: o.height,
		Profile: colorprofile.TrueColor, TourAt: -1}
	if o.mono {
		ro.Profile = colorprofile.Ascii
	}
	var sc scene.Scene
	builtins := scene.Builtins()
	if i := slices.IndexFunc(builtins, func(s scene.Scene) bool { return s.Name == name }); i >= 0 {
		// The caption as lab tour NAME shows it: where it is in the tour.
		sc, ro.Tour, ro.TourAt = builtins[i], builtins, i
		if o.out == "" {
			o.out = sc.Name + ".cast"
		}
	} else {
		sc, err = scene.Load(name, cat)
		if errors.Is(err, fs.ErrNotExist) {
			return usageErr("record: %s is neither a built-in scene (lab tour --list lists them) nor a scene file", sims.Shown(name))
		}
		if err != nil {
			return usageErr("record: %v", err)
		}
		if len(sc.Caption) > 0 {
			ro.Tour, ro.TourAt = []scene.Scene{sc}, 0
		}
		if o.out == "" {
			o.out = strings.TrimSuffix(filepath.Base(name), ".scene") + ".cast"
		}
	}
	ro.Title = sc.Title
	if ro.Title == "" {
		ro.Title = sc.Name
	}
	if o.svg != "" && filepath.Clean(o.svg) == filepath.Clean(o.out) {
		return usageErr("record: --svg and --out are both %s", sims.Shown(o.out))
	}
	cast, err := claim(o.out, o.overwrite)
	if err != nil {
		return err
	}
	var svg *os.File
	if o.svg != "" {
		if svg, err = claim(o.svg, o.overwrite); err != nil {
			cast.Close()
			os.Remove(o.out)
			return err
		}
	}
	fail := func(err error) error {
		cast.Close()
		os.Remove(o.out)
		if svg != nil {
			svg.Close()
			os.Remove(o.svg)
		}
		return err
	}
	if isTerminal(stderr) {
		ro.Progress = func(done, frames int) {
			if done%o.fps == 0 || done == frames {
				fmt.Fprintf(stderr, "\r\x1b[Krecording %s: %d s of %d s", sc.Name, (done-1)/o.fps, o.seconds)
			}
			if done == frames {
				fmt.Fprint(stderr, "\r\x1b[K")
			}
		}
	}
	last, err := record.Record(cast, sc, cat, ro)
	if err != nil {
		// A sim that crashes while built is a failure, status 1; one that
		// refuses its parameters or data, or a cast that cannot be
		// written, is bad usage, as in lab run. A sim that diverges or
		// fails while recorded is shown so, not an error.
		if errors.Is(err, sims.ErrPanic) {
			return fail(&exitError{code: 1, err: fmt.Errorf("record %s: %w", sc.Name, err)})
		}
		return fail(usageErr("record %s: %v", sc.Name, err))
	}
	if svg != nil {
		if _, err := io.WriteString(svg, ansisvg.SVG(last)); err != nil {
			return fail(usageErr("record: %v", err))
		}
		if err := svg.Close(); err != nil {
			return fail(usageErr("record: %v", err))
		}
	}
	st, err := cast.Stat()
	if err != nil {
		return fail(usageErr("record: %v", err))
	}
	if err := cast.Close(); err != nil {
		return fail(usageErr("record: %v", err))
	}
	fmt.Fprintf(stdout, "recorded %s: %d s at %d frames/s, %d×%d, %s in %s (asciinema play %s)\n",
		sc.Name, o.seconds, o.fps, o.width, o.height, sizeOf(st.Size()), o.out, o.out)
	if svg != nil {
		fmt.Fprintf(stdout, "the last frame: %s\n", o.svg)
	}
	return nil
}

// claim creates path for writing: a new file, or with overwrite an
// existing one emptied.
func claim(path string, overwrite bool) (*os.File, error) {
	flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if overwrite {
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	f, err := os.OpenFile(path, flags, 0o644)
	if errors.Is(err, os.ErrExist) {
		return nil, usageErr("record: %s exists (--overwrite replaces it)", sims.Shown(path))
	}
	if err != nil {
		return nil, usageErr("record: %v", err)
	}
	return f, nil
}

// sizeOf prints a file size: 812 B, 96 kB, 4.1 MB.
func sizeOf(n int64) string {
	switch {
	case n >= 1e6:
		return strconv.FormatFloat(float64(n)/1e6, 'f', 1, 64) + " MB"
	case n >= 1e3:
		return strconv.FormatInt(n/1e3, 10) + " kB"
	default:
		return strconv.FormatInt(n, 10) + " B"
	}
}
