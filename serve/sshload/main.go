// Command sshload measures a running `lab serve`: it opens N real SSH
// sessions with a PTY (golang.org/x/crypto/ssh), answers the renderer's
// query for synchronized output so that every frame arrives between
// mode-2026 markers, and counts frames and bytes per session over a
// window. Given the server's pid it also reads the server's resident
// memory and CPU time from /proc before and after.
//
// With -keys, each session also presses space (pause the focused pane,
// which must be one that never ends, such as mh) every half second or so
// and times the key to the screen: from the moment the key is written to
// the moment "paused" arrives in the session's output, then resumes the
// pane (servetest.Latencies); the report gives the percentiles of those
// latencies. With -fast every pane runs at its
// maximum speed ("+" pressed until "speed max"). With -addrs K the
// sessions come from K addresses of 127.0.1.x (the server's per-address
// caps apply to each); with -attack MODE a hostile visitor of issue 24
// runs beside them from addresses of its own (attack.go lists the modes),
// so that the honest sessions' latency and the server's memory can be read
// under attack.
//
//	go build -o /tmp/lab ./cmd/lab
//	/tmp/lab serve --listen 127.0.0.1:2299 --conn-rate 0 --max-sessions 200 --max-sessions-per-addr 0 mh mh mh mh &
//	go run ./serve/sshload -addr 127.0.0.1:2299 -pid $! -n 20 -size 120x40
//	go run ./serve/sshload -addr 127.0.0.1:2299 -pid $! -n 16 -fast -keys  # capacity: full speed, key latency
//	go run ./serve/sshload -addr 127.0.0.1:2299 -pid $! -n 20 -pause 4     # idle sessions
//	go run ./serve/sshload -addr 127.0.0.1:2299 -n 1 -nocolor              # a NO_COLOR client
//	go run ./serve/sshload -addr 127.0.0.1:2299 -pid $! -n 32 -addrs 8 -keys -attack draw  # capacity under attack
package main

