package fetch

import (
	"errors"
	"fmt"
	"net/netip"
	"syscall"
)

// ErrForbiddenAddress means a fetch would have connected to an address the
// fetcher refuses: loopback, private, link-local or another special-purpose
// range (see Options.AllowPrivate).
var ErrForbiddenAddress = errors.New("fetch: address not allowed")

// Ranges no fetch may reach, whatever the options: nobody publishes a
// document there, and some of them reach the machine itself or its cloud
// metadata service (169.254.169.254, fe80::/10).
var alwaysRefused = prefixes(
	"0.0.0.0/8",       // "this network", including the unspecified address
	"169.254.0.0/16",  // link-local, cloud metadata services
	"224.0.0.0/4",     // multicast
	"240.0.0.0/4",     // reserved, and the limited broadcast address
	"::/128",          // unspecified
	"fe80::/10",       // link-local
	"ff00::/8",        // multicast
	"fec0::/10",       // site-local, deprecated
	"100::/64",        // discard-only
	"64:ff9b:1::/48",  // local-use NAT64
	"2001:db8::/32",   // documentation
	"3fff::/20",       // documentation
	"192.0.2.0/24",    // documentation (TEST-NET-1)
	"198.51.100.0/24", // documentation (TEST-NET-2)
	"203.0.113.0/24",  // documentation (TEST-NET-3)
	"198.18.0.0/15",   // benchmarking
	"192.0.0.0/24",    // IETF protocol assignments
	"192.88.99.0/24",  // 6to4 relay anycast, deprecated
	"2001::/23",       // IETF protocol assignments, including Teredo
	"2002::/16",       // 6to4, which embeds an IPv4 address
	"5f00::/16",       // SRv6 segment identifiers
)

// Ranges that belong to somebody's own network: refused unless
// Options.AllowPrivate. Loopback is here so that tests can fetch from
// httptest servers.
var privateRanges = prefixes(
	"127.0.0.0/8",    // loopback
	"::1/128",        // loopback
	"10.0.0.0/8",     // RFC 1918
	"172.16.0.0/12",  // RFC 1918
	"192.168.0.0/16", // RFC 1918
	"fc00::/7",       // unique local addresses
	"100.64.0.0/10",  // shared address space (CGNAT)
)

// nat64 is the well-known NAT64 prefix: an address in it stands for the
// IPv4 address in its last 32 bits, which is what gets checked.
var nat64 = netip.MustParsePrefix("64:ff9b::/96")

// globalUnicast is the only IPv6 block the IANA allocates for public
// addresses; anything outside it is special-purpose.
var globalUnicast = netip.MustParsePrefix("2000::/3")

func prefixes(ss ...string) []netip.Prefix {
	ps := make([]netip.Prefix, len(ss))
	for i, s := range ss {
		ps[i] = netip.MustParsePrefix(s)
	}
	return ps
}

func inAny(addr netip.Addr, ps []netip.Prefix) bool {
	for _, p := range ps {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}

// checkAddr reports whether a connection to addr is allowed.
func checkAddr(addr netip.Addr, allowPrivate bool) error {
	addr = addr.Unmap().WithZone("")
	if addr.Is6() && nat64.Contains(addr) {
		b := addr.As16()
		addr = netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
	}
	if !addr.IsValid() {
		return fmt.Errorf("%w: invalid address", ErrForbiddenAddress)
	}
	private := inAny(addr, privateRanges)
	switch {
	case private && allowPrivate:
		return nil
	case private, inAny(addr, alwaysRefused):
		return fmt.Errorf("%w: %s is not a public address", ErrForbiddenAddress, addr)
	case addr.Is6() && !globalUnicast.Contains(addr):
		return fmt.Errorf("%w: %s is not a global unicast address", ErrForbiddenAddress, addr)
	}
	return nil
}

// dialControl runs after name resolution, on the very address about to be
// dialled, so neither a hostname that resolves to a private address nor a
// DNS answer that changes between a check and the connection (rebinding)
// gets past it.
func dialControl(check func(netip.Addr) error) func(network, address string, _ syscall.RawConn) error {
	return func(network, address string, _ syscall.RawConn) error {
		switch network {
		case "tcp", "tcp4", "tcp6":
		default:
			return fmt.Errorf("%w: network %s", ErrForbiddenAddress, network)
		}
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("%w: %v", ErrForbiddenAddress, err)
		}
		return check(ap.Addr())
	}
}
