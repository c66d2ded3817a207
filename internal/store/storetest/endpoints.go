package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/store"
)

func testCreateGet(t *testing.T, s store.Store) {
	ctx := context.Background()
	want := newEndpoint("ep_full", 0, "order.created", "invoice.*")
	create(t, s, want)
	got, err := s.GetEndpoint(ctx, want.ID)
	require.NoError(t, err)
	require.Equal(t, want, got, "every field round trips, times to the nanosecond")

	bare := &store.Endpoint{ID: "ep_bare", URL: "https://example.com", CreatedAt: at(time.Second), UpdatedAt: at(time.Second)}
	create(t, s, bare)
	got, err = s.GetEndpoint(ctx, bare.ID)
	require.NoError(t, err)
	require.Equal(t, bare, got, "empty lists and maps come back nil, zero durations zero")
}

func testUpdate(t *testing.T, s store.Store) {
	ctx := context.Background()
	ep := newEndpoint("ep_upd", 0, "order.*")
	create(t, s, ep)

	changed := *ep
	changed.URL = "https://example.org/new"
	changed.Description = "changed"
	changed.EventTypes = []string{"user.deleted"}
	changed.Enabled = false
	changed.RetrySchedule = []time.Duration{time.Minute}
	changed.Timeout = 3 * time.Second
	changed.Metadata = map[string]string{"k": "v"}
	changed.CreatedAt = at(time.Hour) // must be ignored
	changed.UpdatedAt = at(2 * time.Hour)
	require.NoError(t, s.UpdateEndpoint(ctx, &changed))

	got, err := s.GetEndpoint(ctx, ep.ID)
	require.NoError(t, err)
	want := changed
	want.CreatedAt = ep.CreatedAt
	require.Equal(t, &want, got)

	secrets, err := s.Secrets(ctx, ep.ID, at(3*time.Hour))
	require.NoError(t, err)
	require.Len(t, secrets, 1, "an update keeps the secrets")
}

func testDelete(t *testing.T, s store.Store) {
	ctx := context.Background()
	create(t, s, newEndpoint("ep_keep", 0))
	create(t, s, newEndpoint("ep_del", time.Second))
	require.NoError(t, s.DeleteEndpoint(ctx, "ep_del"))

	_, err := s.GetEndpoint(ctx, "ep_del")
	require.ErrorIs(t, err, store.ErrNotFound)
	require.ErrorIs(t, s.DeleteEndpoint(ctx, "ep_del"), store.ErrNotFound, "a second delete finds nothing")
	_, err = s.GetEndpoint(ctx, "ep_keep")
	require.NoError(t, err, "other endpoints stay")
}

func testNotFound(t *testing.T, s store.Store) {
	ctx := context.Background()
	create(t, s, newEndpoint("ep_exists", 0))
	const missing = "ep_missing"
	_, err := s.GetEndpoint(ctx, missing)
	require.ErrorIs(t, err, store.ErrNotFound)
	require.ErrorIs(t, s.UpdateEndpoint(ctx, newEndpoint(missing, 0)), store.ErrNotFound)
	require.ErrorIs(t, s.DeleteEndpoint(ctx, missing), store.ErrNotFound)
	_, err = s.Secrets(ctx, missing, t0)
	require.ErrorIs(t, err, store.ErrNotFound)

	secret := secretFor(missing, 1)
	err = s.RotateSecret(ctx, missing, secret, t0, time.Hour)
	require.ErrorIs(t, err, store.ErrNotFound)
	require.NotContains(t, err.Error(), secret, "errors never contain a secret")
}

func testCreateValidates(t *testing.T, s store.Store) {
	ctx := context.Background()
	noID := newEndpoint("", 0)
	secret := secretFor("noid", 0)
	err := s.CreateEndpoint(ctx, noID, secret)
	require.Error(t, err)
	require.NotContains(t, err.Error(), secret)

	create(t, s, newEndpoint("ep_dup", 0))
	err = s.CreateEndpoint(ctx, newEndpoint("ep_dup", time.Second), secret)
	require.Error(t, err, "IDs are unique")
	require.NotContains(t, err.Error(), secret)
}

