package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/hookd/hookd/internal/store"
)

const getEndpointSQL = `SELECT ` + endpointColumns + `, ` + credentialsColumn + ` FROM hookd_endpoints WHERE id = $1`

// CreateEndpoint inserts ep and its first secret, which is valid from
// ep.CreatedAt.
// It sets ep.TenantIncarnation to its tenant's.
func (s *Store) CreateEndpoint(ctx context.Context, ep *store.Endpoint, secret string) error {
	return s.CreateEndpointWithin(ctx, ep, secret, 0)
}

// CreateEndpointWithin is CreateEndpoint refusing, with
// store.ErrLimitReached, an endpoint of a tenant that has maxPerTenant
// endpoints already (no limit when it is zero or less). The count and the
// insert share the transaction that locks the tenant's row (SQLite has
// one writer), so concurrent creates never pass the limit. The events
// go into the outbox in that transaction too.
func (s *Store) CreateEndpointWithin(ctx context.Context, ep *store.Endpoint, secret string, maxPerTenant int, events ...store.OpEvent) error {
	err := s.createEndpoint(ctx, ep, secret, maxPerTenant, events)
	if err != nil {
		return fmt.Errorf("create endpoint: %w", err)
	}
	s.announced(events)
	return nil
}

// checkEndpointLimit returns store.ErrLimitReached when the tenant has max
// endpoints or more (max > 0).
func checkEndpointLimit(ctx context.Context, tx *sql.Tx, tenantID string, max int) error {
	if max <= 0 {
		return nil
	}
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM hookd_endpoints WHERE tenant_id = $1`, tenantID).Scan(&n); err != nil {
		return err
	}
	if n >= max {
		return store.ErrLimitReached
	}
	return nil
}

func (s *Store) createEndpoint(ctx context.Context, ep *store.Endpoint, secret string, maxPerTenant int, events []store.OpEvent) error {
	if ep.ID == "" || ep.CreatedAt.IsZero() || ep.UpdatedAt.IsZero() {
		return errors.New("ID, CreatedAt and UpdatedAt are required")
	}
	if ep.RateLimit != nil {
		ep.RateLimit.Since = ep.CreatedAt
	}
	values, err := endpointValues(ep)
	if err != nil {
		return err
	}
	sealed, err := s.seal(ep.ID, secret)
	if err != nil {
		return err
	}
	creds, err := s.sealCredentials(ep.ID, ep.Credentials)
	if err != nil {
		return err
	}
	return s.inTx(ctx, func(tx *sql.Tx) error {
		if ep.TenantID != "" {
			incarnation, err := s.lockTenant(ctx, tx, ep.TenantID)
			if errors.Is(err, store.ErrNotFound) {
				err = store.ErrTenantNotFound
			}
			if err != nil {
				return err
			}
			if err := checkEndpointLimit(ctx, tx, ep.TenantID, maxPerTenant); err != nil {
				return err
			}
			ep.TenantIncarnation = incarnation
			values[incarnationValue] = incarnation
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO hookd_endpoints (`+endpointColumns+`)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)`, values...); err != nil {
			return err
		}
		if err := bumpEndpointsVersion(ctx, tx); err != nil {
			return err
		}
		if err := putCredentials(ctx, tx, ep.ID, creds, ep.CreatedAt.UnixNano()); err != nil {
			return err
		}
		if err := insertSecret(ctx, tx, ep.ID, 1, sealed, ep.CreatedAt.UnixNano()); err != nil {
			return err
		}
		return recordOpEvents(ctx, tx, events)
	})
}

// GetEndpoint returns the endpoint or store.ErrNotFound.
func (s *Store) GetEndpoint(ctx context.Context, id string) (*store.Endpoint, error) {
	ep, err := s.scanEndpointWithCredentials(s.getEndpoint.QueryRowContext(ctx, id))
	if errors.Is(err, sql.ErrNoRows) {
		err = store.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("get endpoint: %w", err)
	}
	return ep, nil
}

// ListEndpoints returns up to p.Limit endpoints (50 when zero, at most 500)
// that f selects, after p.Cursor in (CreatedAt, ID) order, and the cursor
// of the next page.
func (s *Store) ListEndpoints(ctx context.Context, f store.TenantFilter, p store.Page) ([]*store.Endpoint, string, error) {
	eps, next, err := s.listEndpoints(ctx, f, p)
	if err != nil {
		return nil, "", fmt.Errorf("list endpoints: %w", err)
	}
	return eps, next, nil
}

func (s *Store) listEndpoints(ctx context.Context, f store.TenantFilter, p store.Page) ([]*store.Endpoint, string, error) {
	after, err := parseCursor(p.Cursor)
	if err != nil {
		return nil, "", err
	}
	limit := pageLimit(p)
	where, args := tenantClause(f, 3)
	eps, err := s.queryEndpointsWith(ctx, s.scanEndpointWithCredentials, `SELECT `+endpointColumns+`, `+credentialsColumn+` FROM hookd_endpoints
		WHERE (created_at, id) > ($1, $2)`+where+` ORDER BY created_at, id LIMIT $3`,
		append([]any{after.created, after.id, limit + 1}, args...)...)
	if err != nil {
		return nil, "", err
	}
	eps, next := pageOf(eps, limit, func(ep *store.Endpoint) cursor {
		return cursor{created: ep.CreatedAt.UnixNano(), id: ep.ID}
	})
	return eps, next, nil
}

