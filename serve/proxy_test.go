package serve

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/thelab/lab/serve/servetest"
)

// proxyV2 builds a version 2 header: cmd 1 (PROXY) or 0 (LOCAL), with a
// TLV after the addresses as balancers add.
func proxyV2(cmd byte, src, dst netip.AddrPort) []byte {
	var b bytes.Buffer
	b.Write(proxyV2Sig)
	b.WriteByte(0x20 | cmd)
	var body []byte
	if src.Addr().Is4() {
		b.WriteByte(0x11)
		s, d := src.Addr().As4(), dst.Addr().As4()
		body = append(append(body, s[:]...), d[:]...)
	} else {
		b.WriteByte(0x21)
		s, d := src.Addr().As16(), dst.Addr().As16()
		body = append(append(body, s[:]...), d[:]...)
	}
	body = binary.BigEndian.AppendUint16(body, src.Port())
	body = binary.BigEndian.AppendUint16(body, dst.Port())
	body = append(body, 0x04, 0x00, 0x03, 'a', 'b', 'c') // a NOOP TLV
	b.Write(binary.BigEndian.AppendUint16(nil, uint16(len(body))))
	b.Write(body)
	return b.Bytes()
}

func TestReadProxyHeader(t *testing.T) {
	ap := netip.MustParseAddrPort
	for _, tc := range []struct {
		name     string
		in       []byte
		src, dst string // "" when none
		err      string
		local    bool // the balancer's own connection
	}{
		{"v1 tcp4", []byte("PROXY TCP4 203.0.113.7 192.0.2.1 4242 2222\r\n"), "203.0.113.7:4242", "192.0.2.1:2222", "", false},
		{"v1 tcp6", []byte("PROXY TCP6 2001:db8::7 2001:db8::1 4242 2222\r\n"), "[2001:db8::7]:4242", "[2001:db8::1]:2222", "", false},
		{"v1 unknown", []byte("PROXY UNKNOWN\r\n"), "", "", "", true},
		{"v1 no crlf", append([]byte("PROXY TCP4 "), bytes.Repeat([]byte("1"), 200)...), "", "", "no CRLF", false},
		{"v1 bad address", []byte("PROXY TCP4 nope 192.0.2.1 4242 2222\r\n"), "", "", "bad source address", false},
		{"v1 family mismatch", []byte("PROXY TCP4 2001:db8::7 192.0.2.1 4242 2222\r\n"), "", "", "bad source address", false},
		{"v1 bad port", []byte("PROXY TCP4 203.0.113.7 192.0.2.1 99999 2222\r\n"), "", "", "bad source port", false},
		{"v1 short", []byte("PROXY TCP4 203.0.113.7\r\n"), "", "", "PROXY v1 header", false},
		{"v2 tcp4", proxyV2(1, ap("198.51.100.9:5555"), ap("192.0.2.1:2222")), "198.51.100.9:5555", "192.0.2.1:2222", "", false},
		{"v2 tcp6", proxyV2(1, ap("[2001:db8::9]:5555"), ap("[2001:db8::1]:2222")), "[2001:db8::9]:5555", "[2001:db8::1]:2222", "", false},
		{"v2 local", proxyV2(0, ap("198.51.100.9:5555"), ap("192.0.2.1:2222")), "", "", "", true},
		{"v2 bad signature", append([]byte("\r\n\r\n\x00\r\nQUIT!"), make([]byte, 20)...), "", "", "bad signature", false},
		{"v2 huge", append(append([]byte{}, proxyV2Sig...), 0x21, 0x11, 0xff, 0xff), "", "", "bytes of addresses", false},
		{"v2 truncated", proxyV2(1, ap("198.51.100.9:5555"), ap("192.0.2.1:2222"))[:20], "", "", "EOF", false},
		{"ssh instead", []byte("SSH-2.0-OpenSSH_9.2\r\n"), "", "", "got something else", false},
	} {
		r := bytes.NewReader(append(tc.in, "SSH-2.0-next"...))
		src, dst, local, err := readProxyHeader(r)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if got := fmt.Sprint(src); tc.src != "" && got != tc.src || tc.src == "" && src != nil {
			t.Errorf("%s: source %v, want %q", tc.name, src, tc.src)
		}
		if got := fmt.Sprint(dst); tc.dst != "" && got != tc.dst || tc.dst == "" && dst != nil {
			t.Errorf("%s: destination %v, want %q", tc.name, dst, tc.dst)
		}
		if local != tc.local {
			t.Errorf("%s: local %v, want %v", tc.name, local, tc.local)
		}
		if rest, _ := io.ReadAll(r); string(rest) != "SSH-2.0-next" {
			t.Errorf("%s: read into the stream after the header: %q left", tc.name, rest)
		}
	}
	if _, _, _, err := readProxyHeader(bytes.NewReader(nil)); err == nil || !strings.Contains(err.Error(), "EOF") {
		t.Errorf("no header at all: %v", err)
	}
}

