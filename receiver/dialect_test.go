package receiver

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/store/pgtest"
)

// TestDialects runs the inbox and worker SQL against each dialect's real
// database. PostgreSQL comes from pgtest (the machine's binaries).
func TestDialects(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		db, _ := newDB(t)
		exerciseDialect(t, db, SQLite)
	})
	t.Run("postgres", func(t *testing.T) {
		db, err := sql.Open("pgx", pgtest.NewDatabase(t, pgtest.Start(t)))
		require.NoError(t, err)
		t.Cleanup(func() { db.Close() })
		exerciseDialect(t, db, Postgres)
	})
}

func exerciseDialect(t *testing.T, db *sql.DB, dialect Dialect) {
	ctx := t.Context()
	require.NoError(t, Migrate(ctx, db, dialect))
	require.NoError(t, Migrate(ctx, db, dialect), "Migrate is idempotent")
	_, err := db.ExecContext(ctx, effectsSchema)
	require.NoError(t, err)
	in, err := NewInbox(db, dialect)
	require.NoError(t, err)

	works := 0
	work := func(tx *sql.Tx, d *Delivery) error {
		works++
		_, err := tx.Exec(dialect.rebind(`INSERT INTO effects (delivery_id) VALUES (?)`), d.ID)
		return err
	}
	deliver := func(id, body string) Outcome {
		d, err := Verify([]byte(body), signedHeader(t, vecSecret, id, time.Now(), body), vecSecret)
		require.NoError(t, err)
		o, err := in.Accept(ctx, d, work)
		require.NoError(t, err)
		return o
	}
	assert.Equal(t, Accepted, deliver("dlv_a", `{"v":1}`))
	assert.Equal(t, Duplicate, deliver("dlv_a", `{"v":1}`))
	assert.Equal(t, Quarantined, deliver("dlv_a", `{"v":2}`))
	assert.Equal(t, Quarantined, deliver("dlv_a", `{"v":2}`))
	assert.Equal(t, 1, works)
	stats, err := in.Stats(ctx)
	require.NoError(t, err)
	assert.Equal(t, Stats{Pending: 1, Quarantined: 1, QuarantineHits: 2}, stats)

	// The worker: one failure with backoff, then success.
	c := &clock{t: time.Now()}
	calls := 0
	w, err := NewWorker(db, dialect, func(ctx context.Context, d *Delivery) error {
		calls++
		if calls == 1 {
			return fmt.Errorf("first call fails")
		}
		return nil
	}, WorkerOptions{Now: c.Now, Backoff: ExponentialBackoff(time.Second, time.Second)})
	require.NoError(t, err)
	_, err = w.ProcessDue(ctx)
	require.NoError(t, err)
	c.Add(time.Second)
	_, err = w.ProcessDue(ctx)
	require.NoError(t, err)
	assert.Equal(t, 2, calls)
	stats, err = in.Stats(ctx)
	require.NoError(t, err)
	assert.EqualValues(t, 1, stats.Completed)

	// Concurrent workers process each row once.
	const rows = 20
	for i := range rows {
		deliver(fmt.Sprintf("dlv_%02d", i), `{}`)
	}
	var mu sync.Mutex
	seen := map[string]int{}
	var wg sync.WaitGroup
	for range 4 {
		w, err := NewWorker(db, dialect, func(ctx context.Context, d *Delivery) error {
			mu.Lock()
			defer mu.Unlock()
			seen[d.ID]++
			return nil
		}, WorkerOptions{Now: c.Now})
		require.NoError(t, err)
		wg.Go(func() {
			_, err := w.ProcessDue(ctx)
			assert.NoError(t, err)
		})
	}
	wg.Wait()
	assert.Len(t, seen, rows)
	for id, n := range seen {
		assert.Equal(t, 1, n, id)
	}
}
