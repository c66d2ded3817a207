package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/apiclient/wire"
)

// eventIDs returns the hookd-event-id of every hit.
func eventIDs(hits []hit) []string {
	var ids []string
	for _, h := range hits {
		ids = append(ids, h.Header.Get("hookd-event-id"))
	}
	return ids
}

// An event fans out to every endpoint whose filter matches (exact, prefix
// wildcard, empty = all), each with its own delivery; a non-matching
// endpoint gets none, and a disabled one gets a delivery that is held,
// not sent. Not parallel: the catch-all
// endpoint would receive every other test's events while it exists. It
// may still receive hookd's own events (hookd.endpoint.*) about the
// endpoints of tests that ran before it, which it subscribes to too.
func TestFanOutByFilter(t *testing.T) {
	api := newAPI(t)
	exact, wildcard, all, disabled, other := newReceiver(t, nil), newReceiver(t, nil), newReceiver(t, nil), newReceiver(t, nil), newReceiver(t, nil)
	epExact := api.createEndpoint(map[string]any{"url": exact.URL, "event_types": []string{"fan.created"}})
	epWild := api.createEndpoint(map[string]any{"url": wildcard.URL, "event_types": []string{"fan.*"}})
	epAll := api.createEndpoint(map[string]any{"url": all.URL})
	t.Cleanup(func() { api.do("DELETE", "/v1/endpoints/"+epAll.ID, nil, nil) })
	epOff := api.createEndpoint(map[string]any{"url": disabled.URL, "event_types": []string{"fan.created"}, "enabled": false})
	api.createEndpoint(map[string]any{"url": other.URL, "event_types": []string{"fan.deleted", "fanfare.*"}})

	a := api.send(`{"event_id":"fan-1","type":"fan.created","payload":{"n":1}}`)
	require.Len(t, a.Deliveries, 4)
	byEndpoint := map[string]string{}
	for _, d := range a.Deliveries {
		byEndpoint[d.EndpointID] = d.ID
		if d.EndpointID != epOff.ID {
			require.EqualValues(t, "delivered", api.waitDelivery(d.ID, 10*time.Second).Status)
		}
	}
	require.Len(t, byEndpoint, 4)
	held := waitHeld(t, api, byEndpoint[epOff.ID])
	require.EqualValues(t, "pending", held.Status)
	ids := map[string]bool{}
	for rc, ep := range map[*receiver]endpoint{exact: epExact, wildcard: epWild, all: epAll} {
		hits := slices.DeleteFunc(rc.Hits(), func(h hit) bool { return strings.HasPrefix(h.Header.Get("hookd-event-type"), "hookd.") })
		require.Equal(t, []string{"fan-1"}, eventIDs(hits), "endpoint %v", ep.EventTypes)
		id := verify(t, hits[0], ep.Secret)
		require.Equal(t, byEndpoint[ep.ID], id)
		ids[id] = true
	}
	require.Len(t, ids, 3, "each endpoint has its own delivery ID")
	require.Empty(t, disabled.Hits())
	require.Empty(t, other.Hits())
}

// An event no endpoint subscribes to is accepted with no deliveries.
func TestEventWithoutSubscribers(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	var a accepted
	require.Equal(t, http.StatusAccepted, api.do("POST", "/v1/events", `{"type":"nobody.listens","payload":{}}`, &a))
	require.NotNil(t, a.Deliveries)
	require.Empty(t, a.Deliveries)
	require.False(t, a.Duplicate)
}

