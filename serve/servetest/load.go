package servetest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"
)

// Attacks are the hostile visitors of issue 24, each run beside honest
// sessions from addresses of its own (127.0.2.x) until stop is closed
// (sshload -attack, the capacity test):
//
//	memory   8 sessions that keep adding the largest sims (item 1)
//	export   8 sessions that hold E down: a CSV copy every 5 ms (item 2)
//	conns    90 logged-in connections that open no session, from 5
//	         addresses, dialled again as they are closed (item 3)
//	cpu      8 sessions of heavy panes at full speed, and a ninth that
//	         reconnects every 2 s with its panes built afresh (item 4)
//	draw     8 sessions at 500×200 in a resize storm, typing in the
//	         catalogue's filter (item 5)
//	idle     32 idle sessions from 4 addresses, opened before the honest
//	         ones (item 6: run the server with a short idle-yield time, or
//	         wait out its 2 minutes, for them to yield)
var Attacks = map[string]func(addr string, stop <-chan struct{}, wg *sync.WaitGroup){
	"memory": func(addr string, stop <-chan struct{}, wg *sync.WaitGroup) {
		for i := range 8 {
			hostile(addr, "127.0.2.1", fmt.Sprintf("mem%d", i), 200, 60, stop, wg, func(s *Session, k int) {
				big := []string{"tinygpt", "vae", "digits", "rnn", "svm", "kernel-pca"}
				s.Send("a/" + big[k%len(big)] + "\r\r")
				time.Sleep(300 * time.Millisecond)
			})
		}
	},
	"export": func(addr string, stop <-chan struct{}, wg *sync.WaitGroup) {
		for i := range 8 {
			hostile(addr, "127.0.2.1", fmt.Sprintf("exp%d", i), 120, 40, stop, wg, func(s *Session, _ int) {
				s.Send("E")
				time.Sleep(5 * time.Millisecond)
			})
		}
	},
	"conns": func(addr string, stop <-chan struct{}, wg *sync.WaitGroup) {
		for i := range 90 {
			from := fmt.Sprintf("127.0.2.%d", 1+i%5)
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					c, err := Dial(addr, Options{From: from, User: "stalled"})
					if err == nil {
						done := make(chan struct{})
						go func() { c.Wait(); close(done) }()
						select {
						case <-stop:
							c.Close()
							return
						case <-done:
						}
					}
					select {
					case <-stop:
						return
					case <-time.After(200 * time.Millisecond):
					}
				}
			}()
		}
	},
	"cpu": func(addr string, stop <-chan struct{}, wg *sync.WaitGroup) {
		heavy := "a/em-gmm\r\r" + strings.Repeat("+", 12)
		for i := range 8 {
			hostile(addr, "127.0.2.1", fmt.Sprintf("cpu%d", i), 200, 60, stop, wg, func(s *Session, k int) {
				if k < 5 {
					s.Send(heavy)
				}
				time.Sleep(500 * time.Millisecond)
			})
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				s, err := Open(addr, Options{From: "127.0.2.1", User: "cycle", W: 120, H: 40, Discard: true})
				if err == nil {
					s.Send(heavy + heavy + heavy)
				}
				select {
				case <-stop:
				case <-time.After(2 * time.Second):
				}
				if s != nil {
					s.Close()
				}
				select {
				case <-stop:
					return
				default:
				}
			}
		}()
	},
	"draw": func(addr string, stop <-chan struct{}, wg *sync.WaitGroup) {
		for i := range 8 {
			hostile(addr, "127.0.2.1", fmt.Sprintf("draw%d", i), 500, 200, stop, wg, func(s *Session, k int) {
				if k%50 == 0 {
					s.Send("a/")
				}
				s.Send(string(rune('a' + k%26)))
				s.Resize(500-k%2*100, 200-k%2*50)
				time.Sleep(10 * time.Millisecond)
			})
		}
	},
	"idle": func(addr string, stop <-chan struct{}, wg *sync.WaitGroup) {
		for i := range 32 {
			from := fmt.Sprintf("127.0.2.%d", 1+i/8)
			hostile(addr, from, fmt.Sprintf("idle%d", i), 120, 40, stop, wg, func(*Session, int) {
				time.Sleep(time.Second)
			})
		}
	},
}

