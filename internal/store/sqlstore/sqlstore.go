// Package sqlstore implements store.Store on database/sql, once for every
// SQL database hookd supports. The SQL is written to run unchanged on SQLite
// and PostgreSQL ($n placeholders, row-value comparisons, times as Unix
// nanoseconds in BIGINT columns, lists and maps as JSON text); what does
// differ is a Dialect. The sqlite and postgres packages open connections and
// pass them here.
package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/hookd/hookd/internal/store"
	"github.com/hookd/hookd/internal/store/secretbox"
)

// Store is a store.Store on SQL connections. It is safe for concurrent use.
type Store struct {
	read    *sql.DB
	write   *sql.DB
	box     *secretbox.Box
	dialect Dialect
	// The reads made per delivery, event or request, prepared once:
	// parsing the SQL is most of the cost of these queries on SQLite.
	getEndpoint, getSecrets, changeVersions, tenantOfToken, readAttempt *sql.Stmt
	// versions shares the change counters' reads among concurrent events.
	versions versionReads
	matches  matchCache
	// outboxWake holds one pending wake-up of the outbox publisher.
	outboxWake chan struct{}
}

var _ store.Store = (*Store)(nil)

// Config says which connections a Store uses.
type Config struct {
	// Read serves queries. Required.
	Read *sql.DB
	// Write serves changes and migrations; nil means Read.
	Write *sql.DB
	// Dialect describes the database. Required.
	Dialect Dialect
	// Key is the 32-byte master key that encrypts secrets. Required.
	Key []byte
}

// New migrates the schema to the newest version and returns a Store. It
// takes ownership of the connections: Close closes them, and so does New
// when it fails.
func New(ctx context.Context, cfg Config) (*Store, error) {
	s := &Store{read: cfg.Read, write: cfg.Write, dialect: cfg.Dialect, outboxWake: make(chan struct{}, 1)}
	if s.write == nil {
		s.write = s.read
	}
	err := s.init(ctx, cfg)
	if err != nil {
		err = errors.Join(fmt.Errorf("open %s store: %w", cfg.Dialect.Name, err), s.Close())
		return nil, err
	}
	return s, nil
}

func (s *Store) init(ctx context.Context, cfg Config) error {
	if s.read == nil {
		return errors.New("no database connection")
	}
	if cfg.Dialect.Name == "" {
		return errors.New("no dialect")
	}
	box, err := secretbox.New(cfg.Key)
	if err != nil {
		return err
	}
	s.box = box
	if err := s.migrate(ctx); err != nil {
		return err
	}
	for stmt, query := range map[**sql.Stmt]string{
		&s.getEndpoint: getEndpointSQL, &s.getSecrets: getSecretsSQL,
		&s.changeVersions: changeVersionsSQL, &s.tenantOfToken: tenantOfTokenSQL,
		&s.readAttempt: readForAttemptSQL,
	} {
		if *stmt, err = s.read.PrepareContext(ctx, query); err != nil {
			return fmt.Errorf("prepare: %w", err)
		}
	}
	s.versions.read = func(ctx context.Context) (v versions, err error) {
		err = s.changeVersions.QueryRowContext(ctx).Scan(&v.endpoints, &v.eventTypes)
		return v, err
	}
	return nil
}

// Close closes the store's connections.
func (s *Store) Close() error {
	var errs []error
	for _, stmt := range []*sql.Stmt{s.getEndpoint, s.getSecrets, s.changeVersions, s.tenantOfToken, s.readAttempt} {
		if stmt != nil {
			errs = append(errs, stmt.Close())
		}
	}
	if s.read != nil {
		errs = append(errs, s.read.Close())
	}
	if s.write != nil && s.write != s.read {
		errs = append(errs, s.write.Close())
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("close %s store: %w", s.dialect.Name, err)
	}
	return nil
}

// inTx runs fn in a transaction on the write connection and commits it when
// fn succeeds.
func (s *Store) inTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		return errors.Join(err, ignoreDone(tx.Rollback()))
	}
	return tx.Commit()
}

func ignoreDone(err error) error {
	if errors.Is(err, sql.ErrTxDone) {
		return nil
	}
	return err
}

// WrittenRows returns how many rows the store's writer connection has
// inserted, updated or deleted since it opened, where the dialect can say
// (Dialect.WrittenRows): what a benchmark counts store writes with.
func (s *Store) WrittenRows(ctx context.Context) (int64, error) {
	if s.dialect.WrittenRows == "" {
		return 0, fmt.Errorf("%s: written rows: not counted", s.dialect.Name)
	}
	var n int64
	if err := s.write.QueryRowContext(ctx, s.dialect.WrittenRows).Scan(&n); err != nil {
		return 0, fmt.Errorf("%s: written rows: %w", s.dialect.Name, err)
	}
	return n, nil
}
