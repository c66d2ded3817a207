package storetest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/circuit"
	"github.com/hookd/hookd/internal/store"
)

var outboxCases = []struct {
	name string
	fn   func(t *testing.T, s store.Store)
}{
	{"OutboxWithTheChange", testOutboxWithTheChange},
	{"OutboxOnlyWhenChanged", testOutboxOnlyWhenChanged},
	{"OutboxLeaseAndRetry", testOutboxLeaseAndRetry},
	{"OutboxConcurrentClaims", testOutboxConcurrentClaims},
}

// opEvent is an operational event with a recognisable body.
func opEvent(id, about string) store.OpEvent {
	return store.OpEvent{ID: id, Type: "hookd.test." + id, About: about, Body: []byte(`{"id":"` + id + `"}`)}
}

// claimAll claims every event due now, for a minute.
func claimAll(t *testing.T, s store.Store) map[string]store.OpEvent {
	t.Helper()
	got, err := s.ClaimOpEvents(context.Background(), time.Now(), time.Minute, 100)
	require.NoError(t, err)
	out := map[string]store.OpEvent{}
	for _, ev := range got {
		out[ev.ID] = ev
	}
	return out
}

// woken reports whether the store's outbox wake-up is pending, and
// consumes it.
func woken(s store.Store) bool {
	select {
	case <-s.OutboxWake():
		return true
	default:
		return false
	}
}

// testOutboxWithTheChange: each change that announces itself writes its
// events with it, an event about an endpoint takes that endpoint's
// tenant and incarnation, the commit wakes the publisher, and a change
// that fails writes none.
func testOutboxWithTheChange(t *testing.T, s store.Store) {
	ctx := context.Background()
	putTenant(t, s, newTenant("acme", 0))
	tn, err := s.GetTenant(ctx, "acme")
	require.NoError(t, err)
	ep := tenantEndpoint("ep_ob", "acme", 0)
	require.NoError(t, s.CreateEndpointWithin(ctx, ep, secretFor(ep.ID, 0), 0, opEvent("created", ep.ID)))
	require.True(t, woken(s), "a commit with events wakes the publisher")
	require.False(t, woken(s))

	ep.Description, ep.UpdatedAt = "changed", at(time.Minute)
	require.NoError(t, s.UpdateEndpoint(ctx, ep, opEvent("updated", ep.ID), opEvent("disabled", ep.ID)))
	_, err = s.UpdateCircuitAnnouncing(ctx, ep.ID, func(b circuit.Breaker) (circuit.Breaker, []store.OpEvent) {
		b.Failures++
		return b, []store.OpEvent{opEvent("unhealthy", ep.ID)}
	})
	require.NoError(t, err)
	platform := newEndpoint("ep_platform", 0)
	create(t, s, platform)
	require.NoError(t, s.DeleteEndpoint(ctx, platform.ID, opEvent("deleted", platform.ID)))
	claim(t, s, newEvent("evt_x", "order.created", "A", 0, ep.ID))
	x, changed, err := s.ExpungeEvent(ctx, "evt_x", "platform", "gdpr", at(time.Hour), func(ev *store.Event) []store.OpEvent {
		return []store.OpEvent{{ID: "expunged:" + ev.ID, Type: "hookd.event.expunged", TenantID: "acme", TenantIncarnation: "given", Body: []byte(`{}`)}}
	})
	require.NoError(t, err)
	require.True(t, changed)
	require.NotNil(t, x.Expunge)

	// Failed changes record nothing.
	require.Error(t, s.CreateEndpointWithin(ctx, tenantEndpoint("ep_ob", "acme", 0), "whsec_x", 0, opEvent("dup", "ep_ob")))
	require.ErrorIs(t, s.UpdateEndpoint(ctx, newEndpoint("ep_missing", 0), opEvent("missing", "ep_missing")), store.ErrNotFound)
	require.ErrorIs(t, s.DeleteEndpoint(ctx, "ep_missing", opEvent("missing2", "ep_missing")), store.ErrNotFound)

	got := claimAll(t, s)
	require.ElementsMatch(t, []string{"created", "updated", "disabled", "unhealthy", "deleted", "expunged:evt_x"}, keys(got))
	for _, id := range []string{"created", "updated", "disabled", "unhealthy"} {
		ev := got[id]
		require.Equal(t, "acme", ev.TenantID, id)
		require.Equal(t, tn.Incarnation, ev.TenantIncarnation, "%s: the endpoint's tenant, read with the change", id)
		require.Equal(t, "hookd.test."+id, ev.Type)
		require.JSONEq(t, `{"id":"`+id+`"}`, string(ev.Body))
		require.Equal(t, 1, ev.Attempts)
		require.False(t, ev.CreatedAt.IsZero())
	}
	require.Empty(t, got["deleted"].TenantID, "the platform's endpoint")
	require.Equal(t, "given", got["expunged:evt_x"].TenantIncarnation, "an incarnation given is kept")
}