// PATCH changes every field and leaves the rest alone; GET shows it.
func TestEndpointPatchEveryField(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	ep := api.createEndpoint(map[string]any{"url": "http://127.0.0.1:1/a", "description": "before", "event_types": []string{"patch.a"}})
	// fields reads an endpoint answer without its ID and timestamps, as a
	// raw JSON object, not wire.Endpoint: every field the server sends is
	// compared, and a secret (or any field the wire type lacks) shows.
	fields := func(method string, body any) map[string]any {
		var got map[string]any
		require.Equal(t, http.StatusOK, api.do(method, "/v1/endpoints/"+ep.ID, body, &got))
		require.Equal(t, ep.ID, got["id"])
		delete(got, "id")
		delete(got, "created_at")
		delete(got, "updated_at")
		return got
	}
	want := map[string]any{
		"url": "https://example.com/hooks", "description": "after", "event_types": []any{"patch.*", "other.exact"},
		"enabled": false, "retry_schedule": []any{"1s", "1m30s", "24h0m0s"}, "timeout": "2s", "metadata": map[string]any{"team": "billing"},
		"propagate_trace": false, "disabled_reason": "manual", "rate_limit": nil,
		"signing": map[string]any{"scheme": "standard-webhooks"},
	}
	require.Equal(t, want, fields("PATCH", map[string]any{
		"url": "https://example.com/hooks", "description": "after", "event_types": []string{"patch.*", "other.exact"},
		"enabled": false, "retry_schedule": []string{"1s", "90s", "24h"}, "timeout": "2s", "metadata": map[string]string{"team": "billing"},
	}), "every field changed, and no secret outside create and rotate")
	require.Equal(t, want, fields("GET", nil))

	// A partial patch touches only its field. (Not an empty filter: even
	// disabled, the endpoint would then hold a delivery of every other
	// test's events.)
	want["event_types"] = []any{"patch.only"}
	require.Equal(t, want, fields("PATCH", map[string]any{"event_types": []string{"patch.only"}}))
}

// Each invalid field is refused with a 400 naming it, and changes nothing.
func TestEndpointPatchInvalid(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	ep := api.createEndpoint(map[string]any{"url": "http://127.0.0.1:1/keep", "event_types": []string{"keep.me"}})
	// Raw JSON objects: a refused patch changes no field the server sends.
	var before map[string]any
	require.Equal(t, http.StatusOK, api.do("GET", "/v1/endpoints/"+ep.ID, nil, &before))
	eleven := strings.Split(strings.Repeat("1s,", 11), ",")[:11]
	manyKeys := map[string]string{}
	for i := range 51 {
		manyKeys[fmt.Sprint("k", i)] = "v"
	}
	for _, c := range []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"url": "ftp://example.com/x"}, "url"},
		{map[string]any{"url": "/relative"}, "url"},
		{map[string]any{"url": "http://user:pw@example.com/"}, "url"},
		{map[string]any{"url": 7}, "url"},
		{map[string]any{"description": strings.Repeat("d", 1025)}, "description"},
		{map[string]any{"event_types": []string{"bad type"}}, "event_types"},
		{map[string]any{"event_types": "order.*"}, "event_types"},
		{map[string]any{"retry_schedule": []string{}}, "retry_schedule"},
		{map[string]any{"retry_schedule": eleven}, "retry_schedule"},
		{map[string]any{"retry_schedule": []string{"500ms"}}, "retry_schedule"},
		{map[string]any{"retry_schedule": []string{"25h"}}, "retry_schedule"},
		{map[string]any{"retry_schedule": []string{"soon"}}, "retry_schedule"},
		{map[string]any{"timeout": "500ms"}, "timeout"},
		{map[string]any{"timeout": "61s"}, "timeout"},
		{map[string]any{"timeout": "fast"}, "timeout"},
		{map[string]any{"timeout": 15}, "timeout"},
		{map[string]any{"metadata": manyKeys}, "metadata"},
		{map[string]any{"metadata": []string{"a"}}, "metadata"},
		{map[string]any{"enabled": "yes"}, "enabled"},
		{map[string]any{"secret": "whsec_x"}, "secret"},
	} {
		var e apiError
		require.Equal(t, http.StatusBadRequest, api.do("PATCH", "/v1/endpoints/"+ep.ID, c.body, &e), "%v", c.body)
		require.Equal(t, c.field, e.Error.Field, "%v: %s", c.body, e.Error.Message)
		require.EqualValues(t, "invalid", e.Error.Code)
	}
	var after map[string]any
	require.Equal(t, http.StatusOK, api.do("GET", "/v1/endpoints/"+ep.ID, nil, &after))
	require.Equal(t, before, after)
}

