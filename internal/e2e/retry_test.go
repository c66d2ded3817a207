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

	require.EqualValues(t, "delivered", d.Status)
	require.Equal(t, 4, d.Attempts)
	require.Len(t, d.Timeline, 4)
	for i, at := range d.Timeline[:3] {
		require.Equal(t, i+1, at.Number)
		require.Equal(t, 503, at.Status)
		require.EqualValues(t, "retryable", at.Outcome)
		require.EqualValues(t, "schedule", at.DelayReason)
	}
	require.EqualValues(t, "success", d.Timeline[3].Outcome)
	hits := rc.Hits()
	require.Len(t, hits, 4)
	for i, h := range hits {
		require.Equal(t, a.Deliveries[0].ID, verify(t, h, ep.Secret), "attempt %d", i+1)
		require.Equal(t, hits[0].Body, h.Body, "attempt %d body", i+1)
		require.Equal(t, []string{string(rune('1' + i))}, h.Header.Values("hookd-attempt"))
	}
	// Each retry waited its recorded delay, which is the 1s step within
	// its ±20% jitter: checked against the recorded schedule, not against
	// how fast a loaded machine ran.
	for i, at := range d.Timeline[:3] {
		requireDelay(t, at, 800*time.Millisecond, 1200*time.Millisecond)
		requireWaited(t, at, d.Timeline[i+1], hits[i+1])
	}
}

// requireDelay checks an attempt's recorded delay before the next one.
func requireDelay(t *testing.T, at attempt, lo, hi time.Duration) {
	t.Helper()
	delay, err := time.ParseDuration(at.NextDelay)
	require.NoError(t, err, "attempt %d's next_delay", at.Number)
	// The API shows the delay rounded to the millisecond.
	require.GreaterOrEqual(t, delay, lo-time.Millisecond, "attempt %d's delay", at.Number)
	require.LessOrEqual(t, delay, hi+time.Millisecond, "attempt %d's delay", at.Number)
	require.NotZero(t, at.NextAttemptAt, "attempt %d's next_attempt_at", at.Number)
	// The next attempt is set its delay after the response, which came
	// within the attempt (±1ms: the API rounds the delay).
	decided := at.NextAttemptAt.Add(-delay)
	require.False(t, decided.Before(at.Start.Add(-time.Millisecond)) || decided.After(attemptEnd(at).Add(time.Millisecond)),
		"attempt %d (%s..%s) scheduled the next for %s, not its delay after it", at.Number, at.Start, attemptEnd(at), at.NextAttemptAt)
}

// requireWaited checks that the next attempt, as recorded and as the
// receiver saw it, came no earlier than the time its predecessor set.
func requireWaited(t *testing.T, at, next attempt, nextHit hit) {
	t.Helper()
	require.False(t, next.Start.Before(at.NextAttemptAt), "attempt %d started %s, before its scheduled %s", next.Number, next.Start, at.NextAttemptAt)
	require.False(t, nextHit.At.Before(at.NextAttemptAt), "attempt %d reached the receiver %s, before its scheduled %s", next.Number, nextHit.At, at.NextAttemptAt)
}

// A 404 is permanent: one attempt, status failed.
func TestPermanentFailureStopsAtOnce(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	rc := newReceiver(t, func(_ int, w http.ResponseWriter) { w.WriteHeader(http.StatusNotFound) })
	api.createEndpoint(map[string]any{"url": rc.URL, "event_types": []string{"retry.gone"}, "retry_schedule": []string{"1s"}})
	a := api.send(`{"type":"retry.gone","payload":{}}`)
	d := api.waitDelivery(a.Deliveries[0].ID, 10*time.Second)
	require.EqualValues(t, "failed", d.Status)
	require.Equal(t, 1, d.Attempts)
	require.Equal(t, 404, d.LastStatus)
	// The final status is the signal: the run has stopped, so the receiver
	// has seen every request it will ever see.
	require.Len(t, rc.Hits(), 1)
}

// retryAfterOnce is a receiver that answers its first request 429 with
// Retry-After: 2, and 204 from then on.
func retryAfterOnce(t *testing.T) *receiver {
	return newReceiver(t, func(n int, w http.ResponseWriter) {
		if n == 1 {
			w.Header().Set("Retry-After", "2")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
}

// 429 with Retry-After: 2 replaces the 1s schedule step.
func TestRetryAfterIsHonoured(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	rc := retryAfterOnce(t)
	api.createEndpoint(map[string]any{"url": rc.URL, "event_types": []string{"retry.throttled"}, "retry_schedule": []string{"1s", "1s"}})
	a := api.send(`{"type":"retry.throttled","payload":{}}`)
	d := api.waitDelivery(a.Deliveries[0].ID, 15*time.Second)
	require.EqualValues(t, "delivered", d.Status)
	require.EqualValues(t, "retry-after", d.Timeline[0].DelayReason)
	require.Len(t, d.Timeline, 2)
	hits := rc.Hits()
	require.Len(t, hits, 2)
	requireDelay(t, d.Timeline[0], 2*time.Second, 2*time.Second)
	requireWaited(t, d.Timeline[0], d.Timeline[1], hits[1])
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
	require.EqualValues(t, "delivered", d.Status)
	require.Equal(t, 2, d.Attempts)
	require.Equal(t, "timeout", d.Timeline[0].ErrorClass)
}
