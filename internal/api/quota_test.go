package api

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/authz"
	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/store"
	"github.com/hookd/hookd/internal/store/sqlite"
	"github.com/hookd/hookd/internal/store/storetest"
)

// clock is a settable time for the rate limiters.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// A bucket gives its burst at once, then rate tokens a second, and says
// how long until the next; each key has its own.
func TestBuckets(t *testing.T) {
	c := &clock{t: time.Date(2026, 3, 4, 12, 0, 0, 0, time.UTC)}
	b := newBuckets(2, 3, c.now)
	for range 3 {
		require.Zero(t, b.take("a"))
	}
	require.Equal(t, 500*time.Millisecond, b.take("a"))
	require.Zero(t, b.take("b"), "another key has its own bucket")
	c.add(500 * time.Millisecond)
	require.Zero(t, b.take("a"))
	require.Equal(t, 500*time.Millisecond, b.take("a"))
	c.add(time.Hour)
	for range 3 {
		require.Zero(t, b.take("a"), "a bucket refills to its burst, no more")
	}
	require.Positive(t, b.take("a"))
}

// decodeError reads the JSON error of an answer.
func decodeError(t *testing.T, rec *httptest.ResponseRecorder) Error {
	t.Helper()
	var body struct{ Error Error }
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body), rec.Body.String())
	return body.Error
}

// twoTokens resolves two tenant tokens' hashes to tenant acme.
type twoTokens map[string]bool

func (tt twoTokens) TenantOfToken(_ context.Context, hash string, _ time.Time) (string, error) {
	if tt[hash] {
		return "acme", nil
	}
	return "", store.ErrNotFound
}

// A tenant token past its bucket is answered 429 with Retry-After and the
// limit's name, before the handler runs; another token, and the platform's
// API key, are not held back.
func TestRequestsPerTokenAreLimited(t *testing.T) {
	s := newTestServer(t, &fakeTemporal{})
	c := &clock{t: time.Now()}
	s.quotas = newQuotas(Limits{RequestsPerSecond: 1, RequestBurst: 2}, c.now)
	tok1, tok2 := authz.TokenPrefix+"one", authz.TokenPrefix+"two"
	auth, err := authz.NewAuthenticator([]string{"k"}, twoTokens{authz.HashToken(tok1): true, authz.HashToken(tok2): true})
	require.NoError(t, err)
	s.auth = auth
	call := func(key string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, "/v1/endpoints/ep_on", nil)
		req.Header.Set("Authorization", "Bearer "+key)
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		return rec
	}
	for range 5 {
		require.Equal(t, http.StatusOK, call("k").Code, "the platform's API key is not limited")
	}
	require.Equal(t, http.StatusNotFound, call(tok1).Code)
	require.Equal(t, http.StatusNotFound, call(tok1).Code)
	rec := call(tok1)
	require.Equal(t, http.StatusTooManyRequests, rec.Code)
	assert.Equal(t, "1", rec.Header().Get("Retry-After"))
	e := decodeError(t, rec)
	assert.Equal(t, CodeRateLimited, e.Code)
	assert.Equal(t, LimitRequestsPerSecond, e.Limit)
	require.Equal(t, http.StatusNotFound, call(tok2).Code, "each token has its own bucket")
	c.add(time.Second)
	require.Equal(t, http.StatusNotFound, call(tok1).Code, "a second later there is a token again")
}

// An endpoint's test events past the minute's allowance are refused 429
// with Retry-After naming the limit, and start no delivery.
func TestTestEventsPerEndpointAreLimited(t *testing.T) {
	tc := &fakeTemporal{states: []delivery.Result{{Status: delivery.StatusDelivered, Attempts: []delivery.Attempt{{Number: 1, Status: 204, Outcome: delivery.OutcomeSuccess}}}}}
	s := newTestServer(t, tc)
	c := &clock{t: time.Now()}
	s.quotas = newQuotas(Limits{TestEventsPerMinute: 2}, c.now)
	for range 2 {
		code, out := postTest(t, s, context.Background(), "ep_on", "")
		require.Equal(t, http.StatusOK, code, out)
	}
	req := httptest.NewRequest(http.MethodPost, "/v1/endpoints/ep_on/test", nil)
	req.Header.Set("Authorization", "Bearer k")
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	require.Equal(t, http.StatusTooManyRequests, rec.Code, rec.Body.String())
	assert.Equal(t, "30", rec.Header().Get("Retry-After"))
	assert.Equal(t, LimitTestEventsPerMinute, decodeError(t, rec).Limit)
	require.Len(t, tc.reqs, 2, "the refused test started nothing")
	c.add(30 * time.Second)
	code, out := postTest(t, s, context.Background(), "ep_on", "")
	require.Equal(t, http.StatusOK, code, out)
}

// A tenant at its endpoint limit is answered 409 naming the limit; the
// platform's own endpoints are not counted, and a deletion frees a place.
func TestEndpointsPerTenantAreLimited(t *testing.T) {
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "hookd.db"), storetest.Key(t))
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	s := newTestServer(t, &fakeTemporal{})
	s.store = st
	s.res.Store = st
	s.quotas = newQuotas(Limits{EndpointsPerTenant: 2}, time.Now)
	now := time.Now()
	_, _, err = st.PutTenant(context.Background(), &store.Tenant{ID: "acme", CreatedAt: now, UpdatedAt: now})
	require.NoError(t, err)
	create := func(tenant string) (int, map[string]any) {
		body := `{"url":"https://example.com/h"`
		if tenant != "" {
			body += `,"tenant_id":` + strconv.Quote(tenant)
		}
		return post(t, s, context.Background(), "/v1/endpoints", body+"}")
	}
	var ids []string
	for range 2 {
		code, out := create("acme")
		require.Equal(t, http.StatusCreated, code, out)
		ids = append(ids, out["id"].(string))
	}
	code, out := create("acme")
	require.Equal(t, http.StatusConflict, code, out)
	require.Equal(t, LimitEndpointsPerTenant, out["error"].(map[string]any)["limit"])
	code, _ = create("")
	require.Equal(t, http.StatusCreated, code, "the platform's own endpoints are not counted")
	require.NoError(t, st.DeleteEndpoint(context.Background(), ids[0]))
	code, _ = create("acme")
	require.Equal(t, http.StatusCreated, code)
}
