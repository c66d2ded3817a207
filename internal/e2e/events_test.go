package e2e

import (
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/apiclient/wire"
	"github.com/hookd/hookd/internal/delivery"
)

// requireNoDelivery checks Temporal holds no delivery of eventID to
// endpointID. Ingest answers only after Temporal accepted every start it
// made, so one missing now was never started.
func (c *apiClient) requireNoDelivery(eventID, endpointID string) {
	c.t.Helper()
	require.Equal(c.t, http.StatusNotFound, c.do("GET", "/v1/deliveries/"+delivery.ID(eventID, endpointID), nil, nil),
		"no delivery of %s to %s", eventID, endpointID)
}

// An endpoint subscribes between a post and a conflicting re-post. The
// conflict is refused with no side effect; the original re-posted is a
// duplicate with the original delivery only.
func TestSequentialConflictAfterNewEndpoint(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	rc1, rc2 := newReceiver(t, nil), newReceiver(t, nil)
	fan1 := api.createEndpoint(map[string]any{"url": rc1.URL, "event_types": []string{"fanseq.*"}})
	a := `{"event_id":"evt_fanseq","type":"fanseq.x","payload":{"v":"A"}}`
	first := api.send(a)
	require.Len(t, first.Deliveries, 1)
	api.waitDelivery(first.Deliveries[0].ID, 10*time.Second)

	fan2 := api.createEndpoint(map[string]any{"url": rc2.URL, "event_types": []string{"fanseq.*"}})
	var e apiError
	require.Equal(t, http.StatusConflict, api.do("POST", "/v1/events", `{"event_id":"evt_fanseq","type":"fanseq.x","payload":{"v":"B"}}`, &e))
	require.Equal(t, "event_id", e.Error.Field)
	api.requireNoDelivery("evt_fanseq", fan2.ID)

	again := api.send(a)
	require.True(t, again.Duplicate)
	require.Equal(t, first.Deliveries, again.Deliveries)
	api.requireNoDelivery("evt_fanseq", fan2.ID)
	require.Empty(t, rc2.Hits())
	hits := rc1.Hits()
	require.Len(t, hits, 1)
	require.Equal(t, `{"v":"A"}`, string(hits[0].Body))
	require.Equal(t, fan1.ID, first.Deliveries[0].EndpointID)
}

// Six posts of payload A and six of B for one event ID, at once, to three
// endpoints. Exactly one payload wins: its posts are accepted, the others
// refused, and every receiver gets the winner's bytes once.
func TestConcurrentConflictingPostsOnePayloadWins(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	var (
		receivers []*receiver
		endpoints []string
	)
	for range 3 {
		rc := newReceiver(t, nil)
		receivers = append(receivers, rc)
		endpoints = append(endpoints, api.createEndpoint(map[string]any{"url": rc.URL, "event_types": []string{"split.*"}}).ID)
	}
	bodies := map[string]string{
		"A": `{"event_id":"evt_split","type":"split.x","payload":{"v":"A"}}`,
		"B": `{"event_id":"evt_split","type":"split.x","payload":{"v":"B"}}`,
	}
	type answer struct {
		payload string
		status  int
		res     accepted
	}
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		answers []answer
		start   = make(chan struct{})
	)
	for i := range 12 {
		payload := map[bool]string{true: "A", false: "B"}[i%2 == 0]
		wg.Go(func() {
			<-start
			var res accepted
			status := api.do("POST", "/v1/events", bodies[payload], &res)
			mu.Lock()
			defer mu.Unlock()
			answers = append(answers, answer{payload, status, res})
		})
	}
	close(start)
	wg.Wait()

	winner := ""
	fresh := 0
	for _, a := range answers {
		if a.status != http.StatusAccepted {
			continue
		}
		require.True(t, winner == "" || winner == a.payload, "only one payload is accepted")
		winner = a.payload
		require.Len(t, a.res.Deliveries, 3)
		if !a.res.Duplicate {
			fresh++
		}
	}
	require.NotEmpty(t, winner)
	require.Equal(t, 1, fresh, "one post recorded the event; the rest are duplicates")
	for _, a := range answers {
		if a.payload == winner {
			require.Equal(t, http.StatusAccepted, a.status, "every post of the winning payload is accepted")
		} else {
			require.Equal(t, http.StatusConflict, a.status, "every post of the other payload is refused")
		}
	}
	for i, rc := range receivers {
		d := api.waitDelivery(delivery.ID("evt_split", endpoints[i]), 10*time.Second)
		require.EqualValues(t, "delivered", d.Status)
		hits := rc.Hits()
		require.Len(t, hits, 1, "receiver %d: the delivery is complete, sent once", i)
		require.Equal(t, `{"v":"`+winner+`"}`, string(hits[0].Body), "receiver %d got the winning bytes", i)
	}
}

// Re-posting an accepted event after a new endpoint subscribed is a
// duplicate with the original deliveries; nothing reaches the newcomer.
func TestRepostAfterNewEndpointIsDuplicate(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	rc1, rc2 := newReceiver(t, nil), newReceiver(t, nil)
	api.createEndpoint(map[string]any{"url": rc1.URL, "event_types": []string{"late.*"}})
	body := `{"event_id":"evt_late","type":"late.x","payload":{"n":1}}`
	first := api.send(body)
	require.False(t, first.Duplicate)
	api.waitDelivery(first.Deliveries[0].ID, 10*time.Second)

	late := api.createEndpoint(map[string]any{"url": rc2.URL, "event_types": []string{"late.*"}})
	again := api.send(body)
	require.True(t, again.Duplicate, "the README's promise: a re-post starts nothing new")
	require.Equal(t, first.Deliveries, again.Deliveries)
	api.requireNoDelivery("evt_late", late.ID)
	require.Empty(t, rc2.Hits())
	require.Len(t, rc1.Hits(), 1)
}

