package testkit

import (
	"crypto/tls"
	"encoding/base64"
	"encoding/binary"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Proxy is a forward proxy a test starts: it opens a tunnel to whatever
// address it is asked for (HTTP CONNECT, or SOCKS5 CONNECT), when asked
// with its credentials, and keeps the targets it tunnelled to and the
// local addresses of its connections to them.
type Proxy struct {
	// URL is the proxy's URL with its credentials.
	URL *url.URL

	user string

	mu       sync.Mutex
	password string
	targets  []string
	refused  int
	carried  map[string]bool
}

// SetPassword changes the password the proxy requires from now on.
func (p *Proxy) SetPassword(pw string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.password = pw
}

func (p *Proxy) accepts(user, pw string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return user == p.user && pw == p.password
}

// Carried reports whether a server's peer address (a request's
// RemoteAddr) is that of a connection the proxy opened: whether the
// request came through the proxy.
func (p *Proxy) Carried(remoteAddr string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.carried[remoteAddr]
}

// dialed counts a tunnel opened to target over dst.
func (p *Proxy) dialed(target string, dst net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.carried == nil {
		p.carried = map[string]bool{}
	}
	p.carried[dst.LocalAddr().String()] = true
	p.targets = append(p.targets, target)
}

// Targets are the host:port targets of the tunnels opened, in order.
func (p *Proxy) Targets() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.targets...)
}

// Refused counts the tunnels refused for missing or wrong credentials.
func (p *Proxy) Refused() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.refused
}

// refuse counts a tunnel refused for its credentials.
func (p *Proxy) refuse() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.refused++
}

func (p *Proxy) setURL(scheme, addr string) {
	p.URL = &url.URL{Scheme: scheme, Host: addr}
	if p.user != "" {
		p.URL.User = url.UserPassword(p.user, p.password)
	}
}

// parseBasic reads Basic credentials from an authorization header.
func parseBasic(h string) (user, pw string, ok bool) {
	raw, found := strings.CutPrefix(h, "Basic ")
	if !found {
		return "", "", false
	}
	b, err := base64.StdEncoding.DecodeString(raw)
	if err != nil {
		return "", "", false
	}
	return strings.Cut(string(b), ":")
}

// NewConnectProxy starts an HTTP proxy that only tunnels (CONNECT),
// requiring Basic credentials user and password unless user is empty
// (407 otherwise); it is closed at the test's end.
func NewConnectProxy(t testing.TB, user, password string) *Proxy {
	t.Helper()
	p := &Proxy{user: user, password: password}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(p.serveConnect))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.Start()
	t.Cleanup(srv.Close)
	p.setURL("http", srv.Listener.Addr().String())
	return p
}

// NewTLSConnectProxy is NewConnectProxy spoken to over TLS (an https
// proxy URL), with a certificate for 127.0.0.1 and localhost that the
// returned CA issued.
func NewTLSConnectProxy(t testing.TB, user, password string) (*Proxy, *CA) {
	t.Helper()
	p := &Proxy{user: user, password: password}
	ca := NewCA(t, "Proxy CA")
	srv := httptest.NewUnstartedServer(http.HandlerFunc(p.serveConnect))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{ca.IssueNow(t, "proxy").TLS}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	p.setURL("https", srv.Listener.Addr().String())
	return p, ca
}

func (p *Proxy) serveConnect(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodConnect {
		http.Error(w, "only CONNECT", http.StatusMethodNotAllowed)
		return
	}
	user, pw, _ := parseBasic(r.Header.Get("Proxy-Authorization"))
	if p.user != "" && !p.accepts(user, pw) {
		p.refuse()
		w.Header().Set("Proxy-Authenticate", `Basic realm="test"`)
		w.WriteHeader(http.StatusProxyAuthRequired)
		return
	}
	dst, err := net.Dial("tcp", r.Host)
	if err != nil {
		http.Error(w, "dial failed", http.StatusBadGateway)
		return
	}
	p.dialed(r.Host, dst)
	conn, rw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		dst.Close()
		return
	}
	_, _ = rw.WriteString("HTTP/1.1 200 Connection established\r\n\r\n")
	_ = rw.Flush()
	splice(conn, rw, dst)
}

