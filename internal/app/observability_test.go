package app

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/stats"
	"github.com/hookd/hookd/internal/store/sqlite"
	"github.com/hookd/hookd/internal/store/storetest"
)

// emptyVisibility is a Temporal with no running workflows.
type emptyVisibility struct{}

func (emptyVisibility) CountWorkflow(context.Context, *workflowservice.CountWorkflowExecutionsRequest) (*workflowservice.CountWorkflowExecutionsResponse, error) {
	return &workflowservice.CountWorkflowExecutionsResponse{}, nil
}

func (emptyVisibility) ListWorkflow(context.Context, *workflowservice.ListWorkflowExecutionsRequest) (*workflowservice.ListWorkflowExecutionsResponse, error) {
	return &workflowservice.ListWorkflowExecutionsResponse{}, nil
}

func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return string(b)
}

// TestObservability wires figures and metrics as hookd dev does: attempts
// observed move the /metrics counters, and once flushed show in Stats.
func TestObservability(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "hookd.db"), storetest.Key(t))
	require.NoError(t, err)
	defer st.Close()
	o := newObservability(observabilityConfig{FlushEvery: time.Hour}, slog.New(slog.DiscardHandler))
	require.NoError(t, o.start(st, emptyVisibility{}, nil))

	api := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "api") })
	srv := httptest.NewServer(o.withMetrics(api, nil))
	defer srv.Close()
	require.Equal(t, "api", get(t, srv.URL+"/v1/events"))
	require.NotContains(t, get(t, srv.URL+"/metrics"), `hookd_attempts_total{`)

	for range 3 {
		o.Observe("ep_a", delivery.Attempt{Start: time.Now(), Duration: 12 * time.Millisecond, Status: 200, Outcome: delivery.OutcomeSuccess})
	}
	o.Observe("ep_a", delivery.Attempt{Start: time.Now(), Duration: time.Second, Status: 500, Outcome: delivery.OutcomeRetryable, NextAttempt: time.Now().Add(time.Minute)})
	o.SDKMetrics().WithTags(map[string]string{"namespace": "default"}).Counter("temporal_request").Inc(1)

	body := get(t, srv.URL+"/metrics")
	for _, want := range []string{
		`hookd_attempts_total{endpoint_id="ep_a",outcome="success"} 3`,
		`hookd_attempts_total{endpoint_id="ep_a",outcome="retryable"} 1`,
		`hookd_attempt_duration_seconds_count 4`,
		`hookd_retries_total 1`,
		`hookd_dead_letters 0`,
		`temporal_request_total{namespace="default"} 1`,
	} {
		require.Contains(t, body, want)
	}

	require.NoError(t, o.Close(ctx)) // flushes
	fig, err := o.Stats(ctx, "ep_a")
	require.NoError(t, err)
	hour := fig.(stats.Figures).LastHour
	require.Equal(t, int64(4), hour.Attempts)
	require.Equal(t, 0.75, hour.SuccessRate)
	require.InDelta(t, float64(8*time.Millisecond)+float64(8*time.Millisecond)*2/3, float64(hour.P50), float64(time.Microsecond)) // rank 2 of 3 in (8ms, 16ms]
}
