package ingest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// waitQueued waits until n starts wait in q.
func waitQueued(t *testing.T, q *startQueue, n int) {
	t.Helper()
	require.Eventually(t, func() bool {
		q.mu.Lock()
		defer q.mu.Unlock()
		return len(q.waiting) == n
	}, 5*time.Second, time.Millisecond)
}

// Waiting starts get their turns earliest due first, and those due
// together in the order they asked.
func TestStartQueueEarliestDueFirst(t *testing.T) {
	q := newStartQueue(1)
	acquired(t, q, t.Context(), time.Time{})
	base := time.Now()
	var (
		mu    sync.Mutex
		order []int
		wg    sync.WaitGroup
	)
	// Asked in this order; due at base plus these seconds.
	dues := []int{30, 10, 20, 10, 5}
	for i, s := range dues {
		wg.Go(func() {
			ok, err := q.acquire(context.Background(), base.Add(time.Duration(s)*time.Second), base.Add(time.Hour))
			assert.NoError(t, err)
			assert.True(t, ok)
			mu.Lock()
			order = append(order, i)
			mu.Unlock()
			q.release()
		})
		waitQueued(t, q, i+1)
	}
	q.release()
	wg.Wait()
	require.Equal(t, []int{4, 1, 3, 2, 0}, order)
	require.Equal(t, 1, q.free, "every turn came back")
}

// A start whose context ends while it waits leaves the queue and takes no
// turn; the turns left go to the others.
func TestStartQueueCancelledWaiter(t *testing.T) {
	q := newStartQueue(1)
	acquired(t, q, t.Context(), time.Time{})
	ctx, cancel := context.WithCancel(t.Context())
	errc := make(chan error, 1)
	go func() {
		ok, err := q.acquire(ctx, time.Now(), time.Now().Add(time.Hour))
		assert.False(t, ok)
		errc <- err
	}()
	waitQueued(t, q, 1)
	cancel()
	require.ErrorIs(t, <-errc, context.Canceled)
	waitQueued(t, q, 0)

	q.release()
	acquired(t, q, t.Context(), time.Now())
	q.release()
	require.Equal(t, 1, q.free)
}

// A start still waiting when it comes due leaves the queue without a
// turn, and the turns left go to the others.
func TestStartQueueDueWaiter(t *testing.T) {
	q := newStartQueue(1)
	acquired(t, q, t.Context(), time.Time{})
	ok, err := q.acquire(t.Context(), time.Now(), time.Now().Add(20*time.Millisecond))
	require.NoError(t, err)
	require.False(t, ok)
	waitQueued(t, q, 0)
	q.release()
	require.Equal(t, 1, q.free)
}

// acquired takes a turn of q, waiting for it as long as ctx lasts.
func acquired(t *testing.T, q *startQueue, ctx context.Context, due time.Time) {
	t.Helper()
	ok, err := q.acquire(ctx, due, time.Now().Add(time.Hour))
	require.NoError(t, err)
	require.True(t, ok)
}
