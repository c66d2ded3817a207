package api

import (
	"context"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/hookd/hookd/apiclient/wire"
	"github.com/hookd/hookd/internal/authz"
	"github.com/hookd/hookd/internal/store"
	"github.com/hookd/hookd/internal/visibility"
)

// Bounds of a tenant token's lifetime.
const (
	DefaultTokenLifetime = 24 * time.Hour
	MaxTokenLifetime     = 365 * 24 * time.Hour
)

// tenantOut is a tenant as the API shows it.
func tenantOut(t *store.Tenant) wire.Tenant {
	out := wire.Tenant{ID: t.ID, Name: t.Name, Metadata: t.Metadata, CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt}
	if out.Metadata == nil {
		out.Metadata = wire.Metadata{}
	}
	return out
}

func validateTenantID(field, id string) error {
	if !store.ValidTenantID(id) {
		return invalid(field, "must be 1 to 128 characters of A-Z a-z 0-9 . _ : -")
	}
	return nil
}

// tenantFilter is the tenant filter of a list naming tenant requested (""
// for none) in the caller's scope: 404 for a tenant the caller cannot see
// or that does not exist.
func (s *Server) tenantFilter(ctx context.Context, requested string) (store.TenantFilter, error) {
	if requested != "" {
		if err := validateTenantID("tenant_id", requested); err != nil {
			return store.TenantFilter{}, err
		}
	}
	f, err := s.res.Filter(ctx, requested)
	return f, notFound(err, "tenant")
}

// tenantClause is the visibility query clause (HookdTenantId = ...) of a
// list naming tenant requested in the caller's scope, or the zero Query
// when the list spans every tenant; errors as tenantFilter's.
func (s *Server) tenantClause(ctx context.Context, requested string) (visibility.Query, error) {
	tf, err := s.tenantFilter(ctx, requested)
	if err != nil {
		return visibility.Query{}, err
	}
	return authz.VisibilityClause(tf)
}

// putTenant creates the tenant named in the path (201) or replaces its
// name and metadata (200), so a platform can call it on every sign-up.
func (s *Server) putTenant(w http.ResponseWriter, r *http.Request) {
	id := chi.URLParam(r, "id")
	var body wire.TenantPut
	err := validateTenantID("tenant_id", id)
	if err == nil {
		err = s.decode(w, r, &body)
	}
	now := s.now().UTC()
	t := &store.Tenant{ID: id, CreatedAt: now, UpdatedAt: now}
	switch {
	case err != nil:
	case body.Name != nil && len(*body.Name) > 256:
		err = invalid("name", "must be at most 256 characters")
	case body.Metadata != nil && len(*body.Metadata) > 50:
		err = invalid("metadata", "must have at most 50 keys")
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if body.Name != nil {
		t.Name = *body.Name
	}
	if body.Metadata != nil {
		t.Metadata = *body.Metadata
	}
	stored, created, err := s.store.PutTenant(r.Context(), t)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
		s.log.Info("tenant created", "tenant_id", id)
	}
	writeJSON(w, status, tenantOut(stored))
}

func (s *Server) getTenant(w http.ResponseWriter, r *http.Request) {
	t, err := s.store.GetTenant(r.Context(), chi.URLParam(r, "id"))
	if err != nil {
		s.writeError(w, r, notFound(err, "tenant"))
		return
	}
	writeJSON(w, http.StatusOK, tenantOut(t))
}

func (s *Server) listTenants(w http.ResponseWriter, r *http.Request) {
	limit, err := parseLimit(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	ts, next, err := s.store.ListTenants(r.Context(), store.Page{Cursor: r.URL.Query().Get("cursor"), Limit: limit})
	err = cursorError(err)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, wire.TenantPage{Data: listOf(ts, tenantOut), NextCursor: next})
}

// deleteTenant deletes the tenant, its endpoints and its tokens. Pending
// deliveries to its endpoints fail as "endpoint deleted" at their next
// attempt, as after any endpoint's deletion.
// createTenantToken issues a token that acts for the tenant, valid for
// expires_in (default 24h). Only its hash is stored: the answer is the
// only time the token is shown.
func (s *Server) createTenantToken(w http.ResponseWriter, r *http.Request) {
	var body wire.TenantTokenCreate
	if err := s.decode(w, r, &body); err != nil {
		s.writeError(w, r, err)
		return
	}
	lifetime := DefaultTokenLifetime
	if body.ExpiresIn != nil {
		d, err := time.ParseDuration(*body.ExpiresIn)
		if err != nil || d < time.Second || d > MaxTokenLifetime {
			s.writeError(w, r, invalid("expires_in", "must be a duration from 1s to %s, such as \"24h\"", MaxTokenLifetime))
			return
		}
		lifetime = d
	}
	token, err := authz.NewToken()
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	id := chi.URLParam(r, "id")
	now := s.now().UTC()
	tok := store.TenantToken{Hash: authz.HashToken(token), TenantID: id, CreatedAt: now, ExpiresAt: now.Add(lifetime)}
	if err := s.store.AddTenantToken(r.Context(), tok); err != nil {
		s.writeError(w, r, notFound(err, "tenant"))
		return
	}
	s.log.Info("tenant token issued", "tenant_id", id, "expires_at", tok.ExpiresAt, "by", scope(r).Actor())
	writeJSON(w, http.StatusCreated, wire.TenantToken{Token: token, TenantID: id, ExpiresAt: tok.ExpiresAt})
}

// revokeTenantTokens revokes every token of the tenant at once.
func (s *Server) revokeTenantTokens(w http.ResponseWriter, r *http.Request) {
	id := chi.URLParam(r, "id")
	n, err := s.store.RevokeTenantTokens(r.Context(), id, s.now().UTC())
	if err != nil {
		s.writeError(w, r, notFound(err, "tenant"))
		return
	}
	s.log.Info("tenant tokens revoked", "tenant_id", id, "revoked", n, "by", scope(r).Actor())
	writeJSON(w, http.StatusOK, wire.RevokedTokens{TenantID: id, Revoked: int(n)})
}