// A deleted endpoint is gone: GET, PATCH, DELETE and /test answer 404.
func TestEndpointDelete(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	ep := api.createEndpoint(map[string]any{"url": "http://127.0.0.1:1/gone", "event_types": []string{"delete.never"}})
	require.Equal(t, http.StatusNoContent, api.do("DELETE", "/v1/endpoints/"+ep.ID, nil, nil))
	for _, method := range []string{"GET", "PATCH", "DELETE"} {
		var e apiError
		require.Equal(t, http.StatusNotFound, api.do(method, "/v1/endpoints/"+ep.ID, nil, &e), method)
		require.EqualValues(t, "not_found", e.Error.Code)
	}
	require.Equal(t, http.StatusNotFound, api.do("POST", "/v1/endpoints/"+ep.ID+"/test", nil, nil))
}

// Paging with a small limit visits every endpoint exactly once, even while
// other tests create endpoints; bad cursors and limits are refused.
func TestEndpointListPagination(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	mine := map[string]bool{}
	for i := range 5 {
		mine[api.createEndpoint(map[string]any{"url": fmt.Sprintf("http://127.0.0.1:1/page/%d", i), "event_types": []string{"page.never"}}).ID] = false
	}
	seen := map[string]bool{}
	cursor, pages := "", 0
	for {
		var page wire.EndpointPage
		require.Equal(t, http.StatusOK, api.do("GET", "/v1/endpoints?limit=2&cursor="+url.QueryEscape(cursor), nil, &page))
		require.LessOrEqual(t, len(page.Data), 2)
		for _, ep := range page.Data {
			require.False(t, seen[ep.ID], "endpoint %s listed twice", ep.ID)
			require.Empty(t, ep.Secret)
			seen[ep.ID] = true
		}
		pages++
		if page.NextCursor == "" {
			break
		}
		cursor = page.NextCursor
	}
	for id := range mine {
		require.True(t, seen[id], "endpoint %s not listed", id)
	}
	require.GreaterOrEqual(t, pages, 3)

	for query, field := range map[string]string{
		"cursor=bogus!": "cursor", "cursor=bm9uc2Vuc2U": "cursor", // base64url of "nonsense"
		"limit=0": "limit", "limit=501": "limit", "limit=two": "limit",
	} {
		var e apiError
		require.Equal(t, http.StatusBadRequest, api.do("GET", "/v1/endpoints?"+query, nil, &e), query)
		require.Equal(t, field, e.Error.Field, query)
	}
}

// A payload over 256 KiB is refused with 413 and nothing is delivered.
func TestPayloadTooLarge(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	rc := newReceiver(t, nil)
	api.createEndpoint(map[string]any{"url": rc.URL, "event_types": []string{"big.payload"}})
	fits := fmt.Sprintf(`{"type":"big.payload","payload":{"x":"%s"}}`, strings.Repeat("a", 256<<10-8))
	a := api.send(fits)
	require.EqualValues(t, "delivered", api.waitDelivery(a.Deliveries[0].ID, 10*time.Second).Status)

	for _, size := range []int{256 << 10, 1 << 20} {
		var e apiError
		body := fmt.Sprintf(`{"type":"big.payload","payload":{"x":"%s"}}`, strings.Repeat("a", size))
		require.Equal(t, http.StatusRequestEntityTooLarge, api.do("POST", "/v1/events", body, &e), "size %d", size)
		require.EqualValues(t, "too_large", e.Error.Code)
	}
	sentinel := api.barrier("big.payload")
	require.Equal(t, []string{a.EventID, sentinel}, eventIDs(rc.Hits()), "only the payload that fits is delivered")
}

