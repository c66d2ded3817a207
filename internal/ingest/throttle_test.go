package ingest_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/hookd/hookd/internal/ingest"
	"github.com/hookd/hookd/internal/store"
)

// byType is an ingest.Matcher subscribing one endpoint to each type.
type byType map[string]*store.Endpoint

func (m byType) MatchingEndpoints(_ context.Context, _, eventType string) ([]*store.Endpoint, error) {
	return []*store.Endpoint{m[eventType]}, nil
}

// backlog is an ingest.SlotReserver whose every slot is a minute ahead:
// a limit with a long queue behind it.
type backlog struct{}

func (backlog) ReserveSlot(_ context.Context, _ string, l store.RateLimit, now time.Time) (store.Slot, error) {
	return store.Slot{At: now.Add(time.Minute), Since: l.Since}, nil
}

// heldDelayed is an ingest.Starter holding every delayed start until
// released, counting them in flight; other starts return at once.
type heldDelayed struct {
	release          chan struct{}
	delayed, maxSeen atomic.Int32
	started          atomic.Int32
}

func (s *heldDelayed) ExecuteWorkflow(_ context.Context, opts client.StartWorkflowOptions, _ any, _ ...any) (client.WorkflowRun, error) {
	if opts.StartDelay > 0 {
		if opts.EnableEagerStart {
			return nil, fmt.Errorf("a delayed start %s asked to be eager", opts.ID)
		}
		n := s.delayed.Add(1)
		defer s.delayed.Add(-1)
		for m := s.maxSeen.Load(); n > m && !s.maxSeen.CompareAndSwap(m, n); m = s.maxSeen.Load() {
		}
		<-s.release
	}
	s.started.Add(1)
	return nil, nil
}

// A backlog posted to a rate-limited endpoint holds only the publisher's
// delayed-start slots: deliveries due now, posted beside it, start while
// every one of those is taken.
func TestDelayedStartsDoNotHoldDueOnes(t *testing.T) {
	limited := &store.Endpoint{ID: "ep_limited", Enabled: true, RateLimit: &store.RateLimit{PerSecond: 5, Burst: 1}}
	free := &store.Endpoint{ID: "ep_free", Enabled: true}
	r, tc := newRecords(), &heldDelayed{release: make(chan struct{})}
	p := &ingest.Publisher{
		Temporal: tc, Records: r, Slots: backlog{},
		Endpoints:  byType{"limited": limited, "free": free},
		EagerStart: true, MaxEagerStarts: 2, MaxDelayedStarts: 3,
	}
	var wg sync.WaitGroup
	for i := range 10 {
		wg.Go(func() {
			_, err := p.Publish(context.Background(), ingest.Event{ID: fmt.Sprintf("evt_l%d", i), Type: "limited", Body: `{}`})
			assert.NoError(t, err)
		})
	}
	require.Eventually(t, func() bool { return tc.delayed.Load() == 3 }, 5*time.Second, time.Millisecond)

	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	for i := range 20 {
		_, err := p.Publish(ctx, ingest.Event{ID: fmt.Sprintf("evt_f%d", i), Type: "free", Body: `{}`})
		require.NoError(t, err, "a due start waited behind the delayed ones")
	}
	require.EqualValues(t, 20, tc.started.Load())

	close(tc.release)
	wg.Wait()
	require.EqualValues(t, 30, tc.started.Load())
	require.EqualValues(t, 3, tc.maxSeen.Load(), "delayed starts in flight beyond the publisher's bound")
}
