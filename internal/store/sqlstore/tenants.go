package sqlstore

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/hookd/hookd/internal/store"
)

const tenantColumns = `id, name, metadata, created_at, updated_at, tokens_revoked_at, incarnation`

const tenantOfTokenSQL = `SELECT tenant_id FROM hookd_tenant_tokens WHERE hash = $1 AND expires_at > $2`

// PutTenant creates the tenant or replaces its name, metadata and
// UpdatedAt, and returns it as stored and whether it was created.
func (s *Store) PutTenant(ctx context.Context, t *store.Tenant) (*store.Tenant, bool, error) {
	out, created, err := s.putTenant(ctx, t)
	if err != nil {
		return nil, false, fmt.Errorf("put tenant: %w", err)
	}
	return out, created, nil
}

func (s *Store) putTenant(ctx context.Context, t *store.Tenant) (*store.Tenant, bool, error) {
	if t.ID == "" || t.CreatedAt.IsZero() || t.UpdatedAt.IsZero() {
		return nil, false, errors.New("ID, CreatedAt and UpdatedAt are required")
	}
	meta, err := encodeMetadata(t.Metadata)
	if err != nil {
		return nil, false, err
	}
	incarnation, err := newIncarnation()
	if err != nil {
		return nil, false, err
	}
	var (
		out     *store.Tenant
		created bool
	)
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		// Insert-or-nothing first, so two processes creating the same
		// tenant at once both succeed and exactly one says it created it.
		res, err := tx.ExecContext(ctx, `INSERT INTO hookd_tenants (id, name, metadata, created_at, updated_at, incarnation)
			VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO NOTHING`,
			t.ID, t.Name, meta, t.CreatedAt.UnixNano(), t.UpdatedAt.UnixNano(), incarnation)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return err
		}
		if created = n == 1; !created {
			if err := execOneIn(ctx, tx, `UPDATE hookd_tenants SET name = $2, metadata = $3, updated_at = $4 WHERE id = $1`,
				t.ID, t.Name, meta, t.UpdatedAt.UnixNano()); err != nil {
				return err
			}
		}
		out, err = scanTenant(tx.QueryRowContext(ctx, `SELECT `+tenantColumns+` FROM hookd_tenants WHERE id = $1`, t.ID))
		return err
	})
	return out, created, err
}

// GetTenant returns the tenant or store.ErrNotFound.
func (s *Store) GetTenant(ctx context.Context, id string) (*store.Tenant, error) {
	t, err := scanTenant(s.read.QueryRowContext(ctx, `SELECT `+tenantColumns+` FROM hookd_tenants WHERE id = $1`, id))
	if errors.Is(err, sql.ErrNoRows) {
		err = store.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("get tenant: %w", err)
	}
	return t, nil
}

// ListTenants returns up to p.Limit tenants (50 when zero, at most 500)
// after p.Cursor in (CreatedAt, ID) order, and the cursor of the next page.
func (s *Store) ListTenants(ctx context.Context, p store.Page) ([]*store.Tenant, string, error) {
	ts, next, err := s.listTenants(ctx, p)
	if err != nil {
		return nil, "", fmt.Errorf("list tenants: %w", err)
	}
	return ts, next, nil
}

func (s *Store) listTenants(ctx context.Context, p store.Page) ([]*store.Tenant, string, error) {
	after, err := parseCursor(p.Cursor)
	if err != nil {
		return nil, "", err
	}
	limit := pageLimit(p)
	ts, err := queryRows(ctx, s.read, scanTenant, `SELECT `+tenantColumns+` FROM hookd_tenants
		WHERE (created_at, id) > ($1, $2) ORDER BY created_at, id LIMIT $3`, after.created, after.id, limit+1)
	if err != nil {
		return nil, "", err
	}
	ts, next := pageOf(ts, limit, func(t *store.Tenant) cursor { return cursor{created: t.CreatedAt.UnixNano(), id: t.ID} })
	return ts, next, nil
}

// DeleteTenant removes the tenant and, by cascade, its endpoints (their
// secrets and circuits), its tokens and portal sessions, and its event
// records (their payloads and data keys), all in one transaction, or
// returns store.ErrNotFound. A tenant created later under the same ID
// gets a new incarnation, so an event recorded for this one by an ingest
// racing the delete stays out of its reach.
func (s *Store) DeleteTenant(ctx context.Context, id string) error {
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := s.lockTenant(ctx, tx, id); err != nil {
			return err
		}
		if err := execOneIn(ctx, tx, `DELETE FROM hookd_tenants WHERE id = $1`, id); err != nil {
			return err
		}
		return bumpEndpointsVersion(ctx, tx)
	})
	if err != nil {
		return fmt.Errorf("delete tenant: %w", err)
	}
	return nil
}

