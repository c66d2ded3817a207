package ingest_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/ingest"
	"github.com/hookd/hookd/internal/store"
)

// records is an in-memory ingest.Records and ingest.Matcher.
type records struct {
	mu        sync.Mutex
	events    map[string]*store.Event
	endpoints []*store.Endpoint
}

func newRecords(endpointIDs ...string) *records {
	r := &records{events: map[string]*store.Event{}}
	r.subscribe(endpointIDs...)
	return r
}

func (r *records) subscribe(ids ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, id := range ids {
		r.endpoints = append(r.endpoints, &store.Endpoint{ID: id, Enabled: true})
	}
}

func (r *records) MatchingEndpoints(context.Context, string, string) ([]*store.Endpoint, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*store.Endpoint(nil), r.endpoints...), nil
}

func (r *records) GetEndpoint(_ context.Context, id string) (*store.Endpoint, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, ep := range r.endpoints {
		if ep.ID == id {
			return ep, nil
		}
	}
	return nil, store.ErrNotFound
}

func (r *records) ClaimEvent(_ context.Context, ev *store.Event) (*store.Event, bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if got, ok := r.events[ev.ID]; ok {
		return got, false, nil
	}
	r.events[ev.ID] = ev
	return ev, true, nil
}

// temporal is an ingest.Starter that remembers started delivery IDs,
// refuses a second start of one, and fails the starts fail names.
type temporal struct {
	mu       sync.Mutex
	started  map[string]delivery.Request
	calls    int
	fail     map[string]bool
	hold     time.Duration
	inFlight atomic.Int32
	maxSeen  atomic.Int32
}

func newTemporal() *temporal {
	return &temporal{started: map[string]delivery.Request{}, fail: map[string]bool{}}
}

func (tc *temporal) ExecuteWorkflow(_ context.Context, opts client.StartWorkflowOptions, _ any, args ...any) (client.WorkflowRun, error) {
	n := tc.inFlight.Add(1)
	defer tc.inFlight.Add(-1)
	for {
		m := tc.maxSeen.Load()
		if n <= m || tc.maxSeen.CompareAndSwap(m, n) {
			break
		}
	}
	time.Sleep(tc.hold) // holds the slot, so starts overlap
	tc.mu.Lock()
	defer tc.mu.Unlock()
	tc.calls++
	if tc.fail[opts.ID] {
		return nil, errors.New("temporal: unavailable")
	}
	if _, ok := tc.started[opts.ID]; ok {
		return nil, serviceerror.NewWorkflowExecutionAlreadyStarted("already started", "", "")
	}
	tc.started[opts.ID] = args[0].(delivery.Request)
	return nil, nil
}

func (tc *temporal) startedIDs() []string {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	var ids []string
	for id := range tc.started {
		ids = append(ids, id)
	}
	return ids
}

func publisher(r *records, tc *temporal) *ingest.Publisher {
	return &ingest.Publisher{Temporal: tc, Endpoints: r, Records: r}
}

func ev(id, body string) ingest.Event {
	return ingest.Event{ID: id, Type: "order.created", Body: body}
}

func TestConflictStartsNothing(t *testing.T) {
	r, tc := newRecords("ep_1"), newTemporal()
	p := publisher(r, tc)
	_, err := p.Publish(t.Context(), ev("evt_1", `{"v":"A"}`))
	require.NoError(t, err)
	r.subscribe("ep_2")
	calls := tc.calls

	_, err = p.Publish(t.Context(), ev("evt_1", `{"v":"B"}`))
	require.ErrorIs(t, err, ingest.ErrConflict)
	_, err = p.Publish(t.Context(), ingest.Event{ID: "evt_1", Type: "order.paid", Body: `{"v":"A"}`})
	require.ErrorIs(t, err, ingest.ErrConflict, "another type is another event")
	_, err = p.Publish(t.Context(), ingest.Event{ID: "evt_1", Type: "order.created", Body: `{"v":"A"}`, TenantID: "acme"})
	require.ErrorIs(t, err, ingest.ErrConflict, "another tenant is another event")
	require.Equal(t, calls, tc.calls, "a conflict starts nothing, not even for the new endpoint")
	require.Equal(t, []string{delivery.ID("evt_1", "ep_1")}, tc.startedIDs())
}

