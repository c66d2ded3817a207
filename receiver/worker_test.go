package receiver

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// acceptN puts n new deliveries dlv_0..dlv_n-1 in the inbox.
func acceptN(t *testing.T, db *sql.DB, n int) {
	t.Helper()
	in, err := NewInbox(db, SQLite)
	require.NoError(t, err)
	for i := range n {
		id := fmt.Sprintf("dlv_%d", i)
		d, err := Verify([]byte(`{}`), signedHeader(t, vecSecret, id, time.Now(), `{}`), vecSecret)
		require.NoError(t, err)
		_, err = in.Accept(t.Context(), d, nil)
		require.NoError(t, err)
	}
}

type rowState struct {
	State    string
	Attempts int
	LastErr  sql.NullString
	Next     sql.NullInt64
}

func readRow(t *testing.T, db *sql.DB, id string) rowState {
	t.Helper()
	var r rowState
	require.NoError(t, db.QueryRow(`SELECT state, attempts, last_error, next_attempt_at FROM hookd_inbox WHERE delivery_id = ?`, id).
		Scan(&r.State, &r.Attempts, &r.LastErr, &r.Next))
	return r
}

func newWorker(t *testing.T, db *sql.DB, c *clock, max int, process ProcessFunc) *Worker {
	t.Helper()
	w, err := NewWorker(db, SQLite, process, WorkerOptions{
		Lease:       time.Minute,
		MaxAttempts: max,
		Backoff:     ExponentialBackoff(time.Second, time.Minute),
		Now:         c.Now,
	})
	require.NoError(t, err)
	return w
}

func TestWorkerRetriesThenCompletes(t *testing.T) {
	db, _ := newDB(t)
	acceptN(t, db, 1)
	c := &clock{t: time.Now()}
	calls := 0
	w := newWorker(t, db, c, 5, func(ctx context.Context, d *Delivery) error {
		calls++
		assert.Equal(t, "dlv_0", d.ID)
		assert.Equal(t, `{}`, string(d.Body))
		if calls < 3 {
			return fmt.Errorf("downstream unavailable (call %d)", calls)
		}
		return nil
	})

	n, err := w.ProcessDue(t.Context())
	require.NoError(t, err)
	assert.Equal(t, 1, n, "a failed row is not retried in the same pass")
	r := readRow(t, db, "dlv_0")
	assert.Equal(t, StateFailed, r.State)
	assert.Equal(t, 1, r.Attempts)
	assert.Equal(t, "downstream unavailable (call 1)", r.LastErr.String)
	assert.Equal(t, c.Now().Add(time.Second).UnixMilli(), r.Next.Int64, "first backoff is 1s")

	n, err = w.ProcessDue(t.Context())
	require.NoError(t, err)
	assert.Zero(t, n, "not due before its backoff")

	c.Add(time.Second)
	_, err = w.ProcessDue(t.Context())
	require.NoError(t, err)
	r = readRow(t, db, "dlv_0")
	assert.Equal(t, 2, r.Attempts)
	assert.Equal(t, c.Now().Add(2*time.Second).UnixMilli(), r.Next.Int64, "backoff doubles")

	c.Add(2 * time.Second)
	_, err = w.ProcessDue(t.Context())
	require.NoError(t, err)
	r = readRow(t, db, "dlv_0")
	assert.Equal(t, rowState{State: StateCompleted, Attempts: 3}, r)
	assert.Equal(t, 3, calls)
}

func TestWorkerGivesUp(t *testing.T) {
	db, _ := newDB(t)
	acceptN(t, db, 2)
	c := &clock{t: time.Now()}
	w := newWorker(t, db, c, 2, func(ctx context.Context, d *Delivery) error {
		if d.ID == "dlv_0" {
			return Permanent(errors.New("unknown customer"))
		}
		return errors.New("still down")
	})
	for range 3 {
		_, err := w.ProcessDue(t.Context())
		require.NoError(t, err)
		c.Add(time.Hour)
	}
	perm := readRow(t, db, "dlv_0")
	assert.Equal(t, StateFailed, perm.State)
	assert.Equal(t, 1, perm.Attempts, "a permanent error is not retried")
	assert.False(t, perm.Next.Valid)
	exhausted := readRow(t, db, "dlv_1")
	assert.Equal(t, StateFailed, exhausted.State)
	assert.Equal(t, 2, exhausted.Attempts)
	assert.False(t, exhausted.Next.Valid)
	assert.Equal(t, "still down", exhausted.LastErr.String)
}

