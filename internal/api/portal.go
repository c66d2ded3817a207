package api

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/hookd/hookd/apiclient/wire"
	"github.com/hookd/hookd/internal/authz"
	"github.com/hookd/hookd/internal/store"
)

// PortalLoginPath is where a portal sign-in link points; its query
// parameter t carries the link's token.
const PortalLoginPath = "/portal/login"

// PortalLinkLifetime is how long a portal sign-in link can be used.
const PortalLinkLifetime = 10 * time.Minute

// Portal session lifetimes a sign-in link may ask for.
const (
	DefaultPortalSessionTTL = 24 * time.Hour
	MinPortalSessionTTL     = time.Hour
	MaxPortalSessionTTL     = 7 * 24 * time.Hour
)

// portalLinkOptions checks the body of POST /v1/tenants/{id}/portal and
// returns the session lifetime and the capabilities the session goes
// without.
func portalLinkOptions(in wire.PortalLinkOptions) (time.Duration, []authz.Capability, error) {
	ttl := DefaultPortalSessionTTL
	if in.SessionTTL != nil {
		d, err := time.ParseDuration(*in.SessionTTL)
		if err != nil || d < MinPortalSessionTTL || d > MaxPortalSessionTTL {
			return 0, nil, invalid("session_ttl", "must be a duration from 1h to 168h (7 days), such as \"8h\"")
		}
		ttl = d
	}
	var drop []authz.Capability
	if wire.Deref(in.ReadOnly) {
		drop = append(drop, authz.ReadOnly...)
	}
	for name, allowed := range in.Capabilities {
		c, err := authz.ParseCapability(name)
		if err != nil {
			return 0, nil, invalid("capabilities."+name, "%s", err)
		}
		if !allowed {
			drop = append(drop, c)
		}
	}
	slices.Sort(drop)
	return ttl, slices.Compact(drop), nil
}

// capabilitiesOut is every capability with whether a session without
// denied has it.
func capabilitiesOut(denied []authz.Capability) wire.PortalCapabilities {
	has := func(c authz.Capability) *bool {
		ok := !slices.Contains(denied, c)
		return &ok
	}
	return wire.PortalCapabilities{
		ManageEndpoints: has(authz.ManageEndpoints), RevealSecret: has(authz.RevealSecret), RotateSecret: has(authz.RotateSecret),
		SendTest: has(authz.SendTest), Recover: has(authz.Recover), Redrive: has(authz.Redrive),
	}
}

// createPortalLink issues a single-use link that signs a browser into the
// tenant's consumer portal, valid PortalLinkLifetime, for a session of
// the lifetime and capabilities the body asks for. Only its hash is
// stored; the link points at the configured public URL, never at the Host
// the request named (which a caller, or a proxy, chooses).
func (s *Server) createPortalLink(w http.ResponseWriter, r *http.Request) {
	var in wire.PortalLinkOptions
	if err := s.decode(w, r, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	ttl, denied, err := portalLinkOptions(in)
	if err != nil {
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
	link := store.PortalGrant{Hash: authz.HashToken(token), TenantID: id, CreatedAt: now, ExpiresAt: now.Add(PortalLinkLifetime), SessionTTL: ttl}
	for _, c := range denied {
		link.Denied = append(link.Denied, string(c))
	}
	if err := s.store.AddPortalLink(r.Context(), link); err != nil {
		s.writeError(w, r, notFound(err, "tenant"))
		return
	}
	u := s.publicURL + PortalLoginPath + "?" + url.Values{"t": {token}}.Encode()
	s.log.Info("portal link issued", "tenant_id", id, "expires_at", link.ExpiresAt, "session_ttl", ttl, "denied", link.Denied, "by", scope(r).Actor())
	writeJSON(w, http.StatusCreated, wire.PortalLink{URL: u, TenantID: id, ExpiresAt: link.ExpiresAt,
		SessionTTL: ttl.String(), Capabilities: capabilitiesOut(denied)})
}

// endPortalSessions ends every portal session of the tenant and voids its
// unused sign-in links; its tokens stay valid.
func (s *Server) endPortalSessions(w http.ResponseWriter, r *http.Request) {
	id := chi.URLParam(r, "id")
	n, err := s.store.EndPortalSessions(r.Context(), id)
	if err != nil {
		s.writeError(w, r, notFound(err, "tenant"))
		return
	}
	s.log.Info("portal sessions ended", "tenant_id", id, "ended", n, "by", scope(r).Actor())
	writeJSON(w, http.StatusOK, wire.EndedPortalSessions{TenantID: id, Ended: int(n)})
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