// A different payload under an accepted event ID is refused even while the
// only subscriber is disabled (nothing would be started either way).
func TestRepostWhileOnlySubscriberDisabled(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	rc := newReceiver(t, nil)
	ep := api.createEndpoint(map[string]any{"url": rc.URL, "event_types": []string{"paused.*"}})
	first := api.send(`{"event_id":"evt_paused","type":"paused.x","payload":{"v":"A"}}`)
	api.waitDelivery(first.Deliveries[0].ID, 10*time.Second)
	require.Equal(t, http.StatusOK, api.do("PATCH", "/v1/endpoints/"+ep.ID, map[string]any{"enabled": false}, nil))

	var e apiError
	require.Equal(t, http.StatusConflict, api.do("POST", "/v1/events", `{"event_id":"evt_paused","type":"paused.x","payload":{"v":"B"}}`, &e))
	require.Equal(t, wire.ErrorDetailCodeConflict, e.Error.Code)
	again := api.send(`{"event_id":"evt_paused","type":"paused.x","payload":{"v":"A"}}`)
	require.True(t, again.Duplicate)
	require.Equal(t, first.Deliveries, again.Deliveries)
	require.Len(t, rc.Hits(), 1)
}

// GET /v1/events/{id} shows the record with its deliveries' status; the
// list is newest first, filtered and paginated; bad input is a 400 naming
// the field.
func TestEventsAPI(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	rc1, rc2 := newReceiver(t, nil), newReceiver(t, nil)
	ep1 := api.createEndpoint(map[string]any{"url": rc1.URL, "event_types": []string{"evapi.*"}})
	ep2 := api.createEndpoint(map[string]any{"url": rc2.URL, "event_types": []string{"evapi.b"}})
	before := time.Now().UTC().Add(-time.Second)
	var ids []string
	for i, typ := range []string{"evapi.a", "evapi.b", "evapi.a", "evapi.b"} {
		res := api.send(fmt.Sprintf(`{"event_id":"evt_api_%d","type":%q,"payload":{"i":%d,"s":"<&>"}}`, i, typ, i))
		ids = append(ids, res.EventID)
		for _, d := range res.Deliveries {
			api.waitDelivery(d.ID, 10*time.Second)
		}
	}

	var rec eventRecord
	require.Equal(t, http.StatusOK, api.do("GET", "/v1/events/evt_api_1", nil, &rec))
	require.Equal(t, "evt_api_1", rec.EventID)
	require.Equal(t, "evapi.b", rec.Type)
	require.JSONEq(t, `{"i":1,"s":"<&>"}`, string(rec.Payload))
	require.WithinDuration(t, time.Now(), rec.AcceptedAt, time.Minute)
	require.Len(t, rec.Deliveries, 2)
	for i, ep := range []string{ep1.ID, ep2.ID} {
		require.Equal(t, delivery.ID("evt_api_1", ep), rec.Deliveries[i].ID)
		require.Equal(t, ep, rec.Deliveries[i].EndpointID)
		require.EqualValues(t, "delivered", rec.Deliveries[i].Status)
	}
	var e apiError
	require.Equal(t, http.StatusNotFound, api.do("GET", "/v1/events/evt_api_missing", nil, &e))
	require.Equal(t, wire.ErrorDetailCodeNotFound, e.Error.Code)

	type page = wire.EventPage
	list := func(q url.Values) page {
		t.Helper()
		var p page
		require.Equal(t, http.StatusOK, api.do("GET", "/v1/events?"+q.Encode(), nil, &p))
		return p
	}
	listed := func(p page) []string {
		out := []string{}
		for _, ev := range p.Data {
			out = append(out, ev.EventID)
		}
		return out
	}
	since := before.Format(time.RFC3339)
	require.Equal(t, []string{ids[3], ids[2], ids[1], ids[0]}, listed(list(url.Values{"type": {"evapi.*"}, "since": {since}})), "newest first")
	require.Equal(t, []string{ids[2], ids[0]}, listed(list(url.Values{"type": {"evapi.a"}})))
	require.Equal(t, []string{ids[3], ids[1]}, listed(list(url.Values{"endpoint_id": {ep2.ID}})))
	require.Empty(t, listed(list(url.Values{"type": {"evapi.*"}, "until": {before.Format(time.RFC3339)}})))

	var got []string
	q := url.Values{"type": {"evapi.*"}, "limit": {"3"}}
	p := list(q)
	got = append(got, listed(p)...)
	require.NotEmpty(t, p.NextCursor)
	require.Nil(t, p.Data[0].Payload, "lists leave the payload out")
	require.Len(t, p.Data[0].Deliveries, 2)
	q.Set("cursor", p.NextCursor)
	p = list(q)
	got = append(got, listed(p)...)
	require.Empty(t, p.NextCursor)
	require.Equal(t, []string{ids[3], ids[2], ids[1], ids[0]}, got, "pages follow each other")

	for query, field := range map[string]string{
		"cursor=not-a-cursor":        "cursor",
		"since=yesterday":            "since",
		"until=2026-13-01T00:00:00Z": "until",
		"since=2026-12-02T00:00:00Z&until=2026-12-01T00:00:00Z": "since",
		"type=a%20b":        "type",
		"type=.*":           "type",
		"endpoint_id=ep'--": "endpoint_id",
		"limit=0":           "limit",
	} {
		var e apiError
		require.Equal(t, http.StatusBadRequest, api.do("GET", "/v1/events?"+query, nil, &e), query)
		require.Equal(t, field, e.Error.Field, query)
	}
}