func TestParseProxyFrom(t *testing.T) {
	got, err := ParseProxyFrom("127.0.0.1, 10.0.0.0/8,::ffff:192.168.0.0/112,2001:db8::/32")
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != "[127.0.0.1/32 10.0.0.0/8 192.168.0.0/16 2001:db8::/32]" {
		t.Errorf("got %v", got)
	}
	for _, bad := range []string{"", " , ", "lb.example.org", "10.0.0.0/40"} {
		if _, err := ParseProxyFrom(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	for _, tc := range []struct {
		edit func(*Config)
		want string
	}{
		{func(c *Config) { c.ProxyProtocol = true }, "--proxy-protocol needs --proxy-from"},
		{func(c *Config) { c.ProxyFrom = got }, "only used with --proxy-protocol"},
	} {
		cfg := testConfig(t)
		tc.edit(&cfg)
		if _, err := New(cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New: %v, want %q", err, tc.want)
		}
	}
}

// viaProxy dials addr from a loopback address and sends header first.
func viaProxy(t *testing.T, addr, from string, header []byte) net.Conn {
	t.Helper()
	c := dialRaw(t, addr, from)
	if _, err := c.Write(header); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestProxyProtocolFromTrustedBalancersOnly(t *testing.T) {
	cfg := testConfig(t)
	cfg.Sims = []string{"gd"}
	cfg.ProxyProtocol = true
	cfg.ProxyFrom = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	cfg.MaxSessionsPerAddr = 1
	cfg.LoginGrace = time.Second
	ts := start(t, cfg)

	// v1 and v2 from the balancer: the log and the limits see the client.
	v1 := viaProxy(t, ts.addr, "127.0.0.1", []byte("PROXY TCP4 203.0.113.7 192.0.2.1 4242 2022\r\n"))
	ts.open(t, servetest.Options{Conn: v1, User: "v1"})
	ts.log.waitLog(t, "msg=connect", "user=v1", "addr=203.0.113.7:4242")
	v2 := viaProxy(t, ts.addr, "127.0.0.1", proxyV2(1, netip.MustParseAddrPort("[2001:db8::9]:5555"), netip.MustParseAddrPort("[2001:db8::1]:2022")))
	ts.open(t, servetest.Options{Conn: v2, User: "v2"})
	ts.log.waitLog(t, "msg=connect", "user=v2", "addr=[2001:db8::9]:5555")
	// The same client again: over its one session from its address.
	again := viaProxy(t, ts.addr, "127.0.0.1", []byte("PROXY TCP4 203.0.113.7 192.0.2.1 4243 2022\r\n"))
	s, err := servetest.Open(ts.addr, servetest.Options{Conn: again, User: "again"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if st := exitStatus(t, s.Wait(wait)); st != 1 || !strings.Contains(s.Text(), "from your address") {
		t.Errorf("a second session from 203.0.113.7: status %d, %q", st, s.Text())
	}
	// A session without a terminal is told to connect to the balancer.
	hc := viaProxy(t, ts.addr, "127.0.0.1", []byte("PROXY TCP4 203.0.113.8 192.0.2.1 4242 2022\r\n"))
	h, err := servetest.Open(ts.addr, servetest.Options{Conn: hc, NoPTY: true})
	if err != nil {
		t.Fatal(err)
	}
	h.Wait(wait)
	if !strings.Contains(h.Text(), "ssh -p 2022 192.0.2.1") {
		t.Errorf("the hint names %q, want the balancer's front", h.Text())
	}

	// From anyone else a header is not believed: such a peer is served
	// directly, under its own address (the header is a line before the
	// SSH version, which SSH allows and ignores).
	liar := viaProxy(t, ts.addr, "127.0.0.2", []byte("PROXY TCP4 198.51.100.1 192.0.2.1 1 2022\r\n"))
	ts.open(t, servetest.Options{Conn: liar, User: "liar"})
	ts.log.waitLog(t, "msg=connect", "user=liar", "addr=127.0.0.2:")
	if l := ts.log.lines("198.51.100.1"); len(l) > 0 {
		t.Errorf("the untrusted header reached the log: %q", l)
	}
	// The balancer without a header, or silent: refused.
	if _, err := servetest.Dial(ts.addr, servetest.Options{From: "127.0.0.1"}); err == nil {
		t.Error("a trusted peer without a header was served")
	}
	ts.log.waitLog(t, "msg=refused", `reason="bad PROXY header"`)
	if !closedWithin(dialRaw(t, ts.addr, "127.0.0.1"), wait) {
		t.Error("a silent balancer connection was kept past the login grace")
	}
}

// endsConn is a connection with the two ends given.
type endsConn struct {
	net.Conn
	remote, local net.Addr
}

func (c endsConn) RemoteAddr() net.Addr { return c.remote }
func (c endsConn) LocalAddr() net.Addr  { return c.local }

func TestHealthChecksAreRecognised(t *testing.T) {
	tcp := func(s string) net.Addr { return net.TCPAddrFromAddrPort(netip.MustParseAddrPort(s)) }
	balancer, server := tcp("10.0.0.2:40000"), tcp("10.0.0.11:2222")
	nc := endsConn{remote: balancer, local: server}
	for _, tc := range []struct {
		name     string
		local    bool
		src, dst net.Addr
		want     bool
	}{
		{"LOCAL or UNKNOWN", true, nil, nil, true},
		{"a header naming this connection (HAProxy's v1 check)", false, balancer, server, true},
		{"the same, as IPv4-mapped addresses", false, tcp("[::ffff:10.0.0.2]:40000"), tcp("[::ffff:10.0.0.11]:2222"), true},
		{"a client", false, tcp("203.0.113.7:40000"), tcp("192.0.2.1:22"), false},
		{"a client on the balancer's host, from the same port", false, balancer, tcp("10.0.0.2:22"), false},
		{"a client with no address (v2 UNSPEC)", false, nil, nil, false},
	} {
		if got := healthCheck(tc.local, tc.src, tc.dst, nc); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestHealthChecksAreAnsweredQuietly: the balancer's health checks, in
// each form, read the server's version line and are closed, with a debug
// line each and nothing else: no refusal, no rate-limit token, no count.
func TestHealthChecksAreAnsweredQuietly(t *testing.T) {
	cfg := testConfig(t)
	cfg.Sims = []string{"gd"}
	cfg.ProxyProtocol = true
	cfg.ProxyFrom = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	cfg.ConnPerMinute = 1
	cfg.LogLevel = slog.LevelDebug
	ts := start(t, cfg)
	for _, tc := range []struct {
		name   string
		header func(c net.Conn) []byte
	}{
		{"v2 LOCAL", func(net.Conn) []byte {
			return proxyV2(0, netip.MustParseAddrPort("127.0.0.1:1"), netip.MustParseAddrPort("127.0.0.1:2"))
		}},
		{"v1 UNKNOWN", func(net.Conn) []byte { return []byte("PROXY UNKNOWN\r\n") }},
		{"v1 naming this connection", func(c net.Conn) []byte {
			from, to := c.LocalAddr().(*net.TCPAddr), c.RemoteAddr().(*net.TCPAddr)
			return fmt.Appendf(nil, "PROXY TCP4 %s %s %d %d\r\n", from.IP, to.IP, from.Port, to.Port)
		}},
	} {
		for range 3 { // more than the rate limit allows
			c := dialRaw(t, ts.addr, "127.0.0.1")
			if _, err := c.Write(tc.header(c)); err != nil {
				t.Fatal(err)
			}
			c.SetReadDeadline(time.Now().Add(wait))
			if got, err := io.ReadAll(c); err != nil || string(got) != "SSH-2.0-lab\r\n" {
				t.Fatalf("%s: read %q, %v; want the version line, then the end", tc.name, got, err)
			}
		}
	}
	if n := len(ts.log.lines("level=DEBUG", `msg="health check"`, "balancer=127.0.0.1:")); n != 9 {
		t.Errorf("%d debug lines for 9 health checks", n)
	}
	if l := append(ts.log.lines("msg=refused"), ts.log.lines("msg=dropped")...); len(l) > 0 {
		t.Errorf("health checks logged as refused or dropped: %q", l)
	}
	ts.mu.Lock()
	counts := []int{len(ts.conns), len(ts.connsPer), len(ts.pending), len(ts.pendingPer), ts.headers}
	ts.mu.Unlock()
	ts.limiter.mu.Lock()
	buckets := len(ts.limiter.buckets)
	ts.limiter.mu.Unlock()
	ts.refused.mu.Lock()
	reasons := len(ts.refused.reasons)
	ts.refused.mu.Unlock()
	if fmt.Sprint(counts, buckets, reasons) != "[0 0 0 0 0] 0 0" {
		t.Errorf("after the checks: connections, per address, pending, per address, headers %v, rate buckets %d, refusal reasons %d; want none",
			counts, buckets, reasons)
	}
	// A client through the balancer: its own address's one token.
	v1 := viaProxy(t, ts.addr, "127.0.0.1", []byte("PROXY TCP4 203.0.113.7 192.0.2.1 4242 2022\r\n"))
	ts.open(t, servetest.Options{Conn: v1, User: "after-checks"})
}

// TestHAProxyInFrontOfTwoReplicas runs HAProxy (Debian's haproxy package)
// on loopback in front of two replicas sharing one host key, one sent
// PROXY v2 and the other v1: each visitor lands on a replica that logs the
// visitor's own address and port. HAProxy's health checks, which expect
// the SSH version line, keep both replicas up and are logged at debug
// level only; its stick table caps the connections of one address across
// both replicas, as the README shows.
func TestHAProxyInFrontOfTwoReplicas(t *testing.T) {
	bin, err := exec.LookPath("haproxy")
	if err != nil {
		t.Skip("haproxy is not on PATH (apt-get install haproxy): skipping the load-balancer test; the PROXY protocol tests above still ran")
	}
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "host_key")
	if _, _, err := LoadHostKey(dir); err != nil {
		t.Fatal(err)
	}
	os.Rename(filepath.Join(dir, HostKeyFile), keyFile)
	var replicas []*testServer
	for range 2 {
		cfg := testConfig(t)
		cfg.Sims = []string{"gd"}
		cfg.HostKey = keyFile
		cfg.ProxyProtocol = true
		cfg.ProxyFrom = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
		cfg.LogLevel = slog.LevelDebug
		replicas = append(replicas, start(t, cfg))
	}
	const visitors = 4 // all from 127.0.0.1: the most the stick table lets in
	front := freePort(t)
	conf := fmt.Sprintf(`global
  maxconn 256
defaults
  mode tcp
  timeout connect 2s
  timeout client 1m
  timeout server 1m
  timeout check 2s
frontend lab
  bind 127.0.0.1:%d
  stick-table type ipv6 size 100k expire 2m store conn_cur,conn_rate(1m)
  tcp-request connection track-sc0 src
  tcp-request connection reject if { sc0_conn_cur gt %d }
  tcp-request connection reject if { sc0_conn_rate gt 30 }
  default_backend replicas
backend replicas
  balance roundrobin
  option tcp-check
  tcp-check expect string SSH-2.0-
  server r1 %s send-proxy-v2 check inter 100ms
  server r2 %s send-proxy check inter 100ms
`, front, visitors, replicas[0].addr, replicas[1].addr)
	cfgPath := filepath.Join(dir, "haproxy.cfg")
	os.WriteFile(cfgPath, []byte(conf), 0o600)
	out := &syncBuffer{}
	cmd := exec.Command(bin, "-db", "-f", cfgPath)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	addr := "127.0.0.1:" + strconv.Itoa(front)
	probe := "" // the connection that found haproxy listening, passed to a replica
	if !eventually(5*time.Second, func() bool {
		c, err := net.DialTimeout("tcp", addr, 100*time.Millisecond)
		if err == nil {
			probe = c.LocalAddr().String()
			c.Close()
		}
		return err == nil
	}) {
		t.Fatalf("haproxy did not listen: %s", out.String())
	}
	for _, r := range replicas { // a server failing 3 checks in a row would be down
		r.log.waitLogs(t, 4, "level=DEBUG", `msg="health check"`)
	}
	hostKey := replicas[0].HostKey()
	for i := range visitors {
		user := fmt.Sprintf("via-haproxy-%d", i)
		c, err := servetest.Dial(addr, servetest.Options{User: user, HostKey: hostKey})
		if err != nil {
			t.Fatalf("visitor %d: %v (haproxy: %s)", i, err, out.String())
		}
		defer c.Close()
		s, err := servetest.Start(c, servetest.Options{W: 80, H: 24})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.WaitText(wait, "play/pause"); err != nil {
			t.Fatal(err)
		}
		// The replica saw this client's own port, not the balancer's.
		want := "addr=" + c.LocalAddr().String()
		found := eventually(wait, func() bool {
			return len(replicas[0].log.lines("user="+user, want))+len(replicas[1].log.lines("user="+user, want)) == 1
		})
		if !found {
			t.Errorf("no replica logged %s with %s", user, want)
		}
	}
	for i, r := range replicas {
		if n := len(r.log.lines("msg=connect", "user=via-haproxy")); n == 0 {
			t.Errorf("replica %d served none of the %d visitors (round robin)", i+1, visitors)
		}
	}
	// One more from the same address is over the balancer's cap, though
	// each replica holds only two of its connections.
	if c, err := servetest.Dial(addr, servetest.Options{User: "one-too-many", HostKey: hostKey}); err == nil {
		c.Close()
		t.Errorf("a connection over the stick table's cap of %d was let through", visitors)
	}
	if strings.Contains(out.String(), " is DOWN") {
		t.Errorf("haproxy took a replica down: %s", out.String())
	}
	for i, r := range replicas {
		for _, l := range append(r.log.lines("msg=refused"), r.log.lines("msg=dropped")...) {
			if !strings.Contains(l, "addr="+probe+" ") {
				t.Errorf("replica %d logged %q", i+1, l)
			}
		}
	}
}

// freePort is a TCP port free on loopback a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
