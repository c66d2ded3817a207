package e2e

import (
	"encoding/json"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// healthEvent is a hookd.endpoint.* event as a subscriber receives it.
type healthEvent struct {
	Type     string
	Body     map[string]json.RawMessage
	Endpoint string // the endpoint it is about
}

// healthEvents reads the circuit events about endpoint among hits, in
// order of arrival, checking each one's signature.
func healthEvents(t *testing.T, hits []hit, secret, endpoint string) []healthEvent {
	var out []healthEvent
	for _, h := range hits {
		verify(t, h, secret)
		var ev healthEvent
		require.NoError(t, json.Unmarshal(h.Body, &ev.Body), "%s", h.Body)
		_ = json.Unmarshal(ev.Body["endpoint_id"], &ev.Endpoint)
		if ev.Endpoint != endpoint || string(ev.Body["reason"]) != `"circuit"` {
			continue // another test's endpoint, or the success-rate check
		}
		ev.Type = h.Header.Get("hookd-event-type")
		out = append(out, ev)
	}
	return out
}

// When an endpoint's circuit opens and closes again, a subscriber to
// hookd.endpoint.* receives one hookd.endpoint.unhealthy and then one
// hookd.endpoint.recovered about it, signed like any delivery, with the one
// health body schema.
func TestEndpointHealthEventsReachSubscribers(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	sub := newReceiver(t, nil)
	subEp := api.createEndpoint(map[string]any{"url": sub.URL, "event_types": []string{"hookd.endpoint.*"}})

	down := &countingDown{ok: map[string]int{}}
	srv := serve(t, http.HandlerFunc(down.handler))
	eventType := "opev." + uniq()
	ep := api.createEndpoint(map[string]any{"url": srv.URL, "event_types": []string{eventType}, "retry_schedule": slices.Repeat([]string{"1s"}, 10)})
	var ids []string
	for range 3 {
		ids = append(ids, api.send(`{"type":"` + eventType + `","payload":{}}`).Deliveries[0].ID)
	}

	var evs []healthEvent
	require.Eventually(t, func() bool {
		evs = healthEvents(t, sub.Hits(), subEp.Secret, ep.ID)
		return len(evs) > 0
	}, 20*time.Second, 50*time.Millisecond, "no hookd.endpoint.unhealthy about the endpoint")
	unhealthy := evs[0]
	require.Equal(t, "hookd.endpoint.unhealthy", unhealthy.Type)
	var c struct {
		State    string `json:"state"`
		Failures int    `json:"consecutive_failures"`
	}
	require.NoError(t, json.Unmarshal(unhealthy.Body["circuit"], &c))
	require.EqualValues(t, "open", c.State)
	require.GreaterOrEqual(t, c.Failures, 5)
	require.ElementsMatch(t, []string{"endpoint_id", "reason", "at", "circuit"}, keys(unhealthy.Body))

	down.mu.Lock()
	down.up = true
	down.mu.Unlock()
	require.Eventually(t, func() bool {
		evs = healthEvents(t, sub.Hits(), subEp.Secret, ep.ID)
		return len(evs) > 1
	}, 30*time.Second, 50*time.Millisecond, "no hookd.endpoint.recovered about the endpoint")
	require.Equal(t, []string{"hookd.endpoint.unhealthy", "hookd.endpoint.recovered"}, []string{evs[0].Type, evs[1].Type})
	require.NoError(t, json.Unmarshal(evs[1].Body["circuit"], &c))
	require.EqualValues(t, "closed", c.State)
	for _, id := range ids {
		require.EqualValues(t, "delivered", api.waitDelivery(id, 30*time.Second).Status, id)
	}
}

func keys(m map[string]json.RawMessage) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
