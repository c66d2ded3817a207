package bench

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/circuit"
)

func TestPercentiles(t *testing.T) {
	var d dist
	for i := 1; i <= 100; i++ {
		d = append(d, time.Duration(i)*time.Millisecond)
	}
	require.Equal(t, 50*time.Millisecond, d.pct(50))
	require.Equal(t, 99*time.Millisecond, d.pct(99))
	require.Equal(t, 100*time.Millisecond, d.pct(100))
	require.Equal(t, time.Duration(0), dist(nil).pct(50))
}

func TestProcReadings(t *testing.T) {
	m := startMeter()
	for i := 0; time.Since(m.start) < 30*time.Millisecond; i++ {
		_ = strings.Repeat("x", i%100)
	}
	u := m.stop()
	require.Positive(t, u.PeakMB)
	require.Positive(t, memKB("VmRSS"))
	require.GreaterOrEqual(t, u.CPU, time.Duration(0))
}

// TestSmoke runs every phase with a handful of deliveries: the wiring, not
// the figures. `hookd-bench` is the benchmark.
func TestSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two Temporal servers")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out bytes.Buffer
	res, err := Run(ctx, Config{
		N: 20, Clients: 4, FanoutN: 5, FanoutWidth: 3, FanoutFilter: `payload.amount > 1000 && payload.currency == "EUR"`, LightRate: 20, LightDuration: 500 * time.Millisecond, HistorySample: 3,
		BaselineN: 10, BaselineStarters: 4, ShapesN: 12, HeldN: 10, HeldWindow: time.Second,
		StormN: 10, StormHealthyN: 8, StormSchedule: []string{"1s", "1s", "1s", "1s", "1s", "1s", "1s", "1s", "1s", "1s"},
		Circuit: circuit.Policy{Threshold: 5, BaseCooldown: time.Second, MaxCooldown: 2 * time.Second},
		Timeout: time.Minute,
	}, &out)
	require.NoError(t, err, out.String())
	require.Equal(t, 20, len(res.Hookd.Saturation.EndToEnd))
	require.Zero(t, res.Hookd.Saturation.Lost)
	require.Equal(t, 15, len(res.Hookd.Fanout.EndToEnd), "5 events to 3 endpoints")
	require.Zero(t, res.Hookd.Fanout.Lost)
	require.Len(t, res.Hookd.Fanout.Ingest, 5)
	require.Contains(t, out.String(), "fan-out x3: CPU ms per delivery")
	require.Equal(t, 15, len(res.Hookd.FanoutFiltered.EndToEnd), "the filter accepts the bench's payload")
	require.Contains(t, out.String(), "fan-out x3 filtered: CPU ms per delivery")
	require.Equal(t, 6, res.Hookd.History.Max, "a healthy delivery's history")
	require.NotNil(t, res.Baseline)
	require.Equal(t, 10, len(res.Baseline.Saturation.EndToEnd))
	require.Positive(t, res.Hookd.Storm.DrainRate)
	require.Equal(t, 8, len(res.Hookd.Storm.WhileParked.EndToEnd), "healthy deliveries while parked")
	require.Contains(t, out.String(), "deliveries/s at saturation")
	require.NotNil(t, res.Hookd.Held)
	require.Positive(t, res.Hookd.Held.Usage.Wall, "the held phase measured")
	require.Contains(t, out.String(), "held by a disabled endpoint: 10 deliveries")
	require.NotNil(t, res.Shapes)
	for _, r := range []LoadResult{res.Shapes.OneToOne, res.Shapes.PerDelivery, res.Shapes.PerEvent} {
		require.Equal(t, 12, len(r.EndToEnd), "every shape makes its 12 deliveries")
		require.Zero(t, r.Lost)
	}
	require.Contains(t, out.String(), "fan-out, a workflow per event")
}