func TestDuplicateAnswersTheRecordedFanOut(t *testing.T) {
	r, tc := newRecords("ep_1"), newTemporal()
	p := publisher(r, tc)
	first, err := p.Publish(t.Context(), ev("evt_1", `{"v":"A"}`))
	require.NoError(t, err)
	require.False(t, first.Duplicate)
	r.subscribe("ep_2")

	again, err := p.Publish(t.Context(), ev("evt_1", `{"v":"A"}`))
	require.NoError(t, err)
	require.True(t, again.Duplicate)
	require.Equal(t, first.Deliveries, again.Deliveries)
	require.Equal(t, []string{delivery.ID("evt_1", "ep_1")}, tc.startedIDs(), "nothing for the endpoint added since")
}

// A start lost after the record (Temporal failed, or the process died)
// is completed by the client's retry of the same post.
func TestRetryCompletesStartsLostAfterTheRecord(t *testing.T) {
	r, tc := newRecords("ep_1", "ep_2", "ep_3"), newTemporal()
	p := publisher(r, tc)
	tc.fail[delivery.ID("evt_1", "ep_2")] = true
	_, err := p.Publish(t.Context(), ev("evt_1", `{"v":"A"}`))
	require.ErrorIs(t, err, ingest.ErrUnavailable)
	require.Len(t, tc.startedIDs(), 2)

	tc.fail = map[string]bool{}
	res, err := p.Publish(t.Context(), ev("evt_1", `{"v":"A"}`))
	require.NoError(t, err)
	require.True(t, res.Duplicate)
	require.Len(t, res.Deliveries, 3)
	require.ElementsMatch(t, []string{delivery.ID("evt_1", "ep_1"), delivery.ID("evt_1", "ep_2"), delivery.ID("evt_1", "ep_3")}, tc.startedIDs())
	accepted := r.events["evt_1"].AcceptedAt
	for _, req := range tc.started {
		require.Equal(t, accepted, req.AcceptedAt, "every start carries the record's acceptance time")
	}
}

// One batch's starts share one bound, however many events and endpoints.
func TestBatchBoundsStartsInFlight(t *testing.T) {
	var eps []string
	for i := range 10 {
		eps = append(eps, fmt.Sprintf("ep_%d", i))
	}
	r, tc := newRecords(eps...), newTemporal()
	tc.hold = time.Millisecond
	p := publisher(r, tc)
	p.MaxStarts = 4
	b := p.Batch()
	var wg sync.WaitGroup
	for i := range 100 {
		wg.Go(func() {
			_, err := b.Publish(context.Background(), ev(fmt.Sprintf("evt_%d", i), `{}`))
			assert.NoError(t, err)
		})
	}
	wg.Wait()
	require.Len(t, tc.startedIDs(), 1000)
	require.LessOrEqual(t, tc.maxSeen.Load(), int32(4))
}

func TestEagerStartsBoundedAcrossRequests(t *testing.T) {
	var eps []string
	for i := range 10 {
		eps = append(eps, fmt.Sprintf("ep_%d", i))
	}
	r, tc := newRecords(eps...), newTemporal()
	tc.hold = time.Millisecond
	p := publisher(r, tc)
	p.EagerStart, p.MaxEagerStarts = true, 4
	var wg sync.WaitGroup
	for i := range 20 {
		// Separate requests: each alone may have 32 starts in flight.
		wg.Go(func() {
			_, err := p.Publish(context.Background(), ev(fmt.Sprintf("evt_%d", i), `{}`))
			assert.NoError(t, err)
		})
	}
	wg.Wait()
	require.Len(t, tc.startedIDs(), 200)
	require.LessOrEqual(t, tc.maxSeen.Load(), int32(4))
}

// A publisher missing a required field says which, before any Publish.
func TestPublisherValidate(t *testing.T) {
	r, tc := &records{}, &temporal{}
	require.NoError(t, publisher(r, tc).Validate())
	for _, c := range []struct {
		p    *ingest.Publisher
		want string
	}{
		{&ingest.Publisher{Endpoints: r, Records: r}, "Temporal client"},
		{&ingest.Publisher{Temporal: tc, Records: r}, "endpoint matcher"},
		{&ingest.Publisher{Temporal: tc, Endpoints: r}, "event record store"},
	} {
		require.ErrorContains(t, c.p.Validate(), c.want)
	}
}
