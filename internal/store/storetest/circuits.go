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

func testCircuits(t *testing.T, s store.Store) {
	ctx := context.Background()
	create(t, s, newEndpoint("ep_c", 0))

	b, err := s.Circuit(ctx, "ep_c")
	require.NoError(t, err)
	require.Equal(t, circuit.Closed, b.State)

	_, err = s.UpdateCircuit(ctx, "ep_missing", func(b circuit.Breaker) circuit.Breaker { return b })
	require.ErrorIs(t, err, store.ErrNotFound)

	want := circuit.Breaker{State: circuit.Open, Failures: 5, OpenUntil: at(time.Minute), Cooldown: 2 * time.Minute, ProbeUntil: at(time.Hour)}
	got, err := s.UpdateCircuit(ctx, "ep_c", func(circuit.Breaker) circuit.Breaker { return want })
	require.NoError(t, err)
	require.Equal(t, want, got)
	b, err = s.Circuit(ctx, "ep_c")
	require.NoError(t, err)
	require.Equal(t, want.State, b.State)
	require.Equal(t, want.Failures, b.Failures)
	require.True(t, want.OpenUntil.Equal(b.OpenUntil))
	require.True(t, want.ProbeUntil.Equal(b.ProbeUntil))
	require.Equal(t, want.Cooldown, b.Cooldown)

	// Concurrent read-modify-writes do not lose updates.
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			_, err := s.UpdateCircuit(ctx, "ep_c", func(b circuit.Breaker) circuit.Breaker { b.Failures++; return b })
			require.NoError(t, err)
		})
	}
	wg.Wait()
	b, err = s.Circuit(ctx, "ep_c")
	require.NoError(t, err)
	require.Equal(t, 15, b.Failures)

	require.NoError(t, s.DeleteEndpoint(ctx, "ep_c"))
	create(t, s, newEndpoint("ep_c", time.Second))
	b, err = s.Circuit(ctx, "ep_c")
	require.NoError(t, err)
	require.Equal(t, 0, b.Failures, "deleting an endpoint deletes its circuit")
}
