package stats

import (
	"time"

	"github.com/hookd/hookd/internal/store"
)

// Window is an endpoint's attempt figures over a period.
type Window struct {
	Attempts  int64
	Successes int64
	// SuccessRate is Successes/Attempts; zero without attempts.
	SuccessRate float64
	// P50 and P99 are attempt latency percentiles; zero without attempts.
	P50, P99 time.Duration
}

// Figures is what an endpoint's health shows of its attempts.
type Figures struct {
	LastHour Window
	LastDay  Window
}

func windowOf(t store.StatsTotals) Window {
	w := Window{Attempts: t.Attempts, Successes: t.Successes}
	if t.Attempts > 0 {
		w.SuccessRate = float64(t.Successes) / float64(t.Attempts)
		w.P50, w.P99 = quantile(t.Latency, 0.50), quantile(t.Latency, 0.99)
	}
	return w
}