// hostile opens a session from the address from and plays act on it,
// again and again, until stop; it opens the session again if the server
// ends it.
func hostile(addr, from, user string, w, h int, stop <-chan struct{}, wg *sync.WaitGroup, act func(s *Session, k int)) {
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			s, err := Open(addr, Options{From: from, User: user, W: w, H: h, Discard: true})
			if err != nil {
				select {
				case <-stop:
					return
				case <-time.After(time.Second):
					continue
				}
			}
			for k := 0; ; k++ {
				select {
				case <-stop:
					s.Close()
					return
				case <-s.Done():
				default:
					act(s, k)
					continue
				}
				break
			}
		}
	}()
}

// Latencies collects key-to-screen times of sessions during a window: a
// load generator's (sshload) and the capacity test's measure of how a
// server answers its visitors. A nil *Latencies records nothing.
type Latencies struct {
	mu     sync.Mutex
	on     bool
	d      []time.Duration
	missed int
}

// Start opens the window.
func (l *Latencies) Start() {
	if l != nil {
		l.mu.Lock()
		l.on = true
		l.mu.Unlock()
	}
}

// Stop closes it.
func (l *Latencies) Stop() {
	if l != nil {
		l.mu.Lock()
		l.on = false
		l.mu.Unlock()
	}
}

// Time presses space in s every 0.3–0.7 s, until s ends, and records how
// long the focused pane's title takes to turn to "paused"; then space
// again resumes it ("running"). The focused pane must be one that never
// ends (mh: a pane that has converged ignores space); a key that gets no
// answer within 5 s is counted missed. Run it in a goroutine of its own
// per session.
func (l *Latencies) Time(s *Session) {
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 0))
	for {
		select {
		case <-s.Done():
			return
		case <-time.After(time.Duration(300+rng.IntN(400)) * time.Millisecond):
		}
		paused := s.Await("paused")
		t0 := time.Now()
		if s.Send(" ") != nil {
			return
		}
		select {
		case <-paused:
			l.add(time.Since(t0), false)
		case <-time.After(5 * time.Second):
			l.add(0, true)
		case <-s.Done():
			return
		}
		running := s.Await("running")
		s.Send(" ")
		select {
		case <-running:
		case <-time.After(5 * time.Second):
		case <-s.Done():
			return
		}
	}
}

func (l *Latencies) add(d time.Duration, missed bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.on {
		return
	}
	if missed {
		l.missed++
		return
	}
	l.d = append(l.d, d)
}

// Quantile is the p-quantile of the keys timed in the window (0 when
// none was), with how many were timed and how many missed (no screen
// within 5 s).
func (l *Latencies) Quantile(p float64) (q time.Duration, timed, missed int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.d) == 0 {
		return 0, 0, l.missed
	}
	slices.Sort(l.d)
	return l.d[min(len(l.d)-1, int(p*float64(len(l.d))))], len(l.d), l.missed
}

// String gives the percentiles of the window and the keys missed.
func (l *Latencies) String() string {
	p50, n, missed := l.Quantile(0.5)
	if n == 0 {
		return fmt.Sprintf("key to screen: no keys timed (%d missed)", missed)
	}
	p90, _, _ := l.Quantile(0.9)
	p99, _, _ := l.Quantile(0.99)
	top, _, _ := l.Quantile(1)
	return fmt.Sprintf("key to screen (%d keys, %d missed after 5 s): p50 %.0f ms  p90 %.0f ms  p99 %.0f ms  max %.0f ms",
		n, missed, ms(p50), ms(p90), ms(p99), ms(top))
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
