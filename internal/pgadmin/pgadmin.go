// Package pgadmin creates the PostgreSQL databases hookd needs when they
// do not exist yet: the endpoint store's (hookd serve, worker, api) and
// the embedded Temporal server's two (hookd dev --only-temporal
// --temporal-database-url). It connects to the server's "postgres"
// database with the same credentials; errors name the host, never the URL
// (it may hold a password).
package pgadmin

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
)

// SQLSTATEs this package tells apart.
const (
	duplicateDatabase  = "42P04"
	invalidCatalogName = "3D000" // the database does not exist
	uniqueViolation    = "23505" // of two CREATE DATABASE at once, the later one
)

// IsMissingDatabase reports whether err is PostgreSQL's "database does not
// exist".
func IsMissingDatabase(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == invalidCatalogName
}

// DatabaseName returns the database rawURL names (its path), and false
// when it names none.
func DatabaseName(rawURL string) (string, bool) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "", false
	}
	name := strings.TrimPrefix(u.Path, "/")
	return name, name != ""
}

// CreateDatabases creates those of names that do not exist yet on the
// server rawURL points at.
func CreateDatabases(ctx context.Context, rawURL string, names ...string) error {
	u, err := url.Parse(rawURL)
	if err != nil {
		return errors.New("PostgreSQL URL: cannot parse it")
	}
	u.Path = "/postgres"
	db, err := sql.Open("pgx", u.String())
	if err != nil {
		return fmt.Errorf("connect to PostgreSQL at %s: %w", u.Host, err)
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for _, name := range names {
		var exists bool
		if err := db.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
			return fmt.Errorf("look up database %s at %s: %w", name, u.Host, err)
		}
		if exists {
			continue
		}
		_, err := db.ExecContext(ctx, `CREATE DATABASE "`+strings.ReplaceAll(name, `"`, `""`)+`"`)
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && (pgErr.Code == duplicateDatabase || pgErr.Code == uniqueViolation) {
			continue // another process created it first
		}
		if err != nil {
			return fmt.Errorf("create database %s at %s: %w", name, u.Host, err)
		}
	}
	return nil
}