func TestWorkerResumesAfterRestart(t *testing.T) {
	db, path := newDB(t)
	acceptN(t, db, 3)
	c := &clock{t: time.Now()}

	// Worker 1 fails dlv_0, and dies holding dlv_1 (claimed, never finished).
	w1 := newWorker(t, db, c, 5, func(ctx context.Context, d *Delivery) error { return errors.New("boom") })
	first, err := w1.claim(t.Context(), c.Now())
	require.NoError(t, err)
	require.NoError(t, w1.handle(t.Context(), first))
	stuck, err := w1.claim(t.Context(), c.Now())
	require.NoError(t, err)
	assert.Equal(t, StateProcessing, readRow(t, db, stuck.d.ID).State)
	require.NoError(t, db.Close())

	// The process restarts: a new worker on the reopened file.
	db = openDB(t, path)
	seen := map[string]int{}
	w2 := newWorker(t, db, c, 5, func(ctx context.Context, d *Delivery) error { seen[d.ID]++; return nil })

	_, err = w2.ProcessDue(t.Context())
	require.NoError(t, err)
	assert.Equal(t, map[string]int{"dlv_2": 1}, seen, "a leased row waits for its lease; a failed one for its backoff")

	c.Add(time.Minute)
	_, err = w2.ProcessDue(t.Context())
	require.NoError(t, err)
	assert.Equal(t, map[string]int{"dlv_0": 1, "dlv_1": 1, "dlv_2": 1}, seen)
	for _, id := range []string{"dlv_0", "dlv_1", "dlv_2"} {
		assert.Equal(t, StateCompleted, readRow(t, db, id).State, id)
	}
	assert.Equal(t, 2, readRow(t, db, stuck.d.ID).Attempts, "the lost attempt counts")
}

func TestWorkerLostLeaseDoesNotOverwrite(t *testing.T) {
	db, _ := newDB(t)
	acceptN(t, db, 1)
	c := &clock{t: time.Now()}
	w := newWorker(t, db, c, 5, func(ctx context.Context, d *Delivery) error { return nil })
	slow, err := w.claim(t.Context(), c.Now())
	require.NoError(t, err)
	c.Add(2 * time.Minute) // lease expired: another worker takes the row
	n, err := w.ProcessDue(t.Context())
	require.NoError(t, err)
	require.Equal(t, 1, n)

	require.NoError(t, w.finish(t.Context(), slow, errors.New("late failure")))
	assert.Equal(t, StateCompleted, readRow(t, db, "dlv_0").State)
}

func TestWorkerRun(t *testing.T) {
	db, _ := newDB(t)
	acceptN(t, db, 3)
	done := make(chan string, 3)
	w, err := NewWorker(db, SQLite, func(ctx context.Context, d *Delivery) error {
		done <- d.ID
		return nil
	}, WorkerOptions{PollInterval: time.Millisecond})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(t.Context())
	ran := make(chan error)
	go func() { ran <- w.Run(ctx) }()
	for range 3 {
		<-done
	}
	cancel()
	require.NoError(t, <-ran)
	in, err := NewInbox(db, SQLite)
	require.NoError(t, err)
	stats, err := in.Stats(t.Context())
	require.NoError(t, err)
	assert.EqualValues(t, 3, stats.Completed)
}

func TestExponentialBackoff(t *testing.T) {
	b := ExponentialBackoff(time.Second, 5*time.Second)
	got := []time.Duration{b(1), b(2), b(3), b(4), b(100)}
	assert.Equal(t, []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 5 * time.Second, 5 * time.Second}, got)
}
