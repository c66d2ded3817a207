package receiver

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"
)

// Outcome says what Inbox.Accept did with a delivery.
type Outcome int

// Outcomes of Inbox.Accept.
const (
	// Accepted: a new delivery; its inbox row and the caller's work are
	// committed together.
	Accepted Outcome = iota + 1
	// Duplicate: the ID was seen before with the same digest; nothing was
	// written and the work did not run.
	Duplicate
	// Quarantined: the ID was seen before with a different digest; the new
	// body is kept in the quarantine table, the work did not run.
	Quarantined
)

// String returns "accepted", "duplicate" or "quarantined".
func (o Outcome) String() string {
	switch o {
	case Accepted:
		return "accepted"
	case Duplicate:
		return "duplicate"
	case Quarantined:
		return "quarantined"
	}
	return fmt.Sprintf("Outcome(%d)", int(o))
}

// WorkFunc is the caller's own work for a new delivery, run inside the
// inbox transaction: write through tx only, so the work commits or rolls
// back together with the inbox row. An error rolls both back.
type WorkFunc func(tx *sql.Tx, d *Delivery) error

// Inbox is the durable record of received deliveries. It is safe for
// concurrent use.
type Inbox struct {
	db          *sql.DB
	dialect     Dialect
	quarantined atomic.Int64
	// Logger receives failures of Handler; nil means slog.Default. It never
	// sees a body.
	Logger *slog.Logger
}

// NewInbox returns an Inbox on db, whose tables Migrate has created.
func NewInbox(db *sql.DB, dialect Dialect) (*Inbox, error) {
	if err := dialect.validate(); err != nil {
		return nil, fmt.Errorf("new inbox: %w", err)
	}
	return &Inbox{db: db, dialect: dialect}, nil
}

// Accept records d and runs work (which may be nil) in one transaction:
//
//   - a new ID: insert the inbox row (state pending) and run work; commit;
//     Accepted. Answer 2xx only after this returns without error.
//   - a known ID with the same digest: Duplicate; nothing is written and
//     work is not called.
//   - a known ID with a different digest: the body is kept in the
//     quarantine table (repeats counted in its seen column), Quarantined;
//     work is not called, and the original row is untouched.
//
// d must come from Verify: the inbox trusts the ID only because the
// signature matched.
func (in *Inbox) Accept(ctx context.Context, d *Delivery, work WorkFunc) (Outcome, error) {
	tx, err := in.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("accept delivery %s: begin: %w", d.ID, err)
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	outcome, err := in.accept(ctx, tx, d, work)
	if err != nil {
		return 0, fmt.Errorf("accept delivery %s: %w", d.ID, err)
	}
	if outcome == Duplicate {
		return Duplicate, nil
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("accept delivery %s: commit: %w", d.ID, err)
	}
	if outcome == Quarantined {
		in.quarantined.Add(1)
	}
	return outcome, nil
}

func (in *Inbox) accept(ctx context.Context, tx *sql.Tx, d *Delivery, work WorkFunc) (Outcome, error) {
	now := time.Now().UnixMilli()
	res, err := tx.ExecContext(ctx, in.dialect.rebind(`INSERT INTO `+InboxTable+
		` (delivery_id, event_type, event_id, digest, body, signed_at, received_at, state, attempts, next_attempt_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, '`+StatePending+`', 0, ?, ?)
		ON CONFLICT (delivery_id) DO NOTHING`),
		d.ID, d.EventType, d.EventID, d.Digest, d.Body, d.Timestamp.UnixMilli(), now, now, now)
	if err != nil {
		return 0, fmt.Errorf("insert inbox row: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("insert inbox row: %w", err)
	}
	if n == 1 {
		if work != nil {
			if err := work(tx, d); err != nil {
				return 0, fmt.Errorf("work: %w", err)
			}
		}
		return Accepted, nil
	}
	var digest string
	err = tx.QueryRowContext(ctx, in.dialect.rebind(`SELECT digest FROM `+InboxTable+` WHERE delivery_id = ?`), d.ID).Scan(&digest)
	if err != nil {
		return 0, fmt.Errorf("read inbox row: %w", err)
	}
	if digest == d.Digest {
		return Duplicate, nil
	}
	_, err = tx.ExecContext(ctx, in.dialect.rebind(`INSERT INTO `+QuarantineTable+
		` (delivery_id, event_type, event_id, digest, body, received_at) VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (delivery_id, digest) DO UPDATE SET seen = `+QuarantineTable+`.seen + 1`),
		d.ID, d.EventType, d.EventID, d.Digest, d.Body, now)
	if err != nil {
		return 0, fmt.Errorf("quarantine: %w", err)
	}
	return Quarantined, nil
}

// QuarantinedCount returns how many deliveries this Inbox quarantined since
// it was created. Stats gives the durable count.
func (in *Inbox) QuarantinedCount() int64 {
	return in.quarantined.Load()
}

// ErrNoDelivery reports a request that reached Inbox.Handler without a
// verified delivery in its context: the handler is not behind Middleware.
var ErrNoDelivery = errors.New("no verified delivery in request context")
