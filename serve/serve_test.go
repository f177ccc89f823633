package serve

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/thelab/lab/scene"
	"github.com/thelab/lab/serve/servetest"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/catalog"
	gossh "golang.org/x/crypto/ssh"
)

// wait bounds every wait for an event: generous, since a wait that holds
// costs nothing and a loaded machine under -race is slow (10 s was overrun
// by screens and resizes at a load average of 17–20 on 2 cores).
const wait = 30 * time.Second

func waitScreen(t *testing.T, s *servetest.Session, what string, ok func(string) bool) string {
	t.Helper()
	screen, err := s.WaitFor(wait, ok)
	if err != nil {
		t.Fatalf("waiting for %s: %v; screen:\n%s", what, err, screen)
	}
	return screen
}

func exitStatus(t *testing.T, err error) int {
	t.Helper()
	if err == nil {
		return 0
	}
	var ee *gossh.ExitError
	if errors.As(err, &ee) {
		return ee.ExitStatus()
	}
	t.Fatalf("session ended with %v, want an exit status", err)
	return -1
}

var stepRE = regexp.MustCompile(`step (\d+)`)

// step is the step count in a pane's title.
func step(t *testing.T, screen, sim string) int {
	t.Helper()
	m := stepRE.FindStringSubmatch(title(screen, sim))
	if m == nil {
		t.Fatalf("no step in the %s pane's title %q", sim, title(screen, sim))
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

func TestPTYSessionShowsTheLabReactsResizesAndQuits(t *testing.T) {
	ts := start(t, testConfig(t))
	s := ts.open(t, servetest.Options{W: 100, H: 30, User: "ada"})
	waitRunners(t, 3)
	// The lab fills the client's 100x30 terminal, the key help on its last row.
	screen := waitScreen(t, s, "the lab at 100x30", func(sc string) bool {
		return strings.Contains(strings.Split(sc, "\n")[29], "play/pause")
	})
	if got := title(screen, "gd"); !strings.Contains(got, "running") {
		t.Fatalf("gd pane title %q, want it running; screen:\n%s", got, screen)
	}

	// space pauses the focused pane (gd), and only it.
	s.Send(" ")
	screen = waitScreen(t, s, "gd paused", func(sc string) bool { return strings.Contains(title(sc, "gd"), "paused") })
	if got := title(screen, "mh"); !strings.Contains(got, "running") {
		t.Errorf("mh title %q after pausing gd, want it still running", got)
	}
	// s takes one step while paused.
	before := step(t, screen, "gd")
	s.Send("s")
	waitScreen(t, s, "gd one step on", func(sc string) bool {
		return strings.Contains(title(sc, "gd"), fmt.Sprintf("step %d ", before+1))
	})

	// A resize redraws the lab at the new size.
	if err := s.Resize(120, 40); err != nil {
		t.Fatal(err)
	}
	screen = waitScreen(t, s, "the lab at 120x40", func(sc string) bool {
		l := strings.Split(sc, "\n")
		return strings.Contains(l[39], "play/pause") && !strings.Contains(l[29], "play/pause")
	})
	if w := len([]rune(strings.Split(screen, "\n")[0])); w != 120 {
		t.Errorf("top row is %d cells wide after the resize, want 120", w)
	}

	s.Send("q")
	if err := s.Wait(wait); err != nil {
		t.Fatalf("session after q: %v, want exit status 0", err)
	}
	waitRunners(t, 0)
	conn := ts.log.waitLog(t, "msg=connect", "user=ada")
	for _, want := range []string{"addr=127.0.0.1:", "term=xterm-256color", "size=100x30", "colour=ANSI256"} {
		if !strings.Contains(conn, want) {
			t.Errorf("connect line %q lacks %q", conn, want)
		}
	}
	disc := ts.log.waitLog(t, "msg=disconnect", "user=ada")
	for _, want := range []string{"addr=127.0.0.1:", "size=120x40", "duration=", "reason=quit"} {
		if !strings.Contains(disc, want) {
			t.Errorf("disconnect line %q lacks %q", disc, want)
		}
	}
	if n := len(ts.log.lines("msg=connect")); n != 1 {
		t.Errorf("%d connect lines for one session", n)
	}
}

func TestSessionsAreIndependent(t *testing.T) {
	ts := start(t, testConfig(t))
	a := ts.open(t, servetest.Options{User: "a"})
	b := ts.open(t, servetest.Options{User: "b"})
	waitRunners(t, 6)

	a.Send(" ") // pause a's gd
	waitScreen(t, a, "a's gd paused", func(sc string) bool { return strings.Contains(title(sc, "gd"), "paused") })
	a.Send("x") // close it
	waitScreen(t, a, "a's gd closed", func(sc string) bool { return title(sc, "gd") == "" })
	waitRunners(t, 5)

	screen := b.Screen.String()
	if got := title(screen, "gd"); !strings.Contains(got, "running") && !strings.Contains(got, "converged") {
		t.Fatalf("b's gd title %q: what a did shows in b", got)
	}
	first := step(t, screen, "mh")
	waitScreen(t, b, "b's mh moving on", func(sc string) bool { return step(t, sc, "mh") > first })
}

func TestSessionLimit(t *testing.T) {
	cfg := testConfig(t)
	cfg.MaxSessions = 1
	ts := start(t, cfg)
	a := ts.open(t, servetest.Options{User: "first"})

	b, err := servetest.Open(ts.addr, servetest.Options{User: "second"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if st := exitStatus(t, b.Wait(wait)); st != 1 {
		t.Errorf("over the limit: exit status %d, want 1", st)
	}
	if !strings.Contains(b.Text(), "the server is full") {
		t.Errorf("over the limit the visitor read %q, want the server is full", b.Text())
	}
	ts.log.waitLog(t, "msg=disconnect", "user=second", `reason="server full"`)

	// The first visitor is unaffected.
	a.Send(" ")
	waitScreen(t, a, "first visitor's gd paused", func(sc string) bool { return strings.Contains(title(sc, "gd"), "paused") })
	a.Send("q")
	if err := a.Wait(wait); err != nil {
		t.Fatal(err)
	}
	// Once it has left, there is room again.
	ts.open(t, servetest.Options{User: "third"})
}

func TestNoPTYGetsOneLineOnHowToConnect(t *testing.T) {
	ts := start(t, testConfig(t))
	_, port, _ := net.SplitHostPort(ts.addr)
	for _, o := range []servetest.Options{
		{NoPTY: true},                    // ssh -T
		{NoPTY: true, Command: "uptime"}, // ssh host uptime
		{NoPTY: true, Command: "tour"},   // ssh host tour (no -t)
	} {
		s, err := servetest.Open(ts.addr, o)
		if err != nil {
			t.Fatal(err)
		}
		if st := exitStatus(t, s.Wait(wait)); st != 1 {
			t.Errorf("%+v: exit status %d, want 1", o, st)
		}
		text := strings.TrimSpace(s.Text())
		want := "ssh -p " + port + " localhost"
		if !strings.Contains(text, "needs a terminal") || !strings.Contains(text, want) || strings.Contains(text, "\n") {
			t.Errorf("%+v: got %q, want one line saying it needs a terminal and %q", o, text, want)
		}
		s.Close()
	}
	// Each refused session logs one disconnect line, after its client has
	// read its line: wait for all three.
	ts.log.waitLogs(t, 3, "msg=disconnect", "reason=")
	waitRunners(t, 0)
	if n := len(ts.log.lines("msg=disconnect", "reason=")); n != 3 {
		t.Errorf("%d disconnect lines, want 3:\n%s", n, ts.log.String())
	}
}

func TestAuthorizedKeys(t *testing.T) {
	good, _ := servetest.NewKey()
	bad, _ := servetest.NewKey()
	file := filepath.Join(t.TempDir(), "authorized_keys")
	content := "# the teacher\n\n" + string(gossh.MarshalAuthorizedKey(good.PublicKey()))
	if err := os.WriteFile(file, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(t)
	cfg.AuthorizedKeys = file
	ts := start(t, cfg)

	for name, signer := range map[string]gossh.Signer{"unlisted key": bad, "no key": nil} {
		c, err := servetest.Dial(ts.addr, servetest.Options{Signer: signer})
		if err == nil {
			c.Close()
			t.Errorf("%s: connected, want refused", name)
		} else if !strings.Contains(err.Error(), "unable to authenticate") {
			t.Errorf("%s: %v, want unable to authenticate", name, err)
		}
	}
	ts.log.waitLog(t, "msg=refused", `reason="authentication failed"`)
	s := ts.open(t, servetest.Options{Signer: good, User: "teacher"})
	s.Send("q")
	s.Wait(wait)
	line := ts.log.waitLog(t, "msg=connect", "user=teacher")
	if !strings.Contains(line, "key="+gossh.FingerprintSHA256(good.PublicKey())) {
		t.Errorf("connect line %q lacks the key's fingerprint", line)
	}

	// A bad or missing file stops the server at start-up.
	for name, tc := range map[string]struct{ content, want string }{
		"bad line": {"ssh-ed25519 AAAA-not-base64\n", "authorized_keys:1"},
		"empty":    {"# nobody\n", "no keys"},
	} {
		f := filepath.Join(t.TempDir(), "authorized_keys")
		os.WriteFile(f, []byte(tc.content), 0o600)
		cfg := testConfig(t)
		cfg.AuthorizedKeys = f
		if _, err := New(cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: New error %v, want one mentioning %q", name, err, tc.want)
		}
	}
	cfg = testConfig(t)
	cfg.AuthorizedKeys = filepath.Join(t.TempDir(), "missing")
	if _, err := New(cfg); err == nil {
		t.Error("a missing authorized keys file was accepted")
	}
}

func TestHostKeyIsMadeOnceAndReused(t *testing.T) {
	cfg := testConfig(t)
	cfg.StateDir = filepath.Join(t.TempDir(), "state", "lab") // not there yet
	ts := start(t, cfg)
	key := ts.HostKey()
	s := ts.open(t, servetest.Options{HostKey: key})
	s.Close()
	ts.shutdown(t)

	for path, want := range map[string]os.FileMode{cfg.StateDir: 0o700, filepath.Join(cfg.StateDir, HostKeyFile): 0o600} {
		info, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := info.Mode().Perm(); got != want {
			t.Errorf("%s has mode %04o, want %04o", path, got, want)
		}
	}
	// A second server over the same state directory has the same identity:
	// a client that pinned the first key connects without a warning.
	ts2 := start(t, cfg)
	if !bytesEqual(ts2.HostKey().Marshal(), key.Marshal()) {
		t.Fatal("the host key changed between two starts")
	}
	ts2.open(t, servetest.Options{HostKey: key})
}

func bytesEqual(a, b []byte) bool { return string(a) == string(b) }

func TestHostKeyThatCannotBeReadIsAnError(t *testing.T) {
	valid := t.TempDir()
	if _, _, err := LoadHostKey(valid); err != nil {
		t.Fatal(err)
	}
	good, _ := os.ReadFile(filepath.Join(valid, HostKeyFile))
	cases := []struct {
		name  string
		setup func(path string)
		want  string
	}{
		{"a directory", func(p string) { os.Mkdir(p, 0o700) }, "not a regular file"},
		{"garbage", func(p string) { os.WriteFile(p, []byte("not a key\n"), 0o600) }, "not a usable private key"},
		{"truncated", func(p string) { os.WriteFile(p, good[:len(good)/2], 0o600) }, "not a usable private key"},
		{"readable by others", func(p string) { os.WriteFile(p, good, 0o644) }, "readable by its owner only"},
	}
	if os.Geteuid() != 0 { // root reads anything
		cases = append(cases, struct {
			name  string
			setup func(path string)
			want  string
		}{"unreadable", func(p string) { os.WriteFile(p, good, 0o600); os.Chmod(p, 0) }, "cannot be read"})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, HostKeyFile)
			tc.setup(path)
			before, _ := os.ReadFile(path)
			cfg := testConfig(t)
			cfg.StateDir = dir
			_, err := New(cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
				t.Fatalf("New: %v, want an error naming %s and saying %q", err, path, tc.want)
			}
			after, _ := os.ReadFile(path)
			if string(before) != string(after) {
				t.Error("the existing key file was changed")
			}
		})
	}
	// A state directory that cannot be made.
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o600)
	if _, _, err := LoadHostKey(filepath.Join(file, "lab")); err == nil || !strings.Contains(err.Error(), "state directory") {
		t.Errorf("state dir under a file: %v", err)
	}
}

// TestHostKeyRefusalsSayTheFix: a weak key, another user's key, and a
// directory others may write are each refused, with the command that
// fixes it.
func TestHostKeyRefusalsSayTheFix(t *testing.T) {
	for _, tc := range []struct {
		name  string
		chown bool // needs root, to give a file to another user
		// setup edits a configuration whose state directory is fresh and
		// returns what the error must say.
		setup func(t *testing.T, cfg *Config) []string
	}{
		{"a 1024-bit RSA key", false, func(t *testing.T, cfg *Config) []string {
			path := filepath.Join(cfg.StateDir, HostKeyFile)
			writeKey(t, path, rsaKey(t, 1024))
			return []string{path, "1024-bit RSA", "ssh-keygen -t ed25519 -N '' -f " + path}
		}},
		{"--host-key: a 1024-bit RSA key", false, func(t *testing.T, cfg *Config) []string {
			cfg.HostKey = filepath.Join(t.TempDir(), "host_key")
			writeKey(t, cfg.HostKey, rsaKey(t, 1024))
			return []string{"1024-bit RSA", "ssh-keygen -t ed25519 -N '' -f " + cfg.HostKey}
		}},
		{"another user's key", true, func(t *testing.T, cfg *Config) []string {
			path := filepath.Join(cfg.StateDir, HostKeyFile)
			writeKey(t, path, edKey(t))
			os.Chown(path, 4242, 4242)
			return []string{path, "belongs to user 4242", fmt.Sprintf("chown %d %s", os.Geteuid(), path)}
		}},
		{"--host-key: another user's key", true, func(t *testing.T, cfg *Config) []string {
			cfg.HostKey = filepath.Join(t.TempDir(), "host_key")
			writeKey(t, cfg.HostKey, edKey(t))
			os.Chown(cfg.HostKey, 4242, 4242)
			return []string{"belongs to user 4242", fmt.Sprintf("chown %d %s", os.Geteuid(), cfg.HostKey)}
		}},
		{"a state directory anyone may write", false, func(t *testing.T, cfg *Config) []string {
			os.Chmod(cfg.StateDir, 0o777)
			return []string{"state directory " + cfg.StateDir + " has permissions 0777", "chmod 700 " + cfg.StateDir}
		}},
		{"a state directory its group may write, with a key in it", false, func(t *testing.T, cfg *Config) []string {
			writeKey(t, filepath.Join(cfg.StateDir, HostKeyFile), edKey(t))
			os.Chmod(cfg.StateDir, 0o770)
			return []string{"permissions 0770", "chmod 700 " + cfg.StateDir}
		}},
		{"--host-key: in a directory anyone may write (like /tmp)", false, func(t *testing.T, cfg *Config) []string {
			dir := t.TempDir()
			cfg.HostKey = filepath.Join(dir, "host_key")
			writeKey(t, cfg.HostKey, edKey(t))
			os.Chmod(dir, 0o1777)
			return []string{cfg.HostKey + " is in " + dir, "chmod go-w " + dir}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.chown && os.Geteuid() != 0 {
				t.Skip("giving a file to another user needs root")
			}
			cfg := testConfig(t)
			want := tc.setup(t, &cfg)
			_, err := New(cfg)
			if err == nil {
				t.Fatalf("New: no error, want one saying %q", want)
			}
			for _, w := range want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("New: %v\nwant it to say %q", err, w)
				}
			}
		})
	}
	// What is fine: RSA of 2048 bits; a key's directory others may read.
	cfg := testConfig(t)
	writeKey(t, filepath.Join(cfg.StateDir, HostKeyFile), rsaKey(t, 2048))
	if _, err := New(cfg); err != nil {
		t.Errorf("a 2048-bit RSA key: %v", err)
	}
	cfg = testConfig(t)
	dir := t.TempDir()
	cfg.HostKey = filepath.Join(dir, "host_key")
	writeKey(t, cfg.HostKey, edKey(t))
	os.Chmod(dir, 0o755)
	if _, err := New(cfg); err != nil {
		t.Errorf("a key in a directory of mode 0755: %v", err)
	}
}

