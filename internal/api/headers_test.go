package api

import (
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"
)

// Every API answer, success or error, authenticated or not, carries
// nosniff and no-store.
func TestResponseHeaders(t *testing.T) {
	s := newTestServer(t, &fakeTemporal{})
	for _, c := range []struct{ method, path, cred string }{
		{"GET", "/v1/endpoints/ep_on", "k"},
		{"GET", "/v1/endpoints/ep_on", ""},
		{"GET", "/v1/nothing-here", "k"},
		{"GET", "/healthz", ""},
	} {
		req := httptest.NewRequest(c.method, c.path, nil)
		if c.cred != "" {
			req.Header.Set("Authorization", "Bearer "+c.cred)
		}
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		require.Equal(t, "nosniff", rec.Header().Get("X-Content-Type-Options"), "%s %s", c.method, c.path)
		require.Equal(t, "no-store", rec.Header().Get("Cache-Control"), "%s %s", c.method, c.path)
	}
}
