package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/circuit"
	"github.com/hookd/hookd/internal/store"
)

// testReadForAttempt: the attempt's one read answers as GetEndpoint,
// Secrets and Circuit do, at every point of a rotation and before and
// after the circuit is first written; a missing endpoint is ErrNotFound.
func testReadForAttempt(t *testing.T, s store.Store) {
	ctx := context.Background()
	ep := newEndpoint("ep_r", 0)
	create(t, s, ep)
	create(t, s, newEndpoint("ep_other", 0))
	_, err := s.UpdateCircuit(ctx, "ep_other", func(circuit.Breaker) circuit.Breaker {
		return circuit.Breaker{State: circuit.Open, Failures: 9, OpenUntil: at(time.Hour)}
	})
	require.NoError(t, err)

	same := func(now time.Time, wantSecrets int) {
		t.Helper()
		r, err := s.ReadForAttempt(ctx, ep.ID, "evt_none", now)
		require.NoError(t, err)
		want, err := s.GetEndpoint(ctx, ep.ID)
		require.NoError(t, err)
		require.Equal(t, want, r.Endpoint)
		secrets := secretsAt(t, s, ep.ID, now)
		require.Len(t, secrets, wantSecrets)
		require.Equal(t, secrets, r.Secrets, "the secrets valid at %v, newest first", now)
		b, err := s.Circuit(ctx, ep.ID)
		require.NoError(t, err)
		require.Equal(t, b, r.Circuit)
	}
	same(at(time.Minute), 1)
	r, err := s.ReadForAttempt(ctx, ep.ID, "evt_none", at(time.Minute))
	require.NoError(t, err)
	require.Equal(t, circuit.Breaker{State: circuit.Closed}, r.Circuit, "a circuit never written is closed, whatever another endpoint's is")

	require.NoError(t, s.RotateSecret(ctx, ep.ID, secretFor(ep.ID, 1), at(10*time.Minute), time.Hour))
	same(at(10*time.Minute), 2)
	same(at(70*time.Minute), 1)

	want := circuit.Breaker{State: circuit.HalfOpen, Failures: 5, OpenUntil: at(time.Minute), Cooldown: 2 * time.Minute,
		ProbeUntil: at(time.Hour), FailingSince: at(30 * time.Second)}
	_, err = s.UpdateCircuit(ctx, ep.ID, func(circuit.Breaker) circuit.Breaker { return want })
	require.NoError(t, err)
	same(at(10*time.Minute), 2)
	r, err = s.ReadForAttempt(ctx, ep.ID, "evt_none", at(10*time.Minute))
	require.NoError(t, err)
	require.Equal(t, want.State, r.Circuit.State)
	require.Equal(t, want.Failures, r.Circuit.Failures)
	require.Equal(t, want.Cooldown, r.Circuit.Cooldown)
	for _, p := range [][2]time.Time{{want.OpenUntil, r.Circuit.OpenUntil}, {want.ProbeUntil, r.Circuit.ProbeUntil}, {want.FailingSince, r.Circuit.FailingSince}} {
		require.True(t, p[0].Equal(p[1]), "%v read as %v", p[0], p[1])
	}

	_, err = s.ReadForAttempt(ctx, "ep_missing", "evt_none", at(0))
	require.ErrorIs(t, err, store.ErrNotFound)
}
