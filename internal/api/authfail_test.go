package api

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/store"
)

// syncBuffer is a log sink safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// throttledServer is an API with a failure limit of limit per minute on a
// clock the test moves, logging into the returned buffer.
func throttledServer(t *testing.T, limit int) (*Server, *time.Time, *syncBuffer) {
	t.Helper()
	logs := &syncBuffer{}
	s, err := New(Config{Temporal: &fakeTemporal{}, Store: &fakeStore{endpoints: map[string]*store.Endpoint{"ep_on": {ID: "ep_on", Enabled: true}}}, APIKeys: []string{"hk_right"},
		Namespace: "default", Logger: slog.New(slog.NewJSONHandler(logs, nil)), AuthFailureLimit: limit})
	require.NoError(t, err)
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	s.authFailures.now = func() time.Time { return now }
	return s, &now, logs
}

func callAs(s *Server, remote, cred string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodGet, "/v1/endpoints/ep_on", nil)
	req.RemoteAddr = remote
	if cred != "" {
		req.Header.Set("Authorization", "Bearer "+cred)
	}
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	return rec
}

// After the limit of failed authentications in a window, an address is
// answered 429 with Retry-After, its credentials unchecked, until the
// window ends; other addresses are unaffected.
func TestRepeatedAuthFailuresAreThrottled(t *testing.T) {
	s, now, _ := throttledServer(t, 3)
	const attacker, other = "198.51.100.7:4000", "198.51.100.8:4000"
	for i := range 3 {
		require.Equal(t, http.StatusUnauthorized, callAs(s, attacker, "hk_guess").Code, "failure %d", i+1)
	}
	rec := callAs(s, attacker, "hk_guess")
	require.Equal(t, http.StatusTooManyRequests, rec.Code)
	require.Equal(t, "60", rec.Header().Get("Retry-After"))
	var out struct{ Error Error }
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &out))
	require.Equal(t, CodeRateLimited, out.Error.Code)
	require.Contains(t, out.Error.Message, "retry after 60s")
	require.Equal(t, http.StatusTooManyRequests, callAs(s, attacker, "hk_right").Code, "not even a right key is looked at")
	require.Equal(t, http.StatusTooManyRequests, callAs(s, "198.51.100.7:4001", "").Code, "another port of the same address")

	require.Equal(t, http.StatusOK, callAs(s, other, "hk_right").Code, "another address")

	*now = now.Add(45 * time.Second)
	require.Equal(t, "15", callAs(s, attacker, "hk_right").Header().Get("Retry-After"))
	*now = now.Add(15 * time.Second)
	require.Equal(t, http.StatusOK, callAs(s, attacker, "hk_right").Code, "a new window")
}

// Failed authentications are logged at most once a second, counting the
// ones left out, with the credential's fingerprint and never itself.
func TestAuthFailuresLoggedRateLimitedWithoutTheKey(t *testing.T) {
	s, now, logs := throttledServer(t, 1000)
	const guess = "hk_a_wrong_but_secret_guess"
	for range 300 {
		require.Equal(t, http.StatusUnauthorized, callAs(s, "203.0.113.5:1", guess).Code)
	}
	*now = now.Add(time.Second)
	require.Equal(t, http.StatusUnauthorized, callAs(s, "203.0.113.5:1", "").Code)

	lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
	require.Len(t, lines, 2, logs.String())
	require.NotContains(t, logs.String(), guess)
	var first, second map[string]any
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &first))
	require.NoError(t, json.Unmarshal([]byte(lines[1]), &second))
	require.Equal(t, "authentication failed", first["msg"])
	require.Equal(t, fingerprint(guess), first["credential"])
	require.Len(t, first["credential"], 8)
	require.Equal(t, "203.0.113.5", first["client"])
	require.Equal(t, "/v1/endpoints/ep_on", first["route"])
	require.Equal(t, "none", second["credential"])
	require.EqualValues(t, 299, second["unlogged_since_last"])
	require.EqualValues(t, 301, second["failures_in_window"])
}

func TestClientAddr(t *testing.T) {
	lb := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	for _, c := range []struct {
		remote, xff string
		trusted     []netip.Prefix
		want        string
	}{
		{"198.51.100.7:4000", "", nil, "198.51.100.7"},
		{"198.51.100.7:4000", "1.2.3.4", nil, "198.51.100.7"}, // an untrusted peer's header is ignored
		{"10.1.2.3:80", "1.2.3.4", lb, "1.2.3.4"},
		{"10.1.2.3:80", "6.6.6.6, 1.2.3.4, 10.9.9.9", lb, "1.2.3.4"}, // the last hop not a proxy
		{"10.1.2.3:80", "", lb, "10.1.2.3"},
		{"[2001:db8:1:2:3:4:5:6]:443", "", nil, "2001:db8:1:2::/64"},
		{"[::ffff:198.51.100.7]:1", "", nil, "198.51.100.7"},
	} {
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.RemoteAddr = c.remote
		if c.xff != "" {
			req.Header.Set("X-Forwarded-For", c.xff)
		}
		require.Equal(t, c.want, clientAddr(req, c.trusted), "%s %q", c.remote, c.xff)
	}
}
