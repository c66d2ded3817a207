package receiver

import (
	"context"
	"fmt"
	"time"
)

// maxErrorLen caps the last_error stored for a failed row.
const maxErrorLen = 1000

// A row's next_attempt_at is when it is next eligible for a claim: the
// receive time while pending, the retry time while failed, the lease expiry
// while processing; NULL once completed or out of attempts.
const dueCondition = `(state IN ('` + StatePending + `', '` + StateFailed + `', '` + StateProcessing + `') AND next_attempt_at <= ?)`

// claimed is a row this worker holds until its lease expires.
type claimed struct {
	d        *Delivery
	attempts int // fencing token: the row is ours while attempts is unchanged
}

// claim takes one row due at cutoff, atomically marking it processing.
// It returns sql.ErrNoRows when nothing is due.
func (w *Worker) claim(ctx context.Context, cutoff time.Time) (*claimed, error) {
	now := w.opts.Now()
	due := cutoff.UnixMilli()
	row := w.db.QueryRowContext(ctx, w.dialect.rebind(`UPDATE `+InboxTable+`
		SET state = '`+StateProcessing+`', attempts = attempts + 1, next_attempt_at = ?, updated_at = ?
		WHERE delivery_id = (SELECT delivery_id FROM `+InboxTable+` WHERE `+dueCondition+`
			ORDER BY next_attempt_at LIMIT 1`+w.dialect.skipLocked()+`)
		AND `+dueCondition+`
		RETURNING delivery_id, event_type, event_id, digest, body, signed_at, attempts`),
		now.Add(w.opts.Lease).UnixMilli(), now.UnixMilli(), due, due)
	d := &Delivery{}
	var signedAt int64
	c := &claimed{d: d}
	if err := row.Scan(&d.ID, &d.EventType, &d.EventID, &d.Digest, &d.Body, &signedAt, &c.attempts); err != nil {
		return nil, fmt.Errorf("claim inbox row: %w", err)
	}
	d.Timestamp = time.UnixMilli(signedAt)
	return c, nil
}

// finish records the outcome of an attempt, if the row is still ours.
func (w *Worker) finish(ctx context.Context, c *claimed, procErr error) error {
	now := w.opts.Now()
	var (
		state   = StateCompleted
		next    *int64
		lastErr *string
	)
	if procErr != nil {
		state = StateFailed
		msg := procErr.Error()
		if len(msg) > maxErrorLen {
			msg = msg[:maxErrorLen]
		}
		lastErr = &msg
		if c.attempts < w.opts.MaxAttempts && !IsPermanent(procErr) {
			at := now.Add(max(w.opts.Backoff(c.attempts), time.Millisecond)).UnixMilli()
			next = &at
		}
	}
	res, err := w.db.ExecContext(ctx, w.dialect.rebind(`UPDATE `+InboxTable+`
		SET state = ?, next_attempt_at = ?, last_error = ?, updated_at = ?
		WHERE delivery_id = ? AND state = '`+StateProcessing+`' AND attempts = ?`),
		state, next, lastErr, now.UnixMilli(), c.d.ID, c.attempts)
	if err != nil {
		return fmt.Errorf("record attempt %d of %s: %w", c.attempts, c.d.ID, err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		w.opts.Logger.WarnContext(ctx, "inbox row lease lost", "webhook_id", c.d.ID, "attempt", c.attempts)
	}
	return nil
}
