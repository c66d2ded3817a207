// Package sqlite opens hookd's endpoint store in an SQLite file, the
// embedded default of `hookd dev`. It uses the pure-Go modernc.org/sqlite
// driver in WAL mode: one writer connection, so writes never contend for the
// database lock inside a process, and a pool of read-only connections, so
// the delivery activity's reads run in parallel with writes.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/hookd/hookd/internal/store/sqlstore"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// Dialect is SQLite's sqlstore.Dialect. The writer connection's
// BEGIN IMMEDIATE serialises migrations, so it needs no lock statement.
// An expunge checkpoints the write-ahead log and truncates it, so the
// frames that held the erased row are gone from the -wal file.
var Dialect = sqlstore.Dialect{Name: "sqlite", BlobType: "BLOB", AfterErase: "PRAGMA wal_checkpoint(TRUNCATE)", WrittenRows: "SELECT total_changes()"}

// pragmas apply to every connection. busy_timeout lets another process's
// writer finish; synchronous=normal is durable in WAL mode except for the
// last commits before a power loss; foreign_keys enables the cascade from an
// endpoint to its secrets. The writer's secure_delete overwrites what a
// change frees with zeros, so an expunged payload leaves no copy in the
// file's free space.
const pragmas = "_pragma=busy_timeout(10000)&_pragma=journal_mode(wal)&_pragma=synchronous(normal)&_pragma=foreign_keys(1)"

// Open opens (creating it and its directory when missing) the SQLite
// database at path, migrates its schema and returns a store whose secrets
// are encrypted with the 32-byte master key.
func Open(ctx context.Context, path string, key []byte) (*sqlstore.Store, error) {
	write, read, err := openDBs(path)
	if err != nil {
		return nil, fmt.Errorf("open sqlite store: %w", err)
	}
	return sqlstore.New(ctx, sqlstore.Config{Read: read, Write: write, Dialect: Dialect, Key: key})
}

func openDBs(path string) (write, read *sql.DB, err error) {
	if path == "" || strings.ContainsRune(path, '?') || strings.HasPrefix(path, "file:") {
		return nil, nil, fmt.Errorf("database path %q must be a plain file name without '?'", path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, nil, err
	}
	// The store holds sealed secrets: its file is private from the start,
	// and SQLite gives its journal files the database's mode.
	if f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600); err == nil {
		_ = f.Close()
	} else if !errors.Is(err, os.ErrExist) {
		return nil, nil, err
	}
	write, err = sql.Open("sqlite", path+"?"+pragmas+"&_pragma=secure_delete(1)&_txlock=immediate")
	if err != nil {
		return nil, nil, err
	}
	write.SetMaxOpenConns(1)
	write.SetConnMaxIdleTime(0)
	read, err = sql.Open("sqlite", path+"?"+pragmas+"&_pragma=query_only(1)")
	if err != nil {
		return nil, nil, errors.Join(err, write.Close())
	}
	readers := max(4, runtime.GOMAXPROCS(0))
	read.SetMaxOpenConns(readers)
	read.SetMaxIdleConns(readers)
	return write, read, nil
}
