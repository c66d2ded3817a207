package embedded

import (
	"database/sql"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// With the automatic checkpoint off, commits leave their pages in the WAL
// and the database file does not grow; the checkpointer copies them in on
// its own connection, and its close empties the WAL.
func TestCheckpointerCopiesTheWAL(t *testing.T) {
	cfg := sqliteConfig(filepath.Join(t.TempDir(), "temporal.db"))
	noAutoCheckpoint(cfg)
	dsn, err := pluginDSN(cfg)
	require.NoError(t, err)
	db, err := sql.Open("sqlite", dsn)
	require.NoError(t, err)
	defer db.Close()
	db.SetMaxOpenConns(1)

	var auto int
	require.NoError(t, db.QueryRow(`PRAGMA wal_autocheckpoint`).Scan(&auto))
	require.Zero(t, auto, "the automatic checkpoint is off on Temporal's connection")
	_, err = db.Exec(`CREATE TABLE t (v TEXT)`)
	require.NoError(t, err)
	row := strings.Repeat("x", 4000)
	for range 2000 { // ~8 MB: twice SQLite's automatic threshold
		_, err := db.Exec(`INSERT INTO t VALUES (?)`, row)
		require.NoError(t, err)
	}
	size := func(name string) int64 {
		fi, err := os.Stat(name)
		require.NoError(t, err)
		return fi.Size()
	}
	require.Less(t, size(cfg.DatabaseName), int64(1<<20), "nothing checkpointed inside the commits")
	require.Greater(t, size(cfg.DatabaseName+"-wal"), int64(6<<20))

	c, err := startCheckpointer(slog.New(slog.DiscardHandler), cfg)
	require.NoError(t, err)
	require.Eventually(t, func() bool { return size(cfg.DatabaseName) > 6<<20 }, 10*time.Second, 50*time.Millisecond,
		"the checkpointer copies the WAL into the database file")
	c.close()
	require.Zero(t, size(cfg.DatabaseName+"-wal"), "the final checkpoint empties the WAL")

	var n int
	require.NoError(t, db.QueryRow(`SELECT count(*) FROM t`).Scan(&n))
	require.Equal(t, 2000, n)
}
