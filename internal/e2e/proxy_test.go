package e2e

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/activities"
	"github.com/hookd/hookd/internal/app"
	"github.com/hookd/hookd/internal/testkit"
)

// proxied is a receiver that records, for each request, whether the
// egress proxy carried it, and closes each connection after its answer,
// so that every attempt needs a tunnel of its own.
type proxied struct {
	proxy *testkit.Proxy
	ok    func(r *http.Request) bool
	mu    sync.Mutex
	reqs  []proxiedRequest
}

type proxiedRequest struct {
	carried   bool
	host, sni string
}

func (p *proxied) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	pr := proxiedRequest{carried: p.proxy.Carried(r.RemoteAddr), host: r.Host}
	if r.TLS != nil {
		pr.sni = r.TLS.ServerName
	}
	p.mu.Lock()
	p.reqs = append(p.reqs, pr)
	p.mu.Unlock()
	w.Header().Set("Connection", "close")
	if p.ok != nil && !p.ok(r) {
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	fmt.Fprint(w, p.answer(r))
}

func (p *proxied) answer(r *http.Request) string {
	if r.URL.Path == "/token" {
		return `{"access_token":"proxied-token","token_type":"bearer","expires_in":3600}`
	}
	return ""
}

func (p *proxied) requests() []proxiedRequest {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.reqs)
}

// TestEgressProxy runs hookd dev with --egress-proxy set to a CONNECT
// proxy that wants credentials, and the loopback allowance off (only
// 127.0.0.1 is allow-listed, through the Tuning's guard): deliveries to
// an https receiver requiring a client certificate from a private CA, to
// an http receiver, and an OAuth 2.0 token request with the delivery it
// authorizes all pass through the proxy, which is asked for the checked
// IP, never the name; a loopback destination outside the allow-list is
// refused before the proxy hears of it; a proxy refusing hookd's
// credentials is a retryable proxy_auth attempt; and the proxy's
// credentials are in neither Temporal's files, the store's, nor the logs.
func TestEgressProxy(t *testing.T) {
	user, password := marker("proxy-user"), marker("proxy-password")
	proxy := testkit.NewConnectProxy(t, user, password)
	guard := activities.Guard{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}
	sd := startScanned(t, func(c *app.DevConfig) { c.EgressProxy = proxy.URL }, app.Tuning{Guard: &guard})
	api := &apiClient{t: t, dev: sd.Dev}

	secure := &proxied{proxy: proxy}
	mtls := testkit.NewMutualTLS(t, secure)
	clientCert := mtls.ClientCA.IssueNow(t, "proxied-client")
	plain := &proxied{proxy: proxy}
	plainSrv := serve(t, plain)
	oauth := &proxied{proxy: proxy, ok: func(r *http.Request) bool {
		if r.URL.Path == "/token" {
			id, secret, _ := r.BasicAuth()
			return id == "client-1" && secret == "s3cret"
		}
		return r.Header.Get("Authorization") == "Bearer proxied-token"
	}}
	oauthSrv := serve(t, oauth)
	// 127.0.0.2 is loopback, not allow-listed: refused, though a server
	// listens there and the proxy would reach it.
	forbidden, err := net.Listen("tcp", "127.0.0.2:0")
	require.NoError(t, err)
	t.Cleanup(func() { forbidden.Close() })
	var forbiddenConns atomic.Int32
	go func() {
		for {
			c, err := forbidden.Accept()
			if err != nil {
				return
			}
			forbiddenConns.Add(1)
			c.Close()
		}
	}()

	types := []string{"proxy.checked"}
	byName := strings.Replace(mtls.URL, "127.0.0.1", "localhost", 1) // resolved by hookd, not the proxy
	eps := map[string]endpoint{
		"https": api.createWithCreds(map[string]any{"url": byName + "/hook", "event_types": types,
			"tls": map[string]string{"client_certificate": clientCert.CertPEM, "client_key": clientCert.KeyPEM, "ca": mtls.ServerCA.PEM}}),
		"http": api.createWithCreds(map[string]any{"url": plainSrv.URL + "/hook", "event_types": []string{"proxy.checked", "proxy.auth"}, "retry_schedule": fastRetries}),
		"oauth": api.createWithCreds(map[string]any{"url": oauthSrv.URL + "/hook", "event_types": types,
			"auth": map[string]string{"type": "oauth2_client_credentials", "token_url": oauthSrv.URL + "/token", "client_id": "client-1", "client_secret": "s3cret"}}),
		"forbidden": api.createWithCreds(map[string]any{"url": "http://" + forbidden.Addr().String() + "/hook", "event_types": types}),
	}
	endpointOf := map[string]string{}
	for name, ep := range eps {
		endpointOf[ep.ID] = name
	}

	sent := api.send(`{"type":"proxy.checked","payload":{"n":1}}`)
	require.Len(t, sent.Deliveries, 4)
	for _, d := range sent.Deliveries {
		name := endpointOf[d.EndpointID]
		st := api.waitDelivery(d.ID, 30*time.Second)
		if name == "forbidden" {
			require.EqualValues(t, "failed", st.Status, "%+v", st.Timeline)
			require.Equal(t, "refused", st.Timeline[0].ErrorClass)
			continue
		}
		require.EqualValues(t, "delivered", st.Status, "%s: %+v", name, st.Timeline)
	}
	assert.Zero(t, forbiddenConns.Load(), "nothing reached the refused destination")

	// Every request came through the proxy, over a tunnel to an address.
	for name, rc := range map[string]*proxied{"https": secure, "http": plain, "oauth": oauth} {
		reqs := rc.requests()
		require.NotEmpty(t, reqs, name)
		for _, r := range reqs {
			assert.True(t, r.carried, "%s: a request that did not come through the proxy", name)
		}
	}
	require.Len(t, oauth.requests(), 2, "the token request and the delivery")
	assert.Equal(t, "localhost", secure.requests()[0].sni, "TLS names the receiver through the tunnel")
	assert.Equal(t, strings.TrimPrefix(byName, "https://"), secure.requests()[0].host)
	targets := proxy.Targets()
	for _, srv := range []net.Addr{mtls.Listener.Addr(), plainSrv.Listener.Addr(), oauthSrv.Listener.Addr()} {
		assert.Contains(t, targets, srv.String())
	}
	for _, tg := range targets {
		host, _, _ := net.SplitHostPort(tg)
		assert.Equal(t, "127.0.0.1", host, "the proxy is asked for the checked address, never a name: %v", targets)
	}
	require.Len(t, targets, 4, "one tunnel per request: %v", targets)
	require.Zero(t, proxy.Refused())

	// The proxy stops taking hookd's credentials: a retryable proxy_auth
	// attempt that names none; once it takes them again, the retry goes.
	proxy.SetPassword("changed")
	id := api.send(`{"type":"proxy.auth","payload":{"n":2}}`).Deliveries[0].ID
	require.Eventually(t, func() bool { return proxy.Refused() > 0 }, 10*time.Second, 20*time.Millisecond)
	proxy.SetPassword(password)
	api.waitDelivery(id, 30*time.Second)
	var tl deliveryState
	require.Equal(t, http.StatusOK, api.do("GET", "/v1/deliveries/"+id, nil, &tl))
	require.EqualValues(t, "delivered", tl.Status, "%+v", tl.Timeline)
	first := tl.Timeline[0]
	assert.Equal(t, activities.ErrorClassProxyAuth, first.ErrorClass)
	assert.EqualValues(t, "retryable", first.Outcome)
	assert.Contains(t, first.Error, "HTTP 407")

	sd.stop()
	for what, m := range map[string]string{"proxy user": user, "proxy password": password} {
		assert.Empty(t, foundIn(t, sd.dir, m), "the %s is in the data dir's files", what)
		assert.NotContains(t, sd.logs.String(), m, "the %s is in the logs", what)
		assert.NotContains(t, fmt.Sprint(tl), m)
	}
	// Control: the logs name the proxy, masked.
	assert.Contains(t, sd.logs.String(), "egress_proxy=http://****@"+proxy.URL.Host)
	assert.NotEmpty(t, foundIn(t, sd.dir, eps["http"].ID))
}

