package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/store"
)

var filterCases = []struct {
	name string
	fn   func(t *testing.T, s store.Store)
}{
	{"FilterRoundTrip", testFilterRoundTrip},
	{"FilterCompiledForMatching", testFilterCompiled},
}

const testFilter = `payload.amount > 1000 && payload.currency == "EUR"`

// A content filter round trips through create, get, list and update; an
// update to "" removes it.
func testFilterRoundTrip(t *testing.T, s store.Store) {
	ctx := context.Background()
	ep := newEndpoint("ep_filter", 0, "invoice.*")
	ep.Filter = testFilter
	create(t, s, ep)
	create(t, s, newEndpoint("ep_nofilter", time.Second, "invoice.*"))

	got, err := s.GetEndpoint(ctx, ep.ID)
	require.NoError(t, err)
	require.Equal(t, testFilter, got.Filter)
	require.Nil(t, got.FilterProgram, "only matching compiles")
	list, _, err := s.ListEndpoints(ctx, store.TenantFilter{All: true}, store.Page{})
	require.NoError(t, err)
	require.Equal(t, []string{"ep_filter", "ep_nofilter"}, ids(list))
	require.Equal(t, testFilter, list[0].Filter)
	require.Empty(t, list[1].Filter)

	changed := *got
	changed.Filter = `type == "invoice.paid"`
	changed.UpdatedAt = at(time.Minute)
	require.NoError(t, s.UpdateEndpoint(ctx, &changed))
	got, err = s.GetEndpoint(ctx, ep.ID)
	require.NoError(t, err)
	require.Equal(t, `type == "invoice.paid"`, got.Filter)

	changed.Filter = ""
	changed.UpdatedAt = at(2 * time.Minute)
	require.NoError(t, s.UpdateEndpoint(ctx, &changed))
	got, err = s.GetEndpoint(ctx, ep.ID)
	require.NoError(t, err)
	require.Empty(t, got.Filter, "an empty filter removes it")
}

// MatchingEndpoints hands out each filter compiled; a change to another
// endpoint keeps the program, a change to the filter compiles the new one.
func testFilterCompiled(t *testing.T, s store.Store) {
	ctx := context.Background()
	filtered := newEndpoint("ep_f", 0, "invoice.*")
	filtered.Filter = testFilter
	create(t, s, filtered)
	create(t, s, newEndpoint("ep_plain", time.Second, "invoice.*"))

	matched, err := s.MatchingEndpoints(ctx, "", "invoice.paid")
	require.NoError(t, err)
	require.Equal(t, []string{"ep_f", "ep_plain"}, ids(matched))
	require.NotNil(t, matched[0].FilterProgram)
	require.Equal(t, testFilter, matched[0].FilterProgram.Expression())
	require.Nil(t, matched[1].FilterProgram, "no filter, no program")
	first := matched[0].FilterProgram

	other := newEndpoint("ep_other", 2*time.Second, "invoice.*")
	create(t, s, other)
	matched, err = s.MatchingEndpoints(ctx, "", "invoice.paid")
	require.NoError(t, err)
	require.Len(t, matched, 3)
	require.Same(t, first, matched[0].FilterProgram, "compiled once per version of the endpoint")

	changed := *filtered
	changed.Filter = `type == "invoice.paid"`
	changed.UpdatedAt = at(time.Hour)
	require.NoError(t, s.UpdateEndpoint(ctx, &changed))
	matched, err = s.MatchingEndpoints(ctx, "", "invoice.paid")
	require.NoError(t, err)
	require.Equal(t, `type == "invoice.paid"`, matched[0].FilterProgram.Expression())
}
