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

// tenantCases are the suite's cases about tenants, their tokens and the
// endpoints they own.
var tenantCases = []struct {
	name string
	fn   func(t *testing.T, s store.Store)
}{
	{"TenantPutGet", testTenantPutGet},
	{"TenantPagination", testTenantPagination},
	{"TenantConcurrentCreate", testTenantConcurrentCreate},
	{"EndpointTenant", testEndpointTenant},
	{"MatchingByTenant", testMatchingByTenant},
	{"MatchingSeesChanges", testMatchingSeesChanges},
	{"DeleteTenantCascades", testDeleteTenantCascades},
	{"TenantTokens", testTenantTokens},
	{"RevokeTenantTokens", testRevokeTenantTokens},
	{"EventsByTenant", testEventsByTenant},
}

func newTenant(id string, created time.Duration) *store.Tenant {
	return &store.Tenant{ID: id, Name: "Tenant " + id, Metadata: map[string]string{"plan": "pro"}, CreatedAt: at(created), UpdatedAt: at(created)}
}

func putTenant(t *testing.T, s store.Store, tn *store.Tenant) {
	t.Helper()
	_, created, err := s.PutTenant(context.Background(), tn)
	require.NoError(t, err)
	require.True(t, created)
}

// tenantEndpoint is newEndpoint owned by tenant.
func tenantEndpoint(id, tenant string, created time.Duration, eventTypes ...string) *store.Endpoint {
	ep := newEndpoint(id, created, eventTypes...)
	ep.TenantID = tenant
	return ep
}

func testTenantPutGet(t *testing.T, s store.Store) {
	ctx := context.Background()
	want := newTenant("acme:eu-1", 0)
	got, created, err := s.PutTenant(ctx, want)
	require.NoError(t, err)
	require.True(t, created)
	require.NotEmpty(t, got.Incarnation, "creation chooses an incarnation")
	want.Incarnation = got.Incarnation
	require.Equal(t, want, got, "every field round trips, times to the nanosecond")
	read, err := s.GetTenant(ctx, want.ID)
	require.NoError(t, err)
	require.Equal(t, want, read)

	update := &store.Tenant{ID: want.ID, Name: "Acme EU", CreatedAt: at(time.Hour), UpdatedAt: at(time.Hour)}
	got, created, err = s.PutTenant(ctx, update)
	require.NoError(t, err)
	require.False(t, created, "a second put updates")
	require.Equal(t, &store.Tenant{ID: want.ID, Name: "Acme EU", CreatedAt: want.CreatedAt, UpdatedAt: at(time.Hour), Incarnation: want.Incarnation}, got,
		"name and metadata replaced, creation time kept")

	_, err = s.GetTenant(ctx, "missing")
	require.ErrorIs(t, err, store.ErrNotFound)
	require.ErrorIs(t, s.DeleteTenant(ctx, "missing"), store.ErrNotFound)
	_, _, err = s.PutTenant(ctx, &store.Tenant{ID: "no-times"})
	require.Error(t, err)
}

func testTenantPagination(t *testing.T, s store.Store) {
	ctx := context.Background()
	var want []string
	for i := range 7 {
		id := fmt.Sprintf("t%d", i)
		want = append(want, id)
		putTenant(t, s, newTenant(id, time.Duration(i/2)*time.Second)) // pairs share an instant
	}
	var got []string
	cursor := ""
	for pages := 0; ; pages++ {
		require.Less(t, pages, 10, "pagination terminates")
		page, next, err := s.ListTenants(ctx, store.Page{Cursor: cursor, Limit: 3})
		require.NoError(t, err)
		for _, tn := range page {
			got = append(got, tn.ID)
		}
		if next == "" {
			break
		}
		require.Len(t, page, 3, "only the last page is short")
		cursor = next
	}
	require.Equal(t, want, got, "every tenant once, in (created_at, id) order")
	_, _, err := s.ListTenants(ctx, store.Page{Cursor: "not a cursor!"})
	require.ErrorIs(t, err, store.ErrInvalidCursor)
}

