package activities

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/testkit"
)

// seen is what a test receiver was sent: the Host and, over TLS, the
// server name the client asked for.
type seen struct {
	mu         sync.Mutex
	host, sni  string
	clientCert bool
}

func (s *seen) handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.host = r.Host
		if r.TLS != nil {
			s.sni, s.clientCert = r.TLS.ServerName, len(r.TLS.PeerCertificates) > 0
		}
	})
}

// localhostURL is srv's URL with the name localhost for 127.0.0.1.
func localhostURL(srv *httptest.Server) string {
	return strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
}

// Through an HTTP proxy, hookd resolves the destination itself and asks
// for a tunnel to the checked address; over it, TLS names the
// destination (SNI, Host) and presents the endpoint's client certificate
// to a receiver of a private CA.
func TestProxyTunnelsToTheCheckedAddress(t *testing.T) {
	for _, kind := range []string{"http", "https", "socks5"} {
		t.Run(kind, func(t *testing.T) {
			e := Egress{Guard: Guard{AllowLoopback: true}}
			var proxy *testkit.Proxy
			switch kind {
			case "http":
				proxy = testkit.NewConnectProxy(t, "egress", "pr0xy-pass")
			case "https":
				var ca *testkit.CA
				proxy, ca = testkit.NewTLSConnectProxy(t, "egress", "pr0xy-pass")
				e.proxyRoots = ca.Pool
			case "socks5":
				proxy = testkit.NewSOCKS5Proxy(t, "egress", "pr0xy-pass")
			}
			e.Proxy = proxy.URL
			var got seen
			recv := testkit.NewMutualTLS(t, got.handler())
			client := recv.ClientCA.IssueNow(t, "hookd")
			c := e.client(clientTLS{roots: recv.ServerCA.Pool, cert: &client.TLS})
			resp, err := c.Post(localhostURL(recv.Server)+"/hook", "application/json", strings.NewReader("{}"))
			require.NoError(t, err)
			resp.Body.Close()
			require.Equal(t, http.StatusOK, resp.StatusCode)
			assert.Equal(t, "localhost", got.sni)
			assert.True(t, got.clientCert)
			assert.Equal(t, []string{recv.Listener.Addr().String()}, proxy.Targets(), "an IP literal, never the name")

			var plain seen
			srv := httptest.NewServer(plain.handler())
			t.Cleanup(srv.Close)
			resp, err = e.client(clientTLS{}).Get(localhostURL(srv))
			require.NoError(t, err)
			resp.Body.Close()
			require.Equal(t, http.StatusOK, resp.StatusCode)
			assert.Equal(t, strings.TrimPrefix(localhostURL(srv), "http://"), plain.host)
			assert.Equal(t, srv.Listener.Addr().String(), proxy.Targets()[1], "http:// is tunnelled too")
		})
	}
}

// The guard judges the destination before the proxy is asked: without
// the loopback allowance, a loopback destination is refused (permanent,
// class refused) and the proxy never hears of it.
func TestProxyKeepsTheGuard(t *testing.T) {
	proxy := testkit.NewConnectProxy(t, "", "")
	srv := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(srv.Close)
	c := Egress{Guard: Guard{}, Proxy: proxy.URL}.client(clientTLS{})
	for _, u := range []string{srv.URL, localhostURL(srv), "http://10.1.2.3/x", "http://169.254.169.254/latest"} {
		_, err := c.Get(u)
		require.ErrorIs(t, err, ErrRefused, u)
		outcome, class, _ := classifyError(err)
		assert.Equal(t, delivery.OutcomePermanent, outcome)
		assert.Equal(t, "refused", class)
	}
	assert.Empty(t, proxy.Targets())
}