// NewSOCKS5Proxy starts a SOCKS5 proxy (RFC 1928) that tunnels TCP,
// requiring username and password authentication (RFC 1929) unless user
// is empty; it is closed at the test's end.
func NewSOCKS5Proxy(t testing.TB, user, password string) *Proxy {
	t.Helper()
	p := &Proxy{user: user, password: password}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go p.serveSOCKS5(c)
		}
	}()
	p.setURL("socks5", l.Addr().String())
	return p
}

func (p *Proxy) serveSOCKS5(c net.Conn) {
	defer c.Close()
	var head [2]byte
	if _, err := io.ReadFull(c, head[:]); err != nil || head[0] != 5 {
		return
	}
	methods := make([]byte, head[1])
	if _, err := io.ReadFull(c, methods); err != nil {
		return
	}
	if p.user != "" {
		if !p.socksAuth(c, methods) {
			return
		}
	} else if _, err := c.Write([]byte{5, 0}); err != nil {
		return
	}
	var req [4]byte
	if _, err := io.ReadFull(c, req[:]); err != nil || req[1] != 1 {
		return
	}
	var host string
	switch req[3] {
	case 1, 4:
		b := make([]byte, map[byte]int{1: 4, 4: 16}[req[3]])
		if _, err := io.ReadFull(c, b); err != nil {
			return
		}
		a, _ := netip.AddrFromSlice(b)
		host = a.String()
	case 3:
		var n [1]byte
		if _, err := io.ReadFull(c, n[:]); err != nil {
			return
		}
		b := make([]byte, n[0])
		if _, err := io.ReadFull(c, b); err != nil {
			return
		}
		host = string(b)
	default:
		return
	}
	var port [2]byte
	if _, err := io.ReadFull(c, port[:]); err != nil {
		return
	}
	target := net.JoinHostPort(host, strconv.Itoa(int(binary.BigEndian.Uint16(port[:]))))
	dst, err := net.Dial("tcp", target)
	if err != nil {
		_, _ = c.Write([]byte{5, 5, 0, 1, 0, 0, 0, 0, 0, 0}) // connection refused
		return
	}
	p.dialed(target, dst)
	if _, err := c.Write([]byte{5, 0, 0, 1, 0, 0, 0, 0, 0, 0}); err != nil {
		dst.Close()
		return
	}
	splice(c, c, dst)
}

// socksAuth runs the username and password subnegotiation, reporting
// whether the client passed it.
func (p *Proxy) socksAuth(c net.Conn, methods []byte) bool {
	offered := false
	for _, m := range methods {
		offered = offered || m == 2
	}
	if !offered {
		p.refuse()
		_, _ = c.Write([]byte{5, 0xff})
		return false
	}
	if _, err := c.Write([]byte{5, 2}); err != nil {
		return false
	}
	read := func() (string, bool) {
		var n [1]byte
		if _, err := io.ReadFull(c, n[:]); err != nil {
			return "", false
		}
		b := make([]byte, n[0])
		_, err := io.ReadFull(c, b)
		return string(b), err == nil
	}
	var ver [1]byte
	if _, err := io.ReadFull(c, ver[:]); err != nil {
		return false
	}
	user, ok1 := read()
	pw, ok2 := read()
	if !ok1 || !ok2 || !p.accepts(user, pw) {
		p.refuse()
		_, _ = c.Write([]byte{1, 1})
		return false
	}
	_, err := c.Write([]byte{1, 0})
	return err == nil
}

// splice copies between the client (reading from r, which may hold
// bytes already buffered) and dst until either side ends.
func splice(client net.Conn, r io.Reader, dst net.Conn) {
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(dst, r); done <- struct{}{} }()
	go func() { _, _ = io.Copy(client, dst); done <- struct{}{} }()
	<-done
	client.Close()
	dst.Close()
}
