package serve

import (
	"bytes"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// authKey is one line of an authorized_keys file with the options lab
// serve honours. Forwarding of any kind is never offered, so
// no-port-forwarding, no-agent-forwarding, no-X11-forwarding, no-user-rc,
// permitopen and permitlisten hold whatever the line says, and their
// opposites grant nothing.
type authKey struct {
	key     gossh.PublicKey
	line    int
	from    []addrPattern // from="…": the client's address must match
	noPTY   bool          // no-pty, or restrict without pty: no terminal, so no lab
	expires time.Time     // expiry-time="…": refused from then on (zero: never)
}

// addrPattern is one entry of a from= list: an address with * and ?
// wildcards or a CIDR, possibly negated. As OpenSSH does by default
// (UseDNS no), patterns match the client's address, not a host name.
type addrPattern struct {
	neg    bool
	glob   string
	prefix netip.Prefix
}

// options lab serve accepts without doing anything: forwarding is never
// offered and no rc file is run.
var inertOptions = map[string]bool{
	"no-port-forwarding": true, "no-agent-forwarding": true, "no-x11-forwarding": true,
	"no-user-rc": true, "port-forwarding": true, "agent-forwarding": true,
	"x11-forwarding": true, "user-rc": true, "permitopen": true, "permitlisten": true,
}

// parseAuthorizedKeys parses an authorized_keys file: one key a line, blank
// lines and # comments allowed, with options before the key. An option lab
// serve does not honour (command=, environment=, principals=,
// cert-authority, tunnel=, verify-required, …) is an error naming its line:
// a key is never admitted with an option silently ignored.
func parseAuthorizedKeys(path string, data []byte) ([]authKey, error) {
	var keys []authKey
	for i, l := range bytes.Split(data, []byte("\n")) {
		l = bytes.TrimSpace(l)
		if len(l) == 0 || l[0] == '#' {
			continue
		}
		pub, _, opts, _, err := gossh.ParseAuthorizedKey(l)
		if err != nil {
			return nil, fmt.Errorf("authorized keys %s:%d: %w", path, i+1, err)
		}
		k := authKey{key: pub, line: i + 1}
		if err := k.setOptions(opts); err != nil {
			return nil, fmt.Errorf("authorized keys %s:%d: %w", path, i+1, err)
		}
		keys = append(keys, k)
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("authorized keys %s: no keys (nobody could connect)", path)
	}
	return keys, nil
}

func (k *authKey) setOptions(opts []string) error {
	restrict, pty := false, false
	for _, o := range opts {
		name, value, hasValue := strings.Cut(o, "=")
		name = strings.ToLower(name)
		if hasValue {
			value = strings.Trim(value, `"`)
		}
		switch {
		case name == "restrict":
			restrict = true
		case name == "pty":
			pty = true
		case name == "no-pty":
			k.noPTY = true
		case name == "from" && hasValue:
			pats, err := parseFrom(value)
			if err != nil {
				return err
			}
			k.from = pats
		case name == "expiry-time" && hasValue:
			t, err := parseExpiry(value)
			if err != nil {
				return err
			}
			k.expires = t
		case inertOptions[name]:
		default:
			return fmt.Errorf("option %q is not supported by lab serve (it only serves the lab in a terminal; remove the option or the key)", o)
		}
	}
	if restrict && !pty {
		k.noPTY = true
	}
	return nil
}

func parseFrom(list string) ([]addrPattern, error) {
	var pats []addrPattern
	for _, p := range strings.Split(list, ",") {
		p = strings.TrimSpace(p)
		var ap addrPattern
		if strings.HasPrefix(p, "!") {
			ap.neg, p = true, p[1:]
		}
		switch {
		case p == "":
			return nil, fmt.Errorf("from=%q: empty pattern", list)
		case strings.Contains(p, "/"):
			pre, err := netip.ParsePrefix(p)
			if err != nil {
				return nil, fmt.Errorf("from=%q: %v", list, err)
			}
			ap.prefix = pre.Masked()
		case strings.Trim(p, "0123456789abcdefABCDEF.:*?") != "":
			return nil, fmt.Errorf("from=%q: %q is a host name; lab serve matches addresses only (as OpenSSH with UseDNS no): give addresses, wildcards or CIDRs", list, p)
		default:
			ap.glob = strings.ToLower(p)
		}
		pats = append(pats, ap)
	}
	return pats, nil
}

// allows reports whether a from= list admits ip: no negated pattern
// matches and at least one other does.
func allows(pats []addrPattern, ip netip.Addr) bool {
	ip = ip.Unmap()
	s := ip.String()
	ok := false
	for _, p := range pats {
		m := false
		if p.prefix.IsValid() {
			m = p.prefix.Contains(ip)
		} else {
			m = globMatch(p.glob, s)
		}
		if m && p.neg {
			return false
		}
		ok = ok || m
	}
	return ok
}

// globMatch matches s against a pattern of * (any run) and ? (one byte).
func globMatch(pat, s string) bool {
	for len(pat) > 0 {
		switch pat[0] {
		case '*':
			for i := len(s); i >= 0; i-- {
				if globMatch(pat[1:], s[i:]) {
					return true
				}
			}
			return false
		case '?':
			if s == "" {
				return false
			}
		default:
			if s == "" || s[0] != pat[0] {
				return false
			}
		}
		pat, s = pat[1:], s[1:]
	}
	return s == ""
}

// parseExpiry reads OpenSSH's YYYYMMDD[HHMM[SS]], in local time unless it
// ends in Z.
func parseExpiry(v string) (time.Time, error) {
	loc := time.Local
	if strings.HasSuffix(v, "Z") {
		v, loc = strings.TrimSuffix(v, "Z"), time.UTC
	}
	layouts := map[int]string{8: "20060102", 12: "200601021504", 14: "20060102150405"}
	layout, ok := layouts[len(v)]
	if !ok {
		return time.Time{}, fmt.Errorf("expiry-time=%q: want YYYYMMDD[HHMM[SS]][Z]", v)
	}
	t, err := time.ParseInLocation(layout, v, loc)
	if err != nil {
		return time.Time{}, fmt.Errorf("expiry-time=%q: %v", v, err)
	}
	return t, nil
}

// checkPermissions refuses an authorized_keys file that others could
// change: the file and its directory must not be writable by group or
// others, and must belong to root or to the user running the server (as
// OpenSSH's StrictModes).
func checkPermissions(path string) error {
	uid := os.Geteuid()
	for _, p := range []string{path, filepath.Dir(path)} {
		info, err := os.Stat(p)
		if err != nil {
			return fmt.Errorf("authorized keys: %w", err)
		}
		if p == path && !info.Mode().IsRegular() {
			return fmt.Errorf("authorized keys %s: not a regular file", path)
		}
		if othersWrite(info) {
			return fmt.Errorf("authorized keys: %s has permissions %04o: others could add a key (chmod go-w %s)", p, info.Mode().Perm(), p)
		}
		if o, ok := owner(info); ok && o != uid && o != 0 {
			return fmt.Errorf("authorized keys: %s belongs to user %d, not to root or to this server's user %d", p, o, uid)
		}
	}
	return nil
}

// LoadAuthorizedKeys reads, checks and parses an authorized_keys file. An
// unreadable file, one others could write, a bad line, an option lab serve
// does not honour or an empty list is an error naming the file and line.
func LoadAuthorizedKeys(path string) ([]gossh.PublicKey, error) {
	keys, _, err := loadAuthorizedKeys(path)
	if err != nil {
		return nil, err
	}
	out := make([]gossh.PublicKey, len(keys))
	for i, k := range keys {
		out[i] = k.key
	}
	return out, nil
}

func loadAuthorizedKeys(path string) ([]authKey, os.FileInfo, error) {
	if err := checkPermissions(path); err != nil {
		return nil, nil, err
	}
	info, err := os.Stat(path)
	if err != nil {
		return nil, nil, fmt.Errorf("authorized keys: %w", err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("authorized keys: %w", err)
	}
	keys, err := parseAuthorizedKeys(path, data)
	return keys, info, err
}

// authKeys is the live authorized_keys list. Each authentication stats the
// file and re-reads it when it changed; a change that breaks it (a bad
// line, permissions others could abuse, a deleted file) admits nobody until
// it is fixed, with one error line in the log.
type authKeys struct {
	path string
	log  func(msg string, args ...any)

	mu   sync.Mutex
	keys []authKey
	info os.FileInfo
	err  error
}

func newAuthKeys(path string, log func(string, ...any)) (*authKeys, error) {
	keys, info, err := loadAuthorizedKeys(path)
	if err != nil {
		return nil, err
	}
	return &authKeys{path: path, log: log, keys: keys, info: info}, nil
}

// refresh re-reads the file if it changed since it was last read.
func (a *authKeys) refresh() { a.read(false) }

// read re-reads the file: if it changed since it was last read, or always
// when forced (an operator's reload, which also catches an edit that left
// the file's size and time as they were). A forced read logs its outcome
// even when it is the same as before.
func (a *authKeys) read(force bool) {
	info, err := os.Stat(a.path)
	a.mu.Lock()
	defer a.mu.Unlock()
	if !force && err == nil && a.info != nil && os.SameFile(info, a.info) && info.ModTime().Equal(a.info.ModTime()) &&
		info.Size() == a.info.Size() && info.Mode() == a.info.Mode() {
		return
	}
	if !force && err != nil && a.err != nil {
		return // still missing: already logged
	}
	keys, info, err := loadAuthorizedKeys(a.path)
	a.info = info
	if err != nil {
		if force || a.err == nil || a.err.Error() != err.Error() {
			a.log("authorized keys unusable: admitting nobody until fixed", "error", err.Error())
		}
		a.keys, a.err = nil, err
		return
	}
	a.keys, a.err = keys, nil
	a.log("authorized keys reloaded", "file", a.path, "keys", len(keys))
}

// Reload re-reads the authorized keys now, whatever their file's times
// say, and logs the outcome (`lab serve` does it on SIGHUP): an operator
// who edited the file learns at once whether it is usable, rather than at
// the next visitor's login. Sessions and connections are untouched.
func (s *Server) Reload() {
	if s.auth == nil {
		s.log.Info("reload: nothing to re-read (no authorized keys: anyone may connect)")
		return
	}
	s.auth.read(true)
}

// match finds key in the list and checks its options against the client's
// address and the time. It returns the entry, or why it is refused.
func (a *authKeys) match(key gossh.PublicKey, remote net.Addr, now time.Time) (*authKey, string) {
	a.refresh()
	return a.find(key, remote, now)
}

// find is match without looking at the file.
func (a *authKeys) find(key gossh.PublicKey, remote net.Addr, now time.Time) (*authKey, string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.err != nil {
		return nil, "authorized keys unusable"
	}
	why := "key not listed"
	for i := range a.keys {
		k := &a.keys[i]
		if !bytes.Equal(k.key.Marshal(), key.Marshal()) {
			continue
		}
		if !k.expires.IsZero() && !now.Before(k.expires) {
			why = fmt.Sprintf("key expired (line %d)", k.line)
			continue
		}
		if k.from != nil {
			ip, ok := addrIP(remote)
			if !ok || !allows(k.from, ip) {
				why = fmt.Sprintf("key not allowed from this address (line %d)", k.line)
				continue
			}
		}
		return k, ""
	}
	return nil, why
}

func (a *authKeys) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.keys)
}

// addrIP is the IP address of a TCP address.
func addrIP(a net.Addr) (netip.Addr, bool) {
	if t, ok := a.(*net.TCPAddr); ok {
		ip, ok := netip.AddrFromSlice(t.IP)
		return ip.Unmap(), ok
	}
	ap, err := netip.ParseAddrPort(a.String())
	if err != nil {
		return netip.Addr{}, false
	}
	return ap.Addr().Unmap(), true
}
