package storetest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/store"
)

// newEvent returns an event record accepted at at(accepted) that fanned
// out to the endpoints, with a payload and digest derived from payload.
func newEvent(id, eventType, payload string, accepted time.Duration, endpoints ...string) *store.Event {
	ev := &store.Event{
		ID: id, Type: eventType, Payload: `{"v":"` + payload + `"}`,
		Digest: "digest-" + eventType + "-" + payload, AcceptedAt: at(accepted),
	}
	for _, ep := range endpoints {
		ev.Deliveries = append(ev.Deliveries, store.EventDelivery{ID: "dlv_" + id + "_" + ep, EndpointID: ep})
	}
	return ev
}

func claim(t *testing.T, s store.Store, ev *store.Event) *store.Event {
	t.Helper()
	got, claimed, err := s.ClaimEvent(context.Background(), ev)
	require.NoError(t, err)
	require.True(t, claimed, "event %s is new", ev.ID)
	return got
}

func testClaimThenGet(t *testing.T, s store.Store) {
	ctx := context.Background()
	// Fan-out order is kept, not sorted.
	first := newEvent("evt_1", "order.created", "A", 0, "ep_c", "ep_a", "ep_b")
	require.Equal(t, first, claim(t, s, first))
	got, err := s.GetEvent(ctx, "evt_1")
	require.NoError(t, err)
	require.Equal(t, first, got, "every field round trips, AcceptedAt to the nanosecond")

	// Another payload and fan-out under the same ID changes nothing and
	// answers the record.
	other := newEvent("evt_1", "order.created", "B", time.Hour, "ep_a", "ep_d")
	existing, claimed, err := s.ClaimEvent(ctx, other)
	require.NoError(t, err)
	require.False(t, claimed)
	require.Equal(t, first, existing)
	got, err = s.GetEvent(ctx, "evt_1")
	require.NoError(t, err)
	require.Equal(t, first, got)

	tenant := newEvent("evt_t", "order.created", "A", time.Second, "ep_a")
	tenant.TenantID = "tenant_42"
	claim(t, s, tenant)
	got, err = s.GetEvent(ctx, "evt_t")
	require.NoError(t, err)
	require.Equal(t, "tenant_42", got.TenantID)

	none := newEvent("evt_none", "order.created", "A", 2*time.Second)
	claim(t, s, none)
	got, err = s.GetEvent(ctx, "evt_none")
	require.NoError(t, err)
	require.Empty(t, got.Deliveries, "an event no endpoint wanted is still recorded")

	_, err = s.GetEvent(ctx, "evt_missing")
	require.ErrorIs(t, err, store.ErrNotFound)
	_, _, err = s.ClaimEvent(ctx, &store.Event{ID: "evt_x"})
	require.Error(t, err, "AcceptedAt is required")
}

// testConcurrentClaims races claims of one ID with two payloads and two
// fan-outs, as API processes sharing the store would: exactly one wins and
// every other claim answers the winner's record.
func testConcurrentClaims(t *testing.T, s store.Store) {
	ctx := context.Background()
	const (
		ids    = 5
		claims = 12
	)
	for i := range ids {
		id := fmt.Sprintf("evt_race_%d", i)
		var (
			wg      sync.WaitGroup
			mu      sync.Mutex
			winners []*store.Event
			seen    []*store.Event
			start   = make(chan struct{})
		)
		for c := range claims {
			ev := newEvent(id, "split.x", "A", time.Duration(c)*time.Millisecond, "ep_1", "ep_2", "ep_3")
			if c%2 == 1 {
				ev = newEvent(id, "split.x", "B", time.Duration(c)*time.Millisecond, "ep_1", "ep_2")
			}
			wg.Go(func() {
				<-start
				got, claimed, err := s.ClaimEvent(ctx, ev)
				if !assert.NoError(t, err) {
					return
				}
				mu.Lock()
				defer mu.Unlock()
				if claimed {
					winners = append(winners, got)
				}
				seen = append(seen, got)
			})
		}
		close(start)
		wg.Wait()
		require.Len(t, winners, 1, "exactly one claim of %s wins", id)
		require.Len(t, seen, claims)
		for _, got := range seen {
			require.Equal(t, winners[0], got, "every claim answers the winning record")
		}
		stored, err := s.GetEvent(ctx, id)
		require.NoError(t, err)
		require.Equal(t, winners[0], stored)
	}
}

func testListEvents(t *testing.T, s store.Store) {
	ctx := context.Background()
	// Two share an acceptance time: the ID breaks the tie.
	for i, d := range []time.Duration{0, time.Second, time.Second, 2 * time.Second, 3 * time.Second} {
		claim(t, s, newEvent(fmt.Sprintf("evt_%d", i), "order.created", "A", d, "ep_a"))
	}
	var (
		got    []string
		cursor string
	)
	for pages := 0; ; pages++ {
		require.Less(t, pages, 5, "pagination ends")
		evs, next, err := s.ListEvents(ctx, store.EventFilter{}, store.Page{Cursor: cursor, Limit: 2})
		require.NoError(t, err)
		require.LessOrEqual(t, len(evs), 2)
		for _, ev := range evs {
			got = append(got, ev.ID)
			require.Empty(t, ev.Payload, "lists leave the payload out")
			require.Equal(t, []store.EventDelivery{{ID: "dlv_" + ev.ID + "_ep_a", EndpointID: "ep_a"}}, ev.Deliveries)
			require.Equal(t, "digest-order.created-A", ev.Digest)
		}
		if next == "" {
			break
		}
		cursor = next
	}
	require.Equal(t, []string{"evt_4", "evt_3", "evt_2", "evt_1", "evt_0"}, got, "newest first, each once")

	all, next, err := s.ListEvents(ctx, store.EventFilter{}, store.Page{})
	require.NoError(t, err)
	require.Len(t, all, 5)
	require.Empty(t, next)

	for _, bad := range []string{"!!!", "bm90LWEtY3Vyc29y", "eC55"} {
		_, _, err = s.ListEvents(ctx, store.EventFilter{}, store.Page{Cursor: bad})
		require.ErrorIs(t, err, store.ErrInvalidCursor, "cursor %q", bad)
	}
}

