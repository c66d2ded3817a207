package e2e

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/apiclient/wire"
)

// A test event is one attempt: POST /v1/endpoints/{id}/test to an
// endpoint that fails reports that attempt, and the delivery ends failed
// with it alone: no retry on the endpoint's schedule, no hookd.test dead
// letter.
func TestEndpointTestIsOneAttempt(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	failing := newReceiver(t, func(_ int, w http.ResponseWriter) { w.WriteHeader(http.StatusInternalServerError) })
	ep := api.createEndpoint(map[string]any{"url": failing.URL, "retry_schedule": []string{"1s"}, "event_types": []string{"never.sent.one"}})

	var res testResult
	require.Equal(t, http.StatusOK, api.do("POST", "/v1/endpoints/"+ep.ID+"/test", nil, &res))
	require.EqualValues(t, "retryable", res.Outcome, "the attempt's outcome, reported")
	require.Equal(t, 500, res.Status)

	d := api.waitDelivery(res.DeliveryID, 5*time.Second)
	require.EqualValues(t, "failed", d.Status, "ended after its attempt")
	require.Equal(t, 1, d.Attempts)
	require.Equal(t, 500, d.LastStatus)
	time.Sleep(2500 * time.Millisecond) // past the schedule's 1s ±20% retry
	require.Len(t, failing.Hits(), 1, "not retried")
	d = api.waitDelivery(res.DeliveryID, time.Second)
	require.EqualValues(t, "failed", d.Status)
	require.Equal(t, 1, d.Attempts)
	require.Zero(t, d.Timeline[0].NextAttemptAt, "no next attempt announced")

	var e apiError
	require.Equal(t, http.StatusNotFound, api.do("GET", "/v1/dead-letters/"+res.DeliveryID, nil, &e), "not dead-lettered")
	var list wire.DeadLetterPage
	require.Equal(t, http.StatusOK, api.do("GET", "/v1/dead-letters?endpoint_id="+ep.ID, nil, &list))
	require.Empty(t, list.Data, "no hookd.test dead letter")
}
