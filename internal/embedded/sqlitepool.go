package embedded

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"reflect"
	"sort"
	"strings"

	"github.com/jmoiron/sqlx"
	"go.temporal.io/server/common/config"
	"go.temporal.io/server/common/log"
	"go.temporal.io/server/common/metrics"
	persistencesql "go.temporal.io/server/common/persistence/sql"
	"go.temporal.io/server/common/persistence/sql/sqlplugin"
	"go.temporal.io/server/common/resolver"
)

// groupConns is how many statements database/sql lets wait at once for a
// file whose commits are shared: Temporal's visibility queue runs many
// tasks at once, and each waiting statement can join the next commit.
const groupConns = 64

// cacheStatements puts the prepared-statement cache (stmtCacheDriver) under
// the connection Temporal's SQLite plugin keeps for cfg's file.
//
// The plugin opens each file once per process, with the driver name fixed
// to modernc's "sqlite", and hands that one *sqlx.DB to every service from
// a pool keyed by DSN that never closes it. Temporal offers no hook for the
// driver, so this allocates the pool's entry before the server starts and
// replaces the *sql.DB inside it with one opened through the cache, on the
// same DSN (the same pragmas: WAL, synchronous=NORMAL, busy timeout) and the
// same pool limits. Reaching the *sqlx.DB takes one reflective read of the
// plugin's unexported field; go.temporal.io/server is pinned, and
// TestStatementCacheUnderTemporal fails if that field moves. Idempotent: a
// second start in one process finds the cache in place.
//
// With shareCommits, database/sql gets groupConns connections that all
// run on the one SQLite connection through a commitGroup, so statements
// written at once share a commit.
func cacheStatements(cfg *config.SQL, shareCommits bool) error {
	adb, err := persistencesql.NewSQLAdminDB(sqlplugin.DbKindUnknown, cfg,
		resolver.NewNoopResolver(), log.NewNoopLogger(), metrics.NoopMetricsHandler)
	if err != nil {
		return fmt.Errorf("open %s for the statement cache: %w", cfg.DatabaseName, err)
	}
	// adb's reference stays taken: the plugin's pool never closes a file
	// anyway, and releasing it would change nothing.
	x, err := pluginSQLX(adb)
	if err != nil {
		return err
	}
	if _, ok := x.DB.Driver().(*stmtCacheDriver); ok {
		return nil
	}
	dsn, err := pluginDSN(cfg)
	if err != nil {
		return err
	}
	old := x.DB
	cache := stmtCacheConnector{dsn: dsn, driver: &stmtCacheDriver{inner: old.Driver(), size: stmtCacheSize}}
	var db *sql.DB
	if shareCommits {
		if db, err = sharedCommitDB(cache); err != nil {
			return fmt.Errorf("open %s through the statement cache: %w", cfg.DatabaseName, err)
		}
	} else {
		db = sql.OpenDB(cache)
		// The plugin's limits for a config without MaxConns: one connection.
		db.SetMaxOpenConns(max(cfg.MaxConns, 1))
		db.SetMaxIdleConns(max(cfg.MaxIdleConns, 1))
	}
	if cfg.MaxConnLifetime > 0 {
		db.SetConnMaxLifetime(cfg.MaxConnLifetime)
	}
	if err := db.Ping(); err != nil {
		_ = db.Close()
		return fmt.Errorf("open %s through the statement cache: %w", cfg.DatabaseName, err)
	}
	x.DB = db
	if err := old.Close(); err != nil {
		return fmt.Errorf("close %s's uncached connection: %w", cfg.DatabaseName, err)
	}
	return nil
}

// sharedCommitDB opens one connection through c and gives database/sql
// groupConns connections that all run on it through a commitGroup.
func sharedCommitDB(c stmtCacheConnector) (*sql.DB, error) {
	conn, err := c.Connect(context.Background())
	if err != nil {
		return nil, err
	}
	g, err := newCommitGroup(conn)
	if err != nil {
		return nil, err
	}
	db := sql.OpenDB(groupConnector{g: g, driver: c.driver})
	db.SetMaxOpenConns(groupConns)
	db.SetMaxIdleConns(groupConns)
	return db, nil
}

// pluginSQLX returns the *sqlx.DB behind a database handle of Temporal's
// SQLite plugin (its unexported field db).
func pluginSQLX(adb sqlplugin.AdminDB) (*sqlx.DB, error) {
	v := reflect.ValueOf(adb)
	if v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	if v.Kind() == reflect.Struct {
		if f := v.FieldByName("db"); f.IsValid() && f.Type() == reflect.TypeFor[*sqlx.DB]() && !f.IsNil() {
			return (*sqlx.DB)(f.UnsafePointer()), nil
		}
	}
	return nil, fmt.Errorf("statement cache: %T has no *sqlx.DB field db (Temporal's SQLite plugin changed)", adb)
}

// pluginDSN is the DSN Temporal's SQLite plugin (buildDSN in
// go.temporal.io/server/common/persistence/sql/sqlplugin/sqlite) opens for
// cfg: URI parameters as they are, every other attribute a pragma, and
// SQLite's time format.
func pluginDSN(cfg *config.SQL) (string, error) {
	uriParams := map[string]bool{"cache": true, "immutable": true, "mode": true, "modeof": true, "nolock": true, "psow": true, "setup": true, "vfs": true}
	keys := make([]string, 0, len(cfg.ConnectAttributes))
	for k := range cfg.ConnectAttributes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	params := url.Values{}
	for _, k := range keys {
		key, value := strings.TrimSpace(k), strings.TrimSpace(cfg.ConnectAttributes[k])
		if params.Get(key) != "" {
			return "", fmt.Errorf("duplicate SQLite connect attribute %s", key)
		}
		if uriParams[key] {
			params.Set(key, value)
			continue
		}
		params.Add("_pragma", key+"="+value)
	}
	params.Add("_time_format", "sqlite")
	return fmt.Sprintf("file:%s?%v", cfg.DatabaseName, params.Encode()), nil
}
