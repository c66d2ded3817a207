package activities

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"time"
)

// An egress proxy carries attempts and token requests to their
// destinations. hookd resolves the destination and checks every address
// with the Guard itself, then asks the proxy for a tunnel to the checked
// address (an IP literal), so the proxy never resolves a name on hookd's
// behalf and DNS rebinding cannot route around the guard. Over the tunnel
// hookd speaks HTTP or TLS itself, with the destination's name as SNI and
// Host: a receiver's private CA and the endpoint's client certificate work
// as they do without a proxy. http and https proxies are asked with
// CONNECT, for http:// destinations too; socks5 proxies with a SOCKS5
// CONNECT (RFC 1928), authenticating by username and password (RFC 1929)
// when the URL holds them.

// Error classes of attempts that failed at the egress proxy.
const (
	// ErrorClassProxyAuth: the proxy refused hookd's credentials (HTTP
	// 407, or SOCKS5 authentication failure).
	ErrorClassProxyAuth = "proxy_auth"
	// ErrorClassProxy: the proxy could not be reached or would not open
	// the tunnel.
	ErrorClassProxy = "proxy"
)

// proxyError is an attempt failed at the egress proxy: retryable, with a
// message that names neither the proxy's credentials nor the URL.
type proxyError struct {
	class, msg string
}

func (e *proxyError) Error() string      { return e.msg }
func (e *proxyError) errorClass() string { return e.class }

// ParseEgressProxy checks an egress proxy URL: http, https or socks5,
// with a host and an optional port, user and password, and nothing else.
// Its errors never repeat the URL, which may hold a password.
func ParseEgressProxy(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, errors.New("not a URL (want http://[user:password@]host:port, https://... or socks5://...)")
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "socks5":
		return nil, errors.New("the scheme must be http, https or socks5")
	case u.Hostname() == "":
		return nil, errors.New("the URL has no host")
	case u.Path != "" && u.Path != "/", u.RawQuery != "", u.Fragment != "", u.Opaque != "":
		return nil, errors.New("the URL must be only scheme://[user:password@]host[:port]")
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return nil, errors.New("the port must be 1-65535")
		}
	}
	return u, nil
}

// MaskedProxy is the proxy URL as logs show it: its user and password
// replaced by ****.
func MaskedProxy(u *url.URL) string {
	if u == nil {
		return ""
	}
	user := ""
	if u.User != nil {
		user = "****@"
	}
	return u.Scheme + "://" + user + u.Host
}

// proxyDialer opens guarded tunnels through an egress proxy.
type proxyDialer struct {
	url   *url.URL
	guard Guard
	// forward dials the proxy itself, unguarded: the operator chose it,
	// and it usually lives on a private network.
	forward net.Dialer
	// proxyTLS is the TLS to an https proxy.
	proxyTLS *tls.Config
	lookup   func(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// newProxyDialer returns the dialer through u; roots verify an https
// proxy (nil: the system's).
func newProxyDialer(u *url.URL, g Guard, roots *x509.CertPool) *proxyDialer {
	return &proxyDialer{url: u, guard: g, forward: net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second},
		proxyTLS: &tls.Config{ServerName: u.Hostname(), NextProtos: []string{"http/1.1"}, RootCAs: roots},
		lookup:   net.DefaultResolver.LookupNetIP}
}

// dial returns a tunnel to addr (host:port). The host is resolved here
// and each address checked by the guard; the tunnels are asked for the
// allowed addresses in turn until one opens. None allowed is the first
// refusal; a refused credential ends the tries.
func (p *proxyDialer) dial(ctx context.Context, addr string) (net.Conn, error) {
	host, portStr, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	port, err := strconv.ParseUint(portStr, 10, 16)
	if err != nil {
		return nil, fmt.Errorf("%w: bad port", ErrRefused)
	}
	ips, err := p.resolve(ctx, host)
	if err != nil {
		return nil, err
	}
	var refused, last error
	for _, ip := range ips {
		if err := p.guard.Check(ip); err != nil {
			refused = cmpErr(refused, err)
			continue
		}
		conn, err := p.tunnel(ctx, netip.AddrPortFrom(ip.Unmap(), uint16(port)))
		if err == nil {
			return conn, nil
		}
		last = err
		var pe *proxyError
		if errors.As(err, &pe) && pe.class == ErrorClassProxyAuth || ctx.Err() != nil {
			break
		}
	}
	if last != nil {
		return nil, last
	}
	return nil, refused
}

func cmpErr(first, next error) error {
	if first != nil {
		return first
	}
	return next
}

// resolve returns host's addresses: host itself if it is an IP literal.
func (p *proxyDialer) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if ip, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{ip}, nil
	}
	ips, err := p.lookup(ctx, "ip", host)
	if err != nil {
		return nil, err
	}
	if len(ips) == 0 {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return ips, nil
}

// tunnel connects to the proxy and has it open a tunnel to dst.
func (p *proxyDialer) tunnel(ctx context.Context, dst netip.AddrPort) (net.Conn, error) {
	conn, err := p.forward.DialContext(ctx, "tcp", p.proxyAddr())
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		_, _, msg := classifyError(err)
		return nil, &proxyError{ErrorClassProxy, "egress proxy unreachable: " + msg}
	}
	// The handshake is bounded by ctx; the deadline is lifted once the
	// tunnel is open.
	deadline, ok := ctx.Deadline()
	if !ok || time.Until(deadline) > tlsHandshakeTimeout {
		deadline = time.Now().Add(tlsHandshakeTimeout)
	}
	_ = conn.SetDeadline(deadline)
	if p.url.Scheme == "https" {
		tc := tls.Client(conn, p.proxyTLS)
		if err := tc.HandshakeContext(ctx); err != nil {
			conn.Close()
			return nil, &proxyError{ErrorClassProxy, "egress proxy TLS handshake failed"}
		}
		conn = tc
	}
	if p.url.Scheme == "socks5" {
		err = p.socks5(conn, dst)
	} else {
		conn, err = p.connect(conn, dst)
	}
	if err != nil {
		conn.Close()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	_ = conn.SetDeadline(time.Time{})
	return conn, nil
}

