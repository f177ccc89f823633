package serve

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/thelab/lab/sims"
)

// What a session holds besides its sims, charged to its budget and the
// server's total before the session starts and again at every resize: a
// fixed part and a part per cell of its screen. TestSessionMemoryIsCharged
// measures them (sessions of one tiny sim, paused, at 80×24 and 500×200:
// their live heap after a collection): about 0.4 MB and 230 bytes a cell,
// most of it Bubble Tea's two cell buffers (112 bytes a cell each) and the
// lab's drawing of the screen; the charge per cell is within 1.5 times
// that. The fixed part adds the SSH channel's receive window (2 MiB), which
// a client may fill with input the session has not read yet.
const (
	sessionBase  = 1<<20 + 2<<20
	sessionBytes = 320
)

// screenBytes is what a session holds at a w×h screen, its sims aside.
func screenBytes(w, h int) int64 { return sessionBase + sessionBytes*int64(w)*int64(h) }

// holdScreen is the name of a session's hold on its budget.
const holdScreen = "the screen"

// fitScreen holds what a w×h screen takes on the session's budget, or,
// when its budget or the server's total cannot supply it, the largest
// screen of the same shape that fits (at least minScreenW×minScreenH); it
// returns the size held. A screen of more than maxScreenCells is drawn at
// the largest of its shape that has no more (capScreen). With no room even
// for the smallest screen it holds nothing new and returns the error.
func fitScreen(b *sims.Budget, w, h int) (int, int, error) {
	w, h = capScreen(w, h)
	err := b.Hold(holdScreen, screenBytes(w, h))
	var me *sims.MemoryError
	if err == nil || !errors.As(err, &me) {
		return w, h, err
	}
	// The largest scale of the screen whose hold is granted: the hold is
	// monotone in the scale, so halving the interval finds it.
	fit := func(s float64) (int, int) {
		return max(minScreenW, int(float64(w)*s)), max(minScreenH, int(float64(h)*s))
	}
	lo, hi := 0.0, 1.0
	for range 12 {
		mid := (lo + hi) / 2
		fw, fh := fit(mid)
		if b.Hold(holdScreen, screenBytes(fw, fh)) == nil {
			lo = mid
		} else {
			hi = mid
		}
	}
	fw, fh := fit(lo)
	if err := b.Hold(holdScreen, screenBytes(fw, fh)); err != nil {
		return w, h, err
	}
	return fw, fh, nil
}

// maxScreenCells is the most cells a session's screen is drawn with
// (250×80, or 320×62): the renderer redraws a whole screen at once after a
// window change, and a redraw of a much larger one (500×200: 25 ms of one
// core) held both cores long enough, when eight such sessions changed
// their windows together, to make every other session's answer to a key
// wait 200 ms; at this size the capacity test's draw attack leaves the
// others' p99 near 100 ms. A projector's 220×60 is well within it.
const maxScreenCells = 250 * 80

// capScreen is the largest screen of w×h's shape with at most
// maxScreenCells cells: w×h itself when it is within them.
func capScreen(w, h int) (int, int) {
	if w*h <= maxScreenCells {
		return w, h
	}
	s := math.Sqrt(float64(maxScreenCells) / (float64(w) * float64(h)))
	return max(minScreenW, int(float64(w)*s)), max(minScreenH, int(float64(h)*s))
}

// The smallest screen a session is fitted to: the lab's own minimum.
const (
	minScreenW = 26
	minScreenH = 9
)

// DefaultMemoryShare is the share of the machine's memory (or of the
// cgroup's limit) that the server admits sessions against when
// --memory-total is not given.
const DefaultMemoryShare = 0.4

// MachineMemory is the memory the server may use: its cgroup's limit when
// it has one (a container), else the machine's total, and where that came
// from.
func MachineMemory() (int64, string, error) {
	if n, ok := cgroupLimit(); ok {
		return n, "cgroup memory limit", nil
	}
	data, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0, "", fmt.Errorf("the machine's memory is unknown (%v): give --memory-total", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
			f := strings.Fields(rest)
			if kb, err := strconv.ParseInt(f[0], 10, 64); err == nil && len(f) == 2 && f[1] == "kB" {
				return kb << 10, "MemTotal of /proc/meminfo", nil
			}
		}
	}
	return 0, "", errors.New("the machine's memory is unknown (no MemTotal in /proc/meminfo): give --memory-total")
}

// cgroupLimit reads the memory limit of the process's cgroup (v2, then
// v1); none, or "max", is no limit.
func cgroupLimit() (int64, bool) {
	for _, path := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		data, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
		// v1 says "no limit" with a number near 2^63.
		if err != nil || n <= 0 || n >= math.MaxInt64/2 {
			return 0, false
		}
		return n, true
	}
	return 0, false
}

// SoftMemoryLimit is the Go runtime's soft memory limit for a server that
// admits total bytes: half as much again, room for the garbage made
// between collections, so that the collector works harder as the live
// heap nears what was admitted rather than letting the process grow past
// it. lab serve sets it (debug.SetMemoryLimit) unless GOMEMLIMIT is given.
func SoftMemoryLimit(total int64) int64 { return total + total/2 }
