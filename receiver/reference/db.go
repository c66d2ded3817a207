package reference

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/hookd/hookd/receiver"
)

// effectsSchema is the business effect: one row per processed delivery.
// delivery_id is deliberately not unique, so a second effect for one
// delivery would show rather than fail: exactly-once is the inbox's job.
const effectsSchema = `CREATE TABLE IF NOT EXISTS effects (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
	delivery_id TEXT NOT NULL,
	event_type  TEXT NOT NULL,
	event_id    TEXT NOT NULL,
	created_at  INTEGER NOT NULL
)`

// openDB opens and migrates the SQLite database at path ("" = in memory).
// One connection serialises the writers, and keeps an in-memory database
// alive.
func openDB(ctx context.Context, path string) (*sql.DB, error) {
	dsn := ":memory:"
	if path != "" {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, fmt.Errorf("create the receiver db's directory: %w", err)
		}
		dsn = "file:" + (&url.URL{Path: path}).EscapedPath()
	}
	dsn += "?_pragma=busy_timeout(10000)&_pragma=journal_mode(wal)&_pragma=synchronous(normal)&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open receiver db: %w", err)
	}
	db.SetMaxOpenConns(1)
	if err := receiver.Migrate(ctx, db, receiver.SQLite); err != nil {
		db.Close()
		return nil, err
	}
	if _, err := db.ExecContext(ctx, effectsSchema); err != nil {
		db.Close()
		return nil, fmt.Errorf("create effects table: %w", err)
	}
	return db, nil
}

// writeEffect is the receiver's business work, run in the inbox transaction.
func writeEffect(tx *sql.Tx, d *receiver.Delivery) error {
	_, err := tx.Exec(`INSERT INTO effects (delivery_id, event_type, event_id, created_at) VALUES (?, ?, ?, ?)`,
		d.ID, d.EventType, d.EventID, time.Now().UnixMilli())
	if err != nil {
		return fmt.Errorf("write effect: %w", err)
	}
	return nil
}
