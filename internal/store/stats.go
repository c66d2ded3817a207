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
	// Retryable counts the failed attempts whose failure is transient
	// (timeouts, 408, 429, 5xx, connection errors: the schedule retries
	// them); the other failures are permanent.
	Retryable int64
	// Latency counts attempts per latency bucket; len LatencyBuckets.
	Latency []int64
}

// HourlyKeep is how much longer than the minutes the hourly totals
// (StatsHour) are kept: with the minutes' 48 hours (stats.Keep), eight
// days, so a 7-day chart is whole.
const HourlyKeep = 6 * 24 * time.Hour

// StatsHour is an endpoint's attempts in one hour, as every process
// observed them.
type StatsHour struct {
	EndpointID string
	// Hour is the start of the hour (UTC).
	Hour      time.Time
	Attempts  int64
	Successes int64
	// Retryable counts the transient failures; the permanent ones are
	// Failed.
	Retryable int64
}

// Failed is the attempts that failed for good (a 4xx other than 408 and
// 429, a refused request).
func (h StatsHour) Failed() int64 { return max(h.Attempts-h.Successes-h.Retryable, 0) }

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
	// HourlyStats returns the hourly totals from the hour of since on of
	// the tenant's endpoints (tenantID "" for the platform's own), of
	// endpointID alone when it names one, ordered by endpoint and hour;
	// hours without attempts have no row.
	HourlyStats(ctx context.Context, tenantID, endpointID string, since time.Time) ([]StatsHour, error)
	// HourlyTotals is HourlyStats of every endpoint of the tenant summed
	// per hour (EndpointID ""), ordered by hour.
	HourlyTotals(ctx context.Context, tenantID string, since time.Time) ([]StatsHour, error)
	// PruneStats deletes the minutes before before, and the hours more
	// than HourlyKeep before it, and says how many rows it deleted.
	PruneStats(ctx context.Context, before time.Time) (int64, error)
	// SetAlert raises (active) or clears an endpoint's alert of a kind and
	// reports whether this call changed it; clearing an alert never raised
	// changes nothing.
	// The call that changed it records events in the outbox with the
	// change.
	SetAlert(ctx context.Context, endpointID, kind string, active bool, at time.Time, events ...OpEvent) (bool, error)
}
