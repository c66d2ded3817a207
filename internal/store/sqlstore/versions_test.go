package sqlstore

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/store"
)

// Every caller is answered by a read that began after it asked, and
// concurrent callers share reads.
func TestVersionReadsShareOnlyLaterReads(t *testing.T) {
	var started atomic.Int64
	r := &versionReads{read: func(context.Context) (versions, error) {
		n := started.Add(1)
		time.Sleep(time.Millisecond)
		return versions{endpoints: n, eventTypes: -n}, nil
	}}
	const callers, calls = 50, 20
	var wg sync.WaitGroup
	for range callers {
		wg.Go(func() {
			for range calls {
				before := started.Load()
				v, err := r.get(context.Background())
				if !assert.NoError(t, err) {
					return
				}
				assert.Greater(t, v.endpoints, before, "answered by a read that began before the call")
				assert.Equal(t, -v.endpoints, v.eventTypes)
			}
		})
	}
	wg.Wait()
	assert.Less(t, started.Load(), int64(callers*calls/4), "concurrent callers share reads")
	r.mu.Lock()
	defer r.mu.Unlock()
	assert.Nil(t, r.running, "no read runs once no caller waits")
}

// A caller whose context carries a freshness is answered by any read
// begun at or after it: the last one, or the one running, without a read
// of its own; an earlier read never answers it.
func TestVersionReadsFreshSince(t *testing.T) {
	var started atomic.Int64
	gate := make(chan struct{}, 8)
	r := &versionReads{read: func(context.Context) (versions, error) {
		n := started.Add(1)
		<-gate
		return versions{endpoints: n}, nil
	}}
	arrived := time.Now()
	ctx := store.FreshSince(context.Background(), arrived)
	gate <- struct{}{}
	v, err := r.get(ctx) // the catalog's check: the first read
	require.NoError(t, err)
	assert.Equal(t, int64(1), v.endpoints)
	v, err = r.get(ctx) // the matching: the same arrival, answered by that read
	require.NoError(t, err)
	assert.Equal(t, int64(1), v.endpoints)
	assert.Equal(t, int64(1), started.Load(), "one read for both checks")

	// A call without a freshness needs a read begun after it.
	gate <- struct{}{}
	v, err = r.get(context.Background())
	require.NoError(t, err)
	assert.Equal(t, int64(2), v.endpoints)

	// A caller that arrived before the running read began joins it.
	later := store.FreshSince(context.Background(), time.Now())
	third := make(chan versions, 1)
	go func() {
		v, _ := r.get(context.Background())
		third <- v
	}()
	require.Eventually(t, func() bool { return started.Load() == 3 }, 5*time.Second, time.Millisecond)
	joined := make(chan versions, 1)
	go func() {
		v, _ := r.get(later)
		joined <- v
	}()
	time.Sleep(20 * time.Millisecond)
	gate <- struct{}{}
	assert.Equal(t, int64(3), (<-third).endpoints)
	assert.Equal(t, int64(3), (<-joined).endpoints)
	assert.Equal(t, int64(3), started.Load(), "the caller joined the running read")

	// A freshness after the last read began needs a read of its own.
	gate <- struct{}{}
	v, err = r.get(store.FreshSince(context.Background(), time.Now()))
	require.NoError(t, err)
	assert.Equal(t, int64(4), v.endpoints)
	// A freshness ahead of the clock counts as the call's own time.
	gate <- struct{}{}
	v, err = r.get(store.FreshSince(context.Background(), time.Now().Add(time.Hour)))
	require.NoError(t, err)
	assert.Equal(t, int64(5), v.endpoints)
}

// A caller stops waiting when its context ends; a read's error reaches
// every caller it answers, and the next call reads again.
func TestVersionReadsCancelAndErrors(t *testing.T) {
	release := make(chan struct{})
	errRead := errors.New("database gone")
	var calls atomic.Int64
	r := &versionReads{read: func(context.Context) (versions, error) {
		if calls.Add(1) == 1 {
			<-release
			return versions{}, errRead
		}
		return versions{endpoints: 7}, nil
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err := r.get(ctx)
	require.ErrorIs(t, err, context.DeadlineExceeded)

	waiting := make(chan error, 1)
	go func() {
		_, err := r.get(context.Background()) // waits for the read after the blocked one
		waiting <- err
	}()
	close(release)
	require.NoError(t, <-waiting)
	v, err := r.get(context.Background())
	require.NoError(t, err)
	assert.Equal(t, int64(7), v.endpoints)

	r2 := &versionReads{read: func(context.Context) (versions, error) { return versions{}, errRead }}
	_, err = r2.get(context.Background())
	require.ErrorIs(t, err, errRead)
}