// scannedDev is a hookd dev of a test's own whose data dir and every
// log line (debug included) are scanned for secrets once it stops.
type scannedDev struct {
	*app.Dev
	dir     string
	logs    *syncBuffer
	stopped bool
}

// startScanned starts a scannedDev with set's changes to the config and
// tuning; cleanup stops it unless the test did.
func startScanned(t *testing.T, set func(*app.DevConfig), tuning app.Tuning) *scannedDev {
	sd := &scannedDev{dir: t.TempDir(), logs: &syncBuffer{}}
	cfg := app.DevConfig{
		DataDir: sd.dir, HTTPAddr: "127.0.0.1:0", TemporalAddr: testkit.FreeAddr(t),
		Logger:           slog.New(slog.NewTextHandler(sd.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		TemporalLogLevel: slog.LevelInfo, Version: "test", WorkflowCacheSize: e2eWorkflowCache,
	}
	set(&cfg)
	dev, err := app.StartDevTuned(context.Background(), cfg, tuning)
	require.NoError(t, err)
	sd.Dev = dev
	t.Cleanup(sd.stop)
	return sd
}

// stop stops the dev once, flushing its files for the scan.
func (sd *scannedDev) stop() {
	if !sd.stopped {
		sd.stopped = true
		sd.Dev.Stop(context.Background())
	}
}
