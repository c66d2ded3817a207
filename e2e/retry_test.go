package e2e

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// 503, 503, 503, then 200 on a 1s schedule: delivered on attempt 4 with the
// same webhook-id, byte-identical body and a valid signature every time,
// and the delays follow the schedule within its jitter.
func TestRetriesUntilDelivered(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	rc := newReceiver(t, func(n int, w http.ResponseWriter) {
		if n <= 3 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusOK)
	})
	ep := api.createEndpoint(map[string]any{"url": rc.URL, "event_types": []string{"retry.flaky"}, "retry_schedule": []string{"1s", "1s", "1s", "1s"}})
	a := api.send(`{"type":"retry.flaky","payload":{"k":"v"}}`)
	d := api.waitDelivery(a.Deliveries[0].ID, 30*time.Second)

	require.Equal(t, "delivered", d.Status)
	require.Equal(t, 4, d.Attempts)
	require.Len(t, d.Timeline, 4)
	for i, at := range d.Timeline[:3] {
		require.Equal(t, i+1, at.Number)
		require.Equal(t, 503, at.Status)
		require.Equal(t, "retryable", at.Outcome)
		require.Equal(t, "schedule", at.DelayReason)
	}
	require.Equal(t, "success", d.Timeline[3].Outcome)
	hits := rc.Hits()
	require.Len(t, hits, 4)
	for i, h := range hits {
		require.Equal(t, a.Deliveries[0].ID, verify(t, h, ep.Secret), "attempt %d", i+1)
		require.Equal(t, hits[0].Body, h.Body, "attempt %d body", i+1)
		require.Equal(t, []string{string(rune('1' + i))}, h.Header.Values("hookd-attempt"))
		if i > 0 {
			gap := h.At.Sub(hits[i-1].At)
			require.InDelta(t, time.Second.Seconds(), gap.Seconds(), 0.45, "gap before attempt %d", i+1)
		}
	}
}

// A 404 is permanent: one attempt, status failed.
func TestPermanentFailureStopsAtOnce(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	rc := newReceiver(t, func(_ int, w http.ResponseWriter) { w.WriteHeader(http.StatusNotFound) })
	api.createEndpoint(map[string]any{"url": rc.URL, "event_types": []string{"retry.gone"}, "retry_schedule": []string{"1s"}})
	a := api.send(`{"type":"retry.gone","payload":{}}`)
	d := api.waitDelivery(a.Deliveries[0].ID, 10*time.Second)
	require.Equal(t, "failed", d.Status)
	require.Equal(t, 1, d.Attempts)
	require.Equal(t, 404, d.LastStatus)
	time.Sleep(1500 * time.Millisecond)
	require.Len(t, rc.Hits(), 1)
}

// 429 with Retry-After: 2 replaces the 1s schedule step.
func TestRetryAfterIsHonoured(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	rc := newReceiver(t, func(n int, w http.ResponseWriter) {
		if n == 1 {
			w.Header().Set("Retry-After", "2")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	api.createEndpoint(map[string]any{"url": rc.URL, "event_types": []string{"retry.throttled"}, "retry_schedule": []string{"1s", "1s"}})
	a := api.send(`{"type":"retry.throttled","payload":{}}`)
	d := api.waitDelivery(a.Deliveries[0].ID, 15*time.Second)
	require.Equal(t, "delivered", d.Status)
	require.Equal(t, "retry-after", d.Timeline[0].DelayReason)
	hits := rc.Hits()
	require.Len(t, hits, 2)
	require.InDelta(t, 2.0, hits[1].At.Sub(hits[0].At).Seconds(), 0.5)
}

// A receiver that hangs past the endpoint's timeout is retried on the
// schedule, not on an activity timeout.
func TestTimeoutIsRetried(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	rc := newReceiver(t, func(n int, w http.ResponseWriter) {
		if n == 1 {
			time.Sleep(1500 * time.Millisecond)
		}
		w.WriteHeader(http.StatusOK)
	})
	api.createEndpoint(map[string]any{"url": rc.URL, "event_types": []string{"retry.slow"}, "retry_schedule": []string{"1s"}, "timeout": "1s"})
	a := api.send(`{"type":"retry.slow","payload":{}}`)
	d := api.waitDelivery(a.Deliveries[0].ID, 15*time.Second)
	require.Equal(t, "delivered", d.Status)
	require.Equal(t, 2, d.Attempts)
	require.Equal(t, "timeout", d.Timeline[0].ErrorClass)
}
