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
	// tenant (session.TenantID is set from the link), and returns the
	// tenant. It returns ErrNotFound when the link is unknown, already
	// used, expired at session.CreatedAt, or void.
	ExchangePortalLink(ctx context.Context, linkHash string, session PortalGrant) (string, error)
	// PortalSession returns the session with this hash if it is valid at
	// now, or ErrNotFound.
	PortalSession(ctx context.Context, hash string, now time.Time) (PortalGrant, error)
	// DeletePortalSession ends a session; ending an unknown one is not an
	// error.
	DeletePortalSession(ctx context.Context, hash string) error
}
