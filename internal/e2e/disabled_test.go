package e2e

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// waitHeld waits until the delivery id waits on its disabled endpoint.
func waitHeld(t *testing.T, api *apiClient, id string) deliveryState {
	t.Helper()
	var d deliveryState
	require.Eventually(t, func() bool {
		d = deliveryState{}
		return api.do("GET", "/v1/deliveries/"+id, nil, &d) == http.StatusOK && d.WaitReason == "endpoint disabled"
	}, 10*time.Second, 50*time.Millisecond, "delivery %s: %q, wait reason %q", id, d.Status, d.WaitReason)
	return d
}

// TestDisabledEndpointHoldsNewEvents: disabling pauses an endpoint. An
// event posted while it is disabled is recorded with a delivery to it that
// waits ("endpoint disabled") without attempting; a re-post is a duplicate
// of that fan-out; enabling the endpoint delivers it, once.
func TestDisabledEndpointHoldsNewEvents(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	rc := newReceiver(t, nil)
	ep := api.createEndpoint(map[string]any{"url": rc.URL, "event_types": []string{"paused2.*"}, "enabled": false})

	first := api.send(`{"event_id":"evt_held_new","type":"paused2.created","payload":{"n":1}}`)
	require.Len(t, first.Deliveries, 1, "the disabled endpoint is in the fan-out")
	require.Equal(t, ep.ID, first.Deliveries[0].EndpointID)
	id := first.Deliveries[0].ID
	held := waitHeld(t, api, id)
	require.EqualValues(t, "pending", held.Status)
	require.Zero(t, held.Attempts, "a held delivery spends no attempt")

	again := api.send(`{"event_id":"evt_held_new","type":"paused2.created","payload":{"n":1}}`)
	require.True(t, again.Duplicate)
	require.Equal(t, first.Deliveries, again.Deliveries)

	require.Equal(t, http.StatusOK, api.do("PATCH", "/v1/endpoints/"+ep.ID, map[string]any{"enabled": true}, nil))
	require.EqualValues(t, "delivered", api.waitDelivery(id, 15*time.Second).Status)
	hits := rc.Hits()
	require.Len(t, hits, 1)
	require.Equal(t, id, verify(t, hits[0], ep.Secret))
}