// writeKey writes a private key in OpenSSH's format, owner-only.
func writeKey(t *testing.T, path string, key any) {
	t.Helper()
	block, err := gossh.MarshalPrivateKey(key, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
}

func rsaKey(t *testing.T, bits int) *rsa.PrivateKey {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, bits)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func edKey(t *testing.T) ed25519.PrivateKey {
	t.Helper()
	_, k, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestColourProfileComesFromTheClient(t *testing.T) {
	ts := start(t, testConfig(t))
	sgrColour := regexp.MustCompile(`\x1b\[[0-9;:]*[34]8[;:][25][;:]`) // 256-colour or 24-bit SGR
	for _, tc := range []struct {
		name    string
		o       servetest.Options
		profile string
		mono    bool
	}{
		{"NO_COLOR", servetest.Options{Env: map[string]string{"NO_COLOR": "1"}}, "Ascii", true},
		{"TERM=dumb", servetest.Options{Term: "dumb"}, "NoTTY", true},
		{"16 colours", servetest.Options{Term: "xterm"}, "ANSI", false},
		{"truecolor", servetest.Options{Env: map[string]string{"COLORTERM": "truecolor"}}, "TrueColor", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.o.User = strings.ToLower(tc.profile)
			s, err := servetest.Open(ts.addr, tc.o)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			// The tui names the state in capitals in its monochrome mode:
			// the colour profile reached the model over SSH.
			state := "running"
			if tc.mono {
				state = "RUNNING"
			}
			waitScreen(t, s, "mh "+state, func(sc string) bool { return strings.Contains(title(sc, "mh"), state) })
			ts.log.waitLog(t, "msg=connect", "user="+tc.o.User, "colour="+tc.profile)
			if testing.Verbose() {
				t.Logf("screen:\n%s", s.Screen.String())
			}
			out := s.Output()
			if tc.profile != "TrueColor" && sgrColour.MatchString(out) {
				t.Errorf("%s client was sent 256-colour or 24-bit colours: %q", tc.profile, sgrColour.FindString(out))
			}
			if tc.profile == "TrueColor" && !eventually(wait, func() bool { return strings.Contains(s.Output(), "38;2;") }) {
				t.Error("a truecolor client got no 24-bit colour")
			}
		})
	}
}

func TestIdleTimeout(t *testing.T) {
	cfg := testConfig(t)
	cfg.IdleTimeout = 700 * time.Millisecond
	// The lab ends an idle session itself, saying why; the backstop that
	// closes a session that has not ended hardSlack later (tested in
	// attack_test.go) must not overtake it on a loaded machine.
	cfg.slack = 5 * time.Second
	ts := start(t, cfg)
	s := ts.open(t, servetest.Options{User: "idler"})
	if err := s.Wait(wait); err != nil {
		t.Fatalf("idle session: %v", err)
	}
	if !strings.Contains(s.Text(), "without a key press") {
		t.Errorf("idle session read %q", s.Text())
	}
	ts.log.waitLog(t, "msg=disconnect", "user=idler", `reason="idle timeout"`)
	waitRunners(t, 0)
}

func TestMaxSessionDuration(t *testing.T) {
	cfg := testConfig(t)
	cfg.MaxSessionDuration = 800 * time.Millisecond
	cfg.slack = 5 * time.Second // as in TestIdleTimeout
	ts := start(t, cfg)
	began := time.Now()
	s := ts.open(t, servetest.Options{User: "busy"})
	// Typing does not extend a visit.
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
loop:
	for {
		select {
		case <-s.Done():
			break loop
		case <-tick.C:
			s.Send("s")
			if time.Since(began) > wait {
				t.Fatal("the session outlived its maximum duration")
			}
		}
	}
	if d := time.Since(began); d < cfg.MaxSessionDuration {
		t.Errorf("session ended after %s, before its %s", d, cfg.MaxSessionDuration)
	}
	if !strings.Contains(s.Text(), "a visit lasts at most 800ms") {
		t.Errorf("session read %q", s.Text())
	}
	ts.log.waitLog(t, "msg=disconnect", "user=busy", `reason="max session duration"`)
	waitRunners(t, 0)
}

func TestShutdownTellsSessionsAndClosesThemWithinTheGrace(t *testing.T) {
	cfg := testConfig(t)
	// Sessions end halfway through the grace and their goodbye has the
	// other half to reach the client: 1.5 s, which holds on a loaded
	// 2-core machine under -race (0.6 s did not: a goodbye still on its way
	// when the grace ran out was cut, the connection closed).
	cfg.Grace = 3 * time.Second
	// One pane on a small screen: little output, so that the test's
	// clients (whose terminal emulator is slow under -race) keep up.
	cfg.Sims = []string{"gd"}
	ts := start(t, cfg)
	a := ts.open(t, servetest.Options{User: "a", W: 80, H: 24})
	b := ts.open(t, servetest.Options{User: "b", W: 80, H: 24})
	// A connection with no session left open must not hold the server up.
	idle, err := servetest.Dial(ts.addr, servetest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()

	began := time.Now()
	done := make(chan error, 1)
	go func() { done <- ts.Shutdown(context.Background()) }()
	for _, s := range []*servetest.Session{a, b} {
		waitScreen(t, s, "the shutdown notice", func(sc string) bool { return strings.Contains(sc, "The server is shutting down") })
	}
	if _, err := servetest.Dial(ts.addr, servetest.Options{}); err == nil {
		t.Error("a new connection was accepted while shutting down")
	}
	for _, s := range []*servetest.Session{a, b} {
		s.Wait(wait)
		if !strings.Contains(s.Text(), "the server is shutting down. Goodbye!") {
			t.Errorf("session read %q, want the goodbye", s.Text())
		}
	}
	select {
	case <-done:
	case <-time.After(wait):
		t.Fatal("Shutdown did not return")
	}
	// Shutdown's own bound: the grace, then at most 2 s for the handlers
	// of the connections it closed; and a second of margin.
	if d := time.Since(began); d > cfg.Grace+3*time.Second {
		t.Errorf("shutdown took %s, grace %s", d, cfg.Grace)
	}
	waitRunners(t, 0)
	if n := len(ts.log.lines("msg=disconnect", `reason="server shutdown"`)); n != 2 {
		t.Errorf("%d sessions logged a server shutdown, want 2", n)
	}
}

func TestPanicEndsOnlyItsSession(t *testing.T) {
	cfg := testConfig(t)
	cfg.hook = func(msg tea.Msg) {
		if k, ok := msg.(tea.KeyPressMsg); ok && k.String() == "!" {
			panic("boom")
		}
	}
	ts := start(t, cfg)
	a := ts.open(t, servetest.Options{User: "unlucky"})
	b := ts.open(t, servetest.Options{User: "bystander"})
	a.Send("!")
	if err := a.Wait(wait); err != nil {
		t.Fatalf("panicked session: %v", err)
	}
	if !strings.Contains(a.Text(), "something broke") {
		t.Errorf("panicked session read %q", a.Text())
	}
	line := ts.log.waitLog(t, "msg=panic", "user=unlucky")
	if !strings.Contains(line, "panic=boom") || !strings.Contains(line, "stack=") {
		t.Errorf("panic line %q lacks the panic or its stack", line)
	}
	ts.log.waitLog(t, "msg=disconnect", "user=unlucky", "reason=panic")
	waitRunners(t, 3)

	b.Send(" ")
	waitScreen(t, b, "the bystander's gd paused", func(sc string) bool { return strings.Contains(title(sc, "gd"), "paused") })
	ts.open(t, servetest.Options{User: "next"})
}

func TestClientLeavingClosesItsRunners(t *testing.T) {
	ts := start(t, testConfig(t))
	base := runtime.NumGoroutine()
	// The connection drops.
	a := ts.open(t, servetest.Options{User: "dropped"})
	waitRunners(t, 3)
	a.Client.Close()
	ts.log.waitLog(t, "msg=disconnect", "user=dropped", `reason="client closed"`)
	waitRunners(t, 0)
	// The session's channel closes but the connection stays.
	b := ts.open(t, servetest.Options{User: "closed"})
	waitRunners(t, 3)
	b.Sess.Close()
	ts.log.waitLog(t, "msg=disconnect", "user=closed", `reason="client closed"`)
	waitRunners(t, 0)
	// Nothing else of the sessions stays behind either.
	b.Close()
	if !eventually(wait, func() bool { return runtime.NumGoroutine() <= base }) {
		t.Fatalf("%d goroutines after the sessions ended, %d before:\n%s", runtime.NumGoroutine(), base, goroutines())
	}
}

func TestConnectionRateLimitPerAddress(t *testing.T) {
	cfg := testConfig(t)
	cfg.ConnPerMinute = 2
	ts := start(t, cfg)
	for i := range 2 {
		c, err := servetest.Dial(ts.addr, servetest.Options{})
		if err != nil {
			t.Fatalf("connection %d: %v", i+1, err)
		}
		c.Close()
	}
	if c, err := servetest.Dial(ts.addr, servetest.Options{}); err == nil {
		c.Close()
		t.Fatal("a third connection within the minute was accepted")
	}
	ts.log.waitLog(t, "msg=refused", `reason="rate limited"`)
}

func TestStepsPerSecondCapPerSession(t *testing.T) {
	cfg := testConfig(t)
	cfg.Sims = []string{"mh"} // mh runs at 100 steps/s by default
	cfg.StepsPerSecond = 20
	ts := start(t, cfg)
	began := time.Now()
	s := ts.open(t, servetest.Options{})
	// Wait for 15 steps: under the cap they take at least 0.75 s, where
	// mh's own speed would take 0.15 s.
	waitScreen(t, s, "mh at step 15", func(sc string) bool {
		m := stepRE.FindStringSubmatch(title(sc, "mh"))
		n := 0
		if m != nil {
			n, _ = strconv.Atoi(m[1])
		}
		return n >= 15
	})
	el := time.Since(began)
	n := step(t, s.Screen.String(), "mh")
	if limit := int(20*el.Seconds()) + 5; n > limit {
		t.Errorf("mh took %d steps in %s under a cap of 20/s, want at most %d", n, el, limit)
	}
}

func TestPaneCapReachesTheLab(t *testing.T) {
	cfg := testConfig(t)
	cfg.Sims = []string{"gd"}
	cfg.MaxPanes = 1
	ts := start(t, cfg)
	s := ts.open(t, servetest.Options{W: 100, H: 30})
	s.Send("a")
	waitScreen(t, s, "the pane limit", func(sc string) bool { return strings.Contains(sc, "the most it may have") })
}

// TestMemoryBudgetReachesTheLab: a session whose first pane is over its
// memory budget is told why.
func TestMemoryBudgetReachesTheLab(t *testing.T) {
	cfg := testConfig(t)
	cfg.Sims = []string{"tinygpt"}
	// Room for the screen, not for tinygpt beside it.
	cfg.MemoryPerSession = screenBytes(120, 40) + catalog.All().Lookup("tinygpt").EstimateSize(sims.Config{})/2
	ts := start(t, cfg)
	r, err := servetest.Open(ts.addr, servetest.Options{User: "small"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if st := exitStatus(t, r.Wait(wait)); st != 1 || !strings.Contains(r.Text(), "its first panes (tinygpt) would take about") || !strings.Contains(r.Text(), "memory budget") {
		t.Errorf("over its memory budget: status %d, read %q", st, r.Text())
	}
}

// TestTourOverSSH: a visitor who asks for nothing lands in the tour's
// scene picker, and enter opens a scene; `ssh -t host tour NAME` opens
// that scene (the exec request's words, no shell); an unknown scene is
// refused in a line; the operator's --scene opens on its scene.
func TestTourOverSSH(t *testing.T) {
	cfg := testConfig(t)
	cfg.Sims = nil
	ts := start(t, cfg)
	tour := scene.Builtins()
	openOn := func(o servetest.Options, what, text string) *servetest.Session {
		t.Helper()
		s, err := servetest.Open(ts.addr, o)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		waitScreen(t, s, what, func(sc string) bool { return strings.Contains(sc, text) })
		return s
	}
	picker := openOn(servetest.Options{W: 120, H: 40}, "the scene picker", "The tour")
	picker.Send("\r")
	waitScreen(t, picker, "the first scene", func(sc string) bool { return strings.Contains(sc, tour[0].Title[:20]) })
	picker.Send("q")
	if err := picker.Wait(wait); err != nil {
		t.Fatalf("after q: %v", err)
	}
	sc := tour[len(tour)-1]
	direct := openOn(servetest.Options{W: 120, H: 40, Command: "tour " + sc.Name}, "scene "+sc.Name, sc.Title[:20])
	direct.Send("q")
	if err := direct.Wait(wait); err != nil {
		t.Fatalf("after q: %v", err)
	}
	bad, err := servetest.Open(ts.addr, servetest.Options{Command: "tour nosuch"})
	if err != nil {
		t.Fatal(err)
	}
	if st := exitStatus(t, bad.Wait(wait)); st != 1 || !strings.Contains(bad.Text(), "no scene nosuch") {
		t.Errorf("tour nosuch: status %d, %q", st, bad.Text())
	}
	bad.Close()

	cfg = testConfig(t)
	cfg.Sims, cfg.Scene = nil, tour[1].Name
	ts = start(t, cfg)
	openOn(servetest.Options{W: 120, H: 40}, "the operator's scene", tour[1].Title[:20])
}
