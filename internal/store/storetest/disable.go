package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/circuit"
	"github.com/hookd/hookd/internal/store"
)

// testDisableEndpoint checks auto-disable's store side: DisableEndpoint
// disables an enabled endpoint once (the second caller is told it did
// not), keeps the reason through get, list, matching and update, and a
// circuit keeps when its failures began.
func testDisableEndpoint(t *testing.T, s store.Store) {
	ctx := context.Background()
	ep := newEndpoint("ep_disable", 0, "off.*")
	create(t, s, ep)

	changed, err := s.DisableEndpoint(ctx, ep.ID, "gone", at(time.Minute))
	require.NoError(t, err)
	require.True(t, changed)
	changed, err = s.DisableEndpoint(ctx, ep.ID, "auto", at(2*time.Minute))
	require.NoError(t, err)
	require.False(t, changed, "already disabled")
	_, err = s.DisableEndpoint(ctx, "ep_missing", "auto", at(time.Minute))
	require.ErrorIs(t, err, store.ErrNotFound)

	got, err := s.GetEndpoint(ctx, ep.ID)
	require.NoError(t, err)
	require.False(t, got.Enabled)
	require.Equal(t, "gone", got.DisabledReason)
	require.True(t, got.UpdatedAt.Equal(at(time.Minute)))
	listed, _, err := s.ListEndpoints(ctx, store.TenantFilter{}, store.Page{})
	require.NoError(t, err)
	require.Equal(t, "gone", listed[0].DisabledReason)
	matched, err := s.MatchingEndpoints(ctx, "", "off.now")
	require.NoError(t, err)
	require.Len(t, matched, 1)
	require.Equal(t, "gone", matched[0].DisabledReason)

	got.Enabled, got.DisabledReason, got.UpdatedAt = true, "", at(time.Hour)
	require.NoError(t, s.UpdateEndpoint(ctx, got))
	got, err = s.GetEndpoint(ctx, ep.ID)
	require.NoError(t, err)
	require.True(t, got.Enabled)
	require.Empty(t, got.DisabledReason, "enabling clears the reason")

	since := at(3 * time.Minute)
	b, err := s.UpdateCircuit(ctx, ep.ID, func(b circuit.Breaker) circuit.Breaker { return b.Failing(true, since) })
	require.NoError(t, err)
	require.True(t, b.FailingSince.Equal(since))
	b, err = s.Circuit(ctx, ep.ID)
	require.NoError(t, err)
	require.True(t, b.FailingSince.Equal(since), "stored")
	require.False(t, b.Quiet())
	_, err = s.UpdateCircuit(ctx, ep.ID, func(b circuit.Breaker) circuit.Breaker { return b.Failing(false, at(4*time.Minute)) })
	require.NoError(t, err)
	b, err = s.Circuit(ctx, ep.ID)
	require.NoError(t, err)
	require.True(t, b.FailingSince.IsZero(), "a success clears it")
}
