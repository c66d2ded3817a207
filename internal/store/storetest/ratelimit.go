package storetest

import (
	"context"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/store"
)

// testRateLimit checks an endpoint's rate limit: none unless set, kept
// by create, get, list and matching; an update that changes it moves its
// Since, one that keeps it keeps it, and one that removes it removes it.
func testRateLimit(t *testing.T, s store.Store) {
	ctx := context.Background()
	free := newEndpoint("ep_rate_free", 0, "rate.*")
	create(t, s, free)
	limited := newEndpoint("ep_rate_limited", time.Second, "rate.*")
	limited.RateLimit = &store.RateLimit{PerSecond: 50, Burst: 5}
	create(t, s, limited)

	got, err := s.GetEndpoint(ctx, free.ID)
	require.NoError(t, err)
	require.Nil(t, got.RateLimit, "no limit by default")
	got, err = s.GetEndpoint(ctx, limited.ID)
	require.NoError(t, err)
	require.NotNil(t, got.RateLimit)
	require.Equal(t, 50, got.RateLimit.PerSecond)
	require.Equal(t, 5, got.RateLimit.Burst)
	require.True(t, got.RateLimit.Since.Equal(limited.CreatedAt), "set at creation: %v", got.RateLimit.Since)

	listed, _, err := s.ListEndpoints(ctx, store.TenantFilter{}, store.Page{})
	require.NoError(t, err)
	require.Len(t, listed, 2)
	require.Nil(t, listed[0].RateLimit)
	require.Equal(t, 50, listed[1].RateLimit.PerSecond)
	matched, err := s.MatchingEndpoints(ctx, "", "rate.created")
	require.NoError(t, err)
	require.Len(t, matched, 2)
	for _, ep := range matched {
		require.Equal(t, ep.ID == limited.ID, ep.RateLimit != nil, ep.ID)
	}

	// An update of another field keeps the limit and its Since.
	changed := *got
	changed.Description = "renamed"
	changed.UpdatedAt = at(time.Hour)
	require.NoError(t, s.UpdateEndpoint(ctx, &changed))
	got, err = s.GetEndpoint(ctx, limited.ID)
	require.NoError(t, err)
	require.True(t, got.RateLimit.Since.Equal(limited.CreatedAt), "kept: %v", got.RateLimit.Since)

	// A new burst is a new limit.
	changed = *got
	changed.RateLimit = &store.RateLimit{PerSecond: 50, Burst: 1}
	changed.UpdatedAt = at(2 * time.Hour)
	require.NoError(t, s.UpdateEndpoint(ctx, &changed))
	got, err = s.GetEndpoint(ctx, limited.ID)
	require.NoError(t, err)
	require.Equal(t, 1, got.RateLimit.Burst)
	require.True(t, got.RateLimit.Since.Equal(at(2*time.Hour)), "moved: %v", got.RateLimit.Since)

	changed = *got
	changed.RateLimit = nil
	changed.UpdatedAt = at(3 * time.Hour)
	require.NoError(t, s.UpdateEndpoint(ctx, &changed))
	got, err = s.GetEndpoint(ctx, limited.ID)
	require.NoError(t, err)
	require.Nil(t, got.RateLimit, "removed")

	changed = *free
	changed.RateLimit = &store.RateLimit{PerSecond: 10}
	changed.UpdatedAt = at(4 * time.Hour)
	require.NoError(t, s.UpdateEndpoint(ctx, &changed))
	got, err = s.GetEndpoint(ctx, free.ID)
	require.NoError(t, err)
	require.Equal(t, &store.RateLimit{PerSecond: 10, Burst: 1, Since: at(4 * time.Hour)}, got.RateLimit, "added by an update, burst 1")
}

