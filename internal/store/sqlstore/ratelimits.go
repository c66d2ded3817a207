package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/hookd/hookd/internal/store"
)

// reserveSQL moves the endpoint's theoretical arrival time (TAT) one
// interval ($4) past the later of itself and now ($3), in one statement,
// and returns it. A TAT kept under an older limit (since below $2) starts
// again from now; a reader of an older limit than the row's reserves
// under the row's.
const reserveSQL = `INSERT INTO hookd_rate_slots (endpoint_id, since, tat)
	VALUES ($1, $2, CAST($3 AS BIGINT) + CAST($4 AS BIGINT))
	ON CONFLICT (endpoint_id) DO UPDATE SET
		tat = CASE WHEN hookd_rate_slots.since < excluded.since OR hookd_rate_slots.tat < CAST($3 AS BIGINT)
			THEN CAST($3 AS BIGINT) ELSE hookd_rate_slots.tat END + CAST($4 AS BIGINT),
		since = CASE WHEN hookd_rate_slots.since < excluded.since THEN excluded.since ELSE hookd_rate_slots.since END
	RETURNING tat`

// ReserveSlot reserves the endpoint's next slot under limit at now: one
// conditional upsert, so every worker process reserves from the same TAT.
func (s *Store) ReserveSlot(ctx context.Context, endpointID string, limit store.RateLimit, now time.Time) (store.Slot, error) {
	var tat int64
	err := s.write.QueryRowContext(ctx, reserveSQL, endpointID, unixNano(limit.Since), now.UnixNano(), int64(limit.Interval())).Scan(&tat)
	if err != nil {
		return store.Slot{}, fmt.Errorf("reserve a slot of %s: %w", endpointID, err)
	}
	return store.Slot{At: limit.SlotAt(fromUnixNano(tat), now), Since: limit.Since}, nil
}

// RateTAT returns the endpoint's TAT under the limit set at since, zero
// when it has reserved none under it.
func (s *Store) RateTAT(ctx context.Context, endpointID string, since time.Time) (time.Time, error) {
	var tat, at int64
	err := s.read.QueryRowContext(ctx, `SELECT since, tat FROM hookd_rate_slots WHERE endpoint_id = $1`, endpointID).Scan(&at, &tat)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && at != unixNano(since)) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("read the slots of %s: %w", endpointID, err)
	}
	return fromUnixNano(tat), nil
}
