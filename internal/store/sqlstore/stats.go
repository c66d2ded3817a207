package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hookd/hookd/internal/store"
)

// Attempt statistics: one row per endpoint and minute in
// hookd_endpoint_stats, which every process adds its observations to, and
// the alert flags in hookd_endpoint_alerts.

var _ store.Stats = (*Store)(nil)

// latencyColumns are the latency bucket columns l0 .. l{n-1}.
var latencyColumns = func() []string {
	cols := make([]string, store.LatencyBuckets)
	for i := range cols {
		cols[i] = fmt.Sprintf("l%d", i)
	}
	return cols
}()

// addStatsSQL inserts a delta or adds it to the row already there.
var addStatsSQL = func() string {
	cols := append([]string{"endpoint_id", "minute", "attempts", "successes"}, latencyColumns...)
	params := make([]string, len(cols))
	sets := make([]string, 0, len(cols)-2)
	for i, c := range cols {
		params[i] = fmt.Sprintf("$%d", i+1)
		if i >= 2 {
			sets = append(sets, fmt.Sprintf("%s = hookd_endpoint_stats.%s + excluded.%s", c, c, c))
		}
	}
	return `INSERT INTO hookd_endpoint_stats (` + strings.Join(cols, ", ") + `) VALUES (` + strings.Join(params, ", ") + `)
		ON CONFLICT (endpoint_id, minute) DO UPDATE SET ` + strings.Join(sets, ", ")
}()

// sumStatsSQL sums an endpoint's rows from a minute on.
var sumStatsSQL = func() string {
	sums := make([]string, 0, 2+len(latencyColumns))
	for _, c := range append([]string{"attempts", "successes"}, latencyColumns...) {
		sums = append(sums, fmt.Sprintf("CAST(COALESCE(SUM(%s), 0) AS BIGINT)", c))
	}
	return `SELECT ` + strings.Join(sums, ", ") + ` FROM hookd_endpoint_stats WHERE endpoint_id = $1 AND minute >= $2`
}()

// addHourSQL adds a delta to its endpoint's hourly row.
const addHourSQL = `INSERT INTO hookd_endpoint_stats_hourly (endpoint_id, hour, attempts, successes, retryable)
	VALUES ($1, $2, $3, $4, $5) ON CONFLICT (endpoint_id, hour) DO UPDATE SET
	attempts = hookd_endpoint_stats_hourly.attempts + excluded.attempts,
	successes = hookd_endpoint_stats_hourly.successes + excluded.successes,
	retryable = hookd_endpoint_stats_hourly.retryable + excluded.retryable`

