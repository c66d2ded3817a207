package metrics

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/delivery"
)

func TestObserveMovesSeries(t *testing.T) {
	m := New(Config{})
	before := scrape(t, m)
	require.Equal(t, float64(-1), value(before, "hookd_attempts_total", "outcome=success"))
	require.Equal(t, float64(0), value(before, "hookd_attempt_duration_seconds"))
	require.Equal(t, float64(0), value(before, "hookd_retries_total"))
	require.NotNil(t, before["go_goroutines"], "runtime metrics are served too")

	now := time.Now()
	m.Observe("ep_a", delivery.Attempt{Outcome: delivery.OutcomeSuccess, Status: 200, Duration: 20 * time.Millisecond})
	m.Observe("ep_a", delivery.Attempt{Outcome: delivery.OutcomeRetryable, Status: 503, Duration: time.Second, NextAttempt: now.Add(time.Minute)})
	m.Observe("ep_b", delivery.Attempt{Outcome: delivery.OutcomeRetryable, ErrorClass: "timeout", Duration: 15 * time.Second}) // the last: no retry
	m.Observe("ep_b", delivery.Attempt{Outcome: delivery.OutcomeDeferred})                                                     // not an attempt

	after := scrape(t, m)
	require.Equal(t, float64(1), value(after, "hookd_attempts_total", "outcome=success", "endpoint_id=ep_a"))
	require.Equal(t, float64(1), value(after, "hookd_attempts_total", "outcome=retryable", "endpoint_id=ep_a"))
	require.Equal(t, float64(1), value(after, "hookd_attempts_total", "outcome=retryable", "endpoint_id=ep_b"))
	require.Equal(t, float64(-1), value(after, "hookd_attempts_total", "outcome=deferred"))
	require.Equal(t, float64(3), value(after, "hookd_attempt_duration_seconds"))
	require.Equal(t, 16.02, after["hookd_attempt_duration_seconds"].GetMetric()[0].GetHistogram().GetSampleSum())
	require.Equal(t, float64(1), value(after, "hookd_retries_total"))
	delivered := value(after, "hookd_deliveries_total", "status=delivered") - max(0, value(before, "hookd_deliveries_total", "status=delivered"))
	require.Equal(t, float64(1), delivered, "the successful attempt ended its delivery; the others did not")
}

func TestNoEndpointLabels(t *testing.T) {
	m := New(Config{NoEndpointLabels: true})
	m.Observe("ep_a", delivery.Attempt{Outcome: delivery.OutcomeSuccess})
	m.Observe("ep_b", delivery.Attempt{Outcome: delivery.OutcomeSuccess})
	fams := scrape(t, m)
	require.Equal(t, float64(2), value(fams, "hookd_attempts_total", "outcome=success"))
	require.Equal(t, []string{"outcome"}, labelNames(fams, "hookd_attempts_total"))
	require.Nil(t, fams["hookd_circuit_state"])
}

// Each Metrics counts its own duplicate ingests, ended deliveries and
// redrives: two in one process (two servers in a test) do not see each
// other's; a nil one counts nothing.
func TestCountersBelongToTheirMetrics(t *testing.T) {
	m, other := New(Config{}), New(Config{})
	m.DuplicateIngest()
	m.Redrive(RedriveStarted)
	m.Redrive(RedriveStarted)
	m.Redrive(RedriveFailed)
	m.DeliveryEnded(delivery.StatusExhausted)
	m.DeliveryEnded(delivery.StatusFailed)
	m.DeliveryEnded(delivery.StatusExhausted)
	var none *Metrics
	none.DuplicateIngest()
	none.Redrive(RedriveStarted)
	none.DeliveryEnded(delivery.StatusFailed)

	fams := scrape(t, m)
	require.Equal(t, float64(1), value(fams, "hookd_duplicate_ingests_total"))
	require.Equal(t, float64(2), value(fams, "hookd_redrives_total", "outcome=started"))
	require.Equal(t, float64(1), value(fams, "hookd_redrives_total", "outcome=error"))
	require.Equal(t, float64(2), value(fams, "hookd_deliveries_total", "status=exhausted"))
	require.Equal(t, float64(1), value(fams, "hookd_deliveries_total", "status=failed"))
	fams = scrape(t, other)
	require.Equal(t, float64(0), value(fams, "hookd_duplicate_ingests_total"))
	require.Equal(t, float64(-1), value(fams, "hookd_redrives_total", "outcome=started"))
	require.Equal(t, float64(-1), value(fams, "hookd_deliveries_total", "status=exhausted"))
}
