package simtest

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"testing"

	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// countdown succeeds n times, then returns end on every step.
type countdown struct {
	n   int
	end error
	m   float64 // the value of its one metric
}

func (c *countdown) Step() error {
	if c.n == 0 {
		return c.end
	}
	c.n--
	return nil
}

func (c *countdown) Frame() sims.Frame {
	return sims.Frame{Sim: "countdown", Metrics: []sims.Metric{{Name: "m", Value: c.m}}, Text: []string{"a", "b"}}
}

func (c *countdown) Result() map[string]any { return nil }

// recorder is a testing.TB that records failures; Fatal ends the calling
// goroutine as the real one does.
type recorder struct {
	testing.TB
	failed, fatal bool
	msg           string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.failed, r.msg = true, fmt.Sprintf(format, args...)
}
func (r *recorder) Fatal(args ...any) { r.Fatalf("%s", fmt.Sprint(args...)) }
func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	r.fatal = true
	runtime.Goexit()
}

// try runs f against a fresh recorder on its own goroutine.
func try(f func(t testing.TB)) *recorder {
	r := &recorder{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
	return r
}

// TestRunners: the step counts each runner returns and when each fails.
func TestRunners(t *testing.T) {
	converges := func() *countdown { return &countdown{n: 5, end: sims.ErrConverged} }
	fails := func() *countdown { return &countdown{n: 5, end: errors.New("boom")} }
	tests := []struct {
		name      string
		run       func(t testing.TB) int
		want      int
		wantFatal bool
	}{
		{"Run within", func(t testing.TB) int { Run(t, converges(), 5); return 0 }, 0, false},
		{"Run past convergence", func(t testing.TB) int { Run(t, converges(), 6); return 0 }, 0, true},
		{"RunUntil converges", func(t testing.TB) int { n, _ := RunUntil(t, converges(), 100); return n }, 5, false},
		{"RunUntil stops at n", func(t testing.TB) int { n, _ := RunUntil(t, converges(), 3); return n }, 3, false},
		{"RunUntil error", func(t testing.TB) int { n, _ := RunUntil(t, fails(), 100); return n }, 0, true},
		{"RunToEnd", func(t testing.TB) int { return RunToEnd(t, converges(), 6) }, 5, false},
		{"RunToEnd too few", func(t testing.TB) int { return RunToEnd(t, converges(), 5) }, 0, true},
		{"RunToEnd error", func(t testing.TB) int { return RunToEnd(t, fails(), 100) }, 0, true},
	}
	for _, tt := range tests {
		got := -1
		r := try(func(t testing.TB) { got = tt.run(t) })
		if r.fatal != tt.wantFatal || (!tt.wantFatal && got != tt.want) {
			t.Errorf("%s: returned %d, fatal %v (%q); want %d, fatal %v", tt.name, got, r.fatal, r.msg, tt.want, tt.wantFatal)
		}
	}
	if err := RunErr(fails(), 100); err == nil || err.Error() != "boom" {
		t.Errorf("RunErr: %v", err)
	}
	if err := RunErr(fails(), 5); err != nil {
		t.Errorf("RunErr within: %v", err)
	}
}

// TestFrameReaders: Metric, FiniteMetrics and Text.
func TestFrameReaders(t *testing.T) {
	f := (&countdown{m: 2}).Frame()
	if r := try(func(t testing.TB) {
		if v := Metric(t, f, "m"); v != 2 {
			t.Errorf("m = %v", v)
		}
	}); r.failed {
		t.Errorf("Metric: %s", r.msg)
	}
	if r := try(func(t testing.TB) { Metric(t, f, "none") }); !r.fatal {
		t.Error("Metric: a missing metric did not fail")
	}
	for _, v := range []float64{math.NaN(), math.Inf(-1)} {
		bad := (&countdown{m: v}).Frame()
		if r := try(func(t testing.TB) {
			if FiniteMetrics(t, bad) {
				t.Fatalf("ok")
			}
		}); !r.failed || r.fatal {
			t.Errorf("FiniteMetrics(%v): failed %v, fatal %v", v, r.failed, r.fatal)
		}
	}
	if r := try(func(t testing.TB) { FiniteMetrics(t, f) }); r.failed {
		t.Errorf("FiniteMetrics(2): %s", r.msg)
	}
	if got := Float("-0.9"); got != -0.9 {
		t.Errorf("Float = %v", got)
	}
	if got := Text(f); got != "a\nb" {
		t.Errorf("Text = %q", got)
	}
}

// TestBuild: Build resolves the settings and builds with the seed and
// data; a bad setting fails the test, and BuildErr returns it.
func TestBuild(t *testing.T) {
	n := param.Int("n", 5, "").Range(1, 9)
	spec := &sims.Spec{
		Name:   "toy",
		Data:   "any table",
		Params: param.List(n),
		New: func(c sims.Config) (sims.Sim, error) {
			if c.Seed != 3 || c.Data == nil {
				return nil, fmt.Errorf("seed %d, data %v", c.Seed, c.Data)
			}
			return &countdown{n: n.Get(c.Values), end: sims.ErrConverged}, nil
		},
	}
	tab := &sims.Table{Name: "t.csv"}
	var s sims.Sim
	if r := try(func(t testing.TB) { s = Build(t, spec, map[string]string{"n": "7"}, 3, tab) }); r.failed || s.(*countdown).n != 7 {
		t.Fatalf("Build: %s", r.msg)
	}
	if _, err := BuildErr(spec, map[string]string{"n": "10"}, 3, tab); err == nil {
		t.Error("BuildErr: n = 10 accepted")
	}
	if _, err := BuildErr(spec, nil, 4, tab); err == nil {
		t.Error("BuildErr: the seed did not reach New")
	}
	if r := try(func(t testing.TB) { Build(t, spec, nil, 3, nil) }); !r.fatal {
		t.Error("Build: an error from New did not fail")
	}
}
