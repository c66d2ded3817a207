package embedded

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"strconv"
	"strings"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
	dbschemas "go.temporal.io/server/schema"
)

// pgDroppedIndexes is the table, in the visibility database, where the
// embedded server records each index of executions_visibility it dropped
// with the statement that creates it (pg_get_indexdef), so that it can
// create them again before Temporal's schema scripts run: a versioned
// script may name an index (DROP INDEX without IF EXISTS), and would
// fail on one that is gone.
const pgDroppedIndexes = "hookd_dropped_visibility_indexes"

// openDatabase opens database name on p's server with p's credentials
// and query parameters.
func (p Postgres) openDatabase(name string) (*sql.DB, error) {
	u, err := url.Parse(p.URL)
	if err != nil {
		return nil, errors.New("PostgreSQL URL: cannot parse it")
	}
	u.Path = "/" + name
	db, err := sql.Open("pgx", u.String())
	if err != nil {
		return nil, fmt.Errorf("connect to PostgreSQL at %s: %w", u.Host, err)
	}
	return db, nil
}

// dropPostgresVisibilityIndexes drops every valid, non-unique index of
// executions_visibility that keptVisibilityIndexes does not name, as
// tuneVisibility does for SQLite (73 in Temporal's PostgreSQL schema:
// every visibility write, two per delivery, maintains all of them). Each
// one's definition is recorded in pgDroppedIndexes in the transaction
// that drops it. Idempotent; it returns the number dropped.
func dropPostgresVisibilityIndexes(ctx context.Context, db *sql.DB) (dropped int, err error) {
	if err := createRecordTable(ctx, db, pgDroppedIndexes, "definition"); err != nil {
		return 0, err
	}
	indexes, err := namedDefinitions(ctx, db, `
		SELECT c.relname, pg_get_indexdef(i.indexrelid)
		FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
		WHERE i.indrelid = 'executions_visibility'::regclass
		  AND i.indisvalid AND NOT i.indisunique AND NOT i.indisprimary`)
	if err != nil {
		return 0, fmt.Errorf("list visibility indexes: %w", err)
	}
	for name, def := range indexes {
		if keptVisibilityIndexes[name] {
			continue
		}
		err := inTx(ctx, db, func(tx *sql.Tx) error {
			if _, err := tx.ExecContext(ctx, `INSERT INTO `+pgDroppedIndexes+` (name, definition) VALUES ($1, $2)
				ON CONFLICT (name) DO UPDATE SET definition = excluded.definition`, name, def); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, `DROP INDEX IF EXISTS `+quoteIdent(name))
			return err
		})
		if err != nil {
			return dropped, fmt.Errorf("drop visibility index %s: %w", name, err)
		}
		dropped++
	}
	return dropped, nil
}

// restorePostgresVisibilityIndexes creates again every index recorded in
// pgDroppedIndexes and forgets it. It returns the number restored.
func restorePostgresVisibilityIndexes(ctx context.Context, db *sql.DB) (restored int, err error) {
	if err := createRecordTable(ctx, db, pgDroppedIndexes, "definition"); err != nil {
		return 0, err
	}
	defs, err := namedDefinitions(ctx, db, `SELECT name, definition FROM `+pgDroppedIndexes)
	if err != nil {
		return 0, fmt.Errorf("list dropped visibility indexes: %w", err)
	}
	for name, def := range defs {
		create, ok := strings.CutPrefix(def, "CREATE INDEX ")
		if !ok {
			return restored, fmt.Errorf("restore visibility index %s: its recorded definition is not a CREATE INDEX", name)
		}
		err := inTx(ctx, db, func(tx *sql.Tx) error {
			if _, err := tx.ExecContext(ctx, "CREATE INDEX IF NOT EXISTS "+create); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, `DELETE FROM `+pgDroppedIndexes+` WHERE name = $1`, name)
			return err
		})
		if err != nil {
			return restored, fmt.Errorf("restore visibility index %s: %w", name, err)
		}
		restored++
	}
	return restored, nil
}

// querier is a database or a transaction.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// namedDefinitions runs query, which selects a name and a definition, and
// returns its rows by name.
func namedDefinitions(ctx context.Context, db querier, query string, args ...any) (map[string]string, error) {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var name, def string
		if err := rows.Scan(&name, &def); err != nil {
			return nil, err
		}
		out[name] = def
	}
	return out, rows.Err()
}

// createRecordTable creates, if missing, the table named table that
// records a definition (in column) by name.
func createRecordTable(ctx context.Context, db *sql.DB, table, column string) error {
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS `+table+` (
		name TEXT PRIMARY KEY,
		`+column+` TEXT NOT NULL)`); err != nil {
		return fmt.Errorf("create %s: %w", table, err)
	}
	return nil
}

func inTx(ctx context.Context, db *sql.DB, f func(*sql.Tx) error) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := f(tx); err != nil {
		return err
	}
	return tx.Commit()
}

func quoteIdent(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// newestSchemaVersion is the highest versioned directory (v1.14 -> 1.14)
// of the embedded schema schemaName.
func newestSchemaVersion(schemaName string) (string, error) {
	entries, err := fs.ReadDir(dbschemas.Assets(), schemaName+"/versioned")
	if err != nil {
		return "", fmt.Errorf("read embedded schema %s: %w", schemaName, err)
	}
	newest := ""
	for _, e := range entries {
		v, ok := strings.CutPrefix(e.Name(), "v")
		if e.IsDir() && ok && (newest == "" || versionLess(newest, v)) {
			newest = v
		}
	}
	if newest == "" {
		return "", fmt.Errorf("embedded schema %s has no versions", schemaName)
	}
	return newest, nil
}

// versionLess compares dotted versions ("1.9" < "1.14") numerically.
func versionLess(a, b string) bool {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < max(len(as), len(bs)); i++ {
		var x, y int
		if i < len(as) {
			x, _ = strconv.Atoi(as[i])
		}
		if i < len(bs) {
			y, _ = strconv.Atoi(bs[i])
		}
		if x != y {
			return x < y
		}
	}
	return false
}
