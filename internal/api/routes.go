package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/hookd/hookd/internal/authz"
	"github.com/hookd/hookd/internal/store"
)

// Route is one /v1 route and the access it requires of the caller's
// scope.
type Route struct {
	Method  string
	Pattern string // as chi sees it, e.g. "/v1/endpoints/{id}"
	Access  authz.Access
	handle  http.HandlerFunc
}

// v1Routes is every /v1 route. A route is served only through this table,
// so it cannot be added without declaring its access; the isolation tests
// walk the router and fail on any route missing here.
func (s *Server) v1Routes() []Route {
	const platform, tenant = authz.PlatformOnly, authz.TenantScoped
	return []Route{
		{"PUT", "/tenants/{id}", platform, s.putTenant},
		{"GET", "/tenants", platform, s.listTenants},
		{"GET", "/tenants/{id}", platform, s.getTenant},
		{"DELETE", "/tenants/{id}", platform, s.deleteTenant},
		{"GET", "/tenants/{id}/expunge", platform, s.tenantExpunge},
		{"POST", "/tenants/{id}/tokens", platform, s.createTenantToken},
		{"DELETE", "/tenants/{id}/tokens", platform, s.revokeTenantTokens},
		{"POST", "/tenants/{id}/portal", platform, s.createPortalLink},
		{"DELETE", "/tenants/{id}/portal-sessions", platform, s.endPortalSessions},
		{"GET", "/tenants/{id}/portal-branding", platform, s.getTenantBranding},
		{"PUT", "/tenants/{id}/portal-branding", platform, s.putTenantBranding},
		{"GET", "/portal/settings", platform, s.getPortalSettings},
		{"PUT", "/portal/settings", platform, s.putPortalSettings},
		{"PUT", "/event-types/{name}", platform, s.putEventType},
		{"GET", "/event-types", tenant, s.listEventTypes},
		{"GET", "/event-types/{name}", tenant, s.getEventType},
		{"DELETE", "/event-types/{name}", platform, s.deleteEventType},
		{"POST", "/endpoints", tenant, s.createEndpoint},
		{"GET", "/endpoints", tenant, s.listEndpoints},
		{"GET", "/endpoints/{id}", tenant, s.getEndpoint},
		{"PATCH", "/endpoints/{id}", tenant, s.updateEndpoint},
		{"DELETE", "/endpoints/{id}", tenant, s.deleteEndpoint},
		{"POST", "/endpoints/{id}/secret/rotate", tenant, s.rotateSecret},
		{"GET", "/endpoints/{id}/health", tenant, s.endpointHealth},
		{"POST", "/endpoints/{id}/test", tenant, s.testEndpoint},
		{"POST", "/endpoints/{id}/recover", tenant, s.recoverEndpoint},
		{"POST", "/events", platform, s.postEvent},
		{"POST", "/events/batch", platform, s.postEventBatch},
		{"GET", "/events", tenant, s.listEvents},
		{"GET", "/events/{id}", tenant, s.getEvent},
		{"POST", "/events/{id}/expunge", tenant, s.expungeEvent},
		{"GET", "/deliveries", tenant, s.listDeliveries},
		{"GET", "/deliveries/{id}", tenant, s.getDelivery},
		{"GET", "/dead-letters", tenant, s.listDeadLetters},
		{"GET", "/dead-letters/summary", tenant, s.deadLetterSummary},
		{"POST", "/dead-letters/redrive", tenant, s.redriveMany},
		{"GET", "/dead-letters/redrive/{job}", tenant, s.redriveJob},
		{"GET", "/dead-letters/{id}", tenant, s.getDeadLetter},
		{"POST", "/dead-letters/{id}/redrive", tenant, s.redriveOne},
		{"GET", "/openapi.json", authz.Public, s.openAPIHandler(s.version)},
	}
}

// Routes lists every /v1 route with the access it requires.
func (s *Server) Routes() []Route {
	routes := s.v1Routes()
	for i := range routes {
		routes[i].Pattern = "/v1" + routes[i].Pattern
	}
	return routes
}

// Router is the server's router, for tests that walk it (chi.Walk).
func (s *Server) Router() chi.Routes { return s.router }

func (s *Server) routes() chi.Router {
	r := chi.NewRouter()
	// Set before the routes, so /v1 inherits them: every 404 and 405
	// carries the JSON error body.
	r.NotFound(func(w http.ResponseWriter, r *http.Request) {
		s.writeError(w, r, &Error{Code: CodeNotFound, Message: "no such route"})
	})
	r.MethodNotAllowed(s.methodNotAllowed)
	r.Get("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	r.Get("/docs/api", s.referenceHandler(s.version))
	r.Route("/v1", func(r chi.Router) {
		r.Use(s.authenticateUnlessPublic)
		for _, rt := range s.v1Routes() {
			r.Method(rt.Method, rt.Pattern, s.authorize(rt.Access, s.traced(rt)))
		}
	})
	return r
}

// methodNotAllowed answers 405 with the JSON error body and the Allow
// header listing the methods the path has.
func (s *Server) methodNotAllowed(w http.ResponseWriter, r *http.Request) {
	var allowed []string
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		if s.router.Match(chi.NewRouteContext(), m, r.URL.Path) {
			allowed = append(allowed, m)
		}
	}
	w.Header().Set("Allow", strings.Join(allowed, ", "))
	s.writeError(w, r, &Error{Code: CodeMethodNotAllowed, Message: "method " + r.Method + " not allowed here"})
}

