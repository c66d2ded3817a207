package e2e

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/hookd/hookd/apiclient/wire"
	"github.com/hookd/hookd/internal/app"
	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/testkit"
	"github.com/hookd/hookd/internal/visibility"
)

// downEndpoint creates an endpoint for eventType whose receiver is down
// until told otherwise, retrying every second ten times.
func downEndpoint(t *testing.T, api *apiClient, eventType string) (*countingDown, endpoint) {
	t.Helper()
	rc := &countingDown{ok: map[string]int{}}
	srv := serve(t, http.HandlerFunc(rc.handler))
	schedule := []string{"1s", "1s", "1s", "1s", "1s", "1s", "1s", "1s", "1s", "1s"}
	return rc, api.createEndpoint(map[string]any{"url": srv.URL, "event_types": []string{eventType}, "retry_schedule": schedule})
}

// An outage opens the circuit and it re-opens until its cooldown is 8s;
// the receiver is fixed; a recover closes the circuit and every waiting
// delivery arrives within 5 seconds, well before its recorded wait ends.
// While the circuit was open, /test said so instead of sending.
func TestRecoverEndsTheWait(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	rc, ep := downEndpoint(t, api, "rec.test")
	var ids []string
	for range 3 {
		ids = append(ids, api.send(`{"type":"rec.test","payload":{}}`).Deliveries[0].ID)
	}

	// The shared instance's cooldown starts at 2s and doubles to 8s: wait
	// until every delivery waits on the circuit for more than 5s more.
	waits := map[string]time.Time{}
	require.Eventually(t, func() bool {
		for _, id := range ids {
			var d deliveryState
			if api.do("GET", "/v1/deliveries/"+id, nil, &d) != http.StatusOK || d.WaitReason != delivery.WaitCircuitOpen ||
				time.Until(d.NextAttemptAt) < 5500*time.Millisecond {
				return false
			}
			waits[id] = d.NextAttemptAt
		}
		return true
	}, 45*time.Second, 50*time.Millisecond, "every delivery waits on the open circuit")

	var refused apiError
	require.Equal(t, http.StatusConflict, api.do("POST", "/v1/endpoints/"+ep.ID+"/test", nil, &refused))
	assert.Equal(t, "circuit", refused.Error.Field)
	assert.Contains(t, refused.Error.Message, "circuit is open")

	rc.back()
	var rec wire.Recovered
	recovered := time.Now()
	require.Equal(t, http.StatusOK, api.do("POST", "/v1/endpoints/"+ep.ID+"/recover", map[string]string{"reason": "receiver fixed"}, &rec))
	assert.EqualValues(t, "open", rec.PreviousCircuit)
	assert.Equal(t, len(ids), rec.Woken)

	for _, id := range ids {
		d := api.waitDelivery(id, 5*time.Second)
		require.EqualValues(t, "delivered", d.Status, id)
		var full deliveryState
		require.Equal(t, http.StatusOK, api.do("GET", "/v1/deliveries/"+id, nil, &full))
		last := full.Timeline[len(full.Timeline)-1]
		require.EqualValues(t, "success", last.Outcome)
		assert.Less(t, last.Start.Sub(recovered), 5*time.Second, "%s attempted within 5s of the recover", id)
		assert.True(t, last.Start.Before(waits[id].Add(-time.Second)), "%s attempted before its wait would have ended", id)
	}
	rc.deliveredOnce(t, ids)
	var h health
	require.Equal(t, http.StatusOK, api.do("GET", "/v1/endpoints/"+ep.ID+"/health", nil, &h))
	assert.EqualValues(t, "closed", h.Circuit)
	assert.Zero(t, h.ConsecutiveFailures)

	// Each woken delivery's history holds who recovered it and why.
	sig, via := recoverIn(t, shared, ids[0])
	assert.Equal(t, "signal", via)
	assert.Equal(t, rec.By, sig.By)
	assert.EqualValues(t, "receiver fixed", sig.Reason)
}

// recoverIn returns the last recover signal or accepted recover update
// in the history of the delivery id on d, and which it was ("" if none).
func recoverIn(t *testing.T, d *app.Dev, id string) (sig delivery.RecoverSignal, via string) {
	t.Helper()
	it := d.Client.GetWorkflowHistory(context.Background(), id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		require.NoError(t, err)
		if a := ev.GetWorkflowExecutionSignaledEventAttributes(); a != nil && a.GetSignalName() == delivery.SignalRecover {
			require.NoError(t, d.DataConverter().FromPayloads(a.GetInput(), &sig))
			via = "signal"
		}
		if in := ev.GetWorkflowExecutionUpdateAcceptedEventAttributes().GetAcceptedRequest().GetInput(); in.GetName() == delivery.UpdateRecover {
			require.NoError(t, d.DataConverter().FromPayloads(in.GetArgs(), &sig))
			via = "update"
		}
	}
	return sig, via
}

