package embedded

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/server/common/log"
	"go.temporal.io/server/common/metrics"
	persistencesql "go.temporal.io/server/common/persistence/sql"
	"go.temporal.io/server/common/persistence/sql/sqlplugin"
	"go.temporal.io/server/common/resolver"
)

// countingDriver wraps the SQLite driver and counts its open statements and
// connections, to show what the cache leaves behind.
type countingDriver struct {
	inner          driver.Driver
	stmts, conns   atomic.Int64
	prepares, maxS atomic.Int64
}

func (d *countingDriver) Open(name string) (driver.Conn, error) {
	c, err := d.inner.Open(name)
	if err != nil {
		return nil, err
	}
	d.conns.Add(1)
	return &countingConn{innerConn: c.(innerConn), d: d}, nil
}

type countingConn struct {
	innerConn
	d *countingDriver
}

func (c *countingConn) PrepareContext(ctx context.Context, q string) (driver.Stmt, error) {
	s, err := c.innerConn.PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	c.d.prepares.Add(1)
	if n := c.d.stmts.Add(1); n > c.d.maxS.Load() {
		c.d.maxS.Store(n)
	}
	return &countingStmt{innerStmt: s.(innerStmt), d: c.d}, nil
}

func (c *countingConn) Close() error {
	c.d.conns.Add(-1)
	return c.innerConn.Close()
}

type countingStmt struct {
	innerStmt
	d *countingDriver
}

func (s *countingStmt) Close() error {
	s.d.stmts.Add(-1)
	return s.innerStmt.Close()
}

// openCached opens a SQLite file in WAL mode through the statement cache
// over a counting driver.
func openCached(t *testing.T, path string, size, conns int) (*sql.DB, *countingDriver) {
	t.Helper()
	plain, err := sql.Open("sqlite", ":memory:")
	require.NoError(t, err)
	cd := &countingDriver{inner: plain.Driver()}
	require.NoError(t, plain.Close())
	dsn, err := pluginDSN(sqliteConfig(path))
	require.NoError(t, err)
	db := sql.OpenDB(stmtCacheConnector{dsn: dsn, driver: &stmtCacheDriver{inner: cd, size: size}})
	db.SetMaxOpenConns(conns)
	db.SetMaxIdleConns(conns)
	return db, cd
}

