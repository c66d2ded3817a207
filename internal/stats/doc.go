// Package stats keeps each endpoint's attempt figures — attempts,
// successes and a latency histogram per minute — shared by every worker
// through the endpoint store, and raises the success-rate alert.
//
// Observe only adds to counters in memory; a flusher writes what was
// observed every few seconds as one upsert per endpoint and minute, so a
// delivery costs no SQL write of its own. Figures over the last hour and
// day are sums of those rows. Latencies are counted in fixed log-spaced
// buckets (powers of two from 1ms to 65.536s, then one overflow bucket);
// percentiles interpolate linearly inside the bucket they fall in, so
// they are exact to within that bucket's width (a factor of two).
package stats
