package api

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"

	"github.com/hookd/hookd/internal/apidocs"
	"github.com/hookd/hookd/internal/authz"
)

// openAPIYAML is the API's contract: every /v1 route, its parameters,
// bodies and error answers. Tests hold the router and the server's real
// answers to it (openapi_test.go, internal/e2e).
//
//go:embed openapi.yaml
var openAPIYAML []byte

// OpenAPIYAML returns the OpenAPI document as written.
func OpenAPIYAML() []byte { return append([]byte(nil), openAPIYAML...) }

// OpenAPIJSON returns the OpenAPI document as JSON with info.version set
// to version.
func OpenAPIJSON(version string) ([]byte, error) {
	var doc map[string]any
	if err := yaml.Unmarshal(openAPIYAML, &doc); err != nil {
		return nil, fmt.Errorf("openapi.yaml: %w", err)
	}
	info, ok := doc["info"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("openapi.yaml: no info object")
	}
	if version != "" {
		info["version"] = version
	}
	out, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("openapi.yaml as JSON: %w", err)
	}
	return out, nil
}

// openAPIHandler serves the document as JSON at GET /v1/openapi.json, a
// public route (authz.Public): the document holds nothing of any
// deployment but its version.
func (s *Server) openAPIHandler(version string) http.HandlerFunc {
	doc, err := OpenAPIJSON(version)
	return func(w http.ResponseWriter, r *http.Request) {
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "public, max-age=300")
		_, _ = w.Write(doc)
	}
}

// referenceHandler serves the document rendered for people at GET
// /docs/api (no credential, like the document itself). The page is drawn
// once, on the first request; it loads nothing but itself, and its CSP
// allows nothing else.
func (s *Server) referenceHandler(version string) http.HandlerFunc {
	var (
		once sync.Once
		page []byte
		err  error
	)
	return func(w http.ResponseWriter, r *http.Request) {
		once.Do(func() { page, err = apidocs.Render(openAPIYAML, version) })
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		h := w.Header()
		h.Set("Content-Type", "text/html; charset=utf-8")
		h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Cache-Control", "public, max-age=300")
		_, _ = w.Write(page)
	}
}

// authenticateUnlessPublic is authenticate for every /v1 request but those
// of a route the table declares authz.Public, which go on to authorize
// with no scope and no credential looked at. A public route's pattern is
// a literal path (it has no parameters), so the request's path names it.
func (s *Server) authenticateUnlessPublic(next http.Handler) http.Handler {
	public := map[string]bool{}
	for _, rt := range s.Routes() {
		if rt.Access != authz.Public {
			continue
		}
		if strings.ContainsAny(rt.Pattern, "{*") {
			panic("api: public route " + rt.Pattern + " has parameters")
		}
		public[rt.Method+" "+rt.Pattern] = true
	}
	auth := s.authenticate(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if public[r.Method+" "+r.URL.Path] {
			next.ServeHTTP(w, r)
			return
		}
		auth.ServeHTTP(w, r)
	})
}