// testRateSlots checks the reservations of one endpoint: a burst starts
// at once, the rest one interval apart; a new limit starts again from
// now; RateTAT shows the backlog.
func testRateSlots(t *testing.T, s store.Store) {
	ctx := context.Background()
	ep := newEndpoint("ep_slots", 0)
	ep.RateLimit = &store.RateLimit{PerSecond: 10, Burst: 3}
	create(t, s, ep)
	got, err := s.GetEndpoint(ctx, ep.ID)
	require.NoError(t, err)
	limit := *got.RateLimit

	now := at(time.Minute)
	tat, err := s.RateTAT(ctx, ep.ID, limit.Since)
	require.NoError(t, err)
	require.True(t, tat.IsZero(), "none reserved yet")
	var slots []time.Duration
	for range 6 {
		slot, err := s.ReserveSlot(ctx, ep.ID, limit, now)
		require.NoError(t, err)
		require.True(t, slot.Since.Equal(limit.Since))
		slots = append(slots, slot.At.Sub(now))
	}
	iv := 100 * time.Millisecond
	require.Equal(t, []time.Duration{0, 0, 0, iv, 2 * iv, 3 * iv}, slots, "a burst of 3, then one each 100ms")
	tat, err = s.RateTAT(ctx, ep.ID, limit.Since)
	require.NoError(t, err)
	n, last := limit.Backlog(tat, now)
	require.Equal(t, 3, n, "three slots ahead")
	require.True(t, last.Equal(now.Add(3*iv)), "the last at +300ms: %v", last.Sub(now))

	// Long after, the TAT has passed: a burst again.
	later := now.Add(time.Hour)
	slot, err := s.ReserveSlot(ctx, ep.ID, limit, later)
	require.NoError(t, err)
	require.True(t, slot.At.Equal(later))

	// A new limit starts again from now, however far the old TAT got.
	for range 20 {
		_, err = s.ReserveSlot(ctx, ep.ID, limit, later)
		require.NoError(t, err)
	}
	next := store.RateLimit{PerSecond: 1000, Burst: 1, Since: limit.Since.Add(time.Second)}
	slot, err = s.ReserveSlot(ctx, ep.ID, next, later)
	require.NoError(t, err)
	require.True(t, slot.At.Equal(later), "a fresh start: %v", slot.At.Sub(later))
	require.True(t, slot.Since.Equal(next.Since))
	tat, err = s.RateTAT(ctx, ep.ID, limit.Since)
	require.NoError(t, err)
	require.True(t, tat.IsZero(), "the old limit's TAT is gone")
	// A worker still reading the old limit reserves after the new one's.
	slot, err = s.ReserveSlot(ctx, ep.ID, limit, later)
	require.NoError(t, err)
	require.True(t, slot.At.Equal(later), "within the old burst")
	tat, err = s.RateTAT(ctx, ep.ID, next.Since)
	require.NoError(t, err)
	require.True(t, tat.Equal(later.Add(time.Millisecond+iv)), "%v", tat.Sub(later))

	// Deleting the endpoint deletes its slots.
	require.NoError(t, s.DeleteEndpoint(ctx, ep.ID))
	tat, err = s.RateTAT(ctx, ep.ID, next.Since)
	require.NoError(t, err)
	require.True(t, tat.IsZero())
}

// testRateSlotsConcurrent reserves from many goroutines at once: every
// slot is distinct and they are one interval apart after the burst, as if
// reserved one by one.
func testRateSlotsConcurrent(t *testing.T, s store.Store) {
	ctx := context.Background()
	ep := newEndpoint("ep_slots_concurrent", 0)
	ep.RateLimit = &store.RateLimit{PerSecond: 100, Burst: 1}
	create(t, s, ep)
	got, err := s.GetEndpoint(ctx, ep.ID)
	require.NoError(t, err)
	now := at(time.Minute)
	var (
		mu    sync.Mutex
		slots []time.Time
		wg    sync.WaitGroup
	)
	for range 8 {
		wg.Go(func() {
			for range 10 {
				slot, err := s.ReserveSlot(ctx, ep.ID, *got.RateLimit, now)
				if !assert.NoError(t, err) {
					return
				}
				mu.Lock()
				slots = append(slots, slot.At)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	require.Len(t, slots, 80)
	sort.Slice(slots, func(i, j int) bool { return slots[i].Before(slots[j]) })
	for i, s := range slots {
		require.Equal(t, time.Duration(i)*10*time.Millisecond, s.Sub(now), "slot %d", i)
	}
}