// postWithKey posts an event with an Idempotency-Key header.
func postWithKey(t *testing.T, key, body string, out any) int {
	t.Helper()
	req, err := http.NewRequest("POST", shared.APIURL+"/v1/events", strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+shared.APIKey)
	req.Header.Set("Idempotency-Key", key)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.NoError(t, json.NewDecoder(resp.Body).Decode(out))
	return resp.StatusCode
}

// The Idempotency-Key header deduplicates like event_id: the same key and
// body answer the same deliveries as a duplicate, another body is a 409, and
// the receiver sees one delivery.
func TestIdempotencyKeyHeader(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	rc := newReceiver(t, nil)
	api.createEndpoint(map[string]any{"url": rc.URL, "event_types": []string{"idem.key"}})
	key := fmt.Sprintf("idem-%d", time.Now().UnixNano())
	body := `{"type":"idem.key","payload":{"n":1}}`

	var first, again accepted
	require.Equal(t, http.StatusAccepted, postWithKey(t, key, body, &first))
	require.Equal(t, key, first.EventID)
	require.False(t, first.Duplicate)
	api.waitDelivery(first.Deliveries[0].ID, 10*time.Second)
	require.Equal(t, http.StatusAccepted, postWithKey(t, key, body, &again))
	require.True(t, again.Duplicate)
	require.Equal(t, first.Deliveries, again.Deliveries)

	// The body's event_id and the header name the same event.
	again = accepted{}
	require.Equal(t, http.StatusAccepted, api.do("POST", "/v1/events", fmt.Sprintf(`{"event_id":%q,"type":"idem.key","payload":{"n":1}}`, key), &again))
	require.True(t, again.Duplicate)

	var e apiError
	require.Equal(t, http.StatusConflict, postWithKey(t, key, `{"type":"idem.key","payload":{"n":2}}`, &e))
	require.Equal(t, http.StatusBadRequest, postWithKey(t, key, `{"event_id":"other","type":"idem.key","payload":{}}`, &e))
	require.Equal(t, "event_id", e.Error.Field)
	require.Equal(t, http.StatusBadRequest, postWithKey(t, "has space", body, &e))
	require.Equal(t, "Idempotency-Key", e.Error.Field, "a bad header is named, not the body field it stands in for")
	sentinel := api.barrier("idem.key")
	require.Equal(t, []string{key, sentinel}, eventIDs(rc.Hits()))
}

// A batch answers each event on its own: accepted, invalid (naming the
// field), duplicate and conflicting events side by side; only the valid
// new ones are delivered.
func TestBatchMixedResults(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	rc := newReceiver(t, nil)
	api.createEndpoint(map[string]any{"url": rc.URL, "event_types": []string{"batch.mix"}})
	prefix := fmt.Sprintf("batch-%d-", time.Now().UnixNano())
	api.send(fmt.Sprintf(`{"event_id":"%sold","type":"batch.mix","payload":{"v":1}}`, prefix))

	events := []string{
		fmt.Sprintf(`{"event_id":"%sa","type":"batch.mix","payload":{"i":1}}`, prefix),
		`{"type":"batch mix","payload":{}}`,
		`{"type":"batch.mix","payload":[1]}`,
		fmt.Sprintf(`{"event_id":"%sold","type":"batch.mix","payload":{"v":1}}`, prefix),
		fmt.Sprintf(`{"event_id":"%sold","type":"batch.mix","payload":{"v":2}}`, prefix),
		`{"type":"batch.mix","payload":{},"bogus":true}`,
		fmt.Sprintf(`{"event_id":"%sb","type":"batch.other","payload":{}}`, prefix),
	}
	var res wire.EventBatchResults
	require.Equal(t, http.StatusOK, api.do("POST", "/v1/events/batch", `{"events":[`+strings.Join(events, ",")+`]}`, &res))
	require.Len(t, res.Results, len(events))
	type summary struct {
		status     int
		field      string
		deliveries int
		dup        bool
	}
	var got []summary
	for _, r := range res.Results {
		got = append(got, summary{status: r.Status, field: r.Error.Field, deliveries: len(wire.Deref(r.Deliveries)), dup: wire.Deref(r.Duplicate)})
	}
	require.Equal(t, []summary{
		{status: 202, deliveries: 1},
		{status: 400, field: "type"},
		{status: 400, field: "payload"},
		{status: 202, deliveries: 1, dup: true},
		{status: 409, field: "event_id"},
		{status: 400, field: "bogus"},
		{status: 202},
	}, got)
	api.waitDelivery(wire.Deref(res.Results[0].Deliveries)[0].ID, 10*time.Second)
	api.waitDelivery(wire.Deref(res.Results[3].Deliveries)[0].ID, 10*time.Second)
	sentinel := api.barrier("batch.mix")
	require.ElementsMatch(t, []string{prefix + "old", prefix + "a", sentinel}, eventIDs(rc.Hits()))
}