func testPagination(t *testing.T, s store.Store) {
	ctx := context.Background()
	// Inserted out of order; ep_c and ep_d are created in the same instant
	// and ordered by ID.
	want := []string{"ep_a", "ep_b", "ep_c", "ep_d", "ep_e", "ep_f", "ep_g"}
	created := map[string]time.Duration{
		"ep_a": 0, "ep_b": time.Second, "ep_c": 2 * time.Second, "ep_d": 2 * time.Second,
		"ep_e": 3 * time.Second, "ep_f": time.Minute, "ep_g": time.Hour,
	}
	for _, id := range []string{"ep_g", "ep_d", "ep_a", "ep_f", "ep_c", "ep_e", "ep_b"} {
		create(t, s, newEndpoint(id, created[id]))
	}

	var got []string
	cursor := ""
	pages := 0
	for {
		page, next, err := s.ListEndpoints(ctx, store.AllTenants, store.Page{Cursor: cursor, Limit: 3})
		require.NoError(t, err)
		require.LessOrEqual(t, len(page), 3)
		got = append(got, ids(page)...)
		pages++
		if next == "" {
			break
		}
		require.Len(t, page, 3, "only the last page is short")
		cursor = next
		require.Less(t, pages, 10, "pagination terminates")
	}
	require.Equal(t, want, got, "every endpoint once, in (created_at, id) order")
	require.Equal(t, 3, pages)

	all, next, err := s.ListEndpoints(ctx, store.AllTenants, store.Page{})
	require.NoError(t, err)
	require.Equal(t, want, ids(all), "zero limit means the default page size")
	require.Empty(t, next)

	exact, next, err := s.ListEndpoints(ctx, store.AllTenants, store.Page{Limit: 7})
	require.NoError(t, err)
	require.Len(t, exact, 7)
	require.Empty(t, next, "a page that ends the list has no next cursor")

	_, _, err = s.ListEndpoints(ctx, store.AllTenants, store.Page{Cursor: "not a cursor!"})
	require.ErrorIs(t, err, store.ErrInvalidCursor)
}

func testMatching(t *testing.T, s store.Store) {
	ctx := context.Background()
	create(t, s, newEndpoint("all", 0))
	create(t, s, newEndpoint("exact", 1*time.Second, "order.created"))
	create(t, s, newEndpoint("prefix", 2*time.Second, "order.*"))
	create(t, s, newEndpoint("star", 3*time.Second, "*"))
	create(t, s, newEndpoint("invoice", 4*time.Second, "invoice.paid", "invoice.refunded"))
	disabled := newEndpoint("disabled", 5*time.Second)
	disabled.Enabled = false
	create(t, s, disabled)
	nowDisabled := newEndpoint("now_disabled", 6*time.Second, "order.created")
	create(t, s, nowDisabled)
	nowDisabled.Enabled = false
	require.NoError(t, s.UpdateEndpoint(ctx, nowDisabled))

	for eventType, want := range map[string][]string{
		// Disabled endpoints match: their deliveries are held, not skipped.
		"order.created":    {"all", "exact", "prefix", "star", "disabled", "now_disabled"},
		"order.updated":    {"all", "prefix", "star", "disabled"},
		"order.item.added": {"all", "prefix", "star", "disabled"},
		"order":            {"all", "star", "disabled"},
		"invoice.paid":     {"all", "star", "invoice", "disabled"},
		"user.created":     {"all", "star", "disabled"},
	} {
		got, err := s.MatchingEndpoints(ctx, "", eventType)
		require.NoError(t, err)
		require.ElementsMatch(t, want, ids(got), eventType)
	}
}
