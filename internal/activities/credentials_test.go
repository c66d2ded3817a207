package activities

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/store"
)

// headerReceiver answers 200 when the request carries want (name: value)
// and 401 otherwise, and records what each request carried.
type headerReceiver struct {
	*httptest.Server
	mu   sync.Mutex
	seen []http.Header
}

func newHeaderReceiver(t *testing.T, name, want string) *headerReceiver {
	rc := &headerReceiver{}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc.mu.Lock()
		rc.seen = append(rc.seen, r.Header.Clone())
		rc.mu.Unlock()
		if r.Header.Get(name) != want {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(rc.Close)
	return rc
}

func (rc *headerReceiver) requests() []http.Header {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]http.Header(nil), rc.seen...)
}

func attemptOnce(t *testing.T, a *Activities, id string) delivery.Attempt {
	t.Helper()
	return a.attempt(context.Background(), request(id, 3), 1, nil)
}

// Custom headers, bearer and basic auth reach the receiver beside hookd's
// own headers, which custom ones never replace.
func TestAttemptSendsHeadersAndAuth(t *testing.T) {
	basic := "Basic " + base64.StdEncoding.EncodeToString([]byte("alice:s3cret:pw"))
	cases := map[string]struct {
		creds      *store.Credentials
		name, want string
	}{
		"header": {&store.Credentials{Headers: map[string]string{"X-Api-Key": "k-123", "Webhook-Id": "forged"}}, "X-Api-Key", "k-123"},
		"bearer": {&store.Credentials{Auth: &store.Auth{Type: store.AuthBearer, Token: "tok-1"}}, "Authorization", "Bearer tok-1"},
		"basic":  {&store.Credentials{Auth: &store.Auth{Type: store.AuthBasic, Username: "alice", Password: "s3cret:pw"}}, "Authorization", basic},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			rc := newHeaderReceiver(t, c.name, c.want)
			eps := newFakeEndpoints(t, store.Endpoint{ID: "ep_1", URL: rc.URL, Enabled: true, Credentials: c.creds})
			at := attemptOnce(t, newTestActivities(eps, nil, nil), "ep_1")
			require.Equal(t, delivery.OutcomeSuccess, at.Outcome, "%+v", at)
			got := rc.requests()[0]
			assert.Equal(t, "dlv_test", got.Get("webhook-id"), "hookd's own headers win")
			assert.Equal(t, "application/json", got.Get("Content-Type"))
		})
	}
	// Without them, the same receiver refuses: the control.
	rc := newHeaderReceiver(t, "X-Api-Key", "k-123")
	eps := newFakeEndpoints(t, store.Endpoint{ID: "ep_1", URL: rc.URL, Enabled: true})
	require.Equal(t, delivery.OutcomePermanent, attemptOnce(t, newTestActivities(eps, nil, nil), "ep_1").Outcome)
}

// tokenServer is an OAuth 2.0 token endpoint issuing tok-1, tok-2, ...
// to the client credentials it expects, after delay.
type tokenServer struct {
	*httptest.Server
	fetches   atomic.Int32
	status    atomic.Int32 // answer this instead when non-zero
	delay     time.Duration
	expiresIn int
	forms     chan string
}

