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

	"github.com/hookd/hookd/internal/api"
	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/lifecycle"
	"github.com/hookd/hookd/internal/store/sqlite"
	"github.com/hookd/hookd/internal/store/storetest"
	"github.com/hookd/hookd/internal/testkit"
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
	o := newObservability(ObservabilityConfig{FlushEvery: time.Hour}, slog.New(slog.DiscardHandler))
	bg := lifecycle.New(nil)
	require.NoError(t, o.start(bg, st, emptyVisibility{}))

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

	require.NoError(t, bg.Stop(ctx)) // flushes
	fig, err := o.Stats(ctx, "ep_a")
	require.NoError(t, err)
	hour := fig.LastHour
	require.Equal(t, int64(4), hour.Attempts)
	require.Equal(t, 0.75, hour.SuccessRate)
	require.InDelta(t, float64(8*time.Millisecond)+float64(8*time.Millisecond)*2/3, float64(hour.P50), float64(time.Microsecond)) // rank 2 of 3 in (8ms, 16ms]
}

// TestMetricsNeedTheAPIKeyOnTheAPIListener: /metrics beside the API names
// every tenant's endpoints, so it answers only the platform's API key;
// the scrape listener of its own answers without one (its address is
// kept private), still refusing a tenant token.
func TestMetricsNeedTheAPIKeyOnTheAPIListener(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "hookd.db"), storetest.Key(t))
	require.NoError(t, err)
	defer st.Close()
	h, err := api.New(api.Config{Temporal: testkit.DownTemporal{}, Store: st, APIKeys: []string{"hk_key"}, Namespace: "default",
		Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	o := newObservability(ObservabilityConfig{}, slog.New(slog.DiscardHandler))
	o.Observe("ep_secret", delivery.Attempt{Start: time.Now(), Duration: time.Millisecond, Status: 200, Outcome: delivery.OutcomeSuccess})

	status := func(url, cred string) (int, string) {
		req, err := http.NewRequest("GET", url+"/metrics", nil)
		require.NoError(t, err)
		if cred != "" {
			req.Header.Set("Authorization", "Bearer "+cred)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	main := httptest.NewServer(o.withMetrics(http.NotFoundHandler(), h))
	defer main.Close()
	for cred, want := range map[string]int{"": http.StatusUnauthorized, "hk_wrong": http.StatusUnauthorized, "htk_unknown": http.StatusUnauthorized, "hk_key": http.StatusOK} {
		code, body := status(main.URL, cred)
		require.Equal(t, want, code, "main listener, credential %q", cred)
		if code != http.StatusOK {
			require.NotContains(t, body, "ep_secret")
			require.Contains(t, body, `"code":"unauthorized"`)
		}
	}
	scrape := httptest.NewServer(o.scrapeHandler(h))
	defer scrape.Close()
	code, body := status(scrape.URL, "")
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, body, `endpoint_id="ep_secret"`)
	code, _ = status(scrape.URL, "htk_unknown")
	require.Equal(t, http.StatusUnauthorized, code, "a tenant token is judged even here")
	resp, err := http.Get(scrape.URL + "/v1/endpoints")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusNotFound, resp.StatusCode, "the scrape listener serves nothing else")
}