// alerts is s's alert flags; the case is skipped without them.
func alerts(t *testing.T, s store.Store) store.Stats {
	ss, ok := s.(store.Stats)
	if !ok {
		t.Skip("store keeps no alerts")
	}
	return ss
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// testOutboxOnlyWhenChanged: the conditional changes (disable, alert,
// expunge) record their events only on the call that changed.
func testOutboxOnlyWhenChanged(t *testing.T, s store.Store) {
	ctx := context.Background()
	ep := newEndpoint("ep_once", 0)
	create(t, s, ep)
	for i, want := range []bool{true, false} {
		changed, err := s.DisableEndpoint(ctx, ep.ID, "auto", at(time.Minute), opEvent("disable"+string(rune('0'+i)), ep.ID))
		require.NoError(t, err)
		require.Equal(t, want, changed)
		changed, err = alerts(t, s).SetAlert(ctx, ep.ID, "success_rate", true, at(time.Minute), opEvent("alert"+string(rune('0'+i)), ep.ID))
		require.NoError(t, err)
		require.Equal(t, want, changed)
	}
	changed, err := alerts(t, s).SetAlert(ctx, "ep_never", "success_rate", false, at(time.Minute), opEvent("cleared", "ep_never"))
	require.NoError(t, err)
	require.False(t, changed)
	claim(t, s, newEvent("evt_once", "order.created", "A", 0, ep.ID))
	for range 2 {
		_, _, err := s.ExpungeEvent(ctx, "evt_once", "platform", "", at(time.Hour), func(ev *store.Event) []store.OpEvent {
			return []store.OpEvent{opEvent("expunged"+ev.Expunge.By, "")}
		})
		require.NoError(t, err)
	}
	require.ElementsMatch(t, []string{"disable0", "alert0", "expungedplatform"}, keys(claimAll(t, s)))
}

// testOutboxLeaseAndRetry: a claim leases its rows (a second claim does
// not see them until the lease ends), a retry makes a row due at its
// time, a delete removes it, and an ID recorded twice keeps one row.
func testOutboxLeaseAndRetry(t *testing.T, s store.Store) {
	ctx := context.Background()
	ep := newEndpoint("ep_lease", 0)
	require.NoError(t, s.CreateEndpointWithin(ctx, ep, secretFor(ep.ID, 0), 0, opEvent("a", ep.ID), opEvent("b", ep.ID)))
	ep.UpdatedAt = at(time.Minute)
	require.NoError(t, s.UpdateEndpoint(ctx, ep, store.OpEvent{ID: "a", Type: "hookd.test.other", Body: []byte(`{}`)}))

	now := time.Now()
	first, err := s.ClaimOpEvents(ctx, now, time.Minute, 1)
	require.NoError(t, err)
	require.Len(t, first, 1, "at most n")
	rest, err := s.ClaimOpEvents(ctx, now, time.Minute, 10)
	require.NoError(t, err)
	require.Len(t, rest, 1)
	require.NotEqual(t, first[0].ID, rest[0].ID)
	none, err := s.ClaimOpEvents(ctx, now.Add(59*time.Second), time.Minute, 10)
	require.NoError(t, err)
	require.Empty(t, none, "leased")

	a := first[0]
	if a.ID != "a" {
		a = rest[0]
	}
	require.Equal(t, "hookd.test.a", a.Type, "the first row of an ID is kept")
	require.NoError(t, s.RetryOpEvent(ctx, "a", now.Add(10*time.Second), "ingest unavailable"))
	require.NoError(t, s.DeleteOpEvent(ctx, "b"))
	require.NoError(t, s.DeleteOpEvent(ctx, "b"), "deleting twice is no error")
	none, err = s.ClaimOpEvents(ctx, now.Add(9*time.Second), time.Minute, 10)
	require.NoError(t, err)
	require.Empty(t, none, "not due before its retry")
	again, err := s.ClaimOpEvents(ctx, now.Add(10*time.Second), time.Minute, 10)
	require.NoError(t, err)
	require.Len(t, again, 1)
	require.Equal(t, "a", again[0].ID)
	require.Equal(t, 2, again[0].Attempts)
	lease, err := s.ClaimOpEvents(ctx, now.Add(10*time.Second+time.Minute), time.Minute, 10)
	require.NoError(t, err)
	require.Len(t, lease, 1, "a lease that ended (a process killed while publishing) makes it due again")
	require.Equal(t, 3, lease[0].Attempts)
}

// testOutboxConcurrentClaims: claims running at once (several
// processes) each take distinct rows, and together take them all.
func testOutboxConcurrentClaims(t *testing.T, s store.Store) {
	ctx := context.Background()
	ep := newEndpoint("ep_many", 0)
	var events []store.OpEvent
	for i := range 60 {
		events = append(events, opEvent("ev"+string(rune('A'+i/26))+string(rune('a'+i%26)), ep.ID))
	}
	require.NoError(t, s.CreateEndpointWithin(ctx, ep, secretFor(ep.ID, 0), 0, events...))
	var (
		mu   sync.Mutex
		seen = map[string]int{}
		wg   sync.WaitGroup
	)
	now := time.Now()
	for range 6 {
		wg.Go(func() {
			for {
				got, err := s.ClaimOpEvents(ctx, now, time.Minute, 4)
				if !assertNoError(t, err) || len(got) == 0 {
					return
				}
				mu.Lock()
				for _, ev := range got {
					seen[ev.ID]++
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	require.Len(t, seen, len(events))
	for id, n := range seen {
		require.Equal(t, 1, n, "%s claimed once", id)
	}
}

func assertNoError(t *testing.T, err error) bool {
	if err != nil {
		t.Error(err)
		return false
	}
	return true
}
