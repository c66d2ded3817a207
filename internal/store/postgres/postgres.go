// Package postgres opens hookd's endpoint store in a PostgreSQL database,
// the production setup shared by every hookd worker and API process. It
// uses pgx through database/sql. Its tables are prefixed hookd_, so the
// store can share a database with other applications.
package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver

	"github.com/hookd/hookd/internal/pgadmin"
	"github.com/hookd/hookd/internal/store/sqlstore"
)

// Dialect is PostgreSQL's sqlstore.Dialect. A transaction-scoped advisory
// lock keeps processes that start together from migrating twice.
var Dialect = sqlstore.Dialect{
	Name:          "postgres",
	BlobType:      "BYTEA",
	MigrationLock: "SELECT pg_advisory_xact_lock(7525356009395545456)", // "hookd_ep" as an int64
	LockRow:       " FOR UPDATE",
	SkipLocked:    " FOR UPDATE SKIP LOCKED",
	WritableCTEs:  true,
}

// MaxConns bounds the connections one process opens.
const MaxConns = 16

// Open connects to the database at url (postgres://user:pass@host:port/db?...
// or any key=value form pgx accepts), migrates its schema and returns a
// store whose secrets are encrypted with the 32-byte master key.
func Open(ctx context.Context, url string, key []byte) (*sqlstore.Store, error) {
	db, err := sql.Open("pgx", url)
	if err != nil {
		return nil, fmt.Errorf("open postgres store: %w", err)
	}
	db.SetMaxOpenConns(MaxConns)
	db.SetMaxIdleConns(MaxConns)
	db.SetConnMaxIdleTime(5 * time.Minute)
	err = db.PingContext(ctx)
	if name, ok := pgadmin.DatabaseName(url); ok && pgadmin.IsMissingDatabase(err) {
		// A new deployment: the endpoint store's database is created here,
		// as its tables are by the migrations.
		if err = pgadmin.CreateDatabases(ctx, url, name); err == nil {
			err = db.PingContext(ctx)
		}
	}
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open postgres store: %w", err)
	}
	return sqlstore.New(ctx, sqlstore.Config{Read: db, Dialect: Dialect, Key: key})
}