// proxyAddr is the proxy's host:port, the scheme's port if none.
func (p *proxyDialer) proxyAddr() string {
	port := p.url.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443", "socks5": "1080"}[p.url.Scheme]
	}
	return net.JoinHostPort(p.url.Hostname(), port)
}

// connect asks an HTTP proxy for a tunnel to dst with CONNECT.
func (p *proxyDialer) connect(conn net.Conn, dst netip.AddrPort) (net.Conn, error) {
	target := dst.String()
	req := &http.Request{Method: http.MethodConnect, URL: &url.URL{Opaque: target}, Host: target, Header: http.Header{}}
	if u := p.url.User; u != nil {
		pw, _ := u.Password()
		req.Header.Set("Proxy-Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(u.Username()+":"+pw)))
	}
	if err := req.Write(conn); err != nil {
		return conn, &proxyError{ErrorClassProxy, "egress proxy closed the connection before CONNECT"}
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, req)
	if err != nil {
		return conn, &proxyError{ErrorClassProxy, "egress proxy gave no answer to CONNECT"}
	}
	resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusProxyAuthRequired:
		return conn, &proxyError{ErrorClassProxyAuth, "egress proxy refused hookd's credentials (HTTP 407)"}
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		return conn, &proxyError{ErrorClassProxy, "egress proxy answered CONNECT with HTTP " + strconv.Itoa(resp.StatusCode)}
	}
	if br.Buffered() > 0 {
		return &bufferedConn{Conn: conn, r: br}, nil
	}
	return conn, nil
}

// bufferedConn reads what a proxy sent after its answer before the rest.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *bufferedConn) Read(b []byte) (int, error) { return c.r.Read(b) }

// socks5 asks a SOCKS5 proxy for a tunnel to dst (RFC 1928), with
// username and password authentication (RFC 1929) if the URL has a user.
func (p *proxyDialer) socks5(conn net.Conn, dst netip.AddrPort) error {
	unreachable := func(what string) error { return &proxyError{ErrorClassProxy, "egress proxy (SOCKS5) " + what} }
	methods := []byte{0x00}
	if p.url.User != nil {
		methods = []byte{0x02}
	}
	if _, err := conn.Write(append([]byte{0x05, byte(len(methods))}, methods...)); err != nil {
		return unreachable("closed the connection")
	}
	var b [2]byte
	if _, err := io.ReadFull(conn, b[:]); err != nil || b[0] != 0x05 {
		return unreachable("gave no valid answer")
	}
	switch b[1] {
	case 0x00:
	case 0x02:
		if err := p.socksAuth(conn); err != nil {
			return err
		}
	default:
		return &proxyError{ErrorClassProxyAuth, "egress proxy (SOCKS5) accepts none of hookd's authentication methods"}
	}
	req := []byte{0x05, 0x01, 0x00}
	if ip := dst.Addr(); ip.Is4() {
		a := ip.As4()
		req = append(append(req, 0x01), a[:]...)
	} else {
		a := ip.As16()
		req = append(append(req, 0x04), a[:]...)
	}
	req = append(req, byte(dst.Port()>>8), byte(dst.Port()))
	if _, err := conn.Write(req); err != nil {
		return unreachable("closed the connection")
	}
	var head [4]byte
	if _, err := io.ReadFull(conn, head[:]); err != nil || head[0] != 0x05 {
		return unreachable("gave no valid answer to CONNECT")
	}
	if head[1] != 0x00 {
		return unreachable("refused CONNECT (reply " + strconv.Itoa(int(head[1])) + ")")
	}
	// The bound address, which hookd has no use for.
	var skip int
	switch head[3] {
	case 0x01:
		skip = 4 + 2
	case 0x04:
		skip = 16 + 2
	case 0x03:
		var n [1]byte
		if _, err := io.ReadFull(conn, n[:]); err != nil {
			return unreachable("gave no valid answer to CONNECT")
		}
		skip = int(n[0]) + 2
	default:
		return unreachable("gave no valid answer to CONNECT")
	}
	if _, err := io.ReadFull(conn, make([]byte, skip)); err != nil {
		return unreachable("gave no valid answer to CONNECT")
	}
	return nil
}

// socksAuth authenticates to a SOCKS5 proxy by username and password.
func (p *proxyDialer) socksAuth(conn net.Conn) error {
	user, pw := p.url.User.Username(), ""
	if s, ok := p.url.User.Password(); ok {
		pw = s
	}
	if len(user) > 255 || len(pw) > 255 {
		return &proxyError{ErrorClassProxyAuth, "egress proxy (SOCKS5) username or password longer than 255 bytes"}
	}
	msg := append([]byte{0x01, byte(len(user))}, user...)
	msg = append(append(msg, byte(len(pw))), pw...)
	if _, err := conn.Write(msg); err != nil {
		return &proxyError{ErrorClassProxy, "egress proxy (SOCKS5) closed the connection"}
	}
	var b [2]byte
	if _, err := io.ReadFull(conn, b[:]); err != nil {
		return &proxyError{ErrorClassProxy, "egress proxy (SOCKS5) gave no answer to authentication"}
	}
	if b[1] != 0x00 {
		return &proxyError{ErrorClassProxyAuth, "egress proxy (SOCKS5) refused hookd's credentials"}
	}
	return nil
}
