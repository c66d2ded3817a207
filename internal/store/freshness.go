package store

import (
	"context"
	"time"
)

// freshSinceKey is the context key of FreshSince.
type freshSinceKey struct{}

// FreshSince marks reads made with the returned context as needing to
// see the store's changes committed before since, and no later ones: the
// store may answer the cached lookups it checks against its change
// counters (MatchingEndpoints, EventTypesVersion) from a read of the
// counters begun at or after since, shared with other callers. An
// event's ingest passes its arrival, so the catalog's check and the
// matching see every endpoint and event type changed before the event
// arrived, from one read. Without it, a lookup sees what was committed
// before it was called.
func FreshSince(ctx context.Context, since time.Time) context.Context {
	return context.WithValue(ctx, freshSinceKey{}, since)
}

// FreshnessOf returns the time FreshSince set on ctx, or now when none
// was set or it lies ahead.
func FreshnessOf(ctx context.Context, now time.Time) time.Time {
	since, ok := ctx.Value(freshSinceKey{}).(time.Time)
	if !ok || since.After(now) {
		return now
	}
	return since
}
