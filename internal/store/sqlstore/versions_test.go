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
	assert.False(t, r.running, "no read runs once no caller waits")
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
