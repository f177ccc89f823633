package serve

import (
	"os"
	"runtime/pprof"
	"sync"
	"testing"
	"time"

	"github.com/thelab/lab/serve/servetest"
)

func TestZZProfileAttack(t *testing.T) {
	mode := os.Getenv("ATTACK")
	if mode == "" {
		t.Skip()
	}
	cfg := DefaultConfig()
	cfg.StateDir = t.TempDir()
	cfg.Log = &syncBuffer{}
	cfg.ConnPerMinute = 0
	cfg.MaxSessions = 48
	cfg.MemoryTotal = 1 << 30
	cfg.Sims = []string{"mh", "em-gmm", "gd"}
	ts := startBench(&testing.B{}, cfg)
	defer ts.stop()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	servetest.Attacks[mode](ts.addr, stop, &wg)
	time.Sleep(3 * time.Second)
	f, _ := os.Create("/tmp/cpu.prof")
	pprof.StartCPUProfile(f)
	time.Sleep(8 * time.Second)
	pprof.StopCPUProfile()
	f.Close()
	close(stop)
	wg.Wait()
}
