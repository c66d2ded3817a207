package activities

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

// Guard decides which destination addresses deliveries may reach. It runs
// in the dialer's Control hook, after DNS resolution, so a hostname that
// resolves (or re-resolves) to a forbidden address is refused too.
type Guard struct {
	// AllowLoopback lets deliveries reach 127.0.0.0/8 and ::1 (hookd dev).
	AllowLoopback bool
	// Allow lists CIDRs that are reachable even if otherwise refused.
	Allow []netip.Prefix
}

// cloudMetadata are instance-metadata addresses. They are refused even
// inside an allow-listed range, unless allow-listed by themselves.
var cloudMetadata = []netip.Prefix{
	netip.MustParsePrefix("169.254.169.254/32"),
	netip.MustParsePrefix("fd00:ec2::254/128"),
	netip.MustParsePrefix("100.100.100.200/32"), // Alibaba Cloud
}

// Check returns an error wrapping ErrRefused if addr may not be dialled.
func (g Guard) Check(addr netip.Addr) error {
	addr = addr.Unmap()
	for _, p := range cloudMetadata {
		if p.Contains(addr) && !g.allowsExactly(addr) {
			return fmt.Errorf("%w: cloud metadata address %s", ErrRefused, addr)
		}
	}
	for _, p := range g.Allow {
		if p.Contains(addr) {
			return nil
		}
	}
	var kind string
	switch {
	case addr.IsLoopback():
		if g.AllowLoopback {
			return nil
		}
		kind = "loopback"
	case addr.IsPrivate():
		kind = "private"
	case addr.IsLinkLocalUnicast(), addr.IsLinkLocalMulticast():
		kind = "link-local"
	case addr.IsMulticast(), addr.IsInterfaceLocalMulticast():
		kind = "multicast"
	case addr.IsUnspecified():
		kind = "unspecified"
	}
	if kind != "" {
		return fmt.Errorf("%w: %s address %s", ErrRefused, kind, addr)
	}
	return nil
}

func (g Guard) control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: unparseable address", ErrRefused)
	}
	return g.Check(ap.Addr())
}

// NewHTTPClient returns the client deliveries are sent with: every dial
// passes the guard, redirects are never followed, and no proxy is used (a
// proxy would dial on hookd's behalf and bypass the guard).
func NewHTTPClient(g Guard) *http.Client {
	dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second, Control: g.control}
	return &http.Client{
		Transport: &http.Transport{
			DialContext:           dialer.DialContext,
			ForceAttemptHTTP2:     true,
			MaxIdleConns:          256,
			MaxIdleConnsPerHost:   64,
			IdleConnTimeout:       90 * time.Second,
			TLSHandshakeTimeout:   10 * time.Second,
			ResponseHeaderTimeout: 0, // bounded by the attempt's context
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// allowsExactly reports whether addr is allow-listed as a single address.
func (g Guard) allowsExactly(addr netip.Addr) bool {
	for _, p := range g.Allow {
		if p.Bits() == addr.BitLen() && p.Addr() == addr {
			return true
		}
	}
	return false
}
