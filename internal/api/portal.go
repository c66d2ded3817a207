package api

import (
	"net/http"
	"net/url"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/hookd/hookd/internal/authz"
	"github.com/hookd/hookd/internal/store"
)

// PortalLoginPath is where a portal sign-in link points; its query
// parameter t carries the link's token.
const PortalLoginPath = "/portal/login"

// PortalLinkLifetime is how long a portal sign-in link can be used.
const PortalLinkLifetime = 10 * time.Minute

// createPortalLink issues a single-use link that signs a browser into the
// tenant's consumer portal, valid PortalLinkLifetime. Only its hash is
// stored; the link points at the host the request was sent to.
func (s *Server) createPortalLink(w http.ResponseWriter, r *http.Request) {
	if err := s.decode(w, r, &struct{}{}); err != nil {
		s.writeError(w, r, err)
		return
	}
	token, err := authz.NewPortalLinkToken()
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	id := chi.URLParam(r, "id")
	now := s.now().UTC()
	link := store.PortalGrant{Hash: authz.HashToken(token), TenantID: id, CreatedAt: now, ExpiresAt: now.Add(PortalLinkLifetime)}
	if err := s.store.AddPortalLink(r.Context(), link); err != nil {
		s.writeError(w, r, notFound(err, "tenant"))
		return
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	u := url.URL{Scheme: scheme, Host: r.Host, Path: PortalLoginPath, RawQuery: url.Values{"t": {token}}.Encode()}
	s.log.Info("portal link issued", "tenant_id", id, "expires_at", link.ExpiresAt, "by", scope(r).Actor())
	writeJSON(w, http.StatusCreated, map[string]any{"url": u.String(), "tenant_id": id, "expires_at": link.ExpiresAt})
}
