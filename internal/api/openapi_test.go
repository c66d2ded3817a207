package api

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/authz"
)

// loadOpenAPI loads and validates the embedded document.
func loadOpenAPI(t *testing.T) *openapi3.T {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromData(OpenAPIYAML())
	require.NoError(t, err)
	require.NoError(t, doc.Validate(context.Background()), "openapi.yaml is not a valid OpenAPI document")
	return doc
}

func testServer(t *testing.T, version string) *Server {
	t.Helper()
	s, err := New(Config{Temporal: &fakeTemporal{}, Store: &tokenStore{}, APIKeys: []string{"k"}, Namespace: "default",
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Version: version})
	require.NoError(t, err)
	return s
}

// Every /v1 route the router serves is in the document, and every
// operation of the document is served: methods and paths, both ways.
func TestOpenAPIDescribesEveryRoute(t *testing.T) {
	doc := loadOpenAPI(t)
	var documented []string
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			documented = append(documented, method+" "+path)
		}
	}
	var served []string
	err := chi.Walk(testServer(t, "").Router(), func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		if strings.HasPrefix(route, "/v1/") {
			served = append(served, method+" "+route)
		}
		return nil
	})
	require.NoError(t, err)
	require.NotEmpty(t, served)
	slices.Sort(documented)
	slices.Sort(served)
	for _, route := range served {
		if !slices.Contains(documented, route) {
			t.Errorf("%s is served but not described in internal/api/openapi.yaml", route)
		}
	}
	for _, route := range documented {
		if !slices.Contains(served, route) {
			t.Errorf("internal/api/openapi.yaml describes %s, which the router does not serve", route)
		}
	}
}

// Each operation's security matches the access its route declares: none
// for a public route, the API key alone for the platform's, either
// credential for a tenant-scoped one; and every authenticated operation
// documents 401.
func TestOpenAPISecurityFollowsRouteAccess(t *testing.T) {
	doc := loadOpenAPI(t)
	for _, rt := range testServer(t, "").Routes() {
		op := doc.Paths.Find(rt.Pattern).GetOperation(rt.Method)
		require.NotNil(t, op, "%s %s", rt.Method, rt.Pattern)
		sec := doc.Security
		if op.Security != nil {
			sec = *op.Security
		}
		var schemes []string
		for _, req := range sec {
			for name := range req {
				schemes = append(schemes, name)
			}
		}
		slices.Sort(schemes)
		want := map[authz.Access][]string{authz.Public: nil, authz.PlatformOnly: {"apiKey"}, authz.TenantScoped: {"apiKey", "tenantToken"}}[rt.Access]
		require.Equal(t, want, schemes, "%s %s (%s)", rt.Method, rt.Pattern, rt.Access)
		if rt.Access != authz.Public {
			require.NotNil(t, op.Responses.Status(http.StatusUnauthorized), "%s %s documents no 401", rt.Method, rt.Pattern)
		}
		if rt.Access == authz.PlatformOnly {
			require.NotNil(t, op.Responses.Status(http.StatusForbidden), "%s %s documents no 403", rt.Method, rt.Pattern)
		}
	}
}

// GET /v1/openapi.json needs no credential, ignores a wrong one, and
// carries the server's version.
func TestOpenAPIServedWithVersion(t *testing.T) {
	s := testServer(t, "1.2.3-test")
	for _, auth := range []string{"", "Bearer wrong"} {
		req := httptest.NewRequest("GET", "/v1/openapi.json", nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		require.Equal(t, "application/json", rec.Header().Get("Content-Type"))
		var doc struct {
			OpenAPI string `json:"openapi"`
			Info    struct {
				Version string `json:"version"`
			} `json:"info"`
			Paths map[string]any `json:"paths"`
		}
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &doc))
		require.Equal(t, "3.0.3", doc.OpenAPI)
		require.Equal(t, "1.2.3-test", doc.Info.Version)
		require.Contains(t, doc.Paths, "/v1/endpoints/{id}")
	}
	// Other /v1 paths still need a credential, unknown ones included.
	for _, path := range []string{"/v1/openapi.json/", "/v1/openapi.yaml", "/v1/endpoints"} {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		require.Equal(t, http.StatusUnauthorized, rec.Code, path)
	}
}

// GET /docs/api is the reference for people: HTML drawn from the document,
// with the server's version, no credential needed, and a CSP that lets it
// load nothing from anywhere.
func TestReferenceServed(t *testing.T) {
	s := testServer(t, "1.2.3-test")
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest("GET", "/docs/api", nil))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	require.Equal(t, "text/html; charset=utf-8", rec.Header().Get("Content-Type"))
	require.Contains(t, rec.Header().Get("Content-Security-Policy"), "default-src 'none'")
	require.Contains(t, rec.Body.String(), "1.2.3-test")
	require.Contains(t, rec.Body.String(), `id="sendEvent"`)
}
