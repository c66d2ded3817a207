package activities

import (
	"context"
	"crypto/tls"
	"crypto/x509"
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

// reserved are ranges no webhook receiver lives in, refused unless
// allow-listed: special-purpose IPv4 and IPv6 ranges (IANA's registries),
// and the IPv6 prefixes that reach IPv4 through a translator or tunnel,
// which could carry any refused IPv4 address. IPv4-mapped addresses
// (::ffff:0:0/96) are not here: Check judges them as the IPv4 address
// they are dialled as.
var reserved = []struct {
	prefix netip.Prefix
	kind   string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), "this-network"},
	{netip.MustParsePrefix("100.64.0.0/10"), "shared (CGNAT)"},
	{netip.MustParsePrefix("192.0.0.0/24"), "IETF protocol"},
	{netip.MustParsePrefix("192.0.2.0/24"), "documentation"},
	{netip.MustParsePrefix("192.88.99.0/24"), "6to4 relay"},
	{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking"},
	{netip.MustParsePrefix("198.51.100.0/24"), "documentation"},
	{netip.MustParsePrefix("203.0.113.0/24"), "documentation"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved (240/4)"},
	{netip.MustParsePrefix("::ffff:0:0:0/96"), "IPv4-translated"},
	{netip.MustParsePrefix("64:ff9b::/96"), "NAT64"},
	{netip.MustParsePrefix("64:ff9b:1::/48"), "NAT64"},
	{netip.MustParsePrefix("100::/64"), "discard-only"},
	{netip.MustParsePrefix("2001:2::/48"), "benchmarking"},
	{netip.MustParsePrefix("2001:10::/28"), "ORCHID"},
	{netip.MustParsePrefix("2001:20::/28"), "ORCHID"},
	{netip.MustParsePrefix("2001:db8::/32"), "documentation"},
	{netip.MustParsePrefix("2001::/32"), "Teredo"},
	{netip.MustParsePrefix("2002::/16"), "6to4"},
	{netip.MustParsePrefix("3fff::/20"), "documentation"},
	{netip.MustParsePrefix("fec0::/10"), "site-local"},
}

// Check returns an error wrapping ErrRefused if addr may not be dialled.
// An IPv4-mapped (::ffff:a.b.c.d) or IPv4-compatible (::a.b.c.d) address
// is judged as the IPv4 address it holds.
func (g Guard) Check(addr netip.Addr) error {
	addr = addr.Unmap()
	if v4, ok := ipv4Compatible(addr); ok {
		if err := g.Check(v4); err != nil {
			return fmt.Errorf("%w (IPv4-compatible %s)", err, addr)
		}
		return nil
	}
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
	for _, r := range reserved {
		if kind == "" && r.prefix.Contains(addr) {
			kind = r.kind
		}
	}
	if kind != "" {
		return fmt.Errorf("%w: %s address %s", ErrRefused, kind, addr)
	}
	return nil
}

// ipv4Compatible returns the IPv4 address a deprecated IPv4-compatible
// IPv6 address (::a.b.c.d) holds; :: and ::1 are not such addresses.
func ipv4Compatible(addr netip.Addr) (netip.Addr, bool) {
	if !addr.Is6() || addr.Zone() != "" {
		return netip.Addr{}, false
	}
	b := addr.As16()
	for _, x := range b[:12] {
		if x != 0 {
			return netip.Addr{}, false
		}
	}
	v4 := netip.AddrFrom4([4]byte(b[12:]))
	if v4.As4() == [4]byte{} || v4.As4() == [4]byte{0, 0, 0, 1} {
		return netip.Addr{}, false
	}
	return v4, true
}

func (g Guard) control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: unparseable address", ErrRefused)
	}
	return g.Check(ap.Addr())
}

// NewHTTPClient returns the client deliveries are sent with: every dial
// passes the guard, redirects are never followed, no proxy from the
// environment is used (it would dial on hookd's behalf and bypass the
// guard; Egress.Proxy is the proxy that keeps it), and an HTTP/1.1
// connection is not reused after a response whose framing is in doubt
// (see framingConn). It is Egress{Guard: g}'s client.
func NewHTTPClient(g Guard) *http.Client { return Egress{Guard: g}.client(clientTLS{}) }

// newHTTPClient is NewHTTPClient trusting roots (nil: the system's).
func newHTTPClient(g Guard, roots *x509.CertPool) *http.Client {
	return Egress{Guard: g}.client(clientTLS{roots: roots})
}

// clientTLS is what a client's TLS handshakes use beyond the defaults.
type clientTLS struct {
	roots *x509.CertPool   // nil: the system's
	cert  *tls.Certificate // presented when the receiver asks; nil: none
}

// client returns a client that leaves through e with ct.
func (e Egress) client(ct clientTLS) *http.Client {
	d := &dialer{Dialer: net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second, Control: e.Guard.control}, tls: ct}
	if e.Proxy != nil {
		d.proxy = newProxyDialer(e.Proxy, e.Guard, e.proxyRoots)
	}
	return &http.Client{
		Transport: &http.Transport{
			DialContext:           d.dial,
			DialTLSContext:        d.dialTLS,
			ForceAttemptHTTP2:     true,
			MaxIdleConns:          256,
			MaxIdleConnsPerHost:   64,
			IdleConnTimeout:       90 * time.Second,
			ResponseHeaderTimeout: 0, // bounded by the attempt's context
			// net/http's default would read up to 10 MB of headers per
			// attempt; past the cap the attempt fails retryably
			// (response_headers_too_large).
			MaxResponseHeaderBytes: maxResponseHeaderBytes,
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

// dialer dials guarded connections, directly or through the egress
// proxy, and watches the framing of the HTTP/1.1 ones.
type dialer struct {
	net.Dialer
	tls   clientTLS
	proxy *proxyDialer // nil: direct
}

// connect opens the connection to addr that HTTP or TLS is spoken over.
func (d *dialer) connect(ctx context.Context, network, addr string) (net.Conn, error) {
	if d.proxy != nil {
		return d.proxy.dial(ctx, addr)
	}
	return d.DialContext(ctx, network, addr)
}

func (d *dialer) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	conn, err := d.connect(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return &framingConn{Conn: conn}, nil
}

// dialTLS makes the TLS handshake itself, so that an HTTP/1.1 connection
// can be watched above TLS; an HTTP/2 one (framed by the protocol) is
// handed to the transport as it is.
func (d *dialer) dialTLS(ctx context.Context, network, addr string) (net.Conn, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	raw, err := d.connect(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	cfg := &tls.Config{ServerName: host, NextProtos: []string{"h2", "http/1.1"}, RootCAs: d.tls.roots}
	if cert := d.tls.cert; cert != nil {
		// Always the endpoint's certificate, whichever CAs the receiver
		// says it accepts: the receiver decides.
		cfg.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return cert, nil }
	}
	hctx, cancel := context.WithTimeout(ctx, tlsHandshakeTimeout)
	defer cancel()
	conn := tls.Client(raw, cfg)
	if err := conn.HandshakeContext(hctx); err != nil {
		raw.Close()
		return nil, err
	}
	if conn.ConnectionState().NegotiatedProtocol == "h2" {
		return conn, nil
	}
	return &framingConn{Conn: conn}, nil
}

// maxResponseHeaderBytes caps the response header an attempt reads (all
// interim 1xx headers included, over HTTP/1.1).
const maxResponseHeaderBytes = 64 << 10

// tlsHandshakeTimeout bounds a TLS handshake.
const tlsHandshakeTimeout = 10 * time.Second
