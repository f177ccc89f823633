package main

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/thelab/lab/serve/servetest"
)

// An attack is one hostile visitor of issue 24, run beside the honest
// sessions from addresses of its own (127.0.2.x) until stop is closed:
//
//	memory   8 sessions that keep adding the largest sims (items 1)
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
var attacks = map[string]func(addr string, stop <-chan struct{}, wg *sync.WaitGroup){
	"memory": func(addr string, stop <-chan struct{}, wg *sync.WaitGroup) {
		for i := range 8 {
			hostile(addr, "127.0.2.1", fmt.Sprintf("mem%d", i), 200, 60, stop, wg, func(s *servetest.Session, k int) {
				big := []string{"tinygpt", "vae", "digits", "rnn", "svm", "kernel-pca"}
				s.Send("a/" + big[k%len(big)] + "\r\r")
				time.Sleep(300 * time.Millisecond)
			})
		}
	},
	"export": func(addr string, stop <-chan struct{}, wg *sync.WaitGroup) {
		for i := range 8 {
			hostile(addr, "127.0.2.1", fmt.Sprintf("exp%d", i), 120, 40, stop, wg, func(s *servetest.Session, _ int) {
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
					c, err := servetest.Dial(addr, servetest.Options{From: from, User: "stalled"})
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
			hostile(addr, "127.0.2.1", fmt.Sprintf("cpu%d", i), 200, 60, stop, wg, func(s *servetest.Session, k int) {
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
				s, err := servetest.Open(addr, servetest.Options{From: "127.0.2.1", User: "cycle", W: 120, H: 40, Discard: true})
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
			hostile(addr, "127.0.2.1", fmt.Sprintf("draw%d", i), 500, 200, stop, wg, func(s *servetest.Session, k int) {
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
			hostile(addr, from, fmt.Sprintf("idle%d", i), 120, 40, stop, wg, func(*servetest.Session, int) {
				time.Sleep(time.Second)
			})
		}
	},
}

// hostile opens a session from the address from and plays act on it,
// again and again, until stop; it opens the session again if the server
// ends it.
func hostile(addr, from, user string, w, h int, stop <-chan struct{}, wg *sync.WaitGroup, act func(s *servetest.Session, k int)) {
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			s, err := servetest.Open(addr, servetest.Options{From: from, User: user, W: w, H: h, Discard: true})
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
