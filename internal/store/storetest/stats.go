package storetest

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/circuit"
	"github.com/hookd/hookd/internal/store"
)

// StatsStore is implemented by stores that keep the shared attempt
// statistics and alert flags, and list circuit states.
type StatsStore interface {
	store.Stats
	CircuitStates(ctx context.Context) (map[string]circuit.State, error)
}

func testStats(t *testing.T, s store.Store) {
	ss, ok := s.(StatsStore)
	if !ok {
		t.Skip("store keeps no statistics")
	}
	t.Run("AddAndSum", func(t *testing.T) { testStatsAddAndSum(t, ss) })
	t.Run("ConcurrentAdds", func(t *testing.T) { testStatsConcurrent(t, ss) })
	t.Run("Alerts", func(t *testing.T) { testAlerts(t, ss) })
	t.Run("CircuitStates", func(t *testing.T) { testCircuitStates(t, s, ss) })
	t.Run("Hourly", func(t *testing.T) { testHourlyStats(t, s, ss) })
}

// delta returns a delta whose latency bucket b counts every attempt.
func delta(endpointID string, minute time.Time, attempts, successes int64, b int) store.StatsDelta {
	d := store.StatsDelta{EndpointID: endpointID, Minute: minute, Attempts: attempts, Successes: successes, Latency: make([]int64, store.LatencyBuckets)}
	d.Latency[b] = attempts
	return d
}

func testStatsAddAndSum(t *testing.T, s StatsStore) {
	ctx := context.Background()
	m0 := t0.Truncate(time.Minute)
	m1 := m0.Add(time.Minute)
	require.NoError(t, s.AddStats(ctx, nil))
	require.NoError(t, s.AddStats(ctx, []store.StatsDelta{delta("ep_a", m0, 3, 2, 0), delta("ep_b", m0, 1, 1, 5)}))
	require.NoError(t, s.AddStats(ctx, []store.StatsDelta{delta("ep_a", m0, 4, 4, 1), delta("ep_a", m1, 2, 0, store.LatencyBuckets-1)}))

	got, err := s.StatsSince(ctx, "ep_a", m0)
	require.NoError(t, err)
	require.Equal(t, int64(9), got.Attempts)
	require.Equal(t, int64(6), got.Successes)
	want := make([]int64, store.LatencyBuckets)
	want[0], want[1], want[store.LatencyBuckets-1] = 3, 4, 2
	require.Equal(t, want, got.Latency)

	got, err = s.StatsSince(ctx, "ep_a", m1.Add(30*time.Second)) // the minute it falls in counts
	require.NoError(t, err)
	require.Equal(t, int64(2), got.Attempts)

	got, err = s.StatsSince(ctx, "ep_none", m0)
	require.NoError(t, err)
	require.Zero(t, got.Attempts)
	require.Len(t, got.Latency, store.LatencyBuckets)

	require.Error(t, s.AddStats(ctx, []store.StatsDelta{{EndpointID: "ep_a", Minute: m0, Attempts: 1}}))

	n, err := s.PruneStats(ctx, m1)
	require.NoError(t, err)
	require.Equal(t, int64(2), n) // ep_a and ep_b at m0
	got, err = s.StatsSince(ctx, "ep_a", m0)
	require.NoError(t, err)
	require.Equal(t, int64(2), got.Attempts)
}

// testStatsConcurrent checks that adds from many processes at once are
// summed, none lost.
func testStatsConcurrent(t *testing.T, s StatsStore) {
	ctx := context.Background()
	m := t0.Truncate(time.Minute)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 5 {
				assert.NoError(t, s.AddStats(ctx, []store.StatsDelta{delta("ep_c", m, 2, 1, 3)}))
			}
		})
	}
	wg.Wait()
	got, err := s.StatsSince(ctx, "ep_c", m)
	require.NoError(t, err)
	require.Equal(t, int64(80), got.Attempts)
	require.Equal(t, int64(40), got.Successes)
	require.Equal(t, int64(80), got.Latency[3])
}

func testAlerts(t *testing.T, s StatsStore) {
	ctx := context.Background()
	set := func(active bool) bool {
		changed, err := s.SetAlert(ctx, "ep_a", "success_rate", active, t0)
		require.NoError(t, err)
		return changed
	}
	require.False(t, set(false), "clearing an alert never raised")
	require.True(t, set(true))
	require.False(t, set(true))
	require.True(t, set(false))
	require.False(t, set(false))

	// Many processes raising it at once: exactly one changes it.
	var changed atomic.Int32
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			ok, err := s.SetAlert(ctx, "ep_a", "success_rate", true, t0)
			assert.NoError(t, err)
			if ok {
				changed.Add(1)
			}
		})
	}
	wg.Wait()
	require.Equal(t, int32(1), changed.Load())

	other, err := s.SetAlert(ctx, "ep_a", "other_kind", true, t0)
	require.NoError(t, err)
	require.True(t, other, "kinds are independent")
}

