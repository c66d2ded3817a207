package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hookd/hookd/internal/store"
)

// maxOutboxError bounds the last error an outbox row keeps.
const maxOutboxError = 512

// recordOpEvents writes events into the outbox in tx, the transaction
// of the change they announce. An event about an endpoint (About) with
// no incarnation takes that endpoint's tenant, read in tx. An ID already
// in the outbox keeps its row.
func recordOpEvents(ctx context.Context, tx *sql.Tx, events []store.OpEvent) error {
	now := time.Now().UnixNano()
	for _, ev := range events {
		if ev.About != "" && ev.TenantIncarnation == "" {
			var tenant, incarnation sql.NullString
			err := tx.QueryRowContext(ctx, `SELECT tenant_id, tenant_incarnation FROM hookd_endpoints WHERE id = $1`, ev.About).Scan(&tenant, &incarnation)
			switch {
			case err == nil:
				ev.TenantID, ev.TenantIncarnation = tenant.String, incarnation.String
			case !errors.Is(err, sql.ErrNoRows):
				return fmt.Errorf("record %s: read endpoint: %w", ev.ID, err)
			}
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO hookd_outbox (id, type, tenant_id, tenant_incarnation, body, created_at, due_at, attempts, last_error)
			VALUES ($1, $2, $3, $4, $5, $6, $6, 0, '') ON CONFLICT (id) DO NOTHING`,
			ev.ID, ev.Type, ev.TenantID, ev.TenantIncarnation, string(ev.Body), now); err != nil {
			return fmt.Errorf("record %s: %w", ev.ID, err)
		}
	}
	return nil
}

// announced wakes the outbox publisher after a commit that recorded
// events.
func (s *Store) announced(events []store.OpEvent) {
	if len(events) == 0 {
		return
	}
	select {
	case s.outboxWake <- struct{}{}:
	default: // a wake-up is pending already
	}
}

// OutboxWake receives after a commit of this Store that recorded
// operational events.
func (s *Store) OutboxWake() <-chan struct{} { return s.outboxWake }

// ClaimOpEvents leases up to n events due by now, oldest first, by
// moving their due time to now+lease in one statement; on PostgreSQL
// the rows another claim holds are skipped (Dialect.SkipLocked).
func (s *Store) ClaimOpEvents(ctx context.Context, now time.Time, lease time.Duration, n int) ([]store.OpEvent, error) {
	var out []store.OpEvent
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `UPDATE hookd_outbox SET due_at = $1, attempts = attempts + 1
			WHERE id IN (SELECT id FROM hookd_outbox WHERE due_at <= $2 ORDER BY due_at, id LIMIT $3`+s.dialect.SkipLocked+`)
			RETURNING id, type, tenant_id, tenant_incarnation, body, created_at, attempts`,
			now.Add(lease).UnixNano(), now.UnixNano(), n)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var (
				ev      store.OpEvent
				body    string
				created int64
			)
			if err := rows.Scan(&ev.ID, &ev.Type, &ev.TenantID, &ev.TenantIncarnation, &body, &created, &ev.Attempts); err != nil {
				return err
			}
			ev.Body, ev.CreatedAt = []byte(body), fromUnixNano(created)
			out = append(out, ev)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("claim outbox: %w", err)
	}
	slices.SortFunc(out, func(a, b store.OpEvent) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), strings.Compare(a.ID, b.ID))
	})
	return out, nil
}

// DeleteOpEvent removes a published event from the outbox.
func (s *Store) DeleteOpEvent(ctx context.Context, id string) error {
	if _, err := s.write.ExecContext(ctx, `DELETE FROM hookd_outbox WHERE id = $1`, id); err != nil {
		return fmt.Errorf("delete outbox %s: %w", id, err)
	}
	return nil
}

// RetryOpEvent makes an event due again at at and keeps lastError,
// truncated.
func (s *Store) RetryOpEvent(ctx context.Context, id string, at time.Time, lastError string) error {
	if len(lastError) > maxOutboxError {
		lastError = strings.ToValidUTF8(lastError[:maxOutboxError], "")
	}
	if _, err := s.write.ExecContext(ctx, `UPDATE hookd_outbox SET due_at = $2, last_error = $3 WHERE id = $1`, id, at.UnixNano(), lastError); err != nil {
		return fmt.Errorf("retry outbox %s: %w", id, err)
	}
	return nil
}
