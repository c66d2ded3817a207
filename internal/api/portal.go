package api

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
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
// stored; the link points at the configured public URL, never at the Host
// the request named (which a caller, or a proxy, chooses).
func (s *Server) createPortalLink(w http.ResponseWriter, r *http.Request) {
	if err := s.decode(w, r, &struct{}{}); err != nil {
		s.writeError(w, r, err)
		return
	}
	if s.publicURL == "" {
		s.writeError(w, r, &Error{Code: CodeUnavailable, Message: "portal links need the API's public URL: start hookd with --public-url"})
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
	u := s.publicURL + PortalLoginPath + "?" + url.Values{"t": {token}}.Encode()
	s.log.Info("portal link issued", "tenant_id", id, "expires_at", link.ExpiresAt, "by", scope(r).Actor())
	writeJSON(w, http.StatusCreated, map[string]any{"url": u, "tenant_id": id, "expires_at": link.ExpiresAt})
}

// ParsePublicURL checks a public base URL (Config.PublicURL) and returns
// it without a trailing slash: an absolute http or https URL with a host
// and nothing after its path. Empty stays empty.
func ParsePublicURL(raw string) (string, error) {
	if raw == "" {
		return "", nil
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil, !u.IsAbs(), u.Host == "", u.Scheme != "http" && u.Scheme != "https":
		return "", fmt.Errorf("public URL %q: want an absolute http or https URL such as https://hooks.example.com", raw)
	case u.User != nil, u.RawQuery != "", u.Fragment != "":
		return "", fmt.Errorf("public URL %q: want no credentials, query or fragment", raw)
	}
	return strings.TrimRight(u.String(), "/"), nil
}
