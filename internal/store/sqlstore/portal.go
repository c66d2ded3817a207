package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/hookd/hookd/internal/store"
)

// portalSessionSQL finds a session valid at $2: unexpired, of a tenant
// that exists, and created after the tenant's tokens were last revoked.
const portalSessionSQL = `SELECT s.tenant_id, s.created_at, s.expires_at
	FROM hookd_portal_sessions s JOIN hookd_tenants t ON t.id = s.tenant_id
	WHERE s.hash = $1 AND s.expires_at > $2
	AND (t.tokens_revoked_at IS NULL OR s.created_at > t.tokens_revoked_at)`

// AddPortalLink stores a sign-in link and deletes the tenant's expired
// ones, or returns store.ErrNotFound when the tenant does not exist.
func (s *Store) AddPortalLink(ctx context.Context, link store.PortalGrant) error {
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := s.lockTenant(ctx, tx, link.TenantID); err != nil {
			return err
		}
		return addGrant(ctx, tx, "hookd_portal_links", link)
	})
	if err != nil {
		return fmt.Errorf("add portal link: %w", err)
	}
	return nil
}

// ExchangePortalLink deletes the link with this hash and, if it was valid
// at session.CreatedAt, stores session for its tenant, in one
// transaction: of two concurrent uses, one finds the link gone.
func (s *Store) ExchangePortalLink(ctx context.Context, linkHash string, session store.PortalGrant) (string, error) {
	var tenant string
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var created, expires int64
		err := tx.QueryRowContext(ctx, `DELETE FROM hookd_portal_links WHERE hash = $1
			RETURNING tenant_id, created_at, expires_at`, linkHash).Scan(&tenant, &created, &expires)
		if err != nil {
			return err
		}
		var revoked sql.NullInt64
		err = tx.QueryRowContext(ctx, `SELECT tokens_revoked_at FROM hookd_tenants WHERE id = $1`+s.dialect.LockRow, tenant).Scan(&revoked)
		if err != nil {
			return err
		}
		if expires <= session.CreatedAt.UnixNano() || (revoked.Valid && created <= revoked.Int64) {
			tenant = "" // the link is spent either way; commit its deletion
			return nil
		}
		session.TenantID = tenant
		return addGrant(ctx, tx, "hookd_portal_sessions", session)
	})
	if errors.Is(err, sql.ErrNoRows) || (err == nil && tenant == "") {
		err = store.ErrNotFound
	}
	if err != nil {
		return "", fmt.Errorf("exchange portal link: %w", err)
	}
	return tenant, nil
}

// addGrant inserts g into table (hookd_portal_links or
// hookd_portal_sessions) after deleting its tenant's grants there that
// expired by g.CreatedAt.
func addGrant(ctx context.Context, tx *sql.Tx, table string, g store.PortalGrant) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE tenant_id = $1 AND expires_at <= $2`,
		g.TenantID, g.CreatedAt.UnixNano()); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO `+table+` (hash, tenant_id, created_at, expires_at) VALUES ($1, $2, $3, $4)`,
		g.Hash, g.TenantID, g.CreatedAt.UnixNano(), g.ExpiresAt.UnixNano())
	return err
}

// PortalSession returns the session with this hash if it is valid at now,
// or store.ErrNotFound. It is one indexed query.
func (s *Store) PortalSession(ctx context.Context, hash string, now time.Time) (store.PortalGrant, error) {
	g := store.PortalGrant{Hash: hash}
	var created, expires int64
	err := s.read.QueryRowContext(ctx, portalSessionSQL, hash, now.UnixNano()).Scan(&g.TenantID, &created, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		err = store.ErrNotFound
	}
	if err != nil {
		return store.PortalGrant{}, fmt.Errorf("portal session: %w", err)
	}
	g.CreatedAt, g.ExpiresAt = fromNanos(created), fromNanos(expires)
	return g, nil
}

// DeletePortalSession deletes the session with this hash, if any.
func (s *Store) DeletePortalSession(ctx context.Context, hash string) error {
	if _, err := s.write.ExecContext(ctx, `DELETE FROM hookd_portal_sessions WHERE hash = $1`, hash); err != nil {
		return fmt.Errorf("delete portal session: %w", err)
	}
	return nil
}
