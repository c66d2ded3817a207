package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hookd/hookd/internal/store"
)

// portalSessionSQL finds a session valid at $2: unexpired, of a tenant
// that exists, and created after the tenant's tokens were last revoked.
const portalSessionSQL = `SELECT s.tenant_id, s.created_at, s.expires_at, s.denied
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
// at session.CreatedAt, stores session for its tenant with the link's
// options, in one transaction: of two concurrent uses, one finds the link
// gone.
func (s *Store) ExchangePortalLink(ctx context.Context, linkHash string, session store.PortalGrant) (store.PortalGrant, error) {
	var tenant string
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var created, expires, ttl int64
		var denied string
		err := tx.QueryRowContext(ctx, `DELETE FROM hookd_portal_links WHERE hash = $1
			RETURNING tenant_id, created_at, expires_at, session_ttl, denied`, linkHash).Scan(&tenant, &created, &expires, &ttl, &denied)
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
		session.TenantID, session.Denied, session.SessionTTL = tenant, splitDenied(denied), 0
		if ttl > 0 {
			session.ExpiresAt = session.CreatedAt.Add(time.Duration(ttl))
		}
		return addGrant(ctx, tx, "hookd_portal_sessions", session)
	})
	if errors.Is(err, sql.ErrNoRows) || (err == nil && tenant == "") {
		err = store.ErrNotFound
	}
	if err != nil {
		return store.PortalGrant{}, fmt.Errorf("exchange portal link: %w", err)
	}
	return session, nil
}

// splitDenied reads the denied column: names joined by commas.
func splitDenied(col string) []string {
	if col == "" {
		return nil
	}
	return strings.Split(col, ",")
}

// addGrant inserts g into table (hookd_portal_links or
// hookd_portal_sessions) after deleting its tenant's grants there that
// expired by g.CreatedAt.
func addGrant(ctx context.Context, tx *sql.Tx, table string, g store.PortalGrant) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE tenant_id = $1 AND expires_at <= $2`,
		g.TenantID, g.CreatedAt.UnixNano()); err != nil {
		return err
	}
	denied := strings.Join(g.Denied, ",")
	if table == "hookd_portal_links" {
		_, err := tx.ExecContext(ctx, `INSERT INTO hookd_portal_links (hash, tenant_id, created_at, expires_at, session_ttl, denied)
			VALUES ($1, $2, $3, $4, $5, $6)`, g.Hash, g.TenantID, g.CreatedAt.UnixNano(), g.ExpiresAt.UnixNano(), int64(g.SessionTTL), denied)
		return err
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO `+table+` (hash, tenant_id, created_at, expires_at, denied) VALUES ($1, $2, $3, $4, $5)`,
		g.Hash, g.TenantID, g.CreatedAt.UnixNano(), g.ExpiresAt.UnixNano(), denied)
	return err
}

// PortalSession returns the session with this hash if it is valid at now,
// or store.ErrNotFound. It is one indexed query.
func (s *Store) PortalSession(ctx context.Context, hash string, now time.Time) (store.PortalGrant, error) {
	g := store.PortalGrant{Hash: hash}
	var created, expires int64
	var denied string
	err := s.read.QueryRowContext(ctx, portalSessionSQL, hash, now.UnixNano()).Scan(&g.TenantID, &created, &expires, &denied)
	if errors.Is(err, sql.ErrNoRows) {
		err = store.ErrNotFound
	}
	if err != nil {
		return store.PortalGrant{}, fmt.Errorf("portal session: %w", err)
	}
	g.CreatedAt, g.ExpiresAt, g.Denied = fromNanos(created), fromNanos(expires), splitDenied(denied)
	return g, nil
}

// DeletePortalSession deletes the session with this hash, if any.
func (s *Store) DeletePortalSession(ctx context.Context, hash string) error {
	if _, err := s.write.ExecContext(ctx, `DELETE FROM hookd_portal_sessions WHERE hash = $1`, hash); err != nil {
		return fmt.Errorf("delete portal session: %w", err)
	}
	return nil
}

// EndPortalSessions deletes the tenant's sessions and unused sign-in
// links in one transaction, or returns store.ErrNotFound when the tenant
// does not exist.
func (s *Store) EndPortalSessions(ctx context.Context, tenantID string) (int64, error) {
	var n int64
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := s.lockTenant(ctx, tx, tenantID); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM hookd_portal_links WHERE tenant_id = $1`, tenantID); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM hookd_portal_sessions WHERE tenant_id = $1`, tenantID)
		if err == nil {
			n, err = res.RowsAffected()
		}
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("end portal sessions of %s: %w", tenantID, err)
	}
	return n, nil
}
