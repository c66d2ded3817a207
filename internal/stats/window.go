package stats

import (
	"encoding/json"
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
	LastHour Window `json:"last_hour"`
	LastDay  Window `json:"last_day"`
}

func windowOf(t store.StatsTotals) Window {
	w := Window{Attempts: t.Attempts, Successes: t.Successes}
	if t.Attempts > 0 {
		w.SuccessRate = float64(t.Successes) / float64(t.Attempts)
		w.P50, w.P99 = quantile(t.Latency, 0.50), quantile(t.Latency, 0.99)
	}
	return w
}

// MarshalJSON writes latencies in milliseconds, and null rate and
// latencies for a window without attempts.
func (w Window) MarshalJSON() ([]byte, error) {
	out := struct {
		Attempts    int64    `json:"attempts"`
		Successes   int64    `json:"successes"`
		SuccessRate *float64 `json:"success_rate"`
		P50         *float64 `json:"p50_ms"`
		P99         *float64 `json:"p99_ms"`
	}{Attempts: w.Attempts, Successes: w.Successes}
	if w.Attempts > 0 {
		p50, p99 := ms(w.P50), ms(w.P99)
		out.SuccessRate, out.P50, out.P99 = &w.SuccessRate, &p50, &p99
	}
	return json.Marshal(out)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