// testResult is the answer of POST /v1/endpoints/{id}/test.
type testResult = wire.TestResult

// The test route sends a signed hookd.test event to one endpoint, even one
// whose filter does not match, and answers the first attempt's outcome; a
// disabled endpoint is not tested.
func TestEndpointTestRoute(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	ok := newReceiver(t, nil)
	failing := newReceiver(t, func(_ int, w http.ResponseWriter) { w.WriteHeader(http.StatusInternalServerError) })
	epOK := api.createEndpoint(map[string]any{"url": ok.URL, "event_types": []string{"not.hookd.test"}})
	epFail := api.createEndpoint(map[string]any{"url": failing.URL, "retry_schedule": []string{"1s"}, "event_types": []string{"never.sent"}})

	var first, second testResult
	require.Equal(t, http.StatusOK, api.do("POST", "/v1/endpoints/"+epOK.ID+"/test", nil, &first))
	require.EqualValues(t, "success", first.Outcome)
	require.Equal(t, 200, first.Status)
	require.Empty(t, first.ErrorClass)
	require.Positive(t, first.DurationMS)
	hits := ok.Hits()
	require.Len(t, hits, 1)
	require.Equal(t, first.DeliveryID, verify(t, hits[0], epOK.Secret))
	require.Equal(t, "hookd.test", hits[0].Header.Get("hookd-event-type"))
	require.Equal(t, first.EventID, hits[0].Header.Get("hookd-event-id"))
	require.Contains(t, string(hits[0].Body), epOK.ID)
	require.EqualValues(t, "delivered", api.waitDelivery(first.DeliveryID, 5*time.Second).Status)

	require.Equal(t, http.StatusOK, api.do("POST", "/v1/endpoints/"+epOK.ID+"/test", "", &second))
	require.NotEqual(t, first.DeliveryID, second.DeliveryID, "every test is a new delivery")

	var failed testResult
	require.Equal(t, http.StatusOK, api.do("POST", "/v1/endpoints/"+epFail.ID+"/test", `{}`, &failed))
	require.EqualValues(t, "retryable", failed.Outcome)
	require.Equal(t, 500, failed.Status)
	require.Equal(t, "http_5xx", failed.ErrorClass)
	require.Len(t, failing.Hits(), 1)

	var e apiError
	require.Equal(t, http.StatusOK, api.do("PATCH", "/v1/endpoints/"+epOK.ID, map[string]any{"enabled": false}, nil))
	require.Equal(t, http.StatusConflict, api.do("POST", "/v1/endpoints/"+epOK.ID+"/test", nil, &e))
	require.Equal(t, "enabled", e.Error.Field)
	require.Equal(t, http.StatusNotFound, api.do("POST", "/v1/endpoints/ep_nosuchendpoint/test", nil, &e))
	require.EqualValues(t, "not_found", e.Error.Code)
	require.Equal(t, http.StatusBadRequest, api.do("POST", "/v1/endpoints/"+epOK.ID+"/test", `{"payload":{}}`, &e))
	require.Equal(t, "payload", e.Error.Field)
	require.Len(t, ok.Hits(), 2)
}
