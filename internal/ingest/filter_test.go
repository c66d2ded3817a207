package ingest_test

import (
	"bytes"
	"context"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/ingest"
	"github.com/hookd/hookd/internal/metrics"
)

// Content filters apply after the type: a filter that fails (here a
// missing key) does not match and is counted and logged without the
// payload; the other endpoints' deliveries start. The record keeps the
// fan-out: a re-post after a filter changed answers it.
func TestContentFilters(t *testing.T) {
	r := newRecords("ep_plain", "ep_eur", "ep_usd", "ep_broken")
	r.endpoints[1].Filter = `payload.amount > 1000 && payload.currency == "EUR"`
	r.endpoints[2].Filter = `payload.currency == "USD"`
	r.endpoints[3].Filter = `payload.missing > 1`
	tc := newTemporal()
	m := metrics.New(metrics.Config{})
	var logs bytes.Buffer
	p := &ingest.Publisher{Temporal: tc, Endpoints: r, Records: r, Metrics: m, Logger: slog.New(slog.NewTextHandler(&logs, nil))}
	body := `{"amount":1500,"currency":"EUR","secret_value":"s3cr3t"}`

	res, err := p.Publish(context.Background(), ev("evt_f", body))
	require.NoError(t, err)
	var got []string
	for _, d := range res.Deliveries {
		got = append(got, d.EndpointID)
	}
	require.Equal(t, []string{"ep_plain", "ep_eur"}, got)
	require.Len(t, tc.startedIDs(), 2)
	require.Equal(t, 1.0, filterErrors(t, m, "no_such_key"))
	require.Contains(t, logs.String(), "endpoint_id=ep_broken")
	require.Contains(t, logs.String(), "reason=no_such_key")
	require.NotContains(t, logs.String(), "s3cr3t", "never the payload")
	require.NotContains(t, logs.String(), "1500")

	r.mu.Lock()
	r.endpoints[2].Filter = `payload.currency == "EUR"`
	r.endpoints[1].Filter = `false`
	r.mu.Unlock()
	again, err := p.Publish(context.Background(), ev("evt_f", body))
	require.NoError(t, err)
	require.True(t, again.Duplicate)
	require.Equal(t, res.Deliveries, again.Deliveries, "the recorded fan-out, whatever the filters say now")
}

// filterErrors reads hookd_filter_errors_total{reason}.
func filterErrors(t *testing.T, m *metrics.Metrics, reason string) float64 {
	t.Helper()
	mfs, err := m.Registry().Gather()
	require.NoError(t, err)
	for _, mf := range mfs {
		if mf.GetName() != "hookd_filter_errors_total" {
			continue
		}
		for _, s := range mf.GetMetric() {
			for _, l := range s.GetLabel() {
				if l.GetName() == "reason" && l.GetValue() == reason {
					return s.GetCounter().GetValue()
				}
			}
		}
	}
	return 0
}
