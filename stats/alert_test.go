package stats

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/activities"
	"github.com/hookd/hookd/ingest"
	"github.com/hookd/hookd/store/sqlite"
	"github.com/hookd/hookd/store/storetest"
)

// recordingPublisher records the events published and can fail them.
type recordingPublisher struct {
	mu     sync.Mutex
	events []ingest.Event
	fail   error
}

func (p *recordingPublisher) Publish(_ context.Context, ev ingest.Event) (ingest.Result, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fail != nil {
		return ingest.Result{}, p.fail
	}
	p.events = append(p.events, ev)
	return ingest.Result{EventID: ev.ID}, nil
}

func (p *recordingPublisher) types() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, ev := range p.events {
		out = append(out, ev.Type)
	}
	return out
}

// TestAlertOnceAcrossWorkers runs two aggregators, as two workers would,
// on one database: the success rate falls below half, then recovers, and
// each change is announced exactly once.
func TestAlertOnceAcrossWorkers(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "hookd.db"), storetest.Key(t))
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	pub := &recordingPublisher{}
	w1, w2 := newTestAggregator(t, db, pub), newTestAggregator(t, db, pub)
	flushBoth := func() {
		var wg sync.WaitGroup
		for _, w := range []*Aggregator{w1, w2} {
			wg.Go(func() { assert.NoError(t, w.Flush(ctx)) })
		}
		wg.Wait()
	}

	// 9 attempts, all failing: too few to judge.
	for i := range 9 {
		[]*Aggregator{w1, w2}[i%2].Observe("ep_a", attempt(t0, false, 20*time.Millisecond))
	}
	flushBoth()
	require.Empty(t, pub.types())

	// 14 attempts, 4 successes (29%): unhealthy, announced once.
	for _, w := range []*Aggregator{w1, w2} {
		w.Observe("ep_a", attempt(t0, true, 20*time.Millisecond))
		w.Observe("ep_a", attempt(t0, true, 20*time.Millisecond))
	}
	w1.Observe("ep_a", attempt(t0, false, 20*time.Millisecond))
	flushBoth()
	flushBoth()
	require.Equal(t, []string{activities.EventEndpointUnhealthy}, pub.types())
	require.Equal(t, "hookd.endpoint.unhealthy:success_rate:ep_a:1772600790", pub.events[0].ID)
	var body map[string]any
	require.NoError(t, json.Unmarshal([]byte(pub.events[0].Body), &body))
	require.Equal(t, "success_rate", body["reason"])
	require.Equal(t, "ep_a", body["endpoint_id"])
	require.Less(t, body["success_rate"], 0.5) // which worker evaluated first decides the figure

	// Back to 50%: recovered, announced once.
	for range 6 {
		w2.Observe("ep_a", attempt(t0, true, 20*time.Millisecond))
	}
	flushBoth()
	flushBoth()
	require.Equal(t, []string{activities.EventEndpointUnhealthy, activities.EventEndpointRecovered}, pub.types())

	f, err := w1.Figures(ctx, "ep_a")
	require.NoError(t, err)
	require.Equal(t, int64(20), f.LastDay.Attempts)
	require.Equal(t, 0.5, f.LastHour.SuccessRate)
	require.Equal(t, 24*time.Millisecond, f.LastHour.P50) // (16ms, 32ms], midpoint
}

// TestAlertPublishRetried keeps an event that failed to publish and
// publishes it, with the same ID, on the next flush.
func TestAlertPublishRetried(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "hookd.db"), storetest.Key(t))
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	pub := &recordingPublisher{fail: errors.New("temporal unavailable")}
	a := newTestAggregator(t, db, pub)
	for range 10 {
		a.Observe("ep_a", attempt(t0, false, time.Millisecond))
	}
	require.NoError(t, a.Flush(ctx))
	require.Empty(t, pub.types())
	pub.fail = nil
	require.NoError(t, a.Flush(ctx))
	require.Equal(t, []string{activities.EventEndpointUnhealthy}, pub.types())
	require.NoError(t, a.Flush(ctx))
	require.Len(t, pub.types(), 1)
}
