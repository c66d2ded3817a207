package storetest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/store"
)

// testExpunge: an event's data key round trips and is read with its
// endpoint; an expunge destroys payload, digest and key, keeps the rest,
// says who and why, and is done once.
func testExpunge(t *testing.T, s store.Store) {
	ctx := context.Background()
	ep := newEndpoint("ep_a", 0)
	require.NoError(t, s.CreateEndpoint(ctx, ep, "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"))
	key := make([]byte, 32)
	for i := range key {
		key[i] = byte(i + 1)
	}
	ev := newEvent("evt_k", "order.created", "A", 0, "ep_a")
	ev.DataKey = key
	claim(t, s, ev)
	got, err := s.GetEvent(ctx, "evt_k")
	require.NoError(t, err)
	require.Equal(t, key, got.DataKey)
	old := newEvent("evt_old", "order.created", "B", 0, "ep_a")
	claim(t, s, old)

	read, err := s.ReadForAttempt(ctx, "ep_a", "evt_k", at(0))
	require.NoError(t, err)
	require.Equal(t, "ep_a", read.Endpoint.ID)
	require.Equal(t, store.EventKey{Key: key, Found: true}, read.Key)
	read, err = s.ReadForAttempt(ctx, "ep_a", "evt_old", at(0))
	require.NoError(t, err)
	require.Equal(t, store.EventKey{Found: true}, read.Key, "an event without a key")
	read, err = s.ReadForAttempt(ctx, "ep_a", "evt_none", at(0))
	require.NoError(t, err)
	require.Equal(t, store.EventKey{}, read.Key, "no such event")
	_, err = s.ReadForAttempt(ctx, "ep_none", "evt_k", at(0))
	require.ErrorIs(t, err, store.ErrNotFound)

	x, changed, err := s.ExpungeEvent(ctx, "evt_k", "platform", "erasure request", at(1), nil)
	require.NoError(t, err)
	require.True(t, changed)
	require.Equal(t, &store.Expunge{At: at(1), By: "platform", Reason: "erasure request"}, x.Expunge)
	require.Empty(t, x.Payload)
	require.Nil(t, x.DataKey)
	got, err = s.GetEvent(ctx, "evt_k")
	require.NoError(t, err)
	require.Equal(t, x, got)
	require.Equal(t, ev.Deliveries, got.Deliveries, "the fan-out stays")
	require.Equal(t, ev.Type, got.Type)
	require.Equal(t, ev.AcceptedAt, got.AcceptedAt)
	require.Empty(t, got.Digest, "the digest of the payload goes with it")
	read, err = s.ReadForAttempt(ctx, "ep_a", "evt_k", at(0))
	require.NoError(t, err)
	require.Equal(t, store.EventKey{Found: true, Expunged: true}, read.Key)

	again, changed, err := s.ExpungeEvent(ctx, "evt_k", "someone", "again", at(2), nil)
	require.NoError(t, err)
	require.False(t, changed, "expunged once")
	require.Equal(t, x.Expunge, again.Expunge)

	_, claimed, err := s.ClaimEvent(ctx, newEvent("evt_k", "order.created", "A", 0, "ep_a"))
	require.NoError(t, err)
	require.False(t, claimed, "the ID stays taken")

	x, _, err = s.ExpungeEvent(ctx, "evt_old", "tenant:t1", "", at(3), nil)
	require.NoError(t, err)
	require.True(t, x.Expunge.Keyless, "an event from before per-event keys says so")
	listed, _, err := s.ListEvents(ctx, store.EventFilter{}, store.Page{})
	require.NoError(t, err)
	require.Len(t, listed, 2)
	for _, e := range listed {
		require.NotNil(t, e.Expunge, "lists show the expunge")
	}
	_, _, err = s.ExpungeEvent(ctx, "evt_none", "platform", "", at(4), nil)
	require.ErrorIs(t, err, store.ErrNotFound)
}
