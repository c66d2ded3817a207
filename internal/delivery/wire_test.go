package delivery_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/converter"

	"github.com/hookd/hookd/internal/delivery"
)

// throughTemporal encodes v as the SDK does for workflow inputs and
// history, and decodes it into out.
func throughTemporal(t *testing.T, v, out any) []byte {
	t.Helper()
	dc := converter.GetDefaultDataConverter()
	p, err := dc.ToPayload(v)
	require.NoError(t, err)
	require.NoError(t, dc.FromPayload(p, out))
	return p.GetData()
}

// The body sent is exactly the body accepted, whichever form the input
// takes: embedded as JSON when that keeps it byte for byte, else a string.
func TestRequestBodyRoundTripsByteForByte(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		embedded   bool
	}{
		{"compact object", `{"order_id":"ord_42","total":4200,"items":[1,2,{"a":null}]}`, true},
		{"array", `[1,"two",{"three":3}]`, true},
		{"escapes kept as written", `{"name":"Jos\u00e9","quote":"\"","nl":"a\nb"}`, true},
		{"non-ASCII text", `{"name":"José 東京 😀"}`, true},
		{"HTML characters would be escaped", `{"note":"<b>&</b>"}`, false},
		{"line separator would be escaped", "{\"s\":\"a\u2028b\"}", false},
		{"insignificant whitespace would be compacted", `{"a": 1}`, false},
		{"not JSON", `order 42`, false},
		{"a JSON string", `"just a string"`, false},
		{"empty", ``, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := delivery.Request{DeliveryID: "dlv_1", EventID: "evt_1", EventType: "order.created", EndpointID: "ep_1",
				Body: tc.body, Schedule: []time.Duration{time.Second}, Timeout: 5 * time.Second,
				AcceptedAt: time.Date(2026, 12, 1, 10, 0, 0, 123, time.UTC), Redrive: &delivery.Redrive{By: "b", Reason: "r", At: time.Date(2026, 12, 1, 11, 0, 0, 0, time.UTC)}}
			var back delivery.Request
			data := throughTemporal(t, req, &back)
			assert.Equal(t, req, back)
			assert.Equal(t, []byte(tc.body), []byte(back.Body), "the same bytes")

			var shape map[string]json.RawMessage
			require.NoError(t, json.Unmarshal(data, &shape))
			_, hasPayload := shape["payload"]
			_, hasBody := shape["body"]
			assert.Equal(t, tc.embedded, hasPayload, "payload embedded: %s", data)
			assert.Equal(t, !tc.embedded, hasBody, "body as a string: %s", data)
		})
	}
}

// What the Web UI shows of a delivery's input: the payload as JSON and
// durations as Go duration strings.
func TestRequestReadsInTheWebUI(t *testing.T) {
	req := delivery.Request{DeliveryID: "dlv_1", EventID: "evt_1", EventType: "order.created", EndpointID: "ep_1",
		Body: `{"order_id":"ord_42"}`, Schedule: []time.Duration{30 * time.Second, 2 * time.Minute}, Timeout: 15 * time.Second,
		Resume: []delivery.Attempt{{Number: 1, Start: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC), Duration: 1500 * time.Microsecond,
			Status: 503, Outcome: delivery.OutcomeRetryable, NextDelay: 30 * time.Second, DelayReason: "schedule"}}}
	data, err := json.Marshal(req)
	require.NoError(t, err)
	assert.JSONEq(t, `{"delivery_id":"dlv_1","event_id":"evt_1","event_type":"order.created","endpoint_id":"ep_1",
		"payload":{"order_id":"ord_42"},"schedule":["30s","2m0s"],"timeout":"15s",
		"resume":[{"number":1,"start":"2026-12-01T10:00:00Z","duration":"1.5ms","status":503,"outcome":"retryable",
		"next_delay":"30s","delay_reason":"schedule"}]}`, string(data))

	params, err := json.Marshal(delivery.DeadLetterParams{Retention: 720 * time.Hour, DeliveryID: "dlv_1", EndpointID: "ep_1",
		EventID: "evt_1", EventType: "order.created", Reason: delivery.StatusExhausted})
	require.NoError(t, err)
	assert.JSONEq(t, `{"retention":"720h0m0s","delivery_id":"dlv_1","endpoint_id":"ep_1","event_id":"evt_1",
		"event_type":"order.created","reason":"exhausted"}`, string(params))
}

// Inputs, results and heartbeats written before (durations in
// nanoseconds, the body as a string) still decode: running workflows and
// recorded histories carry on.
func TestTheEncodingBeforeStillDecodes(t *testing.T) {
	var req delivery.Request
	require.NoError(t, json.Unmarshal([]byte(`{"delivery_id":"dlv_1","event_id":"evt_1","event_type":"order.created","endpoint_id":"ep_1",
		"body":"{\"order_id\": \"ord_42\"}","schedule":[30000000000,120000000000],"timeout":15000000000,"accepted_at":"2026-12-01T09:59:59Z",
		"redrive":{"by":"api-key:1a2b3c4d","reason":"fixed","at":"2026-12-01T11:00:00Z"},
		"resume":[{"number":1,"start":"2026-12-01T10:00:00Z","duration":1500000,"status":503,"outcome":"retryable",
		"next_delay":30000000000,"delay_reason":"schedule","next_attempt":"2026-12-01T10:00:30Z"}]}`), &req))
	assert.Equal(t, delivery.Request{DeliveryID: "dlv_1", EventID: "evt_1", EventType: "order.created", EndpointID: "ep_1",
		Body: `{"order_id": "ord_42"}`, Schedule: []time.Duration{30 * time.Second, 2 * time.Minute}, Timeout: 15 * time.Second,
		AcceptedAt: time.Date(2026, 12, 1, 9, 59, 59, 0, time.UTC),
		Redrive:    &delivery.Redrive{By: "api-key:1a2b3c4d", Reason: "fixed", At: time.Date(2026, 12, 1, 11, 0, 0, 0, time.UTC)},
		Resume: []delivery.Attempt{{Number: 1, Start: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC), Duration: 1500 * time.Microsecond,
			Status: 503, Outcome: delivery.OutcomeRetryable, NextDelay: 30 * time.Second, DelayReason: "schedule",
			NextAttempt: time.Date(2026, 12, 1, 10, 0, 30, 0, time.UTC)}}}, req)

	var params delivery.DeadLetterParams
	require.NoError(t, json.Unmarshal([]byte(`{"retention":2592000000000000}`), &params))
	assert.Equal(t, delivery.DeadLetterParams{Retention: 720 * time.Hour}, params)

	var bad delivery.Request
	assert.ErrorContains(t, json.Unmarshal([]byte(`{"timeout":"soon"}`), &bad), "duration")
}
