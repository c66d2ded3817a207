package metrics

import (
	"context"
	"fmt"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/circuit"
	"github.com/hookd/hookd/internal/delivery"
)

// circuitTable is a CircuitLister over a map.
type circuitTable map[string]circuit.State

func (c circuitTable) CircuitStates(context.Context) (map[string]circuit.State, error) { return c, nil }

// The per-endpoint series stop growing at MaxEndpointSeries: 2,000
// endpoints attempting make 3 attempt series and "other", and the circuit
// gauge shows 3 endpoints, the open ones first.
func TestEndpointSeriesAreBounded(t *testing.T) {
	m := New(Config{MaxEndpointSeries: 3})
	states := circuitTable{}
	for i := range 2000 {
		id := fmt.Sprintf("ep_%04d", i)
		m.Observe(id, delivery.Attempt{Outcome: delivery.OutcomeSuccess})
		states[id] = circuit.Closed
	}
	states["ep_1999"] = circuit.Open
	require.Equal(t, 4, seriesCount(t, m.attempts), "3 endpoints and other")
	require.Equal(t, 1997.0, seriesValue(t, m.attempts.WithLabelValues("success", OtherEndpoints)))
	require.NoError(t, m.refreshCircuits(context.Background(), states))
	require.Equal(t, 3, seriesCount(t, m.circuitState))
	require.Equal(t, 2.0, seriesValue(t, m.circuitState.WithLabelValues("ep_1999")), "an open circuit is shown first")
	require.Equal(t, 1.0, seriesValue(t, m.circuits.WithLabelValues(string(circuit.Open))), "the totals count every endpoint")

	unbounded := New(Config{MaxEndpointSeries: -1})
	for i := range 200 {
		unbounded.Observe(fmt.Sprintf("ep_%d", i), delivery.Attempt{Outcome: delivery.OutcomeSuccess})
	}
	require.Equal(t, 200, seriesCount(t, unbounded.attempts))
	def := New(Config{})
	for i := range 2000 {
		def.Observe(fmt.Sprintf("ep_%d", i), delivery.Attempt{Outcome: delivery.OutcomeSuccess})
	}
	require.Equal(t, DefaultMaxEndpointSeries+1, seriesCount(t, def.attempts))
}

// seriesCount is how many series c has.
func seriesCount(t *testing.T, c prometheus.Collector) int {
	t.Helper()
	ch := make(chan prometheus.Metric, 10_000)
	c.Collect(ch)
	close(ch)
	return len(ch)
}

// seriesValue is the value of a counter or gauge.
func seriesValue(t *testing.T, m prometheus.Metric) float64 {
	t.Helper()
	var out dto.Metric
	require.NoError(t, m.Write(&out))
	if out.Counter != nil {
		return out.Counter.GetValue()
	}
	return out.Gauge.GetValue()
}