// AddStats adds every delta to its endpoint's row for that minute and to
// its row for that hour, all in one transaction: two statements per
// endpoint and minute, however many attempts the delta counts.
func (s *Store) AddStats(ctx context.Context, deltas []store.StatsDelta) error {
	if len(deltas) == 0 {
		return nil
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		stmt, err := tx.PrepareContext(ctx, addStatsSQL)
		if err != nil {
			return err
		}
		defer stmt.Close()
		hourly, err := tx.PrepareContext(ctx, addHourSQL)
		if err != nil {
			return err
		}
		defer hourly.Close()
		for _, d := range deltas {
			if len(d.Latency) != store.LatencyBuckets {
				return fmt.Errorf("endpoint %s: %d latency buckets, want %d", d.EndpointID, len(d.Latency), store.LatencyBuckets)
			}
			args := make([]any, 0, 4+store.LatencyBuckets)
			args = append(args, d.EndpointID, d.Minute.Truncate(time.Minute).UnixNano(), d.Attempts, d.Successes)
			for _, n := range d.Latency {
				args = append(args, n)
			}
			if _, err := stmt.ExecContext(ctx, args...); err != nil {
				return err
			}
			hour := d.Minute.UTC().Truncate(time.Hour).UnixNano()
			if _, err := hourly.ExecContext(ctx, d.EndpointID, hour, d.Attempts, d.Successes, d.Retryable); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("add stats: %w", err)
	}
	return nil
}

// StatsSince sums the endpoint's attempts in the minutes starting at or
// after since; an endpoint with none has zero totals.
func (s *Store) StatsSince(ctx context.Context, endpointID string, since time.Time) (store.StatsTotals, error) {
	out := store.StatsTotals{Latency: make([]int64, store.LatencyBuckets)}
	dest := []any{&out.Attempts, &out.Successes}
	for i := range out.Latency {
		dest = append(dest, &out.Latency[i])
	}
	if err := s.read.QueryRowContext(ctx, sumStatsSQL, endpointID, since.Truncate(time.Minute).UnixNano()).Scan(dest...); err != nil {
		return store.StatsTotals{}, fmt.Errorf("read stats of %s: %w", endpointID, err)
	}
	return out, nil
}

// PruneStats deletes the rows of minutes that started before before, and
// of hours that started more than store.HourlyKeep before it, and returns
// how many it deleted.
func (s *Store) PruneStats(ctx context.Context, before time.Time) (int64, error) {
	res, err := s.write.ExecContext(ctx, `DELETE FROM hookd_endpoint_stats WHERE minute < $1`, before.UnixNano())
	if err != nil {
		return 0, fmt.Errorf("prune stats: %w", err)
	}
	n, _ := res.RowsAffected()
	res, err = s.write.ExecContext(ctx, `DELETE FROM hookd_endpoint_stats_hourly WHERE hour < $1`, before.Add(-store.HourlyKeep).UnixNano())
	if err != nil {
		return n, fmt.Errorf("prune hourly stats: %w", err)
	}
	h, _ := res.RowsAffected()
	return n + h, nil
}

// HourlyStats reads the hourly rows of the tenant's endpoints (of one
// endpoint when endpointID names it) from the hour of since on: one
// indexed query joining the endpoints, so a deleted endpoint's rows are
// left out.
func (s *Store) HourlyStats(ctx context.Context, tenantID, endpointID string, since time.Time) ([]store.StatsHour, error) {
	out, err := s.hourly(ctx, `h.endpoint_id, h.hour, h.attempts, h.successes, h.retryable`, "", tenantID, endpointID, since)
	// Sorted here: SQLite's sorter costs more than Go's.
	slices.SortFunc(out, func(a, b store.StatsHour) int {
		return cmp.Or(cmp.Compare(a.EndpointID, b.EndpointID), a.Hour.Compare(b.Hour))
	})
	return out, err
}

// HourlyTotals sums the hourly rows of the tenant's endpoints per hour,
// in the database: one row per hour, however many endpoints.
func (s *Store) HourlyTotals(ctx context.Context, tenantID string, since time.Time) ([]store.StatsHour, error) {
	return s.hourly(ctx, `'', h.hour, CAST(SUM(h.attempts) AS BIGINT), CAST(SUM(h.successes) AS BIGINT), CAST(SUM(h.retryable) AS BIGINT)`,
		` GROUP BY h.hour ORDER BY h.hour`, tenantID, "", since)
}

// hourly runs the hourly query selecting columns (an endpoint ID, the
// hour and the three counts) with tail after its conditions.
func (s *Store) hourly(ctx context.Context, columns, tail, tenantID, endpointID string, since time.Time) ([]store.StatsHour, error) {
	tenant, targs := tenantClause(store.OfTenant(tenantID), 2)
	q := `SELECT ` + columns + ` FROM hookd_endpoint_stats_hourly h JOIN hookd_endpoints e ON e.id = h.endpoint_id
		WHERE h.hour >= $1 AND ($2 = '' OR h.endpoint_id = $2)` + strings.ReplaceAll(tenant, "tenant_id", "e.tenant_id") + tail
	args := append([]any{since.UTC().Truncate(time.Hour).UnixNano(), endpointID}, targs...)
	rows, err := s.read.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("read hourly stats: %w", err)
	}
	defer rows.Close()
	var out []store.StatsHour
	for rows.Next() {
		var h store.StatsHour
		var hour int64
		if err := rows.Scan(&h.EndpointID, &hour, &h.Attempts, &h.Successes, &h.Retryable); err != nil {
			return nil, fmt.Errorf("read hourly stats: %w", err)
		}
		h.Hour = fromNanos(hour)
		out = append(out, h)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read hourly stats: %w", err)
	}
	return out, nil
}

// SetAlert raises (active) or clears an endpoint's alert of a kind and
// reports whether this call changed it. The change is one conditional
// statement, so when several processes evaluate the same figures at once
// exactly one of them sees changed and announces it: it records events
// in the outbox in the same transaction. Clearing an alert never raised
// changes nothing.
func (s *Store) SetAlert(ctx context.Context, endpointID, kind string, active bool, at time.Time, events ...store.OpEvent) (bool, error) {
	var changed bool
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var (
			res sql.Result
			err error
		)
		if active {
			res, err = tx.ExecContext(ctx, `INSERT INTO hookd_endpoint_alerts (endpoint_id, kind, active, changed_at)
			VALUES ($1, $2, $3, $4)
			ON CONFLICT (endpoint_id, kind) DO UPDATE SET active = excluded.active, changed_at = excluded.changed_at
			WHERE hookd_endpoint_alerts.active = $5`, endpointID, kind, true, at.UnixNano(), false)
		} else {
			res, err = tx.ExecContext(ctx, `UPDATE hookd_endpoint_alerts SET active = $1, changed_at = $2
			WHERE endpoint_id = $3 AND kind = $4 AND active = $5`, false, at.UnixNano(), endpointID, kind, true)
		}
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err != nil || n != 1 {
			return err
		}
		changed = true
		return recordOpEvents(ctx, tx, events)
	})
	if err != nil {
		return false, fmt.Errorf("set %s alert of %s: %w", kind, endpointID, err)
	}
	if changed {
		s.announced(events)
	}
	return changed, nil
}
