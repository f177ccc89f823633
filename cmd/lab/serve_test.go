package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/thelab/lab/serve"
	"github.com/thelab/lab/serve/servetest"
	gossh "golang.org/x/crypto/ssh"
)

// served is a running `lab serve` process and its log.
type served struct {
	cmd  *exec.Cmd
	addr string
	mu   sync.Mutex
	log  strings.Builder
	grew chan struct{} // closed at the next log line
	done chan error
}

func (s *served) logText() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log.String()
}

// waitLog waits up to d for a log line holding every one of subs.
func (s *served) waitLog(t *testing.T, d time.Duration, subs ...string) {
	t.Helper()
	deadline := time.After(d)
	for {
		s.mu.Lock()
		if s.grew == nil {
			s.grew = make(chan struct{})
		}
		grew := s.grew
		lines := strings.Split(s.log.String(), "\n")
		s.mu.Unlock()
		for _, l := range lines {
			if l != "" && !slices.ContainsFunc(subs, func(sub string) bool { return !strings.Contains(l, sub) }) {
				return
			}
		}
		select {
		case <-grew:
		case <-deadline:
			t.Fatalf("no log line with %q within %s; log:\n%s", subs, d, s.logText())
		}
	}
}

var listenRE = regexp.MustCompile(`msg=listening addr=(\S+)`)

// startServe runs `lab serve` on a free port and waits until it listens.
func startServe(t *testing.T, args ...string) *served {
	t.Helper()
	args = append([]string{"serve", "--listen", "127.0.0.1:0", "--state-dir", t.TempDir()}, args...)
	s := &served{cmd: exec.Command(labBin, args...), done: make(chan error, 1)}
	stderr, err := s.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			s.mu.Lock()
			s.log.WriteString(sc.Text() + "\n")
			if s.grew != nil {
				close(s.grew)
				s.grew = nil
			}
			s.mu.Unlock()
			if m := listenRE.FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
			}
		}
		s.done <- s.cmd.Wait()
	}()
	t.Cleanup(func() {
		if s.cmd.ProcessState == nil {
			s.cmd.Process.Kill()
			<-s.done
		}
	})
	select {
	case s.addr = <-addr:
	case <-time.After(5 * time.Second):
		t.Fatalf("lab serve did not listen; log:\n%s", s.logText())
	}
	return s
}

func TestServeShutsDownGracefullyOnSignals(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			s := startServe(t, "--grace", "1s", "gd")
			sess, err := servetest.Open(s.addr, servetest.Options{W: 100, H: 30})
			if err != nil {
				t.Fatal(err)
			}
			defer sess.Close()
			if screen, err := sess.WaitText(5*time.Second, "gd · ", "play/pause"); err != nil {
				t.Fatalf("%v:\n%s", err, screen)
			}
			began := time.Now()
			s.cmd.Process.Signal(sig)
			if screen, err := sess.WaitText(2*time.Second, "The server is shutting down"); err != nil {
				t.Fatalf("no notice: %v:\n%s", err, screen)
			}
			var exit error
			select {
			case exit = <-s.done:
			case <-time.After(4 * time.Second):
				t.Fatalf("lab serve still running 4 s after %v; log:\n%s", sig, s.logText())
			}
			if exit != nil {
				t.Errorf("lab serve exited with %v after %v, want status 0", exit, sig)
			}
			if d := time.Since(began); d > 2*time.Second {
				t.Errorf("shutdown took %s with a 1s grace", d)
			}
			sess.Wait(time.Second)
			if !strings.Contains(sess.Text(), "Goodbye") {
				t.Errorf("the session read %q, want the goodbye", sess.Text())
			}
			log := s.logText()
			for _, want := range []string{`msg="shutting down"`, `reason="server shutdown"`, "msg=stopped"} {
				if !strings.Contains(log, want) {
					t.Errorf("log lacks %s:\n%s", want, log)
				}
			}
		})
	}
}

