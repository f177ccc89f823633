package serve

import (
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/thelab/lab/serve/servetest"
	gossh "golang.org/x/crypto/ssh"
)

func authLine(t *testing.T, opts string) (string, gossh.Signer) {
	t.Helper()
	k, err := servetest.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	line := strings.TrimSpace(string(gossh.MarshalAuthorizedKey(k.PublicKey())))
	if opts != "" {
		line = opts + " " + line
	}
	return line, k
}

func TestAuthorizedKeyOptions(t *testing.T) {
	ip := func(s string) net.Addr { return &net.TCPAddr{IP: net.ParseIP(s), Port: 1} }
	now := time.Now()
	for _, tc := range []struct {
		opts  string
		from  string // the client's address
		ok    bool
		noPTY bool
	}{
		{"", "192.0.2.1", true, false},
		{`from="127.0.0.1,10.0.0.0/8,!10.0.0.5"`, "10.1.2.3", true, false},
		{`from="127.0.0.1,10.0.0.0/8,!10.0.0.5"`, "10.0.0.5", false, false},
		{`from="127.0.0.1,10.0.0.0/8,!10.0.0.5"`, "192.0.2.1", false, false},
		{`from="192.0.2.*"`, "192.0.2.77", true, false},
		{`from="192.0.2.?"`, "192.0.2.77", false, false},
		{`from="::1"`, "::1", true, false},
		{`expiry-time="20200101"`, "192.0.2.1", false, false},
		{`expiry-time="` + now.Add(48*time.Hour).Format("20060102") + `"`, "192.0.2.1", true, false},
		{`expiry-time="20991231235959Z"`, "192.0.2.1", true, false},
		{"no-pty", "192.0.2.1", true, true},
		{"restrict", "192.0.2.1", true, true},
		{"restrict,pty", "192.0.2.1", true, false},
		{"no-port-forwarding,no-agent-forwarding,no-X11-forwarding,no-user-rc", "192.0.2.1", true, false},
		{`permitopen="localhost:80"`, "192.0.2.1", true, false},
	} {
		line, k := authLine(t, tc.opts)
		keys, err := parseAuthorizedKeys("ak", []byte(line+"\n"))
		if err != nil {
			t.Errorf("%s: %v", tc.opts, err)
			continue
		}
		a := &authKeys{path: "ak", keys: keys}
		got, why := a.find(k.PublicKey(), ip(tc.from), now)
		if (got != nil) != tc.ok {
			t.Errorf("%s from %s: admitted %v (%s), want %v", tc.opts, tc.from, got != nil, why, tc.ok)
			continue
		}
		if got != nil && got.noPTY != tc.noPTY {
			t.Errorf("%s: no-pty %v, want %v", tc.opts, got.noPTY, tc.noPTY)
		}
	}
	// Options lab serve cannot honour stop the server, naming the line.
	for _, opts := range []string{`command="ls"`, `environment="A=B"`, "cert-authority", `principals="ada"`,
		`tunnel="1"`, "verify-required", "no-touch-required", `from="lab.example.org"`, `from="10.0.0.0/99"`,
		`expiry-time="tomorrow"`, "frobnicate"} {
		line, _ := authLine(t, opts)
		_, err := parseAuthorizedKeys("ak", []byte("# first\n"+line+"\n"))
		if err == nil || !strings.Contains(err.Error(), "ak:2") {
			t.Errorf("%s: %v, want an error naming line 2", opts, err)
		}
	}
	if !allows([]addrPattern{{prefix: netip.MustParsePrefix("10.0.0.0/8")}}, netip.MustParseAddr("::ffff:10.1.1.1")) {
		t.Error("an IPv4-mapped address did not match its IPv4 CIDR")
	}
}

func TestAuthorizedKeysFilePermissions(t *testing.T) {
	line, _ := authLine(t, "")
	dir := t.TempDir()
	path := filepath.Join(dir, "authorized_keys")
	os.WriteFile(path, []byte(line+"\n"), 0o600)
	if _, err := LoadAuthorizedKeys(path); err != nil {
		t.Fatal(err)
	}
	os.Chmod(path, 0o620)
	if _, err := LoadAuthorizedKeys(path); err == nil || !strings.Contains(err.Error(), "others could add a key") {
		t.Errorf("a group-writable file: %v", err)
	}
	os.Chmod(path, 0o600)
	os.Chmod(dir, 0o777)
	defer os.Chmod(dir, 0o700)
	cfg := testConfig(t)
	cfg.AuthorizedKeys = path
	if _, err := New(cfg); err == nil || !strings.Contains(err.Error(), dir) {
		t.Errorf("a world-writable directory: %v", err)
	}
}

