//go:build !race

package serve

import (
	"context"
	"fmt"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/thelab/lab/serve/servetest"
)

// TestCapacityUnderAttack is the capacity test of issue 24: a `lab serve`
// (built without the race detector, in a process of its own, its memory
// total set to 1 GiB) serves 32 honest sessions from 8 addresses — the
// default dashboard at 120×40, a key timed to its screen every half
// second — while one hostile visitor of servetest.Attacks plays each
// attack in turn. The honest sessions' key-to-screen p99 must stay under
// 150 ms and the server's resident memory under its soft memory limit
// (1.5 GiB, the runtime's own memory beside). It reports how many honest
// sessions were held for CPU (shown the notice of a session in debt):
// none, in every mode of every run so far, so what delays their keys is
// the machine's contention, not their budget.
//
// It takes about two minutes of two otherwise idle cores, and its
// latencies mean nothing on a loaded machine, so it runs only when asked:
//
//	LAB_CAPACITY=1 go test ./serve -run TestCapacityUnderAttack -v -timeout 30m
func TestCapacityUnderAttack(t *testing.T) {
	if os.Getenv("LAB_CAPACITY") == "" {
		t.Skip("LAB_CAPACITY=1 runs it (about two minutes of two idle cores)")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "lab")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/lab").CombinedOutput(); err != nil {
		t.Fatalf("building lab: %v\n%s", err, out)
	}
	const (
		honest   = 32
		total    = 1 << 30
		p99Bound = 150 * time.Millisecond
	)
	modes := append([]string{"none"}, slices.Sorted(maps.Keys(servetest.Attacks))...)
	var report []string
	for _, mode := range modes {
		t.Run(mode, func(t *testing.T) {
			addr := freeAddr(t)
			yield := 5 * time.Second
			srv := exec.Command(bin, "serve", "--listen", addr, "--state-dir", filepath.Join(dir, "state"),
				"--max-sessions", "48", "--conn-rate", "0", "--memory-total", strconv.Itoa(total>>20),
				"--yield-after", yield.String(), "mh", "em-gmm", "gd")
			srv.Stderr = &syncBuffer{}
			if err := srv.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() {
				srv.Process.Signal(os.Interrupt)
				srv.Wait()
			}()
			waitListening(t, addr)
			stop := make(chan struct{})
			var attackers sync.WaitGroup
			if attack := servetest.Attacks[mode]; attack != nil {
				attack(addr, stop, &attackers)
				settle := 3 * time.Second
				if mode == "idle" {
					settle = yield + 2*time.Second // idle long enough to yield
				}
				time.Sleep(settle)
			}
			peak := make(chan int64)
			rssStop := make(chan struct{})
			go func() {
				var top int64
				for {
					if rss := residentBytes(srv.Process.Pid); rss > top {
						top = rss
					}
					select {
					case <-rssStop:
						peak <- top
						return
					case <-time.After(100 * time.Millisecond):
					}
				}
			}()
			var sessions []*servetest.Session
			for i := range honest {
				s, err := servetest.Open(addr, servetest.Options{From: fmt.Sprintf("127.0.1.%d", 1+i%8),
					User: fmt.Sprintf("honest%d", i), Sync: true, Discard: true})
				if err != nil {
					t.Fatalf("honest session %d: %v", i, err)
				}
				defer s.Close()
				sessions = append(sessions, s)
			}
			lat := &servetest.Latencies{}
			for _, s := range sessions {
				go lat.Time(s)
			}
			time.Sleep(3 * time.Second)
			lat.Start()
			var throttled []<-chan struct{}
			for _, s := range sessions {
				throttled = append(throttled, s.Await("used its share"))
			}
			frames0 := make([]int, len(sessions))
			for i, s := range sessions {
				frames0[i] = s.Frames()
			}
			srv0, self0, t0 := cpuTime(srv.Process.Pid), cpuTime(os.Getpid()), time.Now()
			time.Sleep(15 * time.Second)
			lat.Stop()
			el := time.Since(t0).Seconds()
			srvCores, selfCores := (cpuTime(srv.Process.Pid)-srv0).Seconds()/el, (cpuTime(os.Getpid())-self0).Seconds()/el
			fps := make([]float64, len(sessions))
			for i, s := range sessions {
				fps[i] = float64(s.Frames()-frames0[i]) / el
			}
			slices.Sort(fps)
			close(rssStop)
			rss := <-peak
			close(stop)
			attackers.Wait()
			p99, n, missed := lat.Quantile(0.99)
			held := 0
			for _, c := range throttled {
				select {
				case <-c:
					held++
				default:
				}
			}
			line := fmt.Sprintf("%-7s %s; %.1f frames/s (median; the governor slows them while the server is busy); %d of %d held for CPU; server RSS at most %.0f MiB, %.2f cores (clients %.2f)",
				mode, lat, fps[len(fps)/2], held, honest, float64(rss)/(1<<20), srvCores, selfCores)
			report = append(report, line)
			t.Log(line)
			if n == 0 || p99 > p99Bound || missed > 0 {
				t.Errorf("honest sessions under %q: p99 %v over %d keys, %d missed (bound %v)", mode, p99, n, missed, p99Bound)
			}
			if rss > SoftMemoryLimit(total) {
				t.Errorf("server RSS reached %d MiB, over its soft limit of %d MiB", rss>>20, SoftMemoryLimit(total)>>20)
			}
		})
	}
	t.Log("\n" + strings.Join(report, "\n"))
}

func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// waitListening waits until the server at addr accepts connections.
func waitListening(t *testing.T, addr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	for ctx.Err() == nil {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("nothing listens on %s", addr)
}

// residentBytes is a process's resident memory (VmRSS), 0 if unknown.
// cpuTime is the CPU time (user and system) process pid has spent so far,
// from /proc (clock ticks of 10 ms).
func cpuTime(pid int) time.Duration {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command name, in parentheses, may hold spaces: count from after it.
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

func residentBytes(pid int) int64 {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(status), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}