func testTenantConcurrentCreate(t *testing.T, s store.Store) {
	ctx := context.Background()
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		creates int
	)
	for range 8 {
		wg.Go(func() {
			_, created, err := s.PutTenant(ctx, newTenant("racy", 0))
			if assert.NoError(t, err) && created {
				mu.Lock()
				creates++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	require.Equal(t, 1, creates, "exactly one concurrent put creates the tenant")
}

func testEndpointTenant(t *testing.T, s store.Store) {
	ctx := context.Background()
	putTenant(t, s, newTenant("a", 0))
	putTenant(t, s, newTenant("b", 0))
	owned := tenantEndpoint("ep_a1", "a", 0)
	create(t, s, owned)
	got, err := s.GetEndpoint(ctx, owned.ID)
	require.NoError(t, err)
	require.Equal(t, owned, got)
	create(t, s, tenantEndpoint("ep_b1", "b", time.Second))
	create(t, s, newEndpoint("ep_platform", 2*time.Second))
	create(t, s, tenantEndpoint("ep_a2", "a", 3*time.Second))

	err = s.CreateEndpoint(ctx, tenantEndpoint("ep_x", "nobody", 0), secretFor("ep_x", 0))
	require.ErrorIs(t, err, store.ErrTenantNotFound)
	_, err = s.GetEndpoint(ctx, "ep_x")
	require.ErrorIs(t, err, store.ErrNotFound, "nothing was created")

	moved := *owned
	moved.TenantID = "b"
	moved.Description = "changed"
	require.NoError(t, s.UpdateEndpoint(ctx, &moved))
	got, err = s.GetEndpoint(ctx, owned.ID)
	require.NoError(t, err)
	require.Equal(t, "a", got.TenantID, "an update never moves an endpoint to another tenant")
	require.Equal(t, "changed", got.Description)

	for name, c := range map[string]struct {
		f    store.TenantFilter
		want []string
	}{
		"all":       {store.AllTenants, []string{"ep_a1", "ep_b1", "ep_platform", "ep_a2"}},
		"tenant a":  {store.OfTenant("a"), []string{"ep_a1", "ep_a2"}},
		"tenant b":  {store.OfTenant("b"), []string{"ep_b1"}},
		"no tenant": {store.OfTenant(""), []string{"ep_platform"}},
		"unknown":   {store.OfTenant("nobody"), nil},
	} {
		page, next, err := s.ListEndpoints(ctx, c.f, store.Page{Limit: 1})
		require.NoError(t, err, name)
		got := ids(page)
		for next != "" {
			page, next, err = s.ListEndpoints(ctx, c.f, store.Page{Cursor: next, Limit: 1})
			require.NoError(t, err, name)
			got = append(got, ids(page)...)
		}
		require.Equal(t, c.want, nilIfEmpty(got), name)
	}
}

func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

func testMatchingByTenant(t *testing.T, s store.Store) {
	ctx := context.Background()
	putTenant(t, s, newTenant("a", 0))
	putTenant(t, s, newTenant("b", 0))
	create(t, s, newEndpoint("platform_all", 0))
	create(t, s, newEndpoint("platform_order", time.Second, "order.*"))
	create(t, s, tenantEndpoint("a_all", "a", 2*time.Second))
	create(t, s, tenantEndpoint("a_order", "a", 3*time.Second, "order.created"))
	create(t, s, tenantEndpoint("b_order", "b", 4*time.Second, "order.*"))
	off := tenantEndpoint("a_off", "a", 5*time.Second)
	off.Enabled = false
	create(t, s, off)

	for _, c := range []struct {
		tenant, eventType string
		want              []string
	}{
		{"", "order.created", []string{"platform_all", "platform_order"}},
		{"", "user.created", []string{"platform_all"}},
		{"a", "order.created", []string{"a_all", "a_order", "a_off"}}, // disabled: held, not skipped
		{"a", "user.created", []string{"a_all", "a_off"}},
		{"b", "order.created", []string{"b_order"}},
		{"b", "user.created", nil},
		{"nobody", "order.created", nil},
	} {
		got, err := s.MatchingEndpoints(ctx, c.tenant, c.eventType)
		require.NoError(t, err)
		require.Equal(t, c.want, nilIfEmpty(ids(got)), "tenant %q, %s", c.tenant, c.eventType)
	}
	got, err := s.MatchingEndpoints(ctx, "a", "order.created")
	require.NoError(t, err)
	got[0].Description = "changed by the caller"
	again, err := s.MatchingEndpoints(ctx, "a", "order.created")
	require.NoError(t, err)
	require.Equal(t, "endpoint a_all", again[0].Description, "callers get copies")
}

// testMatchingSeesChanges checks that every kind of change to the
// endpoints applies to the next match at once, whatever the store keeps
// between matches.
func testMatchingSeesChanges(t *testing.T, s store.Store) {
	CheckMatchingSeesChanges(t, s, s)
}

// CheckMatchingSeesChanges changes endpoints through writer and checks
// that the next match through reader sees each change. Given two stores on
// one database, it shows that processes sharing the database see each
// other's changes.
func CheckMatchingSeesChanges(t *testing.T, writer, reader store.Store) {
	ctx := context.Background()
	match := func(tenant string) []string {
		t.Helper()
		eps, err := reader.MatchingEndpoints(ctx, tenant, "order.created")
		require.NoError(t, err)
		return nilIfEmpty(ids(eps))
	}
	putTenant(t, writer, newTenant("a", 0))
	require.Nil(t, match("a"))
	require.Nil(t, match(""))

	create(t, writer, tenantEndpoint("a1", "a", 0, "order.*"))
	require.Equal(t, []string{"a1"}, match("a"), "a created endpoint matches")
	require.Nil(t, match(""))

	ep := tenantEndpoint("a1", "a", 0, "user.*")
	require.NoError(t, writer.UpdateEndpoint(ctx, ep))
	require.Nil(t, match("a"), "a changed filter applies")

	ep.EventTypes = nil
	ep.Enabled = false
	require.NoError(t, writer.UpdateEndpoint(ctx, ep))
	m, err := reader.MatchingEndpoints(ctx, "a", "order.created")
	require.NoError(t, err)
	require.Len(t, m, 1, "a disabled endpoint still matches: its deliveries are held")
	require.False(t, m[0].Enabled, "and the match says it is disabled")
	ep.Enabled = true
	require.NoError(t, writer.UpdateEndpoint(ctx, ep))
	m, err = reader.MatchingEndpoints(ctx, "a", "order.created")
	require.NoError(t, err)
	require.True(t, len(m) == 1 && m[0].Enabled, "re-enabled")

	create(t, writer, newEndpoint("p1", time.Second))
	require.Equal(t, []string{"p1"}, match(""))
	require.NoError(t, writer.DeleteEndpoint(ctx, "p1"))
	require.Nil(t, match(""), "a deleted endpoint does not match")

	require.NoError(t, writer.DeleteTenant(ctx, "a"))
	require.Nil(t, match("a"), "a deleted tenant's endpoints do not match")
}

func testDeleteTenantCascades(t *testing.T, s store.Store) {
	ctx := context.Background()
	putTenant(t, s, newTenant("gone", 0))
	putTenant(t, s, newTenant("kept", 0))
	create(t, s, tenantEndpoint("ep_gone", "gone", 0))
	create(t, s, tenantEndpoint("ep_kept", "kept", 0))
	create(t, s, newEndpoint("ep_platform", 0))
	for _, tn := range []string{"gone", "kept"} {
		require.NoError(t, s.AddTenantToken(ctx, store.TenantToken{Hash: "h_" + tn, TenantID: tn, CreatedAt: t0, ExpiresAt: at(time.Hour)}))
	}

	require.NoError(t, s.DeleteTenant(ctx, "gone"))
	_, err := s.GetTenant(ctx, "gone")
	require.ErrorIs(t, err, store.ErrNotFound)
	_, err = s.GetEndpoint(ctx, "ep_gone")
	require.ErrorIs(t, err, store.ErrNotFound, "the tenant's endpoints are deleted")
	_, err = s.Secrets(ctx, "ep_gone", t0)
	require.ErrorIs(t, err, store.ErrNotFound)
	if raw, ok := s.(RawSecretReader); ok {
		left, err := raw.RawSecrets(ctx, "ep_gone")
		require.NoError(t, err)
		require.Empty(t, left, "and their secrets")
	}
	_, err = s.TenantOfToken(ctx, "h_gone", t0)
	require.ErrorIs(t, err, store.ErrNotFound, "its tokens are revoked")

	for _, id := range []string{"ep_kept", "ep_platform"} {
		_, err = s.GetEndpoint(ctx, id)
		require.NoError(t, err, "other endpoints stay")
	}
	tenant, err := s.TenantOfToken(ctx, "h_kept", t0)
	require.NoError(t, err)
	require.Equal(t, "kept", tenant, "other tenants' tokens stay")
	require.ErrorIs(t, s.DeleteTenant(ctx, "gone"), store.ErrNotFound)
}

func testTenantTokens(t *testing.T, s store.Store) {
	ctx := context.Background()
	putTenant(t, s, newTenant("a", 0))
	tok := store.TenantToken{Hash: "hash_1", TenantID: "a", CreatedAt: t0, ExpiresAt: at(time.Hour)}
	require.NoError(t, s.AddTenantToken(ctx, tok))

	tenant, err := s.TenantOfToken(ctx, "hash_1", at(time.Hour-time.Nanosecond))
	require.NoError(t, err)
	require.Equal(t, "a", tenant)
	_, err = s.TenantOfToken(ctx, "hash_1", at(time.Hour))
	require.ErrorIs(t, err, store.ErrNotFound, "a token is void from its expiry on")
	_, err = s.TenantOfToken(ctx, "unknown", t0)
	require.ErrorIs(t, err, store.ErrNotFound)

	err = s.AddTenantToken(ctx, store.TenantToken{Hash: "hash_x", TenantID: "nobody", CreatedAt: t0, ExpiresAt: at(time.Hour)})
	require.ErrorIs(t, err, store.ErrNotFound)
	require.Error(t, s.AddTenantToken(ctx, tok), "hashes are unique")

	// A token added after the first expired prunes it.
	require.NoError(t, s.AddTenantToken(ctx, store.TenantToken{Hash: "hash_2", TenantID: "a", CreatedAt: at(2 * time.Hour), ExpiresAt: at(3 * time.Hour)}))
	n, err := s.RevokeTenantTokens(ctx, "a", at(2*time.Hour))
	require.NoError(t, err)
	require.EqualValues(t, 1, n, "the expired token was pruned")
}

func testRevokeTenantTokens(t *testing.T, s store.Store) {
	ctx := context.Background()
	putTenant(t, s, newTenant("a", 0))
	putTenant(t, s, newTenant("b", 0))
	for i, tn := range []string{"a", "a", "b"} {
		require.NoError(t, s.AddTenantToken(ctx, store.TenantToken{Hash: fmt.Sprintf("h%d", i), TenantID: tn, CreatedAt: t0, ExpiresAt: at(time.Hour)}))
	}
	n, err := s.RevokeTenantTokens(ctx, "a", at(time.Minute))
	require.NoError(t, err)
	require.EqualValues(t, 2, n)
	for _, h := range []string{"h0", "h1"} {
		_, err = s.TenantOfToken(ctx, h, at(time.Minute))
		require.ErrorIs(t, err, store.ErrNotFound)
	}
	tenant, err := s.TenantOfToken(ctx, "h2", at(time.Minute))
	require.NoError(t, err)
	require.Equal(t, "b", tenant, "another tenant's tokens stay")
	got, err := s.GetTenant(ctx, "a")
	require.NoError(t, err)
	require.Equal(t, at(time.Minute), got.TokensRevokedAt)

	_, err = s.RevokeTenantTokens(ctx, "nobody", t0)
	require.ErrorIs(t, err, store.ErrNotFound)
}

func testEventsByTenant(t *testing.T, s store.Store) {
	ctx := context.Background()
	for i, tenant := range []string{"a", "b", "", "a"} {
		ev := newEvent(fmt.Sprintf("evt_%d", i), "order.created", "A", time.Duration(i)*time.Second, "ep_x")
		ev.TenantID = tenant
		claim(t, s, ev)
	}
	for name, c := range map[string]struct {
		f    *store.TenantFilter
		want []string
	}{
		"unset":     {nil, []string{"evt_3", "evt_2", "evt_1", "evt_0"}},
		"all":       {&store.AllTenants, []string{"evt_3", "evt_2", "evt_1", "evt_0"}},
		"tenant a":  {ptr(store.OfTenant("a")), []string{"evt_3", "evt_0"}},
		"no tenant": {ptr(store.OfTenant("")), []string{"evt_2"}},
		"unknown":   {ptr(store.OfTenant("c")), nil},
	} {
		evs, _, err := s.ListEvents(ctx, store.EventFilter{Tenant: c.f}, store.Page{})
		require.NoError(t, err, name)
		var got []string
		for _, ev := range evs {
			got = append(got, ev.ID)
		}
		require.Equal(t, c.want, got, name)
	}
}

func ptr[T any](v T) *T { return &v }