// TestServeReloadsOnSIGHUP: SIGHUP, which used to end the process at once
// with no notice and no log line, re-reads the authorized keys and logs
// it; the visitor's session goes on, new ones are served, and SIGTERM
// still stops the server gracefully.
func TestServeReloadsOnSIGHUP(t *testing.T) {
	key, err := servetest.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	keys := filepath.Join(t.TempDir(), "authorized_keys")
	if err := os.WriteFile(keys, gossh.MarshalAuthorizedKey(key.PublicKey()), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want []string // the reload's log line
	}{
		{"authorized keys", []string{"--authorized-keys", keys}, []string{`msg="authorized keys reloaded"`, "keys=1"}},
		{"anyone", nil, []string{`msg="reload: nothing to re-read`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := startServe(t, append(tc.args, "--grace", "1s", "gd")...)
			o := servetest.Options{W: 100, H: 30, Signer: key}
			sess, err := servetest.Open(s.addr, o)
			if err != nil {
				t.Fatal(err)
			}
			defer sess.Close()
			screen, err := sess.WaitText(5*time.Second, "gd · ", "play/pause")
			if err != nil {
				t.Fatalf("%v:\n%s", err, screen)
			}
			s.cmd.Process.Signal(syscall.SIGHUP)
			s.waitLog(t, 5*time.Second, tc.want...)
			// The session answers a key (space: play or pause).
			paused := strings.Contains(screen, "paused")
			sess.Send(" ")
			if screen, err := sess.WaitFor(5*time.Second, func(sc string) bool { return strings.Contains(sc, "paused") != paused }); err != nil {
				t.Fatalf("the session stopped answering after SIGHUP: %v:\n%s", err, screen)
			}
			next, err := servetest.Open(s.addr, o)
			if err != nil {
				t.Fatalf("a new visitor after SIGHUP: %v", err)
			}
			defer next.Close()
			if screen, err := next.WaitText(5*time.Second, "gd · "); err != nil {
				t.Fatalf("%v:\n%s", err, screen)
			}
			if strings.Contains(s.logText(), "shutting down") {
				t.Errorf("SIGHUP shut the server down:\n%s", s.logText())
			}
			s.cmd.Process.Signal(syscall.SIGTERM)
			select {
			case err := <-s.done:
				if err != nil {
					t.Errorf("lab serve exited with %v after SIGTERM, want status 0", err)
				}
			case <-time.After(4 * time.Second):
				t.Fatalf("lab serve still running 4 s after SIGTERM; log:\n%s", s.logText())
			}
		})
	}
}

func TestServeStartupErrors(t *testing.T) {
	badKey := t.TempDir()
	os.Mkdir(filepath.Join(badKey, serve.HostKeyFile), 0o700)
	garbage := t.TempDir()
	os.WriteFile(filepath.Join(garbage, serve.HostKeyFile), []byte("junk"), 0o600)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--state-dir", badKey}, filepath.Join(badKey, serve.HostKeyFile)},
		{[]string{"--state-dir", garbage}, "not a usable private key"},
		{[]string{"--max-sessions", "0"}, "--max-sessions must be at least 1"},
		{[]string{"--idle-timeout", "soon"}, "idle-timeout"},
		{[]string{"--authorized-keys", "/nonexistent/keys"}, "authorized keys"},
		{[]string{"--listen", "256.0.0.1:22"}, "256.0.0.1"},
		{[]string{"nosuchsim"}, `unknown sim "nosuchsim"`},
		{[]string{"--state-dir", ""}, "--state-dir is empty"},
		{[]string{"--host-key", "/nonexistent/key"}, "/nonexistent/key"},
		{[]string{"--data-dir", "/nonexistent/data"}, "--data-dir"},
		{[]string{"--proxy-protocol"}, "--proxy-protocol needs --proxy-from"},
		{[]string{"--proxy-protocol", "--proxy-from", "lb.example.org"}, "neither an address nor a CIDR"},
		{[]string{"--proxy-from", "10.0.0.0/8"}, "only used with --proxy-protocol"},
		{[]string{"--login-grace", "0s"}, "--login-grace"},
		{[]string{"--max-sessions-per-conn", "11"}, "--max-sessions-per-conn"},
		{[]string{"--no-such-flag"}, "lab serve --help"},
		{[]string{"--max-panes", "2", "gd", "mh", "em-gmm"}, "--max-panes is 2"},
		{[]string{"--memory-per-session", "-1"}, "--memory-per-session"},
		{[]string{"--log-level", "loud"}, "log-level"},
	} {
		args := append([]string{"serve", "--listen", "127.0.0.1:0", "--state-dir", t.TempDir()}, tc.args...)
		_, stderr, code := lab(t, args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("lab %s: exit %d, stderr %q; want 2 and %q", strings.Join(tc.args, " "), code, stderr, tc.want)
		}
	}
}

