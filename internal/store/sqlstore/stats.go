package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
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

// AddStats adds every delta to its endpoint's row for that minute, all in
// one transaction: one statement per endpoint and minute, however many
// attempts the delta counts.
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

// PruneStats deletes the rows of minutes that started before before and
// returns how many it deleted.
func (s *Store) PruneStats(ctx context.Context, before time.Time) (int64, error) {
	res, err := s.write.ExecContext(ctx, `DELETE FROM hookd_endpoint_stats WHERE minute < $1`, before.UnixNano())
	if err != nil {
		return 0, fmt.Errorf("prune stats: %w", err)
	}
	n, _ := res.RowsAffected()
	return n, nil
}

// SetAlert raises (active) or clears an endpoint's alert of a kind and
// reports whether this call changed it. The change is one conditional
// statement, so when several processes evaluate the same figures at once
// exactly one of them sees changed and announces it. Clearing an alert
// never raised changes nothing.
func (s *Store) SetAlert(ctx context.Context, endpointID, kind string, active bool, at time.Time) (bool, error) {
	var (
		res sql.Result
		err error
	)
	if active {
		res, err = s.write.ExecContext(ctx, `INSERT INTO hookd_endpoint_alerts (endpoint_id, kind, active, changed_at)
			VALUES ($1, $2, $3, $4)
			ON CONFLICT (endpoint_id, kind) DO UPDATE SET active = excluded.active, changed_at = excluded.changed_at
			WHERE hookd_endpoint_alerts.active = $5`, endpointID, kind, true, at.UnixNano(), false)
	} else {
		res, err = s.write.ExecContext(ctx, `UPDATE hookd_endpoint_alerts SET active = $1, changed_at = $2
			WHERE endpoint_id = $3 AND kind = $4 AND active = $5`, false, at.UnixNano(), endpointID, kind, true)
	}
	if err != nil {
		return false, fmt.Errorf("set %s alert of %s: %w", kind, endpointID, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("set %s alert of %s: %w", kind, endpointID, err)
	}
	return n == 1, nil
}
