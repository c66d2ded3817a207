package stats

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/store"
)

// recordingStore records the batches written and can fail them.
type recordingStore struct {
	mu      sync.Mutex
	batches [][]store.StatsDelta
	fail    error
}

func (s *recordingStore) AddStats(_ context.Context, deltas []store.StatsDelta) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return s.fail
	}
	s.batches = append(s.batches, deltas)
	return nil
}

func (s *recordingStore) StatsSince(context.Context, string, time.Time) (store.StatsTotals, error) {
	return store.StatsTotals{Latency: make([]int64, store.LatencyBuckets)}, nil
}

func (s *recordingStore) PruneStats(context.Context, time.Time) (int64, error) { return 0, nil }

func (s *recordingStore) HourlyStats(context.Context, string, string, time.Time) ([]store.StatsHour, error) {
	return nil, nil
}

func (s *recordingStore) HourlyTotals(context.Context, string, time.Time) ([]store.StatsHour, error) {
	return nil, nil
}

func (s *recordingStore) SetAlert(context.Context, string, string, bool, time.Time, ...store.OpEvent) (bool, error) {
	return false, nil
}

var t0 = time.Date(2026, 3, 4, 5, 6, 0, 0, time.UTC)

func newTestAggregator(t *testing.T, s Store) *Aggregator {
	t.Helper()
	a, err := New(Config{Store: s, FlushEvery: time.Hour, Now: func() time.Time { return t0.Add(30 * time.Second) }})
	require.NoError(t, err)
	return a
}

func attempt(start time.Time, ok bool, d time.Duration) delivery.Attempt {
	at := delivery.Attempt{Number: 1, Start: start, Duration: d, Outcome: delivery.OutcomeRetryable, Status: 503}
	if ok {
		at.Outcome, at.Status = delivery.OutcomeSuccess, 200
	}
	return at
}

func TestFlushBatchesPerEndpointMinute(t *testing.T) {
	s := &recordingStore{}
	a := newTestAggregator(t, s)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 250 {
				ep := []string{"ep_a", "ep_b"}[i%2]
				minute := t0.Add(time.Duration(w%2) * time.Minute) // two minutes
				a.Observe(ep, attempt(minute.Add(time.Duration(i)*time.Millisecond), i%5 != 0, 3*time.Millisecond))
			}
		})
	}
	wg.Wait()
	a.Observe("ep_a", delivery.Attempt{Start: t0, Outcome: delivery.OutcomeDeferred}) // not an attempt
	require.NoError(t, a.Flush(context.Background()))

	require.Len(t, s.batches, 1, "one write per flush")
	batch := s.batches[0]
	require.Len(t, batch, 4, "one row per endpoint and minute")
	var attempts, successes int64
	for _, d := range batch {
		require.Equal(t, int64(250), d.Attempts, d)
		require.Equal(t, d.Attempts, d.Latency[2], "3ms is in (2ms, 4ms]")
		attempts += d.Attempts
		successes += d.Successes
	}
	require.Equal(t, int64(1000), attempts)
	require.Equal(t, int64(800), successes)
	require.Equal(t, "ep_a", batch[0].EndpointID)
	require.True(t, batch[0].Minute.Equal(t0))
	require.True(t, batch[1].Minute.Equal(t0.Add(time.Minute)))

	require.NoError(t, a.Flush(context.Background()))
	require.Empty(t, s.batches[1], "nothing new, nothing written")
}

func TestFailedFlushIsRetried(t *testing.T) {
	s := &recordingStore{fail: errors.New("database is locked")}
	a := newTestAggregator(t, s)
	a.Observe("ep_a", attempt(t0, true, time.Millisecond))
	require.Error(t, a.Flush(context.Background()))
	a.Observe("ep_a", attempt(t0, false, time.Millisecond))

	s.fail = nil
	require.NoError(t, a.Flush(context.Background()))
	require.Len(t, s.batches, 1)
	require.Equal(t, []store.StatsDelta{{
		EndpointID: "ep_a", Minute: t0, Attempts: 2, Successes: 1, Retryable: 1, Latency: counts(0, 2),
	}}, s.batches[0])
}

func TestRunFlushesWhenItStops(t *testing.T) {
	s := &recordingStore{}
	a, err := New(Config{Store: s, FlushEvery: time.Hour})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		a.Run(ctx)
		close(done)
	}()
	a.Observe("ep_a", attempt(time.Now(), true, time.Millisecond))
	cancel()
	<-done
	require.Len(t, s.batches, 1, "what was observed is flushed as Run stops")
	require.Equal(t, int64(1), s.batches[0][0].Attempts)
}