// More deliveries wait on an open circuit than a round wakes as probers:
// the rest sleep for an hour. When the receiver is back, the probe closes
// the circuit and the wake-up ends every sleeper's hour with a recover
// update, so all arrive within seconds, once each.
func TestCircuitClosingWakesTheSleepers(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	rc, _ := downEndpoint(t, api, "sleep.test")
	var ids []string
	for range 20 {
		ids = append(ids, api.send(`{"type":"sleep.test","payload":{}}`).Deliveries[0].ID)
	}

	var sleeper string
	require.Eventually(t, func() bool {
		for _, id := range ids {
			var d deliveryState
			if api.do("GET", "/v1/deliveries/"+id, nil, &d) == http.StatusOK && d.WaitReason == delivery.WaitCircuitOpen &&
				time.Until(d.NextAttemptAt) > 30*time.Minute {
				sleeper = id
				return true
			}
		}
		return false
	}, 30*time.Second, 100*time.Millisecond, "a delivery sleeps until the circuit closes")

	rc.back()
	for _, id := range ids {
		d := api.waitDelivery(id, 30*time.Second)
		require.EqualValues(t, "delivered", d.Status, id)
	}
	rc.deliveredOnce(t, ids)

	// The sleeper's history holds the update that woke it.
	sig, via := recoverIn(t, shared, sleeper)
	assert.Equal(t, "update", via)
	assert.Equal(t, delivery.RecoverSignal{By: "hookd", Reason: "circuit closed"}, sig)
}

// A recover of a backlog larger than it signals at once answers at once,
// paced, and wakes the backlog in the background with recover updates:
// every delivery arrives within seconds (the circuit's own cooldown is a
// minute), once each, and its history says who recovered it and why. A
// hookd of its own, signalling at most 3 at once.
func TestRecoverPacesALargeBacklog(t *testing.T) {
	// Not parallel, as the codec tests: its own server runs before the
	// shared instance's parallel tests, not beside them.
	d, err := app.StartDevTuned(context.Background(), app.DevConfig{
		DataDir: t.TempDir(), HTTPAddr: "127.0.0.1:0", TemporalAddr: testkit.FreeAddr(t), Version: "test",
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})), TemporalLogLevel: slog.LevelError,
		WorkflowCacheSize: e2eWorkflowCache,
	}, app.Tuning{RecoverImmediate: 3})
	require.NoError(t, err)
	t.Cleanup(func() { d.Stop(context.Background()) })
	api := &apiClient{t: t, dev: d}
	rc, ep := downEndpoint(t, api, "pace.test")
	var ids []string
	for range 8 {
		ids = append(ids, api.send(`{"type":"pace.test","payload":{}}`).Deliveries[0].ID)
	}
	require.Eventually(t, func() bool {
		n, err := d.Client.CountWorkflow(context.Background(), &workflowservice.CountWorkflowExecutionsRequest{Query: visibility.Waiting(ep.ID).String()})
		return err == nil && n.GetCount() == int64(len(ids))
	}, 45*time.Second, 100*time.Millisecond, "every delivery waits on the open circuit")

	rc.back()
	var rec wire.Recovered
	require.Equal(t, http.StatusOK, api.do("POST", "/v1/endpoints/"+ep.ID+"/recover", map[string]string{"reason": "backlog"}, &rec))
	assert.Equal(t, len(ids), rec.Woken)
	assert.True(t, rec.Paced)
	for _, id := range ids {
		require.EqualValues(t, "delivered", api.waitDelivery(id, 10*time.Second).Status, id)
	}
	rc.deliveredOnce(t, ids)
	sig, via := recoverIn(t, d, ids[len(ids)-1])
	assert.Equal(t, "update", via)
	assert.Equal(t, delivery.RecoverSignal{By: rec.By, Reason: "backlog"}, sig)
}

// historyTrace is a workflow's history in one line per event: its type,
// and a signal's or an update's name, for a failure message.
func historyTrace(t *testing.T, d *app.Dev, id string) string {
	t.Helper()
	var b strings.Builder
	it := d.Client.GetWorkflowHistory(context.Background(), id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			fmt.Fprintf(&b, "history: %v\n", err)
			break
		}
		fmt.Fprintf(&b, "%d %s %s", ev.GetEventId(), ev.GetEventTime().AsTime().Format("15:04:05.000"), ev.GetEventType())
		if a := ev.GetWorkflowExecutionSignaledEventAttributes(); a != nil {
			fmt.Fprintf(&b, " %s", a.GetSignalName())
		}
		if a := ev.GetWorkflowExecutionUpdateAcceptedEventAttributes(); a != nil {
			fmt.Fprintf(&b, " %s", a.GetAcceptedRequest().GetInput().GetName())
		}
		if a := ev.GetWorkflowTaskFailedEventAttributes(); a != nil {
			fmt.Fprintf(&b, " %s", a.GetCause())
		}
		b.WriteString("\n")
	}
	return b.String()
}
