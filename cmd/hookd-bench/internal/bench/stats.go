package bench

import (
	"fmt"
	"slices"
	"time"
)

// dist is a set of latency samples.
type dist []time.Duration

// pct returns the p-th percentile (0..100) by nearest rank, or 0 if empty.
func (d dist) pct(p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	i := int(p/100*float64(len(s))+0.5) - 1
	return s[min(max(i, 0), len(s)-1)]
}

// pair formats p50/p99 in milliseconds.
func (d dist) pair() string {
	if len(d) == 0 {
		return "-"
	}
	return fmt.Sprintf("%s / %s", ms(d.pct(50)), ms(d.pct(99)))
}

func ms(d time.Duration) string {
	return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
}
