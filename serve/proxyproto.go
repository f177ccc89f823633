package serve

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"strconv"
	"strings"
)

// The PROXY protocol (HAProxy's, versions 1 and 2) lets a TCP load balancer
// tell the server who its client is: a header before the client's bytes.
// lab serve reads it only from the balancers the operator names
// (--proxy-from): from anyone else a header would be a lie anyone could
// tell, and such a connection is served as a direct one.

// proxyV2Sig opens a version 2 header.
var proxyV2Sig = []byte("\r\n\r\n\x00\r\nQUIT\n")

// maxProxyV1 is the longest version 1 header, CRLF included.
const maxProxyV1 = 107

// maxProxyV2 bounds a version 2 header's addresses and TLVs, which lab
// serve reads past.
const maxProxyV2 = 4096

// ParseProxyFrom reads a comma-separated list of CIDRs or addresses.
func ParseProxyFrom(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if !strings.Contains(f, "/") {
			a, err := netip.ParseAddr(f)
			if err != nil {
				return nil, fmt.Errorf("--proxy-from: %q is neither an address nor a CIDR", f)
			}
			out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
			continue
		}
		p, err := netip.ParsePrefix(f)
		if err != nil {
			return nil, fmt.Errorf("--proxy-from: %v", err)
		}
		if p.Addr().Is4In6() {
			p = netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96)
		}
		out = append(out, p.Masked())
	}
	if len(out) == 0 {
		return nil, errors.New("--proxy-from: no address given")
	}
	return out, nil
}

