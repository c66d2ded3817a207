package e2e

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/hookd/hookd/apiclient/wire"
	"github.com/hookd/hookd/internal/app"
	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/testkit"
	"github.com/hookd/hookd/internal/visibility"
)

// wakeDev starts a hookd of its own on dir that paces any recover of
// more than 2 waiting deliveries.
func wakeDev(t *testing.T, dir, temporalAddr string) *app.Dev {
	t.Helper()
	d, err := app.StartDevTuned(context.Background(), app.DevConfig{
		DataDir: dir, HTTPAddr: "127.0.0.1:0", TemporalAddr: temporalAddr, Version: "test",
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})), TemporalLogLevel: slog.LevelError,
		WorkflowCacheSize: e2eWorkflowCache,
	}, app.Tuning{RecoverImmediate: 2})
	require.NoError(t, err)
	return d
}

// perID is a receiver, down until back, that counts every request per
// delivery (webhook-id).
type perID struct {
	mu   sync.Mutex
	up   bool
	seen map[string]int
}

func (c *perID) handler(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seen[r.Header.Get("webhook-id")]++
	if !c.up {
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	w.WriteHeader(http.StatusOK)
}

func (c *perID) back() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.up = true
}

func (c *perID) requests(id string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.seen[id]
}

// heldBacklog creates an endpoint whose receiver is down and n
// deliveries to it, and returns their IDs once all wait on its open
// circuit (all but a round's probers for an hour).
func heldBacklog(t *testing.T, d *app.Dev, api *apiClient, eventType string, n int) (*perID, endpoint, []string) {
	t.Helper()
	rc := &perID{seen: map[string]int{}}
	srv := serve(t, http.HandlerFunc(rc.handler))
	ep := api.createEndpoint(map[string]any{"url": srv.URL, "event_types": []string{eventType}, "retry_schedule": []string{"1s", "1s", "1s", "1s", "1s", "1s", "1s", "1s", "1s", "1s"}})
	var ids []string
	for range n {
		ids = append(ids, api.send(fmt.Sprintf(`{"type":%q,"payload":{}}`, eventType)).Deliveries[0].ID)
		time.Sleep(30 * time.Millisecond) // within the API's request rate
	}
	require.Eventually(t, func() bool {
		c, err := d.Client.CountWorkflow(context.Background(), &workflowservice.CountWorkflowExecutionsRequest{Query: visibility.Waiting(ep.ID).String()})
		return err == nil && c.GetCount() == int64(n)
	}, 60*time.Second, 100*time.Millisecond, "every delivery waits on the open circuit")
	return rc, ep, ids
}

// delivered counts endpointID's deliveries that completed.
func delivered(t *testing.T, d *app.Dev, endpointID string) int {
	t.Helper()
	c, err := d.Client.CountWorkflow(context.Background(), &workflowservice.CountWorkflowExecutionsRequest{
		Query: visibility.And(visibility.WorkflowType(delivery.WorkflowDelivery), visibility.Status(visibility.Completed),
			visibility.Is(delivery.AttrEndpointID, endpointID)).String(),
	})
	require.NoError(t, err)
	return int(c.GetCount())
}

// Twenty recovers at once of an endpoint holding 60 deliveries join one
// wake-up (one workflow, its ID the endpoint's), and every request the
// receiver got is in its delivery's timeline: one each. Then a paced
// recover of 300 is interrupted by a stop of the whole process 300 ms in;
// after the restart the wake-up goes on where it was, and all 300 arrive
// within a minute and a half instead of at the end of their hour.
func TestWakeUpJoinsAndSurvivesARestart(t *testing.T) {
	// Not parallel: a hookd of its own, stopped and started again.
	dir, temporalAddr := t.TempDir(), testkit.FreeAddr(t)
	d := wakeDev(t, dir, temporalAddr)
	running := d
	t.Cleanup(func() {
		if running != nil {
			running.Stop(context.Background())
		}
	})
	api := &apiClient{t: t, dev: d}

	rc, ep, ids := heldBacklog(t, d, api, "join.test", 60)
	rc.back()
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			var out wire.Recovered
			assert.Equal(t, http.StatusOK, api.do("POST", "/v1/endpoints/"+ep.ID+"/recover", map[string]string{"reason": "storm"}, &out))
		})
	}
	wg.Wait()
	for _, id := range ids {
		s := api.waitDelivery(id, 30*time.Second)
		require.EqualValues(t, "delivered", s.Status, id)
		assert.Equal(t, s.Attempts, rc.requests(id), "%s: every request the receiver got is in the timeline", id)
	}
	runs, err := d.Client.CountWorkflow(context.Background(), &workflowservice.CountWorkflowExecutionsRequest{
		Query: fmt.Sprintf("WorkflowId = '%s'", delivery.WakeID(ep.ID)),
	})
	require.NoError(t, err)
	assert.LessOrEqual(t, runs.GetCount(), int64(2), "twenty recovers joined one wake-up (one more if the first had ended)")

	rc, ep, ids = heldBacklog(t, d, api, "restart.test", 300)
	rc.back()
	var out wire.Recovered
	require.Equal(t, http.StatusOK, api.do("POST", "/v1/endpoints/"+ep.ID+"/recover", map[string]string{"reason": "restart"}, &out))
	assert.Equal(t, 300, out.Woken)
	assert.True(t, out.Paced)
	time.Sleep(300 * time.Millisecond) // the stop comes mid-wake
	before := delivered(t, d, ep.ID)
	d.Stop(context.Background())
	running = nil
	t.Logf("delivered before the stop: %d of %d", before, len(ids))
	require.Less(t, before, len(ids), "the stop came before the wake-up was done")

	start := time.Now()
	d = wakeDev(t, dir, temporalAddr)
	running = d
	require.Eventually(t, func() bool { return delivered(t, d, ep.ID) == len(ids) }, 90*time.Second, 200*time.Millisecond,
		"the wake-up did not go on after the restart")
	t.Logf("all %d delivered %s after the restart", len(ids), time.Since(start).Round(time.Millisecond))
}
