package store

import "time"

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
