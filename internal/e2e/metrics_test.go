package e2e

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestMetricsAndHealthFigures delivers a few events and sees them in a
// scrape of /metrics and, once flushed, in the endpoint's health figures.
func TestMetricsAndHealthFigures(t *testing.T) {
	api := newAPI(t)
	rc := newReceiver(t, nil)
	ep := api.createEndpoint(map[string]any{"url": rc.URL, "event_types": []string{"metrics.test"}})
	for i := range 3 {
		a := api.send(fmt.Sprintf(`{"event_id":"metrics-%d","type":"metrics.test","payload":{"n":%d}}`, i, i))
		api.waitDelivery(a.Deliveries[0].ID, 10*time.Second)
	}

	code, body := scrapeMetrics(t, shared.APIKey)
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, body, fmt.Sprintf(`hookd_attempts_total{endpoint_id=%q,outcome="success"} 3`, ep.ID))
	require.Contains(t, body, "hookd_attempt_duration_seconds_bucket")
	require.Regexp(t, `(?m)^hookd_deliveries_total\{status="delivered"\} [1-9]`, body, "deliveries by final status")
	require.Contains(t, body, "temporal_request_total{", "Temporal SDK metrics")

	var h health
	require.Eventually(t, func() bool {
		require.Equal(t, http.StatusOK, api.do("GET", "/v1/endpoints/"+ep.ID+"/health", nil, &h))
		return h.Stats.LastHour.Attempts == 3
	}, 15*time.Second, 200*time.Millisecond, "figures flushed within a few seconds")
	require.Equal(t, 1.0, *h.Stats.LastHour.SuccessRate)
	require.Positive(t, *h.Stats.LastHour.P50Ms)
}
