package stats

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/store"
)

func TestBucketOf(t *testing.T) {
	for d, want := range map[time.Duration]int{
		0:                          0,
		time.Millisecond:           0,
		time.Millisecond + 1:       1,
		3 * time.Millisecond:       2,
		4 * time.Millisecond:       2,
		100 * time.Millisecond:     7, // (64ms, 128ms]
		time.Second:                10,
		60 * time.Second:           16, // the largest timeout fits
		65536 * time.Millisecond:   16,
		65536*time.Millisecond + 1: overflow,
		time.Hour:                  overflow,
	} {
		require.Equal(t, want, bucketOf(d), d)
	}
}

func counts(pairs ...int) []int64 {
	c := make([]int64, store.LatencyBuckets)
	for i := 0; i < len(pairs); i += 2 {
		c[pairs[i]] = int64(pairs[i+1])
	}
	return c
}

func TestQuantile(t *testing.T) {
	// 100 attempts in (4ms, 8ms]: spread evenly across the bucket.
	c := counts(3, 100)
	require.Equal(t, 6*time.Millisecond, quantile(c, 0.5))
	require.Equal(t, 7960*time.Microsecond, quantile(c, 0.99))

	// 90 fast, 10 slow: p50 among the fast, p99 among the slow.
	c = counts(0, 90, 10, 10)
	require.InDelta(t, float64(time.Millisecond)*50/90, float64(quantile(c, 0.5)), 1)
	require.Equal(t, 972800*time.Microsecond, quantile(c, 0.99)) // 512ms + 0.9*512ms

	require.Equal(t, 65536*time.Millisecond, quantile(counts(overflow, 3), 0.5), "overflow reports its lower bound")
	require.Zero(t, quantile(counts(), 0.99))
}

func TestWindow(t *testing.T) {
	tot := store.StatsTotals{Attempts: 4, Successes: 3, Latency: counts(3, 4)}
	w := windowOf(tot)
	require.Equal(t, 0.75, w.SuccessRate)
	require.Equal(t, 6*time.Millisecond, w.P50)
	require.Equal(t, 7960*time.Microsecond, w.P99)
	require.Zero(t, windowOf(store.StatsTotals{Latency: counts()}), "no attempts, no figures")
}
