package metrics

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestSDKHandler(t *testing.T) {
	m := New(Config{})
	h := m.SDKHandler().WithTags(map[string]string{"namespace": "default", "client_name": "temporal_go"})
	poll := h.WithTags(map[string]string{"poller_type": "activity_task", "namespace": "other"})

	h.Counter("temporal_request").Inc(2)
	h.Counter("temporal_request").Inc(1)
	h.Counter("temporal_request").Inc(-5) // counters never go down
	h.WithTags(map[string]string{"operation": "PollActivityTaskQueue"}).Counter("temporal_request").Inc(1)
	poll.Gauge("temporal_num_pollers").Update(4)
	poll.Gauge("temporal_num_pollers").Update(3)
	h.Timer("temporal_request_latency").Record(30 * time.Millisecond)
	h.Timer("temporal_request_latency").Record(2 * time.Second)
	h.Counter("odd-name.with dots").Inc(1)

	fams := scrape(t, m)
	require.Equal(t, float64(3), value(fams, "temporal_request_total", "namespace=default", "client_name=temporal_go", "operation="))
	require.Equal(t, float64(1), value(fams, "temporal_request_total", "operation=PollActivityTaskQueue"))
	require.Len(t, fams["temporal_request_total"].GetMetric(), 2, "one series per tag set")
	require.Equal(t, float64(3), value(fams, "temporal_num_pollers", "namespace=other", "poller_type=activity_task", "client_name=temporal_go"))
	require.Equal(t, float64(2), value(fams, "temporal_request_latency_seconds", "namespace=default"))
	require.InDelta(t, 2.03, fams["temporal_request_latency_seconds"].GetMetric()[0].GetHistogram().GetSampleSum(), 1e-9)
	require.Equal(t, float64(1), value(fams, "odd_name_with_dots_total"))

	// The base handler is unchanged by WithTags.
	m.SDKHandler().Counter("temporal_request").Inc(1)
	fams = scrape(t, m)
	require.Len(t, fams["temporal_request_total"].GetMetric(), 3)
}
