package stats

import (
	"time"

	"github.com/hookd/hookd/internal/store"
)

// overflow is the index of the last bucket, which has no upper bound.
const overflow = store.LatencyBuckets - 1

// upperBound is the inclusive upper bound of bucket i < overflow: 2^i ms.
func upperBound(i int) time.Duration { return time.Millisecond << i }

// lowerBound is the exclusive lower bound of bucket i.
func lowerBound(i int) time.Duration {
	if i == 0 {
		return 0
	}
	return upperBound(i - 1)
}

// bucketOf returns the bucket that counts an attempt of duration d.
func bucketOf(d time.Duration) int {
	for i := range overflow {
		if d <= upperBound(i) {
			return i
		}
	}
	return overflow
}

// quantile estimates the q-quantile (0 < q <= 1) of the durations counted
// in counts, interpolating linearly inside the bucket it falls in, as
// Prometheus's histogram_quantile does. A quantile in the overflow bucket
// is reported as that bucket's lower bound; no durations give zero.
func quantile(counts []int64, q float64) time.Duration {
	var total int64
	for _, c := range counts {
		total += c
	}
	if total == 0 {
		return 0
	}
	rank := q * float64(total)
	var cum float64
	for i, c := range counts {
		if c == 0 {
			continue
		}
		if cum+float64(c) >= rank {
			if i >= overflow {
				return lowerBound(overflow)
			}
			lo, hi := lowerBound(i), upperBound(i)
			return lo + time.Duration((rank-cum)/float64(c)*float64(hi-lo))
		}
		cum += float64(c)
	}
	return lowerBound(overflow)
}
