package activities

import (
	"context"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// countingServer is a loopback server that counts the connections it
// accepted: zero means no packet of a refused dial reached it.
type countingServer struct {
	*httptest.Server
	conns atomic.Int64
}

func newServer(t *testing.T, h http.HandlerFunc) *countingServer {
	s := &countingServer{}
	s.Server = httptest.NewUnstartedServer(h)
	s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.conns.Add(1)
		}
	}
	s.Start()
	t.Cleanup(s.Close)
	return s
}

func newTLSServer(t *testing.T) *httptest.Server {
	s := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	s.Config.ErrorLog = log.New(io.Discard, "", 0) // the failed handshake is the point
	s.StartTLS()
	t.Cleanup(s.Close)
	return s
}

func TestGuardCheck(t *testing.T) {
	for _, c := range []struct {
		addr  string
		guard Guard
		kind  string // "" when allowed
	}{
		{"169.254.169.254", Guard{}, "cloud metadata"},
		{"10.0.0.1", Guard{}, "private"},
		{"172.16.5.4", Guard{}, "private"},
		{"192.168.1.1", Guard{}, "private"},
		{"127.0.0.1", Guard{}, "loopback"},
		{"127.0.0.1", Guard{AllowLoopback: true}, ""},
		{"127.8.9.10", Guard{}, "loopback"},
		{"::1", Guard{}, "loopback"},
		{"::1", Guard{AllowLoopback: true}, ""},
		{"::ffff:127.0.0.1", Guard{}, "loopback"},
		{"::ffff:169.254.169.254", Guard{}, "cloud metadata"},
		{"fe80::1", Guard{}, "link-local"},
		{"fd00:ec2::254", Guard{}, "cloud metadata"},
		{"fd12:3456::1", Guard{}, "private"},
		{"100.100.100.200", Guard{}, "cloud metadata"},
		{"0.0.0.0", Guard{}, "unspecified"},
		{"::", Guard{}, "unspecified"},
		{"224.0.0.1", Guard{}, "link-local"}, // link-local multicast
		{"224.0.1.1", Guard{}, "multicast"},
		{"239.1.2.3", Guard{}, "multicast"},
		{"ff02::1", Guard{}, "link-local"}, // link-local multicast
		{"ff0e::1", Guard{}, "multicast"},
		{"93.184.215.14", Guard{}, ""},
		{"2606:4700::1111", Guard{}, ""},
		{"10.0.0.1", Guard{Allow: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}}, ""},
		{"10.0.0.1", Guard{Allow: []netip.Prefix{netip.MustParsePrefix("10.1.0.0/16")}}, "private"},
		{"169.254.169.254", Guard{Allow: []netip.Prefix{netip.MustParsePrefix("169.254.169.254/32")}}, ""},
		{"169.254.169.254", Guard{Allow: []netip.Prefix{netip.MustParsePrefix("169.254.0.0/16")}}, "cloud metadata"},
		{"127.0.0.1", Guard{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}}, ""},
		// Special-purpose IPv4 ranges.
		{"100.64.0.1", Guard{}, "shared (CGNAT)"},
		{"100.127.255.254", Guard{}, "shared (CGNAT)"},
		{"100.128.0.1", Guard{}, ""},
		{"100.64.0.1", Guard{Allow: []netip.Prefix{netip.MustParsePrefix("100.64.0.0/10")}}, ""}, // e.g. a tailnet
		{"198.18.0.1", Guard{}, "benchmarking"},
		{"198.19.255.255", Guard{}, "benchmarking"},
		{"198.20.0.1", Guard{}, ""},
		{"192.0.0.8", Guard{}, "IETF protocol"},
		{"192.0.1.1", Guard{}, ""},
		{"240.0.0.1", Guard{}, "reserved (240/4)"},
		{"255.255.255.255", Guard{}, "reserved (240/4)"},
		{"0.1.2.3", Guard{}, "this-network"},
		// IPv6 prefixes that reach IPv4.
		{"64:ff9b::7f00:1", Guard{}, "NAT64"},
		{"64:ff9b::808:808", Guard{}, "NAT64"},
		{"64:ff9b:1::a00:1", Guard{}, "NAT64"},
		{"2002:7f00:1::", Guard{}, "6to4"},
		{"2002:808:808::1", Guard{}, "6to4"},
		{"2001:0:4136:e378:8000:63bf:3fff:fdd2", Guard{}, "Teredo"},
		{"2001:db9::1", Guard{}, ""},
		// Documentation ranges, deprecated site-local and other
		// special-purpose IPv6.
		{"192.0.2.1", Guard{}, "documentation"},
		{"198.51.100.7", Guard{}, "documentation"},
		{"203.0.113.255", Guard{}, "documentation"},
		{"203.0.114.1", Guard{}, ""},
		{"2001:db8::1", Guard{}, "documentation"},
		{"2001:db8:ffff::1", Guard{}, "documentation"},
		{"3fff::1", Guard{}, "documentation"},
		{"fec0::1", Guard{}, "site-local"},
		{"feff:ffff::1", Guard{}, "site-local"},
		{"100::1", Guard{}, "discard-only"},
		{"2001:2::1", Guard{}, "benchmarking"},
		{"2001:10::1", Guard{}, "ORCHID"},
		{"2001:20::1", Guard{}, "ORCHID"},
		{"192.88.99.1", Guard{}, "6to4 relay"},
		{"192.0.2.1", Guard{Allow: []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24")}}, ""},
		// IPv4-translated (SIIT, ::ffff:0:a.b.c.d) and NAT64 forms reach
		// IPv4 through a translator: refused whatever they hold.
		{"::ffff:0:7f00:1", Guard{}, "IPv4-translated"},
		{"::ffff:0:a9fe:a9fe", Guard{}, "IPv4-translated"},
		{"::ffff:0:808:808", Guard{}, "IPv4-translated"},
		{"::ffff:0:7f00:1", Guard{AllowLoopback: true}, "IPv4-translated"},
		{"64:ff9b::a9fe:a9fe", Guard{}, "NAT64"},
		{"64:ff9b::c000:201", Guard{}, "NAT64"},
		// IPv4-mapped and IPv4-compatible forms of refused IPv4 ranges.
		{"::ffff:192.0.2.1", Guard{}, "documentation"},
		{"::ffff:203.0.113.9", Guard{}, "documentation"},
		{"::198.51.100.1", Guard{}, "documentation"},
		{"::ffff:8.8.8.8", Guard{}, ""}, // mapped: dialled as the public IPv4 it is
		{"::127.0.0.1", Guard{}, "loopback"},
		{"::127.0.0.1", Guard{AllowLoopback: true}, ""},
		{"::ffff:100.64.0.1", Guard{}, "shared (CGNAT)"},
		{"::100.64.0.1", Guard{}, "shared (CGNAT)"},
		{"::ffff:198.18.0.1", Guard{}, "benchmarking"},
		{"::198.18.0.1", Guard{}, "benchmarking"},
		{"::ffff:192.0.0.1", Guard{}, "IETF protocol"},
		{"::192.0.0.1", Guard{}, "IETF protocol"},
		{"::ffff:240.0.0.1", Guard{}, "reserved (240/4)"},
		{"::240.0.0.1", Guard{}, "reserved (240/4)"},
		{"::10.0.0.1", Guard{}, "private"},
		{"::169.254.169.254", Guard{}, "cloud metadata"},
		{"::ffff:10.0.0.1", Guard{}, "private"},
	} {
		err := c.guard.Check(netip.MustParseAddr(c.addr))
		if c.kind == "" {
			assert.NoError(t, err, "%s with %+v", c.addr, c.guard)
			continue
		}
		if assert.ErrorIs(t, err, ErrRefused, c.addr) {
			assert.Contains(t, err.Error(), c.kind+" address", c.addr)
		}
	}
}

