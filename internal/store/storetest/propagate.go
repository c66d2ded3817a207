package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/store"
)

// testPropagateTrace checks the opt-in to trace propagation: off unless
// set, kept by create, get, list and matching, and changed by update.
func testPropagateTrace(t *testing.T, s store.Store) {
	ctx := context.Background()
	off := newEndpoint("ep_trace_off", 0, "trace.*")
	create(t, s, off)
	on := newEndpoint("ep_trace_on", time.Second, "trace.*")
	on.PropagateTrace = true
	create(t, s, on)

	got, err := s.GetEndpoint(ctx, off.ID)
	require.NoError(t, err)
	require.False(t, got.PropagateTrace, "off by default")
	got, err = s.GetEndpoint(ctx, on.ID)
	require.NoError(t, err)
	require.True(t, got.PropagateTrace)

	listed, _, err := s.ListEndpoints(ctx, store.TenantFilter{}, store.Page{})
	require.NoError(t, err)
	require.Len(t, listed, 2)
	require.False(t, listed[0].PropagateTrace)
	require.True(t, listed[1].PropagateTrace)

	matched, err := s.MatchingEndpoints(ctx, "", "trace.created")
	require.NoError(t, err)
	require.Len(t, matched, 2)
	for _, ep := range matched {
		require.Equal(t, ep.ID == on.ID, ep.PropagateTrace, ep.ID)
	}

	changed := *on
	changed.PropagateTrace = false
	changed.UpdatedAt = at(time.Hour)
	require.NoError(t, s.UpdateEndpoint(ctx, &changed))
	got, err = s.GetEndpoint(ctx, on.ID)
	require.NoError(t, err)
	require.False(t, got.PropagateTrace, "an update turns it off")
	changed.PropagateTrace = true
	require.NoError(t, s.UpdateEndpoint(ctx, &changed))
	got, err = s.GetEndpoint(ctx, on.ID)
	require.NoError(t, err)
	require.True(t, got.PropagateTrace, "and on again")
}
