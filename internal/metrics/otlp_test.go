package metrics

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"

	"github.com/hookd/hookd/internal/delivery"
)

// memExporter keeps what it is sent.
type memExporter struct {
	mu  sync.Mutex
	got []metricdata.ResourceMetrics
}

func (e *memExporter) Temporality(k sdkmetric.InstrumentKind) metricdata.Temporality {
	return sdkmetric.DefaultTemporalitySelector(k)
}
func (e *memExporter) Aggregation(k sdkmetric.InstrumentKind) sdkmetric.Aggregation {
	return sdkmetric.DefaultAggregationSelector(k)
}
func (e *memExporter) Export(_ context.Context, rm *metricdata.ResourceMetrics) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.got = append(e.got, *rm)
	return nil
}
func (e *memExporter) ForceFlush(context.Context) error { return nil }
func (e *memExporter) Shutdown(context.Context) error   { return nil }

// TestExportOTLPFlushesOnShutdown: with the default minute between
// exports, shutting the provider down still exports what was counted,
// under the registry's names and labels.
func TestExportOTLPFlushesOnShutdown(t *testing.T) {
	t.Setenv("OTEL_METRIC_EXPORT_INTERVAL", "")
	m := New(Config{})
	exp := &memExporter{}
	mp := m.ExportOTLP(exp, resource.Empty())
	m.Observe("ep_1", delivery.Attempt{Outcome: delivery.OutcomeSuccess, Duration: 5 * time.Millisecond})
	m.Observe("ep_1", delivery.Attempt{Outcome: delivery.OutcomeSuccess, Duration: 5 * time.Millisecond})
	exp.mu.Lock()
	require.Empty(t, exp.got, "nothing before the interval")
	exp.mu.Unlock()
	require.NoError(t, mp.Shutdown(context.Background()))

	require.Len(t, exp.got, 1)
	var found bool
	for _, sm := range exp.got[0].ScopeMetrics {
		for _, md := range sm.Metrics {
			if md.Name != "hookd_attempts_total" {
				continue
			}
			sum, ok := md.Data.(metricdata.Sum[float64])
			require.True(t, ok, "a counter is a sum")
			require.True(t, sum.IsMonotonic)
			for _, p := range sum.DataPoints {
				ep, _ := p.Attributes.Value("endpoint_id")
				out, _ := p.Attributes.Value("outcome")
				if ep.AsString() == "ep_1" && out.AsString() == "success" {
					found = true
					require.Equal(t, 2.0, p.Value)
				}
			}
		}
	}
	require.True(t, found, "hookd_attempts_total{endpoint_id=ep_1,outcome=success} exported")
}
