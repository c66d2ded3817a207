package receiver

import (
	"context"
	"database/sql"
	"fmt"
)

// Table names the kit uses.
const (
	InboxTable      = "hookd_inbox"
	QuarantineTable = "hookd_quarantine"
)

// Inbox row states.
const (
	StatePending    = "pending"
	StateProcessing = "processing"
	StateCompleted  = "completed"
	StateFailed     = "failed"
)

// Migrate creates the inbox and quarantine tables in db if they do not
// exist. It is idempotent; call it at start-up. Times are stored as unix
// milliseconds so both dialects read them back the same way.
func Migrate(ctx context.Context, db *sql.DB, dialect Dialect) error {
	if err := dialect.validate(); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	blob, serial := dialect.types()
	stmts := []string{
		`CREATE TABLE IF NOT EXISTS ` + InboxTable + ` (
			delivery_id     TEXT PRIMARY KEY,
			event_type      TEXT NOT NULL,
			event_id        TEXT NOT NULL,
			digest          TEXT NOT NULL,
			body            ` + blob + ` NOT NULL,
			signed_at       BIGINT NOT NULL,
			received_at     BIGINT NOT NULL,
			state           TEXT NOT NULL,
			attempts        INTEGER NOT NULL DEFAULT 0,
			next_attempt_at BIGINT,
			lease_until     BIGINT,
			last_error      TEXT,
			updated_at      BIGINT NOT NULL
		)`,
		`CREATE INDEX IF NOT EXISTS ` + InboxTable + `_due ON ` + InboxTable + ` (state, next_attempt_at)`,
		`CREATE TABLE IF NOT EXISTS ` + QuarantineTable + ` (
			id          ` + serial + `,
			delivery_id TEXT NOT NULL,
			event_type  TEXT NOT NULL,
			event_id    TEXT NOT NULL,
			digest      TEXT NOT NULL,
			body        ` + blob + ` NOT NULL,
			received_at BIGINT NOT NULL,
			seen        INTEGER NOT NULL DEFAULT 1,
			UNIQUE (delivery_id, digest)
		)`,
	}
	for _, s := range stmts {
		if _, err := db.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
	}
	return nil
}
