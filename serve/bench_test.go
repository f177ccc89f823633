package serve

import (
	"context"
	"net"
	"runtime"
	"testing"
	"time"

	"github.com/thelab/lab/serve/servetest"
)

// BenchmarkSession measures sessions served in this process to real SSH
// clients over loopback, at 120x40: the live heap each adds (after a full
// GC, the clients' share included; they keep no screen), and the frames and
// bytes a client receives per second with 20 sessions open. "idle" is the default dashboard
// with every pane paused and nobody typing; "four-running" is four
// Metropolis–Hastings panes, which never converge, so every frame changes
// all four.
//
//	go test -run '^$' -bench BenchmarkSession -benchtime 1x ./serve/
func BenchmarkSession(b *testing.B) {
	for _, bc := range []struct {
		name  string
		sims  []string
		pause int
	}{
		{"idle", nil, 3},
		{"four-running", []string{"mh", "mh", "mh", "mh"}, 0},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for range b.N {
				benchSessions(b, bc.sims, bc.pause)
			}
		})
	}
}

func benchSessions(b *testing.B, simNames []string, pause int) {
	const n = 10
	cfg := DefaultConfig()
	cfg.StateDir = b.TempDir()
	cfg.Log = &syncBuffer{}
	cfg.ConnPerMinute = 0
	cfg.MaxSessions = 4 * n
	cfg.MaxSessionsPerAddr = 0 // every client is on loopback
	cfg.MaxStartupsPerAddr = cfg.MaxStartups
	cfg.Sims = simNames
	ts := startBench(b, cfg)
	defer ts.stop()
	heap := func() uint64 {
		time.Sleep(200 * time.Millisecond)
		var ms runtime.MemStats
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	var ss []*servetest.Session
	open := func() {
		for range n {
			s, err := servetest.Open(ts.addr, servetest.Options{W: 120, H: 40, Sync: true, Discard: true})
			if err != nil {
				b.Fatal(err)
			}
			ss = append(ss, s)
		}
		time.Sleep(time.Second)
		for _, s := range ss[len(ss)-n:] {
			for range pause {
				s.Send(" \t")
			}
		}
	}
	defer func() {
		for _, s := range ss {
			s.Close()
		}
	}()
	// The memory of a session is the heap that n more sessions add to n
	// already open: one-time costs (the catalogue, the server) are out.
	open()
	first := heap()
	open()
	second := heap()

	frames, bytes := 0, int64(0)
	for _, s := range ss {
		frames -= s.Frames()
		bytes -= s.Bytes()
	}
	began := time.Now()
	time.Sleep(3 * time.Second)
	el := time.Since(began).Seconds()
	for _, s := range ss {
		frames += s.Frames()
		bytes += s.Bytes()
	}
	b.ReportMetric((float64(second)-float64(first))/n/(1<<20), "heap-MiB/session")
	b.ReportMetric(float64(frames)/float64(len(ss))/el, "frames/s/session")
	b.ReportMetric(float64(bytes)/float64(len(ss))/el, "B/s/session")
}

type benchServer struct {
	*Server
	addr string
	done chan error
}

func startBench(b *testing.B, cfg Config) *benchServer {
	srv, err := New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	bs := &benchServer{Server: srv, addr: ln.Addr().String(), done: make(chan error, 1)}
	go func() { bs.done <- srv.Serve(ln) }()
	return bs
}

func (bs *benchServer) stop() {
	bs.Shutdown(context.Background())
	<-bs.done
}
