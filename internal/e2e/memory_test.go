package e2e

import (
	"net/http"
	"runtime/pprof"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/apiclient/wire"
)

// e2eWorkflowCache is the shared instance's workflow cache: small, so
// evictions and replays happen throughout the suite.
const e2eWorkflowCache = 32

// deliveryGoroutines counts the goroutines running a Delivery workflow:
// one per delivery the worker keeps in memory.
func deliveryGoroutines(t *testing.T) int {
	t.Helper()
	var b strings.Builder
	require.NoError(t, pprof.Lookup("goroutine").WriteTo(&b, 2))
	n := 0
	for _, g := range strings.Split(b.String(), "\n\n") {
		if strings.Contains(g, "hookd/hookd/workflows.Delivery(") {
			n++
		}
	}
	return n
}

// Parked deliveries (here behind an open circuit) do not each keep their
// state in the worker: the process holds at most the workflow cache's
// worth, and the evicted ones replay and deliver once the receiver is
// back. Regression: the cache was sized after the embedded server's own
// workers had created it at the SDK's default of 10,000.
func TestParkedDeliveriesStayWithinTheWorkflowCache(t *testing.T) {
	const n = 200
	api := newAPI(t)
	sw := newSwitchable(http.StatusServiceUnavailable)
	rc := sw.server(t)
	api.createEndpoint(map[string]any{"url": rc.URL, "event_types": []string{"park.test"}, "retry_schedule": []string{"3s", "3s", "3s"}})
	var batch []map[string]any
	for i := range n {
		batch = append(batch, map[string]any{"type": "park.test", "payload": map[string]int{"i": i}})
	}
	var res wire.EventBatchResults
	var ids []string
	for part := range slices.Chunk(batch, 20) { // a sender's pace, not one burst
		require.Equal(t, http.StatusOK, api.do("POST", "/v1/events/batch", map[string]any{"events": part}, &res))
		for _, r := range res.Results {
			require.Equal(t, http.StatusAccepted, r.Status)
			ids = append(ids, wire.Deref(r.Deliveries)[0].ID)
		}
	}

	// Every delivery has run its first attempt or been deferred. The cache
	// bounds what stays in memory; deliveries mid-task and evicted ones not
	// yet gone add to it for a moment, about one batch's worth. Without the
	// bound all n stay.
	held := 0
	for range 5 {
		held = max(held, deliveryGoroutines(t))
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("%d parked deliveries, at most %d held in memory (cache %d)", n, held, e2eWorkflowCache)
	require.Less(t, held, n/2, "deliveries held in memory while %d are parked", n)
	require.Empty(t, sw.delivered(), "the receiver is down")

	sw.failStatus.Store(0)
	for _, id := range ids {
		require.EqualValues(t, "delivered", api.waitDelivery(id, time.Minute).Status, id)
	}
	got := sw.delivered()
	require.Len(t, got, n)
	for id, times := range got {
		require.Equal(t, 1, times, id)
	}
}