func TestServeHelp(t *testing.T) {
	for _, arg := range []string{"--help", "-h"} {
		out, stderr, code := lab(t, "serve", arg)
		if code != 0 || stderr != "" {
			t.Errorf("lab serve %s: exit %d, stderr %q; want 0 and nothing", arg, code, stderr)
		}
		for _, want := range []string{"Usage: lab serve [flags] [SIM...]", "--login-grace D", "--proxy-from CIDR", "--log-level L",
			fmt.Sprintf("(default %s)", serve.DefaultLoginGrace), fmt.Sprintf("(default %d)", serve.DefaultMaxSessionsPerConn)} {
			if !strings.Contains(out, want) {
				t.Errorf("lab serve %s lacks %q", arg, want)
			}
		}
	}
}

func TestUsageShowsServeAndItsDefaults(t *testing.T) {
	out, _, code := lab(t, "help")
	if code != 0 {
		t.Fatal(code)
	}
	for _, want := range []string{
		"lab serve [flags] [SIM...]",
		"default " + serve.DefaultAddr,
		fmt.Sprintf("(default %d)", serve.DefaultMaxSessions),
		fmt.Sprintf("default %s;", strings.TrimSuffix(serve.DefaultIdleTimeout.String(), "0s")),
		fmt.Sprintf("default %s;", strings.TrimSuffix(serve.DefaultMaxSessionDuration.String(), "0m0s")),
		fmt.Sprintf("(default %d;", serve.DefaultStepsPerSecond),
		fmt.Sprintf("(default %g;", serve.DefaultCPUPerSession),
		fmt.Sprintf("(default %d;", serve.DefaultConnPerMinute),
		fmt.Sprintf("(default %s)", serve.DefaultGrace),
		fmt.Sprintf("(default %d)", serve.DefaultFPS),
		fmt.Sprintf("(default %g\n", serve.DefaultCPUShare),
		fmt.Sprintf("(default %d; 0 no limit)", serve.DefaultMaxSessionsPerAddr),
		fmt.Sprintf("(default %d)", serve.DefaultMaxStartups),
		fmt.Sprintf("(default %d)", serve.DefaultMaxStartupsPerAddr),
		fmt.Sprintf("(default %d; 0 no cap)", serve.DefaultRebuildsPerSecond),
		fmt.Sprintf("(default %d; 0 no cap)", serve.DefaultMaxPanes),
		fmt.Sprintf("(default %d; 0 no cap)", serve.DefaultMemoryPerSession>>20),
		fmt.Sprintf("(default %s; 0 never)", serve.DefaultClientAlive),
		fmt.Sprintf("(default %d)", serve.DefaultClientAliveCount),
		"--authorized-keys FILE", "--state-dir DIR", "--host-key FILE", "--data-dir DIR", "--proxy-protocol",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("usage lacks %q", want)
		}
	}
}
