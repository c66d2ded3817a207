package e2e

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/apiclient/wire"
)

// A tenant token creates endpoints up to the default limit, then is
// answered 409 naming it; past its burst of requests it is answered 429
// for a moment; its dead-letter summary still answers at once.
// An endpoint's test events past ten a minute are answered 429 with
// Retry-After naming their limit.
func TestQuotas(t *testing.T) {
	c := newAPI(t)
	id := "quota-" + uniq()
	c.putTenant(id)
	as := c.asTenant(c.tenantToken(id, "1h"))
	rc := newReceiver(t, nil)
	var first endpoint
	for i := range 100 {
		var ep endpoint
		require.Equal(t, http.StatusCreated, as.do("POST", "/v1/endpoints", map[string]any{"url": rc.URL, "description": strconv.Itoa(i)}, &ep), "endpoint %d", i)
		if i == 0 {
			first = ep
		}
	}
	// The token spent its burst of 100 requests: within a few more it is
	// answered 429, until the bucket refills (50 a second).
	var e apiError
	limited := false
	for range 50 {
		if as.do("GET", "/v1/endpoints/"+first.ID, nil, &e) == http.StatusTooManyRequests {
			limited = true
			break
		}
	}
	require.True(t, limited, "a token past its burst is answered 429")
	require.Equal(t, wire.RequestsPerSecondPerToken, e.Error.Limit)
	require.Equal(t, http.StatusOK, c.do("GET", "/v1/endpoints/"+first.ID, nil, nil), "the API key is not held back")
	time.Sleep(2100 * time.Millisecond)

	e = apiError{}
	require.Equal(t, http.StatusConflict, as.do("POST", "/v1/endpoints", map[string]any{"url": rc.URL}, &e))
	require.Equal(t, wire.EndpointsPerTenant, e.Error.Limit)

	start := time.Now()
	var summary wire.DeadLetterSummary
	require.Equal(t, http.StatusOK, as.do("GET", "/v1/dead-letters/summary", nil, &summary))
	t.Logf("summary of a tenant with 100 endpoints: %s", time.Since(start))

	for i := range 10 {
		require.Equal(t, http.StatusOK, as.do("POST", "/v1/endpoints/"+first.ID+"/test", map[string]any{}, nil), "test %d", i)
	}
	req, err := http.NewRequest("POST", c.dev.APIURL+"/v1/endpoints/"+first.ID+"/test", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+as.token)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
	wait, err := strconv.Atoi(resp.Header.Get("Retry-After"))
	require.NoError(t, err)
	require.True(t, wait >= 1 && wait <= 60, "Retry-After %d", wait)
	e = apiError{}
	require.Equal(t, http.StatusTooManyRequests, as.do("POST", "/v1/endpoints/"+first.ID+"/test", map[string]any{}, &e))
	require.Equal(t, wire.TestEventsPerEndpointPerMinute, e.Error.Limit)
	require.Len(t, rc.Hits(), 10, "the refused tests sent nothing")
}