// workload runs upserts, updates and reads on db and returns every answer
// it read, in order.
func workload(t *testing.T, db *sql.DB) []string {
	t.Helper()
	ctx := context.Background()
	_, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS kv (k TEXT PRIMARY KEY, v INTEGER NOT NULL, n INTEGER NOT NULL DEFAULT 0)`)
	require.NoError(t, err)
	var out []string
	for i := range 200 {
		k := fmt.Sprintf("k%d", i%17)
		res, err := db.ExecContext(ctx, `INSERT INTO kv (k, v) VALUES (?, ?) ON CONFLICT (k) DO UPDATE SET v = excluded.v, n = n + 1`, k, i)
		require.NoError(t, err)
		n, err := res.RowsAffected()
		require.NoError(t, err)
		out = append(out, fmt.Sprint("affected ", n))
		if i%3 == 0 {
			_, err := db.ExecContext(ctx, `INSERT INTO kv (k, v) VALUES (?, ?)`, k, i)
			out = append(out, fmt.Sprint("duplicate insert fails: ", err != nil))
		}
		var v, cnt int
		err = db.QueryRowContext(ctx, `SELECT v, n FROM kv WHERE k = ?`, k).Scan(&v, &cnt)
		require.NoError(t, err)
		out = append(out, fmt.Sprint(k, v, cnt))
		err = db.QueryRowContext(ctx, `SELECT v FROM kv WHERE k = ?`, "missing").Scan(&v)
		out = append(out, fmt.Sprint("missing: ", err))
	}
	rows, err := db.QueryContext(ctx, `SELECT k, v, n FROM kv ORDER BY k`)
	require.NoError(t, err)
	for rows.Next() {
		var k string
		var v, n int
		require.NoError(t, rows.Scan(&k, &v, &n))
		out = append(out, fmt.Sprint(k, v, n))
	}
	require.NoError(t, rows.Err())
	require.NoError(t, rows.Close())
	return out
}

func TestStatementCacheAnswersAsTheDriverDoes(t *testing.T) {
	dir := t.TempDir()
	plain, err := sql.Open("sqlite", filepath.Join(dir, "plain.db"))
	require.NoError(t, err)
	defer plain.Close()
	want := workload(t, plain)

	cached, cd := openCached(t, filepath.Join(dir, "cached.db"), 16, 1)
	hits := stmtCacheStats.hits.Load()
	got := workload(t, cached)
	require.Equal(t, want, got)
	require.Greater(t, stmtCacheStats.hits.Load()-hits, int64(600), "statements were reused")
	// Six distinct statements, each prepared once on the one connection.
	require.Equal(t, int64(6), cd.prepares.Load())

	require.NoError(t, cached.Close())
	require.Zero(t, cd.stmts.Load(), "closing the connection closes its statements")
	require.Zero(t, cd.conns.Load())
}

func TestStatementCacheEvictsBeyondItsSize(t *testing.T) {
	db, cd := openCached(t, filepath.Join(t.TempDir(), "c.db"), 4, 1)
	ctx := context.Background()
	for i := range 50 {
		var n int
		// Fifty distinct query texts.
		require.NoError(t, db.QueryRowContext(ctx, fmt.Sprintf("SELECT %d + ?", i), 1).Scan(&n))
		require.Equal(t, i+1, n)
		require.LessOrEqual(t, cd.stmts.Load(), int64(4))
	}
	require.NoError(t, db.Close())
	require.Zero(t, cd.stmts.Load())
}

func TestStatementCacheBusyStatementIsNotShared(t *testing.T) {
	db, cd := openCached(t, filepath.Join(t.TempDir(), "c.db"), 8, 1)
	ctx := context.Background()
	_, err := db.ExecContext(ctx, `CREATE TABLE t (i INTEGER)`)
	require.NoError(t, err)
	for i := range 3 {
		_, err := db.ExecContext(ctx, `INSERT INTO t VALUES (?)`, i)
		require.NoError(t, err)
	}
	tx, err := db.BeginTx(ctx, nil)
	require.NoError(t, err)
	const q = `SELECT i FROM t WHERE i >= ? ORDER BY i`
	outer, err := tx.QueryContext(ctx, q, 0)
	require.NoError(t, err)
	var pairs []string
	bypasses := stmtCacheStats.bypasses.Load()
	for outer.Next() {
		var a int
		require.NoError(t, outer.Scan(&a))
		// The same text again while outer's rows are open on the connection.
		inner, err := tx.QueryContext(ctx, q, a)
		require.NoError(t, err)
		for inner.Next() {
			var b int
			require.NoError(t, inner.Scan(&b))
			pairs = append(pairs, fmt.Sprint(a, b))
		}
		require.NoError(t, inner.Close())
	}
	require.NoError(t, outer.Err())
	require.NoError(t, outer.Close())
	require.NoError(t, tx.Commit())
	require.Equal(t, []string{"0 0", "0 1", "0 2", "1 1", "1 2", "2 2"}, pairs)
	require.Equal(t, int64(3), stmtCacheStats.bypasses.Load()-bypasses)
	// The one-off statements are closed; only the cached ones remain.
	require.Equal(t, int64(3), cd.stmts.Load(), "CREATE, INSERT and the SELECT")
	require.NoError(t, db.Close())
	require.Zero(t, cd.stmts.Load())
}

func TestStatementCacheConcurrentConnections(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.db")
	db, cd := openCached(t, path, 8, 4)
	ctx := context.Background()
	_, err := db.ExecContext(ctx, `CREATE TABLE c (g INTEGER, i INTEGER, PRIMARY KEY (g, i))`)
	require.NoError(t, err)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Go(func() {
			for i := range 100 {
				if _, err := db.ExecContext(ctx, `INSERT INTO c VALUES (?, ?)`, g, i); err != nil {
					errs <- err
					return
				}
				var n int
				if err := db.QueryRowContext(ctx, `SELECT count(*) FROM c WHERE g = ?`, g).Scan(&n); err != nil {
					errs <- err
					return
				}
				if n != i+1 {
					errs <- fmt.Errorf("group %d: %d rows after %d inserts", g, n, i+1)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	var total int
	require.NoError(t, db.QueryRowContext(ctx, `SELECT count(*) FROM c`).Scan(&total))
	require.Equal(t, 800, total)
	require.NoError(t, db.Close())
	require.Zero(t, cd.stmts.Load())
	require.Zero(t, cd.conns.Load())
}

// TestStatementCacheUnderTemporal installs the cache under Temporal's SQLite
// plugin and checks that the plugin's connection now goes through it, with
// the durability pragmas of sqliteConfig.
func TestStatementCacheUnderTemporal(t *testing.T) {
	cfg := sqliteConfig(filepath.Join(t.TempDir(), "temporal.db"))
	require.NoError(t, prepare(cfg))
	require.NoError(t, cacheStatements(cfg, false))
	require.NoError(t, cacheStatements(cfg, false), "idempotent")

	adb, err := persistencesql.NewSQLAdminDB(sqlplugin.DbKindMain, cfg,
		resolver.NewNoopResolver(), log.NewNoopLogger(), metrics.NoopMetricsHandler)
	require.NoError(t, err)
	x, err := pluginSQLX(adb)
	require.NoError(t, err)
	require.IsType(t, &stmtCacheDriver{}, x.DB.Driver())
	require.Equal(t, 1, x.Stats().MaxOpenConnections)

	var mode string
	var sync, busy int
	require.NoError(t, x.QueryRow(`PRAGMA journal_mode`).Scan(&mode))
	require.NoError(t, x.QueryRow(`PRAGMA synchronous`).Scan(&sync))
	require.NoError(t, x.QueryRow(`PRAGMA busy_timeout`).Scan(&busy))
	require.Equal(t, "wal", mode)
	require.Equal(t, 1, sync, "synchronous=NORMAL")
	require.Equal(t, 10000, busy)

	// The plugin's own statements run through the cache.
	hits := stmtCacheStats.hits.Load()
	for range 3 {
		tables, err := adb.ListTables(cfg.DatabaseName)
		require.NoError(t, err)
		require.Contains(t, tables, "executions")
	}
	require.Greater(t, stmtCacheStats.hits.Load(), hits)
}
