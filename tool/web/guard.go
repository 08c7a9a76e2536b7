package web

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
)

// Resolver looks host names up. *net.Resolver implements it; tests pass a
// fake that maps names to chosen addresses.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// BlockedError is returned when every address of a host is one the guard
// refuses (loopback, private, link-local ...). The fetch never connects.
type BlockedError struct {
	Host string
	Addr netip.Addr
	Kind string // "loopback", "private", "link-local" ...
}

func (e *BlockedError) Error() string {
	if e.Host == e.Addr.String() {
		return fmt.Sprintf("%s is a %s address", e.Addr, e.Kind)
	}
	return fmt.Sprintf("%s resolves to %s, a %s address", e.Host, e.Addr, e.Kind)
}

// Special-purpose ranges netip has no predicate for.
var (
	cgnat       = netip.MustParsePrefix("100.64.0.0/10")
	thisNetwork = netip.MustParsePrefix("0.0.0.0/8")
	benchmark   = netip.MustParsePrefix("198.18.0.0/15")
	reserved4   = netip.MustParsePrefix("240.0.0.0/4") // includes broadcast
	nat64       = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour   = netip.MustParsePrefix("2002::/16")
	v4compat    = netip.MustParsePrefix("::/96") // deprecated IPv4-compatible IPv6
)

// classify names why addr is refused, or returns "" for a public address.
// IPv4-mapped IPv6 (::ffff:127.0.0.1) is judged as the IPv4 address it
// carries; NAT64 and 6to4 addresses, which embed an IPv4 address a gateway
// would reach, are judged by that address too.
func classify(addr netip.Addr) string {
	addr = addr.WithZone("").Unmap()
	if addr.Is6() && (nat64.Contains(addr) || sixToFour.Contains(addr)) {
		b := addr.As16()
		var v4 [4]byte
		if nat64.Contains(addr) {
			copy(v4[:], b[12:16])
		} else {
			copy(v4[:], b[2:6])
		}
		if kind := classify(netip.AddrFrom4(v4)); kind != "" {
			return kind + " (embedded in " + addr.String() + ")"
		}
		return ""
	}
	switch {
	case !addr.IsValid():
		return "invalid"
	case addr.IsLoopback():
		return "loopback"
	case addr.IsPrivate():
		return "private"
	case addr.IsLinkLocalUnicast(), addr.IsLinkLocalMulticast():
		return "link-local"
	case addr.IsUnspecified(), thisNetwork.Contains(addr):
		return "unspecified"
	case addr.IsMulticast(), addr.IsInterfaceLocalMulticast():
		return "multicast"
	case cgnat.Contains(addr):
		return "shared (CGNAT)"
	case benchmark.Contains(addr), reserved4.Contains(addr), v4compat.Contains(addr):
		return "reserved"
	}
	return ""
}

// guard is the dialer of every connection web_fetch makes. It resolves the
// host itself, checks every resolved address, and connects to the address
// it checked, so neither a redirect nor a DNS answer that changes between
// check and connect (rebinding) reaches an address the policy refuses.
type guard struct {
	resolver Resolver
	dialer   net.Dialer
	// allowAll lifts the check ([web] allow_private).
	allowAll bool
	// allowHost lifts the check for one host name (an allow rule for its
	// domain); nil allows none.
	allowHost func(host string) bool
	// allowAddr lists exact addresses allowed although they are private
	// (tests let a loopback server play a public host).
	allowAddr map[netip.AddrPort]bool
}

// DialContext implements http.Transport.DialContext.
func (g *guard) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	host, portStr, err := net.SplitHostPort(address)
	if err != nil {
		return nil, err
	}
	port, err := strconv.ParseUint(portStr, 10, 16)
	if err != nil {
		return nil, fmt.Errorf("bad port %q", portStr)
	}
	addrs, err := g.resolve(ctx, host)
	if err != nil {
		return nil, err
	}
	lifted := g.allowAll || (g.allowHost != nil && g.allowHost(strings.TrimSuffix(strings.ToLower(host), ".")))
	var blocked *BlockedError
	var dialErr error
	for _, a := range addrs {
		a = a.Unmap()
		ap := netip.AddrPortFrom(a, uint16(port))
		if kind := classify(a); kind != "" && !lifted && !g.allowAddr[ap] {
			if blocked == nil {
				blocked = &BlockedError{Host: host, Addr: a, Kind: kind}
			}
			continue
		}
		conn, err := g.dialer.DialContext(ctx, network, ap.String())
		if err == nil {
			return conn, nil
		}
		dialErr = err
	}
	if dialErr != nil {
		return nil, dialErr
	}
	if blocked != nil {
		return nil, blocked
	}
	return nil, fmt.Errorf("%s has no address", host)
}

// resolve returns host's addresses; an IP literal is its own address.
func (g *guard) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if a, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{a}, nil
	}
	addrs, err := g.resolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		var dnsErr *net.DNSError
		if errors.As(err, &dnsErr) && dnsErr.IsNotFound {
			return nil, fmt.Errorf("the host %s does not exist (DNS: no such host)", host)
		}
		return nil, fmt.Errorf("cannot resolve %s: %w", host, err)
	}
	return addrs, nil
}