// A hostname resolving to loopback ("localhost") is refused after DNS
// resolution, in the dialer's Control hook: the error wraps ErrRefused, and
// the loopback server never sees a connection.
func TestHTTPClientRefusesLoopbackHostname(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	client := NewHTTPClient(Guard{})
	for _, u := range []string{"http://localhost:" + port + "/hook", srv.URL, "http://[::1]:" + port, "http://[::127.0.0.1]:" + port, "http://[::ffff:127.0.0.1]:" + port} {
		req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, u, strings.NewReader("{}"))
		require.NoError(t, err)
		resp, err := client.Do(req)
		if resp != nil {
			resp.Body.Close()
		}
		require.ErrorIs(t, err, ErrRefused, u)
		outcome, class, msg := classifyError(err)
		assert.Equal(t, "permanent", string(outcome), u)
		assert.Equal(t, "refused", class, u)
		assert.Contains(t, msg, "loopback address", u)
		assert.NotContains(t, msg, port, "the message names no URL")
	}
	assert.Zero(t, srv.conns.Load(), "no connection reached the loopback server")

	// The same server is reachable once loopback is allowed.
	resp, err := NewHTTPClient(Guard{AllowLoopback: true}).Post("http://localhost:"+port, "application/json", strings.NewReader("{}"))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.EqualValues(t, 1, srv.conns.Load())
}

// An allow-listed CIDR is reachable through the guarded client.
func TestHTTPClientAllowList(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	client := NewHTTPClient(Guard{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}})
	resp, err := client.Post(srv.URL, "application/json", strings.NewReader("{}"))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusNoContent, resp.StatusCode)
}

// Redirects are answered, not followed: a 3xx is a retryable attempt, and
// the redirect target (possibly internal) is never dialled.
func TestHTTPClientDoesNotFollowRedirects(t *testing.T) {
	target := newServer(t, func(w http.ResponseWriter, _ *http.Request) {})
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL, http.StatusTemporaryRedirect)
	})
	resp, err := NewHTTPClient(Guard{AllowLoopback: true}).Post(srv.URL, "application/json", strings.NewReader("{}"))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusTemporaryRedirect, resp.StatusCode)
	assert.Zero(t, target.conns.Load())
}

// A proxy from the environment would dial on hookd's behalf and bypass
// the guard, so the client uses none.
func TestHTTPClientIgnoresProxyEnvironment(t *testing.T) {
	t.Setenv("HTTP_PROXY", "http://10.0.0.1:3128")
	t.Setenv("HTTPS_PROXY", "http://10.0.0.1:3128")
	tr, ok := NewHTTPClient(Guard{}).Transport.(*http.Transport)
	require.True(t, ok)
	assert.Nil(t, tr.Proxy)
	_, err := NewHTTPClient(Guard{}).Post("http://10.0.0.1:9/", "application/json", strings.NewReader("{}"))
	assert.True(t, errors.Is(err, ErrRefused), "%v", err)
}