// tenantClause is the " AND ..." condition selecting f's rows by their
// tenant_id column, and its argument, numbered after the query's last
// placeholder.
func tenantClause(f store.TenantFilter, last int) (string, []any) {
	switch {
	case f.All:
		return "", nil
	case f.ID == "":
		return " AND tenant_id IS NULL", nil
	default:
		return fmt.Sprintf(" AND tenant_id = $%d", last+1), []any{f.ID}
	}
}

// UpdateEndpoint replaces every field of the endpoint but its ID, tenant
// and CreatedAt, or returns store.ErrNotFound. Its credentials are
// replaced when ep.Credentials is set and kept otherwise. The events go
// into the outbox in the update's transaction.
func (s *Store) UpdateEndpoint(ctx context.Context, ep *store.Endpoint, events ...store.OpEvent) error {
	values, err := endpointValues(ep)
	var creds []byte
	if err == nil && ep.Credentials != nil {
		creds, err = s.sealCredentials(ep.ID, ep.Credentials)
	}
	if err == nil {
		// Every column but created_at ($9), tenant_id and
		// tenant_incarnation, which an update keeps; rate_since becomes
		// updated_at when the rate limit changes.
		values = append(values[:8:8], values[9], values[12], values[13], values[14], values[15], values[16], values[17])
		err = s.inTx(ctx, func(tx *sql.Tx) error {
			if err := execOneIn(ctx, tx, `UPDATE hookd_endpoints SET url = $2, description = $3, event_types = $4,
			enabled = $5, retry_schedule = $6, timeout_ns = $7, metadata = $8, updated_at = $9,
			propagate_trace = $10, content_filter = $11, signing_profile = $12, disabled_reason = $13,
			rate_since = CASE WHEN rate_per_second = $14 AND rate_burst = $15 THEN rate_since
				WHEN $14 = 0 THEN 0 ELSE $9 END,
			rate_per_second = $14, rate_burst = $15
			WHERE id = $1`, values...); err != nil {
				return err
			}
			if ep.Credentials != nil {
				if err := putCredentials(ctx, tx, ep.ID, creds, ep.UpdatedAt.UnixNano()); err != nil {
					return err
				}
			}
			if err := recordOpEvents(ctx, tx, events); err != nil {
				return err
			}
			return bumpEndpointsVersion(ctx, tx)
		})
	}
	if err != nil {
		return fmt.Errorf("update endpoint: %w", err)
	}
	s.announced(events)
	return nil
}

// DisableEndpoint disables the endpoint if it is enabled, with reason,
// and reports whether it did, recording events in the outbox in the same
// transaction when it did; store.ErrNotFound if it does not exist.
func (s *Store) DisableEndpoint(ctx context.Context, id, reason string, at time.Time, events ...store.OpEvent) (bool, error) {
	err := s.changeEndpoints(ctx, events, `UPDATE hookd_endpoints SET enabled = $2, disabled_reason = $3, updated_at = $4
		WHERE id = $1 AND enabled = $5`, id, false, reason, at.UnixNano(), true)
	if !errors.Is(err, store.ErrNotFound) {
		if err != nil {
			return false, fmt.Errorf("disable endpoint: %w", err)
		}
		return true, nil
	}
	if _, err := s.GetEndpoint(ctx, id); err != nil {
		return false, err
	}
	return false, nil
}

// DeleteEndpoint removes the endpoint and, by cascade, its secrets, or
// returns store.ErrNotFound; the events go into the outbox with it.
func (s *Store) DeleteEndpoint(ctx context.Context, id string, events ...store.OpEvent) error {
	if err := s.changeEndpoints(ctx, events, `DELETE FROM hookd_endpoints WHERE id = $1`, id); err != nil {
		return fmt.Errorf("delete endpoint: %w", err)
	}
	return nil
}

// changeEndpoints runs a change that must touch one row (else
// store.ErrNotFound), records events in the outbox and counts it as a
// change to the endpoints, in one transaction.
func (s *Store) changeEndpoints(ctx context.Context, events []store.OpEvent, query string, args ...any) error {
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if err := execOneIn(ctx, tx, query, args...); err != nil {
			return err
		}
		if err := recordOpEvents(ctx, tx, events); err != nil {
			return err
		}
		return bumpEndpointsVersion(ctx, tx)
	})
	if err == nil {
		s.announced(events)
	}
	return err
}

func (s *Store) queryEndpoints(ctx context.Context, query string, args ...any) ([]*store.Endpoint, error) {
	return s.queryEndpointsWith(ctx, func(sc scanner) (*store.Endpoint, error) { return scanEndpoint(sc) }, query, args...)
}

// queryEndpointsWith is queryEndpoints reading each row with scan.
func (s *Store) queryEndpointsWith(ctx context.Context, scan func(scanner) (*store.Endpoint, error), query string, args ...any) ([]*store.Endpoint, error) {
	return queryRows(ctx, s.read, scan, query, args...)
}

// queryRows runs a query on db and reads every row with scan.
func queryRows[T any](ctx context.Context, db *sql.DB, scan func(scanner) (T, error), query string, args ...any) ([]T, error) {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// execer is a *sql.DB or *sql.Tx.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

func execOneIn(ctx context.Context, db execer, query string, args ...any) error {
	res, err := db.ExecContext(ctx, query, args...)
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return store.ErrNotFound
	}
	return nil
}