func TestAuthorizedKeysAreReReadAndHonoured(t *testing.T) {
	lineA, a := authLine(t, "")
	lineB, b := authLine(t, "")
	lineC, c := authLine(t, `from="127.0.0.2"`)
	lineD, d := authLine(t, "restrict")
	path := filepath.Join(t.TempDir(), "authorized_keys")
	write := func(content string) {
		t.Helper()
		// Written aside and renamed, as an editor would: never half a file.
		tmp := path + ".new"
		if err := os.WriteFile(tmp, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, path); err != nil {
			t.Fatal(err)
		}
	}
	write(strings.Join([]string{lineA, lineC, lineD}, "\n") + "\n")
	cfg := testConfig(t)
	cfg.AuthorizedKeys = path
	cfg.Sims = []string{"gd"}
	ts := start(t, cfg)
	can := func(k gossh.Signer, from string) bool {
		cl, err := servetest.Dial(ts.addr, servetest.Options{Signer: k, From: from})
		if err == nil {
			cl.Close()
		}
		return err == nil
	}
	if !can(a, "") || can(b, "") {
		t.Fatal("A should get in and B not")
	}
	// B added: admitted without a restart.
	write(strings.Join([]string{lineA, lineB, lineC, lineD}, "\n") + "\n")
	if !can(b, "") {
		t.Fatal("a key added to the file was refused")
	}
	ts.log.waitLog(t, "authorized keys reloaded", "keys=4")
	// A broken file admits nobody, and says so once.
	write(lineA + "\nssh-ed25519 not-a-key\n")
	if can(a, "") || can(b, "") {
		t.Fatal("a key was admitted while the file was broken")
	}
	if n := len(ts.log.lines("admitting nobody")); n != 1 {
		t.Errorf("%d lines about the broken file, want 1", n)
	}
	write(lineA + "\n")
	if !can(a, "") || can(b, "") {
		t.Fatal("after the fix: A should get in, B (removed) not")
	}
	// from=: only from 127.0.0.2.
	write(strings.Join([]string{lineC, lineD}, "\n") + "\n")
	if can(c, "127.0.0.1") || !can(c, "127.0.0.2") {
		t.Error("from= not honoured")
	}
	ts.log.waitLog(t, "msg=refused", `reason="authentication failed"`, "not allowed from this address")
	// restrict: admitted, and told it may not have a terminal.
	s, err := servetest.Open(ts.addr, servetest.Options{Signer: d, User: "restricted"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if st := exitStatus(t, s.Wait(wait)); st != 1 || !strings.Contains(s.Text(), "forbids a terminal") {
		t.Errorf("a restricted key: status %d, read %q", st, s.Text())
	}
}

// TestReloadRereadsTheKeysWhateverTheFileLooksLike: an edit that leaves
// the file's size and time as they were escapes the check on each login;
// Reload (lab serve's SIGHUP) reads the file anyway, and logs the outcome
// every time, even when it is the same as before.
func TestReloadRereadsTheKeysWhateverTheFileLooksLike(t *testing.T) {
	lineA, a := authLine(t, "")
	lineB, b := authLine(t, "")
	path := filepath.Join(t.TempDir(), "authorized_keys")
	if err := os.WriteFile(path, []byte(lineA+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(t)
	cfg.AuthorizedKeys = path
	ts := start(t, cfg)
	can := func(k gossh.Signer) bool {
		cl, err := servetest.Dial(ts.addr, servetest.Options{Signer: k})
		if err == nil {
			cl.Close()
		}
		return err == nil
	}
	// B in A's place, in place: same file, size and time.
	if err := os.WriteFile(path, []byte(lineB+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, info.ModTime(), info.ModTime()); err != nil {
		t.Fatal(err)
	}
	if !can(a) || can(b) {
		t.Fatal("the check on login saw an edit that kept the file's size and time (the test's premise)")
	}
	ts.Reload()
	ts.log.waitLog(t, "authorized keys reloaded", "keys=1")
	if can(a) || !can(b) {
		t.Fatal("after Reload: B should get in and A not")
	}
	// A broken file: each Reload says so.
	if err := os.WriteFile(path, []byte("ssh-ed25519 not-a-key\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ts.Reload()
	ts.Reload()
	ts.log.waitLogs(t, 2, "admitting nobody")
	if can(b) {
		t.Error("a key was admitted while the file was broken")
	}
}