func testCircuitStates(t *testing.T, s store.Store, ss StatsStore) {
	ctx := context.Background()
	create(t, s, newEndpoint("ep_closed", 0))
	create(t, s, newEndpoint("ep_open", time.Second))
	_, err := s.UpdateCircuit(ctx, "ep_open", func(b circuit.Breaker) circuit.Breaker {
		b.State = circuit.Open
		return b
	})
	require.NoError(t, err)
	got, err := ss.CircuitStates(ctx)
	require.NoError(t, err)
	require.Equal(t, map[string]circuit.State{"ep_closed": circuit.Closed, "ep_open": circuit.Open}, got)
}

// The hourly totals add up the minutes of each hour, transient failures
// apart, and are read per tenant or per endpoint; a deleted endpoint's are
// left out, and they outlive the minutes by store.HourlyKeep.
func testHourlyStats(t *testing.T, s store.Store, ss StatsStore) {
	ctx := context.Background()
	putTenant(t, s, newTenant("th", 0))
	a, b, other := newEndpoint("ep_ha", 0), newEndpoint("ep_hb", 0), newEndpoint("ep_hx", 0)
	a.TenantID, b.TenantID = "th", "th"
	for _, ep := range []*store.Endpoint{a, b, other} {
		create(t, s, ep)
	}
	h0 := t0.Truncate(time.Hour)
	d := func(id string, m time.Time, attempts, successes, retryable int64) store.StatsDelta {
		x := delta(id, m, attempts, successes, 0)
		x.Retryable = retryable
		return x
	}
	require.NoError(t, ss.AddStats(ctx, []store.StatsDelta{
		d("ep_ha", h0.Add(time.Minute), 5, 3, 1), d("ep_ha", h0.Add(59*time.Minute), 2, 1, 1),
		d("ep_ha", h0.Add(time.Hour), 4, 4, 0), d("ep_hb", h0, 3, 0, 3), d("ep_hx", h0, 9, 9, 0),
	}))
	got, err := ss.HourlyStats(ctx, "th", "", h0.Add(-time.Hour))
	require.NoError(t, err)
	require.Equal(t, []store.StatsHour{
		{EndpointID: "ep_ha", Hour: h0, Attempts: 7, Successes: 4, Retryable: 2},
		{EndpointID: "ep_ha", Hour: h0.Add(time.Hour), Attempts: 4, Successes: 4},
		{EndpointID: "ep_hb", Hour: h0, Attempts: 3, Retryable: 3},
	}, got, "the tenant's endpoints only")
	require.Equal(t, int64(1), got[0].Failed())
	totals, err := ss.HourlyTotals(ctx, "th", h0.Add(-time.Hour))
	require.NoError(t, err)
	require.Equal(t, []store.StatsHour{
		{Hour: h0, Attempts: 10, Successes: 4, Retryable: 5},
		{Hour: h0.Add(time.Hour), Attempts: 4, Successes: 4},
	}, totals, "summed per hour")

	got, err = ss.HourlyStats(ctx, "th", "ep_ha", h0.Add(30*time.Minute))
	require.NoError(t, err)
	require.Len(t, got, 2, "the hour since falls in counts")
	got, err = ss.HourlyStats(ctx, "", "", h0)
	require.NoError(t, err)
	require.Len(t, got, 1, "the platform's own")
	require.Equal(t, "ep_hx", got[0].EndpointID)

	require.NoError(t, s.DeleteEndpoint(ctx, "ep_hb"))
	got, err = ss.HourlyStats(ctx, "th", "", h0)
	require.NoError(t, err)
	require.Len(t, got, 2, "a deleted endpoint's hours are left out")

	_, err = ss.PruneStats(ctx, h0.Add(2*time.Hour))
	require.NoError(t, err)
	got, err = ss.HourlyStats(ctx, "th", "", h0)
	require.NoError(t, err)
	require.Len(t, got, 2, "the hours outlive the minutes")
	_, err = ss.PruneStats(ctx, h0.Add(store.HourlyKeep+time.Hour))
	require.NoError(t, err)
	got, err = ss.HourlyStats(ctx, "th", "", h0)
	require.NoError(t, err)
	require.Equal(t, []store.StatsHour{{EndpointID: "ep_ha", Hour: h0.Add(time.Hour), Attempts: 4, Successes: 4}}, got)
}
