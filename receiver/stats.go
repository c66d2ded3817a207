package receiver

import (
	"context"
	"fmt"
)

// Stats counts the inbox rows by state and the quarantined bodies.
type Stats struct {
	Pending    int64 `json:"pending"`
	Processing int64 `json:"processing"`
	Completed  int64 `json:"completed"`
	Failed     int64 `json:"failed"`
	// Quarantined is the number of distinct (delivery ID, digest) pairs in
	// quarantine; QuarantineHits counts every request that hit one.
	Quarantined    int64 `json:"quarantined"`
	QuarantineHits int64 `json:"quarantine_hits"`
}

// Stats reads the durable counts.
func (in *Inbox) Stats(ctx context.Context) (Stats, error) {
	var s Stats
	rows, err := in.db.QueryContext(ctx, `SELECT state, COUNT(*) FROM `+InboxTable+` GROUP BY state`)
	if err != nil {
		return s, fmt.Errorf("inbox stats: %w", err)
	}
	defer rows.Close()
	byState := map[string]*int64{
		StatePending: &s.Pending, StateProcessing: &s.Processing,
		StateCompleted: &s.Completed, StateFailed: &s.Failed,
	}
	for rows.Next() {
		var state string
		var n int64
		if err := rows.Scan(&state, &n); err != nil {
			return s, fmt.Errorf("inbox stats: %w", err)
		}
		if p, ok := byState[state]; ok {
			*p = n
		}
	}
	if err := rows.Err(); err != nil {
		return s, fmt.Errorf("inbox stats: %w", err)
	}
	err = in.db.QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(SUM(seen), 0) FROM `+QuarantineTable).
		Scan(&s.Quarantined, &s.QuarantineHits)
	if err != nil {
		return s, fmt.Errorf("quarantine stats: %w", err)
	}
	return s, nil
}
