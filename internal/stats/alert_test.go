package stats

import (
	"context"
	"encoding/json"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/opevents"
	"github.com/hookd/hookd/internal/store/sqlite"
	"github.com/hookd/hookd/internal/store/sqlstore"
	"github.com/hookd/hookd/internal/store/storetest"
)

// announced reads the health events db's outbox received since the
// last call, in order.
type announced struct {
	t      *testing.T
	db     *sqlstore.Store
	events []published
}

type published struct {
	eventType string
	health    opevents.Health
}

func (a *announced) types() []string {
	rows, err := a.db.ClaimOpEvents(context.Background(), time.Now(), time.Hour, 100)
	require.NoError(a.t, err)
	for _, r := range rows {
		var h opevents.Health
		require.NoError(a.t, json.Unmarshal(r.Body, &h))
		a.events = append(a.events, published{r.Type, h})
	}
	var out []string
	for _, ev := range a.events {
		out = append(out, ev.eventType)
	}
	return out
}

// TestAlertOnceAcrossWorkers runs two aggregators, as two workers would,
// on one database: the success rate falls below half, then recovers, and
// each change is announced exactly once, in the store's outbox.
func TestAlertOnceAcrossWorkers(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "hookd.db"), storetest.Key(t))
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	pub := &announced{t: t, db: db}
	w1, w2 := newTestAggregator(t, db), newTestAggregator(t, db)
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
	require.Equal(t, []string{opevents.EndpointUnhealthy}, pub.types())
	h := pub.events[0].health
	require.Equal(t, opevents.ReasonSuccessRate, h.Reason)
	require.Equal(t, "ep_a", h.EndpointID)
	require.Equal(t, t0.Add(30*time.Second), h.At)
	require.NotNil(t, h.SuccessRate)
	require.Less(t, h.SuccessRate.Rate, 0.5) // which worker evaluated first decides the figure
	require.Equal(t, 0.5, h.SuccessRate.Threshold)
	require.Equal(t, "1h", h.SuccessRate.Window)
	require.Nil(t, h.Circuit)

	// Back to 50%: recovered, announced once.
	for range 6 {
		w2.Observe("ep_a", attempt(t0, true, 20*time.Millisecond))
	}
	flushBoth()
	flushBoth()
	require.Equal(t, []string{opevents.EndpointUnhealthy, opevents.EndpointRecovered}, pub.types())

	f, err := w1.Figures(ctx, "ep_a")
	require.NoError(t, err)
	require.Equal(t, int64(20), f.LastDay.Attempts)
	require.Equal(t, 0.5, f.LastHour.SuccessRate)
	require.Equal(t, 24*time.Millisecond, f.LastHour.P50) // (16ms, 32ms], midpoint
}