func newTokenServer(t *testing.T, expiresIn int, delay time.Duration) *tokenServer {
	ts := &tokenServer{expiresIn: expiresIn, delay: delay, forms: make(chan string, 100)}
	ts.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(ts.delay)
		id, secret, ok := r.BasicAuth()
		if !ok || id != "client-1" || secret != "client-secret-marker" || r.PostFormValue("grant_type") != "client_credentials" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		ts.forms <- r.PostForm.Encode()
		if s := ts.status.Load(); s != 0 {
			w.WriteHeader(int(s))
			return
		}
		n := ts.fetches.Add(1)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"access_token":"tok-%d","token_type":"Bearer","expires_in":%d}`, n, ts.expiresIn)
	}))
	t.Cleanup(ts.Close)
	return ts
}

func oauthEndpoint(url, tokenURL string) store.Endpoint {
	return store.Endpoint{ID: "ep_o", URL: url, Enabled: true, Credentials: &store.Credentials{Auth: &store.Auth{
		Type: store.AuthOAuth2, TokenURL: tokenURL, ClientID: "client-1", ClientSecret: "client-secret-marker", Scope: "hooks:write", Audience: "aud-1"}}}
}

// Concurrent attempts share one token fetch; the token is cached until
// shortly before it expires, then fetched again.
func TestOAuth2TokenSharedAndCached(t *testing.T) {
	ts := newTokenServer(t, 120, 100*time.Millisecond)
	rc := newHeaderReceiver(t, "X-Unused", "") // 200 to anything
	var clock atomic.Int64
	clock.Store(time.Now().UnixNano())
	a := newTestActivities(newFakeEndpoints(t, oauthEndpoint(rc.URL, ts.URL)), nil, func() time.Time { return time.Unix(0, clock.Load()) })
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			assert.Equal(t, delivery.OutcomeSuccess, attemptOnce(t, a, "ep_o").Outcome)
		})
	}
	wg.Wait()
	require.EqualValues(t, 1, ts.fetches.Load(), "one fetch for concurrent attempts")
	assert.Equal(t, "audience=aud-1&grant_type=client_credentials&scope=hooks%3Awrite", <-ts.forms)
	for _, h := range rc.requests() {
		require.Equal(t, "Bearer tok-1", h.Get("Authorization"))
	}
	clock.Add(int64(89 * time.Second))
	attemptOnce(t, a, "ep_o")
	require.EqualValues(t, 1, ts.fetches.Load(), "cached while valid")
	clock.Add(int64(2 * time.Second)) // 91s: within 30s of the expiry
	attemptOnce(t, a, "ep_o")
	require.EqualValues(t, 2, ts.fetches.Load(), "fetched again shortly before the expiry")
	reqs := rc.requests()
	require.Equal(t, "Bearer tok-2", reqs[len(reqs)-1].Get("Authorization"))
}

// A receiver's 401 to a cached token fetches a new one once and retries
// within the same attempt.
func TestOAuth2UnauthorizedRefetchesOnce(t *testing.T) {
	ts := newTokenServer(t, 3600, 0)
	rc := newHeaderReceiver(t, "Authorization", "Bearer tok-2")
	a := newTestActivities(newFakeEndpoints(t, oauthEndpoint(rc.URL, ts.URL)), nil, nil)
	at := attemptOnce(t, a, "ep_o")
	require.Equal(t, delivery.OutcomeSuccess, at.Outcome, "%+v", at)
	require.EqualValues(t, 2, ts.fetches.Load())
	require.Len(t, rc.requests(), 2, "the refused request and its retry, in one attempt")

	// A receiver that refuses every token: one retry, then the 401 stands.
	never := newHeaderReceiver(t, "Authorization", "never")
	a = newTestActivities(newFakeEndpoints(t, oauthEndpoint(never.URL, ts.URL)), nil, nil)
	at = attemptOnce(t, a, "ep_o")
	require.Equal(t, delivery.OutcomePermanent, at.Outcome)
	require.Equal(t, 401, at.Status)
	require.Len(t, never.requests(), 2)
}

// A failed token fetch is a retryable attempt failure of class
// auth_token whose message holds neither the secret nor the URL; the
// receiver gets nothing.
func TestOAuth2TokenFailure(t *testing.T) {
	ts := newTokenServer(t, 3600, 0)
	ts.status.Store(http.StatusInternalServerError)
	rc := newHeaderReceiver(t, "X-Unused", "")
	a := newTestActivities(newFakeEndpoints(t, oauthEndpoint(rc.URL, ts.URL)), nil, nil)
	at := attemptOnce(t, a, "ep_o")
	assert.Equal(t, delivery.OutcomeRetryable, at.Outcome)
	assert.Equal(t, ErrorClassAuthToken, at.ErrorClass)
	assert.Equal(t, "token endpoint answered HTTP 500", at.Error)
	assert.Empty(t, rc.requests())

	ts.Close()
	at = attemptOnce(t, a, "ep_o")
	assert.Equal(t, ErrorClassAuthToken, at.ErrorClass)
	assert.Equal(t, "token request failed: connection refused", at.Error)
	for _, s := range []string{"client-secret-marker", ts.URL, strings.TrimPrefix(ts.URL, "http://")} {
		assert.NotContains(t, fmt.Sprintf("%+v", at), s)
	}
}
