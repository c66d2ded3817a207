package embedded

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// openShared opens a SQLite file in WAL mode as the embedded server opens
// its visibility file: through the statement cache, one connection
// shared by database/sql's many (commitGroup).
func openShared(t *testing.T, path string) (*sql.DB, *commitGroup) {
	t.Helper()
	plain, err := sql.Open("sqlite", ":memory:")
	require.NoError(t, err)
	inner := plain.Driver()
	require.NoError(t, plain.Close())
	dsn, err := pluginDSN(sqliteConfig(path))
	require.NoError(t, err)
	db, err := sharedCommitDB(stmtCacheConnector{dsn: dsn, driver: &stmtCacheDriver{inner: inner, size: 16}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	// The group, to hold its lock and count its waiting statements.
	c, err := db.Conn(context.Background())
	require.NoError(t, err)
	var g *commitGroup
	require.NoError(t, c.Raw(func(dc any) error { g = dc.(*groupConn).g; return nil }))
	require.NoError(t, c.Close())
	return db, g
}

// sharedTable opens a shared file in a temporary directory with a table
// rec of the given columns; path is the file's.
func sharedTable(t *testing.T, columns string) (db *sql.DB, g *commitGroup, path string) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "vis.db")
	db, g = openShared(t, path)
	_, err := db.Exec(`CREATE TABLE rec (` + columns + `)`)
	require.NoError(t, err)
	return db, g, path
}