import (
	"flag"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/thelab/lab/serve/servetest"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:2222", "server address")
	n := flag.Int("n", 10, "sessions")
	size := flag.String("size", "120x40", "terminal size WxH")
	pid := flag.Int("pid", 0, "the server's pid, to read its memory and CPU from /proc")
	warmup := flag.Duration("warmup", 3*time.Second, "time after the last session opened before measuring")
	window := flag.Duration("d", 10*time.Second, "measurement window")
	noColor := flag.Bool("nocolor", false, "send NO_COLOR=1, as a monochrome client would")
	pause := flag.Int("pause", 0, "pause this many panes in every session (space, tab) to measure idle sessions")
	fast := flag.Bool("fast", false, "run every pane at its maximum speed")
	panes := flag.Int("panes", 4, "panes per session, for -fast")
	keys := flag.Bool("keys", false, "time key presses to the screen (space: pause the focused pane, then resume it)")
	addrs := flag.Int("addrs", 1, "spread the sessions over this many client addresses (127.0.1.x)")
	attack := flag.String("attack", "", "also run one hostile visitor from addresses of its own (127.0.2.x): "+strings.Join(slices.Sorted(maps.Keys(servetest.Attacks)), ", "))
	flag.Parse()
	stopAttack := make(chan struct{})
	var attackers sync.WaitGroup
	if *attack != "" {
		run, ok := servetest.Attacks[*attack]
		if !ok {
			fail("unknown -attack %q", *attack)
		}
		run(*addr, stopAttack, &attackers)
		time.Sleep(2 * time.Second) // the attack under way before the honest arrive
	}
	var w, h int
	if _, err := fmt.Sscanf(*size, "%dx%d", &w, &h); err != nil {
		fail("bad -size %q", *size)
	}

	rss0, _ := procStats(*pid)
	var env map[string]string
	if *noColor {
		env = map[string]string{"NO_COLOR": "1"}
	}
	sessions := make([]*servetest.Session, 0, *n)
	for i := range *n {
		from := ""
		if *addrs > 1 {
			from = fmt.Sprintf("127.0.1.%d", 1+i%*addrs)
		}
		s, err := servetest.Open(*addr, servetest.Options{User: fmt.Sprintf("load%d", i), W: w, H: h, Env: env, Sync: true, Discard: true, From: from})
		if err != nil {
			fail("session %d: %v", i+1, err)
		}
		sessions = append(sessions, s)
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(time.Second) // let the first frames go out
	for _, s := range sessions {
		if *fast {
			for range *panes {
				s.Send(strings.Repeat("+", 12) + "\t")
			}
		}
		for range *pause {
			s.Send(" \t")
		}
	}
	var lat *servetest.Latencies
	if *keys {
		lat = &servetest.Latencies{}
		for _, s := range sessions {
			go lat.Time(s)
		}
	}
	time.Sleep(*warmup)
	lat.Start()

	frames0, bytes0 := counts(sessions)
	rss1, cpu1 := procStats(*pid)
	began := time.Now()
	self0 := selfCPU()
	time.Sleep(*window)
	frames1, bytes1 := counts(sessions)
	lat.Stop()
	el := time.Since(began).Seconds()
	_, cpu2 := procStats(*pid)
	self1 := selfCPU()

	fps := make([]float64, *n)
	bps := make([]float64, *n)
	for i := range sessions {
		fps[i] = float64(frames1[i]-frames0[i]) / el
		bps[i] = float64(bytes1[i]-bytes0[i]) / el
	}
	slices.Sort(fps)
	slices.Sort(bps)
	fmt.Printf("sessions %d at %s, window %.1fs\n", *n, *size, el)
	fmt.Printf("frames/s per session: min %.1f  median %.1f  max %.1f\n", fps[0], fps[*n/2], fps[*n-1])
	fmt.Printf("bytes/s per session:  min %.0f  median %.0f  max %.0f  (total %.0f KB/s)\n",
		bps[0], bps[*n/2], bps[*n-1], sum(bps)/1000)
	if *pid > 0 {
		fmt.Printf("server RSS: %.1f MiB before, %.1f MiB with the sessions: %.2f MiB per session\n",
			float64(rss0)/(1<<20), float64(rss1)/(1<<20), float64(rss1-rss0)/(1<<20)/float64(*n))
		fmt.Printf("server CPU during the window: %.2f cores (%.1f%% of one core per session)\n",
			(cpu2-cpu1)/el, 100*(cpu2-cpu1)/el/float64(*n))
	}
	if lat != nil {
		fmt.Println(lat)
	}
	fmt.Printf("this load generator's CPU: %.2f cores\n", (self1-self0)/el)
	if *pid > 0 {
		rss, _ := procStats(*pid)
		fmt.Printf("server RSS at the end: %.1f MiB\n", float64(rss)/(1<<20))
	}
	for _, s := range sessions {
		s.Close()
	}
	close(stopAttack)
	attackers.Wait()
}

func counts(ss []*servetest.Session) ([]int, []int64) {
	f := make([]int, len(ss))
	b := make([]int64, len(ss))
	for i, s := range ss {
		f[i], b[i] = s.Frames(), s.Bytes()
	}
	return f, b
}

func sum(x []float64) float64 {
	t := 0.0
	for _, v := range x {
		t += v
	}
	return t
}

// procStats is a process's resident memory in bytes and its CPU seconds.
func procStats(pid int) (int64, float64) {
	if pid <= 0 {
		return 0, 0
	}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		fail("%v", err)
	}
	var rss int64
	for _, l := range strings.Split(string(status), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			rss = kb << 10
		}
	}
	return rss, cpuSeconds(fmt.Sprintf("/proc/%d/stat", pid))
}

func selfCPU() float64 { return cpuSeconds("/proc/self/stat") }

// cpuSeconds reads utime + stime (in clock ticks of 1/100 s) from a stat file.
func cpuSeconds(path string) float64 {
	b, err := os.ReadFile(path)
	if err != nil {
		fail("%v", err)
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return (ut + st) / 100
}

func fail(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "sshload: "+format+"\n", a...)
	os.Exit(1)
}
