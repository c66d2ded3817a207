package store

import (
	"context"
	"time"
)

// PortalGrant is a credential of the consumer portal as stored: only its
// hash. A sign-in link is a grant used once to open a session; a session
// is a grant a browser presents on every request.
type PortalGrant struct {
	// Hash identifies the grant; the credential itself is never stored.
	Hash      string
	TenantID  string
	CreatedAt time.Time
	ExpiresAt time.Time
	// SessionTTL is how long the session a link opens lasts; zero keeps
	// the session's own ExpiresAt. Sessions have none.
	SessionTTL time.Duration
	// Denied names the capabilities (authz.Capability) the grant was
	// issued without; a link passes them on to its session. Sorted.
	Denied []string
}

// Portal keeps the consumer portal's sign-in links and sessions. A grant
// is void once expired, once its tenant's tokens are revoked after it was
// created (Tenant.TokensRevokedAt), and when its tenant is deleted.
type Portal interface {
	// AddPortalLink stores a sign-in link, or returns ErrNotFound when the
	// tenant does not exist. The tenant's expired links are deleted.
	AddPortalLink(ctx context.Context, link PortalGrant) error
	// ExchangePortalLink uses the link with this hash once: in one
	// transaction it deletes the link and stores session for the link's
	// tenant, and returns the session as stored: TenantID and Denied come
	// from the link, and ExpiresAt is CreatedAt plus the link's SessionTTL
	// when it has one. It returns ErrNotFound when the link is unknown,
	// already used, expired at session.CreatedAt, or void.
	ExchangePortalLink(ctx context.Context, linkHash string, session PortalGrant) (PortalGrant, error)
	// PortalSession returns the session with this hash if it is valid at
	// now, or ErrNotFound.
	PortalSession(ctx context.Context, hash string, now time.Time) (PortalGrant, error)
	// DeletePortalSession ends a session; ending an unknown one is not an
	// error.
	DeletePortalSession(ctx context.Context, hash string) error
	// EndPortalSessions deletes every session and unused sign-in link of
	// a tenant and says how many sessions it ended, or returns
	// ErrNotFound when the tenant does not exist.
	EndPortalSessions(ctx context.Context, tenantID string) (int64, error)
}