// authenticate resolves the request's bearer credential to a scope and
// puts it in the request context, or answers 401 without saying what was
// wrong (429 to an address with too many failures, see credentialScope).
func (s *Server) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		scope, ok := s.credentialScope(w, r, bearer(r))
		if !ok {
			return
		}
		next.ServeHTTP(w, r.WithContext(authz.NewContext(r.Context(), scope)))
	})
}

// credentialScope authenticates cred, or answers the request and returns
// false. A client address with too many failed authentications in the
// window is answered 429 with Retry-After before its credential is
// looked at; each failure is counted and logged (rate-limited, the
// credential by its fingerprint only).
func (s *Server) credentialScope(w http.ResponseWriter, r *http.Request, cred string) (authz.Scope, bool) {
	client := clientAddr(r, s.trustedProxies)
	if wait := s.authFailures.blocked(client); wait > 0 {
		s.writeThrottled(w, r, wait)
		return authz.Scope{}, false
	}
	scope, err := s.auth.Authenticate(r.Context(), cred)
	if err != nil {
		if errors.Is(err, authz.ErrUnauthenticated) {
			s.authFailures.fail(client, cred, r.URL.Path)
		}
		s.writeAuthError(w, r, err)
		return authz.Scope{}, false
	}
	return scope, true
}

// authorize refuses a request whose scope does not allow access, before h
// runs.
func (s *Server) authorize(access authz.Access, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := authz.FromContext(r.Context()).Allow(access); err != nil {
			s.writeAuthError(w, r, err)
			return
		}
		if !s.allowRequest(w, r) {
			return
		}
		h(w, r)
	}
}

// RequireAPIKey guards a handler outside the API's routes (the codec
// server): the platform API key or 401, and 403 for a tenant token, which
// must never decode another tenant's payloads.
func (s *Server) RequireAPIKey(next http.Handler) http.Handler {
	return s.authenticate(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := scope(r).Allow(authz.PlatformOnly); err != nil {
			s.writeAuthError(w, r, err)
			return
		}
		next.ServeHTTP(w, r)
	}))
}

// PlatformOnly guards a handler served beside the API (/metrics), which
// scrapers call without hookd credentials: a tenant token is refused with
// 403 (401 when it is not valid); any other request goes on to next.
func (s *Server) PlatformOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cred := bearer(r)
		if !strings.HasPrefix(cred, authz.TokenPrefix) {
			next.ServeHTTP(w, r)
			return
		}
		scope, ok := s.credentialScope(w, r, cred)
		if !ok {
			return
		}
		if err := scope.Allow(authz.PlatformOnly); err != nil {
			s.writeAuthError(w, r, err)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// bearer is the credential of "Authorization: Bearer <credential>" (the
// scheme is case-insensitive), or "".
func bearer(r *http.Request) string {
	scheme, cred, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return cred
}

// writeAuthError answers a failed authentication or authorization.
func (s *Server) writeAuthError(w http.ResponseWriter, r *http.Request, err error) {
	switch {
	case errors.Is(err, authz.ErrUnauthenticated):
		w.Header().Set("WWW-Authenticate", `Bearer realm="hookd"`)
		err = &Error{Code: CodeUnauthorized, Message: "missing, invalid, expired or revoked API key or token"}
	case errors.Is(err, authz.ErrNotPermitted):
		err = &Error{Code: CodeForbidden, Message: err.Error()}
	case errors.Is(err, authz.ErrForbidden):
		err = &Error{Code: CodeForbidden, Message: "this route needs the platform's API key; a tenant token cannot use it"}
	case errors.Is(err, authz.ErrNotFound):
		err = &Error{Code: CodeNotFound, Message: "not found"}
	default:
		err = errors.Join(errUnavailable, err)
	}
	s.writeError(w, r, err)
}

// permit returns nil when the scope of ctx has capability c, else the
// 403 (401 for no scope) the API answers: the one check every operation
// that changes something, or reveals a secret, makes before it looks at
// the resource, so a restricted portal session learns nothing of it.
func permit(ctx context.Context, c authz.Capability) error {
	switch err := authz.FromContext(ctx).Permit(c); {
	case errors.Is(err, authz.ErrNotPermitted):
		return &Error{Code: CodeForbidden, Message: fmt.Sprintf("this session was issued without the %s permission", c)}
	case err != nil:
		return &Error{Code: CodeUnauthorized, Message: "missing, invalid, expired or revoked API key or token"}
	}
	return nil
}

// scope is the caller's scope, put in the context by authenticate.
func scope(r *http.Request) authz.Scope { return authz.FromContext(r.Context()) }

// notFound maps authz.ErrNotFound and store.ErrNotFound to a 404 that
// names what was not found; other errors pass unchanged.
func notFound(err error, what string) error {
	if errors.Is(err, authz.ErrNotFound) || errors.Is(err, store.ErrNotFound) {
		return &Error{Code: CodeNotFound, Message: what + " not found"}
	}
	return err
}