// Refused proxy credentials are a retryable attempt error of class
// proxy_auth naming no credential; an unreachable proxy, or an https
// proxy whose certificate is not trusted, is class proxy.
func TestProxyFailures(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(srv.Close)
	for name, p := range map[string]*testkit.Proxy{
		"http":   testkit.NewConnectProxy(t, "egress", "right-pass"),
		"socks5": testkit.NewSOCKS5Proxy(t, "egress", "right-pass"),
	} {
		wrong := *p.URL
		wrong.User = url.UserPassword("egress", "wr0ng-pass")
		_, err := Egress{Guard: Guard{AllowLoopback: true}, Proxy: &wrong}.client(clientTLS{}).Get(srv.URL)
		require.Error(t, err, name)
		outcome, class, msg := classifyError(err)
		assert.Equal(t, delivery.OutcomeRetryable, outcome, name)
		assert.Equal(t, ErrorClassProxyAuth, class, name)
		assert.Contains(t, msg, "refused hookd's credentials", name)
		for _, s := range []string{err.Error(), msg} {
			assert.NotContains(t, s, "wr0ng-pass", name)
			assert.NotContains(t, s, "egress:", name)
		}
		assert.Equal(t, 1, p.Refused(), name)
		assert.Empty(t, p.Targets(), name)
	}

	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	u := &url.URL{Scheme: "http", Host: gone.Listener.Addr().String(), User: url.UserPassword("u", "s3cret")}
	_, err := Egress{Guard: Guard{AllowLoopback: true}, Proxy: u}.client(clientTLS{}).Get(srv.URL)
	outcome, class, msg := classifyError(err)
	assert.Equal(t, delivery.OutcomeRetryable, outcome)
	assert.Equal(t, ErrorClassProxy, class)
	assert.Equal(t, "egress proxy unreachable: connection refused", msg)
	assert.NotContains(t, err.Error(), "s3cret")

	untrusted, _ := testkit.NewTLSConnectProxy(t, "", "")
	_, err = Egress{Guard: Guard{AllowLoopback: true}, Proxy: untrusted.URL}.client(clientTLS{}).Get(srv.URL)
	_, class, msg = classifyError(err)
	assert.Equal(t, ErrorClassProxy, class)
	assert.Equal(t, "egress proxy TLS handshake failed", msg)
	assert.Empty(t, untrusted.Targets())
}

func TestParseEgressProxy(t *testing.T) {
	for _, ok := range []string{"http://proxy:3128", "https://u:p@proxy.example.com", "socks5://u:p%40ss@10.0.0.1:1080", "http://[::1]:8080/"} {
		_, err := ParseEgressProxy(ok)
		assert.NoError(t, err, ok)
	}
	for _, bad := range []string{"ftp://u:s3cret@proxy", "proxy:3128", "http://u:s3cret@", "http://u:s3cret@proxy/path", "http://u:s3cret@proxy:99999", "http://u:s3cret@proxy?x=1", "socks4://u:s3cret@p"} {
		_, err := ParseEgressProxy(bad)
		if assert.Error(t, err, bad) {
			assert.NotContains(t, err.Error(), "s3cret", bad)
		}
	}
	u, err := ParseEgressProxy("http://user:s3cret@proxy.internal:3128")
	require.NoError(t, err)
	assert.Equal(t, "http://****@proxy.internal:3128", MaskedProxy(u))
	assert.Equal(t, "socks5://p:1080", MaskedProxy(&url.URL{Scheme: "socks5", Host: "p:1080"}))
}

// A token request the proxy refuses fails the attempt as the proxy's
// failure (proxy_auth), not the token endpoint's; the receiver gets
// nothing. With the credentials right, token and delivery both pass.
func TestProxyCarriesTokenRequests(t *testing.T) {
	proxy := testkit.NewConnectProxy(t, "egress", "right-pass")
	ts := newTokenServer(t, 3600, 0)
	rc := newHeaderReceiver(t, "Authorization", "Bearer tok-1")
	a := newTestActivities(newFakeEndpoints(t, oauthEndpoint(rc.URL, ts.URL)), nil, nil)
	wrong := *proxy.URL
	wrong.User = url.UserPassword("egress", "wr0ng-pass")
	a.http = Egress{Guard: Guard{AllowLoopback: true}, Proxy: &wrong}.client(clientTLS{})
	at := attemptOnce(t, a, "ep_o")
	assert.Equal(t, delivery.OutcomeRetryable, at.Outcome)
	assert.Equal(t, ErrorClassProxyAuth, at.ErrorClass)
	assert.Equal(t, "token request failed: egress proxy refused hookd's credentials (HTTP 407)", at.Error)
	assert.Zero(t, ts.fetches.Load())
	assert.Empty(t, rc.requests())

	a.http = Egress{Guard: Guard{AllowLoopback: true}, Proxy: proxy.URL}.client(clientTLS{})
	at = attemptOnce(t, a, "ep_o")
	require.Equal(t, delivery.OutcomeSuccess, at.Outcome, "%+v", at)
	assert.Equal(t, []string{ts.Listener.Addr().String(), rc.Listener.Addr().String()}, proxy.Targets())
}
