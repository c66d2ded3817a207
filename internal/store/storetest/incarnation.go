package storetest

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/store"
)

// incarnationCases are the suite's cases about a tenant ID reused after a
// deletion, and the per-tenant endpoint limit.
var incarnationCases = []struct {
	name string
	fn   func(t *testing.T, s store.Store)
}{
	{"TenantIncarnation", testTenantIncarnation},
	{"DeleteTenantDeletesItsEvents", testDeleteTenantDeletesEvents},
	{"EventsByIncarnation", testEventsByIncarnation},
	{"EndpointLimit", testEndpointLimit},
}

// A tenant gets a random incarnation when created, keeps it through
// updates, and stamps it on its endpoints; the same ID created again after
// a deletion gets another.
func testTenantIncarnation(t *testing.T, s store.Store) {
	ctx := context.Background()
	first, created, err := s.PutTenant(ctx, newTenant("acme", 0))
	require.NoError(t, err)
	require.True(t, created)
	require.Len(t, first.Incarnation, 32)
	updated, created, err := s.PutTenant(ctx, newTenant("acme", 1))
	require.NoError(t, err)
	require.False(t, created)
	require.Equal(t, first.Incarnation, updated.Incarnation, "an update keeps the incarnation")
	read, err := s.GetTenant(ctx, "acme")
	require.NoError(t, err)
	require.Equal(t, first.Incarnation, read.Incarnation)

	ep := tenantEndpoint("ep_1", "acme", 2)
	create(t, s, ep)
	require.Equal(t, first.Incarnation, ep.TenantIncarnation, "CreateEndpoint stamps the tenant's incarnation")
	got, err := s.GetEndpoint(ctx, "ep_1")
	require.NoError(t, err)
	require.Equal(t, first.Incarnation, got.TenantIncarnation)
	matched, err := s.MatchingEndpoints(ctx, "acme", "a.b")
	require.NoError(t, err)
	require.Len(t, matched, 1)
	require.Equal(t, first.Incarnation, matched[0].TenantIncarnation, "matching carries it to the deliveries")

	platform := newEndpoint("ep_platform", 3)
	create(t, s, platform)
	require.Empty(t, platform.TenantIncarnation)

	require.NoError(t, s.DeleteTenant(ctx, "acme"))
	second, created, err := s.PutTenant(ctx, newTenant("acme", 4))
	require.NoError(t, err)
	require.True(t, created)
	require.NotEqual(t, first.Incarnation, second.Incarnation, "the ID's next owner is another incarnation")
}

// Deleting a tenant keeps its event records for its expunge job, which
// deletes them (DeleteTenantEvents), payloads included, and leaves every
// other tenant's and the platform's; the ID's next owner starts with none.
func testDeleteTenantDeletesEvents(t *testing.T, s store.Store) {
	ctx := context.Background()
	acme, _, err := s.PutTenant(ctx, newTenant("acme", 0))
	require.NoError(t, err)
	globex, _, err := s.PutTenant(ctx, newTenant("globex", 0))
	require.NoError(t, err)
	claim := func(id string, tn *store.Tenant) {
		ev := newEvent(id, "a.b", "p", 0, "ep_x")
		if tn != nil {
			ev.TenantID, ev.TenantIncarnation = tn.ID, tn.Incarnation
		}
		_, claimed, err := s.ClaimEvent(ctx, ev)
		require.NoError(t, err)
		require.True(t, claimed)
	}
	claim("evt_acme", acme)
	claim("evt_globex", globex)
	claim("evt_platform", nil)
	got, err := s.GetEvent(ctx, "evt_acme")
	require.NoError(t, err)
	require.Equal(t, acme.Incarnation, got.TenantIncarnation, "the record keeps the incarnation")

	require.NoError(t, s.DeleteTenant(ctx, "acme"))
	_, err = s.GetEvent(ctx, "evt_acme")
	require.NoError(t, err, "kept for the expunge job")
	n, err := s.DeleteTenantEvents(ctx, "acme", acme.Incarnation)
	require.NoError(t, err)
	require.Equal(t, int64(1), n)
	_, err = s.GetEvent(ctx, "evt_acme")
	require.ErrorIs(t, err, store.ErrNotFound, "the deleted tenant's event and payload are gone")
	for _, id := range []string{"evt_globex", "evt_platform"} {
		_, err := s.GetEvent(ctx, id)
		require.NoError(t, err, id)
	}
	again, _, err := s.PutTenant(ctx, newTenant("acme", 1))
	require.NoError(t, err)
	evs, _, err := s.ListEvents(ctx, store.EventFilter{Tenant: &store.TenantFilter{ID: "acme", Incarnation: again.Incarnation}}, store.Page{})
	require.NoError(t, err)
	require.Empty(t, evs)
}

// A tenant's event list selects its incarnation: a record stamped with an
// earlier one (an ingest that raced the deletion) is not listed.
func testEventsByIncarnation(t *testing.T, s store.Store) {
	ctx := context.Background()
	for i, inc := range []string{"old", "new", ""} {
		ev := newEvent("evt_"+string(rune('a'+i)), "a.b", "p", 0)
		ev.TenantID, ev.TenantIncarnation = "acme", inc
		_, _, err := s.ClaimEvent(ctx, ev)
		require.NoError(t, err)
	}
	list := func(inc string) []string {
		evs, _, err := s.ListEvents(ctx, store.EventFilter{Tenant: &store.TenantFilter{ID: "acme", Incarnation: inc}}, store.Page{})
		require.NoError(t, err)
		var out []string
		for _, ev := range evs {
			out = append(out, ev.ID)
		}
		return out
	}
	require.Equal(t, []string{"evt_b"}, list("new"))
	require.Equal(t, []string{"evt_c"}, list(""), "a tenant from before incarnations lists its unstamped records")
	all, _, err := s.ListEvents(ctx, store.EventFilter{Tenant: &store.AllTenants}, store.Page{})
	require.NoError(t, err)
	require.Len(t, all, 3)
}

// CreateEndpointWithin refuses a tenant's endpoint past the limit, even
// among concurrent creates, and counts each tenant alone.
func testEndpointLimit(t *testing.T, s store.Store) {
	ctx := context.Background()
	putTenant(t, s, newTenant("acme", 0))
	putTenant(t, s, newTenant("globex", 0))
	const limit = 5
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		ok, hit int
	)
	for i := range 12 {
		wg.Go(func() {
			ep := tenantEndpoint("ep_"+string(rune('a'+i)), "acme", 0)
			err := s.CreateEndpointWithin(ctx, ep, secretFor(ep.ID, 0), limit)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				ok++
			case errors.Is(err, store.ErrLimitReached):
				hit++
			default:
				t.Errorf("create %s: %v", ep.ID, err)
			}
		})
	}
	wg.Wait()
	require.Equal(t, limit, ok)
	require.Equal(t, 12-limit, hit)
	require.NoError(t, s.CreateEndpointWithin(ctx, tenantEndpoint("ep_globex", "globex", 0), "whsec_x", limit), "another tenant has its own count")
	require.NoError(t, s.CreateEndpointWithin(ctx, newEndpoint("ep_platform", 0), "whsec_x", 1), "the platform's own endpoints are not counted")
	eps, _, err := s.ListEndpoints(ctx, store.OfTenant("acme"), store.Page{})
	require.NoError(t, err)
	require.Len(t, eps, limit)
	require.NoError(t, s.DeleteEndpoint(ctx, eps[0].ID))
	require.NoError(t, s.CreateEndpointWithin(ctx, tenantEndpoint("ep_z", "acme", 0), "whsec_x", limit), "a deletion frees a place")
}