// DeleteTenantEvents deletes, in batches, the event records of a deleted
// tenant's incarnation and, by cascade, their deliveries.
func (s *Store) DeleteTenantEvents(ctx context.Context, tenantID, incarnation string) (int64, error) {
	var total int64
	for {
		res, err := s.write.ExecContext(ctx, `DELETE FROM hookd_events WHERE event_id IN (
			SELECT event_id FROM hookd_events WHERE tenant_id = $1 AND tenant_incarnation = $2 LIMIT $3)`,
			tenantID, incarnation, pruneBatch)
		if err != nil {
			return total, fmt.Errorf("delete events of tenant %s: %w", tenantID, err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return total, fmt.Errorf("delete events of tenant %s: %w", tenantID, err)
		}
		total += n
		if n < pruneBatch {
			return total, nil
		}
	}
}

// newIncarnation is a new tenant's incarnation: 16 random bytes, hex.
func newIncarnation() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("new incarnation: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// AddTenantToken stores the token's hash and deletes the tenant's tokens
// expired by tok.CreatedAt, or returns store.ErrNotFound when the tenant
// does not exist.
func (s *Store) AddTenantToken(ctx context.Context, tok store.TenantToken) error {
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := s.lockTenant(ctx, tx, tok.TenantID); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM hookd_tenant_tokens WHERE tenant_id = $1 AND expires_at <= $2`,
			tok.TenantID, tok.CreatedAt.UnixNano()); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO hookd_tenant_tokens (hash, tenant_id, created_at, expires_at)
			VALUES ($1, $2, $3, $4)`, tok.Hash, tok.TenantID, tok.CreatedAt.UnixNano(), tok.ExpiresAt.UnixNano())
		return err
	})
	if err != nil {
		return fmt.Errorf("add tenant token: %w", err)
	}
	return nil
}

// TenantOfToken returns the tenant of the token with this hash if it has
// not expired at now, or store.ErrNotFound. It is one indexed query.
func (s *Store) TenantOfToken(ctx context.Context, hash string, now time.Time) (string, error) {
	var tenant string
	err := s.tenantOfToken.QueryRowContext(ctx, hash, now.UnixNano()).Scan(&tenant)
	if errors.Is(err, sql.ErrNoRows) {
		err = store.ErrNotFound
	}
	if err != nil {
		return "", fmt.Errorf("tenant of token: %w", err)
	}
	return tenant, nil
}

// RevokeTenantTokens deletes every token of the tenant and records at as
// its TokensRevokedAt, or returns store.ErrNotFound.
func (s *Store) RevokeTenantTokens(ctx context.Context, id string, at time.Time) (int64, error) {
	var n int64
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if err := execOneIn(ctx, tx, `UPDATE hookd_tenants SET tokens_revoked_at = $2 WHERE id = $1`, id, at.UnixNano()); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM hookd_tenant_tokens WHERE tenant_id = $1`, id)
		if err == nil {
			n, err = res.RowsAffected()
		}
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("revoke tenant tokens: %w", err)
	}
	return n, nil
}

// lockTenant finds the tenant in tx and returns its incarnation, or
// store.ErrNotFound; on PostgreSQL it locks the row, so the tenant cannot
// be deleted before tx commits what it adds to it.
func (s *Store) lockTenant(ctx context.Context, tx *sql.Tx, id string) (string, error) {
	var incarnation string
	err := tx.QueryRowContext(ctx, `SELECT incarnation FROM hookd_tenants WHERE id = $1`+s.dialect.LockRow, id).Scan(&incarnation)
	if errors.Is(err, sql.ErrNoRows) {
		return "", store.ErrNotFound
	}
	return incarnation, err
}

// scanTenant reads one row of tenantColumns.
func scanTenant(sc scanner) (*store.Tenant, error) {
	var (
		t                store.Tenant
		meta             string
		created, updated int64
		revoked          sql.NullInt64
	)
	if err := sc.Scan(&t.ID, &t.Name, &meta, &created, &updated, &revoked, &t.Incarnation); err != nil {
		return nil, err
	}
	var err error
	if t.Metadata, err = decodeMetadata(meta); err != nil {
		return nil, fmt.Errorf("tenant %s: %w", t.ID, err)
	}
	t.CreatedAt, t.UpdatedAt = fromNanos(created), fromNanos(updated)
	if revoked.Valid {
		t.TokensRevokedAt = fromNanos(revoked.Int64)
	}
	return &t, nil
}