func testListEventFilters(t *testing.T, s store.Store) {
	ctx := context.Background()
	claim(t, s, newEvent("e_created", "order.created", "A", 0, "ep_a"))
	claim(t, s, newEvent("e_paid", "order.paid.late", "A", time.Minute, "ep_a", "ep_b"))
	claim(t, s, newEvent("e_orders", "orders.x", "A", 2*time.Minute, "ep_b"))
	claim(t, s, newEvent("e_under", "order_x", "A", 3*time.Minute, "ep_c"))
	claim(t, s, newEvent("e_user", "user.created", "A", 4*time.Minute))

	list := func(f store.EventFilter) []string {
		t.Helper()
		evs, _, err := s.ListEvents(ctx, f, store.Page{})
		require.NoError(t, err)
		out := []string{}
		for _, ev := range evs {
			out = append(out, ev.ID)
		}
		return out
	}
	everything := []string{"e_user", "e_under", "e_orders", "e_paid", "e_created"}
	require.Equal(t, everything, list(store.EventFilter{Type: "*"}))
	require.Equal(t, []string{"e_created"}, list(store.EventFilter{Type: "order.created"}))
	require.Equal(t, []string{"e_paid", "e_created"}, list(store.EventFilter{Type: "order.*"}),
		"a wildcard matches the prefix with its dot, not orders.x or order_x")
	require.Equal(t, []string{"e_paid"}, list(store.EventFilter{Type: "order.paid.*"}))
	require.Empty(t, list(store.EventFilter{Type: "order"}))
	require.Equal(t, []string{"e_orders", "e_paid"}, list(store.EventFilter{EndpointID: "ep_b"}))
	require.Equal(t, []string{"e_paid"}, list(store.EventFilter{EndpointID: "ep_b", Type: "order.*"}))
	require.Equal(t, []string{"e_under", "e_orders", "e_paid"},
		list(store.EventFilter{Since: at(time.Minute), Until: at(3 * time.Minute)}), "since and until are inclusive")
	require.Equal(t, []string{"e_user"}, list(store.EventFilter{Since: at(4 * time.Minute)}))
	require.Equal(t, []string{"e_created"}, list(store.EventFilter{Until: at(time.Minute - time.Nanosecond)}))
	require.Empty(t, list(store.EventFilter{EndpointID: "ep_none"}))
}

func testPruneEvents(t *testing.T, s store.Store) {
	ctx := context.Background()
	// More than one prune batch before the cut.
	const old = 1203
	for i := range old {
		claim(t, s, newEvent(fmt.Sprintf("evt_old_%04d", i), "order.created", "A", time.Duration(i)*time.Millisecond, "ep_a", "ep_b"))
	}
	kept := claim(t, s, newEvent("evt_new", "order.created", "A", time.Hour, "ep_a"))

	n, err := s.PruneEvents(ctx, at(time.Hour))
	require.NoError(t, err)
	require.EqualValues(t, old, n)
	_, err = s.GetEvent(ctx, "evt_old_0000")
	require.ErrorIs(t, err, store.ErrNotFound)
	got, err := s.GetEvent(ctx, "evt_new")
	require.NoError(t, err)
	require.Equal(t, kept, got, "an event accepted at the cut is kept")

	// A pruned ID is free again, with its old deliveries gone with it.
	again := newEvent("evt_old_0000", "order.created", "B", 2*time.Hour, "ep_c")
	require.Equal(t, again, claim(t, s, again))
	got, err = s.GetEvent(ctx, "evt_old_0000")
	require.NoError(t, err)
	require.Equal(t, again, got)
	evs, _, err := s.ListEvents(ctx, store.EventFilter{EndpointID: "ep_b"}, store.Page{})
	require.NoError(t, err)
	require.Empty(t, evs, "pruned events' deliveries are gone")

	n, err = s.PruneEvents(ctx, at(time.Hour))
	require.NoError(t, err)
	require.Zero(t, n)
}

// BenchmarkClaimEvent measures what ingest adds to every new event: the
// claim of its record, here fanning out to three endpoints, from parallel
// requests.
func BenchmarkClaimEvent(b *testing.B, s store.Store) {
	ctx := context.Background()
	var (
		mu sync.Mutex
		n  int
	)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			mu.Lock()
			n++
			id := fmt.Sprintf("evt_bench_%d", n)
			mu.Unlock()
			ev := newEvent(id, "order.created", "A", 0, "ep_1", "ep_2", "ep_3")
			ev.AcceptedAt = time.Now()
			if _, claimed, err := s.ClaimEvent(ctx, ev); err != nil || !claimed {
				b.Error(err, claimed)
				return
			}
		}
	})
}
