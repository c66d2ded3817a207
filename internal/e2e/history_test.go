package e2e

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A max-size delivery parked behind a disabled endpoint wakes up every
// half second (the harness's disabled poll) without recording its body
// again: after 150 history events its history holds the sealed body twice (the
// start input, the one retry that found the endpoint disabled) and little
// else (a body recorded at each wake-up would be there about 14 times,
// 3.5 MB). Enabled again, it is delivered.
func TestParkedDeliveryHistoryStaysSmall(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	sw := newSwitchable(http.StatusServiceUnavailable)
	srv := sw.server(t)
	ep := api.createEndpoint(map[string]any{"url": srv.URL, "event_types": []string{"parked.big"}, "retry_schedule": []string{"1s", "1s"}})
	// Random, so the payload codec's compression cannot hide a body
	// recorded again.
	raw := make([]byte, (256<<10-10)*3/4)
	_, _ = rand.Read(raw)
	pad := base64.RawURLEncoding.EncodeToString(raw)
	id := api.send(`{"type":"parked.big","payload":{"pad":"` + pad + `"}}`).Deliveries[0].ID
	var d deliveryState
	require.Eventually(t, func() bool {
		return api.do("GET", "/v1/deliveries/"+id, nil, &d) == http.StatusOK && d.Attempts == 1
	}, 10*time.Second, 20*time.Millisecond)
	require.Equal(t, http.StatusOK, api.do("PATCH", "/v1/endpoints/"+ep.ID, map[string]any{"enabled": false}, nil))

	const events = 150
	var length, size int64
	require.Eventually(t, func() bool {
		desc, err := shared.Client.DescribeWorkflowExecution(context.Background(), id, "")
		require.NoError(t, err)
		length, size = desc.GetWorkflowExecutionInfo().GetHistoryLength(), desc.GetWorkflowExecutionInfo().GetHistorySizeBytes()
		return length >= events
	}, 90*time.Second, 100*time.Millisecond, "history length %d", length)
	// The body travels sealed by its event's key, in base64 (4/3 of it:
	// random bytes do not compress).
	body := int64(len(pad)+10) * 4 / 3
	t.Logf("%d events, %d bytes: %d bytes beyond twice the sealed body", length, size, size-2*body)
	require.Less(t, size, 2*body+100<<10, "history bytes after %d events", length)

	require.Equal(t, http.StatusOK, api.do("GET", "/v1/deliveries/"+id, nil, &d))
	require.EqualValues(t, "pending", d.Status)
	require.Equal(t, 1, d.Attempts, "no attempt while disabled")
	sw.failStatus.Store(0)
	require.Equal(t, http.StatusOK, api.do("PATCH", "/v1/endpoints/"+ep.ID, map[string]any{"enabled": true}, nil))
	d = api.waitDelivery(id, 10*time.Second)
	require.EqualValues(t, "delivered", d.Status)
	require.Equal(t, 2, d.Attempts)
}
