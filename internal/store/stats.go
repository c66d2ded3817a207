package store

import (
	"context"
	"time"
)

// LatencyBuckets is the number of attempt-latency buckets kept per
// endpoint and minute: bucket i (i < LatencyBuckets-1) counts attempts that
// took at most 2^i milliseconds and more than the bucket before; the last
// counts the rest. The stats table has one column per bucket, so changing
// this needs a migration.
const LatencyBuckets = 18

// StatsDelta is what one process observed of one endpoint's attempts in one
// minute; the store adds it to the totals every process shares.
type StatsDelta struct {
	EndpointID string
	// Minute is the start of the minute (UTC, truncated).
	Minute    time.Time
	Attempts  int64
	Successes int64
	// Latency counts attempts per latency bucket; len LatencyBuckets.
	Latency []int64
}

// StatsTotals sums an endpoint's attempts over a window.
type StatsTotals struct {
	Attempts  int64
	Successes int64
	// Latency counts attempts per latency bucket; len LatencyBuckets.
	Latency []int64
}

// Stats keeps the per-minute attempt totals and the alert flags every
// process shares.
type Stats interface {
	// AddStats adds each delta to its endpoint's totals for that minute.
	AddStats(ctx context.Context, deltas []StatsDelta) error
	// StatsSince sums an endpoint's totals from the minute of since on.
	StatsSince(ctx context.Context, endpointID string, since time.Time) (StatsTotals, error)
	// PruneStats deletes the minutes before before and says how many rows
	// it deleted.
	PruneStats(ctx context.Context, before time.Time) (int64, error)
	// SetAlert raises (active) or clears an endpoint's alert of a kind and
	// reports whether this call changed it; clearing an alert never raised
	// changes nothing.
	SetAlert(ctx context.Context, endpointID, kind string, active bool, at time.Time) (bool, error)
}