// trusted reports whether a connection from addr may carry a PROXY header.
func trusted(from []netip.Prefix, addr net.Addr) bool {
	ip, ok := addrIP(addr)
	if !ok {
		return false
	}
	for _, p := range from {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// readProxyHeader reads a version 1 or 2 header from r, exactly (not a byte
// of the SSH stream after it), and returns the client's address and the
// address it connected to (the balancer's front). local is true for a
// version 2 LOCAL command or a version 1 UNKNOWN line, the balancer
// speaking for itself; a version 2 PROXY command of an unspecified or unix
// family names no addresses either, but is a client, served under the
// balancer's address.
func readProxyHeader(r io.Reader) (src, dst net.Addr, local bool, err error) {
	var first [1]byte
	if _, err := io.ReadFull(r, first[:]); err != nil {
		return nil, nil, false, fmt.Errorf("PROXY header: %w", err)
	}
	switch first[0] {
	case 'P':
		return readProxyV1(r)
	case proxyV2Sig[0]:
		return readProxyV2(r)
	}
	return nil, nil, false, errors.New("PROXY header expected from this balancer, got something else")
}

// healthCheck reports whether a header that arrived on nc is the
// balancer's own health check rather than a client's connection: a LOCAL
// command or an UNKNOWN line (local), or a header that describes nc itself,
// from the balancer's end to this server's, which is what HAProxy's
// version 1 checks send (a client's header names the balancer's front as
// its destination, never this server). Version 1 cannot tell a check from
// a client the balancer has no address for (HAProxy sends UNKNOWN for a
// client of a unix socket): such a client is taken for a check.
func healthCheck(local bool, src, dst net.Addr, nc net.Conn) bool {
	return local || sameEnd(src, nc.RemoteAddr()) && sameEnd(dst, nc.LocalAddr())
}

// sameEnd reports whether a and b are the same TCP address and port.
func sameEnd(a, b net.Addr) bool {
	ta, ok1 := a.(*net.TCPAddr)
	tb, ok2 := b.(*net.TCPAddr)
	return ok1 && ok2 && unmapped(ta) == unmapped(tb)
}

// unmapped is a's address and port, an IPv4 address in its 4-byte form.
func unmapped(a *net.TCPAddr) netip.AddrPort {
	ap := a.AddrPort()
	return netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
}

func readProxyV1(r io.Reader) (src, dst net.Addr, local bool, err error) {
	line := []byte{'P'}
	var b [1]byte
	for !bytes.HasSuffix(line, []byte("\r\n")) {
		if len(line) >= maxProxyV1 {
			return nil, nil, false, errors.New("PROXY v1 header: no CRLF within 107 bytes")
		}
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return nil, nil, false, fmt.Errorf("PROXY v1 header: %w", err)
		}
		line = append(line, b[0])
	}
	f := strings.Fields(string(line[:len(line)-2]))
	if len(f) < 2 || f[0] != "PROXY" {
		return nil, nil, false, fmt.Errorf("PROXY v1 header: %q", line)
	}
	switch f[1] {
	case "UNKNOWN":
		return nil, nil, true, nil
	case "TCP4", "TCP6":
	default:
		return nil, nil, false, fmt.Errorf("PROXY v1 header: unknown protocol %q", f[1])
	}
	if len(f) != 6 {
		return nil, nil, false, fmt.Errorf("PROXY v1 header: %q", line)
	}
	ip, err := netip.ParseAddr(f[2])
	if err != nil || ip.Is4() != (f[1] == "TCP4") {
		return nil, nil, false, fmt.Errorf("PROXY v1 header: bad source address %q", f[2])
	}
	port, err := strconv.ParseUint(f[4], 10, 16)
	if err != nil {
		return nil, nil, false, fmt.Errorf("PROXY v1 header: bad source port %q", f[4])
	}
	dip, err := netip.ParseAddr(f[3])
	if err != nil || dip.Is4() != ip.Is4() {
		return nil, nil, false, fmt.Errorf("PROXY v1 header: bad destination address %q", f[3])
	}
	dport, err := strconv.ParseUint(f[5], 10, 16)
	if err != nil {
		return nil, nil, false, fmt.Errorf("PROXY v1 header: bad destination port %q", f[5])
	}
	return tcpAddr(ip, uint16(port)), tcpAddr(dip, uint16(dport)), false, nil
}

func tcpAddr(ip netip.Addr, port uint16) net.Addr {
	return net.TCPAddrFromAddrPort(netip.AddrPortFrom(ip.Unmap(), port))
}

func readProxyV2(r io.Reader) (src, dst net.Addr, local bool, err error) {
	var h [16]byte
	h[0] = proxyV2Sig[0]
	if _, err := io.ReadFull(r, h[1:]); err != nil {
		return nil, nil, false, fmt.Errorf("PROXY v2 header: %w", err)
	}
	if !bytes.Equal(h[:12], proxyV2Sig) {
		return nil, nil, false, errors.New("PROXY v2 header: bad signature")
	}
	if h[12]>>4 != 2 {
		return nil, nil, false, fmt.Errorf("PROXY v2 header: version %d", h[12]>>4)
	}
	n := int(binary.BigEndian.Uint16(h[14:16]))
	if n > maxProxyV2 {
		return nil, nil, false, fmt.Errorf("PROXY v2 header: %d bytes of addresses", n)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, nil, false, fmt.Errorf("PROXY v2 header: %w", err)
	}
	switch cmd := h[12] & 0xf; cmd {
	case 0: // LOCAL: the balancer speaking for itself
		return nil, nil, true, nil
	case 1: // PROXY
	default:
		return nil, nil, false, fmt.Errorf("PROXY v2 header: command %d", cmd)
	}
	switch h[13] {
	case 0x11, 0x12: // TCP or UDP over IPv4
		if n < 12 {
			return nil, nil, false, errors.New("PROXY v2 header: short IPv4 addresses")
		}
		return tcpAddr(netip.AddrFrom4([4]byte(body[0:4])), binary.BigEndian.Uint16(body[8:10])),
			tcpAddr(netip.AddrFrom4([4]byte(body[4:8])), binary.BigEndian.Uint16(body[10:12])), false, nil
	case 0x21, 0x22: // over IPv6
		if n < 36 {
			return nil, nil, false, errors.New("PROXY v2 header: short IPv6 addresses")
		}
		return tcpAddr(netip.AddrFrom16([16]byte(body[0:16])), binary.BigEndian.Uint16(body[32:34])),
			tcpAddr(netip.AddrFrom16([16]byte(body[16:32])), binary.BigEndian.Uint16(body[34:36])), false, nil
	}
	return nil, nil, false, nil // UNSPEC or a unix socket: no address to speak of
}
