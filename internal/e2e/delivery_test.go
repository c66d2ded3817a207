package e2e

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A first delivery end to end: the receiver gets the exact payload bytes,
// signed, with hookd's headers, and the delivery reads as delivered.
func TestFirstDeliveryIsSignedAndExact(t *testing.T) {
	api := newAPI(t)
	rc := newReceiver(t, nil)
	ep := api.createEndpoint(map[string]any{"url": rc.URL + "/hook", "event_types": []string{"order.created"}})

	a := api.send(`{"event_id":"first-1","type":"order.created","payload":{"id":"ord_1","total":4200,"note":"<b>&</b>"}}`)
	require.Len(t, a.Deliveries, 1)
	require.False(t, a.Duplicate)
	d := api.waitDelivery(a.Deliveries[0].ID, 10*time.Second)

	require.EqualValues(t, "delivered", d.Status)
	require.Equal(t, 1, d.Attempts)
	require.Equal(t, 200, d.LastStatus)
	require.Equal(t, "first-1", d.EventID)
	require.Equal(t, ep.ID, d.EndpointID)
	hits := rc.Hits()
	require.Len(t, hits, 1)
	require.Equal(t, `{"id":"ord_1","total":4200,"note":"<b>&</b>"}`, string(hits[0].Body))
	require.Equal(t, a.Deliveries[0].ID, verify(t, hits[0], ep.Secret))
	h := hits[0].Header
	require.Equal(t, "application/json", h.Get("Content-Type"))
	require.Equal(t, "hookd/test", h.Get("User-Agent"))
	require.Equal(t, "order.created", h.Get("hookd-event-type"))
	require.Equal(t, "first-1", h.Get("hookd-event-id"))
	require.Equal(t, "1", h.Get("hookd-attempt"))
}

// Re-posting an event deduplicates; reusing its ID for another body is a
// conflict; neither delivers anything new.
func TestReposting(t *testing.T) {
	api := newAPI(t)
	rc := newReceiver(t, nil)
	api.createEndpoint(map[string]any{"url": rc.URL, "event_types": []string{"dup.*"}})
	body := `{"event_id":"dup-1","type":"dup.test","payload":{"n":1}}`
	first := api.send(body)
	api.waitDelivery(first.Deliveries[0].ID, 10*time.Second)

	again := api.send(body)
	require.True(t, again.Duplicate)
	require.Equal(t, first.Deliveries, again.Deliveries)

	var e apiError
	require.Equal(t, http.StatusConflict, api.do("POST", "/v1/events", `{"event_id":"dup-1","type":"dup.test","payload":{"n":2}}`, &e))
	require.Equal(t, "event_id", e.Error.Field)
	// The delivery is still its one delivered run, and a later event has
	// gone through: the receiver saw the first post and the sentinel only.
	require.Equal(t, 1, api.waitDelivery(first.Deliveries[0].ID, time.Second).Attempts)
	sentinel := api.barrier("dup.test")
	require.Equal(t, []string{"dup-1", sentinel}, eventIDs(rc.Hits()))
}

// Bad input gets a 400 naming the field; nothing is accepted.
func TestEventValidation(t *testing.T) {
	api := newAPI(t)
	for body, field := range map[string]string{
		`not json`:                                  "body",
		`{"payload":{}}`:                            "type",
		`{"type":"a.b","payload":[1]}`:              "payload",
		`{"type":"a.b","payload":"x"}`:              "payload",
		`{"type":"a.b"}`:                            "payload",
		`{"type":"a b","payload":{}}`:               "type",
		`{"type":"a.b","payload":{},"event_id":""}`: "event_id",
		`{"type":"a.b","payload":{},"extra":1}`:     "extra",
		`{"type":7,"payload":{}}`:                   "type",
	} {
		var e apiError
		require.Equal(t, http.StatusBadRequest, api.do("POST", "/v1/events", body, &e), body)
		require.Equal(t, field, e.Error.Field, body)
	}
}

// Every /v1 route answers 401 without a key; /healthz needs none.
func TestAuthRequired(t *testing.T) {
	for _, route := range []string{"GET /v1/endpoints", "POST /v1/endpoints", "GET /v1/endpoints/x", "PATCH /v1/endpoints/x",
		"DELETE /v1/endpoints/x", "POST /v1/endpoints/x/secret/rotate", "POST /v1/events", "POST /v1/events/batch",
		"GET /v1/deliveries/x", "GET /v1/nope"} {
		var method, path string
		_, _ = fmt.Sscan(route, &method, &path)
		req, _ := http.NewRequest(method, shared.APIURL+path, nil)
		req.Header.Set("Authorization", "Bearer wrong")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, http.StatusUnauthorized, resp.StatusCode, route)
	}
	resp, err := http.Get(shared.APIURL + "/healthz")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
}