// plainReader opens a second, ordinary connection to the file: it sees
// only what is committed.
func plainReader(t *testing.T, path string) *sql.DB {
	t.Helper()
	dsn, err := pluginDSN(sqliteConfig(path))
	require.NoError(t, err)
	db, err := sql.Open("sqlite", dsn)
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func TestSharedCommitAnswersAsTheDriverDoes(t *testing.T) {
	dir := t.TempDir()
	plain, err := sql.Open("sqlite", filepath.Join(dir, "plain.db"))
	require.NoError(t, err)
	defer plain.Close()
	want := workload(t, plain)
	shared, _ := openShared(t, filepath.Join(dir, "shared.db"))
	require.Equal(t, want, workload(t, shared))
}

// Writes made at once share commits, and each returns only once its
// commit is done: another connection reads it as soon as it returns.
func TestSharedCommitWritesAtOnceShareDurableCommits(t *testing.T) {
	db, _, path := sharedTable(t, "id TEXT PRIMARY KEY, v INTEGER")
	ctx := context.Background()
	reader := plainReader(t, path)

	before := SharedCommitCounts()
	const writers, each = 32, 40
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				id := fmt.Sprintf("w%d-%d", w, i)
				if _, err := db.ExecContext(ctx, `INSERT INTO rec (id, v) VALUES (?, ?)`, id, i); err != nil {
					errs <- err
					return
				}
				var n int
				if err := reader.QueryRowContext(ctx, `SELECT count(*) FROM rec WHERE id = ?`, id).Scan(&n); err != nil || n != 1 {
					errs <- fmt.Errorf("%s returned before its commit: %d rows, %v", id, n, err)
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
	var n int
	require.NoError(t, reader.QueryRow(`SELECT count(*) FROM rec`).Scan(&n))
	require.Equal(t, writers*each, n)
	got := SharedCommitCounts().Since(before)
	require.Equal(t, int64(writers*each), got.Alone+got.Batched, "every write counted once")
	require.Positive(t, got.Batches, "writes made at once shared a commit")
	require.Greater(t, got.PerCommit(), 1.0)
}

// writeInBatch makes the group's next write open a batch and wait in it
// for its commit: the test stands in for one more waiting write until
// release. It inserts id into rec and returns once the write is in the
// batch; done answers when the write returns.
func writeInBatch(t *testing.T, db *sql.DB, g *commitGroup, id string) (done <-chan error, release func()) {
	t.Helper()
	g.queued.Add(1)
	errc := make(chan error, 1)
	go func() {
		_, err := db.ExecContext(context.Background(), `INSERT INTO rec VALUES (?)`, id)
		errc <- err
	}()
	require.Eventually(t, func() bool {
		g.mu.Lock()
		defer g.mu.Unlock()
		return g.open != nil && g.open.statements == 1
	}, 5*time.Second, time.Millisecond)
	select {
	case err := <-errc:
		t.Fatalf("a write returned before its batch ended: %v", err)
	case <-time.After(20 * time.Millisecond):
	}
	return errc, func() { g.queued.Add(-1) }
}

// A statement of a batch that fails rolls the whole batch back: the write
// that ran before it in the batch returns the error too, and neither is
// written.
func TestSharedCommitFailureRollsBackItsBatch(t *testing.T) {
	db, g, path := sharedTable(t, "id TEXT PRIMARY KEY")
	ctx := context.Background()
	_, err := db.ExecContext(ctx, `INSERT INTO rec VALUES ('taken')`)
	require.NoError(t, err)

	first, release := writeInBatch(t, db, g, "first")
	// The duplicate fails in the same batch, which ends it.
	_, err = db.ExecContext(ctx, `INSERT INTO rec VALUES ('taken')`)
	require.ErrorContains(t, err, "UNIQUE")
	release()
	err = <-first
	require.ErrorContains(t, err, "a statement of the batch failed")

	var n int
	require.NoError(t, plainReader(t, path).QueryRow(`SELECT count(*) FROM rec WHERE id = 'first'`).Scan(&n))
	require.Zero(t, n, "a rolled-back batch writes nothing")
	// The group goes on: the next write commits.
	_, err = db.ExecContext(ctx, `INSERT INTO rec VALUES ('after')`)
	require.NoError(t, err)
}

// An explicit transaction waits for the open batch to commit, holds the
// connection to itself, and its rollback leaves the batch's writes and
// the ones after it in place.
func TestSharedCommitTransactionWaitsForTheBatch(t *testing.T) {
	db, g, path := sharedTable(t, "id TEXT PRIMARY KEY")
	ctx := context.Background()

	batched, release := writeInBatch(t, db, g, "batched")
	began := make(chan *sql.Tx, 1)
	go func() {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Error(err)
		}
		began <- tx
	}()
	select {
	case <-began:
		t.Fatal("a transaction began inside an open batch")
	case <-time.After(20 * time.Millisecond):
	}
	// The batch's last write commits it; then the transaction begins.
	release()
	_, err := db.ExecContext(ctx, `INSERT INTO rec VALUES ('closer')`)
	require.NoError(t, err)
	require.NoError(t, <-batched)
	tx := <-began
	_, err = tx.ExecContext(ctx, `INSERT INTO rec VALUES ('in-tx')`)
	require.NoError(t, err)
	after := make(chan error, 1)
	go func() {
		_, err := db.ExecContext(ctx, `INSERT INTO rec VALUES ('after-tx')`)
		after <- err
	}()
	select {
	case err := <-after:
		t.Fatalf("a write ran inside another's transaction: %v", err)
	case <-time.After(20 * time.Millisecond):
	}
	require.NoError(t, tx.Rollback())
	require.NoError(t, <-after)

	rows, err := plainReader(t, path).Query(`SELECT id FROM rec ORDER BY id`)
	require.NoError(t, err)
	var ids []string
	for rows.Next() {
		var id string
		require.NoError(t, rows.Scan(&id))
		ids = append(ids, id)
	}
	require.NoError(t, rows.Err())
	require.Equal(t, []string{"after-tx", "batched", "closer"}, ids)
}

// Rows read while other writes commit on the shared connection read to
// the end.
func TestSharedCommitRowsReadBesideWrites(t *testing.T) {
	db, _, _ := sharedTable(t, "id INTEGER PRIMARY KEY")
	ctx := context.Background()
	for i := range 500 {
		_, err := db.ExecContext(ctx, `INSERT INTO rec VALUES (?)`, i)
		require.NoError(t, err)
	}
	rows, err := db.QueryContext(ctx, `SELECT id FROM rec WHERE id < 500 ORDER BY id`)
	require.NoError(t, err)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := range 20 {
				_, err := db.ExecContext(ctx, `INSERT INTO rec VALUES (?)`, 1000+w*100+i)
				if err != nil {
					t.Error(err)
				}
			}
		})
	}
	n := 0
	for rows.Next() {
		var id int
		require.NoError(t, rows.Scan(&id))
		require.Equal(t, n, id)
		n++
	}
	require.NoError(t, rows.Err())
	require.NoError(t, rows.Close())
	wg.Wait()
	require.Equal(t, 500, n)
	var total int
	require.NoError(t, db.QueryRow(`SELECT count(*) FROM rec`).Scan(&total))
	require.Equal(t, 660, total)
}

// A batch commits once it holds maxBatch writes, even while others keep
// waiting: its first write does not wait for a gap in the arrivals.
func TestSharedCommitBatchIsBounded(t *testing.T) {
	db, g, path := sharedTable(t, "id TEXT PRIMARY KEY")
	first, release := writeInBatch(t, db, g, "first")
	defer release()
	before := SharedCommitCounts()
	for i := range maxBatch - 1 {
		go func() {
			_, err := db.Exec(`INSERT INTO rec VALUES (?)`, fmt.Sprint("w", i))
			if err != nil {
				t.Error(err)
			}
		}()
	}
	select {
	case err := <-first:
		require.NoError(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("a full batch did not commit while a write still waited")
	}
	require.Eventually(t, func() bool {
		var n int
		return plainReader(t, path).QueryRow(`SELECT count(*) FROM rec`).Scan(&n) == nil && n == maxBatch
	}, 5*time.Second, 10*time.Millisecond)
	got := SharedCommitCounts().Since(before)
	require.Equal(t, int64(1), got.Batches)
	require.Equal(t, int64(maxBatch), got.Batched)
}
