package api

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/authz"
	"github.com/hookd/hookd/internal/store"
)

// tokenStore knows one tenant token; everything else panics (the embedded
// interface), so a route that reached a handler would show.
type tokenStore struct {
	store.Store
	hash string
}

func (s *tokenStore) TenantOfToken(_ context.Context, hash string, _ time.Time) (string, error) {
	if hash == s.hash {
		return "acme", nil
	}
	return "", store.ErrNotFound
}

// Every route the router serves is declared with an access; a tenant
// token is refused on the platform's before any handler runs, and an
// unknown token on every route.
func TestRouteAccessIsEnforcedBeforeHandlers(t *testing.T) {
	token, err := authz.NewToken()
	require.NoError(t, err)
	s, err := New(Config{Temporal: &fakeTemporal{}, Store: &tokenStore{hash: authz.HashToken(token)}, APIKeys: []string{"k"},
		Namespace: "default", Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		AuthFailureLimit: 1 << 20}) // every route's 401, from one address
	require.NoError(t, err)
	declared := map[string]authz.Access{}
	for _, rt := range s.Routes() {
		declared[rt.Method+" "+rt.Pattern] = rt.Access
	}
	call := func(method, path, cred string) int {
		req := httptest.NewRequest(method, path, strings.NewReader("{}"))
		req.Header.Set("Authorization", "bearer "+cred) // the scheme is case-insensitive
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		return rec.Code
	}
	walked := 0
	err = chi.Walk(s.Router(), func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		if !strings.HasPrefix(route, "/v1/") {
			return nil
		}
		walked++
		access, ok := declared[method+" "+route]
		require.True(t, ok, "%s %s is served but not declared", method, route)
		path := strings.NewReplacer("{id}", "x", "{job}", "x", "{name}", "x").Replace(route)
		if access == authz.Public {
			require.Equal(t, http.StatusOK, call(method, path, ""), "%s %s is public", method, route)
			return nil
		}
		require.Equal(t, http.StatusUnauthorized, call(method, path, "htk_unknown"), "%s %s", method, route)
		require.Equal(t, http.StatusUnauthorized, call(method, path, ""), "%s %s", method, route)
		if access == authz.PlatformOnly {
			require.Equal(t, http.StatusForbidden, call(method, path, token), "%s %s", method, route)
		}
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, len(declared), walked, "every declared route is served")
}
